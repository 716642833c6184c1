/*
 * walk.c — traversal helpers shared by passes.
 */
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
