# Options and decorators kpyc cannot honour are rejected, located, never
# ignored (issue 14): a deterministic mode that is not a DeterministicMode
# (RUN_TO_RUN itself is accepted: err_deterministic.py), an option Warp
# does not have, custom gradients and replays; fast_math, a flag of Warp's
# compilers, is a warning.  (Warp's global wp.config is
# checked in cli.test: warpcheck.py imports these files in one process.)
import warp as wp

wp.set_module_options({"deterministic": wp.DeterministicMode.RUN_TO_RUN})


@wp.kernel(module="unique", module_options={"deterministic": False, "max_unrol": 4, "fast_math": True})
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = safe_sqrt(a[i])


@wp.func
def safe_sqrt(x: float):
    return wp.sqrt(x)


@wp.func_grad(safe_sqrt)
def adj_safe_sqrt(x: float, adj_ret: float):
    if x > 0.0:
        wp.adjoint[x] += 1.0 / (2.0 * wp.sqrt(x)) * adj_ret


@wp.func_replay(safe_sqrt)
def replay_safe_sqrt(x: float):
    return wp.sqrt(x)
