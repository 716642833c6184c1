/*
 * liveness.c — the analyses of a body's AST that loops and branches need:
 * which names are live after a statement (a backward pass, lv*) and which
 * names a loop body assigns.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

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

bool
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

void
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

void
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
	if (strcmp(fn, "sample_cdf") == 0)
		return true; /* randf, then a search (builtins.c samplecdf) */
	op = builtinop(c->k, fn);
	return op >= 0 && ((opinfo[op].flags & F_RAND) || op == OP_TRANSFORM_SET_TRANSLATION ||
	                   op == OP_TRANSFORM_SET_ROTATION);
}

void
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

void
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
bool
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
bool
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
void
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
