/* Tidying a generated kernel the way a person would write it (no dead weight):
 *   - operations by a unit (x * 1.0, x + 0.0) are x, -1.0 * x is -x;
 *   - an input element read at the thread index is loaded once into a local and the
 *     local is used everywhere (no repeated a[i] beside ai = a[i]);
 *   - `if c: pass / else: body` becomes `if not c: body`;
 *   - parameters nothing reads are dropped: helper parameters (with the argument at
 *     every call) and kernel parameters.
 * check.c's dead-weight rules are the guard; gen_kernel redraws what still breaks them. */
#include <stdlib.h>
#include <string.h>

#include "kgen.h"

typedef void (*ExprFn)(Expr *e, void *ctx);

static void
walk_expr(Expr *e, ExprFn f, void *ctx)
{
	int i;

	if (!e)
		return;
	f(e, ctx);
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		walk_expr(e->a[i], f, ctx);
}

static void
walk_block(Block *b, ExprFn f, void *ctx)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		Stmt *s = b->v[i];

		walk_expr(s->e, f, ctx);
		for (j = 0; j < s->nidx; j++)
			walk_expr(s->idx[j], f, ctx);
		walk_block(&s->body, f, ctx);
		walk_block(&s->orelse, f, ctx);
	}
}

/* ----------------------------------------------------------------- loads */

static bool
tid_load(const Expr *e, const Var *arr, Var *const tid[3])
{
	int d;

	if (e->kind != E_LOAD || e->var != arr || e->n != arr->ndim)
		return false;
	for (d = 0; d < e->n; d++)
		if (e->a[d]->kind != E_VAR || e->a[d]->var != tid[d])
			return false;
	return true;
}

static bool
assigned_in(const Block *b, const Var *v)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if ((s->kind == S_ASSIGN && !s->is_def && s->var == v) || (s->kind == S_AUG && s->var == v) ||
		    (s->kind == S_SETATTR && s->var == v))
			return true;
		for (j = 0; j < s->nvars; j++)
			if (s->vars[j] == v && s->kind == S_UNPACK)
				return true;
		if (assigned_in(&s->body, v) || assigned_in(&s->orelse, v))
			return true;
	}
	return false;
}

typedef struct LoadCtx {
	const Var *arr;
	Var *const *tid;
	const Expr *keep; /* the local's own definition */
	Var *local;       /* NULL: count only */
	int n;
} LoadCtx;

static void
load_visit(Expr *e, void *p)
{
	LoadCtx *c = p;

	if (e == c->keep || !tid_load(e, c->arr, c->tid))
		return;
	c->n++;
	if (c->local) {
		e->kind = E_VAR;
		e->var = c->local;
		e->n = 0;
		e->a = NULL;
	}
}

void
tidy_loads(Gen *g)
{
	Kernel *k = g->k;
	int p, i;

	if (!g->tid[0])
		return;
	for (p = 0; p < k->nparams; p++) {
		Var *a = k->params[p];
		LoadCtx c = { a, g->tid, NULL, NULL, 0 };

		if (a->role != V_ARRAY || a->io != IO_IN)
			continue;
		for (i = 0; i < k->body.n; i++) {
			Stmt *s = k->body.v[i];

			if (s->kind == S_ASSIGN && s->is_def && tid_load(s->e, a, g->tid) && !assigned_in(&k->body, s->var)) {
				int j;

				c.keep = s->e;
				c.local = s->var;
				/* it depends on the thread index only: define it before any use */
				for (j = i; j > 1; j--)
					k->body.v[j] = k->body.v[j - 1];
				k->body.v[1] = s;
				break;
			}
		}
		if (!c.local) {
			Stmt *s;
			Expr *idx[3];
			int d;

			walk_block(&k->body, load_visit, &c);
			if (c.n < 2)
				continue;
			for (d = 0; d < a->ndim; d++)
				idx[d] = ex_var(g->A, g->tid[d]);
			s = st_new(g->A, S_ASSIGN);
			s->is_def = true;
			s->e = ex_load(g->A, a, a->ndim, idx);
			s->var = new_var(g, local_name_for(a), a->elem, V_LOCAL);
			s->var->bound = s->var->base = s->e->bound;
			s->var->def = s->e;
			c.keep = s->e;
			c.local = s->var;
			block_insert(g->A, &k->body, 1, s); /* after i = wp.tid() */
		}
		walk_block(&k->body, load_visit, &c);
	}
}

/* ----------------------------------------------------------------- empty branches */

void
tidy_branches(Gen *g, Block *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		Stmt *s = b->v[i];

		if (s->kind == S_IF && s->body.n == 0 && s->orelse.n > 0) {
			Block t = s->body;

			s->body = s->orelse;
			s->orelse = t;
			if (s->body.n == 1 && s->body.v[0]->kind == S_IF)
				s->body.v[0]->elif = false;
			s->e = s->e->kind == E_UN && s->e->op == OP_NOT ? s->e->a[0] : ex_un(g->A, OP_NOT, s->e);
		}
		tidy_branches(g, &s->body);
		tidy_branches(g, &s->orelse);
	}
}

/* ----------------------------------------------------------------- parameters */

typedef struct UseCtx {
	const Var *v;
	int n;
} UseCtx;

static void
use_visit(Expr *e, void *p)
{
	UseCtx *c = p;

	if ((e->kind == E_VAR || e->kind == E_LOAD || e->kind == E_SHAPE) && e->var == c->v)
		c->n++;
}

static int
uses_in(Block *b, const Var *v)
{
	UseCtx c = { v, 0 };
	int i;

	walk_block(b, use_visit, &c);
	for (i = 0; i < b->n; i++)
		if (b->v[i]->kind == S_STORE || b->v[i]->kind == S_ATOMIC)
			c.n += b->v[i]->var == v;
	return c.n;
}

static int
stores_to(const Block *b, const Var *v)
{
	int i, n = 0;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		n += (s->kind == S_STORE || s->kind == S_ATOMIC) && s->var == v;
		n += stores_to(&s->body, v) + stores_to(&s->orelse, v);
	}
	return n;
}

typedef struct ArgCtx {
	const char *fn;
	int drop;
} ArgCtx;

static void
arg_visit(Expr *e, void *p)
{
	ArgCtx *c = p;
	int i;

	if (e->kind != E_CALL || e->s != c->fn || c->drop >= e->n)
		return;
	for (i = c->drop; i + 1 < e->n; i++)
		e->a[i] = e->a[i + 1];
	e->n--;
}

/* Drop helper parameters the body never reads (and their arguments); true if any. */
bool
tidy_func_params(Gen *g)
{
	Kernel *k = g->k;
	bool changed = false;
	int f, p, j;

	for (f = 0; f < k->nfuncs; f++) {
		Func *fn = k->funcs[f];

		for (p = fn->nparams - 1; p >= 0; p--) {
			ArgCtx c = { fn->name, p };

			if (uses_in(&fn->body, fn->params[p]))
				continue;
			for (j = p; j + 1 < fn->nparams; j++)
				fn->params[j] = fn->params[j + 1];
			fn->nparams--;
			walk_block(&k->body, arg_visit, &c);
			for (j = 0; j < k->nfuncs; j++)
				walk_block(&k->funcs[j]->body, arg_visit, &c);
			changed = true;
		}
	}
	return changed;
}

/* Drop kernel parameters nothing reads or writes. */
void
tidy_kernel_params(Gen *g)
{
	Kernel *k = g->k;
	int p, n = 0, s;

	for (p = 0; p < k->nparams; p++) {
		Var *v = k->params[p];

		if (uses_in(&k->body, v) || stores_to(&k->body, v))
			k->params[n++] = v;
	}
	k->nparams = n;
	for (s = 0; s < k->nstructs; s++) {
		k->structs[s].param = false;
		for (p = 0; p < k->nparams; p++)
			if (k->params[p]->role == V_SCALAR && k->params[p]->ty.kind == TY_STRUCT && k->params[p]->ty.sid == s)
				k->structs[s].param = true;
	}
}

/* ----------------------------------------------------------------- copies */

typedef struct CopyCtx {
	const Var *from;
	Var *to;
} CopyCtx;

static void
copy_visit(Expr *e, void *p)
{
	CopyCtx *c = p;

	if (e->kind == E_VAR && e->var == c->from)
		e->var = c->to;
}

static void
copies_in(Block *body, Block *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		Stmt *s = b->v[i];

		if (s->kind == S_ASSIGN && s->is_def && s->e->kind == E_VAR && s->e->var->role != V_ARRAY &&
		    s->e->var->ty.kind != TY_STRUCT && !assigned_in(body, s->var) && !assigned_in(body, s->e->var)) {
			CopyCtx c = { s->var, s->e->var };

			walk_block(body, copy_visit, &c); /* the definition is dead now */
		}
		copies_in(body, &s->body);
		copies_in(body, &s->orelse);
	}
}

/* ----------------------------------------------------------------- units */

/* x is the literal v (0 or 1; 0 of either sign) of a number type. */
static bool
lit_is(const Expr *x, double v)
{
	return x->kind == E_LIT && x->bound == v && (x->ty.kind == TY_FLOAT || x->ty.kind == TY_INT) &&
	       (v == 0 || (x->s[0] != '-' && strncmp(x->s, "wp.float64(-", 12) != 0));
}

/* e without its operations by a unit: x * 1, 1 * x, x / 1, x + 0, 0 + x,
 * x - 0 are x where x has the result's type (1.0 * i makes a float), and
 * -1.0 * x, x * -1.0 are -x (and -y * -1.0 is y). */
static Expr *
drop_units(Expr *e)
{
	int i;

	if (!e)
		return e;
	if (e->kind != E_SHAPE)
		for (i = 0; i < e->n; i++)
			e->a[i] = drop_units(e->a[i]);
	if (e->kind != E_BIN)
		return e;
	if (((e->op == OP_MUL || e->op == OP_DIV) && lit_is(e->a[1], 1)) ||
	    ((e->op == OP_ADD || e->op == OP_SUB) && lit_is(e->a[1], 0)))
		return ty_eq(e->a[0]->ty, e->ty) ? e->a[0] : e;
	if ((e->op == OP_MUL && lit_is(e->a[0], 1)) || (e->op == OP_ADD && lit_is(e->a[0], 0)))
		return ty_eq(e->a[1]->ty, e->ty) ? e->a[1] : e;
	/* -1.0 * x and x * -1.0 are -x (the same bits) */
	for (i = 0; i < 2 && e->op == OP_MUL; i++) {
		Expr *k = e->a[i], *x = e->a[1 - i];
		if (!(k->kind == E_LIT && k->bound == 1 && k->ty.kind == TY_FLOAT && !lit_is(k, 1) && ty_eq(x->ty, e->ty)))
			continue;
		if (x->kind == E_UN && x->op == OP_NEG) /* -y * -1.0 is y */
			return x->a[0];
		if (x->kind != E_LIT) {
			e->kind = E_UN;
			e->op = OP_NEG;
			e->a[0] = x;
			e->n = 1;
			break;
		}
	}
	return e;
}

/* Operations by a unit (x * 1.0, x + 0.0) compute nothing: a person writes x. */
void
tidy_units(Block *b)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		Stmt *s = b->v[i];

		s->e = drop_units(s->e);
		for (j = 0; j < s->nidx; j++)
			s->idx[j] = drop_units(s->idx[j]);
		tidy_units(&s->body);
		tidy_units(&s->orelse);
	}
}

/* `b = a` where neither changes afterwards: use a (dead-code removal drops b). */
void
tidy_copies(Block *body)
{
	copies_in(body, body);
}

/* ----------------------------------------------------------------- dead stores
 *
 * Backward liveness over the structured body: an assignment or update of a local
 * that no later statement reads (on any path) computes nothing, and a loop all of
 * whose assignments are dead (and that stores nothing) is dead as a whole.  A kept
 * loop's body is read with what is live at its end (after the loop, or the next
 * iteration), iterated to a fixpoint.  A dead definition goes when a later
 * assignment can take its place: the next one in its block, or the first use of
 * the variable in a later loop that holds all its other uses; the rest is left to
 * dead-code removal and counted by dead_defs (check.c redraws). */

typedef VarSet Live;

static void
live_del(Live *l, const Var *v)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->v[i] == v) {
			l->v[i] = l->v[--l->n];
			return;
		}
}

static void
live_union(Live *l, const Live *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		varset_add(l, m->v[i]);
}

static void
reads_expr(Live *l, const Expr *e)
{
	int i;

	if (!e)
		return;
	if (e->kind == E_VAR || e->kind == E_LOAD || e->kind == E_SHAPE)
		varset_add(l, e->var);
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		reads_expr(l, e->a[i]);
}

/* Every variable read anywhere in b (conservative liveness through loops). */
static void
reads_block(Live *l, const Block *b)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		reads_expr(l, s->e);
		for (j = 0; j < s->nidx; j++)
			reads_expr(l, s->idx[j]);
		if (s->kind == S_AUG || s->kind == S_SETATTR)
			varset_add(l, s->var);
		reads_block(l, &s->body);
		reads_block(l, &s->orelse);
	}
}

static bool
has_rand(const Expr *e)
{
	int i;

	if (!e)
		return false;
	if ((e->flags & EF_RAND) || (e->kind == E_CALL && !strncmp(e->s, "wp.rand", 7)))
		return true;
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		if (has_rand(e->a[i]))
			return true;
	return false;
}

/* e is an operation on values (not a literal, a copy, a draw or a helper's call). */
static bool
computes(const Expr *e)
{
	if (e->kind == E_LIT || e->kind == E_VAR || e->kind == E_RAW || e->kind == E_SHAPE || has_rand(e))
		return false;
	if (e->kind == E_CALL && strncmp(e->s, "wp.", 3) && strcmp(e->s, "float") && strcmp(e->s, "int"))
		return false; /* a helper (or a constructor spelled without wp.) */
	return true;
}

/* The loop only assigns locals (no stores, atomics, draws, struct fields), none of
 * them live after it. */
static bool
loop_dead(const Block *b, const Live *after)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		switch (s->kind) {
		case S_ASSIGN:
		case S_AUG:
			if (varset_has(after, s->var) || has_rand(s->e))
				return false;
			break;
		case S_UNPACK:
			for (j = 0; j < s->nvars; j++)
				if (varset_has(after, s->vars[j]))
					return false;
			if (has_rand(s->e))
				return false;
			break;
		case S_IF:
		case S_FOR:
		case S_WHILE:
			if (has_rand(s->e) || !loop_dead(&s->body, after) || !loop_dead(&s->orelse, after))
				return false;
			if (s->kind == S_FOR && varset_has(after, s->var))
				return false;
			break;
		case S_BREAK:
		case S_CONTINUE:
			break;
		default:
			return false;
		}
	}
	return true;
}

static bool
live_same(const Live *a, const Live *b)
{
	int i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!varset_has(b, a->v[i]))
			return false;
	return true;
}

/* Statements of b, nested ones included, that read or write v. */
static int
mentions_expr(const Expr *e, const Var *v)
{
	int i, n;

	if (!e)
		return 0;
	n = (e->kind == E_VAR || e->kind == E_LOAD || e->kind == E_SHAPE) && e->var == v;
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		n += mentions_expr(e->a[i], v);
	return n;
}

static int
mentions_block(const Block *b, const Var *v);

static int
mentions_stmt(const Stmt *s, const Var *v)
{
	int j, n = s->var == v;

	for (j = 0; j < s->nvars; j++)
		n += s->vars[j] == v;
	n += mentions_expr(s->e, v);
	for (j = 0; j < s->nidx; j++)
		n += mentions_expr(s->idx[j], v);
	return n + mentions_block(&s->body, v) + mentions_block(&s->orelse, v);
}

static int
mentions_block(const Block *b, const Var *v)
{
	int i, n = 0;

	for (i = 0; i < b->n; i++)
		n += mentions_stmt(b->v[i], v);
	return n;
}

/* The assignment of v that can define it inside loop body b, where all of v's
 * mentions lie (the total is n): the first statement of b that mentions v, when it
 * assigns v without reading it, or such an assignment found the same way in a loop
 * that holds all n mentions.  NULL if none. */
static Stmt *
loop_def(Block *b, const Var *v, int n)
{
	int i;

	for (i = 0; i < b->n; i++) {
		Stmt *u = b->v[i];

		if (!mentions_stmt(u, v))
			continue;
		if (u->kind == S_ASSIGN && u->var == v && !mentions_expr(u->e, v))
			return u;
		if ((u->kind == S_FOR || u->kind == S_WHILE) && u->var != v && !mentions_expr(u->e, v) &&
		    mentions_block(&u->body, v) == n)
			return loop_def(&u->body, v, n);
		return NULL;
	}
	return NULL;
}

/* l: live after b on entry, live before b on return; jump: live where a break or
 * continue goes (NULL outside loops).  With rm, removes dead statements; with count,
 * counts the definitions left whose value nothing reads (see dead_defs). */
static bool
dead_block(Block *b, Live *l, const Live *jump, bool rm, const Block *root, int *count)
{
	bool changed = false;
	int i, j;

	for (i = b->n - 1; i >= 0; i--) {
		Stmt *s = b->v[i];
		bool dead = false;

		switch (s->kind) {
		case S_ASSIGN:
			if (rm && !s->is_def && s->var->role == V_LOCAL && !varset_has(l, s->var)) {
				dead = true;
				break;
			}
			if (rm && s->is_def && s->var->role == V_LOCAL && !varset_has(l, s->var)) {
				/* overwritten before any read: the next assignment, when it is
				 * in this block, becomes the definition */
				for (j = i + 1; j < b->n; j++) {
					Stmt *t = b->v[j];

					if (t->kind == S_ASSIGN && t->var == s->var) {
						t->is_def = true;
						s->var->def = t->e;
						s->var->literal_init = t->e->kind == E_LIT;
						dead = true;
						break;
					}
					if ((t->kind == S_FOR || t->kind == S_WHILE) && assigned_in(&t->body, s->var)) {
						/* overwritten in a later loop before any read: when
						 * every other use is in that loop, its assignment
						 * defines the variable there */
						int n = mentions_block(&t->body, s->var);
						Stmt *u = n + 1 == mentions_block(root, s->var) && t->var != s->var &&
							  !mentions_expr(t->e, s->var) ? loop_def(&t->body, s->var, n) : NULL;

						if (u) {
							u->is_def = true;
							s->var->def = u->e;
							s->var->literal_init = u->e->kind == E_LIT;
							s->var->need_dynamic = false; /* mark_dynamic redoes it */
							dead = true;
						}
						break;
					}
					if (assigned_in(&t->body, s->var) || assigned_in(&t->orelse, s->var) ||
					    (t->kind == S_AUG && t->var == s->var) || (t->kind == S_UNPACK && assigned_in(b, s->var)))
						break;
				}
				if (dead)
					break;
			}
			if (count && s->is_def && s->var->role == V_LOCAL && !varset_has(l, s->var) && computes(s->e))
				++*count;
			live_del(l, s->var);
			reads_expr(l, s->e);
			break;
		case S_AUG:
			if (rm && s->var->role == V_LOCAL && !varset_has(l, s->var)) {
				dead = true;
				break;
			}
			varset_add(l, s->var);
			reads_expr(l, s->e);
			break;
		case S_IF: {
			Live *t = xmalloc(sizeof *t);

			*t = *l;
			changed |= dead_block(&s->body, t, jump, rm, root, count);
			changed |= dead_block(&s->orelse, l, jump, rm, root, count);
			live_union(l, t);
			free(t);
			reads_expr(l, s->e);
			break;
		}
		case S_FOR:
		case S_WHILE: {
			Live *end, *t;
			int it;

			if (rm && loop_dead(&s->body, l)) {
				dead = true;
				break;
			}
			/* live at the body's end: after the loop, or the next iteration's
			 * start (and the condition); to a fixpoint, then remove */
			end = xmalloc(sizeof *end);
			t = xmalloc(sizeof *t);
			*end = *l;
			reads_expr(end, s->e);
			for (it = 0; it < 64; it++) {
				Live *next = xmalloc(sizeof *next);

				*t = *end;
				dead_block(&s->body, t, end, false, root, NULL);
				*next = *l;
				reads_expr(next, s->e);
				live_union(next, t);
				live_union(next, end);
				if (live_same(next, end)) {
					free(next);
					break;
				}
				*end = *next;
				free(next);
			}
			if (it == 64) { /* no fixpoint (cannot happen): be conservative */
				reads_block(end, &s->body);
				*t = *end;
			} else {
				*t = *end;
				changed |= dead_block(&s->body, t, end, rm, root, count);
			}
			live_union(l, t);
			live_union(l, end);
			reads_expr(l, s->e);
			for (j = 0; j < s->nidx; j++)
				reads_expr(l, s->idx[j]);
			free(end);
			free(t);
			break;
		}
		case S_BREAK:
		case S_CONTINUE:
			if (jump)
				live_union(l, jump);
			break;
		case S_UNPACK:
			for (j = 0; j < s->nvars; j++)
				live_del(l, s->vars[j]);
			reads_expr(l, s->e);
			break;
		default:
			if (s->kind == S_SETATTR)
				varset_add(l, s->var);
			reads_expr(l, s->e);
			for (j = 0; j < s->nidx; j++)
				reads_expr(l, s->idx[j]);
			break;
		}
		if (dead) {
			for (j = i; j + 1 < b->n; j++)
				b->v[j] = b->v[j + 1];
			b->n--;
			changed = true;
		}
	}
	return changed;
}

/* Definitions of a function body whose value nothing reads, that tidy_dead_stores
 * could not remove (the value is overwritten on every path, but not by one
 * assignment that can take the definition's place): dead weight, to redraw.  Only
 * values that compute something count (no literal, copy, draw or helper call), as
 * in kpyc's kir.  The body is only read. */
int
dead_defs(const Block *body)
{
	Live *l = xmalloc(sizeof *l);
	int n = 0;

	l->n = 0;
	dead_block((Block *)body, l, NULL, false, body, &n);
	free(l);
	return n;
}

/* Remove dead stores from a function body; true if anything went. */
bool
tidy_dead_stores(Block *body)
{
	Live *l = xmalloc(sizeof *l);
	bool changed;

	l->n = 0;
	changed = dead_block(body, l, NULL, true, body, NULL);
	free(l);
	return changed;
}
