import warp as wp


# an int32 does not fit wp.Float
@wp.func
def sq(x: wp.Float):
    return x * x


@wp.kernel
def k(x: wp.array(dtype=int)):
    x[0] = sq(x[1])
