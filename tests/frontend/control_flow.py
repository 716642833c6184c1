"""Control flow corners: a variable first bound in one branch, loop-local
variables read after the loop, nested loops with break, while loops with
continue, return inside loops and in both branches of an if, dead code."""
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    # variable first bound in one branch, used after
    if a[i] > 0.0:
        t = a[i] * 2.0
    a[i] = t
    # loop-local first assigned in loop, read after
    for j in range(n):
        last = a[j]
    a[0] = last
    # nested loops with carried vars and break in inner loop
    s = float(0.0)
    for j in range(n):
        for q in range(n):
            if q > j:
                break
            s += a[q]
        s *= 0.5
    a[1] = s
    # while with a variable first bound inside, used after
    m = int(0)
    while m < n:
        z = float(m)
        m += 1
    a[2] = z
    # return inside loop in a kernel
    for j in range(n):
        if a[j] < 0.0:
            return
    # continue in while
    w = int(0)
    acc = float(0.0)
    while w < 10:
        w += 1
        if w % 2 == 0:
            continue
        acc += 1.0
    a[3] = acc
    # if with both branches returning
    if n > 5:
        return
    else:
        a[4] = 1.0
        return
    a[5] = 2.0

# GPURACE: k (every thread reads a[j] and writes a[0] to a[4], which other threads read and write)
