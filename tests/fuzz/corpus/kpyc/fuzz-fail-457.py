"""Every type family: scalars and their aliases, vectors, matrices,
quaternions, transforms, spatial vectors and matrices, arrays of 1-4
dimensions, structs (nested, with arrays), and type aliases."""
import warp as wp
import warp.types
from warp import vec3, float32 as f32, mat33

vec5 = wp.types.vector(length=5, dtype=wp.float32)
mat23 = wp.types.matrix(shape=(2, 3), dtype=wp.float64)
vec2h = wp.types.vector(2, wp.float16)
quatd = wp.types.quaternion(dtype=wp.float64)
xformf = warp.types.transformation(dtype=wp.float32)


@wp.struct
class Particle:
    pos: wp.vec3
    vel: vec3
    mass: float
    alive: bool


@wp.struct
class System:
    p: Particle
    count: int
    forces: wp.array(dtype=wp.vec3)


@wp.kernel
def scalars(
    a: wp.array(dtype=float),
    b: wp.array(dtype=int),
    c: wp.array(dtype=bool),
    d: wp.array(dtype=wp.float16),
    e: wp.array(dtype=wp.float64),
    f: wp.array(dtype=wp.int8),
    g: wp.array(dtype=wp.uint8),
    h: wp.array(dtype=wp.int16),
    k: wp.array(dtype=wp.uint16),
    l: wp.array(dtype=wp.int32),
    m: wp.array(dtype=wp.uint32),
    n: wp.array(dtype=wp.int64),
    o: wp.array(dtype=wp.uint64),
    p: wp.array(dtype=f32),
    q: wp.array(dtype=wp.bool),
):
    i = wp.tid()
    a[i] = float(b[i]) + p[i]
    b[i] = int(a[i])
    c[i] = bool(b[i]) and q[i]
    d[i] = wp.float16(a[i])
    e[i] = wp.float64(0.1) + wp.float64(a[i])
    f[i] = wp.int8(b[i])
    g[i] = wp.uint8(255)
    h[i] = wp.int16(-3)
    k[i] = wp.uint16(b[i])
    l[i] = wp.int32(n[i])
    m[i] = wp.uint32(7)
    n[i] = wp.int64(3000000000)
    o[i] = wp.uint64(m[i])


@wp.kernel
def vecto­rs(
    a: wp.array(dtype=wp.vec2),
    b: wp.array(dtype=wp.vec3d),
    c: wp.array(dtype=wp.vec4h),
    d: wp.array(dtype=wp.vec3i),
    e: wp.array(dtype=wp.vec2ui),
    f: wp.array(dtype=wp.vec4ub),
    g: wp.array(dtype=vec5),
    h: wp.array(dtype=wp.vec3f),
    k: wp.array(dtype=wp.vec2l),
    s: wp.array(dtype=wp.spatial_vector),
    sd: wp.array(dtype=wp.spatial_vectord),
    hh: wp.array(dtype=vec2h),
):
    i = wp.tid()
    a[i] = wp.vec2(1.0, 2.0)
    b[i] = wp.vec3d(0.1, 0.2, 0.3)
    c[i] = wp.vec4h(c[i][0], c[i].y, c[i].z, c[i].w)
    d[i] = wp.vec3i(1, 2, 3) + d[i]
    e[i] = wp.vec2ui(wp.uint32(1))
    f[i] = wp.vec4ub()
    g[i] = vec5(1.0, 2.0, 3.0, 4.0, 5.0)
    h[i] = wp.vec3f(b[i])
    k[i] = wp.vec2l(wp.int64(1), wp.int64(2))
    s[i] = wp.spatial_vector(h[i], h[i])
    sd[i] = wp.spatial_vectord(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    hh[i] = vec2h(wp.float16(1.0))


@wp.kernel
def matrices(
    a: wp.array(dtype=wp.mat22),
    b: wp.array(dtype=wp.mat33d),
    c: wp.array(dtype=wp.mat44h),
    d: wp.array(dtype=mat23),
    e: wp.array(dtype=mat33),
    s: wp.array(dtype=wp.spatial_matrix),
):
    i = wp.tid()
    a[i] = wp.mat22(1.0, 2.0, 3.0, 4.0)
    b[i] = wp.mat33d(b[i])
    c[i] = wp.mat44h()
    d[i] = mat23(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    e[i] = wp.identity(n=3, dtype=float)
    s[i] = wp.spatial_matrix()
    x = a[i][0, 1] + a[i][1][0]
    r = a[i][1]
    a[i] = wp.mat22(x, r[0], r[1], x)


@wp.kernel
def rotations(
    q: wp.array(dtype=wp.quat),
    qd: wp.array(dtype=quatd),
    qh: wp.array(dtype=wp.quath),
    t: wp.array(dtype=wp.transform),
    td: wp.array(dtype=wp.transformd),
    tf: wp.array(dtype=xformf),
):
    i = wp.tid()
    q[i] = wp.quat(0.0, 0.0, 0.0, 1.0)
    qd[i] = wp.quatd(wp.vec3d(1.0, 0.0, 0.0), 0.5)
    qh[i] = wp.quath(q[i])
    t[i] = wp.transform(wp.vec3(1.0, 2.0, 3.0), q[i])
    td[i] = wp.transformd(wp.vec3d(0.0))
    tf[i] = wp.transformf(1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0)
    p = t[i].p
    r = t[i].q
    w = q[i].w + q[i][3]
    q[i] = r * w


@wp.kernel
def arrays(
    a1: wp.array(dtype=float, ndim=1),
    a2: wp.array2d(dtype=float),
    a3: wp.array3d(dtype=wp.vec3),
    a4: wp.array4d(dtype=int),
    b2: wp.array(dtype=float, ndim=2),
    c1: wp.array1d(dtype=wp.mat22),
    n1: wp.array[float],
):
    i, j, k, l = wp.tid()
    a2[i, j] = a1[i] + b2[i][j] + n1[i]
    row = a2[i]
    row[j] = 0.0
    v = a3[i, j, k]
    a3[i, j, k] = v * 2.0
    a4[i, j, k, l] = a4.shape[0] * a4.shape[3] + len(a1)
    c1[i] = wp.mat22(float(a2.shape[1]))


@wp.kernel
def structs(systems: wp.array(dtype=System), parts: wp.array(dtype=Particle)):
    i = wp.tid()
    s = systems[i]
    p = s.p
    p.pos = p.pos + p.vel * 0.1
    p.mass = 2.0
    p.vel[1] = 0.0
    p.alive = s.count > 0
    s.p = p
    s.forces[i] = wp.vec3(0.0)
    systems[i] = s
    q = Particle()
    q.mass = s.p.mass
    parts[i] = q
    parts[i].mass = 1.0
    parts[i].pos.y = 2.0
