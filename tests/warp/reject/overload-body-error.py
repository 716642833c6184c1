from typing import Any

import warp as wp


@wp.kernel
def k(x: wp.array(dtype=Any), s: Any):
    x[wp.tid()] = s


wp.overload(k, [wp.array(dtype=float), float])
wp.overload(k, [wp.array(dtype=float), wp.vec3])
