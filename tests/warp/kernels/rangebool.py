"""range() over a constant bool (range(wp.static(True))): Warp unrolls
constant bounds with Python's range(), where True is 1 and False 0
(issue 14).  A local or wp.constant bool is a Warp bool, which range()
does not take (reject/range-bool-local.py)."""
import warp as wp

@wp.kernel
def range_bool(a: wp.array(dtype=float), out: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    count = int(0)
    acc = a[i]
    for _ in range(wp.static(True)):
        count += 1
        acc = acc * a[i] + 1.0
    for _ in range(wp.static(False)):
        count += 10
    for k in range(False, True):
        count += 100 * (k + 1)
    n[i] = count
    out[i] = acc
