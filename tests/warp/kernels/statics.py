"""wp.static() of host values (issue 14): Python comparisons of module
numbers and strings, len() of a module list or string, len() of a local's
or parameter's type (Warp's evaluate_static_expression replaces it by
the type's length), and a function (wp.static(f)(x))."""
import warp as wp

LABEL = "hello"
SIZES = [1, 2, 3]
LIMIT = 2.5


@wp.func
def inc(x: int):
    return x + 1


@wp.func
def square(x: float):
    return x * x


HANDLERS = {"sq": square, "inc": inc, 3: 7}


@wp.kernel
def statics(q: wp.quat, v: wp.vec2, out: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    m = wp.identity(n=wp.static(len(v) + len(q) - 3), dtype=float)
    w = wp.vec3()
    if wp.static(LABEL == "world"):
        out[i] = 1.0
    else:
        out[i] = wp.ddot(m, m) * q[1] + float(wp.static(len(w) + len(SIZES))) * v[0]
    if wp.static(len(SIZES) == 3 and LIMIT < 3.0):
        out[i] += 10.0
    if wp.static(LIMIT >= 3):
        out[i] += 100.0
    j = int(0)
    while j < 3:
        j = wp.static(inc)(j)
    n[i] = j + wp.static(len(q)) * 10 + wp.static(len(LABEL)) * 100 + wp.static(SIZES[-1] * HANDLERS[3])
    sq = wp.static(HANDLERS["sq"])
    out[i] += sq(v[1]) + float(wp.static(HANDLERS["inc"])(wp.static(len(HANDLERS))))


@wp.kernel
def static_index(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    tid = wp.tid()
    value = float(0.0)
    for i in range(20):
        if wp.static(i % 3 == 0):
            continue
        value += float(i) * x[tid] + wp.static(float(i // 2) + wp.static(1.0 + 1.0))
    out[tid] = value
