#!/usr/bin/env python3
"""warpkernels — Warp's own kernels, run in Warp and through kpy (issue 23).

  warpkernels.py diff   --out DIR --bin BUILD-DIR --known FILE [--only REGEX]
  warpkernels.py sample --out DIR --dest DIR [--count N]

diff takes every core kernel of the installed wheel's tests and examples
that both kpyc and Warp accept (wheelkernels.py: extraction, acceptance),
derives a launch spec for it, keeps the spec only if kpy's bounds-checked
run (krun's default) succeeds with it, then runs the kernel in Warp (CPU)
and through kpyc | kopt -p ad | kcpu | krun on the same inputs, forward and
backward, with warpdiff.py's check_kernel (its tolerances, its Warp-exactness
rules, its finite-difference referee).  The spec:

  - the launch: the file's own wp.launch(NAME, dim=...) where it is a
    literal, else 16 (one dimension), 4 x 4, or 3 per dimension; a launch
    of one thread is the last resort;
  - arrays: shaped like the launch where their dimensions match it, else
    16, 64 or 256 per dimension (the first that passes the bounds check);
  - integer arrays and scalars (used as indices, counts or loop bounds):
    values in [0, m - 1], m the smallest extent of the kernel's arrays, so
    that an index read from one array is in bounds of every other;
  - scalars the file passes as literals in its wp.launch calls: those.

Kernels are compiled in shards: units whose shared definitions agree go into
one module (one Warp module, one C++ file), so Warp builds a few dozen
modules, not a thousand.  Each difference is classified:

  kpy bug           a forward result that differs beyond rounding, or a
                    gradient finite differences refute;
  Warp bug (FD)     Warp's gradient is off (by more than warpdiff.WARP_OFF)
                    where finite differences confirm kpy's;
  rounding          forward results within 4 ulps, or gradients the referee
                    accepts with Warp's error small;
  spec problem      no spec passed the bounds check, or the harness cannot
                    make the inputs (a skip, with its reason).

FILE lists the known differences, one per line: NAME CLASS: evidence.  diff
prints the totals and every difference, and exits 1 on a difference not in
FILE or a kernel skipped without a reason.  Results go to DIR/diff.json.

sample writes N of the kernels that diff found equal (a fixed choice: evenly
spaced in name order, no printing kernels), with their specs as warpdiff
comments, into shard modules under --dest, for tests/warp/wheel.test.
"""
import argparse
import ast
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheelkernels  # noqa: E402
import warpdiff as wd  # noqa: E402
import numpy as np  # noqa: E402

SHARD_MAX = 40


def unit_defs(text):
    """A unit's top-level statements keyed by what they bind: [(key, text)]."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    out, opts, seen = [], "", collections.Counter()
    for st in tree.body:
        t = wheelkernels.stmt_text(lines, st)
        if isinstance(st, ast.Expr):
            opts += t
            continue
        # the n-th binding of a name (overloads bind it several times)
        names = ",".join(sorted(wheelkernels.bound_names(st)) or ["?%d" % st.lineno])
        seen[names] += 1
        out.append(("%s#%d" % (names, seen[names]), t))
    out.append(("__options__", opts))
    return out


def make_shards(units, texts):
    """Greedy: a unit joins the first shard where every definition it shares
    a name with is the same text (and the same module options)."""
    shards = []  # (defs {key: text}, [units], [text parts])
    for u in units:
        defs = unit_defs(texts[u["name"]])
        for sh in shards:
            if len(sh[1]) < SHARD_MAX and all(sh[0].get(k, t) == t for k, t in defs):
                break
        else:
            sh = ({}, [], [])
            shards.append(sh)
        for k, t in defs:
            if k not in sh[0]:
                sh[0][k] = t
                if k != "__options__":
                    sh[2].append(t)
        sh[1].append(u)
    out = []
    for defs, us, parts in shards:
        out.append((us, "\n".join(parts) + ("\n" + defs["__options__"] if defs["__options__"] else "")))
    return out


def kpy_build(tool, path, cpp, grad):
    """kpyc | kopt | kcpu for one module; returns None or the error."""
    try:
        kir = wd.run([tool("kpyc"), path]).decode()
        passes = ["-p", "ad,fold,cse,dce"] if grad else ["-p", "fold,cse,dce"]
        kopt = wd.run([tool("kopt")] + passes, input=kir.encode()).decode()
        with open(cpp, "w") as f:
            f.write(wd.run([tool("kcpu"), "-g"], input=kopt.encode()).decode())
        return None, kir
    except RuntimeError as e:
        lines = str(e).strip().splitlines()
        errs = [l for l in lines if "error" in l]
        return (errs or lines[-1:])[0][:300], None


def spec_candidates(nd, launches, arrays_nd, uses_tid=True):
    # a kernel that never asks for its thread index is run by one thread
    dims = [] if uses_tid else [[1] * nd]
    for l in launches:
        d = l.get("dim")
        if d and len(d) == nd and all(isinstance(x, int) and 0 < x for x in d) and int(np.prod(d)) <= 4096:
            dims.append(list(d))
    dims.append([16] if nd == 1 else [4, 4] if nd == 2 else [3] * nd)
    dims.append([1] * nd)
    out, seen = [], set()
    for d in dims:
        for ext in (None, 16, 64, 256):
            shapes = {}
            for name, ndim in arrays_nd.items():
                if ext is None:
                    shapes[name] = list(d) if ndim == nd else [max(d)] * ndim
                else:
                    shapes[name] = [ext] * ndim
            key = json.dumps([d, shapes], sort_keys=True)
            if key not in seen:
                seen.add(key)
                out.append((d, shapes))
    return out


def derive_spec(k, kname, kir, cpp, rec, kd, tool, seed):
    """The first candidate spec whose bounds-checked kpy run succeeds;
    returns (spec, None) or (None, why)."""
    arrays_nd, ints = {}, {}
    for a in k.adj.args:
        if wd.wp.types.is_array(a.type):
            arrays_nd[a.label] = a.type.ndim
    sets = {}
    for l in rec.get("launches", []):
        for name, v in l["set"].items():
            sets.setdefault(name, v)
    nd = wd.launch_ndim(kir, kname)
    last = "no candidate"
    # a slice whose step is a variable: Warp aborts the process on a zero
    # step (builtin.h slice_assert_step_nonzero), so no integer is 0, not
    # even one the file launches with (to test that abort)
    nonzero = re.search(r"\[[^\[\]]*:[^\[\]]*:\s*-?\s*[A-Za-z_]", getattr(k.adj, "source", "") or "") is not None
    if nonzero:
        sets = {n: v for n, v in sets.items() if v != 0}
    uses_tid = re.search(r"= tid\b", wd.kernel_body(kir, kname)) is not None
    for dim, shapes in spec_candidates(nd, rec.get("launches", []), arrays_nd, uses_tid):
        m = min([min(s) for s in shapes.values()] or [4])
        ints = {}
        for a in k.adj.args:
            if a.label in sets:
                continue
            if wd.wp.types.is_array(a.type):
                ints[a.label] = [int(nonzero), max(m - 1, int(nonzero))]
            else:
                ints[a.label] = [int(nonzero), max(min(m - 1, 3), int(nonzero))]
        spec = {"dim": dim, "shapes": shapes, "ints": ints, "set": {n: v for n, v in sets.items() if n not in arrays_nd}}
        try:
            arrays, scalars = wd.make_inputs(k, dim, seed, spec)
        except wd.Skip as e:
            return None, "harness: %s" % e
        except Exception as e:  # noqa: BLE001 - a literal that does not fit the type
            return None, "harness: %s" % e
        cmd = wd.krun_cmd(tool, cpp, kname, dim, seed, kd, arrays, scalars) + ["-q"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode == 0:
            return spec, None
        last = (p.stderr.decode(errors="replace").strip().splitlines() or ["exit %d" % p.returncode])[0]
        last = re.sub(r"^\S+:\d+: (error: )?", "", last)[:200]
        if "arithmetic exception" in last and not nonzero:
            nonzero = True  # an integer divided by one of the values: none is 0
            continue
        if "outside its shape" not in last:
            break
    return None, "spec problem: no launch passed the bounds-checked run: %s" % last


def ulps(want, got):
    """Largest distance in units in the last place between two float arrays."""
    w, g = want.astype(want.dtype), got.astype(want.dtype)
    it = {2: np.int16, 4: np.int32, 8: np.int64}[want.dtype.itemsize]
    a, b = w.view(it).astype(np.int64), g.view(it).astype(np.int64)
    mn = np.iinfo(it).min
    a = np.where(a < 0, mn - a, a)
    b = np.where(b < 0, mn - b, b)
    ok = ~(np.isnan(w) & np.isnan(g))
    return int(np.abs(a - b)[ok].max()) if ok.any() else 0


def classify(r):
    """[(class, message)] for a result's differences."""
    out = []
    for e in r.errs:
        name = e.split(":", 1)[0]
        if e.startswith("gradient check against finite differences failed"):
            out.append(("kpy bug", e))
        elif name.startswith("adj_"):
            # finite differences confirm kpy's float64 gradient, but kpy's
            # float32 one is further from it than 4 times Warp's error (or
            # the check gave no verdict): listed, never passed by default
            out.append(("kpy bug" if "refute" in e else "Warp bug (FD)" if "where finite differences confirm kpy" in e else "rounding", e))
        else:
            w = r.want.get(name)
            p = os.path.join(r.kd, "out", name + ".npy")
            if w is not None and w.dtype.kind == "f" and os.path.exists(p):
                g = np.load(p)
                if g.shape == w.shape and ulps(w, g) <= 4:
                    out.append(("rounding", e + " (%d ulps)" % ulps(w, g)))
                    continue
            out.append(("kpy bug", e))
    if r.error:
        out.append(("kpy bug" if "krun" in r.error or "kopt" in r.error else "harness", r.error))
    return out


def load_known(path):
    known = {}
    if path and os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#"):
                name, rest = line.split(None, 1)
                known[name] = rest
    return known


def diff(a):
    tool = lambda t: os.path.join(a.bin, t)
    t0 = time.time()
    index = wheelkernels.analyse(a.out, a.bin)
    cand = [r for r in index if "unit" in r and r["class"] == "core" and r["kpyc"] is None and r["warp"] is None]
    if a.only:
        cand = [r for r in cand if re.search(a.only, r["name"])]
    texts = {r["name"]: open(os.path.join(a.out, r["unit"])).read() for r in cand}
    work = os.path.join(a.out, "diff")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    results = {}
    shards = make_shards(cand, texts)
    print("warp-kernels-diff: %d kernels in %d shards" % (len(cand), len(shards)))
    sys.stdout.flush()
    queue = list(shards)
    si = 0
    while queue:
        units, text = queue.pop(0)
        si += 1
        sd = os.path.join(work, "s%03d" % si)
        os.makedirs(sd)
        path = os.path.join(sd, "shard_%03d.py" % si)
        with open(path, "w") as f:
            f.write(text)
        cpp = os.path.join(sd, "k.cpp")
        err, kir = kpy_build(tool, path, cpp, True)
        if err and len(units) > 1:
            # one kernel spoils the shard: each alone
            for u in units:
                queue.extend(make_shards([u], texts))
            continue
        grad = True
        if err:
            res = {"status": "fail", "diffs": [["kpy bug", "kpy build with -p ad: " + err]]}
            err2, kir = kpy_build(tool, path, cpp, False)
            if err2:
                results[units[0]["name"]] = {"status": "fail", "diffs": [["kpy bug", "kpy build: " + err2]]}
                continue
            grad = False
            results[units[0]["name"]] = res
        try:
            mod = wd.load_module(path, si)
        except Exception as e:  # noqa: BLE001
            for u in units:
                results[u["name"]] = {"status": "skip", "why": "Warp cannot import the shard: %s" % str(e)[:200]}
            continue
        for u in units:
            name = u["name"]
            k = getattr(mod, name, None)
            kd = os.path.join(sd, name)
            if not isinstance(k, wd.wp.Kernel):
                results[name] = {"status": "skip", "why": "harness: the shard has no kernel %s" % name}
                continue
            # a generic kernel: each of its overloads (issue 14), the first
            # that differs or is skipped reported for the kernel
            try:
                insts = wd.instances(k, kir, name)
            except ValueError as e:
                results[name] = {"status": "fail", "diffs": [["kpy bug", str(e)]]}
                continue
            spec, why = None, "harness: no instance of the kernel to run"
            for ik, iname in insts:
                spec, why = derive_spec(ik, iname, kir, cpp, u, kd, tool, 1)
                if spec is None:
                    break
                r = wd.check_kernel(ik, iname, spec["dim"], spec, kir, cpp, kd, 1, grad, tool)
                if r.status != "ok":
                    break
            if spec is None:
                results[name] = {"status": "skip", "why": why}
                continue
            if r.status == "skip":
                results[name] = {"status": "skip", "why": "harness: " + r.skip}
                continue
            prev = results.get(name, {}).get("diffs", [])
            d = classify(r) + prev
            results[name] = {
                "status": r.status if not prev else "fail", "spec": spec, "diffs": d,
                "fd": r.fd_grad, "exact": r.exact_grad, "no_oracle": r.no_oracle, "no_backward": r.no_backward or not grad,
                "bitequal": r.status == "ok" and all(
                    os.path.exists(os.path.join(kd, "out", n + ".npy")) and
                    np.array_equal(w, np.load(os.path.join(kd, "out", n + ".npy")), equal_nan=w.dtype.kind == "f")
                    for n, w in r.want.items()),
                "grad_ok": r.exact_grad and not any(c for c, m in d if m.startswith("adj_")),
            }
            shutil.rmtree(kd, ignore_errors=True)
        print("  shard %d: %d kernels, %.0f s so far" % (si, len(units), time.time() - t0))
        sys.stdout.flush()
    return report(a, index, cand, results, time.time() - t0)


def report(a, index, cand, results, secs):
    known = load_known(a.known)
    with open(os.path.join(a.out, "diff.json"), "w") as f:
        json.dump(results, f, indent=0)
    rows = collections.OrderedDict()
    for label, sel in (("examples", "warp/examples/"), ("tests", "warp/tests/")):
        core = [r for r in index if "unit" in r and r["class"] == "core" and r["warp"] is None and r["file"].startswith(sel)]
        acc = [r for r in core if r["kpyc"] is None and r in cand]
        res = [results.get(r["name"], {"status": "skip", "why": ""}) for r in acc]
        run = [x for x in res if x["status"] != "skip"]
        fwd = [x for x in run if not any(not m.startswith(("adj_", "gradient check", "kpy build with -p ad")) for c, m in x["diffs"])]
        bit = [x for x in run if x.get("bitequal")]
        ex = [x for x in run if x.get("exact")]
        gok = [x for x in ex if x.get("grad_ok")]
        fd = [x for x in run if x.get("fd")]
        fdok = [x for x in fd if not any(m.startswith("gradient check") for c, m in x["diffs"])]
        rows[label] = ["%d / %d" % (len(core), len(acc)), "%d" % len(run), "%d (%d bit-identical)" % (len(fwd), len(bit)),
                       "%d / %d" % (len(gok), len(ex)), "%d / %d" % (len(fdok), len(fd))]
    names = ["core kernels Warp accepts / accepted by kpyc", "run (a spec passed the bounds check)",
             "forward equal to Warp", "gradients equal to Warp (where Warp's are exact)",
             "gradients confirmed by finite differences (Warp's not exact)"]
    print("\n| | examples | tests |\n|---|---|---|")
    for i, n in enumerate(names):
        print("| %s | %s | %s |" % (n, rows["examples"][i], rows["tests"][i]))
    skips = collections.Counter()
    noreason = []
    for name, x in results.items():
        if x["status"] == "skip":
            if not x.get("why"):
                noreason.append(name)
            skips[re.sub(r"parameter \w+|\(.*", "…", x["why"])[:100]] += 1
    missing = [r["name"] for r in cand if r["name"] not in results]
    print("\nskipped (not run), by reason:")
    for why, n in skips.most_common():
        print("  %5d  %s" % (n, why))
    new = 0
    print("\ndifferences:")
    for name in sorted(results):
        for c, m in results[name].get("diffs", []):
            k = known.get(name)
            tag = "known: " + k[:120] if k is not None else "NEW"
            if k is None and c == "rounding" and re.search(r"\(\d ulps\)$", m):
                tag = "within 4 ulps"  # forward rounding: the only class passed without an entry
            elif k is None:
                new += 1
            print("  %s [%s] %s (%s)" % (name, c, m[:300], tag))
    stale = [n for n in known if n not in results or not results[n].get("diffs")]
    if stale and not a.only:
        print("\nknown differences that did not show (stale entries): %s" % ", ".join(stale))
    print("\nwarp-kernels-diff: %d kernels, %d run, %d new differences, %d skipped without a reason, %d not reached, in %.0f s" % (
        len(cand), sum(1 for x in results.values() if x["status"] != "skip"), new, len(noreason), len(missing), secs))
    return 1 if new or noreason or missing else 0


def sample(a):
    results = json.load(open(os.path.join(a.out, "diff.json")))
    index = json.load(open(os.path.join(a.out, "coverage.json")))
    recs = {r["name"]: r for r in index if "unit" in r}
    ok = sorted(n for n, x in results.items() if x["status"] == "ok" and not x.get("diffs") and n in recs)
    texts = {}
    for n in list(ok):
        t = open(os.path.join(a.out, recs[n]["unit"])).read()
        if re.search(r"\b(print|printf)\s*\(", t):
            ok.remove(n)
            continue
        texts[n] = t
    step = max(1, len(ok) / float(a.count))
    chosen = [ok[int(i * step)] for i in range(min(a.count, len(ok)))]
    os.makedirs(a.dest, exist_ok=True)
    for f in os.listdir(a.dest):
        if f.endswith(".py"):
            os.remove(os.path.join(a.dest, f))
    shards = make_shards([recs[n] for n in chosen], texts)
    for i, (units, text) in enumerate(shards, 1):
        head = ["# Kernels of NVIDIA Warp 1.19.0's tests and examples (Apache-2.0),",
                "# extracted by tests/warp/wheelkernels.py, chosen by warpkernels.py sample;",
                "# each with the launch spec warp-kernels-diff derived (warpdiff.py SPEC)."]
        for u in units:
            sp = dict(results[u["name"]]["spec"])
            head.append("# warpdiff: kernel=%s %s" % (u["name"], json.dumps(sp, sort_keys=True, separators=(",", ":"))))
        with open(os.path.join(a.dest, "wheel_%02d.py" % i), "w") as f:
            f.write("\n".join(head) + "\n" + text)
    print("%d kernels in %d modules under %s" % (len(chosen), len(shards), a.dest))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["diff", "sample"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--bin", default=os.environ.get("top_builddir", "."))
    ap.add_argument("--known", default=None)
    ap.add_argument("--only", default=None, help="only kernels whose name matches this regular expression")
    ap.add_argument("--dest", default=None)
    ap.add_argument("--count", type=int, default=50)
    a = ap.parse_args()
    a.bin = os.path.abspath(a.bin)
    return diff(a) if a.command == "diff" else sample(a)


if __name__ == "__main__":
    sys.exit(main())
