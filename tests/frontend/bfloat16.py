# wp.bfloat16 (kir bf16): arrays, scalars, casts, arithmetic and math in
# bf16, comparisons, and constants folded as Warp's float_to_bfloat16
# rounds them: through float, then to nearest even on the top 16 bits.
#   0.1        float 0x3dcccccd -> bf16 0x3dcd = 0.100097656
#   1.00390625 (1 + 2^-8, halfway between 1 and 1 + 2^-7) -> 1 (even)
#   1.01171875 (1 + 3*2^-8, halfway)                      -> 1.015625 (even)
#   -3.0e38    float 0xff61b1e6 -> bf16 0xff62 = -3.0040553e+38
#   3.4e38     float 0x7f7fc99e -> bf16 0x7f80 = inf (rounds past the largest)
import warp as wp


@wp.func
def twice(x: wp.bfloat16) -> wp.bfloat16:
    return x + x


@wp.kernel
def bf16(a: wp.array(dtype=wp.bfloat16), h: wp.array(dtype=wp.float16), out: wp.array(dtype=wp.bfloat16),
         f: wp.array(dtype=float), s: wp.bfloat16):
    i = wp.tid()
    x = a[i] * s + wp.bfloat16(1.0)
    out[i] = twice(wp.sin(x)) / wp.max(a[i], s)
    f[0] = float(wp.bfloat16(0.1))
    f[1] = float(wp.bfloat16(1.00390625))
    f[2] = float(wp.bfloat16(1.01171875))
    f[3] = float(wp.bfloat16(-3.0e38))
    f[5] = float(wp.bfloat16(3.4e38))
    if a[i] < s:
        f[4] = float(a[i] + wp.bfloat16(h[i]))
    wp.atomic_add(out, 0, x)

# GPURACE: bf16 (every thread with a[i] < s stores f[4], and thread 0 stores out[0] while every thread adds to it)
