# `wp` from a star import of another module (as in Warp's own tests): kpyc
# cannot see it, and says so rather than compile an empty module (issue 14).
from warp.tests.unittest_utils import *  # noqa: F403 (it binds wp; kpyc cannot see that)


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


@vendor.func
def f(x: float):
    return x
