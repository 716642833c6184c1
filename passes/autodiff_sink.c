/*
 * autodiff_sink.c — where a backward kernel zeroes adjoints.
 *
 * The reverse sweep of a store (autodiff.c) reads adj_A[i] and zeroes it
 * at once.  On a GPU that store right behind its load, to the same
 * address, holds back the loads after it: measured on an H200
 * (docs/gpu-bundle.md), elementwise backward kernels ran 2 to 9 times
 * slower than Warp's, and 0.4 to 1.0 times Warp's time once the zeroing
 * stores came last.  sinkzeroes() moves each such store to the end of its
 * region (before the terminator) when nothing after it in that region
 * touches the same array: the array is a kernel parameter used only
 * directly (never through a view, a call or a terminator's value), and the
 * store is the last op of the region that uses it.  Later ops that read or
 * write other arrays are passed over: a backward kernel takes every array
 * parameter as its own memory, as Warp's Tape gives every array its own
 * gradient.
 *
 * Linear: one walk numbers the ops in preorder and keeps, per array
 * parameter, the number of the latest op using it; at the end of a region
 * a zeroing store whose number is still its array's latest moves.
 */
#include <stdlib.h>

#include "autodiff.h"

typedef struct S {
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

static void
sinkregion(S *s, Region *r)
{
	uint32_t i, k, nc = 0, *num = NULL, *at = NULL;
	int j, p;
	Op **moved;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		uint32_t me = ++s->n;
		for (j = 0; j < op->nargs; j++)
			if ((p = directarray(s->f, op->args[j])) >= 0)
				s->last[p] = me;
		for (j = 0; j < op->nregs; j++)
			sinkregion(s, &op->regs[j]);
		if (i + 1 < r->n && (p = zerostore(s->f, op)) >= 0 && !s->esc[p]) {
			if (!num) {
				num = xmalloc(r->n * sizeof *num);
				at = xmalloc(r->n * sizeof *at);
			}
			num[nc] = me;
			at[nc++] = i;
		}
	}
	/* the stores still last to use their arrays go before the terminator */
	moved = nc ? xmalloc(nc * sizeof *moved) : NULL;
	for (k = 0, j = 0; k < nc; k++) {
		Op *op = r->ops[at[k]];
		if (s->last[directarray(s->f, op->args[0])] == num[k]) {
			moved[j++] = op;
			r->ops[at[k]] = NULL;
		}
	}
	if (j > 0) {
		Op *term = r->ops[r->n - 1];
		uint32_t w = 0;
		for (i = 0; i + 1 < r->n; i++)
			if (r->ops[i])
				r->ops[w++] = r->ops[i];
		for (k = 0; k < (uint32_t)j; k++)
			r->ops[w++] = moved[k];
		r->ops[w] = term;
	}
	free(moved);
	free(num);
	free(at);
}

void
sinkzeroes(Func *f)
{
	S s = {f, 0, xcalloc(f->nparams + 1, sizeof *s.last), xcalloc(f->nparams + 1, 1)};

	escapes(&s, &f->body);
	sinkregion(&s, &f->body);
	free(s.last);
	free(s.esc);
}
