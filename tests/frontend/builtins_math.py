"""Builtin families: scalar math, min/max/clamp, where, and the Python
builtins Warp maps (abs, min, max, round, pow, float, int)."""
import warp as wp


@wp.kernel
def scalar_math(a: wp.array(dtype=float), d: wp.array(dtype=wp.float64), n: wp.array(dtype=int)):
    i = wp.tid()
    x = a[i]
    y = wp.sin(x) + wp.cos(x) + wp.tan(x)
    y += wp.asin(x) + wp.acos(x) + wp.atan(x) + wp.atan2(x, y)
    y += wp.sinh(x) + wp.cosh(x) + wp.tanh(x)
    y += wp.sqrt(x) + wp.cbrt(x) + wp.exp(x) + wp.log(x) + wp.log2(x) + wp.log10(x)
    y += wp.pow(x, 2.0) + x**3.0 + wp.degrees(x) + wp.radians(x)
    y += wp.erf(x) + wp.erfc(x) + wp.erfinv(x) + wp.erfcinv(x)
    y += wp.floor(x) + wp.ceil(x) + wp.trunc(x) + wp.round(x) + wp.rint(x) + wp.frac(x)
    y += wp.abs(x) + wp.sign(x) + wp.nonzero(x) + wp.step(x) + wp.copysign(x, -1.0)
    y += wp.lerp(x, y, 0.5) + wp.smoothstep(0.0, 1.0, x)
    y += wp.min(x, y) + wp.max(x, y) + wp.clamp(y, 0.0, 1.0) + wp.clamp(x, low=0.0, high=2.0)
    y += abs(x) + min(x, 1.0) + max(x, 0.0) + round(x) + pow(x, 0.5)
    if wp.isnan(y) or wp.isinf(y) or not wp.isfinite(y):
        y = 0.0
    a[i] = y
    z = d[i]
    d[i] = wp.sqrt(z) * wp.float64(2.0) + wp.exp(z)
    k = n[i]
    k = wp.min(k, 10) + wp.max(k, 0) + wp.clamp(k, 0, 5) + abs(k) + wp.sign(k)
    k = k // 2 + k % 3 + k / 2 - (k << 1) + (k >> 1) + (k & 1) + (k | 2) + (k ^ 3) + ~k + -k + +k
    n[i] = k + wp.bit_count(k) + int(x) + int(round(x))


@wp.kernel
def selections(a: wp.array(dtype=float), b: wp.array(dtype=wp.vec3), c: wp.array(dtype=int)):
    i = wp.tid()
    x = a[i]
    a[i] = wp.where(x > 0.0, x, -x)
    b[i] = wp.where(c[i], b[i], wp.vec3(0.0))
    c[i] = wp.where(x < 1.0, 1, 2)
    v = b[i]
    lo = wp.min(v)
    hi = wp.max(v)
    a[i] = hi - lo + wp.min(v, wp.vec3(1.0))[0]
    c[i] = int(wp.argmin(v)) + int(wp.argmax(v))
