/*
 * kcpu — kir to C++ for the CPU, with the fixed C ABI krun loads.
 *
 *   kcpu [--line-directives] [-o OUT] [FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: kcpu [options] [FILE]\n"
	        "Translate kir (FILE or standard input) to C++ for the CPU: one function per\n"
	        "kernel, an extern \"C\" entry point kpy_launch_NAME per kernel and the kernel\n"
	        "table krun reads (see kcpu(1)).\n"
	        "\n"
	        "  -o, --output=FILE      write to FILE (default: standard output)\n"
	        "  -g, --line-directives  add #line directives pointing at the Python source\n"
	        "  -h, --help             show this help\n"
	        "  -V, --version          show the version\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"line-directives", no_argument, NULL, 'g'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	EmitOpts o = {0};
	const char *out = NULL, *in = "-";
	char *text;
	Module *m;
	Buf b = {0};
	int c, rc = 0;

	progname = "kcpu";
	o.tool = "kcpu";
	while ((c = getopt_long(argc, argv, "o:ghV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'g': o.linedirs = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("kcpu (kpy) %s\n", KPY_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "kcpu: one input file at most\n");
		return 2;
	}
	if (optind < argc)
		in = argv[optind];
	if (!(m = loadkir(in, &text))) {
		free(text);
		return 1;
	}
	emitcpu(m, &o, &b);
	if (writefile(out, b.s, b.n) != 0) {
		fprintf(stderr, "kcpu: cannot write %s: %s\n", out ? out : "standard output", strerror(errno));
		rc = 2;
	}
	buffree(&b);
	modfree(m);
	free(text);
	return rc;
}
