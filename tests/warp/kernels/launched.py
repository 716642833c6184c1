"""Generic kernels without wp.overload, launched in the file (issue 14):
Warp instantiates them at each launch for the arguments' types; kpyc
reads the launches of the file's top-level functions and declares those
overloads where it can read the types without running anything
(literals, wp.TYPE(...), arrays from wp.zeros/empty/ones/full/array with
a dtype, locals bound once to those).  The module runs its launches at
import, so Warp's overloads (in launch order) are the ones compared."""
from typing import Any

import warp as wp


@wp.kernel
def scale_launched(a: wp.array(dtype=Any), s: Any, out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.kernel
def fill_launched(a: wp.array2d(dtype=Any), v: Any):
    i, j = wp.tid()
    a[i, j] = v


def run():
    a = wp.zeros(4, dtype=float)
    out = wp.empty(4, dtype=wp.float32)
    wp.launch(scale_launched, dim=4, inputs=[a, 2.0], outputs=[out])
    d = wp.ones(shape=8, dtype=wp.float64)
    wp.launch(scale_launched, 8, [d, wp.float64(3.0), d])
    v = wp.array([1, 2, 3], dtype=wp.vec3)
    wp.launch(scale_launched, dim=1, inputs=[v, 2.0, v])
    wp.launch(scale_launched, dim=4, inputs=[a, 2.0, out])
    m = wp.zeros((3, 4), dtype=int)
    wp.launch(fill_launched, dim=(3, 4), inputs=[m, 7])
    n = wp.zeros((2, 2), dtype=wp.vec2)
    wp.launch(fill_launched, dim=(2, 2), inputs=[n, wp.vec2(1.0, 2.0)])


run()
