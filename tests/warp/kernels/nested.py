"""Kernels nested in functions that read only module names (issue 14):
kpyc compiles them as OUTER__NAME."""
import warp as wp

SCALE = 3.0


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


saxpy = make_saxpy()
series = make_series(1)[0]
