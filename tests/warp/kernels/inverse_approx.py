"""wp.inverse_approx: on the CPU Warp inverts as wp.inverse does (its
approximate reciprocal is CUDA's), with wp.inverse's adjoint (issue 14)."""
import warp as wp


@wp.kernel
def inv_approx(m2: wp.array(dtype=wp.mat22), m3: wp.array(dtype=wp.mat33), m4: wp.array(dtype=wp.mat44d),
               out2: wp.array(dtype=wp.mat22), out3: wp.array(dtype=wp.mat33), out4: wp.array(dtype=wp.mat44d)):
    i = wp.tid()
    out2[i] = wp.inverse_approx(m2[i] + wp.identity(n=2, dtype=float) * 3.0)
    out3[i] = wp.inverse_approx(m3[i] + wp.identity(n=3, dtype=float) * 3.0)
    out4[i] = wp.inverse_approx(m4[i] + wp.identity(n=4, dtype=wp.float64) * wp.float64(3.0))
