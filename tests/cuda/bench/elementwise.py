# Elementwise kernels: one thread per element, memory-bound or close to it.
# BENCH saxpy: dim=16777216 a=2.5
# BENCH softplus_loss: dim=16777216
# BENCH normalize_vectors: dim=4194304
# BENCH height_normals: dim=2048,2048 scale=0.25
# BENCH age_particles: dim=4194304 dt=0.016 lifetime=0.8
# BENCH smooth_activation: dim=16777216 beta=1.5
# BENCH polar_coords: dim=8388608
import warp as wp


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float), a: float):
    i = wp.tid()
    out[i] = a * x[i] + y[i]


@wp.kernel
def softplus_loss(pred: wp.array(dtype=float), target: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    d = pred[i] - target[i]
    loss[i] = wp.log(1.0 + wp.exp(d)) - 0.5 * d


@wp.kernel
def normalize_vectors(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.normalize(v[i])


@wp.kernel
def height_normals(height: wp.array2d(dtype=float), normals: wp.array2d(dtype=wp.vec3), scale: float):
    i, j = wp.tid()
    nx = height.shape[0]
    ny = height.shape[1]
    il = wp.max(i - 1, 0)
    ir = wp.min(i + 1, nx - 1)
    jd = wp.max(j - 1, 0)
    ju = wp.min(j + 1, ny - 1)
    dx = (height[ir, j] - height[il, j]) * scale
    dy = (height[i, ju] - height[i, jd]) * scale
    normals[i, j] = wp.normalize(wp.vec3(-dx, 1.0, -dy))


@wp.kernel
def age_particles(age: wp.array(dtype=float), new_age: wp.array(dtype=float), alpha: wp.array(dtype=float), dt: float,
                  lifetime: float):
    i = wp.tid()
    a = age[i] + dt
    if a > lifetime:
        a = a - lifetime
    new_age[i] = a
    alpha[i] = 1.0 - wp.clamp(a / lifetime, 0.0, 1.0)


@wp.kernel
def smooth_activation(x: wp.array(dtype=float), y: wp.array(dtype=float), beta: float):
    i = wp.tid()
    v = x[i]
    y[i] = v * wp.tanh(wp.log(1.0 + wp.exp(beta * v)) / beta)


@wp.kernel
def polar_coords(p: wp.array(dtype=wp.vec2), r: wp.array(dtype=float), theta: wp.array(dtype=float)):
    i = wp.tid()
    q = p[i]
    r[i] = wp.sqrt(q[0] * q[0] + q[1] * q[1])
    theta[i] = wp.atan2(q[1], q[0])
