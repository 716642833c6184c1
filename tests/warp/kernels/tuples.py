"""Local tuples (Warp's tuple values, issue 14): t = (a, b, ...), t = f()
of a @wp.func or builtin returning several values; t[k] with a constant
or an unrolled loop's index, len(t),
wp.static(len(t)), unpacking, a struct element's field.  Forward only:
Warp 1.19's backward gives zero adjoints through these tuples (every input's
gradient is 0 where central differences agree with kpy's), so it is no
oracle for them."""
import warp as wp


@wp.struct
class Pair:
    origin: wp.vec3
    scale: float


@wp.func
def two(x: float, y: wp.vec3) -> tuple[float, wp.vec3]:
    return (x * 2.5, y * x)


@wp.kernel(enable_backward=False)
def tuple_locals(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat),
                 out: wp.array(dtype=float), outv: wp.array(dtype=wp.vec3), n: wp.array(dtype=int)):
    i = wp.tid()
    s = Pair(v[i], a[i])
    t = (a[i], 2.0 * a[i], v[i], s, i)
    acc = t[0] + t[1] * t[0] + t[3].scale
    r = two(a[i], v[i])
    r0, r1 = r
    outv[i] = t[2] + r[1] * r0 + r1 + t[3].origin
    h = (a[i], a[i] * a[i], wp.sin(a[i]))
    for k in range(len(h)):
        acc += h[k] * float(k + 1)
    axis_angle = wp.quat_to_axis_angle(wp.normalize(q[i] + wp.quat(0.0, 0.0, 0.0, 2.0)))
    out[i] = acc + axis_angle[1] + wp.length(axis_angle[0])
    n[i] = len(t) * 100 + wp.static(len(h)) * 10 + t[4]
