#!/usr/bin/env python3
"""gen_ref.py -- reference values from NVIDIA Warp for kpy's runtime tests.

Usage (with warp-lang and numpy installed, CPU only):
    python3 tests/runtime/gen_ref.py [-o tests/runtime/ref]

For every case of CASES below this builds a Warp kernel that applies one
builtin to rows of inputs, runs it on Warp's CPU device, and writes

    ref/ref.txt     the inputs and Warp's outputs, as exact bit patterns
    ref/cases.inc   the same computations spelled with kpy (C++), read by
                    ref_test.cpp, which checks kpy against ref.txt
    ref/print.txt   what Warp's print() writes for PRINTS below
    ref/prints.inc  the same print calls spelled with kpy

A case is (name, argument types, result type, Warp expression, kpy
expression, tolerance, inputs).  Expressions use x0, x1, ... for the
arguments.  Types are written f32, i8, bool, v3f32 (vector), m33f64
(matrix, rows then columns), qf16 (quaternion), xf32 (transform).  The
tolerance is in units in the last place of the result's scalar type (0:
bit for bit, NaN matching any NaN); dtol is the tolerance on f32 components
when kpy is compiled with KPY_F32_DOUBLE, relative to max(|value|, 1) (0:
exact there too, None: not compared in that mode, for results that are
discontinuous in their inputs, like floor of a quotient).

ref.txt format, one block per case:
    case NAME tol N dtol D rows R sig ARGTYPES... -> RETTYPE
    then R lines: argument components ... | result components
Floats are hexadecimal bit patterns, integers decimal.
"""

import argparse
import importlib
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

SEED = 20240611

# ---------------------------------------------------------------------------
# Types

SCALARS = {
    # name: (warp dtype name, numpy dtype, C++ type)
    "bool": ("wp.bool", np.bool_, "bool"),
    "i8": ("wp.int8", np.int8, "kpy::i8"),
    "i16": ("wp.int16", np.int16, "kpy::i16"),
    "i32": ("wp.int32", np.int32, "kpy::i32"),
    "i64": ("wp.int64", np.int64, "kpy::i64"),
    "u8": ("wp.uint8", np.uint8, "kpy::u8"),
    "u16": ("wp.uint16", np.uint16, "kpy::u16"),
    "u32": ("wp.uint32", np.uint32, "kpy::u32"),
    "u64": ("wp.uint64", np.uint64, "kpy::u64"),
    "f16": ("wp.float16", np.float16, "kpy::f16"),
    "f32": ("wp.float32", np.float32, "kpy::f32"),
    "f64": ("wp.float64", np.float64, "kpy::f64"),
}
FLOATS = ("f16", "f32", "f64")
INTS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
BITS = {"f16": (np.uint16, 4), "f32": (np.uint32, 8), "f64": (np.uint64, 16)}

TYPE_RE = re.compile(r"^(?:(v)(\d+)|(m)(\d)(\d)|(q)|(x))?(bool|[iu]8|[iu]16|[iu]32|[iu]64|f16|f32|f64)$")


class Type:
    """A value type: kind '' (scalar), 'v', 'm', 'q' or 'x', a shape and a scalar."""

    def __init__(self, name):
        m = TYPE_RE.match(name)
        if not m:
            raise ValueError("bad type " + name)
        self.name = name
        self.scalar = m.group(8)
        if m.group(1):
            self.kind, self.shape = "v", (int(m.group(2)),)
        elif m.group(3):
            self.kind, self.shape = "m", (int(m.group(4)), int(m.group(5)))
        elif m.group(6):
            self.kind, self.shape = "q", (4,)
        elif m.group(7):
            self.kind, self.shape = "x", (7,)
        else:
            self.kind, self.shape = "", ()
        self.ncomp = int(np.prod(self.shape)) if self.shape else 1

    @property
    def np(self):
        return SCALARS[self.scalar][1]

    @property
    def warp(self):
        s = SCALARS[self.scalar][0]
        if self.kind == "v":
            return f"wp.types.vector({self.shape[0]}, {s})"
        if self.kind == "m":
            return f"wp.types.matrix(({self.shape[0]}, {self.shape[1]}), {s})"
        if self.kind == "q":
            return f"wp.types.quaternion({s})"
        if self.kind == "x":
            return f"wp.types.transformation({s})"
        return s

    @property
    def alias(self):
        return "t_" + self.name

    @property
    def cpp(self):
        s = SCALARS[self.scalar][2]
        if self.kind == "v":
            return f"kpy::vec_t<{self.shape[0]}, {s}>"
        if self.kind == "m":
            return f"kpy::mat_t<{self.shape[0]}, {self.shape[1]}, {s}>"
        if self.kind == "q":
            return f"kpy::quat_t<{s}>"
        if self.kind == "x":
            return f"kpy::transform_t<{s}>"
        return s


def fmt_comps(t, arr):
    """Components of one value (numpy array or scalar) as text."""
    a = np.asarray(arr, dtype=t.np).reshape(-1)
    if t.scalar in FLOATS:
        ut, w = BITS[t.scalar]
        return [format(int(u), "0%dx" % w) for u in a.view(ut)]
    if t.scalar == "bool":
        return ["1" if bool(v) else "0" for v in a]
    return [str(int(v)) for v in a]


# ---------------------------------------------------------------------------
# Inputs

rng = np.random.default_rng(SEED)

F_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 0.1, -0.3, 3.7, -2.3, 10.0, -10.0, 100.5, 1e-3,
             -1e-3, 1e-30, 1e30, -1e30, 1e-40, math.inf, -math.inf, math.nan, math.pi, math.pi / 2, 0.75,
             -0.999, 0.999, 1.0000001, 2.5, -2.5, 3.5, 0.49999997, 1.5, -1.5, 0.25, 7.0, -7.0, 1e5,
             65504.0, 6e-5, 1e-7, 40.0, -88.5, 89.0, 1.9999999]
F_SMALL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.7, 1e-30, 1e30, math.inf, -math.inf, math.nan, 0.1]


def floats(s, n_rand=30):
    dt = SCALARS[s][1]
    vals = list(F_SPECIAL) + list(rng.normal(0, 3, n_rand)) + list(rng.uniform(-1, 1, n_rand // 2))
    with np.errstate(over="ignore"):
        return np.array(vals, dtype=np.float64).astype(dt)


def float_pairs(s, n_rand=40):
    dt = SCALARS[s][1]
    a, b = np.meshgrid(np.array(F_SMALL), np.array(F_SMALL))
    a = list(a.reshape(-1)) + list(rng.normal(0, 4, n_rand))
    b = list(b.reshape(-1)) + list(rng.normal(0, 4, n_rand))
    with np.errstate(over="ignore"):
        return [np.array(a).astype(dt), np.array(b).astype(dt)]


def float_triples(s, n=80):
    dt = SCALARS[s][1]
    sp = np.array(F_SMALL)
    cols = []
    for _ in range(3):
        c = list(rng.normal(0, 3, n)) + list(rng.choice(sp, 40))
        cols.append(c)
    with np.errstate(over="ignore"):
        return [np.array(c).astype(dt) for c in cols]


def int_range(s):
    info = np.iinfo(SCALARS[s][1])
    return int(info.min), int(info.max)


def ints(s, n_rand=30):
    lo, hi = int_range(s)
    base = [0, 1, 2, 3, 7, 100, hi, hi - 1, lo, lo + 1]
    if lo < 0:
        base += [-1, -2, -3, -7, -100]
    vals = [v for v in base if lo <= v <= hi]
    vals += [int(v) for v in rng.integers(lo, hi, n_rand, endpoint=True, dtype=np.int64 if lo < 0 else np.uint64)]
    return np.array(vals, dtype=SCALARS[s][1])


def int_pairs(s, op):
    """Pairs for a binary integer op, avoiding C undefined behaviour."""
    lo, hi = int_range(s)
    signed = lo < 0
    small = [v for v in [0, 1, 2, 3, 5, 7, 13, 100, -1, -2, -3, -5, -7, -13, -100, lo, hi, lo + 1, hi - 1]
             if lo <= v <= hi]
    pairs = [(a, b) for a in small for b in small]
    width = np.dtype(SCALARS[s][1]).itemsize * 8
    promoted = width < 32  # computed in int, no overflow
    out = []
    for a, b in pairs:
        if op in ("div", "mod", "floordiv") and (b == 0 or (signed and a == lo and b == -1 and not promoted)):
            continue
        if op in ("lshift", "rshift"):
            b = abs(b) % width
            if op == "lshift" and signed and (a < 0 or (not promoted and a.bit_length() + b >= width)):
                continue
        if signed and not promoted:
            r = {"add": a + b, "sub": a - b, "mul": a * b}.get(op)
            if r is not None and not (lo <= r <= hi):
                continue
        out.append((a, b))
    dt = SCALARS[s][1]
    return [np.array([p[0] for p in out], dtype=dt), np.array([p[1] for p in out], dtype=dt)]


def comps(t, n, scale=2.0, special=True):
    """n random values of a float composite type (plus a few special rows)."""
    dt = t.np
    shape = (n,) + t.shape
    a = rng.normal(0, scale, shape)
    if special and n >= 8:
        a[0] = 0.0
        a[1] = 1.0
        a[2] = -0.0
        a[3].reshape(-1)[0] = math.nan
        a[4].reshape(-1)[-1] = math.inf
    return a.astype(dt)


def unit_quats(s, n):
    q = rng.normal(0, 1, (n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    if n < 4:
        return q.astype(SCALARS[s][1])
    q[0] = [0, 0, 0, 1]
    q[1] = [0, 0, 0, -1]
    q[2] = [1, 0, 0, 0]
    q[3] = [0, math.sqrt(0.5), 0, math.sqrt(0.5)]
    return q.astype(SCALARS[s][1])


def quat_inputs(s, n):
    q = unit_quats(s, n)
    q[4] = [0, 0, 0, 0]
    q[5] = [1, 2, 3, 4]
    return q


def rot_mats(s, n, size=3):
    """Rotation matrices (each quat_from_matrix branch), generic ones, zero."""
    out = []
    for q in unit_quats("f64", n):
        x, y, z, w = q
        r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                      [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                      [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
        out.append(r)
    out += [np.diag([-1.0, -1.0, 1.0]), np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0]),
            rng.normal(0, 2, (3, 3)), rng.normal(0, 2, (3, 3)), np.zeros((3, 3))]
    if size == 4:
        m4 = []
        for r in out:
            m = np.eye(4)
            m[:3, :3] = r
            m[:3, 3] = rng.normal(0, 3, 3)
            m4.append(m)
        out = m4
    return np.array(out).astype(SCALARS[s][1])


def matrices(s, n, r, c):
    m = rng.normal(0, 2, (n, r, c))
    if r == c:
        m[0] = 0
        m[1] = np.eye(r)
        m[2] = np.ones((r, r))  # singular
        m[3] = np.eye(r) * 1e-20
        m[4, 0, 0] = math.nan
    return m.astype(SCALARS[s][1])


def xforms(s, n):
    p = rng.normal(0, 3, (n, 3))
    q = unit_quats("f64", n)
    x = np.concatenate([p, q], axis=1)
    x[5, 3:] = [0, 0, 0, 0]
    return x.astype(SCALARS[s][1])


def seeds(n=64):
    return np.array([0, 1, 2, 42, -1, 2147483647, -2147483648, 12345] +
                    [int(v) for v in rng.integers(-2**31, 2**31, n - 8)], dtype=np.int32)


# ---------------------------------------------------------------------------
# Cases

CASES = []


def case(name, args, ret, expr, cpp, inputs, tol=0, dtol=1e-4, body=None, cpp_body=None, full=False):
    """Register a case.  inputs: one numpy array per argument (same length).
    body/cpp_body: statements that leave the result in `r` (Warp) and
    return it (C++), instead of the single expressions.  Composite cases
    keep only their first rows (the special values come first) unless full."""
    targs, tret = [Type(a) for a in args], Type(ret)
    composite = any(t.kind for t in targs + [tret])
    keep = {"f32": 24, "f64": 14, "f16": 20}.get(tret.scalar if tret.kind else (targs[0].scalar if targs else ""))
    if composite and keep and not full:  # composites: fewer rows (ref.txt size)
        inputs = [x[:keep] for x in inputs]
    CASES.append(dict(name=name, args=targs, ret=tret, expr=expr, cpp=cpp,
                      inputs=inputs, tol=tol, dtol=dtol, body=body, cpp_body=cpp_body))


WARP_UNARY = ["sqrt", "cbrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
              "sinh", "cosh", "tanh", "degrees", "radians", "erf", "erfc", "erfinv", "erfcinv", "floor",
              "ceil", "trunc", "round", "rint", "frac", "abs", "sign", "step", "nonzero"]


def scalar_float_cases():
    for s in FLOATS:
        xs = floats(s)
        for f in WARP_UNARY:
            case(f"{f}_{s}", [s], s, f"wp.{f}(x0)", f"kpy::{f}(x0)", [xs])
        for f in ("isfinite", "isnan", "isinf"):
            case(f"{f}_{s}", [s], "bool", f"wp.{f}(x0)", f"kpy::{f}(x0)", [xs])
        case(f"neg_{s}", [s], s, "-x0", "kpy::neg(x0)", [xs])
        case(f"pos_{s}", [s], s, "+x0", "kpy::pos(x0)", [xs])
        pairs = float_pairs(s)
        for f in ("atan2", "pow", "copysign", "min", "max", "mod"):
            case(f"{f}_{s}", [s, s], s, f"wp.{f}(x0, x1)", f"kpy::{f}(x0, x1)", pairs)
        case(f"floordiv_{s}", [s, s], s, "x0 // x1", "kpy::floordiv(x0, x1)", pairs, dtol=None)
        for op, name in (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "div")):
            case(f"{name}_{s}", [s, s], s, f"x0 {op} x1", f"x0 {op} x1", pairs)
        for op, name in (("<", "lt"), ("<=", "le"), ("==", "eq"), ("!=", "ne")):
            case(f"{name}_{s}", [s, s], "bool", f"x0 {op} x1", f"x0 {op} x1", pairs)
        tri = float_triples(s)
        case(f"clamp_{s}", [s, s, s], s, "wp.clamp(x0, x1, x2)", "kpy::clamp(x0, x1, x2)", tri)
        case(f"lerp_{s}", [s, s, s], s, "wp.lerp(x0, x1, x2)", "kpy::lerp(x0, x1, x2)", tri)
        case(f"smoothstep_{s}", [s, s, s], s, "wp.smoothstep(x0, x1, x2)", "kpy::smoothstep(x0, x1, x2)", tri)
        case(f"where_{s}", ["bool", s, s], s, "wp.where(x0, x1, x2)", "(x0 ? x1 : x2)",
             [np.array([i % 2 == 0 for i in range(len(tri[0]))]), tri[1], tri[2]])
    # erfinv / erfcinv over their domains in fine steps
    for s in ("f32", "f64"):
        d = np.concatenate([np.linspace(-1, 1, 201), [-1 + 1e-7, 1 - 1e-7, 1e-12, -1e-12, 0.8646647167633873]])
        case(f"erfinv_dense_{s}", [s], s, "wp.erfinv(x0)", "kpy::erfinv(x0)", [d.astype(SCALARS[s][1])])
        case(f"erfcinv_dense_{s}", [s], s, "wp.erfcinv(x0)", "kpy::erfcinv(x0)",
             [(d + 1).astype(SCALARS[s][1])], dtol=None)


def scalar_int_cases():
    for s in INTS:
        xs = ints(s)
        lo, hi = int_range(s)
        safe = xs[(xs.astype(np.int64) != lo) | (np.dtype(SCALARS[s][1]).itemsize < 4) | (lo == 0)]
        case(f"abs_{s}", [s], s, "wp.abs(x0)", "kpy::abs(x0)", [safe])
        case(f"neg_{s}", [s], s, "-x0", "kpy::neg(x0)", [safe])
        for f in ("sign", "step", "nonzero"):
            case(f"{f}_{s}", [s], s, f"wp.{f}(x0)", f"kpy::{f}(x0)", [xs])
        case(f"bit_count_{s}", [s], "i32", "wp.bit_count(x0)", "kpy::bit_count(x0)", [xs])
        case(f"invert_{s}", [s], s, "~x0", "(" + SCALARS[s][2] + ")(~x0)", [xs])
        for op, name, cpp in (("+", "add", None), ("-", "sub", None), ("*", "mul", None), ("/", "div", None),
                              ("%", "mod", "kpy::mod(x0, x1)"), ("//", "floordiv", "kpy::floordiv(x0, x1)"),
                              ("&", "bit_and", None), ("|", "bit_or", None), ("^", "bit_xor", None),
                              ("<<", "lshift", None), (">>", "rshift", None)):
            c = cpp or f"({SCALARS[s][2]})(x0 {op} x1)"
            case(f"{name}_{s}", [s, s], s, f"x0 {op} x1", c, int_pairs(s, name))
        pairs = int_pairs(s, "cmp")
        for f in ("min", "max"):
            case(f"{f}_{s}", [s, s], s, f"wp.{f}(x0, x1)", f"kpy::{f}(x0, x1)", pairs)
        case(f"lt_{s}", [s, s], "bool", "x0 < x1", "x0 < x1", pairs)
        a = ints(s)
        b = ints(s)[: len(a)]
        c = ints(s)[: len(a)]
        n = min(len(a), len(b), len(c))
        case(f"clamp_{s}", [s, s, s], s, "wp.clamp(x0, x1, x2)", "kpy::clamp(x0, x1, x2)",
             [a[:n], np.minimum(b[:n], c[:n]), np.maximum(b[:n], c[:n])])


def cast_cases():
    """Scalar casts between every pair of types, on inputs in the target's range."""
    for src in SCALARS:
        for dst in SCALARS:
            if src == dst or (src, dst) == ("f16", "bool"):  # Warp: bool(float16) does not compile
                continue
            if src == "bool":
                xs = np.array([True, False])
            elif src in FLOATS:
                vals = list(floats(src, 20))
                if dst in INTS:
                    lo, hi = int_range(dst)
                    if dst in ("i64", "u64"):
                        lo, hi = max(lo, -2.0**62), min(hi, 2.0**62)
                    vals = [v for v in vals if math.isfinite(float(v)) and lo <= math.trunc(float(v)) <= hi]
                    vals += [lo + 0.5 if lo < 0 else 0.75, hi - 0.5 if dst in ("i8", "u8", "i16", "u16") else 3.9]
                elif dst == "bool":
                    pass
                with np.errstate(over="ignore"):
                    xs = np.array(vals, dtype=np.float64).astype(SCALARS[src][1])
            else:
                xs = ints(src)
            cpp = f"{SCALARS[dst][2]}(x0)"
            w = f"{SCALARS[dst][0]}(x0)"
            case(f"cast_{src}_{dst}", [src], dst, w, cpp, [xs])
    # composite conversions
    v = comps(Type("v3f32"), 20, special=False)
    case("cast_v3f32_v3f64", ["v3f32"], "v3f64", "wp.vec3d(x0)", "kpy::vec3d(x0)", [v])
    case("cast_v3f32_v3f16", ["v3f32"], "v3f16", "wp.vec3h(x0)", "kpy::vec3h(x0)", [v])
    case("cast_v3f32_v3i32", ["v3f32"], "v3i32", "wp.vec3i(x0)", "kpy::vec3i(x0)", [v])
    m = comps(Type("m33f64"), 20, special=False)
    case("cast_m33f64_m33f32", ["m33f64"], "m33f32", "wp.mat33f(x0)", "kpy::mat33f(x0)", [m])
    q = quat_inputs("f64", 20)
    case("cast_qf64_qf16", ["qf64"], "qf16", "wp.quath(x0)", "kpy::quath(x0)", [q])


def vec_cases():
    for s in ("f32", "f64", "f16"):
        for n in ((2, 3, 4, 6) if s == "f32" else (3,)):
            t = f"v{n}{s}"
            T = Type(t)
            a, b = comps(T, 40), comps(T, 40)
            sc = floats(s, 10)[:40]
            sc = np.resize(sc, 40)
            case(f"vadd_{t}", [t, t], t, "x0 + x1", "x0 + x1", [a, b])
            case(f"vsub_{t}", [t, t], t, "x0 - x1", "x0 - x1", [a, b])
            case(f"vneg_{t}", [t], t, "-x0", "-x0", [a])
            case(f"vmuls_{t}", [t, s], t, "x0 * x1", "x0 * x1", [a, sc])
            case(f"vsmul_{t}", [s, t], t, "x0 * x1", "x0 * x1", [sc, a])
            case(f"vdivs_{t}", [t, s], t, "x0 / x1", "x0 / x1", [a, sc])
            case(f"vsdiv_{t}", [s, t], t, "x0 / x1", "x0 / x1", [sc, a])
            case(f"dot_{t}", [t, t], s, "wp.dot(x0, x1)", "kpy::dot(x0, x1)", [a, b])
            case(f"length_{t}", [t], s, "wp.length(x0)", "kpy::length(x0)", [a])
            case(f"length_sq_{t}", [t], s, "wp.length_sq(x0)", "kpy::length_sq(x0)", [a])
            case(f"normalize_{t}", [t], t, "wp.normalize(x0)", "kpy::normalize(x0)", [a])
            case(f"cw_mul_{t}", [t, t], t, "wp.cw_mul(x0, x1)", "kpy::cw_mul(x0, x1)", [a, b])
            case(f"cw_div_{t}", [t, t], t, "wp.cw_div(x0, x1)", "kpy::cw_div(x0, x1)", [a, b])
            case(f"vmin_{t}", [t, t], t, "wp.min(x0, x1)", "kpy::min(x0, x1)", [a, b])
            case(f"vmax_{t}", [t, t], t, "wp.max(x0, x1)", "kpy::max(x0, x1)", [a, b])
            case(f"vmin1_{t}", [t], s, "wp.min(x0)", "kpy::min(x0)", [a])
            case(f"vmax1_{t}", [t], s, "wp.max(x0)", "kpy::max(x0)", [a])
            case(f"argmin_{t}", [t], "u32", "wp.argmin(x0)", "kpy::argmin(x0)", [a])
            case(f"argmax_{t}", [t], "u32", "wp.argmax(x0)", "kpy::argmax(x0)", [a])
            case(f"vabs_{t}", [t], t, "wp.abs(x0)", "kpy::abs(x0)", [a])
            case(f"vsign_{t}", [t], t, "wp.sign(x0)", "kpy::sign(x0)", [a])
            case(f"vmod_{t}", [t, t], t, "wp.mod(x0, x1)", "kpy::mod(x0, x1)", [a, b])
            case(f"vlerp_{t}", [t, t, s], t, "wp.lerp(x0, x1, x2)", "kpy::lerp(x0, x1, x2)", [a, b, sc])
            for f in ("isfinite", "isnan", "isinf"):
                case(f"{f}_{t}", [t], "bool", f"wp.{f}(x0)", f"kpy::{f}(x0)", [a])
            case(f"veq_{t}", [t, t], "bool", "x0 == x1", "x0 == x1", [a, np.where(np.arange(40)[:, None] % 3 == 0, a, b)])
            case(f"vextract_{t}", [t, "i32"], s, "x0[x1]", "x0[x1]", [a, np.resize(np.arange(-n, n, dtype=np.int32), 40)])
            case(f"vinsert_{t}", [t, "i32", s], t, "", "kpy::insert(x0, x1, x2)", [a, np.resize(np.arange(-n, n, dtype=np.int32), 40), sc],
                 body=["r = x0", "r[x1] = x2"])
            if n == 3:
                case(f"cross_{t}", [t, t], t, "wp.cross(x0, x1)", "kpy::cross(x0, x1)", [a, b])
            if s == "f32":
                pos = np.abs(sc) + np.float32(0.1)
                case(f"norm_l1_{t}", [t], s, "wp.norm_l1(x0)", "kpy::norm_l1(x0)", [a])
                case(f"norm_l2_{t}", [t], s, "wp.norm_l2(x0)", "kpy::norm_l2(x0)", [a])
                case(f"norm_huber_{t}", [t, s], s, "wp.norm_huber(x0, x1)", "kpy::norm_huber(x0, x1)", [a, pos])
                case(f"norm_huber1_{t}", [t], s, "wp.norm_huber(x0)", "kpy::norm_huber(x0)", [a])
                case(f"norm_pseudo_huber_{t}", [t, s], s, "wp.norm_pseudo_huber(x0, x1)",
                     "kpy::norm_pseudo_huber(x0, x1)", [a, pos])
                case(f"smooth_normalize_{t}", [t, s], t, "wp.smooth_normalize(x0, x1)",
                     "kpy::smooth_normalize(x0, x1)", [a, pos])
                case(f"smooth_normalize1_{t}", [t], t, "wp.smooth_normalize(x0)", "kpy::smooth_normalize(x0)", [a])
    # a zero vector, a vector with a NaN, tiny vectors
    z = np.array([[0, 0, 0], [0, -0.0, 0], [1e-30, 0, 0], [math.nan, 1, 1], [1e-20, 1e-20, 1e-20], [3, 4, 0]],
                 dtype=np.float32)
    case("normalize_special_v3f32", ["v3f32"], "v3f32", "wp.normalize(x0)", "kpy::normalize(x0)", [z], dtol=None)
    nanv = np.array([[math.nan, 1, 0], [math.nan, math.nan, math.nan], [2, math.nan, 1], [1, 1, 1], [0, -0.0, 0]],
                    dtype=np.float32)
    case("argmin_nan_v3f32", ["v3f32"], "u32", "wp.argmin(x0)", "kpy::argmin(x0)", [nanv])
    case("argmax_nan_v3f32", ["v3f32"], "u32", "wp.argmax(x0)", "kpy::argmax(x0)", [nanv])
    case("vmin1_nan_v3f32", ["v3f32"], "f32", "wp.min(x0)", "kpy::min(x0)", [nanv])
    # integer vectors
    for s in ("i32", "u8", "i16", "u64"):
        t = "v3" + s
        lo, hi = int_range(s)
        a = rng.integers(max(lo, -1000), min(hi, 1000), (40, 3), endpoint=True).astype(SCALARS[s][1])
        b = rng.integers(1, min(hi, 1000), (40, 3), endpoint=True).astype(SCALARS[s][1])
        sh = rng.integers(0, 8, (40, 3)).astype(SCALARS[s][1])
        sc = rng.integers(1, 9, 40).astype(SCALARS[s][1])
        for op, name in (("+", "add"), ("-", "sub"), ("&", "and"), ("|", "or"), ("^", "xor")):
            case(f"v{name}_{t}", [t, t], t, f"x0 {op} x1", f"x0 {op} x1", [a, b])
        apos = np.abs(a.astype(np.int64)).astype(SCALARS[s][1])
        case(f"vlshift_{t}", [t, t], t, "x0 << x1", "x0 << x1", [apos, sh])
        case(f"vrshift_{t}", [t, t], t, "x0 >> x1", "x0 >> x1", [a, sh])
        case(f"vinvert_{t}", [t], t, "~x0", "~x0", [a])
        case(f"vmuls_{t}", [t, s], t, "x0 * x1", "x0 * x1", [a, sc])
        case(f"vdivs_{t}", [t, s], t, "x0 / x1", "x0 / x1", [a, sc])
        case(f"vmod_{t}", [t, t], t, "wp.mod(x0, x1)", "kpy::mod(x0, x1)", [a, b])
        case(f"vmin_{t}", [t, t], t, "wp.min(x0, x1)", "kpy::min(x0, x1)", [a, b])
        case(f"vmax1_{t}", [t], s, "wp.max(x0)", "kpy::max(x0)", [a])
        case(f"argmin_{t}", [t], "u32", "wp.argmin(x0)", "kpy::argmin(x0)", [a])
        case(f"dot_{t}", [t, t], s, "wp.dot(x0, x1)", "kpy::dot(x0, x1)", [a, b])
        if s[0] == "i":
            case(f"vabs_{t}", [t], t, "wp.abs(x0)", "kpy::abs(x0)", [a])
            case(f"vsign_{t}", [t], t, "wp.sign(x0)", "kpy::sign(x0)", [a])
            case(f"vneg_{t}", [t], t, "-x0", "-x0", [a])


def mat_cases():
    for s in ("f32", "f64", "f16"):
        for n in ((2, 3, 4) if s != "f16" else (2, 3, 4)):
            t = f"m{n}{n}{s}"
            v = f"v{n}{s}"
            a, b = matrices(s, 40, n, n), matrices(s, 40, n, n)
            x = comps(Type(v), 40)
            sc = np.resize(floats(s, 10), 40)
            case(f"madd_{t}", [t, t], t, "x0 + x1", "x0 + x1", [a, b])
            case(f"msub_{t}", [t, t], t, "x0 - x1", "x0 - x1", [a, b])
            case(f"mneg_{t}", [t], t, "-x0", "-x0", [a])
            case(f"mmuls_{t}", [t, s], t, "x0 * x1", "x0 * x1", [a, sc])
            case(f"msmul_{t}", [s, t], t, "x0 * x1", "x0 * x1", [sc, a])
            case(f"mdivs_{t}", [t, s], t, "x0 / x1", "x0 / x1", [a, sc])
            case(f"msdiv_{t}", [s, t], t, "x0 / x1", "x0 / x1", [sc, a])
            case(f"mmulv_{t}", [t, v], v, "x0 * x1", "x0 * x1", [a, x])
            case(f"vmulm_{t}", [v, t], v, "x0 * x1", "x0 * x1", [x, a])
            case(f"mmulm_{t}", [t, t], t, "x0 * x1", "x0 * x1", [a, b])
            case(f"transpose_{t}", [t], t, "wp.transpose(x0)", "kpy::transpose(x0)", [a])
            case(f"inverse_{t}", [t], t, "wp.inverse(x0)", "kpy::inverse(x0)", [a], dtol=None)
            case(f"determinant_{t}", [t], s, "wp.determinant(x0)", "kpy::determinant(x0)", [a], dtol=1e-4)
            case(f"trace_{t}", [t], s, "wp.trace(x0)", "kpy::trace(x0)", [a])
            case(f"diag_{t}", [v], t, "wp.diag(x0)", "kpy::diag(x0)", [x])
            case(f"get_diag_{t}", [t], v, "wp.get_diag(x0)", "kpy::get_diag(x0)", [a])
            case(f"ddot_{t}", [t, t], s, "wp.ddot(x0, x1)", "kpy::ddot(x0, x1)", [a, b], dtol=1e-4)
            case(f"outer_{t}", [v, v], t, "wp.outer(x0, x1)", "kpy::outer(x0, x1)", [x, comps(Type(v), 40)])
            case(f"mcw_mul_{t}", [t, t], t, "wp.cw_mul(x0, x1)", "kpy::cw_mul(x0, x1)", [a, b])
            case(f"mcw_div_{t}", [t, t], t, "wp.cw_div(x0, x1)", "kpy::cw_div(x0, x1)", [a, b])
            case(f"mlerp_{t}", [t, t, s], t, "wp.lerp(x0, x1, x2)", "kpy::lerp(x0, x1, x2)", [a, b, sc])
            case(f"mfill_{t}", [s], t, f"{Type(t).alias}(x0)", f"{Type(t).cpp}(x0)", [sc])
            case(f"identity_{t}", [s], t, f"wp.identity(n={n}, dtype={SCALARS[s][0]}) * x0",
                 f"kpy::identity<{Type(t).cpp}>() * x0", [sc])
            case(f"mrow_{t}", [t, "i32"], v, "x0[x1]", "x0[x1]", [a, np.resize(np.arange(-n, n, dtype=np.int32), 40)])
            case(f"melem_{t}", [t, "i32", "i32"], s, "x0[x1, x2]", "x0[x1][x2]",
                 [a, np.resize(np.arange(-n, n, dtype=np.int32), 40), np.resize(np.arange(n - 1, -n - 1, -1, dtype=np.int32), 40)])
            case(f"minsert_row_{t}", [t, "i32", v], t, "", "kpy::insert(x0, x1, x2)",
                 [a, np.resize(np.arange(-n, n, dtype=np.int32), 40), x], body=["r = x0", "r[x1] = x2"])
            case(f"minsert_elem_{t}", [t, "i32", "i32", s], t, "", "kpy::insert(x0, x1, x2, x3)",
                 [a, np.resize(np.arange(-n, n, dtype=np.int32), 40), np.resize(np.arange(n), 40).astype(np.int32), sc],
                 body=["r = x0", "r[x1, x2] = x3"])
            for f in ("isfinite", "isnan", "isinf"):
                case(f"{f}_{t}", [t], "bool", f"wp.{f}(x0)", f"kpy::{f}(x0)", [a])
            rows = ", ".join(f"x0[{i}]" for i in range(n))
            case(f"from_rows_{t}", [t], t, f"wp.matrix_from_rows({rows})",
                 f"kpy::matrix_from_rows<{Type(t).cpp}>({rows})", [a])
            case(f"from_cols_{t}", [t], t, f"wp.matrix_from_cols({rows})",
                 f"kpy::matrix_from_cols<{Type(t).cpp}>({rows})", [a])
            if n == 3:
                case(f"skew_{s}", [v], t, "wp.skew(x0)", "kpy::skew(x0)", [x])
            if n == 4:
                p = comps(Type(f"v3{s}"), 40)
                case(f"mtransform_point_{s}", [t, f"v3{s}"], f"v3{s}", "wp.transform_point(x0, x1)",
                     "kpy::transform_point(x0, x1)", [a, p])
                case(f"mtransform_vector_{s}", [t, f"v3{s}"], f"v3{s}", "wp.transform_vector(x0, x1)",
                     "kpy::transform_vector(x0, x1)", [a, p])
    # non-square
    a, b = matrices("f32", 30, 2, 3), matrices("f32", 30, 3, 4)
    case("mmulm_m23_m34_f32", ["m23f32", "m34f32"], "m24f32", "x0 * x1", "x0 * x1", [a, b])
    case("transpose_m23f32", ["m23f32"], "m32f32", "wp.transpose(x0)", "kpy::transpose(x0)", [a])
    case("mmulv_m23f32", ["m23f32", "v3f32"], "v2f32", "x0 * x1", "x0 * x1", [a, comps(Type("v3f32"), 30)])
    case("outer_v2_v4_f32", ["v2f32", "v4f32"], "m24f32", "wp.outer(x0, x1)", "kpy::outer(x0, x1)",
         [comps(Type("v2f32"), 30), comps(Type("v4f32"), 30)])
    # 6x6 (spatial) products
    a6, b6 = matrices("f32", 20, 6, 6), matrices("f32", 20, 6, 6)
    case("mmulm_m66f32", ["m66f32", "m66f32"], "m66f32", "x0 * x1", "x0 * x1", [a6, b6])
    case("mmulv_m66f32", ["m66f32", "v6f32"], "v6f32", "x0 * x1", "x0 * x1", [a6, comps(Type("v6f32"), 20)])
    # integer matrices
    ai = rng.integers(-50, 50, (30, 3, 3)).astype(np.int32)
    bi = rng.integers(0, 5, (30, 3, 3)).astype(np.int32)
    case("mand_m33i32", ["m33i32", "m33i32"], "m33i32", "x0 & x1", "x0 & x1", [ai, bi])
    case("mxor_m33i32", ["m33i32", "m33i32"], "m33i32", "x0 ^ x1", "x0 ^ x1", [ai, bi])
    case("mmulm_m33i32", ["m33i32", "m33i32"], "m33i32", "x0 * x1", "x0 * x1", [ai, bi])


def quat_cases():
    for s in ("f32", "f64", "f16"):
        q, r = quat_inputs(s, 40), quat_inputs(s, 40)[::-1].copy()
        v = comps(Type(f"v3{s}"), 40)
        sc = np.resize(floats(s, 10), 40)
        t01 = rng.uniform(0, 1, 40).astype(SCALARS[s][1])
        Q, V = f"q{s}", f"v3{s}"
        case(f"qmul_{s}", [Q, Q], Q, "x0 * x1", "x0 * x1", [q, r])
        case(f"qadd_{s}", [Q, Q], Q, "x0 + x1", "x0 + x1", [q, r])
        case(f"qsub_{s}", [Q, Q], Q, "x0 - x1", "x0 - x1", [q, r])
        case(f"qneg_{s}", [Q], Q, "-x0", "-x0", [q])
        case(f"qmuls_{s}", [Q, s], Q, "x0 * x1", "x0 * x1", [q, sc])
        case(f"qsmul_{s}", [s, Q], Q, "x0 * x1", "x0 * x1", [sc, q])
        case(f"qdivs_{s}", [Q, s], Q, "x0 / x1", "x0 / x1", [q, sc])
        case(f"qsdiv_{s}", [s, Q], Q, "x0 / x1", "x0 / x1", [sc, q])
        case(f"qdot_{s}", [Q, Q], s, "wp.dot(x0, x1)", "kpy::dot(x0, x1)", [q, r])
        case(f"qlength_{s}", [Q], s, "wp.length(x0)", "kpy::length(x0)", [q])
        case(f"qlength_sq_{s}", [Q], s, "wp.length_sq(x0)", "kpy::length_sq(x0)", [q])
        case(f"qnormalize_{s}", [Q], Q, "wp.normalize(x0)", "kpy::normalize(x0)", [q])
        case(f"quat_inverse_{s}", [Q], Q, "wp.quat_inverse(x0)", "kpy::quat_inverse(x0)", [q])
        case(f"quat_from_axis_angle_{s}", [V, s], Q, "wp.quat_from_axis_angle(x0, x1)",
             "kpy::quat_from_axis_angle(x0, x1)", [v, sc])
        case(f"quat_to_axis_angle_{s}", [Q], f"v4{s}", "",
             "", [q], body=["ax, an = wp.quat_to_axis_angle(x0)", "r = " + Type(f"v4{s}").alias + "(ax[0], ax[1], ax[2], an)"],
             cpp_body=f"{Type(V).cpp} ax; {SCALARS[s][2]} an; kpy::quat_to_axis_angle(x0, ax, an); "
                      f"return {Type('v4' + s).cpp}(ax[0], ax[1], ax[2], an);", dtol=1e-4)
        case(f"quat_rotate_{s}", [Q, V], V, "wp.quat_rotate(x0, x1)", "kpy::quat_rotate(x0, x1)", [q, v])
        case(f"quat_rotate_inv_{s}", [Q, V], V, "wp.quat_rotate_inv(x0, x1)", "kpy::quat_rotate_inv(x0, x1)", [q, v])
        case(f"quat_slerp_{s}", [Q, Q, s], Q, "wp.quat_slerp(x0, x1, x2)", "kpy::quat_slerp(x0, x1, x2)",
             [unit_quats(s, 40), unit_quats(s, 40)[::-1].copy(), t01], dtol=1e-4)
        case(f"quat_to_matrix_{s}", [Q], f"m33{s}", "wp.quat_to_matrix(x0)", "kpy::quat_to_matrix(x0)", [q])
        m3, m4 = rot_mats(s, 20, 3), rot_mats(s, 20, 4)
        case(f"quat_from_matrix33_{s}", [f"m33{s}"], Q, "wp.quat_from_matrix(x0)", "kpy::quat_from_matrix(x0)", [m3], full=True)
        case(f"quat_from_matrix44_{s}", [f"m44{s}"], Q, "wp.quat_from_matrix(x0)", "kpy::quat_from_matrix(x0)", [m4], full=True)
        case(f"quat_rpy_{s}", [s, s, s], Q, "wp.quat_rpy(x0, x1, x2)", "kpy::quat_rpy(x0, x1, x2)",
             [sc, np.roll(sc, 3), np.roll(sc, 7)])
        case(f"qlerp_{s}", [Q, Q, s], Q, "wp.lerp(x0, x1, x2)", "kpy::lerp(x0, x1, x2)", [q, r, t01])
        case(f"qextract_{s}", [Q, "i32"], s, "x0[x1]", "x0[x1]", [q, np.resize(np.arange(-4, 4, dtype=np.int32), 40)])
        case(f"qinsert_{s}", [Q, "i32", s], Q, "", "kpy::insert(x0, x1, x2)",
             [q, np.resize(np.arange(-4, 4, dtype=np.int32), 40), sc], body=["r = x0", "r[x1] = x2"])
        case(f"quat_identity_{s}", [s], Q, f"wp.quat_identity(dtype={SCALARS[s][0]}) * x0",
             f"kpy::quat_identity<{Type(Q).cpp}>() * x0", [sc])
        case(f"quat_ctor_vw_{s}", [V, s], Q, f"{Type(Q).alias}(x0, x1)", f"{Type(Q).cpp}(x0, x1)", [v, sc])
        for f in ("isfinite", "isnan", "isinf"):
            case(f"q{f}_{s}", [Q], "bool", f"wp.{f}(x0)", f"kpy::{f}(x0)", [q])
    # Warp's Python helpers are float32 only
    q = quat_inputs("f32", 40)
    e = rng.uniform(-3, 3, (40, 3)).astype(np.float32)
    qe, ee16 = q[:16], e[:16]
    ax = comps(Type("v3f32"), 40, scale=1, special=False)
    ax /= np.linalg.norm(ax, axis=1, keepdims=True)
    case("quat_to_rpy_f32", ["qf32"], "v3f32", "wp.quat_to_rpy(x0)", "kpy::quat_to_rpy(x0)", [q], dtol=1e-4)
    seqs = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0),
            (0, 1, 0), (0, 2, 0), (1, 0, 1), (1, 2, 1), (2, 0, 2), (2, 1, 2)]
    n = 16 * len(seqs)
    ee = np.tile(ee16, (len(seqs), 1))
    qq = np.tile(qe, (len(seqs), 1))
    ii = np.repeat(np.array([s_[0] for s_ in seqs], dtype=np.int32), 16)
    jj = np.repeat(np.array([s_[1] for s_ in seqs], dtype=np.int32), 16)
    kk = np.repeat(np.array([s_[2] for s_ in seqs], dtype=np.int32), 16)
    assert len(ii) == n
    case("quat_from_euler_f32", ["v3f32", "i32", "i32", "i32"], "qf32", "wp.quat_from_euler(x0, x1, x2, x3)",
         "kpy::quat_from_euler(x0, x1, x2, x3)", [ee, ii, jj, kk], full=True)
    case("quat_to_euler_f32", ["qf32", "i32", "i32", "i32"], "v3f32", "wp.quat_to_euler(x0, x1, x2, x3)",
         "kpy::quat_to_euler(x0, x1, x2, x3)", [qq, ii, jj, kk], dtol=None, full=True)
    case("quat_twist_f32", ["v3f32", "qf32"], "qf32", "wp.quat_twist(x0, x1)", "kpy::quat_twist(x0, x1)", [ax, q])
    case("quat_twist_angle_f32", ["v3f32", "qf32"], "f32", "wp.quat_twist_angle(x0, x1)",
         "kpy::quat_twist_angle(x0, x1)", [ax, q], dtol=1e-4)
    case("quat_twist_angle_signed_f32", ["v3f32", "qf32"], "f32", "wp.quat_twist_angle_signed(x0, x1)",
         "kpy::quat_twist_angle_signed(x0, x1)", [ax, q], dtol=1e-4)


def xform_cases():
    for s in ("f32", "f64", "f16"):
        X, V, Q, M = f"x{s}", f"v3{s}", f"q{s}", f"m44{s}"
        a, b = xforms(s, 40), xforms(s, 40)[::-1].copy()
        v = comps(Type(V), 40)
        sc = np.resize(floats(s, 10), 40)
        t01 = rng.uniform(0, 1, 40).astype(SCALARS[s][1])
        case(f"transform_point_{s}", [X, V], V, "wp.transform_point(x0, x1)", "kpy::transform_point(x0, x1)", [a, v])
        case(f"transform_vector_{s}", [X, V], V, "wp.transform_vector(x0, x1)", "kpy::transform_vector(x0, x1)", [a, v])
        case(f"transform_multiply_{s}", [X, X], X, "wp.transform_multiply(x0, x1)", "kpy::transform_multiply(x0, x1)", [a, b])
        case(f"xmul_{s}", [X, X], X, "x0 * x1", "x0 * x1", [a, b])
        case(f"transform_inverse_{s}", [X], X, "wp.transform_inverse(x0)", "kpy::transform_inverse(x0)", [a])
        case(f"xadd_{s}", [X, X], X, "x0 + x1", "x0 + x1", [a, b])
        case(f"xsub_{s}", [X, X], X, "x0 - x1", "x0 - x1", [a, b])
        case(f"xmuls_{s}", [X, s], X, "x0 * x1", "x0 * x1", [a, sc])
        case(f"xsmul_{s}", [s, X], X, "x0 * x1", "x0 * x1", [sc, a])
        case(f"xlerp_{s}", [X, X, s], X, "wp.lerp(x0, x1, x2)", "kpy::lerp(x0, x1, x2)", [a, b, t01])
        case(f"transform_get_translation_{s}", [X], V, "wp.transform_get_translation(x0)",
             "kpy::transform_get_translation(x0)", [a])
        case(f"transform_get_rotation_{s}", [X], Q, "wp.transform_get_rotation(x0)", "kpy::transform_get_rotation(x0)", [a])
        case(f"transform_set_translation_{s}", [X, V], X, "", "kpy::transform_set_translation(x0, x1)", [a, v],
             body=["r = x0", "wp.transform_set_translation(r, x1)"])
        case(f"transform_set_rotation_{s}", [X, Q], X, "", "kpy::transform_set_rotation(x0, x1)",
             [a, quat_inputs(s, 40)], body=["r = x0", "wp.transform_set_rotation(r, x1)"])
        case(f"transform_to_matrix_{s}", [X], M, "wp.transform_to_matrix(x0)", "kpy::transform_to_matrix(x0)", [a])
        m4 = rot_mats(s, 20, 4)
        case(f"transform_from_matrix_{s}", [M], X, "wp.transform_from_matrix(x0)", "kpy::transform_from_matrix(x0)", [m4], full=True)
        scale = np.abs(comps(Type(V), 40, special=False)) + 0.5
        scale[0] = 0
        case(f"transform_compose_{s}", [V, Q, V], M, "wp.transform_compose(x0, x1, x2)",
             "kpy::transform_compose(x0, x1, x2)", [v, quat_inputs(s, 40), scale.astype(SCALARS[s][1])])
        comp = []
        for i in range(30):
            m = np.eye(4)
            m[:3, :3] = rot_mats("f64", 1, 3)[0] @ np.diag(np.abs(rng.normal(1, 0.5, 3)) + 0.1)
            m[:3, 3] = rng.normal(0, 3, 3)
            comp.append(m)
        comp += list(m4)
        comp = np.array(comp).astype(SCALARS[s][1])
        case(f"transform_decompose_{s}", [M], "m34" + s, "", "", [comp],
             body=["p, q, sc = wp.transform_decompose(x0)",
                   f"r = {Type('m34' + s).alias}(p[0], p[1], p[2], q[0], q[1], q[2], q[3], sc[0], sc[1], sc[2], "
                   f"{SCALARS[s][0]}(0.0), {SCALARS[s][0]}(0.0))"],
             cpp_body=f"{Type(V).cpp} p, sc; {Type(Q).cpp} q; kpy::transform_decompose(x0, p, q, sc); "
                      f"{SCALARS[s][2]} z(0); return {Type('m34' + s).cpp}(p[0], p[1], p[2], q[0], q[1], q[2], q[3], "
                      "sc[0], sc[1], sc[2], z, z);", dtol=1e-4, full=True)
        case(f"xextract_{s}", [X, "i32"], s, "x0[x1]", "x0[x1]", [a, np.resize(np.arange(-7, 7, dtype=np.int32), 40)])
        case(f"xinsert_{s}", [X, "i32", s], X, "", "kpy::insert(x0, x1, x2)",
             [a, np.resize(np.arange(-7, 7, dtype=np.int32), 40), sc], body=["r = x0", "r[x1] = x2"])
        case(f"xctor_p_{s}", [V], X, f"{Type(X).alias}(x0)", f"{Type(X).cpp}(x0)", [v])
        case(f"xctor_fill_{s}", [s], X, f"{Type(X).alias}(x0)", f"{Type(X).cpp}(x0)", [sc])
        case(f"xctor7_{s}", [X], X, f"{Type(X).alias}(x0[0], x0[1], x0[2], x0[3], x0[4], x0[5], x0[6])",
             f"{Type(X).cpp}(x0[0], x0[1], x0[2], x0[3], x0[4], x0[5], x0[6])", [a])
        case(f"transform_identity_{s}", [X], X, f"wp.transform_identity(dtype={SCALARS[s][0]}) * x0",
             f"kpy::transform_identity<{Type(X).cpp}>() * x0", [a])
        # spatial
        S6, M3 = f"v6{s}", f"m33{s}"
        w, u = comps(Type(S6), 40), comps(Type(S6), 40)
        case(f"spatial_top_{s}", [S6], V, "wp.spatial_top(x0)", "kpy::spatial_top(x0)", [w])
        case(f"spatial_bottom_{s}", [S6], V, "wp.spatial_bottom(x0)", "kpy::spatial_bottom(x0)", [w])
        case(f"spatial_cross_{s}", [S6, S6], S6, "wp.spatial_cross(x0, x1)", "kpy::spatial_cross(x0, x1)", [w, u])
        case(f"spatial_cross_dual_{s}", [S6, S6], S6, "wp.spatial_cross_dual(x0, x1)",
             "kpy::spatial_cross_dual(x0, x1)", [w, u])
        case(f"spatial_dot_{s}", [S6, S6], s, "wp.spatial_dot(x0, x1)", "kpy::spatial_dot(x0, x1)", [w, u])
        case(f"spatial_adjoint_{s}", [M3, M3], f"m66{s}", "wp.spatial_adjoint(x0, x1)", "kpy::spatial_adjoint(x0, x1)",
             [matrices(s, 40, 3, 3), matrices(s, 40, 3, 3)])
        if s == "f32":  # Warp 1.19 rejects spatial_vector(w, v) for f64/f16 in kernels
            case(f"spatial_ctor_{s}", [V, V], S6, "wp.spatial_vector(x0, x1)", f"{Type(S6).cpp}(x0, x1)",
                 [v, comps(Type(V), 40)])
            case("transform_twist_f32", [X, S6], S6, "wp.transform_twist(x0, x1)", "kpy::transform_twist(x0, x1)", [a, w])
            case("transform_wrench_f32", [X, S6], S6, "wp.transform_wrench(x0, x1)", "kpy::transform_wrench(x0, x1)", [a, w])
            case("velocity_at_point_f32", [S6, V], V, "wp.velocity_at_point(x0, x1)", "kpy::velocity_at_point(x0, x1)",
                 [w, v])


def draws(n, call, ret_alias, cpp_ret):
    """A kernel body drawing n values with call(s) from state s = x0."""
    body = ["s = wp.uint32(x0)"] + [f"d{i} = {call}" for i in range(n)]
    body.append(f"r = {ret_alias}(" + ", ".join(f"d{i}" for i in range(n)) + ")")
    cpp = "kpy::u32 s = x0; " + " ".join(f"auto d{i} = kpy::{call.replace('wp.', '')};" for i in range(n))
    cpp += f" return {cpp_ret}(" + ", ".join(f"d{i}" for i in range(n)) + ");"
    return body, cpp


def rand_cases():
    sd = seeds(64)
    off = np.roll(sd, 5)
    case("rand_init1", ["i32"], "u32", "wp.rand_init(x0)", "kpy::rand_init(x0)", [sd], dtol=0)
    case("rand_init2", ["i32", "i32"], "u32", "wp.rand_init(x0, x1)", "kpy::rand_init(x0, x1)", [sd, off], dtol=0)
    st = np.array([int(v) & 0xffffffff for v in sd], dtype=np.uint32)
    N = 8
    specs = [
        ("randi", "wp.randi(s)", "i32"),
        ("randi_range", "wp.randi(s, -7, 100)", "i32"),
        ("randi_range_neg", "wp.randi(s, -1000000, -999)", "i32"),
        ("randu", "wp.randu(s)", "u32"),
        ("randu_range", "wp.randu(s, wp.uint32(5), wp.uint32(4000000000))", "u32"),
        ("randf", "wp.randf(s)", "f32"),
        ("randf_range", "wp.randf(s, -2.5, 7.25)", "f32"),
        ("randn", "wp.randn(s)", "f32"),
        ("poisson_small", "wp.poisson(s, 3.5)", "u32"),
        ("poisson_zero", "wp.poisson(s, 0.0)", "u32"),
        ("poisson_large", "wp.poisson(s, 27.0)", "u32"),
        ("poisson_huge", "wp.poisson(s, 1000.0)", "u32"),
    ]
    for name, call, rt in specs:
        t = Type(f"v{N}{rt}")
        call_cpp = call.replace("wp.uint32(5)", "5u").replace("wp.uint32(4000000000)", "4000000000u")
        body, cpp = draws(N, call, t.alias, t.cpp)
        cpp = cpp.replace(call.replace("wp.", ""), call_cpp.replace("wp.", ""))
        if rt == "f32":
            cpp = cpp.replace("(s, -2.5, 7.25)", "(s, kpy::f32(-2.5), kpy::f32(7.25))")
        case(name, ["u32"], t.name, "", "", [st], body=body, cpp_body=cpp, dtol=0)
    for name, rt, n in (("sample_triangle", "f32", 2), ("sample_unit_ring", "f32", 2), ("sample_unit_disk", "f32", 2),
                        ("sample_unit_square", "f32", 2), ("sample_unit_sphere_surface", "f32", 3),
                        ("sample_unit_sphere", "f32", 3), ("sample_unit_hemisphere_surface", "f32", 3),
                        ("sample_unit_hemisphere", "f32", 3), ("sample_unit_cube", "f32", 3)):
        t = Type(f"m4{n}{rt}")
        body = ["s = wp.uint32(x0)"] + [f"d{i} = wp.{name}(s)" for i in range(4)]
        body.append("r = wp.matrix_from_rows(d0, d1, d2, d3)")
        cpp = "kpy::u32 s = x0; " + " ".join(f"auto d{i} = kpy::{name}(s);" for i in range(4))
        cpp += f" return kpy::matrix_from_rows<{t.cpp}>(d0, d1, d2, d3);"
        case(name, ["u32"], t.name, "", "", [st], body=body, cpp_body=cpp, dtol=0)
    # noise
    for n, V in ((1, "f32"), (2, "v2f32"), (3, "v3f32"), (4, "v4f32")):
        T = Type(V)
        x = (rng.normal(0, 4, (80,) + T.shape)).astype(np.float32)
        if n == 1:
            x[:6] = [0.0, 1.0, -1.0, 0.5, -2.25, 100.75]
        s80 = np.resize(st, 80)
        case(f"noise_{n}d", ["u32", V], "f32", "wp.noise(x0, x1)", "kpy::noise(x0, x1)", [s80, x], dtol=1e-4, full=True)
        per = ["i32"] * n
        pv = [np.resize(np.array([1, 2, 3, 5, 8], dtype=np.int32), 80) for _ in range(n)]
        pargs = ", ".join(f"x{i + 2}" for i in range(n))
        case(f"pnoise_{n}d", ["u32", V] + per, "f32", f"wp.pnoise(x0, x1, {pargs})", f"kpy::pnoise(x0, x1, {pargs})",
             [s80, x] + pv, dtol=1e-4, full=True)
        if n >= 2:
            R = "v2f32" if n == 2 else "v3f32"
            case(f"curlnoise_{n}d", ["u32", V], R, "wp.curlnoise(x0, x1)", "kpy::curlnoise(x0, x1)", [s80, x], dtol=1e-3, full=True)
            oc = np.resize(np.array([1, 2, 3, 4], dtype=np.uint32), 80)
            lac = rng.uniform(1.5, 2.5, 80).astype(np.float32)
            gain = rng.uniform(0.3, 0.7, 80).astype(np.float32)
            case(f"curlnoise_oct_{n}d", ["u32", V, "u32", "f32", "f32"], R, "wp.curlnoise(x0, x1, x2, x3, x4)",
                 "kpy::curlnoise(x0, x1, x2, x3, x4)", [s80, x, oc, lac, gain], dtol=1e-3, full=True)


def decomp_cases():
    """svd3, svd2, qr3, eig3: every output of one call packed into the rows
    of one matrix.  With KPY_F32_DOUBLE the f32 decompositions run in double
    (8 Jacobi sweeps instead of 4, as Warp's float64), so where the factors
    are not unique (repeated singular values or eigenvalues, rank
    deficiency) they differ from Warp's float ones: those inputs are cases
    of their own, compared in float only (dtol None); the values (sigma, d)
    are compared in both modes on every input.  (f16 and f64 do not change
    with KPY_F32_DOUBLE: compared bit for bit in both modes.)"""
    for s in FLOATS:
        S, dt = SCALARS[s][2], SCALARS[s][1]
        nodbl = None if s == "f32" else 1e-4
        m33, v3, m22, v2 = Type(f"m33{s}").cpp, Type(f"v3{s}").cpp, Type(f"m22{s}").cpp, Type(f"v2{s}").cpp
        gen = matrices(s, 34, 3, 3)
        # zero, identity, rank 1, tiny, one NaN (the sweeps then take their
        # fixed fallback angle, so V depends on their number)
        gen3, spec3 = gen[5:], gen[:5]
        degen3 = np.concatenate([spec3.astype(np.float64), rot_mats("f64", 4)[:6],
                                 [np.diag([2.0, 2.0, -1.0]), np.diag([3.0, -3.0, 3.0]),
                                  np.outer([1.0, 2.0, -1.0], [0.5, 1.0, 3.0]),
                                  [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]).astype(dt)
        rows3 = "U[0], U[1], U[2], sg, V[0], V[1], V[2]"
        body3 = ["U, sg, V = wp.svd3(x0)", f"r = wp.matrix_from_rows({rows3})"]
        cpp3 = (f"{m33} U, V; {v3} sg; kpy::svd3(x0, U, sg, V); "
                f"return kpy::mat_t<7, 3, {S}>({rows3});")
        case(f"svd3_{s}", [f"m33{s}"], f"m73{s}", "", "", [gen3], body=body3, cpp_body=cpp3, full=True)
        case(f"svd3_degenerate_{s}", [f"m33{s}"], f"m73{s}", "", "", [degen3], body=body3, cpp_body=cpp3,
             dtol=nodbl, full=True)
        case(f"svd3_sigma_{s}", [f"m33{s}"], f"v3{s}", "", "", [degen3],
             body=["U, sg, V = wp.svd3(x0)", "r = sg"],
             cpp_body=f"{m33} U, V; {v3} sg; kpy::svd3(x0, U, sg, V); return sg;", full=True)

        a2 = matrices(s, 40, 2, 2)
        a2[5] = [[3, 0], [0, 3]]  # repeated singular values (discriminant 0)
        a2[6] = [[0, -2], [2, 0]]  # a scaled rotation, the same
        a2[7] = [[1, 2], [2, 4]]  # rank 1
        a2[8] = [[-1, 0], [0, 2]]  # det < 0
        rows2 = "U[0], U[1], sg, V[0], V[1]"
        case(f"svd2_{s}", [f"m22{s}"], f"m52{s}", "", "", [a2],
             body=["U, sg, V = wp.svd2(x0)", f"r = wp.matrix_from_rows({rows2})"],
             cpp_body=f"{m22} U, V; {v2} sg; kpy::svd2(x0, U, sg, V); "
                      f"return kpy::mat_t<5, 2, {S}>({rows2});", full=True)

        rowsq = "Q[0], Q[1], Q[2], R[0], R[1], R[2]"
        bodyq = ["Q, R = wp.qr3(x0)", f"r = wp.matrix_from_rows({rowsq})"]
        cppq = f"{m33} Q, R; kpy::qr3(x0, Q, R); return kpy::mat_t<6, 3, {S}>({rowsq});"
        full3 = np.concatenate([gen[:2], gen[3:]])  # all but the rank-1 one
        rankdef = np.array([np.ones((3, 3)), np.outer([1.0, 2.0, -1.0], [0.5, 1.0, 3.0]),
                            [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
                            [[0.0, 1.0, 2.0], [0.0, 3.0, 4.0], [0.0, 5.0, 6.0]]]).astype(dt)
        case(f"qr3_{s}", [f"m33{s}"], f"m63{s}", "", "", [full3], body=bodyq, cpp_body=cppq, full=True)
        case(f"qr3_rank_deficient_{s}", [f"m33{s}"], f"m63{s}", "", "", [rankdef], body=bodyq, cpp_body=cppq,
             dtol=nodbl, full=True)

        sym = rng.normal(0, 2, (34, 3, 3))
        sym = (sym + np.transpose(sym, (0, 2, 1))).astype(dt)
        sym[30:] = rng.normal(0, 2, (4, 3, 3))  # not symmetric: the lower triangle is the matrix
        rep = np.array([np.zeros((3, 3)), np.eye(3), np.diag([1.0, 1.0, 2.0]), np.diag([3.0, -1.0, 3.0]),
                        np.ones((3, 3))]).astype(dt)
        rowse = "Q[0], Q[1], Q[2], d"
        bodye = ["Q, d = wp.eig3(x0)", f"r = wp.matrix_from_rows({rowse})"]
        cppe = f"{m33} Q; {v3} d; kpy::eig3(x0, Q, d); return kpy::mat_t<4, 3, {S}>({rowse});"
        case(f"eig3_{s}", [f"m33{s}"], f"m43{s}", "", "", [sym], body=bodye, cpp_body=cppe, full=True)
        case(f"eig3_repeated_{s}", [f"m33{s}"], f"m43{s}", "", "", [rep], body=bodye, cpp_body=cppe,
             dtol=nodbl, full=True)
        case(f"eig3_values_{s}", [f"m33{s}"], f"v3{s}", "", "", [rep],
             body=["Q, d = wp.eig3(x0)", "r = d"],
             cpp_body=f"{m33} Q; {v3} d; kpy::eig3(x0, Q, d); return d;", full=True)

def build_cases():
    scalar_float_cases()
    scalar_int_cases()
    cast_cases()
    vec_cases()
    mat_cases()
    quat_cases()
    xform_cases()
    rand_cases()
    decomp_cases()  # last: the cases above keep their random inputs


# ---------------------------------------------------------------------------
# print()

PRINTS = [
    # (Warp expression, kpy expression)
    ("wp.float32(0.1)", "kpy::f32(0.1f)"),
    ("wp.float32(-0.0)", "kpy::f32(-0.0f)"),
    ("wp.float32(123456789.0)", "kpy::f32(123456789.0f)"),
    ("wp.float32(1e-7)", "kpy::f32(1e-7f)"),
    ("wp.float32(wp.inf)", "kpy::f32(1.0f / 0.0f)"),
    ("wp.float64(0.1)", "kpy::f64(0.1)"),
    ("wp.float64(2.5e300)", "kpy::f64(2.5e300)"),
    ("wp.float16(0.1)", "kpy::f16(0.1f)"),
    ("wp.float16(65504.0)", "kpy::f16(65504.0f)"),
    ("wp.int8(-5)", "kpy::i8(-5)"),
    ("wp.int16(-300)", "kpy::i16(-300)"),
    ("wp.int32(-2147483647)", "kpy::i32(-2147483647)"),
    ("wp.int64(-5000000000)", "kpy::i64(-5000000000LL)"),
    ("wp.uint8(250)", "kpy::u8(250)"),
    ("wp.uint16(65535)", "kpy::u16(65535)"),
    ("wp.uint32(wp.uint32(4000000000))", "kpy::u32(4000000000u)"),
    ("wp.uint64(wp.uint64(18446744073709551615))", "kpy::u64(18446744073709551615ull)"),
    ("True", "true"),
    ("False", "false"),
    ("wp.vec3(1.5, -2.0, 1e10)", "kpy::vec3f(1.5f, -2.0f, 1e10f)"),
    ("wp.vec2d(0.1, 0.2)", "kpy::vec2d(0.1, 0.2)"),
    ("wp.vec4h(wp.float16(1.5), wp.float16(2.0), wp.float16(-0.5), wp.float16(0.0))",
     "kpy::vec4h(kpy::f16(1.5f), kpy::f16(2.0f), kpy::f16(-0.5f), kpy::f16(0.0f))"),
    ("wp.vec3i(1, -2, 3)", "kpy::vec3i(1, -2, 3)"),
    ("wp.vec2ul(wp.uint64(123456789012), wp.uint64(1))", "kpy::vec2ul(123456789012ull, 1ull)"),
    ("wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)", "kpy::spatial_vectorf(1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f)"),
    ("wp.mat22(1.0, 2.0, 3.0, 4.0)", "kpy::mat22f(1.0f, 2.0f, 3.0f, 4.0f)"),
    ("wp.mat33d(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.5)",
     "kpy::mat33d(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.5)"),
    ("wp.quat(0.0, 0.0, 0.0, 1.0)", "kpy::quatf(0.0f, 0.0f, 0.0f, 1.0f)"),
    ("wp.quatd(0.5, -0.5, 0.5, -0.5)", "kpy::quatd(0.5, -0.5, 0.5, -0.5)"),
    ("wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0))",
     "kpy::transformf(kpy::vec3f(1.0f, 2.0f, 3.0f), kpy::quatf(0.0f, 0.0f, 0.0f, 1.0f))"),
    ('"hello"', '"hello"'),
]


# ---------------------------------------------------------------------------
# Code generation

def kernel_source(cases):
    lines = ["import warp as wp", ""]
    types = {}
    for c in cases:
        for t in c["args"] + [c["ret"]]:
            types[t.name] = t
    for t in types.values():
        lines.append(f"{t.alias} = {t.warp}")
    lines.append("")
    for i, c in enumerate(cases):
        params = ", ".join(f"a{k}: wp.array(dtype={t.alias})" for k, t in enumerate(c["args"]))
        lines.append("@wp.kernel")
        lines.append(f"def k{i}({params}, out: wp.array(dtype={c['ret'].alias})):")
        lines.append("    i = wp.tid()")
        for k in range(len(c["args"])):
            lines.append(f"    x{k} = a{k}[i]")
        if c["body"]:
            for b in c["body"]:
                lines.append("    " + b)
            lines.append("    out[i] = r")
        else:
            lines.append(f"    out[i] = {c['expr']}")
        lines.append("")
    lines.append("@wp.kernel")
    lines.append("def kprint():")
    lines.append('    wp.printf("KPY-PRINT-BEGIN\\n")')
    for w, _ in PRINTS:
        lines.append(f"    print({w})")
    lines.append('    wp.printf("KPY-PRINT-END\\n")')
    return "\n".join(lines) + "\n"


def cpp_source(cases):
    out = ["/* cases.inc -- generated by gen_ref.py; do not edit. */"]
    for c in cases:
        params = ", ".join(f"{t.cpp} x{k}" for k, t in enumerate(c["args"]))
        targs = ", ".join([c["ret"].cpp] + [t.cpp for t in c["args"]])
        body = c["cpp_body"] if c["cpp_body"] else f"return exact<{c['ret'].cpp}>({c['cpp']});"
        out.append(f'KPY_CASE("{c["name"]}", ({targs}), ({params}) -> {c["ret"].cpp} {{ {body} }})')
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "ref"))
    ap.add_argument("--only", help="regular expression: keep matching case names (debugging)")
    opts = ap.parse_args()

    build_cases()
    cases = CASES
    if opts.only:
        cases = [c for c in cases if re.search(opts.only, c["name"])]
    names = [c["name"] for c in cases]
    assert len(set(names)) == len(names), "duplicate case names"

    import warp as wp

    wp.config.quiet = True
    wp.config.enable_backward = False
    wp.init()

    tmp = tempfile.mkdtemp(prefix="kpy_ref_")
    src = kernel_source(cases)
    with open(os.path.join(tmp, "kpy_ref_kernels.py"), "w") as f:
        f.write(src)
    sys.path.insert(0, tmp)
    mod = importlib.import_module("kpy_ref_kernels")

    os.makedirs(opts.o, exist_ok=True)
    text = []
    for i, c in enumerate(cases):
        n = len(c["inputs"][0])
        assert all(len(x) == n for x in c["inputs"]), c["name"]
        arrs = []
        for t, x in zip(c["args"], c["inputs"]):
            arrs.append(wp.array(np.ascontiguousarray(np.asarray(x, dtype=t.np)), dtype=getattr(mod, t.alias), device="cpu"))
        out = wp.zeros(n, dtype=getattr(mod, c["ret"].alias), device="cpu")
        wp.launch(getattr(mod, f"k{i}"), dim=n, inputs=arrs + [out], device="cpu")
        res = out.numpy()
        dtol = "none" if c["dtol"] is None else repr(c["dtol"])
        sig = " ".join(t.name for t in c["args"]) + " -> " + c["ret"].name
        text.append(f"case {c['name']} tol {c['tol']} dtol {dtol} rows {n} sig {sig}")
        for r in range(n):
            a = []
            for t, x in zip(c["args"], c["inputs"]):
                a += fmt_comps(t, np.asarray(x, dtype=t.np)[r])
            text.append(" ".join(a) + " | " + " ".join(fmt_comps(c["ret"], res[r])))
    with open(os.path.join(opts.o, "ref.txt"), "w") as f:
        f.write("\n".join(text) + "\n")
    with open(os.path.join(opts.o, "cases.inc"), "w") as f:
        f.write(cpp_source(cases))

    # print(): run in a child process so that C stdout can be captured
    child = ("import sys; sys.path.insert(0, %r); import warp as wp; wp.config.quiet = True; "
             "wp.config.enable_backward = False; import kpy_ref_kernels as m; "
             "wp.launch(m.kprint, dim=1, inputs=[], device='cpu'); wp.synchronize()" % tmp)
    p = subprocess.run([sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    o = p.stdout.decode()
    o = o[o.index("KPY-PRINT-BEGIN\n") + len("KPY-PRINT-BEGIN\n"): o.index("KPY-PRINT-END\n")]
    with open(os.path.join(opts.o, "print.txt"), "w") as f:
        f.write(o)
    with open(os.path.join(opts.o, "prints.inc"), "w") as f:
        f.write("/* prints.inc -- generated by gen_ref.py; do not edit. */\n")
        for _, k in PRINTS:
            f.write(f"kpy::print({k});\n")
    print(f"{len(cases)} cases, {sum(len(c['inputs'][0]) for c in cases)} rows -> {opts.o}", file=sys.stderr)


if __name__ == "__main__":
    main()
