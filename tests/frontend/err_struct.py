# Structs and components.
import warp as wp


@wp.struct
class S:
    x: float
    v: wp.vec3


@wp.kernel
def k(a: wp.array(dtype=S), b: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    s = a[i]
    y = s.nope
    s.x = 1
    t = S(1.0)
    v = b[i]
    w = v.xy
    v.w = 1.0
    x, y = v
    q = m[i][2]
    r = v[3]
    e = v[0:i]
