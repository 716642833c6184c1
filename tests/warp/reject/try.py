import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    try:
        a[i] = 1.0
    except Exception:
        pass
