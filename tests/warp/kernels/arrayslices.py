"""Array slices in kernels (issue 14): Warp's a[1:3], a[i, ::2], a[s:t:k]
are views of the same memory (native/array.h view(), builtin.h
slice_adjust_indices, with bounds clamped and wrapped as there); kpyc
indexes the base array at first + k * step, so loads, stores, atomics and
gradients go to the base.  Chained subscripts are grouped as in Warp."""
import warp as wp

# NORANDOM: slice_1d slice_2d slice_atomic (each reads fixed slices of arrays that must be larger than its launch, as its warpdiff line sets them; on every array the launch's shape, slices run past the end: tests/warp/diff.test checks their results and gradients against Warp's)


# warpdiff: kernel=slice_1d {"dim":[4],"shapes":{"x":[10],"y":[4],"n":[4]},"ints":{"lo":[-12,12],"hi":[-12,9],"sp":[1,3],"sn":[-3,-1]}}
# (hi stays below len(x): with a negative step Warp clamps the start to
# len, not len - 1 as Python does, and reads past the end)
@wp.kernel
def slice_1d(x: wp.array(dtype=float), y: wp.array(dtype=float), n: wp.array(dtype=int), lo: int, hi: int,
             sp: int, sn: int):
    i = wp.tid()
    a = x[2:9]
    b = a[::-2]
    c = x[lo:hi:sp]
    d = x[hi:lo:sn]
    r = x[-3:]
    y[i] = b[i] * 2.0 + a[i] * a[i + 1] + r[i % 3]
    n[i] = c.shape[0] + 10 * d.shape[0] + 100 * b.shape[0] + 1000 * (b.ndim + c.shape[1])
    if i < c.shape[0]:
        y[i] += wp.sin(c[i])
    if i < d.shape[0]:
        y[i] += wp.cos(d[i]) * x[-1 + 1]
    c = x[::3]
    y[i] += c[i % c.shape[0]] + wp.length(wp.vec3(*x[0:6:2])) * wp.max(*x[1:3])


# warpdiff: kernel=slice_2d {"dim":[3],"shapes":{"m":[4,5],"out":[3,5],"w":[4,5]}}
@wp.kernel
def slice_2d(m: wp.array2d(dtype=float), out: wp.array2d(dtype=float), w: wp.array2d(dtype=float)):
    i = wp.tid()
    rows = m[1:, ::2]
    col = m[i:i + 2, 1]
    row = m[i + 1, 1:4]
    sub = rows[i]
    last = m[-1]
    out[i, 0] = rows[i, 0] + sub[2] + col[0] * col[1] + row[2] + last[i]
    out[i, 1] = float(rows.shape[0] * 10 + rows.shape[1] + col.ndim * 100)
    wv = w[::2, 1:]
    wv[i % 2, i] = m[i, i] * 3.0
    # chained subscripts are one index list where they fit (Warp's
    # recurse_subscript): w[1:3][0] is w[1:3, 0], a column
    w[1:3][0][i % 2] = wp.exp(m[i, 4])
    out[i, 2] = m[1:][i][1] + m[::2][1][i % 2]


# warpdiff: kernel=slice_atomic {"dim":[4],"shapes":{"v":[8],"s":[4]}}
@wp.kernel
def slice_atomic(v: wp.array(dtype=wp.vec3), s: wp.array(dtype=float)):
    i = wp.tid()
    v[1::2][i].x = s[i] * 2.0
    v[::2][i][1] += s[i] * s[i]
    odd = v[1::2]
    odd[i] += wp.vec3(0.0, 0.0, s[i])
