"""Kernels nested in functions (issue 14), which kpyc compiles as
OUTER__NAME: reading module names, and names the function binds once to a
constant expression (Warp reads those from the closure: never the module's
N here)."""
import warp as wp

SCALE = 3.0
N = 2


@wp.func
def twice(x: float):
    return 2.0 * x


def make_saxpy():
    @wp.kernel
    def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = SCALE * x[i] + twice(y[i])

    return saxpy


def make_series(unused: int):
    n = unused + 1

    @wp.kernel
    def series(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        s = float(0.0)
        for j in range(3):
            s += x[i] * float(j) + SCALE
        out[i] = s

    return series, n


def make_closure_consts():
    N = 8
    dtype = wp.float64
    twice_n = N * 2

    @wp.kernel
    def affine(x: wp.array(dtype=dtype), out: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = x[i] * dtype(twice_n) + dtype(SCALE) + dtype(N)

    return affine


saxpy = make_saxpy()
affine = make_closure_consts()
series = make_series(1)[0]
