/*
 * env.c — environments: a function body's map from Python names to their
 * current kir values (see sema.c), with copies for branches and loops.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

/* ---- environments --------------------------------------------------- */

/* Lookups, bindings and copies are O(1) amortised per name (O(n) per
 * copy): a function with many locals compiles in linear time. */

#define ENV_EMPTY UINT32_MAX

/* A fresh index of e->v[0, e->n) with room for at least want names. */
static EnvIdx *
envindex(Ctx *c, const Env *e, uint32_t want)
{
	uint32_t cap = 16, i, j;
	EnvIdx *ix;

	while (cap < 2 * want + 2)
		cap *= 2;
	ix = aalloc(c->tmp, sizeof *ix + cap * sizeof ix->slot[0]);
	ix->cap = cap;
	ix->used = e->n;
	for (i = 0; i < cap; i++)
		ix->slot[i].at = ENV_EMPTY;
	for (i = 0; i < e->n; i++) {
		uint32_t h = strhash(e->v[i].name);
		for (j = h & (cap - 1); ix->slot[j].at != ENV_EMPTY; j = (j + 1) & (cap - 1))
			;
		ix->slot[j].hash = h;
		ix->slot[j].at = i;
	}
	return ix;
}

static Bind *
envlookup(const Env *e, const char *name, uint32_t h)
{
	uint32_t i, m, at;

	if (!e->ix) {
		for (i = e->n; i-- > 0;)
			if (strcmp(e->v[i].name, name) == 0)
				return &e->v[i];
		return NULL;
	}
	m = e->ix->cap - 1;
	for (i = h & m; (at = e->ix->slot[i].at) != ENV_EMPTY; i = (i + 1) & m)
		if (e->ix->slot[i].hash == h && at < e->n && strcmp(e->v[at].name, name) == 0)
			return &e->v[at];
	return NULL;
}

Bind *
envfind(const Env *e, const char *name)
{
	return envlookup(e, name, e->ix ? strhash(name) : 0);
}

void
envset(Ctx *c, Bind b)
{
	Env *e = &c->env;
	uint32_t h = strhash(b.name), i, m;
	Bind *o = envlookup(e, b.name, h);

	if (o) {
		*o = b;
		return;
	}
	if (!e->ix || 2 * (e->ix->used + 1) > e->ix->cap)
		e->ix = envindex(c, e, 2 * e->n + 8);
	APUSH(c->tmp, e->v, e->n, e->cap, b);
	m = e->ix->cap - 1;
	for (i = h & m; e->ix->slot[i].at != ENV_EMPTY; i = (i + 1) & m)
		;
	e->ix->slot[i].hash = h;
	e->ix->slot[i].at = e->n - 1;
	e->ix->used++;
}

Env
envcopy(Ctx *c, const Env *e)
{
	Env n;

	n.n = e->n;
	n.cap = e->n + 8;
	n.v = aalloc(c->tmp, n.cap * sizeof *n.v);
	if (e->n)
		memcpy(n.v, e->v, e->n * sizeof *n.v);
	n.ix = NULL;
	if (e->ix && e->ix->used == e->n) {
		/* the index holds e's names only: copy it */
		size_t sz = sizeof *e->ix + e->ix->cap * sizeof e->ix->slot[0];
		n.ix = aalloc(c->tmp, sz);
		memcpy(n.ix, e->ix, sz);
	} else if (e->n) {
		n.ix = envindex(c, e, e->n + 8);
	}
	return n;
}

bool
samebind(const Bind *a, const Bind *b)
{
	if (!a || !b)
		return a == b;
	if (a->fn || b->fn)
		return a->fn && b->fn && a->fn->kind == b->fn->kind && a->fn->fd == b->fn->fd && a->fn->sl == b->fn->sl &&
		       a->fn->xt == b->fn->xt &&
		       (a->fn->s == b->fn->s || (a->fn->s && b->fn->s && strcmp(a->fn->s, b->fn->s) == 0));
	if (a->ghost || b->ghost)
		return a->ghost && b->ghost && typeeq(a->gty, b->gty);
	return a->v == b->v && a->poison == b->poison && a->zinit == b->zinit;
}

/* The type Warp gives the name's current binding. */
Type
bindtype(Ctx *c, const Bind *b)
{
	if (!b || b->poison || b->fn)
		return tvoid();
	if (b->ghost)
		return b->gty;
	return vty(c->f, b->v);
}

void
ghost(Ctx *c, const char *name, Type t)
{
	Bind g = {0};

	if (t.k == T_VOID)
		return;
	g.name = name;
	g.ghost = true;
	g.gty = t;
	envset(c, g);
}

void
nameval(Ctx *c, Val v, const char *name)
{
	Value *x;

	if (!v || v >= c->f->nvals)
		return;
	x = &c->f->vals[v];
	if ((x->kind == V_RES || x->kind == V_PARAM) && !x->name)
		x->name = astrdup(c->m->arena, kirident(c->tmp, name));
}

/* Give a placeholder loop value (a carried variable first bound in the
 * body) its type, and the loop's result and the outer placeholders that
 * feed it. */
void
settype(Ctx *c, Val v, Type t)
{
	Value *x = &c->f->vals[v];
	Op *op = x->def;
	int i, first;

	if (x->ty.k != T_VOID)
		return;
	x->ty = t;
	if (x->kind != V_PARAM || !op || (op->code != OP_FOR && op->code != OP_WHILE))
		return;
	first = op->code == OP_FOR;
	i = x->idx - first;
	if (i >= 0 && i < op->nres)
		c->f->vals[op->res[i]].ty = t;
	if (op->args && i + (first ? 3 : 0) < op->nargs) {
		Val init = op->args[i + (first ? 3 : 0)];
		if (init && c->f->vals[init].ty.k == T_VOID)
			settype(c, init, t);
	}
}

void
assignname(Ctx *c, const char *name, X x, Loc loc, bool fromname)
{
	Bind b, *o = envfind(&c->env, name);

	memset(&b, 0, sizeof b);
	b.name = name;
	if (x.k == X_G && x.g.kind == G_SLICE && x.g.n == 0) {
		/* an array view (sub = a[1:3]): a view of the same type may
		 * replace it, but kir's loops do not carry views */
		if (o && !o->poison && !(o->fn && o->fn->kind == G_SLICE)) {
			serr(c, loc, "Error, assigning to existing symbol %s with an array slice (kpyc keeps a slice "
			     "in a local only when the local holds slices throughout)", name);
			b.poison = true;
		} else if (o && o->fn && !typeeq(telem(vty(c->f, o->fn->sl->base)), telem(vty(c->f, x.g.sl->base)))) {
			/* Warp's types_equal compares an array's dtype, not its ndim */
			serr(c, loc, "Error, assigning to existing symbol %s (array(dtype=%s)) with different type "
			     "(array(dtype=%s))", name, wptypename(c->m, telem(vty(c->f, o->fn->sl->base))),
			     wptypename(c->m, telem(vty(c->f, x.g.sl->base))));
			b.poison = true;
		} else if (o && o->fn && c->loop) {
			serr(c, loc, "kpyc does not rebind an array slice inside a loop ('%s'): kir's loops carry values, "
			     "not views", name);
			b.poison = true;
		} else {
			b.fn = aalloc(c->tmp, sizeof *b.fn);
			*b.fn = x.g;
		}
		envset(c, b);
		return;
	}
	if (x.k == X_G && (x.g.kind == G_FUNC || (x.g.kind == G_WPNAME && builtinop(c->k, x.g.s) >= 0))) {
		/* a local bound to a function: calls through it go to the function */
		if (o && !o->poison && !o->fn) {
			serr(c, loc, "Error, rebinding the value-holding local '%s' to a function is not supported", name);
			b.poison = true;
		} else if (o && o->fn && !samebind(o, &(Bind){.fn = &x.g})) {
			serr(c, loc, "Error, rebinding function-valued local '%s' to a different function is not supported. "
			     "Warp does not have function pointers, so a local bound to a function must refer to the same "
			     "function throughout the kernel.", name);
			b.poison = true;
		} else {
			b.fn = aalloc(c->tmp, sizeof *b.fn);
			*b.fn = x.g;
		}
		envset(c, b);
		return;
	}
	if (x.k == X_TUPLE && x.n > 0) {
		/* a local tuple (t = (1, x), t = f() of several results): kpyc
		 * keeps its values, as it keeps a slice; kir's loops do not
		 * carry it */
		int i;
		for (i = 0; i < x.n; i++)
			if (x.elts[i].k != X_VAL) {
				serr(c, loc, "kpyc binds '%s' to a tuple of values only (element %d is not a value)", name, i);
				b.poison = true;
				envset(c, b);
				return;
			}
		if (o && o->zinit && !o->fn) {
			serr(c, loc, "kpyc does not carry a tuple out of a loop ('%s' is read after it): kir's loops "
			     "carry values, not tuples", name);
			b.poison = true;
		} else if (o && !o->poison && !(o->fn && o->fn->kind == G_VTUPLE)) {
			serr(c, loc, "Error, assigning to existing symbol %s (%s) with different type (tuple)", name,
			     o->fn ? (o->fn->kind == G_SLICE ? "an array slice" : "a function") : wptypename(c->m, bindtype(c, o)));
			b.poison = true;
		} else if (o && o->fn && c->loop) {
			serr(c, loc, "kpyc does not rebind a tuple inside a loop ('%s'): kir's loops carry values, "
			     "not tuples", name);
			b.poison = true;
		} else {
			b.fn = aalloc(c->tmp, sizeof *b.fn);
			memset(b.fn, 0, sizeof *b.fn);
			b.fn->kind = G_VTUPLE;
			b.fn->n = x.n;
			b.fn->xt = aalloc(c->tmp, (size_t)x.n * sizeof *b.fn->xt);
			for (i = 0; i < x.n; i++) {
				b.fn->xt[i] = x.elts[i];
				b.fn->xt[i].name = NULL;
			}
		}
		envset(c, b);
		return;
	}
	if (o && o->fn) {
		serr(c, loc, "Error, rebinding function-valued local '%s' to a non-function value is not supported. Warp "
		     "does not have function pointers, so a local bound to a function must refer to a function "
		     "throughout the kernel.", name);
		b.poison = true;
		envset(c, b);
		return;
	}
	if (x.k != X_VAL) {
		if (x.k == X_TUPLE && x.n == 0)
			serr(c, loc, "the call returns no value to assign to '%s'", name);
		else if (x.k == X_TUPLE)
			serr(c, loc, "a tuple cannot be assigned to the single variable '%s'; unpack it (a, b = ...)", name);
		else if (x.k == X_G || x.k == X_SHAPE)
			serr(c, loc, "'%s' cannot hold a %s; only values can be assigned to variables", name,
			     x.k == X_SHAPE ? "shape" : x.g.kind == G_TYPE ? "type" : x.g.kind == G_FUNC ? "function" : "module");
		b.poison = true;
		envset(c, b);
		return;
	}
	if (o && !o->poison) {
		Type had = bindtype(c, o), now = vty(c->f, x.v);
		if (o->zinit && had.k == T_VOID) {
			settype(c, o->v, now);
		} else if (!typeeq(had, now)) {
			serr(c, loc, "Error, assigning to existing symbol %s (%s) with different type (%s)", name,
			     wptypename(c->m, had), wptypename(c->m, now));
			b.poison = true;
			envset(c, b);
			return;
		}
	}
	if (vty(c->f, x.v).k == T_STR) {
		/* a string constant: only print/printf can use it */
	}
	b.v = x.v;
	b.wconst = x.wconst && !fromname;
	b.lit = b.wconst ? x.lit : (Lit){0};
	b.hasrange = b.wconst && x.hasrange;
	b.lo = x.lo;
	b.hi = x.hi;
	nameval(c, x.v, name);
	envset(c, b);
}
