from typing import Literal

import warp as wp
from warp._src.types import Vector


# Vector's length must be a positive integer
@wp.kernel
def k(p: wp.array(dtype=Vector[wp.float32, Literal[0]]), out: wp.array(dtype=float)):
    out[0] = wp.length(p[0])
