import warp as wp


# `not` takes a bool, an integer or an array (true when it has storage);
# a vector is none of them
@wp.kernel
def k(a: wp.array(dtype=wp.vec3), n: wp.array(dtype=int)):
    if not a[0]:
        n[0] = 1
