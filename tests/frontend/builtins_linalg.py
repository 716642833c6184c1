"""Builtin families: vectors, matrices, quaternions, transforms and
spatial math."""
import warp as wp


@wp.kernel
def vector_ops(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    u = a[i]
    v = b[i]
    w = wp.cross(u, v) + u * 2.0 + 2.0 * v - u / 3.0 + -v
    s = wp.dot(u, v) + wp.length(w) + wp.length_sq(w) + wp.norm_l1(w) + wp.norm_l2(w)
    s += wp.norm_huber(w) + wp.norm_pseudo_huber(w, 2.0)
    n = wp.normalize(w) + wp.smooth_normalize(w)
    m = wp.outer(u, v)
    c = wp.cw_mul(u, v) + wp.cw_div(u, v)
    t = wp.vec4(*u, 1.0)
    out[i] = s + n[0] + m[1, 1] + c.z + t[3] + w.x + wp.dot(t, t)
    if u == v or u != w:
        out[i] = 0.0


@wp.kernel
def matrix_ops(a: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    m = a[i]
    mt = wp.transpose(m)
    p = m * mt + m @ mt - m * 2.0
    x = p * v[i] + v[i] * p + m @ v[i]
    d = wp.determinant(m) + wp.trace(m) + wp.ddot(m, mt)
    inv = wp.inverse(m)
    dg = wp.diag(v[i])
    gd = wp.get_diag(m)
    sk = wp.skew(v[i])
    r = wp.matrix_from_rows(v[i], x, gd)
    c = wp.matrix_from_cols(v[i], x, gd)
    q = wp.matrix(1.0, 2.0, 3.0, 4.0, shape=(2, 2))
    e = wp.matrix(shape=(3, 4), dtype=wp.float64)
    z = wp.vector(1.0, 2.0, 3.0, 4.0, 5.0)
    y = wp.vector(length=3, dtype=wp.float16)
    m2 = wp.mat22(1.0, 2.0, 3.0, 4.0)
    m2[0, 0] = 5.0
    m2[1] = wp.vec2(7.0, 8.0)
    m2[0][1] = 6.0
    out[i] = d + inv[0, 0] + dg[1, 1] + sk[0, 1] + r[2, 2] + c[0, 0] + q[1, 1] + float(e[0, 0]) + z[4] + m2[0, 1]
    out[i] += float(y[0]) + x[0] + p[2][2]


@wp.kernel
def quat_ops(q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    a = q[i]
    b = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 0.5)
    c = a * b + wp.quat_inverse(a) - b * 2.0
    r = wp.quat_rotate(c, v[i]) + wp.quat_rotate_inv(c, v[i])
    m = wp.quat_to_matrix(c)
    d = wp.quat_from_matrix(m)
    e = wp.quat_rpy(0.1, 0.2, 0.3)
    f = wp.quat_slerp(a, b, 0.5)
    g = wp.quat_identity()
    h = wp.quat_identity(dtype=wp.float64)
    axis, angle = wp.quat_to_axis_angle(f)
    rpy = wp.quat_to_rpy(e)
    eu = wp.quat_from_euler(v[i], 0, 1, 2)
    ve = wp.quat_to_euler(eu, 2, 1, 0)
    tw = wp.quat_twist(wp.vec3(1.0, 0.0, 0.0), a)
    ta = wp.quat_twist_angle(wp.vec3(1.0, 0.0, 0.0), a) + wp.quat_twist_angle_signed(wp.vec3(0.0, 1.0, 0.0), a)
    n = wp.normalize(c) * wp.length(c) + wp.quaternion(1.0, 0.0, 0.0, 0.0)
    out[i] = r.x + d.w + rpy[1] + axis[0] + angle + g.w + float(h.w) + ve[0] + tw.x + ta + wp.dot(n, a)


@wp.kernel
def transform_ops(t: wp.array(dtype=wp.transform), p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a = t[i]
    b = wp.transform_identity()
    c = wp.transform_multiply(a, b) * wp.transform_inverse(a)
    x = wp.transform_point(c, p[i]) + wp.transform_vector(c, p[i])
    pos = wp.transform_get_translation(c)
    rot = wp.transform_get_rotation(c)
    wp.transform_set_translation(c, pos * 2.0)
    wp.transform_set_rotation(c, rot)
    m = wp.transform_to_matrix(c)
    d = wp.transform_from_matrix(m)
    y = wp.transform_point(m, p[i])
    s = wp.transform_compose(pos, rot, wp.vec3(1.0))
    tp, tq, ts = wp.transform_decompose(s)
    a.p = x
    a.q = tq
    e = wp.transformation(pos, rot, dtype=float)
    out[i] = x + y + d.p + tp + ts + a.p + e.p


@wp.kernel
def spatial_ops(s: wp.array(dtype=wp.spatial_vector), t: wp.array(dtype=wp.transform), out: wp.array(dtype=float)):
    i = wp.tid()
    a = s[i]
    b = wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    c = wp.spatial_cross(a, b) + wp.spatial_cross_dual(a, b)
    top = wp.spatial_top(c)
    bot = wp.spatial_bottom(c)
    d = wp.spatial_dot(a, b)
    m = wp.spatial_adjoint(wp.mat33(1.0), wp.mat33(0.0))
    tw = wp.transform_twist(t[i], a)
    wr = wp.transform_wrench(t[i], a)
    vp = wp.velocity_at_point(a, top)
    out[i] = top[0] + bot[1] + d + m[5, 5] + tw[0] + wr[1] + vp[2]


@wp.kernel
def decompositions(a: wp.array(dtype=wp.mat33), b: wp.array(dtype=wp.mat22), q: wp.array(dtype=wp.quat)):
    i = wp.tid()
    U, s, V = wp.svd3(a[i])
    U2 = wp.mat33()
    s2 = wp.vec3()
    V2 = wp.mat33()
    wp.svd3(a[i], U2, s2, V2)
    u, t, v = wp.svd2(b[i])
    Q, R = wp.qr3(a[i])
    E, d = wp.eig3(a[i])
    axis = wp.vec3()
    angle = float(0.0)
    wp.quat_to_axis_angle(q[i], axis, angle)
    a[i] = U * V2 + Q * R + E + wp.diag(s + s2 + d) + wp.mat33(angle)
    b[i] = u * v + wp.diag(t)

# GPUTOL: decompositions.adj 1e-3 (the adjoints of svd3, eig3 and qr3 divide by differences of singular values and eigenvalues: a few ulps of the math library become 5e-4 relative)
