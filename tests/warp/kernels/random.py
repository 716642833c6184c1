"""Warp's random number generator, bit for bit."""
import warp as wp


@wp.kernel
def rng(seed: int, f: wp.array(dtype=float), n: wp.array(dtype=float), k: wp.array(dtype=wp.int32), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    f[i] = wp.randf(state) + wp.randf(state, -2.0, 2.0)
    n[i] = wp.randn(state)
    k[i] = wp.randi(state, -10, 10)
    v[i] = wp.sample_unit_sphere_surface(state) + wp.sample_unit_cube(state)
