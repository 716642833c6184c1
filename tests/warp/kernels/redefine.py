"""A @wp.func redefined with the same signature (issue 14): the module
name calls the later definition, and a name bound to the earlier one
before (f1 = f) still calls that one, as in Warp."""
import warp as wp


@wp.func
def level(x: float):
    return x + 17.0


level_1 = level


@wp.func
def level(x: float):
    return x * 42.0


level_2 = level


@wp.kernel
def redefine(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = level(x[i]) + level_1(x[i]) * 3.0 + level_2(x[i]) * 5.0
