/*
 * kpyc — the Warp-Python frontend: Python files in, one kir module out.
 *
 *   kpyc [-o OUT.kir] [FILE.py...]
 *   kpyc [-p PASS,...] --emit=kir|cuda|cpp [-g] [--standalone] [-o OUT] [FILE.py...]
 *
 * The second form is the whole codegen chain in one process (chain.h):
 * byte for byte `kpyc | kopt -p PASSES | kcuda` (or kcpu).
 */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE, sbrk */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ast.h"
#include "chain.h"

#ifndef KPY_INSTALL_INCLUDE
#define KPY_INSTALL_INCLUDE "/usr/local/include"
#endif

/* The heap in transparent huge pages where the system allows them on
 * request (THP "madvise"): a third of kpyc --emit's CPU time went to page
 * faults, one per 4 KiB page of a heap that grows to megabytes.  glibc
 * extends the heap (brk) by HEAP at once and never gives it back; the
 * part of it on 2 MiB boundaries is advised MADV_HUGEPAGE, so that a page
 * fault there maps 2 MiB.  Nothing is touched here: pages are still
 * faulted in only where they are used.  Skipped where malloc is not the
 * brk heap's (a sanitizer's allocator), or on any failure. */
static void
hugeheap(void)
{
#if defined(MADV_HUGEPAGE) && defined(M_TOP_PAD) && defined(M_TRIM_THRESHOLD)
	enum { HEAP = 64 << 20, HUGE = 2 << 20, BLOCK = 64 << 10 };
	uintptr_t lo, hi;
	void *p, *keep[8];
	int n = 0;

	if (!mallopt(M_TOP_PAD, HEAP) || !mallopt(M_TRIM_THRESHOLD, 2 * HEAP))
		return;
	if (!(p = malloc(1)))
		return;
	/* Where libc allocated before main (a static kpyc), the heap has its
	 * first, small top pad: take blocks (under the mmap threshold) until
	 * malloc extends the heap, by HEAP now. */
	while (n < (int)countof(keep) && (uintptr_t)sbrk(0) - (uintptr_t)p < HEAP / 2 && (keep[n] = malloc(BLOCK)))
		n++;
	lo = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
	hi = (uintptr_t)sbrk(0) & ~(uintptr_t)(HUGE - 1);
	/* p in the brk heap, just below the break */
	if ((uintptr_t)p < (uintptr_t)sbrk(0) && (uintptr_t)sbrk(0) - (uintptr_t)p <= 2 * (uintptr_t)HEAP && lo < hi)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	while (n > 0)
		free(keep[--n]);
	free(p);
#endif
}

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: kpyc [options] [FILE.py...]\n"
	        "Compile the Warp kernels, functions and structs of Python files (or standard\n"
	        "input) into one kir module.\n"
	        "\n"
	        "  -o, --output=FILE     write to FILE (default: standard output)\n"
	        "      --max-unroll=N    Warp's max_unroll, for its dynamic-loop rule, where the\n"
	        "                        module options do not set it (default 16)\n"
	        "      --parse-only      check the syntax only; write nothing\n"
	        "\n"
	        "The codegen chain in one process, as `kpyc | kopt -p LIST | kcuda` writes it:\n"
	        "  -p, --passes=LIST     run kopt's passes on the module ('O': the default\n"
	        "                        pipeline), in memory\n"
	        "      --emit=WHAT       write kir (default), cuda (kcuda's CUDA C++) or cpp\n"
	        "                        (kcpu's C++)\n"
	        "  -g, --line-directives C++: #line directives pointing at the Python source\n"
	        "      --standalone      cuda: add kcuda's host program (its default kernel)\n"
	        "  -h, --help            show this help\n"
	        "  -V, --version         show the version\n");
}

int
main(int argc, char **argv)
{
	enum { OPT_MAX_UNROLL = 256, OPT_PARSE_ONLY, OPT_EMIT, OPT_STANDALONE };
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"passes", required_argument, NULL, 'p'},
		{"emit", required_argument, NULL, OPT_EMIT},
		{"line-directives", no_argument, NULL, 'g'},
		{"standalone", no_argument, NULL, OPT_STANDALONE},
		{"max-unroll", required_argument, NULL, OPT_MAX_UNROLL},
		{"parse-only", no_argument, NULL, OPT_PARSE_ONLY},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL;
	KpycOpts o = {16, false};
	int c, i, n, rc = 0;
	Src *srcs;
	char **texts;
	Diag d;
	Module *m;
	const PassInfo *pipe[256];
	ChainOpts co = {pipe, 0, 16, CHAIN_KIR, false, NULL};
	CudaOpts cuda = {0};
	bool chain = false;

	progname = "kpyc";
#ifdef M_ARENA_MAX
	/* one malloc arena: the frontend runs on its own thread (stack.c),
	 * and what it frees is reused by the passes and the emitter instead of
	 * staying in a second arena while fresh pages are faulted in (a
	 * quarter less memory and page faults for kpyc --emit) */
	mallopt(M_ARENA_MAX, 1);
#endif
	hugeheap();
	cuda.seed = 1;
	cuda.arch = "sm_80";
	cuda.include = KPY_INSTALL_INCLUDE;
	co.co = &cuda;
	while ((c = getopt_long(argc, argv, "o:p:ghV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'p':
			if (!addpasses(optarg, pipe, &co.npipe, 256))
				return 2;
			chain = true;
			break;
		case OPT_EMIT:
			if (strcmp(optarg, "kir") == 0)
				co.emit = CHAIN_KIR;
			else if (strcmp(optarg, "cuda") == 0)
				co.emit = CHAIN_CUDA;
			else if (strcmp(optarg, "cpp") == 0)
				co.emit = CHAIN_CPP;
			else {
				fprintf(stderr, "kpyc: bad --emit '%s' (kir, cuda or cpp)\n", optarg);
				return 2;
			}
			chain = true;
			break;
		case 'g':
			co.linedirs = true;
			break;
		case OPT_STANDALONE:
			cuda.standalone = true;
			break;
		case OPT_MAX_UNROLL: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 1 << 20) {
				fprintf(stderr, "kpyc: bad --max-unroll value '%s'\n", optarg);
				return 2;
			}
			o.max_unroll = co.max_unroll = (int)v;
			break;
		}
		case OPT_PARSE_ONLY:
			o.parse_only = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("kpyc (kpy) %s\n", KPY_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (co.linedirs && co.emit == CHAIN_KIR) {
		fprintf(stderr, "kpyc: -g needs --emit=cuda or --emit=cpp\n");
		return 2;
	}
	if (cuda.standalone && co.emit != CHAIN_CUDA) {
		fprintf(stderr, "kpyc: --standalone needs --emit=cuda\n");
		return 2;
	}
	if (chain && o.parse_only) {
		fprintf(stderr, "kpyc: --parse-only writes nothing: no -p or --emit with it\n");
		return 2;
	}
	n = argc - optind;
	if (n == 0)
		n = 1;
	srcs = xcalloc((size_t)n, sizeof *srcs);
	texts = xcalloc((size_t)n, sizeof *texts);
	for (i = 0; i < n; i++) {
		const char *path = optind < argc ? argv[optind + i] : "-";
		if (!(texts[i] = readfile(path, &srcs[i].len))) {
			fprintf(stderr, "kpyc: cannot read %s: %s\n", path, strerror(errno));
			rc = 1;
			goto done;
		}
		srcs[i].name = strcmp(path, "-") == 0 ? "<stdin>" : path;
		srcs[i].text = texts[i];
	}
	diaginit(&d);
	if (chain) {
		Buf b = {0};
		if (kchain(srcs, n, &co, &d, &b))
			rc = 1;
		else if (writefile(out, b.s ? b.s : "", b.n) != 0) {
			fprintf(stderr, "kpyc: cannot write %s: %s\n", out ? out : "standard output", strerror(errno));
			rc = 2;
		}
		buffree(&b);
		goto done;
	}
	m = kpyc_compile(srcs, n, &d, &o);
	if (!m) {
		rc = 1;
	} else if (!o.parse_only) {
		Buf b = {0};
		printmod(&b, m);
		if (writefile(out, b.s, b.n) != 0) {
			fprintf(stderr, "kpyc: cannot write %s: %s\n", out ? out : "standard output", strerror(errno));
			rc = 2;
		}
		buffree(&b);
	}
	modfree(m);
done:
	for (i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(srcs);
	if (fflush(stdout) != 0 || ferror(stdout))
		fatal("write error on standard output:");
	return rc;
}
