# wp.div_approx (issue 14): Warp's signatures only (float scalars, and a
# vector, matrix or quaternion with a scalar of its type).
import warp as wp


@wp.kernel
def ints(a: wp.array(dtype=int)):
    a[0] = wp.div_approx(a[0], 2)


@wp.kernel
def vecvec(a: wp.array(dtype=wp.vec3)):
    a[0] = wp.div_approx(a[0], a[1])


@wp.kernel
def mixed(a: wp.array(dtype=wp.vec3), s: wp.float64):
    a[0] = wp.div_approx(a[0], s)
