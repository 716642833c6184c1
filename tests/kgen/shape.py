#!/usr/bin/env python3
"""shape.py — the shape of kernels, to compare kgen's with people's.

For every @wp.kernel of the given Python files: its lines (the body's
non-blank, non-comment lines), kir operations (kpyc's output for the kernel
and every func of its module, before any pass: the modules measured here
hold one kernel each), loops (for, while), branches (if,
elif, conditional expressions) and calls.  Prints, per group of files
(--group NAME FILE... may repeat), the median and 90th percentile of each,
and the share of kernels with a loop and with a branch.

  shape.py --kpyc build/kpyc --group kgen all.py --group warp-examples ex/*.py
"""
import argparse
import ast
import re
import subprocess
import sys


def kernels(path):
    try:
        src = open(path).read()
        tree = ast.parse(src)
    except (OSError, SyntaxError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        decos = [ast.unparse(d) for d in node.decorator_list]
        if not any(re.match(r"(wp\.|warp\.)?kernel\b", d) for d in decos):
            continue
        lines = set()
        loops = branches = calls = 0
        for sub in ast.walk(node):
            if isinstance(sub, ast.stmt) and sub is not node:
                lines.add(sub.lineno)
            if isinstance(sub, (ast.For, ast.While)):
                loops += 1
            elif isinstance(sub, (ast.If, ast.IfExp)):
                branches += 1
            elif isinstance(sub, ast.Call):
                calls += 1
        out.append({"name": node.name, "lines": len(lines), "loops": loops, "branches": branches, "calls": calls})
    return out


OPLINE = re.compile(r"^\s+(%[^ ]+ = )?[a-z_][a-z_0-9]* ")


def kirops(kpyc, path):
    """kernel name -> kir operations of the kernel and of every func of the
    module (a kernel's helpers; shared ones count for each of its kernels)."""
    r = subprocess.run([kpyc, path], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    ops, funcops, cur = {}, 0, None
    for line in r.stdout.splitlines():
        m = re.match(r"^(kernel|func) @([A-Za-z0-9_.]+)", line)
        if m:
            cur = (m.group(1), m.group(2))
            if m.group(1) == "kernel":
                ops[cur[1]] = 0
            continue
        if line.startswith("}") and not line.startswith("} "):
            cur = None
            continue
        if cur and OPLINE.match(line) and not re.match(r"^\s+(ret|yield)\b", line):
            if cur[0] == "kernel":
                ops[cur[1]] += 1
            else:
                funcops += 1
    return {k: v + funcops for k, v in ops.items()}


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kpyc", required=True)
    ap.add_argument("--group", nargs="+", action="append", required=True, metavar=("NAME", "FILE"))
    a = ap.parse_args()
    print("| kernels | n | lines median/p90 | kir ops median/p90 | calls median/p90 | with a loop | with a branch |")
    print("|---|---|---|---|---|---|---|")
    for g in a.group:
        name, files = g[0], g[1:]
        rows = []
        for f in files:
            ks = kernels(f)
            if not ks:
                continue
            ops = kirops(a.kpyc, f)
            if ops is None:
                continue  # kpyc rejects it: not comparable
            for k in ks:
                if k["name"] in ops:
                    k["ops"] = ops[k["name"]]
                    rows.append(k)
        if not rows:
            print("| %s | 0 | | | | | |" % name)
            continue
        col = lambda key: [r[key] for r in rows]
        print("| %s | %d | %d / %d | %d / %d | %d / %d | %.0f%% | %.0f%% |" % (
            name, len(rows), pct(col("lines"), .5), pct(col("lines"), .9), pct(col("ops"), .5), pct(col("ops"), .9),
            pct(col("calls"), .5), pct(col("calls"), .9), 100.0 * sum(r["loops"] > 0 for r in rows) / len(rows),
            100.0 * sum(r["branches"] > 0 for r in rows) / len(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
