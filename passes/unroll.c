/*
 * unroll.c — static loop unrolling, with Warp's rule.
 *
 * requires: a verified module
 * provides: every `for` whose start, end and step are constants, whose trip
 *           count len(range(start, end, step)) is at most o->max_unroll
 *           (kopt --max-unroll, default 16 as in Warp), whose step is not
 *           zero, whose body ends in `yield` and which no `break` or
 *           `continue` targets (one inside a nested loop targets that loop)
 *           is replaced by its iterations in order: in each copy of the
 *           body the index is the iteration's constant and the carried
 *           values are the previous copy's yields; the loop's results are
 *           the last yields (the initial values for an empty range).
 *           Loops are unrolled inside out, so a constant nest of trip
 *           counts n and m becomes n*m copies of the inner body.
 * keeps:    `while` loops, dynamic `for` loops, loops with break/continue
 *           (Warp emits those as dynamic loops too).
 * note:     Warp >= 1.19 also unrolls loops with `continue` by guarding the
 *           rest of the iteration; kpy keeps them as loops, which computes
 *           the same values.  Constants from the copies are left for fold.
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

typedef struct U {
	Module *m;
	Func *f;
	int max;         /* largest trip count unrolled */
	ValMap repl;     /* per Val: replacement (unrolled results), or 0 */
	Cloner cl;       /* f to f: per Val, its copy in the iteration being cloned */
	int unrolled;    /* loops unrolled (statistics) */
} U;

/* Does region r contain a break or continue leaving the loop it belongs
 * to?  (Those inside nested loops belong to the nested loops.) */
static bool
leaves(const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (op->code == OP_BREAK || op->code == OP_CONTINUE)
			return true;
		if (op->code == OP_IF)
			for (j = 0; j < op->nregs; j++)
				if (leaves(&op->regs[j]))
					return true;
	}
	return false;
}

/* Integer value of a constant, in a wide type. */
static int64_t
ival(const Func *f, Val v)
{
	const Value *x = &f->vals[v];
	return x->ty.s >= S_U8 && x->ty.s <= S_U64 ? (int64_t)x->c[0].u : x->c[0].i;
}

/* Python's len(range(a, b, s)) for s != 0, saturated at INT64_MAX. */
static int64_t
tripcount(int64_t a, int64_t b, int64_t s)
{
	if (s > 0)
		return b > a ? (int64_t)(((uint64_t)b - (uint64_t)a - 1) / (uint64_t)s + 1) : 0;
	return a > b ? (int64_t)(((uint64_t)a - (uint64_t)b - 1) / (0 - (uint64_t)s) + 1) : 0;
}

/* Unroll `op` (a for loop) into `out` if Warp's rule allows; true if done. */
static bool
tryunroll(U *u, Op *op, Region *out)
{
	Func *f = u->f;
	const Region *body;
	const Op *term;
	Val *carried, idx;
	int64_t a, b, s, n, k;
	int i, ncar;

	if (op->code != OP_FOR)
		return false;
	for (i = 0; i < 3; i++)
		if (!isconst(f, op->args[i]))
			return false;
	a = ival(f, op->args[0]);
	b = ival(f, op->args[1]);
	s = ival(f, op->args[2]);
	if (s == 0)
		return false;
	n = tripcount(a, b, s);
	if (n > u->max)
		return false;
	body = &op->regs[0];
	if (body->n == 0 || leaves(body))
		return false;
	term = body->ops[body->n - 1];
	if (term->code != OP_YIELD)
		return false;
	ncar = op->nargs - 3;
	carried = xmalloc(((size_t)ncar + 1) * sizeof *carried);
	for (i = 0; i < ncar; i++)
		carried[i] = op->args[3 + i];
	for (k = 0; k < n; k++) {
		Scal c;
		c.i = a + k * s;
		idx = cscalar(u->m, f, vty(f, op->params[0]), scalround(vty(f, op->params[0]).s, c));
		clset(&u->cl, op->params[0], idx);
		for (i = 0; i < ncar; i++)
			clset(&u->cl, op->params[1 + i], carried[i]);
		/* region() has already substituted repl[] in the body */
		clops(&u->cl, body, 0, body->n - 1, out);
		for (i = 0; i < ncar; i++)
			carried[i] = clget(&u->cl, term->args[i]);
	}
	for (i = 0; i < op->nres; i++)
		vmset(&u->repl, op->res[i], carried[i]);
	/* forget this loop's copies so that nothing outside sees them */
	clset(&u->cl, op->params[0], 0);
	for (i = 0; i < ncar; i++)
		clset(&u->cl, op->params[1 + i], 0);
	free(carried);
	u->unrolled++;
	return true;
}

static void
region(U *u, Region *r)
{
	Region out = {0};
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		for (j = 0; j < op->nargs; j++)
			op->args[j] = vmchase(&u->repl, op->args[j]);
		for (j = 0; j < op->nregs; j++)
			region(u, &op->regs[j]);
		if (!tryunroll(u, op, &out))
			regpush(u->m, &out, op);
	}
	*r = out;
}

int
unroll(Module *m, PassOpts *o)
{
	uint32_t i;

	for (i = 0; i < m->nfuncs; i++) {
		U u = {0};
		u.m = m;
		u.f = m->funcs[i];
		u.max = o->max_unroll;
		clinit(&u.cl, m, u.f, u.f);
		region(&u, &u.f->body);
		vmfree(&u.repl);
		clfree(&u.cl);
	}
	return 0;
}
