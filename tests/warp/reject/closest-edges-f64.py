import warp as wp


# float32 vectors only
@wp.kernel
def k(p: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d)):
    out[0] = wp.closest_point_edge_edge(p[0], p[1], p[2], p[3], wp.float64(1.0e-6))
