import warp as wp


@wp.kernel(module="unique", module_options={"deterministic": wp.DeterministicMode.RUN_TO_RUN,
                                            "deterministic_max_records": -1})
def k(x: wp.array(dtype=float)):
    x[wp.tid()] = 1.0
