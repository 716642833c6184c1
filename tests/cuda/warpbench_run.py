#!/usr/bin/env python3
"""run.py — the GPU benchmark against Warp, on a GPU (docs/gpu-bundle.md).

Needs python3 with numpy and cupy, the CUDA driver, a GPU; nothing of kpy.
Reads spec.json (written by kpy's tests/cuda/warpbench.py) and the cubins
beside it.  For every kernel: draws its inputs once (seeded), then for each
of warp, kcuda and kptx copies them to the GPU, launches the kernel once
(256 threads per block, a full grid) and reads back what it writes; then
times it: WARMUP launches, then the median of ITERS launches, each between
two CUDA events, the three taking turns in ROUNDS rounds (each round
starting with the next back end) so that a drift of the GPU's clocks
during one kernel's measurement falls on all three alike.  kcuda's and kptx's results are compared with Warp's: the
largest difference in units of the largest magnitude of Warp's result
(floats; `ok` below TOL), exactly for integers.  Memory-bound kernels are
put next to a device-to-device copy of as many bytes as the arrays the
kernel touches (GB/s).

  python3 run.py --dry       (no GPU: check every parameter buffer against
                              the PTX sizes spec.json recorded)
  python3 run.py [--out DIR] [--iters 100] [--warmup 10] [--budget-ms 400] [--tol 1e-3] [--rounds 5]
                 [--only MODULE:KERNEL[,...]] [--via warp,kcuda,kptx]
                 [--no-tape] [--blocks N]

OUT/table.txt grows a line per kernel as it finishes; OUT/summary.txt holds
the geometric means of kcuda/warp and kptx/warp time, forward and backward,
and the kernels over 1.10 (forward) and 1.25 (backward).
"""
import argparse
import ctypes
import json
import math
import os
import struct
import sys
import zlib

import numpy as np

VIAS = ("warp", "kcuda", "kptx")


def align(n, a):
    return (n + a - 1) // a * a


class Host:
    """The arrays of one kernel, drawn once."""

    def __init__(self, k, seed, dry=False):
        rng = np.random.default_rng(seed)
        self.arrays = {}
        for name, a in sorted(k["arrays"].items()):
            shape = tuple(a["shape"]) + tuple(a["elem"])
            dt = np.dtype(a["dtype"])
            if dry:
                v = np.empty(shape, dt)
            elif a["gen"] == "zero":
                v = np.zeros(shape, dt)
            elif a["gen"] == "int":
                v = rng.integers(0, a.get("hi", 16), size=shape).astype(dt)
            else:
                v = rng.uniform(-1.0, 1.0, size=shape).astype(dt)
            self.arrays[name] = v


def kpy_bounds(dim):
    shape = list(dim) + [1] * (4 - len(dim))
    return struct.pack("<i4i4xq", len(dim), *shape, int(np.prod(dim)))


def warp_bounds(dim):
    n = len(dim)
    b = struct.pack("<%dI" % n, *dim)
    b += b"\0" * (align(len(b), 8) - len(b))
    return b + struct.pack("<QQ", int(np.prod(dim)), 1)


def strides(a):
    """Byte strides of the launch dims of a C-contiguous array with element dims."""
    return list(a.strides)


def kpy_array(ptr, a, ndim):
    shape = list(a.shape[:ndim])
    st = strides(a)[:ndim]
    b = struct.pack("<Q%di" % ndim, ptr, *shape)
    b += b"\0" * (align(len(b), 8) - len(b))
    return b + struct.pack("<%dq" % ndim, *st)


def warp_array(ptr, a, ndim, grad=0):
    shape = list(a.shape[:ndim]) + [0] * (4 - ndim)
    st = strides(a)[:ndim] + [0] * (4 - ndim)
    b = struct.pack("<QQ4i4iHH", ptr, grad, *shape, *st, ndim, 0)
    return b + b"\0" * (56 - len(b))


def value(v, zero=False):
    n = v["count"]
    x = np.full(n, 0 if zero else v["value"], dtype=np.dtype(v["dtype"]))
    return x.tobytes()


class Driver:
    """The CUDA driver API through ctypes, in cupy's (primary) context."""

    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")
        self.mods = {}
        self.maxblocks = 0

    def check(self, r, what):
        if r != 0:
            s = ctypes.c_char_p()
            self.cu.cuGetErrorString(r, ctypes.byref(s))
            raise RuntimeError("%s: %s" % (what, s.value.decode() if s.value else r))

    def function(self, path, name):
        if path not in self.mods:
            m = ctypes.c_void_p()
            self.check(self.cu.cuModuleLoad(ctypes.byref(m), path.encode()), "cuModuleLoad " + path)
            self.mods[path] = m
        f = ctypes.c_void_p()
        self.check(self.cu.cuModuleGetFunction(ctypes.byref(f), self.mods[path], name.encode()),
                   "cuModuleGetFunction " + name)
        return f

    def launch(self, f, blocks, params):
        blocks = min(blocks, self.maxblocks) if self.maxblocks else blocks
        bufs = [ctypes.create_string_buffer(p, len(p)) for p in params]
        ptrs = (ctypes.c_void_p * len(bufs))(*[ctypes.addressof(b) for b in bufs])
        self.check(self.cu.cuLaunchKernel(f, ctypes.c_uint(blocks), ctypes.c_uint(1), ctypes.c_uint(1),
                                          ctypes.c_uint(256), ctypes.c_uint(1), ctypes.c_uint(1), ctypes.c_uint(0),
                                          ctypes.c_void_p(0), ptrs, ctypes.c_void_p(0)), "cuLaunchKernel")


class Ptr:
    """A device array's stand-in for --dry."""

    class data:
        ptr = 0


def dry(spec):
    """Every kernel's parameter buffers against the PTX sizes: 0, or 1 and why."""
    bad = 0
    for k in spec["kernels"]:
        host = Host(k, 0, dry=True).arrays
        dev = {n: Ptr for n in host}
        for via in VIAS:
            got = [len(p) for p in params_for(k, via, dev, host)]
            if got != k["ptx_sizes"][via]:
                print("run.py: %s %s via %s: parameters of %s bytes, the PTX has %s" % (
                    k["module"], k["kernel"], via, got, k["ptx_sizes"][via]), file=sys.stderr)
                bad = 1
    print("run.py: %d kernels, the parameters of every back end %s" % (
        len(spec["kernels"]), "match" if not bad else "DO NOT match"))
    return bad


def params_for(k, via, dev, host, tape=True):
    dim = k["dim"]
    if via == "warp":
        out = [warp_bounds(dim)]
        for p in k["warp"]:
            if p["kind"] == "array":
                nd = len(k["arrays"][p["name"]]["shape"])
                # as Warp's Tape launches a backward kernel: each array's
                # grad is its adjoint, so Warp zeroes the adjoint of what
                # the forward overwrote (adj_array_store), as kpy does
                adj = "adj_" + p["name"]
                grad = dev[adj].data.ptr if tape and k["fb"] == "bwd" and adj in dev else 0
                out.append(warp_array(dev[p["name"]].data.ptr, host[p["name"]], nd, grad))
            else:
                v = k["values"].get(p["name"])
                out.append(value(v) if v and not p.get("zero") else b"\0" * p["nbytes"])
        return out
    out = [kpy_bounds(dim)]
    for p in k["kpy"]:
        if p["kind"] == "array":
            out.append(kpy_array(dev[p["name"]].data.ptr, host[p["name"]], p["ndim"]))
        else:
            out.append(value(k["values"][p["name"]]))
    return out


def compare(ref, got):
    """The difference of got from ref: (error, ok)."""
    if ref.dtype.kind in "iub":
        bad = int(np.count_nonzero(ref != got))
        return float(bad), bad == 0
    if not np.all(np.isfinite(got) == np.isfinite(ref)):
        return float("inf"), False
    fin = np.isfinite(ref)
    if not fin.any():
        return 0.0, True
    scale = float(np.max(np.abs(ref[fin]))) or 1.0
    return float(np.max(np.abs(ref[fin].astype(np.float64) - got[fin]))) / scale, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--out", default="bench-out")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--budget-ms", type=float, default=400.0,
                    help="a kernel slower than this over warm-ups and launches gets fewer launches (at least 5)")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--rounds", type=int, default=5,
                    help="time the back ends in this many rounds, taking turns (1: one after the other)")
    ap.add_argument("--only", default="")
    ap.add_argument("--via", default=",".join(VIAS))
    ap.add_argument("--dry", action="store_true")
    ap.add_argument("--no-tape", action="store_true",
                    help="launch Warp's backward kernels without grad pointers (Warp then keeps the adjoints of "
                         "what the forward overwrote)")
    ap.add_argument("--blocks", type=int, default=0, help="at most this many blocks (the grid-stride loops do the rest)")
    a = ap.parse_args()
    spec = json.load(open(os.path.join(a.dir, "spec.json")))
    if a.dry:
        return dry(spec)
    import cupy as cp

    only = set(x for x in a.only.split(",") if x)
    vias = [v for v in a.via.split(",") if v]
    os.makedirs(a.out, exist_ok=True)
    cp.cuda.Device(0).use()
    cp.zeros(1)  # the primary context, current on this thread
    drv = Driver()
    drv.maxblocks = a.blocks
    table = open(os.path.join(a.out, "table.txt"), "w")
    hdr = "%-12s %-26s %-3s %10s %10s %10s %7s %7s %8s %8s %8s %8s  %s" % (
        "module", "kernel", "f/b", "warp_us", "kcuda_us", "kptx_us", "kc/wp", "kx/wp",
        "wp_GB/s", "kc_GB/s", "kx_GB/s", "cp_GB/s", "check")
    print(hdr)
    table.write(hdr + "\n")
    table.flush()
    ratios = {(fb, v): [] for fb in ("fwd", "bwd") for v in ("kcuda", "kptx")}
    over, fails = [], []
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()

    def once(fn, reset=None):  # one launch between CUDA events, in ms
        if reset:
            reset()
        ev0.record()
        fn()
        ev1.record()
        ev1.synchronize()
        return cp.cuda.get_elapsed_time(ev0, ev1)

    def timeall(runs):
        """Time every back end of one kernel in --rounds rounds, the back
        ends taking turns (each round starting with the next one), so that
        a drift of the GPU's clocks or temperature during the kernel's
        measurement falls on all of them alike; the median of all of a back
        end's launches, in us.  A slow kernel (atomics of millions of threads
        into one element) gets fewer launches: about --budget-ms of them, at
        least 5."""
        iters = {}
        for via, (fn, reset) in runs.items():
            first = once(fn, reset)
            n = a.iters
            if first * (a.iters + a.warmup) > a.budget_ms:
                n = max(5, min(a.iters, int(a.budget_ms / max(first, 1e-3))))
            iters[via] = n
            for _ in range(min(a.warmup, n)):
                fn()
        rounds = max(1, a.rounds)
        samples = {via: [] for via in runs}
        order = list(runs)
        for r in range(rounds):
            for via in order[r % len(order):] + order[:r % len(order)]:
                fn, reset = runs[via]
                n = iters[via] // rounds + (1 if r < iters[via] % rounds else 0)
                samples[via] += [once(fn, reset) * 1000.0 for _ in range(n)]
        return {via: float(np.median(v)) for via, v in samples.items() if v}

    for k in spec["kernels"]:
        key = "%s:%s" % (k["module"], k["kernel"])
        if only and key not in only:
            continue
        host = Host(k, zlib.crc32(key.encode())).arrays
        size = int(np.prod(k["dim"]))
        blocks = (size + 255) // 256
        res, times, notes, runs, held = {}, {}, [], {}, []
        # one set of buffers for the three: the speed of atomics into a few
        # hot elements depends on their addresses (the L2 slice they map
        # to), so every back end runs on the very same addresses; each
        # starts its checked launch from the drawn inputs
        dev = {n: cp.asarray(v) for n, v in host.items()}
        for via in vias:
            try:
                path, name = os.path.join(a.dir, "%s.%s.cubin" % (k["module"], via)), k["entries"][via]
                f = drv.function(path, name)
                for n, v in host.items():
                    dev[n][...] = cp.asarray(v)
                prm = params_for(k, via, dev, host, not a.no_tape)
                drv.launch(f, blocks, prm)
                cp.cuda.Device(0).synchronize()
                res[via] = {n: cp.asnumpy(dev[n]) for n in k["outputs"]}
                # a backward kernel starts every timed launch from the same
                # adjoints (kpy's reads and zeroes an output's adjoint)
                keep = {n: cp.asarray(host[n]) for n in host if n.startswith("adj_")} if k["fb"] == "bwd" else {}

                def reset(keep=keep):
                    for n, v in keep.items():
                        dev[n][...] = v

                def launch(f=f, prm=prm):
                    drv.launch(f, blocks, prm)
                runs[via] = (launch, reset if keep else None)
                held.append((keep, prm))
            except Exception as e:  # noqa: BLE001 -- reported per kernel
                notes.append("%s: %s" % (via, str(e)[:120]))
        try:
            times = timeall(runs)
        except Exception as e:  # noqa: BLE001 -- reported per kernel
            notes.append("timing: %s" % str(e)[:120])
        del runs, held, dev
        touched = sum(host[n].nbytes for n in k["touched"])
        src = cp.empty(touched // 4 or 1, np.float32)
        dst = cp.empty_like(src)
        cpt = timeall({"copy": (lambda: dst.__setitem__(Ellipsis, src), None)})["copy"]
        del src, dst
        check = []
        if "warp" in res:
            for via in ("kcuda", "kptx"):
                if via not in res:
                    continue
                worst = 0.0
                for n in k["outputs"]:
                    err, ok = compare(res["warp"][n], res[via][n])
                    if ok is None:
                        ok = err <= a.tol
                    if not ok:
                        check.append("%s %s differs (%.3g)" % (via, n, err))
                    worst = max(worst, err)
                if not any(c.startswith(via) for c in check):
                    check.append("%s ok (%.2g)" % (via, worst))
        check += notes
        if any("differs" in c for c in check) or notes:
            fails.append(key + " " + k["fb"])
        gbs = {v: (touched / (times[v] * 1e3) if v in times else 0.0) for v in VIAS}
        rt = {}
        for via in ("kcuda", "kptx"):
            if via in times and "warp" in times and times["warp"] > 0:
                rt[via] = times[via] / times["warp"]
                ratios[(k["fb"], via)].append(rt[via])
                if rt[via] > (1.10 if k["fb"] == "fwd" else 1.25):
                    over.append("%s %s %s %.2f" % (key, k["fb"], via, rt[via]))
        line = "%-12s %-26s %-3s %10.2f %10.2f %10.2f %7.3f %7.3f %8.1f %8.1f %8.1f %8.1f  %s" % (
            k["module"], k["kernel"], k["fb"], times.get("warp", 0), times.get("kcuda", 0), times.get("kptx", 0),
            rt.get("kcuda", 0), rt.get("kptx", 0), gbs["warp"], gbs["kcuda"], gbs["kptx"],
            touched / (cpt * 1e3) if cpt else 0, "; ".join(check))
        print(line, flush=True)
        table.write(line + "\n")
        table.flush()
    summ = []
    for fb in ("fwd", "bwd"):
        for via in ("kcuda", "kptx"):
            r = ratios[(fb, via)]
            if r:
                g = math.exp(sum(math.log(x) for x in r) / len(r))
                summ.append("%s %s/warp geomean %.3f over %d kernels (max %.2f)" % (fb, via, g, len(r), max(r)))
    summ.append("over the limits (fwd 1.10, bwd 1.25): %d%s" % (len(over), "".join("\n  " + o for o in over)))
    summ.append("results differing or not run: %d%s" % (len(fails), "".join("\n  " + f for f in fails)))
    text = "\n".join(summ)
    print(text)
    table.write(text + "\n")
    open(os.path.join(a.out, "summary.txt"), "w").write(text + "\n")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
