"""A local bound to a function on one path of an if only (issue 14):
Warp's merge keeps that binding after the if (codegen.py emit_If: a
symbol assigned only on the 'if' path is the if's), so a call through
it after the if calls that function."""
import warp as wp
from warp._src import context

ENABLED = False
TID = context.builtin_functions["tid"]


@wp.func
def twice(x: float):
    return 2.0 * x


@wp.kernel
def onepath(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    if not ENABLED:
        tid_function = TID
    i = tid_function()
    if x[i] > 0.5:
        f = twice
    y[i] = f(x[i]) + wp.sin(x[i])
