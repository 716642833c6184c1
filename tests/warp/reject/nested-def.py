import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()

    def g(x):
        return x

    a[i] = g(1.0)
