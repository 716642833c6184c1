#!/usr/bin/env python3
"""warpdiff — run the same kernels in NVIDIA Warp and through kpy, compare.

For every kernel of every module given, with a seed:
  1. make the inputs (.npy): every array parameter shaped like the launch
     (plus the trailing dims of vector/matrix element types), floats uniform
     in [-1, 1], signed ints in [-8, 8], unsigned ints in [0, 8]; every
     scalar parameter drawn from the same ranges (the conventions kgen
     generates kernels for);
  2. run the kernel in Warp on the CPU, forward, and — with --grad, for
     kernels whose backward Warp computes exactly — backward with seeded
     adjoints for every array;
  3. run it through kpyc | kopt [-p ad] | kcpu | krun with the same inputs;
  4. compare every array after the forward pass, and the adjoints of the
     arrays the kernel only reads, with tolerances per dtype: exact for
     integers and bools, rtol/atol 1e-5/1e-6 for f32 (1e-4 for
     transcendental-heavy kernels is NOT granted: mismatches are bugs),
     1e-12 for f64, 2e-3 for f16.  A gradient that differs from Warp's is
     accepted as rounding only when central finite differences in double
     precision (krun --gradcheck, which uses none of kpy's derivative rules)
     confirm kpy's double-precision gradient and kpy's float gradient is as
     close to that as Warp's is (referee()).

Modules are compiled by kpy in one batch (all modules → one kir module → one
C++ file) so the suite stays fast.

  warpdiff.py [--seed S] [--dim N] [--grad] [--bin DIR] [--work DIR]
              [--report FILE] MODULE.py...

Exit status: 0 when every compared kernel agrees, 1 on any mismatch, 2 on
a usage or setup error.  Prints one TAP line per kernel.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
import typing

import numpy as np

os.environ.setdefault("WARP_CACHE_PATH", os.path.join(tempfile.gettempdir(), "kpy-warp-cache"))
import warp as wp  # noqa: E402
from warp._src import types as wpt  # noqa: E402  (dtype tables; stable across 1.x)

wp.config.quiet = True
wp.config.verbose = False
# Warp unrolls static loops of up to max_unroll trips, and only unrolled loops
# have exact adjoints in Warp (a dynamic loop's backward does not replay its
# carried values).  The reference unrolls more than Warp's default (16), so
# that Warp's gradients are an oracle for more kernels; the forward is the
# same code either way.
WARP_MAX_UNROLL = 64
wp.config.max_unroll = WARP_MAX_UNROLL

TOL = {  # dtype kind -> (rtol, atol)
    "f2": (2e-3, 2e-3),
    "f4": (1e-5, 1e-6),
    "f8": (1e-12, 1e-14),
    # bfloat16 (8 significant bits, so neighbours differ by 2^-8 relative
    # or more): a forward result rounded alike agrees to the bit; adjoints
    # summed in another order differ by a few units of the last place of
    # their O(1) terms
    "bf16": (2.0**-10, 0.0),
    "adj bf16": (2.0**-6, 2.0**-6),
}

META = re.compile(r"^# kgen: .*\bkernel=(\w+).*\bdim=([0-9,]+)", re.M)
# A launch spec: "# warpdiff: kernel=NAME {json}" with the launch's "dim",
# and "shapes", "ints", "set" for make_inputs().
SPEC = re.compile(r"^# warpdiff: kernel=(\w+) (\{.*\})$", re.M)


def load_module(path, idx):
    """Import a .py file as a fresh module (Warp registers its kernels)."""
    name = "warpdiff_m%d_%s" % (idx, re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def kernels_of(mod):
    # an overload object (k_f32 = wp.overload(k, ...)) is run with its kernel
    return [v for v in vars(mod).values() if isinstance(v, wp.Kernel) and getattr(v, "generic_parent", None) is None]


def instances(k, kir, kname):
    """[(Warp kernel, kir kernel name)] to compare: the kernel itself, or
    for a generic kernel its overloads, in declaration order, as kpyc
    names them (NAME__ and the mangled argument types, same order);
    raises ValueError when the two lists do not pair up (kpyc dropped or
    invented an overload)."""
    if not getattr(k, "is_generic", False):
        return [(k, kname)]
    names = re.findall(r"^kernel @(%s__\w+)\((.*?)\) \{" % re.escape(kname), kir, re.M)
    ovls = list(k.overloads.values())
    if len(names) != len(ovls):
        raise ValueError("generic kernel: Warp has %d overloads, kpyc %d" % (len(ovls), len(names)))
    out = []
    for o, (n, params) in zip(ovls, names):
        kp = [p.split(": ", 1)[1] for p in split_args(params)] if params.strip() else []
        if len(kp) != len(o.adj.args) or any(
                wp.types.is_array(a.type) != t.startswith("array<") or
                (wp.types.is_array(a.type) and not t.endswith(",%d>" % a.type.ndim)) for a, t in zip(o.adj.args, kp)):
            raise ValueError("generic kernel: overload %s does not match kpyc's %s" % (o.sig, n))
        out.append((o, n))
    return out


# NumPy has no bfloat16 (Warp's .numpy() gives its bits as uint16, or an
# ml_dtypes array): the harness holds bfloat16 data as float32 values that
# bfloat16 represents exactly, marked by this dtype's metadata.  Warp rounds
# them in (exact) and they are widened back out; krun reads the float32
# .npy into its bf16 array (exact) and writes bf16 outputs as float32.
BF16 = np.dtype(np.float32, metadata={"bf16": True})


def bf16_round(x):
    """float32 values rounded to bfloat16 (nearest even, Warp's converter)."""
    return wpt._np_bfloat16_bits_to_float32(wpt._np_float32_to_bfloat16_bits(np.asarray(x, dtype=np.float32))).astype(BF16)


def is_bf16(npdt):
    return bool(npdt is not None and npdt.metadata and npdt.metadata.get("bf16"))


def warp_numpy(a):
    """A Warp array's contents, bfloat16 widened to float32."""
    scal = getattr(a.dtype, "_wp_scalar_type_", a.dtype)
    x = a.numpy(_suppress_bfloat16_warning=True) if scal is wp.bfloat16 else a.numpy()
    if scal is wp.bfloat16:
        x = (x.astype(np.float32) if x.dtype != np.uint16 else wpt._np_bfloat16_bits_to_float32(x)).astype(BF16)
    return x.copy()


def save_npy(path, a):
    """np.save, bfloat16 data as plain float32 (dtype metadata is not saved)."""
    np.save(path, a.astype(np.float32) if is_bf16(a.dtype) else a)


def scalar_np(t):
    """numpy dtype of a Warp scalar type."""
    if t is wp.bfloat16:
        return BF16
    return np.dtype(wpt.warp_type_to_np_dtype[t])


def elem_info(dtype):
    """(numpy scalar dtype, trailing shape) of a Warp array element type."""
    if wp.types.type_is_vector(dtype) or wp.types.type_is_quaternion(dtype) or wp.types.type_is_transformation(dtype):
        return scalar_np(dtype._wp_scalar_type_), (dtype._length_,)
    if wp.types.type_is_matrix(dtype):
        return scalar_np(dtype._wp_scalar_type_), tuple(dtype._shape_)
    if dtype is bool or dtype == wp.bool:
        return np.dtype(np.bool_), ()
    return scalar_np({int: wp.int32, float: wp.float32}.get(dtype, dtype)), ()


def random_values(rng, npdt, shape):
    if is_bf16(npdt):
        return bf16_round(rng.uniform(-1.0, 1.0, size=shape))
    if npdt.kind == "f":
        return rng.uniform(-1.0, 1.0, size=shape).astype(npdt)
    if npdt.kind == "i":
        return rng.integers(-8, 9, size=shape).astype(npdt)
    if npdt.kind == "u":
        return rng.integers(0, 9, size=shape).astype(npdt)
    if npdt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(npdt)
    raise TypeError("unsupported dtype %s" % npdt)


def fmt_scalar(v, npdt):
    if isinstance(v, np.ndarray) and v.ndim:  # a vector, matrix or quaternion: its components
        return ",".join(fmt_scalar(x, npdt) for x in v.flatten())
    if npdt.kind == "f":
        return repr(float(v))
    if npdt.kind == "b":
        return "1" if v else "0"
    return str(int(v))


class Skip(Exception):
    pass


class StructValues(dict):
    """The fields of a struct parameter: {"field.sub": (value, numpy dtype, Warp type)}."""


def struct_values(rng, t, label, prefix=""):
    out = StructValues()
    for name, var in t.vars.items():
        ft = var.type
        if type(ft).__name__ == "Struct":
            out.update(struct_values(rng, ft, label, prefix + name + "."))
        elif wp.types.type_is_vector(ft) or wp.types.type_is_matrix(ft) or wp.types.type_is_quaternion(ft):
            npdt, tail = elem_info(ft)
            out[prefix + name] = (random_values(rng, npdt, tail), npdt, ft)
        elif ft in wpt.scalar_types or ft is int or ft is float or ft is bool or ft == wp.bool:
            wt = {int: wp.int32, float: wp.float32, bool: wp.bool}.get(ft, ft)
            npdt = np.dtype(np.bool_) if wt == wp.bool else scalar_np(wt)
            out[prefix + name] = (random_values(rng, npdt, ())[()], npdt, wt)
        else:
            raise Skip("parameter %s: struct field %s%s of type %s is not supported by the harness" % (
                label, prefix, name, getattr(ft, "__name__", type(ft).__name__)))
    return out


def warp_value(v, npdt, wt):
    """A Python/Warp value for a scalar, vector, matrix or quaternion."""
    if isinstance(v, np.ndarray) and v.ndim:
        return wt(*v.flatten().tolist())
    return wt(v.item()) if wt not in (wp.bool,) else bool(v)


def struct_instance(t, fields):
    inst = t()
    for path, (v, npdt, wt) in fields.items():
        obj, parts = inst, path.split(".")
        for p in parts[:-1]:
            obj = getattr(obj, p)
        setattr(obj, parts[-1], warp_value(v, npdt, wt))
    return inst


def make_inputs(kernel, dim, seed, spec=None):
    """Seeded inputs for every parameter: {name: ndarray} and {name: scalar}.
    A launch spec (see SPEC) may give an array's extents ("shapes"), the
    range [lo, hi] of an integer array's or scalar's values ("ints"), and a
    scalar's value ("set"); otherwise arrays are shaped like the launch."""
    spec = spec or {}
    shapes, ints, sets = spec.get("shapes", {}), spec.get("ints", {}), spec.get("set", {})
    h = int(hashlib.sha256(("%s:%d" % (kernel.key, seed)).encode()).hexdigest()[:12], 16)
    rng = np.random.default_rng(h)
    arrays, scalars = {}, {}
    for arg in kernel.adj.args:
        t = arg.type
        if wp.types.is_array(t):
            # wp.array[float] annotations are _ArrayAnnotation, of class array
            kind = getattr(type(t), "_concrete_cls", type(t)).__name__
            if kind != "array":
                raise Skip("parameter %s: %s arrays are not supported" % (arg.label, kind))
            shape = shapes.get(arg.label)
            if shape is None and t.ndim != len(dim):
                raise Skip("parameter %s has %d dims, launch has %d" % (arg.label, t.ndim, len(dim)))
            if type(t.dtype).__name__ == "Struct" or t.dtype is typing.Any:
                raise Skip("parameter %s: arrays of %s are not supported by the harness" % (
                    arg.label, "structs" if t.dtype is not typing.Any else "typing.Any (a generic kernel)"))
            npdt, tail = elem_info(t.dtype)
            shape = tuple(shape or dim) + tail
            if arg.label in ints and npdt.kind in "iu":
                lo, hi = ints[arg.label]
                arrays[arg.label] = rng.integers(lo, hi + 1, size=shape).astype(npdt)
            else:
                arrays[arg.label] = random_values(rng, npdt, shape)
        elif wp.types.type_is_vector(t) or wp.types.type_is_matrix(t) or wp.types.type_is_quaternion(t):
            npdt, tail = elem_info(t)
            scalars[arg.label] = (random_values(rng, npdt, tail), npdt, t)
        elif type(t).__name__ == "Struct":
            # fields one by one (krun --set p.field=v); arrays in structs are not supported
            scalars[arg.label] = (struct_values(rng, t, arg.label), None, t)
        elif t in wpt.scalar_types or t is int or t is float or t is bool or t == wp.bool:
            wt = {int: wp.int32, float: wp.float32, bool: wp.bool}.get(t, t)
            npdt = np.dtype(np.bool_) if wt == wp.bool else scalar_np(wt)
            v = random_values(rng, npdt, ())[()]
            if arg.label in sets:
                v = np.array(sets[arg.label]).astype(npdt)[()]
            elif arg.label in ints and npdt.kind in "iu":
                lo, hi = ints[arg.label]
                v = np.array(rng.integers(lo, hi + 1)).astype(npdt)[()]
            scalars[arg.label] = (v, npdt, wt)
        else:
            raise Skip("parameter %s of type %s is not supported by the harness" % (
                arg.label, "typing.Any (a generic kernel)" if t is typing.Any else getattr(t, "__name__", t)))
    return arrays, scalars


def warp_run(kernel, dim, arrays, scalars, grad, adj0):
    """Forward (and backward) in Warp on the CPU; returns (outs, grads)."""
    wa, inputs = {}, []
    for arg in kernel.adj.args:
        if arg.label in arrays:
            t = arg.type
            wa[arg.label] = wp.array(arrays[arg.label], dtype=t.dtype, device="cpu", requires_grad=grad)
            inputs.append(wa[arg.label])
        else:
            v, npdt, wt = scalars[arg.label]
            inputs.append(struct_instance(wt, v) if isinstance(v, StructValues) else warp_value(v, npdt, wt))
    if not grad:
        wp.launch(kernel, dim=tuple(dim), inputs=inputs, device="cpu")
        wp.synchronize_device("cpu")
        return {k: warp_numpy(a) for k, a in wa.items()}, {}
    wp.launch(kernel, dim=tuple(dim), inputs=inputs, device="cpu")
    outs = {k: warp_numpy(a) for k, a in wa.items()}
    # seeded adjoints for the arrays the kernel writes, zero for the others,
    # then one backward launch
    for k, a in wa.items():
        a.grad.assign(adj0[k])
    adj_inputs = [wa[a.label].grad if a.label in wa else
                  scalars[a.label][2]() if isinstance(scalars[a.label][0], (np.ndarray, StructValues)) and
                  (isinstance(scalars[a.label][0], StructValues) or scalars[a.label][0].ndim) else
                  scalars[a.label][2](0) if scalars[a.label][2] != wp.bool else False
                  for a in kernel.adj.args]
    wp.launch(kernel, dim=tuple(dim), inputs=inputs, adj_inputs=adj_inputs, adjoint=True, device="cpu")
    wp.synchronize_device("cpu")
    grads = {k: warp_numpy(a.grad) for k, a in wa.items()}
    return outs, grads


def make_adjoints(arrays, seed, written):
    """Seeded adjoints for the float arrays in `written`, zeros elsewhere."""
    rng = np.random.default_rng(seed + 7919)
    out = {}
    for k in sorted(arrays):
        a = arrays[k]
        if is_bf16(a.dtype) and k in written:
            out[k] = bf16_round(rng.uniform(-1.0, 1.0, size=a.shape))
        elif a.dtype.kind == "f" and k in written:
            out[k] = rng.uniform(-1.0, 1.0, size=a.shape).astype(a.dtype)
        else:
            out[k] = np.zeros_like(a)
    return out


def compare(name, want, got):
    """Returns None when equal within the dtype's tolerance, else a message."""
    if got is None:
        return "%s: kpy wrote no output" % name
    if want.shape != got.shape or want.dtype != got.dtype:
        return "%s: kpy gave %s %s, Warp %s %s" % (name, got.dtype, got.shape, want.dtype, want.shape)
    key = ("adj bf16" if name.startswith("adj_") else "bf16") if is_bf16(want.dtype) else want.dtype.str[1:]
    if key in TOL:
        rtol, atol = TOL[key]
        w, g = want.astype(np.float64), got.astype(np.float64)
        both_nan = np.isnan(w) & np.isnan(g)
        bad = ~(np.isclose(g, w, rtol=rtol, atol=atol) | both_nan)
    else:
        bad = want != got
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        return "%s: %d of %d elements differ; first at %s: Warp %r, kpy %r" % (
            name, int(bad.sum()), bad.size, idx, want[idx].item(), got[idx].item())
    return None


GRADLINE = re.compile(r"^gradcheck (\S+) (\S+): (\d+) of (\d+) elements, worst relative error (.*) (ok|FAIL)$", re.M)


def fd_certify(cmd, nelem):
    """krun --gradcheck with the kernel's inputs and adjoint seeds (cmd's
    --in, --set and --adj): kpy's double-precision backward (the
    KPY_F32_DOUBLE build) against central finite differences of the
    double-precision forward, at every element (--samples nelem).  Finite
    differences use no derivative rule of kpy's, so they can referee them.
    A step too small loses digits to rounding, one too large to truncation:
    an array passes at krun's default step, at 1e-5 or at 1e-4 (as tests/ad
    does), and only where some element was not at a kink.
    Returns {array: (passed, the line that judged it)}."""
    gc = [c for c in cmd if c != "--backward"]
    gc = gc[:gc.index("--out")] + gc[gc.index("--out") + 2:]
    res = {}
    for eps in ("1e-6", "1e-5", "1e-4"):
        p = subprocess.run(gc + ["--gradcheck", "--samples", str(nelem), "--eps", eps],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = p.stdout.decode(errors="replace")
        found = False
        for m in GRADLINE.finditer(out):
            found = True
            name = m.group(2)
            if not res.get(name, (False,))[0]:
                res[name] = (m.group(6) == "ok" and int(m.group(3)) > 0, "%s (--eps %s)" % (m.group(0), eps))
        if not found:
            tail = " | ".join((p.stdout + p.stderr).decode(errors="replace").strip().splitlines()[-3:])
            return {"": (False, "krun --gradcheck gave no verdict (exit %d): %s" % (p.returncode, tail))}
        if all(ok for ok, _ in res.values()):
            break
    return res


# Warp's worst gradient error (relative to 1 + |float64 value|) beyond which
# a difference is not rounding, whoever is right
WARP_OFF = 1e-3


def referee(cmd, kd, wgrad, gerrs, nelem):
    """Judge float gradient mismatches with Warp.  First the truth, from
    something kpy's derivative rules did not compute: central finite
    differences in double precision (fd_certify) must confirm kpy's
    double-precision gradient of every mismatching array.  Then rounding:
    kpy's float gradient against that certified double-precision one must be
    off by no more than the order of Warp's error against it.  Returns
    (names accepted, with how far each side is; the remaining errors)."""
    fd = fd_certify(cmd, nelem)
    if "" in fd:
        return [], {n: e + "; " + fd[""][1] for n, e in gerrs.items()}
    out64 = os.path.join(kd, "out64")
    cmd64 = list(cmd)
    cmd64[cmd64.index("--out") + 1] = out64
    env = dict(os.environ)
    env["KPY_CXXFLAGS"] = (env.get("KPY_CXXFLAGS") or "-O2") + " -DKPY_F32_DOUBLE"
    p = subprocess.run(cmd64, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if p.returncode != 0:
        return [], {n: e + "; the double-precision run failed" for n, e in gerrs.items()}
    ok, left = [], {}
    for name, e in gerrs.items():
        rp = os.path.join(out64, "adj_" + name + ".npy")
        kp = os.path.join(kd, "out", "adj_" + name + ".npy")
        w = wgrad[name]
        passed, line = fd.get(name, (False, "krun --gradcheck did not check %s" % name))
        if not passed:
            left[name] = e + "; finite differences (double) refute kpy's gradient: " + line
            continue
        if w.dtype not in (np.float32, np.float64) or not os.path.exists(rp) or not os.path.exists(kp):
            left[name] = e
            continue
        r = np.load(rp).astype(np.float64)
        g = np.load(kp).astype(np.float64)
        ww = w.astype(np.float64)
        nan = np.isnan(g) & np.isnan(ww)
        ek = np.where(nan, 0.0, np.abs(g - r) / (1.0 + np.abs(r)))
        ew = np.where(nan, 0.0, np.abs(ww - r) / (1.0 + np.abs(r)))
        rtol, atol = TOL[w.dtype.str[1:]]
        # the array's worst error (relative to 1 + |float64 value|) against
        # Warp's: the same order of magnitude (rounding), not more
        if np.isfinite(ek).all() and ek.max() <= 4 * ew.max() + atol and ew.max() > WARP_OFF:
            # kpy is right, Warp's gradient is off by more than rounding:
            # a difference to report (a Warp bug, or a harness that gave
            # the two sides different adjoint seeds), never "rounding"
            left[name] = e + "; Warp's gradient is off by %.3g where finite differences confirm kpy's (kpy off by %.3g)" % (
                ew.max(), ek.max())
        elif np.isfinite(ek).all() and ek.max() <= 4 * ew.max() + atol:
            ok.append("adj_%s: kpy within %.2g of float64, Warp within %.2g; float64 confirmed by finite differences" % (
                name, ek.max(), ew.max()))
        else:
            i = tuple(np.unravel_index(np.nanargmax(ek), ek.shape))
            left[name] = e + "; worst against float64 at %s: %r (kpy off by %.3g, Warp's worst %.3g)" % (
                i, r[i], ek[i], ew.max())
    return ok, left


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (" ".join(cmd[:2]), p.returncode, p.stderr.decode(errors="replace")[-3000:]))
    return p.stdout


VIEW = re.compile(r"^\s*%(\S+) = view %([\w.]+)\[", re.M)


def array_bases(body, names):
    """The arrays behind names: a view (x_row = x[i]) stands for the array
    it was taken from."""
    base = dict(VIEW.findall(body))
    out = set()
    for n in names:
        seen = 0
        while n in base and seen < 64:
            n, seen = base[n], seen + 1
        out.add(n)
    return out


DEF = re.compile(r"^(?:kernel|func) @(\S+?)\((.*?)\)[^\n]*\{[^\n]*\n(.*?)^\}", re.S | re.M)
CALL = re.compile(r"\bcall @([^\s(]+)\((.*?)\)(?: :|  ;|$)", re.M)


def split_args(text):
    out, depth, cur = [], 0, ""
    for c in text:
        if c in "([<":
            depth += 1
        elif c in ")]>":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return [a.lstrip("%") for a in out]


def array_uses(kir, kname):
    """(loaded, stored) arrays of kernel kname (from kir): loads, stores and
    atomic updates, through views (x_row = x[i] stands for x) and through
    the functions it calls (an array argument their bodies load or store)."""
    defs = {name: (re.findall(r"%(\w+):", params), body) for name, params, body in DEF.findall(kir)}
    memo = {}

    def uses(name):
        if name in memo:
            return memo[name]
        memo[name] = (set(), set())  # a recursive call adds nothing
        pnames, body = defs[name]
        ld = set(re.findall(r"\bload %([\w.]+)\[", body))
        st = set(re.findall(r"\b(?:store|atomic_\w+) %([\w.]+)\[", body))
        for callee, args in CALL.findall(body):
            if callee not in defs:
                continue
            cl, cs = uses(callee)
            for pn, an in zip(defs[callee][0], split_args(args)):
                if pn in cl:
                    ld.add(an)
                if pn in cs:
                    st.add(an)
        memo[name] = (array_bases(body, ld), array_bases(body, st))
        return memo[name]

    return uses(kname) if kname in defs else (set(), set())


def written_arrays(kir, kname):
    """Array parameters a kernel stores to or updates atomically (from kir),
    directly, through a view or in a function it calls."""
    return array_uses(kir, kname)[1]


def kernel_body(kir, kname):
    m = re.search(r"^kernel @%s\((.*?)\) \{[^\n]*\n(.*?)^\}" % re.escape(kname), kir, re.S | re.M)
    return m.group(2) if m else ""


FOR = re.compile(r"\bfor %\S+ = (-?\d+) to (-?\d+) step (-?\d+)")


def warp_grad_exact(kir, kname, max_unroll=WARP_MAX_UNROLL):
    """Is Warp's backward exact for this kernel (WARP_NOTES section 9)?
    Not when it has while loops, dynamic for loops (bounds not constants, more
    than max_unroll trips, or break/continue), or reads and writes one array."""
    body = kernel_body(kir, kname)
    if re.search(r"\bwhile\b", body) or re.search(r"\b(break|continue)\b", body):
        return False
    # ops whose adjoints Warp gets wrong (checked against finite differences):
    # frac (Warp: 0), float mod's divisor (Warp: 0), overwriting a vector
    # component (Warp keeps the overwritten component's adjoint)
    if re.search(r"= (frac|insert) ", body) or re.search(r"= mod .*: f(16|32|64)\b", body):
        return False
    for line in body.splitlines():
        if re.search(r"\bfor %", line):
            m = FOR.search(line)
            if not m:
                return False
            lo, hi, st = map(int, m.groups())
            if st == 0 or abs(hi - lo) // abs(st) > max_unroll:
                return False
    loaded = array_uses(kir, kname)[0]
    return not (loaded & written_arrays(kir, kname))


def launch_ndim(kir, kname):
    t = re.search(r"^\s*(%[^=]+)= tid\b", kernel_body(kir, kname), re.M)
    return len(t.group(1).split(",")) if t else 1


class Result:
    """What check_kernel found: status "ok", "fail" or "skip"; for "fail",
    the differences (errs) or the error that stopped the run; for "ok", a
    note on how the gradients were judged."""

    def __init__(self):
        self.status, self.skip, self.error, self.note = None, None, None, ""
        self.errs, self.trace, self.rounding = [], [], []
        self.fd_grad = self.no_oracle = self.exact_grad = self.no_backward = False


def backward_enabled(k):
    """Does Warp build the kernel's backward (enable_backward, in the
    decorator or the module's options)?"""
    eb = k.options.get("enable_backward") if isinstance(getattr(k, "options", None), dict) else None
    if eb is None:
        eb = k.module.options.get("enable_backward", True)
    return bool(eb)


def krun_cmd(tool, cpp, kname, dim, seed, kd, arrays, scalars):
    """The krun command line for these inputs (written as .npy under kd/in)."""
    os.makedirs(os.path.join(kd, "in"), exist_ok=True)
    cmd = [tool("krun"), cpp, "--kernel", kname, "--dim", ",".join(map(str, dim)),
           "--seed", str(seed), "--out", os.path.join(kd, "out")]
    for name, a in arrays.items():
        p = os.path.join(kd, "in", name + ".npy")
        save_npy(p, a)
        cmd += ["--in", "%s=%s" % (name, p)]
    for name, (v, npdt, wt) in scalars.items():
        if isinstance(v, StructValues):
            for path, (fv, fdt, fwt) in v.items():
                cmd += ["--set", "%s.%s=%s" % (name, path, fmt_scalar(fv, fdt))]
        else:
            cmd += ["--set", "%s=%s" % (name, fmt_scalar(v, npdt))]
    return cmd


def check_kernel(k, kname, dim, spec, kir, cpp, kd, seed, grad, tool):
    """Run Warp kernel k and kpy's kname (in the kcpu module cpp, made from
    kir) on the same inputs, forward and, with grad, backward; compare."""
    r = Result()
    r.want, r.wgrad, r.kd = {}, {}, kd
    if grad and not backward_enabled(k):
        grad = False
        r.no_backward = True
    try:
        arrays, scalars = make_inputs(k, dim, seed, spec)
        has_float = any(a.dtype.kind == "f" for a in arrays.values())
        # the kernel's own max_unroll (module_options) decides Warp's unrolling
        mu = getattr(k.module, "options", {}).get("max_unroll", WARP_MAX_UNROLL)
        exact_grad = grad and has_float and warp_grad_exact(kir, kname, mu if isinstance(mu, int) else WARP_MAX_UNROLL)
        fd_grad = grad and has_float and not exact_grad
        # atomic_min/max: kpy's gradient is Warp's rule (the value equal to
        # the final element gets its adjoint, and so do the earlier
        # contents), which finite differences do not follow; where Warp's
        # backward is not exact either there is no oracle for the gradients
        no_oracle = fd_grad and re.search(r"\batomic_m(in|ax)\b", kernel_body(kir, kname)) is not None
        if no_oracle:
            fd_grad = False
        written = written_arrays(kir, kname)
        adj0 = make_adjoints(arrays, seed, written) if exact_grad else None
        want, wgrad = warp_run(k, dim, arrays, scalars, exact_grad, adj0)
        r.want, r.wgrad = want, wgrad
        cmd = krun_cmd(tool, cpp, kname, dim, seed, kd, arrays, scalars)
        if exact_grad:
            for name, a in adj0.items():
                if name not in written:
                    continue
                p = os.path.join(kd, "in", "adj_" + name + ".npy")
                save_npy(p, a)
                cmd += ["--adj", "%s=%s" % (name, p)]
            cmd += ["--backward"]
        run(cmd)
        errs = []
        if fd_grad:
            # Warp's backward is not exact here: the truth is finite
            # differences in double precision (krun --gradcheck)
            gc = [c for c in cmd if c not in ("--backward",)]
            gc = gc[:gc.index("--out")] + gc[gc.index("--out") + 2:] + ["--gradcheck"]
            p = subprocess.run(gc, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if p.returncode != 0:
                errs.append("gradient check against finite differences failed: " +
                            " | ".join(l for l in (p.stdout + p.stderr).decode(errors="replace").splitlines()
                                       if "FAIL" in l or "error" in l)[:600])
        for name, w in want.items():
            p = os.path.join(kd, "out", name + ".npy")
            e = compare(name, w, np.load(p) if os.path.exists(p) else None)
            if e:
                errs.append(e)
        rounding = []
        if exact_grad:
            gerrs = {}
            for name, w in wgrad.items():
                if name in written or w.dtype.kind != "f":
                    continue
                p = os.path.join(kd, "out", "adj_" + name + ".npy")
                e = compare("adj_" + name, w, np.load(p) if os.path.exists(p) else None)
                if e:
                    gerrs[name] = e
            if gerrs:
                # Reverse mode sums an adjoint's contributions in its own
                # order, and rounding in float32 differs where they cancel.
                # The referee (see referee()): finite differences in
                # double must confirm kpy's gradient in double (kcpu's
                # KPY_F32_DOUBLE build, same inputs and seeds); then
                # kpy's worst error against that over the array must
                # be of the order of Warp's (4 times at most, plus the
                # dtype's tolerance); a bug is orders of magnitude more.
                rounding, gerrs = referee(cmd, kd, wgrad, gerrs, max(a.size for a in arrays.values()))
            errs.extend(gerrs.values())
        r.errs, r.rounding = errs, rounding
        r.fd_grad, r.no_oracle, r.exact_grad = fd_grad, no_oracle, exact_grad
        r.status = "fail" if errs else "ok"
        r.note = "%s%s" % (" (gradients against finite differences: Warp's are not exact here)" if fd_grad else
                           " (forward only: atomic_min/max where Warp's backward is not exact: no gradient oracle)" if no_oracle else "",
                           " (gradients differ from Warp's by rounding: %s)" % ", ".join(rounding) if rounding else "")
    except Skip as e:
        r.status, r.skip = "skip", str(e)
    except Exception as e:
        r.status = "fail"
        r.error = str(e).splitlines()[0] if str(e) else type(e).__name__
        r.trace = (traceback.format_exc() if not isinstance(e, RuntimeError) else str(e)).splitlines()[-12:]
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("modules", nargs="+")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dim", type=int, default=37, help="launch size per dimension when no kgen metadata says otherwise")
    ap.add_argument("--grad", action="store_true", help="also compare gradients (Warp's backward)")
    ap.add_argument("--bin", default=os.environ.get("top_builddir", "."), help="directory with kpyc, kopt, kcpu, krun")
    ap.add_argument("--work", default=None)
    ap.add_argument("--report", default=None, help="append mismatches (with seeds) to this file")
    args = ap.parse_args()

    work = args.work or tempfile.mkdtemp(prefix="warpdiff.")
    os.makedirs(work, exist_ok=True)
    tool = lambda t: os.path.join(args.bin, t)

    # kpy side: one module for everything
    kir = run([tool("kpyc")] + args.modules).decode()
    passes = ["-p", "ad,fold,cse,dce"] if args.grad else ["-p", "fold,cse,dce"]
    kir_opt = run([tool("kopt")] + passes, input=kir.encode()).decode()
    cpp = os.path.join(work, "all.cpp")
    with open(cpp, "w") as f:
        f.write(run([tool("kcpu")], input=kir_opt.encode()).decode())

    n, failed, skipped = 0, 0, 0
    report = open(args.report, "a") if args.report else None
    for mi, path in enumerate(args.modules):
        src = open(path).read()
        meta = {k: [int(x) for x in d.split(",")] for k, d in META.findall(src)}
        specs = {k: json.loads(j) for k, j in SPEC.findall(src)}
        try:
            mod = load_module(path, mi)
            kernels = kernels_of(mod)
        except Exception as e:  # a module Warp cannot import is a harness failure
            n += 1
            failed += 1
            print("not ok %d - %s: Warp cannot import it: %s" % (n, path, e))
            continue
        for k in kernels:
            n += 1
            kname = k.key.split(".")[-1] if "." in k.key else k.key
            kname = k.func.__name__
            outer = k.func.__qualname__.split(".<locals>.")
            if len(outer) == 2 and "." not in outer[0] + outer[1]:
                kname = outer[0] + "__" + outer[1]  # kpyc's name of a kernel nested in a function
            label = "%s:%s" % (os.path.basename(path), kname)
            spec = specs.get(kname, {})
            try:
                insts = instances(k, kir, kname)
            except ValueError as e:
                insts, r = [], Result()
                r.status, r.error = "fail", str(e)
            for ik, iname in insts:
                # one check per instance; a generic kernel reports its first difference
                dim = spec.get("dim") or meta.get(kname) or [args.dim] * launch_ndim(kir, iname)
                r = check_kernel(ik, iname, dim, spec, kir, cpp, os.path.join(work, "%d_%s" % (mi, iname)), args.seed,
                                 args.grad, tool)
                if r.status != "ok":
                    break
                if len(insts) > 1:
                    r.note = " (%d overloads)%s" % (len(insts), r.note)
            if r.status == "skip":
                skipped += 1
                print("ok %d - %s # SKIP %s" % (n, label, r.skip))
            elif r.status == "fail":
                failed += 1
                print("not ok %d - %s (seed %d)%s" % (n, label, args.seed, ": " + r.error if r.error else ""))
                for e in r.errs + r.trace:
                    print("# " + e)
                if report:
                    report.write("%s seed=%d: %s\n" % (label, args.seed, r.error or "; ".join(r.errs)))
            else:
                print("ok %d - %s%s" % (n, label, r.note))
            sys.stdout.flush()
    print("1..%d" % n)
    if report:
        report.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
