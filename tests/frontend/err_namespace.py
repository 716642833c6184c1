# types.SimpleNamespace (issue 14): Warp resolves a namespace's attributes
# only in the function of a call; read as a value, or bound to a local,
# the namespace is Warp's "Invalid external reference type".
import types

import warp as wp


@wp.func
def twice(x: float):
    return 2.0 * x


def host(x):
    return x


NS = types.SimpleNamespace(k=3, f=twice, h=host)


@wp.kernel
def value(a: wp.array(dtype=float)):
    a[wp.tid()] = float(NS.k)


@wp.kernel
def local(a: wp.array(dtype=float)):
    g = NS.f
    a[wp.tid()] = g(1.0)


@wp.kernel
def hostfn(a: wp.array(dtype=float)):
    a[wp.tid()] = NS.h(1.0)


@wp.kernel
def ok(a: wp.array(dtype=float)):
    a[wp.tid()] = NS.f(1.0)
