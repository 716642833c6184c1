# wp.static() of host values (issue 14): what kpyc evaluates (comparisons,
# len() of module lists and strings and of a local's type) and what it
# does not (Python functions with loops or *args, module lists as values).
import warp as wp

SIZES = [1, 2, 3]


def host_scale():
    total = 0.0
    for i in range(3):
        total += 1.0
    return total


def host_offset(n, *rest):
    return n + 1.0


@wp.kernel
def len_of_array(a: wp.array(dtype=float)):
    # Warp's type_length of an array annotation: len() of an empty array
    a[0] = float(wp.static(len(a)))


@wp.kernel
def len_of_scalar(a: wp.array(dtype=float), x: float):
    # Warp's scalar types have _length_ 1
    a[0] = float(wp.static(len(x)))


@wp.struct
class S:
    x: float


@wp.kernel
def len_of_struct(a: wp.array(dtype=float), s: S):
    a[0] = float(wp.static(len(s)))


@wp.kernel
def list_value(a: wp.array(dtype=float)):
    a[0] = wp.static(SIZES)[0]


@wp.kernel
def host_call(a: wp.array(dtype=float)):  # kpyc: differs from Warp: a loop in host Python is not run
    a[0] = wp.static(host_scale())


@wp.kernel
def host_call_args(a: wp.array(dtype=float)):  # kpyc: differs from Warp: *args are not bound
    a[0] = wp.static(host_offset(1.0))


@wp.kernel
def ok(a: wp.array(dtype=float), v: wp.vec3):
    if wp.static(len(SIZES) == 3 and len("ab") < len(v)):
        a[0] = 1.0


HANDLERS = {"one": 1.0}


@wp.kernel
def missing_key(a: wp.array(dtype=float)):
    a[0] = wp.static(HANDLERS["two"])


@wp.kernel
def past_end(a: wp.array(dtype=float)):
    a[0] = float(wp.static(SIZES[3]))


@wp.kernel
def items(a: wp.array(dtype=float)):
    a[0] = wp.static(HANDLERS["one"]) + float(wp.static(SIZES[-3]))


COUNTER = {"n": 0.0}


def bump():
    COUNTER["n"] += 1.0
    return COUNTER["n"]


@wp.func
def bumped(x: float):
    # Warp evaluates a @wp.func's wp.static when it builds the module
    return x * wp.static(bump())


@wp.kernel
def changes(a: wp.array(dtype=float)):  # kpyc: differs from Warp: a wp.static that changes module values reads a kernel local (Warp evaluates it twice)
    c = 2.0
    # Warp evaluates it with the module's names, then again with c
    a[0] = wp.static(bump() + c) + bumped(a[1])


@wp.kernel
def changes_ok(a: wp.array(dtype=float)):
    a[0] = wp.static(bump() * 2.0)


@wp.struct
class P:
    x: float
    a: wp.array(dtype=float)


@wp.struct
class Q:
    x: float


CHANGED = Q()
CHANGED.x = 2.0
WITH_ARRAY = P()
ZERO = Q()


@wp.kernel
def struct_changed(a: wp.array(dtype=float)):  # kpyc: differs from Warp: the module changes CHANGED
    a[0] = wp.static(CHANGED).x + wp.static(ZERO).x


@wp.kernel
def struct_array(a: wp.array(dtype=float)):  # kpyc: a struct with an array field
    a[0] = wp.static(WITH_ARRAY).x


LIMIT2 = 4.0


def unbound():
    y = LIMIT2  # Python: UnboundLocalError (LIMIT2 is local here)
    LIMIT2 = 3.0
    return y


def explode(n):
    if n > 0:
        return explode(n - 1) + explode(n - 1)
    return 1


@wp.kernel
def host_limits(a: wp.array(dtype=float)):
    a[0] = wp.static(unbound())
    a[1] = float(wp.static(explode(30)))  # kpyc: differs from Warp: 2**30 calls are too many
    a[2] = float(wp.static(explode(3)))


SEEN = []


def see(tag):
    SEEN.append(tag)
    return len(SEEN)


FIRST = see("module")


@wp.kernel
def module_change(a: wp.array(dtype=float)):  # kpyc: differs from Warp: module-level code changing SEEN
    a[0] = float(wp.static(FIRST)) + float(wp.static(see("kernel")))


def shared():
    s = Q()
    t = s  # Python shares the instance: kpyc does not follow it
    t.x = 1.0
    return s


@wp.func
def typed(x: float):
    return x * 2.0


@wp.kernel
def struct_shared(a: wp.array(dtype=float)):
    a[0] = wp.static(shared()).x + wp.static(typed(2.0))
    a[1] = wp.static(typed(2))  # Warp: a Python int matches no overload of typed(x: float)
