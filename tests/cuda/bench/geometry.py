# Geometry: ray casts, signed distances, closest points.
# BENCH ray_sphere: dim=8388608 center=1 radius=0.5
# BENCH sdf_box: dim=8388608 half=1
# BENCH closest_point_segment: dim=8388608
# BENCH ray_plane: dim=8388608
import warp as wp


@wp.kernel
def ray_sphere(origin: wp.array(dtype=wp.vec3), direction: wp.array(dtype=wp.vec3), center: wp.array(dtype=wp.vec3),
               radius: float, t_hit: wp.array(dtype=float)):
    i = wp.tid()
    d = wp.normalize(direction[i])
    oc = origin[i] - center[0]
    b = wp.dot(oc, d)
    c = wp.dot(oc, oc) - radius * radius
    disc = b * b - c
    t = float(-1.0)
    if disc > 0.0:
        t = -b - wp.sqrt(disc)
    t_hit[i] = t


@wp.kernel
def sdf_box(p: wp.array(dtype=wp.vec3), half: wp.array(dtype=wp.vec3), dist: wp.array(dtype=float)):
    i = wp.tid()
    h = half[0]
    q = wp.vec3(wp.abs(p[i][0]) - h[0], wp.abs(p[i][1]) - h[1], wp.abs(p[i][2]) - h[2])
    outside = wp.length(wp.vec3(wp.max(q[0], 0.0), wp.max(q[1], 0.0), wp.max(q[2], 0.0)))
    inside = wp.min(wp.max(q[0], wp.max(q[1], q[2])), 0.0)
    dist[i] = outside + inside


@wp.kernel
def closest_point_segment(p: wp.array(dtype=wp.vec3), a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3),
                          closest: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    ab = b[i] - a[i]
    t = wp.dot(p[i] - a[i], ab) / (wp.dot(ab, ab) + 1.0e-8)
    t = wp.clamp(t, 0.0, 1.0)
    closest[i] = a[i] + ab * t


@wp.kernel
def ray_plane(origin: wp.array(dtype=wp.vec3), direction: wp.array(dtype=wp.vec3), hit: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    n = wp.vec3(0.0, 1.0, 0.0)
    denom = wp.dot(direction[i], n)
    t = float(0.0)
    if wp.abs(denom) > 1.0e-4:
        t = -wp.dot(origin[i], n) / denom
    hit[i] = origin[i] + direction[i] * t
