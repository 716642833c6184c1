"""wp.static() of struct instances (issue 14): a module's S(), whose
fields Python makes zero, nested structs, vectors and matrices included;
and one a Python function makes and fills (a @wp.func called with
constants of its parameters' types runs its Python body).  A kernel
reads their fields and passes them to a function."""
import warp as wp


@wp.struct
class Inner:
    scale: wp.float64
    offset: wp.vec2
    m: wp.mat22


@wp.struct
class Outer:
    inner: Inner
    flag: wp.int32
    on: wp.bool
    w: float


@wp.func
def weight(o: Outer, x: float):
    return o.w + x * float(o.flag + 1)


PARAMS = Outer()


@wp.kernel
def static_struct(x: wp.array(dtype=float), out: wp.array(dtype=float), d: wp.array(dtype=wp.float64),
                  n: wp.array(dtype=int)):
    i = wp.tid()
    p = wp.static(PARAMS)
    out[i] = weight(wp.static(PARAMS), x[i]) + wp.static(PARAMS).inner.offset[1] + p.inner.m[1, 0]
    d[i] = wp.static(PARAMS).inner.scale + wp.float64(x[i])
    if wp.static(PARAMS).on:
        n[i] = 1
    else:
        n[i] = wp.static(PARAMS).flag + 2


def make_inner(scale):
    s = Inner()
    s.scale = scale
    s.offset = wp.vec2(1.0, 2.0)
    return s


@wp.func
def make_outer(m: wp.mat22, flag: int):
    o = Outer()
    o.inner = make_inner(2.5)
    o.flag = flag
    o.w = 3
    o.on = True
    return o


@wp.kernel
def made_struct(x: wp.array(dtype=float), out: wp.array(dtype=float), d: wp.array(dtype=wp.float64),
                n: wp.array(dtype=int)):
    i = wp.tid()
    p = wp.static(make_outer(wp.mat22(1.0, 2.0, 3.0, 4.0), 4))
    out[i] = weight(p, x[i]) + p.inner.offset[1] * x[i] + p.inner.m[1, 0]
    d[i] = p.inner.scale * wp.float64(x[i])
    n[i] = p.flag * 10
    if p.on:
        n[i] += 1
