import warp as wp

COUNT = 3


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    global COUNT
    i = wp.tid()
    a[i] = 1.0
