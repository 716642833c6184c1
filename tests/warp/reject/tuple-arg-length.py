import warp as wp


# tuple[int, int] takes two ints, not three
@wp.func
def add2(t: tuple[int, int]):
    return t[0] + t[1]


@wp.kernel
def k(x: wp.array(dtype=int)):
    x[0] = add2((1, 2, 3))
