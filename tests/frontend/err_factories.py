# Function factories (issue 14): what kpyc does not read as one, located
# where the kernel uses the function.
import warp as wp


def make_two(value: float):
    @wp.func
    def f():
        return value

    @wp.func
    def g(x: float):
        return x * value

    return f


def make_scale(value: float):
    @wp.func
    def f(x: float):
        return x * value

    return f


def host_value():
    v = 0.0
    while v < 2.0:
        v += 1.0
    return v


two = make_two(2.0)
scale_host = make_scale(host_value())


@wp.kernel
def two_funcs(a: wp.array(dtype=float)):  # kpyc: differs from Warp: a factory of two functions
    a[0] = two()


@wp.kernel
def host_arg(a: wp.array(dtype=float)):  # kpyc: differs from Warp: an argument kpyc does not evaluate
    a[0] = scale_host(1.0)
