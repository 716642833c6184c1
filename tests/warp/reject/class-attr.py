import warp as wp


class Params:
    SCALE = wp.constant(2.5)


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = Params.SCALLE
