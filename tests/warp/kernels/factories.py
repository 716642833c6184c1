"""Functions made by a function factory called at the top level (issue 14):
Warp makes a new @wp.func at each call, reading the factory's parameters
from its closure; kpyc declares the function once per call with the
parameters bound to the call's arguments (positional, keyword, default)."""
from typing import Any

import warp as wp


def make_const():
    """no closure"""

    @wp.func
    def f():
        return 17.0

    return f


def make_scale(value: float, dtype=float):
    @wp.func
    def f(x: dtype):
        return x * dtype(value)

    return f


def make_square(offset):
    @wp.func
    def f(x: Any):
        return x * x + offset

    return f


const = make_const()
scale2 = make_scale(2.0)
scale3 = make_scale(dtype=wp.float64, value=3.0)
square = make_square(wp.constant(0.5))


@wp.kernel
def factories(x: wp.array(dtype=float), d: wp.array(dtype=wp.float64), y: wp.array(dtype=float),
              e: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = scale2(x[i]) + const() + square(wp.sin(x[i]))
    e[i] = scale3(d[i])
