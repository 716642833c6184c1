"""Control flow: if/elif/else, ternaries, and/or, loops, break/continue, while."""
import warp as wp


@wp.kernel
def branches(a: wp.array(dtype=float), b: wp.array(dtype=wp.int32), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    k = b[i]
    y = 0.0
    if x > 0.5:
        y = x * 2.0
    elif x > 0.0 and k > 0:
        y = x + 1.0
    elif not (k < -2 or x < -0.5):
        y = -x
    else:
        y = 3.0
    z = y if k % 2 == 0 else y * 0.5
    if -0.25 < x < 0.25:
        z = z + 10.0
    out[i] = z


@wp.kernel
def loops(a: wp.array(dtype=float), n: wp.array(dtype=wp.int32), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    s = float(0.0)
    for j in range(4):
        s = s + x * float(j)
    m = wp.abs(n[i]) + 1
    for j in range(m):
        if j == 3:
            continue
        if j > 6:
            break
        s = s + float(j) * 0.5
    for j in range(10, 0, -3):
        s = s - float(j) * 0.1
    c = int(0)
    t = float(x)
    while t < 2.0 and c < 20:
        t = t + 0.3
        c = c + 1
    out[i] = s + t + float(c)


@wp.kernel
def grid2d(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    n = a.shape[0]
    m = a.shape[1]
    s = a[i, j] * 4.0
    if i > 0:
        s = s - a[i - 1, j]
    if i < n - 1:
        s = s - a[i + 1, j]
    if j > 0:
        s = s - a[i, j - 1]
    if j < m - 1:
        s = s - a[i, j + 1]
    out[i, j] = s


@wp.kernel
def grid3d(a: wp.array3d(dtype=float), out: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    out[i, j, k] = a[i, j, k] * float(i + 2 * j + 3 * k)
