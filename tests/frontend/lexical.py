"""Lexical forms: integers and floats in every notation, strings with
escapes, prefixes, concatenation and triple quotes, implicit and explicit
line joining, comments, semicolons, tab indentation, a one-line body."""
import warp as wp


@wp.kernel
def numbers(a: wp.array(dtype=int), f: wp.array(dtype=float)):
    a[0] = 0x1F + 0o17 + 0b101 + 1_000 + 0 + 00 + 0XfF + 0B1 + 0O7
    f[0] = 1.5 + .5 + 1. + 1e3 + 1.5E-3 + 1_0.0_1 + 2e+2 + 3.0e-2 + 0.0
    x = (1 +
         2 +  # a comment inside brackets
         3)
    y = 1 + \
        2
    z = [0, 1][0] if False else x
    if x > 0: a[1] = x; a[2] = y
    wp.printf("tab\there \"quoted\" \\ \x41 \u00e9\n")
    wp.printf('single %d %d\n', x, z)
    wp.printf("""triple
quoted %d\n""", y)
    wp.printf(r"raw\n" "\n" 'and' if False else "x\n")


@wp.kernel
def tabs(a: wp.array(dtype=float)):
	i = wp.tid()
	if i > 0:
		a[i] = 1.0
	# a comment at another indentation
  # and another
	a[0] = 2.0


@wp.kernel
def one_line(a: wp.array(dtype=float)): a[0] = 3.0
