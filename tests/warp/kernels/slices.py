"""Slices of vectors, quaternions, transforms and matrices with constant
bounds (issue 14): Warp's v[a:b:s] is a vector of those components, in
Python's slice order; m[a:b] the matrix of those rows, m[a:b, c:d] a
sub-matrix, m[i, a:b] and m[a:b, j] vectors."""
import warp as wp

mat23 = wp.types.matrix(shape=(2, 3), dtype=float)


@wp.kernel
def slices(q: wp.array(dtype=wp.quat), t: wp.array(dtype=wp.transform), m: wp.array(dtype=wp.mat33),
           v: wp.array(dtype=wp.vec4), o3: wp.array(dtype=wp.vec3), o7: wp.array(dtype=float),
           o23: wp.array(dtype=mat23), o22: wp.array(dtype=wp.mat22), o2: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    qi = q[i]
    vi = v[i]
    mi = m[i]
    back = vi[::-2]
    first = back[:1]
    odd = qi[1::2]
    o3[i] = qi[:3] + first[0] * wp.vec3(odd[0], odd[1], 2.0) + wp.vec3(*qi[-3:])
    tt = t[i][:]
    ti = t[i]
    o7[i] = tt[0] + tt[6] * tt[3] + wp.length(ti[1:5])
    rows = mi[::2, :]
    o23[i] = mi[:2] * 2.0 + mat23(rows[0, 0], rows[0, 1], rows[0, 2], vi[0], vi[1], vi[2])
    o22[i] = mi[1:, :2] - mi[-2:, ::-2]
    o2[i] = mi[0, 1:] + mi[::2, 2]
