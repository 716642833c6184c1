"""Arrays written through a view or by a called function: the harness must
count them as outputs (seeded adjoints), not as inputs whose adjoints it
compares with Warp's (warpdiff.py array_uses)."""
import warp as wp


@wp.func
def add_to(arr: wp.array(dtype=float), i: int, v: float):
    wp.atomic_add(arr, i, v)


@wp.kernel
def write_through_view(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    row = y[i]
    row[j] = x[i, j] * x[i, j]


@wp.kernel
def write_in_func(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    add_to(y, i, wp.sin(x[i]) * 2.0)
