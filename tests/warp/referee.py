#!/usr/bin/env python3
"""referee.py — warpdiff's gradient referee (warpdiff.referee) on kernels
whose backward is known: tests/warp/referee/sinw.kir, y = sin(x) * w, with a
true backward kernel (@good) and one with sin' = 2 cos (@bad).  "Warp's"
gradient is the exact derivative computed here by numpy in float64, rounded
to float32, so neither verdict rests on kpy:

  1. @good, Warp's gradient off by 1e-3 (more than kpy's rounding): the
     difference is accepted as rounding;
  2. @bad, Warp's gradient exact: refused, and finite differences are what
     refutes it (kpy's own double-precision build agrees with kpy's float
     build, so a referee that asks only that would accept it);
  3. @good, but kpy's float gradient spoilt by 1e-2 after the run (a fault
     of the float build only) while Warp's is off by 1e-4: refused.

  referee.py --bin BUILDDIR --work DIR SINW.kir
"""
import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import warpdiff  # noqa: E402

N = 37


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kir")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    cpp = os.path.join(a.work, "sinw.cpp")
    subprocess.run([os.path.join(a.bin, "kcpu"), a.kir, "-o", cpp], check=True)
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, N).astype(np.float32)
    w = rng.uniform(-1, 1, N).astype(np.float32)
    gy = rng.uniform(-1, 1, N).astype(np.float32)
    # the exact gradient of sum(gy * sin(x) * w), in float64
    true_x = (gy.astype(np.float64) * np.cos(x.astype(np.float64)) * w.astype(np.float64))
    n, failed = 0, 0

    def case(label, kname, warp_x, spoil, want_ok, want_text):
        nonlocal n, failed
        n += 1
        kd = os.path.join(a.work, "%d_%s" % (n, kname))
        os.makedirs(os.path.join(kd, "in"), exist_ok=True)
        cmd = [os.path.join(a.bin, "krun"), cpp, "--kernel", kname, "--dim", str(N), "--seed", "1",
               "--out", os.path.join(kd, "out")]
        for name, v in (("x", x), ("w", w), ("adj_y", gy)):
            p = os.path.join(kd, "in", name + ".npy")
            np.save(p, v)
            cmd += ["--adj" if name == "adj_y" else "--in", "%s=%s" % (name.replace("adj_", ""), p)]
        cmd += ["--backward"]
        warpdiff.run(cmd)
        kp = os.path.join(kd, "out", "adj_x.npy")
        if spoil:
            np.save(kp, (np.load(kp).astype(np.float64) * (1 + spoil)).astype(np.float32))
        wx = warp_x.astype(np.float32)
        e = warpdiff.compare("adj_x", wx, np.load(kp))
        if e is None:
            failed += 1
            print("not ok %d - %s: kpy's gradient does not differ from Warp's: the case tests nothing" % (n, label))
            return
        ok, left = warpdiff.referee(cmd, kd, {"x": wx}, {"x": e}, N)
        verdict = "; ".join(ok) if ok else "; ".join(left.values())
        if bool(ok) == want_ok and (not left) == want_ok and want_text in verdict:
            print("ok %d - %s" % (n, label))
        else:
            failed += 1
            print("not ok %d - %s" % (n, label))
        print("# " + verdict)

    case("a true gradient that differs from Warp's by rounding is accepted",
         "good", true_x * (1 + 1e-3), 0, True, "confirmed by finite differences")
    case("sin' = 2 cos is refuted by finite differences",
         "bad", true_x, 0, False, "finite differences (double) refute")
    case("a float gradient further from the truth than Warp's is refused",
         "good", true_x * (1 + 1e-4), 1e-2, False, "kpy off by")
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
