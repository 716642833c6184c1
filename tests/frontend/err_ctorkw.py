# Template keywords of concrete type constructors (issue 14): only the
# type's own length, shape and dtype, as Warp checks them.
import warp as wp

mat32d = wp.types.matrix(shape=(3, 2), dtype=wp.float64)


@wp.kernel
def shape(out: wp.array(dtype=mat32d)):
    out[0] = mat32d(mat32d(), shape=(2, 3))


@wp.kernel
def length(out: wp.array(dtype=wp.vec3)):
    out[0] = wp.vec3(1.0, length=2)


@wp.kernel
def pydtype(out: wp.array(dtype=wp.vec3)):
    out[0] = wp.vec3(1.0, dtype=float)


@wp.kernel
def otherkw(out: wp.array(dtype=wp.quat)):
    out[0] = wp.quat(0.0, 0.0, 0.0, 1.0, foo=2)


@wp.kernel
def attr(out: wp.array(dtype=float)):  # kpyc: differs from Warp: a.size
    out[0] = float(out.size)
