/*
 * kirfuzz.c — fuzz target for the kir parser, verifier, passes and printer.
 *
 * Property checked on every input: parsing never crashes; when the input
 * parses and verifies, kcpu's and kcuda's emitters take it, fold,cse,dce
 * keep it valid, and the printed text re-parses and prints to the same
 * bytes (canonical form is a fixed point); then inline, unroll, ad and
 * scalarize either report an error or leave a module that verifies and
 * emits.
 *
 * Built two ways: with clang -fsanitize=fuzzer (configure --enable-libfuzzer)
 * LLVMFuzzerTestOneInput is driven by libFuzzer; otherwise main() below is a
 * deterministic mutation driver over a corpus (used by make check):
 *   kirfuzz [-n ITERATIONS] [-s SEED] CORPUS-FILES...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "passes.h"
#include "emit.h"

static FILE *devnull;
static long nparsed, nvalid; /* inputs that parse, that also verify */

/* Both back ends' C++ for m (thrown away: only crashes matter). */
static void
emitboth(const Module *m)
{
	EmitOpts eo = {false, true, "kcpu"};
	CudaOpts co = {0};
	Buf b = {0};

	emitcpu(m, &eo, &b);
	b.n = 0;
	eo.cuda = true;
	eo.tool = "kcuda";
	co.seed = 1;
	co.arch = "sm_80";
	co.include = "/usr/include";
	if (emitcudacheck(m, &co) == 0)
		emitcuda(m, &eo, &co, &b);
	buffree(&b);
}

/* Run pass fn; when it reports nothing the module must stay valid. */
static void
runpass(Module *m, const char *name, PassOpts *po, const char *text, size_t len)
{
	const PassInfo *p = findpass(name, strlen(name));

	if (p->fn(m, po) != 0)
		return;
	if (verify(m, po->src, po->d) != 0)
		die("%s broke a valid module:\n%.*s", name, (int)len, text);
}

static void
check(const char *text, size_t len)
{
	Src src = {"<fuzz>", text, len};
	Diag d;
	Module *m, *m2;
	PassOpts po = {0};
	Buf a = {0}, b = {0};
	Src src2;

	diaginit(&d);
	d.out = devnull;
	po.d = &d;
	po.src = &src;
	po.max_unroll = 16;
	if (!(m = parsekir(&src, &d)))
		return;
	nparsed++;
	if (verify(m, &src, &d) == 0) {
		nvalid++;
		emitboth(m);
		fold(m, &po);
		cse(m, &po);
		dce(m, &po);
		if (verify(m, &src, &d) != 0)
			die("passes broke a valid module:\n%.*s", (int)len, text);
		printmod(&a, m);
		src2.name = "<printed>";
		src2.text = a.s;
		src2.len = a.n;
		if (!(m2 = parsekir(&src2, &d)))
			die("printed module does not parse:\n%s", a.s);
		printmod(&b, m2);
		if (a.n != b.n || memcmp(a.s, b.s, a.n) != 0)
			die("printing is not a fixed point:\n%s\n----\n%s", a.s, b.s);
		modfree(m2);
		runpass(m, "inline", &po, text, len);
		runpass(m, "unroll", &po, text, len);
		runpass(m, "ad", &po, text, len);
		emitboth(m);
		runpass(m, "scalarize", &po, text, len);
	}
	modfree(m);
	buffree(&a);
	buffree(&b);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = xmalloc(size + 1);

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		devnull = stderr;
	memcpy(text, data, size);
	text[size] = 0;
	check(text, size);
	free(text);
	return 0;
}

#ifndef KPY_LIBFUZZER
static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Fragments worth splicing in: tokens of the language and edge cases. */
static const char *const frag[] = {
	"%x", "%0", "@k", "{", "}", "(", ")", "[", "]", ",", ":", "=", "->", "\n", " ",
	"yield", "break", "continue", "ret", "if", "else", "for", "while", "do", "iter(",
	"to", "step", "call", "tid", "load", "store", "add", "mul", "where", "field",
	"f32", "i32", "vec3f", "mat33f", "array<f32,1>", "vec<5,f32>", "@S", "struct",
	"kernel", "func", "0", "-1", "1.5", "inf", "nan", "-inf", "true", "\"s\"", "; loc 1:2",
	"2147483648", "f64(1e308)", "u8(256)", "vec3f(1.0, 2.0, 3.0)", "\x00", "\xff",
};

static size_t
mutate(char *buf, size_t len, size_t cap, uint64_t *s)
{
	int k, nmut = 1 + (int)(rnd(s) % 4);

	for (k = 0; k < nmut; k++) {
		size_t pos = len ? rnd(s) % len : 0;
		switch (rnd(s) % 5) {
		case 0: /* flip a byte */
			if (len)
				buf[pos] = (char)(rnd(s) & 0xff);
			break;
		case 1: /* delete a run */
			if (len) {
				size_t n = 1 + rnd(s) % 16;
				if (pos + n > len)
					n = len - pos;
				memmove(buf + pos, buf + pos + n, len - pos - n);
				len -= n;
			}
			break;
		case 2: { /* insert a fragment */
			const char *f = frag[rnd(s) % countof(frag)];
			size_t n = strlen(f) ? strlen(f) : 1;
			if (len + n < cap) {
				memmove(buf + pos + n, buf + pos, len - pos);
				memcpy(buf + pos, f, n);
				len += n;
			}
			break;
		}
		case 3: { /* duplicate a line */
			size_t a = pos, b;
			while (a > 0 && buf[a - 1] != '\n')
				a--;
			for (b = pos; b < len && buf[b] != '\n'; b++)
				;
			if (b < len)
				b++;
			if (len + (b - a) < cap) {
				memmove(buf + b + (b - a), buf + b, len - b);
				memcpy(buf + b, buf + a, b - a);
				len += b - a;
			}
			break;
		}
		default: { /* swap two bytes */
			size_t q = len ? rnd(s) % len : 0;
			if (len) {
				char t = buf[pos];
				buf[pos] = buf[q];
				buf[q] = t;
			}
		}
		}
	}
	return len;
}

int
main(int argc, char **argv)
{
	long iters = 1000;
	uint64_t seed = 1;
	int i, nfiles = 0;
	char *files[512];
	size_t lens[512];
	long it;

	progname = "kirfuzz";
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		devnull = stderr;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			iters = atol(argv[++i]);
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (nfiles < 512) {
			if (!(files[nfiles] = readfile(argv[i], &lens[nfiles])))
				fatal("cannot read %s:", argv[i]);
			check(files[nfiles], lens[nfiles]);
			nfiles++;
		}
	}
	if (!nfiles) {
		fprintf(stderr, "usage: kirfuzz [-n ITERATIONS] [-s SEED] CORPUS-FILES...\n");
		return 2;
	}
	for (it = 0; it < iters; it++) {
		uint64_t s = seed * 1000003u + (uint64_t)it;
		int f = (int)(rnd(&s) % (uint64_t)nfiles);
		size_t cap = lens[f] * 2 + 256;
		char *buf = xmalloc(cap + 1);
		size_t len;
		memcpy(buf, files[f], lens[f]);
		len = mutate(buf, lens[f], cap, &s);
		buf[len] = 0;
		check(buf, len);
		free(buf);
	}
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	printf("kirfuzz: %ld mutated inputs from %d files (%ld parsed, %ld valid), no failure\n", iters, nfiles,
	       nparsed, nvalid);
	return 0;
}
#endif
