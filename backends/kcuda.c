/*
 * kcuda — kir to CUDA C++: extern "C" __global__ kernels with grid-stride
 * loops, optionally a standalone host program and a Makefile.
 *
 *   kcuda [--standalone [--kernel K] [--dim N] [--seed S]] [--makefile[=FILE]]
 *         [--arch sm_NN] [--line-directives] [-o OUT] [FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

#ifndef KPY_INSTALL_INCLUDE
#define KPY_INSTALL_INCLUDE "/usr/local/include"
#endif

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: kcuda [options] [FILE]\n"
	        "Translate kir (FILE or standard input) to CUDA C++ (see kcuda(1)).\n"
	        "\n"
	        "  -o, --output=FILE      write to FILE (default: standard output)\n"
	        "  -g, --line-directives  add #line directives pointing at the Python source\n"
	        "      --standalone       add a host program that runs any kernel of the module\n"
	        "      --kernel=NAME      the kernel it runs by default (default: the first forward one)\n"
	        "      --dim=N[,M..]      its default launch (default 1024)\n"
	        "      --seed=S           its default seed (default 1)\n"
	        "      --makefile[=FILE]  also write a Makefile (default: Makefile next to -o)\n"
	        "      --arch=sm_NN       the Makefile's default architecture (default sm_80)\n"
	        "  -h, --help             show this help\n"
	        "  -V, --version          show the version\n");
}

int
main(int argc, char **argv)
{
	enum { OPT_STANDALONE = 256, OPT_KERNEL, OPT_DIM, OPT_SEED, OPT_MAKEFILE, OPT_ARCH };
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"line-directives", no_argument, NULL, 'g'},
		{"standalone", no_argument, NULL, OPT_STANDALONE},
		{"kernel", required_argument, NULL, OPT_KERNEL},
		{"dim", required_argument, NULL, OPT_DIM},
		{"seed", required_argument, NULL, OPT_SEED},
		{"makefile", optional_argument, NULL, OPT_MAKEFILE},
		{"arch", required_argument, NULL, OPT_ARCH},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	EmitOpts o = {0};
	CudaOpts co = {0};
	const char *out = NULL, *in = "-", *mk = NULL;
	bool makefile = false;
	char *text;
	Module *m;
	Buf b = {0};
	int c, rc = 0;

	progname = "kcuda";
	o.tool = "kcuda";
	o.cuda = true;
	co.seed = 1;
	co.arch = "sm_80";
	co.include = KPY_INSTALL_INCLUDE;
	while ((c = getopt_long(argc, argv, "o:ghV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'g': o.linedirs = true; break;
		case OPT_STANDALONE: co.standalone = true; break;
		case OPT_KERNEL: co.kernel = optarg; break;
		case OPT_DIM: {
			const char *p;
			for (p = optarg; *p; p++)
				if (!((*p >= '0' && *p <= '9') || *p == ','))
					break;
			if (*p || !*optarg) {
				fprintf(stderr, "kcuda: bad --dim '%s' (expected N[,M..])\n", optarg);
				return 2;
			}
			co.dim = optarg;
			break;
		}
		case OPT_SEED: {
			char *end;
			long v = strtol(optarg, &end, 0);
			if (*end || v < 0 || v > 0x7fffffff) {
				fprintf(stderr, "kcuda: bad --seed '%s'\n", optarg);
				return 2;
			}
			co.seed = (int)v;
			break;
		}
		case OPT_MAKEFILE: makefile = true; mk = optarg; break;
		case OPT_ARCH:
			if (strncmp(optarg, "sm_", 3) != 0 || atoi(optarg + 3) < 75) {
				fprintf(stderr, "kcuda: bad --arch '%s' (sm_75 or newer)\n", optarg);
				return 2;
			}
			co.arch = optarg;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("kcuda (kpy) %s\n", KPY_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "kcuda: one input file at most\n");
		return 2;
	}
	if (optind < argc)
		in = argv[optind];
	if (makefile && !mk && (!out || strcmp(out, "-") == 0)) {
		fprintf(stderr, "kcuda: --makefile needs -o FILE (or --makefile=FILE)\n");
		return 2;
	}
	if (!(m = loadkir(in, &text))) {
		free(text);
		return 1;
	}
	if (emitcudacheck(m, &co) < 0) {
		if (co.kernel)
			fprintf(stderr, "kcuda: %s: no kernel named '%s'\n", strcmp(in, "-") ? in : "<stdin>", co.kernel);
		else
			fprintf(stderr, "kcuda: %s: no kernel for the standalone program\n", strcmp(in, "-") ? in : "<stdin>");
		rc = 1;
		goto done;
	}
	emitcuda(m, &o, &co, &b);
	if (writefile(out, b.s, b.n) != 0) {
		fprintf(stderr, "kcuda: cannot write %s: %s\n", out ? out : "standard output", strerror(errno));
		rc = 2;
		goto done;
	}
	if (makefile) {
		/* the .cu's base name, and the Makefile next to it */
		Buf mb = {0}, path = {0};
		const char *cu = out ? out : "kernels.cu", *base = strrchr(cu, '/');
		char name[1024];
		size_t n;
		base = base ? base + 1 : cu;
		n = strlen(base);
		if (n > 3 && strcmp(base + n - 3, ".cu") == 0)
			n -= 3;
		snprintf(name, sizeof name, "%.*s", (int)n, base);
		if (mk) {
			bufputs(&path, mk);
		} else {
			bufwrite(&path, cu, (size_t)(base - cu));
			bufputs(&path, "Makefile");
		}
		emitmakefile(&co, base, name, &mb);
		if (writefile(path.s, mb.s, mb.n) != 0) {
			fprintf(stderr, "kcuda: cannot write %s: %s\n", path.s, strerror(errno));
			rc = 2;
		}
		buffree(&mb);
		buffree(&path);
	}
done:
	buffree(&b);
	modfree(m);
	free(text);
	return rc;
}
