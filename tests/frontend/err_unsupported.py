# Python constructs Warp does not compile are named.
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    f = lambda t: t
    g = [x for x in range(3)]
    h = {1: 2}
    s = {1, 2}
    try:
        a[i] = 1.0
    except Exception:
        pass
    with a:
        pass
    raise ValueError("no")
    global q
    x = 1.0
    del x
    if (y := a[i]) > 0.0:
        pass
    print(f"{a[i]}")
    z: float = 1.0
    p = q = 1.0
    n = None
    if a is a:
        pass
    if 1 in (1, 2):
        pass
    l = [1.0, 2.0]
    yield 1
    import math
    m = (t for t in range(3))
    c = 1j
