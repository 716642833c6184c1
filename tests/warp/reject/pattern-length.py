from typing import Any

import warp as wp


# a 3x3 matrix does not fit matrix((2, Any), float)
@wp.func
def corner(m: wp.types.matrix((2, Any), float)):
    return m[1, 1]


@wp.kernel
def k(x: wp.array(dtype=float)):
    x[0] = corner(wp.mat33())
