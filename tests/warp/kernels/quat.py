"""Quaternions, transforms, spatial vectors."""
import warp as wp


@wp.kernel
def quat_ops(axis: wp.array(dtype=wp.vec3), ang: wp.array(dtype=float), p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), qo: wp.array(dtype=wp.quat)):
    i = wp.tid()
    ax = axis[i] + wp.vec3(0.0, 0.0, 2.0)
    q = wp.quat_from_axis_angle(wp.normalize(ax), ang[i] * 3.0)
    r = wp.quat_rpy(ang[i], 0.2, -0.3)
    qr = q * r
    v = wp.quat_rotate(qr, p[i])
    v = v + wp.quat_rotate_inv(q, p[i])
    m = wp.quat_to_matrix(qr)
    v = v + m * p[i]
    qi = wp.quat_inverse(q)
    s = wp.quat_slerp(q, r, 0.3)
    out[i] = v
    qo[i] = s * qi


@wp.kernel
def xform_ops(pos: wp.array(dtype=wp.vec3), ang: wp.array(dtype=float), pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), ang[i])
    t = wp.transform(pos[i], q)
    u = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_rpy(0.1, 0.2, 0.3))
    tu = wp.transform_multiply(t, u)
    inv = wp.transform_inverse(tu)
    a = wp.transform_point(tu, pts[i])
    b = wp.transform_vector(inv, pts[i])
    c = wp.transform_get_translation(tu) + wp.quat_rotate(wp.transform_get_rotation(inv), a)
    out[i] = a + b + c
