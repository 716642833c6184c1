#!/usr/bin/env python3
"""coldtime.py — the cold time from Python to PTX for one module (a
benchmark, not a test; `make bench-ptx` and `make bench`).

RUNS times, interleaved so that the machine's load hits every row alike:
each tool on its own, file to file (kpyc; kopt -p PASSES; kptx), and the
pipe kpyc | kopt -p PASSES | kptx as separate processes; with --version,
`kptx --version` (process start with LLVM loaded); with --nvcc NVCC,
`nvcc -ptx` on kcuda's C++ for the same module, the anchor (forward; with
"ad" among PASSES, of kopt -p ad,O's output: forward and backward).
Wall and CPU time (user + system, from wait4) of each row, best and
median, in ms: a table, or with --tsv one line per row,
"NAME<TAB>WALL_BEST<TAB>WALL_MEDIAN<TAB>CPU_BEST<TAB>CPU_MEDIAN".

  coldtime.py --bin BUILDDIR [--passes P] [--arch sm_80] [--runs 20]
              [--version] [--nvcc NVCC --include DIR] [--tsv] MODULE.py
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LOWER = "inline,unroll,fold,cse,dce,scalarize,fold,cse,dce"


def reap(procs):
    """wait for the processes (Popen objects, kept alive so that subprocess
    does not reap them first); their CPU time in seconds"""
    cpu = 0.0
    for p in procs:
        _, st, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(st)
        if p.returncode:
            sys.exit("coldtime: %s failed" % p.args[0])
        cpu += ru.ru_utime + ru.ru_stime
    return cpu


def one(argv):
    t0 = time.perf_counter()
    cpu = reap([subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)])
    return time.perf_counter() - t0, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--passes", default=LOWER)
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--version", action="store_true")
    ap.add_argument("--nvcc")
    ap.add_argument("--include", default="")
    ap.add_argument("--tsv", action="store_true")
    ap.add_argument("module")
    a = ap.parse_args()
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    tmp = tempfile.mkdtemp(prefix="coldtime.")
    try:
        return run(a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(a, tmp):
    B, py, lower, arch = a.bin, a.module, a.passes, a.arch
    kpyc, kopt, kptx = (os.path.join(B, t) for t in ("kpyc", "kopt", "kptx"))
    k, low, ptx = (os.path.join(tmp, n) for n in ("c.kir", "c.low.kir", "c.ptx"))
    err = open(os.devnull, "w")

    def pipe():
        t0 = time.perf_counter()
        x = subprocess.Popen([kpyc, py], stdout=subprocess.PIPE)
        y = subprocess.Popen([kopt, "-p", lower], stdin=x.stdout, stdout=subprocess.PIPE, stderr=err)
        x.stdout.close()
        z = subprocess.Popen([kptx, "--arch=" + arch, "-o", ptx], stdin=y.stdout)
        y.stdout.close()
        cpu = reap([x, y, z])
        return time.perf_counter() - t0, cpu

    stages = [("kpyc", [kpyc, py, "-o", k]),
              ("kopt -p PASSES", [kopt, "-p", lower, k, "-o", low]),
              ("kptx", [kptx, "--arch=" + arch, low, "-o", ptx])]
    rows = [(n, (lambda v=v: one(v))) for n, v in stages] + [("kpyc | kopt | kptx", pipe)]
    if a.version:
        rows.append(("kptx --version", lambda: one([kptx, "--version"])))
    if a.nvcc:
        subprocess.run([kpyc, py, "-o", k], check=True)
        if "ad" in lower.split(","):
            subprocess.run([kopt, "-p", "ad,O", k, "-o", low], check=True, stderr=err)
            k = low
        cu = os.path.join(tmp, "c.cu")
        subprocess.run([os.path.join(B, "kcuda"), k, "-o", cu], check=True)
        nv = [a.nvcc, "-arch=" + arch, "-ptx", "-std=c++17", cu, "-o", os.path.join(tmp, "nv.ptx")]
        if a.include:
            nv.insert(-3, "-I" + a.include)
        rows.append(("nvcc -ptx", lambda: one(nv)))
    res = {n: [] for n, _ in rows}
    for r in range(a.runs):  # interleaved: the load hits every row alike
        for n, f in rows:
            res[n].append(f())
    if not a.tsv:
        print("%-20s %21s %21s" % ("ms", "wall best/median", "CPU best/median"))
    for n, _ in rows:
        w = sorted(x[0] for x in res[n])
        c = sorted(x[1] for x in res[n])
        f = "%s\t%.2f\t%.2f\t%.2f\t%.2f" if a.tsv else "%-20s %10.1f/%-10.1f %10.1f/%-10.1f"
        print(f % (n, 1e3 * w[0], 1e3 * statistics.median(w), 1e3 * c[0], 1e3 * statistics.median(c)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
