# Warp's deterministic mode (issue 14): kpyc accepts a kernel only where it
# can vouch that Warp does too (det.c, detcheck); these Warp accepts, but
# kpyc rejects them, located, rather than guess Warp's rules for them.
# (What both reject is in tests/warp/reject/det-*.py.)
import warp as wp

wp.set_module_options({"deterministic": wp.DeterministicMode.RUN_TO_RUN})


@wp.func
def add_to(out: wp.array(dtype=float), v: float):
    wp.atomic_add(out, 0, v)


@wp.kernel
def in_func(x: wp.array(dtype=float), out: wp.array(dtype=float)):  # kpyc: differs from Warp: atomics in a func
    add_to(out, x[wp.tid()])


@wp.kernel
def through_view(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):  # kpyc: differs from Warp: view target
    i = wp.tid()
    row = out[i % 2]
    wp.atomic_add(row, 0, x[i])


@wp.kernel
def counter(x: wp.array(dtype=float), n: wp.array(dtype=int), out: wp.array(dtype=float)):  # kpyc: differs from Warp: two-pass counters
    i = wp.tid()
    slot = wp.atomic_add(n, 0, 1)
    out[slot] = x[i]


@wp.kernel
def shape_use(x: wp.array(dtype=float), out: wp.array(dtype=float)):  # kpyc: differs from Warp: other uses
    i = wp.tid()
    wp.atomic_add(out, i % out.shape[0], x[i])
