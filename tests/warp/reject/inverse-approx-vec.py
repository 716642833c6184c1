import warp as wp


@wp.kernel
def k(v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v[i] = wp.inverse_approx(v[i])
