import warp as wp


@wp.kernel(module="unique", module_options={"fast_mth": True})
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0
