"""User functions: overloads, generic (typing.Any) functions instantiated
per argument types, keyword arguments and defaults, multiple return
values, structs passed and returned, functions defined after their
callers, and constants from the module."""
from typing import Any

import warp as wp

GRAVITY = wp.constant(wp.vec3(0.0, -9.8, 0.0))
DAMPING = 0.99
STEPS = 4


@wp.struct
class Body:
    pos: wp.vec3
    vel: wp.vec3
    mass: float


@wp.func
def lerp3(a: wp.vec3, b: wp.vec3, t: float = 0.5) -> wp.vec3:
    return a + (b - a) * t


@wp.func
def square(x: float):
    return x * x


@wp.func
def square(x: int):
    return x * x


@wp.func
def twice(x: Any):
    return x + x


@wp.func
def first(a: wp.array(dtype=Any), i: int):
    return a[i]


@wp.func
def step_body(b: Body, dt: float) -> Body:
    r = Body()
    r.vel = (b.vel + GRAVITY * dt) * DAMPING
    r.pos = b.pos + r.vel * dt
    r.mass = b.mass
    return r


@wp.func
def minmax(a: float, b: float):
    if a < b:
        return a, b
    return b, a


@wp.kernel
def use_funcs(
    bodies: wp.array(dtype=Body),
    xs: wp.array(dtype=float),
    ns: wp.array(dtype=int),
    vs: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    b = bodies[i]
    for s in range(STEPS):
        b = step_body(b, dt=0.01)
    bodies[i] = b
    xs[i] = square(xs[i]) + twice(xs[i]) + first(xs, 0)
    ns[i] = square(ns[i]) + twice(ns[i]) + first(ns, 0)
    vs[i] = lerp3(vs[i], b.pos) + lerp3(vs[i], b.pos, 0.25) + twice(vs[i]) + first(vs, i)
    lo, hi = minmax(xs[i], 1.0)
    xs[i] = later(lo, hi)


@wp.func
def later(a: float, b: float) -> float:
    return wp.sqrt(a * a + b * b)


@wp.func
def unused_helper(x: float) -> float:
    return x * 3.0

# GPURACE: use_funcs (first(xs, 0) and first(ns, 0) read element 0, which thread 0 writes)
