from typing import Any

import warp as wp


@wp.kernel
def k(x: wp.array(dtype=Any), s: Any):
    x[wp.tid()] = s


@wp.overload
def k(x: wp.array(dtype=float), s: float):
    x[0] = s
