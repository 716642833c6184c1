# Finite elements: per-element gathers, small matrices, scattered forces.
# BENCH tri_strain_energy: dim=1048576 pos=524288 tris=dim,3:<524288 rest_inv=dim force=524288 energy=dim mu=1.0 lam=2.0
# BENCH tet_volumes: dim=1048576 pos=262144 tets=dim,4:<262144 vol=dim
# BENCH edge_lengths: dim=4194304 pos=1048576 edges=dim,2:<1048576 lengths=dim
import warp as wp


@wp.kernel
def tri_strain_energy(pos: wp.array(dtype=wp.vec2), tris: wp.array2d(dtype=int), rest_inv: wp.array(dtype=wp.mat22),
                      force: wp.array(dtype=wp.vec2), energy: wp.array(dtype=float), mu: float, lam: float):
    t = wp.tid()
    i = tris[t, 0]
    j = tris[t, 1]
    k = tris[t, 2]
    x0 = pos[i]
    e1 = pos[j] - x0
    e2 = pos[k] - x0
    ds = wp.mat22(e1[0], e2[0], e1[1], e2[1])
    F = ds * rest_inv[t]
    J = wp.determinant(F)
    tr = wp.trace(wp.transpose(F) * F)
    psi = 0.5 * mu * (tr - 2.0) + 0.5 * lam * (J - 1.0) * (J - 1.0)
    energy[t] = psi
    P = F * mu + lam * (J - 1.0) * wp.mat22(F[1, 1], -F[1, 0], -F[0, 1], F[0, 0])
    H = P * wp.transpose(rest_inv[t])
    f1 = wp.vec2(H[0, 0], H[1, 0])
    f2 = wp.vec2(H[0, 1], H[1, 1])
    wp.atomic_sub(force, j, f1)
    wp.atomic_sub(force, k, f2)
    wp.atomic_add(force, i, f1 + f2)


@wp.kernel
def tet_volumes(pos: wp.array(dtype=wp.vec3), tets: wp.array2d(dtype=int), vol: wp.array(dtype=float)):
    t = wp.tid()
    p0 = pos[tets[t, 0]]
    a = pos[tets[t, 1]] - p0
    b = pos[tets[t, 2]] - p0
    c = pos[tets[t, 3]] - p0
    vol[t] = wp.dot(wp.cross(a, b), c) / 6.0


@wp.kernel
def edge_lengths(pos: wp.array(dtype=wp.vec3), edges: wp.array2d(dtype=int), lengths: wp.array(dtype=float)):
    e = wp.tid()
    lengths[e] = wp.length(pos[edges[e, 0]] - pos[edges[e, 1]])
