"""A tiny signed-distance-field ray marcher: camera matrices, while loops
with break, functions returning several values, a generic helper and
per-pixel random jitter.  Images are written with numpy on the host."""
import os
from typing import Any

import numpy as np

import warp as wp

MAX_STEPS = wp.constant(128)
HIT_EPS = wp.constant(1.0e-4)
FAR = 100.0


@wp.func
def sd_sphere(p: wp.vec3, r: float) -> float:
    return wp.length(p) - r


@wp.func
def sd_box(p: wp.vec3, b: wp.vec3) -> float:
    q = wp.vec3(wp.abs(p[0]), wp.abs(p[1]), wp.abs(p[2])) - b
    outside = wp.length(wp.vec3(wp.max(q[0], 0.0), wp.max(q[1], 0.0), wp.max(q[2], 0.0)))
    inside = wp.min(wp.max(q[0], wp.max(q[1], q[2])), 0.0)
    return outside + inside


@wp.func
def smin(a: Any, b: Any, k: Any):
    h = wp.clamp(0.5 + 0.5 * (b - a) / k, type(a)(0.0), type(a)(1.0))
    return wp.lerp(b, a, h) - k * h * (type(a)(1.0) - h)


@wp.func
def scene(p: wp.vec3):
    d1 = sd_sphere(p - wp.vec3(0.0, 0.5, 0.0), 0.5)
    d2 = sd_box(p - wp.vec3(0.0, -0.25, 0.0), wp.vec3(1.0, 0.25, 1.0))
    d = smin(d1, d2, 0.2)
    material = 0
    if d1 < d2:
        material = 1
    return d, material


@wp.func
def normal(p: wp.vec3) -> wp.vec3:
    e = 1.0e-3
    dx, m0 = scene(p + wp.vec3(e, 0.0, 0.0))
    dy, m1 = scene(p + wp.vec3(0.0, e, 0.0))
    dz, m2 = scene(p + wp.vec3(0.0, 0.0, e))
    d, m = scene(p)
    return wp.normalize(wp.vec3(dx - d, dy - d, dz - d))


@wp.kernel
def render(
    pixels: wp.array2d(dtype=wp.vec3),
    cam_pos: wp.vec3,
    cam_rot: wp.mat33,
    fov: float,
    seed: int,
):
    y, x = wp.tid()
    h = pixels.shape[0]
    w = pixels.shape[1]
    state = wp.rand_init(seed, y * w + x)
    jitter = wp.vec2(wp.randf(state), wp.randf(state)) - wp.vec2(0.5, 0.5)
    u = (2.0 * (float(x) + jitter[0]) / float(w) - 1.0) * fov * float(w) / float(h)
    v = (1.0 - 2.0 * (float(y) + jitter[1]) / float(h)) * fov
    rd = wp.normalize(cam_rot @ wp.vec3(u, v, -1.0))

    t = float(0.0)
    steps = int(0)
    hit = bool(False)
    mat = int(0)
    while steps < MAX_STEPS:
        d, m = scene(cam_pos + rd * t)
        if d < HIT_EPS:
            hit = True
            mat = m
            break
        t = t + d
        if t > FAR:
            break
        steps += 1

    color = wp.vec3(0.1, 0.1, 0.15)
    if hit:
        p = cam_pos + rd * t
        n = normal(p)
        light = wp.normalize(wp.vec3(1.0, 1.0, 0.5))
        diffuse = wp.max(wp.dot(n, light), 0.0)
        base = wp.vec3(0.8, 0.3, 0.2) if mat == 1 else wp.vec3(0.7, 0.7, 0.7)
        color = base * (0.2 + 0.8 * diffuse)
    pixels[y, x] = color


def look_at(eye, target, up=(0.0, 1.0, 0.0)):
    f = np.array(target, dtype=np.float32) - np.array(eye, dtype=np.float32)
    f /= np.linalg.norm(f)
    r = np.cross(f, up)
    r /= np.linalg.norm(r)
    u = np.cross(r, f)
    return wp.mat33(*np.stack([r, u, -f], axis=1).flatten())


def save_ppm(path: str, img: np.ndarray) -> None:
    data = (np.clip(img, 0.0, 1.0) * 255).astype(np.uint8)
    with open(path, "wb") as fh:
        fh.write(b"P6\n%d %d\n255\n" % (data.shape[1], data.shape[0]))
        fh.write(data.tobytes())


if __name__ == "__main__":
    width, height = 320, 240
    pixels = wp.zeros((height, width), dtype=wp.vec3)
    eye = (2.5, 1.5, 2.5)
    wp.launch(render, dim=(height, width), inputs=[pixels, wp.vec3(*eye), look_at(eye, (0, 0, 0)), 0.6, 7])
    save_ppm(os.environ.get("OUT", "sdf.ppm"), pixels.numpy())
