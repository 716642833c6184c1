"""Matrix decompositions: svd3, svd2, qr3, eig3."""
import warp as wp


@wp.kernel
def decomp3(a: wp.array(dtype=wp.mat33), u: wp.array(dtype=wp.mat33), s: wp.array(dtype=wp.vec3),
            v: wp.array(dtype=wp.mat33), q: wp.array(dtype=wp.mat33), r: wp.array(dtype=wp.mat33),
            e: wp.array(dtype=wp.mat33), d: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    m = a[i]
    U, sigma, V = wp.svd3(m)
    u[i] = U
    s[i] = sigma
    v[i] = V
    Q, R = wp.qr3(m)
    q[i] = Q
    r[i] = R
    E, l = wp.eig3(m + wp.transpose(m))
    e[i] = E
    d[i] = l


@wp.kernel
def decomp2(a: wp.array(dtype=wp.mat22), u: wp.array(dtype=wp.mat22), s: wp.array(dtype=wp.vec2),
            v: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    U, sigma, V = wp.svd2(a[i])
    u[i] = U
    s[i] = sigma
    v[i] = V
