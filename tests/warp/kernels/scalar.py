"""Scalar arithmetic and math: Warp's integer and float semantics."""
import warp as wp


@wp.kernel
def int_ops(a: wp.array(dtype=wp.int32), b: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    d = y
    if d == 0:
        d = 3
    r = x + y * 2 - x // d + x % d + x / d
    r = r + (x & 5) + (y | 2) + (x ^ y) + (wp.abs(x) << 2) + (wp.abs(y) >> 1) + ~x
    r = r + wp.min(x, y) + wp.max(x, y) + wp.clamp(x, -3, 3) + wp.sign(x) + wp.abs(x)
    out[i] = r


@wp.kernel
def float_ops(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    r = x * y + x / (y * y + 1.0) - y
    r += wp.sin(x) * wp.cos(y) + wp.tan(x * 0.5) + wp.exp(x) - wp.log(y * y + 1.0)
    r += wp.sqrt(wp.abs(x)) + wp.cbrt(y) + wp.pow(wp.abs(x) + 0.5, y) + wp.atan2(y, x + 2.0)
    r += wp.tanh(x) + wp.sinh(y) + wp.cosh(x) + wp.asin(x * 0.9) + wp.acos(y * 0.9) + wp.atan(x)
    r += wp.log2(x * x + 1.0) + wp.log10(y * y + 2.0) + wp.degrees(x) * 0.01 + wp.radians(y)
    r += wp.floor(x * 4.0) + wp.ceil(y * 4.0) + wp.round(x * 3.0) + wp.trunc(y * 3.0) + wp.frac(x * 2.0)
    r += wp.min(x, y) + wp.max(x, y) + wp.clamp(x, -0.5, 0.5) + wp.abs(y) + wp.sign(x) + wp.step(y)
    r += wp.lerp(x, y, 0.25) + wp.smoothstep(-1.0, 1.0, x) + wp.erf(x) + wp.erfc(y) + wp.copysign(x, y)
    r += x % 0.3 + wp.nonzero(y)
    out[i] = r


@wp.kernel
def casts(a: wp.array(dtype=float), n: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.float64), outi: wp.array(dtype=wp.int64)):
    i = wp.tid()
    x = a[i] * 7.0
    k = int(x)
    f = float(n[i]) + float(k)
    d = wp.float64(f) * wp.float64(0.5) + wp.float64(a[i])
    out[i] = d
    outi[i] = wp.int64(k) * wp.int64(3) + wp.int64(n[i])
