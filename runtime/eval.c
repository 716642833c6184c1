/*
 * eval.c — keval: score a candidate implementation of a dataset record's kernel
 * against kpy's own reference, in a way that is hard to game.  See keval(1).
 *
 * The reference is the record's Python through kpy's pipeline (kpyc | kopt
 * -p ad,O | kopt -p forward|backward | kcpu), built twice by krun: float32
 * (what the candidate must match) and float64 (--double: the rounding
 * spread of the float32 build sets each array's tolerance).  A cpp
 * candidate is compiled by krun like any kcpu module (its compiler, flags,
 * bounds checks); a python one goes through the pipeline first.
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
 * batch forks one process per task).
 */
#define _GNU_SOURCE /* mkdtemp, pipe2, nftw */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "config.h"
#include "ir.h"
#include "data.h"
#include "sandbox.h"
#include "eval.h"

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
 * capture its standard output and error.  0, or -1 when it could not
 * start. */
static int
spawn(char **argv, const char *cwd, const char *cache, const Limits *lim, Proc *p)
{
	enum { OUTCAP = 512 << 20, ERRCAP = 64 << 10 };
	char path[PATH_MAX + 64];
	int po[2], pe[2];
	double deadline = lim ? now() + 4 * lim->cpu + 30 : 0;
	pid_t pid;

	memset(p, 0, sizeof *p);
	if (strchr(argv[0], '/'))
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
		dup2(po[1], 1);
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
			setrlimit(RLIMIT_FSIZE, &r);
#if !defined(__SANITIZE_ADDRESS__)
			if (lim->memory > 0) {
				r.rlim_cur = r.rlim_max = (rlim_t)lim->memory << 20;
				setrlimit(RLIMIT_AS, &r);
			}
#endif
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

static void
procfree(Proc *p)
{
	buffree(&p->out);
	buffree(&p->err);
}

/* The first line of s that says "error", else its first line (n chars). */
static void
firstline(const char *s, char *dst, size_t n)
{
	const char *e = strstr(s, "error"), *l = s, *end;

	if (e) {
		while (e > s && e[-1] != '\n')
			e--;
		l = e;
	}
	end = strchr(l, '\n');
	snprintf(dst, n, "%.*s", (int)(end ? end - l : (ptrdiff_t)strlen(l)), l);
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
		firstline(p.err.s, line, sizeof line);
		snprintf(why, n, "%s failed: %s", argv[0], line);
		rc = -1;
	}
	procfree(&p);
	return rc;
}

/* kpyc | kopt -p ad,O | kopt -p forward|backward | kcpu in dir, from
 * dir/NAME.py to dir/k.cpp (the tools run in dir so that the texts name
 * NAME.py, not this run's folders). */
static int
pipeline(const char *dir, const char *name, bool backward, char *why, size_t n)
{
	char py[300];
	char *kpyc[] = {"kpyc", py, "-o", "k.kir", NULL};
	char *ad[] = {"kopt", "-p", "ad,O", "k.kir", "-o", "ad.kir", NULL};
	char *half[] = {"kopt", "-p", backward ? "backward" : "forward", "ad.kir", "-o", "half.kir", NULL};
	char *kcpu[] = {"kcpu", "half.kir", "-o", "k.cpp", NULL};

	snprintf(py, sizeof py, "%s.py", name);
	return tool(kpyc, dir, why, n) < 0 || tool(ad, dir, why, n) < 0 || tool(half, dir, why, n) < 0 ||
	               tool(kcpu, dir, why, n) < 0
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
		firstline(p.err.s, why, n);
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

/* Write the array arguments of kernel k for trial t into dir. */
static int
makeinputs(const kpy_kernel_info *k, const Trial *t, int ti, const char *dir, char *why, size_t n)
{
	int i;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
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
		firstline(p.err.s, line, sizeof line);
		snprintf(o->why, sizeof o->why, "exit %d: %s", WEXITSTATUS(p.status), line);
	} else if (parsestream(&p.out, o) == 0) {
		o->ok = true;
	}
	procfree(&p);
	for (i = 0; i < k->nparams; i++)
		free(store[i]);
	free(store);
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
 * its float64 run); written: the reference writes it.  Adds the array's
 * figures to arrays; returns whether it passes. */
static bool
comparearr(const char *name, const NpyArray *got, const NpyArray *r32, const NpyArray *r64, bool written,
           cJSON *arrays)
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
		rtol = fmin(8 * spread + 32 * eps, 1e-2);
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
	Buf kb = {0};

	if (!(rec = readrecord(o, why, sizeof why)))
		return badrecord(o, v, why);
	kname = keval_getstr(rec, "kernel");
	py = keval_getstr(rec, "python");
	id = keval_getstr(rec, "id");
	cJSON_AddStringToObject(v, "id", id ? id : "");
	cJSON_AddStringToObject(v, "kernel", kname ? kname : "");
	cJSON_AddStringToObject(v, "target", o->target == TARGET_CPP ? "cpp" : "python");
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
	/* the candidate */
	if (o->candtext) {
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
	 * box/ (what the sandboxed candidate may read: its module, inputs) */
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
	mkdir(ref, 0700);
	mkdir(cand, 0700);
	mkdir(box, 0700);
	/* the reference's C++ */
	if (writetext(ref, "k.py", py, strlen(py)) != 0 || (snprintf(why, sizeof why, "%s.py", kname),
	                                                    writetext(ref, why, py, strlen(py)) != 0) ||
	    pipeline(ref, kname, o->backward, why, sizeof why) < 0) {
		free(candtext);
		cJSON_Delete(rec);
		return badrecord(o, v, why[0] ? why : "cannot write the reference");
	}
	/* the candidate's C++, then its module (in the box's cache) */
	tc = now();
	{
		Buf cpp = {0}, cache = {0};
		bool ok = true;
		bufprintf(&cache, "%s/cache", box);
		if (o->target == TARGET_PYTHON) {
			snprintf(why, sizeof why, "%s.py", kname);
			ok = writetext(cand, why, candtext, candlen) == 0 && pipeline(cand, kname, o->backward, why, sizeof why) == 0;
			bufprintf(&cpp, "%s/k.cpp", cand);
		} else {
			ok = writetext(cand, "cand.cpp", candtext, candlen) == 0;
			bufprintf(&cpp, "%s/cand.cpp", cand);
			if (!ok)
				snprintf(why, sizeof why, "cannot write the candidate: %s", strerror(errno));
		}
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
	{
		char cpp[PATH_MAX + 16];
		snprintf(cpp, sizeof cpp, "%s/k.cpp", ref);
		if (!(refso = compile(cpp, false, NULL, why, sizeof why)) ||
		    !(ref64so = compile(cpp, true, NULL, why, sizeof why))) {
			free(so);
			free(refso);
			cJSON_Delete(rec);
			return badrecord(o, v, why);
		}
	}
	if (!(dl = dlopen(refso, RTLD_NOW | RTLD_LOCAL)) || !(kernels = dlsym(dl, "kpy_kernels")) ||
	    !(nkp = dlsym(dl, "kpy_nkernels"))) {
		snprintf(why, sizeof why, "cannot load the reference %s: %s", refso, dlerror());
		cJSON_Delete(rec);
		return badrecord(o, v, why);
	}
	nk = *nkp;
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
	{
		cJSON *sj = cJSON_AddArrayToObject(v, "seeds"), *ij = cJSON_AddArrayToObject(v, "inputs");
		for (i = 0; i < NSEEDS; i++)
			cJSON_AddItemToArray(sj, cJSON_CreateNumber((double)(o->seed + (unsigned long long)i)));
		for (i = 0; i < NDISTS; i++)
			cJSON_AddItemToArray(ij, cJSON_CreateString(distname[i]));
	}
	for (i = 0; i < NTRIALS; i++) {
		snprintf(dir, sizeof dir, "%s/in%d", box, i);
		if (makeinputs(k, &t[i], i, dir, why, sizeof why) < 0) {
			cJSON_Delete(rec);
			return badrecord(o, v, why);
		}
	}
	/* every candidate run ends before the reference runs */
	for (i = 0; i < NRUNS; i++) {
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
				if (!comparearr(a->name, c ? &c->a : NULL, &a->a, &b->a, written, arrays))
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
	{
		cJSON *sb = cJSON_AddObjectToObject(v, "limits");
		cJSON_AddNumberToObject(sb, "cpu_s", o->cpu);
#if defined(__SANITIZE_ADDRESS__)
		cJSON_AddNumberToObject(sb, "memory_mib", 0);
#else
		cJSON_AddNumberToObject(sb, "memory_mib", (double)o->memory);
#endif
		cJSON_AddStringToObject(sb, "sandbox",
		                        sandboxhit ? "violation" : kpy_landlock_abi() > 0 ? "seccomp+landlock" : "seccomp");
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
