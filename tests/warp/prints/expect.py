# wp.expect_eq and wp.expect_neq: what fails prints as Warp prints it.
import warp as wp


@wp.kernel
def checks(a: wp.array(dtype=wp.vec3), n: wp.array(dtype=int), x: wp.array(dtype=float)):
    i = wp.tid()
    wp.expect_eq(a[i], wp.vec3(1.0, 2.0, 3.0))
    wp.expect_eq(n[i], 2)
    wp.expect_neq(x[i], 0.5)
    wp.expect_eq(wp.mat22(1.0, 2.0, 3.0, x[i]), wp.mat22(1.0, 2.0, 3.0, 4.0))
