/*
 * clone.c — copying ops, within one function or from one function into
 * another, and scratch copies of whole functions: the one cloner of
 * autodiff, inline and unroll.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

void
clinit(Cloner *c, Module *m, Func *src, Func *dst)
{
	memset(c, 0, sizeof *c);
	c->m = m;
	c->src = src;
	c->dst = dst;
}

void
clfree(Cloner *c)
{
	vmfree(&c->map);
}

void
clset(Cloner *c, Val from, Val to)
{
	vmset(&c->map, from, to);
}

Val
clget(Cloner *c, Val v)
{
	const Value *x;
	Val w = vmget(&c->map, v);

	if (v == 0)
		return 0;
	if (w)
		return w;
	if (c->src == c->dst)
		return v;
	x = &c->src->vals[v];
	if (x->kind == V_CONST)
		return cconst(c->m, c->dst, x->ty, x->c);
	die("clget: value %u of @%s is not mapped", v, c->src->name);
}

Op *
clop(Cloner *c, const Op *op)
{
	Module *m = c->m;
	Val argbuf[16];
	Type tybuf[16]; /* most ops: no malloc */
	Val *args = (size_t)op->nargs + 1 <= countof(argbuf) ? argbuf : xmalloc(((size_t)op->nargs + 1) * sizeof *args);
	Type *tys = (size_t)op->nres + op->nparams + 1 <= countof(tybuf)
	          ? tybuf : xmalloc(((size_t)op->nres + op->nparams + 1) * sizeof *tys);
	Op *n;
	int i;

	for (i = 0; i < op->nargs; i++)
		args[i] = clget(c, op->args[i]);
	for (i = 0; i < op->nres; i++)
		tys[i] = c->src->vals[op->res[i]].ty;
	n = mkop(m, c->dst, op->code, args, op->nargs, tys, op->nres, op->loc);
	n->attr = op->attr;
	n->kloc = op->kloc;
	for (i = 0; i < op->nres; i++) {
		c->dst->vals[n->res[i]].name = c->src->vals[op->res[i]].name;
		clset(c, op->res[i], n->res[i]);
	}
	if (op->nparams || (opinfo[op->code].flags & F_REGION)) {
		for (i = 0; i < op->nparams; i++)
			tys[i] = c->src->vals[op->params[i]].ty;
		opsetparams(m, c->dst, n, tys, op->nparams);
		for (i = 0; i < op->nparams; i++) {
			c->dst->vals[n->params[i]].name = c->src->vals[op->params[i]].name;
			clset(c, op->params[i], n->params[i]);
		}
	}
	if (op->nregs) {
		opsetregions(m, n, op->nregs);
		for (i = 0; i < op->nregs; i++)
			clops(c, &op->regs[i], 0, op->regs[i].n, &n->regs[i]);
	}
	if (args != argbuf)
		free(args);
	if (tys != tybuf)
		free(tys);
	return n;
}

void
clops(Cloner *c, const Region *src, uint32_t from, uint32_t to, Region *dst)
{
	uint32_t i;

	for (i = from; i < to; i++)
		regpush(c->m, dst, clop(c, src->ops[i]));
}

Func *
scratchcopy(Module *m, const Func *f)
{
	Func *g = aalloc(m->arena, sizeof *g);
	Cloner c;
	uint32_t i;

	g->name = f->name;
	g->kernel = f->kernel;
	g->loc = f->loc;
	g->kloc = f->kloc;
	g->adjof = f->adjof;
	clinit(&c, m, (Func *)f, g);
	for (i = 0; i < f->nparams; i++) {
		const Value *p = &f->vals[f->params[i]];
		clset(&c, f->params[i], addparam(m, g, p->name, p->ty, p->loc));
	}
	for (i = 0; i < f->nrets; i++)
		addret(m, g, f->rets[i]);
	clops(&c, &f->body, 0, f->body.n, &g->body);
	clfree(&c);
	return g;
}
