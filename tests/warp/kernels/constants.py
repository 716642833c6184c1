"""Module constants built from sequences and composites (issue 14): a
vector or matrix type called with one list of its components, and
wp.transform(p, q) of a vector and a quaternion constant, read in a
kernel (components, .p, .q, wp.static)."""
import warp as wp

vec3bool = wp.types.vector(length=3, dtype=wp.bool)
mat22bool = wp.types.matrix((2, 2), dtype=wp.bool)
SELECT = wp.constant(vec3bool([True, False, True]))
MASK = wp.constant(mat22bool([True, False, False, True]))
XFORM = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.1, 0.2, 0.3, 0.9))
WEIGHTS = wp.constant(wp.vec4([0.5, 1.5, 2.5, 3.5]))


@wp.kernel
def constants(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    if SELECT[0]:
        s += 1.0
    if SELECT[1]:
        s += 2.0
    if MASK[1, 1]:
        s += 4.0
    y[i] = s * x[i] + XFORM.q[1] + XFORM.p[2] * wp.static(XFORM).q[3] + WEIGHTS[i % 4]
