/*
 * autodiff.c — reverse-mode automatic differentiation (kopt -p ad).
 *
 * requires: a verified module
 * provides: for every kernel @K (not itself a backward kernel, and without
 *           one yet), a kernel @K.adj appended to the module:
 *             params:  K's params, then adj_NAME for each array param NAME
 *                      (same type), in order;
 *             body:    K's computation replayed (stores, atomics, prints and
 *                      asserts left out), then the reverse sweep.
 *           Adjoint convention (Warp's): on entry adj_NAME holds dL/d(NAME
 *           after K), on exit dL/d(NAME before K).  A load accumulates into
 *           adj_NAME with atomic_add; a store reads adj_NAME[i] into the
 *           stored value's adjoint and zeroes it (the old value was
 *           overwritten; the zeroing store goes last in its region where
 *           nothing after it uses the array: autodiff_sink.c); atomic_add/sub pass adj_NAME[i] (negated) to the
 *           value; atomic_min/max pass it where the value equals the final
 *           element (Warp's rule).  Scalar and struct params get no adjoint.
 * method:   K is differentiated on a scratch copy: calls inlined
 *           (inlinedcopy), escapes removed (structurize SZ_ALL: no break,
 *           continue or early ret), and every while loop given an
 *           iteration counter.  Ops are differentiated by the rules of
 *           ops.def's `deriv` column (autodiff_rules.c); control flow here:
 *             if     the reverse is an if on the replayed condition; each
 *                    branch replays its forward branch, then reverses it;
 *                    adjoints of values from outside flow out as results.
 *             for    exact, by recomputation: reverse iteration j of n
 *                    recomputes the carried state of forward iteration
 *                    n-1-j by running the body from the initial values
 *                    (a for of n-1-j iterations), replays that iteration,
 *                    then reverses it.  O(n^2) body runs, no memory; the
 *                    recomputation is dead code (and dce removes it) when
 *                    the reverse needs no carried value.
 *             while  the same, with the trip count the replay counted.
 * diagnoses: arrays written after being read (a warning, as Warp's
 *           verify_autograd_array_access), atomic results that are used (a
 *           warning: they are not replayed), gradients discarded because an
 *           array is not a kernel parameter (a warning), ops without a
 *           derivative rule (an error: "no derivative for op X").
 * keeps:    the forward kernels and functions unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "autodiff.h"

typedef struct AD {
	Module *m;
	PassOpts *o;
	Func *kf;      /* the forward kernel */
	Func *f;       /* its normalized scratch copy, which the tables index */
	Func *g;       /* the backward kernel being built */
	Val *pm;       /* per f value: its replayed value in g (current scope) */
	Val *am;       /* per f value: its adjoint in g (0: zero) */
	Val *aa;       /* per f array value: its adjoint array in g (0: none) */
	struct Fwd *tab; /* stores seen by the replay, in forward order (see fwdload) */
	int ntab, captab;
	struct Snap *snap; /* per region op of f (attr - 1): tab where it starts */
	int nsnap, capsnap;
	uint8_t *mark; /* per f value: scratch for freevals() */
	uint32_t nf;   /* entries in the tables (f->nvals) */
	Builder b;     /* where ops go */
	int nerr;
} AD;

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static Val
P(AD *c, Val v)
{
	const Value *x = &c->f->vals[v];

	if (x->kind == V_CONST)
		return cconst(c->m, c->g, x->ty, x->c);
	if (!c->pm[v])
		die("autodiff: value %u of @%s has no replayed value", v, c->f->name);
	return c->pm[v];
}

static Type
fty(AD *c, Val v)
{
	return c->f->vals[v].ty;
}

/* Does forward value v take an adjoint? */
static bool
active(AD *c, Val v)
{
	const Value *x = &c->f->vals[v];
	/* constants have none; kernel parameters' adjoints are discarded */
	return x->kind != V_CONST && x->kind != V_ARG && addiff(c->m, x->ty);
}

static void
acc(AD *c, Val v, Val contrib)
{
	if (!contrib || !active(c, v))
		return;
	c->am[v] = adadd(&c->b, c->am[v], contrib);
}

static Val
adjor0(AD *c, Val v)
{
	return c->am[v] ? c->am[v] : adzero(&c->b, fty(c, v));
}

static void
err(AD *c, const Op *op, const char *fmt, const char *arg)
{
	passdiag(c->m, c->o, c->kf, op, "error", fmt, arg);
	c->nerr++;
}

static Op *
emitop(AD *c, int code, const Val *args, int n, const Type *rtys, int nres, const Op *like)
{
	Op *op = bop(&c->b, code, args, n, rtys, nres);
	if (like) {
		op->loc = like->loc;
		op->kloc = like->kloc;
		op->attr = like->attr;
	}
	return op;
}

static bool
iswrite(int code)
{
	return code == OP_STORE || (opinfo[code].flags & F_ATOMIC);
}

/* ------------------------------------------------------------------ */
/* replay                                                              */

/*
 * Store-to-load forwarding.  The replay does not re-execute stores, and
 * the memory the backward kernel sees is not the memory each forward load
 * saw (Warp runs the backward kernel on the arrays the forward kernel
 * left; a tool may run it on the inputs).  A load of an element this
 * thread stored before, through the same array value and the same index
 * values, therefore takes the stored value, whatever the memory holds.
 * The table lists the stores met in forward order; a store or atomic
 * through an array forgets the entries of the same parameter; a region op
 * remembers the table at its start (Snap), and forgets, after it and
 * around a loop body, the entries of the parameters it writes.
 */
typedef struct Fwd {
	Val arr;          /* the array value (of f) */
	Val root;         /* its kernel parameter, or 0 */
	const Val *idx;   /* index values (f's), in the store op */
	int nidx;
	Val val;          /* the stored value */
} Fwd;

typedef struct Snap {
	Fwd *tab;
	int n;
} Snap;

static Val rootarray(const Func *f, Val v);

static void
tabforget(AD *c, Val root)
{
	int i, k = 0;

	for (i = 0; i < c->ntab; i++)
		if (!(c->tab[i].root == root || !root || !c->tab[i].root))
			c->tab[k++] = c->tab[i];
	c->ntab = k;
}

/* Forget the entries of every parameter region r writes. */
static void
tabforgetwrites(AD *c, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (op->code == OP_STORE || (opinfo[op->code].flags & F_ATOMIC))
			tabforget(c, rootarray(c->f, op->args[0]));
		for (j = 0; j < op->nregs; j++)
			tabforgetwrites(c, &op->regs[j]);
	}
}

static void
tabpush(AD *c, Fwd e)
{
	if (c->ntab == c->captab) {
		c->captab = c->captab ? 2 * c->captab : 16;
		c->tab = xrealloc(c->tab, (size_t)c->captab * sizeof *c->tab);
	}
	c->tab[c->ntab++] = e;
}

/* Remember the table at the start of region op op. */
static void
tabsave(AD *c, Op *op)
{
	Snap *sn;

	if (!op->attr) {
		if (c->nsnap == c->capsnap) {
			c->capsnap = c->capsnap ? 2 * c->capsnap : 16;
			c->snap = xrealloc(c->snap, (size_t)c->capsnap * sizeof *c->snap);
		}
		memset(&c->snap[c->nsnap], 0, sizeof c->snap[0]);
		op->attr = ++c->nsnap;
	}
	sn = &c->snap[op->attr - 1];
	free(sn->tab);
	sn->tab = xmalloc(((size_t)c->ntab + 1) * sizeof *sn->tab);
	if (c->ntab)
		memcpy(sn->tab, c->tab, (size_t)c->ntab * sizeof *sn->tab);
	sn->n = c->ntab;
}

/* Set the table to the one at the start of region op op (a loop's body
 * also forgets what the loop writes: later iterations may have). */
static void
tabrestore(AD *c, const Op *op, bool loopbody)
{
	const Snap *sn = &c->snap[op->attr - 1];
	int j;

	c->ntab = 0;
	for (j = 0; j < sn->n; j++)
		tabpush(c, sn->tab[j]);
	if (loopbody)
		for (j = 0; j < op->nregs; j++)
			tabforgetwrites(c, &op->regs[j]);
}

/* The stored value a load of (arr, idx) sees, or 0. */
static Val
fwdload(AD *c, const Op *op)
{
	int i, j, nidx = op->nargs - 1;

	for (i = c->ntab; i-- > 0;) {
		const Fwd *e = &c->tab[i];
		if (e->arr != op->args[0] || e->nidx != nidx)
			continue;
		for (j = 0; j < nidx; j++)
			if (e->idx[j] != op->args[1 + j])
				break;
		if (j == nidx)
			return e->val;
	}
	return 0;
}

static void replay(AD *c, const Op *op);

static void
replayops(AD *c, const Region *r, bool term)
{
	uint32_t i;

	for (i = 0; i + 1 < r->n; i++)
		replay(c, r->ops[i]);
	if (term && r->n) {
		const Op *t = r->ops[r->n - 1];
		Val buf[16]; /* most terminators: no malloc */
		Val *a = (size_t)t->nargs + 1 <= countof(buf) ? buf : xmalloc(((size_t)t->nargs + 1) * sizeof *a);
		int j;
		for (j = 0; j < t->nargs; j++)
			a[j] = P(c, t->args[j]);
		emitop(c, t->code, a, t->nargs, NULL, 0, t);
		if (a != buf)
			free(a);
	}
}

/* Replay region op `op` whose regions are replayed into the copy. */
static void
replayregionop(AD *c, const Op *op)
{
	Val *a = xmalloc(((size_t)op->nargs + 1) * sizeof *a);
	Type *t = xmalloc(((size_t)op->nres + op->nparams + 1) * sizeof *t);
	Region *save = c->b.r;
	Op *n;
	int i;

	for (i = 0; i < op->nargs; i++)
		a[i] = P(c, op->args[i]);
	for (i = 0; i < op->nres; i++)
		t[i] = fty(c, op->res[i]);
	n = emitop(c, op->code, a, op->nargs, t, op->nres, op);
	for (i = 0; i < op->nres; i++) {
		c->g->vals[n->res[i]].name = c->f->vals[op->res[i]].name;
		c->pm[op->res[i]] = n->res[i];
	}
	if (op->code != OP_IF) {
		for (i = 0; i < op->nparams; i++)
			t[i] = fty(c, op->params[i]);
		opsetparams(c->m, c->g, n, t, op->nparams);
		for (i = 0; i < op->nparams; i++) {
			c->g->vals[n->params[i]].name = c->f->vals[op->params[i]].name;
			c->pm[op->params[i]] = n->params[i];
		}
	}
	n->attr = 0;
	opsetregions(c->m, n, op->nregs);
	for (i = 0; i < op->nregs; i++) {
		c->b.r = &n->regs[i];
		tabrestore(c, op, op->code != OP_IF);
		replayops(c, &op->regs[i], true);
	}
	c->b.r = save;
	free(a);
	free(t);
}

static void
replay(AD *c, const Op *op)
{
	int code = op->code, i;
	Val *a, abuf[16];
	Type *t, tbuf[16]; /* most ops: no malloc */
	Op *n;

	switch (code) {
	case OP_IF:
	case OP_FOR:
	case OP_WHILE:
		tabsave(c, (Op *)op);
		replayregionop(c, op);
		tabrestore(c, op, false);
		for (i = 0; i < op->nregs; i++)
			tabforgetwrites(c, &op->regs[i]);
		return;
	case OP_LOAD: {
		Val v = fwdload(c, op);
		if (v) {
			c->pm[op->res[0]] = P(c, v);
			return;
		}
		break;
	}
	case OP_PRINT:
	case OP_PRINTF:
	case OP_ASSERT:
		return;
	}
	if (iswrite(code)) {
		Val root = rootarray(c->f, op->args[0]);
		tabforget(c, root);
		if (code == OP_STORE) {
			Fwd e = {op->args[0], root, op->args + 1, op->nargs - 2, op->args[op->nargs - 1]};
			tabpush(c, e);
		}
		/* not re-executed; a used old value reads the element as it is now */
		if (op->nres) {
			int nidx = vty(c->f, op->args[0]).nd;
			a = (size_t)nidx + 1 <= countof(abuf) ? abuf : xmalloc(((size_t)nidx + 1) * sizeof *a);
			for (i = 0; i <= nidx; i++)
				a[i] = P(c, op->args[i]);
			t = &c->f->vals[op->res[0]].ty;
			n = emitop(c, OP_LOAD, a, nidx + 1, t, 1, op);
			n->attr = 0;
			c->pm[op->res[0]] = n->res[0];
			if (a != abuf)
				free(a);
		}
		return;
	}
	a = (size_t)op->nargs + 1 <= countof(abuf) ? abuf : xmalloc(((size_t)op->nargs + 1) * sizeof *a);
	t = (size_t)op->nres + 1 <= countof(tbuf) ? tbuf : xmalloc(((size_t)op->nres + 1) * sizeof *t);
	for (i = 0; i < op->nargs; i++)
		a[i] = P(c, op->args[i]);
	for (i = 0; i < op->nres; i++)
		t[i] = fty(c, op->res[i]);
	n = emitop(c, code, a, op->nargs, t, op->nres, op);
	for (i = 0; i < op->nres; i++) {
		c->g->vals[n->res[i]].name = c->f->vals[op->res[i]].name;
		c->pm[op->res[i]] = n->res[i];
	}
	if (code == OP_VIEW && c->aa[op->args[0]]) {
		/* the adjoint array's view, with the same indices */
		a[0] = c->aa[op->args[0]];
		c->aa[op->res[0]] = emitop(c, OP_VIEW, a, op->nargs, t, 1, op)->res[0];
	}
	if (a != abuf)
		free(a);
	if (t != tbuf)
		free(t);
}

/* ------------------------------------------------------------------ */
/* analysis                                                            */

static void
markdefs(AD *c, const Region *r, uint8_t v)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		for (j = 0; j < op->nres; j++)
			c->mark[op->res[j]] = v;
		for (j = 0; j < op->nparams; j++)
			c->mark[op->params[j]] = v;
		for (j = 0; j < op->nregs; j++)
			markdefs(c, &op->regs[j], v);
	}
}

static void
collectuses(AD *c, const Region *r, Val **out, int *n, int *cap)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		for (j = 0; j < op->nargs; j++) {
			Val v = op->args[j];
			if (c->mark[v] || !active(c, v))
				continue;
			c->mark[v] = 2;
			if (*n == *cap) {
				*cap = *cap ? 2 * *cap : 16;
				*out = xrealloc(*out, (size_t)*cap * sizeof **out);
			}
			(*out)[(*n)++] = v;
		}
		for (j = 0; j < op->nregs; j++)
			collectuses(c, &op->regs[j], out, n, cap);
	}
}

static int
cmpval(const void *a, const void *b)
{
	Val x = *(const Val *)a, y = *(const Val *)b;
	return x < y ? -1 : x > y;
}

/* The active values used inside op's regions and defined outside them, in
 * increasing order (malloc'd). */
static Val *
freevals(AD *c, const Op *op, int *n)
{
	Val *out = NULL;
	int cap = 0, i, j;

	*n = 0;
	for (j = 0; j < op->nparams; j++)
		c->mark[op->params[j]] = 1;
	for (j = 0; j < op->nregs; j++)
		markdefs(c, &op->regs[j], 1);
	for (j = 0; j < op->nregs; j++)
		collectuses(c, &op->regs[j], &out, n, &cap);
	for (j = 0; j < op->nparams; j++)
		c->mark[op->params[j]] = 0;
	for (j = 0; j < op->nregs; j++)
		markdefs(c, &op->regs[j], 0);
	for (i = 0; i < *n; i++)
		c->mark[out[i]] = 0;
	if (*n)
		qsort(out, (size_t)*n, sizeof *out, cmpval);
	return out;
}

/* Does r contain a store or atomic of differentiable values (a source of
 * adjoints)? */
static bool
hassource(AD *c, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		/* stores and the differentiable atomics (add, sub, min, max) */
		if ((op->code == OP_STORE || (opinfo[op->code].flags & (F_ATOMIC | F_NOAD)) == F_ATOMIC) &&
		    addiff(c->m, telem(vty(c->f, op->args[0]))))
			return true;
		for (j = 0; j < op->nregs; j++)
			if (hassource(c, &op->regs[j]))
				return true;
	}
	return false;
}

static void
clearadj(AD *c, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		for (j = 0; j < op->nres; j++)
			c->am[op->res[j]] = 0;
		for (j = 0; j < op->nparams; j++)
			c->am[op->params[j]] = 0;
		for (j = 0; j < op->nregs; j++)
			clearadj(c, &op->regs[j]);
	}
}

/* ------------------------------------------------------------------ */
/* reverse                                                             */

static void reverse(AD *c, const Op *op);

static void
reverseops(AD *c, const Region *r)
{
	uint32_t i;

	for (i = r->n - 1; i-- > 0;)
		reverse(c, r->ops[i]);
}

/* Replace operand `from` by `to` in every op of r. */
static void
substin(Region *r, Val from, Val to)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		for (j = 0; j < op->nargs; j++)
			if (op->args[j] == from)
				op->args[j] = to;
		for (j = 0; j < op->nregs; j++)
			substin(&op->regs[j], from, to);
	}
}

static bool
definedin(const Region *r, const Op *d)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		if (r->ops[i] == d)
			return true;
		for (j = 0; j < r->ops[i]->nregs; j++)
			if (definedin(&r->ops[i]->regs[j], d))
				return true;
	}
	return false;
}

/* Results of the reverse if n that every branch yields as the same value
 * from outside are dropped; out[k] gets what result k stands for. */
static void
pruneif(AD *c, Op *n, Val *out)
{
	Op *t0 = n->regs[0].ops[n->regs[0].n - 1], *t1 = n->regs[1].ops[n->regs[1].n - 1];
	int k, keep = 0, nres = n->nres;

	for (k = 0; k < nres; k++) {
		Val w = t0->args[k];
		const Value *x = &c->g->vals[w];
		bool same = w == t1->args[k];
		if (same && (x->kind == V_RES || x->kind == V_PARAM) && x->def &&
		    (definedin(&n->regs[0], x->def) || definedin(&n->regs[1], x->def)))
			same = false;
		if (same) {
			out[k] = w;
			continue;
		}
		out[k] = n->res[k];
		n->res[keep] = n->res[k];
		c->g->vals[n->res[keep]].idx = (uint16_t)keep;
		t0->args[keep] = t0->args[k];
		t1->args[keep] = t1->args[k];
		keep++;
	}
	n->nres = (uint16_t)keep;
	t0->nargs = (uint16_t)keep;
	t1->nargs = (uint16_t)keep;
}

/* Carried values of the reverse for n (params after the index) that its
 * body yields unchanged are dropped: they always equal their initial
 * value.  out[k] gets what result k stands for. */
static void
pruneloop(AD *c, Op *n, Val *out)
{
	Op *t = n->regs[0].ops[n->regs[0].n - 1];
	int k, keep = 0, nres = n->nres;

	for (k = 0; k < nres; k++) {
		Val p = n->params[1 + k], init = n->args[3 + k];
		if (t->args[k] == p) {
			substin(&n->regs[0], p, init);
			out[k] = init;
			continue;
		}
		out[k] = n->res[k];
		n->res[keep] = n->res[k];
		c->g->vals[n->res[keep]].idx = (uint16_t)keep;
		n->params[1 + keep] = p;
		c->g->vals[p].idx = (uint16_t)(1 + keep);
		n->args[3 + keep] = init;
		t->args[keep] = t->args[k];
		keep++;
	}
	n->nres = (uint16_t)keep;
	n->nparams = (uint16_t)(1 + keep);
	n->nargs = (uint16_t)(3 + keep);
	t->nargs = (uint16_t)keep;
}

static void
revif(AD *c, const Op *op)
{
	Builder *b = &c->b;
	Region *save = b->r;
	int nfv, i, j, nres = op->nres;
	Val *fv = freevals(c, op, &nfv);
	Val *saved = xcalloc((size_t)nfv + 1, sizeof *saved);
	Val *gr = xcalloc((size_t)nres + 1, sizeof *gr);
	Type *tys = xmalloc(((size_t)nfv + 1) * sizeof *tys);
	Val *y = xmalloc(((size_t)nfv + 1) * sizeof *y);
	Val cond;
	Op *n;
	bool any = hassource(c, &op->regs[0]) || hassource(c, &op->regs[1]);

	for (i = 0; i < nres; i++)
		if ((gr[i] = c->am[op->res[i]]))
			any = true;
	if (!any)
		goto done;
	for (i = 0; i < nfv; i++) {
		tys[i] = fty(c, fv[i]);
		saved[i] = c->am[fv[i]];
	}
	cond = P(c, op->args[0]);
	n = emitop(c, OP_IF, &cond, 1, tys, nfv, op);
	n->attr = 0;
	opsetregions(c->m, n, 2);
	for (j = 0; j < 2; j++) {
		const Region *r = &op->regs[j];
		const Op *t = r->ops[r->n - 1];
		b->r = &n->regs[j];
		for (i = 0; i < nfv; i++)
			c->am[fv[i]] = saved[i];
		clearadj(c, r);
		tabrestore(c, op, false);
		replayops(c, r, false);
		for (i = 0; i < t->nargs && i < nres; i++)
			acc(c, t->args[i], gr[i]);
		reverseops(c, r);
		for (i = 0; i < nfv; i++)
			y[i] = adjor0(c, fv[i]);
		emitop(c, OP_YIELD, y, nfv, NULL, 0, t)->attr = 0;
	}
	b->r = save;
	pruneif(c, n, y);
	for (i = 0; i < nfv; i++)
		c->am[fv[i]] = adiszero(b, y[i]) ? 0 : y[i];
done:
	free(fv);
	free(saved);
	free(gr);
	free(tys);
	free(y);
}

/* Integer arithmetic that skips identities (x+0, x-0, x*1, x/1) and folds
 * constants, so that loop bookkeeping stays readable before fold runs. */
static bool
isint64(AD *c, Val v, int64_t k)
{
	return isconst(c->g, v) && c->g->vals[v].c[0].i == k;
}

static Val
iop(AD *c, int code, Val a, Val b)
{
	Builder *bd = &c->b;
	Type t = vty(c->g, a);

	if (isconst(c->g, a) && isconst(c->g, b) && (code == OP_ADD || code == OP_SUB || code == OP_MUL)) {
		int64_t x = c->g->vals[a].c[0].i, y = c->g->vals[b].c[0].i;
		return cint(c->m, c->g, t.s, code == OP_ADD ? x + y : code == OP_SUB ? x - y : x * y);
	}
	if ((code == OP_ADD || code == OP_SUB) && isint64(c, b, 0))
		return a;
	if (code == OP_ADD && isint64(c, a, 0))
		return b;
	if ((code == OP_MUL || code == OP_DIV) && isint64(c, b, 1))
		return a;
	if (code == OP_MUL && isint64(c, a, 1))
		return b;
	return b2(bd, code, a, b);
}

/* Number of iterations of `for k = s to e step st` (Python's range). */
static Val
tripcount(AD *c, Val s, Val e, Val st)
{
	Builder *b = &c->b;
	Type t = vty(c->g, s);
	int k = t.s;
	Val zero = cint(c->m, c->g, k, 0), one = cint(c->m, c->g, k, 1);
	Val up = 0, down = 0;
	bool cst = isconst(c->g, st);
	int64_t sv = cst ? c->g->vals[st].c[0].i : 0;

	if (cst && isconst(c->g, s) && isconst(c->g, e)) {
		int64_t sv0 = c->g->vals[s].c[0].i, ev = c->g->vals[e].c[0].i, nv = 0;
		if (sv > 0 && ev > sv0)
			nv = (ev - sv0 + sv - 1) / sv;
		else if (sv < 0 && ev < sv0)
			nv = (sv0 - ev - sv - 1) / -sv;
		return cint(c->m, c->g, k, nv);
	}
	if (!cst || sv > 0) {
		/* e > s ? (e - s + st - 1) / st : 0 */
		Val d = iop(c, OP_ADD, iop(c, OP_SUB, e, s), iop(c, OP_SUB, st, one));
		Val a[3] = {b2(b, OP_GT, e, s), iop(c, OP_DIV, d, st), zero};
		up = b1(b, OP_WHERE, a, 3, NULL);
	}
	if (!cst || sv < 0) {
		/* e < s ? (s - e - st - 1) / -st : 0 */
		Val ns = iop(c, OP_SUB, zero, st);
		Val d = iop(c, OP_SUB, iop(c, OP_SUB, s, e), iop(c, OP_ADD, st, one));
		Val a[3] = {b2(b, OP_LT, e, s), iop(c, OP_DIV, d, ns), zero};
		down = b1(b, OP_WHERE, a, 3, NULL);
	}
	if (up && down) {
		Val a[3] = {b2(b, OP_GT, st, zero), up, down};
		return b1(b, OP_WHERE, a, 3, NULL);
	}
	return up ? up : down ? down : zero;
}

/* Replay the body of loop op (region `body`) into a fresh for of g running
 * from s to `to` with step st, carried values starting at the replayed
 * initial values; returns that op (its results: the carried values after
 * those iterations).  `index`: the forward loop's index param or 0. */
static Op *
recompute(AD *c, const Op *op, const Region *body, Val s, Val to, Val st)
{
	bool isfor = op->code == OP_FOR;
	int first = isfor, nc = op->nparams - first, i;
	int ninit0 = isfor ? 3 : 0;
	Val *a = xmalloc(((size_t)nc + 3) * sizeof *a);
	Type *t = xmalloc(((size_t)nc + 2) * sizeof *t);
	Region *save = c->b.r;
	const Op *term = body->ops[body->n - 1];
	Op *n;

	a[0] = s;
	a[1] = to;
	a[2] = st;
	for (i = 0; i < nc; i++) {
		a[3 + i] = P(c, op->args[ninit0 + i]);
		t[1 + i] = fty(c, op->params[first + i]);
	}
	n = emitop(c, OP_FOR, a, 3 + nc, t + 1, nc, op);
	n->attr = 0;
	t[0] = vty(c->g, s);
	opsetparams(c->m, c->g, n, t, 1 + nc);
	opsetregions(c->m, n, 1);
	if (isfor)
		c->pm[op->params[0]] = n->params[0];
	for (i = 0; i < nc; i++)
		c->pm[op->params[first + i]] = n->params[1 + i];
	c->b.r = &n->regs[0];
	tabrestore(c, op, true);
	replayops(c, body, false);
	for (i = 0; i < nc; i++)
		a[i] = P(c, term->args[i]);
	emitop(c, OP_YIELD, a, nc, NULL, 0, term)->attr = 0;
	c->b.r = save;
	free(a);
	free(t);
	return n;
}

static void
revloop(AD *c, const Op *op)
{
	Builder *b = &c->b;
	Module *m = c->m;
	bool isfor = op->code == OP_FOR;
	const Region *body = &op->regs[isfor ? 0 : 1];
	const Op *term = body->ops[body->n - 1];
	int first = isfor, nc = op->nparams - first, ninit0 = isfor ? 3 : 0;
	int nfv, i, nd = 0, ncarry;
	Val *fv = freevals(c, op, &nfv);
	int *dslot = xmalloc(((size_t)nc + 1) * sizeof *dslot);
	Val *a, *res;
	Type *t;
	Val s, e, st, n, j, jr, kk, last;
	Region *save = b->r;
	Op *rl, *rc = NULL;
	bool any = hassource(c, body);

	for (i = 0; i < nc; i++) {
		if (c->am[op->res[i]])
			any = true;
		if (active(c, op->params[first + i]))
			dslot[nd++] = i;
	}
	if (!any)
		goto done;
	if (isfor) {
		s = P(c, op->args[0]);
		e = P(c, op->args[1]);
		st = P(c, op->args[2]);
		n = tripcount(c, s, e, st);
	} else {
		/* the last carried value is the iteration counter (see count()) */
		s = cint(m, c->g, S_I32, 0);
		st = cint(m, c->g, S_I32, 1);
		n = P(c, op->res[op->nres - 1]);
	}
	ncarry = nd + nfv;
	a = xmalloc(((size_t)ncarry + 4) * sizeof *a);
	t = xmalloc(((size_t)ncarry + 2) * sizeof *t);
	res = xmalloc(((size_t)ncarry + 1) * sizeof *res);
	a[0] = cint(m, c->g, vty(c->g, n).s, 0);
	a[1] = n;
	a[2] = cint(m, c->g, vty(c->g, n).s, 1);
	t[0] = vty(c->g, n);
	for (i = 0; i < nd; i++) {
		Val r = op->res[dslot[i]];
		a[3 + i] = adjor0(c, r);
		t[1 + i] = fty(c, r);
	}
	for (i = 0; i < nfv; i++) {
		a[3 + nd + i] = adjor0(c, fv[i]);
		t[1 + nd + i] = fty(c, fv[i]);
	}
	last = iop(c, OP_SUB, n, a[2]);
	rl = emitop(c, OP_FOR, a, 3 + ncarry, t + 1, ncarry, op);
	rl->attr = 0;
	opsetparams(m, c->g, rl, t, 1 + ncarry);
	opsetregions(m, rl, 1);
	b->r = &rl->regs[0];
	/* forward iteration number jr = n - 1 - j, index kk = s + jr * st */
	j = rl->params[0];
	jr = iop(c, OP_SUB, last, j);
	if (!typeeq(vty(c->g, jr), vty(c->g, s))) {
		Type it = vty(c->g, s);
		jr = bop(b, OP_CAST, &jr, 1, &it, 1)->res[0];
	}
	kk = iop(c, OP_ADD, s, iop(c, OP_MUL, jr, st));
	/* the carried state at the start of iteration jr */
	if (nc > 0)
		rc = recompute(c, op, body, s, kk, st);
	if (isfor)
		c->pm[op->params[0]] = kk;
	for (i = 0; i < nc; i++)
		c->pm[op->params[first + i]] = rc->res[i];
	/* replay iteration jr, then reverse it */
	clearadj(c, body);
	for (i = 0; i < nc; i++)
		c->am[op->params[first + i]] = 0;
	for (i = 0; i < nfv; i++)
		c->am[fv[i]] = rl->params[1 + nd + i];
	tabrestore(c, op, true);
	replayops(c, body, false);
	for (i = 0; i < nd; i++)
		acc(c, term->args[dslot[i]], rl->params[1 + i]);
	reverseops(c, body);
	for (i = 0; i < nd; i++)
		a[i] = adjor0(c, op->params[first + dslot[i]]);
	for (i = 0; i < nfv; i++)
		a[nd + i] = adjor0(c, fv[i]);
	emitop(c, OP_YIELD, a, ncarry, NULL, 0, term)->attr = 0;
	b->r = save;
	pruneloop(c, rl, res);
	for (i = 0; i < nfv; i++)
		c->am[fv[i]] = adiszero(b, res[nd + i]) ? 0 : res[nd + i];
	for (i = 0; i < nd; i++)
		acc(c, op->args[ninit0 + dslot[i]], adiszero(b, res[i]) ? 0 : res[i]);
	free(a);
	free(t);
	free(res);
done:
	free(fv);
	free(dslot);
}

static Val
ldadj(AD *c, const Op *op, Val arr, int nidx)
{
	Val *a = xmalloc(((size_t)nidx + 1) * sizeof *a);
	Type et = telem(vty(c->g, arr));
	Val v;
	int i;

	a[0] = arr;
	for (i = 1; i <= nidx; i++)
		a[i] = P(c, op->args[i]);
	v = emitop(c, OP_LOAD, a, nidx + 1, &et, 1, op)->res[0];
	free(a);
	return v;
}

static void
warnlost(AD *c, const Op *op)
{
	passdiag(c->m, c->o, c->kf, op, "warning",
	         "the gradient through this array access is discarded: only array parameters of a kernel have "
	         "adjoint arrays");
}

static void
revmem(AD *c, const Op *op)
{
	Builder *b = &c->b;
	Val arr = op->args[0], adj = c->aa[arr];
	Type at = fty(c, arr), et = telem(at);
	int nidx = at.nd, i;
	Val v = op->nargs > nidx + 1 ? op->args[nidx + 1] : 0, ga;

	if (!addiff(c->m, et))
		return;
	switch (op->code) {
	case OP_LOAD: {
		Val *a, g = c->am[op->res[0]];
		if (!g || adiszero(b, g))
			return;
		if (!adj) {
			warnlost(c, op);
			return;
		}
		a = xmalloc(((size_t)nidx + 2) * sizeof *a);
		a[0] = adj;
		for (i = 1; i <= nidx; i++)
			a[i] = P(c, op->args[i]);
		if (et.k == T_STRUCT) {
			/* no atomics on structs: read, add, write back (exact when
			 * no two threads load the same element) */
			a[nidx + 1] = adadd(b, ldadj(c, op, adj, nidx), g);
			emitop(c, OP_STORE, a, nidx + 2, NULL, 0, op)->attr = 0;
		} else {
			a[nidx + 1] = g;
			emitop(c, OP_ATOMIC_ADD, a, nidx + 2, &et, 1, op)->attr = 0;
		}
		free(a);
		return;
	}
	case OP_STORE: {
		Val *a;
		if (!adj) {
			if (active(c, v))
				warnlost(c, op);
			return;
		}
		ga = ldadj(c, op, adj, nidx);
		a = xmalloc(((size_t)nidx + 2) * sizeof *a);
		a[0] = adj;
		for (i = 1; i <= nidx; i++)
			a[i] = P(c, op->args[i]);
		a[nidx + 1] = adzero(b, et);
		emitop(c, OP_STORE, a, nidx + 2, NULL, 0, op)->attr = 0;
		free(a);
		acc(c, v, ga);
		return;
	}
	case OP_ATOMIC_ADD:
	case OP_ATOMIC_SUB:
		if (!active(c, v))
			return;
		if (!adj) {
			warnlost(c, op);
			return;
		}
		ga = ldadj(c, op, adj, nidx);
		acc(c, v, op->code == OP_ATOMIC_SUB ? bun(b, OP_NEG, ga) : ga);
		return;
	case OP_ATOMIC_MIN:
	case OP_ATOMIC_MAX: {
		Val cur, pv;
		int nc = ncomp(et), k;
		if (!active(c, v))
			return;
		if (!adj) {
			warnlost(c, op);
			return;
		}
		ga = ldadj(c, op, adj, nidx);
		cur = ldadj(c, op, P(c, arr), nidx);
		pv = P(c, v);
		if (et.k == T_SCALAR) {
			/* v == final, or both NaN */
			Val hit = b2(b, OP_OR, b2(b, OP_EQ, pv, cur),
			             b2(b, OP_AND, bun(b, OP_ISNAN, pv), bun(b, OP_ISNAN, cur)));
			Val w[3] = {hit, ga, adzero(b, et)};
			acc(c, v, b1(b, OP_WHERE, w, 3, NULL));
		} else {
			Val *parts = xmalloc(((size_t)nc + 1) * sizeof *parts);
			Type ct = tcomp(et);
			for (k = 0; k < nc; k++) {
				Val ix[3], pc, cc, gc, hit, w[3];
				int ni = et.k == T_MAT ? 2 : 1;
				ix[1] = cint(c->m, c->g, S_I32, et.k == T_MAT ? k / et.m : k);
				ix[2] = cint(c->m, c->g, S_I32, k % (et.m ? et.m : 1));
				ix[0] = pv;
				pc = b1(b, OP_EXTRACT, ix, 1 + ni, NULL);
				ix[0] = cur;
				cc = b1(b, OP_EXTRACT, ix, 1 + ni, NULL);
				ix[0] = ga;
				gc = b1(b, OP_EXTRACT, ix, 1 + ni, NULL);
				hit = b2(b, OP_OR, b2(b, OP_EQ, pc, cc),
				         b2(b, OP_AND, bun(b, OP_ISNAN, pc), bun(b, OP_ISNAN, cc)));
				w[0] = hit;
				w[1] = gc;
				w[2] = czero(c->m, c->g, ct);
				parts[k] = b1(b, OP_WHERE, w, 3, NULL);
			}
			acc(c, v, bop(b, et.k == T_VEC ? OP_VEC : OP_MAT, parts, nc, &et, 1)->res[0]);
			free(parts);
		}
		return;
	}
	}
}

static void
reverse(AD *c, const Op *op)
{
	int code = op->code, i;
	Val g[16], *x, y[16], *contrib;
	RuleApp ra;
	const char *e = NULL;
	bool any = false;

	switch (code) {
	case OP_IF:
		revif(c, op);
		return;
	case OP_FOR:
	case OP_WHILE:
		revloop(c, op);
		return;
	case OP_LOAD:
	case OP_STORE:
	case OP_ATOMIC_ADD:
	case OP_ATOMIC_SUB:
	case OP_ATOMIC_MIN:
	case OP_ATOMIC_MAX:
		revmem(c, op);
		return;
	}
	if (opinfo[code].flags & (F_NOAD | F_WRITE | F_TERM))
		return;
	if (op->nres > 16)
		return;
	for (i = 0; i < op->nres; i++)
		if ((g[i] = c->am[op->res[i]]))
			any = true;
	if (!any)
		return;
	if (code == OP_CALL) {
		err(c, op, "call of @%s left in the backward kernel (not inlined)", c->m->funcs[op->attr]->name);
		return;
	}
	/* sized by the op (a 32x32 matrix is built from 1,024 scalars) */
	x = xcalloc((size_t)op->nargs + 1, sizeof *x);
	contrib = xcalloc((size_t)op->nargs + 1, sizeof *contrib);
	for (i = 0; i < op->nargs; i++) {
		x[i] = P(c, op->args[i]);
		contrib[i] = 0;
	}
	for (i = 0; i < op->nres; i++)
		y[i] = P(c, op->res[i]);
	ra.b = &c->b;
	ra.code = code;
	ra.attr = op->attr;
	ra.x = x;
	ra.nx = op->nargs;
	ra.y = y;
	ra.ny = op->nres;
	ra.g = g;
	c->b.loc = op->loc;
	if (adrule(&ra, contrib, &e) < 0)
		err(c, op, "%s", e);
	else
		for (i = 0; i < op->nargs; i++)
			acc(c, op->args[i], contrib[i]);
	free(x);
	free(contrib);
}

/* ------------------------------------------------------------------ */
/* preparation and diagnostics                                         */

/* Give every while loop of r an iteration counter (its last carried
 * value). */
static void
count(Module *m, Func *f, Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		for (j = 0; j < op->nregs; j++)
			count(m, f, &op->regs[j]);
		if (op->code == OP_WHILE) {
			Region *body = &op->regs[1];
			Op *t = body->ops[body->n - 1];
			Val res, p = loopcarry(m, f, op, tscalar(S_I32), cint(m, f, S_I32, 0), &res);
			Builder b = {m, f, body, op->loc};
			Val *a = aalloc(m->arena, ((size_t)t->nargs + 1) * sizeof *a);
			Op *inc;
			body->n--;
			inc = bop(&b, OP_ADD, (Val[]){p, cint(m, f, S_I32, 1)}, 2, (Type[]){tscalar(S_I32)}, 1);
			(void)inc;
			if (t->nargs)
				memcpy(a, t->args, t->nargs * sizeof *a);
			a[t->nargs] = body->ops[body->n - 1]->res[0];
			t->args = a;
			t->nargs++;
			regpush(m, body, t);
		}
	}
}

/* The kernel parameter an array value comes from (through views), or 0. */
static Val
rootarray(const Func *f, Val v)
{
	while (v && f->vals[v].kind == V_RES && f->vals[v].def && f->vals[v].def->code == OP_VIEW)
		v = f->vals[v].def->args[0];
	return v && f->vals[v].kind == V_ARG ? v : 0;
}

typedef struct Acc {
	AD *c;
	uint32_t *uses;    /* per value: number of uses */
	uint8_t *read;     /* per param value: read earlier in program order */
	uint8_t *warned;   /* per param value: warned already */
	uint8_t *minmax;   /* per param value: atomic_min/max warned already */
	uint8_t *structrmw; /* per param value: struct adjoint race warned already */
} Acc;

/* Mark the arrays r reads (a loop body's reads precede the writes of its
 * next iterations). */
static void
prescan(Acc *s, const Region *r)
{
	uint32_t i;
	int j;
	Val root;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (op->code == OP_LOAD && (root = rootarray(s->c->f, op->args[0])))
			s->read[root] = 1;
		for (j = 0; j < op->nregs; j++)
			prescan(s, &op->regs[j]);
	}
}

static void
scanaccess(Acc *s, const Region *r, int depth)
{
	AD *c = s->c;
	const Func *f = c->f;
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		Val root;
		if (op->code == OP_LOAD && (root = rootarray(f, op->args[0]))) {
			Type et = telem(vty(f, op->args[0]));
			s->read[root] = 1;
			if (et.k == T_STRUCT && addiff(c->m, et) && !s->structrmw[root]) {
				bool bytid = true;
				for (j = 1; j < op->nargs; j++) {
					const Value *x = &f->vals[op->args[j]];
					if (!(x->kind == V_RES && x->def && x->def->code == OP_TID))
						bytid = false;
				}
				if (!bytid) {
					s->structrmw[root] = 1;
					passdiag(c->m, c->o, c->kf, op, "warning",
					         "the adjoint of a struct element is added by a read and a write (there are no "
					         "atomics on structs): threads that load the same element of %%%s race in the "
					         "backward kernel",
					         f->vals[root].name ? f->vals[root].name : "?");
				}
			}
		}
		if (iswrite(op->code) && (root = rootarray(f, op->args[0])) && s->read[root] && !s->warned[root]) {
			s->warned[root] = 1;
			passdiag(c->m, c->o, c->kf, op, "warning",
			         "array %%%s is written after being read in this kernel; the backward kernel replays the "
			         "reads from the overwritten array, so its gradients may be wrong",
			         f->vals[root].name ? f->vals[root].name : "?");
		}
		if ((op->code == OP_ATOMIC_MIN || op->code == OP_ATOMIC_MAX) &&
		    addiff(c->m, telem(vty(f, op->args[0]))) && (root = rootarray(f, op->args[0])) && !s->minmax[root]) {
			s->minmax[root] = 1;
			passdiag(c->m, c->o, c->kf, op, "warning",
			         "the gradient of %s follows Warp's rule: a value equal to the final element gets the "
			         "element's adjoint, and so do the element's earlier contents, so gradients are exact only "
			         "where no value replaces them",
			         opinfo[op->code].name);
		}
		if (iswrite(op->code) && op->nres && s->uses[op->res[0]])
			passdiag(c->m, c->o, c->kf, op, "warning",
			         "the result of %s is used, but it is not replayed in the backward kernel (there it reads "
			         "the array as the forward kernel left it)",
			         opinfo[op->code].name);
		for (j = 0; j < op->nregs; j++) {
			bool loop = op->code == OP_FOR || op->code == OP_WHILE;
			if (loop)
				prescan(s, &op->regs[j]);
			scanaccess(s, &op->regs[j], depth + loop);
		}
	}
}

/* Build @K.adj for kernel number ki. */
static int
diffkernel(Module *m, PassOpts *o, InlineMemo *im, int ki)
{
	Func *k = m->funcs[ki], *f, *g;
	AD c = {0};
	Acc s = {0};
	uint32_t i;
	int nerr = o->d->nerr;

	if (!(f = inlinedcopy(m, o, im, ki)))
		return 1;
	f = scratchcopy(m, f);
	c.m = m;
	c.o = o;
	c.kf = k;
	c.f = f;
	/* warnings on the inlined kernel, before escapes are removed */
	s.c = &c;
	s.uses = xcalloc(f->nvals + 1, sizeof *s.uses);
	s.read = xcalloc(f->nvals + 1, 1);
	s.warned = xcalloc(f->nvals + 1, 1);
	s.minmax = xcalloc(f->nvals + 1, 1);
	s.structrmw = xcalloc(f->nvals + 1, 1);
	countuses(f, s.uses);
	scanaccess(&s, &f->body, 0);
	free(s.uses);
	free(s.read);
	free(s.warned);
	free(s.minmax);
	free(s.structrmw);
	if (structurize(m, f, SZ_ALL, o->d, o->src))
		return 1;
	count(m, f, &f->body);

	g = addfunc(m, aprintf(m->arena, "%s.adj", k->name), true, k->loc);
	g->kloc = k->kloc;
	g->adjof = ki;
	c.g = g;
	c.nf = f->nvals;
	c.pm = xcalloc(c.nf + 1, sizeof *c.pm);
	c.am = xcalloc(c.nf + 1, sizeof *c.am);
	c.aa = xcalloc(c.nf + 1, sizeof *c.aa);
	c.mark = xcalloc(c.nf + 1, 1);
	for (i = 0; i < f->nparams; i++) {
		const Value *p = &f->vals[f->params[i]];
		c.pm[f->params[i]] = addparam(m, g, p->name, p->ty, p->loc);
	}
	for (i = 0; i < f->nparams; i++) {
		const Value *p = &f->vals[f->params[i]];
		if (p->ty.k == T_ARRAY)
			c.aa[f->params[i]] =
			        addparam(m, g, p->name ? aprintf(m->arena, "adj_%s", p->name) : NULL, p->ty, p->loc);
	}
	c.b.m = m;
	c.b.f = g;
	c.b.r = &g->body;
	c.b.loc = k->loc;
	replayops(&c, &f->body, false);
	reverseops(&c, &f->body);
	c.b.loc = k->loc;
	bop(&c.b, OP_RET, NULL, 0, NULL, 0);
	sinkzeroes(m, g);
	free(c.pm);
	free(c.am);
	free(c.aa);
	free(c.mark);
	for (i = 0; i < (uint32_t)c.nsnap; i++)
		free(c.snap[i].tab);
	free(c.snap);
	free(c.tab);
	return c.nerr + (o->d->nerr - nerr > c.nerr ? 1 : 0);
}

int
autodiff(Module *m, PassOpts *o)
{
	InlineMemo im;
	uint32_t i, n = m->nfuncs;
	int nerr = 0;
	char *name;

	inlineinit(&im, m);
	for (i = 0; i < n; i++) {
		Func *k = m->funcs[i];
		if (!k->kernel || k->adjof >= 0)
			continue;
		name = aprintf(m->arena, "%s.adj", k->name);
		if (findfunc(m, name) >= 0)
			continue;
		nerr += diffkernel(m, o, &im, (int)i);
	}
	inlinefree(&im);
	adrulesdone();
	return nerr;
}
