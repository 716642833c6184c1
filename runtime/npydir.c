/*
 * npydir.c — compare two folders of .npy arrays (kpack compare, krun's
 * batch mode): every .npy file of the first must be in the second and
 * match it (kpy_compare's rule).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "npydir.h"

int
kpy_comparedirs(const char *who, const char *a, const char *b, double rtol, double atol)
{
	DIR *d = opendir(a);
	struct dirent *e;
	int bad = 0, n = 0;

	if (!d) {
		fprintf(stderr, "%s: cannot open %s: %s\n", who, a, strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char pa[4096], pb[4096], err[256];
		NpyArray x = {0}, y = {0};
		double worst = 0;
		int64_t at = 0, m;
		if (l < 5 || strcmp(e->d_name + l - 4, ".npy") != 0)
			continue;
		snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
		snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
		n++;
		if (npy_read(pa, &x, err, sizeof err) || npy_read(pb, &y, err, sizeof err)) {
			fprintf(stderr, "%s: %s\n", who, err);
			bad++;
		} else if ((m = kpy_compare(&y, &x, rtol, atol, &worst, &at, err, sizeof err)) != 0) {
			if (m < 0)
				fprintf(stderr, "%s: %s: %s\n", who, e->d_name, err);
			else
				fprintf(stderr, "%s: %s: %lld elements differ (first worst at %lld)\n", who, e->d_name,
				        (long long)m, (long long)at);
			bad++;
		}
		npy_free(&x);
		npy_free(&y);
	}
	closedir(d);
	if (n == 0) {
		fprintf(stderr, "%s: no .npy files in %s\n", who, a);
		return 1;
	}
	return bad ? 1 : 0;
}
