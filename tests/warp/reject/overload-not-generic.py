import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    x[wp.tid()] = 1.0


wp.overload(k, [wp.array(dtype=float)])
