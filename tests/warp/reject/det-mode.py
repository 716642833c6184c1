import warp as wp

wp.set_module_options({"deterministic": True})


@wp.kernel
def k(x: wp.array(dtype=float)):
    x[wp.tid()] = 1.0
