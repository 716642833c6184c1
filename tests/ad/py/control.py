# Control flow in Python, through kpyc: exact gradients where Warp's are
# wrong (dynamic loops with loop-carried values, while loops, break,
# continue), and functions with early returns.  Checked by krun --gradcheck.
import warp as wp


@wp.func
def clamped_square(x: float, lim: float):
    if x > lim:
        return lim * lim
    return x * x


@wp.kernel
def branches(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = float(0.0)
    if x > 0.25:
        y = x * x
    elif x < -0.25:
        y = wp.sin(x)
    else:
        y = x * 3.0
    out[i] = y * x + clamped_square(x, 0.5)


@wp.kernel
def static_product(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    p = float(1.0)
    for k in range(4):
        p = p * x + float(k)
    out[i] = p


@wp.kernel
def dynamic_product(a: wp.array(dtype=float), n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    p = float(1.0)
    for k in range(n):
        p = p * (x + 1.5)
    out[i] = p


@wp.kernel
def dynamic_gather(a: wp.array(dtype=float), w: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for k in range(a.shape[0]):
        s = wp.sin(s) + a[k] * w[i]
    out[i] = s


@wp.kernel
def while_loop(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = wp.abs(a[i]) + 1.1
    t = float(0.1)
    while t < 10.0:
        t = t * x + 0.05
    out[i] = t


@wp.kernel
def break_continue(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    t = float(1.0)
    for k in range(8):
        if k % 3 == 1:
            continue
        t = t * x + 0.5
        if t > 1.2:
            break
    out[i] = t


@wp.kernel
def early_return(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    if x < -0.5:
        return
    out[i] = wp.exp(x * x)
