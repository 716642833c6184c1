"""Generic annotations that are patterns (issue 14): wp.Float, wp.Int,
wp.Scalar, wp.types.vector(Any, float), wp.types.vector(3, wp.Int),
wp.types.matrix((Any, Any), float), matrix((2, 2), wp.Scalar).  Warp
compiles a function so annotated for each call's argument types that fit
the pattern (type_matches_template); kpyc instantiates the same.  Each
kernel is compared with Warp's, forward and gradients."""
from typing import Any

import warp as wp

mat23 = wp.types.matrix((2, 3), float)

@wp.func
def vsum(v: wp.types.vector(Any, float)) -> float:
    s = float(0.0)
    for i in range(wp.static(len(v))):
        s += v[i] * float(i + 1)
    return s


@wp.func
def isum(v: wp.types.vector(3, wp.Int)) -> wp.Int:
    return v[0] + v[1] * v[2]


@wp.func
def fsum(v: wp.types.vector(length=3, dtype=wp.Float)) -> wp.Float:
    return v[0] * v[1] - v[2]


@wp.func
def ssq(x: wp.Scalar):
    return x * x


@wp.func
def mtrace(m: wp.types.matrix((Any, Any), float)) -> float:
    return m[0, 0] * float(len(m)) + m[len(m) - 1, 0]


@wp.func
def mcorner(m: wp.types.matrix(shape=(2, Any), dtype=wp.Scalar)):
    return m[1, 1] - m[0, 1]


@wp.func
def anyvec(v: wp.types.vector(Any, wp.Scalar)):
    return v[0] + v[len(v) - 1]


@wp.kernel
def vectors(x: wp.array(dtype=float), n: wp.array(dtype=wp.int16), y: wp.array(dtype=float),
            d: wp.array(dtype=wp.float64), k: wp.array(dtype=wp.int16)):
    i = wp.tid()
    a = x[i]
    y[i] = vsum(wp.vec2(a, 2.0 * a)) + vsum(wp.vec4(a, a * a, 1.0, -a)) + vsum(wp.vec3(a, 0.5, a))
    y[i] += fsum(wp.vec3(a, a, 3.0)) + ssq(a)
    d[i] = fsum(wp.vec3d(wp.float64(a), 2.0, 1.0)) + ssq(wp.float64(a)) + anyvec(wp.vec3d(1.0, 2.0, wp.float64(a)))
    k[i] = isum(wp.vec3s(n[i], wp.int16(2), wp.int16(3))) + ssq(n[i]) + anyvec(wp.vec2s(n[i], wp.int16(1)))


@wp.kernel
def matrices(x: wp.array(dtype=float), y: wp.array(dtype=float), d: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = x[i]
    y[i] = mtrace(wp.mat22(a, 1.0, 2.0, a * a)) + mtrace(wp.mat33(a, 0.0, 0.0, 0.0, 2.0 * a, 0.0, 0.0, 0.0, 1.0))
    y[i] += mtrace(mat23(a, 1.0, 2.0, 3.0, a, 5.0))
    y[i] += mcorner(wp.mat22(a, 2.0, 3.0, a * 3.0)) + mcorner(mat23(1.0, a, 2.0, 3.0, 4.0, a))
    d[i] = mcorner(wp.mat22d(1.0, wp.float64(a), 3.0, 4.0))


@wp.kernel
def generic_vec_param(v: wp.types.vector(Any, float), x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = vsum(v) * x[i]


wp.overload(generic_vec_param, {"v": wp.vec2})
wp.overload(generic_vec_param, {"v": wp.vec4})


@wp.kernel
def type_attrs(a: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    # type(a).dtype: the array type's element type; a.dtype.dtype: its scalar
    i = wp.tid()
    z = type(a[i])()
    c = type(a).dtype(a[i]) * a.dtype.dtype(2.0)
    out[i] = c + z


wp.overload(type_attrs, [wp.array(dtype=wp.vec3), wp.array(dtype=wp.vec3)])
wp.overload(type_attrs, [wp.array(dtype=wp.mat22d), wp.array(dtype=wp.mat22d)])
