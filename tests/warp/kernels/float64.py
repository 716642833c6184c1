"""Double precision."""
import warp as wp


@wp.kernel
def f64(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    x = a[i]
    w = v[i]
    y = wp.sin(x) * wp.float64(2.0) + wp.sqrt(x * x + wp.float64(1.0)) + wp.dot(w, w)
    out[i] = y + wp.length(wp.cross(w, wp.vec3d(wp.float64(1.0), wp.float64(0.0), wp.float64(0.0))))
