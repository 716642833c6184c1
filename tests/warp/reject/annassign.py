import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    x: float = 1.0
    a[i] = x
