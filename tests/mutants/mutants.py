#!/usr/bin/env python3
"""mutants.py — mutation testing: does the test suite notice a wrong kpy?

`make mutants` runs this.  It copies the source tree into a scratch folder
(MUTANTS_DIR, default BUILDDIR/mutants: src/ and a build/ configured once with
the main build's configure arguments), builds it, runs the suites on the
unchanged tree (each must pass: a failing suite would "kill" every mutant),
then for every mutant of tests/mutants/mutants.txt:

  1. replaces one exact string in one source file of the copy (a deliberate
     fault: a derivative rule, a C++ spelling, an LLVM lowering, a typing
     rule, the constant folder, autodiff, a back end, the runtime);
  2. rebuilds incrementally (make -jJOBS: only the changed objects; a change
     to ir/ops.def, which every file includes for the op enum but only
     ir/build.c reads as data, rebuilds ir/build.o alone);
  3. runs the suites in order and stops at the first failing case (a "not
     ok" line that is not a TODO, a non-zero exit, a plan not met, or ten
     times the suite's unmutated time plus 60 s);
  4. restores the file.

It prints one line per mutant — killed (by which case) or SURVIVED — and the
kill rate, and exits 1 when a mutant survived, did not apply (its string is
not in the file exactly once: update mutants.txt) or did not build.

  mutants.py --srcdir DIR --builddir DIR [--list FILE] [--work DIR]
             [--jobs N] [--only ID,ID...] [--suites "T T..."] [--no-baseline S]

Environment as for `make check` (CC, CXX, PYTHON3, ...); KPY_WARP_PYTHON is
set to the main build's Warp venv when there is one, so that the scratch
build does not install its own.
"""
import argparse
import glob
import os
import re
import selectors
import shlex
import shutil
import subprocess
import sys
import time

# the suites run against each mutant, fastest and most telling first (host.test,
# which compiles every test module twice, last)
DEFAULT_SUITES = [
    "tests/ad/rules.test",
    "tests/ir/ir.test",
    "tests/passes/passes.test",
    "tests/ad/ops.test",
    "tests/run/*.krun",
    "tests/run/python.test",
    "tests/warp/reject.test",
    "tests/warp/diff.test",
    "tests/cuda/golden.test",
    "tests/ptx/host.test",
]

# files the build reads as data tables although every object includes them:
# object files to remove (instead of rebuilding everything) when one changes
TABLES = {"ir/ops.def": ["ir/build.o"]}


def parse_list(path):
    """Mutants of the list file (see its header): [id] file, description
    lines, '- ' lines (the exact text to replace, consecutive lines joined by
    newlines) and '+ ' lines (the replacement)."""
    muts, cur = [], None
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            m = re.match(r"^\[([\w.-]+)\]\s+(\S+)\s*$", line)
            if m:
                cur = {"id": m.group(1), "file": m.group(2), "why": [], "old": [], "new": [], "line": ln}
                muts.append(cur)
            elif cur is None:
                raise SystemExit("%s:%d: text before the first [id] line" % (path, ln))
            elif line.startswith("- ") or line == "-":
                cur["old"].append(line[2:])
            elif line.startswith("+ ") or line == "+":
                cur["new"].append(line[2:])
            else:
                cur["why"].append(line.strip())
    ids = set()
    for m in muts:
        if not m["old"] or not m["new"] or not m["why"]:
            raise SystemExit("%s:%d: mutant %s needs a description, '- old' and '+ new' lines" % (path, m["line"], m["id"]))
        if m["id"] in ids:
            raise SystemExit("%s:%d: mutant %s listed twice" % (path, m["line"], m["id"]))
        ids.add(m["id"])
        m["why"] = " ".join(m["why"])
        m["old"] = "\n".join(m["old"])
        m["new"] = "\n".join(m["new"])
    return muts


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


class Driver:
    def __init__(self, a):
        self.a = a
        self.srcdir = os.path.abspath(a.srcdir)
        self.builddir = os.path.abspath(a.builddir)
        self.work = os.path.abspath(a.work or os.path.join(self.builddir, "mutants"))
        self.src = os.path.join(self.work, "src")
        self.bld = os.path.join(self.work, "build")
        self.marker = os.path.join(self.work, "applied")
        self.limit = {}

    # ---- the scratch tree -------------------------------------------------
    def sync(self):
        """Copy the source tree (tar keeps modification times, so make
        rebuilds only what changed since the last run)."""
        if os.path.exists(os.path.join(self.srcdir, "config.status")):
            raise SystemExit("mutants: %s is configured in place; make mutants needs a separate build folder" % self.srcdir)
        os.makedirs(self.src, exist_ok=True)
        os.makedirs(self.bld, exist_ok=True)
        excl = ["./.git", "./autom4te.cache"]
        for d in sorted(os.listdir(self.srcdir)):
            p = os.path.join(self.srcdir, d)
            if os.path.isdir(p) and (os.path.exists(os.path.join(p, "config.status")) or
                                     os.path.realpath(p) in (os.path.realpath(self.builddir), os.path.realpath(self.work))):
                excl.append("./" + d)
        rel = os.path.relpath(self.work, self.srcdir)
        if not rel.startswith(".."):
            excl.append("./" + rel.split(os.sep)[0])
        cmd = "tar -C %s %s -cf - . | tar -C %s -xf -" % (
            shlex.quote(self.srcdir), " ".join("--exclude=%s" % shlex.quote(e) for e in excl), shlex.quote(self.src))
        p = sh(cmd)
        if p.returncode != 0:
            raise SystemExit("mutants: copying the sources failed:\n" + p.stdout.decode(errors="replace"))
        # a run interrupted with a mutant applied: the copy now holds the
        # original text again, with a time older than the mutant's objects
        if os.path.exists(self.marker):
            self.invalidate(open(self.marker).read().strip())
            self.clear_caches()
            os.remove(self.marker)

    def invalidate(self, rel):
        """Make the next build recompile what depends on source file rel."""
        path = os.path.join(self.src, rel)
        if rel in TABLES:
            for o in TABLES[rel]:
                if os.path.exists(os.path.join(self.bld, o)):
                    os.remove(os.path.join(self.bld, o))
        elif os.path.exists(path):
            os.utime(path)

    def configure(self):
        if os.path.exists(os.path.join(self.bld, "Makefile")):
            return
        args = sh([os.path.join(self.builddir, "config.status"), "--config"]).stdout.decode().strip()
        p = sh("cd %s && %s/configure -q %s" % (shlex.quote(self.bld), shlex.quote(self.src), args))
        if p.returncode != 0:
            raise SystemExit("mutants: configure failed:\n" + p.stdout.decode(errors="replace")[-3000:])

    def build(self):
        """make all and the test programs; returns (ok, seconds, log tail)."""
        t0 = time.time()
        j = "-j%d" % self.a.jobs
        p = sh(["make", "-C", self.bld, j, "all"])
        if p.returncode == 0:
            p = sh(["make", "-C", self.bld, j, "check", "TESTS="])
        return p.returncode == 0, time.time() - t0, p.stdout.decode(errors="replace")[-2000:]

    # ---- the suites -------------------------------------------------------
    def suites(self):
        out = []
        for pat in self.a.suites.split():
            hits = sorted(glob.glob(os.path.join(self.src, pat)))
            if not hits:
                raise SystemExit("mutants: no test matches %s" % pat)
            out += [os.path.relpath(h, self.src) for h in hits]
        return out

    def env(self, fresh_cache):
        e = dict(os.environ)
        e.update(top_srcdir=self.src, top_builddir=self.bld, PATH=self.bld + os.pathsep + e.get("PATH", ""))
        cache = os.path.join(self.work, "kcache")
        if fresh_cache:
            # runtime headers are not part of krun's cache key
            self.clear_caches()
            cache = os.path.join(self.work, "kcache-fresh")
        e["KPY_CACHE"] = cache
        e["KPY_INCLUDE"] = os.path.join(self.src, "runtime", "include")  # the copy's runtime headers
        vpy = os.path.join(self.builddir, ".venv-warp", "bin", "python")
        if "KPY_WARP_PYTHON" not in e and os.path.exists(vpy):
            e["KPY_WARP_PYTHON"] = vpy
        return e

    def clear_caches(self):
        """Forget the modules krun compiled with mutated runtime headers
        (the headers are not part of krun's cache key): the private cache
        of runtime mutants and host.test's cache in the build tree."""
        shutil.rmtree(os.path.join(self.work, "kcache-fresh"), ignore_errors=True)
        shutil.rmtree(os.path.join(self.bld, "tests", "ptx", "kpycache"), ignore_errors=True)

    def run_suite(self, t, env, limit):
        """Run one test script; stop at its first failing case.  Returns
        (None or the failure, seconds)."""
        path = os.path.join(self.src, t)
        if t.endswith(".krun"):
            cmd = ["sh", os.path.join(self.src, "tests", "run", "runkrun.sh"), path]
        else:
            cmd = ["sh", path]
        t0 = time.time()
        p = subprocess.Popen(cmd, cwd=self.bld, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
        fail, plan, count, last = None, None, 0, []
        deadline = t0 + limit if limit else None
        sel = selectors.DefaultSelector()
        sel.register(p.stdout, selectors.EVENT_READ)
        buf = b""
        while True:
            timeout = None if deadline is None else max(0.0, deadline - time.time())
            if deadline is not None and timeout == 0:
                fail = "no verdict after %.0f s (ten times the unmutated run, plus 60 s)" % limit
                break
            if not sel.select(timeout):
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for raw in lines:
                line = raw.decode(errors="replace")
                last = (last + [line])[-3:]
                if re.match(r"^(not )?ok\b", line):
                    count += 1
                if re.match(r"^not ok\b", line) and not re.search(r"#\s*TODO\b", line, re.I):
                    fail = line
                elif line.startswith("Bail out!"):
                    fail = line
                m = re.match(r"^1\.\.(\d+)", line)
                if m:
                    plan = int(m.group(1))
                if fail:
                    break
            if fail:
                break
        if fail:
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
        rc = p.wait()
        p.stdout.close()
        if not fail and rc != 0:
            fail = "exit status %d after: %s" % (rc, " | ".join(last))
        if not fail and plan is not None and plan != count:
            fail = "planned %d cases, ran %d" % (plan, count)
        if not fail and plan is None:
            fail = "no TAP plan (the test ended early): " + " | ".join(last)
        return fail, time.time() - t0

    # ---- mutants ----------------------------------------------------------
    def apply(self, m):
        path = os.path.join(self.src, m["file"])
        if not os.path.exists(path):
            return None, "no file %s" % m["file"]
        text = open(path, encoding="utf-8").read()
        n = text.count(m["old"])
        if n != 1:
            return None, "its text occurs %d times in %s (must be once)" % (n, m["file"])
        st = os.stat(path)
        with open(self.marker, "w") as f:
            f.write(m["file"])
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(m["old"], m["new"]))
        if m["file"] in TABLES:
            # keep its time: only the objects that read the table rebuild
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            self.invalidate(m["file"])
        return text, None

    def restore(self, m, text):
        path = os.path.join(self.src, m["file"])
        st = os.stat(path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        if m["file"] in TABLES:
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        self.invalidate(m["file"])
        os.remove(self.marker)

    def main(self):
        a = self.a
        muts = parse_list(a.list)
        if a.only:
            want = set(a.only.split(","))
            unknown = want - {m["id"] for m in muts}
            if unknown:
                raise SystemExit("mutants: no mutant %s in %s" % (", ".join(sorted(unknown)), a.list))
            muts = [m for m in muts if m["id"] in want]
        t0 = time.time()
        self.sync()
        self.configure()
        ok, secs, log = self.build()
        if not ok:
            raise SystemExit("mutants: the unmutated copy does not build:\n" + log)
        suites = self.suites()
        print("mutants: %d mutants, suites: %s" % (len(muts), " ".join(suites)))
        print("mutants: scratch tree %s (built in %.0f s)" % (self.work, secs))
        sys.stdout.flush()
        env = self.env(False)
        for t in suites:
            if a.no_baseline:
                self.limit[t] = a.no_baseline
                continue
            fail, secs = self.run_suite(t, env, None)
            if fail:
                raise SystemExit("mutants: %s fails without a mutant: %s" % (t, fail))
            self.limit[t] = 10 * secs + 60
        if not a.no_baseline:
            print("mutants: the suites pass unmutated in %.0f s" % sum((v - 60) / 10 for v in self.limit.values()))
        sys.stdout.flush()
        killed, survived, broken = [], [], []
        for m in muts:
            text, why = self.apply(m)
            if text is None:
                broken.append(m["id"])
                print("STALE    %-24s %s: %s" % (m["id"], m["file"], why))
                sys.stdout.flush()
                continue
            try:
                ok, bsecs, log = self.build()
                if not ok:
                    broken.append(m["id"])
                    err = [l for l in log.splitlines() if "error" in l][:2]
                    print("NOBUILD  %-24s %s: %s" % (m["id"], m["file"], " | ".join(err)))
                    continue
                env = self.env(m["file"].startswith("runtime/"))
                fail, tsecs, by = None, 0.0, None
                for t in suites:
                    fail, s = self.run_suite(t, env, self.limit[t])
                    tsecs += s
                    if fail:
                        by = t
                        break
                if fail:
                    killed.append(m["id"])
                    print("killed   %-24s by %s: %s  [build %.0f s, tests %.0f s]" % (
                        m["id"], by, fail[:160], bsecs, tsecs))
                else:
                    survived.append(m["id"])
                    print("SURVIVED %-24s %s: %s  [build %.0f s, tests %.0f s]" % (
                        m["id"], m["file"], m["why"], bsecs, tsecs))
            finally:
                self.restore(m, text)
                if m["file"].startswith("runtime/"):
                    self.clear_caches()
                sys.stdout.flush()
        ok, _, log = self.build()  # leave the scratch build unmutated
        n = len(killed) + len(survived)
        rate = 100.0 * len(killed) / n if n else 0.0
        print("mutants: %d of %d killed (%.1f%%), %d survived%s%s, in %.0f s" % (
            len(killed), n, rate, len(survived), ": " + " ".join(survived) if survived else "",
            "; %d did not apply or build: %s" % (len(broken), " ".join(broken)) if broken else "",
            time.time() - t0))
        return 1 if survived or broken else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--list", default=None)
    ap.add_argument("--work", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--suites", default=" ".join(DEFAULT_SUITES))
    ap.add_argument("--no-baseline", type=float, default=0, metavar="SECONDS",
                    help="do not run the suites unmutated first (known to pass); SECONDS: each suite's time limit")
    a = ap.parse_args()
    if not a.list:
        a.list = os.path.join(a.srcdir, "tests", "mutants", "mutants.txt")
    return Driver(a).main()


if __name__ == "__main__":
    sys.exit(main())
