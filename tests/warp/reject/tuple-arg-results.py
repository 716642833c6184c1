from typing import Any

import warp as wp


@wp.func
def first(values: Any):
    return values[0] + values[1]


@wp.func
def pair(a: float):
    return a * 2.0, a + 1.0


# a call's two results are not a tuple argument (bound to a local they are)
@wp.kernel
def k(x: wp.array(dtype=float)):
    x[1] = first(pair(x[0]))
