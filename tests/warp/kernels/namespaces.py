"""Builtins taken from Warp's registry and functions reached through a
types.SimpleNamespace (issue 14): Warp resolves
context.builtin_functions["tid"] to the builtin, and a call's function
NS.f or NS.warp.tid by getattr on the namespace object (a @wp.func, a
builtin, the warp module)."""
import types

import warp as wp
from warp._src import context

TID = context.builtin_functions["tid"]
SIN = context.builtin_functions["sin"]


@wp.func
def twice(x: float):
    return 2.0 * x * x


NS = types.SimpleNamespace(f=twice, tid=TID, warp=wp, cos=wp.cos, inner=types.SimpleNamespace(g=twice))


@wp.kernel
def namespaces(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = TID()
    j = NS.tid()
    t = NS.warp.tid()
    x = a[i] * 1.5
    b[j] = NS.f(x) + SIN(a[t]) + NS.cos(x) + NS.warp.min(a[i], 0.25)
