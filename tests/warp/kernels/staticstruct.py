"""wp.static() of a module's struct instance S() (issue 14): Python's
fields are zero, nested structs, vectors and matrices included; a
kernel reads its fields and passes it to a function."""
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
