/* kgen's own sanity checks, run on every kernel before it is printed.
 *
 * An independent re-reading of the AST, not trusting the generators' bookkeeping:
 *   - Warp typing: operands of arithmetic, comparisons, where(), min/max/clamp and
 *     ternaries have identical types; no int/float mixing; literals are spelled for
 *     their type; user-function calls match the signatures;
 *   - scoping: every name is defined before use and visible, local names are unique
 *     per function, no definition inside a branch that sits inside a loop;
 *   - domains: division, floor division and modulo have denominators that cannot be
 *     zero, sqrt/log/pow act on positive-by-construction arguments, acos/asin on
 *     arguments strictly inside [-1, 1], shifts on non-negative values by 0..8;
 *   - arrays: inputs are only read, outputs stored exactly once per element at the top
 *     level at the thread index, accumulators only receive atomics, and every index is
 *     in bounds for every launch size (tid, clamped/guarded neighbours, i // c,
 *     modulo or clamp by arr.shape[d], randi(state, 0, arr.shape[d]));
 *   - loops Warp emits dynamically: literal-initialised variables they mutate are
 *     declared dynamic.
 * Every violation is described in err; the count is returned. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen.h"

#define MAXV 1024

typedef struct Ck {
	const Kernel *k;
	Buf *err;
	int nerr;
	const Func *fn;             /* function being checked, NULL for the kernel */
	const Var *vis[MAXV];       /* visible variables, innermost last */
	int nvis;
	const char *names[MAXV];    /* names defined in the current function */
	int nnames;
	const Var *idxdef_v[MAXV];  /* integer locals and their defining expressions */
	const Expr *idxdef_e[MAXV];
	int nidxdef;
	const Expr *guards[64];     /* enclosing if conditions */
	int nguards;
	int loops;                  /* enclosing loops */
	int branches;               /* enclosing if bodies */
	int stores[MAX_PARAMS];     /* stores per parameter */
	int acc[MAX_PARAMS];        /* accumulators: the AccClass of their first atomic */
} Ck;

static void
bad(Ck *c, const char *fmt, ...)
{
	va_list ap;

	c->nerr++;
	bufprintf(c->err, "  %s: ", c->fn ? c->fn->name : c->k->name);
	va_start(ap, fmt);
	bufvprintf(c->err, fmt, ap);
	va_end(ap);
	bufputs(c->err, "\n");
}

static const char *
tname(Type t, const Kernel *k)
{
	if (t.kind == TY_ARRAY)
		return "array";
	return ty_py(t, k);
}

static bool
visible(Ck *c, const Var *v)
{
	int i;

	for (i = c->nvis - 1; i >= 0; i--)
		if (c->vis[i] == v)
			return true;
	return false;
}

static void
define(Ck *c, const Var *v)
{
	int i;

	for (i = 0; i < c->nnames; i++)
		if (!strcmp(c->names[i], v->name))
			bad(c, "name '%s' defined twice", v->name);
	if (c->nnames < MAXV)
		c->names[c->nnames++] = v->name;
	if (c->nvis < MAXV)
		c->vis[c->nvis++] = v;
}

static bool
is_lit(const Expr *e)
{
	return e->kind == E_LIT;
}

static bool
is_call(const Expr *e, const char *name)
{
	return e->kind == E_CALL && !strcmp(e->s, name);
}

static bool
is_tid(const Expr *e, int d)
{
	return e->kind == E_VAR && e->var->role == V_TID && (d < 0 || !strcmp(e->var->name, (const char *[]){ "i", "j", "k" }[d]));
}

/* x >= 0 by construction (integers) */
static bool
nonneg_int(const Expr *e)
{
	if (e->kind == E_LIT)
		return lit_value(e) >= 0;
	if (e->kind == E_SHAPE || is_tid(e, -1) || is_call(e, "wp.abs"))
		return true;
	if (e->kind == E_BIN && e->op == OP_BITAND)
		return nonneg_int(e->a[0]) || nonneg_int(e->a[1]);
	if (e->kind == E_BIN && (e->op == OP_ADD || e->op == OP_MUL || e->op == OP_FLOORDIV || e->op == OP_MOD ||
				 e->op == OP_SHL || e->op == OP_SHR || e->op == OP_BITOR || e->op == OP_BITXOR))
		return nonneg_int(e->a[0]) && nonneg_int(e->a[1]);
	if (is_call(e, "wp.clamp"))
		return nonneg_int(e->a[1]);
	if (is_call(e, "wp.max"))
		return nonneg_int(e->a[0]) || nonneg_int(e->a[1]);
	if (is_call(e, "wp.min"))
		return nonneg_int(e->a[0]) && nonneg_int(e->a[1]);
	if (e->kind == E_VAR && (e->var->role == V_LOOP || e->var->role == V_LOCAL))
		return e->var->nonneg && !e->var->mutable_;
	return false;
}

/* float x >= 0 by construction: c >= 0, abs, length, length_sq, exp, sqrt, y * y,
 * max(y, c >= 0), sums and products of such */
static bool
nonneg_float(const Expr *e)
{
	if (e->kind == E_LIT)
		return lit_value(e) >= 0;
	if (is_call(e, "wp.abs") || is_call(e, "wp.length") || is_call(e, "wp.length_sq") || is_call(e, "wp.exp") ||
	    is_call(e, "wp.sqrt"))
		return e->ty.kind == TY_FLOAT;
	if (is_call(e, "wp.max") && e->n == 2)
		return (is_lit(e->a[1]) && lit_value(e->a[1]) >= 0) || (is_lit(e->a[0]) && lit_value(e->a[0]) >= 0);
	if (e->kind == E_VAR && e->var->role == V_LOCAL && !e->var->mutable_ && !e->var->mutated && e->var->def)
		return nonneg_float(e->var->def);
	if (e->kind == E_BIN && e->op == OP_MUL && e->a[0]->kind == E_VAR && e->a[1]->kind == E_VAR && e->a[0]->var == e->a[1]->var)
		return true;
	if (e->kind == E_BIN && e->op == OP_MUL && e->a[0] == e->a[1])
		return true;
	if (e->kind == E_BIN && (e->op == OP_ADD || e->op == OP_MUL))
		return nonneg_float(e->a[0]) && nonneg_float(e->a[1]);
	return false;
}

/* float x > 0 by construction: c > 0, y + c and c + y for y >= 0, max(y, c > 0),
 * sqrt of such, an unchanged local defined as such (the epsilon-clamp idioms) */
static bool
positive_float(const Expr *e)
{
	if (e->kind == E_LIT)
		return lit_value(e) > 0;
	if (is_call(e, "wp.cosh")) /* >= 1 */
		return e->ty.kind == TY_FLOAT;
	if (is_call(e, "wp.sqrt"))
		return positive_float(e->a[0]);
	if (is_call(e, "wp.max") && e->n == 2 && e->ty.kind == TY_FLOAT)
		return (is_lit(e->a[1]) && lit_value(e->a[1]) > 0) || (is_lit(e->a[0]) && lit_value(e->a[0]) > 0);
	if (e->kind == E_VAR && e->var->role == V_LOCAL && !e->var->mutable_ && !e->var->mutated && e->var->def)
		return positive_float(e->var->def);
	if (e->kind == E_BIN && e->op == OP_ADD) {
		const Expr *a = e->a[0], *b = e->a[1];

		if (is_lit(a) && lit_value(a) > 0) {
			const Expr *t = a;

			a = b;
			b = t;
		}
		if (!(is_lit(b) && lit_value(b) > 0))
			return false;
		return nonneg_float(a);
	}
	return false;
}

/* A nonzero float denominator: a nonzero literal or positive by construction. */
static bool
safe_denominator(const Expr *e)
{
	if (e->kind == E_LIT)
		return lit_value(e) != 0;
	return positive_float(e);
}

static bool
is_shape_minus_one(const Expr *e, int d)
{
	return e->kind == E_BIN && e->op == OP_SUB && e->a[0]->kind == E_SHAPE && e->a[0]->n == d && is_lit(e->a[1]) &&
	       lit_value(e->a[1]) == 1;
}

static const Expr *
idx_def(Ck *c, const Var *v)
{
	int i;

	for (i = c->nidxdef - 1; i >= 0; i--)
		if (c->idxdef_v[i] == v)
			return c->idxdef_e[i];
	return NULL;
}

/* An enclosing condition guards tid[d] - 1 (tid > 0) or tid[d] + 1 (tid + 1 < shape). */
static bool
guarded(Ck *c, int d, int op)
{
	int i;

	for (i = 0; i < c->nguards; i++) {
		const Expr *g = c->guards[i];

		if (g->kind != E_CMP)
			continue;
		if (op == OP_SUB && g->op == OP_GT && is_tid(g->a[0], d) && is_lit(g->a[1]) && lit_value(g->a[1]) == 0)
			return true;
		if (op == OP_ADD && g->op == OP_LT && g->a[0]->kind == E_BIN && g->a[0]->op == OP_ADD &&
		    is_tid(g->a[0]->a[0], d) && is_lit(g->a[0]->a[1]) && lit_value(g->a[0]->a[1]) == 1 &&
		    g->a[1]->kind == E_SHAPE && g->a[1]->n == d)
			return true;
	}
	return false;
}

/* Is e a valid index along dimension d for every launch size (all arrays share the
 * launch shape, so any array's shape[d] bounds it)? */
static bool
index_safe(Ck *c, const Expr *e, int d, int depth)
{
	if (depth > 8)
		return false;
	if (is_tid(e, d))
		return true;
	if (e->kind == E_LIT)
		return lit_value(e) == 0;
	if (e->kind == E_VAR && e->var->role == V_LOCAL && e->var->ty.kind == TY_INT) {
		const Expr *def = idx_def(c, e->var);

		return def && !e->var->mutable_ ? index_safe(c, def, d, depth + 1) : (def && index_safe(c, def, d, depth + 1));
	}
	if (e->kind == E_BIN && e->op == OP_FLOORDIV && is_tid(e->a[0], d) && is_lit(e->a[1]) && lit_value(e->a[1]) >= 1)
		return true;
	if (e->kind == E_BIN && e->op == OP_MOD && e->a[1]->kind == E_SHAPE && e->a[1]->n == d && nonneg_int(e->a[0]))
		return true;
	if (is_call(e, "wp.clamp") && is_lit(e->a[1]) && lit_value(e->a[1]) == 0 && is_shape_minus_one(e->a[2], d))
		return true;
	if (is_call(e, "wp.max") && is_lit(e->a[1]) && lit_value(e->a[1]) == 0 && e->a[0]->kind == E_BIN &&
	    e->a[0]->op == OP_SUB && is_tid(e->a[0]->a[0], d) && is_lit(e->a[0]->a[1]) && lit_value(e->a[0]->a[1]) > 0)
		return true;
	if (is_call(e, "wp.min") && is_shape_minus_one(e->a[1], d) && nonneg_int(e->a[0]))
		return true;
	if (is_call(e, "wp.randi") && e->n == 3 && is_lit(e->a[1]) && lit_value(e->a[1]) == 0 && e->a[2]->kind == E_SHAPE &&
	    e->a[2]->n == d)
		return true;
	if (e->kind == E_BIN && (e->op == OP_SUB || e->op == OP_ADD) && is_tid(e->a[0], d) && is_lit(e->a[1]) &&
	    lit_value(e->a[1]) == 1 && guarded(c, d, e->op))
		return true;
	return false;
}

static void check_expr(Ck *c, const Expr *e);

static bool
same(const Expr *a, const Expr *b)
{
	return ty_eq(a->ty, b->ty);
}

static void
check_bin(Ck *c, const Expr *e)
{
	const Expr *a = e->a[0], *b = e->a[1];
	Type ta = a->ty, tb = b->ty, tr = e->ty;
	bool scal_a = ta.kind == TY_FLOAT, scal_b = tb.kind == TY_FLOAT;
	bool comp_a = ta.kind == TY_VEC || ta.kind == TY_MAT || ta.kind == TY_QUAT;
	bool comp_b = tb.kind == TY_VEC || tb.kind == TY_MAT || tb.kind == TY_QUAT;

	switch (e->op) {
	case OP_ADD:
	case OP_SUB:
		if (!same(a, b) || !ty_eq(ta, tr) || ta.kind == TY_BOOL || ta.kind == TY_XFORM)
			bad(c, "'%s' on %s and %s", e->op == OP_ADD ? "+" : "-", tname(ta, c->k), tname(tb, c->k));
		break;
	case OP_MUL:
		if (same(a, b) && ty_eq(ta, tr) && (ta.kind == TY_INT || ta.kind == TY_FLOAT || ta.kind == TY_QUAT))
			break;
		if (comp_a && scal_b && ta.prec == tb.prec && ty_eq(ta, tr))
			break;
		if (comp_b && scal_a && ta.prec == tb.prec && ty_eq(tb, tr))
			break;
		bad(c, "'*' on %s and %s", tname(ta, c->k), tname(tb, c->k));
		break;
	case OP_DIV:
		if (!((same(a, b) && ta.kind == TY_FLOAT) || (ta.kind == TY_VEC && scal_b && ta.prec == tb.prec)) || !ty_eq(ta, tr))
			bad(c, "'/' on %s and %s", tname(ta, c->k), tname(tb, c->k));
		if (!safe_denominator(b))
			bad(c, "division by a value that is not positive by construction");
		break;
	case OP_FLOORDIV:
	case OP_MOD:
		if (ta.kind != TY_INT || tb.kind != TY_INT || tr.kind != TY_INT)
			bad(c, "'//' or '%%' on non-integers");
		if (!(is_lit(b) && lit_value(b) > 0) && b->kind != E_SHAPE &&
		    !(b->kind == E_BIN && b->op == OP_ADD && nonneg_int(b->a[0]) && is_lit(b->a[1]) && lit_value(b->a[1]) >= 1))
			bad(c, "integer division or modulo by a value that may be zero");
		break;
	case OP_MATMUL:
		if (ta.kind == TY_MAT && tb.kind == TY_MAT && ty_eq(ta, tb) && ty_eq(tr, ta))
			break;
		if (ta.kind == TY_MAT && tb.kind == TY_VEC && ta.n == tb.n && ta.prec == tb.prec && ty_eq(tr, tb))
			break;
		if (ta.kind == TY_VEC && tb.kind == TY_MAT && ta.n == tb.n && ta.prec == tb.prec && ty_eq(tr, ta))
			break;
		bad(c, "'@' on %s and %s", tname(ta, c->k), tname(tb, c->k));
		break;
	case OP_POW:
		if (ta.kind != TY_FLOAT || !same(a, b) || !is_lit(b) || lit_value(b) != floor(lit_value(b)))
			bad(c, "'**' needs float operands and an integral literal exponent");
		break;
	case OP_BITAND:
	case OP_BITOR:
	case OP_BITXOR:
		if (ta.kind != TY_INT || tb.kind != TY_INT)
			bad(c, "bitwise operator on non-integers");
		break;
	case OP_SHL:
	case OP_SHR:
		if (ta.kind != TY_INT || !is_lit(b) || lit_value(b) < 0 || lit_value(b) > 8 || !nonneg_int(a))
			bad(c, "shift of a value not known non-negative, or by a non-constant/large amount");
		break;
	default:
		bad(c, "unknown binary operator %d", e->op);
	}
}

static bool
same_leaf(const Expr *a, const Expr *b)
{
	return a->kind == E_VAR && b->kind == E_VAR && a->var == b->var;
}

/* old = wp.atomic_exch(a, tid..., v) or wp.atomic_cas(a, tid..., cmp, v): the
 * array is an accumulator of that one class, touched at the thread's own element,
 * at the top level of the kernel (so once per thread): no other thread reads or
 * writes the element, and the result does not depend on the thread order. */
static void
check_own_atomic(Ck *c, const Expr *e)
{
	bool cas = !strcmp(e->s, "wp.atomic_cas");
	const Var *a = e->n > 0 && e->a[0]->kind == E_VAR ? e->a[0]->var : NULL;
	int i, nv = cas ? 2 : 1;

	if (!a || a->role != V_ARRAY || a->io != IO_ACC) {
		bad(c, "%s on something that is not an accumulator array", e->s);
		return;
	}
	if (e->n != 1 + a->ndim + nv)
		bad(c, "%s on '%s' with %d arguments", e->s, a->name, e->n);
	if (c->fn || c->loops || c->branches)
		bad(c, "%s on '%s' not at the top level of the kernel", e->s, a->name);
	for (i = 0; i < a->ndim && 1 + i < e->n; i++)
		if (!is_tid(e->a[1 + i], i))
			bad(c, "%s on '%s' not at the thread index: another thread may touch the element", e->s, a->name);
	for (i = 1 + a->ndim; i < e->n; i++) {
		check_expr(c, e->a[i]);
		if (!ty_eq(e->a[i]->ty, a->elem))
			bad(c, "%s of a %s into an array of %s", e->s, tname(e->a[i]->ty, c->k), tname(a->elem, c->k));
	}
	if (!ty_eq(e->ty, a->elem))
		bad(c, "%s yields a %s from an array of %s", e->s, tname(e->ty, c->k), tname(a->elem, c->k));
	for (i = 0; i < c->k->nparams; i++) {
		if (c->k->params[i] != a)
			continue;
		if (!c->acc[i])
			c->acc[i] = cas ? ACC_CAS : ACC_EXCH;
		else if (c->acc[i] != (cas ? ACC_CAS : ACC_EXCH))
			bad(c, "'%s' receives atomics of two classes: the result depends on the thread order", a->name);
	}
}

static void
check_call(Ck *c, const Expr *e)
{
	const char *s = e->s;
	int i;

	if (!strcmp(s, "wp.where")) {
		if (e->n != 3 || e->a[0]->ty.kind != TY_BOOL || !same(e->a[1], e->a[2]) || !ty_eq(e->a[1]->ty, e->ty))
			bad(c, "wp.where needs a bool and two values of one type");
	} else if (!strcmp(s, "wp.min") || !strcmp(s, "wp.max") || !strcmp(s, "wp.clamp")) {
		for (i = 0; i < e->n; i++)
			if (!ty_eq(e->a[i]->ty, e->ty))
				bad(c, "%s arguments of different types (%s vs %s)", s, tname(e->a[i]->ty, c->k), tname(e->ty, c->k));
		if (!strcmp(s, "wp.clamp") && is_lit(e->a[1]) && is_lit(e->a[2]) && lit_value(e->a[1]) > lit_value(e->a[2]))
			bad(c, "wp.clamp with low > high");
	} else if (!strcmp(s, "wp.sqrt") || !strncmp(s, "wp.log", 6)) {
		if (!positive_float(e->a[0]))
			bad(c, "%s of an argument not positive by construction", s);
	} else if (!strcmp(s, "wp.pow")) {
		if (!positive_float(e->a[0]) || !is_lit(e->a[1]))
			bad(c, "wp.pow needs a positive base and a literal exponent");
	} else if (!strcmp(s, "wp.acos") || !strcmp(s, "wp.asin")) {
		const Expr *a = e->a[0];
		bool ok = is_call(a, "wp.tanh") || a->bound <= 0.95 ||
			  (is_call(a, "wp.clamp") && is_lit(a->a[1]) && is_lit(a->a[2]) && fabs(lit_value(a->a[1])) < 1 &&
			   fabs(lit_value(a->a[2])) < 1);

		if (!ok)
			bad(c, "%s argument may reach +-1", s);
	} else if (!strcmp(s, "wp.exp")) {
		const Expr *a = e->a[0];
		bool negsq = a->kind == E_BIN && a->op == OP_MUL && a->a[0]->kind == E_UN && a->a[0]->op == OP_NEG &&
			     same_leaf(a->a[0]->a[0], a->a[1]);

		if (a->bound > 12 && !negsq)
			bad(c, "wp.exp argument not bounded (%g)", a->bound);
	} else if (!strcmp(s, "wp.atan2")) {
		if (!positive_float(e->a[0]) && !positive_float(e->a[1]))
			bad(c, "wp.atan2 with both arguments possibly zero");
	} else if (!strcmp(s, "wp.inverse")) {
		const Expr *w = e->a[0];

		if (!(w->kind == E_BIN && (w->op == OP_ADD || w->op == OP_SUB)))
			bad(c, "wp.inverse of a matrix not built as c*I + E");
	} else if (!strcmp(s, "float") || !strcmp(s, "int") || !strcmp(s, "wp.float64") || !strcmp(s, "wp.float32")) {
		if (e->n != 1 || (e->a[0]->ty.kind != TY_INT && e->a[0]->ty.kind != TY_FLOAT &&
				  !(e->a[0]->ty.kind == TY_UINT && !strcmp(s, "int") &&
				    (is_call(e->a[0], "wp.poisson") || is_call(e->a[0], "wp.randu") || is_call(e->a[0], "wp.argmin") ||
				     is_call(e->a[0], "wp.argmax")))))
			bad(c, "%s conversion of a non-scalar", s);
		if (!strcmp(s, "wp.float64") && e->a[0]->kind == E_VAR &&
		    (e->a[0]->var->role == V_LOOP || (e->a[0]->var->literal_init && (e->a[0]->ty.kind == TY_INT || !e->a[0]->var->mutated))))
			bad(c, "wp.float64 of a constant would retype it");
	} else {
		for (i = 0; i < c->k->nfuncs; i++) {
			const Func *f = c->k->funcs[i];
			int j;

			if (strcmp(f->name, s))
				continue;
			if (f->nparams != e->n)
				bad(c, "call of %s with %d arguments, wants %d", s, e->n, f->nparams);
			for (j = 0; j < e->n && j < f->nparams; j++)
				if (!ty_eq(f->params[j]->ty, e->a[j]->ty))
					bad(c, "argument %d of %s: %s, wants %s", j + 1, s, tname(e->a[j]->ty, c->k),
					    tname(f->params[j]->ty, c->k));
		}
	}
}

static void
check_expr(Ck *c, const Expr *e)
{
	int i;

	switch (e->kind) {
	case E_LIT:
		if (e->ty.kind == TY_FLOAT) {
			const char *t = e->s;

			if (e->ty.prec == PREC_F64 && strncmp(t, "wp.float64(", 11))
				bad(c, "float64 literal %s not spelled wp.float64(...)", t);
			if (!strpbrk(t, ".e"))
				bad(c, "float literal %s reads as an int", t);
		} else if (e->ty.kind == TY_INT && strpbrk(e->s, ".e")) {
			bad(c, "int literal %s", e->s);
		}
		return;
	case E_VAR:
		if (!visible(c, e->var))
			bad(c, "'%s' used where it is not defined", e->var->name);
		if (e->var->role == V_ARRAY)
			bad(c, "array '%s' used as a value", e->var->name);
		return;
	case E_SHAPE:
		if (e->var->role != V_ARRAY || e->n >= e->var->ndim)
			bad(c, "bad shape access");
		return;
	case E_LOAD:
		if (e->var->role != V_ARRAY || e->var->io != IO_IN)
			bad(c, "load from '%s', which is not an input array", e->var->name);
		if (e->n != e->var->ndim)
			bad(c, "'%s' indexed with %d indices, has %d dimensions", e->var->name, e->n, e->var->ndim);
		for (i = 0; i < e->n; i++) {
			if (e->a[i]->ty.kind != TY_INT)
				bad(c, "non-integer index");
			if (!index_safe(c, e->a[i], i, 0))
				bad(c, "index %d of '%s' may be out of bounds for some launch size", i, e->var->name);
		}
		break;
	case E_BIN:
		check_bin(c, e);
		break;
	case E_UN:
		if (e->op == OP_NOT ? e->a[0]->ty.kind != TY_BOOL
				    : e->op == OP_INVERT ? e->a[0]->ty.kind != TY_INT
							 : (e->a[0]->ty.kind == TY_BOOL || !ty_eq(e->a[0]->ty, e->ty)))
			bad(c, "unary operator on %s", tname(e->a[0]->ty, c->k));
		break;
	case E_CMP:
		if (!same(e->a[0], e->a[1]) || (e->a[0]->ty.kind != TY_INT && e->a[0]->ty.kind != TY_FLOAT))
			bad(c, "comparison of %s and %s", tname(e->a[0]->ty, c->k), tname(e->a[1]->ty, c->k));
		if (e->a[0]->ty.kind == TY_FLOAT && (e->op == OP_EQ || e->op == OP_NE))
			bad(c, "float equality comparison");
		break;
	case E_BOOL:
		if (e->a[0]->ty.kind != TY_BOOL || e->a[1]->ty.kind != TY_BOOL)
			bad(c, "and/or on non-bools");
		break;
	case E_IFEXP:
		if (e->a[0]->ty.kind != TY_BOOL || !same(e->a[1], e->a[2]) || !ty_eq(e->a[1]->ty, e->ty))
			bad(c, "conditional expression with branches %s and %s", tname(e->a[1]->ty, c->k), tname(e->a[2]->ty, c->k));
		break;
	case E_CALL:
		if (!strcmp(e->s, "wp.atomic_exch") || !strcmp(e->s, "wp.atomic_cas")) {
			check_own_atomic(c, e);
			return;
		}
		check_call(c, e);
		break;
	case E_INDEX: {
		Type b = e->a[0]->ty;

		if (!(b.kind == TY_VEC || b.kind == TY_MAT || b.kind == TY_QUAT))
			bad(c, "component of a %s", tname(b, c->k));
		for (i = 1; i < e->n; i++)
			if (!is_lit(e->a[i]) || lit_value(e->a[i]) < 0 || lit_value(e->a[i]) >= (b.kind == TY_QUAT ? 4 : b.n))
				bad(c, "component index out of range");
		break;
	}
	case E_ATTR:
		break;
	case E_RAW:
		return;
	default:
		bad(c, "unknown expression kind %d", e->kind);
		return;
	}
	for (i = 0; i < e->n; i++)
		check_expr(c, e->a[i]);
}

/* ----------------------------------------------------------------- statements */

typedef struct Muts {
	const Var *v[MAXV];
	int n;
	const Var *defs[MAXV];
	int ndefs;
} Muts;

static void
muts_collect(const Block *b, Muts *m)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if (s->kind == S_ASSIGN && s->is_def && m->ndefs < MAXV)
			m->defs[m->ndefs++] = s->var;
		else if ((s->kind == S_ASSIGN || s->kind == S_AUG) && m->n < MAXV)
			m->v[m->n++] = s->var;
		for (j = 0; j < s->nvars && m->ndefs < MAXV; j++)
			m->defs[m->ndefs++] = s->vars[j];
		muts_collect(&s->body, m);
		muts_collect(&s->orelse, m);
	}
}

static bool
exits(const Block *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if (s->kind == S_BREAK || s->kind == S_CONTINUE)
			return true;
		if (s->kind == S_IF && (exits(&s->body) || exits(&s->orelse)))
			return true;
	}
	return false;
}

static void
check_dynamic(Ck *c, const Stmt *s)
{
	bool dyn = s->kind == S_WHILE || exits(&s->body);
	Muts *m;
	int i, j;

	if (s->kind == S_FOR) {
		long v[3] = { 0, 0, 1 }, n;

		for (i = 0; i < s->nidx; i++) {
			if (!is_lit(s->idx[i]))
				dyn = true;
			else
				v[i] = (long)lit_value(s->idx[i]);
		}
		if (s->nidx == 1)
			v[1] = v[0], v[0] = 0;
		n = v[2] > 0 ? (v[1] > v[0] ? (v[1] - v[0] + v[2] - 1) / v[2] : 0) : (v[0] > v[1] ? (v[0] - v[1] - v[2] - 1) / -v[2] : 0);
		if (n > 16)
			dyn = true;
	}
	if (!dyn)
		return;
	m = xmalloc(sizeof *m);
	m->n = m->ndefs = 0;
	muts_collect(&s->body, m);
	for (i = 0; i < m->n; i++) {
		bool inner = false;

		for (j = 0; j < m->ndefs; j++)
			inner |= m->defs[j] == m->v[i];
		if (!inner && m->v[i]->literal_init && !m->v[i]->need_dynamic &&
		    !(m->v[i]->ty.kind == TY_FLOAT && m->v[i]->ty.prec == PREC_F64))
			bad(c, "'%s' is a constant mutated in a dynamic loop", m->v[i]->name);
	}
	free(m);
}

static void check_block(Ck *c, const Block *b);

static void
check_stmt(Ck *c, const Stmt *s)
{
	int i, mark;

	switch (s->kind) {
	case S_ASSIGN:
		check_expr(c, s->e);
		if (s->is_def) {
			if (c->branches > 0 && c->loops > 0)
				bad(c, "'%s' first assigned in a branch inside a loop", s->var->name);
			if (!ty_eq(s->var->ty, s->e->ty))
				bad(c, "'%s' defined with a value of another type", s->var->name);
			define(c, s->var);
			if (s->var->ty.kind == TY_INT && c->nidxdef < MAXV) {
				c->idxdef_v[c->nidxdef] = s->var;
				c->idxdef_e[c->nidxdef++] = s->e;
			}
		} else {
			if (!visible(c, s->var) || s->var->role != V_LOCAL)
				bad(c, "assignment to '%s', which is not a visible local", s->var->name);
			if (!ty_eq(s->var->ty, s->e->ty))
				bad(c, "'%s' (%s) assigned a %s", s->var->name, tname(s->var->ty, c->k), tname(s->e->ty, c->k));
		}
		break;
	case S_AUG:
		check_expr(c, s->e);
		if (!visible(c, s->var) || s->var->role != V_LOCAL)
			bad(c, "augmented assignment to '%s', which is not a visible local", s->var->name);
		if (s->op == OP_MUL ? !(ty_eq(s->e->ty, s->var->ty) || (s->e->ty.kind == TY_FLOAT && s->e->ty.prec == s->var->ty.prec))
				    : !ty_eq(s->e->ty, s->var->ty))
			bad(c, "'%s' (%s) updated with a %s", s->var->name, tname(s->var->ty, c->k), tname(s->e->ty, c->k));
		break;
	case S_STORE:
		check_expr(c, s->e);
		if (s->var->role != V_ARRAY || s->var->io != IO_OUT)
			bad(c, "store into '%s', which is not an output", s->var->name);
		if (c->fn || c->loops || c->branches)
			bad(c, "store into '%s' not at the top level of the kernel", s->var->name);
		if (!ty_eq(s->e->ty, s->var->elem))
			bad(c, "store of a %s into an array of %s", tname(s->e->ty, c->k), tname(s->var->elem, c->k));
		for (i = 0; i < s->nidx; i++)
			if (!is_tid(s->idx[i], i))
				bad(c, "store into '%s' not at the thread index", s->var->name);
		for (i = 0; i < c->k->nparams; i++)
			if (c->k->params[i] == s->var)
				c->stores[i]++;
		break;
	case S_ATOMIC:
		check_expr(c, s->e);
		if (s->var->role != V_ARRAY || s->var->io != IO_ACC)
			bad(c, "atomic on '%s', which is not an accumulator", s->var->name);
		if (!ty_eq(s->e->ty, s->var->elem))
			bad(c, "atomic of a %s into an array of %s", tname(s->e->ty, c->k), tname(s->var->elem, c->k));
		if (s->nidx != s->var->ndim)
			bad(c, "atomic index count");
		for (i = 0; i < s->nidx; i++) {
			check_expr(c, s->idx[i]);
			if (!index_safe(c, s->idx[i], i, 0))
				bad(c, "atomic index %d of '%s' may be out of bounds", i, s->var->name);
		}
		for (i = 0; i < c->k->nparams; i++) {
			if (c->k->params[i] != s->var)
				continue;
			if (!c->acc[i])
				c->acc[i] = acc_class(s);
			else if (c->acc[i] != acc_class(s))
				bad(c, "'%s' receives atomics of two classes (add, min, max): the result depends on the thread order",
				    s->var->name);
		}
		break;
	case S_IF:
		check_expr(c, s->e);
		if (s->e->ty.kind != TY_BOOL)
			bad(c, "if condition is not a bool");
		mark = c->nvis;
		c->branches++;
		if (c->nguards < 64)
			c->guards[c->nguards++] = s->e;
		check_block(c, &s->body);
		c->nguards--;
		c->nvis = mark;
		check_block(c, &s->orelse);
		c->nvis = mark;
		c->branches--;
		break;
	case S_FOR:
		for (i = 0; i < s->nidx; i++) {
			check_expr(c, s->idx[i]);
			if (s->idx[i]->ty.kind != TY_INT)
				bad(c, "range() argument is not an int");
		}
		check_dynamic(c, s);
		mark = c->nvis;
		define(c, s->var);
		c->loops++;
		check_block(c, &s->body);
		c->loops--;
		c->nvis = mark;
		break;
	case S_WHILE:
		check_expr(c, s->e);
		check_dynamic(c, s);
		if (s->body.n == 0 || s->body.v[0]->kind != S_AUG || !s->body.v[0]->var->counter)
			bad(c, "while loop does not start by incrementing its counter");
		mark = c->nvis;
		c->loops++;
		check_block(c, &s->body);
		c->loops--;
		c->nvis = mark;
		break;
	case S_BREAK:
	case S_CONTINUE:
		if (!c->loops)
			bad(c, "break/continue outside a loop");
		break;
	case S_ASSERT:
		check_expr(c, s->e);
		if (s->e->ty.kind != TY_BOOL)
			bad(c, "assert of a %s, not a condition", tname(s->e->ty, c->k));
		break;
	case S_RETURN:
		if (c->fn ? s->nidx != c->fn->nrets : s->nidx != 0)
			bad(c, "return with the wrong count (a kernel returns nothing)");
		for (i = 0; i < s->nidx; i++) {
			check_expr(c, s->idx[i]);
			if (c->fn && i < c->fn->nrets && !ty_eq(s->idx[i]->ty, c->fn->rets[i]))
				bad(c, "return value %d has the wrong type", i + 1);
		}
		break;
	case S_UNPACK:
		check_expr(c, s->e);
		if (c->branches > 0 && c->loops > 0)
			bad(c, "unpacking in a branch inside a loop");
		for (i = 0; i < s->nvars; i++)
			define(c, s->vars[i]);
		break;
	case S_SETATTR: {
		const StructDef *sd;
		int f;
		bool found = false;

		check_expr(c, s->e);
		if (s->s[0] == '[') { /* v[k] = e on a local vector */
			if (s->var->ty.kind != TY_VEC || !visible(c, s->var) || s->var->role != V_LOCAL || !s->var->mutable_ ||
			    atoi(s->s + 1) < 0 || atoi(s->s + 1) >= s->var->ty.n || s->e->ty.kind != TY_FLOAT || s->e->ty.prec != s->var->ty.prec)
				bad(c, "component store %s%s", s->var->name, s->s);
			break;
		}
		if (!strncmp(s->s, "wp.transform_set_", 17)) { /* an in-place setter on a local transform */
			bool rot = !strcmp(s->s + 17, "rotation");
			if (s->var->ty.kind != TY_XFORM || !visible(c, s->var) || s->var->role != V_LOCAL || !s->var->mutable_ ||
			    (!rot && strcmp(s->s + 17, "translation")) || s->e->ty.kind != (rot ? TY_QUAT : TY_VEC) ||
			    (!rot && s->e->ty.n != 3))
				bad(c, "%s(%s, ...)", s->s, s->var->name);
			break;
		}
		if (s->var->ty.kind != TY_STRUCT || !visible(c, s->var)) {
			bad(c, "field store into '%s', not a visible struct", s->var->name);
			break;
		}
		sd = &c->k->structs[s->var->ty.sid];
		for (f = 0; f < sd->nfields; f++)
			if (!strcmp(sd->fname[f], s->s)) {
				found = true;
				if (!ty_eq(sd->fty[f], s->e->ty))
					bad(c, "field %s.%s assigned a %s", sd->name, s->s, tname(s->e->ty, c->k));
			}
		if (!found)
			bad(c, "no field %s", s->s);
		break;
	}
	default:
		bad(c, "unknown statement kind %d", s->kind);
	}
}

static void
check_block(Ck *c, const Block *b)
{
	int i, mark = c->nvis;

	for (i = 0; i < b->n; i++)
		check_stmt(c, b->v[i]);
	c->nvis = mark;
}

int
check_kernel(const Kernel *k, Buf *err)
{
	Ck *c = xmalloc(sizeof *c);
	int i, j, n;
	bool writes = false;

	memset(c, 0, sizeof *c);
	c->k = k;
	c->err = err;
	for (i = 0; i < k->nfuncs; i++) {
		const Func *f = k->funcs[i];

		c->fn = f;
		c->nvis = c->nnames = c->nidxdef = 0;
		for (j = 0; j < f->nparams; j++)
			define(c, f->params[j]);
		check_block(c, &f->body);
		if (f->body.n == 0 || f->body.v[f->body.n - 1]->kind != S_RETURN)
			bad(c, "function does not end with return");
	}
	c->fn = NULL;
	c->nvis = c->nnames = c->nidxdef = 0;
	for (i = 0; i < k->nparams; i++)
		define(c, k->params[i]);
	check_block(c, &k->body);
	for (i = 0; i < k->nparams; i++) {
		const Var *p = k->params[i];

		if (p->role != V_ARRAY)
			continue;
		if (p->ndim != k->ndim)
			bad(c, "array '%s' has %d dimensions, the launch %d", p->name, p->ndim, k->ndim);
		if (p->io == IO_OUT && c->stores[i] != 1)
			bad(c, "output '%s' stored %d times", p->name, c->stores[i]);
		if (p->io != IO_IN)
			writes = true;
	}
	if (!writes)
		bad(c, "kernel writes no array");
	for (i = 0; i < k->nfuncs; i++)
		for (j = i + 1; j < k->nfuncs; j++)
			if (!strcmp(k->funcs[i]->name, k->funcs[j]->name))
				bad(c, "function %s defined twice", k->funcs[i]->name);
	n = c->nerr;
	free(c);
	return n;
}

/* ----------------------------------------------------------------- dead weight
 *
 * What a person would not write, read off the finished AST (an independent reader,
 * tests/kgen/deadweight.test, checks the same on kpyc's kir):
 *   - a parameter the kernel or a helper never uses;
 *   - an operation that computes nothing: x - x, x / x, min/max(x, x), where(c, x, x)
 *     or `x if c else x`, (a + x) - x and the like, `v += e` right after `v -= e`,
 *     `v += x` then `v - x` while neither changed in between (the old v);
 *     an if whose body is empty;
 *   - a definition whose value nothing reads (overwritten on every path): what
 *     tidy_dead_stores could not remove;
 *   - an expression computed twice while none of its variables changed in between
 *     (a person names it once): any operation, call or load of the same text that
 *     is still available (computed earlier in this block or an enclosing one).
 * Texts are compared as printed, so the rule is syntactic, like kir's. */

typedef struct Avail {
	char **text;  /* available expressions, innermost scope last */
	int *depth;
	int n, cap;
	int depth_now;
	const Kernel *k;
	const Func *fn;
	const Block *body;  /* of the function being read */
	Buf *err;
	int nerr;
	/* the last update of each variable, `v op= x` or `v = a op x`, while neither
	 * v nor a variable of x changed since: (v, op, text of x, scope depth) */
	const Var **uv;
	int *uop;
	char **ux;
	int *udepth;
	int un, ucap;
	/* copies `v = w` while neither changed since, on the path being read:
	 * (v, w, scope depth), w already resolved through earlier copies */
	const Var **cv, **cw;
	int *cdepth;
	int cn, ccap;
} Avail;

/* v is assigned after its definition somewhere in b. */
static bool
dw_assigned(const Block *b, const Var *v)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if (((s->kind == S_ASSIGN && !s->is_def) || s->kind == S_AUG || s->kind == S_SETATTR) && s->var == v)
			return true;
		for (j = 0; s->kind == S_UNPACK && j < s->nvars; j++)
			if (s->vars[j] == v)
				return true;
		if (dw_assigned(&s->body, v) || dw_assigned(&s->orelse, v))
			return true;
	}
	return false;
}

static void
dw_bad(Avail *a, const char *what, const char *text)
{
	a->nerr++;
	bufprintf(a->err, "  %s: %s: %s\n", a->fn ? a->fn->name : a->k->name, what, text);
}

static char *
ex_text(const Expr *e, const Kernel *k)
{
	Buf b = { 0 };

	emit_expr(&b, e, k);
	return b.s;
}

static bool
ex_eq(const Expr *x, const Expr *y, const Kernel *k)
{
	char *a = ex_text(x, k), *b = ex_text(y, k);
	bool same = !strcmp(a, b);

	free(a);
	free(b);
	return same;
}

static bool
has_vars(const Expr *e)
{
	int i;

	if (e->kind == E_VAR || e->kind == E_LOAD || e->kind == E_SHAPE)
		return true;
	for (i = 0; i < e->n; i++)
		if (has_vars(e->a[i]))
			return true;
	return false;
}

static bool
is_user_func(const Kernel *k, const char *s)
{
	int i;

	for (i = 0; i < k->nfuncs; i++)
		if (k->funcs[i]->name == s || !strcmp(k->funcs[i]->name, s))
			return true;
	return false;
}

/* Does the expression compute a value worth naming (an operation on variables)? */
static bool
nameable(const Avail *a, const Expr *e)
{
	switch (e->kind) {
	case E_BIN:
	case E_UN:
	case E_CMP:
	case E_BOOL:
	case E_IFEXP:
	case E_LOAD:
		break;
	case E_CALL:
		if (!strncmp(e->s, "wp.rand", 7) || !strcmp(e->s, "wp.tid") || strchr(e->s, '(') || is_user_func(a->k, e->s))
			return false;
		break;
	default:
		return false;
	}
	return !(e->flags & EF_RAND) && has_vars(e);
}

static bool
name_in(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strstr(text, name); p; p = strstr(p + 1, name)) {
		bool l = p == text || !(p[-1] == '_' || p[-1] == '.' || (p[-1] >= 'a' && p[-1] <= 'z') ||
					(p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
		char c = p[n];
		bool r = !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));

		if (l && r)
			return true;
	}
	return false;
}

static void
up_kill(Avail *a, const char *name)
{
	int i, n = 0;

	for (i = 0; i < a->un; i++) {
		if (!strcmp(a->uv[i]->name, name) || name_in(a->ux[i], name)) {
			free(a->ux[i]);
			continue;
		}
		a->uv[n] = a->uv[i];
		a->uop[n] = a->uop[i];
		a->ux[n] = a->ux[i];
		a->udepth[n++] = a->udepth[i];
	}
	a->un = n;
}

static void
cp_kill(Avail *a, const char *name)
{
	int i, n = 0;

	for (i = 0; i < a->cn; i++) {
		if (!strcmp(a->cv[i]->name, name) || !strcmp(a->cw[i]->name, name))
			continue;
		a->cv[n] = a->cv[i];
		a->cw[n] = a->cw[i];
		a->cdepth[n++] = a->cdepth[i];
	}
	a->cn = n;
}

/* The variable whose value e is, through the copies on the path; NULL if e is no
 * variable. */
static const Var *
cp_resolve(const Avail *a, const Expr *e)
{
	int i;

	if (e->kind != E_VAR)
		return NULL;
	for (i = a->cn - 1; i >= 0; i--)
		if (a->cv[i] == e->var)
			return a->cw[i];
	return e->var;
}

/* After statement s: a copy of a variable. */
static void
cp_note(Avail *a, const Stmt *s)
{
	if (s->kind != S_ASSIGN || s->e->kind != E_VAR || s->e->var == s->var || s->e->var->role == V_ARRAY)
		return;
	if (a->cn == a->ccap) {
		a->ccap = a->ccap ? 2 * a->ccap : 16;
		a->cv = xrealloc(a->cv, sizeof *a->cv * (size_t)a->ccap);
		a->cw = xrealloc(a->cw, sizeof *a->cw * (size_t)a->ccap);
		a->cdepth = xrealloc(a->cdepth, sizeof *a->cdepth * (size_t)a->ccap);
	}
	a->cw[a->cn] = cp_resolve(a, s->e);
	a->cv[a->cn] = s->var;
	a->cdepth[a->cn++] = a->depth_now;
}

/* x and y are the same value: the same text, or copies of one variable. */
static bool
same_val(const Avail *a, const Expr *x, const Expr *y)
{
	const Var *u = cp_resolve(a, x);

	return ex_eq(x, y, a->k) || (u && u == cp_resolve(a, y));
}

static void
up_pop(Avail *a)
{
	while (a->un > 0 && a->udepth[a->un - 1] > a->depth_now)
		free(a->ux[--a->un]);
	while (a->cn > 0 && a->cdepth[a->cn - 1] > a->depth_now)
		a->cn--;
}

/* After statement s: remember the update it makes, if any (v's older one is gone:
 * assigning v killed it). */
static void
up_note(Avail *a, const Stmt *s)
{
	const Expr *x;
	int op;

	if (s->kind == S_AUG) {
		op = s->op;
		x = s->e;
	} else if (s->kind == S_ASSIGN && s->e->kind == E_BIN && s->e->n == 2) {
		op = s->e->op;
		x = s->e->a[1];
	} else
		return;
	if ((op != OP_ADD && op != OP_SUB && op != OP_MUL && op != OP_DIV) || !has_vars(x))
		return;
	if (a->un == a->ucap) {
		a->ucap = a->ucap ? 2 * a->ucap : 16;
		a->uv = xrealloc(a->uv, sizeof *a->uv * (size_t)a->ucap);
		a->uop = xrealloc(a->uop, sizeof *a->uop * (size_t)a->ucap);
		a->ux = xrealloc(a->ux, sizeof *a->ux * (size_t)a->ucap);
		a->udepth = xrealloc(a->udepth, sizeof *a->udepth * (size_t)a->ucap);
	}
	a->ux[a->un] = ex_text(x, a->k);
	if (name_in(a->ux[a->un], s->var->name)) { /* v += f(v): not invertible by text */
		free(a->ux[a->un]);
		return;
	}
	a->uv[a->un] = s->var;
	a->uop[a->un] = op;
	a->udepth[a->un++] = a->depth_now;
}

static bool
inverse_ops(int first, int then)
{
	return (first == OP_ADD && then == OP_SUB) || (first == OP_SUB && then == OP_ADD) ||
	       (first == OP_MUL && then == OP_DIV) || (first == OP_DIV && then == OP_MUL);
}

static void
av_kill(Avail *a, const char *name)
{
	int i, n = 0;

	up_kill(a, name);
	cp_kill(a, name);

	for (i = 0; i < a->n; i++) {
		if (name_in(a->text[i], name)) {
			free(a->text[i]);
			continue;
		}
		a->text[n] = a->text[i];
		a->depth[n++] = a->depth[i];
	}
	a->n = n;
}

static void
av_pop(Avail *a)
{
	while (a->n > 0 && a->depth[a->n - 1] > a->depth_now)
		free(a->text[--a->n]);
	up_pop(a);
}

/* Variables assigned (not first defined) anywhere in b: they stop being available. */
static void
av_kill_assigned(Avail *a, const Block *b, bool defs_too)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if ((s->kind == S_ASSIGN && (defs_too || !s->is_def)) || s->kind == S_AUG || s->kind == S_SETATTR)
			av_kill(a, s->var->name);
		if (s->kind == S_UNPACK)
			for (j = 0; j < s->nvars; j++)
				av_kill(a, s->vars[j]->name);
		if (s->kind == S_FOR)
			av_kill(a, s->var->name);
		av_kill_assigned(a, &s->body, true);
		av_kill_assigned(a, &s->orelse, true);
	}
}

/* A copy of e with each variable replaced by the one it is a copy of on the path
 * (cp_resolve); free with cp_free. */
static Expr *
cp_clone(const Avail *a, const Expr *e)
{
	Expr *c = xmalloc(sizeof *c);
	int i;

	*c = *e;
	if (e->kind == E_VAR)
		c->var = (Var *)cp_resolve(a, e);
	if (e->n > 0 && e->a) {
		c->a = xmalloc(sizeof *c->a * (size_t)e->n);
		for (i = 0; i < e->n; i++)
			c->a[i] = cp_clone(a, e->a[i]);
	}
	return c;
}

static void
cp_free(Expr *c, const Expr *e)
{
	int i;

	if (e->n > 0 && e->a) {
		for (i = 0; i < e->n; i++)
			cp_free(c->a[i], e->a[i]);
		free(c->a);
	}
	free(c);
}

/* The text of e with copies resolved: `wp.tanh(gain)` after `gain = rt` reads
 * `wp.tanh(rt)`, the same value as an earlier `wp.tanh(rt)`. */
static char *
cp_text(const Avail *a, const Expr *e)
{
	Expr *c = cp_clone(a, e);
	char *t = ex_text(c, a->k);

	cp_free(c, e);
	return t;
}

/* No-op forms and repeats in e; new available expressions are added after the walk
 * (operands before the operation, as evaluated). */
static void
dw_expr(Avail *a, const Expr *e)
{
	char *t;
	int i;

	if (!e || e->kind == E_SHAPE)
		return;
	for (i = 0; i < e->n; i++)
		dw_expr(a, e->a[i]);
	if (e->kind == E_BIN && e->n == 2 && has_vars(e->a[0])) {
		const Expr *l = e->a[0], *r = e->a[1];

		if (l->kind == E_VAR)
			for (i = a->un - 1; i >= 0; i--)
				if (a->uv[i] == l->var) {
					if (inverse_ops(a->uop[i], e->op)) {
						t = ex_text(r, a->k);
						if (!strcmp(a->ux[i], t))
							dw_bad(a, "operation undoes the last update", t);
						free(t);
					}
					break;
				}
		/* a local never changed after its definition stands for its value */
		if (l->kind == E_VAR && l->var->role == V_LOCAL && l->var->def && a->body && !dw_assigned(a->body, l->var))
			l = l->var->def;

		if ((e->op == OP_SUB || e->op == OP_DIV || e->op == OP_FLOORDIV || e->op == OP_MOD || e->op == OP_BITXOR) &&
		    (ex_eq(l, r, a->k) || same_val(a, e->a[0], r)))
			dw_bad(a, "operation on equal operands", (t = ex_text(e, a->k))), free(t);
		else if (l->kind == E_BIN && l->n == 2 &&
			 ((e->op == OP_SUB && l->op == OP_ADD) || (e->op == OP_ADD && l->op == OP_SUB) ||
			  (e->op == OP_DIV && l->op == OP_MUL) || (e->op == OP_MUL && l->op == OP_DIV)) &&
			 ex_eq(l->a[1], r, a->k))
			dw_bad(a, "operation undone", (t = ex_text(e, a->k))), free(t);
	}
	if (e->kind == E_CALL && e->n == 2 && (!strcmp(e->s, "wp.min") || !strcmp(e->s, "wp.max")) && same_val(a, e->a[0], e->a[1]))
		dw_bad(a, "min/max of equal operands", (t = ex_text(e, a->k))), free(t);
	if (((e->kind == E_CALL && e->n == 3 && !strcmp(e->s, "wp.where")) || e->kind == E_IFEXP) && same_val(a, e->a[1], e->a[2]))
		dw_bad(a, "selection between equal values", (t = ex_text(e, a->k))), free(t);
	if (!nameable(a, e))
		return;
	t = cp_text(a, e);
	for (i = 0; i < a->n; i++)
		if (!strcmp(a->text[i], t)) {
			dw_bad(a, "computed twice", t);
			free(t);
			return;
		}
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->text = xrealloc(a->text, sizeof *a->text * (size_t)a->cap);
		a->depth = xrealloc(a->depth, sizeof *a->depth * (size_t)a->cap);
	}
	a->text[a->n] = t;
	a->depth[a->n++] = a->depth_now;
}

/* v op= x on the path being read (an enclosing block's statements included):
 * undoing v's last update (`d = -2.0 + b` then `d -= b`), or an operation on
 * equal operands when v is a copy of x (`w = wt` then `w -= wt`). */
static void
dw_aug(Avail *a, const Stmt *s)
{
	const Var *v = s->var, *x;
	char *t;
	int i;

	for (i = a->un - 1; i >= 0; i--)
		if (a->uv[i] == v) {
			if (inverse_ops(a->uop[i], s->op)) {
				t = ex_text(s->e, a->k);
				if (!strcmp(a->ux[i], t))
					dw_bad(a, "update undoes the last update", v->name);
				free(t);
			}
			break;
		}
	if (s->op != OP_SUB && s->op != OP_DIV && s->op != OP_FLOORDIV && s->op != OP_MOD && s->op != OP_BITXOR)
		return;
	x = cp_resolve(a, s->e);
	for (i = a->cn - 1; i >= 0; i--)
		if (a->cv[i] == v) {
			v = a->cw[i];
			break;
		}
	if (x && x == v)
		dw_bad(a, "update on equal operands", s->var->name);
}

static void
dw_block(Avail *a, const Block *b)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if (s->kind == S_AUG && i > 0 && b->v[i - 1]->kind == S_ASSIGN && b->v[i - 1]->var == s->var &&
		    b->v[i - 1]->e->kind == E_BIN && b->v[i - 1]->e->n == 2) {
			const Expr *d = b->v[i - 1]->e;
			int o = d->op;

			if (((o == OP_ADD && s->op == OP_SUB) || (o == OP_SUB && s->op == OP_ADD) ||
			     (o == OP_MUL && s->op == OP_DIV) || (o == OP_DIV && s->op == OP_MUL)) &&
			    ex_eq(d->a[1], s->e, a->k))
				dw_bad(a, "update undoes the definition", s->var->name);
		}
		if (s->kind == S_AUG && i > 0 && b->v[i - 1]->kind == S_AUG && b->v[i - 1]->var == s->var) {
			int o = b->v[i - 1]->op;

			if (((o == OP_ADD && s->op == OP_SUB) || (o == OP_SUB && s->op == OP_ADD) ||
			     (o == OP_MUL && s->op == OP_DIV) || (o == OP_DIV && s->op == OP_MUL)) &&
			    ex_eq(b->v[i - 1]->e, s->e, a->k))
				dw_bad(a, "update undone by the next one", s->var->name);
		}
		if (s->kind == S_FOR) {
			for (j = 0; j < s->nidx; j++)
				dw_expr(a, s->idx[j]);
			av_kill_assigned(a, &s->body, true);
			a->depth_now++;
			dw_block(a, &s->body);
			a->depth_now--;
			av_pop(a);
			av_kill_assigned(a, &s->body, true);
			continue;
		}
		if (s->kind == S_WHILE) {
			av_kill_assigned(a, &s->body, true);
			dw_expr(a, s->e); /* evaluated before the first iteration too */
			a->depth_now++;
			dw_block(a, &s->body);
			a->depth_now--;
			av_pop(a);
			av_kill_assigned(a, &s->body, true);
			continue;
		}
		if (s->kind == S_IF) {
			dw_expr(a, s->e);
			if (s->body.n == 0)
				dw_bad(a, "if with an empty body", "pass");
			{
				/* the else branch sees what was available before the if */
				char **saved = xmalloc(sizeof *saved * (size_t)(a->n + 1));
				const Var **scv = xmalloc(sizeof *scv * (size_t)(a->cn + 1));
				const Var **scw = xmalloc(sizeof *scw * (size_t)(a->cn + 1));
				int *scd = xmalloc(sizeof *scd * (size_t)(a->cn + 1)), scn = a->cn;
				int *sdepth = xmalloc(sizeof *sdepth * (size_t)(a->n + 1)), ns = a->n, m;

				if (scn > 0) { /* (a->cv is NULL before the first copy) */
					memcpy(scv, a->cv, sizeof *scv * (size_t)scn);
					memcpy(scw, a->cw, sizeof *scw * (size_t)scn);
					memcpy(scd, a->cdepth, sizeof *scd * (size_t)scn);
				}
				for (m = 0; m < ns; m++) {
					saved[m] = xmalloc(strlen(a->text[m]) + 1);
					strcpy(saved[m], a->text[m]);
					sdepth[m] = a->depth[m];
				}
				a->depth_now++;
				dw_block(a, &s->body);
				a->depth_now--;
				up_pop(a);
				for (m = 0; m < a->n; m++)
					free(a->text[m]);
				a->n = 0;
				for (m = 0; m < ns; m++) {
					if (a->n == a->cap) {
						a->cap = a->cap ? 2 * a->cap : 64;
						a->text = xrealloc(a->text, sizeof *a->text * (size_t)a->cap);
						a->depth = xrealloc(a->depth, sizeof *a->depth * (size_t)a->cap);
					}
					a->text[a->n] = saved[m];
					a->depth[a->n++] = sdepth[m];
				}
				free(saved);
				free(sdepth);
				/* and the copies of before the if (the then-branch may have
				 * dropped some; it added none that outlive it) */
				if (a->ccap < scn + 1) {
					a->ccap = scn + 1;
					a->cv = xrealloc(a->cv, sizeof *a->cv * (size_t)a->ccap);
					a->cw = xrealloc(a->cw, sizeof *a->cw * (size_t)a->ccap);
					a->cdepth = xrealloc(a->cdepth, sizeof *a->cdepth * (size_t)a->ccap);
				}
				if (scn > 0) {
					memcpy(a->cv, scv, sizeof *scv * (size_t)scn);
					memcpy(a->cw, scw, sizeof *scw * (size_t)scn);
					memcpy(a->cdepth, scd, sizeof *scd * (size_t)scn);
				}
				a->cn = scn;
				free(scv);
				free(scw);
				free(scd);
			}
			a->depth_now++;
			dw_block(a, &s->orelse);
			a->depth_now--;
			av_pop(a);
			av_kill_assigned(a, &s->body, true);
			av_kill_assigned(a, &s->orelse, true);
			continue;
		}
		dw_expr(a, s->e);
		for (j = 0; j < s->nidx; j++)
			dw_expr(a, s->idx[j]);
		if (s->kind == S_AUG)
			dw_aug(a, s);
		if ((s->kind == S_ASSIGN && !s->is_def) || s->kind == S_AUG || s->kind == S_SETATTR)
			av_kill(a, s->var->name);
		if (s->kind == S_UNPACK)
			for (j = 0; j < s->nvars; j++)
				av_kill(a, s->vars[j]->name);
		if (s->kind == S_ASSIGN && s->is_def)
			up_kill(a, s->var->name);
		up_note(a, s);
		cp_note(a, s);
	}
}

typedef struct PUse {
	const Var *v;
	bool used;
} PUse;

static void
puse_expr(PUse *u, const Expr *e)
{
	int i;

	if (!e || u->used)
		return;
	if ((e->kind == E_VAR || e->kind == E_LOAD || e->kind == E_SHAPE) && e->var == u->v)
		u->used = true;
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		puse_expr(u, e->a[i]);
}

static void
puse_block(PUse *u, const Block *b)
{
	int i, j;

	for (i = 0; i < b->n && !u->used; i++) {
		const Stmt *s = b->v[i];

		if ((s->kind == S_STORE || s->kind == S_ATOMIC) && s->var == u->v)
			u->used = true;
		puse_expr(u, s->e);
		for (j = 0; j < s->nidx; j++)
			puse_expr(u, s->idx[j]);
		puse_block(u, &s->body);
		puse_block(u, &s->orelse);
	}
}

static void
dw_func(Avail *a, const Func *fn, Var *const *params, int nparams, const Block *body)
{
	int i;

	a->fn = fn;
	a->body = body;
	for (i = 0; i < nparams; i++) {
		PUse u = { params[i], false };

		puse_block(&u, body);
		if (!u.used)
			dw_bad(a, "unused parameter", params[i]->name);
	}
	a->depth_now = 0;
	if ((i = dead_defs(body)) > 0) {
		a->nerr += i - 1;
		dw_bad(a, "definitions nothing reads", i > 1 ? "several" : "one");
	}
	dw_block(a, body);
	a->depth_now = -1;
	av_pop(a);
}

int
check_deadweight(const Kernel *k, Buf *err)
{
	Avail a;
	int i;

	memset(&a, 0, sizeof a);
	a.k = k;
	a.err = err;
	for (i = 0; i < k->nfuncs; i++)
		dw_func(&a, k->funcs[i], k->funcs[i]->params, k->funcs[i]->nparams, &k->funcs[i]->body);
	dw_func(&a, NULL, k->params, k->nparams, &k->body);
	free(a.text);
	free(a.depth);
	free(a.uv);
	free(a.uop);
	free(a.ux);
	free(a.udepth);
	free(a.cv);
	free(a.cw);
	free(a.cdepth);
	return a.nerr;
}
