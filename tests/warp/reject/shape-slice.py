import warp as wp


@wp.kernel
def k(a: wp.array2d(dtype=float), out: wp.array(dtype=int), d: int):
    i = wp.tid()
    out[i] = a.shape[0:1]
