# Warp definitions inside functions, classes and blocks are not compiled;
# kpyc warns about each one (cli.test checks the warnings).
import warp as wp


def make_kernel():
    @wp.kernel
    def inner(a: wp.array(dtype=float)):
        a[wp.tid()] = 1.0

    return inner


class Helpers:
    @wp.func
    def twice(x: float):
        return 2.0 * x


if wp.config.mode == "release":

    @wp.struct
    class State:
        x: float


@wp.kernel
def outer(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0
