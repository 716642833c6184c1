# @wp.func_grad in a module without a backward pass: nothing uses it.
import warp as wp

wp.set_module_options({"enable_backward": False})


@wp.func
def safe_sqrt(x: float):
    return wp.sqrt(x)


@wp.func_grad(safe_sqrt)
def adj_safe_sqrt(x: float, adj_ret: float):
    if x > 0.0:
        wp.adjoint[x] += 1.0 / (2.0 * wp.sqrt(x)) * adj_ret


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = safe_sqrt(a[i])
