/*
 * keep.c — keep only the forward or only the backward kernels.
 *
 * requires: a verified module (backward kernels are those `ad` made: their
 *           Func.adjof names the forward kernel, or their name ends in .adj)
 * provides: forward: the backward kernels are gone; backward: the forward
 *           kernels are gone.  Functions no remaining kernel calls (directly
 *           or through other functions) are gone too, so each half stands on
 *           its own (the dataset build writes them as separate files).
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static bool
isbackward(const Func *f)
{
	size_t n = strlen(f->name);
	return f->kernel && (f->adjof >= 0 || (n > 4 && strcmp(f->name + n - 4, ".adj") == 0));
}

static void
markcalls(const Module *m, const Region *r, bool *keep)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (op->code == OP_CALL && op->attr >= 0 && !keep[op->attr]) {
			keep[op->attr] = true;
			markcalls(m, &m->funcs[op->attr]->body, keep);
		}
		for (j = 0; j < op->nregs; j++)
			markcalls(m, &op->regs[j], keep);
	}
}

static int
keepkernels(Module *m, bool backward)
{
	bool *keep = xcalloc(m->nfuncs + 1, sizeof *keep);
	uint32_t i;

	for (i = 0; i < m->nfuncs; i++)
		keep[i] = m->funcs[i]->kernel && isbackward(m->funcs[i]) == backward;
	for (i = 0; i < m->nfuncs; i++)
		if (keep[i] && m->funcs[i]->kernel)
			markcalls(m, &m->funcs[i]->body, keep);
	/* a backward kernel's forward kernel is gone: adjof becomes -1 */
	delfuncs(m, keep);
	free(keep);
	return 0;
}

int
keepforward(Module *m, PassOpts *o)
{
	(void)o;
	return keepkernels(m, false);
}

int
keepbackward(Module *m, PassOpts *o)
{
	(void)o;
	return keepkernels(m, true);
}
