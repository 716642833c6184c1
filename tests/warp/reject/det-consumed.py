import warp as wp


@wp.kernel(module="unique", module_options={"deterministic": wp.DeterministicMode.GPU_TO_GPU})
def k(x: wp.array(dtype=float), counter: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    slot = wp.atomic_max(counter, 0, i)
    out[i] = x[slot]
