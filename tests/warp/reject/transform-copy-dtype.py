import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    t = wp.transformd(wp.transform(1.0))
    a[i] = t.p[0]
