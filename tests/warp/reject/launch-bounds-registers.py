import warp as wp


@wp.kernel(launch_bounds=128, cuda_max_registers=64, module="unique")
def k(a: wp.array(dtype=int)):
    a[wp.tid()] = 0
