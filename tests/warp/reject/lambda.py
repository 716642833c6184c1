import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    f = lambda y: y
    a[i] = f(1.0)
