import enum

import warp as wp


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


@wp.kernel
def k(a: wp.array(dtype=int)):
    a[wp.tid()] = Color.PURPLE
