/*
 * registry.c — the table of passes (from passes.def) and lookup by name.
 */
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

/* verify: check the module; changes nothing. */
int
passverify(Module *m, PassOpts *o)
{
	return verify(m, o->src, o->d);
}
