# Every differentiable builtin family in Python, through kpyc: scalar math,
# vectors, matrices (inverse, determinant), quaternions, transforms, spatial
# vectors, casts, where, min/max/clamp/abs.  Checked by krun --gradcheck.
import warp as wp


@wp.kernel
def scalar_arith(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i] = x * y + x / (y * y + 1.0) - y + x % 0.3 + wp.floor(x * 3.0) + wp.frac(x * 2.0)


@wp.kernel
def scalar_trig(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i] = wp.sin(x) * wp.cos(y) + wp.tan(x * 0.5) + wp.atan2(y, x + 2.0) + wp.atan(x) + wp.asin(x * 0.5) + wp.acos(y * 0.5)


@wp.kernel
def scalar_exp(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    p = wp.abs(x) + 0.5
    out[i] = wp.exp(x) + wp.log(p) + wp.log2(p) + wp.log10(p) + wp.sqrt(p) + wp.cbrt(p) + wp.pow(p, y)


@wp.kernel
def scalar_hyp(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i] = wp.tanh(x) + wp.sinh(y) + wp.cosh(x) + wp.erf(x) + wp.erfc(y) + wp.degrees(x) * 0.01 + wp.radians(y)


@wp.kernel
def scalar_misc(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i] = wp.copysign(x, y) + wp.lerp(x, y, 0.25) + wp.smoothstep(-1.0, 1.0, x)


@wp.kernel
def kinks(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i] = wp.min(x, y) * 2.0 + wp.max(x, y) + wp.clamp(x, -0.5, 0.5) + wp.abs(y) + wp.where(x > y, x * x, y)


@wp.kernel
def vectors(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), s: wp.array(dtype=float)):
    i = wp.tid()
    u = a[i]
    v = b[i]
    c = wp.cross(u, v)
    n = wp.normalize(c + wp.vec3(0.1, 0.2, 0.3))
    m = wp.cw_mul(u, v) + wp.cw_div(u, wp.cw_mul(v, v) + wp.vec3(1.0))
    w = u * 2.0 + n * wp.dot(u, v) + m + wp.vec3(wp.length(u), wp.length_sq(v), u[0])
    out[i] = w
    s[i] = wp.min(w) + wp.max(u) + wp.abs(v)[2] + wp.norm_l1(u) + wp.norm_huber(v) + wp.norm_pseudo_huber(u)


@wp.kernel
def matrices(a: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.mat33), s: wp.array(dtype=float)):
    i = wp.tid()
    m = a[i] + wp.identity(n=3, dtype=float) * 3.0
    x = v[i]
    inv = wp.inverse(m)
    p = m * wp.transpose(m) + wp.outer(x, x) + wp.diag(x) + wp.skew(x)
    out[i] = inv * p
    s[i] = wp.determinant(m) + wp.trace(p) + wp.ddot(m, p) + wp.dot(m * x, x)


@wp.kernel
def quat_rotations(q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    n = wp.normalize(q[i])
    x = v[i]
    out[i] = wp.quat_rotate(n, x) + wp.quat_rotate_inv(q[i], x) + wp.quat_to_matrix(n) * x


@wp.kernel
def quat_products(q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), o: wp.array(dtype=wp.quat)):
    i = wp.tid()
    x = v[i]
    a = wp.quat_from_axis_angle(wp.normalize(x + wp.vec3(0.0, 0.0, 2.0)), x[0])
    o[i] = wp.mul(q[i], a) + wp.quat_inverse(q[i]) + wp.quat_rpy(x[0], x[1], x[2]) + q[i] * x[1]


@wp.kernel
def quat_conversions(q: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.vec3), o: wp.array(dtype=wp.quat)):
    i = wp.tid()
    n = wp.normalize(q[i])
    out[i] = wp.quat_to_rpy(n * 0.5 + wp.quat(0.0, 0.0, 0.0, 0.5))
    o[i] = wp.quat_from_matrix(wp.quat_to_matrix(n)) + wp.quat_slerp(n, wp.quat_identity(), 0.3)


@wp.kernel
def transforms(t: wp.array(dtype=wp.transform), p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), o: wp.array(dtype=wp.transform)):
    i = wp.tid()
    x = t[i]
    y = wp.transform(p[i], wp.normalize(wp.transform_get_rotation(x)))
    z = wp.transform_multiply(x, y)
    out[i] = wp.transform_point(z, p[i]) + wp.transform_vector(wp.transform_inverse(y), p[i]) + wp.transform_get_translation(z)
    o[i] = z


@wp.kernel
def spatial(a: wp.array(dtype=wp.spatial_vector), b: wp.array(dtype=wp.spatial_vector), t: wp.array(dtype=wp.transform), out: wp.array(dtype=wp.spatial_vector), s: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    c = wp.spatial_cross(x, y) + wp.spatial_cross_dual(x, y) + wp.transform_twist(t[i], x)
    out[i] = c
    s[i] = wp.spatial_dot(x, y) + wp.length(wp.spatial_top(c)) + wp.spatial_bottom(y)[1]


@wp.kernel
def casts(a: wp.array(dtype=float), d: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64), o: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    k = int(x * 4.0)
    out[i] = wp.float64(x) * d[i] + wp.float64(float(k))
    o[i] = float(d[i]) * x
