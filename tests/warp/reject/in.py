import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i in (1, 2):
        a[i] = 1.0
