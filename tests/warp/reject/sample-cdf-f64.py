import warp as wp


# the cdf is a float32 array
@wp.kernel
def k(cdf: wp.array(dtype=wp.float64), out: wp.array(dtype=int)):
    state = wp.rand_init(1, 0)
    out[0] = wp.sample_cdf(state, cdf)
