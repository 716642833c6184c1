import warp as wp


# a float vector does not fit vector(3, wp.Int)
@wp.func
def isum(v: wp.types.vector(3, wp.Int)):
    return v[0] + v[1]


@wp.kernel
def k(x: wp.array(dtype=float)):
    x[0] = isum(wp.vec3(1.0, 2.0, 3.0))
