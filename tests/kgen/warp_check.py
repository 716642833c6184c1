#!/usr/bin/env python3
"""Check kgen modules against NVIDIA Warp.

For each module (files may hold several modules concatenated; they are split on the
"# kgen: ..." metadata line): import it, find the kernel named in the metadata, build
its arguments from the kernel's own signature (kernel.adj.args) following the runner's
convention -- arrays shaped like the launch, floats uniform in [-1, 1] (componentwise
for vectors, matrices, quaternions, transforms), ints in [-8, 8], scalar parameters and
fields of struct parameters likewise -- launch on the CPU for the metadata's dim and
for other launch sizes of the same ndim, and check that every array is finite.  For
kernels with float outputs, also record the launch on a wp.Tape, seed the output
gradients with ones, run backward once and check that every gradient is finite.

Usage: warp_check.py [--tap] [--no-grad] [--sizes N] [--seed S] FILE...
Exit status: 0 all passed, 1 some module failed, 2 usage error.
"""

import argparse
import ast
import importlib.util
import os
import re
import sys
import tempfile
import traceback

META = re.compile(r"^# kgen: seed=(\d+) index=(\d+) category=(\w+) kernel=(\w+) dim=(\d+(?:,\d+){0,2})$")


def split_modules(text):
    """Yield (metadata match, module text) for each module in text."""
    starts = [m for m in re.finditer(r"^# kgen: .*$", text, re.M)]
    for n, m in enumerate(starts):
        end = starts[n + 1].start() if n + 1 < len(starts) else len(text)
        meta = META.match(m.group(0))
        yield meta, m.group(0), text[m.start():end]


def written_arrays(source):
    """Names of arrays the kernel writes: subscript stores and atomic targets."""
    tree = ast.parse(source)
    names = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        for t in targets:
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                names.add(t.value.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr.startswith("atomic_") and node.args and isinstance(node.args[0], ast.Name):
                names.add(node.args[0].id)
    return names


class Checker:
    def __init__(self, wp, np, grad=True, nsizes=3, seed=0):
        self.wp = wp
        self.np = np
        self.grad = grad
        self.nsizes = nsizes
        self.rng = np.random.default_rng(seed)
        self.tmp = tempfile.mkdtemp(prefix="kgen_check_")
        self.count = 0

    # ---------------------------------------------------------------- values

    def scalar_kind(self, t):
        wp = self.wp
        if t in (wp.float32, float):
            return "f32"
        if t in (wp.float64,):
            return "f64"
        if t in (wp.int32, int):
            return "i32"
        return None

    def fill_value(self, t):
        """A random value of a non-array type t (scalar, vector, struct)."""
        wp, np = self.wp, self.np
        kind = self.scalar_kind(t)
        if kind == "i32":
            return int(self.rng.integers(-8, 9))
        if kind in ("f32", "f64"):
            return float(self.rng.uniform(-1.0, 1.0))
        if wp.types.type_is_vector(t):
            return t(*self.rng.uniform(-1.0, 1.0, size=t._length_).tolist())
        if hasattr(t, "vars") and hasattr(t, "cls"):  # a @wp.struct
            inst = t()
            for name, var in t.vars.items():
                setattr(inst, name, self.fill_value(var.type))
            return inst
        raise TypeError(f"cannot fill a kernel parameter of type {t}")

    def comp_shape(self, dtype):
        """Trailing numpy shape of one element: () for scalars, (3,) for vec3, (3, 3) ..."""
        wt = self.wp.types
        if wt.type_is_vector(dtype) or wt.type_is_matrix(dtype) or wt.type_is_quaternion(dtype) or \
                wt.type_is_transformation(dtype):
            return tuple(dtype._shape_)
        return ()

    def make_array(self, t, shape, output, random_output):
        wp, np = self.wp, self.np
        dtype = t.dtype
        comp = self.comp_shape(dtype)
        scalar = getattr(dtype, "_wp_scalar_type_", dtype) if comp else dtype
        is_int = scalar in (wp.int32, int, wp.uint32, wp.int64)
        is_float = not is_int
        if output and not random_output:
            data = np.zeros(shape + comp)
        elif is_int:
            data = self.rng.integers(-8, 9, size=shape + comp)
        else:
            data = self.rng.uniform(-1.0, 1.0, size=shape + comp)
        np_dtype = {wp.float64: np.float64, wp.int32: np.int32, int: np.int32}.get(scalar, np.float32)
        return wp.array(data.astype(np_dtype), dtype=dtype, device="cpu", requires_grad=self.grad and is_float), is_float

    # ---------------------------------------------------------------- one module

    def check_module(self, meta, text):
        wp, np = self.wp, self.np
        name = meta.group(4)
        dims = tuple(int(x) for x in meta.group(5).split(","))
        self.count += 1
        modname = f"kgen_chk_{os.getpid()}_{self.count}"
        path = os.path.join(self.tmp, modname + ".py")
        with open(path, "w") as f:
            f.write(text)
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        kernel = getattr(mod, name, None)
        if kernel is None:
            return f"module defines no kernel {name}"
        args = kernel.adj.args
        written = written_arrays(kernel.adj.source)
        for a in args:
            if wp.types.is_array(a.type) and a.type.ndim != len(dims):
                return f"array {a.label} has ndim {a.type.ndim}, launch has {len(dims)}"

        # launch sizes: the default, all ones, and small/odd sizes of the same ndim
        sizes = [dims, tuple(1 for _ in dims)]
        while len(sizes) < self.nsizes:
            sizes.append(tuple(int(self.rng.integers(1, 9 if len(dims) > 1 else 40)) for _ in dims))
        for n, shape in enumerate(sizes):
            values, arrays = [], []
            for a in args:
                if wp.types.is_array(a.type):
                    arr, is_float = self.make_array(a.type, shape, a.label in written, random_output=(n % 2 == 1))
                    values.append(arr)
                    arrays.append((a.label, arr, is_float, a.label in written))
                else:
                    values.append(self.fill_value(a.type))
            grad = self.grad and n == 0 and any(f and w for (_, _, f, w) in arrays)
            if grad:
                tape = wp.Tape()
                with tape:
                    wp.launch(kernel, dim=shape, inputs=values, device="cpu")
            else:
                wp.launch(kernel, dim=shape, inputs=values, device="cpu")
            wp.synchronize_device("cpu")
            for label, arr, _, _ in arrays:
                data = arr.numpy()
                if not np.all(np.isfinite(data)):
                    return f"non-finite values in {label} (launch {shape})"
            if grad:
                seeds = {arr: wp.array(np.ones(arr.shape + self.comp_shape(arr.dtype)), dtype=arr.dtype, device="cpu")
                         for (_, arr, f, w) in arrays if f and w}
                tape.backward(grads=seeds)
                for label, arr, f, w in arrays:
                    if f and not w and arr.grad is not None:
                        g = arr.grad.numpy()
                        if not np.all(np.isfinite(g)):
                            return f"non-finite gradient of {label}"
                tape.zero()
        return None


def main():
    ap = argparse.ArgumentParser(description="Check kgen modules with NVIDIA Warp.")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tap", action="store_true", help="write TAP (ok N - kernel)")
    ap.add_argument("--plan-extra", type=int, default=0, help="TAP: add this many to the plan (tests the caller runs after)")
    ap.add_argument("--no-grad", action="store_true", help="skip the Tape backward check")
    ap.add_argument("--sizes", type=int, default=3, help="launch sizes per kernel (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the input values")
    ap.add_argument("--debug", action="store_true",
                    help="compile in Warp's debug mode (bounds asserts on; forward only: an out-of-bounds index aborts)")
    ap.add_argument("-v", "--verbose", action="store_true")
    opts = ap.parse_args()

    import numpy as np
    import warp as wp

    if opts.debug:
        wp.config.mode = "debug"
        opts.no_grad = True
    wp.config.quiet = True  # older Warp
    wp.config.log_level = getattr(wp, "LOG_WARNING", 30)
    if os.environ.get("KGEN_WARP_CACHE"):
        wp.config.kernel_cache_dir = os.environ["KGEN_WARP_CACHE"]
    wp.init()

    modules = []
    for fn in opts.files:
        with open(fn) as f:
            text = f.read()
        for meta, line, mtext in split_modules(text):
            modules.append((fn, meta, line, mtext))
    if opts.tap:
        print(f"1..{len(modules) + opts.plan_extra}", flush=True)
    chk = Checker(wp, np, grad=not opts.no_grad, nsizes=opts.sizes, seed=opts.seed)
    failures = 0
    for n, (fn, meta, line, mtext) in enumerate(modules, 1):
        label = meta.group(4) if meta else line
        if meta is None:
            err = "bad metadata line"
        else:
            try:
                err = chk.check_module(meta, mtext)
            except Exception as e:  # a Warp error is a failure of the module, not of the checker
                err = f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"
                if opts.verbose:
                    traceback.print_exc()
        if err:
            failures += 1
        if opts.tap:
            print(f"{'not ok' if err else 'ok'} {n} - {label}{' # ' + err if err else ''}", flush=True)
        elif err:
            print(f"FAIL {fn}: {label}: {err}", flush=True)
        elif opts.verbose:
            print(f"ok {fn}: {label}", flush=True)
    if not opts.tap:
        print(f"{len(modules)} modules, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
