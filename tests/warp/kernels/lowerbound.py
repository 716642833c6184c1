"""wp.lower_bound (issue 14): Warp's binary search over a 1-D array of a
scalar type (array.h: lower = begin, upper = end - 1, so a value above
every element gives end - 1), the whole array or [begin, end).  The
inputs are not sorted: the search must follow Warp's steps exactly to
give the same index."""
import warp as wp


@wp.kernel
def search(arr: wp.array(dtype=float), values: wp.array(dtype=float), n: wp.array(dtype=int),
           m: wp.array(dtype=int), out: wp.array(dtype=int), out2: wp.array(dtype=int),
           y: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.lower_bound(arr, values[i])
    out2[i] = wp.lower_bound(arr, 1, arr.shape[0] - 1, values[i]) + wp.lower_bound(m, n[i]) * 100
    out2[i] += wp.lower_bound(arr, i, i, values[i]) * 10000
    # the index feeds a differentiable read
    y[i] = arr[wp.lower_bound(arr, values[i])] * values[i]
