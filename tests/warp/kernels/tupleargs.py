"""Tuples passed to functions (issue 14): parameters annotated
tuple[T, U], tuple[T, ...] or Any take a tuple (a literal, a local,
a local bound to a function's results); Warp instantiates the function per tuple type.
kpyc passes the elements as parameters in turn.  Forward only, as in
tuples.py: Warp 1.19's backward gives zero adjoints through tuples
(central differences agree with kpy's gradients), so it is no oracle."""
from typing import Any

import warp as wp


@wp.func
def weighted(values: tuple[wp.vec3, float]) -> float:
    return wp.length(values[0]) * values[1]


@wp.func
def total(values: tuple[float, ...]):
    out = float(0.0)
    for i in range(wp.static(len(values))):
        out += values[i] * float(i + 1)
    for i in range(len(values)):
        out += values[i] * values[i]
    return out


@wp.func
def first_last(values: Any):
    return values[0] - values[1] * type(values[0])(len(values))


@wp.func
def pair(a: float):
    return a * 2.0, a + 1.0


@wp.kernel(enable_backward=False)
def tuple_args(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), y: wp.array(dtype=float)):
    i = wp.tid()
    a = x[i]
    t = (v[i], a)
    y[i] = weighted(t) + weighted((v[i] * 2.0, a * a))
    y[i] += total((a,)) + total((a, 2.0 * a)) + total((a, 1.0, a * a, -a))
    p = pair(a)
    y[i] += first_last((a, 3.0, a * 5.0)) + first_last(p)


@wp.kernel(enable_backward=False)
def int_tuples(n: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    k = n[i]
    out[i] = first_last((k, 2, k * k)) + first_last((k, 7))
