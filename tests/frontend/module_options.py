# Module options kpyc honours: enable_backward (module-wide or in a
# kernel's module_options), deterministic=NOT_GUARANTEED (Warp's default),
# max_unroll equal to kpyc's; with no backward pass, custom gradients are
# not used and are accepted.
import warp as wp

wp.set_module_options({"deterministic": wp.DeterministicMode.NOT_GUARANTEED, "max_unroll": 16})


@wp.kernel(module="unique", module_options={"enable_backward": False, "max_unroll": 16})
def scale_x(a: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    # Warp refuses this with backward code generation enabled
    a[i].x *= 2.0
