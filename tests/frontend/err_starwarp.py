# `from warp import *`: kpyc does not read the names a star import binds,
# not even Warp's, and says so (the kernel compiled to nothing, exit 0).
import warp as wp
from warp import *  # noqa: F403


@kernel  # noqa: F405
def k(a: wp.array(dtype=float)):  # kpyc: differs from Warp: star imports are not read
    a[wp.tid()] = 1.0
