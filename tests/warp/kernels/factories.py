"""Functions made by a function factory called at the top level (issue 14):
Warp makes a new @wp.func at each call, reading the factory's parameters
from its closure; kpyc declares the function once per call with the
parameters bound to the call's arguments (positional, keyword, default),
overloads (one calling another through the factory's closure) and the
branch of an if on an argument; a struct factory makes a new struct type
per call."""
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


def make_pair(value: float):
    @wp.func
    def f():
        return value

    @wp.func
    def f(x: float):
        return f() * x

    return f


def make_cond(cond):
    if cond:

        @wp.func
        def f(x: float):
            return wp.sin(x)
    else:

        @wp.func
        def f(x: float):
            return wp.cos(x)

    return f


def make_struct(dtype, vec):
    if vec:

        @wp.struct
        class S:
            v: wp.types.vector(3, dtype)
    else:

        @wp.struct
        class S:
            v: dtype

    return S


const = make_const()
scale2 = make_scale(2.0)
scale3 = make_scale(dtype=wp.float64, value=3.0)
square = make_square(wp.constant(0.5))
pair2 = make_pair(2.0)
pair3 = make_pair(3.0)
sin_f = make_cond(True)
cos_f = make_cond(False)
SVec = make_struct(float, True)
SScalar = make_struct(wp.float64, False)


@wp.kernel
def struct_factories(p: SScalar, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = SVec()
    s.v = wp.vec3(x[i], 2.0, 3.0)
    y[i] = wp.dot(s.v, s.v) + float(p.v)


@wp.kernel
def factories(x: wp.array(dtype=float), d: wp.array(dtype=wp.float64), y: wp.array(dtype=float),
              e: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = scale2(x[i]) + const() + square(wp.sin(x[i]))
    y[i] += pair2() + pair2(x[i]) * pair3(x[i]) + sin_f(x[i]) * cos_f(x[i])
    e[i] = scale3(d[i])
