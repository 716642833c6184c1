import warp as wp


@wp.kernel(module="unique", name="1invalid")
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0
