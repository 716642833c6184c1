"""Every assignment target: locals, components of vectors, matrices,
quaternions and transforms (insert, SSA), struct fields (setfield), array
elements and components of array elements (an atomic operation for + and
-, else load, insert or setfield, store), each plain and augmented, on
locals and on kernel parameters.  `v[i].z *= 2.0` on floats needs
enable_backward=False in Warp."""
import warp as wp


@wp.struct
class Inner:
    v: wp.vec3
    w: float


@wp.struct
class Outer:
    inner: Inner
    m: wp.mat22
    k: int


@wp.kernel
def locals_(a: wp.array(dtype=float), v: wp.vec3, s: Outer):
    i = wp.tid()
    p = wp.vec3(1.0, 2.0, 3.0)
    p[0] = a[i]
    p.y = 2.0
    p[2] += 1.0
    p.x *= 2.0
    m = wp.mat33()
    m[0, 1] = 1.0
    m[1][2] = 2.0
    m[2] = p
    m[0][0] += 3.0
    m[1, 1] -= 1.0
    q = wp.quat_identity()
    q.w = 0.5
    q[0] = 0.1
    t = wp.transform_identity()
    t.p = p
    t.q = q
    t.p[1] = 4.0
    v[0] = 9.0
    v.z += 1.0
    s.k = 3
    s.k += 1
    s.inner.w = 1.5
    s.inner.v[2] = 2.5
    s.inner.v.x -= 0.5
    s.m[1, 0] = 7.0
    a[i] = p[0] + m[0, 1] + q.w + t.p[1] + v[0] + float(s.k) + s.inner.v[2] + s.m[1, 0]


@wp.kernel(enable_backward=False)
def elements(
    f: wp.array2d(dtype=float),
    v: wp.array(dtype=wp.vec3),
    m: wp.array(dtype=wp.mat22),
    o: wp.array(dtype=Outer),
    q: wp.array(dtype=wp.quat),
    t: wp.array(dtype=wp.transform),
):
    i, j = wp.tid()
    f[i, j] = 1.0
    f[i][j] = 2.0
    f[i, j] += 1.0
    f[i][j] *= 3.0
    v[i][0] = 1.0
    v[i].y = 2.0
    v[i][2] += 3.0
    v[i].x -= 1.0
    v[i].z *= 2.0
    m[i][0, 1] = 1.0
    m[i][1][0] = 2.0
    m[i][0] = wp.vec2(3.0, 4.0)
    m[i][1, 1] += 1.0
    o[i].k = 1
    o[i].k += 2
    o[i].inner.w = 0.5
    o[i].inner.v[1] = 2.0
    o[i].m[0, 0] -= 1.0
    q[i].w = 1.0
    q[i][0] += 0.5
    t[i].p = v[i]
    t[i].p[2] = 0.0
    t[i].q = q[i]

# GPURACE: elements (all threads of one i update v[i], m[i], o[i], q[i] and t[i] read-modify-write)
