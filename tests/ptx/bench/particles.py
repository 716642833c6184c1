"""The kernel of bench-ptx's cold-start timing: one particle step with
gravity, drag, a sphere collider and a rotating frame (vec3, quaternion
and transform math, sqrt/exp/sin/cos from libdevice, a static loop)."""
import warp as wp


@wp.func
def drag(v: wp.vec3, k: float) -> wp.vec3:
    s = wp.length(v)
    return v * wp.exp(-k * s)


@wp.kernel
def particles(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), frames: wp.array(dtype=wp.transform),
              dt: float, t: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = x[i]
    u = v[i]
    g = wp.vec3(0.0, -9.8, 0.0)
    for s in range(4):
        u = drag(u + g * dt, 0.01)
        p = p + u * dt
        d = wp.length(p)
        if d < 1.0:
            n = wp.normalize(p)
            p = n
            u = u - n * (2.0 * wp.dot(u, n))
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), wp.sin(t) * wp.cos(t))
    f = frames[i]
    w = wp.transform_point(f, wp.quat_rotate(q, p))
    x[i] = p
    v[i] = u
    out[i] = w
