import warp as wp

X = 999


@wp.kernel
def k(out: wp.array(dtype=int)):
    # wp.constant() is for module level; here kpyc took the module's X
    for X in range(3):
        out[X] = wp.constant(X)
