/*
 * registry.c — the table of passes (from passes.def) and lookup by name.
 */
#include <stdio.h>
#include <string.h>

#include "passes.h"

const PassInfo passtab[] = {
#define PASS(name, fn, doc) {name, fn, doc},
#include "passes.def"
#undef PASS
};

const int npasses = (int)countof(passtab);

const PassInfo *
findpass(const char *name, size_t len)
{
	int i;

	for (i = 0; i < npasses; i++)
		if (strlen(passtab[i].name) == len && memcmp(passtab[i].name, name, len) == 0)
			return &passtab[i];
	return NULL;
}

/* Append the passes of a comma-separated list; returns false on an unknown name. */
bool
addpasses(const char *list, const PassInfo **pipe, int *npipe, int max)
{
	const char *s = list, *e;

	while (*s) {
		const PassInfo *p;
		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		if (e - s == 1 && *s == 'O') {
			/* "O" in a list stands for the default pipeline: -p ad,O */
			if (!addpasses(KOPT_DEFAULT_PIPELINE, pipe, npipe, max))
				return false;
		} else if (e > s) {
			if (!(p = findpass(s, (size_t)(e - s)))) {
				fprintf(stderr, "%s: unknown pass '%.*s' (see kopt --list-passes)\n", progname, (int)(e - s), s);
				return false;
			}
			if (*npipe == max) {
				fprintf(stderr, "%s: too many passes\n", progname);
				return false;
			}
			pipe[(*npipe)++] = p;
		}
		s = *e ? e + 1 : e;
	}
	return true;
}

/* verify: check the module; changes nothing. */
int
passverify(Module *m, PassOpts *o)
{
	return verify(m, o->src, o->d);
}
