"""Structs and functions with several results."""
import warp as wp


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3
    mass: float


@wp.func
def step(p: Particle, dt: float) -> Particle:
    q = Particle()
    q.pos = p.pos + p.vel * dt
    q.vel = p.vel * 0.99
    q.mass = p.mass
    return q


@wp.func
def split(x: float):
    return x * 2.0, x + 1.0


@wp.kernel
def integrate(pos: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3), dt: float, out: wp.array(dtype=wp.vec3), e: wp.array(dtype=float)):
    i = wp.tid()
    p = Particle()
    p.pos = pos[i]
    p.vel = vel[i]
    p.mass = 2.0
    for s in range(3):
        p = step(p, dt)
    a, b = split(p.mass)
    out[i] = p.pos
    e[i] = 0.5 * p.mass * wp.dot(p.vel, p.vel) + a * b
