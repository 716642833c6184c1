# Sorting networks and scans: one pass of each per launch.
# BENCH bitonic_step: dim=16777216 j=64 k=256
# BENCH scan_step: dim=16777216 offset=1024
# BENCH odd_even_step: dim=8388608 keys=16777216 out=16777216 phase=1
# BENCH gather_permute: dim=16777216 perm=dim:<16777216
import warp as wp


@wp.kernel
def bitonic_step(keys: wp.array(dtype=float), out: wp.array(dtype=float), j: int, k: int):
    i = wp.tid()
    l = i ^ j
    a = keys[i]
    b = keys[l]
    up = (i & k) == 0
    lo = wp.min(a, b)
    hi = wp.max(a, b)
    if l > i:
        if up:
            out[i] = lo
        else:
            out[i] = hi
    else:
        if up:
            out[i] = hi
        else:
            out[i] = lo


@wp.kernel
def scan_step(src: wp.array(dtype=float), dst: wp.array(dtype=float), offset: int):
    i = wp.tid()
    v = src[i]
    if i >= offset:
        v = v + src[i - offset]
    dst[i] = v


@wp.kernel
def odd_even_step(keys: wp.array(dtype=float), out: wp.array(dtype=float), phase: int):
    t = wp.tid()
    i = 2 * t + phase
    n = keys.shape[0]
    if i + 1 < n:
        a = keys[i]
        b = keys[i + 1]
        out[i] = wp.min(a, b)
        out[i + 1] = wp.max(a, b)


@wp.kernel
def gather_permute(src: wp.array(dtype=float), perm: wp.array(dtype=int), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[perm[i]]
