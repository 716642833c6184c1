# Particle systems: integration, collisions, springs (scatter with atomics).
# BENCH integrate: dim=4194304 dt=0.01
# BENCH ground_collide: dim=4194304 restitution=0.5
# BENCH spring_forces: dim=4194304 pos=1048576 vel=1048576 force=1048576 a=dim:<1048576 b=dim:<1048576 rest=dim ke=100.0 kd=0.5
# BENCH apply_drag: dim=4194304 drag=0.1 dt=0.01
# BENCH gravity_pairs: dim=16384 pos=1024 mass=1024 eps=0.01
import warp as wp


@wp.kernel
def integrate(pos: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3), force: wp.array(dtype=wp.vec3),
              inv_mass: wp.array(dtype=float), pos_new: wp.array(dtype=wp.vec3), vel_new: wp.array(dtype=wp.vec3),
              dt: float):
    i = wp.tid()
    g = wp.vec3(0.0, -9.8, 0.0)
    v = vel[i] + (force[i] * inv_mass[i] + g) * dt
    vel_new[i] = v
    pos_new[i] = pos[i] + v * dt


@wp.kernel
def ground_collide(pos: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3), out_vel: wp.array(dtype=wp.vec3),
                   restitution: float):
    i = wp.tid()
    p = pos[i]
    v = vel[i]
    if p[1] < 0.0 and v[1] < 0.0:
        v = wp.vec3(v[0] * 0.9, -v[1] * restitution, v[2] * 0.9)
    out_vel[i] = v


@wp.kernel
def spring_forces(pos: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3), a: wp.array(dtype=int),
                  b: wp.array(dtype=int), rest: wp.array(dtype=float), force: wp.array(dtype=wp.vec3),
                  ke: float, kd: float):
    s = wp.tid()
    i = a[s]
    j = b[s]
    d = pos[i] - pos[j]
    l = wp.length(d) + 1.0e-6
    dir = d / l
    c = l - rest[s]
    dv = vel[i] - vel[j]
    f = dir * (ke * c + kd * wp.dot(dir, dv))
    wp.atomic_sub(force, i, f)
    wp.atomic_add(force, j, f)


@wp.kernel
def apply_drag(vel: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), drag: float, dt: float):
    i = wp.tid()
    v = vel[i]
    speed = wp.length(v)
    out[i] = v * wp.exp(-drag * speed * dt)


@wp.kernel
def gravity_pairs(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), energy: wp.array(dtype=float),
                  eps: float):
    t = wp.tid()
    n = pos.shape[0]
    i = t % n
    j = (t * 7 + 3) % n
    r = wp.length(pos[i] - pos[j]) + eps
    e = -mass[i] * mass[j] / r
    energy[t] = e
