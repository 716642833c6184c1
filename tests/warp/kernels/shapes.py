"""a.shape[d] as Warp reads it (native/array.h shape_t, extract()): four
entries, 0 past the array's dimensions, and any int32 d, not only a
constant.  kpyc selects among the extents for a d known only at run time."""
import warp as wp


# warpdiff: kernel=shape_index {"dim":[6],"shapes":{"a":[6,5],"v":[6,4,3],"n":[6]},"ints":{"d":[0,3]}}
@wp.kernel
def shape_index(a: wp.array2d(dtype=float), v: wp.array3d(dtype=float), n: wp.array(dtype=int), d: int):
    i = wp.tid()
    e = i % 4
    n[i] = a.shape[d] + 10 * a.shape[e] + 100 * v.shape[e] + 1000 * a.shape[2] + 10000 * v.shape[3]
    s = a[1:, ::2]
    n[i] += 100000 * s.shape[e] + 1000000 * s.shape[d]
    for k in range(4):
        if v.shape[k] == 0:
            n[i] += 10000000


# warpdiff: kernel=shape_scale {"dim":[5],"shapes":{"x":[5,3],"y":[5]}}
@wp.kernel
def shape_scale(x: wp.array2d(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    t = float(0.0)
    for k in range(2):
        t += x[i, k] * float(x.shape[(k + 1) % 2])
    y[i] = t * float(x.shape[wp.tid() % 2])
