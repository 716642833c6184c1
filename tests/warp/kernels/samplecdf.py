"""wp.sample_cdf(state, cdf) (issue 14): Warp's rand.h, u = randf(state)
with the state variable advanced, then lower_bound(cdf, u).  The state
after it (a further randf) and a loop carrying it must match too."""
import warp as wp


@wp.kernel
def sample(seed: int, cdf: wp.array(dtype=float), out: wp.array(dtype=int), f: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    k = wp.sample_cdf(state, cdf)
    for _j in range(3):
        k += wp.sample_cdf(state, cdf) * 100
    out[i] = k
    f[i] = wp.randf(state)
