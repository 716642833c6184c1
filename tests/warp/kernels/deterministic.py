"""Warp's deterministic mode (issue 14): on the CPU Warp runs the threads in
order and keeps plain atomics, so kernels it accepts in that mode give the
default mode's results, which kpyc compiles.  Scatter targets (float arrays
updated atomically) that are not otherwise used, one family of updates
each; integer atomics as statements, next to reads of the same array."""
import warp as wp

# warpdiff: kernel=det_per_kernel {"dim":[4,5],"shapes":{"x":[4,5],"acc":[5]}}

wp.set_module_options({"deterministic": wp.DeterministicMode.RUN_TO_RUN, "deterministic_max_records": 8})


@wp.kernel
def det_scatter(x: wp.array(dtype=float), idx: wp.array(dtype=int), total: wp.array(dtype=float),
            hi: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.atomic_add(total, idx[i] % 4, x[i] * x[i])
    total[0] -= 0.5 * x[i]
    wp.atomic_max(hi, 0, wp.sin(x[i]))
    v[idx[i] % 2] += wp.vec3(x[i], 2.0 * x[i], 1.0)


@wp.kernel
def det_counts(idx: wp.array(dtype=int), hist: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(hist, idx[i] % 4, 1)
    hist[i % 4] += 1
    out[i] = idx[i] * 2


@wp.kernel(module="unique", module_options={"deterministic": wp.DeterministicMode.GPU_TO_GPU})
def det_per_kernel(x: wp.array2d(dtype=float), acc: wp.array(dtype=float)):
    i, j = wp.tid()
    for k in range(3):
        acc[(i + j + k) % 5] += x[i, j] * float(k + 1)
