"""Particles in a box: structs, random initialisation, integration with
collisions, a spatial hash count and energy reduction with atomics.

The host side uses plenty of Python that kpyc never parses: dataclasses,
decorators, comprehensions, lambdas, f-strings, context managers,
try/except, async functions, the match statement and type hints."""

import dataclasses
import functools
import sys
from typing import Any, Optional

import numpy as np

import warp as wp

NUM_CELLS = wp.constant(16)
BOX = wp.constant(wp.vec3(1.0, 1.0, 1.0))
RESTITUTION = 0.8
GRAVITY = -9.81
EPS = 1.0e-6


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3
    inv_mass: float
    cell: int


@wp.struct
class SimParams:
    dt: float
    gravity: wp.vec3
    restitution: float
    cell_size: float


@wp.func
def reflect(p: float, v: float, lo: float, hi: float, e: float):
    if p < lo:
        return lo, -v * e
    if p > hi:
        return hi, -v * e
    return p, v


@wp.func
def cell_of(p: wp.vec3, cell_size: float) -> int:
    cx = wp.clamp(int(wp.floor(p[0] / cell_size)), 0, NUM_CELLS - 1)
    cy = wp.clamp(int(wp.floor(p[1] / cell_size)), 0, NUM_CELLS - 1)
    cz = wp.clamp(int(wp.floor(p[2] / cell_size)), 0, NUM_CELLS - 1)
    return (cz * NUM_CELLS + cy) * NUM_CELLS + cx


@wp.kernel
def init_particles(particles: wp.array(dtype=Particle), seed: int, speed: float):
    tid = wp.tid()
    rng = wp.rand_init(seed, tid)
    p = Particle()
    p.pos = wp.vec3(wp.randf(rng), wp.randf(rng), wp.randf(rng))
    p.vel = wp.sample_unit_sphere_surface(rng) * speed * wp.randf(rng, 0.5, 1.0)
    p.inv_mass = 1.0 / wp.randf(rng, 0.5, 2.0)
    p.cell = -1
    particles[tid] = p


@wp.kernel
def integrate(particles: wp.array(dtype=Particle), params: SimParams, cell_counts: wp.array(dtype=int)):
    tid = wp.tid()
    p = particles[tid]
    if p.inv_mass == 0.0:
        return

    v = p.vel + params.gravity * params.dt
    x = p.pos + v * params.dt

    x0, v0 = reflect(x[0], v[0], 0.0, BOX[0], params.restitution)
    x1, v1 = reflect(x[1], v[1], 0.0, BOX[1], params.restitution)
    x2, v2 = reflect(x[2], v[2], 0.0, BOX[2], params.restitution)

    p.pos = wp.vec3(x0, x1, x2)
    p.vel = wp.vec3(v0, v1, v2)
    p.cell = cell_of(p.pos, params.cell_size)
    particles[tid] = p
    wp.atomic_add(cell_counts, p.cell, 1)


@wp.kernel
def energy(particles: wp.array(dtype=Particle), gravity: float, total: wp.array(dtype=float)):
    tid = wp.tid()
    p = particles[tid]
    m = wp.where(p.inv_mass > EPS, 1.0 / p.inv_mass, 0.0)
    ke = 0.5 * m * wp.length_sq(p.vel)
    pe = -m * gravity * p.pos.y
    total[0] += ke + pe


@wp.kernel
def max_speed(particles: wp.array(dtype=Particle), out: wp.array(dtype=float)):
    tid = wp.tid()
    wp.atomic_max(out, 0, wp.length(particles[tid].vel))


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with wp.ScopedTimer(fn.__name__, print=False) as t:
            result = fn(*args, **kwargs)
        wrapper.elapsed = t.elapsed
        return result

    return wrapper


@dataclasses.dataclass
class Config:
    num_particles: int = 4096
    seed: int = 42
    speed: float = 1.5
    dt: float = 1.0 / 120.0
    steps: int = 100
    device: Optional[str] = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)


class Simulation:
    """Owns the device arrays and launches the kernels."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.particles = wp.zeros(cfg.num_particles, dtype=Particle, device=cfg.device)
        self.counts = wp.zeros(NUM_CELLS**3, dtype=int, device=cfg.device)
        self.params = SimParams()
        self.params.dt = cfg.dt
        self.params.gravity = wp.vec3(0.0, GRAVITY, 0.0)
        self.params.restitution = RESTITUTION
        self.params.cell_size = 1.0 / NUM_CELLS
        wp.launch(init_particles, dim=cfg.num_particles, inputs=[self.particles, cfg.seed, cfg.speed])

    @timed
    def step(self):
        self.counts.zero_()
        wp.launch(integrate, dim=self.cfg.num_particles, inputs=[self.particles, self.params, self.counts])

    @property
    def total_energy(self) -> float:
        out = wp.zeros(1, dtype=float, device=self.cfg.device)
        wp.launch(energy, dim=self.cfg.num_particles, inputs=[self.particles, GRAVITY, out])
        return float(out.numpy()[0])

    def histogram(self):
        counts = self.counts.numpy()
        return {i: int(c) for i, c in enumerate(counts) if c > 0}

    def describe(self, mode: str) -> str:
        match mode:
            case "short":
                return f"{self.cfg.num_particles} particles"
            case _:
                busiest = sorted(self.histogram().items(), key=lambda kv: -kv[1])[:3]
                return f"{self.cfg.num_particles} particles, busiest cells {busiest}, E={self.total_energy:.3f}"


async def run_async(sim: Simulation) -> None:
    for _ in range(sim.cfg.steps):
        sim.step()


def main(argv: list[str]) -> int:
    cfg = Config(**{k: type(getattr(Config, k, ""))(v) for k, v in (a.split("=") for a in argv if "=" in a)})
    try:
        sim = Simulation(cfg)
    except RuntimeError as e:
        print(f"failed: {e}", file=sys.stderr)
        return 1
    energies = []
    for step in range(cfg.steps):
        sim.step()
        if (e := sim.total_energy) is not None and step % 10 == 0:
            energies.append(e)
    print(sim.describe("long"), np.mean(energies) if energies else float("nan"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
