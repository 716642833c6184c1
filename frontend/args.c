/*
 * args.c — a call's arguments: evaluating them (starred ones expanded,
 * keywords kept by name) and reading them as values, types or integer
 * constants, for builtins, constructors and user functions alike.
 */
#include <string.h>

#include "ast.h"

/* ---- arguments ------------------------------------------------------ */

bool
evalargs(Ctx *c, Node *e, Args *a)
{
	uint32_t i;
	int cap = 8;
	bool ok = true;

	memset(a, 0, sizeof *a);
	for (i = 0; i < e->l1.n; i++)
		cap += e->l1.v[i]->kind == E_STARRED ? 40 : 1;
	a->pos = aalloc(c->tmp, (size_t)cap * sizeof *a->pos);
	a->ploc = aalloc(c->tmp, (size_t)cap * sizeof *a->ploc);
	for (i = 0; i < e->l1.n; i++) {
		Node *n = e->l1.v[i];
		if (n->kind == E_STARRED) {
			X v;
			Type t;
			int k, m;
			a->starred = true;
			if ((m = starredslice(c, n->a, a->pos + a->n, 40)) != 0) {
				/* *arr[0:3] */
				if (m < 0) {
					ok = false;
					continue;
				}
				for (k = 0; k < m; k++)
					a->ploc[a->n++] = n->loc;
				continue;
			}
			v = expr(c, n->a);
			if (v.k == X_NONE) {
				ok = false;
				continue;
			}
			if (v.k != X_VAL) {
				serr(c, n->loc, "Starred expressions are only supported for arrays (with slice), vectors, "
				     "quaternions, and matrices.");
				ok = false;
				continue;
			}
			t = vty(c->f, v.v);
			if (!(t.k == T_VEC || t.k == T_QUAT || t.k == T_MAT)) {
				serr(c, n->loc, "Starred expressions are only supported for arrays (with slice), vectors, "
				     "quaternions, and matrices.");
				ok = false;
				continue;
			}
			m = t.k == T_MAT ? t.n : ncomp(t);
			for (k = 0; k < m; k++) {
				Val args[2];
				args[0] = v.v;
				args[1] = cint(c->m, c->f, S_I32, k);
				a->pos[a->n] = xval(emit1(c, OP_EXTRACT, args, 2, n->loc, "starred argument"));
				a->ploc[a->n++] = n->loc;
			}
			continue;
		}
		a->pos[a->n] = expr(c, n);
		if (a->pos[a->n].k == X_NONE)
			ok = false;
		a->ploc[a->n++] = n->loc;
	}
	a->kw = aalloc(c->tmp, (e->l2.n + 1) * sizeof *a->kw);
	a->kx = aalloc(c->tmp, (e->l2.n + 1) * sizeof *a->kx);
	a->kloc = aalloc(c->tmp, (e->l2.n + 1) * sizeof *a->kloc);
	for (i = 0; i < e->l2.n; i++) {
		Node *k = e->l2.v[i];
		if (!k->s) {
			serr(c, k->loc, "**kwargs arguments are not supported in kernels");
			ok = false;
			continue;
		}
		a->kw[a->nk] = k->s;
		a->kloc[a->nk] = k->loc;
		a->kx[a->nk] = expr(c, k->a);
		if (a->kx[a->nk].k == X_NONE)
			ok = false;
		a->nk++;
	}
	return ok;
}

X *
kwget(Args *a, const char *name)
{
	int i;

	for (i = 0; i < a->nk; i++)
		if (strcmp(a->kw[i], name) == 0)
			return &a->kx[i];
	return NULL;
}

bool
nokw(Ctx *c, Args *a, const char *what)
{
	if (a->nk) {
		serr(c, a->kloc[0], "%s takes no keyword argument '%s'", what, a->kw[0]);
		return false;
	}
	return true;
}

/* The values of all positional arguments. */
Val *
argvals(Ctx *c, Args *a)
{
	Val *v = aalloc(c->tmp, (size_t)(a->n + 1) * sizeof *v);
	int i;

	for (i = 0; i < a->n; i++)
		if (!(v[i] = xvalue(c, a->pos[i], a->ploc[i])))
			return NULL;
	return v;
}

/* A type given as a keyword (dtype=float). */
bool
typearg(Ctx *c, X *x, Loc loc, Type *t)
{
	TySpec ts;

	if (x->k == X_G && gvaltype(&x->g, &ts) && !specgeneric(&ts)) {
		*t = ts.ty;
		return true;
	}
	serr(c, loc, "expected a type");
	return false;
}

bool
intarg(Ctx *c, X *x, Loc loc, int64_t *v)
{
	if (x->k == X_VAL && isconst(c->f, x->v) && isint(vty(c->f, x->v)) && !x->hasrange) {
		*v = val(c->f, x->v)->c[0].i;
		return true;
	}
	serr(c, loc, "expected a constant integer");
	return false;
}

X
void_x(void)
{
	X x = xnone();
	x.k = X_TUPLE;
	x.n = 0;
	return x;
}
