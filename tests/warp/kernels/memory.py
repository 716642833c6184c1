"""Atomics and reductions (integers exactly; floats summed in a fixed order
are not guaranteed, so float reductions here are into distinct slots)."""
import warp as wp


@wp.kernel
def reduce_int(a: wp.array(dtype=wp.int32), total: wp.array(dtype=wp.int32), mx: wp.array(dtype=wp.int32), mn: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_add(total, 0, a[i])
    wp.atomic_max(mx, 0, a[i])
    wp.atomic_min(mn, 0, a[i])
    total[1] += 1


@wp.kernel
def scatter(a: wp.array(dtype=float), out: wp.array(dtype=float), cnt: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] += a[i] * 2.0
    out[i] -= 0.5
    wp.atomic_add(cnt, i % 4, 1)


@wp.kernel
def minmax_float(x: wp.array(dtype=float), hi: wp.array(dtype=float), lo: wp.array(dtype=wp.vec2)):
    # float atomic_min/max into few slots: the gradient follows Warp's rule,
    # which compares each value with the slot's final contents (the backward
    # sees the arrays as the forward left them)
    i = wp.tid()
    wp.atomic_max(hi, i % 3, x[i] * 2.0 + 0.5)
    wp.atomic_min(lo, i % 2, wp.vec2(x[i], -x[i] * x[i]))
