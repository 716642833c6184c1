"""bfloat16 (Warp's wp.bfloat16): arithmetic in float32 rounded back to
bfloat16 (nearest even), conversions through float32, math builtins."""
import warp as wp


@wp.kernel
def bf16_arith(a: wp.array(dtype=wp.bfloat16), b: wp.array(dtype=wp.bfloat16), out: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    x = a[i] * b[i] + wp.bfloat16(1.0)
    y = x / (b[i] + wp.bfloat16(3.0)) - a[i]
    out[i] = wp.sin(y) + wp.sqrt(wp.abs(x)) * wp.max(a[i], b[i])


@wp.kernel
def bf16_convert(a: wp.array(dtype=wp.bfloat16), f: wp.array(dtype=float), h: wp.array(dtype=wp.float16),
                 d: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.bfloat16), g: wp.array(dtype=float),
                 n: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.bfloat16(f[i] * 3.0) + wp.bfloat16(h[i]) + wp.bfloat16(d[i] * wp.float64(7.0))
    g[i] = float(a[i]) * 1.001 + float(wp.bfloat16(0.1))
    n[i] = int(a[i] * wp.bfloat16(100.0))


@wp.kernel
def bf16_atomic(a: wp.array(dtype=wp.bfloat16), s: wp.bfloat16, out: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    if a[i] > wp.bfloat16(0.0):
        out[i] = a[i] * s
    else:
        out[i] = -a[i]
    wp.atomic_add(out, i, s)
