"""Builtin families: atomics (and Warp's meaning of a[i] op= x), random
numbers (the state variable is rebound), noise, print and printf."""
import warp as wp


@wp.kernel
def atomics(
    f: wp.array(dtype=float),
    n: wp.array2d(dtype=int),
    u: wp.array(dtype=wp.uint32),
    v: wp.array(dtype=wp.vec3),
    b: wp.array(dtype=wp.int8),
    m: wp.array(dtype=wp.mat22),
):
    i, j = wp.tid()
    old = wp.atomic_add(f, i, 1.0)
    wp.atomic_sub(f, i, old)
    wp.atomic_min(f, 0, old)
    wp.atomic_max(f, 0, old)
    wp.atomic_and(n, i, j, 3)
    wp.atomic_or(n, i, j, 4)
    wp.atomic_xor(n, i, j, 5)
    prev = wp.atomic_exch(u, i, wp.uint32(7))
    seen = wp.atomic_cas(u, i, prev, wp.uint32(9))
    f[i] += 2.0
    f[i] -= 1.0
    f[i] *= 0.5
    f[i] /= 3.0
    n[i, j] += 1
    n[i, j] &= 7
    n[i, j] |= 8
    n[i, j] ^= 1
    n[i, j] //= 2
    n[i, j] %= 5
    u[i] += seen
    v[i] += wp.vec3(1.0)
    v[i].x += 1.0
    v[i][1] -= 2.0
    v[i].z = 0.5
    b[i] += wp.int8(1)
    m[i][0, 1] += 1.0
    m[i] *= 2.0


@wp.kernel
def randoms(seed: int, out: wp.array(dtype=float), ints: wp.array(dtype=int), pts: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    x = wp.randf(state)
    y = wp.randf(state, -1.0, 1.0)
    k = wp.randi(state)
    k2 = wp.randi(state, 0, 10)
    r = wp.randu(state)
    g = wp.randn(state)
    p = wp.sample_unit_sphere(state)
    q = wp.sample_unit_disk(state)
    c = wp.sample_unit_cube(state) + wp.sample_unit_sphere_surface(state) + wp.sample_unit_hemisphere(state)
    c += wp.sample_unit_hemisphere_surface(state)
    t = wp.sample_triangle(state) + wp.sample_unit_ring(state) + wp.sample_unit_square(state)
    z = wp.poisson(state, 3.0)
    s2 = wp.rand_init(seed)
    for j in range(4):
        x += wp.randf(s2)
    out[i] = x + y + g + q[0] + t[1] + float(z) + float(r)
    ints[i] = k + k2
    pts[i] = p + c
    out[i] += wp.noise(state, x) + wp.pnoise(state, wp.vec2(x, y), 4, 4)
    pts[i] += wp.curlnoise(state, wp.vec3(x, y, g))
    if x > 0.5 and wp.randf(state) > 0.5:
        ints[i] = 1


@wp.kernel
def printing(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    print(a[i])
    print(wp.vec3(1.0, 2.0, 3.0))
    print("hello 100%")
    wp.printf("i=%d x=%f\n", i, a[i])
    wp.printf("done\n")
    assert a[i] >= 0.0, "negative"
    assert n > 0

# GPURACE: atomics (non-atomic f[i] += ... and n[i, j] updates while other threads apply atomics to f[0] and f[i])
