"""An array as a condition: `if a:`, `not a`, `a and ...`, `x if a else y`
(Warp's C++ reads array_t as its data pointer: an array with storage is
true; issue 14).  Every array here has storage, so each test takes the
branch a null array would not."""
import warp as wp

# warpdiff: kernel=array_truth {"dim":[4],"shapes":{"a":[4],"m":[4,2],"b":[4],"n":[4]}}


@wp.kernel
def array_truth(a: wp.array(dtype=float), m: wp.array2d(dtype=float), b: wp.array(dtype=float),
                n: wp.array(dtype=int)):
    i = wp.tid()
    if a:
        b[i] = a[i] * a[i]
    else:
        b[i] = -1.0
    if not a:
        n[i] = 1
    else:
        n[i] = 2
    if a and i >= 0 and a[i] > 0.0:
        n[i] = n[i] + 10
    if not a or a[i] < 0.0:
        n[i] = n[i] + 100
    s = 3.0 if m else 4.0
    if not m:
        s = 5.0
    n[i] = n[i] + wp.where(m, 1000, 2000)
    b[i] = b[i] + s * m[i, 0]
