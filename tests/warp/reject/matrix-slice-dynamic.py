import warp as wp


@wp.kernel
def k(m: wp.array(dtype=wp.mat33), n: wp.array(dtype=int), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    mi = m[i]
    r = mi[n[i]:, :]
    out[i] = r[0]
