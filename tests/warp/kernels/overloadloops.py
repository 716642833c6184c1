"""Overloads of generic kernels declared by a top-level loop over types
(issue 14): Warp declares one overload per element (for T in (...),
for A, B in [(...), ...], [wp.array(dtype=T)] * 3); kpyc reads such a
loop when its body is wp.overload calls only."""
from typing import Any
import warp as wp


@wp.kernel
def scale(a: wp.array(dtype=Any), b: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    b[i] = a[i] * s


for T in (wp.float32, wp.float64):
    wp.overload(scale, [wp.array(dtype=T), wp.array(dtype=T), T])

for V, S in [(wp.vec3, wp.float32), (wp.vec2d, wp.float64)]:
    wp.overload(scale, {"a": wp.array(dtype=V), "b": wp.array(dtype=V), "s": S})


@wp.kernel
def add3(a: wp.array(dtype=Any), b: wp.array(dtype=Any), c: wp.array(dtype=Any)):
    i = wp.tid()
    c[i] = a[i] + b[i]


for T in (wp.float16, wp.int32):
    wp.overload(add3, [wp.array(dtype=T)] * 3)
