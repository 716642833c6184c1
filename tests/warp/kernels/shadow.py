"""Module-level names shadowed by locals: wp.static() over loop indices (issue 23), locals, parameters."""
import warp as wp

_global_test_idx = 999
_global_test_j = 888
N = 5
SCALE = 100.0
T = wp.vec2


@wp.func
def helper(x: float):
    return x + 1.0


@wp.struct
class Particle:
    m: float


@wp.kernel
def static_loop_var(results: wp.array(dtype=int)):
    for _global_test_idx in range(3):
        results[_global_test_idx] = wp.static(_global_test_idx)


@wp.kernel
def static_loop_var_in_expr(results: wp.array(dtype=int)):
    for _global_test_idx in range(3):
        results[_global_test_idx] = wp.static(_global_test_idx * 2 + 1)


@wp.kernel
def static_nested_loop(results: wp.array(dtype=int)):
    for _global_test_idx in range(2):
        for _global_test_j in range(2):
            idx = _global_test_idx * 2 + _global_test_j
            results[idx] = wp.static(_global_test_idx * 10 + _global_test_j)


@wp.kernel
def static_long_loop(results: wp.array(dtype=int)):
    # a loop with wp.static is unrolled past max_unroll
    for _global_test_idx in range(20):
        results[_global_test_idx] = wp.static(_global_test_idx - N)


@wp.kernel
def static_local_const(results: wp.array(dtype=int)):
    # outside any loop over it, wp.static sees module names only
    N = 3
    results[0] = wp.static(N) + N


@wp.kernel
def local_shadows_const(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    SCALE = a[i]
    N = 2
    out[i] = SCALE * float(N)
    for N in range(3):
        out[i] += float(N)


@wp.kernel
def local_shadows_func(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    helper = a[i] * 2.0
    Particle = helper + 1.0
    out[i] = helper + Particle


@wp.func
def param_shadows(N: float, helper: float, SCALE: int):
    return N * helper + float(SCALE)


@wp.kernel
def func_params_shadow(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = param_shadows(a[i], 3.0, 7)


@wp.kernel
def kernel_param_shadows(a: wp.array(dtype=float), N: int, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * float(N)
    for j in range(N):
        out[i] += 1.0


@wp.kernel
def static_local_const_in_loop(results: wp.array(dtype=int)):
    # deferred to each unrolled copy: the constant local comes before N
    N = 3
    for _global_test_idx in range(3):
        results[_global_test_idx] = wp.static(_global_test_idx + N)


@wp.kernel
def static_negative_step(results: wp.array(dtype=int)):
    for _global_test_idx in range(5, -1, -2):
        results[_global_test_idx] = wp.static(-_global_test_idx + 10 * _global_test_j)


@wp.kernel
def static_local_not_in_module(results: wp.array(dtype=int)):
    q = 3
    results[0] = wp.static(q * 2)


@wp.func
def static_in_func(a: float):
    s = float(0.0)
    for _global_test_j in range(4):
        s += a * float(wp.static(_global_test_j * _global_test_j))
    return s


@wp.kernel
def static_loop_in_func(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = static_in_func(a[i])


@wp.kernel
def static_runtime_local_in_loop(results: wp.array(dtype=int)):
    # a local Warp does not hold as a constant is not seen: the module's N
    N = results[0] * 0 + 1
    for _global_test_idx in range(3):
        results[_global_test_idx] = wp.static(_global_test_idx + N) + N


@wp.kernel
def static_nested_loop_same_var(results: wp.array(dtype=int)):
    # after the inner loop the index is the inner loop's last value (2)
    idx = 0
    for _global_test_idx in range(2):
        for _global_test_idx in range(3):
            pass
        results[idx] = wp.static(_global_test_idx)
        idx += 1
    for _global_test_j in range(2):
        for _global_test_j in range(7, 1, -2):
            pass
        results[idx] = wp.static(_global_test_j * 2 + N)
        idx += 1
