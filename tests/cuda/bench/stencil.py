# Grid stencils: 2-D launches reading neighbours.
# BENCH laplacian: dim=4096,4096
# BENCH blur3x3: dim=4096,4096
# BENCH heat_step: dim=4096,4096 alpha=0.2
# BENCH sobel: dim=4096,4096
# BENCH advect: dim=2048,2048 dt=0.5
import warp as wp


@wp.func
def at(f: wp.array2d(dtype=float), i: int, j: int):
    ic = wp.clamp(i, 0, f.shape[0] - 1)
    jc = wp.clamp(j, 0, f.shape[1] - 1)
    return f[ic, jc]


@wp.kernel
def laplacian(f: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = at(f, i - 1, j) + at(f, i + 1, j) + at(f, i, j - 1) + at(f, i, j + 1) - 4.0 * f[i, j]


@wp.kernel
def blur3x3(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    i, j = wp.tid()
    s = float(0.0)
    for di in range(-1, 2):
        for dj in range(-1, 2):
            s += at(src, i + di, j + dj)
    dst[i, j] = s / 9.0


@wp.kernel
def heat_step(u: wp.array2d(dtype=float), u_next: wp.array2d(dtype=float), alpha: float):
    i, j = wp.tid()
    c = u[i, j]
    lap = at(u, i - 1, j) + at(u, i + 1, j) + at(u, i, j - 1) + at(u, i, j + 1) - 4.0 * c
    u_next[i, j] = c + alpha * lap


@wp.kernel
def sobel(img: wp.array2d(dtype=float), mag: wp.array2d(dtype=float)):
    i, j = wp.tid()
    gx = at(img, i + 1, j - 1) + 2.0 * at(img, i + 1, j) + at(img, i + 1, j + 1)
    gx = gx - at(img, i - 1, j - 1) - 2.0 * at(img, i - 1, j) - at(img, i - 1, j + 1)
    gy = at(img, i - 1, j + 1) + 2.0 * at(img, i, j + 1) + at(img, i + 1, j + 1)
    gy = gy - at(img, i - 1, j - 1) - 2.0 * at(img, i, j - 1) - at(img, i + 1, j - 1)
    mag[i, j] = wp.sqrt(gx * gx + gy * gy + 1.0e-8)


@wp.kernel
def advect(q: wp.array2d(dtype=float), vel: wp.array2d(dtype=wp.vec2), q_new: wp.array2d(dtype=float), dt: float):
    i, j = wp.tid()
    v = vel[i, j]
    x = float(i) - v[0] * dt
    y = float(j) - v[1] * dt
    x0 = wp.floor(x)
    y0 = wp.floor(y)
    tx = x - x0
    ty = y - y0
    i0 = int(x0)
    j0 = int(y0)
    a = wp.lerp(at(q, i0, j0), at(q, i0 + 1, j0), tx)
    b = wp.lerp(at(q, i0, j0 + 1), at(q, i0 + 1, j0 + 1), tx)
    q_new[i, j] = wp.lerp(a, b, ty)
