/*
 * autodiff_sink.c — where a backward kernel zeroes adjoints.
 *
 * The reverse sweep of a store (autodiff.c) reads adj_A[i] and zeroes it
 * at once.  On a GPU that store right behind its load, to the same
 * address, holds back the loads after it: measured on an H200
 * (docs/gpu-bundle.md), elementwise backward kernels ran 2 to 9 times
 * slower than Warp's, and 0.4 to 1.0 times Warp's time once the zeroing
 * stores came last.  sinkzeroes() moves each such store to the end of its
 * region (before the terminator) when no later op of that region may read
 * or write the element it zeroes: the array is a kernel parameter used
 * only directly (never through a view, a call or a terminator's value),
 * and each later op that uses it is a load, or a store (a store of zero in
 * any case), whose indices differ from the zeroed one's by a constant in
 * some dimension (`out[i]` and `out[i + 1]`).  Later ops that read or
 * write other arrays are passed over: a backward kernel takes every array
 * parameter as its own memory, as Warp's Tape gives every array its own
 * gradient, and its adjoint arrays are dense (different indices, different
 * elements).  A store that ends both arms of an `if` (the reverse sweep of
 * `if c: out[i] = x else: out[i] = y`) becomes one store after the `if`,
 * which can then move on: 4.5x Warp's time on a sorting step's backward
 * kernel before.
 *
 * Linear: one walk numbers the ops in preorder and keeps, per array
 * parameter, the number of the latest op using it (so a use inside a later
 * op's regions is seen), and per region at most MAXCAND candidates, each
 * checked against every later op of its region.
 */
#include <stdlib.h>

#include "autodiff.h"

/* At most MAXCAND zeroing stores per region are candidates to move (the
 * walk stays linear); index arithmetic is followed OFFDEPTH deep. */
enum { MAXCAND = 16, OFFDEPTH = 4 };

typedef struct Cand {
	Op *op;      /* the store of zero */
	int arr;     /* its array parameter */
	bool stuck;  /* a later op of the region may touch the same element */
} Cand;

typedef struct S {
	Module *m;
	Func *f;
	uint32_t n;      /* ops numbered so far */
	uint32_t *last;  /* per parameter: number of the latest op using it */
	uint8_t *esc;    /* per parameter: used other than directly */
} S;

/* The parameter number of v if it is an array parameter, else -1. */
static int
directarray(const Func *f, Val v)
{
	const Value *x = &f->vals[v];

	return v && x->kind == V_ARG && x->ty.k == T_ARRAY ? x->idx : -1;
}

static bool
iszero(const Func *f, Val v)
{
	const Value *x = &f->vals[v];
	int i, n;

	if (x->kind == V_RES)
		return x->def->code == OP_ZERO;
	if (x->kind != V_CONST || x->ty.k == T_STR)
		return false;
	n = ncomp(x->ty);
	for (i = 0; i < n; i++)
		if (x->c[i].u != 0) /* +0.0 and integer 0 alike: all bits clear */
			return false;
	return true;
}

/* A store of zero to an array parameter: the parameter's number, else -1. */
static int
zerostore(const Func *f, const Op *op)
{
	if (op->code != OP_STORE || !iszero(f, op->args[op->nargs - 1]))
		return -1;
	return directarray(f, op->args[0]);
}

/* Mark the parameters that ops use other than as the array they access:
 * through an array-typed result (a view), a call, or a terminator. */
static void
escapes(S *s, const Region *r)
{
	uint32_t i;
	int j, p;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		bool through = op->code == OP_CALL || i + 1 == r->n;
		for (j = 0; j < op->nres && !through; j++)
			through = s->f->vals[op->res[j]].ty.k == T_ARRAY;
		for (j = 0; j < op->nargs; j++)
			if ((p = directarray(s->f, op->args[j])) >= 0 && (through || (j > 0 && op->code == OP_STORE)))
				s->esc[p] = 1;
		for (j = 0; j < op->nregs; j++)
			escapes(s, &op->regs[j]);
	}
}

/* v as base + off in v's integer type, through up to OFFDEPTH adds and
 * subtractions of integer constants; a constant is base 0 + itself. */
static Val
split(const Func *f, Val v, uint64_t *off)
{
	int d;

	*off = 0;
	for (d = 0; d < OFFDEPTH; d++) {
		const Value *x = &f->vals[v];
		const Op *op;
		if (x->kind == V_CONST) {
			*off += x->c[0].u;
			return 0;
		}
		if (x->kind != V_RES || ((op = x->def)->code != OP_ADD && op->code != OP_SUB))
			break;
		if (isconst(f, op->args[1])) {
			uint64_t c = f->vals[op->args[1]].c[0].u;
			*off += op->code == OP_ADD ? c : (uint64_t)0 - c;
			v = op->args[0];
		} else if (op->code == OP_ADD && isconst(f, op->args[0])) {
			*off += f->vals[op->args[0]].c[0].u;
			v = op->args[1];
		} else
			break;
	}
	return v;
}

/* Do the index lists a and b (n of each) name different elements: some
 * dimension's two indices the same integer value plus different constants
 * (different in the index type's width, so wrap-around cannot meet)? */
static bool
distinct(const Func *f, const Val *a, const Val *b, int n)
{
	int d;

	for (d = 0; d < n; d++) {
		Type t = vty(f, a[d]);
		uint64_t oa, ob, mask;
		if (!isint(t) || !typeeq(t, vty(f, b[d])))
			continue;
		mask = scalarsize[t.s] >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << 8 * scalarsize[t.s]) - 1;
		if (split(f, a[d], &oa) == split(f, b[d], &ob) && ((oa - ob) & mask) != 0)
			return true;
	}
	return false;
}

/* Can zeroing store z stay put no longer: does op, a later op of z's
 * region, read or write the element z zeroes (or can it not be told)? */
static bool
conflicts(const Func *f, const Op *z, const Op *op)
{
	Val arr = z->args[0];
	int j, nz = z->nargs - 2;

	for (j = 0; j < op->nargs; j++)
		if (op->args[j] == arr)
			break;
	if (j == op->nargs)
		return false;
	if (j > 0 || op->nregs)
		return true;
	if (op->code == OP_LOAD && op->nargs - 1 == nz)
		return !distinct(f, z->args + 1, op->args + 1, nz);
	if (op->code == OP_STORE && op->nargs - 2 == nz) /* zero twice: in any order */
		return !iszero(f, op->args[op->nargs - 1]) && !distinct(f, z->args + 1, op->args + 1, nz);
	return true;
}

/* If both arms of if-op `op` end (before their terminators) with the same
 * store of zero to a parameter array at the same indices, take those
 * stores out and return one, to go after the if; else NULL. */
static Op *
hoist(S *s, Op *op)
{
	Region *a, *b;
	Op *x, *y;
	int j, p;

	if (op->code != OP_IF || op->nregs != 2)
		return NULL;
	a = &op->regs[0];
	b = &op->regs[1];
	if (a->n < 2 || b->n < 2)
		return NULL;
	x = a->ops[a->n - 2];
	y = b->ops[b->n - 2];
	if ((p = zerostore(s->f, x)) < 0 || s->esc[p] || zerostore(s->f, y) != p || x->nargs != y->nargs)
		return NULL;
	for (j = 0; j + 1 < x->nargs; j++)
		if (x->args[j] != y->args[j])
			return NULL;
	if (!typeeq(vty(s->f, x->args[j]), vty(s->f, y->args[j])))
		return NULL;
	a->ops[a->n - 2] = a->ops[a->n - 1];
	a->n--;
	b->ops[b->n - 2] = b->ops[b->n - 1];
	b->n--;
	return x;
}

static void
sinkregion(S *s, Region *r)
{
	Cand cand[MAXCAND];
	uint32_t i, k, nc = 0, n = 0, cap = r->n + 1;
	Op **ops = xmalloc(cap * sizeof *ops);
	int j, p;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i], *h = NULL;
		uint32_t me = ++s->n;
		for (j = 0; j < op->nargs; j++)
			if ((p = directarray(s->f, op->args[j])) >= 0)
				s->last[p] = me;
		for (j = 0; j < op->nregs; j++)
			sinkregion(s, &op->regs[j]);
		for (k = 0; k < nc; k++)
			if (!cand[k].stuck && (s->last[cand[k].arr] > me || conflicts(s->f, cand[k].op, op)))
				cand[k].stuck = true;
		if (n + 2 > cap)
			ops = xrealloc(ops, (cap *= 2) * sizeof *ops);
		ops[n++] = op;
		if (op->nregs && (h = hoist(s, op)) != NULL) {
			ops[n++] = h;
			me = ++s->n;
			s->last[directarray(s->f, h->args[0])] = me;
			op = h;
		}
		if (i + 1 < r->n && nc < MAXCAND && (p = zerostore(s->f, op)) >= 0 && !s->esc[p])
			cand[nc++] = (Cand){op, p, false};
	}
	/* the stores no later op conflicts with go before the terminator, in
	 * their order */
	if (n > r->cap)
		agrow(s->m->arena, (void **)&r->ops, &r->cap, n, sizeof *r->ops);
	r->n = 0;
	for (i = 0; i + 1 < n; i++) {
		for (k = 0; k < nc && !(ops[i] == cand[k].op && !cand[k].stuck); k++)
			;
		if (k == nc)
			r->ops[r->n++] = ops[i];
	}
	for (k = 0; k < nc; k++)
		if (!cand[k].stuck)
			r->ops[r->n++] = cand[k].op;
	r->ops[r->n++] = ops[n - 1];
	free(ops);
}

void
sinkzeroes(Module *m, Func *f)
{
	S s = {m, f, 0, xcalloc(f->nparams + 1, sizeof *s.last), xcalloc(f->nparams + 1, 1)};

	escapes(&s, &f->body);
	sinkregion(&s, &f->body);
	free(s.last);
	free(s.esc);
}
