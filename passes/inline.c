/*
 * inline.c — inline @wp.func calls.
 *
 * requires: a verified module
 * provides: no call ops: every call is replaced by a copy of its callee's
 *           body (callees inlined first, their early returns removed as
 *           structurize(SZ_RET) does, so a body ends in its only `ret`,
 *           whose values replace the call's results).  The @wp.func
 *           definitions are then deleted: the module holds its kernels, in
 *           their order (a backward kernel's adjof is renumbered).
 * keeps:    Python locations (inlined ops point into the callee's source).
 * errors:   recursive calls (Warp rejects recursion as well).
 *
 * autodiff uses inlinedcopy() to differentiate through calls without
 * changing the module's own functions.
 */
#include <stdlib.h>
#include <string.h>

#include "autodiff.h"

enum { IL_NONE, IL_BUSY, IL_DONE, IL_FAILED };

typedef struct IL {
	Module *m;
	PassOpts *o;
	InlineMemo *im;
	Func *f;         /* the function calls are inlined into */
	ValMap repl;     /* per Val of f: replacement of a call result, or 0 */
} IL;

void
inlineinit(InlineMemo *im, const Module *m)
{
	im->copy = xcalloc(m->nfuncs + 1, sizeof *im->copy);
	im->state = xcalloc(m->nfuncs + 1, 1);
	im->nerr = 0;
}

void
inlinefree(InlineMemo *im)
{
	free(im->copy);
	free(im->state);
	im->copy = NULL;
	im->state = NULL;
}

static void
subst(IL *c, Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		for (j = 0; j < op->nargs; j++)
			op->args[j] = vmchase(&c->repl, op->args[j]);
		for (j = 0; j < op->nregs; j++)
			subst(c, &op->regs[j]);
	}
}

static void
ilregion(IL *c, Region *r)
{
	Module *m = c->m;
	Op **out = NULL;
	uint32_t n = 0, cap = 0, i, k;
	int j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		Func *callee;
		const Region *body;
		const Op *last;
		Cloner cl;

		for (j = 0; j < op->nregs; j++)
			ilregion(c, &op->regs[j]);
		if (op->code != OP_CALL) {
			APUSH(m->arena, out, n, cap, op);
			continue;
		}
		if (c->im->state[op->attr] == IL_BUSY) {
			passdiag(m, c->o, c->f, op, "error", "recursive call to @%s: recursion is not supported",
			         m->funcs[op->attr]->name);
			c->im->nerr++;
			APUSH(m->arena, out, n, cap, op);
			continue;
		}
		if (!(callee = inlinedcopy(m, c->o, c->im, op->attr))) {
			APUSH(m->arena, out, n, cap, op);
			continue;
		}
		body = &callee->body;
		last = body->ops[body->n - 1];
		if (last->code != OP_RET)
			die("inline: body of @%s does not end in ret", callee->name);
		clinit(&cl, m, callee, c->f);
		for (k = 0; k < callee->nparams; k++)
			clset(&cl, callee->params[k], vmchase(&c->repl, op->args[k]));
		for (k = 0; k + 1 < body->n; k++)
			APUSH(m->arena, out, n, cap, clop(&cl, body->ops[k]));
		for (j = 0; j < op->nres; j++)
			vmset(&c->repl, op->res[j], clget(&cl, last->args[j]));
		clfree(&cl);
	}
	r->ops = out;
	r->n = n;
	r->cap = cap;
}

/* Inline every call of f in place. */
static void
inlineinto(Module *m, PassOpts *o, InlineMemo *im, Func *f)
{
	IL c = {0};

	c.m = m;
	c.o = o;
	c.im = im;
	c.f = f;
	ilregion(&c, &f->body);
	subst(&c, &f->body);
	vmfree(&c.repl);
}

Func *
inlinedcopy(Module *m, PassOpts *o, InlineMemo *im, int fi)
{
	Func *g;
	int nerr0 = im->nerr;

	switch (im->state[fi]) {
	case IL_DONE:
		return im->copy[fi];
	case IL_BUSY:
	case IL_FAILED:
		return NULL;
	}
	im->state[fi] = IL_BUSY;
	g = scratchcopy(m, m->funcs[fi]);
	inlineinto(m, o, im, g);
	if (!g->kernel)
		im->nerr += structurize(m, g, SZ_RET, o->d, o->src);
	if (im->nerr > nerr0) {
		im->state[fi] = IL_FAILED;
		return NULL;
	}
	im->state[fi] = IL_DONE;
	im->copy[fi] = g;
	return g;
}

int
inlinefuncs(Module *m, PassOpts *o)
{
	InlineMemo im;
	uint32_t i;
	int nerr;

	inlineinit(&im, m);
	for (i = 0; i < m->nfuncs; i++)
		if (m->funcs[i]->kernel) {
			im.state[i] = IL_BUSY;
			inlineinto(m, o, &im, m->funcs[i]);
			im.state[i] = IL_NONE;
		}
	nerr = im.nerr;
	inlinefree(&im);
	if (nerr)
		return nerr;
	/* delete the functions: nothing calls them any more */
	{
		bool *keep = xcalloc(m->nfuncs + 1, sizeof *keep);
		for (i = 0; i < m->nfuncs; i++)
			keep[i] = m->funcs[i]->kernel;
		delfuncs(m, keep);
		free(keep);
	}
	return 0;
}
