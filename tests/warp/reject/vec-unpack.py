import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    v = wp.vec3(1.0)
    x, y, z = v
    a[i] = x
