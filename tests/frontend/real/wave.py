# A 2D wave equation solver in the style of Warp's example_wave.py:
# kernels and functions at module level, a host-side Example class,
# argparse and a __main__ block.  kpyc compiles the kernels unedited.

import argparse
import math
import os

import numpy as np

import warp as wp


@wp.func
def sample(f: wp.array(dtype=float), x: int, y: int, width: int, height: int):
    # clamp texture coords
    x = wp.clamp(x, 0, width - 1)
    y = wp.clamp(y, 0, height - 1)

    s = f[y * width + x]
    return s


@wp.func
def laplacian(f: wp.array(dtype=float), x: int, y: int, width: int, height: int):
    ddx = sample(f, x + 1, y, width, height) - 2.0 * sample(f, x, y, width, height) + sample(f, x - 1, y, width, height)
    ddy = sample(f, x, y + 1, width, height) - 2.0 * sample(f, x, y, width, height) + sample(f, x, y - 1, width, height)

    return ddx + ddy


@wp.kernel
def wave_displace(
    hcurrent: wp.array(dtype=float),
    hprevious: wp.array(dtype=float),
    width: int,
    height: int,
    center_x: float,
    center_y: float,
    r: float,
    mag: float,
    t: float,
):
    tid = wp.tid()

    x = tid % width
    y = tid // width

    dx = float(x) - center_x
    dy = float(y) - center_y

    dist_sq = float(dx * dx + dy * dy)

    if dist_sq < r * r:
        h = mag * wp.sin(t)

        hcurrent[tid] = h
        hprevious[tid] = h


@wp.kernel
def wave_solve(
    hprevious: wp.array(dtype=float),
    hcurrent: wp.array(dtype=float),
    width: int,
    height: int,
    inv_cell: float,
    k_speed: float,
    k_damp: float,
    dt: float,
):
    tid = wp.tid()

    x = tid % width
    y = tid // width

    l = laplacian(hcurrent, x, y, width, height) * inv_cell * inv_cell

    # integrate
    h1 = hcurrent[tid]
    h0 = hprevious[tid]

    h = 2.0 * h1 - h0 + dt * dt * (k_speed * l - k_damp * (h1 - h0))

    # buffers get swapped each iteration
    hprevious[tid] = h


# simple kernel to apply height deltas to mesh vertices
@wp.kernel
def grid_update(heights: wp.array(dtype=float), vertices: wp.array(dtype=wp.vec3)):
    tid = wp.tid()

    h = heights[tid]
    v = vertices[tid]

    v_new = wp.vec3(v[0], h, v[2])

    vertices[tid] = v_new


class Example:
    def __init__(self, stage_path="example_wave.usd", verbose=False):
        self.sim_width = 128
        self.sim_height = 128

        fps = 60
        self.sim_substeps = 16
        self.frame_dt = 1.0 / fps
        self.sim_dt = self.frame_dt / self.sim_substeps
        self.sim_time = 0.0
        self.sim_grid_size = 0.1
        self.sim_speed = 1.0
        self.sim_damping = 0.0
        self.verbose = verbose

        vertices = []
        self.indices = []

        def grid_index(x, y, stride):
            return y * stride + x

        for z in range(self.sim_height):
            for x in range(self.sim_width):
                pos = (
                    float(x) * self.sim_grid_size,
                    0.0,
                    float(z) * self.sim_grid_size,
                )
                vertices.append(pos)
                if x > 0 and z > 0:
                    self.indices += [
                        grid_index(x - 1, z - 1, self.sim_width),
                        grid_index(x, z, self.sim_width),
                        grid_index(x, z - 1, self.sim_width),
                    ]

        self.sim_host = np.array(vertices, dtype=np.float32).reshape((-1, 3))
        self.sim_verts = wp.array(self.sim_host, dtype=wp.vec3)
        shape = self.sim_width * self.sim_height
        self.sim_h0 = wp.zeros(shape, dtype=float)
        self.sim_h1 = wp.zeros(shape, dtype=float)

        self.renderer = None
        if stage_path:
            try:
                import warp.render  # noqa: PLC0415

                self.renderer = warp.render.UsdRenderer(stage_path)
            except ImportError:
                print(f"render disabled: {stage_path!r} ({'no usd'})")

    def step(self):
        with wp.ScopedTimer("step", active=self.verbose):
            for _s in range(self.sim_substeps):
                x = float(self.sim_width) * (0.5 + 0.25 * math.cos(self.sim_time))
                z = float(self.sim_height) * 0.5
                wp.launch(
                    kernel=wave_displace,
                    dim=self.sim_width * self.sim_height,
                    inputs=[self.sim_h0, self.sim_h1, self.sim_width, self.sim_height, x, z, 10.0, 0.5, self.sim_time],
                )
                wp.launch(
                    kernel=wave_solve,
                    dim=self.sim_width * self.sim_height,
                    inputs=[self.sim_h0, self.sim_h1, self.sim_width, self.sim_height,
                            1.0 / self.sim_grid_size, self.sim_speed, self.sim_damping, self.sim_dt],
                )
                (self.sim_h0, self.sim_h1) = (self.sim_h1, self.sim_h0)
                self.sim_time += self.sim_dt

            wp.launch(kernel=grid_update, dim=self.sim_width * self.sim_height, inputs=[self.sim_h0, self.sim_verts])

    def render(self):
        if self.renderer is None:
            return
        self.renderer.begin_frame(self.sim_time)
        self.renderer.render_mesh(name="surface", points=self.sim_verts.numpy(), indices=self.indices)
        self.renderer.end_frame()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--device", type=str, default=None, help="Override the default Warp device.")
    parser.add_argument("--stage_path", type=lambda x: None if x == "None" else str(x), default="example_wave.usd")
    parser.add_argument("--num_frames", type=int, default=300, help="Total number of frames.")
    parser.add_argument("--verbose", action="store_true", help="Print out additional status messages.")

    args = parser.parse_known_args()[0]

    with wp.ScopedDevice(args.device):
        example = Example(stage_path=args.stage_path, verbose=args.verbose)
        for _ in range(args.num_frames):
            example.step()
            example.render()
        if example.renderer:
            example.renderer.save()
    print(os.path.basename(__file__), "done")
