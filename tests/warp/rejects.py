#!/usr/bin/env python3
"""rejects — kernels NVIDIA Warp refuses must be refused by kpyc too.

For each file: Warp must fail to build its kernels (otherwise the corpus
entry is wrong and the case fails), and `kpyc FILE` must exit 1 with a
located diagnostic `FILE:LINE:COL: error: ...` and print nothing on stdout.
One TAP line per file.
  rejects.py --bin BUILD-DIR FILE.py...
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys

import warp as wp

wp.config.quiet = True


def warp_rejects(path, idx):
    try:
        spec = importlib.util.spec_from_file_location("reject_%d" % idx, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for v in list(vars(mod).values()):
            if isinstance(v, wp.Kernel):
                v.module.load(wp.get_device("cpu"))
        return None
    except BaseException as e:  # noqa: BLE001 - any failure is a rejection
        return "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[-1][:200])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.environ.get("top_builddir", "."))
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    wp.init()
    failed = 0
    for n, path in enumerate(a.files, 1):
        name = os.path.basename(path)
        why = warp_rejects(path, n)
        if why is None:
            failed += 1
            print("not ok %d - %s: Warp accepts it (the corpus entry is wrong)" % (n, name))
            continue
        p = subprocess.run([os.path.join(a.bin, "kpyc"), path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = p.stderr.decode(errors="replace")
        located = re.search(r"^%s:\d+:\d+: error: " % re.escape(path), err, re.M)
        if p.returncode == 1 and located and not p.stdout:
            print("ok %d - %s rejected (Warp: %s)" % (n, name, why))
        else:
            failed += 1
            print("not ok %d - %s: kpyc exit %d%s (Warp: %s)" % (
                n, name, p.returncode, "" if located else ", no located error", why))
            for line in err.splitlines()[:6]:
                print("# " + line)
    print("1..%d" % len(a.files))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
