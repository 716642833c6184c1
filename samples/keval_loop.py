#!/usr/bin/env python3
"""keval_loop.py — the shape of a training loop around keval.

    python3 keval_loop.py --tasks TASKS.jsonl --records RECORDS.jsonl
                          [--model CMD] [--split S] [-j N] [--keval PATH]

Reads the tasks `kpack tasks` wrote, asks a model for a candidate per task,
scores all of them with one `keval --batch` (parallel, resumable), reads
the verdicts back and prints the reward per split: 1 for a verdict that
passes, else 0.  A model is a command that reads one task (JSON) on
standard input and prints a candidate (C++ for target cpp, Warp-Python for
target python).  Without --model, a stand-in writes an empty kernel: it
compiles, writes nothing, and earns 0.  Python 3 standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def standin(task):
    """An empty kernel with the task's signature: compiles, does nothing."""
    g = task["given"]
    if task["target"] == "cpp":
        return "%s\n%s\n{\n}\n\n%s" % (g["includes"], g["signature"], g["kernel_table"])
    return "import warp as wp\n\n\n@wp.kernel\n%s\n    pass\n" % g["signature"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--records", required=True)
    ap.add_argument("--model", help="command: a task on stdin, a candidate on stdout")
    ap.add_argument("--split", help="only the tasks of this split")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keval", default="keval")
    a = ap.parse_args()

    tasks = [json.loads(line) for line in open(a.tasks) if line.strip()]
    if a.split:
        tasks = [t for t in tasks if t["split"] == a.split]
    with tempfile.TemporaryDirectory() as tmp:
        batch = os.path.join(tmp, "batch.jsonl")
        with open(batch, "w") as f:
            for t in tasks:
                if a.model:
                    cand = subprocess.run(a.model, shell=True, input=json.dumps(t), capture_output=True,
                                          text=True).stdout
                else:
                    cand = standin(t)
                f.write(json.dumps({"task": t["task"], "id": t["id"], "target": t["target"],
                                    "backward": t["backward"], "candidate": cand}) + "\n")
        out = os.path.join(tmp, "verdicts.jsonl")
        r = subprocess.run([a.keval, "--record", a.records, "--batch", batch, "-j", str(a.j), "-o", out])
        if r.returncode != 0:
            sys.exit("keval_loop: keval --batch failed (exit %d)" % r.returncode)
        verdicts = [json.loads(line) for line in open(out)]
    reward = {}
    for t, v in zip(tasks, verdicts):
        assert v["task"] == t["task"], "verdicts come back in task order"
        r = 1.0 if v.get("pass") else 0.0
        reward.setdefault(t["split"], []).append(r)
        print("%-40s %-6s reward %.0f  %s" % (t["task"], t["split"], r, v.get("error", "")))
    for split, rs in sorted(reward.items()):
        print("split %s: %d tasks, mean reward %.3f" % (split, len(rs), sum(rs) / len(rs)))


if __name__ == "__main__":
    main()
