/*
 * krun — run a kernel compiled by kcpu on the CPU: make or read its inputs,
 * launch it, write every array as .npy; run its backward kernel; check its
 * gradients against central finite differences in double precision.
 *
 *   krun MODULE.so|MODULE.cpp|MODULE.kir --kernel NAME [--dim N[,M..]] [--seed S]
 *        [--in NAME=FILE.npy]... [--set NAME=VALUE]... [--shape NAME=N[,M..]]...
 *        [--out DIR] [--backward [--adj NAME=FILE.npy]...]
 *        [--gradcheck [--tol T] [--eps E] [--samples N] [--directions D]] [--unchecked] [--quiet]
 *
 * A .cpp is compiled with the configured C++ compiler into a cache keyed
 * by a hash of its contents, the runtime headers' and the compile command
 * ($KPY_CACHE, else $XDG_CACHE_HOME/kpy, else ~/.cache/kpy).  A .kir is lowered and compiled
 * in process by kptx's host back end through LLVM's JIT (jit.c), f32 as
 * f64 for --double and --gradcheck.  See krun(1).
 *
 * Bounds checks: unless --unchecked, a .cpp is compiled with -DKPY_CHECKED
 * (kpy/array.h): every array access checks its indices, and the first one
 * outside its array calls run_onbounds() (launch.c), which longjmps out of the launch;
 * launch() then reports the kernel, the array, the index and the source
 * line, and krun exits 1 without writing results.  The kernel never touches
 * memory outside its arrays, so no state after the fault is used.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ir.h"
#include "data.h"
#include "incdir.h"
#include "jit.h"
#include "launch.h"
#include "npydir.h"
#include "sandbox.h"

/* NAME=VALUE options. */
typedef struct Opt {
	const char *name;
	const char *value;
} Opt;

typedef struct Opts {
	const char *module;
	const char *kernel;
	const char *dim;
	const char *out;
	unsigned long long seed;
	Opt *in, *set, *shape, *adj;
	int nin, nset, nshape, nadj;
	bool backward, gradcheck, quiet, list;
	bool unchecked;       /* --unchecked: compile without KPY_CHECKED */
	bool dbl;             /* --double: the KPY_F32_DOUBLE build; f32 arrays written as f64 */
	const char *sandbox;  /* --sandbox=DIR: confine the process before loading the module */
	bool compileonly;     /* --compile: compile a .cpp into the cache, print the .so's path */
	int order;            /* --order: ORDER_FORWARD, ORDER_REVERSE, ORDER_SHUFFLE */
	unsigned long long orderseed; /* --order=shuffle:SEED */
	double tol, eps;
	int samples;
	int directions;       /* --directions: gradient check along D random directions */
	int timing;           /* --time=N: N more launches, timed */
	int optlevel;         /* -O N: a .kir module's optimization level */
} Opts;

/* The order in which a launch runs its threads (--order): each thread is
 * one call of the module's launch entry, so any order is possible. */

/* A loaded module. */
typedef struct Mod {
	void *dl;             /* dlopen's handle, or NULL */
	void *jit;            /* a .kir module's (jit.c), or NULL */
	const char *path;
	int32_t f32size;
	int32_t nkernels;
	const kpy_kernel_info *kernels;
	const kpy_struct_info *structs;
	bool checked;         /* array accesses are bounds-checked */
	char *cpp;            /* the cached copy of a .cpp module (named by
	                       * __FILE__ in faults without #line), or NULL */
} Mod;

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: krun MODULE.so|MODULE.cpp|MODULE.kir --kernel NAME [options]\n"
	        "Run a kcpu kernel on the CPU and write its arrays as .npy (see krun(1)).\n"
	        "\n"
	        "  -k, --kernel=NAME        the kernel to run (its kir name, or its C++ name)\n"
	        "  -d, --dim=N[,M..]        launch extents, 1 to 4 (default 1024)\n"
	        "  -s, --seed=S             seed of the generated data (default 1)\n"
	        "  -i, --in=NAME=FILE.npy   read array NAME from FILE\n"
	        "      --set=NAME=VALUE     set scalar/vector parameter NAME (v or v0,v1,...),\n"
	        "                           or a struct field (NAME.FIELD[.FIELD..]=VALUE)\n"
	        "      --shape=NAME=N[,M..] extents of array NAME (default: from --dim)\n"
	        "  -o, --out=DIR            write every array after the launch as DIR/NAME.npy\n"
	        "                           (-: to standard output, as 'NAME BYTES' lines + .npy)\n"
	        "  -b, --backward           run the backward kernel too; write DIR/adj_NAME.npy\n"
	        "      --adj=NAME=FILE.npy  the adjoint of output NAME (default: seeded)\n"
	        "  -G, --gradcheck          compare gradients with finite differences (double)\n"
	        "      --tol=T              gradcheck: largest relative error (default 1e-6)\n"
	        "      --eps=E              gradcheck: relative step (default 1e-6)\n"
	        "      --samples=N          gradcheck: elements checked per array (default 256)\n"
	        "      --directions=D       gradcheck: along D random directions of each array instead\n"
	        "                           (elements where one meets a kink; default 0: elements)\n"
	        "      --unchecked          no bounds checks on array accesses (for timing)\n"
	        "      --double             run the double-precision build (f32 as f64) and\n"
	        "                           write its float32 arrays as float64\n"
	        "      --sandbox=DIR        untrusted module: read only DIR and system files,\n"
	        "                           no writes, sockets, exec or new processes (SIGSYS)\n"
	        "  -O N                     a .kir module's LLVM optimization level, 0 to 3\n"
	        "                           (default 1)\n"
	        "      --compile            compile MODULE.cpp into the cache (with --double,\n"
	        "                           --unchecked as given), print the .so's path, exit\n"
	        "      --time=N             after the run, N more launches of the kernel (the\n"
	        "                           backward one with -b), timed: their median and\n"
	        "                           fastest wall time on standard error\n"
	        "      --order=ORDER        the threads' order: forward (default), reverse, or\n"
	        "                           shuffle[:SEED] (a seeded permutation), one call each\n"
	        "  -l, --list               list the module's kernels and their parameters\n"
	        "      --batch=FILE         run FILE's commands (krun ARGS.., compare A B RTOL\n"
	        "                           ATOL; >OUT, 2>ERR) in one process: one exit\n"
	        "                           status a line on standard output\n"
	        "  -q, --quiet              no summary lines\n"
	        "  -h, --help               show this help\n"
	        "  -V, --version            show the version\n"
	        "\n"
	        "environment: KPY_CXX (compiler), KPY_CXXFLAGS, KPY_CXXFLAGS_DOUBLE (the\n"
	        "double-precision build's, default KPY_CXXFLAGS), KPY_INCLUDE (runtime headers),\n"
	        "KPY_CACHE (cache directory)\n");
}

static bool
addopt(Opt **v, int *n, const char *arg, const char *what)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1]) {
		fprintf(stderr, "krun: --%s wants NAME=VALUE, not '%s'\n", what, arg);
		return false;
	}
	*v = xrealloc(*v, sizeof(Opt) * (size_t)(*n + 1));
	(*v)[*n].name = xstrdup(arg);
	((char *)(*v)[*n].name)[eq - arg] = 0;
	(*v)[*n].value = eq + 1;
	(*n)++;
	return true;
}

static const char *
findopt(const Opt *v, int n, const char *name)
{
	int i;

	for (i = n - 1; i >= 0; i--)
		if (strcmp(v[i].name, name) == 0)
			return v[i].value;
	return NULL;
}

/* ---- compiling a .cpp ---------------------------------------------- */

static bool
isdir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool
isfile(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int
mkdirs(const char *path)
{
	char *p, *s;
	int rc = 0;

	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	p = xstrdup(path);
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (mkdir(p, 0777) != 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc == 0 || isdir(path) ? 0 : -1;
}

static char *
cachedir(void)
{
	const char *e = getenv("KPY_CACHE"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	Buf b = {0};

	if (e && *e)
		bufputs(&b, e);
	else if (x && *x)
		bufprintf(&b, "%s/kpy", x);
	else if (h && *h)
		bufprintf(&b, "%s/.cache/kpy", h);
	else
		bufprintf(&b, "/tmp/kpy-cache-%ld", (long)getuid());
	return b.s;
}

/* Split a command line on spaces into argv (words stay in *store). */
static int
splitwords(const char *s, char **argv, int max, char **store)
{
	char *p = *store = xstrdup(s);
	int n = 0;

	while (*p && n < max) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		argv[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return n;
}

/* Run argv, stdout and stderr to the log file; exit status or -1. */
static int
runcmd(char **argv, const char *log)
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "krun: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The C library's math functions that are not correctly rounded: g++ folds
 * calls on constant arguments with correctly rounded arithmetic (MPFR),
 * while Warp's CPU kernels call glibc at run time, so fold none of them (a
 * 1-ulp difference: atan2f(3.52f, 1.45f)).  The exact ones (sqrt, fabs,
 * floor, fmod, fmin, ...) fold to the same value and stay builtins. */
#define F2(f) " -fno-builtin-" #f " -fno-builtin-" #f "f"
static const char nobuiltins[] =
	F2(sin) F2(cos) F2(tan) F2(asin) F2(acos) F2(atan) F2(atan2) F2(sinh) F2(cosh) F2(tanh) F2(asinh) F2(acosh)
	F2(atanh) F2(exp) F2(exp2) F2(expm1) F2(log) F2(log2) F2(log10) F2(log1p) F2(pow) F2(cbrt) F2(hypot) F2(erf)
	F2(erfc) F2(tgamma) F2(lgamma) F2(sincos);
#undef F2

/* The default optimisation flags (KPY_CXXFLAGS replaces them).  Warp
 * compiles CPU kernels with clang -O2 -march=native; -O3 is g++'s nearest
 * (its -O2 vectorizes only the cheapest loops: saxpy, sdf_box 2-12x slower).
 * Neither changes a result: no -ffast-math, and contraction stays off. */
static const char defaultflags[] = "-O3 -march=native";

/* Flags that make the same arithmetic as Warp's build (clang's cc1, which
 * neither keeps errno for math functions nor honours FP traps) and so are
 * part of every command: -ffp-contract=off (Warp's CPU build rounds each
 * a*b+c twice; a contracted FMA would round once) and -fno-math-errno (sqrtf
 * becomes one instruction, as sqrtf is correctly rounded either way).  Not
 * -fno-trapping-math: with it g++ folds (float)(int)x into truncf(x), which
 * is -0 where the conversion gives +0 for x in (-1, 0) (tests/run/flags.test). */
static const char fixedflags[] = "-ffp-contract=off -fno-math-errno";

/* The host CPU's model and features (the first processor of /proc/cpuinfo),
 * mixed into the cache key: a module built with -march=native for one CPU
 * may not run on another sharing the cache.  Empty where unknown. */
static uint64_t
hostcpu(uint64_t h)
{
	size_t len, i, start;
	char *t = readfile("/proc/cpuinfo", &len);

	if (!t)
		return h;
	for (i = start = 0; i <= len; i++) {
		if (i < len && t[i] != '\n')
			continue;
		if (i == start) /* a blank line ends the first processor */
			break;
		if (strncmp(t + start, "model name", 10) == 0 || strncmp(t + start, "flags", 5) == 0 ||
		    strncmp(t + start, "Features", 8) == 0 || strncmp(t + start, "CPU part", 8) == 0)
			h = hash64(t + start, i - start, h);
		start = i + 1;
	}
	free(t);
	return h;
}

static int
cmpname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The runtime headers' names and contents (the .h files of inc/kpy, in name order),
 * mixed into the cache key: a module compiled against other headers (a
 * new install, an edited header) is compiled again, not taken from the
 * cache.  Unreadable headers leave the key as it is: the compile reports. */
static uint64_t
headers(uint64_t h, const char *inc)
{
	Buf dir = {0}, path = {0};
	DIR *d;
	struct dirent *e;
	char **names = NULL, *t;
	size_t n = 0, cap = 0, i, len, nl;

	bufprintf(&dir, "%s/kpy", inc);
	if (!(d = opendir(dir.s))) {
		buffree(&dir);
		return h;
	}
	while ((e = readdir(d))) {
		nl = strlen(e->d_name);
		if (nl < 3 || strcmp(e->d_name + nl - 2, ".h") != 0)
			continue;
		if (n == cap)
			names = xrealloc(names, (cap = cap ? 2 * cap : 32) * sizeof *names);
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmpname);
	for (i = 0; i < n; i++) {
		path.n = 0;
		bufprintf(&path, "%s/%s", dir.s, names[i]);
		h = hash64(names[i], strlen(names[i]) + 1, h);
		if ((t = readfile(path.s, &len))) {
			h = hash64(t, len, h);
			free(t);
		}
		free(names[i]);
	}
	free(names);
	buffree(&dir);
	buffree(&path);
	return h;
}

/* Compile src (a .cpp) into the cache; returns the .so path (malloc'd) or
 * NULL after a message.  *cached: the copy of src the compiler reads. */
static char *
compile(const char *src, bool widened, bool checked, char **cached)
{
	/* KPY_CXXFLAGS_DOUBLE: the double-precision build's own flags (the
	 * dataset builds its float build at -O0, where its runs cost no more,
	 * and this one, whose gradient check runs many launches, optimised) */
	const char *cxx = getenv("KPY_CXX"), *flags = widened ? getenv("KPY_CXXFLAGS_DOUBLE") : NULL;
	char *text, *dir, *store = NULL, *fstore = NULL, *argv[256];
	size_t len;
	uint64_t h;
	int n, rc;
	Buf cmd = {0}, so = {0}, tmp = {0}, cpp = {0}, log = {0};

	if (!cxx || !*cxx)
		cxx = KPY_CXX;
	if (!flags)
		flags = getenv("KPY_CXXFLAGS");
	if (!flags)
		flags = defaultflags;
	if (!(text = readfile(src, &len))) {
		fprintf(stderr, "krun: cannot read %s: %s\n", src, strerror(errno));
		return NULL;
	}
	/* KPY_SERIAL: launch() runs the threads one after another (kpy/atomic.h) */
	bufprintf(&cmd, "%s -std=c++17 %s %s%s -DKPY_SERIAL -shared -fPIC -I%s%s%s", cxx, flags, fixedflags, nobuiltins,
	          kpy_includedir(), widened ? " -DKPY_F32_DOUBLE" : "", checked ? " -DKPY_CHECKED" : "");
	h = hash64(text, len, 0);
	h = hash64(cmd.s, cmd.n, h);
	h = hostcpu(h);
	h = headers(h, kpy_includedir());
	dir = cachedir();
	if (mkdirs(dir) < 0) {
		fprintf(stderr, "krun: cannot create the cache directory %s: %s\n", dir, strerror(errno));
		goto fail;
	}
	bufprintf(&so, "%s/%016llx.so", dir, (unsigned long long)h);
	bufprintf(&cpp, "%s/%016llx.cpp", dir, (unsigned long long)h);
	if (isfile(so.s))
		goto done;
	bufprintf(&tmp, "%s/%016llx.%ld.tmp.so", dir, (unsigned long long)h, (long)getpid());
	bufprintf(&log, "%s/%016llx.%ld.log", dir, (unsigned long long)h, (long)getpid());
	if (writefile(cpp.s, text, len) != 0) {
		fprintf(stderr, "krun: cannot write %s: %s\n", cpp.s, strerror(errno));
		goto fail;
	}
	n = splitwords(cmd.s, argv, (int)(sizeof argv / sizeof argv[0]) - 3, &store);
	if (n == (int)(sizeof argv / sizeof argv[0]) - 3) {
		fprintf(stderr, "krun: too many words in the compile command (KPY_CXXFLAGS?)\n");
		goto fail;
	}
	argv[n++] = "-o";
	argv[n++] = tmp.s;
	argv[n++] = cpp.s;
	argv[n] = NULL;
	rc = runcmd(argv, log.s);
	if (rc != 0) {
		size_t ll;
		char *lt = readfile(log.s, &ll);
		fprintf(stderr, "krun: compiling %s failed (%s):\n%s", src, cmd.s, lt ? lt : "");
		free(lt);
		remove(log.s);
		remove(tmp.s);
		goto fail;
	}
	remove(log.s);
	if (rename(tmp.s, so.s) != 0) {
		fprintf(stderr, "krun: cannot rename %s: %s\n", tmp.s, strerror(errno));
		remove(tmp.s);
		goto fail;
	}
done:
	free(text);
	free(dir);
	free(store);
	free(fstore);
	buffree(&cmd);
	buffree(&tmp);
	*cached = cpp.s;
	buffree(&log);
	return so.s;
fail:
	free(text);
	free(dir);
	free(store);
	buffree(&cmd);
	buffree(&so);
	buffree(&tmp);
	buffree(&cpp);
	buffree(&log);
	return NULL;
}

/* ---- loading ------------------------------------------------------- */

static bool
endswith(const char *s, const char *t)
{
	size_t n = strlen(s), m = strlen(t);
	return n >= m && strcmp(s + n - m, t) == 0;
}

/* --sandbox: the folder the module may read, once loaded. */
static const char *sandboxdir;

/* -O: the optimization level of .kir modules (main, preload). */
static int jitopt = 1;

static void *
modsym(const Mod *md, const char *name)
{
	return md->jit ? jitsym(md->jit, name) : dlsym(md->dl, name);
}

static int
loadmod(Mod *md, const char *module, bool widened, bool checked)
{
	char *so = NULL;
	const char *path = module;
	const int32_t *v, *nk, *f32;
	void (**handler)(const kpy_bounds_fault *);
	char abs[PATH_MAX + 8];

	memset(md, 0, sizeof *md);
	md->path = module;
	if (!isfile(module)) {
		fprintf(stderr, "krun: %s: %s\n", module, errno ? strerror(errno) : "not a file");
		return -1;
	}
	if (endswith(module, ".kir")) {
		/* compiled in process (jit.c) */
		if (!(md->jit = jitload(module, widened, checked, jitopt)))
			return -1;
	} else if (!endswith(module, ".so")) {
		if (!(so = compile(module, widened, checked, &md->cpp)))
			return -1;
		path = so;
	}
	if (sandboxdir) {
		char err[512];
		int sb = kpy_sandbox(sandboxdir, err, sizeof err);
		if (sb < 0) {
			fprintf(stderr, "krun: %s\n", err);
			free(so);
			return -1;
		}
		if (sb == 0)
			fprintf(stderr, "krun: note: this kernel has no Landlock: file reads are not confined\n");
	}
	/* dlopen searches the library path unless the name has a slash */
	if (!strchr(path, '/'))
		snprintf(abs, sizeof abs, "./%s", path);
	else
		snprintf(abs, sizeof abs, "%s", path);
	if (!md->jit && !(md->dl = dlopen(abs, RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr, "krun: cannot load %s: %s\n", module, dlerror());
		free(so);
		return -1;
	}
	free(so);
	v = (const int32_t *)modsym(md, "kpy_abi_version");
	nk = (const int32_t *)modsym(md, "kpy_nkernels");
	f32 = (const int32_t *)modsym(md, "kpy_f32_size");
	md->kernels = (const kpy_kernel_info *)modsym(md, "kpy_kernels");
	md->structs = (const kpy_struct_info *)modsym(md, "kpy_structs");
	if (!v || !nk || !f32 || !md->kernels || !md->structs) {
		fprintf(stderr, "krun: %s: not a kcpu module (no kernel table)\n", module);
		return -1;
	}
	if (*v != KPY_ABI_VERSION) {
		fprintf(stderr, "krun: %s: kernel table version %d, this krun reads %d (regenerate it with kcpu)\n", module,
		        *v, KPY_ABI_VERSION);
		return -1;
	}
	md->nkernels = *nk;
	md->f32size = *f32;
	handler = (void (**)(const kpy_bounds_fault *))modsym(md, "kpy_bounds_handler");
	if (checked && handler) {
		*handler = run_onbounds;
		md->checked = true;
	}
	return 0;
}

static int
findkernel(const Mod *md, const char *name)
{
	int i;

	for (i = 0; i < md->nkernels; i++)
		if (strcmp(md->kernels[i].name, name) == 0)
			return i;
	for (i = 0; i < md->nkernels; i++)
		if (strcmp(md->kernels[i].cname, name) == 0)
			return i;
	return -1;
}

static void
listkernels(const Mod *md)
{
	int i;

	if (md->nkernels == 0) {
		fprintf(stderr, " (it has no kernels)\n");
		return;
	}
	fprintf(stderr, " (kernels:");
	for (i = 0; i < md->nkernels; i++)
		fprintf(stderr, "%s %s", i ? "," : "", md->kernels[i].name);
	fprintf(stderr, ")\n");
}

static void
typestr2(Buf *b, const kpy_type_info *t, const kpy_struct_info *structs)
{
	static const char *const dt[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bf16"};
	const char *s = t->dtype >= 0 && t->dtype <= KPY_BF16 ? dt[t->dtype] : "?";

	if (t->kind == KPY_ARRAY)
		bufputs(b, "array<");
	switch (t->elem) {
	case KPY_SCALAR: bufputs(b, s); break;
	case KPY_VEC: bufprintf(b, "vec<%d,%s>", t->rows, s); break;
	case KPY_MAT: bufprintf(b, "mat<%d,%d,%s>", t->rows, t->cols, s); break;
	case KPY_QUAT: bufprintf(b, "quat<%s>", s); break;
	case KPY_TRANSFORM: bufprintf(b, "transform<%s>", s); break;
	case KPY_STRUCT: bufprintf(b, "@%s", structs[t->sid].name); break;
	}
	if (t->kind == KPY_ARRAY)
		bufprintf(b, ",%d>", t->ndim);
}

/* One line per kernel: name, parameters, tid dimensions, its backward. */
static void
listmodule(const Mod *md)
{
	int i, j;

	for (i = 0; i < md->nkernels; i++) {
		const kpy_kernel_info *k = &md->kernels[i];
		Buf b = {0};
		bufprintf(&b, "%s(", k->name);
		for (j = 0; j < k->nparams; j++) {
			const kpy_param_info *p = &k->params[j];
			bufprintf(&b, "%s%s: ", j ? ", " : "", p->name);
			typestr2(&b, &p->type, md->structs);
			if (p->type.kind == KPY_ARRAY)
				bufprintf(&b, " %s%s%s%s", p->access & KPY_READ ? "r" : "", p->access & KPY_WRITE ? "w" : "",
				          p->access & KPY_MINMAX ? "m" : "", p->access ? "" : "-");
		}
		bufprintf(&b, ") tid=%d", k->tid_dims);
		if (k->backward >= 0)
			bufprintf(&b, " backward=%s", md->kernels[k->backward].name);
		if (k->forward >= 0)
			bufprintf(&b, " forward=%s", md->kernels[k->forward].name);
		printf("%s\n", b.s);
		buffree(&b);
	}
}

/* ---- arguments ----------------------------------------------------- */

static int
parseshape(const char *s, int ndim, int32_t *shape, const char *name)
{
	kpy_launch_bounds b;
	char err[256];
	int d;

	if (kpy_parse_dims(s, &b, err, sizeof err) < 0 || b.ndim != ndim) {
		fprintf(stderr, "krun: --shape %s=%s: expected %d extent%s\n", name, s, ndim, ndim == 1 ? "" : "s");
		return -1;
	}
	for (d = 0; d < ndim; d++)
		shape[d] = b.shape[d];
	return 0;
}

/* The backward of atomic_min/max compares each value with the element's final
 * contents (Warp's rule): give the backward run `to` the arrays marked
 * KPY_MINMAX as the forward run `from` left them. */
static void
finalminmax(Run *to, const Run *from)
{
	int i, j;

	for (i = 0; i < from->k->nparams; i++) {
		const KpyArg *f = &from->args[i];
		if (!(from->k->params[i].access & KPY_MINMAX) || !f->isarray)
			continue;
		for (j = 0; j < to->k->nparams; j++) {
			KpyArg *t = &to->args[j];
			if (to->k->params[j].adjoint_of < 0 && t->isarray &&
			    strcmp(to->k->params[j].name, from->k->params[i].name) == 0 && t->a.count == f->a.count &&
			    t->a.dtype == f->a.dtype)
				memcpy(t->a.data, f->a.data, (size_t)f->a.count * (size_t)npy_dtype_size(f->a.dtype));
		}
	}
}

/* The argument of r for the primal parameter named name, or NULL. */
static const KpyArg *
primalarg(const Run *r, const char *name)
{
	int i;

	for (i = 0; i < r->k->nparams; i++)
		if (r->k->params[i].adjoint_of < 0 && r->args[i].p && strcmp(r->k->params[i].name, name) == 0)
			return &r->args[i];
	return NULL;
}

/* Build the arguments of kernel k.  In a backward kernel, the adjoints of
 * arrays the forward kernel only reads are zero, and an adjoint array has
 * the extents of its primal (made first: from --in, --shape or --dim). */
static int
makeargs(Run *r, const Mod *md, const kpy_kernel_info *k, const kpy_launch_bounds *b, const Opts *o)
{
	const kpy_kernel_info *fw = k->forward >= 0 ? &md->kernels[k->forward] : NULL;
	int i, pass;

	run_init(r, k);
	for (pass = 0; pass < 2; pass++)
	for (i = 0; i < k->nparams; i++) {
		const kpy_param_info *p = &k->params[i];
		const KpyArg *primal = NULL;
		KpyArgSpec spec;
		int32_t shape[4];
		char err[1024];
		const char *sh;
		int d;
		if ((p->adjoint_of >= 0 && fw) != (pass == 1))
			continue;
		memset(&spec, 0, sizeof spec);
		if (p->adjoint_of >= 0 && fw) {
			const kpy_param_info *fp = &fw->params[p->adjoint_of];
			spec.inpath = findopt(o->adj, o->nadj, fp->name);
			if (!spec.inpath)
				spec.inpath = findopt(o->adj, o->nadj, p->name);
			if (!spec.inpath)
				spec.inpath = findopt(o->in, o->nin, p->name);
			/* adjoints of outputs are seeded, of inputs zero */
			spec.zero = !(fp->access & KPY_WRITE);
			sh = findopt(o->shape, o->nshape, fp->name);
			primal = primalarg(r, fp->name);
			if (primal && (!primal->isarray || primal->ndim != p->type.ndim))
				primal = NULL;
		} else {
			spec.inpath = findopt(o->in, o->nin, p->name);
			spec.setval = findopt(o->set, o->nset, p->name);
			sh = findopt(o->shape, o->nshape, p->name);
		}
		if (sh && p->type.kind == KPY_ARRAY) {
			if (parseshape(sh, p->type.ndim, shape, p->name) < 0) {
				run_free(r);
				return 2;
			}
			spec.shape = shape;
		} else if (primal) {
			for (d = 0; d < p->type.ndim; d++)
				shape[d] = (int32_t)primal->a.shape[d];
			spec.shape = shape;
		}
		if (kpy_arg_make(&r->args[i], p, md->structs, b, o->seed, &spec, md->f32size, err, sizeof err) < 0) {
			fprintf(stderr, "krun: %s\n", err);
			run_free(r);
			return 1;
		}
		if (p->adjoint_of < 0 && p->type.kind == KPY_STRUCT) {
			/* --set p.field=v, in the order given */
			size_t len = strlen(p->name);
			int j;
			for (j = 0; j < o->nset; j++)
				if (strncmp(o->set[j].name, p->name, len) == 0 && o->set[j].name[len] == '.' &&
				    kpy_arg_setfield(&r->args[i], md->structs, o->set[j].name + len + 1, o->set[j].value,
				                     md->f32size, err, sizeof err) < 0) {
					fprintf(stderr, "krun: %s\n", err);
					run_free(r);
					return 1;
				}
		}
		if (primal && spec.inpath)
			for (d = 0; d < p->type.ndim; d++)
				if (r->args[i].a.shape[d] != primal->a.shape[d]) {
					char s1[128], s2[128];
					npy_shapestr(&r->args[i].a, s1, sizeof s1);
					npy_shapestr(&primal->a, s2, sizeof s2);
					fprintf(stderr, "krun: %s: shape %s, but the adjoint of '%s' needs its shape %s\n", spec.inpath,
					        s1, primal->p->name, s2);
					run_free(r);
					return 1;
				}
	}
	run_bind(r);
	return 0;
}

/* Check that the options name parameters of k (or of its backward kernel kb). */
static int
checknames(const kpy_kernel_info *k, const kpy_kernel_info *kb, const Opt *v, int n, const char *what)
{
	int i, j;

	for (i = 0; i < n; i++) {
		bool found = false;
		const char *dot = strchr(v[i].name, '.');
		for (j = 0; j < k->nparams && !found; j++)
			found = strcmp(k->params[j].name, v[i].name) == 0 ||
			        (dot && strcmp(what, "set") == 0 && k->params[j].type.kind == KPY_STRUCT && strlen(k->params[j].name) == (size_t)(dot - v[i].name) &&
			         strncmp(k->params[j].name, v[i].name, (size_t)(dot - v[i].name)) == 0);
		for (j = 0; kb && j < kb->nparams && !found; j++)
			found = strcmp(kb->params[j].name, v[i].name) == 0;
		if (!found) {
			fprintf(stderr, "krun: --%s %s: kernel %s has no parameter '%s'\n", what, v[i].name, k->name, v[i].name);
			return -1;
		}
	}
	return 0;
}

/* Report the fault of r's launch: FILE:LINE: error: kernel K reads outside
 * array 'x' ..., the source line, and where x came from. */
static void
reportfault(const Run *r, const Mod *md, const Opts *o)
{
	const kpy_bounds_fault *f = &run_fault;
	const char *name, *file = f->file, *from = NULL;
	Buf m = {0};

	if (file && md->cpp && strcmp(file, md->cpp) == 0)
		file = md->path;
	name = run_faultline(r, file, &m);
	fprintf(stderr, "%s\n", m.s);
	if (file && f->line > 0) {
		size_t len;
		char *text = readfile(file, &len), *p = text;
		int line = 1;
		while (p && *p && line < f->line)
			if (*p++ == '\n')
				line++;
		if (p && *p) {
			char *e = strchr(p, '\n');
			fprintf(stderr, "%.*s\n", e ? (int)(e - p) : (int)strlen(p), p);
		}
		free(text);
	}
	if (name && ((from = findopt(o->in, o->nin, name)) || (from = findopt(o->adj, o->nadj, name))))
		fprintf(stderr, "krun: note: '%s' was read from %s\n", name, from);
	fprintf(stderr, "krun: the launch was stopped at this access; no results were written\n");
	buffree(&m);
}

/* Launch r over b, its threads in the order o asks.  In a checked module an
 * out-of-bounds access ends the launch (run_onbounds longjmps here): report it
 * and return -1. */
static int
launch(const Run *r, const kpy_launch_bounds *b, const Mod *md, const Opts *o)
{
	int64_t *volatile perm;

	if (b->size <= 0)
		return 0;
	perm = o->order == ORDER_SHUFFLE ? run_permutation(b->size, o->orderseed) : NULL;
	if (setjmp(run_faultjmp)) {
		free(perm);
		reportfault(r, md, o);
		return -1;
	}
	run_threads(r, b, o->order, perm);
	free(perm);
	return 0;
}

static int
cmpdouble(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* --time=N: N more launches of r (after its results were written: they
 * change what the kernel accumulates, not how long it takes), each timed;
 * the median and the fastest on standard error. */
static int
timelaunches(const Run *r, const kpy_launch_bounds *b, const Mod *md, const Opts *o)
{
	double *t = malloc((size_t)o->timing * sizeof *t);
	struct timespec t0, t1;
	int i;

	if (!t) {
		fprintf(stderr, "krun: out of memory\n");
		return 1;
	}
	for (i = 0; i < o->timing; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (launch(r, b, md, o) < 0) {
			free(t);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		t[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
	}
	qsort(t, (size_t)o->timing, sizeof *t, cmpdouble);
	fprintf(stderr, "krun: %s: %d launches of %lld threads: median %.4f ms, fastest %.4f ms\n", o->kernel,
	        o->timing, (long long)b->size, t[o->timing / 2], t[0]);
	free(t);
	return 0;
}

/* --out=-: where the arrays go (the original standard output; the
 * kernel's prints go to standard error). */
static FILE *arraystream;

/* Summaries and .npy files of every array of r (prefix: "" or "adj_"). */
static int
writeout(const Run *r, const Mod *md, const Opts *o, bool adjonly)
{
	int i, j, rc = 0;
	char err[1024];

	for (i = 0; i < r->k->nparams; i++) {
		const KpyArg *a = &r->args[i];
		if (adjonly && a->p->adjoint_of < 0)
			continue;
		for (j = a->isarray ? -1 : 0; j < a->nsubs; j++) {
			const char *name = j < 0 ? a->p->name : a->subs[j].name;
			NpyArray tmp;
			const NpyArray *w = run_output(a, j, o->dbl, md->f32size, &tmp);
			if (!w) {
				fprintf(stderr, "krun: out of memory\n");
				return 1;
			}
			if (!o->quiet)
				kpy_summary(stdout, name, w);
			if (o->out && strcmp(o->out, "-") == 0) {
				char *mem = NULL;
				size_t len = 0;
				FILE *m = open_memstream(&mem, &len);
				if (!m || npy_fwrite(m, w) < 0 || fclose(m) != 0) {
					fprintf(stderr, "krun: out of memory\n");
					rc = 1;
				} else {
					fprintf(arraystream, "%s %zu\n", name, len);
					fwrite(mem, 1, len, arraystream);
				}
				free(mem);
			} else if (o->out) {
				Buf path = {0};
				bufprintf(&path, "%s/%s.npy", o->out, name);
				if (npy_write(path.s, w, err, sizeof err) < 0) {
					fprintf(stderr, "krun: %s\n", err);
					rc = 1;
				}
				buffree(&path);
			}
			free(tmp.data);
		}
	}
	return rc;
}

/* ---- gradient check ------------------------------------------------ */

/* Copy the data of src's arrays into dst (same shapes). */
static void
copydata(Run *dst, const Run *src)
{
	int i;

	for (i = 0; i < src->k->nparams; i++)
		if (src->args[i].isarray)
			memcpy(dst->args[i].a.data, src->args[i].a.data,
			       (size_t)src->args[i].a.count * (size_t)npy_dtype_size(src->args[i].a.dtype));
}

static bool
isfloatarr(const KpyArg *a)
{
	return a->isarray && a->p->type.elem != KPY_STRUCT && (a->p->type.dtype == KPY_F32 || a->p->type.dtype == KPY_F64);
}

/* sum over outputs of w . (y_plus - y_minus) for the two runs */
static double
projdiff(const Run *plus, const Run *minus, const Run *w, const int *outs, int nout, double *mag)
{
	double s = 0;
	int j;
	int64_t e;

	for (j = 0; j < nout; j++) {
		int i = outs[j];
		const NpyArray *a = &plus->args[i].a, *c = &minus->args[i].a, *wa = &w->args[i].a;
		if (a->dtype == KPY_F64 && c->dtype == KPY_F64 && wa->dtype == KPY_F64) {
			/* the double build's arrays (most of the gradient check's
			 * time went to kpy_get): the same sums in the same order */
			const double *pa = a->data, *pc = c->data, *pw = wa->data;
			double m = *mag;
			for (e = 0; e < a->count; e++) {
				double d = pa[e] - pc[e], we = pw[e];
				m += fabs(we * pa[e]);
				if (d != 0)
					s += we * d;
			}
			*mag = m;
			continue;
		}
		for (e = 0; e < a->count; e++) {
			double d = kpy_get(a->data, a->dtype, e) - kpy_get(c->data, c->dtype, e);
			double we = kpy_get(wa->data, wa->dtype, e);
			*mag += fabs(we * kpy_get(a->data, a->dtype, e));
			if (d != 0)
				s += we * d;
		}
	}
	return s;
}

/* --directions D, the gradient check along directions: for each of D seeded
 * directions v of the whole array x (v_e uniform in [-1, 1]), perturb every
 * element at once, x_e +- h*s_e*v_e with s_e = max(|x_e|, 1) and h = eps,
 * and compare (L(x+hsv) - L(x-hsv)) / 2h with the backward kernel's
 * adjoints projected on the same direction, sum(ana_e*s_e*v_e): two launches
 * a direction where the elementwise check takes two an element, and every
 * element, not a sample, weighs in (a wrong sign on a single element moves
 * the projection).  The same kink, noise and h/2 tests as per element.
 * Returns 1 when every direction was judged (*worst, *wn, *wa: the largest
 * relative error and its numbers), 0 when one met a kink or a map that is
 * not smooth at this scale (the caller checks elements instead), -1 when a
 * launch stopped. */
static int
directional(Run *work, const Run *base, const Run *l0, const Run *w, const int *outs, int nout, int pi,
            const NpyArray *adj, const kpy_launch_bounds *b, const Mod *md, const Opts *o, double *worst, double *wn,
            double *wa)
{
	const NpyArray *x = &base->args[pi].a;
	int64_t n = x->count, e;
	double *v = xcalloc((size_t)n + 1, sizeof(double)), h = o->eps;
	int d, rc = 1;

	*worst = 0;
	for (d = 0; d < o->directions && rc == 1; d++) {
		double ana = 0, num, dp, dm, mag = 0, noise, den, rel;
		int k;
		for (e = 0; e < n; e++) {
			double x0 = kpy_get(x->data, x->dtype, e);
			v[e] = (2 * kpy_uniform(o->seed, kpy_stream("gradcheck-direction") + (uint64_t)pi,
			                        (uint64_t)d * (uint64_t)n + (uint64_t)e) - 1) * fmax(fabs(x0), 1.0);
			ana += kpy_get(adj->data, adj->dtype, e) * v[e];
		}
		/* step h, then (when the error exceeds the tolerance) h/2 */
		for (k = 0; k < 2; k++) {
			double hk = k ? h / 2 : h, dpk, dmk, magk = 0, numk;
			copydata(work, base);
			for (e = 0; e < n; e++)
				kpy_set(work->args[pi].a.data, x->dtype, e, kpy_get(x->data, x->dtype, e) + hk * v[e]);
			if (launch(work, b, md, o) < 0) {
				rc = -1;
				break;
			}
			dpk = projdiff(work, l0, w, outs, nout, &magk);
			copydata(work, base);
			for (e = 0; e < n; e++)
				kpy_set(work->args[pi].a.data, x->dtype, e, kpy_get(x->data, x->dtype, e) - hk * v[e]);
			if (launch(work, b, md, o) < 0) {
				rc = -1;
				break;
			}
			dmk = projdiff(l0, work, w, outs, nout, &magk);
			numk = (dpk + dmk) / (2 * hk);
			if (k == 0) {
				dp = dpk, dm = dmk, mag = magk, num = numk;
				if (fabs(dp / h - dm / h) > 1e-2 * fmax(1.0, fabs(num))) {
					rc = 0; /* a kink or a jump somewhere along the direction */
					break;
				}
				noise = 256 * DBL_EPSILON * mag / (2 * h);
				den = fmax(fmax(fabs(num), fabs(ana)), 1e-3);
				rel = fmax(fabs(num - ana) - noise, 0) / den;
				if (rel <= o->tol)
					break;
			} else {
				double noise2 = noise + 256 * DBL_EPSILON * magk / h, r2;
				if (fmax(fabs(num - numk) - noise2, 0) / den > o->tol) {
					rc = 0; /* not smooth at this scale */
					break;
				}
				numk = (4 * numk - num) / 3; /* Richardson */
				r2 = fmax(fabs(numk - ana) - 2 * noise2, 0) / den;
				if (r2 < rel)
					rel = r2, num = numk;
			}
		}
		if (rc == 1 && (d == 0 || rel > *worst)) {
			*worst = rel;
			*wn = num;
			*wa = ana;
		}
	}
	free(v);
	return rc;
}

static int
gradcheck(const Mod *md, int ki, const kpy_launch_bounds *b, const Opts *o)
{
	const kpy_kernel_info *k = &md->kernels[ki], *kb;
	Run base, work, work2, weights, back;
	int *ins, *outs, nin = 0, nout = 0, i, j, rc = 0, rcm;
	bool minmax = false;  /* the kernel applies atomic_min/max */
	bool bf16out = false; /* it writes a bf16 array */

	if (k->backward < 0) {
		fprintf(stderr, "krun: kernel %s has no backward kernel (run kopt -p ad before kcpu)\n", k->name);
		return 1;
	}
	kb = &md->kernels[k->backward];
	if ((rcm = makeargs(&base, md, k, b, o)) != 0)
		return rcm;
	makeargs(&work, md, k, b, o);
	makeargs(&work2, md, k, b, o);
	ins = xcalloc((size_t)k->nparams + 1, sizeof(int));
	outs = xcalloc((size_t)k->nparams + 1, sizeof(int));
	for (i = 0; i < k->nparams; i++) {
		if (k->params[i].access & KPY_MINMAX)
			minmax = true;
		if (base.args[i].isarray && k->params[i].type.elem != KPY_STRUCT && k->params[i].type.dtype == KPY_BF16 &&
		    (k->params[i].access & KPY_WRITE))
			bf16out = true;
		if (!isfloatarr(&base.args[i]))
			continue;
		if (k->params[i].access & KPY_READ)
			ins[nin++] = i;
		if (k->params[i].access & KPY_WRITE)
			outs[nout++] = i;
	}
	/* the backward seeds a bf16 output's adjoint too, and finite
	 * differences cannot see through its rounding */
	if (nin == 0 || nout == 0 || bf16out) {
		printf("gradcheck %s: nothing to check (%s)\n", k->name,
		       bf16out ? "a bf16 array is written; finite differences cannot see through its rounding"
		       : nin  ? "no float array is written" : "no float array is read");
		goto done;
	}
	/* the analytic gradient: backward with output adjoints w, input adjoints 0 */
	if ((rcm = makeargs(&back, md, kb, b, o)) != 0) {
		rc = rcm;
		goto done;
	}
	makeargs(&weights, md, kb, b, o); /* the same seeds: weights.args[adj] == back's initial adjoints */
	/* weights indexed like the forward parameters */
	{
		Run w = {0};
		w.k = k;
		w.args = xcalloc((size_t)k->nparams + 1, sizeof(KpyArg));
		for (j = 0; j < kb->nparams; j++)
			if (kb->params[j].adjoint_of >= 0)
				w.args[kb->params[j].adjoint_of] = weights.args[j];
		{
			Run fwd;
			if (makeargs(&fwd, md, k, b, o) == 0) {
				if (launch(&fwd, b, md, o) < 0)
					rc = 1;
				finalminmax(&back, &fwd);
				run_free(&fwd);
			}
		}
		if (rc || launch(&back, b, md, o) < 0) {
			rc = 1;
			nin = 0; /* check nothing */
		}
		/* L(x), the unperturbed run every difference is taken from, once:
		 * the launch is a function of base's arrays (the order is fixed
		 * and rand is seeded per thread) */
		copydata(&work2, &base);
		if (nin && launch(&work2, b, md, o) < 0) {
			rc = 1;
			nin = 0;
		}
		for (j = 0; j < nin; j++) {
			int pi = ins[j], ai = -1, nchk, s;
			KpyArg *x = &base.args[pi];
			int64_t n = x->a.count, *idx, worstat = -1;
			double worst = 0, wn = 0, wa = 0;
			int skipped = 0, unsmooth = 0, checked;
			const char *verdict;
			for (i = 0; i < kb->nparams; i++)
				if (kb->params[i].adjoint_of == pi)
					ai = i;
			if (ai < 0) {
				printf("gradcheck %s: no adjoint for %s\n", k->name, k->params[pi].name);
				rc = 1;
				continue;
			}
			if (o->directions > 0) {
				int dr = directional(&work, &base, &work2, &w, outs, nout, pi, &back.args[ai].a, b, md, o, &worst,
				                     &wn, &wa);
				if (dr < 0) {
					rc = 1; /* a launch stopped at an out-of-bounds access */
					break;
				}
				if (dr > 0) {
					bool bad = worst > o->tol;
					printf("gradcheck %s %s: %d directions over %lld elements, worst relative error %.3g"
					       " (numeric %.9g, analytic %.9g) %s\n",
					       k->name, k->params[pi].name, o->directions, (long long)n, worst, wn, wa,
					       !bad ? "ok" : minmax ? "rule (Warp's atomic_min/max gradient rule, not the derivative)" : "FAIL");
					if (bad && !minmax)
						rc = 1;
					continue;
				}
				/* a kink along a direction: element by element, as without --directions */
				worst = wn = wa = 0;
			}
			nchk = n <= o->samples ? (int)n : o->samples;
			idx = xcalloc((size_t)nchk + 1, sizeof(int64_t));
			for (s = 0; s < nchk; s++) {
				if (n <= o->samples) {
					idx[s] = s;
				} else {
					/* a seeded sample, distinct indices */
					int64_t c;
					int t, again = 0, tries = 0;
					do {
						c = (int64_t)(kpy_uniform(o->seed, kpy_stream("gradcheck") + (uint64_t)pi, (uint64_t)s * 7919 + (uint64_t)tries++) * (double)n);
						again = 0;
						for (t = 0; t < s; t++)
							if (idx[t] == c)
								again = 1;
					} while (again);
					idx[s] = c;
				}
			}
			for (s = 0; s < nchk; s++) {
				int64_t e = idx[s];
				double x0 = kpy_get(x->a.data, x->a.dtype, e), h = o->eps * fmax(fabs(x0), 1.0);
				double dp, dm, num, ana, rel, den, mag = 0, noise;
				/* L(x+h) - L(x-h), and the one-sided halves to spot kinks */
				copydata(&work, &base);
				kpy_set(work.args[pi].a.data, x->a.dtype, e, x0 + h);
				if (launch(&work, b, md, o) < 0)
					break;
				dp = projdiff(&work, &work2, &w, outs, nout, &mag);
				copydata(&work, &base);
				kpy_set(work.args[pi].a.data, x->a.dtype, e, x0 - h);
				if (launch(&work, b, md, o) < 0)
					break;
				dm = projdiff(&work2, &work, &w, outs, nout, &mag);
				num = (dp + dm) / (2 * h);
				ana = kpy_get(back.args[ai].a.data, back.args[ai].a.dtype, e);
				if (fabs(dp / h - dm / h) > 1e-2 * fmax(1.0, fabs(num))) {
					/* a kink or a jump between x-h and x+h: finite differences say nothing */
					skipped++;
					continue;
				}
				/* rounding in the outputs bounds what finite differences can
				 * resolve: |L| relative error of a few hundred ulps over 2h */
				noise = 256 * DBL_EPSILON * mag / (2 * h);
				den = fmax(fmax(fabs(num), fabs(ana)), 1e-3);
				rel = fmax(fabs(num - ana) - noise, 0) / den;
				if (rel > o->tol) {
					/* the same difference with step h/2: if the two disagree,
					 * the function is not smooth at this scale (a steep or
					 * iterated map) and finite differences cannot judge */
					double dp2, dm2, num2, mag2 = 0, noise2;
					copydata(&work, &base);
					kpy_set(work.args[pi].a.data, x->a.dtype, e, x0 + h / 2);
					if (launch(&work, b, md, o) < 0)
						break;
					dp2 = projdiff(&work, &work2, &w, outs, nout, &mag2);
					copydata(&work, &base);
					kpy_set(work.args[pi].a.data, x->a.dtype, e, x0 - h / 2);
					if (launch(&work, b, md, o) < 0)
						break;
					dm2 = projdiff(&work2, &work, &w, outs, nout, &mag2);
					num2 = (dp2 + dm2) / h;
					noise2 = noise + 256 * DBL_EPSILON * mag2 / h;
					if (fmax(fabs(num - num2) - noise2, 0) / den > o->tol) {
						unsmooth++;
						continue;
					}
					/* they agree: Richardson's (4 num2 - num) / 3 cancels the
					 * h^2 error term of both */
					num2 = (4 * num2 - num) / 3;
					if (fmax(fabs(num2 - ana) - 2 * noise2, 0) / den < rel) {
						rel = fmax(fabs(num2 - ana) - 2 * noise2, 0) / den;
						num = num2;
					}
				}
				if (rel > worst || worstat < 0) {
					worst = rel;
					worstat = e;
					wn = num;
					wa = ana;
				}
			}
			if (s < nchk) {
				/* a launch stopped at an out-of-bounds access */
				free(idx);
				rc = 1;
				break;
			}
			/* the verdict: ok; FAIL; "rule" where the kernel applies
			 * atomic_min/max, whose gradient follows Warp's rule, not the
			 * derivative; "not smooth" where no element could be judged */
			checked = nchk - skipped - unsmooth;
			if (worst > o->tol)
				verdict = minmax ? "rule (Warp's atomic_min/max gradient rule, not the derivative)" : "FAIL";
			else if (checked == 0)
				verdict = "not smooth (finite differences cannot judge it)";
			else
				verdict = "ok";
			printf("gradcheck %s %s: %d of %lld elements, worst relative error %.3g", k->name, k->params[pi].name,
			       checked, (long long)n, worst);
			if (worstat >= 0)
				printf(" at %lld (numeric %.9g, analytic %.9g)", (long long)worstat, wn, wa);
			if (skipped)
				printf(", %d skipped at kinks", skipped);
			if (unsmooth)
				printf(", %d not smooth (finite differences at h and h/2 disagree)", unsmooth);
			printf(" %s\n", verdict);
			if (worst > o->tol && !minmax)
				rc = 1;
			free(idx);
		}
		free(w.args);
	}
	run_free(&weights);
	run_free(&back);
done:
	free(ins);
	free(outs);
	run_free(&base);
	run_free(&work);
	run_free(&work2);
	return rc;
}

/* ---- crashes ------------------------------------------------------- */

/* A kernel that divides an integer by zero (or reads out of bounds) on
 * these inputs: say so, exit 1. */
static void
oncrash(int sig)
{
	const char *m = sig == SIGFPE ? "krun: the kernel raised an arithmetic exception (SIGFPE: integer division by zero "
	                                "or overflow): undefined behaviour for these inputs\n"
	                              : "krun: the kernel accessed invalid memory (out-of-bounds index? krun checks "
	                                "indices in C++ modules unless --unchecked): undefined behaviour for these inputs\n";
	ssize_t r = write(2, m, strlen(m));
	(void)r;
	_exit(1);
}

/* ---- main ---------------------------------------------------------- */

static int
krunmain(int argc, char **argv)
{
	enum { OPT_SET = 256, OPT_SHAPE, OPT_ADJ, OPT_TOL, OPT_EPS, OPT_SAMPLES, OPT_DIRECTIONS, OPT_UNCHECKED, OPT_ORDER, OPT_DOUBLE,
	       OPT_SANDBOX, OPT_COMPILE, OPT_TIME };
	static const struct option longopts[] = {
		{"kernel", required_argument, NULL, 'k'},
		{"dim", required_argument, NULL, 'd'},
		{"seed", required_argument, NULL, 's'},
		{"in", required_argument, NULL, 'i'},
		{"set", required_argument, NULL, OPT_SET},
		{"shape", required_argument, NULL, OPT_SHAPE},
		{"out", required_argument, NULL, 'o'},
		{"backward", no_argument, NULL, 'b'},
		{"adj", required_argument, NULL, OPT_ADJ},
		{"gradcheck", no_argument, NULL, 'G'},
		{"tol", required_argument, NULL, OPT_TOL},
		{"eps", required_argument, NULL, OPT_EPS},
		{"samples", required_argument, NULL, OPT_SAMPLES},
		{"directions", required_argument, NULL, OPT_DIRECTIONS},
		{"time", required_argument, NULL, OPT_TIME},
		{"unchecked", no_argument, NULL, OPT_UNCHECKED},
		{"order", required_argument, NULL, OPT_ORDER},
		{"double", no_argument, NULL, OPT_DOUBLE},
		{"sandbox", required_argument, NULL, OPT_SANDBOX},
		{"compile", no_argument, NULL, OPT_COMPILE},
		{"quiet", no_argument, NULL, 'q'},
		{"list", no_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	Opts o;
	Mod md;
	kpy_launch_bounds b;
	Run run;
	char err[512];
	int c, ki, rc = 0;

	progname = "krun";
	jitopt = 1;
	memset(&o, 0, sizeof o);
	memset(&md, 0, sizeof md);
	o.dim = "1024";
	o.seed = 1;
	o.tol = 1e-6;
	o.eps = 1e-6;
	o.samples = 256;
	while ((c = getopt_long(argc, argv, "k:d:s:i:o:O:bGqlhV", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'k': o.kernel = optarg; break;
		case 'd': o.dim = optarg; break;
		case 's':
			errno = 0;
			o.seed = strtoull(optarg, &end, 0);
			if (*end || errno || optarg[0] == '-') {
				fprintf(stderr, "krun: bad --seed '%s'\n", optarg);
				{ rc = 2; goto done; }
			}
			break;
		case 'i': if (!addopt(&o.in, &o.nin, optarg, "in")) { rc = 2; goto done; } break;
		case OPT_SET: if (!addopt(&o.set, &o.nset, optarg, "set")) { rc = 2; goto done; } break;
		case OPT_SHAPE: if (!addopt(&o.shape, &o.nshape, optarg, "shape")) { rc = 2; goto done; } break;
		case OPT_ADJ: if (!addopt(&o.adj, &o.nadj, optarg, "adj")) { rc = 2; goto done; } break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "krun: --out wants a directory, not an empty name\n");
				rc = 2;
				goto done;
			}
			o.out = optarg;
			break;
		case OPT_UNCHECKED: o.unchecked = true; break;
		case 'O':
			if (!optarg[0] || optarg[1] || optarg[0] < '0' || optarg[0] > '3') {
				fprintf(stderr, "krun: bad -O '%s' (0 to 3)\n", optarg);
				rc = 2;
				goto done;
			}
			jitopt = optarg[0] - '0';
			break;
		case OPT_DOUBLE: o.dbl = true; break;
		case OPT_COMPILE: o.compileonly = true; break;
		case OPT_SANDBOX:
			if (!*optarg) {
				fprintf(stderr, "krun: --sandbox wants a directory, not an empty name\n");
				rc = 2;
				goto done;
			}
			o.sandbox = optarg;
			break;
		case OPT_ORDER: {
			char *end = NULL;

			if (strcmp(optarg, "forward") == 0) {
				o.order = ORDER_FORWARD;
			} else if (strcmp(optarg, "reverse") == 0) {
				o.order = ORDER_REVERSE;
			} else if (strncmp(optarg, "shuffle", 7) == 0 && (optarg[7] == 0 || optarg[7] == ':')) {
				o.order = ORDER_SHUFFLE;
				o.orderseed = 1;
				if (optarg[7] == ':') {
					errno = 0;
					o.orderseed = strtoull(optarg + 8, &end, 10);
					if (!optarg[8] || *end || errno) {
						fprintf(stderr, "krun: bad --order seed '%s'\n", optarg + 8);
						rc = 2;
						goto done;
					}
				}
			} else {
				fprintf(stderr, "krun: bad --order '%s' (forward, reverse or shuffle[:SEED])\n", optarg);
				rc = 2;
				goto done;
			}
			break;
		}
		case 'b': o.backward = true; break;
		case 'G': o.gradcheck = true; break;
		case 'q': o.quiet = true; break;
		case 'l': o.list = true; break;
		case OPT_TOL: case OPT_EPS: {
			double v = strtod(optarg, &end);
			if (*end || !(v > 0) || v >= 1) {
				fprintf(stderr, "krun: bad --%s '%s'\n", c == OPT_TOL ? "tol" : "eps", optarg);
				{ rc = 2; goto done; }
			}
			if (c == OPT_TOL)
				o.tol = v;
			else
				o.eps = v;
			break;
		}
		case OPT_SAMPLES: {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 1 << 24) {
				fprintf(stderr, "krun: bad --samples '%s'\n", optarg);
				{ rc = 2; goto done; }
			}
			o.samples = (int)v;
			break;
		}
		case OPT_DIRECTIONS: {
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > 1 << 16) {
				fprintf(stderr, "krun: bad --directions '%s'\n", optarg);
				{ rc = 2; goto done; }
			}
			o.directions = (int)v;
			break;
		}
		case OPT_TIME: {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 1000000) {
				fprintf(stderr, "krun: bad --time '%s' (1 to 1000000 launches)\n", optarg);
				{ rc = 2; goto done; }
			}
			o.timing = (int)v;
			break;
		}
		case 'h': usage(stdout); { rc = 0; goto done; }
		case 'V': printf("krun (kpy) %s\n", KPY_VERSION); { rc = 0; goto done; }
		default: usage(stderr); { rc = 2; goto done; }
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, optind == argc ? "krun: no module (a .so or .cpp from kcpu, or a .kir)\n"
		                               : "krun: one module at most\n");
		usage(stderr);
		{ rc = 2; goto done; }
	}
	o.module = argv[optind];
	if (o.compileonly) {
		char *so, *cached = NULL;
		if (endswith(o.module, ".so") || endswith(o.module, ".kir") || !isfile(o.module)) {
			fprintf(stderr, "krun: --compile wants a .cpp file, not %s\n", o.module);
			{ rc = 2; goto done; }
		}
		if (!(so = compile(o.module, o.dbl, !o.unchecked, &cached)))
			{ rc = 1; goto done; }
		printf("%s\n", so);
		free(so);
		free(cached);
		goto done;
	}
	if (o.list && o.sandbox) {
		fprintf(stderr, "krun: --sandbox runs one kernel (no --list)\n");
		{ rc = 2; goto done; }
	}
	if (o.list) {
		if (loadmod(&md, o.module, false, false) < 0)
			{ rc = 1; goto done; }
		listmodule(&md);
		{ rc = 0; goto done; }
	}
	if (!o.kernel) {
		fprintf(stderr, "krun: which kernel? (--kernel NAME)\n");
		{ rc = 2; goto done; }
	}
	if (kpy_parse_dims(o.dim, &b, err, sizeof err) < 0) {
		fprintf(stderr, "krun: %s\n", err);
		{ rc = 2; goto done; }
	}
	if (o.gradcheck && o.backward) {
		fprintf(stderr, "krun: --gradcheck and --backward are separate runs\n");
		{ rc = 2; goto done; }
	}
	if (o.out && strcmp(o.out, "-") == 0) {
		int fd;
		o.quiet = true;
		fflush(stdout);
		if ((fd = dup(1)) < 0 || !(arraystream = fdopen(fd, "w")) || dup2(2, 1) < 0) {
			fprintf(stderr, "krun: cannot set up standard output: %s\n", strerror(errno));
			{ rc = 2; goto done; }
		}
	} else if (o.sandbox && o.out) {
		fprintf(stderr, "krun: --sandbox writes no files: --out=- writes the arrays to standard output\n");
		{ rc = 2; goto done; }
	}
	if (o.sandbox && o.gradcheck) {
		fprintf(stderr, "krun: --sandbox runs one kernel (no --gradcheck)\n");
		{ rc = 2; goto done; }
	}
	sandboxdir = o.sandbox;
	if (o.out && strcmp(o.out, "-") != 0 && mkdirs(o.out) < 0) {
		fprintf(stderr, "krun: cannot create %s: %s\n", o.out, strerror(errno));
		{ rc = 1; goto done; }
	}
	if (loadmod(&md, o.module, o.gradcheck || o.dbl, !o.unchecked) < 0)
		{ rc = 1; goto done; }
	if (o.sandbox && !o.unchecked && !md.checked) {
		/* untrusted code does not get to turn the checks off */
		fprintf(stderr, "krun: %s: not bounds-checked (KPY_CHECKED undefined?): refused under --sandbox\n",
		        o.module);
		{ rc = 1; goto done; }
	}
	if (!o.unchecked && !md.checked && !o.quiet)
		fprintf(stderr, "krun: note: %s was not built with -DKPY_CHECKED: its array accesses are not checked\n",
		        o.module);
	signal(SIGFPE, oncrash);
	signal(SIGSEGV, oncrash);
	signal(SIGBUS, oncrash);
	if (o.gradcheck && md.f32size != 8) {
		fprintf(stderr, "krun: %s: --gradcheck needs the C++ source or kir (or a build with -DKPY_F32_DOUBLE)\n",
		        o.module);
		{ rc = 1; goto done; }
	}
	if ((ki = findkernel(&md, o.kernel)) < 0) {
		fprintf(stderr, "krun: %s: no kernel '%s'", o.module, o.kernel);
		listkernels(&md);
		{ rc = 1; goto done; }
	}
	{
		const kpy_kernel_info *k = &md.kernels[ki];
		if (k->tid_dims > 1 && k->tid_dims != b.ndim) {
			fprintf(stderr, "krun: kernel %s unpacks a %d-dimensional wp.tid(): launch it with %d extents (--dim), not %d\n",
			        k->name, k->tid_dims, k->tid_dims, b.ndim);
			{ rc = 2; goto done; }
		}
		if (checknames(k, o.backward && k->backward >= 0 ? &md.kernels[k->backward] : NULL, o.in, o.nin, "in") < 0 ||
		    checknames(k, NULL, o.set, o.nset, "set") < 0 || checknames(k, NULL, o.shape, o.nshape, "shape") < 0 ||
		    checknames(k, k->backward >= 0 ? &md.kernels[k->backward] : NULL, o.adj, o.nadj, "adj") < 0)
			{ rc = 2; goto done; }
		if ((o.backward || o.gradcheck) && k->forward >= 0) {
			fprintf(stderr, "krun: %s is a backward kernel: name its forward kernel %s\n", k->name,
			        md.kernels[k->forward].name);
			{ rc = 2; goto done; }
		}
		if (o.backward && k->backward < 0) {
			fprintf(stderr, "krun: kernel %s has no backward kernel (run kopt -p ad before kcpu)\n", k->name);
			{ rc = 1; goto done; }
		}
		if (o.gradcheck) {
			rc = gradcheck(&md, ki, &b, &o);
			goto done;
		}
		if ((rc = makeargs(&run, &md, k, &b, &o)) != 0)
			goto done;
		if (o.sandbox && run_guard(&run) < 0) {
			fprintf(stderr, "krun: out of memory\n");
			run_free(&run);
			{ rc = 1; goto done; }
		}
		if (o.backward) {
			/* forward on a copy, so that the backward kernel sees the inputs;
			 * results are written once both launches ran */
			Run fwd = run;
			memset(&run, 0, sizeof run);
			if (launch(&fwd, &b, &md, &o) < 0) {
				run_free(&fwd);
				rc = 1;
				goto done;
			}
			if ((rc = makeargs(&run, &md, &md.kernels[k->backward], &b, &o)) != 0) {
				run_free(&fwd);
				goto done;
			}
			finalminmax(&run, &fwd);
			if (o.sandbox && run_guard(&run) < 0) {
				fprintf(stderr, "krun: out of memory\n");
				run_free(&fwd);
				run_free(&run);
				{ rc = 1; goto done; }
			}
			if (launch(&run, &b, &md, &o) < 0)
				rc = 1;
			else
				rc = writeout(&fwd, &md, &o, false) | writeout(&run, &md, &o, true);
			run_free(&fwd);
		} else {
			rc = launch(&run, &b, &md, &o) < 0 ? 1 : writeout(&run, &md, &o, false);
		}
		if (rc == 0 && o.timing)
			rc = timelaunches(&run, &b, &md, &o);
		run_free(&run);
	}
done:
	if (arraystream && (fflush(arraystream) != 0 || ferror(arraystream))) {
		fprintf(stderr, "krun: error writing the arrays to standard output\n");
		rc = 2;
	}
	fflush(stdout);
	if (ferror(stdout)) {
		fprintf(stderr, "krun: error writing standard output\n");
		rc = 2;
	}
	{
		Opt *lists[] = {o.in, o.set, o.shape, o.adj};
		int ns[] = {o.nin, o.nset, o.nshape, o.nadj}, l, j;
		for (l = 0; l < 4; l++) {
			for (j = 0; j < ns[l]; j++)
				free((char *)lists[l][j].name);
			free(lists[l]);
		}
	}
	free(md.cpp);
	if (o.sandbox) {
		/* no exit handlers: the module's, or a leak checker's threads */
		fflush(stderr);
		_exit(rc);
	}
	return rc;
}

/* ---- batch ---------------------------------------------------------- */

/* A module build already loaded by the batch driver, so that each command's
 * child finds it mapped and relocated (dlopen of the same file). */
typedef struct Loaded {
	char *module;
	bool widened, checked;
} Loaded;

static void
preload(Loaded **v, int *n, char **words, int nw)
{
	bool widened = false, checked = true;
	const char *module = NULL;
	char *so, *cached = NULL;
	void *dl;
	int i;

	int opt = 1;

	for (i = 1; i < nw; i++) {
		if (strcmp(words[i], "--gradcheck") == 0 || strcmp(words[i], "-G") == 0 || strcmp(words[i], "--double") == 0)
			widened = true;
		else if (strncmp(words[i], "-O", 2) == 0 && words[i][2] >= '0' && words[i][2] <= '3' && !words[i][3])
			opt = words[i][2] - '0';
		else if (strcmp(words[i], "-O") == 0 && i + 1 < nw && words[i + 1][0] >= '0' && words[i + 1][0] <= '3' &&
		         !words[i + 1][1])
			opt = words[i + 1][0] - '0';
		else if (strcmp(words[i], "--unchecked") == 0)
			checked = false;
		else if (strcmp(words[i], "--sandbox") == 0 || strncmp(words[i], "--sandbox=", 10) == 0)
			return; /* confined before it loads anything */
	}
	if (nw >= 2 && words[1][0] != '-' && endswith(words[1], ".kir") && isfile(words[1])) {
		/* compiled here once (jit.c keeps it); the children inherit the code */
		int saved = dup(2), null = open("/dev/null", O_WRONLY);
		jitopt = opt;
		fflush(stderr);
		if (null >= 0)
			dup2(null, 2); /* a failure is the command's to report */
		(void)jitload(words[1], widened, checked, opt);
		fflush(stderr);
		if (saved >= 0) {
			dup2(saved, 2);
			close(saved);
		}
		if (null >= 0)
			close(null);
		return;
	}
	if (nw < 2 || words[1][0] == '-' || !endswith((module = words[1]), ".cpp") || !isfile(module))
		return;
	for (i = 0; i < *n; i++)
		if (strcmp((*v)[i].module, module) == 0 && (*v)[i].widened == widened && (*v)[i].checked == checked)
			return;
	if (!(so = compile(module, widened, checked, &cached)))
		return; /* the command itself reports it */
	dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	(void)dl; /* kept open: the children share it */
	free(so);
	free(cached);
	*v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
	(*v)[*n].module = xstrdup(module);
	(*v)[*n].widened = widened;
	(*v)[*n].checked = checked;
	(*n)++;
}

/* Point fd at path (O_TRUNC); false when it cannot be opened. */
static bool
redirect(int fd, const char *path)
{
	int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (f < 0)
		return false;
	dup2(f, fd);
	close(f);
	return true;
}

/* A command of a batch file. */
typedef struct Cmd {
	char *words[128];
	int nw;
	char *out, *err;
} Cmd;

/* A krun command that must have a process of its own: --sandbox confines
 * the process for good, --out - re-points standard output, --unchecked
 * code can write anywhere, --time launches for long. */
static bool
needsfork(const Cmd *c)
{
	int i;

	for (i = 1; i < c->nw; i++)
		if (strcmp(c->words[i], "--sandbox") == 0 || strncmp(c->words[i], "--sandbox=", 10) == 0 ||
		    strcmp(c->words[i], "--unchecked") == 0 || strcmp(c->words[i], "--out=-") == 0 ||
		    (strcmp(c->words[i], "--out") == 0 && i + 1 < c->nw && strcmp(c->words[i + 1], "-") == 0) ||
		    (strcmp(c->words[i], "-o") == 0 && i + 1 < c->nw && strcmp(c->words[i + 1], "-") == 0) ||
		    strcmp(c->words[i], "-o-") == 0 || strcmp(c->words[i], "--time") == 0 ||
		    strncmp(c->words[i], "--time=", 7) == 0)
			return true;
	return false;
}

/* Run command c in this process (a compare, a krun run) or in a child of
 * it (needsfork), its standard error to its 2> file or to errfd; returns
 * its exit status. */
static int
batchcmd(Cmd *c, int errfd, int statusfd)
{
	int status;

	fflush(NULL);
	dup2(errfd, 2);
	if (strcmp(c->words[0], "compare") == 0) {
		if (!redirect(1, c->out ? c->out : "/dev/null") || (c->err && !redirect(2, c->err)))
			return 2;
		status = kpy_comparedirs("kpack", c->words[1], c->words[2], strtod(c->words[3], NULL),
		                         strtod(c->words[4], NULL));
	} else if (needsfork(c)) {
		pid_t pid;
		if ((pid = fork()) < 0) {
			fprintf(stderr, "krun: fork: %s\n", strerror(errno));
			return 2;
		}
		if (pid == 0) {
			int r;
			close(statusfd);
			if (!redirect(1, c->out ? c->out : "/dev/null") || (c->err && !redirect(2, c->err)))
				_exit(2);
			optind = 0; /* getopt starts afresh */
			r = krunmain(c->nw, c->words);
			fflush(NULL);
			_exit(r);
		}
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR) {
				fprintf(stderr, "krun: waitpid: %s\n", strerror(errno));
				return 2;
			}
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	} else {
		if (!redirect(1, c->out ? c->out : "/dev/null") || (c->err && !redirect(2, c->err)))
			return 2;
		optind = 0; /* getopt starts afresh */
		status = krunmain(c->nw, c->words);
	}
	fflush(NULL);
	return status;
}

/* --batch FILE: each line a command, words separated by blanks (no
 * quoting), with optional ">FILE" and "2>FILE" words:
 *   krun MODULE ARGS...         a krun run
 *   compare DIR1 DIR2 RTOL ATOL  kpack compare DIR1 DIR2
 * Blank lines and lines starting with '#' are skipped.  Prints each
 * command's exit status (128 + N for a signal N) on its own line.
 *
 * The file is read and checked whole (a bad line: exit 2, nothing run), the
 * module builds its krun commands name are loaded here once (JIT-compiled,
 * or g++-built and dlopened), then one worker process forked from this one
 * runs the commands in order, in process, each into its own files (a fork
 * a command cost more CPU than most runs: the page tables of a process that
 * holds LLVM), and sends each status back.  A command that ends the worker
 * (a crash, a fault handler's exit) gets the worker's exit status, as it
 * got its own child's before, and a fresh worker forked from here goes on
 * with the next command: no command's end costs another its run.  The
 * builds are bounds-checked, so a run cannot write into the next one's
 * memory; the commands that could (--unchecked), that change the process
 * for good (--sandbox, --out -) or run long (--time) get a child of the
 * worker each, as every command did before. */
static int
batch(const char *file)
{
	char *text = readfile(file, NULL), *line, *save = NULL;
	Loaded *loaded = NULL;
	Cmd *cmds = NULL;
	int ncmds = 0, nloaded = 0, lineno = 0, i, rc = 0, next, errfd;

	if (!text) {
		fprintf(stderr, "krun: cannot read %s: %s\n", file, strerror(errno));
		return 2;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *w, *wsave = NULL;
		Cmd c = {0};

		lineno++;
		for (w = strtok_r(line, " \t", &wsave); w; w = strtok_r(NULL, " \t", &wsave)) {
			if (strncmp(w, "2>", 2) == 0)
				c.err = w + 2;
			else if (w[0] == '>')
				c.out = w + 1;
			else if (c.nw < 127)
				c.words[c.nw++] = w;
			else {
				fprintf(stderr, "krun: %s:%d: more than 127 words\n", file, lineno);
				rc = 2;
				goto done;
			}
		}
		c.words[c.nw] = NULL;
		if (c.nw == 0 || c.words[0][0] == '#')
			continue;
		if ((c.out && !*c.out) || (c.err && !*c.err)) {
			fprintf(stderr, "krun: %s:%d: a redirection without a file\n", file, lineno);
			rc = 2;
			goto done;
		}
		if (strcmp(c.words[0], "compare") == 0) {
			char *e1, *e2;
			if (c.nw != 5 || (strtod(c.words[3], &e1), *e1 || e1 == c.words[3]) ||
			    (strtod(c.words[4], &e2), *e2 || e2 == c.words[4])) {
				fprintf(stderr, "krun: %s:%d: compare DIR1 DIR2 RTOL ATOL\n", file, lineno);
				rc = 2;
				goto done;
			}
		} else if (strcmp(c.words[0], "krun") != 0) {
			fprintf(stderr, "krun: %s:%d: unknown command '%s' (krun or compare)\n", file, lineno, c.words[0]);
			rc = 2;
			goto done;
		}
		cmds = xrealloc(cmds, (size_t)(ncmds + 1) * sizeof *cmds);
		cmds[ncmds++] = c;
	}
	for (i = 0; i < ncmds; i++)
		if (strcmp(cmds[i].words[0], "krun") == 0)
			preload(&loaded, &nloaded, cmds[i].words, cmds[i].nw);
	fflush(NULL);
	if ((errfd = dup(2)) < 0) {
		fprintf(stderr, "krun: dup: %s\n", strerror(errno));
		rc = 2;
		goto done;
	}
	for (next = 0; next < ncmds;) {
		int p[2], st, ws;
		ssize_t got;
		pid_t pid;

		fflush(NULL); /* nothing buffered here is written twice */
		if (pipe(p) < 0 || (pid = fork()) < 0) {
			fprintf(stderr, "krun: cannot start a worker: %s\n", strerror(errno));
			rc = 2;
			break;
		}
		if (pid == 0) {
			close(p[0]);
			for (i = next; i < ncmds; i++) {
				st = batchcmd(&cmds[i], errfd, p[1]);
				if (write(p[1], &st, sizeof st) != (ssize_t)sizeof st)
					_exit(2);
			}
			_exit(0);
		}
		close(p[1]);
		while ((got = read(p[0], &st, sizeof st)) == (ssize_t)sizeof st || (got < 0 && errno == EINTR))
			if (got > 0) {
				printf("%d\n", st);
				next++;
			}
		close(p[0]);
		while (waitpid(pid, &ws, 0) < 0)
			if (errno != EINTR) {
				fprintf(stderr, "krun: waitpid: %s\n", strerror(errno));
				rc = 2;
				goto closed;
			}
		if (next < ncmds) {
			/* the command that ended the worker */
			printf("%d\n", WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
			next++;
		}
	}
closed:
	close(errfd);
done:
	for (i = 0; i < nloaded; i++)
		free(loaded[i].module);
	free(loaded);
	free(cmds);
	free(text);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "krun: error writing standard output\n");
		rc = 2;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "--batch") == 0 || strncmp(argv[1], "--batch=", 8) == 0)) {
		const char *file = argv[1][7] == '=' ? argv[1] + 8 : argc == 3 ? argv[2] : NULL;
		if (!file || argc != (argv[1][7] == '=' ? 2 : 3)) {
			fprintf(stderr, "krun: --batch FILE takes no other arguments\n");
			usage(stderr);
			return 2;
		}
		return batch(file);
	}
	return krunmain(argc, argv);
}
