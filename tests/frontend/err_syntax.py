# Syntax errors are reported line by line; parsing resumes at the next
# statement, and the rest of the file is still checked.
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i] +
    if x > 0.0
        a[i] = 1.0
    y = 2.0 $ 3
    a[i] = y


@wp.kernel
def k2(a: wp.array(dtype=float)):
    a[0] = 1 +* 2
    a[1] = 3.0
      b = 2
    c = undefined


def host_code_is_not_parsed():
    return {k: v for k, v in zip("ab", "cd")} | {**locals()}


print(f"{host_code_is_not_parsed()!r:>10}")
