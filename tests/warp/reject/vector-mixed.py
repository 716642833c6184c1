import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    v = wp.types.vector(1.0, 2)
    a[i] = v[0]
