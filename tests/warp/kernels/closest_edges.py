"""wp.closest_point_edge_edge (issue 14): vec3(s, t, dist) of the closest
points of two segments, Warp's branches (intersect.h): the general case
(s from a compensated num/denom, t corrected to [0, 1] with s recomputed),
an edge that is a point, both.  Forward and gradients on random segments
and on degenerate ones; parallel edges (denom 0, where Warp damps its
analytic adjoint) forward only."""
import warp as wp


@wp.kernel
def edges(p1: wp.array(dtype=wp.vec3), q1: wp.array(dtype=wp.vec3), p2: wp.array(dtype=wp.vec3),
          q2: wp.array(dtype=wp.vec3), eps: float, st: wp.array(dtype=wp.vec3), d: wp.array(dtype=float)):
    i = wp.tid()
    e = wp.abs(eps) * 1.0e-3
    st[i] = wp.closest_point_edge_edge(p1[i], q1[i], p2[i], q2[i], e)
    # edge 1 a point, edge 2 a point, both (keywords as Warp allows)
    b = wp.closest_point_edge_edge(p1[i], p1[i], p2[i], q2[i], e)
    c = wp.closest_point_edge_edge(p1=p1[i], q1=q1[i], p2=p2[i], q2=p2[i], epsilon=e)
    a = wp.closest_point_edge_edge(p1[i], p1[i], q2[i], q2[i], e)
    d[i] = b[1] * 3.0 + b[2] + c[0] * 5.0 + c[2] * 7.0 + a[2] * 11.0
    # t clamped at both ends: the second edge shifted along the first
    far = wp.closest_point_edge_edge(p1[i], q1[i], q1[i] + (q1[i] - p1[i]) * 3.0, q2[i] + q1[i] * 4.0, e)
    d[i] += far[0] + far[1] * 2.0 + far[2] * 3.0


@wp.kernel(enable_backward=False)
def parallel(p1: wp.array(dtype=wp.vec3), q1: wp.array(dtype=wp.vec3), o: wp.array(dtype=wp.vec3),
             st: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    st[i] = wp.closest_point_edge_edge(p1[i], q1[i], p1[i] + o[i], q1[i] + o[i], 1.0e-6)
