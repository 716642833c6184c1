from typing import Any

import warp as wp


# vector(length, dtype=Any) is not a Warp annotation (Any has no _type_)
@wp.func
def first(v: wp.types.vector(3, Any)):
    return v[0]


@wp.kernel
def k(x: wp.array(dtype=float)):
    x[0] = first(wp.vec3(1.0, 2.0, 3.0))
