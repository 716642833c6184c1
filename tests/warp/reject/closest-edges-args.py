import warp as wp


# five arguments: the tolerance is not optional
@wp.kernel
def k(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    out[0] = wp.closest_point_edge_edge(p[0], p[1], p[2], p[3])
