# Reductions and scatters with atomics: many threads into few elements.
# BENCH sum_squares: dim=16777216 total=1
# BENCH max_abs: dim=16777216 result=1
# BENCH min_value: dim=16777216 result=1
# BENCH histogram: dim=16777216 bins=256
# BENCH dot_product: dim=16777216 result=1
# BENCH mse_loss: dim=16777216 loss=1
# BENCH segment_sum: dim=16777216 segment=dim:<4096 sums=4096
import warp as wp


@wp.kernel
def sum_squares(x: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    wp.atomic_add(total, 0, v * v)


@wp.kernel
def max_abs(x: wp.array(dtype=float), result: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_max(result, 0, wp.abs(x[i]))


@wp.kernel
def min_value(x: wp.array(dtype=float), result: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_min(result, 0, x[i])


@wp.kernel
def histogram(x: wp.array(dtype=float), bins: wp.array(dtype=int)):
    i = wp.tid()
    n = bins.shape[0]
    b = int((x[i] * 0.5 + 0.5) * float(n))
    b = wp.clamp(b, 0, n - 1)
    wp.atomic_add(bins, b, 1)


@wp.kernel
def dot_product(a: wp.array(dtype=float), b: wp.array(dtype=float), result: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(result, 0, a[i] * b[i])


@wp.kernel
def mse_loss(pred: wp.array(dtype=float), target: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    d = pred[i] - target[i]
    wp.atomic_add(loss, 0, d * d / float(pred.shape[0]))


@wp.kernel
def segment_sum(values: wp.array(dtype=float), segment: wp.array(dtype=int), sums: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(sums, segment[i], values[i])
