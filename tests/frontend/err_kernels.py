# Kernel signatures and returns.
import warp as wp


@wp.kernel
def no_annotation(a, b: int):
    pass


@wp.kernel
def returns_value(a: wp.array(dtype=float)) -> float:
    return a[0]


@wp.kernel
def returns_in_body(a: wp.array(dtype=float)):
    return a[0]


@wp.kernel
def bad_annotation(a: wp.array(dtype=float), b: not_a_type):
    pass


@wp.func
def uses_tid(x: float) -> float:
    i = wp.tid()
    return x


@wp.kernel
def calls_tid_func(a: wp.array(dtype=float)):
    a[0] = uses_tid(a[0])
