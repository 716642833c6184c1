# Small linear algebra per thread: transforms, rotations, 4x4 products.
# BENCH transform_points: dim=8388608 rot=1 offset=1
# BENCH quat_rotate: dim=8388608
# BENCH mat44_chain: dim=2097152
# BENCH inertia_tensor: dim=4194304
import warp as wp


@wp.kernel
def transform_points(p: wp.array(dtype=wp.vec3), rot: wp.array(dtype=wp.mat33), offset: wp.array(dtype=wp.vec3),
                     out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = rot[0] * p[i] + offset[0]


@wp.kernel
def quat_rotate(q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.quat_rotate(wp.normalize(q[i]), v[i])


@wp.kernel
def mat44_chain(a: wp.array(dtype=wp.mat44), b: wp.array(dtype=wp.mat44), out: wp.array(dtype=wp.mat44)):
    i = wp.tid()
    out[i] = a[i] * b[i] * wp.transpose(a[i])


@wp.kernel
def inertia_tensor(r: wp.array(dtype=wp.vec3), m: wp.array(dtype=float), out: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    x = r[i]
    out[i] = m[i] * (wp.dot(x, x) * wp.identity(n=3, dtype=float) - wp.outer(x, x))
