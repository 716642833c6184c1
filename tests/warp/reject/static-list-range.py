import warp as wp

WEIGHTS = [7, 11]


# the unrolled index runs past the list
@wp.kernel
def k(x: wp.array(dtype=int)):
    for i in range(3):
        x[i] = wp.static(WEIGHTS[i])
