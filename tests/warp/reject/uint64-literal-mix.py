import warp as wp


@wp.kernel
def k(x: wp.array(dtype=wp.uint64)):
    x[0] = x[0] * 0xFF51AFD7ED558CCD
