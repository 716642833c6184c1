# User functions: overload resolution, arguments, recursion, returns.
import warp as wp


@wp.func
def f(x: float, y: float = 1.0) -> float:
    return x + y


@wp.func
def g(x: int):
    return x


@wp.func
def g(x: wp.vec3):
    return x


@wp.func
def fact(n: int) -> int:
    if n <= 1:
        return 1
    return n * fact(n - 1)


@wp.func
def annotated(x: float) -> wp.float64:
    return x


@wp.func
def two_types(x: float):
    if x > 0.0:
        return x
    return 1


@wp.kernel
def k(a: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    a[i] = f(1)
    a[i] = f(a[i], z=2.0)
    a[i] = f()
    a[i] = float(g(a[i]))
    n[i] = fact(n[i])
    d = annotated(a[i])
    t = two_types(a[i])
    p, q = f(1.0)
