"""Semantics that must agree with NVIDIA Warp numerically (numeric.test):
reversed ranges with negative steps, continue and break, floor division
and modulo of negative ints, a variable bound in one branch, multiple
return values, struct constructors, atomic component updates, random
numbers in conditional expressions and while conditions."""
import warp as wp

@wp.struct
class P:
    x: float
    n: int

@wp.func
def two(a: float, b: float):
    if a < b:
        return a, b
    return b, a

@wp.kernel
def rev(a: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    s = int(0)
    for k in reversed(range(i, 10, 3)):
        s = s * 3 + k
    for k in reversed(range(10, i, -2)):
        s = s * 2 + k
    j = int(0)
    while j < 20:
        j += 1
        if j % 3 == 0:
            continue
        if j > 17:
            break
        s += j * a[i]
    out[i] = s - (-7 // 2) + (-7 % 2)

@wp.kernel
def flow(x: wp.array(dtype=float), y: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    t = x[i]
    if t > 0.0:
        u = t * 2.0
    else:
        w = 1.0
    lo, hi = two(t, y[i])
    p = P(hi, 3)
    p.x += lo
    v[i].x += p.x
    v[i][1] -= float(p.n)
    acc = float(0.0)
    for k in range(5):
        if k == 2:
            continue
        acc += float(k) * t
    y[i] = acc + (t if t > 0.5 else -t) + float(i < 3 and t > 0.0)

@wp.kernel
def rng(seed: int, out: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    x = wp.randf(state) if i % 2 == 0 else wp.randn(state)
    n = int(0)
    while n < 10 and wp.randf(state) < 0.8:
        n += 1
    out[i] = x + float(n) + wp.randf(state)
