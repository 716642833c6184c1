# Module constants kpyc does not build (issue 14): a component list of the
# wrong length; a constant read in a kernel that kpyc cannot value is a
# located error where it is read.
import warp as wp

SHORT = wp.constant(wp.vec3([1.0, 2.0]))


@wp.kernel
def short(a: wp.array(dtype=float)):
    a[0] = SHORT[0]
