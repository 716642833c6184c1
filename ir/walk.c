/*
 * walk.c — traversal helpers shared by passes.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

void
walkops(Region *r, void (*fn)(Op *op, void *ctx), void *ctx)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		fn(op, ctx);
		for (j = 0; j < op->nregs; j++)
			walkops(&op->regs[j], fn, ctx);
	}
}

static void
count(const Region *r, uint32_t *uses)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		for (j = 0; j < op->nargs; j++)
			uses[op->args[j]]++;
		for (j = 0; j < op->nregs; j++)
			count(&op->regs[j], uses);
	}
}

void
countuses(const Func *f, uint32_t *uses)
{
	uint32_t i;

	for (i = 0; i < f->nvals; i++)
		uses[i] = 0;
	count(&f->body, uses);
}

bool
opispure(const Op *op)
{
	return (opinfo[op->code].flags & F_PURE) != 0;
}

/* ------------------------------------------------------------------ */
/* parameter access                                                    */

int
arrayparam(const Func *f, Val v)
{
	int depth;

	for (depth = 0; depth < 64; depth++) {
		const Value *x = &f->vals[v];
		if (x->kind == V_ARG)
			return (int)x->idx;
		if (x->kind != V_RES || !x->def ||
		    !(x->def->code == OP_VIEW || x->def->code == OP_FIELD || x->def->code == OP_MEMBER))
			return -1;
		v = x->def->args[0];
	}
	return -1;
}

static bool
merge(unsigned *to, unsigned a)
{
	if ((*to | a) == *to)
		return false;
	*to |= a;
	return true;
}

static bool
accregion(const Module *m, unsigned **acc, uint32_t fi, const Region *r)
{
	const Func *f = m->funcs[fi];
	bool changed = false;
	uint32_t i;
	int j, p;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		unsigned a = 0;
		if (op->code == OP_LOAD)
			a = ACC_READ;
		else if (op->code == OP_STORE)
			a = ACC_WRITE;
		else if (op->code == OP_ATOMIC_MIN || op->code == OP_ATOMIC_MAX)
			a = ACC_READ | ACC_WRITE | ACC_MINMAX;
		else if (opinfo[op->code].flags & F_ATOMIC)
			a = ACC_READ | ACC_WRITE;
		if (a && op->nargs > 0 && (p = arrayparam(f, op->args[0])) >= 0)
			changed |= merge(&acc[fi][p], a);
		if (op->code == OP_CALL && op->attr >= 0 && (uint32_t)op->attr < m->nfuncs) {
			const Func *g = m->funcs[op->attr];
			for (j = 0; j < op->nargs && (uint32_t)j < g->nparams; j++)
				if (acc[op->attr][j] && (p = arrayparam(f, op->args[j])) >= 0)
					changed |= merge(&acc[fi][p], acc[op->attr][j]);
		}
		for (j = 0; j < op->nregs; j++)
			changed |= accregion(m, acc, fi, &op->regs[j]);
	}
	return changed;
}

unsigned **
paramaccess(const Module *m)
{
	unsigned **acc = xcalloc(m->nfuncs + 1, sizeof *acc);
	bool changed;
	uint32_t i;

	for (i = 0; i < m->nfuncs; i++)
		acc[i] = xcalloc(m->funcs[i]->nparams + 1, sizeof **acc);
	do { /* a fixed point through calls */
		changed = false;
		for (i = 0; i < m->nfuncs; i++)
			changed |= accregion(m, acc, i, &m->funcs[i]->body);
	} while (changed);
	return acc;
}

void
freeparamaccess(const Module *m, unsigned **acc)
{
	uint32_t i;

	if (!acc)
		return;
	for (i = 0; i < m->nfuncs; i++)
		free(acc[i]);
	free(acc);
}

int
tiddims(const Region *r)
{
	uint32_t i;
	int j, n = 0, k;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (op->code == OP_TID && op->nres > n)
			n = op->nres;
		for (j = 0; j < op->nregs; j++)
			if ((k = tiddims(&op->regs[j])) > n)
				n = k;
	}
	return n;
}

int
adjointparam(const Module *m, const Func *k, uint32_t pi)
{
	const Func *fw;
	const char *nm;
	uint32_t j, na = 0;

	if (k->adjof < 0 || (uint32_t)k->adjof >= m->nfuncs)
		return -1;
	fw = m->funcs[k->adjof];
	if (pi < fw->nparams)
		return -1;
	nm = k->vals[k->params[pi]].name;
	if (nm && strncmp(nm, "adj_", 4) == 0)
		for (j = 0; j < fw->nparams; j++) {
			const char *fn = fw->vals[fw->params[j]].name;
			if (fn && strcmp(fn, nm + 4) == 0)
				return (int)j;
		}
	/* by position among the array parameters */
	for (j = 0; j < fw->nparams; j++)
		if (fw->vals[fw->params[j]].ty.k == T_ARRAY) {
			if (na == pi - fw->nparams)
				return (int)j;
			na++;
		}
	return -1;
}
