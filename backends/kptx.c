/*
 * kptx — low kir to PTX through LLVM's NVPTX back end, or to a host object
 * with kcpu's ABI (the same lowering, for checking it numerically).
 *
 *   kptx [--target=nvptx|host] [--arch=sm_XX] [--emit=ptx|ll|obj]
 *        [--libdevice=PATH] [-O N] [--fmad=on|off] [--fast-math] [-o OUT] [FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "kptx.h"

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: kptx [options] [FILE]\n"
	        "Compile low kir (FILE or standard input; lower it with kopt -p scalarize)\n"
	        "to PTX through LLVM's NVPTX back end, or to a host object with kcpu's ABI.\n"
	        "\n"
	        "      --target=T        nvptx (default) or host\n"
	        "      --arch=sm_XX      the GPU architecture (default sm_80)\n"
	        "      --emit=K          ptx (default for nvptx), ll (LLVM IR after the\n"
	        "                        pipeline) or obj (default for host; host only)\n"
	        "      --libdevice=PATH  libdevice.10.bc (default: $KPY_LIBDEVICE, else\n"
	        "                        %s)\n"
	        "  -O N                  optimization level 0..3: default<ON> (default 1\n"
	        "                        for nvptx, 3 for host)\n"
	        "      --fmad=on|off     contract a*b+c into fma (default: on for nvptx, as\n"
	        "                        nvcc; off for host, as kcpu)\n"
	        "      --fast-math       nvptx: as nvcc's --use_fast_math (flush f32 denormals\n"
	        "                        to zero, approximate sqrt, division, sin, cos, exp,\n"
	        "                        log, pow); default: IEEE sqrt.rn and div.rn\n"
	        "      --time            print the wall and CPU time of each phase on stderr\n"
	        "  -o, --output=FILE     write to FILE (default: standard output)\n"
	        "  -h, --help            show this help\n"
	        "  -V, --version         show the version\n",
	        KPY_LIBDEVICE[0] ? KPY_LIBDEVICE : "none configured");
}

int
main(int argc, char **argv)
{
	enum { OPT_TARGET = 256, OPT_ARCH, OPT_EMIT, OPT_LIBDEVICE, OPT_FMAD, OPT_FAST, OPT_TIME };
	static const struct option longopts[] = {
		{"target", required_argument, NULL, OPT_TARGET},
		{"arch", required_argument, NULL, OPT_ARCH},
		{"emit", required_argument, NULL, OPT_EMIT},
		{"libdevice", required_argument, NULL, OPT_LIBDEVICE},
		{"fmad", required_argument, NULL, OPT_FMAD},
		{"fast-math", no_argument, NULL, OPT_FAST},
		{"time", no_argument, NULL, OPT_TIME},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	KptxOpts o = {0};
	const char *out = NULL, *in = "-", *emit = NULL, *fmad = NULL;
	Src src = {0};
	Diag d;
	Module *m;
	Buf b = {0};
	char *text;
	int c, rc = 0;

	progname = "kptx";
	o.target = KPTX_NVPTX;
	o.arch = "sm_80";
	o.optlevel = -1; /* not given: 1 for nvptx, 3 for host */
	o.libdevice = getenv("KPY_LIBDEVICE");
	if (!o.libdevice || !*o.libdevice)
		o.libdevice = KPY_LIBDEVICE;
	while ((c = getopt_long(argc, argv, "o:O:hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_TARGET:
			if (strcmp(optarg, "nvptx") == 0 || strcmp(optarg, "ptx") == 0)
				o.target = KPTX_NVPTX;
			else if (strcmp(optarg, "host") == 0)
				o.target = KPTX_HOST;
			else {
				fprintf(stderr, "kptx: unknown target '%s' (nvptx or host)\n", optarg);
				return 2;
			}
			break;
		case OPT_ARCH: {
			const char *p = optarg;
			if (strncmp(p, "sm_", 3) != 0 || !p[3] || strspn(p + 3, "0123456789") < 2 ||
			    strspn(p + 3, "0123456789") + 3 < strlen(p) - (p[strlen(p) - 1] == 'a')) {
				fprintf(stderr, "kptx: bad --arch '%s' (sm_XX, e.g. sm_80)\n", optarg);
				return 2;
			}
			o.arch = optarg;
			break;
		}
		case OPT_EMIT:
			emit = optarg;
			break;
		case OPT_LIBDEVICE:
			o.libdevice = optarg;
			break;
		case OPT_FMAD:
			fmad = optarg;
			if (strcmp(fmad, "on") != 0 && strcmp(fmad, "off") != 0) {
				fprintf(stderr, "kptx: bad --fmad '%s' (on or off)\n", optarg);
				return 2;
			}
			break;
		case OPT_FAST:
			o.fastmath = true;
			break;
		case OPT_TIME:
			o.timing = true;
			break;
		case 'O':
			if (!optarg[0] || optarg[1] || optarg[0] < '0' || optarg[0] > '3') {
				fprintf(stderr, "kptx: bad -O '%s' (0 to 3)\n", optarg);
				return 2;
			}
			o.optlevel = optarg[0] - '0';
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("kptx (kpy) %s\n", KPY_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (o.optlevel < 0)
		o.optlevel = KPTX_OPTLEVEL(o.target == KPTX_HOST);
	o.emit = o.target == KPTX_HOST ? EMIT_OBJ : EMIT_PTX;
	if (emit) {
		if (strcmp(emit, "ptx") == 0)
			o.emit = EMIT_PTX;
		else if (strcmp(emit, "ll") == 0)
			o.emit = EMIT_LL;
		else if (strcmp(emit, "obj") == 0)
			o.emit = EMIT_OBJ;
		else {
			fprintf(stderr, "kptx: unknown --emit '%s' (ptx, ll or obj)\n", emit);
			return 2;
		}
	}
	if (o.target == KPTX_HOST && o.emit == EMIT_PTX) {
		fprintf(stderr, "kptx: --emit=ptx needs --target=nvptx\n");
		return 2;
	}
	if (o.target == KPTX_NVPTX && o.emit == EMIT_OBJ) {
		fprintf(stderr, "kptx: --emit=obj needs --target=host (assemble PTX with ptxas)\n");
		return 2;
	}
	if (o.target == KPTX_HOST && o.fastmath) {
		fprintf(stderr, "kptx: --fast-math needs --target=nvptx\n");
		return 2;
	}
	o.fmad = fmad ? strcmp(fmad, "on") == 0 : o.target == KPTX_NVPTX;
	o.verify = true;
	if (optind + 1 < argc) {
		fprintf(stderr, "kptx: one input file at most\n");
		return 2;
	}
	if (optind < argc)
		in = argv[optind];
	if (!(text = readfile(in, &src.len))) {
		fprintf(stderr, "kptx: cannot read %s: %s\n", in, strerror(errno));
		return 1;
	}
	src.name = strcmp(in, "-") == 0 ? "<stdin>" : in;
	src.text = text;
	diaginit(&d);
	o.d = &d;
	o.src = &src;
	if (!(m = parsekir(&src, &d))) {
		free(text);
		return 1;
	}
	if (verify(m, &src, &d) || kptxcompile(m, &o, &b) || d.nerr) {
		rc = 1;
		goto done;
	}
	if (writefile(out, b.s, b.n) != 0) {
		fprintf(stderr, "kptx: cannot write %s: %s\n", out ? out : "standard output", strerror(errno));
		rc = 2;
	}
done:
	buffree(&b);
	modfree(m);
	free(text);
	if (fflush(stdout) != 0 || ferror(stdout))
		fatal("write error on standard output:");
	return rc;
}
