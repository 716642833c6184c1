/*
 * npytool — the tests' .npy helper (no numpy needed):
 *   npytool make FILE DTYPE SHAPE V...          write an array
 *   npytool check FILE DTYPE SHAPE RTOL ATOL V... compare (exit 1 if not equal)
 *   npytool print FILE                           dtype, shape and values
 * DTYPE is a kir scalar name (f32, i32, bool ...); SHAPE is "4" or "4,3"
 * ("-" for a 0-d array); values are numbers, inf, -inf, nan, true, false.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

static const char *const kirname[] = {
	"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64",
};

static int
dtype(const char *s)
{
	int i;

	for (i = 0; i <= KPY_F64; i++)
		if (strcmp(s, kirname[i]) == 0)
			return i;
	fprintf(stderr, "npytool: unknown dtype %s\n", s);
	exit(2);
}

static int
shape(const char *s, int64_t *sh)
{
	int n = 0;

	if (strcmp(s, "-") == 0)
		return 0;
	while (*s) {
		char *e;
		sh[n++] = strtoll(s, &e, 10);
		s = *e == ',' ? e + 1 : e;
		if (e == s && *s) {
			fprintf(stderr, "npytool: bad shape\n");
			exit(2);
		}
	}
	return n;
}

static double
value(const char *s)
{
	if (strcmp(s, "true") == 0)
		return 1;
	if (strcmp(s, "false") == 0)
		return 0;
	if (strcmp(s, "nan") == 0)
		return NAN;
	if (strcmp(s, "inf") == 0)
		return INFINITY;
	if (strcmp(s, "-inf") == 0)
		return -INFINITY;
	return strtod(s, NULL);
}

static void
fill(NpyArray *a, char **v, int n)
{
	int64_t i;

	if (n != a->count) {
		fprintf(stderr, "npytool: %d values for %lld elements\n", n, (long long)a->count);
		exit(2);
	}
	for (i = 0; i < n; i++) {
		if (a->dtype == KPY_I64)
			((int64_t *)a->data)[i] = strtoll(v[i], NULL, 0);
		else if (a->dtype == KPY_U64)
			((uint64_t *)a->data)[i] = strtoull(v[i], NULL, 0);
		else
			kpy_set(a->data, a->dtype, i, value(v[i]));
	}
}

int
main(int argc, char **argv)
{
	NpyArray a, w;
	int64_t sh[8];
	int nd;
	char err[512];

	if (argc >= 5 && strcmp(argv[1], "make") == 0) {
		nd = shape(argv[4], sh);
		npy_alloc(&a, dtype(argv[3]), nd, sh);
		fill(&a, argv + 5, argc - 5);
		if (npy_write(argv[2], &a, err, sizeof err) < 0) {
			fprintf(stderr, "npytool: %s\n", err);
			npy_free(&a);
			return 1;
		}
		npy_free(&a);
		return 0;
	}
	if (argc >= 7 && strcmp(argv[1], "check") == 0) {
		double worst;
		int64_t at, bad;
		if (npy_read(argv[2], &a, err, sizeof err) < 0) {
			fprintf(stderr, "npytool: %s: %s\n", argv[2], err);
			return 1;
		}
		nd = shape(argv[4], sh);
		npy_alloc(&w, dtype(argv[3]), nd, sh);
		fill(&w, argv + 7, argc - 7);
		bad = kpy_compare(&a, &w, strtod(argv[5], NULL), strtod(argv[6], NULL), &worst, &at, err, sizeof err);
		if (bad > 0)
			fprintf(stderr, "npytool: %s: %lld of %lld elements differ; first worst at %lld: %.9g, expected %.9g\n",
			        argv[2], (long long)bad, (long long)a.count, (long long)at, kpy_get(a.data, a.dtype, at),
			        kpy_get(w.data, w.dtype, at));
		npy_free(&a);
		npy_free(&w);
		if (bad < 0) {
			fprintf(stderr, "npytool: %s: %s\n", argv[2], err);
			return 1;
		}
		return bad > 0;
	}
	if (argc == 3 && strcmp(argv[1], "print") == 0) {
		char s[256];
		int64_t i;
		if (npy_read(argv[2], &a, err, sizeof err) < 0) {
			fprintf(stderr, "npytool: %s: %s\n", argv[2], err);
			return 1;
		}
		npy_shapestr(&a, s, sizeof s);
		printf("%s %s", kirname[a.dtype], s);
		for (i = 0; i < a.count; i++)
			printf(" %.9g", kpy_get(a.data, a.dtype, i));
		printf("\n");
		npy_free(&a);
		return 0;
	}
	fprintf(stderr, "usage: npytool make|check|print ...\n");
	return 2;
}
