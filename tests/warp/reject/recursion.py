import warp as wp


@wp.func
def f(x: float) -> float:
    return f(x)


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = f(1.0)
