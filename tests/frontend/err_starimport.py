# `wp` from a star import of another module: kpyc cannot see it, and
# says so rather than compile an empty module (issue 14).
from warp_helpers import *  # noqa: F403


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@vendor.func
def f(x: float):
    return x
