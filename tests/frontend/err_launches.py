# Generic kernels instantiated from the file's launches (issue 14): an
# overload read from a launch is compiled, and its errors reported, as
# Warp does at that launch; a launch whose types kpyc cannot read without
# running the file is reported (and without any readable launch the
# kernel is left out, with a warning).
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
    a = wp.zeros(4, dtype=int)
    wp.launch(scale, dim=n, inputs=[a, 2.5])
    b = wp.zeros(4, dtype=float)
    b = wp.ones(4, dtype=float)
    wp.launch(unread, dim=n, inputs=[b])


@wp.kernel
def partly(a: wp.array(dtype=Any)):
    a[wp.tid()] = a.dtype(2)


def run2(n, args):
    shape = (3,)
    a = wp.zeros(shape, dtype=wp.float64)
    wp.launch(partly, dim=n, inputs=[a])
    b = wp.zeros(a.shape, dtype=wp.float16)
    wp.launch(partly, dim=n, inputs=[b])
    wp.launch(partly, dim=n, inputs=args)
    wp.launch(partly, dim=n, inputs=[a, a])
