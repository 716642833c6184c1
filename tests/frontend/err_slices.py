# Array slices (issue 14): what Warp rejects, and what kpyc does not
# compile (a view is kept as its base array and index arithmetic, never a
# value of its own).
import warp as wp


@wp.func
def first(a: wp.array(dtype=float)):
    return a[0]


@wp.kernel
def straddle(w: wp.array2d(dtype=float)):
    i = wp.tid()
    w[1:3][0, i] = 1.0


@wp.kernel
def no_upper(a: wp.array(dtype=float), out: wp.array(dtype=wp.vec2)):
    out[0] = wp.vec2(*a[0:])


@wp.kernel
def starred_2d(m: wp.array2d(dtype=float), out: wp.array(dtype=wp.vec2)):
    out[0] = wp.vec2(*m[0:2])


@wp.kernel
def zero_step(a: wp.array(dtype=float)):
    b = a[::0]
    b[0] = 1.0


@wp.kernel
def to_func(a: wp.array(dtype=float)):  # kpyc: differs from Warp: a view passed to a function
    a[0] = first(a[1:3])


@wp.kernel
def in_loop(a: wp.array(dtype=float)):  # kpyc: differs from Warp: a view rebound in a loop
    v = a[1:]
    for j in range(3):
        v = a[j:]
    a[0] = v[0]


@wp.kernel
def whole(a: wp.array(dtype=float)):
    a[:2] = 1.0
