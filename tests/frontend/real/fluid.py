# Stable-fluids style 2D smoke: semi-Lagrangian advection with bilinear
# sampling, divergence, Jacobi pressure iterations and projection, on
# wp.array2d grids.  Host code: a small solver class and a CLI.

import math
import sys
import time

import numpy as np

import warp as wp

GRID = 64
DT = 0.1
PRESSURE_ITERS = 40


@wp.func
def lookup_float(f: wp.array2d(dtype=float), x: int, y: int):
    x = wp.clamp(x, 0, f.shape[0] - 1)
    y = wp.clamp(y, 0, f.shape[1] - 1)
    return f[x, y]


@wp.func
def sample_float(f: wp.array2d(dtype=float), x: float, y: float):
    lx = int(wp.floor(x))
    ly = int(wp.floor(y))
    tx = x - float(lx)
    ty = y - float(ly)
    s0 = wp.lerp(lookup_float(f, lx, ly), lookup_float(f, lx + 1, ly), tx)
    s1 = wp.lerp(lookup_float(f, lx, ly + 1), lookup_float(f, lx + 1, ly + 1), tx)
    return wp.lerp(s0, s1, ty)


@wp.func
def lookup_vel(f: wp.array2d(dtype=wp.vec2), x: int, y: int):
    if x < 0 or x >= f.shape[0]:
        return wp.vec2()
    if y < 0 or y >= f.shape[1]:
        return wp.vec2()
    return f[x, y]


@wp.func
def sample_vel(f: wp.array2d(dtype=wp.vec2), x: float, y: float):
    lx = int(wp.floor(x))
    ly = int(wp.floor(y))
    tx = x - float(lx)
    ty = y - float(ly)
    s0 = wp.lerp(lookup_vel(f, lx, ly), lookup_vel(f, lx + 1, ly), tx)
    s1 = wp.lerp(lookup_vel(f, lx, ly + 1), lookup_vel(f, lx + 1, ly + 1), tx)
    return wp.lerp(s0, s1, ty)


@wp.kernel
def advect(
    u0: wp.array2d(dtype=wp.vec2),
    u1: wp.array2d(dtype=wp.vec2),
    rho0: wp.array2d(dtype=float),
    rho1: wp.array2d(dtype=float),
    dt: float,
):
    i, j = wp.tid()
    u = u0[i, j]
    # trace backwards
    p = wp.vec2(float(i), float(j)) - u * dt
    u1[i, j] = sample_vel(u0, p[0], p[1])
    rho1[i, j] = sample_float(rho0, p[0], p[1])


@wp.kernel
def divergence(u: wp.array2d(dtype=wp.vec2), div: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if i == GRID - 1 or j == GRID - 1:
        return
    dx = (u[i + 1, j][0] - u[i, j][0]) * 0.5
    dy = (u[i, j + 1][1] - u[i, j][1]) * 0.5
    div[i, j] = dx + dy


@wp.kernel
def pressure_solve(p0: wp.array2d(dtype=float), p1: wp.array2d(dtype=float), div: wp.array2d(dtype=float)):
    i, j = wp.tid()
    s1 = lookup_float(p0, i - 1, j)
    s2 = lookup_float(p0, i + 1, j)
    s3 = lookup_float(p0, i, j - 1)
    s4 = lookup_float(p0, i, j + 1)
    # Jacobi update
    err = s1 + s2 + s3 + s4 - div[i, j]
    p1[i, j] = err * 0.25


@wp.kernel
def pressure_apply(p: wp.array2d(dtype=float), u: wp.array2d(dtype=wp.vec2)):
    i, j = wp.tid()
    if i == 0 or i == GRID - 1:
        return
    if j == 0 or j == GRID - 1:
        return
    # pressure gradient
    f_p = wp.vec2(p[i + 1, j] - p[i - 1, j], p[i, j + 1] - p[i, j - 1]) * 0.5
    u[i, j] = u[i, j] - f_p


@wp.kernel
def integrate(u: wp.array2d(dtype=wp.vec2), rho: wp.array2d(dtype=float), dt: float):
    i, j = wp.tid()
    # gravity with a buoyancy term
    f_g = wp.vec2(-90.8, 0.0) * rho[i, j]
    u[i, j] = u[i, j] + dt * f_g
    # fade out
    rho[i, j] = rho[i, j] * (1.0 - 0.1 * dt)


@wp.kernel
def init(rho: wp.array2d(dtype=float), u: wp.array2d(dtype=wp.vec2), radius: int, dir: wp.vec2):
    i, j = wp.tid()
    d = wp.length(wp.vec2(float(i - GRID / 2), float(j - GRID / 2)))
    if d < float(radius):
        rho[i, j] = 1.0
        u[i, j] = dir


class Smoke:
    def __init__(self, n=GRID):
        shape = (n, n)
        self.u0 = wp.zeros(shape, dtype=wp.vec2)
        self.u1 = wp.zeros(shape, dtype=wp.vec2)
        self.rho0 = wp.zeros(shape, dtype=float)
        self.rho1 = wp.zeros(shape, dtype=float)
        self.p0 = wp.zeros(shape, dtype=float)
        self.p1 = wp.zeros(shape, dtype=float)
        self.div = wp.zeros(shape, dtype=float)
        self.t = 0.0

    def step(self):
        shape = (GRID, GRID)
        speed = 400.0
        angle = math.sin(self.t * 4.0) * 1.5
        vel = wp.vec2(math.cos(angle) * speed, math.sin(angle) * speed)
        wp.launch(init, dim=shape, inputs=[self.rho0, self.u0, 5, vel])
        wp.launch(integrate, dim=shape, inputs=[self.u0, self.rho0, DT])
        wp.launch(divergence, dim=shape, inputs=[self.u0, self.div])
        self.p0.zero_()
        self.p1.zero_()
        for _ in range(PRESSURE_ITERS):
            wp.launch(pressure_solve, dim=shape, inputs=[self.p0, self.p1, self.div])
            self.p0, self.p1 = self.p1, self.p0
        wp.launch(pressure_apply, dim=shape, inputs=[self.p0, self.u0])
        wp.launch(advect, dim=shape, inputs=[self.u0, self.u1, self.rho0, self.rho1, DT])
        self.u0, self.u1 = self.u1, self.u0
        self.rho0, self.rho1 = self.rho1, self.rho0
        self.t += DT


if __name__ == "__main__":
    frames = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    smoke = Smoke()
    start = time.perf_counter()
    for _ in range(frames):
        smoke.step()
    print(f"{frames} frames in {time.perf_counter() - start:.2f}s, mass {np.sum(smoke.rho0.numpy()):.3f}")
