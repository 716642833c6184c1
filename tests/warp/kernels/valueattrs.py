"""v.length and v.dtype of a value (issue 14): Warp's
resolve_type_attribute reads them from the value's type: the component
count (a matrix's rows * cols, 4 for a quaternion, 7 for a transform, 1
for a scalar) and the scalar type."""
import warp as wp

mat23d = wp.types.matrix(shape=(2, 3), dtype=wp.float64)

@wp.kernel
def value_attrs(x: wp.array(dtype=float), q: wp.array(dtype=wp.quat), out: wp.array(dtype=float),
                n: wp.array(dtype=int)):
    i = wp.tid()
    v = wp.vec3(x[i], 1.0, 2.0)
    m = mat23d()
    t = wp.transform_identity()
    s = x[i]
    flag = x[i] > 0.0
    ident = wp.identity(n=v.length, dtype=v.dtype)
    out[i] = (ident * v)[2] * float(m.length) + s.dtype(q[i].length) * s + float(m.dtype(2.5))
    n[i] = t.length * 100 + s.length * 10 + flag.length + v.length * 1000
