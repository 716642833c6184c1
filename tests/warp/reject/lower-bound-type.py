import warp as wp


# the value must have the array's scalar type
@wp.kernel
def k(arr: wp.array(dtype=float), out: wp.array(dtype=int)):
    out[0] = wp.lower_bound(arr, 1)
