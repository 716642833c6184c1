import warp as wp


# a vector array is not an array of scalars
@wp.kernel
def k(arr: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
    out[0] = wp.lower_bound(arr, wp.vec3())
