"""Edge cases that random inputs in [-1, 1] never reach: zeros, ties,
clamp with lo > hi, unsigned values above 2**31, negative shifts, constant
conversions and integer floor division.  Each line is here because a
deliberate fault of `make mutants` (tests/mutants/mutants.txt) changed
nothing the other tests looked at.

In float32, v + 1e8 rounds to 1e8 for every |v| < 4, so `x[i] + BIG` and
`y[i] + BIG` are equal (a tie) while their gradients belong to different
inputs: the tie rules of min and abs decide which input gets the adjoint."""
# NORANDOM: zeros_and_ties (its ties exist in float32 only; krun --gradcheck works in double, where v + 1e8 keeps v: tests/warp/diff.test checks its gradients against Warp's)
import warp as wp

BIG = wp.constant(1.0e8)


@wp.kernel
def zeros_and_ties(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float),
                   flags: wp.array(dtype=wp.int32)):
    i = wp.tid()
    a = x[i] + BIG
    b = y[i] + BIG
    z = (x[i] + BIG) - BIG                       # 0 in float32, x in float64
    r = wp.min(a, b) - BIG                       # tie: Warp's adjoint goes to b
    r += wp.max(a, b) - BIG                      # tie: to b as well
    r += wp.abs(z) * 3.0                         # abs'(0) = +1
    r += wp.step(z) + wp.sign(z) + wp.step(x[i] * 0.0) + wp.sign(x[i] * 0.0)
    r += wp.clamp(x[i], 0.5, -0.5)               # lo > hi: min(max(lo, x), hi) = hi
    out[i] = r
    f = 0
    if a <= b:
        f += 1
    if a < b:
        f += 2
    if a >= b:
        f += 4
    if a > b:
        f += 8
    flags[i] = f


@wp.kernel
def int_edges(n: wp.array(dtype=wp.int32), u: wp.array(dtype=wp.uint32), out: wp.array(dtype=wp.int32),
              outu: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    big = u[i] * wp.uint32(600000000) + wp.uint32(1073741824) * wp.uint32(2)   # at least 2**31
    outu[i] = big / wp.uint32(3) + big % wp.uint32(7)
    k = n[i] - 9                                 # negative
    r = (k >> 1) + (k >> 3)
    c = -7
    r += c >> 1                                  # a constant: folded by kopt
    r += c // 2 + 7 // -2                        # floor division of constants
    r += int(-2.5) + int(wp.float32(-0.5))       # conversions truncate
    out[i] = r


@wp.kernel
def sub_accumulate(x: wp.array(dtype=float), w: wp.array(dtype=float), total: wp.array(dtype=float)):
    # the adjoint of atomic_sub's value is minus the element's adjoint
    i = wp.tid()
    wp.atomic_sub(total, i % 3, x[i] * w[i])


@wp.kernel
def strided_loop(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    # a carried value in a loop with step 3: the backward kernel replays
    # the iterations at 1, 4, 7, not at 1, 2, 3
    i = wp.tid()
    v = x[i]
    s = float(0.0)
    for k in range(1, 10, 3):
        s = s * v + float(k)
    out[i] = s
