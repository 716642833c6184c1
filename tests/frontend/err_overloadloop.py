# Overloads declared by a top-level loop over types (issue 14): each
# element's overload is checked as Warp's add_overload checks it.
from typing import Any

import warp as wp


@wp.kernel
def arity(a: wp.array(dtype=Any), b: wp.array(dtype=Any)):
    i = wp.tid()
    b[i] = a[i]


for T in (wp.float32, wp.float64):
    wp.overload(arity, [wp.array(dtype=T)])


@wp.kernel
def fits(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    a[i] = s


for T, S in ((wp.float32, wp.float32), (wp.float64, wp.array(dtype=float))):
    wp.overload(fits, [wp.array(dtype=T), S])
