# Warp definitions inside functions, classes and blocks (issue 14): a
# kernel directly in a function is compiled as FUNCTION__NAME when the
# names of the function it reads are bound once to a constant expression
# (Warp reads them from the closure, so reading the module's N or dtype
# here would be wrong); else it is left out with a warning, like every
# other nested definition (cli.test checks them).
import warp as wp

N = 4
dtype = wp.float64


def make_kernel():
    @wp.kernel
    def inner(a: wp.array(dtype=float)):
        a[wp.tid()] = float(N)

    return inner


def make_scaled(N):
    @wp.kernel
    def scaled(a: wp.array(dtype=float)):
        a[wp.tid()] = float(N)

    return scaled


def make_typed(dtype):
    @wp.kernel
    def typed(a: wp.array(dtype=dtype)):
        a[wp.tid()] = a[wp.tid()]

    return typed


def make_constant():
    M = N + 1
    T = wp.float32

    @wp.kernel
    def constant(a: wp.array(dtype=T)):
        a[wp.tid()] = T(M)

    return constant


def make_rebound():
    M = 1
    M = 2

    @wp.kernel
    def rebound(a: wp.array(dtype=float)):
        a[wp.tid()] = float(M)

    return rebound


def outer_factory():
    def inner_factory():
        @wp.kernel
        def deep(a: wp.array(dtype=float)):
            a[wp.tid()] = 3.0

        return deep

    return inner_factory


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
