"""Constant attributes of a plain class read in a kernel (issue 14): Warp
resolves CLASS.NAME to the attribute's value, a constant."""
import warp as wp


class Params:
    """constants read by kernels"""
    SCALE = wp.constant(2.5)
    N = 3
    OFF = wp.constant(wp.vec3(1.0, 2.0, 3.0))
    ENABLED = False
    name = "x"

    def method(self):
        return 1


@wp.kernel
def class_consts(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * Params.SCALE + float(Params.N) + Params.OFF[1]
    if Params.ENABLED:
        a[i] = 0.0
    for j in range(Params.N):
        a[i] += float(j)
