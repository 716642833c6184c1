from typing import Any

import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float), s: Any):
    x[wp.tid()] = float(s)


wp.overload(k, {"scale": float})
