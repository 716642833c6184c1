"""Vectors and matrices."""
import warp as wp


@wp.func
def safe_normalize(v: wp.vec3) -> wp.vec3:
    l = wp.length(v)
    if l > 1.0e-3:
        return v / l
    return wp.vec3(0.0, 0.0, 1.0)


@wp.kernel
def vec_ops(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), s: wp.array(dtype=float)):
    i = wp.tid()
    u = a[i]
    v = b[i]
    w = u + v * 2.0 - 0.5 * u
    c = wp.cross(u, v)
    d = wp.dot(u, v)
    n = safe_normalize(c)
    m = wp.cw_mul(u, v) + wp.cw_div(u, wp.cw_mul(v, v) + wp.vec3(1.0))
    w = w + n * d + m
    w[1] = w[1] + wp.length(u) + wp.length_sq(v)
    w.x = w.x * 0.5
    out[i] = w + wp.vec3(u[0], v.y, u.z)
    s[i] = wp.min(w) + wp.max(u) + wp.abs(v)[2]


@wp.kernel
def mat_ops(a: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.mat33), det: wp.array(dtype=float)):
    i = wp.tid()
    m = a[i]
    x = v[i]
    w = m + wp.identity(n=3, dtype=float) * 3.0
    inv = wp.inverse(w)
    t = wp.transpose(m)
    p = m * t + wp.outer(x, x) + wp.diag(x)
    r = p * x
    q = x * w
    out[i] = inv * 2.0 + p
    det[i] = wp.determinant(w) + wp.trace(m) + r[0] + q[2] + m[1, 2] + m[2][0] + wp.ddot(m, p)


@wp.kernel
def vec4_mat44(a: wp.array(dtype=wp.vec4), m: wp.array(dtype=wp.mat44), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    v = a[i]
    M = m[i] + wp.identity(n=4, dtype=float) * 4.0
    y = wp.inverse(M) * v
    out[i] = y + wp.vec4(wp.determinant(M) * 0.01)
