#!/usr/bin/env python3
"""cpubench.py — CPU time of krun against Warp's CPU back end (make bench-cpu).

The forward kernels of tests/cuda/bench/*.py (the GPU benchmark's, see
warpbench.py), their launches and arrays SCALE (16) times smaller than on
the GPU (about a million threads): per kernel, the same inputs (floats in
[-1, 1], index arrays within what they index) go to Warp on the CPU
(wp.launch, Warp's release build) and to krun (kpyc | kopt | kcpu, krun
--unchecked --time=N).  Prints per kernel both median times of ITERS
launches after one warm-up, their ratio, and whether krun's outputs equal
Warp's bit for bit (else the largest difference relative to the largest
magnitude); then the geometric mean of the ratios.  With --rounds R the
two medians are measured R times, alternately, and the smallest of each
kept (a machine shared with other work slows some rounds down).  With
--kernel NAME (repeatable) only those kernels run.  The work directory
(inputs, outputs, the krun cache) is removed at the end unless --keep.

  cpubench.py --bin BUILDDIR [--scale 16] [--iters 10] [--rounds 1]
              [--kernel NAME]... [--keep] [MODULE.py...]
"""
import argparse
import importlib.util
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("WARP_CACHE_PATH", os.path.join(tempfile.gettempdir(), "kpy-warp-cache"))
import warp as wp  # noqa: E402

from warpbench import SCAL, benchsize, benchspecs, kpylist, kpytype, scaled  # noqa: E402

wp.config.quiet = True


def arrays_for(params, spec, dim, rng, scale):
    """name -> numpy array, per the BENCH line (sizes scaled)."""
    out = {}
    for pn, kind, t, nd, acc in params:
        if kind != "array":
            continue
        sc, elem = kpytype(t)
        shape, hi = benchsize(spec.get(pn, "dim"), dim, scale)
        dt = np.dtype(SCAL[sc][0])
        full = tuple(shape) + tuple(elem)
        if dt.kind == "f":
            out[pn] = rng.uniform(-1.0, 1.0, size=full).astype(dt)
        else:
            out[pn] = rng.integers(0, hi if hi is not None else 16, size=full).astype(dt)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--kernel", action="append", default=[])
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("modules", nargs="*")
    a = ap.parse_args()
    if a.iters < 1 or a.rounds < 1:
        ap.error("--iters and --rounds must be at least 1")
    here = os.path.dirname(os.path.abspath(__file__))
    mods = a.modules or sorted(os.path.join(here, "bench", f) for f in os.listdir(os.path.join(here, "bench"))
                               if f.endswith(".py"))
    tmp = tempfile.mkdtemp(prefix="cpubench.")
    try:
        return run(a, mods, tmp)
    finally:
        if a.keep:
            print("cpubench: work directory %s kept" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def run(a, mods, tmp):
    """Benchmark the kernels of mods in the work directory tmp."""
    B = a.bin
    env = dict(os.environ, KPY_CACHE=os.path.join(tmp, "cache"))
    print("%-12s %-24s %10s %10s %7s  %s" % ("module", "kernel", "warp_ms", "krun_ms", "ratio", "results"))
    ratios, bad = [], 0
    for path in mods:
        mod = os.path.basename(path)[:-3]
        specs = benchspecs(path)
        w = os.path.join(tmp, mod)
        kir = subprocess.run([B + "/kpyc", path], capture_output=True, text=True, env=env, check=True).stdout
        kir = subprocess.run([B + "/kopt", "-O"], input=kir, capture_output=True, text=True, env=env,
                             check=True).stdout
        open(w + ".kir", "w").write(kir)
        subprocess.run([B + "/kcpu", w + ".kir", "-o", w + ".cpp"], env=env, check=True)
        lst = subprocess.run([B + "/krun", w + ".cpp", "--list"], capture_output=True, text=True, env=env,
                             check=True).stdout.splitlines()
        spec = importlib.util.spec_from_file_location("kpycpu_" + mod, path)
        pm = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(pm)
        wk = {k.key: k for k in pm.__dict__.values() if isinstance(k, wp.Kernel)}
        for line in lst:
            name, params, tid = kpylist(line)
            if name not in specs or (a.kernel and name not in a.kernel):
                continue
            sp = specs[name]
            dim = [int(x) for x in sp["dim"].split(",")]
            dim[0] = scaled(dim[0], a.scale)
            rng = np.random.default_rng(sum(map(ord, name)) * 7919 + dim[0])
            host = arrays_for(params, sp, dim, rng, a.scale)
            # Warp
            kern = wk[name]
            wargs = []
            for arg in kern.adj.args:
                if wp.types.is_array(arg.type):
                    wargs.append(wp.array(host[arg.label], dtype=arg.type.dtype, device="cpu"))
                else:
                    v = sp.get(arg.label, "0.5" if arg.type in (float, wp.float32) else "1")
                    wargs.append(float(v) if "." in v or "e" in v else int(v))
            wp.launch(kern, dim=tuple(dim), inputs=wargs, device="cpu")
            wres = {arg.label: x.numpy().copy() for arg, x in zip(kern.adj.args, wargs) if isinstance(x, wp.array)}
            # krun
            d = os.path.join(tmp, "%s.%s" % (mod, name))
            os.makedirs(d + ".in", exist_ok=True)
            cmd = [B + "/krun", w + ".cpp", "--kernel", name, "--dim", ",".join(map(str, dim)), "--unchecked",
                   "--quiet", "--out", d + ".out", "--time=%d" % a.iters]
            for n, v in host.items():
                np.save(os.path.join(d + ".in", n + ".npy"), v)
                cmd += ["--in", "%s=%s" % (n, os.path.join(d + ".in", n + ".npy"))]
            for pn, kind, t, nd, acc in params:
                if kind == "value":
                    cmd += ["--set", "%s=%s" % (pn, sp.get(pn, "0.5" if kpytype(t)[0].startswith("f") else "1"))]
            wt = kt = None
            for rnd in range(a.rounds):
                ts = []
                for _ in range(a.iters):
                    t0 = time.perf_counter()
                    wp.launch(kern, dim=tuple(dim), inputs=wargs, device="cpu")
                    ts.append((time.perf_counter() - t0) * 1e3)
                t = sorted(ts)[len(ts) // 2]
                wt = t if wt is None else min(wt, t)
                # the first round writes the outputs; the others only time
                p = subprocess.run(cmd if rnd == 0 else [x for x in cmd if x not in ("--out", d + ".out")],
                                   capture_output=True, text=True, env=env)
                m = re.search(r"median ([0-9.]+) ms", p.stderr)
                if p.returncode != 0 or not m:
                    break
                kt = float(m.group(1)) if kt is None else min(kt, float(m.group(1)))
            if p.returncode != 0 or not m:
                print("%-12s %-24s krun failed: %s" % (mod, name, p.stderr.strip().splitlines()[-1:]))
                bad += 1
                continue
            same, worst = True, 0.0
            for pn, kind, t, nd, acc in params:
                if kind != "array" or acc not in ("w", "rw"):
                    continue
                got = np.load(os.path.join(d + ".out", pn + ".npy"))
                ref = wres[pn].reshape(got.shape)
                if not np.array_equal(got, ref, equal_nan=True):
                    same = False
                    sc = float(np.max(np.abs(ref))) or 1.0
                    worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - ref))) / sc)
            r = kt / wt if wt > 0 else float("nan")
            ratios.append(r)
            print("%-12s %-24s %10.3f %10.3f %7.3f  %s" % (mod, name, wt, kt, r,
                                                            "bit-identical" if same else "differ: %.2g" % worst),
                  flush=True)
    if ratios:
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print("cpubench: %d kernels, krun/Warp geomean %.3f (min %.3f, max %.3f); %d failed" % (
            len(ratios), g, min(ratios), max(ratios), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
