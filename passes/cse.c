/*
 * cse.c — common subexpression elimination over structured scopes.
 *
 * requires: a verified module
 * provides: a pure op (F_PURE, no regions) identical to one that dominates
 *           it — same code, immediate, operands and result types, defined
 *           earlier in the same region or in an enclosing one — is removed
 *           and its results replaced by the earlier op's.
 * keeps:    loads, random numbers, calls (they are not F_PURE).
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

typedef struct Entry {
	uint64_t h;
	Op *op;
	int next; /* next entry in the bucket, -1: none */
} Entry;

typedef struct C {
	Module *m;
	Func *f;
	Val *repl;
	uint32_t nrepl;
	Entry *e;          /* stack of entries, innermost scope last */
	int ne, cape;
	int *bucket;       /* head entry per bucket, -1: none */
	uint32_t nbucket;  /* power of two */
} C;

static Val
sub(C *c, Val v)
{
	while (v < c->nrepl && c->repl[v])
		v = c->repl[v];
	return v;
}

static uint64_t
ophash(const C *c, const Op *op)
{
	uint64_t h = hmix((uint64_t)(uint32_t)op->attr << 32 | (uint32_t)op->code, (uint64_t)op->nargs), w;
	int i;

	for (i = 0; i < op->nargs; i++)
		h = hmix(h, op->args[i]);
	for (i = 0; i < op->nres; i++) {
		Type t = c->f->vals[op->res[i]].ty;
		memcpy(&w, &t, sizeof w);
		h = hmix(h, w);
	}
	return hfinal(h);
}

static bool
same(const C *c, const Op *a, const Op *b)
{
	int i;

	if (a->code != b->code || a->attr != b->attr || a->nargs != b->nargs || a->nres != b->nres)
		return false;
	for (i = 0; i < a->nargs; i++)
		if (a->args[i] != b->args[i])
			return false;
	for (i = 0; i < a->nres; i++)
		if (!typeeq(c->f->vals[a->res[i]].ty, c->f->vals[b->res[i]].ty))
			return false;
	return true;
}

static void
region(C *c, Region *r)
{
	int mark = c->ne, i, j;
	uint32_t k, n = 0;

	for (k = 0; k < r->n; k++) {
		Op *op = r->ops[k];
		for (j = 0; j < op->nargs; j++)
			op->args[j] = sub(c, op->args[j]);
		for (j = 0; j < op->nregs; j++)
			region(c, &op->regs[j]);
		if ((opinfo[op->code].flags & F_PURE) && !(opinfo[op->code].flags & F_REGION) && op->nres) {
			uint64_t h = ophash(c, op);
			uint32_t b = (uint32_t)h & (c->nbucket - 1);
			Op *hit = NULL;
			for (i = c->bucket[b]; i >= 0; i = c->e[i].next)
				if (c->e[i].h == h && same(c, c->e[i].op, op)) {
					hit = c->e[i].op;
					break;
				}
			if (hit) {
				for (j = 0; j < op->nres; j++)
					c->repl[op->res[j]] = hit->res[j];
				continue;
			}
			if (c->ne == c->cape) {
				c->cape = c->cape ? 2 * c->cape : 256;
				c->e = xrealloc(c->e, (size_t)c->cape * sizeof *c->e);
			}
			c->e[c->ne].h = h;
			c->e[c->ne].op = op;
			c->e[c->ne].next = c->bucket[b];
			c->bucket[b] = c->ne++;
		}
		r->ops[n++] = op;
	}
	r->n = n;
	/* leave the scope: pop its entries (LIFO, so bucket heads restore) */
	while (c->ne > mark) {
		Entry *e = &c->e[--c->ne];
		c->bucket[(uint32_t)e->h & (c->nbucket - 1)] = e->next;
	}
}

int
cse(Module *m, PassOpts *o)
{
	uint32_t i, k;

	(void)o;
	for (i = 0; i < m->nfuncs; i++) {
		C c = {0};
		c.m = m;
		c.f = m->funcs[i];
		c.nrepl = c.f->nvals;
		c.repl = xcalloc(c.nrepl + 1, sizeof(Val));
		for (c.nbucket = 256; c.nbucket < c.f->nvals; c.nbucket *= 2)
			;
		c.bucket = xmalloc(c.nbucket * sizeof(int));
		for (k = 0; k < c.nbucket; k++)
			c.bucket[k] = -1;
		region(&c, &c.f->body);
		free(c.repl);
		free(c.bucket);
		free(c.e);
	}
	return 0;
}
