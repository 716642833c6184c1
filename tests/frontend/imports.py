"""Import forms: import warp (no alias), from warp import names with and
without aliases, import warp.types as an alias, and type aliases made
from a factory imported by name."""
import warp
from warp import kernel, func, struct, vec3, float32 as f32, array
import warp.types as wpt
from warp.types import vector as vec_factory

vec4d = vec_factory(length=4, dtype=warp.float64)


@struct
class S:
    v: vec3


@func
def twice(x: f32) -> f32:
    return x * 2.0


@kernel
def k(a: array(dtype=f32), b: warp.array(dtype=vec4d), s: wpt.vector(length=3, dtype=float)):
    i = warp.tid()
    a[i] = twice(a[i]) + warp.sin(a[i]) + s[0]
    b[i] = vec4d(1.0, 2.0, 3.0, 4.0)
    q = S()
    q.v = vec3(1.0)
