import warp as wp


@wp.kernel
def k(a, n: int):
    i = wp.tid()
    a[i] = 1.0
