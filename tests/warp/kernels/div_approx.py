"""wp.div_approx (issue 14): approximate division intrinsics on CUDA, the
exact division on the CPU with the division's adjoint (Warp's
builtin.h approx_div): scalars, and vectors, matrices and quaternions
with a scalar on either side."""
import warp as wp


@wp.kernel
def div_approx(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22),
               q: wp.array(dtype=wp.quat), d: wp.array(dtype=wp.float64), out: wp.array(dtype=float),
               ov: wp.array(dtype=wp.vec3), om: wp.array(dtype=wp.mat22), oq: wp.array(dtype=wp.quat),
               od: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = x[i] + 2.5
    out[i] = wp.div_approx(x[i], s)
    ov[i] = wp.div_approx(v[i], s) + wp.div_approx(s, v[i] + wp.vec3(3.0))
    om[i] = wp.div_approx(m[i], s) + wp.div_approx(s, m[i] + wp.mat22(3.0, 3.0, 3.0, 3.0))
    oq[i] = wp.div_approx(q[i], s) + wp.div_approx(s, q[i] + wp.quat(3.0, 3.0, 3.0, 3.0))
    od[i] = wp.div_approx(d[i], d[i] + wp.float64(2.5))
