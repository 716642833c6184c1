#!/usr/bin/env python3
"""Mass-spring cloth hanging from two pinned corners, with a rotating
sphere collider given as a transform; semi-implicit Euler integration.

Usage: python cloth.py [--width W] [--height H] [--frames F] [--out FILE]
"""

import argparse
import json
import math
from dataclasses import dataclass, field

import numpy as np

import warp as wp

wp.config.quiet = True

PARTICLE_RADIUS = 0.01
SPRING_KE = wp.constant(1000.0)
SPRING_KD = wp.constant(10.0)
GRAVITY = wp.constant(wp.vec3(0.0, -9.81, 0.0))


@wp.struct
class Collider:
    xform: wp.transform
    radius: float
    friction: float


@wp.func
def spring_force(xi: wp.vec3, xj: wp.vec3, vi: wp.vec3, vj: wp.vec3, rest: float):
    d = xj - xi
    length = wp.length(d)
    if length < 1.0e-6:
        return wp.vec3()
    dir = d / length
    stretch = length - rest
    rel_vel = wp.dot(vj - vi, dir)
    return dir * (SPRING_KE * stretch + SPRING_KD * rel_vel)


@wp.kernel
def eval_springs(
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    springs: wp.array2d(dtype=int),
    rest: wp.array(dtype=float),
    f: wp.array(dtype=wp.vec3),
):
    tid = wp.tid()
    i = springs[tid, 0]
    j = springs[tid, 1]
    fs = spring_force(x[i], x[j], v[i], v[j], rest[tid])
    wp.atomic_add(f, i, fs)
    wp.atomic_sub(f, j, fs)


@wp.kernel
def integrate(
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    f: wp.array(dtype=wp.vec3),
    inv_mass: wp.array(dtype=float),
    collider: Collider,
    dt: float,
):
    tid = wp.tid()
    w = inv_mass[tid]
    if w == 0.0:
        f[tid] = wp.vec3()
        return

    v1 = v[tid] + (f[tid] * w + GRAVITY) * dt
    x1 = x[tid] + v1 * dt

    # collide with the sphere in its local frame
    local = wp.transform_point(wp.transform_inverse(collider.xform), x1)
    dist = wp.length(local)
    if dist < collider.radius + PARTICLE_RADIUS:
        n_local = local / dist
        local = n_local * (collider.radius + PARTICLE_RADIUS)
        x1 = wp.transform_point(collider.xform, local)
        n = wp.transform_vector(collider.xform, n_local)
        vn = wp.dot(v1, n)
        vt = v1 - n * vn
        v1 = vt * (1.0 - collider.friction) - n * wp.min(vn, 0.0) * 0.0

    x[tid] = x1
    v[tid] = v1
    f[tid] = wp.vec3()


@wp.kernel
def spin(collider_xform: wp.array(dtype=wp.transform), angle: float):
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), angle)
    t = collider_xform[0]
    t.q = q * wp.transform_get_rotation(t)
    collider_xform[0] = t


@wp.kernel
def bounds(x: wp.array(dtype=wp.vec3), lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    p = x[tid]
    for k in range(3):
        wp.atomic_min(lo, 0, wp.vec3(p[0], p[1], p[2]))
        wp.atomic_max(hi, 0, p)


@dataclass
class Cloth:
    width: int = 32
    height: int = 32
    spacing: float = 0.05
    springs: list = field(default_factory=list)

    def build(self):
        idx = lambda i, j: j * self.width + i  # noqa: E731
        pos = [(i * self.spacing, 1.0, j * self.spacing) for j in range(self.height) for i in range(self.width)]
        for j in range(self.height):
            for i in range(self.width):
                if i + 1 < self.width:
                    self.springs.append((idx(i, j), idx(i + 1, j)))
                if j + 1 < self.height:
                    self.springs.append((idx(i, j), idx(i, j + 1)))
        inv_mass = np.ones(len(pos), dtype=np.float32)
        inv_mass[[0, self.width - 1]] = 0.0
        return np.array(pos, dtype=np.float32), inv_mass


def run(args):
    cloth = Cloth(args.width, args.height)
    pos, inv_mass = cloth.build()
    x = wp.array(pos, dtype=wp.vec3)
    v = wp.zeros_like(x)
    f = wp.zeros_like(x)
    springs = wp.array(np.array(cloth.springs, dtype=np.int32), dtype=int)
    rest = wp.full(len(cloth.springs), cloth.spacing, dtype=float)
    collider = Collider()
    collider.xform = wp.transform(wp.vec3(0.8, 0.5, 0.8), wp.quat_identity())
    collider.radius = 0.3
    collider.friction = 0.2
    dt = 1.0 / 600.0
    for frame in range(args.frames):
        for _ in range(10):
            wp.launch(eval_springs, dim=len(cloth.springs), inputs=[x, v, springs, rest, f])
            wp.launch(integrate, dim=len(x), inputs=[x, v, f, wp.array(inv_mass), collider, dt])
    lo = wp.array([wp.vec3(1e9)], dtype=wp.vec3)
    hi = wp.array([wp.vec3(-1e9)], dtype=wp.vec3)
    wp.launch(bounds, dim=len(x), inputs=[x, lo, hi])
    report = {"frames": args.frames, "lo": lo.numpy().tolist(), "hi": hi.numpy().tolist()}
    with open(args.out, "w") as fh:
        json.dump(report, fh, indent=2)
    print(f"wrote {args.out}: drop {math.fabs(report['lo'][0][1] - 1.0):.3f}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--height", type=int, default=32)
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--out", default="cloth.json")
    run(p.parse_args())
