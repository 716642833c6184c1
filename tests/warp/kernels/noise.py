"""Perlin noise, periodic noise and curl noise: values and gradients
(Warp 1.19's adj_noise, adj_pnoise and adj_curlnoise)."""
import warp as wp


@wp.kernel
def noise_fields(x: wp.array(dtype=float), p2: wp.array(dtype=wp.vec2), p3: wp.array(dtype=wp.vec3),
                 p4: wp.array(dtype=wp.vec4), out: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(42, i)
    n1 = wp.noise(state, x[i] * 3.7)
    n2 = wp.noise(state, p2[i] * 2.3)
    n3 = wp.noise(state, p3[i] * 1.9 + wp.vec3(0.5, 0.0, -0.25))
    n4 = wp.noise(state, p4[i] * 1.3)
    out[i] = n1 + 2.0 * n2 - n3 * n3 + 0.5 * n4


@wp.kernel
def periodic_noise(x: wp.array(dtype=float), p2: wp.array(dtype=wp.vec2), p3: wp.array(dtype=wp.vec3),
                   p4: wp.array(dtype=wp.vec4), out: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(7)
    a = wp.pnoise(state, x[i] * 5.1, 4)
    b = wp.pnoise(state, p2[i] * 3.3, 3, 5)
    c = wp.pnoise(state, p3[i] * 2.7, 2, 3, 4)
    d = wp.pnoise(state, p4[i] * 2.1, 5, 4, 3, 2)
    out[i] = a * b + c - 0.25 * d


@wp.kernel
def curl_fields(p2: wp.array(dtype=wp.vec2), p3: wp.array(dtype=wp.vec3), p4: wp.array(dtype=wp.vec4),
                v2: wp.array(dtype=wp.vec2), v3: wp.array(dtype=wp.vec3), w3: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    state = wp.rand_init(11, i)
    v2[i] = wp.curlnoise(state, p2[i] * 2.5)
    v3[i] = wp.curlnoise(state, p3[i] * 1.7, wp.uint32(3), 2.0, 0.5)
    w3[i] = wp.curlnoise(state, p4[i] * 1.4, wp.uint32(2), 1.8, 0.6)


@wp.kernel
def curl_octaves(p2: wp.array(dtype=wp.vec2), p3: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(3)
    v = wp.curlnoise(state, p2[i] * 3.1, wp.uint32(4))
    u = wp.curlnoise(state, p3[i], wp.uint32(2), 2.5)
    out[i] = wp.dot(v, v) + u[0] - 2.0 * u[2]
