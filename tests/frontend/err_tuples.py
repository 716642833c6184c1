# Local tuples (issue 14): what Warp rejects, and what kpyc does not
# compile (a tuple is kept as its values, never a kir value of its own).
import warp as wp


@wp.kernel
def negative_index(a: wp.array(dtype=float)):  # kpyc: differs from Warp: its codegen accepts it, its C++ (extract<-1>) does not compile
    t = (a[0], 2.0)
    a[0] = t[-1]


@wp.kernel
def out_of_range(a: wp.array(dtype=float)):
    t = (a[0], 2.0)
    a[0] = t[2]


@wp.kernel
def mixed_dynamic(a: wp.array(dtype=float), n: int):
    t = (a[0], 2)
    a[0] = t[n]


@wp.kernel
def branches(a: wp.array(dtype=float)):
    t = (a[0], 1.0)
    if a[1] > 0.0:
        t = (a[1], 2.0)
    a[2] = t[0]


@wp.kernel
def in_loop(a: wp.array(dtype=float), n: int):
    t = (a[0], 1.0)
    for i in range(n):
        t = (a[i], 2.0)
    a[2] = t[1]


@wp.kernel
def retype(a: wp.array(dtype=float)):
    x = a[0]
    x = (a[0], 1.0)
    a[1] = x[0]


@wp.kernel
def slice_of_tuple(a: wp.array(dtype=float)):
    t = (a[0], 1.0)
    a[1] = t[0:1][0]


@wp.kernel
def out_of_loop(a: wp.array(dtype=float), n: int):  # kpyc: differs from Warp: kpyc keeps a tuple as its values, which loops do not carry
    for i in range(n):
        u = (a[i], 2.0)
        a[i] = u[0] * u[1]
    a[2] = u[1]
