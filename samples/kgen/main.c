/* kgen: options, output files, the loop over kernels.
 *
 * Exit status: 0 success, 1 an output could not be written, 2 bad usage or an internal
 * error (a kernel failing kgen's own checks is an internal error).  -o FILE is written
 * to FILE.tmp and renamed, so a failure never leaves a half-written FILE; in -o DIR
 * mode each kernel file is written the same way. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "kgen.h"

static const char usage_text[] =
	"usage: kgen [--seed S] [--count N] [--start I] [--category C,...] [--depth D]\n"
	"            [--stmts K] [--loops L] [--unique-names] [-o DIR/|FILE]\n"
	"       kgen --list | --help | --version\n";

static const char help_text[] =
	"Write random, valid, race-free NVIDIA Warp kernels (one module per kernel),\n"
	"with their metadata, a one-sentence description and a harness that runs them.\n"
	"\n"
	"  --seed S          run seed (default 1)\n"
	"  --count N         number of kernels (default 1)\n"
	"  --start I         index of the first kernel (default 0); kernel I is the same\n"
	"                    whatever --count and --start, so runs can be sharded\n"
	"  --category C,...  draw only from these categories (default: all, by weight)\n"
	"  --depth D         expression depth (default 3)\n"
	"  --stmts K         statements per kernel body before dead-code removal (default 8)\n"
	"  --loops L         most loops per kernel (default 3)\n"
	"  -o DIR/           per kernel, STEM = k<seed>_<index, 6 digits>: STEM.py (the module),\n"
	"                    STEM.meta (key value lines), STEM.harness.py (runs the module)\n"
	"                    (DIR exists or ends in /)\n"
	"  -o FILE           the modules, each after a '# kgen: ...' line (default: standard output)\n"
	"  --unique-names    kernel, struct and helper names carry the kernel index, so that\n"
	"                    concatenated modules are also one valid module\n"
	"  --list            print the categories: name, weight, description\n"
	"  --help, --version\n";

static _Noreturn void
usage(const char *fmt, const char *arg)
{
	fputs("kgen: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	fputs(usage_text, stderr);
	exit(2);
}

static uint64_t
parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		usage("%s needs a non-negative integer", opt);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		usage("bad value for %s", opt);
	return (uint64_t)v;
}

static unsigned long long
parse_categories(char *list)
{
	unsigned long long mask = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = category_find(tok);

		if (c < 0)
			usage("unknown category '%s' (see kgen --list)", tok);
		mask |= 1ull << c;
	}
	if (!mask)
		usage("%s", "--category needs at least one name");
	return mask;
}

/* Write text to path through path.tmp and rename. 0 on success. */
static int
write_file(const char *path, const char *text, size_t n)
{
	size_t len = strlen(path);
	char *tmp = xmalloc(len + 5);
	FILE *f;
	int bad;

	memcpy(tmp, path, len);
	memcpy(tmp + len, ".tmp", 5);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "kgen: open %s: %s\n", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	bad = fwrite(text, 1, n, f) != n;
	bad |= fflush(f) != 0;
	bad |= ferror(f) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		fprintf(stderr, "kgen: write %s: %s\n", path, strerror(errno ? errno : EIO));
		remove(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
main(int argc, char **argv)
{
	Options o;
	const char *out = NULL;
	uint64_t start = 0, i;
	bool dirmode = false;
	FILE *outf = stdout;
	char *tmp = NULL;
	int a;

	progname = "kgen";
	memset(&o, 0, sizeof o);
	o.seed = 1;
	o.count = 1;
	o.depth = 3;
	o.stmts = 8;
	o.loops = 3;
	o.catmask = (1ull << ncategories) - 1;

	for (a = 1; a < argc; a++) {
		char *arg = argv[a], *val = NULL, *eq;
		char name[32];

#define NEXT() (val ? val : (a + 1 < argc ? argv[++a] : (usage("%s needs a value", arg), (char *)NULL)))
		if (!strncmp(arg, "--", 2) && (eq = strchr(arg, '=')) && (size_t)(eq - arg) < sizeof name) {
			memcpy(name, arg, (size_t)(eq - arg));
			name[eq - arg] = 0;
			val = eq + 1;
			arg = name;
		}
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			fputs(usage_text, stdout);
			fputs("\n", stdout);
			fputs(help_text, stdout);
			goto done;
		} else if (!strcmp(arg, "--version")) {
			puts("kgen (kpy) " KGEN_VERSION);
			goto done;
		} else if (!strcmp(arg, "--list")) {
			int c;

			for (c = 0; c < ncategories; c++)
				printf("%-18s %2d  %s\n", categories[c].name, categories[c].weight, categories[c].desc);
			goto done;
		} else if (!strcmp(arg, "--seed")) {
			o.seed = parse_u64("--seed", NEXT(), 0, UINT64_MAX);
		} else if (!strcmp(arg, "--count")) {
			o.count = parse_u64("--count", NEXT(), 0, 100000000);
		} else if (!strcmp(arg, "--start")) {
			start = parse_u64("--start", NEXT(), 0, 999999999999ull);
		} else if (!strcmp(arg, "--category")) {
			o.catmask = parse_categories(NEXT());
		} else if (!strcmp(arg, "--depth")) {
			o.depth = (int)parse_u64("--depth", NEXT(), 1, 6);
		} else if (!strcmp(arg, "--stmts")) {
			o.stmts = (int)parse_u64("--stmts", NEXT(), 1, 40);
		} else if (!strcmp(arg, "--loops")) {
			o.loops = (int)parse_u64("--loops", NEXT(), 0, 8);
		} else if (!strcmp(arg, "--unique-names")) {
			if (val)
				usage("%s takes no value", "--unique-names");
			o.unique = true;
		} else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
			out = NEXT();
		} else {
			usage("unknown argument '%s'", arg);
		}
#undef NEXT
	}
	if (out && !strcmp(out, "-"))
		out = NULL;
	if (out && (out[strlen(out) - 1] == '/' || is_dir(out))) {
		dirmode = true;
		if (!is_dir(out) && mkdir(out, 0777) != 0) {
			fprintf(stderr, "kgen: mkdir %s: %s\n", out, strerror(errno));
			return 1;
		}
	}

	if (out && !dirmode) {
		tmp = xmalloc(strlen(out) + 5);
		strcpy(tmp, out);
		strcat(tmp, ".tmp");
		outf = fopen(tmp, "w");
		if (!outf) {
			fprintf(stderr, "kgen: open %s: %s\n", tmp, strerror(errno));
			return 1;
		}
	}
	for (i = start; i < start + o.count; i++) {
		Arena *A = arena_new();
		Kernel *k = gen_kernel(A, &o, i);
		Buf err = { 0 }, text = { 0 };

		if (check_kernel(k, &err)) {
			fprintf(stderr, "kgen: internal error: kernel seed=%llu index=%llu (%s) fails kgen's checks:\n%s",
				(unsigned long long)o.seed, (unsigned long long)i, k->category, err.s ? err.s : "");
			emit_module(k, &text);
			fputs(text.s, stderr);
			if (tmp)
				remove(tmp);
			return 2;
		}
		if (dirmode) {
			const char *sep = out[strlen(out) - 1] == '/' ? "" : "/";
			char *stem = aprintf(A, "k%llu_%06llu", (unsigned long long)o.seed, (unsigned long long)i);
			char *module = aprintf(A, "%s.py", stem);
			Buf meta = { 0 }, harness = { 0 };
			int bad;

			emit_module(k, &text);
			emit_meta(k, module, &meta);
			emit_harness(k, module, &harness);
			bad = write_file(aprintf(A, "%s%s%s", out, sep, module), text.s, text.n) ||
			      write_file(aprintf(A, "%s%s%s.meta", out, sep, stem), meta.s, meta.n) ||
			      write_file(aprintf(A, "%s%s%s.harness.py", out, sep, stem), harness.s, harness.n);
			buffree(&meta);
			buffree(&harness);
			if (bad)
				return 1;
		} else {
			emit_header(k, &text);
			emit_module(k, &text);
			if (fwrite(text.s, 1, text.n, outf) != text.n) {
				fprintf(stderr, "kgen: write %s: %s\n", tmp ? tmp : "standard output", strerror(errno));
				if (tmp)
					remove(tmp);
				return 1;
			}
		}
		buffree(&text);
		buffree(&err);
		arena_free(A);
	}
	if (tmp) {
		int bad = fflush(outf) != 0;

		bad |= ferror(outf) != 0;
		bad |= fclose(outf) != 0;
		if (bad || rename(tmp, out) != 0) {
			fprintf(stderr, "kgen: write %s: %s\n", out, strerror(errno ? errno : EIO));
			remove(tmp);
			return 1;
		}
		free(tmp);
	}
done:
	fflush(stdout);
	if (ferror(stdout)) {
		fprintf(stderr, "kgen: write error on standard output\n");
		return 1;
	}
	return 0;
}
