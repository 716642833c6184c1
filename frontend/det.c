/*
 * det.c — Warp's deterministic mode: which kernels kpyc accepts when the
 * module option "deterministic" is set.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

/* ---- deterministic mode -------------------------------------------- */

/* Warp's deterministic mode (module option "deterministic": RUN_TO_RUN or
 * GPU_TO_GPU) changes how CUDA code orders atomic updates; Warp's CPU code
 * runs the threads in order and keeps plain atomics, so results are those
 * of the default mode, which is what kpyc compiles.  But Warp rejects many
 * kernels in that mode (warp/_src/deterministic.py), so kpyc accepts only
 * the kernels it can vouch for and rejects every other, located:
 *   - every atomic builtin is a statement of its own (its value unused:
 *     Warp's two-pass counters are not compiled) and an augmented
 *     assignment updates a whole element of a kernel array parameter
 *     (not a component: Warp rejects float component slots);
 *   - the target of every atomic is a kernel array parameter (not a view,
 *     a struct field or a function's parameter), and no @wp.func the
 *     kernel calls performs atomics;
 *   - an array of floats updated atomically (Warp's scatter targets) gets
 *     one family of updates (add/sub, min or max) and is not otherwise
 *     used in the kernel (read, written, viewed or passed on). */

static bool
isatomicname(const Node *fn)
{
	const char *s = fn->kind == E_NAME || fn->kind == E_ATTR ? fn->s : NULL;
	return s && strncmp(s, "atomic_", 7) == 0;
}

static void
detast(Ctx *c, Node *n, bool discarded)
{
	uint32_t i;

	if (!n)
		return;
	if (n->kind == E_CALL && !discarded && isatomicname(n->a))
		serr(c, n->loc, "Deterministic mode: the value returned by %s() is used; Warp then assigns slots in two "
		     "passes, which kpyc does not compile (call it as a statement, or disable deterministic mode for "
		     "this kernel)", n->a->s);
	if (n->kind == S_AUGASSIGN && (n->a->kind == E_SUBSCRIPT || n->a->kind == E_ATTR)) {
		Node *t = n->a;
		int p = -1;
		if (t->kind == E_SUBSCRIPT && t->a->kind == E_NAME)
			for (p = 0; p < c->fd->nparams && strcmp(c->fd->params[p].name, t->a->s) != 0; p++)
				;
		if (p >= 0 && p < c->fd->nparams && c->fd->params[p].spec.ty.k == T_ARRAY &&
		    (int)t->l1.n != c->fd->params[p].spec.ty.nd)
			serr(c, t->loc, "Deterministic mode: an augmented assignment to a component of an array element; "
			     "kpyc compiles deterministic atomics on whole elements only");
		else if (t->kind == E_ATTR || t->a->kind != E_NAME)
			serr(c, t->loc, "Deterministic mode: an augmented assignment to a component or through a view; kpyc "
			     "compiles deterministic atomics on whole elements of kernel array parameters only");
	}
	/* a call that is a statement of its own: its value is discarded */
	detast(c, n->a, n->kind == S_EXPR);
	detast(c, n->b, false);
	detast(c, n->c, false);
	for (i = 0; i < n->l1.n; i++)
		detast(c, n->l1.v[i], false);
	for (i = 0; i < n->l2.n; i++)
		detast(c, n->l2.v[i], false);
	for (i = 0; i < n->l3.n; i++)
		detast(c, n->l3.v[i], false);
}

static bool
isatomicop(int code)
{
	return opinfo[code].flags & F_ATOMIC;
}

typedef struct DetScan {
	Ctx *c;
	Func *f;
	int *family;     /* per parameter: 0, or the op code family of its float atomics */
	bool pass2;      /* second walk: other uses of scatter targets */
	uint8_t *atomic; /* per function: 0 not known, 1 being walked, 2 no atomics, 3 atomics */
	int fidx;        /* the function detfuncop walks */
} DetScan;

static int
detfamily(int code)
{
	return code == OP_ATOMIC_SUB ? OP_ATOMIC_ADD : code;
}

static const char *
detfamname(int fam)
{
	return fam == OP_ATOMIC_ADD ? "add" : fam == OP_ATOMIC_MIN ? "min" : fam == OP_ATOMIC_MAX ? "max" : "bitwise";
}

static bool funcatomic(DetScan *d, int fi);

static void
detfuncop(Op *op, void *ctx)
{
	DetScan *d = ctx;
	if (isatomicop(op->code) || (op->code == OP_CALL && op->attr >= 0 && funcatomic(d, op->attr)))
		d->atomic[d->fidx] = 3;
}

/* Does function fi (or a function it calls) perform atomics?  Each
 * function is walked once (Warp functions do not recurse). */
static bool
funcatomic(DetScan *d, int fi)
{
	int save = d->fidx;

	if (d->atomic[fi] == 0) {
		d->atomic[fi] = 1;
		d->fidx = fi;
		walkops(&d->c->m->funcs[fi]->body, detfuncop, d);
		d->fidx = save;
		if (d->atomic[fi] == 1)
			d->atomic[fi] = 2;
	}
	return d->atomic[fi] == 3;
}

static void
detop(Op *op, void *ctx)
{
	DetScan *d = ctx;
	Ctx *c = d->c;
	Func *f = d->f;
	Loc loc = op->loc.line ? op->loc : c->fd->def->loc;
	int i;

	if (isatomicop(op->code)) {
		Val t = op->args[0];
		int p;
		if (f->vals[t].kind != V_ARG) {
			if (!d->pass2)
				serr(c, loc, "Deterministic mode: the target of this atomic operation is not a kernel array "
				     "parameter (a view, a struct field or a local); kpyc compiles deterministic atomics on "
				     "kernel array parameters only");
			return;
		}
		p = f->vals[t].idx;
		if (!d->pass2 && isfloatcomp(telem(f->vals[t].ty))) {
			int fam = detfamily(op->code);
			if (d->family[p] && d->family[p] != fam)
				serr(c, loc, "Deterministic mode cannot compile this kernel. Cause: array '%s' receives both '%s' "
				     "and '%s' atomic operations", c->fd->params[p].name, detfamname(d->family[p]),
				     detfamname(fam));
			else
				d->family[p] = fam;
		}
		/* the other operands are indices and the value */
		for (i = 1; d->pass2 && i < op->nargs; i++)
			if (f->vals[op->args[i]].kind == V_ARG && d->family[f->vals[op->args[i]].idx])
				goto used;
		return;
	}
	if (!d->pass2) {
		if (op->code == OP_CALL && op->attr >= 0) {
			if (funcatomic(d, op->attr))
				serr(c, loc, "Deterministic mode: @wp.func %s performs atomic operations; kpyc compiles "
				     "deterministic kernels whose atomics are in the kernel's own body", c->m->funcs[op->attr]->name);
		}
		return;
	}
	for (i = 0; i < op->nargs; i++)
		if (f->vals[op->args[i]].kind == V_ARG && d->family[f->vals[op->args[i]].idx])
			goto used;
	return;
used:
	for (i = 0; i < op->nargs; i++)
		if (f->vals[op->args[i]].kind == V_ARG && d->family[f->vals[op->args[i]].idx]) {
			const char *name = c->fd->params[f->vals[op->args[i]].idx].name;
			if ((op->code == OP_LOAD || op->code == OP_STORE) && i == 0)
				serr(c, loc, "Deterministic mode cannot compile this kernel. Cause: array '%s' receives "
				     "deterministic atomic updates and is also %s directly", name,
				     op->code == OP_LOAD ? "read" : "written");
			else
				serr(c, loc, "Deterministic mode: array '%s' receives deterministic atomic updates and is also "
				     "used here; kpyc accepts no other use of it", name);
			d->family[f->vals[op->args[i]].idx] = 0; /* once */
			return;
		}
}

/* A kernel compiled in deterministic mode: its atomics as above. */
void
detcheck(Ctx *c, Func *f)
{
	DetScan d;
	uint32_t i;

	for (i = 0; i < c->fd->def->l1.n; i++)
		detast(c, c->fd->def->l1.v[i], false);
	memset(&d, 0, sizeof d);
	d.c = c;
	d.f = f;
	d.family = aalloc(c->tmp, (f->nparams + 1) * sizeof *d.family);
	memset(d.family, 0, (f->nparams + 1) * sizeof *d.family);
	d.atomic = aalloc(c->tmp, c->m->nfuncs + 1);
	memset(d.atomic, 0, c->m->nfuncs + 1);
	walkops(&f->body, detop, &d);
	d.pass2 = true;
	walkops(&f->body, detop, &d);
}
