"""wp.static() of Python functions (issue 14): Python runs them when Warp
generates code, kpyc at compile time: module-level functions with
positional arguments and defaults, locals, if/elif/else, `in` of a set,
list or dict, a @wp.func without parameters (its Python body, with a
wp.static inside), a factory's argument, and module lists and dicts
they change (each wp.static node of a kernel once, in source order, even
in a loop)."""
import warp as wp

OFFSET = 3
K2 = 2
EVENTS = []
COUNTER = {"n": 0.0}


def scaled(x, k=K2):
    y = x * k
    if y in {2, 4, 8}:
        y += 100
    elif y > 50:
        y = y - 50
    else:
        pass
    return y + OFFSET


def record(tag):
    """a docstring"""
    EVENTS.append(tag)
    return len(EVENTS)


def bump():
    COUNTER["n"] += 1.0
    return COUNTER["n"]


@wp.func
def five():
    v = wp.static(OFFSET + 2)
    return v


def make_scale(value: float):
    @wp.func
    def f(x: float):
        return x * value

    return f


# a factory's argument: a Python function's value
scale = make_scale(scaled(5) * 0.5)


@wp.kernel
def host_calls(x: wp.array(dtype=float), out: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    c = 4
    out[i] = scale(x[i]) + x[i] * float(wp.static(scaled(1))) + float(wp.static(scaled(30, 1) + c))
    n[i] = five() + wp.static(five() * 10) + wp.static(scaled(60))
    if wp.static(five() in (1, 5) and "b" in {"a": 1, "b": 2} and 7 not in [1, 2]):
        n[i] += 1000
    n[i] += wp.static(record("a") + record("b") * 10)
    K2 = 7
    # c is the kernel's: Warp evaluates it again with its constants, but
    # the default k=K2 is the module's
    n[i] += wp.static(scaled(1) + c + K2) * 10000


@wp.kernel
def host_counter(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    a = wp.static(bump())
    s = float(0.0)
    for k in range(i % 3 + 1):
        s += x[i] * wp.static(bump())
    out[i] = a * 10.0 + s + wp.static(bump()) * 100.0
