import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    for j in [1, 2, 3]:
        a[i] = float(j)
