# wp.static() of host values (issue 14): what kpyc evaluates (comparisons,
# len() of module lists and strings and of a local's type) and what it
# does not (Python functions of the host, module lists as values).
import warp as wp

SIZES = [1, 2, 3]


def host_scale():
    return 2.0


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
def host_call(a: wp.array(dtype=float)):  # kpyc: differs from Warp: host Python is not evaluated
    a[0] = wp.static(host_scale())


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
