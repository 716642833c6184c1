/*
 * fuzz_kpyc — mutate Python files and compile each mutant with kpyc,
 * in-process, checking that nothing crashes and that every module kpyc
 * accepts is valid kir.
 *
 *   fuzz_kpyc [-n ITERATIONS] [-s SEED] [-o CRASHFILE] FILE.py...
 *
 * Each iteration picks a corpus file and applies one to four mutations:
 * byte flips, byte insertions and deletions, splices of a token-sized
 * chunk from another corpus file, line deletions, duplications and swaps,
 * indentation changes, and insertions of Python keywords and punctuation.
 * The mutant is compiled with kpyc_compile (diagnostics discarded).  When
 * a module comes out it must verify, print, parse back and verify again;
 * a failure is reported and the mutant saved.  Crashes (and sanitizer
 * reports when built with them) stop the program; the mutant being
 * compiled is written to CRASHFILE first.  Deterministic for a seed.
 *
 * Built with --enable-libfuzzer, the same checks run as a libFuzzer
 * target (LLVMFuzzerTestOneInput) instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ast.h"

typedef struct Corpus {
	char **text;
	size_t *len;
	int n;
} Corpus;

static uint64_t rng_state;

static uint64_t
rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static size_t
below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

/* The mutant being compiled, for the crash handlers. */
static const char *cur_text;
static size_t cur_len;
static const char *crashfile = "fuzz-crash.py";
static volatile int compiling;

static void
savecrash(void)
{
	int fd;

	if (!compiling || !cur_text)
		return;
	fd = open(crashfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		ssize_t r = write(fd, cur_text, cur_len);
		(void)r;
		close(fd);
	}
}

static void
onsignal(int sig)
{
	static const char msg[] = "fuzz_kpyc: crashed; the input is in the crash file\n";
	ssize_t r;

	savecrash();
	r = write(2, msg, sizeof msg - 1);
	(void)r;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
onexit(void)
{
	if (compiling) {
		savecrash();
		fprintf(stderr, "fuzz_kpyc: exited while compiling; the input is in %s\n", crashfile);
	}
}

/* Compile one input; returns false if a module came out invalid. */
static bool
check(const char *text, size_t len, FILE *devnull, long iter)
{
	char *buf = xmalloc(len + 1);
	Src src;
	Diag d;
	KpycOpts o = {16, false};
	Module *m;
	bool ok = true;

	memcpy(buf, text, len);
	buf[len] = 0;
	src.name = "fuzz.py";
	src.text = buf;
	src.len = len;
	diaginit(&d);
	d.out = devnull;
	cur_text = buf;
	cur_len = len;
	compiling = 1;
	m = kpyc_compile(&src, 1, &d, &o);
	if (m) {
		Diag vd;
		Buf b = {0}, b2 = {0};
		Src ks;
		Module *m2;
		diaginit(&vd);
		if (verify(m, NULL, &vd)) {
			fprintf(stderr, "fuzz_kpyc: iteration %ld: kpyc produced a module that does not verify\n", iter);
			ok = false;
		}
		printmod(&b, m);
		ks.name = "fuzz.kir";
		ks.text = b.s;
		ks.len = b.n;
		if (ok && !(m2 = parsekir(&ks, &vd))) {
			fprintf(stderr, "fuzz_kpyc: iteration %ld: kpyc's output does not parse back\n", iter);
			ok = false;
		} else if (ok) {
			if (verify(m2, &ks, &vd)) {
				fprintf(stderr, "fuzz_kpyc: iteration %ld: kpyc's output does not verify once parsed\n", iter);
				ok = false;
			}
			printmod(&b2, m2);
			if (ok && (b.n != b2.n || memcmp(b.s, b2.s, b.n) != 0)) {
				fprintf(stderr, "fuzz_kpyc: iteration %ld: kpyc's output does not print back the same\n", iter);
				ok = false;
			}
			modfree(m2);
		}
		buffree(&b);
		buffree(&b2);
		modfree(m);
	}
	compiling = 0;
	free(buf);
	return ok;
}

#ifdef KPY_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!check((const char *)data, size, devnull, 0))
		abort();
	return 0;
}
#else

static const char *const dict[] = {
	"def ", "class ", "@wp.kernel\n", "@wp.func\n", "@wp.struct\n", "if ", "elif ", "else:", "for ",
	"while ", " in range(", "return ", "break", "continue", "pass", "lambda ", "(", ")", "[", "]",
	"{", "}", ":", ",", ".", "=", "+=", "-=", "*", "**", "//", "%", "@", "<", "<=", "==", "!=", " and ",
	" or ", "not ", "wp.tid()", "wp.vec3(", "wp.mat33(", "wp.array(dtype=float)", "float(", "int(",
	"1.0", "0", "-1", "1e30", "0x7fffffff", "\"s\"", "'''", "\\\n", "\n", "\t", "    ", "#", "i", "x",
	"a[i]", "wp.randf(state)", "wp.atomic_add(", "yield ", "None", "True", "...", "*a", "f\"{x}\"",
	"import warp as wp\n", "from warp import ", "wp.constant(", "wp.types.vector(length=", "Any",
};

static void
mutate(Buf *b, const Corpus *c)
{
	size_t n = b->n, i, j, k;
	char *s = b->s;

	switch (below(10)) {
	case 0: /* flip a byte */
		if (n)
			s[below(n)] ^= (char)(1u << below(8));
		break;
	case 1: /* insert a random byte */
		i = below(n + 1);
		bufputc(b, 0);
		s = b->s;
		memmove(s + i + 1, s + i, n - i);
		s[i] = (char)below(256);
		if (!s[i])
			s[i] = ' ';
		break;
	case 2: /* delete a span */
		if (n) {
			i = below(n);
			k = 1 + below(16);
			if (i + k > n)
				k = n - i;
			memmove(s + i, s + i + k, n - i - k);
			b->n -= k;
			s[b->n] = 0;
		}
		break;
	case 3: { /* splice a chunk of another file */
		int f = (int)below((size_t)c->n);
		size_t len = c->len[f], from, cnt;
		if (!len)
			break;
		from = below(len);
		cnt = 1 + below(64);
		if (from + cnt > len)
			cnt = len - from;
		i = below(n + 1);
		{
			Buf t = {0};
			bufwrite(&t, s, i);
			bufwrite(&t, c->text[f] + from, cnt);
			bufwrite(&t, s + i, n - i);
			buffree(b);
			*b = t;
		}
		break;
	}
	case 4: /* delete a line */
	case 5: /* duplicate a line */
	case 6: /* reindent a line */
	case 7: { /* swap two lines */
		size_t ls, le, l2s, l2e;
		if (!n)
			break;
		i = below(n);
		for (ls = i; ls > 0 && s[ls - 1] != '\n'; ls--)
			;
		for (le = i; le < n && s[le] != '\n'; le++)
			;
		if (le < n)
			le++;
		{
			Buf t = {0};
			bufwrite(&t, s, ls);
			switch (rnd() % 4) {
			case 0:
				break; /* deleted */
			case 1:
				bufwrite(&t, s + ls, le - ls);
				bufwrite(&t, s + ls, le - ls);
				break;
			case 2: {
				size_t sp = ls;
				while (sp < le && (s[sp] == ' ' || s[sp] == '\t'))
					sp++;
				for (k = below(13); k > 0; k--)
					bufputc(&t, ' ');
				bufwrite(&t, s + sp, le - sp);
				break;
			}
			default:
				j = below(n);
				for (l2s = j; l2s > 0 && s[l2s - 1] != '\n'; l2s--)
					;
				for (l2e = j; l2e < n && s[l2e] != '\n'; l2e++)
					;
				if (l2e < n)
					l2e++;
				bufwrite(&t, s + l2s, l2e - l2s);
				break;
			}
			bufwrite(&t, s + le, n - le);
			buffree(b);
			*b = t;
		}
		break;
	}
	default: { /* insert a token from the dictionary */
		const char *w = dict[below(countof(dict))];
		Buf t = {0};
		i = below(n + 1);
		bufwrite(&t, s, i);
		bufputs(&t, w);
		bufwrite(&t, s + i, n - i);
		buffree(b);
		*b = t;
		break;
	}
	}
	if (!b->s)
		bufputs(b, "");
}

int
main(int argc, char **argv)
{
	long iters = 1000, i, bad = 0;
	uint64_t seed = 1;
	Corpus c = {0};
	FILE *devnull;
	int opt, f;

	progname = "fuzz_kpyc";
	while ((opt = getopt(argc, argv, "n:s:o:")) != -1) {
		switch (opt) {
		case 'n':
			iters = strtol(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'o':
			crashfile = optarg;
			break;
		default:
			fprintf(stderr, "usage: fuzz_kpyc [-n ITERATIONS] [-s SEED] [-o CRASHFILE] FILE.py...\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "fuzz_kpyc: no corpus files\n");
		return 2;
	}
	c.n = argc - optind;
	c.text = xcalloc((size_t)c.n, sizeof *c.text);
	c.len = xcalloc((size_t)c.n, sizeof *c.len);
	for (f = 0; f < c.n; f++)
		if (!(c.text[f] = readfile(argv[optind + f], &c.len[f])))
			fatal("cannot read %s:", argv[optind + f]);
	if (!(devnull = fopen("/dev/null", "w")))
		fatal("open /dev/null:");
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	signal(SIGSEGV, onsignal);
	signal(SIGBUS, onsignal);
	signal(SIGFPE, onsignal);
	signal(SIGILL, onsignal);
	signal(SIGABRT, onsignal);
	atexit(onexit);
	/* the corpus itself first */
	for (f = 0; f < c.n; f++)
		if (!check(c.text[f], c.len[f], devnull, -1))
			bad++;
	for (i = 0; i < iters; i++) {
		Buf b = {0};
		int nm = 1 + (int)below(4), k;
		f = (int)below((size_t)c.n);
		bufwrite(&b, c.text[f], c.len[f]);
		if (!b.s)
			bufputs(&b, "");
		for (k = 0; k < nm; k++)
			mutate(&b, &c);
		if (!check(b.s, b.n, devnull, i)) {
			char name[64];
			FILE *o;
			snprintf(name, sizeof name, "fuzz-fail-%ld.py", i);
			if ((o = fopen(name, "w"))) {
				fwrite(b.s, 1, b.n, o);
				fclose(o);
				fprintf(stderr, "fuzz_kpyc: the input is in %s\n", name);
			}
			bad++;
		}
		buffree(&b);
	}
	for (f = 0; f < c.n; f++)
		free(c.text[f]);
	free(c.text);
	free(c.len);
	fclose(devnull);
	printf("fuzz_kpyc: %ld iterations (seed %llu), %ld failure%s\n", iters, (unsigned long long)seed, bad,
	       bad == 1 ? "" : "s");
	return bad ? 1 : 0;
}
#endif
