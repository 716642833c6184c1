/*
 * kshard — compile the kernels of one dataset shard in one process.
 *
 *   kshard [--seed S] [--arch sm_XX] [--timing FILE] WORK
 *   kshard --unit [--ptx] [--host] WORK
 *
 * WORK/py holds kgen's output (STEM.py, STEM.meta, STEM.harness.py).  For
 * each STEM, in name order, kshard makes the kernel's folder WORK/k/STEM and
 * takes the kernel through the chain the pipe tools run,
 *
 *   kpyc NAME.py                        -> kernel.kir
 *   kopt -p ad,O --verify-each          -> ad.kir      (ad's first warning -> adwarn)
 *   kopt -p forward / -p backward       -> forward.kir, backward.kir
 *   kcpu                                -> fwd.cpp, bwd.cpp
 *   kcuda, kcuda --standalone           -> fwd.cu, bwd.cu, standalone.cu
 *   kopt -p inline,unroll,scalarize,O   -> low.kir
 *   kptx --arch ARCH                    -> kernel.ptx
 *
 * through the same library calls, so the files are byte for byte the
 * tools' (tests/dataset/kshard.test compares them), without a process, a
 * dynamic link of LLVM or a re-read of the previous stage per step.  Each
 * stage appends "STAGE pass" or "STAGE fail REASON" to the folder's `checks`
 * (REASON: the first error line of that stage); a kernel that fails a stage
 * goes no further.  The folders of the kernels that pass every stage are
 * listed in WORK/good.
 *
 * The kernels are compiled in order in a worker process forked from kshard,
 * so the libraries are loaded and LLVM initialised once per shard, and a
 * compiler crash or hang (--timeout seconds) rejects that kernel, naming
 * the stage, instead of ending the shard: a fresh worker goes on with the
 * next kernel.
 *
 * --split -o DIR [--start I] MODULE.py... makes work items of a user's own
 * Warp modules (make dataset SOURCE=FOLDER): for each kernel of each module,
 * in order, DIR/sMMMMMM_KKK.py (the module without its other kernels),
 * .meta (seed: --seed, the seed of its inputs; index: the module's number, I + its place on the command line;
 * category "source"; the kernel's name; a launch of about 256 threads by its
 * wp.tid() dimensions; its docstring's first line as the description) and
 * an empty .harness.py.  A module with no kernel kpyc compiles becomes one
 * item, whose kpyc stage fails with kpyc's error.
 *
 * --unit builds the shard module from the kernels in WORK/good: each
 * kernel's module with the kernel renamed u_STEM (unit.py, unitname), all
 * of them compiled as one module into WORK/shard.kir, shard.ad.kir,
 * shard.cpp, shard.cu, and with --ptx or --host shard.low.kir and
 * shard.ptx (nvptx) and shard.host.o (kptx --target=host).  Errors go to
 * WORK/err (the module), WORK/ptx.err and WORK/host.err; exit 1 when the
 * module failed, 0 otherwise (a failed PTX or host object leaves its file
 * missing).
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ir.h"
#include "ast.h"
#include "passes.h"
#include "emit.h"
#include "kptx.h"
#include "meta.h"

#ifndef KPY_INSTALL_INCLUDE
#define KPY_INSTALL_INCLUDE "/usr/local/include"
#endif

/* The stages, in order; a child's time in each is added to the shared
 * table, and a crash is blamed on the first stage without a check line. */
enum { S_KPYC, S_KOPT, S_KCPU, S_KCUDA, S_KPTX, S_UNIT, NSTAGE };
static const char *const stagename[NSTAGE] = {"kpyc", "kopt", "kcpu", "kcuda", "kptx", "shard_module"};

typedef struct Opts {
	const char *work;
	const char *arch;
	const char *timing;
	int seed;
	int timeout;
	bool unit, ptx, host, split;
	const char *out;   /* --split: the folder of the items */
	long start;        /* --split: the first module's number */
} Opts;

static double *stagetime; /* NSTAGE seconds, shared with the children */

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: kshard [--seed S] [--arch sm_XX] [--timeout SEC] [--timing FILE] WORK\n"
	        "       kshard --unit [--ptx] [--host] [--arch sm_XX] WORK\n"
	        "       kshard --split -o DIR [--start I] MODULE.py...\n"
	        "Compile the kernels kgen wrote to WORK/py, each into WORK/k/STEM (the files\n"
	        "kpyc, kopt, kcpu, kcuda and kptx write, and a `checks' file), in one process;\n"
	        "list those that passed in WORK/good.  --unit: the shard module of WORK/good.\n"
	        "  --seed S       the standalone program's default seed (1)\n"
	        "  --arch sm_XX   kptx's target (sm_80)\n"
	        "  --timeout SEC  a kernel's compile time limit (60)\n"
	        "  --timing FILE  CPU time per stage, one \"stage nanoseconds\" line each\n"
	        "  --ptx, --host  --unit: also shard.ptx, shard.host.o\n"
	        "  --split        a work item per kernel of the modules (a user's kernels)\n"
	        "  --start I      --split: the number of the first module (0)\n"
	        "  -h, --help     this text;  -V, --version  the version\n");
}

static char *
path2(const char *dir, const char *name)
{
	Buf b = {0};

	bufprintf(&b, "%s/%s", dir, name);
	return b.s;
}

/* ---- stderr of a stage, and the reason of a failure ---------------- */

/* Send fd 2 to PATH (truncated, or appended to). */
static void
errto(const char *path, bool append)
{
	int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);

	if (fd < 0)
		fatal("cannot write %s:", path);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
}

/* The first line of FILE that names an error (error, Error, FAIL), else
 * its first line; "" when it is empty.  Malloc'd. */
static char *
firstline(const char *path)
{
	char *text = readfile(path, NULL), *line, *first = NULL, *res;

	if (!text)
		return xstrdup("");
	for (line = text; *line;) {
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char save = line[n];

		line[n] = 0;
		if (!first)
			first = line;
		if (strstr(line, "error") || strstr(line, "Error") || strstr(line, "FAIL")) {
			first = line;
			break;
		}
		line[n] = save;
		line += n + (save != 0);
	}
	res = xstrdup(first ? first : "");
	free(text);
	return res;
}

/* Append "NAME STATUS [REASON]" to DIR/checks: at most 400 bytes,
 * newlines as spaces, no trailing blanks. */
static void
check(const char *dir, const char *name, const char *status, const char *reason)
{
	Buf b = {0};
	char *path = path2(dir, "checks");
	FILE *f;
	size_t i;

	bufprintf(&b, "%s %s%s%s\n", name, status, reason ? " " : "", reason ? reason : "");
	if (b.n > 400)
		b.s[b.n = 400] = 0;
	for (i = 0; i < b.n; i++)
		if (b.s[i] == '\n')
			b.s[i] = ' ';
	while (b.n && b.s[b.n - 1] == ' ')
		b.s[--b.n] = 0;
	if (!(f = fopen(path, "a")) || fprintf(f, "%s\n", b.s) < 0 || fclose(f) != 0)
		fatal("cannot write %s:", path);
	free(path);
	buffree(&b);
}

static void
fail(const char *dir, const char *name, const char *errpath)
{
	char *why = firstline(errpath);

	check(dir, name, "fail", why);
	free(why);
}

/* ---- the stages: what each tool's main does, on files --------------- */

static int
writeout(const char *path, const Buf *b)
{
	if (writefile(path, b->s ? b->s : "", b->n) == 0)
		return 0;
	fprintf(stderr, "%s: cannot write %s: %s\n", progname, path, strerror(errno));
	return 2;
}

/* kpyc: the Python files (named as given in NAMES) to OUT. */
static int
kpyc(int n, char **paths, char **names, const char *out)
{
	Src *srcs = xcalloc((size_t)n, sizeof *srcs);
	KpycOpts o = {16, false};
	Module *m = NULL;
	Diag d;
	int i, rc = 1;

	progname = "kpyc";
	for (i = 0; i < n; i++) {
		if (!(srcs[i].text = readfile(paths[i], &srcs[i].len))) {
			fprintf(stderr, "kpyc: cannot read %s: %s\n", paths[i], strerror(errno));
			goto done;
		}
		srcs[i].name = names[i];
	}
	diaginit(&d);
	if ((m = kpyc_compile(srcs, n, &d, &o))) {
		Buf b = {0};
		printmod(&b, m);
		rc = writeout(out, &b);
		buffree(&b);
		modfree(m);
	}
done:
	for (i = 0; i < n; i++)
		free((char *)srcs[i].text);
	free(srcs);
	return rc;
}

/* kopt -p PASSES [--verify-each] IN -o OUT */
static int
kopt(const char *passes, bool verifyeach, const char *in, const char *out)
{
	PassOpts po = {0};
	Src src = {0};
	Diag d;
	Module *m;
	Buf b = {0};
	const PassInfo *pipe[64];
	int npipe = 0, i, rc = 0;

	progname = "kopt";
	if (!addpasses(passes, pipe, &npipe, 64))
		fatal("kshard: bad pipeline %s", passes);
	if (!(src.text = readfile(in, &src.len))) {
		fprintf(stderr, "kopt: cannot read %s: %s\n", in, strerror(errno));
		return 1;
	}
	src.name = in;
	diaginit(&d);
	po.d = &d;
	po.src = &src;
	po.max_unroll = 16;
	if (!(m = parsekir(&src, &d))) {
		free((char *)src.text);
		return 1;
	}
	if (verify(m, &src, &d)) {
		rc = 1;
		goto done;
	}
	for (i = 0; i < npipe; i++)
		if (pipe[i]->fn(m, &po) || d.nerr || (verifyeach && verify(m, &src, &d))) {
			rc = 1;
			goto done;
		}
	printmod(&b, m);
	rc = writeout(out, &b);
done:
	buffree(&b);
	modfree(m);
	free((char *)src.text);
	return rc;
}

/* kcpu IN -o OUT, or kcuda [--standalone ...] IN -o OUT with co */
static int
emitcxx(const char *in, const char *out, const CudaOpts *co)
{
	EmitOpts o = {0};
	char *text;
	Module *m;
	Buf b = {0};
	int rc;

	progname = o.tool = co ? "kcuda" : "kcpu";
	o.cuda = co != NULL;
	if (!(m = loadkir(in, &text))) {
		free(text);
		return 1;
	}
	if (co && emitcudacheck(m, co) < 0) {
		fprintf(stderr, "kcuda: %s: no kernel named '%s'\n", in, co->kernel ? co->kernel : "");
		rc = 1;
	} else {
		if (co)
			emitcuda(m, &o, co, &b);
		else
			emitcpu(m, &o, &b);
		rc = writeout(out, &b);
	}
	buffree(&b);
	modfree(m);
	free(text);
	return rc;
}

/* kptx [--target=host] --arch ARCH IN -o OUT */
static int
kptx(const char *in, const char *out, const char *arch, bool host)
{
	KptxOpts o = {0};
	Src src = {0};
	Diag d;
	Module *m;
	Buf b = {0};
	int rc = 0;

	progname = "kptx";
	o.target = host ? KPTX_HOST : KPTX_NVPTX;
	o.emit = host ? EMIT_OBJ : EMIT_PTX;
	o.arch = arch;
	o.optlevel = KPTX_OPTLEVEL(host);
	o.fmad = !host;
	o.verify = true;
	o.libdevice = getenv("KPY_LIBDEVICE");
	if (!o.libdevice || !*o.libdevice)
		o.libdevice = KPY_LIBDEVICE;
	if (!(src.text = readfile(in, &src.len))) {
		fprintf(stderr, "kptx: cannot read %s: %s\n", in, strerror(errno));
		return 1;
	}
	src.name = in;
	diaginit(&d);
	o.d = &d;
	o.src = &src;
	if (!(m = parsekir(&src, &d))) {
		free((char *)src.text);
		return 1;
	}
	if (verify(m, &src, &d) || kptxcompile(m, &o, &b) || d.nerr)
		rc = 1;
	else
		rc = writeout(out, &b);
	buffree(&b);
	modfree(m);
	free((char *)src.text);
	return rc;
}

/* ---- one kernel ------------------------------------------------------ */

typedef struct Kernel {
	char *dir;     /* WORK/k/STEM */
	char *name;    /* the kernel's name (meta "kernel") */
	char *dim;     /* meta "dim" */
} Kernel;

/* ad's first warning, without its location, to DIR/adwarn ("" if none). */
static void
adwarn(const char *dir, const char *errpath)
{
	char *text = readfile(errpath, NULL), *p = text ? strstr(text, "warning:") : NULL, *out;
	Buf b = {0};

	if (p) {
		char *ls = p, *le = strchr(p, '\n');
		const char *q;
		while (ls > text && ls[-1] != '\n')
			ls--;
		if (le)
			*le = 0;
		/* "FILE:LINE:COL: warning: " at the start of the line goes */
		q = strchr(ls, ':');
		if (q) {
			const char *r = q + 1;
			r += strspn(r, "0123456789");
			if (*r == ':') {
				r++;
				r += strspn(r, "0123456789");
				if (strncmp(r, ": warning: ", 11) == 0)
					ls = (char *)r + 11;
			}
		}
		bufprintf(&b, "%s\n", ls);
	}
	out = path2(dir, "adwarn");
	if (writefile(out, b.s ? b.s : "", b.n) != 0)
		fatal("cannot write %s:", out);
	free(out);
	buffree(&b);
	free(text);
}

/* Add the time since *t to stage s. */
static void
lap(int s, double *t)
{
	double n = clockcpu();

	stagetime[s] += n - *t;
	*t = n;
}

#define F(name) (free(p), p = path2(k->dir, name))

/* The chain for one kernel, in the child; returns 0 when every stage passed. */
static int
compilekernel(const Kernel *k, const Opts *o)
{
	char *err = path2(k->dir, "err"), *p = NULL, *p2 = NULL, *py, *name = NULL;
	Buf b = {0};
	double t = clockcpu();
	int rc = 1;
	CudaOpts co = {0};

	/* kpyc NAME.py, in the kernel's folder: the texts name the module */
	bufprintf(&b, "%s.py", k->name);
	name = xstrdup(b.s);
	py = path2(k->dir, name);
	errto(err, false);
	F("kernel.kir");
	if (kpyc(1, &py, &name, p)) {
		fail(k->dir, "kpyc", err);
		goto done;
	}
	check(k->dir, "kpyc", "pass", NULL);
	lap(S_KPYC, &t);

	free(p2);
	p2 = path2(k->dir, "ad.kir");
	errto(err, false);
	if (kopt("ad,O", true, p, p2)) {
		fail(k->dir, "kopt", err);
		goto done;
	}
	check(k->dir, "kopt", "pass", NULL);
	adwarn(k->dir, err);
	lap(S_KOPT, &t);

	{
		char *ad = p2, *fk = path2(k->dir, "forward.kir"), *bk = path2(k->dir, "backward.kir");
		char *fc = path2(k->dir, "fwd.cpp"), *bc = path2(k->dir, "bwd.cpp");
		int bad;

		errto(err, false);
		bad = kopt("forward", false, ad, fk);
		errto(err, false);
		bad |= kopt("backward", false, ad, bk);
		if (!bad) {
			errto(err, false);
			bad = emitcxx(fk, fc, NULL) || (errto(err, true), emitcxx(bk, bc, NULL));
		}
		lap(S_KCPU, &t);
		if (bad) {
			fail(k->dir, "kcpu", err);
			free(fk), free(bk), free(fc), free(bc);
			goto done;
		}
		check(k->dir, "kcpu", "pass", NULL);
		co.seed = 1;
		co.arch = "sm_80";
		co.include = KPY_INSTALL_INCLUDE;
		free(fc), free(bc);
		fc = path2(k->dir, "fwd.cu"), bc = path2(k->dir, "bwd.cu");
		errto(err, false);
		bad = emitcxx(fk, fc, &co) || (errto(err, true), emitcxx(bk, bc, &co));
		if (!bad) {
			CudaOpts so = co;
			so.standalone = true;
			so.kernel = k->name;
			so.dim = k->dim;
			so.seed = o->seed;
			F("standalone.cu");
			errto(err, true);
			bad = emitcxx(ad, p, &so);
		}
		free(fk), free(bk), free(fc), free(bc);
		lap(S_KCUDA, &t);
		if (bad) {
			fail(k->dir, "kcuda", err);
			goto done;
		}
		check(k->dir, "kcuda", "pass", NULL);
	}

	F("low.kir");
	errto(err, false);
	if (kopt("inline,unroll,scalarize,O", false, p2, p) ||
	    (free(p2), p2 = path2(k->dir, "kernel.ptx"), errto(err, true), kptx(p, p2, o->arch, false))) {
		lap(S_KPTX, &t);
		fail(k->dir, "kptx", err);
		goto done;
	}
	lap(S_KPTX, &t);
	check(k->dir, "kptx", "pass", NULL);
	rc = 0;
done:
	free(err), free(p), free(p2), free(py), free(name);
	buffree(&b);
	return rc;
}

#undef F

/* Copy FROM to TO (small files: whole). */
static void
copyfile(const char *from, const char *to)
{
	size_t n;
	char *text = readfile(from, &n);

	if (!text || writefile(to, text, n) != 0)
		fatal("cannot copy %s to %s:", from, to);
	free(text);
}

static int
metafile(const struct dirent *e)
{
	size_t n = strlen(e->d_name);
	return n > 5 && strcmp(e->d_name + n - 5, ".meta") == 0;
}

static int
byname(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Kernel k's compile ended its worker before it was reported (wait status
 * st): a crash, a timeout or an exit (a library's exit(), or a failed
 * report) is a failure of the stage it happened in, named in its checks.
 * Returns 1 (failed). */
static int
died(const Kernel *k, const Opts *o, int st)
{
	int nchecks = 0;
	char *checks, *text, *q;

	checks = path2(k->dir, "checks");
	text = readfile(checks, NULL);
	for (q = text; q && *q; q++)
		nchecks += *q == '\n';
	{
		char why[128];
		int s = nchecks < S_UNIT ? nchecks : S_KPTX;
		if (WIFEXITED(st))
			snprintf(why, sizeof why, "error: %s exited (status %d)", stagename[s], WEXITSTATUS(st));
		else if (WTERMSIG(st) == SIGALRM)
			snprintf(why, sizeof why, "error: compiling took more than %d s", o->timeout);
		else
			snprintf(why, sizeof why, "error: %s crashed (signal %d, %s)", stagename[s], WTERMSIG(st),
			         strsignal(WTERMSIG(st)));
		check(k->dir, stagename[s], "fail", why);
	}
	free(text);
	free(checks);
	return 1;
}

/* Compile ks[0..n-1] into rc[0..n-1] (0: every stage passed, 1: a stage
 * failed), in one worker process forked from kshard that takes the kernels
 * in order and reports each on a pipe: the libraries are loaded and LLVM
 * initialised once per shard, and the pages of the code a compile touches
 * are mapped once per worker, not once per kernel (a child per kernel
 * faulted about 1000 pages in again each: docs/dataset-engine.md).  A
 * kernel that crashes its stage or runs past --timeout ends the worker:
 * that kernel fails, naming the stage, and a fresh worker forked from here
 * goes on with the next, so no kernel's end costs another its compile.
 * progress(i) runs in this process as kernel i is reported. */
static void
compileworkers(const Kernel *ks, int n, const Opts *o, int *rc, void (*progress)(int, int, const Opts *))
{
	int next = 0;

	while (next < n) {
		int p[2], st, i;
		unsigned char r;
		ssize_t got;
		pid_t pid;

		fflush(NULL);
		if (pipe(p) < 0 || (pid = fork()) < 0)
			fatal("kshard: cannot start a worker:");
		if (pid == 0) {
			close(p[0]);
			for (i = next; i < n; i++) {
				alarm((unsigned)o->timeout);
				r = (unsigned char)(compilekernel(&ks[i], o) != 0);
				alarm(0);
				if (write(p[1], &r, 1) != 1)
					_exit(2);
			}
			_exit(0);
		}
		close(p[1]);
		while ((got = read(p[0], &r, 1)) == 1 || (got < 0 && errno == EINTR))
			if (got == 1) {
				rc[next] = r;
				progress(next++, n, o);
			}
		close(p[0]);
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				fatal("kshard: waitpid:");
		if (next < n) {
			/* the kernel that ended the worker */
			rc[next] = died(&ks[next], o, st);
			progress(next++, n, o);
		}
	}
}

static double progress_t0;

static void
progress(int i, int n, const Opts *o)
{
	if ((i + 1) % 25 == 0)
		fprintf(stderr, "dataset: shard %s: compiled %d/%d kernels (%.1f kernels/s)\n",
		        strrchr(o->work, '/') ? strrchr(o->work, '/') + 1 : o->work, i + 1, n,
		        (i + 1) / (clockwall() - progress_t0 + 1e-9));
}

static int
compileall(const Opts *o)
{
	char *pydir = path2(o->work, "py"), *kdir = path2(o->work, "k"), *goodpath = path2(o->work, "good");
	struct dirent **ents;
	Buf good = {0};
	Kernel *ks;
	int n, i, *rc;

	if ((n = scandir(pydir, &ents, metafile, byname)) < 0) {
		fprintf(stderr, "kshard: cannot read %s: %s\n", pydir, strerror(errno));
		free(pydir), free(kdir), free(goodpath);
		return 2;
	}
	if (mkdir(kdir, 0755) != 0 && errno != EEXIST)
		fatal("kshard: cannot make %s:", kdir);
	progress_t0 = clockwall();
	ks = xcalloc((size_t)n + 1, sizeof *ks);
	rc = xcalloc((size_t)n + 1, sizeof *rc);
	for (i = 0; i < n; i++) {
		Buf stem = {0}, from = {0}, nm = {0};
		char *meta, *metatext, *to;
		Kernel *kp = &ks[i], k = {0};

		bufwrite(&stem, ents[i]->d_name, strlen(ents[i]->d_name) - 5);
		k.dir = path2(kdir, stem.s);
		if (mkdir(k.dir, 0755) != 0 && errno != EEXIST)
			fatal("kshard: cannot make %s:", k.dir);
		meta = path2(pydir, ents[i]->d_name);
		if (!(metatext = readfile(meta, NULL)))
			fatal("kshard: cannot read %s:", meta);
		k.name = metaget(metatext, "kernel");
		k.dim = metaget(metatext, "dim");
		if (!k.name || !k.dim)
			fatal("kshard: %s: no kernel or dim line", meta);
		/* the kernel's folder: kernel.py, NAME.py, harness.py, meta, checks */
		bufprintf(&from, "%s/%s.py", pydir, stem.s);
		to = path2(k.dir, "kernel.py");
		copyfile(from.s, to);
		free(to);
		bufprintf(&nm, "%s/%s.py", k.dir, k.name);
		copyfile(from.s, nm.s);
		from.n = 0;
		bufprintf(&from, "%s/%s.harness.py", pydir, stem.s);
		to = path2(k.dir, "harness.py");
		copyfile(from.s, to);
		free(to);
		to = path2(k.dir, "meta");
		if (writefile(to, metatext, strlen(metatext)) != 0)
			fatal("kshard: cannot write %s:", to);
		free(to);
		to = path2(k.dir, "checks");
		if (writefile(to, "", 0) != 0)
			fatal("kshard: cannot write %s:", to);
		free(to);

		*kp = k;
		free(meta), free(metatext);
		buffree(&stem), buffree(&from), buffree(&nm);
		free(ents[i]);
	}
	free(ents);
	compileworkers(ks, n, o, rc, progress);
	for (i = 0; i < n; i++) {
		if (rc[i] == 0)
			bufprintf(&good, "%s/kernel.py\n", ks[i].dir);
		free(ks[i].dir), free(ks[i].name), free(ks[i].dim);
	}
	free(ks);
	free(rc);
	if (writefile(goodpath, good.s ? good.s : "", good.n) != 0)
		fatal("kshard: cannot write %s:", goodpath);
	buffree(&good);
	free(pydir), free(kdir), free(goodpath);
	return 0;
}

/* ---- the shard module ------------------------------------------------ */

/* KERNEL.py with "def NAME(" at the start of a line renamed "def NEW(". */
static int
rename_kernel(const char *from, const char *to, const char *name, const char *new)
{
	size_t n;
	char *text = readfile(from, &n), *p = text;
	Buf b = {0}, pat = {0};
	int rc;

	if (!text)
		return -1;
	bufprintf(&pat, "def %s(", name);
	while (*p) {
		char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p + 1) : strlen(p);
		if (strncmp(p, pat.s, pat.n) == 0) {
			bufprintf(&b, "def %s(", new);
			bufwrite(&b, p + pat.n, len - pat.n);
		} else
			bufwrite(&b, p, len);
		p += len;
	}
	rc = writefile(to, b.s ? b.s : "", b.n);
	buffree(&b), buffree(&pat);
	free(text);
	return rc;
}

static int
buildunit(const Opts *o)
{
	char *goodpath = path2(o->work, "good"), *good = readfile(goodpath, NULL), *line, *save = NULL;
	char **paths = NULL;
	int n = 0, cap = 0, rc = 0;
	char *err = path2(o->work, "err"), *kir = path2(o->work, "shard.kir"), *ad = path2(o->work, "shard.ad.kir");
	char *cpp = path2(o->work, "shard.cpp"), *cu = path2(o->work, "shard.cu"), *low = path2(o->work, "shard.low.kir");
	char *ptx = path2(o->work, "shard.ptx"), *hosto = path2(o->work, "shard.host.o");
	char *perr = path2(o->work, "ptx.err"), *herr = path2(o->work, "host.err");
	CudaOpts co = {0};
	double t = clockcpu();
	int i;

	if (!good) {
		fprintf(stderr, "kshard: cannot read %s: %s\n", goodpath, strerror(errno));
		rc = 2;
		goto done;
	}
	for (line = strtok_r(good, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *dir = xstrdup(line), *slash = strrchr(dir, '/'), *meta, *metatext, *name, *unit, *un;
		const char *stem;
		Buf u = {0};

		if (!slash)
			fatal("kshard: %s: bad line in %s", line, goodpath);
		*slash = 0;
		stem = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
		meta = path2(dir, "meta");
		if (!(metatext = readfile(meta, NULL)) || !(name = metaget(metatext, "kernel")))
			fatal("kshard: cannot read the kernel's name from %s", meta);
		bufprintf(&u, "u_%s", stem);
		unit = path2(dir, "unit.py");
		un = path2(dir, "unitname");
		if (rename_kernel(line, unit, name, u.s) != 0)
			fatal("kshard: cannot write %s:", unit);
		bufputc(&u, '\n');
		if (writefile(un, u.s, u.n) != 0)
			fatal("kshard: cannot write %s:", un);
		if (n == cap)
			paths = xrealloc(paths, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *paths);
		paths[n++] = unit;
		free(dir), free(meta), free(metatext), free(name), free(un);
		buffree(&u);
	}
	free(good);
	co.seed = 1;
	co.arch = "sm_80";
	co.include = KPY_INSTALL_INCLUDE;
	errto(err, false);
	if (n == 0 || kpyc(n, paths, paths, kir) || (errto("/dev/null", false), kopt("ad,O", false, kir, ad)) ||
	    (errto(err, true), emitcxx(ad, cpp, NULL)) || emitcxx(ad, cu, &co)) {
		rc = 1;
		goto done;
	}
	if (o->ptx || o->host) {
		errto("/dev/null", false);
		if (kopt("inline,unroll,scalarize,O", false, ad, low) == 0) {
			errto(perr, false);
			if (o->ptx)
				kptx(low, ptx, o->arch, false);
			errto(herr, false);
			if (o->host)
				kptx(low, hosto, o->arch, true);
		}
	}
done:
	lap(S_UNIT, &t);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(goodpath), free(err), free(kir), free(ad), free(cpp), free(cu), free(low), free(ptx), free(hosto);
	free(perr), free(herr);
	return rc;
}


/* ---- a user's modules: one work item per kernel ---------------------- */

/* Launch extents by wp.tid() dimensions: about 256 threads. */
static const char *const splitdims[5] = {"256", "256", "16,16", "8,8,4", "4,4,4,4"};

/* Offsets of the lines of text: line[i] starts line i + 1; line[*n] = len. */
static size_t *
lineindex(const char *text, size_t len, int *n)
{
	size_t *v = xmalloc(sizeof *v * (len + 2)), i;
	int k = 0;

	v[k++] = 0;
	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			v[k++] = i + 1;
	if (v[k - 1] != len)
		v[k++] = len;
	*n = k - 1;
	return v;
}

static bool
blankline(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p == e || *p == '#';
}

/* The end of the signature of the def on line def (1-based): the offset of
 * its ':' outside brackets. */
static size_t
sigend(const char *text, const size_t *line, int nlines, int def)
{
	size_t i;
	int depth = 0;

	for (i = line[def - 1]; i < line[nlines]; i++) {
		if (text[i] == '(' || text[i] == '[')
			depth++;
		else if ((text[i] == ')' || text[i] == ']') && depth > 0)
			depth--;
		else if (text[i] == ':' && depth == 0)
			break;
	}
	return i;
}

/* The lines [*from, *to) of the kernel whose "def" is on line def: its
 * decorators above and its body below, up to the next line that starts at
 * column 0 after the signature (blank and comment lines before that line
 * stay with it). */
static void
kernellines(const char *text, const size_t *line, int nlines, int def, int *from, int *to)
{
	size_t end = sigend(text, line, nlines, def);
	int l = def;

	/* its decorators, and the comment lines right above them */
	while (l > 1 && (text[line[l - 2]] == '@' || text[line[l - 2]] == '#'))
		l--;
	*from = l;
	for (l = def + 1; l <= nlines; l++) {
		const char *p = text + line[l - 1], *e = text + line[l];
		if (line[l - 1] <= end)
			continue;
		if (!blankline(p, e) && *p != ' ' && *p != '\t')
			break;
	}
	while (l - 1 > def && line[l - 2] > end && blankline(text + line[l - 2], text + line[l - 1]))
		l--;
	*to = l;
}

/* The first line of the docstring that opens the body of the def on line
 * def, or "". */
static char *
docline(const char *text, const size_t *line, int nlines, int def)
{
	size_t i = sigend(text, line, nlines, def) + 1;
	const char *p = text + i, *e = text + line[nlines], *q;
	Buf b = {0};

	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	if (e - p < 3 || (strncmp(p, "\"\"\"", 3) != 0 && strncmp(p, "'''", 3) != 0))
		return xstrdup("");
	p += 3;
	while (p < e && *p == ' ')
		p++;
	for (q = p; q < e && *q != '\n' && *q != '\r' && strncmp(q, "\"\"\"", 3) != 0 && strncmp(q, "'''", 3) != 0; q++)
		;
	bufwrite(&b, p, (size_t)(q - p));
	while (b.n && b.s[b.n - 1] == ' ')
		b.s[--b.n] = 0;
	return b.s ? b.s : xstrdup("");
}

static void
writeitem(const Opts *o, const char *stem, const char *py, size_t npy, const char *meta)
{
	Buf p = {0};

	bufprintf(&p, "%s/%s.py", o->out, stem);
	if (writefile(p.s, py, npy) != 0)
		fatal("kshard: cannot write %s:", p.s);
	p.n = 0;
	bufprintf(&p, "%s/%s.meta", o->out, stem);
	if (writefile(p.s, meta, strlen(meta)) != 0)
		fatal("kshard: cannot write %s:", p.s);
	p.n = 0;
	bufprintf(&p, "%s/%s.harness.py", o->out, stem);
	if (writefile(p.s, "", 0) != 0)
		fatal("kshard: cannot write %s:", p.s);
	buffree(&p);
}

/* Where kernels were cut out: no more than two blank lines in a row (as
 * between top-level definitions), and one newline at the end. */
static void
squeeze(Buf *b)
{
	size_t i, o = 0;
	int nl = 0;

	for (i = 0; i < b->n; i++) {
		nl = b->s[i] == '\n' ? nl + 1 : 0;
		if (nl <= 3)
			b->s[o++] = b->s[i];
	}
	while (o > 1 && b->s[o - 1] == '\n' && b->s[o - 2] == '\n')
		o--;
	b->n = o;
	if (b->s)
		b->s[o] = 0;
}

/* A kernel of m that came from the Python text (not a backward kernel). */
static bool
srckernel(const Func *f, int nlines)
{
	return f->kernel && f->adjof < 0 && f->loc.line > 0 && (int)f->loc.line <= nlines;
}

static int
splitmodules(const Opts *o, int n, char **files)
{
	int i;

	if (mkdir(o->out, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "kshard: cannot make %s: %s\n", o->out, strerror(errno));
		return 2;
	}
	for (i = 0; i < n; i++) {
		const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
		Src src = {0};
		KpycOpts ko = {16, false};
		Module *m;
		Diag d;
		Buf stem = {0}, meta = {0};
		int nk = 0, nlines, saved = dup(2);
		uint32_t f;
		size_t *line;

		if (!(src.text = readfile(files[i], &src.len))) {
			fprintf(stderr, "kshard: cannot read %s: %s\n", files[i], strerror(errno));
			return 2;
		}
		src.name = base;
		diaginit(&d);
		errto("/dev/null", false); /* the compile stage reports the errors */
		m = kpyc_compile(&src, 1, &d, &ko);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		line = lineindex(src.text, src.len, &nlines);
		for (f = 0; m && f < m->nfuncs; f++) {
			const Func *fn = m->funcs[f];
			EmitOpts eo = {0};
			Emit *e;
			Buf py = {0};
			int l, dims;
			uint32_t k;
			char *doc;

			if (!srckernel(fn, nlines))
				continue;
			e = emitnew(m, &eo);
			dims = emittiddims(e, (int)f);
			emitfree(e);
			/* the module without its other kernels (in source order) */
			for (l = 1; l <= nlines;) {
				int gf = nlines + 1, gt = nlines + 1;
				for (k = 0; k < m->nfuncs; k++) {
					int a, b;
					if (m->funcs[k] == fn || !srckernel(m->funcs[k], nlines))
						continue;
					kernellines(src.text, line, nlines, (int)m->funcs[k]->loc.line, &a, &b);
					if (a >= l && a < gf)
						gf = a, gt = b;
				}
				bufwrite(&py, src.text + line[l - 1], line[gf - 1] - line[l - 1]);
				l = gt;
			}
			squeeze(&py);
			doc = docline(src.text, line, nlines, (int)fn->loc.line);
			stem.n = meta.n = 0;
			bufprintf(&stem, "s%06ld_%03d", o->start + i, nk++);
			bufprintf(&meta, "seed %d\nindex %ld\ncategory source\nkernel %s\ndim %s\nmodule %s\ndescription %s\n",
			          o->seed, o->start + i, fn->name, splitdims[dims >= 1 && dims <= 4 ? dims : 1], base, doc);
			writeitem(o, stem.s, py.s ? py.s : "", py.n, meta.s);
			free(doc);
			buffree(&py);
		}
		if (nk == 0) {
			/* nothing to compile: one item whose kpyc stage says why */
			char name[128];
			size_t k, len = strlen(base);
			snprintf(name, sizeof name, "%.*s", (int)(len > 3 ? len - 3 : len), base);
			for (k = 0; name[k]; k++)
				if (!((name[k] >= 'a' && name[k] <= 'z') || (name[k] >= 'A' && name[k] <= 'Z') ||
				      (name[k] >= '0' && name[k] <= '9')))
					name[k] = '_';
			stem.n = meta.n = 0;
			bufprintf(&stem, "s%06ld_000", o->start + i);
			bufprintf(&meta, "seed %d\nindex %ld\ncategory source\nkernel %s\ndim 256\nmodule %s\ndescription \n",
			          o->seed, o->start + i, name, base);
			writeitem(o, stem.s, src.text, src.len, meta.s);
		}
		free(line);
		modfree(m);
		free((char *)src.text);
		buffree(&stem), buffree(&meta);
	}
	return 0;
}

/* ---- main ------------------------------------------------------------ */

int
main(int argc, char **argv)
{
	enum { OPT_SEED = 256, OPT_ARCH, OPT_TIMEOUT, OPT_TIMING, OPT_UNIT, OPT_PTX, OPT_HOST, OPT_SPLIT, OPT_START };
	static const struct option longopts[] = {
		{"seed", required_argument, NULL, OPT_SEED},
		{"arch", required_argument, NULL, OPT_ARCH},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"timing", required_argument, NULL, OPT_TIMING},
		{"unit", no_argument, NULL, OPT_UNIT},
		{"ptx", no_argument, NULL, OPT_PTX},
		{"host", no_argument, NULL, OPT_HOST},
		{"split", no_argument, NULL, OPT_SPLIT},
		{"start", required_argument, NULL, OPT_START},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	Opts o = {0};
	int c, rc, saved;
	long v;
	char *end;

	progname = "kshard";
	o.arch = "sm_80";
	o.seed = 1;
	o.timeout = 60;
	while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SEED:
		case OPT_TIMEOUT:
			v = strtol(optarg, &end, 10);
			if (*end || !*optarg || v < (c == OPT_SEED ? 0 : 1) || v > 0x7fffffff) {
				fprintf(stderr, "kshard: bad --%s '%s'\n", c == OPT_SEED ? "seed" : "timeout", optarg);
				return 2;
			}
			*(c == OPT_SEED ? &o.seed : &o.timeout) = (int)v;
			break;
		case OPT_ARCH:
			if (strncmp(optarg, "sm_", 3) != 0 || atoi(optarg + 3) < 75) {
				fprintf(stderr, "kshard: bad --arch '%s' (sm_75 or newer)\n", optarg);
				return 2;
			}
			o.arch = optarg;
			break;
		case OPT_TIMING: o.timing = optarg; break;
		case OPT_UNIT: o.unit = true; break;
		case OPT_PTX: o.ptx = true; break;
		case OPT_HOST: o.host = true; break;
		case OPT_SPLIT: o.split = true; break;
		case OPT_START:
			v = strtol(optarg, &end, 10);
			if (*end || !*optarg || v < 0 || v > 99999999) {
				fprintf(stderr, "kshard: bad --start '%s'\n", optarg);
				return 2;
			}
			o.start = v;
			break;
		case 'o': o.out = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("kshard (kpy) %s\n", KPY_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (o.split) {
		if (!o.out || optind == argc) {
			fprintf(stderr, "kshard: --split needs -o DIR and the modules\n");
			usage(stderr);
			return 2;
		}
		return splitmodules(&o, argc - optind, argv + optind);
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "kshard: %s\n", optind == argc ? "no WORK folder" : "one WORK folder only");
		usage(stderr);
		return 2;
	}
	o.work = argv[optind];
	stagetime = mmap(NULL, NSTAGE * sizeof *stagetime, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stagetime == MAP_FAILED)
		fatal("kshard: mmap:");
	saved = dup(2);
	rc = o.unit ? buildunit(&o) : compileall(&o);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (o.timing) {
		Buf b = {0};
		int s;
		for (s = 0; s < NSTAGE; s++)
			if (stagetime[s] > 0)
				bufprintf(&b, "%s %.0f\n", stagename[s], stagetime[s] * 1e9);
		if (writefile(o.timing, b.s ? b.s : "", b.n) != 0) {
			fprintf(stderr, "kshard: cannot write %s: %s\n", o.timing, strerror(errno));
			rc = 2;
		}
		buffree(&b);
	}
	return rc;
}
