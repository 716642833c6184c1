# Warp-Python through the whole pipeline (kpyc | kopt -O | kcpu | krun), with
# expected values worked out by hand: functions with one and two results,
# structs, loops with carried values, if/elif/else, while/break/continue,
# vectors and matrices, atomics, random numbers.
# RUN: --kernel simulate --dim 4 --set dt=0.5
# IN: pos f32 4,3 0 0 0 1 1 1 -1 2 0 0 -3 1
# IN: vel f32 4,3 1 0 0 0 2 0 0 0 -4 2 2 2
# TOL: 1e-6 1e-6
# IN: hits i32 2 0 0
# OUT: newpos f32 4,3 0.5 0 0 1 2 1 -1 2 -2 1 0 2
# OUT: pos f32 4,3 0 0 0 1 1 1 -1 2 0 0 -3 1
# OUT: hits i32 2 1 5
# OUT: energy f32 4 0.5 2.0 8.0 6.0
# RUN: --kernel series --dim 5
# IN: n i32 5 0 1 4 7 10
# OUT: out f32 5 0 1 10 28 55
# OUT: fib i32 5 0 1 3 13 55
# OUT: steps i32 5 0 0 2 16 6
# RUN: --kernel linalg --dim 2
# IN: m f32 2,3,3 2 0 0 0 3 0 0 0 4 1 2 0 0 1 0 0 0 2
# OUT: det f32 2 24 2
# OUT: rowsum f32 2,3 2 3 4 3 1 2
# OUT: tr f32 2 5 4
import warp as wp


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3


@wp.func
def advance(p: Particle, dt: float):
    q = Particle()
    q.pos = p.pos + p.vel * dt
    q.vel = p.vel
    return q


@wp.func
def floor_bounce(x: wp.vec3, v: wp.vec3):
    if x[1] < 0.0:
        return wp.vec3(x[0], 0.0, x[2]), 1
    return x, 0


@wp.kernel
def simulate(pos: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3), dt: float,
             hits: wp.array(dtype=int), energy: wp.array(dtype=float), newpos: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = Particle()
    p.pos = pos[i]
    p.vel = vel[i]
    p = advance(p, dt)
    x, hit = floor_bounce(p.pos, p.vel)
    newpos[i] = x
    wp.atomic_add(hits, 0, hit)
    wp.atomic_add(hits, 1, 1 - hit + hit * 2)
    energy[i] = 0.5 * wp.dot(p.vel, p.vel)


@wp.kernel
def series(n: wp.array(dtype=int), out: wp.array(dtype=float), fib: wp.array(dtype=int),
           steps: wp.array(dtype=int)):
    i = wp.tid()
    k = n[i]
    s = float(0.0)
    for j in range(k + 1):
        s += float(j)
    out[i] = s
    a = int(0)
    b = int(1)
    for j in range(k):
        a, b = b, a + b
    fib[i] = a
    z = k
    c = int(0)
    while z > 1:
        if c >= 100:
            break
        if z % 2 == 1:
            z = 3 * z + 1
        else:
            z = z // 2
        c += 1
    steps[i] = c


@wp.kernel
def linalg(m: wp.array(dtype=wp.mat33), det: wp.array(dtype=float), rowsum: wp.array(dtype=wp.vec3),
           tr: wp.array(dtype=float)):
    i = wp.tid()
    a = m[i]
    det[i] = wp.determinant(a)
    rowsum[i] = a * wp.vec3(1.0, 1.0, 1.0)
    t = float(0.0)
    for j in range(3):
        if a[j, j] > 3.5:
            continue
        t += a[j, j]
    tr[i] = t + wp.trace(a) - wp.trace(a)
