"""A kernel annotated `-> types.NoneType` (Warp's test_codegen): the same
as `-> None`, no value returned."""
import types

import warp as wp


@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)) -> types.NoneType:
    i = wp.tid()
    y[i] = 2.0 * x[i] * x[i]
