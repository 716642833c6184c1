"""Template keywords of concrete type constructors and array attributes
(issue 14): Warp accepts length=, shape= and dtype= equal to the type's
own (mat32d(c, shape=(3, 2))), and reads a.dtype (the element type, a
constructor) and a.ndim in kernels."""
from typing import Any

import warp as wp

mat32d = wp.types.matrix(shape=(3, 2), dtype=wp.float64)


# warpdiff: kernel=ctorkw {"dim":[4],"shapes":{"n":[4,1]}}
@wp.kernel
def ctorkw(x: wp.array(dtype=wp.float64), m: wp.array(dtype=mat32d), v: wp.array(dtype=wp.vec3),
           q: wp.array(dtype=wp.quat), n: wp.array2d(dtype=int)):
    i = wp.tid()
    c = mat32d(x[i], x[i] * x[i], 1.0, 2.0, 3.0, x[i])
    m[i] = mat32d(c, shape=(3, 2)) + mat32d(x[i], shape=(3, 2), dtype=wp.float64)
    f = float(x[i])
    v[i] = wp.vec3(f, length=3) + wp.vec3(f, 2.0, 3.0, dtype=wp.float32)
    q[i] = wp.quat(f, 0.0, 0.0, 1.0, dtype=wp.float32)
    n[i, 0] = x.ndim + n.ndim * 10 + int(x.dtype(2.5) * x.dtype(2.0))


@wp.kernel
def generic_dtype(a: wp.array(dtype=Any), b: wp.array(dtype=Any)):
    i = wp.tid()
    b[i] = a[i] * a.dtype(3) + type(a[i])(1)


wp.overload(generic_dtype, [wp.array(dtype=wp.float32), wp.array(dtype=wp.float32)])
wp.overload(generic_dtype, [wp.array(dtype=wp.float64), wp.array(dtype=wp.float64)])
