"""wp.uint64 of a Python int above int64's range (issue 14): Warp makes a
uint64 constant of it, and the product wraps modulo 2**64 (a hash mix as
in Warp's test_compile_consts)."""
import warp as wp


@wp.kernel
def mix(data: wp.array(dtype=wp.uint64), out: wp.array(dtype=wp.uint64)):
    i = wp.tid()
    h = data[i] + wp.uint64(i)
    h = h ^ (h >> wp.uint64(33))
    h = h * wp.uint64(0xFF51AFD7ED558CCD)
    h = h ^ (h >> wp.uint64(33))
    h = h * wp.uint64(0xC4CEB9FE1A85EC53)
    out[i] = h + wp.uint64(18446744073709551615)
