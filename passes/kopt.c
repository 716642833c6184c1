/*
 * kopt — read kir, verify it, run a list of passes, write kir.
 *
 *   kopt [-p PASS,...] [-O] [--verify-each] [--print-after=PASS] [-o OUT] [FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static void
usage(FILE *f)
{
	int i;

	fprintf(f,
	        "usage: kopt [options] [FILE]\n"
	        "Read kir (FILE or standard input), verify it, run passes, write kir.\n"
	        "\n"
	        "  -p, --passes=LIST     run the comma-separated passes in order ('O' in the\n"
	        "                        list stands for the default pipeline)\n"
	        "  -O                    run the default pipeline (" KOPT_DEFAULT_PIPELINE ")\n"
	        "      --verify-each     verify the module after every pass\n"
	        "      --print-after=P   print the module to stderr after pass P ('all': every pass)\n"
	        "      --max-unroll=N    largest trip count the unroll pass unrolls (default 16)\n"
	        "      --normalized      print the normalized form (no names, locations or\n"
	        "                        constants: what datasets deduplicate on)\n"
	        "      --dot[=FUNC]      write Graphviz dot of every function (or FUNC) instead\n"
	        "                        of kir: a node per op, a cluster per region, dataflow edges\n"
	        "      --list-passes     list the passes and exit\n"
	        "  -o, --output=FILE     write to FILE (default: standard output)\n"
	        "  -h, --help            show this help\n"
	        "  -V, --version         show the version\n"
	        "\npasses:\n");
	for (i = 0; i < npasses; i++)
		fprintf(f, "  %-10s %s\n", passtab[i].name, passtab[i].doc);
}

int
main(int argc, char **argv)
{
	enum { OPT_VERIFY_EACH = 256, OPT_PRINT_AFTER, OPT_MAX_UNROLL, OPT_LIST, OPT_NORM, OPT_DOT };
	static const struct option longopts[] = {
		{"passes", required_argument, NULL, 'p'},
		{"output", required_argument, NULL, 'o'},
		{"verify-each", no_argument, NULL, OPT_VERIFY_EACH},
		{"print-after", required_argument, NULL, OPT_PRINT_AFTER},
		{"max-unroll", required_argument, NULL, OPT_MAX_UNROLL},
		{"list-passes", no_argument, NULL, OPT_LIST},
		{"normalized", no_argument, NULL, OPT_NORM},
		{"dot", optional_argument, NULL, OPT_DOT},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const PassInfo *pipe[256];
	int npipe = 0, c, i, rc = 0;
	bool verifyeach = false, normalized = false;
	const char *out = NULL, *in = "-", *printafter = NULL, *dot = NULL;
	PassOpts po = {0};
	Diag d;
	Src src = {0};
	Module *m;
	Buf b = {0};
	char *text;

	progname = "kopt";
	po.max_unroll = 16;
	while ((c = getopt_long(argc, argv, "p:o:OhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!addpasses(optarg, pipe, &npipe, 256))
				return 2;
			break;
		case 'O':
			if (!addpasses(KOPT_DEFAULT_PIPELINE, pipe, &npipe, 256))
				return 2;
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_VERIFY_EACH:
			verifyeach = true;
			break;
		case OPT_PRINT_AFTER:
			printafter = optarg;
			break;
		case OPT_MAX_UNROLL: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 1 << 20) {
				fprintf(stderr, "kopt: bad --max-unroll value '%s'\n", optarg);
				return 2;
			}
			po.max_unroll = (int)v;
			break;
		}
		case OPT_DOT:
			dot = optarg ? optarg : "";
			break;
		case OPT_NORM:
			normalized = true;
			break;
		case OPT_LIST:
			for (i = 0; i < npasses; i++)
				printf("%-10s %s\n", passtab[i].name, passtab[i].doc);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("kopt (kpy) %s\n", KPY_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "kopt: one input file at most\n");
		return 2;
	}
	if (optind < argc)
		in = argv[optind];
	if (!(text = readfile(in, &src.len))) {
		fprintf(stderr, "kopt: cannot read %s: %s\n", in, strerror(errno));
		return 1;
	}
	src.name = strcmp(in, "-") == 0 ? "<stdin>" : in;
	src.text = text;
	diaginit(&d);
	po.d = &d;
	po.src = &src;
	if (!(m = parsekir(&src, &d))) {
		free(text);
		return 1;
	}
	if (verify(m, &src, &d)) {
		rc = 1;
		goto done;
	}
	for (i = 0; i < npipe; i++) {
		if (pipe[i]->fn(m, &po) || d.nerr) {
			rc = 1;
			goto done;
		}
		if (verifyeach && verify(m, &src, &d)) {
			fprintf(stderr, "kopt: the module is invalid after pass '%s'\n", pipe[i]->name);
			rc = 2;
			goto done;
		}
		if (printafter && (strcmp(printafter, "all") == 0 || strcmp(printafter, pipe[i]->name) == 0)) {
			Buf t = {0};
			printmod(&t, m);
			fprintf(stderr, "; after %s\n%s", pipe[i]->name, t.s);
			buffree(&t);
		}
	}
	if (dot) {
		int found = 0;

		for (i = 0; i < (int)m->nfuncs; i++)
			if (!*dot || strcmp(dot, m->funcs[i]->name) == 0) {
				printdot(&b, m, m->funcs[i]);
				found++;
			}
		if (*dot && !found) {
			fprintf(stderr, "kopt: --dot=%s: no function of that name\n", dot);
			rc = 1;
			goto done;
		}
	} else if (normalized)
		printnorm(&b, m);
	else
		printmod(&b, m);
	if (writefile(out, b.s, b.n) != 0) {
		fprintf(stderr, "kopt: cannot write %s: %s\n", out ? out : "standard output", strerror(errno));
		rc = 2;
	}
done:
	buffree(&b);
	modfree(m);
	free(text);
	return rc;
}
