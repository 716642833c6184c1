"""Generic kernels (typing.Any parameters): Warp builds one kernel per
wp.overload the module declares (a list, a dict of the generic parameters,
an @wp.overload stub); kpyc compiles the same instances, named NAME__ and
the mangled argument types (issue 14).  Each is compared with Warp's."""
from typing import Any

import warp as wp


@wp.func
def twice(a: Any):
    return a + a


@wp.kernel
def generic_scale(x: wp.array(dtype=Any), s: Any, y: wp.array(dtype=Any)):
    i = wp.tid()
    y[i] = s * twice(x[i])


scale_f32 = wp.overload(generic_scale, [wp.array(dtype=wp.float32), wp.float32, wp.array(dtype=wp.float32)])
wp.overload(generic_scale, [wp.array(dtype=wp.vec3), float, wp.array(dtype=wp.vec3)])
wp.overload(generic_scale, [wp.array(dtype=wp.float64), wp.float64, wp.array(dtype=wp.float64)])
wp.overload(generic_scale, [wp.array(dtype=int), int, wp.array(dtype=int)])


@wp.kernel
def generic_accumulate(a: wp.array(dtype=wp.float64), value: Any, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = a[i] * wp.float64(value)


wp.overload(generic_accumulate, {"value": int})
wp.overload(generic_accumulate, {"value": float})
wp.overload(generic_accumulate, {"value": float})  # the same overload again: one kernel


@wp.kernel
def generic_transform(m: Any, v: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = wp.mul(m, v[i]) + wp.length(v[i]) * v[i]


@wp.overload
def generic_transform(m: wp.mat22, v: wp.array(dtype=wp.vec2), out: wp.array(dtype=wp.vec2)):
    ...


@wp.overload
def generic_transform(m: wp.mat33d, v: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d)):
    """a docstring is a body Warp allows"""
