#!/usr/bin/env python3
"""warpcodegen.py — Warp's own code generation time, the anchor of `make
bench`'s codegen rows (a benchmark, not a test).

Per module (a .py file of @wp.kernel/@wp.func/@wp.struct): import it, build
its wp.Module with Warp's ModuleBuilder (the adjoints: Warp's parse and type
inference) and generate CUDA C++ with codegen("cuda"), forward and backward
(enable_backward, Warp's default).  Nothing is compiled and no GPU is needed.
A first pass over every module is a warm-up and finds the modules Warp
rejects (listed on stderr, left out); the second pass is timed in CPU time
of this process (one thread).  Prints one line per accepted module,
"ok PATH KERNELS", and a last line "warp-codegen KERNELS MODULES SECONDS".

  warpcodegen.py MODULE.py...
"""
import contextlib
import importlib.util
import io
import os
import sys
import time

import warp as wp

wp.config.quiet = True


def build(path, tag):
    """import path as a fresh module, ModuleBuilder + codegen("cuda") on
    each wp.Module it defines; the number of kernels."""
    from warp._src.context import ModuleBuilder
    name = "wcg%s_%s" % (tag, os.path.basename(path)[:-3].replace("-", "_"))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    with contextlib.redirect_stdout(io.StringIO()):
        spec.loader.exec_module(mod)
        mods = {}
        for v in list(mod.__dict__.values()):
            if isinstance(v, wp.Kernel):
                mods[id(v.module)] = v.module
        n = 0
        for m in mods.values():
            opts = m.resolve_options(wp.config, block_dim=256)
            b = ModuleBuilder(m, opts | {"output_arch": 80, "block_dim": 256}, target="cuda")
            b.codegen("cuda")
            n += len(b.kernels)
    return n


def main():
    paths = sys.argv[1:]
    if not paths:
        sys.exit("usage: warpcodegen.py MODULE.py...")
    wp.init()
    ok = []
    for p in paths:  # warm-up; what Warp rejects
        try:
            n = build(p, "w")
        except Exception as e:  # noqa: BLE001 - any failure is a rejection
            print("warpcodegen: %s: rejected: %s" % (p, (str(e).strip().splitlines() or [""])[-1][:160]),
                  file=sys.stderr)
            continue
        if n:
            ok.append(p)
    counts = []
    t0 = time.process_time()
    for p in ok:
        counts.append(build(p, "t"))
    t = time.process_time() - t0
    kernels = sum(counts)
    for p, n in zip(ok, counts):
        print("ok %s %d" % (p, n))
    print("warp-codegen %d %d %.6f" % (kernels, len(ok), t))
    return 0


if __name__ == "__main__":
    sys.exit(main())
