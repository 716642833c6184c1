# Generic kernels instantiated from the file's launches (issue 14): an
# overload read from a launch is compiled, and its errors reported, as
# Warp does at that launch; a launch whose types kpyc cannot read without
# running the file leaves the kernel out, with a warning.
from typing import Any

import warp as wp


@wp.kernel
def scale(a: wp.array(dtype=Any), s: Any):  # kpyc: differs from Warp: Warp fails at the launch (not run here)
    i = wp.tid()
    a[i] = a[i] * s


@wp.kernel
def unread(a: wp.array(dtype=Any)):
    a[wp.tid()] = a.dtype(1)


def run(n):
    a = wp.zeros(n, dtype=int)
    wp.launch(scale, dim=n, inputs=[a, 2.5])
    b = wp.zeros(n, dtype=float)
    b = wp.ones(n, dtype=float)
    wp.launch(unread, dim=n, inputs=[b])
