"""wp.block_dim(): the threads per block of the launch.  Warp's CPU launches
resolve block_dim to 1 (unless warp.config.enable_cpu_blocks), as krun's do;
on CUDA it is blockDim.x (issue 14).  Called in a kernel and in a @wp.func,
its value scaling a differentiable one."""
import warp as wp


@wp.func
def per_block(v: float):
    return v * float(wp.block_dim()) + float(wp.block_dim() - 1)


@wp.kernel
def block_dim_scale(a: wp.array(dtype=float), b: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    b[i] = per_block(a[i]) * a[i]
    n[i] = wp.block_dim() * 1000 + i
