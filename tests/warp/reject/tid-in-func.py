import warp as wp


@wp.func
def f(x: float):
    i = wp.tid()
    return x


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = f(1.0)
