"""warp._src.types' type-hint classes (issue 14): Vector[dtype, Literal[n]],
Vector[dtype, n], Matrix[dtype, rows, cols], Quaternion[dtype] and
Transformation[dtype] are the types vector(), matrix(), quaternion() and
transformation() make."""
from typing import Literal

import warp as wp
from warp._src.types import Matrix, Quaternion, Transformation, Vector

V3 = Vector[wp.float32, Literal[3]]


@wp.kernel
def hint_types(
    p: wp.array(dtype=V3),
    q: wp.array(dtype=Vector[float, 4]),
    m: wp.array(dtype=Matrix[wp.float32, Literal[2], 3]),
    r: wp.array(dtype=Quaternion[float]),
    t: wp.array(dtype=Transformation[wp.float32]),
    out: wp.array(dtype=float),
):
    i = wp.tid()
    v = m[i] * p[i]
    out[i] = wp.length(p[i]) + q[i][3] * v[1] + wp.dot(r[i], r[i]) + wp.transform_point(t[i], p[i])[0]
