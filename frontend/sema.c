/*
 * sema.c — from a function's statements to structured SSA kir.
 *
 * Variables.  A body keeps an environment (Env) from Python names to
 * their current kir value; an assignment rebinds the name (SSA: a new
 * value, named after the variable; the printer numbers redefinitions).
 * Warp forbids changing a variable's type, and so does kpyc.
 *
 * if/elif/else.  Both branches are compiled into regions from a copy of
 * the environment.  Every variable bound differently by the two branches
 * and still live after the statement becomes a result of the `if`, each
 * branch yielding its version.  A variable first bound in only one branch
 * gets, from the other branch, a zero of its type (Warp leaves it
 * uninitialised there; kir has no undefined values).  When the `then`
 * branch ends in return/break/continue, the `else` branch is compiled
 * after the `if` instead (it is the only way on), so no merge is needed.
 * Conditions that are compile-time constants for Warp (literals, module
 * constants) select a branch at compile time, as in Warp.
 *
 * Loops.  `for i in range(...)` becomes `for %i = lo to hi step s`, and
 * `while` a while op with a condition region.  A variable assigned in the
 * body is carried (an `iter` argument, a loop result) when it is live at
 * the loop's head (read before being reassigned in an iteration) or live
 * after the loop; liveness is computed once per body by a backward pass
 * over the AST (lv*).  A carried variable not bound before the loop starts
 * as a zero and is undefined in the body until assigned.  break carries
 * the loop's results, continue the next iteration's values.
 *
 * Warp's loop rule.  Warp unrolls `for` loops over range() with constant
 * arguments, at most max_unroll (16) iterations and no `break`; other
 * loops are dynamic, and assigning inside a dynamic loop a variable that
 * Warp holds as a compile-time constant (x = 0.0) is an error there
 * ("Error mutating a constant x inside a dynamic loop").  kpyc emits every
 * loop as a loop (unrolling is kopt's job) but applies the same rule.
 *
 * Functions.  Kernels are compiled in source order; a call to a @wp.func
 * compiles an instance for the argument types (generic functions get one
 * per type list).  Functions no kernel calls are compiled afterwards;
 * their errors are warnings and such a function is left out, since Warp
 * never compiles a function nothing calls.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

static void stmts(Ctx *c, NodeList *l);

void
serr(Ctx *c, Loc loc, const char *fmt, ...)
{
	va_list ap;
	Buf b = {0};

	va_start(ap, fmt);
	bufvprintf(&b, fmt, ap);
	va_end(ap);
	kerr(c->k, loc, "%s", b.s);
	buffree(&b);
}

/* Warp's max_unroll for this body: the kernel's module_options, the
 * module's options or wp.config, else kpyc's --max-unroll. */
static int
maxunroll(Ctx *c)
{
	if (c->fd->max_unroll)
		return c->fd->max_unroll - 1;
	if (c->file->max_unroll)
		return c->file->max_unroll - 1;
	return c->k->o->max_unroll;
}

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

static bool
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
static Type
bindtype(Ctx *c, const Bind *b)
{
	if (!b || b->poison || b->fn)
		return tvoid();
	if (b->ghost)
		return b->gty;
	return vty(c->f, b->v);
}

static void
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
static void
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

/* ---- liveness ------------------------------------------------------- */

typedef struct LvLoop {
	struct LvLoop *up;
	uint64_t *brk;   /* live after the loop */
	uint64_t *cont;  /* live at the loop's head */
} LvLoop;

typedef struct Lv {
	Ctx *c;
	LvLoop *loop;
} Lv;

static uint32_t
lvbit(Ctx *c, const char *name)
{
	uint32_t b = nmget(&c->lnames, name);
	return b;
}

static uint64_t *
lvnew(Ctx *c)
{
	return aalloc(c->tmp, (c->nw ? c->nw : 1) * sizeof(uint64_t));
}

static void
lvcopy(Ctx *c, uint64_t *d, const uint64_t *s)
{
	memcpy(d, s, c->nw * sizeof *d);
}

static void
lvor(Ctx *c, uint64_t *d, const uint64_t *s)
{
	uint32_t i;
	for (i = 0; i < c->nw; i++)
		d[i] |= s[i];
}

static bool
lvhas(Ctx *c, const uint64_t *s, const char *name)
{
	uint32_t b = lvbit(c, name);
	if (!s || b == UINT32_MAX)
		return false;
	return (s[b / 64] >> (b % 64)) & 1;
}

static void
lvset(Ctx *c, uint64_t *s, const char *name, bool on)
{
	uint32_t b = lvbit(c, name);
	if (b == UINT32_MAX)
		return;
	if (on)
		s[b / 64] |= (uint64_t)1 << (b % 64);
	else
		s[b / 64] &= ~((uint64_t)1 << (b % 64));
}

/* Number every name of the body. */
static void
lvnames(Ctx *c, Node *n)
{
	uint32_t i;

	if (!n)
		return;
	if ((n->kind == E_NAME || n->kind == P_PARAM) && nmget(&c->lnames, n->s) == UINT32_MAX)
		nmput(c->tmp, &c->lnames, n->s, c->lnames.n);
	if (n->kind == S_DEF || n->kind == S_CLASS)
		return;
	lvnames(c, n->a);
	lvnames(c, n->b);
	lvnames(c, n->c);
	for (i = 0; i < n->l1.n; i++)
		lvnames(c, n->l1.v[i]);
	for (i = 0; i < n->l2.n; i++)
		lvnames(c, n->l2.v[i]);
}

/* Add the names an expression reads. */
static void
lvuses(Ctx *c, uint64_t *s, Node *n)
{
	uint32_t i;

	if (!n)
		return;
	if (n->kind == E_NAME) {
		lvset(c, s, n->s, true);
		return;
	}
	lvuses(c, s, n->a);
	lvuses(c, s, n->b);
	lvuses(c, s, n->c);
	for (i = 0; i < n->l1.n; i++)
		lvuses(c, s, n->l1.v[i]);
	for (i = 0; i < n->l2.n; i++)
		lvuses(c, s, n->l2.v[i]);
}

static void lvstmts(Lv *lv, NodeList *l, uint64_t *io);

/* A store target: kill plain names, read the rest. */
static void
lvtarget(Ctx *c, uint64_t *s, Node *t, bool kill)
{
	uint32_t i;

	if (t->kind == E_NAME) {
		if (kill)
			lvset(c, s, t->s, false);
		else
			lvset(c, s, t->s, true);
	} else if (t->kind == E_TUPLE) {
		for (i = 0; i < t->l1.n; i++)
			lvtarget(c, s, t->l1.v[i], kill);
	} else {
		lvuses(c, s, t);
	}
}

static void
lvstmt(Lv *lv, Node *s, uint64_t *io)
{
	Ctx *c = lv->c;
	uint64_t *a, *b;
	uint32_t i;

	switch (s->kind) {
	case S_ASSIGN:
		for (i = 0; i < s->l1.n; i++)
			lvtarget(c, io, s->l1.v[i], true);
		for (i = 0; i < s->l1.n; i++)
			if (s->l1.v[i]->kind != E_NAME && s->l1.v[i]->kind != E_TUPLE)
				lvuses(c, io, s->l1.v[i]);
		lvuses(c, io, s->a);
		break;
	case S_AUGASSIGN:
		lvuses(c, io, s->a);
		lvuses(c, io, s->b);
		break;
	case S_IF:
		s->live = lvnew(c);
		lvcopy(c, s->live, io);
		a = lvnew(c);
		lvcopy(c, a, io);
		lvstmts(lv, &s->l1, a);
		lvstmts(lv, &s->l2, io);
		lvor(c, io, a);
		lvuses(c, io, s->a);
		break;
	case S_FOR:
	case S_WHILE: {
		LvLoop L;
		uint64_t *out = lvnew(c), *head = lvnew(c), *body = lvnew(c), *nhead = lvnew(c);
		int iter;
		lvcopy(c, out, io);
		/* the else clause runs after a loop that did not break */
		if (s->l2.n)
			lvstmts(lv, &s->l2, io);
		lvcopy(c, head, io);
		for (iter = 0; iter < 64; iter++) {
			L.up = lv->loop;
			L.brk = out;
			L.cont = head;
			lv->loop = &L;
			lvcopy(c, body, head);
			lvstmts(lv, &s->l1, body);
			lv->loop = L.up;
			lvcopy(c, nhead, io);
			if (s->kind == S_FOR) {
				/* the head assigns the target, then runs the body */
				b = lvnew(c);
				lvcopy(c, b, body);
				lvtarget(c, b, s->a, true);
				lvor(c, nhead, b);
			} else {
				lvor(c, nhead, body);
				lvuses(c, nhead, s->a);
			}
			if (memcmp(nhead, head, c->nw * sizeof *head) == 0)
				break;
			lvcopy(c, head, nhead);
		}
		s->live = aalloc(c->tmp, 2 * (c->nw ? c->nw : 1) * sizeof(uint64_t));
		lvcopy(c, s->live, out);
		lvcopy(c, s->live + c->nw, s->kind == S_FOR ? body : head);
		lvcopy(c, io, head);
		if (s->kind == S_FOR)
			lvuses(c, io, s->b);
		break;
	}
	case S_BREAK:
		if (lv->loop)
			lvcopy(c, io, lv->loop->brk);
		break;
	case S_CONTINUE:
		if (lv->loop)
			lvcopy(c, io, lv->loop->cont);
		break;
	case S_RETURN:
		memset(io, 0, c->nw * sizeof *io);
		lvuses(c, io, s->a);
		break;
	case S_EXPR:
	case S_ASSERT:
		lvuses(c, io, s->a);
		lvuses(c, io, s->b);
		break;
	default:
		break;
	}
}

static void
lvstmts(Lv *lv, NodeList *l, uint64_t *io)
{
	uint32_t i;

	for (i = l->n; i-- > 0;)
		lvstmt(lv, l->v[i], io);
}

static void
liveness(Ctx *c, Node *def)
{
	Lv lv = {c, NULL};
	uint64_t *io;
	uint32_t i;

	for (i = 0; i < def->l2.n; i++)
		lvnames(c, def->l2.v[i]);
	for (i = 0; i < def->l1.n; i++)
		lvnames(c, def->l1.v[i]);
	c->nw = (c->lnames.n + 63) / 64;
	if (c->nw == 0)
		c->nw = 1;
	io = lvnew(c);
	lvstmts(&lv, &def->l1, io);
}

/* ---- what a loop body assigns -------------------------------------- */

typedef struct Assigned {
	const char **names;
	Loc *locs;
	uint32_t n, cap, capl;
} Assigned;

static void
addassigned(Ctx *c, Assigned *as, const char *name, Loc loc)
{
	uint32_t i;

	for (i = 0; i < as->n; i++)
		if (strcmp(as->names[i], name) == 0)
			return;
	APUSH(c->tmp, as->locs, i, as->capl, loc);
	APUSH(c->tmp, as->names, as->n, as->cap, name);
}

/* A call that rebinds the variable passed first: random numbers (the new
 * state) and Warp's in-place transform setters. */
static bool
israndcall(Ctx *c, Node *e)
{
	const char *fn;
	int op;

	if (e->kind != E_CALL || e->l1.n == 0 || e->l1.v[0]->kind != E_NAME)
		return false;
	fn = e->a->kind == E_ATTR ? e->a->s : e->a->kind == E_NAME ? e->a->s : NULL;
	if (!fn)
		return false;
	op = builtinop(c->k, fn);
	return op >= 0 && ((opinfo[op].flags & F_RAND) || op == OP_TRANSFORM_SET_TRANSLATION ||
	                   op == OP_TRANSFORM_SET_ROTATION);
}

static void
scanrand(Ctx *c, Assigned *as, Node *e)
{
	uint32_t i;

	if (!e)
		return;
	if (israndcall(c, e))
		addassigned(c, as, e->l1.v[0]->s, e->loc);
	scanrand(c, as, e->a);
	scanrand(c, as, e->b);
	scanrand(c, as, e->c);
	for (i = 0; i < e->l1.n; i++)
		scanrand(c, as, e->l1.v[i]);
	for (i = 0; i < e->l2.n; i++)
		scanrand(c, as, e->l2.v[i]);
}

/* The local a store to target rebinds (v[0] = x rebinds v), or NULL when
 * the store goes to memory (a[i] = x, s.arr[i] = x). */
static const char *
storeroot(Ctx *c, Node *t)
{
	Node *path[64];
	int n = 0, i;
	Bind *b;
	Type ty;

	while ((t->kind == E_SUBSCRIPT || t->kind == E_ATTR) && n < 64) {
		path[n++] = t;
		t = t->a;
	}
	if (t->kind != E_NAME)
		return NULL;
	b = envfind(&c->env, t->s);
	if (!b || b->poison || !b->v)
		return t->s;
	ty = vty(c->f, b->v);
	for (i = n - 1; i >= 0; i--) {
		if (ty.k == T_ARRAY)
			return NULL;
		if (path[i]->kind == E_ATTR) {
			if (ty.k == T_STRUCT) {
				int fi = fieldindex(c->m, ty.sid, kirident(c->tmp, path[i]->s));
				if (fi < 0)
					return t->s;
				ty = c->m->structs[ty.sid].fields[fi].ty;
			} else if (ty.k == T_XFORM) {
				ty = path[i]->s[0] == 'p' ? tvec(3, ty.s) : tquat(ty.s);
			} else {
				ty = tcomp(ty);
			}
		} else {
			if (ty.k == T_MAT && path[i]->l1.n == 1)
				ty = tvec(ty.m, ty.s);
			else
				ty = tcomp(ty);
		}
	}
	return t->s;
}

static void
scanassigned(Ctx *c, Assigned *as, NodeList *l)
{
	uint32_t i, j;

	for (i = 0; i < l->n; i++) {
		Node *s = l->v[i];
		switch (s->kind) {
		case S_ASSIGN:
			for (j = 0; j < s->l1.n; j++) {
				Node *t = s->l1.v[j];
				if (t->kind == E_NAME) {
					addassigned(c, as, t->s, t->loc);
				} else if (t->kind == E_TUPLE) {
					uint32_t q;
					for (q = 0; q < t->l1.n; q++)
						if (t->l1.v[q]->kind == E_NAME)
							addassigned(c, as, t->l1.v[q]->s, t->l1.v[q]->loc);
				} else {
					const char *r = storeroot(c, t);
					if (r)
						addassigned(c, as, r, t->loc);
				}
			}
			scanrand(c, as, s->a);
			break;
		case S_AUGASSIGN:
			if (s->a->kind == E_NAME) {
				addassigned(c, as, s->a->s, s->a->loc);
			} else {
				const char *r = storeroot(c, s->a);
				if (r)
					addassigned(c, as, r, s->a->loc);
			}
			scanrand(c, as, s->b);
			break;
		case S_IF:
			scanrand(c, as, s->a);
			scanassigned(c, as, &s->l1);
			scanassigned(c, as, &s->l2);
			break;
		case S_FOR:
			if (s->a->kind == E_NAME)
				addassigned(c, as, s->a->s, s->a->loc);
			scanrand(c, as, s->b);
			scanassigned(c, as, &s->l1);
			scanassigned(c, as, &s->l2);
			break;
		case S_WHILE:
			scanrand(c, as, s->a);
			scanassigned(c, as, &s->l1);
			scanassigned(c, as, &s->l2);
			break;
		case S_EXPR:
		case S_RETURN:
		case S_ASSERT:
			scanrand(c, as, s->a);
			break;
		default:
			break;
		}
	}
}

/* Does the body break out of this loop (not of a nested one)? */
static bool
hasbreak(NodeList *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		Node *s = l->v[i];
		if (s->kind == S_BREAK)
			return true;
		if (s->kind == S_IF && (hasbreak(&s->l1) || hasbreak(&s->l2)))
			return true;
	}
	return false;
}

/* Does the subtree n call wp.static()?  (Warp unrolls a loop over a
 * constant range() that does, past max_unroll and despite a break.) */
static bool
hasstatic(Ctx *c, Node *n)
{
	uint32_t i;
	const NodeList *ls[3];
	int j;

	if (!n)
		return false;
	if (n->kind == E_CALL) {
		GVal g = geval(c->k, c->file, n->a, true);
		if (g.kind == G_WPNAME && strcmp(g.s, "static") == 0)
			return true;
	}
	if (hasstatic(c, n->a) || hasstatic(c, n->b) || hasstatic(c, n->c))
		return true;
	ls[0] = &n->l1;
	ls[1] = &n->l2;
	ls[2] = &n->l3;
	for (j = 0; j < 3; j++)
		for (i = 0; i < ls[j]->n; i++)
			if (hasstatic(c, ls[j]->v[i]))
				return true;
	return false;
}

/* Warp's rule: in a dynamic loop, a variable holding a compile-time
 * constant must not be reassigned. */
static void
checkconstmut(Ctx *c, Assigned *as, const char *target)
{
	uint32_t i;

	for (i = 0; i < as->n; i++) {
		Bind *b = envfind(&c->env, as->names[i]);
		if (target && strcmp(as->names[i], target) == 0)
			continue;
		if (b && !b->poison && !b->zinit && b->wconst && !b->hasrange)
			serr(c, as->locs[i],
			     "Error mutating a constant %s inside a dynamic loop, use the following syntax: "
			     "pi = float(3.141) to declare a dynamic variable", as->names[i]);
	}
}

/* ---- regions -------------------------------------------------------- */

bool
regionpure(const Region *r)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		if (!(opinfo[r->ops[i]->code].flags & F_PURE))
			return false;
	return true;
}

static Op *
term(Ctx *c, int code, const Val *args, int n, Loc loc)
{
	Op *op = mkop(c->m, c->f, code, args, n, NULL, 0, loc);
	regpush(c->m, c->b.r, op);
	c->dead = true;
	return op;
}

/* The current values of the innermost loop's carried variables. */
static Val *
loopvals(Ctx *c, LoopCtx *lc, Loc loc)
{
	Val *v = aalloc(c->tmp, (size_t)(lc->nc + 1) * sizeof *v);
	int i;

	for (i = 0; i < lc->nc; i++) {
		Bind *b = envfind(&c->env, lc->names[i]);
		Val p = lc->op->params[lc->first + i];
		if (!b || b->poison || !b->v) {
			v[i] = p;
			continue;
		}
		if (b->zinit) {
			v[i] = b->v;
			continue;
		}
		if (vty(c->f, p).k == T_VOID)
			settype(c, p, vty(c->f, b->v));
		if (!typeeq(vty(c->f, b->v), vty(c->f, p))) {
			serr(c, loc, "Error, assigning to existing symbol %s (%s) with different type (%s)", lc->names[i],
			     wptypename(c->m, vty(c->f, p)), wptypename(c->m, vty(c->f, b->v)));
			v[i] = p;
			continue;
		}
		v[i] = b->v;
	}
	return v;
}

/* ---- if ------------------------------------------------------------- */

static bool
constcond(Ctx *c, X x, bool *truth)
{
	const Value *v;

	if (x.k != X_VAL || !x.wconst || x.hasrange || !isconst(c->f, x.v))
		return false;
	v = val(c->f, x.v);
	if (v->ty.k != T_SCALAR)
		return false;
	*truth = scalarisfloat(v->ty.s) ? v->c[0].f != 0 : v->c[0].u != 0;
	return true;
}

static void
ifstmt(Ctx *c, Node *s)
{
	X cx = expr(c, s->a);
	Val cond;
	bool truth;
	Env pre, tenv, eenv;
	Region rt = {0}, re = {0}, *parent = c->b.r;
	bool edead;
	Op *op;
	const char **names;
	Val *tv, *ev;
	Type *tys;
	uint32_t i, nn = 0, cap;
	int nm = 0;

	if (constcond(c, cx, &truth)) {
		stmts(c, truth ? &s->l1 : &s->l2);
		return;
	}
	cond = cx.k == X_NONE ? 0 : condval(c, cx, s->a->loc);
	if (!cond)
		cond = cbool(c->m, c->f, true);
	pre = envcopy(c, &c->env);
	/* then */
	c->b.r = &rt;
	c->dead = false;
	stmts(c, &s->l1);
	if (c->dead) {
		op = mkop(c->m, c->f, OP_IF, &cond, 1, NULL, 0, s->loc);
		opsetregions(c->m, op, 2);
		op->regs[0] = rt;
		regpush(c->m, &op->regs[1], mkop(c->m, c->f, OP_YIELD, NULL, 0, NULL, 0, s->loc));
		regpush(c->m, parent, op);
		c->b.r = parent;
		c->dead = false;
		c->env = pre;
		stmts(c, &s->l2);
		return;
	}
	tenv = c->env;
	/* else */
	c->env = envcopy(c, &pre);
	c->b.r = &re;
	c->dead = false;
	stmts(c, &s->l2);
	edead = c->dead;
	eenv = c->env;
	c->b.r = parent;
	c->dead = false;
	/* the variables to merge */
	cap = tenv.n + eenv.n + 1;
	names = aalloc(c->tmp, cap * sizeof *names);
	for (i = 0; i < tenv.n; i++)
		names[nn++] = tenv.v[i].name;
	for (i = 0; i < eenv.n; i++)
		if (!envfind(&tenv, eenv.v[i].name))
			names[nn++] = eenv.v[i].name;
	tv = aalloc(c->tmp, cap * sizeof *tv);
	ev = aalloc(c->tmp, cap * sizeof *ev);
	tys = aalloc(c->tmp, cap * sizeof *tys);
	c->env = envcopy(c, &pre);
	{
		const char **mnames = aalloc(c->tmp, cap * sizeof *mnames);
		bool *mconst = aalloc(c->tmp, cap * sizeof *mconst);
		for (i = 0; i < nn; i++) {
			const char *x = names[i];
			Bind *bt = envfind(&tenv, x), *be = edead ? NULL : envfind(&eenv, x), *bp = envfind(&pre, x);
			if (edead ? samebind(bt, bp) : samebind(bt, be)) {
				if (bt && !samebind(bt, bp))
					envset(c, *bt); /* both branches agree on a value from before */
				continue;
			}
			if (!lvhas(c, s->live, x)) {
				/* dead after the if, so kir keeps no value; Warp still merges
				 * the two versions, which must have one type, and keeps the name */
				Type ta = bindtype(c, bt), tb = bindtype(c, be);
				if (ta.k != T_VOID && tb.k != T_VOID && !typeeq(ta, tb)) {
					serr(c, s->loc, "variable '%s' is %s after the if branch but %s after the else branch "
					     "(Warp: where() true value type must be of the same type as the false type)", x,
					     wptypename(c->m, ta), wptypename(c->m, tb));
				} else if (!bp || bp->ghost) {
					ghost(c, x, ta.k != T_VOID ? ta : tb);
				}
				continue;
			}
			if ((bt && bt->fn && bt->fn->kind == G_SLICE) || (be && be->fn && be->fn->kind == G_SLICE)) {
				serr(c, s->loc, "'%s' is bound to different array slices in the branches of this if (kpyc "
				     "keeps a slice only where it is made)", x);
				continue;
			}
			if ((bt && bt->fn && bt->fn->kind == G_VTUPLE) || (be && be->fn && be->fn->kind == G_VTUPLE)) {
				serr(c, s->loc, "'%s' is bound to different tuples in the branches of this if (kpyc keeps a "
				     "tuple only where it is made)", x);
				continue;
			}
			if (!bp && ((bt && bt->fn && bt->fn->kind != G_SLICE && !be) ||
			            (be && be->fn && be->fn->kind != G_SLICE && !bt && !edead))) {
				/* bound to a function on one path only: Warp's merge keeps
				 * that binding (codegen.py emit_If, "only assigned on the
				 * 'if' path") */
				envset(c, bt ? *bt : *be);
				continue;
			}
			if ((bt && bt->fn) || (be && be->fn)) {
				serr(c, s->loc, "'%s' is bound to different functions in the branches of this if", x);
				continue;
			}
			if ((bt && bt->poison) || (be && be->poison)) {
				Bind pb = {0};
				pb.name = x;
				pb.poison = true;
				envset(c, pb);
				continue;
			}
			if (bt && be && bt->zinit && be->zinit)
				continue;
			{
				Type t = bt ? vty(c->f, bt->v) : vty(c->f, be->v);
				Val a = bt ? bt->v : 0, b = edead ? 0 : be ? be->v : 0;
				if (bt && be && !typeeq(vty(c->f, bt->v), vty(c->f, be->v))) {
					if (vty(c->f, bt->v).k == T_VOID)
						t = vty(c->f, be->v), settype(c, bt->v, t);
					else if (vty(c->f, be->v).k == T_VOID)
						settype(c, be->v, t);
					else {
						serr(c, s->loc, "variable '%s' is %s after the if branch but %s after the else branch "
						     "(Warp: where() true value type must be of the same type as the false type)", x,
						     wptypename(c->m, vty(c->f, bt->v)), wptypename(c->m, vty(c->f, be->v)));
						Bind pb = {0};
						pb.name = x;
						pb.poison = true;
						envset(c, pb);
						continue;
					}
				}
				if (t.k == T_ARRAY && (!a || (!edead && !b))) {
					serr(c, s->loc, "array variable '%s' is assigned in only one branch; assign it before the if", x);
					continue;
				}
				if (!a) {
					Region *sv = c->b.r;
					c->b.r = &rt;
					a = zeroval(c, t, s->loc);
					c->b.r = sv;
				}
				if (!edead && !b) {
					Region *sv = c->b.r;
					c->b.r = &re;
					b = zeroval(c, t, s->loc);
					c->b.r = sv;
				}
				tv[nm] = a;
				ev[nm] = b;
				tys[nm] = t;
				mnames[nm] = x;
				mconst[nm] = false;
				nm++;
			}
		}
		op = mkop(c->m, c->f, OP_IF, &cond, 1, tys, nm, s->loc);
		opsetregions(c->m, op, 2);
		regpush(c->m, &rt, mkop(c->m, c->f, OP_YIELD, tv, nm, NULL, 0, s->loc));
		if (!edead)
			regpush(c->m, &re, mkop(c->m, c->f, OP_YIELD, ev, nm, NULL, 0, s->loc));
		op->regs[0] = rt;
		op->regs[1] = re;
		regpush(c->m, parent, op);
		for (i = 0; i < (uint32_t)nm; i++) {
			Bind b = {0};
			b.name = mnames[i];
			b.v = op->res[i];
			nameval(c, b.v, b.name);
			envset(c, b);
		}
	}
}

/* ---- loops ---------------------------------------------------------- */

/* Choose the carried variables of a loop and bind them in a fresh body
 * environment; returns their count (names, types, inits filled). */
static int
carried(Ctx *c, Node *s, Assigned *as, const char *target, const char ***names, Type **tys, Val **inits,
        bool **zinit)
{
	const uint64_t *out = s->live, *head = s->live + c->nw;
	int n = 0;
	uint32_t i;

	*names = aalloc(c->tmp, (as->n + 1) * sizeof **names);
	*tys = aalloc(c->tmp, (as->n + 1) * sizeof **tys);
	*inits = aalloc(c->tmp, (as->n + 1) * sizeof **inits);
	*zinit = aalloc(c->tmp, (as->n + 1) * sizeof **zinit);
	for (i = 0; i < as->n; i++) {
		const char *x = as->names[i];
		Bind *b = envfind(&c->env, x);
		bool bound = b && !b->poison && b->v;
		bool need = lvhas(c, out, x) || (bound && lvhas(c, head, x));
		if (!need || (b && (b->poison || b->fn)))
			continue;
		(*names)[n] = x;
		if (bound) {
			(*tys)[n] = vty(c->f, b->v);
			(*inits)[n] = b->v;
			(*zinit)[n] = b->zinit;
		} else {
			(*tys)[n] = target && strcmp(x, target) == 0 ? tscalar(S_I32) : b && b->ghost ? b->gty : tvoid();
			(*inits)[n] = 0;
			(*zinit)[n] = true;
		}
		n++;
	}
	return n;
}

/* After the body: give placeholders their zero initial values (emitted
 * before the loop) and check they got a type. */
static bool
fixinits(Ctx *c, Op *op, int first, int nc, const char **names, Loc loc)
{
	int i, off = first ? 3 : 0;
	bool ok = true;

	for (i = 0; i < nc; i++) {
		Val p = op->params[first + i];
		Type t = vty(c->f, p);
		if (op->args[off + i])
			continue;
		if (t.k == T_VOID) {
			t = tscalar(S_I32);
			settype(c, p, t);
		}
		if (t.k == T_ARRAY) {
			serr(c, loc, "array variable '%s' is first assigned inside the loop and used after it; "
			     "assign it before the loop", names[i]);
			ok = false;
			op->args[off + i] = p;
			continue;
		}
		op->args[off + i] = zeroval(c, t, loc);
	}
	return ok;
}

static void
bindcarried(Ctx *c, Op *op, int first, int nc, const char **names, bool *zinit)
{
	int i;

	for (i = 0; i < nc; i++) {
		Bind b = {0};
		b.name = names[i];
		b.v = op->params[first + i];
		b.zinit = zinit[i];
		nameval(c, b.v, names[i]);
		envset(c, b);
	}
}

/* Python's else clause of a loop. */
static void
loopelse(Ctx *c, Node *s)
{
	if (!s->l2.n)
		return;
	if (hasbreak(&s->l1)) {
		serr(c, s->oploc, "an else clause on a loop that breaks is not supported (Warp drops the else body)");
		return;
	}
	kwarn(c->k, s->oploc, "Warp ignores the else clause of a loop; kpyc runs it after the loop as Python does");
	stmts(c, &s->l2);
}

/* The loop's bounds after reversed(): range(lo, hi, st) backwards is
 * range(last, lo - sign(st), -st) with last = lo + ((hi - lo - sign) // st) * st. */
static bool
reverserange(Ctx *c, X *lo, X *hi, X *st, Loc loc)
{
	int64_t s, sg;
	Val one, t;

	if (!st->wconst || !isconst(c->f, st->v) || st->hasrange) {
		/* a step known at run time: sg = sign(st) */
		Val a = lo->v, b = hi->v, sv = st->v, sg, args[2];
		if (!(sg = emit1(c, OP_SIGN, &sv, 1, loc, "reversed range")))
			return false;
		args[0] = b;
		args[1] = a;
		t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		args[0] = t;
		args[1] = sg;
		t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		args[0] = t;
		args[1] = sv;
		t = emit1(c, OP_FLOORDIV, args, 2, loc, "reversed range");
		args[0] = t;
		args[1] = sv;
		t = emit1(c, OP_MUL, args, 2, loc, "reversed range");
		args[0] = a;
		args[1] = t;
		if (!(t = emit1(c, OP_ADD, args, 2, loc, "reversed range")))
			return false;
		args[0] = a;
		args[1] = sg;
		hi->v = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		lo->v = t;
		st->v = emit1(c, OP_NEG, &sv, 1, loc, "reversed range");
		return hi->v && st->v;
	}
	s = val(c->f, st->v)->c[0].i;
	sg = s > 0 ? 1 : -1;
	if (lo->wconst && hi->wconst && isconst(c->f, lo->v) && isconst(c->f, hi->v) && !lo->hasrange && !hi->hasrange) {
		int64_t a = val(c->f, lo->v)->c[0].i, b = val(c->f, hi->v)->c[0].i, d = b - a - sg, q, last;
		q = d / s;
		if (d % s != 0 && ((d % s < 0) != (s < 0)))
			q--;
		last = a + q * s;
		hi->v = cint(c->m, c->f, S_I32, a - sg);
		lo->v = cint(c->m, c->f, S_I32, last);
	} else {
		Val a = lo->v, b = hi->v, args[2];
		one = cint(c->m, c->f, S_I32, sg);
		if (s == sg) {
			args[0] = b;
			args[1] = one;
			t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		} else {
			args[0] = b;
			args[1] = a;
			t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
			args[0] = t;
			args[1] = one;
			t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
			args[0] = t;
			args[1] = st->v;
			t = emit1(c, OP_FLOORDIV, args, 2, loc, "reversed range");
			args[0] = t;
			args[1] = st->v;
			t = emit1(c, OP_MUL, args, 2, loc, "reversed range");
			args[0] = a;
			args[1] = t;
			t = emit1(c, OP_ADD, args, 2, loc, "reversed range");
		}
		if (!t)
			return false;
		if (isconst(c->f, a)) {
			hi->v = cint(c->m, c->f, S_I32, val(c->f, a)->c[0].i - sg);
		} else {
			args[0] = a;
			args[1] = one;
			hi->v = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		}
		lo->v = t;
	}
	st->v = cint(c->m, c->f, S_I32, -s);
	return true;
}

/* Largest trip count over the values the range's arguments can take. */
static int64_t
tripcount(Ctx *c, X *a, int n)
{
	int64_t lo[3], hi[3], best = -1;
	int i, m;

	for (i = 0; i < n; i++) {
		if (a[i].hasrange) {
			lo[i] = a[i].lo;
			hi[i] = a[i].hi;
		} else if (a[i].lit.ok && a[i].lit.isint) {
			lo[i] = hi[i] = (int32_t)a[i].lit.i;
		} else if (isconst(c->f, a[i].v)) {
			lo[i] = hi[i] = val(c->f, a[i].v)->c[0].i;
		} else {
			return -1;
		}
	}
	for (m = 0; m < (1 << n); m++) {
		int64_t v[3] = {0, 0, 0}, start = 0, stop, step = 1, cnt;
		for (i = 0; i < n; i++)
			v[i] = (m >> i) & 1 ? hi[i] : lo[i];
		if (n == 1)
			stop = v[0];
		else {
			start = v[0];
			stop = v[1];
			if (n == 3)
				step = v[2];
		}
		if (step == 0)
			return -2;
		if (step > 0)
			cnt = stop > start ? (stop - start + step - 1) / step : 0;
		else
			cnt = start > stop ? (start - stop - step - 1) / -step : 0;
		if (cnt > best)
			best = cnt;
	}
	return best;
}

/* After a loop: names the body bound that are not carried stay known to
 * Warp with their type (a later assignment of another type is an error). */
static void
ghostloop(Ctx *c, Assigned *as, const Env *body, const Env *pre, const char **names, int nc)
{
	uint32_t i;
	int j;

	for (i = 0; i < as->n; i++) {
		const char *x = as->names[i];
		Bind *p = envfind(pre, x), *b = envfind(body, x);
		for (j = 0; j < nc; j++)
			if (strcmp(names[j], x) == 0)
				break;
		if (j < nc || (p && !p->ghost) || !b)
			continue;
		ghost(c, x, bindtype(c, b));
	}
}

static void
forstmt(Ctx *c, Node *s)
{
	Node *it = s->b, *rng;
	X a[3], lo, hi, st, iterfn;
	int na, i, nc;
	bool rev = false, dynamic = true, ok = true;
	int64_t trips = -1;
	Assigned as = {0};
	const char *target, **names;
	Type *tys, *ptys;
	Val *inits, *args;
	bool *zinit;
	Op *op;
	Env pre;
	Region *parent = c->b.r;
	LoopCtx lc;
	Bind tb = {0};

	if (s->a->kind != E_NAME) {
		serr(c, s->a->loc, "a for loop's target must be a single name");
		return;
	}
	target = s->a->s;
	if (it->kind != E_CALL) {
		serr(c, it->loc, "kernels can only iterate over range() and reversed(range())");
		return;
	}
	iterfn = expr(c, it->a);
	if (iterfn.k == X_G && iterfn.g.kind == G_PYNAME && strcmp(iterfn.g.s, "builtins.reversed") == 0 &&
	    it->l1.n == 1 && it->l2.n == 0 && it->l1.v[0]->kind == E_CALL) {
		rev = true;
		rng = it->l1.v[0];
		iterfn = expr(c, rng->a);
	} else {
		rng = it;
	}
	if (iterfn.k == X_NONE)
		return;
	if (!(iterfn.k == X_G && iterfn.g.kind == G_PYNAME && strcmp(iterfn.g.s, "builtins.range") == 0)) {
		serr(c, it->loc, "kernels can only iterate over range() and reversed(range())");
		return;
	}
	na = (int)rng->l1.n;
	if (na < 1 || na > 3 || rng->l2.n) {
		serr(c, rng->loc, "range() takes 1 to 3 positional arguments");
		return;
	}
	for (i = 0; i < na; i++) {
		if (rng->l1.v[i]->kind == E_STARRED) {
			serr(c, rng->l1.v[i]->loc, "range() arguments cannot be starred");
			return;
		}
		a[i] = expr(c, rng->l1.v[i]);
		if (a[i].k == X_NONE)
			ok = false;
		else if (!xvalue(c, a[i], rng->l1.v[i]->loc))
			ok = false;
	}
	if (!ok)
		return;
	for (i = 0; i < na; i++)
		if (isconst(c->f, a[i].v) && isbool(vty(c->f, a[i].v)) &&
		    (rng->l1.v[i]->kind == E_BOOL ||
		     (rng->l1.v[i]->kind == E_CALL && rng->l1.v[i]->a->kind == E_ATTR &&
		      strcmp(rng->l1.v[i]->a->s, "static") == 0))) {
			/* range(True), range(wp.static(True)): Warp unrolls Python
			 * values with Python's range(), where a bool is 0 or 1 (a
			 * local or wp.constant bool is a Warp bool: no overload) */
			int64_t n = val(c->f, a[i].v)->c[0].u != 0;
			a[i].v = cint(c->m, c->f, S_I32, n);
			a[i].lit = (Lit){true, true, n, (double)n};
		}
	for (i = 0; i < na; i++)
		if (!typeeq(vty(c->f, a[i].v), tscalar(S_I32))) {
			Buf b = {0};
			int j;
			for (j = 0; j < na; j++)
				bufprintf(&b, "%s%s", j ? ", " : "", wptypename(c->m, vty(c->f, a[j].v)));
			serr(c, rng->loc, "Couldn't find function overload for 'range' that matched inputs with types: [%s] "
			     "(range() takes int32 arguments)", b.s);
			buffree(&b);
			return;
		}
	/* Warp's unrolling rule decides whether the loop is dynamic */
	{
		bool allconst = true;
		for (i = 0; i < na; i++)
			if (!a[i].wconst)
				allconst = false;
		if (allconst) {
			trips = tripcount(c, a, na);
			if (trips == -2) {
				serr(c, rng->loc, "range() arg 3 must not be zero");
				return;
			}
			if (trips >= 0 && trips <= maxunroll(c) && !hasbreak(&s->l1))
				dynamic = false;
			else if (trips >= 0 && hasstatic(c, s))
				dynamic = false; /* Warp unrolls a loop with wp.static() in it whatever its length */
		}
	}
	if (na == 1) {
		lo = xval(cint(c->m, c->f, S_I32, 0));
		lo.wconst = true;
		lo.lit = (Lit){true, true, 0, 0};
		hi = a[0];
	} else {
		lo = a[0];
		hi = a[1];
	}
	if (na == 3) {
		st = a[2];
	} else {
		st = xval(cint(c->m, c->f, S_I32, 1));
		st.wconst = true;
		st.lit = (Lit){true, true, 1, 1};
	}
	if (isconst(c->f, st.v) && val(c->f, st.v)->c[0].i == 0 && !st.hasrange) {
		serr(c, rng->loc, "range() arg 3 must not be zero");
		return;
	}
	c->b.loc = s->loc;
	if (rev && !reverserange(c, &lo, &hi, &st, rng->loc))
		return;
	/* carried variables */
	scanassigned(c, &as, &s->l1);
	addassigned(c, &as, target, s->a->loc);
	if (dynamic)
		checkconstmut(c, &as, target);
	nc = carried(c, s, &as, target, &names, &tys, &inits, &zinit);
	args = aalloc(c->tmp, (size_t)(nc + 3) * sizeof *args);
	ptys = aalloc(c->tmp, (size_t)(nc + 1) * sizeof *ptys);
	args[0] = lo.v;
	args[1] = hi.v;
	args[2] = st.v;
	ptys[0] = tscalar(S_I32);
	for (i = 0; i < nc; i++) {
		args[3 + i] = inits[i];
		ptys[1 + i] = tys[i];
	}
	op = mkop(c->m, c->f, OP_FOR, args, nc + 3, tys, nc, s->loc);
	opsetparams(c->m, c->f, op, ptys, nc + 1);
	opsetregions(c->m, op, 1);
	/* the body */
	pre = envcopy(c, &c->env);
	bindcarried(c, op, 1, nc, names, zinit);
	tb.name = target;
	tb.v = op->params[0];
	if (!dynamic) {
		/* Warp unrolls: the index is a constant in each copy */
		tb.wconst = true;
		tb.hasrange = true;
		tb.lo = INT64_MAX;
		tb.hi = INT64_MIN;
		{
			int64_t l0 = lo.hasrange ? lo.lo : val(c->f, lo.v)->c[0].i;
			int64_t h0 = hi.hasrange ? hi.hi : val(c->f, hi.v)->c[0].i;
			int64_t s0 = st.hasrange ? st.lo : val(c->f, st.v)->c[0].i;
			if (s0 > 0) {
				tb.lo = l0;
				tb.hi = h0 - 1;
			} else {
				tb.lo = h0 + 1;
				tb.hi = l0;
			}
			if (lo.hasrange || hi.hasrange) {
				tb.lo = INT32_MIN;
				tb.hi = INT32_MAX;
			}
		}
	}
	nameval(c, tb.v, target);
	envset(c, tb);
	lc.up = c->loop;
	lc.op = op;
	lc.first = 1;
	lc.nc = nc;
	lc.names = names;
	lc.target = target;
	lc.unrolled = !dynamic && !rev; /* Warp unrolls range() only, never reversed() */
	c->loop = &lc;
	c->b.r = &op->regs[0];
	c->dead = false;
	stmts(c, &s->l1);
	if (!c->dead)
		term(c, OP_YIELD, loopvals(c, &lc, s->loc), nc, s->loc);
	c->loop = lc.up;
	c->b.r = parent;
	c->dead = false;
	c->b.loc = s->loc;
	fixinits(c, op, 1, nc, names, s->loc);
	regpush(c->m, parent, op);
	{
		Env body = c->env;
		c->env = pre;
		for (i = 0; i < nc; i++) {
			Bind b = {0};
			b.name = names[i];
			b.v = op->res[i];
			if (lc.unrolled && trips > 0 && !hasbreak(&s->l1) && strcmp(names[i], target) == 0 && !lo.hasrange &&
			    !st.hasrange && isconst(c->f, lo.v) && isconst(c->f, st.v)) {
				/* Python's index after the loop, which Warp holds as a constant */
				int64_t l0 = val(c->f, lo.v)->c[0].i, s0 = val(c->f, st.v)->c[0].i;
				b.ilast.ok = b.ilast.isint = true;
				b.ilast.i = l0 + (trips - 1) * s0;
				b.ilast.f = (double)b.ilast.i;
			}
			nameval(c, b.v, names[i]);
			envset(c, b);
		}
		ghostloop(c, &as, &body, &pre, names, nc);
	}
	loopelse(c, s);
}

static void
whilestmt(Ctx *c, Node *s)
{
	Assigned as = {0};
	const char **names;
	Type *tys;
	Val *inits, cv;
	bool *zinit;
	int nc, i;
	Op *op;
	Env pre;
	Region *parent = c->b.r;
	LoopCtx lc;
	X cx;
	bool selfcond = false;

	scanassigned(c, &as, &s->l1);
	scanrand(c, &as, s->a);
	checkconstmut(c, &as, NULL);
	nc = carried(c, s, &as, NULL, &names, &tys, &inits, &zinit);
	op = mkop(c->m, c->f, OP_WHILE, inits, nc, tys, nc, s->loc);
	opsetparams(c->m, c->f, op, tys, nc);
	opsetregions(c->m, op, 2);
	pre = envcopy(c, &c->env);
	bindcarried(c, op, 0, nc, names, zinit);
	/* the condition; one that updates a random state is evaluated at the
	 * top of the body instead (the condition region yields true and the
	 * body breaks out when it is false), so the new state flows on */
	{
		Env body = envcopy(c, &c->env);
		int nerr = c->k->d->nerr;
		c->b.r = &op->regs[0];
		c->dead = false;
		cx = expr(c, s->a);
		cv = cx.k == X_NONE ? 0 : condval(c, cx, s->a->loc);
		if (!cv)
			cv = cbool(c->m, c->f, false);
		for (i = 0; i < (int)c->env.n; i++) {
			Bind *o = envfind(&body, c->env.v[i].name);
			if (!samebind(o, &c->env.v[i]))
				selfcond = true;
		}
		if (selfcond && nerr == c->k->d->nerr) {
			op->regs[0].n = 0;
			cv = cbool(c->m, c->f, true);
		} else {
			selfcond = false;
		}
		regpush(c->m, c->b.r, mkop(c->m, c->f, OP_YIELD, &cv, 1, NULL, 0, s->loc));
		c->env = body;
	}
	lc.up = c->loop;
	lc.op = op;
	lc.first = 0;
	lc.nc = nc;
	lc.names = names;
	lc.target = NULL;
	lc.unrolled = false;
	c->loop = &lc;
	c->b.r = &op->regs[1];
	c->dead = false;
	if (selfcond) {
		Op *ifop;
		Val nc1;
		cx = expr(c, s->a);
		if (cx.k != X_NONE && (cv = condval(c, cx, s->a->loc)) && (nc1 = emit1(c, OP_UNOT, &cv, 1, s->a->loc, "while"))) {
			Region rt = {0}, *keep = c->b.r;
			c->b.r = &rt;
			term(c, OP_BREAK, loopvals(c, &lc, s->loc), nc, s->loc);
			c->b.r = keep;
			c->dead = false;
			ifop = mkop(c->m, c->f, OP_IF, &nc1, 1, NULL, 0, s->loc);
			opsetregions(c->m, ifop, 2);
			ifop->regs[0] = rt;
			regpush(c->m, &ifop->regs[1], mkop(c->m, c->f, OP_YIELD, NULL, 0, NULL, 0, s->loc));
			regpush(c->m, c->b.r, ifop);
		}
	}
	stmts(c, &s->l1);
	if (!c->dead)
		term(c, OP_YIELD, loopvals(c, &lc, s->loc), nc, s->loc);
	c->loop = lc.up;
	c->b.r = parent;
	c->dead = false;
	c->b.loc = s->loc;
	fixinits(c, op, 0, nc, names, s->loc);
	regpush(c->m, parent, op);
	{
		Env body = c->env;
		c->env = pre;
		for (i = 0; i < nc; i++) {
			Bind b = {0};
			b.name = names[i];
			b.v = op->res[i];
			nameval(c, b.v, names[i]);
			envset(c, b);
		}
		ghostloop(c, &as, &body, &pre, names, nc);
	}
	loopelse(c, s);
}

/* ---- simple statements ---------------------------------------------- */

static void
returnstmt(Ctx *c, Node *s)
{
	X x;
	Val *vals;
	int n, i;

	if (c->fd->kernel) {
		if (s->a) {
			serr(c, s->loc, "Warp kernels cannot return values. Write results to output arguments, and omit "
			     "the return annotation or use `-> None`.");
			return;
		}
		term(c, OP_RET, NULL, 0, s->loc);
		return;
	}
	if (!s->a) {
		if (c->retset && c->f->nrets) {
			vals = aalloc(c->tmp, c->f->nrets * sizeof *vals);
			for (i = 0; i < (int)c->f->nrets; i++)
				vals[i] = zeroval(c, c->f->rets[i], s->loc);
			term(c, OP_RET, vals, (int)c->f->nrets, s->loc);
			return;
		}
		c->retset = true;
		term(c, OP_RET, NULL, 0, s->loc);
		return;
	}
	x = expr(c, s->a);
	if (x.k == X_NONE)
		return;
	if (x.k == X_TUPLE) {
		n = x.n;
		vals = aalloc(c->tmp, (size_t)(n + 1) * sizeof *vals);
		for (i = 0; i < n; i++)
			if (!(vals[i] = xvalue(c, x.elts[i], s->a->loc)))
				return;
	} else {
		n = 1;
		vals = aalloc(c->tmp, sizeof *vals);
		if (!(vals[0] = xvalue(c, x, s->a->loc)))
			return;
	}
	for (i = 0; i < n; i++)
		if (vty(c->f, vals[i]).k == T_STR || vty(c->f, vals[i]).k == T_ARRAY) {
			serr(c, s->a->loc, "a @wp.func cannot return %s", vty(c->f, vals[i]).k == T_STR ? "a string" : "an array");
			return;
		}
	if (!c->retset) {
		for (i = 0; i < n; i++)
			addret(c->m, c->f, vty(c->f, vals[i]));
		c->retset = true;
	} else {
		bool same = (int)c->f->nrets == n;
		for (i = 0; same && i < n; i++)
			if (!typeeq(c->f->rets[i], vty(c->f, vals[i])))
				same = false;
		if (!same) {
			Buf a = {0}, b = {0};
			for (i = 0; i < (int)c->f->nrets; i++)
				bufprintf(&a, "%s%s", i ? ", " : "", wptypename(c->m, c->f->rets[i]));
			for (i = 0; i < n; i++)
				bufprintf(&b, "%s%s", i ? ", " : "", wptypename(c->m, vty(c->f, vals[i])));
			if (c->fd->hasret)
				serr(c, s->a->loc, "The function `%s` has its return type annotated as `%s` but the code returns "
				     "a value of type `%s`.", c->fd->name, a.s ? a.s : "None", b.s);
			else
				serr(c, s->a->loc, "Error, function returned different types, previous: [%s], new [%s]",
				     a.s ? a.s : "", b.s);
			buffree(&a);
			buffree(&b);
			return;
		}
	}
	term(c, OP_RET, vals, n, s->loc);
}

static void
assignstmt(Ctx *c, Node *s)
{
	Node *t, *v = s->a;
	X x;
	uint32_t i;

	if (s->l1.n != 1) {
		serr(c, s->loc, "Assigning the same value to multiple variables is not supported");
		return;
	}
	t = s->l1.v[0];
	if (v->kind == E_LIST) {
		serr(c, v->loc, "List constructs are not supported in kernels. Use vectors like `wp.vec3()` for small "
		     "fixed-size collections, or `wp.zeros(shape=N, dtype=...)` for stack-allocated arrays.");
		return;
	}
	if (t->kind == E_TUPLE) {
		int want = (int)t->l1.n;
		for (i = 0; i < t->l1.n; i++)
			if (t->l1.v[i]->kind != E_NAME) {
				serr(c, t->l1.v[i]->loc, "Multiple return functions can only assign to simple variables, "
				     "e.g.: x, y = func()");
				return;
			}
		if (v->kind == E_CALL)
			x = call(c, v, want, true);
		else
			x = expr(c, v);
		if (x.k == X_NONE) {
			for (i = 0; i < t->l1.n; i++) {
				Bind b = {0};
				b.name = t->l1.v[i]->s;
				b.poison = true;
				envset(c, b);
			}
			return;
		}
		if (x.k != X_TUPLE) {
			if (x.k == X_VAL && iscomposite(vty(c->f, x.v)))
				serr(c, v->loc, "cannot unpack a %s into %d variables (Warp: object of type 'Var' has no len()); "
				     "use its components (v[0], v.x ...)", wptypename(c->m, vty(c->f, x.v)), want);
			else
				serr(c, v->loc, "cannot unpack a single value into %d variables", want);
			return;
		}
		if (x.n != want) {
			serr(c, v->loc, "Invalid number of values to unpack (expected %d, got %d).", want, x.n);
			return;
		}
		for (i = 0; i < t->l1.n; i++)
			assignname(c, t->l1.v[i]->s, x.elts[i], t->l1.v[i]->loc,
			           v->kind == E_TUPLE && v->l1.v[i]->kind == E_NAME);
		return;
	}
	if (t->kind == E_NAME) {
		x = v->kind == E_CALL ? call(c, v, 0, true) : expr(c, v);
		assignname(c, t->s, x, t->loc, v->kind == E_NAME);
		return;
	}
	if (t->kind == E_SUBSCRIPT || t->kind == E_ATTR) {
		x = expr(c, v);
		if (x.k == X_NONE)
			return;
		storeto(c, t, x, -1, NULL);
		return;
	}
	if (t->kind == E_STARRED)
		serr(c, t->loc, "starred assignment targets are not supported");
	else
		serr(c, t->loc, "Error, unsupported assignment statement.");
}

static void
augassign(Ctx *c, Node *s)
{
	Node *t = s->a;

	if (t->kind == E_NAME) {
		X cur, rhs, r;
		Bind *b;
		rhs = expr(c, s->b);
		cur = expr(c, t);
		if (rhs.k == X_NONE || cur.k == X_NONE) {
			if ((b = envfind(&c->env, t->s)) && cur.k == X_NONE) {
				Bind p = {0};
				p.name = t->s;
				p.poison = true;
				envset(c, p);
			}
			return;
		}
		r = binop(c, s->op, cur, rhs, s->loc, s->oploc);
		if (r.k == X_NONE)
			return;
		if (cur.k == X_VAL && r.k == X_VAL && !typeeq(vty(c->f, cur.v), vty(c->f, r.v))) {
			serr(c, s->oploc, "Error, augmented assignment to `%s` (%s) produces different type (%s)", t->s,
			     wptypename(c->m, vty(c->f, cur.v)), wptypename(c->m, vty(c->f, r.v)));
			return;
		}
		r.wconst = false;
		assignname(c, t->s, r, t->loc, false);
		return;
	}
	if (t->kind == E_SUBSCRIPT || t->kind == E_ATTR) {
		storeto(c, t, xnone(), s->op, s->b);
		return;
	}
	serr(c, t->loc, "Error, unsupported augmented assignment target.");
}

static void
stmt(Ctx *c, Node *s)
{
	c->b.loc = s->loc;
	switch (s->kind) {
	case S_EXPR:
		if (s->a->kind == E_STR || s->a->kind == E_ELLIPSIS || s->a->kind == E_INT || s->a->kind == E_FLOAT ||
		    s->a->kind == E_BOOL)
			return; /* docstrings and other standalone constants */
		if (s->a->kind == E_CALL)
			call(c, s->a, 0, false);
		else
			expr(c, s->a);
		return;
	case S_ASSIGN:
		assignstmt(c, s);
		return;
	case S_AUGASSIGN:
		augassign(c, s);
		return;
	case S_ANNASSIGN:
		serr(c, s->loc, "Construct `ast.AnnAssign` not supported in kernels.");
		return;
	case S_IF:
		ifstmt(c, s);
		return;
	case S_FOR:
		forstmt(c, s);
		return;
	case S_WHILE:
		whilestmt(c, s);
		return;
	case S_BREAK:
	case S_CONTINUE:
		if (!c->loop) {
			serr(c, s->loc, "'%s' outside loop", s->kind == S_BREAK ? "break" : "continue");
			return;
		}
		term(c, s->kind == S_BREAK ? OP_BREAK : OP_CONTINUE, loopvals(c, c->loop, s->loc), c->loop->nc, s->loc);
		return;
	case S_RETURN:
		returnstmt(c, s);
		return;
	case S_PASS:
		return;
	case S_ERROR:
		c->syntaxerr = true;
		return;
	case S_ASSERT: {
		X x = expr(c, s->a);
		Val v;
		if (x.k == X_NONE)
			return;
		if (!(v = condval(c, x, s->a->loc)))
			return;
		c->b.loc = s->loc;
		emit1(c, OP_ASSERT, &v, 1, s->loc, "assert");
		return;
	}
	case S_DEF:
		serr(c, s->loc, "nested function definitions are not supported in kernels (define a @wp.func at module level)");
		return;
	case S_CLASS:
		serr(c, s->loc, "Construct `ast.ClassDef` not supported in kernels.");
		return;
	case S_IMPORT:
	case S_FROM:
		serr(c, s->loc, "Construct `%s` not supported in kernels.", s->kind == S_IMPORT ? "ast.Import" : "ast.ImportFrom");
		return;
	case S_UNSUP:
		serr(c, s->loc, "Construct `%s` not supported in kernels.", s->s);
		return;
	default:
		serr(c, s->loc, "unsupported statement");
	}
}

static void
stmts(Ctx *c, NodeList *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		if (c->dead && c->b.r != &c->scratch) {
			/* unreachable code: still checked, then dropped */
			Region *keep = c->b.r;
			LoopCtx *lp = c->loop;
			Env e = envcopy(c, &c->env);
			c->scratch.n = 0;
			c->b.r = &c->scratch;
			c->dead = false;
			for (; i < l->n; i++)
				stmt(c, l->v[i]);
			c->b.r = keep;
			c->loop = lp;
			c->env = e;
			c->dead = true;
			return;
		}
		stmt(c, l->v[i]);
	}
}

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
static void
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

/* ---- functions ------------------------------------------------------ */

/* A kir name for a new function: the Python name, mangled with the
 * argument types for overloaded and generic functions, made unique. */
static const char *
funcname(Kpyc *k, FuncDecl *fd, const Type *args)
{
	Buf b = {0};
	const char *name;
	int i, n = 2;
	uint32_t gi = nmget(&fd->file->gmap, fd->name);
	/* (a function made by a factory is bound to no module name of its own) */
	bool mangle = fd->kernel ? fd->generic
	                         : fd->generic || fd->next || (gi != UINT32_MAX && fd->file->g[gi].v.fd != fd);

	bufputs(&b, kirident(k->a, fd->name));
	if (mangle) {
		bufputs(&b, "_");
		for (i = 0; i < fd->nparams; i++) {
			bufputs(&b, "_");
			typemangle(&b, k->m, args[i]);
		}
	}
	name = astrdup(k->a, b.s);
	while (nmget(&k->fnames, name) != UINT32_MAX)
		name = aprintf(k->a, "%s_%d", b.s, n++);
	buffree(&b);
	nmput(k->a, &k->fnames, name, 1);
	return name;
}

/* Where a kir function comes from: its final position is by file, then
 * definition, then instance creation; failed lenient ones are dropped. */
typedef struct FuncKey {
	int file, decl;
	uint32_t seq;
	bool failed;
} FuncKey;

static Func *
compile(Kpyc *k, FuncDecl *fd, Inst *inst)
{
	Ctx c;
	Func *f;
	int i, nerr0 = k->d->nerr, nlen0 = k->nlenient;
	FileCtx *savefile = k->file;
	const NameMap *saveclosure = k->closure;
	FuncKey key;

	memset(&c, 0, sizeof c);
	k->file = fd->file;
	k->closure = fd->closure;
	c.k = k;
	c.file = fd->file;
	c.fd = fd;
	c.m = k->m;
	if (k->depth >= (int)countof(k->tmps)) {
		kerr(k, fd->def->loc, "functions nested too deeply in calls");
		k->file = savefile;
		k->closure = saveclosure;
		return NULL;
	}
	if (!k->tmps[k->depth])
		k->tmps[k->depth] = arena_new();
	c.tmp = k->tmps[k->depth++];
	arena_reset(c.tmp);
	f = addfunc(k->m, funcname(k, fd, inst->args), fd->kernel, fd->def->loc);
	key.file = fd->file->index;
	key.decl = fd->order;
	key.seq = k->nkeys;
	key.failed = false;
	APUSH(k->a, k->keys, k->nkeys, k->capkeys, key);
	c.f = f;
	c.b.m = k->m;
	c.b.f = f;
	c.b.r = &f->body;
	c.b.loc = fd->def->loc;
	inst->f = f;
	inst->fidx = (int)k->m->nfuncs - 1;
	for (i = 0; i < fd->nparams; i++) {
		Bind b = {0};
		b.name = fd->params[i].name;
		b.v = addparam(k->m, f, kirident(c.tmp, b.name), inst->args[i], fd->params[i].node->loc);
		envset(&c, b);
	}
	if (fd->hasret) {
		for (i = 0; i < fd->nrets; i++)
			addret(k->m, f, fd->rets[i].ty);
		c.retset = true;
	}
	liveness(&c, fd->def);
	stmts(&c, &fd->def->l1);
	if (!c.dead) {
		c.b.loc = fd->def->loc;
		if (f->nrets) {
			Val *vals = aalloc(c.tmp, f->nrets * sizeof *vals);
			for (i = 0; i < (int)f->nrets; i++)
				vals[i] = zeroval(&c, f->rets[i], fd->def->loc);
			term(&c, OP_RET, vals, (int)f->nrets, fd->def->loc);
		} else {
			c.retset = true;
			term(&c, OP_RET, NULL, 0, fd->def->loc);
		}
	}
	if (fd->kernel && (fd->det || fd->file->det) && k->d->nerr == nerr0 && k->nlenient == nlen0)
		detcheck(&c, f);
	k->depth--;
	k->file = savefile;
	k->closure = saveclosure;
	if (k->d->nerr != nerr0 || k->nlenient != nlen0) {
		k->keys[key.seq].failed = true;
		inst->f = NULL;
		return NULL;
	}
	return f;
}

static bool
typesmatch(const Type *a, const Type *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!typeeq(a[i], b[i]))
			return false;
	return true;
}

Inst *
instantiate(Kpyc *k, FuncDecl *fd, const Type *args, Loc callloc)
{
	Inst *in;

	for (in = fd->insts; in; in = in->next)
		if (typesmatch(in->args, args, fd->nparams)) {
			if (in->busy) {
				kerr(k, callloc, "recursive call of %s (Warp does not support recursion)", fd->name);
				return NULL;
			}
			return in->f ? in : NULL;
		}
	in = aalloc(k->a, sizeof *in);
	in->args = aalloc(k->a, (size_t)(fd->nparams + 1) * sizeof *in->args);
	memcpy(in->args, args, (size_t)fd->nparams * sizeof *args);
	in->next = fd->insts;
	in->lenient = k->lenient > 0;
	fd->insts = in;
	fd->ninsts++;
	in->busy = true;
	compile(k, fd, in);
	in->busy = false;
	return in->f ? in : NULL;
}

/* Sort the module's functions into source order and drop failed lenient
 * instances; call ops name callees by index, so they are renumbered. */
typedef struct Remap {
	int *to;
} Remap;

static void
remapcall(Op *op, void *ctx)
{
	Remap *r = ctx;
	if (op->code == OP_CALL && op->attr >= 0)
		op->attr = r->to[op->attr];
}

typedef struct Sorted {
	FuncKey key;
	uint32_t idx;
} Sorted;

static int
cmpkey(const void *a, const void *b)
{
	const FuncKey *p = &((const Sorted *)a)->key, *q = &((const Sorted *)b)->key;

	if (p->file != q->file)
		return p->file - q->file;
	if (p->decl != q->decl)
		return p->decl - q->decl;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

static void
reorder(Kpyc *k)
{
	Module *m = k->m;
	uint32_t n = m->nfuncs, i, j = 0;
	Sorted *s = xcalloc(n + 1, sizeof *s);
	Func **nf = aalloc(m->arena, (n + 1) * sizeof *nf);
	Remap r;

	r.to = xcalloc(n + 1, sizeof *r.to);
	for (i = 0; i < n; i++) {
		s[i].key = k->keys[i];
		s[i].idx = i;
	}
	qsort(s, n, sizeof *s, cmpkey);
	for (i = 0; i < n; i++) {
		r.to[s[i].idx] = -1;
		if (!s[i].key.failed) {
			r.to[s[i].idx] = (int)j;
			nf[j++] = m->funcs[s[i].idx];
		}
	}
	m->funcs = nf;
	m->nfuncs = j;
	m->capfuncs = n + 1;
	for (i = 0; i < m->nfuncs; i++)
		walkops(&m->funcs[i]->body, remapcall, &r);
	free(s);
	free(r.to);
}

void
semamodule(Kpyc *k)
{
	int fi;
	uint32_t i;

	/* kernels, in source order, and what they call */
	for (fi = 0; fi < k->nfiles; fi++) {
		FileCtx *f = &k->files[fi];
		k->file = f;
		for (i = 0; i < f->ndecls; i++) {
			FuncDecl *fd = f->decls[i];
			Type *args;
			int j;
			if (!fd->kernel || fd->bad || !fd->def)
				continue;
			if (fd->generic && !fd->closure && fd->novls) {
				/* one kernel per wp.overload, as Warp builds them */
				for (j = 0; j < (int)fd->novls; j++)
					instantiate(k, fd, fd->ovls[j].args, fd->ovls[j].loc);
				continue;
			}
			if (fd->generic) {
				kwarn(k, fd->def->loc, "kernel '%s' has generic (typing.Any) parameters and no wp.overload, and "
				      "kpyc reads no launch of it in the file's functions whose argument types it can tell; "
				      "Warp compiles it only for the types it is launched with, kpyc skips it", fd->name);
				continue;
			}
			args = aalloc(k->a, (size_t)(fd->nparams + 1) * sizeof *args);
			for (j = 0; j < fd->nparams; j++)
				args[j] = fd->params[j].spec.ty;
			if (fd->closure) {
				/* nested in a function: compiled if it can be, else left out */
				int nl = k->nlenient;
				k->lenient++;
				instantiate(k, fd, args, fd->def->loc);
				k->lenient--;
				if (k->nlenient != nl)
					knote(k, "kernel '%s' is nested in a function and does not compile; it is left out",
					      fd->def->s);
				continue;
			}
			instantiate(k, fd, args, fd->def->loc);
		}
	}
	/* functions nothing called: compiled for their own sake, leniently */
	k->lenient++;
	for (fi = 0; fi < k->nfiles; fi++) {
		FileCtx *f = &k->files[fi];
		k->file = f;
		for (i = 0; i < f->ndecls; i++) {
			FuncDecl *fd = f->decls[i];
			Type *args;
			int j, nl = k->nlenient;
			if (fd->kernel || fd->bad || !fd->def || fd->generic || fd->insts)
				continue;
			args = aalloc(k->a, (size_t)(fd->nparams + 1) * sizeof *args);
			for (j = 0; j < fd->nparams; j++)
				args[j] = fd->params[j].spec.ty;
			instantiate(k, fd, args, fd->def->loc);
			if (k->nlenient != nl)
				knote(k, "function '%s' is not called by any kernel and does not compile; it is left out", fd->name);
		}
	}
	k->lenient--;
	reorder(k);
}
