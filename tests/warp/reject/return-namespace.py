import types
import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)) -> types.SimpleNamespace:
    x[0] = 1.0
