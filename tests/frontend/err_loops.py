# Warp's loop rules: a compile-time constant may not be reassigned in a
# dynamic loop (a non-constant range, more than 16 iterations, a break,
# a while loop); range() takes int32; only range() is iterable.
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int, m: wp.int64):
    s = 0.0
    for i in range(n):
        s += a[i]
    t = 0.0
    for i in range(17):
        t += a[i]
    u = 0.0
    for i in range(4):
        u += a[i]
        if u > 1.0:
            break
    j = 0
    while j < n:
        j += 1
    for i in range(m):
        pass
    for x in a:
        pass
    for i in range(0, 10, 0):
        pass
    ok = 0.0
    for i in range(4):
        ok += a[i]
    fine = float(0.0)
    for i in range(n):
        fine += a[i]
    a[0] = s + t + u + ok + fine
