/*
 * load.c — reading the module a back end translates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* The emitters hold an op's operands, results and carried values in
 * arrays of 256 (emit.c, kptx_emit.c); kir allows more.  Until they grow,
 * such an op is an error here, at its place, never an overflow there. */
enum { BACKMAX = 255 };

typedef struct Wide {
	const Src *src;
	Diag *d;
} Wide;

static void
wideop(Op *op, void *ctx)
{
	Wide *w = ctx;
	const char *what = op->nargs > BACKMAX ? "operands" : op->nres > BACKMAX ? "results" : "carried values";

	if (op->nargs > BACKMAX || op->nres > BACKMAX || op->nparams > BACKMAX)
		diagerr(w->d, w->src, op->kloc, "'%s' has %u %s; %s translates at most %d", opinfo[op->code].name,
		        op->nargs > BACKMAX ? op->nargs : op->nres > BACKMAX ? op->nres : op->nparams, what, progname,
		        BACKMAX);
}

Module *
loadkir(const char *path, char **text)
{
	Src src = {0};
	Diag d;
	Module *m;

	*text = NULL;
	if (!(src.text = *text = readfile(path, &src.len))) {
		fprintf(stderr, "%s: cannot read %s: %s\n", progname, path, strerror(errno));
		return NULL;
	}
	src.name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	diaginit(&d);
	if (!(m = parsekir(&src, &d)))
		return NULL;
	if (verify(m, &src, &d)) {
		modfree(m);
		return NULL;
	}
	{
		Wide w = {&src, &d};
		uint32_t i;
		for (i = 0; i < m->nfuncs; i++)
			walkops(&m->funcs[i]->body, wideop, &w);
		if (d.nerr) {
			modfree(m);
			return NULL;
		}
	}
	return m;
}
