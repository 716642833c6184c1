# Warp features kpy does not compile yet (issue 14), each a located error
# that names it: indexed arrays, fixed-size local arrays made with wp.zeros
# in a kernel.
import warp as wp


@wp.kernel
def indexed(a: wp.indexedarray(dtype=float)):  # kpyc: differs from Warp: indexed arrays
    a[0] = 1.0


@wp.kernel
def local_array(out: wp.array(dtype=int)):  # kpyc: differs from Warp: fixed-size local arrays
    arr = wp.zeros(shape=(2, 3), dtype=int)
    arr[1][2] = 5
    out[0] = arr[1][2]
