"""Warp features with compile-time meaning: constant conditions select a
branch, static loop indices are constants, constructors and casts convert
constants at full precision, functions bound to locals, struct
constructors, wp.static, module constants of every kind."""
import math

import numpy as np

import warp as wp
from warp import vec3

DEBUG = False
TILE = 4
HALF = TILE // 2
DT = 0.95 * 0.1 / math.sqrt(3.0)
TWO_PI = 2.0 * np.pi
F64 = wp.constant(wp.float64(1.0e-12))
AXIS = wp.constant(vec3(0.0, 1.0, 0.0))
IDENT = wp.constant(wp.mat22(1.0, 0.0, 0.0, 1.0))


@wp.struct
class Inner:
    v: wp.vec2


@wp.struct
class Outer:
    a: float
    inner: Inner
    n: int


@wp.func
def sq(x: float):
    return x * x


@wp.kernel
def constants(a: wp.array(dtype=float), d: wp.array(dtype=wp.float64), o: wp.array(dtype=Outer)):
    i = wp.tid()
    if DEBUG:
        print(a[i])
    else:
        a[i] = a[i] * DT
    a[i] += TWO_PI if not DEBUG else 0.0
    d[i] = d[i] + F64 + wp.float64(0.1)
    v = AXIS * float(HALF)
    m = IDENT * 2.0
    for k in range(TILE):
        v = v + wp.vec3(k, 0, 1)
        m[0, 0] = m[0, 0] + float(k)
    f = sq
    g = wp.sin
    a[i] = f(a[i]) + g(v[0]) + m[1, 1] + wp.static(TILE * 2.0)
    o[i] = Outer(a[i], Inner(wp.vec2(2.0)), n=3)
    x = wp.float(1.0) + float(wp.int(2))
    t = wp.transform(1.5)
    u = wp.transform(p=wp.vec3(1.0, 2.0, 3.0), q=wp.quat(0.0, 0.0, 0.0, 1.0))
    w = wp.vector(1.0, 2.0, 3.0, length=3, dtype=wp.float64)
    z = -HALF
    for k in reversed(range(HALF, TILE)):
        a[k] = float(z)


@wp.kernel
def python_math(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    # math.f and np.f calls are Warp's builtins of that name
    a[i] = math.sqrt(a[i]) + np.sin(a[i]) + math.floor(a[i])
    # len() of a vector is a constant: this loop is unrolled by Warp
    s = 0.0
    for k in range(len(v[i])):
        s += v[i][k]
    a[i] += s


@wp.kernel
def reversed_ranges(a: wp.array(dtype=int), lo: int, hi: int, st: int):
    n = int(0)
    for i in reversed(range(hi)):
        a[n] = i
    for i in reversed(range(lo, hi)):
        a[n] = i
    for i in reversed(range(lo, hi, 3)):
        a[n] = i
    for i in reversed(range(lo, hi, st)):
        a[n] = i
        n += 1
    for i in reversed(range(10, 0, -4)):
        a[i] = n

# GPURACE: constants (every thread writes a[HALF] to a[TILE - 1], which those threads read and write)
