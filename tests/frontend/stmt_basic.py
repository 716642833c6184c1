"""Statement forms: assignment, tuple unpacking, augmented assignment,
if/elif/else, for with 1-3 range arguments, while, break, continue, pass,
return, ternary, chained comparisons, and/or/not."""
import warp as wp


@wp.kernel
def assign(a: wp.array(dtype=float), b: wp.array(dtype=int)):
    i = wp.tid()
    x = a[i]
    y = x * 2.0
    x, y = y, x
    z = x + y
    z += 1.0
    z -= 0.5
    z *= 2.0
    z /= 3.0
    n = b[i]
    n //= 2
    n %= 7
    n <<= 1
    n >>= 1
    n &= 255
    n |= 1
    n ^= 3
    b[i] = n
    a[i] = z
    pass


@wp.kernel
def branches(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    if x > 1.0:
        y = 1.0
    elif x > 0.0:
        y = x
    else:
        y = 0.0
    if x < -5.0:
        y = -y
    out[i] = y if y > 0.5 else -y


@wp.kernel
def loops(a: wp.array(dtype=float), n: int):
    s = float(0.0)
    for i in range(n):
        s += a[i]
    for i in range(2, n):
        s += a[i]
    for i in range(n - 1, -1, -1):
        if a[i] < 0.0:
            continue
        if a[i] > 100.0:
            break
        s += a[i]
    k = int(0)
    while k < n:
        k += 1
        if k == 3:
            continue
        s = s * 0.5
    a[0] = s


@wp.kernel
def logic(a: wp.array(dtype=float), flags: wp.array(dtype=int)):
    i = wp.tid()
    x = a[i]
    inside = 0.0 < x < 1.0
    both = inside and x != 0.5
    either = x < -1.0 or x > 1.0
    neither = not (both or either)
    if neither:
        flags[i] = 1
    if i < a.shape[0] and a[i] > 0.0:
        flags[i] = 2


@wp.func
def sign_of(x: float) -> float:
    if x > 0.0:
        return 1.0
    elif x < 0.0:
        return -1.0
    return 0.0


@wp.func
def divmod2(a: int, b: int):
    return a // b, a % b


@wp.kernel
def calls(a: wp.array(dtype=float), b: wp.array(dtype=int)):
    i = wp.tid()
    a[i] = sign_of(a[i])
    q, r = divmod2(b[i], 3)
    b[i] = q + r

# GPURACE: loops (every thread reads all of a and writes a[0], which other threads read)
