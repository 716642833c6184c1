import warp as wp


@wp.kernel(module_options={"enable_backward": False})
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
