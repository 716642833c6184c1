/*
 * mutate.c — a deterministic mutation fuzzer over the kpy tools, each run
 * a process of its own.
 *
 *   mutate [-s SEED] [-v] [-e] -b BINDIR -w WORKDIR [-f FAILDIR]
 *          { -t TOOL -n N [-x ARG]... FILE... }...
 *
 * For each -t group: N times, pick one of the FILEs (the seeds), apply one
 * to four mutations (byte flips, inserted/deleted/duplicated spans, lines
 * deleted, duplicated, swapped or re-indented, tokens of the tool's
 * language, splices from another seed, numbers replaced by edge values),
 * write it to WORKDIR and run the tool on it with flags drawn from a
 * per-tool list.  TOOL is kpyc, kopt, kcpu, kcuda, kptx, kpack (kpack
 * validate on a mutated record) or krun (-x MODULE -x KERNEL -x ARRAY
 * -x DIM, the FILEs .npy files of ARRAY's size at launch DIM: a mutated
 * .npy for ARRAY, or mutated launch flags on generated data).
 *
 * The tools' mains are linked into mutate (tests/fuzz/main-TOOL.c): each
 * run forks mutate and calls the tool's main in the child with the same
 * argv (argv[0] BINDIR/TOOL), standard streams and time limit as a
 * process exec'd from BINDIR would get.  That saves the exec, the dynamic
 * linking (kptx: LLVM) and the sanitizer runtime's start, most of a run's
 * time; each run still starts from the same untouched state, in a process
 * of its own.  -e execs the binaries in BINDIR instead.
 *
 * Every run must end in exit 0, 1 or 2, with no signal, within 5 seconds,
 * with no sanitizer report on stderr; a run that exits 1 must say where:
 * "FILE:LINE:COL: error:" (or "FILE:LINE: error:"), or at least the
 * tool's name and the input's name; a run that fails must leave
 * no -o file behind.  A failing input is copied to FAILDIR with a note of
 * the command and what was wrong.  Exit status: 0 when every run passed,
 * 1 otherwise, 2 on bad usage.  Deterministic for a seed: the inputs and
 * flags depend on nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HANG_SECONDS 5

static const char *bindir, *workdir, *faildir;
static int verbose;

/* The tools' mains (tests/fuzz/main-TOOL.c). */
int kpyc_main(int argc, char **argv);
int kopt_main(int argc, char **argv);
int kcpu_main(int argc, char **argv);
int kcuda_main(int argc, char **argv);
int kptx_main(int argc, char **argv);
int krun_main(int argc, char **argv);
int kpack_main(int argc, char **argv);
static const struct {
	const char *tool;
	int (*main)(int argc, char **argv);
} mains[] = {
	{"kpyc", kpyc_main}, {"kopt", kopt_main}, {"kcpu", kcpu_main}, {"kcuda", kcuda_main},
	{"kptx", kptx_main}, {"krun", krun_main}, {"kpack", kpack_main},
};
static int (*toolmain)(int argc, char **argv); /* the group's tool; NULL: exec it */
static bool execmode;                          /* -e */
static long nruns, nfail, bystatus[4];

static uint64_t
rnd(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t
below(uint64_t *s, size_t n)
{
	return n ? (size_t)(rnd(s) % n) : 0;
}

static void *
xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n ? n : 1))) {
		fprintf(stderr, "mutate: out of memory\n");
		exit(2);
	}
	return p;
}

/* A growable byte string. */
typedef struct Str {
	char *s;
	size_t n, cap;
} Str;

static void
reserve(Str *b, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = 2 * (b->n + n + 1);
		b->s = xrealloc(b->s, b->cap);
	}
}

static void
put(Str *b, const char *s, size_t n)
{
	reserve(b, n);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void
puts0(Str *b, const char *s)
{
	put(b, s, strlen(s));
}

/* Replace b->s[at, at+del) by s[0, n). */
static void
splice(Str *b, size_t at, size_t del, const char *s, size_t n)
{
	reserve(b, n);
	memmove(b->s + at + n, b->s + at + del, b->n - at - del);
	memcpy(b->s + at, s, n);
	b->n = b->n - del + n;
	b->s[b->n] = 0;
}

static char *
readall(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	Str b = {0};
	char tmp[65536];
	size_t k;

	if (!f)
		return NULL;
	while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
		put(&b, tmp, k);
	fclose(f);
	if (!b.s)
		puts0(&b, "");
	*len = b.n;
	return b.s;
}

static void
writeall(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(s, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "mutate: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

/* ------------------------------------------------------------------ */
/* Mutations                                                           */

static const char *const pydict[] = {
	"def ", "class ", "@wp.kernel\n", "@wp.func\n", "@wp.struct\n", "if ", "elif ", "else:", "for ", "while ",
	" in range(", "return ", "break", "continue", "pass", "(", ")", "[", "]", ":", ",", ".", "=", "+=", "*",
	"**", "//", "%", "<", "==", " and ", " or ", "not ", "wp.tid()", "wp.vec3(", "wp.mat33(", "float(",
	"int(", "1.0", "0", "-1", "1e30", "\"s\"", "\\\n", "\n", "\t", "    ", "#", "x", "a[i]", "wp.atomic_add(",
	"None", "True", "wp.array(dtype=float)", "wp.sin(", "lambda ", "yield ",
};
static const char *const kirdict[] = {
	"%x", "%0", "%1", "@k", "@f", "{", "}", "(", ")", "[", "]", ",", ":", "=", "->", "\n", " ", "yield",
	"break", "continue", "ret", "if", "else", "for", "while", "do", "to", "step", "call @f", "tid", "load",
	"store", "add", "mul", "div", "where", "field", "f32", "f64", "i32", "u8", "bool", "vec3f", "mat33f",
	"array<f32,1>", "array<vec3f,4>", "vec<5,f32>", "@S", "struct", "kernel", "func", "0", "-1", "1.5",
	"inf", "nan", "true", "\"s\"", "; loc 1:2", "2147483648", "f64(1e308)", "u8(256)", "i32(-2147483648)",
	"vec3f(1.0, 2.0, 3.0)", "kir 1\n", "adjoint", "atomic_add", "print", "select", "extract 7",
};
static const char *const jsondict[] = {
	"{", "}", "[", "]", ",", ":", "\"", "null", "true", "false", "0", "-1", "1e999", "\"\"", "\"pass\"",
	"\"skip: x\"", "\"fail\"", "\"id\"", "\"meta\"", "\"checks\"", "\"dim\"", "\"cpp\"", "\"cuda\"",
	"\"forward\"", "\"split\"", "\"train\"", "\"kir_hash\"", "\"ops\"", "\"lines\"", "\\u0000", "\\",
	"[1,2,3,4,5]", "{}", "[]", "\n",
};
static const char *const numbers[] = {
	"0", "-1", "1", "2147483647", "2147483648", "-2147483649", "4294967296", "9223372036854775808",
	"99999999999999999999999", "1e309", "-1e309", "1e-320", "0.0", "-0.0", "nan", "inf", "65536", "255",
	"256", "100000000",
};

typedef struct Seeds {
	char **text;
	size_t *len;
	int n;
} Seeds;

static bool
isword(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '%' ||
	       c == '@' || c == '.';
}

/* One mutation of b; dict: the tool's tokens; text: line structure. */
static void
mutate1(Str *b, uint64_t *s, const char *const *dict, size_t ndict, const Seeds *sd, bool text)
{
	size_t n = b->n, i = below(s, n + 1), k;
	char c;

	switch (below(s, text ? 13 : 6)) {
	case 0: /* flip a bit */
		if (n)
			b->s[below(s, n)] ^= (char)(1u << below(s, 8));
		break;
	case 1: /* a random byte */
		c = (char)below(s, 256);
		splice(b, i, 0, &c, 1);
		break;
	case 2: /* delete a span */
		k = 1 + below(s, 32);
		if (i + k > n)
			k = n - i;
		splice(b, i, k, "", 0);
		break;
	case 3: { /* duplicate a span */
		size_t at = below(s, n + 1);
		k = 1 + below(s, 64);
		if (i + k > n)
			k = n - i;
		{
			char *t = xrealloc(NULL, k + 1);
			memcpy(t, b->s + i, k);
			splice(b, at, 0, t, k);
			free(t);
		}
		break;
	}
	case 4: { /* splice a chunk of another seed */
		int f = (int)below(s, (size_t)sd->n);
		size_t from = below(s, sd->len[f] + 1), cnt = 1 + below(s, 80);
		if (from + cnt > sd->len[f])
			cnt = sd->len[f] - from;
		splice(b, i, 0, sd->text[f] + from, cnt);
		break;
	}
	case 5: /* a token of the language */
	case 6: {
		const char *w = dict[below(s, ndict)];
		splice(b, i, 0, w, strlen(w));
		break;
	}
	case 11: /* a word replaced by another word of the input */
	case 12: { /* ... or by a token of the language */
		size_t ws, we, os, oe;
		for (ws = i; ws < n && !isword(b->s[ws]); ws++)
			;
		for (we = ws; we < n && isword(b->s[we]); we++)
			;
		if (ws >= n)
			break;
		if (below(s, 2)) {
			const char *w = dict[below(s, ndict)];
			splice(b, ws, we - ws, w, strlen(w));
			break;
		}
		for (os = below(s, n); os < n && !isword(b->s[os]); os++)
			;
		for (oe = os; oe < n && isword(b->s[oe]); oe++)
			;
		if (os < n) {
			char *t = xrealloc(NULL, oe - os + 1);
			memcpy(t, b->s + os, oe - os);
			splice(b, ws, we - ws, t, oe - os);
			free(t);
		}
		break;
	}
	case 7: { /* a number replaced by an edge value */
		size_t j, e;
		for (j = i; j < n && !(b->s[j] >= '0' && b->s[j] <= '9'); j++)
			;
		for (e = j; e < n && ((b->s[e] >= '0' && b->s[e] <= '9') || b->s[e] == '.'); e++)
			;
		if (j < n) {
			const char *w = numbers[below(s, sizeof numbers / sizeof *numbers)];
			splice(b, j, e - j, w, strlen(w));
		}
		break;
	}
	default: { /* line: delete, duplicate, re-indent, swap */
		size_t ls, le, l2s, l2e;
		if (!n)
			break;
		i = below(s, n);
		for (ls = i; ls > 0 && b->s[ls - 1] != '\n'; ls--)
			;
		for (le = i; le < n && b->s[le] != '\n'; le++)
			;
		if (le < n)
			le++;
		switch (below(s, 4)) {
		case 0:
			splice(b, ls, le - ls, "", 0);
			break;
		case 1: {
			char *t = xrealloc(NULL, le - ls + 1);
			memcpy(t, b->s + ls, le - ls);
			splice(b, le, 0, t, le - ls);
			free(t);
			break;
		}
		case 2: {
			size_t sp = ls;
			static const char spaces[] = "             ";
			while (sp < le && (b->s[sp] == ' ' || b->s[sp] == '\t'))
				sp++;
			splice(b, ls, sp - ls, spaces, below(s, sizeof spaces));
			break;
		}
		default: {
			char *t;
			size_t j = below(s, n);
			for (l2s = j; l2s > 0 && b->s[l2s - 1] != '\n'; l2s--)
				;
			for (l2e = j; l2e < n && b->s[l2e] != '\n'; l2e++)
				;
			if (l2e < n)
				l2e++;
			/* copy line 2 over line 1 (a swap where they differ) */
			t = xrealloc(NULL, l2e - l2s + 1);
			memcpy(t, b->s + l2s, l2e - l2s);
			splice(b, ls, le - ls, t, l2e - l2s);
			free(t);
			break;
		}
		}
	}
	}
}

/* ------------------------------------------------------------------ */
/* Running a tool                                                      */

static char errpath[4096];

#if defined(__SANITIZE_ADDRESS__)
#define KPY_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KPY_LSAN 1
#endif
#endif
#ifdef KPY_LSAN
#include <sanitizer/lsan_interface.h>
size_t __sanitizer_get_current_allocated_bytes(void); /* allocator_interface.h */
#endif

/* The leak check the sanitizer runs at exit (a leak: a report on stderr,
 * exit status 23), in a child that called a tool's main; at0: the
 * allocator's bytes in use before the call.  When every byte the run
 * allocated was freed (in use as before) nothing can have leaked and the
 * check (stopping the process, scanning its memory: 10 ms a run, most of a
 * run's time) is skipped.  That holds unless the run also freed exactly
 * as many bytes allocated before it started: the tools free none of
 * mutate's memory; only LLVM's static data (kptx) could be. */
static void
leakcheck(size_t at0)
{
#ifdef KPY_LSAN
	if (__sanitizer_get_current_allocated_bytes() != at0)
		__lsan_do_leak_check();
#else
	(void)at0;
#endif
}

/* The allocator's bytes in use (0 without the sanitizers). */
static size_t
inuse(void)
{
#ifdef KPY_LSAN
	return __sanitizer_get_current_allocated_bytes();
#else
	return 0;
#endif
}

/* Run argv with stdout to /dev/null, stderr to errpath, at most
 * HANG_SECONDS: toolmain in a forked child, or argv[0] exec'd.  Returns
 * the wait status, or -1 when it was killed for taking too long. */
static int
runcmd(char **argv)
{
	sigset_t set, old;
	struct timespec ts = {HANG_SECONDS, 0};
	pid_t pid;
	int st, sig;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	fflush(NULL); /* the child must not write out mutate's buffers again */
	pid = fork();
	if (pid < 0) {
		perror("mutate: fork");
		exit(2);
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		int ef = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		sigprocmask(SIG_SETMASK, &old, NULL);
		setpgid(0, 0); /* a hang is killed with what it started (krun's compiler) */
		if (fd < 0 || ef < 0)
			_exit(126);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(ef, 2);
		close(fd);
		close(ef);
		if (toolmain) {
			int argc = 0, rc;
			size_t at0 = inuse();
			while (argv[argc])
				argc++;
			rc = toolmain(argc, argv);
			/* what exit does for a tool (none registers atexit
			 * handlers), less the static destructors of the libraries
			 * mutate links (LLVM's: a millisecond a run); a tool that
			 * calls exit itself gets all of it */
			fflush(NULL);
			leakcheck(at0);
			_exit(rc);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGCHLD && waitpid(pid, &st, WNOHANG) == pid)
			break;
		if (sig < 0 && errno == EAGAIN) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			sigprocmask(SIG_SETMASK, &old, NULL);
			return -1;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return st;
}

static void
fail(const char *tool, long it, char **argv, const char *in, const char *why, const char *err)
{
	char path[4096], *p;
	FILE *f;
	int i;
	size_t n;

	nfail++;
	fprintf(stderr, "mutate: %s #%ld: %s:", tool, it, why);
	for (i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
	if (err && *err)
		fprintf(stderr, "  stderr: %.400s\n", err);
	if (!faildir)
		return;
	mkdir(faildir, 0755);
	p = strrchr(in, '.');
	snprintf(path, sizeof path, "%s/%s-%ld%s", faildir, tool, it, p ? p : "");
	if ((p = readall(in, &n))) {
		writeall(path, p, n);
		free(p);
	}
	snprintf(path, sizeof path, "%s/%s-%ld.txt", faildir, tool, it);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%s\n", why);
		for (i = 0; argv[i]; i++)
			fprintf(f, "%s ", argv[i]);
		fprintf(f, "\n%s", err ? err : "");
		fclose(f);
	}
}

/* Did a run that exited 1 say where?  "FILE:LINE:COL: error:" or
 * "FILE:LINE: error:" (FILE the input, or the Python source a kir
 * location points into), or at least "TOOL: " and the input's name. */
static bool
located(const char *err, const char *tool, const char *in)
{
	const char *p, *q;
	char t[64];
	int k;

	for (p = strstr(err, ": error:"); p; p = strstr(p + 1, ": error:")) {
		q = p;
		for (k = 0; k < 2; k++) {
			const char *e = q;
			while (q > err && q[-1] >= '0' && q[-1] <= '9')
				q--;
			if (q == e || q == err || q[-1] != ':') {
				q = NULL;
				break;
			}
			q--;
			if (k == 0 && !(q > err && q[-1] >= '0' && q[-1] <= '9'))
				break; /* FILE:LINE: error: */
		}
		if (q && q > err && q[-1] != '\n' && q[-1] != ' ')
			return true;
	}
	snprintf(t, sizeof t, "%s: ", tool);
	return strstr(err, t) && strstr(err, in);
}

/* Run one mutant; out: the -o file (NULL: none); in: what the
 * message of an error must name. */
static void
check(const char *tool, long it, char **argv, const char *in, const char *out, const char *named)
{
	int st, rc;
	size_t n = 0;
	char *err;
	struct stat sb;

	if (out)
		unlink(out);
	st = runcmd(argv);
	nruns++;
	err = readall(errpath, &n);
	if (!err)
		err = calloc(1, 1);
	if (st == -1) {
		fail(tool, it, argv, in, "ran longer than 5 s", err);
	} else if (WIFSIGNALED(st)) {
		char why[64];
		snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(st));
		fail(tool, it, argv, in, why, err);
	} else if (strstr(err, "Sanitizer") || strstr(err, "runtime error")) {
		fail(tool, it, argv, in, "sanitizer report", err);
	} else if ((rc = WEXITSTATUS(st)) > 2) {
		char why[64];
		snprintf(why, sizeof why, "exit status %d", rc);
		fail(tool, it, argv, in, why, err);
	} else {
		bystatus[rc]++;
		if (rc == 1 && !located(err, tool, named))
			fail(tool, it, argv, in, "exit 1 without a located error naming the input", err);
		else if (rc != 0 && out && stat(out, &sb) == 0)
			fail(tool, it, argv, in, "the -o file is left after a failure", err);
		else if (verbose)
			fprintf(stderr, "mutate: %s #%ld: exit %d\n", tool, it, rc);
	}
	free(err);
}

/* ------------------------------------------------------------------ */
/* Tools                                                               */

typedef struct Group {
	const char *tool;
	long n;
	char **x;      /* -x arguments */
	int nx;
	Seeds sd;
} Group;

static const char *
pick(uint64_t *s, const char *const *v, size_t n)
{
	return v[below(s, n)];
}
#define PICK(s, v) pick(s, v, sizeof v / sizeof *v)

/* Add the space-separated words of flags to argv. */
static int
addflags(char **argv, int argc, char *buf, const char *flags)
{
	char *p;

	snprintf(buf, 512, "%s", flags);
	for (p = strtok(buf, " "); p; p = strtok(NULL, " "))
		argv[argc++] = p;
	return argc;
}

static void
rungroup(const Group *g, uint64_t seed)
{
	static const char *const koptf[] = {"-O", "-p ad,O", "-p inline,unroll,scalarize", "-p fold,dce",
	                                    "--verify-each -p ad,O", "-p noescape,forward", "-p backward",
	                                    "--max-unroll=3 -p unroll", "-p scalarize"};
	static const char *const kcpuf[] = {"", "-g"};
	static const char *const kcudaf[] = {"", "-g", "--standalone", "--standalone --dim=7,3 --seed=5"};
	static const char *const kptxf[] = {"--target=host", "--emit=ll", "-O 0 --target=host", "--emit=ptx -O 1"};
	static const char *const kpycf[] = {"", "--max-unroll=2"};
	const char *const *dict;
	size_t ndict;
	bool text = true;
	long it;
	size_t ti;
	char in[4096], out[4096], tool[4096], flagbuf[512];
	const char *ext;

	if (strcmp(g->tool, "kpyc") == 0) {
		dict = pydict, ndict = sizeof pydict / sizeof *pydict, ext = ".py";
	} else if (strcmp(g->tool, "kpack") == 0) {
		dict = jsondict, ndict = sizeof jsondict / sizeof *jsondict, ext = ".jsonl";
	} else if (strcmp(g->tool, "krun") == 0) {
		dict = numbers, ndict = sizeof numbers / sizeof *numbers, ext = ".npy", text = false;
	} else {
		dict = kirdict, ndict = sizeof kirdict / sizeof *kirdict, ext = ".kir";
	}
	snprintf(in, sizeof in, "%s/in%s", workdir, ext);
	snprintf(out, sizeof out, "%s/out", workdir);
	snprintf(tool, sizeof tool, "%s/%s", bindir, g->tool);
	toolmain = NULL;
	for (ti = 0; !execmode && ti < sizeof mains / sizeof *mains; ti++)
		if (strcmp(mains[ti].tool, g->tool) == 0)
			toolmain = mains[ti].main;
	for (it = 0; it < g->n; it++) {
		uint64_t s = seed * 0x100000001b3ull ^ (uint64_t)it * 0x9e3779b97f4a7c15ull;
		int f, k, nm, argc = 0;
		Str b = {0};
		char *argv[32];
		const char *named = in;

		for (k = 0; g->tool[k]; k++)
			s = s * 31 + (unsigned char)g->tool[k];
		rnd(&s);
		f = (int)below(&s, (size_t)g->sd.n);
		put(&b, g->sd.text[f], g->sd.len[f]);
		argv[argc++] = tool;
		if (strcmp(g->tool, "krun") == 0) {
			/* -x MODULE -x KERNEL -x ARRAY -x DIM: half the runs a mutated .npy
			 * for ARRAY (the data or its tail only: the header's shape
			 * stays, so the array is as long as the launch needs), half
			 * mutated launch flags on generated data */
			/* (no launch of more dimensions than the kernel's arrays:
			 * krun sizes arrays by the first extents and does not yet
			 * check the kernel's indices; issue 19, item 10) */
			static const char *const dims[] = {"1", "7", "64", "0", "1,1", "100000", "-1", "2147483648",
			                                   "4,0", "abc", "5,", "", "1,1,1,1,1"};
			static const char *const seeds[] = {"0", "1", "-1", "18446744073709551616", "x"};
			static char d[64], sflag[64], inflag[4200], setflag[128];
			argv[argc++] = g->x[0];
			argv[argc++] = "-q";
			argv[argc++] = "--kernel";
			if (below(&s, 8)) {
				argv[argc++] = g->x[1];
			} else {
				argv[argc++] = "nosuchkernel";
				named = g->x[0];
			}
			snprintf(out, sizeof out, "%s/outdir", workdir);
			argv[argc++] = "-o";
			argv[argc++] = out;
			if (below(&s, 2)) {
				size_t hdr = 0, j;
				/* the data starts after the header's '\n' */
				for (j = 0; j < b.n; j++)
					if (b.s[j] == '\n') {
						hdr = j + 1;
						break;
					}
				nm = 1 + (int)below(&s, 3);
				for (k = 0; k < nm && b.n > hdr; k++) {
					size_t at = hdr + below(&s, b.n - hdr);
					switch (below(&s, 3)) {
					case 0: b.s[at] ^= (char)(1u << below(&s, 8)); break;
					case 1: b.s[at] = (char)0xff; break;
					default: b.n = at; break; /* truncated */
					}
				}
				writeall(in, b.s, b.n);
				snprintf(inflag, sizeof inflag, "--in=%s=%s", g->x[2], in);
				argv[argc++] = inflag;
				snprintf(d, sizeof d, "--dim=%s", g->x[3]);
				argv[argc++] = d;
			} else {
				const char *dm = PICK(&s, dims);
				snprintf(d, sizeof d, "--dim=%s", dm);
				argv[argc++] = d;
				if (below(&s, 3) == 0) {
					snprintf(sflag, sizeof sflag, "--seed=%s", PICK(&s, seeds));
					argv[argc++] = sflag;
				}
				if (below(&s, 3) == 0) {
					snprintf(setflag, sizeof setflag, "--set=%s=%s", below(&s, 2) ? g->x[2] : "nosuch",
					         PICK(&s, numbers));
					argv[argc++] = setflag;
				}
				if (below(&s, 4) == 0)
					argv[argc++] = "--backward";
				if (named == in)
					named = "krun";
			}
			argv[argc] = NULL;
			{
				/* the output folder is fresh for each run */
				char cmd[4200];
				snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
				if (system(cmd) != 0)
					exit(2);
			}
			check(g->tool, it, argv, in, NULL, named);
			free(b.s);
			continue;
		}
		/* one mutation half the time: most inputs then get past the parser */
		nm = below(&s, 2) ? 1 : 1 + (int)below(&s, 4);
		for (k = 0; k < nm; k++)
			mutate1(&b, &s, dict, ndict, &g->sd, text);
		writeall(in, b.s, b.n);
		if (strcmp(g->tool, "kpack") == 0) {
			argv[argc++] = "validate";
			argv[argc++] = in;
			argv[argc] = NULL;
			check(g->tool, it, argv, in, NULL, in);
			free(b.s);
			continue;
		}
		if (strcmp(g->tool, "kpyc") == 0)
			argc = addflags(argv, argc, flagbuf, PICK(&s, kpycf));
		else if (strcmp(g->tool, "kopt") == 0)
			argc = addflags(argv, argc, flagbuf, PICK(&s, koptf));
		else if (strcmp(g->tool, "kcpu") == 0)
			argc = addflags(argv, argc, flagbuf, PICK(&s, kcpuf));
		else if (strcmp(g->tool, "kcuda") == 0)
			argc = addflags(argv, argc, flagbuf, PICK(&s, kcudaf));
		else if (strcmp(g->tool, "kptx") == 0)
			argc = addflags(argv, argc, flagbuf, PICK(&s, kptxf));
		argv[argc++] = "-o";
		argv[argc++] = out;
		argv[argc++] = in;
		argv[argc] = NULL;
		check(g->tool, it, argv, in, out, in);
		free(b.s);
	}
}

static void
usage(void)
{
	fprintf(stderr, "usage: mutate [-s SEED] [-v] [-e] -b BINDIR -w WORKDIR [-f FAILDIR] "
	                "{-t TOOL -n N [-x ARG]... FILE...}...\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	uint64_t seed = 1;
	Group g[16];
	int ng = 0, i, j;

	memset(g, 0, sizeof g);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool arg = i + 1 < argc;
		if (strcmp(a, "-s") == 0 && arg)
			seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(a, "-v") == 0)
			verbose = 1;
		else if (strcmp(a, "-e") == 0)
			execmode = true;
		else if (strcmp(a, "-b") == 0 && arg)
			bindir = argv[++i];
		else if (strcmp(a, "-w") == 0 && arg)
			workdir = argv[++i];
		else if (strcmp(a, "-f") == 0 && arg)
			faildir = argv[++i];
		else if (strcmp(a, "-t") == 0 && arg && ng < 16)
			g[ng++].tool = argv[++i];
		else if (strcmp(a, "-n") == 0 && arg && ng)
			g[ng - 1].n = atol(argv[++i]);
		else if (strcmp(a, "-x") == 0 && arg && ng) {
			g[ng - 1].x = xrealloc(g[ng - 1].x, (size_t)(g[ng - 1].nx + 1) * sizeof(char *));
			g[ng - 1].x[g[ng - 1].nx++] = argv[++i];
		} else if (a[0] == '-' || !ng) {
			usage();
		} else {
			Group *p = &g[ng - 1];
			int k = p->sd.n++;
			p->sd.text = xrealloc(p->sd.text, (size_t)p->sd.n * sizeof(char *));
			p->sd.len = xrealloc(p->sd.len, (size_t)p->sd.n * sizeof(size_t));
			if (!(p->sd.text[k] = readall(a, &p->sd.len[k]))) {
				fprintf(stderr, "mutate: cannot read %s: %s\n", a, strerror(errno));
				return 2;
			}
		}
	}
	if (!bindir || !workdir || !ng)
		usage();
	for (i = 0; i < ng; i++)
		if (!g[i].sd.n || (strcmp(g[i].tool, "krun") == 0 && g[i].nx < 4)) {
			fprintf(stderr, "mutate: -t %s needs seed files%s\n", g[i].tool,
			        strcmp(g[i].tool, "krun") == 0 ? " and -x MODULE -x KERNEL -x ARRAY -x DIM" : "");
			return 2;
		}
	snprintf(errpath, sizeof errpath, "%s/stderr", workdir);
	{
		/* stdout's buffer, which a child that prints shares, is not
		 * allocated by the child (bytes in use as before: see leakcheck) */
		static char obuf[BUFSIZ];
		setvbuf(stdout, obuf, isatty(1) ? _IOLBF : _IOFBF, sizeof obuf);
	}
	for (i = 0; i < ng; i++) {
		long before = nfail, r0 = nruns;
		rungroup(&g[i], seed);
		printf("mutate: %s: %ld inputs, %ld failure%s\n", g[i].tool, nruns - r0, nfail - before,
		       nfail - before == 1 ? "" : "s");
	}
	printf("mutate: %ld runs (exit 0: %ld, 1: %ld, 2: %ld), %ld failure%s\n", nruns, bystatus[0],
	       bystatus[1], bystatus[2], nfail, nfail == 1 ? "" : "s");
	for (i = 0; i < ng; i++) {
		for (j = 0; j < g[i].sd.n; j++)
			free(g[i].sd.text[j]);
		free(g[i].sd.text);
		free(g[i].sd.len);
		free(g[i].x);
	}
	return nfail ? 1 : 0;
}
