import warp as wp


# a local bool is a Warp bool, not the Python value Warp unrolls with
# Python's range() (range(True) and range(wp.static(True)) are)
@wp.kernel
def k(a: wp.array(dtype=float)):
    b = True
    for _ in range(b):
        a[0] = 1.0
