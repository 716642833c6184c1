import warp as wp


# wp.block_dim() takes no arguments
@wp.kernel
def k(n: wp.array(dtype=int)):
    n[0] = wp.block_dim(3)
