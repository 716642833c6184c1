import warp as wp


# range() takes int32 bounds; a bool that is not a compile-time constant is
# none (a constant one is unrolled as Python's range(True) is)
@wp.kernel
def k(a: wp.array(dtype=float), flag: bool):
    for _ in range(flag):
        a[0] = 1.0
