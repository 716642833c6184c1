#!/usr/bin/env python3
"""warpbench.py — write the GPU benchmark against Warp (docs/gpu-bundle.md).

For every module given (default: tests/cuda/bench/*.py), every kernel,
forward and backward:
  kcuda   kpyc | kopt -p inline,ad,fold,cse,dce | kcuda, nvcc -O3 -cubin
  kptx    the same kir, kopt -p LOWER | kptx, ptxas -O3
  warp    Warp's own CUDA for the module (wp.compile_aot_module: Warp's
          codegen and NVRTC with Warp's release options; no GPU needed)
all for ARCH (sm_90), contraction on everywhere (nvcc's and Warp's
default).  The bundle (OUT/) holds the three cubins per module and
spec.json: per kernel, the arrays (dtype, shape, how to draw them), the
parameter list of each ABI (kpy's: kpy_launch_bounds, kpy::array_t<T, ND>
by value; Warp's: launch_bounds_t<N>, wp::array_t<T>), the .param sizes of
each entry in the PTX each compiler wrote, and what to compare.
warpbench_run.py (copied as run.py) runs it on a GPU with numpy and cupy
only; its --dry mode, run here, checks every parameter buffer it would pass
against those PTX sizes, so a launch cannot pass a buffer of the wrong
shape.  With --static, prints per
kernel and back end: registers and spilled bytes (ptxas -v) and the global
loads, stores and atomics in the PTX, side by side.

Array sizes and scalar values come from `# BENCH kernel: dim=... name=...`
lines in the module:  dim=N[,M...] the launch; name=dim | N[,M] the shape
of array `name` (trailing element dims added), `:<K` draws an int array in
[0, K) (indices); name=VALUE for a scalar.  Floats are drawn in [-1, 1],
ints in [0, 16) unless given.

  warpbench.py --bin BUILDDIR --out DIR [--arch sm_90] [--static] [--kptx-flag=OPT]... [MODULE.py...]

--kptx-flag passes an option to kptx (--kptx-flag=-O3: its O3 pipeline in
place of the default), to bench kptx's pipelines against each other.
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("WARP_CACHE_PATH", os.path.join(tempfile.gettempdir(), "kpy-warp-cache"))
import warp as wp  # noqa: E402

wp.config.quiet = True

# Warp's NVRTC may be newer than this ptxas: its PTX, read for the static
# counts only, is declared at an ISA version the local ptxas knows.
PTXVERSION = ".version 9.0"
LOWER = "unroll,fold,cse,dce,scalarize,fold,cse,dce"
SCAL = {"f32": ("f4", 4), "f64": ("f8", 8), "i32": ("i4", 4), "u32": ("u4", 4), "i64": ("i8", 8),
        "u64": ("u8", 8), "f16": ("f2", 2), "bool": ("u1", 1), "i8": ("i1", 1), "u8": ("u1", 1),
        "i16": ("i2", 2), "u16": ("u2", 2)}


def die(msg, code=1):
    print("warpbench: " + msg, file=sys.stderr)
    sys.exit(code)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd[:2]), (r.stderr or r.stdout).strip().splitlines()[:3]))
    return r


def kpytype(t):
    """kir type text -> (scalar code, element dims) for values; arrays elsewhere."""
    m = re.fullmatch(r"vec<(\d+),(\w+)>", t)
    if m:
        return m.group(2), [int(m.group(1))]
    m = re.fullmatch(r"mat<(\d+),(\d+),(\w+)>", t)
    if m:
        return m.group(3), [int(m.group(1)), int(m.group(2))]
    m = re.fullmatch(r"quat<(\w+)>", t)
    if m:
        return m.group(1), [4]
    if t in SCAL:
        return t, []
    raise RuntimeError("type %s is not benchmarked" % t)


def splitparams(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def kpylist(line):
    """One line of krun --list -> (name, [(pname, kind, type, access)], tid)."""
    name = line[:line.index("(")]
    body = line[line.index("(") + 1:line.rindex(")")]
    params = []
    for p in splitparams(body):
        pname, rest = p.split(":", 1)
        rest = rest.strip()
        m = re.fullmatch(r"array<(.*),(\d)>\s*(\S*)", rest)
        if m:
            params.append((pname.strip(), "array", m.group(1), int(m.group(2)), m.group(3)))
        else:
            params.append((pname.strip(), "value", rest.split()[0], 0, ""))
    tid = int(re.search(r" tid=(\d+)", line).group(1))
    return name, params, tid


def benchspecs(path):
    specs = {}
    for line in open(path):
        m = re.match(r"#\s*BENCH\s+(\w+):\s*(.*)", line)
        if m:
            specs[m.group(1)] = dict(kv.split("=", 1) for kv in m.group(2).split())
    return specs


def scaled(x, scale):
    """A BENCH size made smaller for the CPU benchmark (cpubench.py)."""
    x = int(x)
    return x // scale if x >= 4096 else x


def benchsize(s, dim, scale=1):
    """A BENCH array size (`dim`, `N[,M..]`, either with `:<K`) -> (shape,
    K or None), the launch extents `dim` given; the numbers scaled."""
    hi = None
    if ":<" in s:
        s, hi = s.split(":<")
        hi = scaled(hi, scale)
    shape = []
    for x in s.split(","):
        shape += dim if x == "dim" else [scaled(x, scale)]
    return shape, hi


def ptxparams(ptx, entry):
    """The .param byte sizes of entry `entry` in PTX text."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        return None
    sizes = []
    for p in m.group(1).split(","):
        p = p.strip()
        mm = re.search(r"\.b8\s+\S+\[(\d+)\]", p)
        if mm:
            sizes.append(int(mm.group(1)))
            continue
        mm = re.search(r"\.(?:[usbf])(\d+)\s", p + " ")
        sizes.append(int(mm.group(1)) // 8 if mm else -1)
    return sizes


def align(n, a):
    return (n + a - 1) // a * a


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS", "ptxas"))
    ap.add_argument("--include", default=None)
    ap.add_argument("--static", action="store_true")
    ap.add_argument("--kptx-flag", action="append", default=[],
                    help="an option for kptx (repeatable): e.g. -O3 to bench kptx's O3 pipeline")
    ap.add_argument("modules", nargs="*")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    mods = a.modules or sorted(os.path.join(here, "bench", f) for f in os.listdir(os.path.join(here, "bench"))
                               if f.endswith(".py"))
    inc = a.include or os.path.join(here, "..", "..", "runtime", "include")
    arch = a.arch
    archnum = int(arch.split("_")[1])
    B = a.bin
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="warpbench.")
    env = dict(os.environ, KPY_CACHE=os.path.join(tmp, "cache"), KPY_INCLUDE=inc)
    kernels, failed, static = [], 0, []
    try:
        for path in mods:
            mod = os.path.basename(path)[:-3]
            w = os.path.join(tmp, mod)
            specs = benchspecs(path)
            try:
                kir = run([B + "/kpyc", path], env=env).stdout
                kir = run([B + "/kopt", "-p", "inline,ad,fold,cse,dce"], input=kir, env=env).stdout
                open(w + ".kir", "w").write(kir)
                run([B + "/kcpu", w + ".kir", "-o", w + ".cpp"], env=env)
                lst = run([B + "/krun", w + ".cpp", "--list"], env=env).stdout.splitlines()
                run([B + "/kcuda", w + ".kir", "-o", w + ".cu"], env=env)
                nv = [a.nvcc, "-O3", "-std=c++17", "-arch=" + arch, "-I" + inc]
                run(nv + ["-cubin", "-o", os.path.join(a.out, mod + ".kcuda.cubin"), w + ".cu"])
                run(nv + ["-ptx", "-o", w + ".kcuda.ptx", w + ".cu"])
                low = run([B + "/kopt", "-p", LOWER, w + ".kir"], env=env).stdout
                open(w + ".low.kir", "w").write(low)
                run([B + "/kptx", "--arch=" + arch] + a.kptx_flag + [w + ".low.kir", "-o", w + ".kptx.ptx"], env=env)
                run([a.ptxas, "-O3", "-arch=" + arch, w + ".kptx.ptx", "-o", os.path.join(a.out, mod + ".kptx.cubin")])
                # Warp's code for the same module
                spec = importlib.util.spec_from_file_location("kpybench_" + mod, path)
                pm = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(pm)
                wd = os.path.join(tmp, "warp-" + mod)
                cub = wp.compile_aot_module(pm, arch=archnum, module_dir=wd, use_ptx=False, strip_hash=True)
                shutil.copy(str(cub[0]), os.path.join(a.out, mod + ".warp.cubin"))
                wdp = os.path.join(tmp, "warpptx-" + mod)
                wptx = wp.compile_aot_module(pm, arch=archnum, module_dir=wdp, use_ptx=True, strip_hash=True)
                wptx = re.sub(r"^\.version .*$", PTXVERSION, open(str(wptx[0])).read().replace("\0", ""), count=1,
                               flags=re.M)
            except Exception as e:  # a module that does not build is a failure, listed
                print("warpbench: %s: %s" % (mod, e), file=sys.stderr)
                failed += 1
                continue
            ptx = {"kcuda": open(w + ".kcuda.ptx").read(), "kptx": open(w + ".kptx.ptx").read(), "warp": wptx}
            wk = {k.key: k for k in pm.__dict__.values() if isinstance(k, wp.Kernel)}
            fwdlist = {}
            cnames = re.findall(r'^extern "C" __global__ void (\w+)\(', open(w + ".cu").read(), re.M)
            if len(cnames) != len(lst):
                print("warpbench: %s: %d kernels listed, %d CUDA entries" % (mod, len(lst), len(cnames)),
                      file=sys.stderr)
                failed += 1
                continue
            for line, cname in zip(lst, cnames):
                name, params, tid = kpylist(line)
                fwdlist[name] = (params, tid, cname)
            for name, (params, tid, cname) in fwdlist.items():
                bwd = name.endswith(".adj")
                fname = name[:-4] if bwd else name
                if bwd and tid == 0:
                    print("warpbench: %s %s: no gradient flows (an empty backward), not benchmarked" % (mod, name),
                          file=sys.stderr)
                    continue
                if fname not in specs:
                    print("warpbench: %s %s: no BENCH line, not benchmarked" % (mod, fname), file=sys.stderr)
                    continue
                try:
                    kernels.append(kernelspec(mod, name, cname, fname, bwd, params, tid, fwdlist, specs[fname],
                                              wk[fname], ptx, static))
                except Exception as e:
                    print("warpbench: %s %s: %s" % (mod, name, e), file=sys.stderr)
                    failed += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    json.dump({"arch": arch, "kernels": kernels}, open(os.path.join(a.out, "spec.json"), "w"), indent=1)
    shutil.copy(os.path.join(here, "warpbench_run.py"), os.path.join(a.out, "run.py"))
    shutil.copy(os.path.join(here, "warpbench_profile.sh"), os.path.join(a.out, "profile.sh"))
    # the launcher's parameter buffers, against the PTX sizes
    if subprocess.run([sys.executable, os.path.join(a.out, "run.py"), "--dry", "--dir", a.out]).returncode != 0:
        failed += 1
    print("warpbench: %d kernels (%d forward, %d backward) in %s; %d failed" % (
        len(kernels), sum(k["fb"] == "fwd" for k in kernels), sum(k["fb"] == "bwd" for k in kernels), a.out, failed))
    if a.static:
        printstatic(static, a.ptxas, arch)
    sys.exit(1 if failed else 0)


def kernelspec(mod, name, cname, fname, bwd, params, tid, fwdlist, spec, kern, ptx, static):
    dim = [int(x) for x in spec["dim"].split(",")]
    if len(dim) != tid:
        raise RuntimeError("BENCH dim has %d extents, the kernel %d" % (len(dim), tid))
    fparams = fwdlist[fname][0]
    access = {p[0]: p[4] for p in fparams}
    arrays, kpy, values = {}, [], {}

    def arrayof(pn, t, nd):
        base = pn[4:] if pn.startswith("adj_") and pn[4:] in access else pn
        sc, elem = kpytype(t)
        s = spec.get(base, "dim")
        shape, hi = benchsize(s, dim)
        if len(shape) != nd:
            raise RuntimeError("array %s: BENCH shape %s for %d dims" % (pn, s.split(":<")[0], nd))
        gen = "uniform" if sc in ("f32", "f64", "f16") else "int"
        if pn != base:  # an adjoint: the seed of what the forward wrote, else zero
            gen = "uniform" if access[base] in ("w", "rw") and gen == "uniform" else "zero"
        d = {"dtype": SCAL[sc][0], "shape": shape, "elem": elem, "gen": gen}
        if hi is not None and pn == base:
            d["hi"] = hi
        arrays[pn] = d

    for pn, kind, t, nd, acc in params:
        if kind == "array":
            arrayof(pn, t, nd)
            kpy.append({"kind": "array", "name": pn, "ndim": nd})
        else:
            sc, elem = kpytype(t)
            n = 1
            for e in elem:
                n *= e
            v = spec.get(pn, "0.5" if sc.startswith("f") else "1")
            values[pn] = {"dtype": SCAL[sc][0], "count": n, "value": float(v) if sc.startswith("f") else int(v)}
            kpy.append({"kind": "value", "name": pn, "nbytes": n * SCAL[sc][1]})
    # Warp: the forward's parameters, and for the backward an adjoint of each
    warpp = []
    for arg in kern.adj.args:
        if wp.types.is_array(arg.type):
            warpp.append({"kind": "array", "name": arg.label})
        else:
            warpp.append({"kind": "value", "name": arg.label, "nbytes": wp.types.type_size_in_bytes(arg.type)})
    if bwd:
        for arg in list(kern.adj.args):
            an = "adj_" + arg.label
            if wp.types.is_array(arg.type):
                if an not in arrays:
                    raise RuntimeError("Warp's adjoint %s has no kpy counterpart" % an)
                warpp.append({"kind": "array", "name": an})
            else:
                warpp.append({"kind": "value", "name": an, "nbytes": wp.types.type_size_in_bytes(arg.type), "zero": True})
    for p in warpp:
        if p["kind"] == "array" and p["name"] not in arrays:
            raise RuntimeError("Warp's parameter %s is not kpy's" % p["name"])
    wname = fname + ("_cuda_kernel_backward" if bwd else "_cuda_kernel_forward")
    # the parameter sizes in the PTX each compiler wrote: run.py --dry
    # checks its buffers against them
    ent = {"kcuda": cname, "kptx": cname, "warp": wname}
    sizes = {}
    for b in ("kcuda", "kptx", "warp"):
        sizes[b] = ptxparams(ptx[b], ent[b])
        if sizes[b] is None:
            raise RuntimeError("%s: no entry %s in the PTX" % (b, ent[b]))
        static.append((mod, name, b, ent[b], ptx[b]))
    # what to compare: the forward's outputs; the adjoints of the arrays the forward only reads
    if bwd:
        outs = [pn for pn, kind, t, nd, acc in params if kind == "array" and pn.startswith("adj_")
                and access.get(pn[4:]) == "r" and arrays[pn]["dtype"].startswith("f")]
    else:
        outs = [pn for pn, kind, t, nd, acc in params if kind == "array" and acc in ("w", "rw")]
    return {"module": mod, "kernel": name, "fb": "bwd" if bwd else "fwd", "dim": dim, "arrays": arrays,
            "values": values, "kpy": kpy, "warp": warpp, "entries": ent, "ptx_sizes": sizes, "outputs": outs,
            "touched": [pn for pn, kind, t, nd, acc in params if kind == "array" and acc != "-"]}


def entrytext(ptx, entry):
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(", ptx)
    if not m:
        return ""
    end = ptx.find(".entry", m.end())
    return ptx[m.start():end if end >= 0 else len(ptx)]


def printstatic(static, ptxas, arch):
    print("%-14s %-26s %-6s %5s %6s %5s %5s %5s %5s" % ("module", "kernel", "via", "regs", "spill", "ld.g", "st.g", "atom",
                                                    "gen"))
    tmpd = tempfile.mkdtemp(prefix="warpbench-static.")
    try:
        regs = {}
        for mod, name, b, ent, ptx in static:
            key = (mod, b)
            if key not in regs:
                f = os.path.join(tmpd, "%s.%s.ptx" % (mod, b))
                open(f, "w").write(ptx)
                r = subprocess.run([ptxas, "-O3", "-v", "-arch=" + arch, f, "-o", os.devnull],
                                   capture_output=True, text=True)
                cur, info = None, {}
                for line in r.stderr.splitlines():
                    m = re.search(r"Compiling entry function '([^']+)'", line)
                    if m:
                        cur = m.group(1)
                        info[cur] = [0, 0]
                    m = re.search(r"(\d+) bytes spill stores", line)
                    if m and cur:
                        info[cur][1] = int(m.group(1))
                    m = re.search(r"Used (\d+) registers", line)
                    if m and cur:
                        info[cur][0] = int(m.group(1))
                regs[key] = info
            t = entrytext(ptx, ent)
            ld = len(re.findall(r"\bld\.global", t))
            gen = len(re.findall(r"\b(?:ld|st)\.(?!global|param|local|shared|const)", t))
            st = len(re.findall(r"\bst\.global", t))
            at = len(re.findall(r"\b(?:atom|red)\.", t))
            rg, sp = regs[(mod, b)].get(ent, [-1, -1])
            print("%-14s %-26s %-6s %5d %6d %5d %5d %5d %5d" % (mod, name, b, rg, sp, ld, st, at, gen))
    finally:
        shutil.rmtree(tmpd, ignore_errors=True)


if __name__ == "__main__":
    main()
