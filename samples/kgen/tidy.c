/* Tidying a generated kernel the way a person would write it (no dead weight):
 *   - an input element read at the thread index is loaded once into a local and the
 *     local is used everywhere (no repeated a[i] beside ai = a[i]);
 *   - `if c: pass / else: body` becomes `if not c: body`;
 *   - parameters nothing reads are dropped: helper parameters (with the argument at
 *     every call) and kernel parameters.
 * check.c's dead-weight rules are the guard; gen_kernel redraws what still breaks them. */
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

/* `b = a` where neither changes afterwards: use a (dead-code removal drops b). */
void
tidy_copies(Block *body)
{
	copies_in(body, body);
}
