import warp as wp


# tuple[int, ...] takes ints only
@wp.func
def total(t: tuple[int, ...]):
    return t[0]


@wp.kernel
def k(x: wp.array(dtype=int)):
    x[0] = total((1, 2.0))
