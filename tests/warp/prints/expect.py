# wp.expect_eq, wp.expect_neq and wp.expect_near: what fails prints as Warp prints it;
# print(array) prints Warp's line for a type without print.
import warp as wp


@wp.kernel
def checks(a: wp.array(dtype=wp.vec3), n: wp.array(dtype=int), x: wp.array(dtype=float)):
    i = wp.tid()
    wp.expect_eq(a[i], wp.vec3(1.0, 2.0, 3.0))
    wp.expect_eq(n[i], 2)
    wp.expect_neq(x[i], 0.5)
    wp.expect_eq(wp.mat22(1.0, 2.0, 3.0, x[i]), wp.mat22(1.0, 2.0, 3.0, 4.0))
    # wp.expect_near: the largest component difference against the tolerance
    wp.expect_near(x[i], 0.5, 0.25)
    wp.expect_near(a[i], wp.vec3(1.0, 2.0, 3.0), tolerance=0.5)
    wp.expect_near(wp.quat(x[i], 0.0, 0.0, 1.0), wp.quat(0.5, 0.0, 0.0, 1.0))
    wp.expect_near(wp.mat22(1.0, 2.0, 3.0, x[i]), wp.mat22(1.0, 2.0, 3.0, 4.0), 0.1)
    wp.expect_near(wp.float64(x[i]), wp.float64(0.5), wp.float64(4.0))
    # print of an array: Warp's catch-all line (builtin.h), no values
    print(n)
