"""Builtins and types called without the wp. prefix and without an import
(issue 14): Warp resolves a called name the module does not bind in the
warp module (sin(x), vec3(...)), then in Python's builtins."""
import warp as wp


@wp.func
def norm2(v: wp.vec3):
    return dot(v, v)


@wp.kernel
def unqualified(x: wp.array(dtype=float), y: wp.array(dtype=wp.vec3), z: wp.array(dtype=float)):
    i = wp.tid()
    v = vec3(sin(x[i]), cos(x[i]), float32(2.0) * x[i])
    m = mat33(1.0, 2.0, 0.0, 0.0, 1.0, 3.0, 0.5, 0.0, 1.0)
    y[i] = mul(m, v) + normalize(vec3(1.0, x[i], 2.0))
    z[i] = sqrt(norm2(v) + 1.0) + clamp(x[i], -0.5, 0.5) + abs(x[i])
    expect_eq(float(int32(3)), 3.0)
