import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    a[i] = wp.select(n > 0, 1.0, 2.0)
