/*
 * dce.c — dead code elimination.
 *
 * requires: a verified module
 * provides: ops whose results are all unused and which have no effect are
 *           gone; an op has an effect if it writes memory or prints
 *           (F_WRITE), calls a function that has one, or is a region op
 *           containing such an op or a ret, or a break/continue that leaves
 *           the region op.  Repeats until nothing more goes.
 */
#include <stdlib.h>

#include "passes.h"

typedef struct D {
	Module *m;
	uint8_t *fx;      /* per function: has an effect */
	uint32_t *uses;   /* per Val of the current function */
	int removed;
} D;

/* Does region r (inside `depth` loops of the op being examined) contain an
 * effect visible outside that op? */
static bool
regeffect(D *c, const Region *r, int depth)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		int code = op->code;
		if (opinfo[code].flags & F_WRITE)
			return true;
		if (code == OP_RET)
			return true;
		if ((code == OP_BREAK || code == OP_CONTINUE) && depth == 0)
			return true;
		if (code == OP_CALL && c->fx[op->attr])
			return true;
		for (j = 0; j < op->nregs; j++)
			if (regeffect(c, &op->regs[j], depth + (code == OP_FOR || code == OP_WHILE)))
				return true;
	}
	return false;
}

static bool
writes(D *c, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if ((opinfo[op->code].flags & F_WRITE) || (op->code == OP_CALL && c->fx[op->attr]))
			return true;
		for (j = 0; j < op->nregs; j++)
			if (writes(c, &op->regs[j]))
				return true;
	}
	return false;
}

static bool
hasfx(D *c, const Op *op)
{
	int j;

	if (opinfo[op->code].flags & (F_WRITE | F_TERM))
		return true;
	if (op->code == OP_CALL)
		return c->fx[op->attr] != 0;
	for (j = 0; j < op->nregs; j++)
		if (regeffect(c, &op->regs[j], op->code == OP_FOR || op->code == OP_WHILE))
			return true;
	return false;
}

static void
unuse(D *c, const Op *op)
{
	int j;
	uint32_t i;

	for (j = 0; j < op->nargs; j++)
		c->uses[op->args[j]]--;
	for (j = 0; j < op->nregs; j++)
		for (i = 0; i < op->regs[j].n; i++)
			unuse(c, op->regs[j].ops[i]);
}

static void
sweep(D *c, Region *r)
{
	uint32_t i, k;
	int j;

	/* last to first, so a chain of dead ops goes in one sweep */
	for (i = r->n; i-- > 0;) {
		Op *op = r->ops[i];
		bool used = false;
		for (j = 0; j < op->nres; j++)
			if (c->uses[op->res[j]])
				used = true;
		if (!used && !hasfx(c, op)) {
			unuse(c, op);
			r->ops[i] = NULL;
			c->removed++;
			continue;
		}
		for (j = 0; j < op->nregs; j++)
			sweep(c, &op->regs[j]);
	}
	for (i = k = 0; i < r->n; i++)
		if (r->ops[i])
			r->ops[k++] = r->ops[i];
	r->n = k;
}

int
dce(Module *m, PassOpts *o)
{
	D c = {0};
	uint32_t i;
	bool grew = true;

	(void)o;
	c.m = m;
	c.fx = xcalloc(m->nfuncs + 1, 1);
	/* function effects (writes, prints, effectful calls), to a fixed
	 * point; a callee's own ret is no effect on its caller */
	while (grew) {
		grew = false;
		for (i = 0; i < m->nfuncs; i++)
			if (!c.fx[i] && writes(&c, &m->funcs[i]->body)) {
				c.fx[i] = 1;
				grew = true;
			}
	}
	for (i = 0; i < m->nfuncs; i++) {
		Func *f = m->funcs[i];
		c.uses = xcalloc(f->nvals + 1, sizeof(uint32_t));
		countuses(f, c.uses);
		do {
			c.removed = 0;
			sweep(&c, &f->body);
		} while (c.removed);
		free(c.uses);
	}
	free(c.fx);
	return 0;
}
