/*
 * eval.c — keval: score a candidate implementation of a dataset record's kernel
 * against kpy's own reference, in a way that is hard to game.  See keval(1).
 *
 * The reference is the record's Python through kpy's pipeline (kpyc | kopt
 * -p ad,O | kopt -p forward|backward | kcpu), built twice by krun: float32
 * (what the candidate must match) and float64 (--double: the rounding
 * spread of the float32 build sets each array's tolerance).  A cpp
 * candidate is compiled by krun like any kcpu module (its compiler, flags,
 * bounds checks).  The python target (evalpy.c) makes no process per
 * tool or per trial: the reference's Python goes through the frontend,
 * the passes and krun's JIT (f32, f64) in keval, and the candidate gets one
 * forked child that compiles and JITs it the same way (-O0, kptx's host
 * code, bounds-checked), confines itself and makes all its runs (runpy,
 * pychild).
 *
 * Trials: 3 seeds x 2 input distributions (krun's uniform data, and a wide
 * one: magnitudes 1e-3..1e3, both signs, exact zeros), launch sizes 1, odd
 * and not a multiple of any block size, plus 2 reruns in reverse and
 * shuffled thread order.  keval writes every array argument as .npy (the
 * arrays the reference only writes are filled with a sentinel: NaN, a
 * 0x5A bit pattern), runs the candidate in krun --sandbox in its own
 * process under CPU and memory limits, reads its arrays from a pipe, and
 * only once every candidate run has ended runs the reference on the same
 * files.  Rules: arrays the reference does not write come back bitwise
 * unchanged; integer and bool arrays exactly; float arrays element by
 * element equal to the float32 reference or within rtol * (|ref64| +
 * 1e-3 max|ref64|) of the float64 one, rtol = 8 x the float32 build's own
 * spread + 32 ulps (so a sentinel left, a zero, a float16 round trip fail).
 *
 * Memory: everything is freed by exit; a process scores one candidate (a
 * batch forks one process per task, after it built a python task's
 * reference: refmod, kept until exit).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, pipe2, nftw */
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "config.h"
#include "ir.h"
#include "data.h"
#include "sandbox.h"
#include "incdir.h"
#include "eval.h"
#include "evalpy.h"

enum { NSEEDS = 3, NDISTS = 2, NTRIALS = NSEEDS * NDISTS, NRUNS = NTRIALS + 2 };
static const char *const distname[NDISTS] = {"uniform", "wide"};

/* A child process's results. */
typedef struct Proc {
	Buf out;        /* standard output */
	Buf err;        /* standard error (its first 64 KiB) */
	int status;     /* as waitpid gives it */
	bool walltime;  /* killed at the wall-clock limit */
	bool overflow;  /* standard output beyond the cap */
} Proc;

/* Limits of a candidate run. */
typedef struct Limits {
	double cpu;     /* seconds */
	long memory;    /* MiB, 0: none */
} Limits;

/* One array of a run's output stream. */
typedef struct Arr {
	char name[160];
	NpyArray a;
} Arr;

typedef struct Out {
	Arr *v;
	int n;
	bool ok;         /* the run exited 0 and its stream parsed */
	char why[512];   /* else: why not */
	bool sandbox;    /* killed for a forbidden system call */
	bool timeout;    /* killed at a limit of time */
} Out;

/* One launch: seed, distribution, extents, thread order. */
typedef struct Trial {
	unsigned long long seed;
	int dist;
	kpy_launch_bounds b;
	const char *order;   /* krun --order */
	int data;            /* the trial whose inputs and reference it uses */
} Trial;

char keval_tooldir[PATH_MAX];
static char scratch[PATH_MAX];
const char *const keval_targets[4] = {"cpp", "python", "cuda", "ptx"};

/* ---- processes ----------------------------------------------------- */

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run argv (a tool of keval_tooldir when argv[0] has no slash) in cwd (or
 * here), with KPY_CACHE=cache when given, under limits lim when given;
 * capture its standard output and error.  Or, when fn is given, a forked
 * child that calls fn(arg, fd) and exits: what it writes to fd is the
 * output, its standard output and error are the error (the limits apply,
 * except that of file sizes: fn sets it).  0, or -1 when it could not
 * start. */
static int
spawnx(char **argv, void (*fn)(void *, int), void *arg, const char *cwd, const char *cache, const Limits *lim,
       Proc *p)
{
	enum { OUTCAP = 512 << 20, ERRCAP = 64 << 10 };
	char path[PATH_MAX + 64];
	int po[2], pe[2];
	double deadline = lim ? now() + 4 * lim->cpu + 30 : 0;
	pid_t pid;

	memset(p, 0, sizeof *p);
	if (fn)
		path[0] = 0;
	else if (strchr(argv[0], '/'))
		snprintf(path, sizeof path, "%s", argv[0]);
	else
		snprintf(path, sizeof path, "%s/%s", keval_tooldir, argv[0]);
	if (pipe2(po, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0) {
		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		return -1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, 0);
			close(fd);
		}
		if (fn) {
			dup2(pe[1], 1);
		} else {
			dup2(po[1], 1);
		}
		dup2(pe[1], 2);
		if (cwd && chdir(cwd) < 0)
			_exit(126);
		if (cache)
			setenv("KPY_CACHE", cache, 1);
		if (lim) {
			struct rlimit r;
			r.rlim_cur = (rlim_t)ceil(lim->cpu);
			r.rlim_max = r.rlim_cur + 1;
			setrlimit(RLIMIT_CPU, &r);
			r.rlim_cur = r.rlim_max = 0;
			setrlimit(RLIMIT_CORE, &r);
			if (!fn)
				setrlimit(RLIMIT_FSIZE, &r);
#if !defined(__SANITIZE_ADDRESS__)
			if (lim->memory > 0) {
				r.rlim_cur = r.rlim_max = (rlim_t)lim->memory << 20;
				setrlimit(RLIMIT_AS, &r);
			}
#endif
		}
		if (fn) {
			close(po[0]);
			close(pe[0]);
			fn(arg, po[1]);
			fflush(NULL);
			_exit(0);
		}
		execv(path, argv);
		fprintf(stderr, "keval: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	{
		struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
		Buf *dst[2] = {&p->out, &p->err};
		size_t cap[2] = {OUTCAP, ERRCAP};
		int open = 2, i;
		char buf[65536];
		while (open > 0) {
			int ms = -1, r;
			if (lim) {
				double left = deadline - now();
				if (left <= 0) {
					kill(pid, SIGKILL);
					p->walltime = true;
					break;
				}
				ms = (int)(left * 1000) + 1;
			}
			r = poll(fds, 2, ms);
			if (r < 0 && errno != EINTR)
				break;
			for (i = 0; i < 2 && r > 0; i++) {
				ssize_t n;
				if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
					continue;
				n = read(fds[i].fd, buf, sizeof buf);
				if (n <= 0) {
					close(fds[i].fd);
					fds[i].fd = -1;
					open--;
					continue;
				}
				if (dst[i]->n + (size_t)n <= cap[i])
					bufwrite(dst[i], buf, (size_t)n);
				else if (i == 0 && !p->overflow) {
					p->overflow = true;
					kill(pid, SIGKILL);
				}
			}
		}
		for (i = 0; i < 2; i++)
			if (fds[i].fd >= 0)
				close(fds[i].fd);
	}
	while (waitpid(pid, &p->status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!p->out.s)
		bufputs(&p->out, "");
	if (!p->err.s)
		bufputs(&p->err, "");
	return 0;
}

static int
spawn(char **argv, const char *cwd, const char *cache, const Limits *lim, Proc *p)
{
	return spawnx(argv, NULL, NULL, cwd, cache, lim, p);
}

static void
procfree(Proc *p)
{
	buffree(&p->out);
	buffree(&p->err);
}

/* Run a tool that must succeed (the reference's pipeline); 0, or -1 with
 * its first error line in why. */
static int
tool(char **argv, const char *cwd, char *why, size_t n)
{
	Proc p;
	int rc = 0;

	if (spawn(argv, cwd, NULL, NULL, &p) < 0) {
		snprintf(why, n, "cannot run %s: %s", argv[0], strerror(errno));
		return -1;
	}
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
		char line[400];
		evalpy_errline(p.err.s, line, sizeof line);
		snprintf(why, n, "%s failed: %s", argv[0], line);
		rc = -1;
	}
	procfree(&p);
	return rc;
}

/* kpyc | kopt -p ad,O | kopt -p forward|backward [| kcpu] in dir, from
 * dir/NAME.py to dir/half.kir [and dir/k.cpp] (the tools run in dir so
 * that the texts name NAME.py, not this run's folders). */
static int
pipeline(const char *dir, const char *name, bool backward, bool cpp, char *why, size_t n)
{
	char py[300];
	char *kpyc[] = {"kpyc", py, "-o", "k.kir", NULL};
	char *ad[] = {"kopt", "-p", "ad,O", "k.kir", "-o", "ad.kir", NULL};
	char *half[] = {"kopt", "-p", backward ? "backward" : "forward", "ad.kir", "-o", "half.kir", NULL};
	char *kcpu[] = {"kcpu", "half.kir", "-o", "k.cpp", NULL};

	snprintf(py, sizeof py, "%s.py", name);
	return tool(kpyc, dir, why, n) < 0 || tool(ad, dir, why, n) < 0 || tool(half, dir, why, n) < 0 ||
	               (cpp && tool(kcpu, dir, why, n) < 0)
	           ? -1
	           : 0;
}

/* krun CPP --compile [--double], KPY_CACHE=cache (or the user's): the .so
 * path (malloc'd), or NULL with the compiler's first error line. */
static char *
compile(const char *cpp, bool dbl, const char *cache, char *why, size_t n)
{
	char *argv[] = {"krun", (char *)cpp, "--compile", dbl ? "--double" : NULL, NULL};
	Proc p;
	char *so = NULL;

	if (spawn(argv, NULL, cache, NULL, &p) < 0) {
		snprintf(why, n, "cannot run krun: %s", strerror(errno));
		return NULL;
	}
	if (WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0 && p.out.n > 1) {
		p.out.s[p.out.n - 1] = 0;
		so = xstrdup(p.out.s);
	} else {
		evalpy_errline(p.err.s, why, n);
	}
	procfree(&p);
	return so;
}

/* ---- inputs -------------------------------------------------------- */

/* The wide distribution: floats 0 (1 in 8) or +-10^u, u uniform in
 * [-3, 3]; integers and bools as krun makes them. */
static void
fillwide(NpyArray *a, unsigned long long seed, uint64_t stream)
{
	int64_t i;

	if (a->dtype < KPY_F16) {
		kpy_fill(a->data, a->dtype, a->count, seed, stream);
		return;
	}
	for (i = 0; i < a->count; i++) {
		double u = kpy_uniform(seed, stream ^ 0x77696465ULL, 2 * (uint64_t)i);
		double m = kpy_uniform(seed, stream ^ 0x77696465ULL, 2 * (uint64_t)i + 1);
		double x = u < 0.125 ? 0 : pow(10, 6 * m - 3) * (u < 0.5625 ? -1 : 1);
		kpy_set(a->data, a->dtype, i, x);
	}
}

/* What the reference only writes starts as a sentinel: NaN, the bytes
 * 0x5A (integers), or the trial's parity (bools). */
static void
fillsentinel(NpyArray *a, int trial)
{
	int64_t i;

	if (a->dtype >= KPY_F16)
		for (i = 0; i < a->count; i++)
			kpy_set(a->data, a->dtype, i, NAN);
	else if (a->dtype == KPY_BOOL)
		memset(a->data, trial & 1, (size_t)a->count);
	else
		memset(a->data, 0x5A, (size_t)a->count * (size_t)npy_dtype_size(a->dtype));
}

static bool
npyable(const kpy_param_info *p)
{
	return p->type.kind == KPY_ARRAY && p->type.elem != KPY_STRUCT;
}

/* Write the array arguments of kernel k for trial t into dir, or keep
 * them in keep[i], i the parameter's index (the python target's). */
static int
makeinputs(const kpy_kernel_info *k, const Trial *t, int ti, const char *dir, NpyArray *keep, char *why, size_t n)
{
	int i;

	if (!keep && mkdir(dir, 0700) < 0 && errno != EEXIST) {
		snprintf(why, n, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < k->nparams; i++) {
		const kpy_param_info *p = &k->params[i];
		int64_t shape[NPY_MAXDIM], es[2];
		int32_t s32[4];
		int d, ne;
		NpyArray a;
		char path[PATH_MAX + 200], err[512];
		if (!npyable(p))
			continue;
		kpy_default_shape(&t->b, p->type.ndim, s32);
		for (d = 0; d < p->type.ndim; d++)
			shape[d] = s32[d];
		ne = kpy_elem_shape(&p->type, es);
		for (d = 0; d < ne; d++)
			shape[p->type.ndim + d] = es[d];
		if (npy_alloc(&a, p->type.dtype, p->type.ndim + ne, shape) < 0) {
			snprintf(why, n, "out of memory");
			return -1;
		}
		if ((p->access & KPY_WRITE) && !(p->access & KPY_READ))
			fillsentinel(&a, ti);
		else if (t->dist == 0)
			kpy_fill(a.data, a.dtype, a.count, t->seed, kpy_stream(p->name));
		else
			fillwide(&a, t->seed, kpy_stream(p->name));
		if (keep) {
			keep[i] = a;
			continue;
		}
		snprintf(path, sizeof path, "%s/%s.npy", dir, p->name);
		if (npy_write(path, &a, err, sizeof err) < 0) {
			snprintf(why, n, "%s", err);
			npy_free(&a);
			return -1;
		}
		npy_free(&a);
	}
	return 0;
}

/* ---- runs ---------------------------------------------------------- */

static void
outfree(Out *o)
{
	int i;

	for (i = 0; i < o->n; i++)
		npy_free(&o->v[i].a);
	free(o->v);
	memset(o, 0, sizeof *o);
}

/* Parse krun's --out=- stream. */
static int
parsestream(const Buf *b, Out *o)
{
	size_t at = 0;

	while (at < b->n) {
		char *nl = memchr(b->s + at, '\n', b->n - at), name[160], err[256];
		unsigned long long len;
		int i;
		if (!nl || sscanf(b->s + at, "%159s %llu", name, &len) != 2 || len > b->n - (size_t)(nl + 1 - b->s)) {
			snprintf(o->why, sizeof o->why, "malformed output stream at byte %zu", at);
			return -1;
		}
		at = (size_t)(nl + 1 - b->s);
		for (i = 0; i < o->n; i++)
			if (strcmp(o->v[i].name, name) == 0) {
				snprintf(o->why, sizeof o->why, "array '%s' written twice", name);
				return -1;
			}
		o->v = xrealloc(o->v, sizeof(Arr) * (size_t)(o->n + 1));
		snprintf(o->v[o->n].name, sizeof o->v[o->n].name, "%s", name);
		if (npy_parse(b->s + at, (size_t)len, &o->v[o->n].a, err, sizeof err) < 0) {
			snprintf(o->why, sizeof o->why, "array '%s': %s", name, err);
			return -1;
		}
		o->n++;
		at += (size_t)len;
	}
	return 0;
}

/* One krun launch of so (sandboxed when box) for trial t, inputs in dir. */
static void
runone(const char *so, const kpy_kernel_info *k, const Trial *t, const char *dir, const char *box,
       const Limits *lim, Out *o)
{
	char *argv[64 + 256];
	char dims[64], seed[32], order[64], sb[PATH_MAX + 16];
	char **store = xcalloc((size_t)k->nparams + 1, sizeof(char *));
	int n = 0, i, d;
	Proc p;

	memset(o, 0, sizeof *o);
	d = snprintf(dims, sizeof dims, "%d", t->b.shape[0]);
	for (i = 1; i < t->b.ndim; i++)
		d += snprintf(dims + d, sizeof dims - (size_t)d, ",%d", t->b.shape[i]);
	snprintf(seed, sizeof seed, "%llu", t->seed);
	snprintf(order, sizeof order, "--order=%s", t->order);
	argv[n++] = "krun";
	argv[n++] = (char *)so;
	if (strlen(so) > 4 && strcmp(so + strlen(so) - 4, ".kir") == 0) {
		/* the JIT at -O0: each run compiles the module (milliseconds),
		 * and the launches are small */
		argv[n++] = "-O";
		argv[n++] = "0";
	}
	argv[n++] = "--kernel";
	argv[n++] = (char *)k->name;
	argv[n++] = "--dim";
	argv[n++] = dims;
	argv[n++] = "--seed";
	argv[n++] = seed;
	argv[n++] = order;
	argv[n++] = "--out=-";
	if (box) {
		snprintf(sb, sizeof sb, "--sandbox=%s", box);
		argv[n++] = sb;
	}
	for (i = 0; i < k->nparams && n < 64 + 250; i++) {
		Buf b = {0};
		if (!npyable(&k->params[i]))
			continue;
		bufprintf(&b, "--in=%s=%s/%s.npy", k->params[i].name, dir, k->params[i].name);
		store[i] = b.s;
		argv[n++] = b.s;
	}
	argv[n] = NULL;
	if (spawn(argv, NULL, NULL, lim, &p) < 0) {
		snprintf(o->why, sizeof o->why, "cannot run krun: %s", strerror(errno));
	} else if (p.walltime || (WIFSIGNALED(p.status) && (WTERMSIG(p.status) == SIGXCPU ||
	                                                     WTERMSIG(p.status) == SIGKILL))) {
		o->timeout = true;
		snprintf(o->why, sizeof o->why, "killed at the time limit (%g s of CPU)", lim ? lim->cpu : 0.0);
	} else if (WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSYS) {
		o->sandbox = true;
		snprintf(o->why, sizeof o->why,
		         "sandbox: a forbidden system call (a file opened for writing, a socket, exec, a new "
		         "process...): killed, not carried out");
	} else if (WIFSIGNALED(p.status)) {
		snprintf(o->why, sizeof o->why, "killed by signal %d", WTERMSIG(p.status));
	} else if (p.overflow) {
		snprintf(o->why, sizeof o->why, "too much output");
	} else if (WEXITSTATUS(p.status) != 0) {
		char line[400];
		evalpy_errline(p.err.s, line, sizeof line);
		snprintf(o->why, sizeof o->why, "exit %d: %s", WEXITSTATUS(p.status), line);
	} else if (parsestream(&p.out, o) == 0) {
		o->ok = true;
	}
	procfree(&p);
	for (i = 0; i < k->nparams; i++)
		free(store[i]);
	free(store);
}

/* ---- the python target: one child per candidate -------------------- */

/* What the child of a python candidate is given (evalpy.c does its work). */
typedef struct PyJob {
	const char *text;        /* the candidate's Python */
	size_t len;
	const char *kname;       /* the record's kernel (its file NAME.py) */
	bool backward;
	const char *box;         /* the folder it may read once sandboxed (empty) */
	const kpy_kernel_info *k; /* the kernel the trials launch (the reference's table) */
	const Trial *t;
	NpyArray *const *in;     /* per trial, per parameter of k: the inputs */
	double cpu;              /* CPU seconds per step (the compile, each run) */
} PyJob;

/* Reference runs made by this process (and the processes it was forked
 * from): a candidate's process must start with none, or expected outputs
 * would be in the memory it inherits. */
static long refruns;

/* Let this process use cpu more seconds of CPU from now (SIGXCPU then). */
static void
cpufor(double cpu)
{
	struct rusage u;
	struct rlimit r;
	double used;

	if (getrusage(RUSAGE_SELF, &u) < 0 || getrlimit(RLIMIT_CPU, &r) < 0)
		return;
	used = (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 + (double)u.ru_stime.tv_sec +
	       (double)u.ru_stime.tv_usec * 1e-6;
	r.rlim_cur = (rlim_t)ceil(used + cpu);
	if (r.rlim_max != RLIM_INFINITY && r.rlim_cur > r.rlim_max)
		r.rlim_cur = r.rlim_max;
	setrlimit(RLIMIT_CPU, &r);
}

/* The child: compile the candidate (frontend, passes, JIT), confine itself
 * (kpy_sandbox: box only), run every trial, each under its own CPU
 * allowance, its arrays guarded by PROT_NONE pages and bounds-checked.
 * Frames on fd, in order: "#compile OK SECONDS LEN\n" + LEN bytes (why
 * not), "#sandbox LEVEL\n", then per run "#run I ok|fail LEN\n" + LEN
 * bytes (krun's --out=- stream, or why not).  The reference's outputs do
 * not exist yet: keval computes them once this process has ended. */
static void
pychild(void *arg, int fd)
{
	const PyJob *j = arg;
	FILE *f = fdopen(fd, "w");
	char why[1024] = "";
	Buf kir = {0};
	const char *self = getenv("KEVAL_SELFTEST");
	double t0 = now();
	struct rlimit r;
	PyMod m;
	int ok, sb, i;

	if (!f)
		_exit(120);
	if (refruns) {
		fprintf(stderr, "keval: error: %ld reference runs were made before the candidate's process started\n",
		        refruns);
		_exit(123);
	}
	cpufor(j->cpu);
	ok = evalpy_compile(j->text, j->len, j->kname, j->backward, &kir, why, sizeof why) == 0 &&
	     evalpy_load("half.kir", &kir, false, &m, why, sizeof why) == 0;
	buffree(&kir);
	fprintf(f, "#compile %d %.6f %zu\n%s", ok, now() - t0, strlen(why), why);
	fflush(f);
	if (!ok)
		_exit(0);
	r.rlim_cur = r.rlim_max = 0;
	setrlimit(RLIMIT_FSIZE, &r);
	if ((sb = kpy_sandbox(j->box, why, sizeof why)) < 0) {
		fprintf(stderr, "keval: sandbox: %s\n", why);
		_exit(121);
	}
	fprintf(f, "#sandbox %d\n", sb);
	fflush(f);
	if (self) {
		/* KEVAL_SELFTEST (tests/keval/python-box.test): what the sandbox
		 * must stop, tried here as the candidate's code would */
		const char *path = strchr(self, ':') ? strchr(self, ':') + 1 : "";
		if (strcmp(self, "socket") == 0) {
			(void)socket(AF_INET, SOCK_STREAM, 0);
		} else if (strncmp(self, "write:", 6) == 0) {
			(void)open(path, O_WRONLY | O_CREAT, 0600);
		} else if (strncmp(self, "read:", 5) == 0) {
			if (open(path, O_RDONLY) >= 0) {
				fprintf(stderr, "keval: selftest: error: the candidate's process could read %s\n", path);
				_exit(99);
			}
		}
	}
	for (i = 0; i < NRUNS; i++) {
		const Trial *t = &j->t[i];
		char *mem = NULL;
		size_t len = 0;
		FILE *s = open_memstream(&mem, &len);
		int rc;
		if (!s)
			_exit(122);
		cpufor(j->cpu);
		rc = evalpy_run(&m, j->k->name, j->k, j->in[t->data], &t->b, t->seed, t->order, true, false, s, why,
		                sizeof why);
		if (fclose(s) != 0)
			_exit(122);
		fflush(stdout);
		if (rc == 0) {
			fprintf(f, "#run %d ok %zu\n", i, len);
			fwrite(mem, 1, len, f);
		} else {
			fprintf(f, "#run %d fail %zu\n%s", i, strlen(why), why);
		}
		fflush(f);
		free(mem);
	}
	fclose(f);
	fflush(NULL);
	/* no exit handlers: LLVM's, or a leak checker's threads */
	_exit(0);
}

/* Run a python candidate's child (job j, limits lim): its compile in v
 * ("compiled", "compile_s", why in why), its runs in cout[NRUNS]; the
 * sandbox's level in *sb (1 seccomp+landlock, 0 seccomp, -1 unknown).
 * Returns whether it compiled. */
static bool
runpy(PyJob *j, const Limits *lim, cJSON *v, Out *cout, int *sb, char *why, size_t n)
{
	Limits all = *lim;
	Proc p;
	size_t at = 0;
	int i, next = 0, compiled = -1;
	double secs = 0;
	char death[512] = "";

	*sb = -1;
	for (i = 0; i < NRUNS; i++)
		memset(&cout[i], 0, sizeof cout[i]);
	/* the time of the compile and of every run, each checked by the child */
	all.cpu = lim->cpu * (NRUNS + 1);
	why[0] = 0;
	if (spawnx(NULL, pychild, j, NULL, NULL, &all, &p) < 0) {
		snprintf(death, sizeof death, "cannot start the candidate's process: %s", strerror(errno));
	} else {
		/* the frames */
		while (at < p.out.n) {
			char *nl = memchr(p.out.s + at, '\n', p.out.n - at), st[8];
			size_t len, body;
			int ri, c;
			if (!nl)
				break;
			body = (size_t)(nl + 1 - p.out.s);
			if (sscanf(p.out.s + at, "#compile %d %lf %zu", &c, &secs, &len) == 3 && len <= p.out.n - body) {
				compiled = c;
				snprintf(why, n, "%.*s", (int)len, p.out.s + body);
				at = body + len;
			} else if (sscanf(p.out.s + at, "#sandbox %d", sb) == 1) {
				at = body;
			} else if (sscanf(p.out.s + at, "#run %d %7s %zu", &ri, st, &len) == 3 && ri == next &&
			           len <= p.out.n - body) {
				Out *o = &cout[next++];
				if (strcmp(st, "ok") == 0) {
					Buf b;
					b.s = p.out.s + body;
					b.n = len;
					if (parsestream(&b, o) == 0)
						o->ok = true;
				} else {
					snprintf(o->why, sizeof o->why, "exit 1: %.*s", (int)len, p.out.s + body);
				}
				at = body + len;
			} else {
				break;
			}
		}
		if (p.walltime || (WIFSIGNALED(p.status) && (WTERMSIG(p.status) == SIGXCPU ||
		                                              WTERMSIG(p.status) == SIGKILL)))
			snprintf(death, sizeof death, "killed at the time limit (%g s of CPU)", lim->cpu);
		else if (WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSYS)
			snprintf(death, sizeof death,
			         "sandbox: a forbidden system call (a file opened for writing, a socket, exec, a new "
			         "process...): killed, not carried out");
		else if (WIFSIGNALED(p.status))
			snprintf(death, sizeof death, "killed by signal %d", WTERMSIG(p.status));
		else if (p.overflow)
			snprintf(death, sizeof death, "too much output");
		else if (WEXITSTATUS(p.status) != 0) {
			char line[400];
			evalpy_errline(p.err.s, line, sizeof line);
			snprintf(death, sizeof death, "exit %d: %s", WEXITSTATUS(p.status), line);
		} else if (compiled == 1 && next < NRUNS)
			snprintf(death, sizeof death, "malformed output stream");
		procfree(&p);
	}
	if (compiled != 1) {
		if (compiled < 0 || !why[0])
			snprintf(why, n, "%s", death[0] ? death : "the compile reported nothing");
		cJSON_AddBoolToObject(v, "compiled", false);
		cJSON_AddNumberToObject(v, "compile_s", secs);
		return false;
	}
	cJSON_AddBoolToObject(v, "compiled", true);
	cJSON_AddNumberToObject(v, "compile_s", secs);
	for (i = next; i < NRUNS; i++) {
		Out *o = &cout[i];
		if (i > next) {
			snprintf(o->why, sizeof o->why, "not run (an earlier run was killed)");
			continue;
		}
		snprintf(o->why, sizeof o->why, "%s", death);
		o->timeout = strncmp(death, "killed at the time", 18) == 0;
		o->sandbox = strncmp(death, "sandbox:", 8) == 0;
	}
	return true;
}

/* The reference's run of trial t (module m, f32 or dbl), in this process. */
static void
runref(const PyMod *m, const kpy_kernel_info *k, const Trial *t, const NpyArray *in, bool dbl, Out *o)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *s = open_memstream(&mem, &len);
	int rc;

	memset(o, 0, sizeof *o);
	if (!s) {
		snprintf(o->why, sizeof o->why, "out of memory");
		return;
	}
	refruns++;
	rc = evalpy_run(m, k->name, k, in, &t->b, t->seed, "forward", false, dbl, s, o->why, sizeof o->why);
	if (fclose(s) == 0 && rc == 0) {
		Buf b;
		b.s = mem;
		b.n = len;
		if (parsestream(&b, o) == 0)
			o->ok = true;
	} else if (rc == 0) {
		snprintf(o->why, sizeof o->why, "out of memory");
	}
	free(mem);
}

/* The python target's reference modules (f32, f64), built once per
 * process and record: a batch builds them before it forks a record's
 * tasks, which inherit the code (their outputs are computed by each task
 * once its candidate has exited, never before). */
typedef struct RefMod {
	char *py;        /* the record's Python */
	char *kname;
	bool backward;
	bool ok;
	PyMod m32, m64;
	char why[1024];  /* else: why not */
} RefMod;

static RefMod *refmods;
static int nrefmods;

static bool isident(const char *s);

/* The stack of the thread that builds a reference: the frontend and the
 * passes recurse over the kernel's regions, as in the main thread. */
enum { REFSTACK = 64 << 20 };

/* Build r's modules (r->py, kname, backward set). */
static void *
refbuild(void *arg)
{
	RefMod *r = arg;
	Buf kir = {0};

	r->ok = evalpy_compile(r->py, strlen(r->py), r->kname, r->backward, &kir, r->why, sizeof r->why) == 0 &&
	        evalpy_load("half.kir", &kir, false, &r->m32, r->why, sizeof r->why) == 0 &&
	        evalpy_load("half.kir", &kir, true, &r->m64, r->why, sizeof r->why) == 0;
	buffree(&kir);
	return NULL;
}

static const RefMod *
refmod(const char *py, const char *kname, bool backward)
{
	RefMod *r;
	int i;

	for (i = 0; i < nrefmods; i++)
		if (refmods[i].backward == backward && strcmp(refmods[i].kname, kname) == 0 &&
		    strcmp(refmods[i].py, py) == 0)
			return &refmods[i];
	refmods = xrealloc(refmods, sizeof *refmods * (size_t)(nrefmods + 1));
	r = &refmods[nrefmods++];
	memset(r, 0, sizeof *r);
	r->py = xstrdup(py);
	r->kname = xstrdup(kname);
	r->backward = backward;
	{
		/* built by a thread of its own, joined at once: glibc gives that
		 * thread an arena of its own, so that the references' heap (LLVM's
		 * modules, kept until exit) stays out of the main arena, which the
		 * processes forked from this one allocate from.  A candidate's
		 * process, or a batch's task, then takes fresh pages from a small
		 * heap instead of copying the pages of a large one as it reuses
		 * their free chunks (copy-on-write: docs/keval.md) */
		pthread_t th;
		pthread_attr_t a;
		bool threaded = pthread_attr_init(&a) == 0;
		if (threaded) {
			threaded = pthread_attr_setstacksize(&a, REFSTACK) == 0 && pthread_create(&th, &a, refbuild, r) == 0;
			pthread_attr_destroy(&a);
		}
		if (threaded)
			pthread_join(th, NULL);
		else
			refbuild(r);
	}
	return r;
}

void
keval_preload(const char *rectext, bool backward)
{
	cJSON *rec = cJSON_Parse(rectext);
	const char *kname = rec ? keval_getstr(rec, "kernel") : NULL, *py = rec ? keval_getstr(rec, "python") : NULL;

	if (kname && py && isident(kname))
		refmod(py, kname, backward);
	cJSON_Delete(rec);
}

/* ---- comparison ---------------------------------------------------- */

static const Arr *
findarr(const Out *o, const char *name)
{
	int i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->v[i].name, name) == 0)
			return &o->v[i];
	return NULL;
}

static bool
sameval(double x, double y)
{
	return x == y || (isnan(x) && isnan(y));
}

static bool
samebits(const NpyArray *x, const NpyArray *y)
{
	int64_t i;

	if (x->dtype < KPY_F16)
		return memcmp(x->data, y->data, (size_t)x->count * (size_t)npy_dtype_size(x->dtype)) == 0;
	for (i = 0; i < x->count; i++)
		if (!sameval(kpy_get(x->data, x->dtype, i), kpy_get(y->data, y->dtype, i)))
			return false;
	return true;
}

/* Compare array got of the candidate with the reference's r32 (and r64,
 * its float64 run); written: the reference writes it; rfloor: the least
 * relative tolerance (the GPU's math library, else 0).  Adds the array's
 * figures to arrays; returns whether it passes. */
static bool
comparearr(const char *name, const NpyArray *got, const NpyArray *r32, const NpyArray *r64, bool written,
           double rfloor, cJSON *arrays)
{
	cJSON *j = cJSON_CreateObject();
	bool ok = true;
	char shape[128];
	int d;

	cJSON_AddStringToObject(j, "name", name);
	cJSON_AddItemToArray(arrays, j);
	if (!got) {
		cJSON_AddStringToObject(j, "error", "missing from the candidate's output");
		return false;
	}
	if (got->dtype != r32->dtype || got->ndim != r32->ndim || got->count != r32->count) {
		npy_shapestr(got, shape, sizeof shape);
		cJSON_AddStringToObject(j, "error", "dtype or shape differs from the reference's");
		return false;
	}
	for (d = 0; d < got->ndim; d++)
		if (got->shape[d] != r32->shape[d]) {
			cJSON_AddStringToObject(j, "error", "shape differs from the reference's");
			return false;
		}
	cJSON_AddBoolToObject(j, "written", written);
	if (!written) {
		ok = samebits(got, r32);
		cJSON_AddStringToObject(j, "rule", "unchanged (bitwise)");
		if (!ok)
			cJSON_AddStringToObject(j, "error", "an input the reference does not write was changed");
	} else if (got->dtype < KPY_F16) {
		ok = samebits(got, r32);
		cJSON_AddStringToObject(j, "rule", "exact");
		if (!ok)
			cJSON_AddStringToObject(j, "error", "differs from the reference");
	} else {
		double mag = 0, spread = 0, rtol, eps, maxabs = 0, maxrel = 0;
		int64_t i, bad = 0, unwritten = 0, first = -1;
		eps = got->dtype == KPY_F16 ? 0x1p-10 : got->dtype == KPY_F32 ? 0x1p-23 : 0x1p-52;
		for (i = 0; i < r64->count; i++) {
			double y = kpy_get(r64->data, r64->dtype, i);
			if (isfinite(y) && fabs(y) > mag)
				mag = fabs(y);
		}
		for (i = 0; i < r64->count; i++) {
			double y = kpy_get(r64->data, r64->dtype, i), x = kpy_get(r32->data, r32->dtype, i);
			if (isfinite(y) && isfinite(x))
				spread = fmax(spread, fabs(x - y) / (fabs(y) + 1e-3 * mag + DBL_MIN));
		}
		rtol = fmin(fmax(8 * spread + 32 * eps, rfloor), 1e-2);
		for (i = 0; i < got->count; i++) {
			double c = kpy_get(got->data, got->dtype, i), x = kpy_get(r32->data, r32->dtype, i);
			double y = kpy_get(r64->data, r64->dtype, i), den = fabs(y) + 1e-3 * mag + DBL_MIN;
			bool e = sameval(c, x);
			if (!e && isfinite(c) && isfinite(y)) {
				double ae = fabs(c - y);
				maxabs = fmax(maxabs, ae);
				maxrel = fmax(maxrel, ae / den);
				e = ae <= rtol * den;
			} else if (!e) {
				maxabs = maxrel = INFINITY;
			}
			if (!e) {
				bad++;
				if (first < 0)
					first = i;
				if (isnan(c) && !isnan(x))
					unwritten++;
			}
		}
		ok = bad == 0;
		cJSON_AddStringToObject(j, "rule", "float: equal to ref32, or |x - ref64| <= rtol (|ref64| + 1e-3 max|ref64|)");
		cJSON_AddNumberToObject(j, "max_abs_err", isfinite(maxabs) ? maxabs : -1);
		cJSON_AddNumberToObject(j, "max_rel_err", isfinite(maxrel) ? maxrel : -1);
		cJSON_AddNumberToObject(j, "rtol", rtol);
		cJSON_AddNumberToObject(j, "ref32_spread", spread);
		cJSON_AddNumberToObject(j, "magnitude", mag);
		cJSON_AddBoolToObject(j, "ill_conditioned", rtol >= 1e-2);
		cJSON_AddNumberToObject(j, "mismatches", (double)bad);
		if (unwritten)
			cJSON_AddNumberToObject(j, "unwritten", (double)unwritten);
		if (first >= 0) {
			cJSON_AddNumberToObject(j, "first_mismatch", (double)first);
			cJSON_AddNumberToObject(j, "got", kpy_get(got->data, got->dtype, first));
			cJSON_AddNumberToObject(j, "want", kpy_get(r64->data, r64->dtype, first));
			cJSON_AddStringToObject(j, "error", unwritten == bad ? "elements the reference writes were not written"
			                                                     : "outside the tolerance");
		}
	}
	return ok;
}

/* ---- record -------------------------------------------------------- */

static cJSON *
readrecord(const KevalOpts *o, char *why, size_t n)
{
	size_t len;
	char *text, *line;
	cJSON *r = NULL;

	if (o->rectext) {
		if (!(r = cJSON_Parse(o->rectext)))
			snprintf(why, n, "%s: the record does not parse", o->record);
		return r;
	}
	text = readfile(o->record, &len);

	if (!text) {
		snprintf(why, n, "cannot read %s: %s", o->record, strerror(errno));
		return NULL;
	}
	if (!o->id) {
		r = strlen(text) == len ? cJSON_ParseWithOpts(text, NULL, 1) : NULL;
		if (!r)
			snprintf(why, n, "%s: not one JSON object (a JSONL file needs --id)", o->record);
	} else {
		for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
			cJSON *c = cJSON_Parse(line), *id;
			if (c && (id = cJSON_GetObjectItemCaseSensitive(c, "id")) && cJSON_IsString(id) &&
			    strcmp(id->valuestring, o->id) == 0) {
				r = c;
				break;
			}
			cJSON_Delete(c);
		}
		if (!r)
			snprintf(why, n, "%s: no record with id '%s'", o->record, o->id);
	}
	free(text);
	if (r && !cJSON_IsObject(r)) {
		snprintf(why, n, "%s: not a JSON object", o->record);
		cJSON_Delete(r);
		r = NULL;
	}
	return r;
}

const char *
keval_getstr(const cJSON *r, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool
isident(const char *s)
{
	if (!s || !*s || !(s[0] == '_' || ((s[0] | 32) >= 'a' && (s[0] | 32) <= 'z')))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= '0' && *s <= '9') || ((*s | 32) >= 'a' && (*s | 32) <= 'z')))
			return false;
	return true;
}

/* Launch extents of each trial: 1, small odd, the record's made odd
 * (each extent at most 255 beyond the first dimension). */
static void
maketrials(const int32_t *rdim, int ndim, unsigned long long seed, Trial *t)
{
	static const int small[4] = {7, 5, 3, 3};
	kpy_launch_bounds sizes[3];
	int s, d, i;

	memset(sizes, 0, sizeof sizes);
	for (s = 0; s < 3; s++) {
		int64_t total = 1;
		sizes[s].ndim = ndim;
		for (d = 0; d < ndim; d++) {
			int v = s == 0 ? 1 : s == 1 ? (ndim == 1 ? 61 : small[d]) : rdim[d] | 1;
			if (s == 2 && v < 3)
				v = 3;
			if (s == 2 && d > 0 && v > 255)
				v = 255;
			if (s == 2 && v > 100001)
				v = 100001;
			sizes[s].shape[d] = v;
			total *= v;
		}
		sizes[s].size = (int)total;
	}
	for (i = 0; i < NTRIALS; i++) {
		int si = i / NDISTS, di = i % NDISTS;
		t[i].seed = seed + (unsigned long long)si;
		t[i].dist = di;
		t[i].b = sizes[(si + di) % 3];
		t[i].order = "forward";
		t[i].data = i;
	}
	/* the same data, other orders of the threads */
	t[NTRIALS] = t[3];
	t[NTRIALS].order = "reverse";
	t[NTRIALS + 1] = t[4];
	t[NTRIALS + 1].order = "shuffle:7";
}

/* ---- files --------------------------------------------------------- */

static int
rmentry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void
keval_cleanup(void)
{
	if (scratch[0])
		nftw(scratch, rmentry, 16, FTW_DEPTH | FTW_PHYS);
}

static int
writetext(const char *dir, const char *file, const char *text, size_t n)
{
	char path[PATH_MAX + 300];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	return writefile(path, text, n);
}

/* ---- the GPU bundle (cuda, ptx) ------------------------------------ */

/*
 * keval --bundle DIR writes, per candidate NAME of record R (H: R's id,
 * .adj when backward, .sSEED):
 *   cand/NAME.cu|.ptx   the candidate
 *   cand/NAME.runs      its launches: RUN DATA KERNEL DIM SEED BLOCK
 *   cand/NAME.json      name, id, target, backward, seed, host (for --score)
 *   host/H.cu           kcuda --standalone of the reference, its kernels
 *                       declared only (hostprogram())
 *   in/H/tDATA/NAME.npy the inputs of each trial, as for cpp
 *   include/kpy/, Makefile, run.sh, one.sh, cands.mk
 * and never an output of the reference.  keval --score DIR --results RES
 * makes the inputs and the reference again on this side and compares
 * RES/NAME/runRUN/ARRAY.npy as it compares a cpp candidate's arrays.
 */
extern const char kpy_kevalgpu_mk[], kpy_kevalgpu_run[], kpy_kevalgpu_one[];

enum { GPU_BLOCK = 256 };
/* the threads per block of the two reruns: other orders of the threads */
static const int rerunblock[2] = {32, 7};
/* the least relative tolerance on a GPU: its math library (sinf, expf:
 * 1 to 4 ulp) against glibc's; the bundle's RTOL (docs/gpu-bundle.md) */
#define GPU_RTOL_FLOOR 1e-4

bool
keval_goodname(const char *s)
{
	size_t n = 0;

	if (!s || !*s || *s == '.')
		return false;
	for (; s[n]; n++)
		if (!(s[n] == '_' || s[n] == '-' || s[n] == '.' || (s[n] >= '0' && s[n] <= '9') ||
		      ((s[n] | 32) >= 'a' && (s[n] | 32) <= 'z')))
			return false;
	return n <= 100;
}

/* mkdir -p */
static int
mkdirp(const char *path)
{
	char p[PATH_MAX];
	size_t i;

	if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
		return -1;
	for (i = 1; p[i]; i++)
		if (p[i] == '/') {
			p[i] = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return -1;
			p[i] = '/';
		}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static bool
prefix(const char *l, size_t n, const char *p)
{
	size_t m = strlen(p);
	return n >= m && memcmp(l, p, m) == 0;
}

/* The bundle's host program from kcuda --standalone's text sa: of its
 * kernel section, the includes, the struct definitions (the host's
 * tables take their sizes) and the kernels' declarations, defined empty
 * under KPY_SA_PTX (the driver-API launcher never calls them); then the
 * host program as kcuda wrote it.  No reference code stays.  -1 when sa
 * has no host program. */
static int
hostprogram(const char *sa, Buf *b)
{
	const char *mark = strstr(sa, "\n// ---- the standalone host program"), *l = sa;
	enum { TOP, STRUCT, BODY } st = TOP;

	if (!mark)
		return -1;
	bufputs(b, "// The host program of a keval GPU bundle: kcuda --standalone of the record's\n"
	           "// kernel, the kernels only declared (the candidate defines them).\n");
	while (l <= mark) {
		const char *e = strchr(l, '\n');
		size_t n = (size_t)((e && e < mark ? e : mark) - l);
		if (st == STRUCT) {
			bufwrite(b, l, n);
			bufputs(b, "\n");
			if (prefix(l, n, "};"))
				st = TOP;
		} else if (st == BODY) {
			if (prefix(l, n, "}"))
				st = TOP;
		} else if (prefix(l, n, "#include")) {
			bufwrite(b, l, n);
			bufputs(b, "\n");
		} else if (prefix(l, n, "struct ")) {
			bufwrite(b, l, n);
			bufputs(b, "\n");
			if (!(n >= 2 && memcmp(l + n - 2, "};", 2) == 0))
				st = STRUCT;
		} else if (prefix(l, n, "extern \"C\" __global__ ")) {
			bufwrite(b, l, n);
			bufputs(b, "\n#ifdef KPY_SA_PTX\n{\n}\n#else\n;\n#endif\n");
			st = BODY;
		} else if (n > 0 && l[0] != ' ' && l[0] != '\t' && l[0] != '/' && l[n - 1] != ';') {
			st = BODY; /* a helper, defined: dropped */
		}
		l += n + 1;
	}
	bufputs(b, mark + 1);
	return 0;
}

/* Copy the file from to to (mode 0644 or 0755). */
static int
copyfile(const char *from, const char *to)
{
	size_t n;
	char *t = readfile(from, &n);
	int rc;

	if (!t)
		return -1;
	rc = writefile(to, t, n);
	free(t);
	return rc;
}

/* The bundle's fixed files: include/kpy, Makefile, run.sh, one.sh. */
static int
bundlefiles(const char *dir, char *why, size_t n)
{
	char from[PATH_MAX + 300], to[PATH_MAX + 300];
	const char *inc = kpy_includedir();
	DIR *d;
	struct dirent *e;
	int rc = 0;

	snprintf(to, sizeof to, "%s/include/kpy", dir);
	snprintf(from, sizeof from, "%s/kpy", inc);
	if (mkdirp(to) < 0 || !(d = opendir(from))) {
		snprintf(why, n, "cannot copy the runtime headers %.300s to %.300s: %s", from, to, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)))
		if (strlen(e->d_name) > 2 && strcmp(e->d_name + strlen(e->d_name) - 2, ".h") == 0) {
			snprintf(from, sizeof from, "%s/kpy/%s", inc, e->d_name);
			snprintf(to, sizeof to, "%s/include/kpy/%s", dir, e->d_name);
			if (copyfile(from, to) < 0) {
				snprintf(why, n, "cannot copy %.300s: %s", from, strerror(errno));
				rc = -1;
			}
		}
	closedir(d);
	if (rc == 0 && (writetext(dir, "Makefile", kpy_kevalgpu_mk, strlen(kpy_kevalgpu_mk)) < 0 ||
	                writetext(dir, "run.sh", kpy_kevalgpu_run, strlen(kpy_kevalgpu_run)) < 0 ||
	                writetext(dir, "one.sh", kpy_kevalgpu_one, strlen(kpy_kevalgpu_one)) < 0)) {
		snprintf(why, n, "cannot write %s's scripts: %s", dir, strerror(errno));
		rc = -1;
	}
	snprintf(to, sizeof to, "%s/run.sh", dir);
	if (rc == 0 && chmod(to, 0755) < 0)
		rc = -1;
	snprintf(to, sizeof to, "%s/one.sh", dir);
	if (rc == 0 && chmod(to, 0755) < 0)
		rc = -1;
	return rc;
}

static int
strpcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the candidates of bundle dir (cand/NAME.json), sorted;
 * NULL-terminated, malloc'd; *n their count.  NULL when dir has no cand/. */
static char **
candnames(const char *dir, size_t *n)
{
	char path[PATH_MAX + 16];
	DIR *d;
	struct dirent *e;
	char **v = xcalloc(1, sizeof *v);

	*n = 0;
	snprintf(path, sizeof path, "%s/cand", dir);
	if (!(d = opendir(path))) {
		free(v);
		return NULL;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
			v = xrealloc(v, sizeof *v * (*n + 2));
			v[*n] = xstrdup(e->d_name);
			v[*n][l - 5] = 0;
			if (keval_goodname(v[*n]))
				(*n)++;
			else
				free(v[*n]);
		}
	}
	closedir(d);
	v[*n] = NULL;
	qsort(v, *n, sizeof *v, strpcmp);
	return v;
}

static cJSON *
readjson(const char *path)
{
	size_t n;
	char *t = readfile(path, &n);
	cJSON *j = t && strlen(t) == n ? cJSON_Parse(t) : NULL;

	free(t);
	return j;
}

/* dir/cands.mk: each candidate's build and run rules, from cand/NAME.json. */
int
keval_bundlemk(const char *dir)
{
	size_t n, i;
	char **names = candnames(dir, &n), path[PATH_MAX + 300];
	Buf b = {0};
	int rc;

	bufputs(&b, "# written by keval --bundle: one build and one run rule per candidate\nCANDS =\n");
	for (i = 0; names && i < n; i++) {
		cJSON *j;
		const char *t, *h;
		snprintf(path, sizeof path, "%s/cand/%s.json", dir, names[i]);
		j = readjson(path);
		t = j ? keval_getstr(j, "target") : NULL;
		h = j ? keval_getstr(j, "host") : NULL;
		if (t && h && keval_goodname(h) && (strcmp(t, "cuda") == 0 || strcmp(t, "ptx") == 0)) {
			bool cu = strcmp(t, "cuda") == 0;
			bufprintf(&b, "CANDS += %s\n$(OUT)/%s/build.rc: cand/%s.%s %s/%s%s\n\t@sh ./one.sh build %s %s %s\n",
			          names[i], names[i], names[i], cu ? "cu" : "ptx", cu ? "obj" : "bin", h, cu ? ".host.o" : ".ptxhost",
			          names[i], t, h);
			bufprintf(&b, "run-%s: $(OUT)/%s/build.rc\n\t@sh ./one.sh run %s %s %s\n", names[i], names[i],
			          names[i], t, h);
		}
		cJSON_Delete(j);
		free(names[i]);
	}
	free(names);
	snprintf(path, sizeof path, "%s/cands.mk", dir);
	rc = writefile(path, b.s, b.n);
	buffree(&b);
	return rc;
}

/* Write candidate o->name (text cand) of kernel k into bundle o->bundle:
 * the host program from the standalone sa, the inputs already in
 * DIR/in/H; adds its summary to v. */
static int
bundlecand(const KevalOpts *o, const kpy_kernel_info *k, const Trial *t, const char *host, const char *sa,
           const char *cand, size_t candlen, cJSON *v, char *why, size_t n)
{
	const char *dir = o->bundle, *ext = o->target == TARGET_CUDA ? "cu" : "ptx";
	char path[PATH_MAX + 400];
	Buf b = {0};
	cJSON *j;
	char *js;
	int i, d, rc = 0;

	snprintf(path, sizeof path, "%s/host", dir);
	if (bundlefiles(dir, why, n) < 0)
		return -1;
	if (mkdirp(path) < 0 || (snprintf(path, sizeof path, "%s/cand", dir), mkdirp(path) < 0)) {
		snprintf(why, n, "cannot create %.300s: %s", path, strerror(errno));
		return -1;
	}
	if (hostprogram(sa, &b) < 0) {
		snprintf(why, n, "kcuda --standalone wrote no host program");
		buffree(&b);
		return -1;
	}
	snprintf(path, sizeof path, "%s/host/%s.cu", dir, host);
	rc = writefile(path, b.s, b.n);
	buffree(&b);
	snprintf(path, sizeof path, "%s/cand/%s.%s", dir, o->name, ext);
	if (rc == 0)
		rc = writefile(path, cand, candlen);
	/* the other extension: a candidate renamed from cuda to ptx */
	snprintf(path, sizeof path, "%s/cand/%s.%s", dir, o->name, o->target == TARGET_CUDA ? "ptx" : "cu");
	remove(path);
	for (i = 0; i < NRUNS; i++) {
		bufprintf(&b, "%d %d %s %d", i, t[i].data, k->name, t[i].b.shape[0]);
		for (d = 1; d < t[i].b.ndim; d++)
			bufprintf(&b, ",%d", t[i].b.shape[d]);
		bufprintf(&b, " %llu %d\n", t[i].seed, i < NTRIALS ? GPU_BLOCK : rerunblock[i - NTRIALS]);
	}
	snprintf(path, sizeof path, "%s/cand/%s.runs", dir, o->name);
	if (rc == 0)
		rc = writefile(path, b.s, b.n);
	buffree(&b);
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "name", o->name);
	cJSON_AddStringToObject(j, "id", keval_getstr(v, "id"));
	cJSON_AddStringToObject(j, "target", keval_targets[o->target]);
	cJSON_AddBoolToObject(j, "backward", o->backward);
	cJSON_AddNumberToObject(j, "seed", (double)o->seed);
	cJSON_AddStringToObject(j, "host", host);
	js = cJSON_PrintUnformatted(j);
	bufprintf(&b, "%s\n", js);
	free(js);
	cJSON_Delete(j);
	snprintf(path, sizeof path, "%s/cand/%s.json", dir, o->name);
	if (rc == 0)
		rc = writefile(path, b.s, b.n);
	buffree(&b);
	if (rc == 0 && !o->batch)
		rc = keval_bundlemk(dir);
	if (rc < 0) {
		snprintf(why, n, "cannot write the bundle %s: %s", dir, strerror(errno));
		return -1;
	}
	cJSON_AddStringToObject(v, "bundle", dir);
	cJSON_AddStringToObject(v, "host", host);
	cJSON_AddNumberToObject(v, "runs", NRUNS);
	return 0;
}

/* The first line of file path that says "error" (or its first line). */
static void
fileline(const char *path, char *dst, size_t n)
{
	size_t len;
	char *t = readfile(path, &len);

	if (!t) {
		snprintf(dst, n, "no %.300s", path);
		return;
	}
	evalpy_errline(t, dst, n);
	free(t);
}

/* The results of run i of candidate o->name: RESULTS/NAME/runI/ARRAY.npy and
 * runI.rc (one.sh).  Untrusted: whatever it holds is only compared. */
static void
loadresults(const KevalOpts *o, int i, Out *out)
{
	char path[PATH_MAX + 400], line[400], err[256];
	size_t len;
	char *rc;
	DIR *d;
	struct dirent *e;
	long st;

	memset(out, 0, sizeof *out);
	snprintf(path, sizeof path, "%s/%s/run%d.rc", o->results, o->name, i);
	if (!(rc = readfile(path, &len))) {
		snprintf(out->why, sizeof out->why, "no result: %.300s is missing (run.sh did not reach it)", path);
		return;
	}
	st = strtol(rc, NULL, 10);
	free(rc);
	snprintf(path, sizeof path, "%s/%s/run%d.log", o->results, o->name, i);
	fileline(path, line, sizeof line);
	if (st == 124 || st == 137) {
		out->timeout = true;
		snprintf(out->why, sizeof out->why, "killed at the time limit (run.sh's TIMEOUT)");
		return;
	}
	if (st != 0) {
		snprintf(out->why, sizeof out->why, "exit %ld: %s", st, line);
		return;
	}
	snprintf(path, sizeof path, "%s/%s/run%d", o->results, o->name, i);
	if (!(d = opendir(path))) {
		snprintf(out->why, sizeof out->why, "no outputs: %.300s: %s", path, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char file[PATH_MAX + 700];
		if (l <= 4 || l - 4 >= sizeof out->v[0].name || strcmp(e->d_name + l - 4, ".npy") != 0)
			continue;
		out->v = xrealloc(out->v, sizeof(Arr) * (size_t)(out->n + 1));
		memset(&out->v[out->n], 0, sizeof(Arr));
		snprintf(out->v[out->n].name, sizeof out->v[out->n].name, "%.*s", (int)(l - 4), e->d_name);
		snprintf(file, sizeof file, "%s/%s", path, e->d_name);
		if (npy_read(file, &out->v[out->n].a, err, sizeof err) < 0) {
			snprintf(out->why, sizeof out->why, "array '%s': %s", out->v[out->n].name, err);
			closedir(d);
			return;
		}
		out->n++;
	}
	closedir(d);
	out->ok = true;
}

/* Score every candidate of bundle o->score. */
int
keval_scoreall(const KevalOpts *o)
{
	size_t n, i;
	char **names = candnames(o->score, &n), path[PATH_MAX + 300];
	int rc = 0, found = 0;

	if (!names) {
		fprintf(stderr, "keval: %s: not a keval bundle (no cand/): %s\n", o->score, strerror(errno));
		return 2;
	}
	for (i = 0; i < n; i++) {
		KevalOpts c = *o;
		cJSON *j;
		const char *t, *id;
		int r = 2;
		if (o->name && strcmp(o->name, names[i]) != 0) {
			free(names[i]);
			continue;
		}
		found++;
		snprintf(path, sizeof path, "%s/cand/%s.json", o->score, names[i]);
		j = readjson(path);
		t = j ? keval_getstr(j, "target") : NULL;
		id = j ? keval_getstr(j, "id") : NULL;
		c.name = names[i];
		if (t && id && (strcmp(t, "cuda") == 0 || strcmp(t, "ptx") == 0) &&
		    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "seed"))) {
			c.target = strcmp(t, "cuda") == 0 ? TARGET_CUDA : TARGET_PTX;
			c.backward = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "backward"));
			c.seed = (unsigned long long)cJSON_GetObjectItemCaseSensitive(j, "seed")->valuedouble;
			c.id = id;
			r = keval_score(&c);
			keval_cleanup();
		} else {
			cJSON *v = cJSON_CreateObject();
			fprintf(stderr, "keval: %s: not a candidate's description\n", path);
			cJSON_AddStringToObject(v, "name", names[i]);
			cJSON_AddStringToObject(v, "error", "cand/NAME.json is not keval's");
			cJSON_AddBoolToObject(v, "pass", false);
			r = keval_emit(&c, v, 2);
		}
		cJSON_Delete(j);
		if (r > rc)
			rc = r;
		free(names[i]);
	}
	free(names);
	if (o->name && !found) {
		fprintf(stderr, "keval: %s has no candidate '%s'\n", o->score, o->name);
		return 2;
	}
	return rc;
}

/* ---- main ---------------------------------------------------------- */

int
keval_emit(const KevalOpts *o, cJSON *v, int rc)
{
	char *s = cJSON_PrintUnformatted(v);
	Buf b = {0};

	bufprintf(&b, "%s\n", s);
	free(s);
	if (o->out) {
		Buf tmp = {0};
		bufprintf(&tmp, "%s.tmp%ld", o->out, (long)getpid());
		if (writefile(tmp.s, b.s, b.n) != 0 || rename(tmp.s, o->out) != 0) {
			fprintf(stderr, "keval: cannot write %s: %s\n", o->out, strerror(errno));
			remove(tmp.s);
			rc = 2;
		}
		buffree(&tmp);
	} else {
		fputs(b.s, stdout);
	}
	buffree(&b);
	cJSON_Delete(v);
	return rc;
}

/* A verdict that says the record or the setup is at fault (exit 2). */
static int
badrecord(const KevalOpts *o, cJSON *v, const char *why)
{
	fprintf(stderr, "keval: %s\n", why);
	cJSON_AddBoolToObject(v, "pass", false);
	cJSON_AddStringToObject(v, "error", why);
	return keval_emit(o, v, 2);
}

int
keval_score(const KevalOpts *o)
{
	char why[1024], base[512], dir[700], box[600], cand[600], ref[600];
	cJSON *rec, *v = cJSON_CreateObject(), *jt, *dimj, *e;
	const char *kname, *py, *id;
	char *candtext, *so = NULL, *refso = NULL, *ref64so = NULL;
	size_t candlen;
	int32_t rdim[4] = {0};
	int ndim = 0, i, ki, nk, passed = 0, judged = 0;
	Trial t[NRUNS];
	Out cout[NRUNS];
	void *dl;
	const kpy_kernel_info *kernels, *k = NULL;
	const int32_t *nkp;
	Limits lim = {o->cpu, o->memory};
	double t0 = now(), tc;
	bool pass = true, sandboxhit = false, timeout = false;
	bool gpu = o->target == TARGET_CUDA || o->target == TARGET_PTX;
	Buf kb = {0};
	char host[200];
	PyMod pref32, pref64;
	int pysandbox = -1;
	NpyArray *pyin[NTRIALS] = {NULL};

	if (!(rec = readrecord(o, why, sizeof why)))
		return badrecord(o, v, why);
	kname = keval_getstr(rec, "kernel");
	py = keval_getstr(rec, "python");
	id = keval_getstr(rec, "id");
	cJSON_AddStringToObject(v, "id", id ? id : "");
	cJSON_AddStringToObject(v, "kernel", kname ? kname : "");
	cJSON_AddStringToObject(v, "target", keval_targets[o->target]);
	if (gpu && o->name)
		cJSON_AddStringToObject(v, "name", o->name);
	cJSON_AddBoolToObject(v, "backward", o->backward);
	dimj = cJSON_GetObjectItemCaseSensitive(rec, "dim");
	cJSON_ArrayForEach(e, dimj) {
		if (ndim == 4 || !cJSON_IsNumber(e) || e->valuedouble < 1 || e->valuedouble > 1 << 30) {
			ndim = 0;
			break;
		}
		rdim[ndim++] = (int32_t)e->valuedouble;
	}
	if (!isident(kname) || !py || ndim == 0) {
		cJSON_Delete(rec);
		return badrecord(o, v, "the record lacks a kernel name, its python or its dim");
	}
	/* the candidate (none when scoring a bundle's results) */
	if (o->score) {
		candtext = NULL;
		candlen = 0;
	} else if (o->candtext) {
		candtext = xstrdup(o->candtext);
		candlen = strlen(candtext);
	} else if (strcmp(o->cand, "-") == 0) {
		Buf b = {0};
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
			bufwrite(&b, buf, n);
		if (ferror(stdin)) {
			cJSON_Delete(rec);
			return badrecord(o, v, "cannot read the candidate from standard input");
		}
		if (!b.s)
			bufputs(&b, "");
		candtext = b.s;
		candlen = b.n;
	} else if (!(candtext = readfile(o->cand, &candlen))) {
		snprintf(why, sizeof why, "cannot read %s: %s", o->cand, strerror(errno));
		cJSON_Delete(rec);
		return badrecord(o, v, why);
	}
	/* scratch: ref/ (the reference), cand/ (the candidate's sources),
	 * box/ (what the sandboxed candidate may read: its module, inputs;
	 * python: empty) */
	{
		const char *tmp = getenv("TMPDIR");
		if (!tmp || !*tmp || strlen(tmp) > 400)
			tmp = "/tmp";
		snprintf(base, sizeof base, "%s/keval.XXXXXX", tmp);
	}
	if (!mkdtemp(base)) {
		free(candtext);
		cJSON_Delete(rec);
		return badrecord(o, v, "cannot create a scratch folder");
	}
	snprintf(scratch, sizeof scratch, "%s", base);
	snprintf(ref, sizeof ref, "%s/ref", base);
	snprintf(cand, sizeof cand, "%s/cand", base);
	snprintf(box, sizeof box, "%s/box", base);
	if (o->target != TARGET_PYTHON) {
		/* python: nothing but its candidate's empty box */
		mkdir(ref, 0700);
		mkdir(cand, 0700);
	}
	mkdir(box, 0700);
	/* the reference's C++ (python: its kir, in process) */
	if (o->target == TARGET_PYTHON) {
		/* compiled and loaded below (refmod) */
	} else if (writetext(ref, "k.py", py, strlen(py)) != 0 || (snprintf(why, sizeof why, "%s.py", kname),
	                                                    writetext(ref, why, py, strlen(py)) != 0) ||
	    pipeline(ref, kname, o->backward, true, why, sizeof why) < 0) {
		free(candtext);
		cJSON_Delete(rec);
		return badrecord(o, v, why[0] ? why : "cannot write the reference");
	}
	if (o->bundle) {
		/* the host program: kcuda's standalone program of the reference */
		char *kc[] = {"kcuda", "--standalone", "half.kir", "-o", "sa.cu", NULL};
		if (tool(kc, ref, why, sizeof why) < 0) {
			free(candtext);
			cJSON_Delete(rec);
			return badrecord(o, v, why);
		}
	}
	{
		/* the bundle's name of the record's host program and inputs */
		size_t hi, hn = (size_t)snprintf(host, sizeof host, "%.100s%s.s%llu", id ? id : "record",
		                                 o->backward ? ".adj" : "", o->seed);
		for (hi = 0; hi < hn && hi < sizeof host; hi++)
			if (!(host[hi] == '.' || host[hi] == '-' || host[hi] == '_' || (host[hi] >= '0' && host[hi] <= '9') ||
			      ((host[hi] | 32) >= 'a' && (host[hi] | 32) <= 'z')))
				host[hi] = '_';
	}
	/* the candidate's C++, then its module (in the box's cache) */
	tc = now();
	if (o->score) {
		/* what one.sh build wrote: "RC SECONDS" */
		char path[PATH_MAX + 300], *bt;
		size_t bl;
		long brc = -1;
		double secs = 0;
		snprintf(path, sizeof path, "%s/%s/build.rc", o->results, o->name);
		if ((bt = readfile(path, &bl))) {
			if (sscanf(bt, "%ld %lf", &brc, &secs) < 1)
				brc = -1;
			free(bt);
		}
		cJSON_AddBoolToObject(v, "compiled", brc == 0);
		cJSON_AddNumberToObject(v, "compile_s", secs);
		if (brc != 0) {
			if (brc < 0)
				snprintf(why, sizeof why, "no result: %.300s is missing (run.sh did not reach it)", path);
			else {
				char line[400];
				snprintf(path, sizeof path, "%s/%s/build.log", o->results, o->name);
				fileline(path, line, sizeof line);
				snprintf(why, sizeof why, "%s: %s", o->target == TARGET_CUDA ? "nvcc" : "ptxas", line);
			}
			cJSON_AddStringToObject(v, "error", why);
			cJSON_AddBoolToObject(v, "pass", false);
			cJSON_AddNumberToObject(v, "wall_s", now() - t0);
			cJSON_Delete(rec);
			return keval_emit(o, v, 1);
		}
	} else if (o->target == TARGET_PYTHON) {
		/* compiled by its own process (runpy), with the trials */
	} else if (!gpu) {
		Buf cpp = {0}, cache = {0};
		bool ok = true;
		bufprintf(&cache, "%s/cache", box);
		ok = writetext(cand, "cand.cpp", candtext, candlen) == 0;
		bufprintf(&cpp, "%s/cand.cpp", cand);
		if (!ok)
			snprintf(why, sizeof why, "cannot write the candidate: %s", strerror(errno));
		if (ok && !(so = compile(cpp.s, false, cache.s, why, sizeof why)))
			ok = false;
		cJSON_AddBoolToObject(v, "compiled", ok);
		cJSON_AddNumberToObject(v, "compile_s", now() - tc);
		if (!ok)
			cJSON_AddStringToObject(v, "error", why);
		buffree(&cpp);
		buffree(&cache);
		free(candtext);
		if (!ok) {
			cJSON_AddBoolToObject(v, "pass", false);
			cJSON_AddNumberToObject(v, "wall_s", now() - t0);
			cJSON_Delete(rec);
			return keval_emit(o, v, 1);
		}
	}
	/* the reference's modules; its kernel table (trusted code) */
	if (o->target == TARGET_PYTHON) {
		const RefMod *rm = refmod(py, kname, o->backward);
		if (!rm->ok) {
			free(candtext);
			cJSON_Delete(rec);
			return badrecord(o, v, rm->why);
		}
		pref32 = rm->m32;
		pref64 = rm->m64;
		kernels = pref32.kernels;
		nk = pref32.nkernels;
	} else {
		char cpp[PATH_MAX + 16];
		snprintf(cpp, sizeof cpp, "%s/k.cpp", ref);
		if (!(refso = compile(cpp, false, NULL, why, sizeof why)) ||
		    !(ref64so = compile(cpp, true, NULL, why, sizeof why))) {
			free(so);
			free(refso);
			cJSON_Delete(rec);
			return badrecord(o, v, why);
		}
		if (!(dl = dlopen(refso, RTLD_NOW | RTLD_LOCAL)) || !(kernels = dlsym(dl, "kpy_kernels")) ||
		    !(nkp = dlsym(dl, "kpy_nkernels"))) {
			snprintf(why, sizeof why, "cannot load the reference %s: %s", refso, dlerror());
			cJSON_Delete(rec);
			return badrecord(o, v, why);
		}
		nk = *nkp;
	}
	bufprintf(&kb, "%s%s", kname, o->backward ? ".adj" : "");
	for (ki = 0; ki < nk; ki++)
		if (strcmp(kernels[ki].name, kb.s) == 0)
			k = &kernels[ki];
	if (!k) {
		snprintf(why, sizeof why, "the reference has no kernel %s", kb.s);
		cJSON_Delete(rec);
		return badrecord(o, v, why);
	}
	if (k->tid_dims > 1 && k->tid_dims != ndim) {
		cJSON_Delete(rec);
		return badrecord(o, v, "the record's dim does not match its kernel's wp.tid()");
	}
	maketrials(rdim, ndim, o->seed, t);
	if (gpu) {
		/* on the GPU, other orders of the threads: other block sizes */
		t[NTRIALS].order = "block:32";
		t[NTRIALS + 1].order = "block:7";
	}
	{
		cJSON *sj = cJSON_AddArrayToObject(v, "seeds"), *ij = cJSON_AddArrayToObject(v, "inputs");
		for (i = 0; i < NSEEDS; i++)
			cJSON_AddItemToArray(sj, cJSON_CreateNumber((double)(o->seed + (unsigned long long)i)));
		for (i = 0; i < NDISTS; i++)
			cJSON_AddItemToArray(ij, cJSON_CreateString(distname[i]));
	}
	for (i = 0; i < NTRIALS; i++) {
		if (o->bundle) {
			snprintf(dir, sizeof dir, "%.400s/in/%s/t%d", o->bundle, host, i);
			if (mkdirp(dir) < 0) {
				snprintf(why, sizeof why, "cannot create %s: %s", dir, strerror(errno));
				cJSON_Delete(rec);
				return badrecord(o, v, why);
			}
		} else {
			snprintf(dir, sizeof dir, "%s/in%d", box, i);
		}
		/* python: kept in memory, for its child and the reference */
		if (o->target == TARGET_PYTHON)
			pyin[i] = xcalloc((size_t)k->nparams + 1, sizeof(NpyArray));
		if (makeinputs(k, &t[i], i, dir, pyin[i], why, sizeof why) < 0) {
			cJSON_Delete(rec);
			return badrecord(o, v, why);
		}
	}
	if (o->bundle) {
		/* the GPU runs the candidate; keval --score judges its results */
		char path[PATH_MAX + 16], *sa;
		size_t sl;
		int rc;
		snprintf(path, sizeof path, "%s/sa.cu", ref);
		if (!(sa = readfile(path, &sl)) ||
		    bundlecand(o, k, t, host, sa, candtext, candlen, v, why, sizeof why) < 0) {
			free(sa);
			free(candtext);
			cJSON_Delete(rec);
			return badrecord(o, v, sa ? why : "kcuda wrote no program");
		}
		free(sa);
		free(candtext);
		cJSON_AddBoolToObject(v, "bundled", true);
		rc = keval_emit(o, v, 0);
		free(so);
		free(refso);
		free(ref64so);
		buffree(&kb);
		cJSON_Delete(rec);
		return rc;
	}
	/* every candidate run ends before the reference runs */
	if (o->target == TARGET_PYTHON) {
		PyJob job;
		memset(&job, 0, sizeof job);
		job.text = candtext;
		job.len = candlen;
		job.kname = kname;
		job.backward = o->backward;
		job.box = box;
		job.k = k;
		job.t = t;
		job.in = pyin;
		job.cpu = o->cpu;
		tc = now();
		if (!runpy(&job, &lim, v, cout, &pysandbox, why, sizeof why)) {
			free(candtext);
			cJSON_AddStringToObject(v, "error", why);
			cJSON_AddBoolToObject(v, "pass", false);
			cJSON_AddNumberToObject(v, "wall_s", now() - t0);
			buffree(&kb);
			cJSON_Delete(rec);
			return keval_emit(o, v, 1);
		}
		free(candtext);
	}
	for (i = 0; i < NRUNS && o->target != TARGET_PYTHON; i++) {
		if (o->score) {
			loadresults(o, i, &cout[i]);
			continue;
		}
		snprintf(dir, sizeof dir, "%s/in%d", box, t[i].data);
		runone(so, k, &t[i], dir, box, &lim, &cout[i]);
		if (cout[i].sandbox || cout[i].timeout) {
			/* no point in more runs */
			int j;
			for (j = i + 1; j < NRUNS; j++) {
				memset(&cout[j], 0, sizeof cout[j]);
				snprintf(cout[j].why, sizeof cout[j].why, "not run (an earlier run was killed)");
			}
			break;
		}
	}
	jt = cJSON_AddArrayToObject(v, "trials");
	{
		Out r32[NTRIALS], r64[NTRIALS];
		for (i = 0; i < NTRIALS; i++) {
			snprintf(dir, sizeof dir, "%s/in%d", box, i);
			if (o->target == TARGET_PYTHON) {
				runref(&pref32, k, &t[i], pyin[i], false, &r32[i]);
				runref(&pref64, k, &t[i], pyin[i], true, &r64[i]);
				continue;
			}
			runone(refso, k, &t[i], dir, NULL, NULL, &r32[i]);
			runone(ref64so, k, &t[i], dir, NULL, NULL, &r64[i]);
		}
		for (i = 0; i < NRUNS; i++) {
			int di = t[i].data, d, p;
			cJSON *j = cJSON_CreateObject(), *arrays, *dj;
			bool ok = true;
			cJSON_AddItemToArray(jt, j);
			cJSON_AddNumberToObject(j, "seed", (double)t[i].seed);
			cJSON_AddStringToObject(j, "inputs", distname[t[i].dist]);
			dj = cJSON_AddArrayToObject(j, "dim");
			for (d = 0; d < t[i].b.ndim; d++)
				cJSON_AddItemToArray(dj, cJSON_CreateNumber(t[i].b.shape[d]));
			cJSON_AddStringToObject(j, "order", t[i].order);
			if (!r32[di].ok || !r64[di].ok) {
				cJSON_AddStringToObject(j, "skipped", r32[di].ok ? r64[di].why : r32[di].why);
				continue;
			}
			judged++;
			cJSON_AddBoolToObject(j, "ran", cout[i].ok);
			if (!cout[i].ok) {
				cJSON_AddStringToObject(j, "error", cout[i].why);
				cJSON_AddBoolToObject(j, "pass", false);
				sandboxhit |= cout[i].sandbox;
				timeout |= cout[i].timeout;
				pass = false;
				continue;
			}
			arrays = cJSON_AddArrayToObject(j, "arrays");
			for (p = 0; p < r32[di].n; p++) {
				const Arr *a = &r32[di].v[p], *b = findarr(&r64[di], a->name), *c = findarr(&cout[i], a->name);
				bool written = true;
				int q;
				for (q = 0; q < k->nparams; q++)
					if (strcmp(k->params[q].name, a->name) == 0)
						written = k->params[q].type.kind == KPY_ARRAY ? (k->params[q].access & KPY_WRITE) != 0
						                                              : false;
				if (!b) {
					cJSON_AddStringToObject(j, "skipped", "the float64 reference lacks an array");
					break;
				}
				if (!comparearr(a->name, c ? &c->a : NULL, &a->a, &b->a, written, gpu ? GPU_RTOL_FLOOR : 0,
				                arrays))
					ok = false;
			}
			if (cout[i].n != r32[di].n) {
				cJSON_AddStringToObject(j, "error", "the candidate's arrays are not the reference's");
				ok = false;
			}
			cJSON_AddBoolToObject(j, "pass", ok);
			if (ok)
				passed++;
			else
				pass = false;
		}
		for (i = 0; i < NTRIALS; i++) {
			outfree(&r32[i]);
			outfree(&r64[i]);
		}
	}
	for (i = 0; i < NRUNS; i++)
		outfree(&cout[i]);
	for (i = 0; i < NTRIALS; i++) {
		for (ki = 0; pyin[i] && ki < k->nparams; ki++)
			npy_free(&pyin[i][ki]);
		free(pyin[i]);
	}
	if (judged == 0) {
		free(so);
		free(refso);
		free(ref64so);
		buffree(&kb);
		cJSON_Delete(rec);
		return badrecord(o, v, "the reference failed on every trial");
	}
	cJSON_AddNumberToObject(v, "trials_passed", passed);
	cJSON_AddNumberToObject(v, "trials_judged", judged);
	if (gpu) {
		/* the bundle's machine: nvcc's, run.sh's limits, no sandbox */
		char path[PATH_MAX + 300], line[400];
		cJSON *sb = cJSON_AddObjectToObject(v, "limits");
		cJSON_AddStringToObject(sb, "sandbox", "none: the GPU bundle's machine (run.sh)");
		cJSON_AddBoolToObject(sb, "timeout", timeout);
		cJSON_AddNumberToObject(sb, "rtol_floor", GPU_RTOL_FLOOR);
		snprintf(path, sizeof path, "%s/device.txt", o->results);
		fileline(path, line, sizeof line);
		{
			/* its GPU line, when nvidia-smi said */
			size_t dl;
			char *dt = readfile(path, &dl), *g = dt ? strstr(dt, "# GPU ") : NULL;
			if (g) {
				char *nl = strchr(g, '\n');
				snprintf(line, sizeof line, "%.*s", (int)(nl ? nl - g - 2 : (ptrdiff_t)strlen(g) - 2), g + 2);
			}
			free(dt);
		}
		cJSON_AddStringToObject(v, "device", line);
	} else {
		cJSON *sb = cJSON_AddObjectToObject(v, "limits");
		cJSON_AddNumberToObject(sb, "cpu_s", o->cpu);
#if defined(__SANITIZE_ADDRESS__)
		cJSON_AddNumberToObject(sb, "memory_mib", 0);
#else
		cJSON_AddNumberToObject(sb, "memory_mib", (double)o->memory);
#endif
		cJSON_AddStringToObject(sb, "sandbox",
		                        sandboxhit                             ? "violation"
		                        : o->target == TARGET_PYTHON           ? (pysandbox == 1   ? "seccomp+landlock"
		                                                                  : pysandbox == 0 ? "seccomp"
		                                                                                   : "unknown")
		                        : kpy_landlock_abi() > 0               ? "seccomp+landlock"
		                                                               : "seccomp");
		cJSON_AddBoolToObject(sb, "timeout", timeout);
	}
	cJSON_AddBoolToObject(v, "pass", pass);
	cJSON_AddNumberToObject(v, "wall_s", now() - t0);
	free(so);
	free(refso);
	free(ref64so);
	buffree(&kb);
	cJSON_Delete(rec);
	return keval_emit(o, v, pass ? 0 : 1);
}
