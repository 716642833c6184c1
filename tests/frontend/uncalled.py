"""Functions no kernel calls: Warp never compiles them, so an error in one
is only a warning for kpyc, and the function is left out; the others are
compiled for their own sake.  A generic kernel is skipped (Warp compiles
it only for the types it is launched with)."""
from typing import Any

import warp as wp


@wp.func
def broken(x: float) -> float:
    return x + 1


@wp.func
def fine(x: float) -> float:
    return x * 2.0


@wp.func
def generic_unused(x: Any):
    return x


@wp.kernel
def generic_kernel(a: wp.array(dtype=Any)):
    a[0] = a[1]


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = 1.0
