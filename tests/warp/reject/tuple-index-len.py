import warp as wp


@wp.kernel
def k(x: wp.array(dtype=int)):
    t = (1, 2, 3)
    x[0] = t[len(t) - 1]
