import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    x = 0.0
    for j in range(n):
        x = x + 1.0
    a[i] = x
