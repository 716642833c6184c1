/*
 * npycmp — compare the .npy files of two directories (test helper).
 *
 *   npycmp [--rtol R] [--atol A] WANT_DIR GOT_DIR
 *
 * Every NAME.npy of WANT_DIR must exist in GOT_DIR with the same dtype and
 * shape; integers and bools must be equal, floats within atol + rtol*|want|
 * (NaN matches NaN, inf the same inf): kpy_compare() of runtime/npy.c.
 * Exit 0 when everything matches (or there is nothing to compare), 1 on a mismatch (a line per file on
 * stderr), 2 on bad usage or an unreadable file.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

int
main(int argc, char **argv)
{
	double rtol = 1e-5, atol = 1e-6;
	const char *want, *got;
	DIR *d;
	struct dirent *e;
	int i = 1, bad = 0;

	while (i + 1 < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "--rtol") == 0)
			rtol = strtod(argv[i + 1], NULL);
		else if (strcmp(argv[i], "--atol") == 0)
			atol = strtod(argv[i + 1], NULL);
		else
			break;
		i += 2;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: npycmp [--rtol R] [--atol A] WANT_DIR GOT_DIR\n");
		return 2;
	}
	want = argv[i];
	got = argv[i + 1];
	if (!(d = opendir(want))) {
		fprintf(stderr, "npycmp: cannot open %s\n", want);
		return 2;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char pw[4096], pg[4096], err[256];
		NpyArray a, b;
		double worst = 0;
		int64_t at = 0, k;
		if (len < 5 || strcmp(e->d_name + len - 4, ".npy") != 0)
			continue;
		snprintf(pw, sizeof pw, "%s/%s", want, e->d_name);
		snprintf(pg, sizeof pg, "%s/%s", got, e->d_name);
		if (npy_read(pw, &a, err, sizeof err) != 0) {
			fprintf(stderr, "npycmp: %s: %s\n", pw, err);
			closedir(d);
			return 2;
		}
		if (npy_read(pg, &b, err, sizeof err) != 0) {
			fprintf(stderr, "npycmp: %s: %s\n", pg, err);
			npy_free(&a);
			bad++;
			continue;
		}
		k = kpy_compare(&b, &a, rtol, atol, &worst, &at, err, sizeof err);
		if (k < 0) {
			fprintf(stderr, "npycmp: %s: %s\n", e->d_name, err);
			bad++;
		} else if (k > 0) {
			fprintf(stderr, "npycmp: %s: %lld of %lld elements differ (worst at %lld: want %.9g, got %.9g)\n",
			        e->d_name, (long long)k, (long long)a.count, (long long)at, kpy_get(a.data, a.dtype, at),
			        kpy_get(b.data, b.dtype, at));
			bad++;
		}
		npy_free(&a);
		npy_free(&b);
	}
	closedir(d);
	return bad ? 1 : 0; /* no arrays at all (a kernel that only prints) is no difference */
}
