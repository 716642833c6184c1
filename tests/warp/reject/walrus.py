import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    if (x := a[i]) > 0.0:
        a[i] = x
