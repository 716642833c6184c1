/* Type-directed random expressions.
 *
 * gx(g, t, depth, cap) returns an expression of type t whose bound (an upper bound of
 * |value|, componentwise) is <= cap.  Each type has a table of producers; a producer is
 * eligible when the category's features (g->feat) and the types at hand allow it.  A
 * producer divides the cap among its operands so that its own result respects it; as a
 * last resort tame() wraps a value (scale, clamp, tanh, modulo) to bring it under the cap.
 *
 * Domain safety lives here: every division has a denominator bounded away from zero,
 * log/sqrt/pow take positive-by-construction arguments, acos/asin arguments are strictly
 * inside [-1, 1], exp arguments are bounded, integer shifts act on non-negative values
 * by small constants, and integer magnitudes stay far below 2^31. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kgen.h"

#define HUGE_INT 2147483647.0
#define INT_CAP 4096.0 /* no integer local ever exceeds this */
#define MIN_CAP 0.05   /* below this a float producer just scales a leaf */

double
cap_for(Type t)
{
	if (t.kind == TY_INT)
		return 256.0;
	return 16.0;
}

/* ----------------------------------------------------------------- literals */

static const double nice_tab[] = {
	0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0, 1.5, 2.0, 2.5, 3.0,
	4.0, 5.0, 0.05, 0.125, 0.35, 1.25, 0.15, 0.45, 0.65, 0.85, 0.95, 1.75, 0.01, 0.02,
};

/* A short decimal in (0, maxabs]. */
double
nice_value(Gen *g, double maxabs)
{
	double c[64];
	int i, n = 0;

	if (maxabs <= 0)
		die("nice_value(%g)", maxabs);
	if (rng_pct(&g->rng, 25) && maxabs >= 0.05) {
		int hi = maxabs >= 3.0 ? 300 : (int)floor(maxabs * 100.0);

		if (hi >= 5)
			return rng_range(&g->rng, 5, hi) / 100.0;
	}
	for (i = 0; i < (int)(sizeof nice_tab / sizeof nice_tab[0]); i++)
		if (nice_tab[i] <= maxabs)
			c[n++] = nice_tab[i];
	if (n == 0) {
		double p = pow(10.0, floor(log10(maxabs)));

		return p;
	}
	return c[rng_below(&g->rng, n)];
}

Expr *
lit_nice(Gen *g, Type t, double maxabs, bool positive)
{
	if (t.kind == TY_INT) {
		int hi = maxabs >= 9 ? 9 : (int)maxabs;
		int v;

		if (hi < 1)
			hi = 1;
		v = rng_range(&g->rng, positive ? 1 : -hi, hi);
		if (v == 0)
			v = hi;
		return ex_lit_int(g->A, v);
	}
	if (t.kind == TY_BOOL)
		return ex_lit_bool(g->A, rng_pct(&g->rng, 50));
	{
		double v = nice_value(g, maxabs < 3.0 ? maxabs : 3.0);

		if (!positive && rng_pct(&g->rng, 35))
			v = -v;
		return ex_lit_float(g->A, t.prec, v);
	}
}

static Expr *
flit(Gen *g, int prec, double v)
{
	return ex_lit_float(g->A, prec, v);
}

static Expr *
ilit(Gen *g, int v)
{
	return ex_lit_int(g->A, v);
}

/* ----------------------------------------------------------------- palette and scope */

Type
pal_pick(Gen *g)
{
	if (g->pal.n == 0)
		return ty_float(PREC_F32);
	return g->pal.t[rng_weighted(&g->rng, g->pal.w, g->pal.n)];
}

/* A palette type of the given kind, chosen by weight. */
bool
pal_find(Gen *g, int kind, Type *out)
{
	int w[PAL_MAX], i, any = 0;

	for (i = 0; i < g->pal.n; i++) {
		w[i] = g->pal.t[i].kind == kind ? g->pal.w[i] : 0;
		any |= w[i] > 0;
	}
	if (!any)
		return false;
	*out = g->pal.t[rng_weighted(&g->rng, w, g->pal.n)];
	return true;
}

/* A vector type of precision prec from the palette or the scope. */
static bool
find_vec(Gen *g, int prec, int n, Type *out)
{
	Type c[PAL_MAX + 8];
	int nc = 0, i;

	for (i = 0; i < g->pal.n; i++)
		if (g->pal.t[i].kind == TY_VEC && g->pal.t[i].prec == prec && (n == 0 || g->pal.t[i].n == n))
			c[nc++] = g->pal.t[i];
	for (i = 0; i < g->nscope && nc < PAL_MAX + 8; i++) {
		Var *v = g->scope[i];

		if (v->ty.kind == TY_VEC && v->ty.prec == prec && (n == 0 || v->ty.n == n))
			c[nc++] = v->ty;
	}
	if (nc == 0)
		return false;
	*out = c[rng_below(&g->rng, nc)];
	return true;
}

static bool
have_kind(Gen *g, int kind)
{
	Type t;
	int i;

	if (pal_find(g, kind, &t))
		return true;
	for (i = 0; i < g->nscope; i++)
		if (g->scope[i]->ty.kind == kind)
			return true;
	return false;
}

static bool
readable(const Var *v)
{
	return v->role != V_ARRAY;
}

/* A variable of type t, preferring ones not used yet.  mutable_only: locals that
 * mutation statements may change. */
Var *
pick_var(Gen *g, Type t, bool mutable_only)
{
	int w[MAX_SCOPE], i, any = 0;

	for (i = 0; i < g->nscope; i++) {
		Var *v = g->scope[i];

		w[i] = 0;
		if (!readable(v) || v->hidden || !ty_eq(v->ty, t))
			continue;
		if (mutable_only && (!v->mutable_ || v->counter || v->role != V_LOCAL))
			continue;
		if (!mutable_only && v->literal_init && !v->mutated)
			continue; /* a named constant until something changes it */
		if (v->role == V_TID && t.kind == TY_INT)
			w[i] = 2;
		else
			w[i] = v->uses_gen == 0 ? 10 : (v->uses_gen < 3 ? 3 : 1);
		any = 1;
	}
	if (!any)
		return NULL;
	return g->scope[rng_weighted(&g->rng, w, g->nscope)];
}

Expr *
use_var(Gen *g, Var *v)
{
	v->uses_gen++;
	v->frozen = true;
	return ex_var(g->A, v);
}

/* Input arrays whose element type is t (kernel only). */
static Var *
pick_input(Gen *g, Type t)
{
	Var *c[MAX_PARAMS];
	int n = 0, i;

	if (g->fn || !g->tid[0])
		return NULL;
	for (i = 0; i < g->k->nparams; i++) {
		Var *p = g->k->params[i];

		if (p->role == V_ARRAY && p->io == IO_IN && ty_eq(p->elem, t))
			c[n++] = p;
	}
	return n ? c[rng_below(&g->rng, n)] : NULL;
}

static Expr *
load_at_tid(Gen *g, Var *arr)
{
	Expr *idx[3];
	int d;

	for (d = 0; d < arr->ndim; d++)
		idx[d] = use_var(g, g->tid[d]);
	return ex_load(g->A, arr, arr->ndim, idx);
}

/* ----------------------------------------------------------------- taming */


static Expr *
scale_by(Gen *g, Expr *e, double cap)
{
	double k = nice_value(g, cap / e->bound);
	Type st = e->ty.kind == TY_FLOAT ? e->ty : ty_float(e->ty.prec);
	Expr *r;

	if (e->ty.kind == TY_QUAT || e->ty.kind == TY_XFORM)
		die("cannot scale %d", e->ty.kind);
	/* x * c * k reads as x * (c * k): fold into one literal */
	if (e->kind == E_BIN && e->op == OP_MUL && e->a[1]->kind == E_LIT && e->a[1]->ty.kind == TY_FLOAT &&
	    e->a[0]->bound > 0) {
		double c = lit_value(e->a[1]) * k;
		double m = fabs(c);

		if (m > 0) {
			double p = pow(10.0, floor(log10(m)) - 1); /* two significant digits, rounded down */

			m = floor(m / p + 1e-9) * p;
			if (m > 0) {
				c = c < 0 ? -m : m;
				return ex_bin(g->A, OP_MUL, e->a[0], flit(g, st.prec, c), e->ty, e->a[0]->bound * m);
			}
		}
	}
	r = ex_bin(g->A, OP_MUL, e, flit(g, st.prec, k), e->ty, e->bound * k);
	return r;
}

Expr *
tame(Gen *g, Expr *e, double cap)
{
	Arena *A = g->A;

	if (e->bound <= cap)
		return e;
	switch (e->ty.kind) {
	case TY_FLOAT: {
		bool clampy = e->kind == E_CALL && !strcmp(e->s, "wp.clamp");
		int w[4] = { 5, (g->feat & F_MATH) && cap >= 1.0 ? 3 : 0, cap >= 0.3 * e->bound && !clampy ? 2 : 0,
			     e->kind == E_VAR && cap >= 1.0 ? 1 : 0 };
		int prec = e->ty.prec;

		switch (rng_weighted(&g->rng, w, 4)) {
		case 0:
			return scale_by(g, e, cap);
		case 1:
			return ex_call(A, rng_pct(&g->rng, 50) ? "wp.tanh" : "wp.sin", e->ty, 1.0, 1, e);
		case 2: {
			double c = nice_value(g, cap);

			return ex_call(A, "wp.clamp", e->ty, c, 3, e, flit(g, prec, -c), flit(g, prec, c));
		}
		default: {
			Expr *den = ex_bin(A, OP_ADD, ex_call(A, "wp.abs", e->ty, e->bound, 1, ex_var(A, e->var)),
					   flit(g, prec, 1.0), e->ty, e->bound + 1.0);

			e->var->uses_gen++;
			return ex_bin(A, OP_DIV, e, den, e->ty, 1.0);
		}
		}
	}
	case TY_INT: {
		int c = cap >= 16 ? 16 : (int)cap;
		int m;

		if (c < 1)
			c = 1;
		switch (e->kind == E_CALL && !strcmp(e->s, "wp.clamp") ? 2 * rng_below(&g->rng, 2) : rng_below(&g->rng, 3)) {
		case 0:
			m = rng_range(&g->rng, 2, c + 1 > 2 ? c + 1 : 2);
			{
				Expr *r = ex_bin(A, OP_MOD, e, ilit(g, m), e->ty, (double)(m - 1));

				r->flags |= e->flags & EF_NONNEG;
				return r;
			}
		case 1: {
			int lo = (e->flags & EF_NONNEG) ? 0 : -c;
			Expr *r = ex_call(A, "wp.clamp", e->ty, (double)c, 3, e, ilit(g, lo), ilit(g, c));

			if (lo == 0)
				r->flags |= EF_NONNEG;
			return r;
		}
		default: {
			int mask = 1;
			Expr *r;

			while (mask * 2 + 1 <= c)
				mask = mask * 2 + 1;
			r = ex_bin(A, OP_BITAND, e, ilit(g, mask), e->ty, (double)mask);
			r->flags |= EF_NONNEG;
			return r;
		}
		}
	}
	case TY_VEC:
	case TY_MAT:
		if (e->ty.kind == TY_VEC && cap >= 1.0 && rng_pct(&g->rng, 25) && !fx_fixed_dir(g, e))
			return ex_call(A, "wp.normalize", e->ty, 1.0, 1, e);
		return scale_by(g, e, cap);
	case TY_XFORM: {
		/* rebuild with a scaled translation (the value is evaluated twice) */
		Type v3 = ty_make(TY_VEC, PREC_F32, 3), q = ty_make(TY_QUAT, PREC_F32, 4);
		Expr *p = ex_call(A, "wp.transform_get_translation", v3, e->bound, 1, e);
		Expr *r = ex_call(A, "wp.transform_get_rotation", q, 1.0, 1, e);

		p = scale_by(g, p, cap);
		return ex_call(A, "wp.transform", e->ty, p->bound, 2, p, r);
	}
	default:
		return e;
	}
}

/* ----------------------------------------------------------------- conversions */

/* int -> float of precision prec.  A float64 conversion of a constant int (a static loop
 * index, a literal-initialised local) goes through float(): Warp's "constant precision
 * preservation" would otherwise retype the constant itself (WARP_NOTES §9). */
static Expr *
int_to_float(Gen *g, Expr *ie, int prec)
{
	Type f32 = ty_float(PREC_F32);

	if (ie->kind == E_LIT)
		return ex_lit_float(g->A, prec, ie->bound * (ie->s[0] == '-' ? -1.0 : 1.0));
	if (prec == PREC_F32)
		return ex_call(g->A, "float", f32, ie->bound, 1, ie);
	if (ie->kind == E_VAR && (ie->var->role == V_LOOP || ie->var->literal_init))
		ie = ex_call(g->A, "float", f32, ie->bound, 1, ie);
	return ex_call(g->A, "wp.float64", ty_float(PREC_F64), ie->bound, 1, ie);
}

/* ----------------------------------------------------------------- leaves */

static Type vec3f(void) { return ty_make(TY_VEC, PREC_F32, 3); }
static Type quatf(void) { return ty_make(TY_QUAT, PREC_F32, 4); }

static Expr *gx_int(Gen *g, int depth, double cap);
static Expr *input_leaf(Gen *g, Type t);
static Expr *gx_float(Gen *g, int prec, int depth, double cap);
static Expr *gx_vec(Gen *g, Type t, int depth, double cap);

/* A struct field of type t, if a struct value is at hand. */
static Expr *
field_leaf(Gen *g, Type t)
{
	struct { Var *v; int f; } c[24];
	int n = 0, i, f;

	for (i = 0; i < g->nfields_of; i++) {
		Var *v = g->fields_of[i];
		const StructDef *sd = &g->k->structs[v->ty.sid];
		bool vis = false;
		int j;

		for (j = 0; j < g->nscope; j++)
			vis |= g->scope[j] == v;
		if (!vis)
			continue;
		for (f = 0; f < sd->nfields && n < 24; f++)
			if (ty_eq(sd->fty[f], t)) {
				c[n].v = v;
				c[n].f = f;
				n++;
			}
	}
	if (!n)
		return NULL;
	i = rng_below(&g->rng, n);
	{
		const StructDef *sd = &g->k->structs[c[i].v->ty.sid];

		return ex_attr(g->A, use_var(g, c[i].v), sd->fname[c[i].f], t, sd->fbound[c[i].f]);
	}
}

static const char *comp_attr[4] = { "x", "y", "z", "w" };

/* Component of a vector/quaternion variable: v[k] or v.x */
static Expr *comp_leaf1(Gen *g, int prec);
static bool struct_zero(Gen *g, Expr *e);

/* Component of a vector/quaternion variable, not a structural zero (m[0, 1] of a
 * diagonal matrix). */
static Expr *
comp_leaf(Gen *g, int prec)
{
	Expr *e = NULL;
	int tries;

	for (tries = 0; tries < 3; tries++) {
		e = comp_leaf1(g, prec);
		if (!e || !struct_zero(g, e))
			return e;
	}
	return NULL;
}

static Expr *
comp_leaf1(Gen *g, int prec)
{
	Var *c[MAX_SCOPE];
	int n = 0, i, k;
	Var *v;
	Expr *base;
	double b;

	for (i = 0; i < g->nscope; i++) {
		Var *s = g->scope[i];

		if (s->hidden)
			continue;
		if ((s->ty.kind == TY_VEC && s->ty.prec == prec) || (s->ty.kind == TY_QUAT && prec == PREC_F32) ||
		    (s->ty.kind == TY_MAT && prec == PREC_F32))
			c[n++] = s;
	}
	if (!n)
		return NULL;
	v = c[rng_below(&g->rng, n)];
	base = use_var(g, v);
	b = v->bound;
	if (v->ty.kind == TY_MAT) {
		int r = rng_below(&g->rng, v->ty.n), cc = rng_below(&g->rng, v->ty.n);

		return ex_index(g->A, base, ty_float(prec), b, 2, ilit(g, r), ilit(g, cc));
	}
	k = rng_below(&g->rng, v->ty.kind == TY_QUAT ? 4 : v->ty.n);
	if (rng_pct(&g->rng, 50))
		return ex_attr(g->A, base, comp_attr[k], ty_float(prec), b);
	return ex_index(g->A, base, ty_float(prec), b, 1, ilit(g, k));
}

static Expr *
rand_float(Gen *g, int prec)
{
	Arena *A = g->A;
	Type f32 = ty_float(PREC_F32);
	Expr *e;

	switch (rng_below(&g->rng, 3)) {
	case 0:
		e = ex_call(A, "wp.randf", f32, 1.0, 1, use_var(g, g->rstate));
		break;
	case 1: {
		double lo = -nice_value(g, 2.0), hi = nice_value(g, 2.0);

		e = ex_call(A, "wp.randf", f32, fmax(-lo, hi), 3, use_var(g, g->rstate), flit(g, PREC_F32, lo),
			    flit(g, PREC_F32, hi));
		break;
	}
	default:
		/* Box-Muller with randf in [2^-24, 1): |randn| < 5.8 */
		e = ex_call(A, "wp.randn", f32, 6.0, 1, use_var(g, g->rstate));
		break;
	}
	e->flags |= EF_RAND;
	if (prec == PREC_F64)
		e = ex_call(A, "wp.float64", ty_float(PREC_F64), e->bound, 1, e);
	return e;
}

/* Leaf of a float type. */
static Expr *
leaf_float(Gen *g, int prec, double cap)
{
	Type t = ty_float(prec);
	enum { L_VAR, L_LIT, L_COMP, L_FIELD, L_INT, L_LOAD, L_RAND, L_N };
	int w[L_N] = { 0 };
	Var *v = NULL;
	Expr *e = NULL;
	int tries;

	for (tries = 0; tries < 4 && !e; tries++) {
		memset(w, 0, sizeof w);
		v = pick_var(g, t, false);
		w[L_VAR] = v ? (v->uses_gen == 0 ? 14 : 6) : 0;
		w[L_LIT] = 3;
		w[L_COMP] = have_kind(g, TY_VEC) || have_kind(g, TY_QUAT) || have_kind(g, TY_MAT) ? 3 : 0;
		w[L_FIELD] = g->nfields_of ? 4 : 0;
		w[L_INT] = (g->feat & F_INT) ? 1 : 0;
		w[L_LOAD] = pick_input(g, t) ? 1 : 0;
		w[L_RAND] = (g->feat & F_RAND) && g->rstate ? 3 : 0;
		switch (rng_weighted(&g->rng, w, L_N)) {
		case L_VAR:
			e = use_var(g, v);
			break;
		case L_LIT:
			e = lit_nice(g, t, cap, false);
			break;
		case L_COMP:
			e = comp_leaf(g, prec);
			break;
		case L_FIELD:
			e = field_leaf(g, t);
			break;
		case L_INT: {
			Var *iv = pick_var(g, ty_int(), false);

			if (iv && iv->bound <= INT_CAP)
				e = int_to_float(g, use_var(g, iv), prec);
			break;
		}
		case L_LOAD:
			e = load_at_tid(g, pick_input(g, t));
			break;
		case L_RAND:
			e = rand_float(g, prec);
			break;
		}
	}
	if (!e)
		e = lit_nice(g, t, cap, false);
	return e;
}

/* ----------------------------------------------------------------- constants */

/* A composite of literals only (wp.cos(0.05), 0.5 * 0.25) reads like no real kernel;
 * plain literals, literal vectors and argument-less constructors are fine. */
static bool
const_composite(const Expr *e)
{
	int i;

	if (!(e->flags & EF_CONST) || e->kind == E_LIT || (e->kind == E_CALL && e->n == 0))
		return false;
	if (e->kind == E_CALL && (e->ty.kind == TY_VEC || e->ty.kind == TY_MAT) && !strncmp(e->s, "wp.", 3) &&
	    (!strncmp(e->s, "wp.vec", 6) || !strncmp(e->s, "wp.mat", 6))) {
		for (i = 0; i < e->n; i++)
			if (e->a[i]->kind != E_LIT)
				return true;
		return false;
	}
	return true;
}

/* A leaf of type t that depends on the inputs (a variable, a component, a field, a
 * load), or NULL when none is at hand. */
static Expr *
input_leaf(Gen *g, Type t)
{
	Var *v = pick_var(g, t, false);
	Var *arr = pick_input(g, t);
	Expr *e = NULL;

	if (v && (v->role != V_TID || rng_pct(&g->rng, 30)))
		return use_var(g, v);
	if (arr)
		return load_at_tid(g, arr);
	if (t.kind == TY_FLOAT) {
		e = field_leaf(g, t);
		if (!e)
			e = comp_leaf(g, t.prec);
	} else if (t.kind == TY_VEC) {
		e = field_leaf(g, t);
	}
	if (!e && v)
		e = use_var(g, v);
	return e;
}

/* Zero for every input without being a literal (m[0, 1] of a diagonal m, cross of
 * axis vectors): as useless as a constant composite. */
static bool
struct_zero(Gen *g, Expr *e)
{
	return e->kind != E_LIT && !(e->kind == E_CALL && e->n == 0) && fx_zero(g, e);
}

static Expr *
deconst(Gen *g, Expr *e)
{
	Expr *l;

	if (!const_composite(e) && !struct_zero(g, e))
		return e;
	l = input_leaf(g, e->ty);
	return l ? l : e;
}

/* The same value (x - x, min(e, e) are degenerate): equal trees once locals are
 * replaced by their definitions (facts.c). */
static bool
same_var(const Expr *a, const Expr *b)
{
	return fx_same(a, b);
}


/* Nodes in e: a statement's expression is kept to a readable size. */
static int
expr_size(const Expr *e)
{
	int n = 1, i;

	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		n += expr_size(e->a[i]);
	return n;
}

/* ----------------------------------------------------------------- conditions */

static Expr *
cmp_float(Gen *g, int depth)
{
	Arena *A = g->A;
	int prec = PREC_F32;
	Type ft;
	static const int ops[] = { OP_LT, OP_LE, OP_GT, OP_GE };
	Expr *a, *b;

	if (pal_find(g, TY_FLOAT, &ft))
		prec = ft.prec;
	a = gx_float(g, prec, depth - 1, 8.0);
	switch (rng_below(&g->rng, 3)) {
	case 0:
		b = gx_float(g, prec, depth - 1, 8.0);
		if (same_var(a, b))
			b = lit_nice(g, ty_float(prec), a->bound > 0.05 ? fmin(a->bound * 0.8, 2.0) : 0.05, false);
		break;
	case 1:
		/* threshold well inside the typical range, never an exact tie with 0 */
		b = lit_nice(g, ty_float(prec), a->bound > 0.05 ? fmin(a->bound * 0.8, 2.0) : 0.05, false);
		break;
	default:
		a = ex_call(A, "wp.abs", a->ty, a->bound, 1, a);
		b = lit_nice(g, ty_float(prec), a->bound > 0.05 ? fmin(a->bound * 0.8, 2.0) : 0.05, true);
		break;
	}
	return ex_cmp(A, ops[rng_below(&g->rng, 4)], a, b);
}

static Expr *
cmp_int(Gen *g, int depth)
{
	Arena *A = g->A;
	static const int ops[] = { OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE };
	Expr *a = gx_int(g, depth - 1, 64.0), *b;
	bool nn;

	if (a->flags & EF_CONST) {
		Expr *l = input_leaf(g, ty_int());

		if (l)
			a = tame(g, l, 64.0);
	}
	nn = (a->flags & EF_NONNEG) != 0;
	int op = ops[rng_below(&g->rng, 6)];

	if (rng_pct(&g->rng, 40)) {
		/* residue test: a % m == r with r a possible residue */
		int m = rng_range(&g->rng, 2, 4);

		a = ex_bin(A, OP_MOD, a, ilit(g, m), ty_int(), m - 1);
		a->flags |= nn ? EF_NONNEG : 0;
		b = ilit(g, rng_below(&g->rng, m));
		b->flags |= EF_CONST;
		op = rng_pct(&g->rng, 60) ? OP_EQ : OP_NE;
	} else if (rng_pct(&g->rng, 60)) {
		/* threshold inside the range of a */
		int hi = (int)fmin(a->bound, 8.0), lo = nn ? 0 : -hi;

		if (hi < 1)
			hi = 1;
		b = ex_lit_int(A, rng_range(&g->rng, lo, hi - 1 > lo ? hi - 1 : lo));
	} else {
		b = gx_int(g, depth - 1, 64.0);
		if (same_var(a, b))
			b = ex_lit_int(A, nn ? 1 : 0);
	}
	return ex_cmp(A, op, a, b);
}

static Expr *gx_cond1(Gen *g, int depth);

/* A condition that depends on the inputs: constant ones are retried. */
Expr *
gx_cond(Gen *g, int depth)
{
	Expr *c = NULL;
	int tries;

	for (tries = 0; tries < 4; tries++) {
		c = gx_cond1(g, depth);
		if (!(c->flags & EF_CONST))
			return c;
	}
	{
		Expr *l = input_leaf(g, ty_float(PREC_F32));

		if (l)
			return ex_cmp(g->A, OP_GT, l, lit_nice(g, l->ty, l->bound > 0.05 ? fmin(l->bound * 0.5, 1.0) : 0.05, false));
	}
	return c;
}

static Expr *
gx_cond1(Gen *g, int depth)
{
	enum { C_FLOAT, C_INT, C_AND, C_OR, C_NOT, C_VAR, C_N };
	int w[C_N] = { 8, (g->feat & F_INT) ? 4 : 1, depth > 0 ? 2 : 0, depth > 0 ? 2 : 0, depth > 0 ? 1 : 0, 0 };
	Var *bv = pick_var(g, ty_bool(), false);

	if (bv)
		w[C_VAR] = bv->uses_gen == 0 ? 12 : 3;
	if (g->feat & F_MANYIF) {
		w[C_AND] *= 2;
		w[C_OR] *= 2;
	}
	switch (rng_weighted(&g->rng, w, C_N)) {
	case C_FLOAT:
		return cmp_float(g, depth);
	case C_INT:
		return cmp_int(g, depth);
	case C_AND:
	case C_OR: {
		/* operands drawn in order: argument evaluation order is unspecified in C */
		int k = rng_pct(&g->rng, 50) ? OP_AND : OP_OR;
		Expr *a = gx_cond(g, depth - 1);
		Expr *b = gx_cond(g, depth - 1);

		return ex_bool(g->A, k, a, b);
	}
	case C_NOT:
		return ex_un(g->A, OP_NOT, gx_cond(g, depth - 1));
	default:
		return use_var(g, bv);
	}
}

/* ----------------------------------------------------------------- helpers */

/* A user function with a single return of type t, callable from here. */
static Func *
pick_func(Gen *g, Type t)
{
	Func *c[MAX_FUNCS];
	int n = 0, i;

	if (!(g->feat & F_FUNC))
		return NULL;
	for (i = 0; i < g->k->nfuncs; i++) {
		Func *f = g->k->funcs[i];

		if (f == g->fn)
			break; /* only functions defined before the current one */
		if (f->nrets == 1 && ty_eq(f->rets[0], t))
			c[n++] = f;
	}
	return n ? c[rng_below(&g->rng, n)] : NULL;
}

static Expr *gx_struct_arg(Gen *g, Type t);

static Expr *
call_func(Gen *g, Func *f)
{
	Expr *args[MAX_PARAMS];
	int i;

	for (i = 0; i < f->nparams; i++) {
		Var *p = f->params[i];

		if (p->ty.kind == TY_STRUCT)
			args[i] = gx_struct_arg(g, p->ty);
		else
			args[i] = gx(g, p->ty, g->depth - 1, p->bound);
	}
	f->used = true;
	return ex_calln(g->A, f->name, f->rets[0], f->retbound[0], f->nparams, args);
}

/* A struct value for a function argument: a struct variable in scope. */
static Expr *
gx_struct_arg(Gen *g, Type t)
{
	int i;

	for (i = g->nscope - 1; i >= 0; i--)
		if (ty_eq(g->scope[i]->ty, t) && !g->scope[i]->hidden)
			return use_var(g, g->scope[i]);
	die("no struct value of type %d in scope", t.sid);
}

static bool
func_callable(Gen *g, Func *f)
{
	int i, j;

	for (i = 0; i < f->nparams; i++) {
		bool ok = false;

		if (f->params[i]->ty.kind != TY_STRUCT)
			continue;
		for (j = 0; j < g->nscope; j++)
			ok |= ty_eq(g->scope[j]->ty, f->params[i]->ty) && !g->scope[j]->hidden;
		if (!ok)
			return false;
	}
	return true;
}

/* Clamped or guarded neighbour index along dimension d of arr. */
static Expr *
neighbour_index(Gen *g, Var *arr, int d)
{
	Arena *A = g->A;
	Type it = ty_int();
	Expr *t = use_var(g, g->tid[d]);
	Expr *hi = ex_bin(A, OP_SUB, ex_shape(A, arr, d), ilit(g, 1), it, HUGE_INT);
	Expr *off;

	hi->flags |= EF_NONNEG;
	switch (rng_below(&g->rng, 4)) {
	case 0:
		return t;
	case 1:
		return ex_call(A, "wp.max", it, HUGE_INT, 2, ex_bin(A, OP_SUB, t, ilit(g, rng_range(&g->rng, 1, 2)), it, HUGE_INT),
			       ilit(g, 0));
	case 2:
		return ex_call(A, "wp.min", it, HUGE_INT, 2, ex_bin(A, OP_ADD, t, ilit(g, rng_range(&g->rng, 1, 2)), it, HUGE_INT),
			       hi);
	default: {
		/* offset: a loop index (|j| <= 16) or a small literal */
		Var *lv = NULL;
		int i;

		for (i = g->nscope - 1; i >= 0; i--)
			if (g->scope[i]->role == V_LOOP && g->scope[i]->bound <= 16) {
				lv = g->scope[i];
				break;
			}
		if (lv && rng_pct(&g->rng, 70)) {
			off = use_var(g, lv);
			if (rng_pct(&g->rng, 40))
				off = ex_bin(A, OP_SUB, off, ilit(g, 1), it, off->bound + 1);
		} else {
			int o = rng_range(&g->rng, -2, 2);

			off = ilit(g, o == 0 ? 1 : o);
		}
		return ex_call(A, "wp.clamp", it, HUGE_INT, 3, ex_bin(A, OP_ADD, t, off, it, HUGE_INT), ilit(g, 0), hi);
	}
	}
}

static Expr *
gather(Gen *g, Type t)
{
	Var *arr = pick_input(g, t);
	Expr *idx[3];
	int d;

	if (!arr)
		return NULL;
	if (arr->ndim == 1 && rng_pct(&g->rng, 25)) {
		/* data-dependent index: an int input, reduced modulo the length */
		Var *iv = NULL;
		int i;

		for (i = 0; i < g->nscope; i++)
			if (g->scope[i]->ty.kind == TY_INT && g->scope[i]->role == V_LOCAL && !g->scope[i]->hidden &&
			    g->scope[i]->bound <= INT_CAP)
				iv = g->scope[i];
		if (iv) {
			Expr *a = ex_call(g->A, "wp.abs", ty_int(), iv->bound, 1, use_var(g, iv));

			a->flags |= EF_NONNEG;
			idx[0] = ex_bin(g->A, OP_MOD, a, ex_shape(g->A, arr, 0), ty_int(), iv->bound);
			return ex_load(g->A, arr, 1, idx);
		}
	}
	if ((g->feat & F_RAND) && g->rstate && rng_pct(&g->rng, 30)) {
		for (d = 0; d < arr->ndim; d++) {
			Expr *r = ex_call(g->A, "wp.randi", ty_int(), HUGE_INT, 3, use_var(g, g->rstate), ilit(g, 0),
					  ex_shape(g->A, arr, d));

			r->flags |= EF_RAND | EF_NONNEG;
			idx[d] = r;
		}
		return ex_load(g->A, arr, arr->ndim, idx);
	}
	for (d = 0; d < arr->ndim; d++)
		idx[d] = neighbour_index(g, arr, d);
	return ex_load(g->A, arr, arr->ndim, idx);
}

/* A denominator bounded below by *lo > 0. */
static Expr *
denominator(Gen *g, int prec, int depth, double *lo, double *hi)
{
	Arena *A = g->A;
	Type t = ty_float(prec);
	double c = rng_pct(&g->rng, 60) ? 1.0 : (rng_pct(&g->rng, 50) ? 0.5 : 2.0);
	Expr *b;

	switch (rng_below(&g->rng, (g->feat & F_MATH) ? 5 : 4)) {
	case 0: /* b * b + c */
		b = gx_float(g, prec, depth, 4.0);
		if (b->flags & EF_CONST)
			goto literal;
		*lo = c;
		*hi = b->bound * b->bound + c;
		return ex_bin(A, OP_ADD, ex_bin(A, OP_MUL, b, b->kind == E_VAR ? use_var(g, b->var) : b, t, b->bound * b->bound),
			      flit(g, prec, c), t, *hi);
	case 1: /* wp.abs(b) + c */
		b = gx_float(g, prec, depth, 8.0);
		if (b->flags & EF_CONST)
			goto literal;
		*lo = c;
		*hi = b->bound + c;
		return ex_bin(A, OP_ADD, ex_call(A, "wp.abs", t, b->bound, 1, b), flit(g, prec, c), t, *hi);
	case 2: /* c + b * b (b a leaf, written twice) */
		b = leaf_float(g, prec, 4.0);
		b = tame(g, b, 4.0);
		if (b->kind != E_VAR) {
			*lo = *hi = c + 1.0;
			return flit(g, prec, c + 1.0);
		}
		*lo = c;
		*hi = c + b->bound * b->bound;
		return ex_bin(A, OP_ADD, flit(g, prec, c), ex_bin(A, OP_MUL, b, use_var(g, b->var), t, b->bound * b->bound), t,
			      *hi);
	case 3:
	literal: {
		static const double d[] = { 2.0, 3.0, 4.0, 1.5, 5.0, 10.0, 0.5 };
		double v = d[rng_below(&g->rng, 7)];

		*lo = *hi = v;
		return flit(g, prec, rng_pct(&g->rng, 20) ? -v : v);
	}
	default: /* wp.sqrt(b * b + c) */
		b = leaf_float(g, prec, 4.0);
		b = tame(g, b, 4.0);
		if (b->flags & EF_CONST)
			goto literal;
		*lo = sqrt(c);
		*hi = sqrt(b->bound * b->bound + c);
		if (b->kind != E_VAR)
			return ex_call(A, "wp.sqrt", t, *hi, 1, ex_bin(A, OP_ADD, ex_call(A, "wp.abs", t, b->bound, 1, b), flit(g, prec, c), t, b->bound + c));
		return ex_call(A, "wp.sqrt", t, *hi, 1,
			       ex_bin(A, OP_ADD, ex_bin(A, OP_MUL, b, use_var(g, b->var), t, b->bound * b->bound),
				      flit(g, prec, c), t, *hi * *hi));
	}
}

/* ----------------------------------------------------------------- floats */

static Expr *gx_mat(Gen *g, Type t, int depth, double cap);
static Expr *gx_quat(Gen *g, int depth);
static Expr *gx_xform(Gen *g, int depth, double cap);

/* a + b or a - b of float or vector type t, operands at depth - 1 under cap / 2; never
 * x - x, nor a - b whose known multiples cancel (0.3 * x - x * 0.3). */
static Expr *
gx_addsub(Gen *g, Type t, int depth, double cap)
{
	Expr *a, *b;
	int op, tries;

	a = gx(g, t, depth - 1, cap / 2);
	b = gx(g, t, depth - 1, cap / 2);
	op = rng_pct(&g->rng, 65) ? OP_ADD : OP_SUB;
	for (tries = 0; tries < 3 && (same_var(a, b) || fx_cancels(g, a, b, op)); tries++)
		b = gx(g, t, depth, cap / 2);
	if (fx_cancels(g, a, b, op))
		op = op == OP_ADD ? OP_SUB : OP_ADD;
	return ex_bin(g->A, op, a, b, t, a->bound + b->bound);
}

static Expr *
gx_float(Gen *g, int prec, int depth, double cap)
{
	Arena *A = g->A;
	Type t = ty_float(prec);
	enum {
		P_LEAF, P_ADD, P_MUL, P_DIV, P_NEG, P_MINMAX, P_ABS, P_CLAMP, P_TRIG, P_EXP, P_LOG, P_SQRT,
		P_POW, P_ATAN2, P_ARC, P_LERP, P_SMOOTH, P_WHERE, P_IFEXP, P_DOT, P_LEN, P_DET, P_FROMINT,
		P_CONV, P_FUNC, P_GATHER, P_QDOT, P_MORE, P_ROUND, P_VNORM, P_N
	};
	int w[P_N] = { 0 };
	Expr *e = NULL, *a, *b;
	Type vt;
	Func *f = NULL;
	bool math = g->feat & F_MATH;

	if (cap < MIN_CAP)
		return tame(g, leaf_float(g, prec, 1.0), cap);
	if (depth <= 0)
		return tame(g, leaf_float(g, prec, cap), cap);
	w[P_LEAF] = 6;
	w[P_ADD] = 8;
	w[P_MUL] = 8;
	w[P_DIV] = 3;
	w[P_NEG] = 1;
	w[P_MINMAX] = 2;
	w[P_ABS] = 1;
	w[P_CLAMP] = 1;
	if (math) {
		w[P_TRIG] = 6;
		w[P_EXP] = 3;
		w[P_LOG] = 3;
		w[P_SQRT] = 3;
		w[P_POW] = 2;
		w[P_ATAN2] = 2;
		w[P_ARC] = 2;
		w[P_SMOOTH] = 1;
		w[P_MORE] = 3;
		w[P_ROUND] = 1;
	}
	w[P_LERP] = 1;
	if (g->feat & F_CMP) {
		w[P_WHERE] = 2;
		w[P_IFEXP] = 2;
	}
	if (find_vec(g, prec, 0, &vt)) {
		w[P_DOT] = (g->feat & F_VEC) ? 4 : 1;
		w[P_LEN] = (g->feat & F_VEC) ? 3 : 1;
		w[P_VNORM] = (g->feat & F_VEC) && prec == PREC_F32 ? 1 : 0; /* Warp: float32 only */
	}
	if (prec == PREC_F32 && (g->feat & F_MAT) && have_kind(g, TY_MAT))
		w[P_DET] = 2;
	if (g->feat & F_INT)
		w[P_FROMINT] = 1;
	if (g->feat & F_F64)
		w[P_CONV] = 2;
	if (depth >= g->depth - 1 && (f = pick_func(g, t)) && func_callable(g, f))
		w[P_FUNC] = 5;
	if ((g->feat & F_GATHER) && pick_input(g, t))
		w[P_GATHER] = 5;
	if (prec == PREC_F32 && (g->feat & F_QUAT) && have_kind(g, TY_QUAT))
		w[P_QDOT] = 1;

	switch (rng_weighted(&g->rng, w, P_N)) {
	case P_LEAF:
		e = leaf_float(g, prec, cap);
		break;
	case P_ADD:
		e = gx_addsub(g, t, depth, cap);
		break;
	case P_MUL:
		a = gx_float(g, prec, depth - 1, sqrt(cap));
		if (rng_pct(&g->rng, 35))
			b = lit_nice(g, t, fmin(cap / fmax(a->bound, 0.1), 4.0), false);
		else
			b = gx_float(g, prec, depth - 1, fmin(cap / fmax(a->bound, 0.1), cap));
		e = ex_bin(A, OP_MUL, a, b, t, a->bound * b->bound);
		if (rng_pct(&g->rng, 30)) {
			e->a[0] = b;
			e->a[1] = a;
		}
		break;
	case P_DIV: {
		double lo, hi;
		Expr *den = denominator(g, prec, depth - 1, &lo, &hi);

		a = gx_float(g, prec, depth - 1, cap * lo);
		e = ex_bin(A, OP_DIV, a, den, t, a->bound / lo);
		break;
	}
	case P_NEG:
		a = gx_float(g, prec, depth - 1, cap);
		if (a->kind == E_LIT || (a->kind == E_UN && a->op == OP_NEG))
			e = a;
		else
			e = ex_un(A, OP_NEG, a);
		break;
	case P_MINMAX: {
		int tries;

		a = gx_float(g, prec, depth - 1, cap);
		b = gx_float(g, prec, depth - 1, cap);
		for (tries = 0; tries < 3 && (same_var(a, b) || (a->flags & b->flags & EF_CONST)); tries++)
			b = gx_float(g, prec, depth, cap);
		if (same_var(a, b))
			break;
		e = ex_call(A, rng_pct(&g->rng, 50) ? "wp.min" : "wp.max", t, fmax(a->bound, b->bound), 2, a, b);
		break;
	}
	case P_ABS:
		a = gx_float(g, prec, depth - 1, cap);
		e = ex_call(A, "wp.abs", t, a->bound, 1, a);
		break;
	case P_CLAMP: {
		double hi = nice_value(g, fmin(cap, 2.0));
		double lo = -nice_value(g, fmin(cap, 2.0));

		a = gx_float(g, prec, depth - 1, cap * 4);
		e = ex_call(A, "wp.clamp", t, fmax(hi, -lo), 3, a, flit(g, prec, lo), flit(g, prec, hi));
		break;
	}
	case P_TRIG: {
		static const char *fn[] = { "wp.sin", "wp.cos", "wp.tanh", "wp.sin", "wp.cos", "wp.atan", "wp.erf" };
		int k = rng_below(&g->rng, 7);

		a = gx_float(g, prec, depth - 1, 6.0);
		e = ex_call(A, fn[k], t, k == 5 ? 1.5708 : 1.0, 1, a);
		break;
	}
	case P_EXP:
		switch (rng_below(&g->rng, 3)) {
		case 0: {
			double ac = fmin(log(fmax(cap, 1.0001)), 3.0);

			a = gx_float(g, prec, depth - 1, ac);
			e = ex_call(A, "wp.exp", t, exp(a->bound), 1, a);
			break;
		}
		case 1:
			a = gx_float(g, prec, depth - 1, 4.0);
			e = ex_call(A, "wp.exp", t, 1.0, 1,
				    ex_bin(A, OP_MUL, ex_un(A, OP_NEG, a), a->kind == E_VAR ? use_var(g, a->var) : flit(g, prec, 0.5),
					   t, a->bound * (a->kind == E_VAR ? a->bound : 0.5)));
			if (a->kind != E_VAR)
				e->bound = exp(a->bound * 0.5);
			break;
		default: {
			double c = fmin(nice_value(g, 2.0), log(fmax(cap, 1.0001)));

			if (c <= 0.01)
				c = 0.01;
			a = gx_float(g, prec, depth - 1, 8.0);
			e = ex_call(A, "wp.exp", t, exp(c), 1, ex_call(A, "wp.clamp", t, c, 3, a, flit(g, prec, -c), flit(g, prec, c)));
			break;
		}
		}
		break;
	case P_LOG: {
		static const char *fn[] = { "wp.log", "wp.log", "wp.log2", "wp.log10" };
		static const double lnb[] = { 1.0, 1.0, 0.6931471805599453, 2.302585092994046 };
		int k = rng_below(&g->rng, 4);
		double c = rng_pct(&g->rng, 70) ? 1.0 : 0.5, argmax;
		Expr *arg;

		a = gx_float(g, prec, depth - 1, 8.0);
		if (rng_pct(&g->rng, 50)) {
			arg = ex_bin(A, OP_ADD, ex_call(A, "wp.abs", t, a->bound, 1, a), flit(g, prec, c), t, a->bound + c);
			argmax = a->bound + c;
		} else if (a->kind == E_VAR) {
			arg = ex_bin(A, OP_ADD, ex_bin(A, OP_MUL, a, use_var(g, a->var), t, a->bound * a->bound), flit(g, prec, c), t,
				     a->bound * a->bound + c);
			argmax = a->bound * a->bound + c;
		} else {
			arg = ex_bin(A, OP_ADD, ex_call(A, "wp.abs", t, a->bound, 1, a), flit(g, prec, c), t, a->bound + c);
			argmax = a->bound + c;
		}
		e = ex_call(A, fn[k], t, fmax(fabs(log(c)), log(argmax)) / lnb[k] + 1e-9, 1, arg);
		break;
	}
	case P_SQRT: {
		double c = rng_pct(&g->rng, 60) ? 1.0 : nice_value(g, 2.0);

		a = gx_float(g, prec, depth - 1, fmin(cap * cap, 64.0));
		e = ex_call(A, "wp.sqrt", t, sqrt(a->bound + c), 1,
			    ex_bin(A, OP_ADD, ex_call(A, "wp.abs", t, a->bound, 1, a), flit(g, prec, c), t, a->bound + c));
		break;
	}
	case P_POW: {
		static const double ps[] = { 0.5, 1.5, 2.0, 3.0, -0.5, -1.0, 2.5 };
		double p = ps[rng_below(&g->rng, 7)];
		double c = rng_pct(&g->rng, 60) ? 1.0 : 0.5;
		double acap = p > 0 ? fmax(pow(cap, 1.0 / p) - c, 0.1) : 4.0;

		a = gx_float(g, prec, depth - 1, acap);
		if (p == 2.0 && rng_pct(&g->rng, 50)) {
			/* a ** 2.0: integral exponent, any sign of a */
			e = ex_bin(A, OP_POW, a, flit(g, prec, 2.0), t, a->bound * a->bound);
			break;
		}
		e = ex_call(A, "wp.pow", t, p > 0 ? pow(a->bound + c, p) : pow(c, p), 2,
			    ex_bin(A, OP_ADD, ex_call(A, "wp.abs", t, a->bound, 1, a), flit(g, prec, c), t, a->bound + c),
			    flit(g, prec, p));
		break;
	}
	case P_ATAN2: {
		double lo;
		Expr *den;

		a = gx_float(g, prec, depth - 1, 8.0);
		b = gx_float(g, prec, depth - 1, 8.0);
		lo = rng_pct(&g->rng, 50) ? 1.0 : 0.25;
		den = ex_bin(A, OP_ADD, ex_call(A, "wp.abs", t, b->bound, 1, b), flit(g, prec, lo), t, b->bound + lo);
		e = rng_pct(&g->rng, 50) ? ex_call(A, "wp.atan2", t, 1.5708, 2, a, den) : ex_call(A, "wp.atan2", t, 3.1416, 2, den, a);
		break;
	}
	case P_ARC:
		switch (rng_below(&g->rng, 3)) {
		case 0: {
			double c = nice_value(g, 0.95);

			a = gx_float(g, prec, depth - 1, 8.0);
			e = ex_call(A, rng_pct(&g->rng, 50) ? "wp.acos" : "wp.asin", t, 3.1416, 1,
				    ex_call(A, "wp.clamp", t, c, 3, a, flit(g, prec, -c), flit(g, prec, c)));
			break;
		}
		case 1:
			a = gx_float(g, prec, depth - 1, 3.0);
			e = ex_call(A, rng_pct(&g->rng, 50) ? "wp.acos" : "wp.asin", t, 3.1416, 1, ex_call(A, "wp.tanh", t, 1.0, 1, a));
			break;
		default: {
			a = gx_float(g, prec, depth - 1, 4.0);
			e = scale_by(g, a, 0.9);
			if (e->bound > 0.9 || e == a)
				e = ex_call(A, "wp.sin", t, 1.0, 1, a), e = scale_by(g, e, 0.9);
			e = ex_call(A, rng_pct(&g->rng, 50) ? "wp.acos" : "wp.asin", t, 3.1416, 1, e);
			break;
		}
		}
		break;
	case P_LERP: {
		Expr *s;

		a = gx_float(g, prec, depth - 1, cap / 3);
		b = gx_float(g, prec, depth - 1, cap / 3);
		if (same_var(a, b))
			b = gx_float(g, prec, depth, cap / 3);
		s = rng_pct(&g->rng, 60) ? lit_nice(g, t, 1.0, true) : gx_float(g, prec, depth - 1, 1.0);
		e = ex_call(A, "wp.lerp", t, a->bound + s->bound * (a->bound + b->bound), 3, a, b, s);
		break;
	}
	case P_SMOOTH: {
		double e0 = -nice_value(g, 1.0), e1 = nice_value(g, 1.0);

		a = gx_float(g, prec, depth - 1, 8.0);
		e = ex_call(A, "wp.smoothstep", t, 1.0, 3, flit(g, prec, e0), flit(g, prec, e1), a);
		break;
	}
	case P_WHERE:
	case P_IFEXP: {
		Expr *c = gx_cond(g, depth - 1);

		a = gx_float(g, prec, depth - 1, cap);
		b = gx_float(g, prec, depth - 1, cap);
		if (same_var(a, b))
			b = gx_float(g, prec, depth, cap);
		if (w[P_WHERE] && rng_pct(&g->rng, 50))
			e = ex_call(A, "wp.where", t, fmax(a->bound, b->bound), 3, c, a, b);
		else
			e = ex_ifexp(A, c, a, b);
		break;
	}
	case P_DOT: {
		double each = sqrt(cap / vt.n);
		int tries;

		/* not of parallel vectors (a constant times |a|^2, or +-1 of unit ones), not of
		 * perpendicular ones (dot(cross(a, b), a) is rounding noise) */
		a = gx_vec(g, vt, depth - 1, each);
		b = gx_vec(g, vt, depth - 1, each);
		for (tries = 0; tries < 4 && (fx_parallel(g, a, b) || fx_perp(g, a, b)); tries++)
			b = gx_vec(g, vt, depth - 1, each);
		if (!fx_parallel(g, a, b) && !fx_perp(g, a, b))
			e = ex_call(A, "wp.dot", t, vt.n * a->bound * b->bound, 2, a, b);
		break;
	}
	case P_LEN: {
		/* not of a vector of known length (a normalised one): a constant */
		bool sq = !rng_pct(&g->rng, 60);
		double ac = sq ? sqrt(cap / vt.n) : cap / sqrt((double)vt.n);
		int tries;

		a = gx_vec(g, vt, depth - 1, ac);
		for (tries = 0; tries < 3 && fx_fixed_len(g, a); tries++)
			a = gx_vec(g, vt, depth - 1, ac);
		if (fx_fixed_len(g, a))
			break;
		if (!sq)
			e = ex_call(A, "wp.length", t, sqrt((double)vt.n) * a->bound, 1, a);
		else
			e = ex_call(A, "wp.length_sq", t, vt.n * a->bound * a->bound, 1, a);
		break;
	}
	case P_DET: {
		Type mt;
		int k;

		if (!pal_find(g, TY_MAT, &mt)) {
			int i;

			for (i = 0; i < g->nscope; i++)
				if (g->scope[i]->ty.kind == TY_MAT)
					mt = g->scope[i]->ty;
		}
		k = rng_below(&g->rng, 3);
		if (k == 0) {
			double fact = mt.n == 2 ? 2 : (mt.n == 3 ? 6 : 24);
			int tries;

			/* the determinant of a singular matrix (an outer product, parallel rows)
			 * is rounding noise */
			a = gx_mat(g, mt, depth - 1, pow(cap / fact, 1.0 / mt.n));
			for (tries = 0; tries < 3 && fx_singular(g, a); tries++)
				a = gx_mat(g, mt, depth - 1, pow(cap / fact, 1.0 / mt.n));
			if (fx_singular(g, a))
				e = ex_call(A, "wp.trace", t, mt.n * a->bound, 1, a);
			else
				e = ex_call(A, "wp.determinant", t, fact * pow(a->bound, mt.n), 1, a);
		} else if (k == 1) {
			a = gx_mat(g, mt, depth - 1, cap / mt.n);
			e = ex_call(A, "wp.trace", t, mt.n * a->bound, 1, a);
		} else {
			a = gx_mat(g, mt, depth - 1, sqrt(cap) / mt.n);
			b = gx_mat(g, mt, depth - 1, sqrt(cap) / mt.n);
			e = ex_call(A, "wp.ddot", t, mt.n * mt.n * a->bound * b->bound, 2, a, b);
		}
		break;
	}
	case P_FROMINT:
		e = int_to_float(g, gx_int(g, depth - 1, fmin(cap, 64.0)), prec);
		break;
	case P_CONV:
		if (prec == PREC_F64) {
			a = gx_float(g, PREC_F32, depth - 1, cap);
			e = ex_call(A, "wp.float64", t, a->bound, 1, a);
		} else {
			a = gx_float(g, PREC_F64, depth - 1, cap);
			e = ex_call(A, rng_pct(&g->rng, 50) ? "wp.float32" : "float", t, a->bound, 1, a);
		}
		break;
	case P_FUNC:
		e = call_func(g, f);
		break;
	case P_GATHER:
		e = gather(g, t);
		break;
	case P_MORE: {
		/* the rest of the smooth unary and binary builtins, on bounded arguments */
		static const char *const fn[] = { "wp.tan", "wp.sinh", "wp.cosh", "wp.erfc", "wp.erfinv", "wp.cbrt",
						  "wp.degrees", "wp.radians", "wp.copysign" };
		int k = rng_below(&g->rng, 9);

		switch (k) {
		case 0: /* |a| <= 1: |tan a| <= 1.56 */
			a = gx_float(g, prec, depth - 1, 1.0);
			e = ex_call(A, fn[k], t, 1.5575, 1, a);
			break;
		case 1:
		case 2: /* |a| <= 2: |sinh a| <= 3.63, cosh a <= 3.77 */
			a = gx_float(g, prec, depth - 1, 2.0);
			e = ex_call(A, fn[k], t, 3.7622, 1, a);
			break;
		case 3:
			a = gx_float(g, prec, depth - 1, 8.0);
			e = ex_call(A, fn[k], t, 2.0, 1, a);
			break;
		case 4: { /* erfinv of c * tanh(a), |c| <= 0.9: |erfinv| <= 1.17 */
			double c = rng_pct(&g->rng, 50) ? 0.9 : 0.5;

			a = gx_float(g, prec, depth - 1, 4.0);
			e = ex_call(A, fn[k], t, 1.1631, 1,
				    ex_bin(A, OP_MUL, flit(g, prec, c), ex_call(A, "wp.tanh", t, 1.0, 1, a), t, c));
			break;
		}
		case 5: /* cbrt of |a| + 1: smooth, >= 1 */
			a = gx_float(g, prec, depth - 1, 8.0);
			e = ex_call(A, fn[k], t, cbrt(a->bound + 1.0), 1,
				    ex_bin(A, OP_ADD, ex_call(A, "wp.abs", t, a->bound, 1, a), flit(g, prec, 1.0), t, a->bound + 1.0));
			break;
		case 6:
			a = gx_float(g, prec, depth - 1, fmin(cap, 64.0) / 57.29578);
			e = ex_call(A, fn[k], t, a->bound * 57.29578, 1, a);
			break;
		case 7:
			a = gx_float(g, prec, depth - 1, 64.0);
			e = ex_call(A, fn[k], t, a->bound * 0.0174533, 1, a);
			break;
		default: /* (Warp 1.19 has no wp.fma: kir's fma comes from kopt) */
			a = gx_float(g, prec, depth - 1, cap);
			b = gx_float(g, prec, depth - 1, 8.0);
			e = ex_call(A, fn[k], t, a->bound, 2, a, b);
			break;
		}
		break;
	}
	case P_ROUND: {
		/* piecewise constant: no gradient, and steps away from the inputs' ties */
		static const char *const fn[] = { "wp.floor", "wp.ceil", "wp.trunc", "wp.round", "wp.rint", "wp.frac",
						  "wp.sign", "wp.step", "wp.nonzero" };
		int k = rng_below(&g->rng, 9);

		a = gx_float(g, prec, depth - 1, fmax(fmin(cap, 64.0) - 1.0, 0.5));
		e = ex_call(A, fn[k], t, k < 5 ? a->bound + 1.0 : 1.0, 1, a);
		break;
	}
	case P_VNORM: {
		static const char *const fn[] = { "wp.norm_l1", "wp.norm_l2", "wp.norm_huber", "wp.norm_pseudo_huber" };
		int k = rng_below(&g->rng, 4);
		double ac = k == 2 ? sqrt(cap / vt.n) : cap / vt.n;

		a = gx_vec(g, vt, depth - 1, fmin(ac, 8.0));
		if (fx_fixed_len(g, a))
			break;
		e = ex_call(A, fn[k], t, k == 2 ? vt.n * a->bound * a->bound + vt.n * a->bound : vt.n * a->bound, 1, a);
		break;
	}
	case P_QDOT: {
		int tries;

		/* quaternions are unit: dot(q, q) is 1 */
		a = gx_quat(g, depth - 1);
		b = gx_quat(g, depth - 1);
		for (tries = 0; tries < 3 && same_var(a, b); tries++)
			b = gx_quat(g, depth - 1);
		if (!same_var(a, b))
			e = ex_call(A, "wp.dot", t, 1.0, 2, a, b);
		break;
	}
	}
	if (!e)
		e = leaf_float(g, prec, cap);
	return tame(g, deconst(g, e), cap);
}

/* ----------------------------------------------------------------- integers */

static Expr *
leaf_int(Gen *g, double cap)
{
	Type t = ty_int();
	Var *v = pick_var(g, t, false);
	Var *arr = pick_input(g, t);
	int w[4] = { v ? (v->uses_gen == 0 ? 12 : 6) : 0, 3, arr ? 2 : 0, (g->feat & F_RAND) && g->rstate ? 2 : 0 };

	switch (rng_weighted(&g->rng, w, 4)) {
	case 0:
		return use_var(g, v);
	case 1:
		return lit_nice(g, t, cap, false);
	case 2:
		return load_at_tid(g, arr);
	default: {
		int lo = -rng_range(&g->rng, 0, 8), hi = rng_range(&g->rng, 1, 9);
		Expr *e = ex_call(g->A, "wp.randi", t, fmax(-lo, hi), 3, use_var(g, g->rstate), ilit(g, lo), ilit(g, hi));

		e->flags |= EF_RAND;
		return e;
	}
	}
}

static Expr *
nonneg(Gen *g, Expr *e)
{
	Expr *r;

	if (e->flags & EF_NONNEG)
		return e;
	r = ex_call(g->A, "wp.abs", e->ty, e->bound, 1, e);
	r->flags |= EF_NONNEG;
	return r;
}

static Expr *
gx_int(Gen *g, int depth, double cap)
{
	Arena *A = g->A;
	Type t = ty_int();
	enum { I_LEAF, I_ADD, I_MUL, I_DIV, I_MOD, I_MINMAX, I_ABS, I_CLAMP, I_BITS, I_SHIFT, I_WHERE, I_FROMF, I_N };
	int w[I_N] = { 6, 6, 3, 3, 4, 2, 1, 1, 0, 0, 0, 0 };
	Expr *e = NULL, *a, *b;

	if (cap < 1)
		cap = 1;
	if (depth <= 0)
		return tame(g, leaf_int(g, cap), cap);
	if (g->feat & F_BITS) {
		w[I_BITS] = 3;
		w[I_SHIFT] = 2;
	}
	if (g->feat & F_CMP)
		w[I_WHERE] = 1;
	if (g->feat & F_INT)
		w[I_FROMF] = 1;
	switch (rng_weighted(&g->rng, w, I_N)) {
	case I_LEAF:
		e = leaf_int(g, cap);
		break;
	case I_ADD: {
		int tries;

		a = gx_int(g, depth - 1, cap / 2);
		b = gx_int(g, depth - 1, cap / 2);
		for (tries = 0; tries < 3 && same_var(a, b); tries++)
			b = gx_int(g, depth, cap / 2);
		e = ex_bin(A, rng_pct(&g->rng, 60) || same_var(a, b) ? OP_ADD : OP_SUB, a, b, t, a->bound + b->bound);
		if (e->op == OP_ADD && (a->flags & b->flags & EF_NONNEG))
			e->flags |= EF_NONNEG;
		break;
	}
	case I_MUL:
		a = gx_int(g, depth - 1, sqrt(cap));
		if (rng_pct(&g->rng, 50))
			b = ilit(g, rng_range(&g->rng, 2, 5));
		else
			b = gx_int(g, depth - 1, fmax(1.0, cap / fmax(a->bound, 1.0)));
		e = ex_bin(A, OP_MUL, a, b, t, a->bound * b->bound);
		break;
	case I_DIV:
		a = gx_int(g, depth - 1, cap * 8);
		if (rng_pct(&g->rng, 60)) {
			int k = rng_range(&g->rng, 2, 7);

			e = ex_bin(A, OP_FLOORDIV, a, ilit(g, k), t, floor(a->bound / k));
		} else {
			/* divisor wp.abs(b) + 1 >= 1 */
			b = gx_int(g, depth - 1, 16);
			if (b->flags & EF_CONST)
				b = ilit(g, rng_range(&g->rng, 2, 5));
			else
				b = ex_bin(A, OP_ADD, nonneg(g, b), ilit(g, 1), t, b->bound + 1);
			b->flags |= EF_NONNEG;
			e = ex_bin(A, OP_FLOORDIV, a, b, t, a->bound);
		}
		if (a->flags & EF_NONNEG)
			e->flags |= EF_NONNEG;
		break;
	case I_MOD:
		a = gx_int(g, depth - 1, HUGE_INT);
		if (rng_pct(&g->rng, 70)) {
			int k = rng_range(&g->rng, 2, (int)fmin(cap + 1, 17.0) > 2 ? (int)fmin(cap + 1, 17.0) : 2);

			e = ex_bin(A, OP_MOD, a, ilit(g, k), t, fmin(a->bound, k - 1));
		} else {
			b = gx_int(g, depth - 1, fmin(cap, 16));
			if (b->flags & EF_CONST)
				b = ilit(g, rng_range(&g->rng, 2, 5));
			else
				b = ex_bin(A, OP_ADD, nonneg(g, b), ilit(g, 1), t, b->bound + 1);
			b->flags |= EF_NONNEG;
			e = ex_bin(A, OP_MOD, a, b, t, fmin(a->bound, b->bound - 1));
		}
		if (a->flags & EF_NONNEG)
			e->flags |= EF_NONNEG;
		break;
	case I_MINMAX: {
		int tries;

		a = gx_int(g, depth - 1, cap);
		b = gx_int(g, depth - 1, cap);
		for (tries = 0; tries < 3 && same_var(a, b); tries++)
			b = gx_int(g, depth, cap);
		if (!same_var(a, b))
			e = ex_call(A, rng_pct(&g->rng, 50) ? "wp.min" : "wp.max", t, fmax(a->bound, b->bound), 2, a, b);
		break;
	}
	case I_ABS:
		e = nonneg(g, gx_int(g, depth - 1, cap));
		if (e->kind != E_CALL) {
			e = ex_call(A, "wp.abs", t, e->bound, 1, e);
			e->flags |= EF_NONNEG;
		}
		break;
	case I_CLAMP: {
		int hi = rng_range(&g->rng, 1, (int)fmin(cap, 12));
		int lo = rng_range(&g->rng, -hi, hi - 1);

		a = gx_int(g, depth - 1, HUGE_INT);
		e = ex_call(A, "wp.clamp", t, fmax(hi, -lo), 3, a, ilit(g, lo), ilit(g, hi));
		if (lo >= 0)
			e->flags |= EF_NONNEG;
		break;
	}
	case I_BITS: {
		int k = rng_below(&g->rng, 3);

		a = gx_int(g, depth - 1, k == 0 ? HUGE_INT : fmin(cap / 2, 255));
		if (k == 0) {
			int m = 1;

			while (m * 2 + 1 <= fmin(cap, 31))
				m = m * 2 + 1;
			if (m > 1 && rng_pct(&g->rng, 50))
				m = rng_range(&g->rng, 1, m);
			e = ex_bin(A, OP_BITAND, a, ilit(g, m), t, m);
			e->flags |= EF_NONNEG;
		} else {
			b = gx_int(g, depth - 1, fmin(cap / 2, 255));
			e = ex_bin(A, k == 1 ? OP_BITOR : OP_BITXOR, a, b, t, 2 * (a->bound + b->bound));
			if (a->flags & b->flags & EF_NONNEG)
				e->flags |= EF_NONNEG;
		}
		break;
	}
	case I_SHIFT: {
		int s = rng_range(&g->rng, 1, 3);

		if (rng_pct(&g->rng, 50) && cap >= 2) {
			a = nonneg(g, gx_int(g, depth - 1, fmax(1.0, cap / (1 << s))));
			e = ex_bin(A, OP_SHL, a, ilit(g, s), t, a->bound * (1 << s));
		} else {
			a = nonneg(g, gx_int(g, depth - 1, fmin(cap * (1 << s), INT_CAP)));
			e = ex_bin(A, OP_SHR, a, ilit(g, s), t, floor(a->bound / (1 << s)));
		}
		e->flags |= EF_NONNEG;
		break;
	}
	case I_WHERE: {
		Expr *c = gx_cond(g, depth - 1);

		a = gx_int(g, depth - 1, cap);
		b = gx_int(g, depth - 1, cap);
		if (same_var(a, b))
			b = gx_int(g, depth, cap);
		e = rng_pct(&g->rng, 50) ? ex_call(A, "wp.where", t, fmax(a->bound, b->bound), 3, c, a, b) : ex_ifexp(A, c, a, b);
		break;
	}
	case I_FROMF: {
		/* truncation toward zero of a bounded float */
		int prec = PREC_F32;
		Type ft;

		if (pal_find(g, TY_FLOAT, &ft))
			prec = ft.prec;
		a = gx_float(g, prec, depth - 1, fmin(cap, 4.0));
		a = ex_bin(A, OP_MUL, a, flit(g, prec, 4.0), a->ty, a->bound * 4.0);
		e = ex_call(A, "int", t, floor(a->bound), 1, a);
		break;
	}
	}
	if (!e)
		e = leaf_int(g, cap);
	return tame(g, deconst(g, e), cap);
}

/* ----------------------------------------------------------------- vectors */

static const char *vec_ctor(Type t)
{
	return ty_py(t, NULL);
}

static Expr *
vec_from_scalars(Gen *g, Type t, int depth, double cap)
{
	Expr *args[4];
	double b = 0;
	int i;

	if (depth > 1)
		depth = 1;
	if (rng_pct(&g->rng, 12)) {
		args[0] = gx_float(g, t.prec, depth, cap);
		return ex_calln(g->A, vec_ctor(t), t, args[0]->bound, 1, args);
	}
	for (i = 0; i < t.n; i++) {
		args[i] = gx_float(g, t.prec, depth, cap);
		b = fmax(b, args[i]->bound);
	}
	return ex_calln(g->A, vec_ctor(t), t, b, t.n, args);
}

static Expr *
leaf_vec(Gen *g, Type t, int depth, double cap)
{
	Var *v = pick_var(g, t, false);
	Var *arr = pick_input(g, t);
	Expr *f = NULL;
	enum { V_VAR, V_CTOR, V_LOAD, V_FIELD, V_ROW, V_XLATE, V_N };
	int w[V_N] = { 0 };
	int i;

	w[V_VAR] = v ? (v->uses_gen == 0 ? 14 : 6) : 0;
	w[V_CTOR] = 3;
	w[V_LOAD] = arr ? 1 : 0;
	w[V_FIELD] = g->nfields_of ? 3 : 0;
	for (i = 0; i < g->nscope; i++) {
		Var *s = g->scope[i];

		if (s->hidden)
			continue;
		if (s->ty.kind == TY_MAT && t.prec == PREC_F32 && s->ty.n == t.n)
			w[V_ROW] = 2;
		if (s->ty.kind == TY_XFORM && t.prec == PREC_F32 && t.n == 3)
			w[V_XLATE] = 2;
	}
	switch (rng_weighted(&g->rng, w, V_N)) {
	case V_VAR:
		return use_var(g, v);
	case V_LOAD:
		return load_at_tid(g, arr);
	case V_FIELD:
		f = field_leaf(g, t);
		if (f)
			return f;
		break;
	case V_ROW:
		for (i = g->nscope - 1; i >= 0; i--) {
			Var *s = g->scope[i];

			if (!s->hidden && s->ty.kind == TY_MAT && s->ty.n == t.n && rng_pct(&g->rng, 60)) {
				int row = rng_below(&g->rng, t.n);

				return ex_index(g->A, use_var(g, s), t, s->bound, 1, ilit(g, row));
			}
		}
		break;
	case V_XLATE:
		for (i = g->nscope - 1; i >= 0; i--) {
			Var *s = g->scope[i];

			if (!s->hidden && s->ty.kind == TY_XFORM) {
				if (rng_pct(&g->rng, 50))
					return ex_attr(g->A, use_var(g, s), "p", t, s->bound);
				return ex_call(g->A, "wp.transform_get_translation", t, s->bound, 1, use_var(g, s));
			}
		}
		break;
	}
	return vec_from_scalars(g, t, depth > 0 ? depth - 1 : 0, cap);
}

static Expr *
gx_vec(Gen *g, Type t, int depth, double cap)
{
	Arena *A = g->A;
	Type st = ty_float(t.prec);
	enum { W_LEAF, W_CTOR, W_ADD, W_SCALE, W_DIV, W_NEG, W_CW, W_MINMAX, W_CROSS, W_NORM, W_MATVEC, W_QROT,
	       W_XPT, W_WHERE, W_LERP, W_FUNC, W_GATHER, W_SAMPLE, W_DIAG, W_N };
	int w[W_N] = { 0 };
	Expr *e = NULL, *a, *b;
	Func *f;
	bool f32 = t.prec == PREC_F32;

	if (depth <= 0)
		return tame(g, leaf_vec(g, t, 0, cap), cap);
	w[W_LEAF] = 6;
	w[W_CTOR] = 3;
	w[W_ADD] = 6;
	w[W_SCALE] = 6;
	w[W_DIV] = 1;
	w[W_NEG] = 1;
	w[W_CW] = 2;
	w[W_MINMAX] = 1;
	w[W_CROSS] = t.n == 3 ? 4 : 0;
	w[W_NORM] = 2;
	w[W_MATVEC] = f32 && (g->feat & F_MAT) ? 4 : 0;
	w[W_QROT] = f32 && t.n == 3 && (g->feat & F_QUAT) ? 5 : 0;
	w[W_XPT] = f32 && t.n == 3 && (g->feat & F_XFORM) ? 5 : 0;
	w[W_WHERE] = (g->feat & F_CMP) ? 2 : 0;
	w[W_LERP] = 1;
	f = depth >= g->depth - 1 ? pick_func(g, t) : NULL;
	w[W_FUNC] = f && func_callable(g, f) ? 5 : 0;
	w[W_GATHER] = (g->feat & F_GATHER) && pick_input(g, t) ? 4 : 0;
	w[W_SAMPLE] = g->rstate && g->tid[0] && f32 && (t.n == 2 || t.n == 3) ? 3 : 0;
	w[W_DIAG] = f32 && (g->feat & F_MAT) ? 1 : 0;
	switch (rng_weighted(&g->rng, w, W_N)) {
	case W_DIAG: { /* the diagonal of a matrix */
		Expr *m = gx_mat(g, ty_make(TY_MAT, PREC_F32, t.n), depth - 1, cap);

		if (m->kind != E_CALL || strcmp(m->s, "wp.diag")) /* get_diag(diag(v)) is v */
			e = ex_call(A, "wp.get_diag", t, m->bound, 1, m);
		break;
	}
	case W_SAMPLE: {
		/* a random point of a unit shape: every component in [-1, 1] */
		static const char *const s2[] = { "wp.sample_unit_disk", "wp.sample_unit_ring", "wp.sample_unit_square",
						  "wp.sample_triangle" };
		static const char *const s3[] = { "wp.sample_unit_sphere", "wp.sample_unit_sphere_surface",
						  "wp.sample_unit_hemisphere", "wp.sample_unit_hemisphere_surface",
						  "wp.sample_unit_cube" };
		const char *fn = t.n == 2 ? s2[rng_below(&g->rng, 4)] : s3[rng_below(&g->rng, 5)];

		e = ex_call(A, fn, t, 1.0, 1, use_var(g, g->rstate));
		e->flags |= EF_RAND;
		break;
	}
	case W_LEAF:
		e = leaf_vec(g, t, depth, cap);
		break;
	case W_CTOR:
		e = vec_from_scalars(g, t, depth - 1, cap);
		break;
	case W_ADD:
		e = gx_addsub(g, t, depth, cap);
		break;
	case W_SCALE:
		a = gx_vec(g, t, depth - 1, sqrt(cap) * 2);
		b = rng_pct(&g->rng, 40) ? lit_nice(g, st, fmin(cap / fmax(a->bound, 0.1), 4.0), false)
					 : gx_float(g, t.prec, depth - 1, cap / fmax(a->bound, 0.1));
		e = rng_pct(&g->rng, 60) ? ex_bin(A, OP_MUL, a, b, t, a->bound * b->bound) : ex_bin(A, OP_MUL, b, a, t, a->bound * b->bound);
		break;
	case W_DIV: {
		double lo, hi;
		Expr *den = denominator(g, t.prec, depth - 1, &lo, &hi);

		a = gx_vec(g, t, depth - 1, cap * lo);
		e = ex_bin(A, OP_DIV, a, den, t, a->bound / lo);
		break;
	}
	case W_NEG:
		a = gx_vec(g, t, depth - 1, cap);
		e = ex_un(A, OP_NEG, a);
		break;
	case W_CW:
		a = gx_vec(g, t, depth - 1, sqrt(cap));
		b = gx_vec(g, t, depth - 1, sqrt(cap));
		e = ex_call(A, "wp.cw_mul", t, a->bound * b->bound, 2, a, b);
		break;
	case W_MINMAX: {
		int tries;

		a = gx_vec(g, t, depth - 1, cap);
		b = gx_vec(g, t, depth - 1, cap);
		for (tries = 0; tries < 3 && same_var(a, b); tries++)
			b = gx_vec(g, t, depth, cap);
		if (!same_var(a, b))
			e = ex_call(A, rng_pct(&g->rng, 50) ? "wp.min" : "wp.max", t, fmax(a->bound, b->bound), 2, a, b);
		break;
	}
	case W_CROSS: {
		int tries;

		/* the cross product of parallel vectors is zero up to rounding (and its
		 * normalisation pure noise) */
		a = gx_vec(g, t, depth - 1, sqrt(cap / 2));
		b = gx_vec(g, t, depth - 1, sqrt(cap / 2));
		for (tries = 0; tries < 4 && fx_parallel(g, a, b); tries++)
			b = gx_vec(g, t, depth - 1, sqrt(cap / 2));
		if (!fx_parallel(g, a, b))
			e = ex_call(A, "wp.cross", t, 2 * a->bound * b->bound, 2, a, b);
		break;
	}
	case W_NORM: {
		int tries;

		/* a vector of fixed direction normalises to a constant times a sign */
		a = gx_vec(g, t, depth - 1, 8.0);
		for (tries = 0; tries < 3 && fx_fixed_dir(g, a); tries++)
			a = gx_vec(g, t, depth - 1, 8.0);
		if (!fx_fixed_dir(g, a))
			e = ex_call(A, "wp.normalize", t, 1.0, 1, a);
		break;
	}
	case W_MATVEC: {
		Type mt = ty_make(TY_MAT, PREC_F32, t.n);
		Expr *m = gx_mat(g, mt, depth - 1, sqrt(cap / t.n));

		a = gx_vec(g, t, depth - 1, sqrt(cap / t.n));
		switch (rng_below(&g->rng, 3)) {
		case 0:
			e = ex_bin(A, OP_MATMUL, m, a, t, t.n * m->bound * a->bound);
			break;
		case 1:
			e = ex_call(A, "wp.mul", t, t.n * m->bound * a->bound, 2, m, a);
			break;
		default:
			e = ex_bin(A, OP_MATMUL, a, m, t, t.n * m->bound * a->bound);
			break;
		}
		break;
	}
	case W_QROT: {
		/* |q| <= 1: |rotate(q, v)| <= 4 |v| */
		Expr *q = gx_quat(g, depth - 1);

		a = gx_vec(g, t, depth - 1, cap / 7.0);
		e = ex_call(A, rng_pct(&g->rng, 70) ? "wp.quat_rotate" : "wp.quat_rotate_inv", t, 7.0 * a->bound, 2, q, a);
		break;
	}
	case W_XPT: {
		Expr *x = gx_xform(g, depth - 1, cap / 2);

		a = gx_vec(g, t, depth - 1, cap / 16.0);
		if (rng_pct(&g->rng, 60))
			e = ex_call(A, "wp.transform_point", t, 7.0 * a->bound + x->bound, 2, x, a);
		else
			e = ex_call(A, "wp.transform_vector", t, 7.0 * a->bound, 2, x, a);
		break;
	}
	case W_WHERE: {
		Expr *c = gx_cond(g, depth - 1);

		a = gx_vec(g, t, depth - 1, cap);
		b = gx_vec(g, t, depth - 1, cap);
		if (same_var(a, b))
			b = gx_vec(g, t, depth, cap);
		e = rng_pct(&g->rng, 50) ? ex_call(A, "wp.where", t, fmax(a->bound, b->bound), 3, c, a, b) : ex_ifexp(A, c, a, b);
		break;
	}
	case W_LERP: {
		Expr *s = lit_nice(g, st, 1.0, true);

		a = gx_vec(g, t, depth - 1, cap / 2);
		b = gx_vec(g, t, depth - 1, cap / 2);
		if (same_var(a, b))
			b = gx_vec(g, t, depth, cap / 2);
		e = ex_call(A, "wp.lerp", t, a->bound + s->bound * (a->bound + b->bound), 3, a, b, s);
		break;
	}
	case W_FUNC:
		e = call_func(g, f);
		break;
	case W_GATHER:
		e = gather(g, t);
		break;
	}
	if (!e)
		e = leaf_vec(g, t, depth, cap);
	return tame(g, deconst(g, e), cap);
}

/* ----------------------------------------------------------------- matrices */

static const char *
ident_call(Gen *g, int n)
{
	return aprintf(g->A, "wp.identity(n=%d, dtype=float)", n);
}

static Expr *
ident(Gen *g, int n)
{
	Expr *e = ex_new(g->A, E_CALL, ty_make(TY_MAT, PREC_F32, n), 0);

	e->s = ident_call(g, n);
	e->bound = 1.0;
	e->flags = EF_CONST;
	return e;
}

static Expr *
leaf_mat(Gen *g, Type t, int depth, double cap)
{
	Arena *A = g->A;
	Type vt = ty_make(TY_VEC, PREC_F32, t.n);
	Var *v = pick_var(g, t, false);
	Var *arr = pick_input(g, t);
	enum { M_VAR, M_LOAD, M_IDENT, M_DIAG, M_OUTER, M_ROWS, M_CTOR, M_QMAT, M_N };
	int w[M_N] = { v ? (v->uses_gen == 0 ? 14 : 6) : 0, arr ? 2 : 0, 2, 2, 2, 2, t.n == 2 ? 3 : (t.n == 3 && depth <= 1 ? 1 : 0),
		       t.n == 3 && (g->feat & F_QUAT) ? 2 : 0 };
	Expr *a, *b;
	int d = depth > 0 ? depth - 1 : 0;

	switch (rng_weighted(&g->rng, w, M_N)) {
	case M_VAR:
		return use_var(g, v);
	case M_LOAD:
		return load_at_tid(g, arr);
	case M_IDENT:
		return ident(g, t.n);
	case M_DIAG:
		a = gx_vec(g, vt, d, cap);
		return ex_call(A, "wp.diag", t, a->bound, 1, a);
	case M_OUTER: {
		int tries;

		a = gx_vec(g, vt, d, sqrt(cap));
		b = gx_vec(g, vt, d, sqrt(cap));
		for (tries = 0; tries < 2 && fx_parallel(g, a, b); tries++)
			b = gx_vec(g, vt, d, sqrt(cap));
		return ex_call(A, "wp.outer", t, a->bound * b->bound, 2, a, b);
	}
	case M_ROWS: {
		Expr *args[4];
		double bd = 0;
		int i;

		for (i = 0; i < t.n; i++) {
			int j, tries;

			/* rows (columns) of different directions: not singular by construction */
			args[i] = gx_vec(g, vt, d, cap);
			for (tries = 0; tries < 2; tries++) {
				for (j = 0; j < i && !fx_parallel(g, args[i], args[j]); j++)
					;
				if (j == i)
					break;
				args[i] = gx_vec(g, vt, d, cap);
			}
			bd = fmax(bd, args[i]->bound);
		}
		return ex_calln(A, rng_pct(&g->rng, 50) ? "wp.matrix_from_rows" : "wp.matrix_from_cols", t, bd, t.n, args);
	}
	case M_CTOR: {
		Expr *args[16];
		double bd = 0;
		int i;

		for (i = 0; i < t.n * t.n; i++) {
			args[i] = gx_float(g, PREC_F32, t.n == 2 && d > 0 ? 1 : 0, cap);
			bd = fmax(bd, args[i]->bound);
		}
		return ex_calln(A, ty_py(t, NULL), t, bd, t.n * t.n, args);
	}
	default: /* rotation matrix of |q| <= 1: entries <= 3 */
		return ex_call(A, "wp.quat_to_matrix", t, 3.0, 1, gx_quat(g, d));
	}
}

static Expr *
gx_mat(Gen *g, Type t, int depth, double cap)
{
	Arena *A = g->A;
	Type st = ty_float(PREC_F32);
	enum { M_LEAF, M_ADD, M_SCALE, M_MUL, M_TR, M_INV, M_NEG, M_WHERE, M_N };
	int w[M_N] = { 8, 4, 4, 4, 2, 3, 1, (g->feat & F_CMP) ? 1 : 0 };
	Expr *e = NULL, *a, *b;

	if (depth <= 0)
		return tame(g, leaf_mat(g, t, 0, cap), cap);
	switch (rng_weighted(&g->rng, w, M_N)) {
	case M_LEAF:
		e = leaf_mat(g, t, depth, cap);
		break;
	case M_ADD:
		a = gx_mat(g, t, depth - 1, cap / 2);
		b = gx_mat(g, t, depth - 1, cap / 2);
		if (same_var(a, b))
			b = gx_mat(g, t, depth - 1, cap / 2);
		e = ex_bin(A, rng_pct(&g->rng, 60) || same_var(a, b) ? OP_ADD : OP_SUB, a, b, t, a->bound + b->bound);
		break;
	case M_SCALE:
		a = gx_mat(g, t, depth - 1, sqrt(cap) * 2);
		b = rng_pct(&g->rng, 50) ? lit_nice(g, st, fmin(cap / fmax(a->bound, 0.1), 4.0), false)
					 : gx_float(g, PREC_F32, depth - 1, cap / fmax(a->bound, 0.1));
		e = rng_pct(&g->rng, 60) ? ex_bin(A, OP_MUL, a, b, t, a->bound * b->bound) : ex_bin(A, OP_MUL, b, a, t, a->bound * b->bound);
		break;
	case M_MUL:
		a = gx_mat(g, t, depth - 1, sqrt(cap / t.n));
		b = gx_mat(g, t, depth - 1, sqrt(cap / t.n));
		e = rng_pct(&g->rng, 60) ? ex_bin(A, OP_MATMUL, a, b, t, t.n * a->bound * b->bound)
					 : ex_call(A, "wp.mul", t, t.n * a->bound * b->bound, 2, a, b);
		break;
	case M_TR:
		a = gx_mat(g, t, depth - 1, cap);
		e = ex_call(A, "wp.transpose", t, a->bound, 1, a);
		break;
	case M_INV: {
		/* c*I + E with |E_ij| <= c/(2n) is strictly diagonally dominant with margin
		 * >= c/2, so |inverse| entries <= 2/c. */
		static const double cs[] = { 2.0, 3.0, 4.0, 1.5 };
		double c = cs[rng_below(&g->rng, 4)];
		Expr *E = gx_mat(g, t, depth - 1, c / (2.0 * t.n));
		Expr *I = ex_bin(A, OP_MUL, ident(g, t.n), flit(g, PREC_F32, c), t, c);
		Expr *W = rng_pct(&g->rng, 50) ? ex_bin(A, OP_ADD, I, E, t, c + E->bound) : ex_bin(A, OP_ADD, E, I, t, c + E->bound);

		e = ex_call(A, "wp.inverse", t, 2.0 / c, 1, W);
		break;
	}
	case M_NEG:
		e = ex_un(A, OP_NEG, gx_mat(g, t, depth - 1, cap));
		break;
	case M_WHERE: {
		Expr *c = gx_cond(g, depth - 1);

		a = gx_mat(g, t, depth - 1, cap);
		b = gx_mat(g, t, depth - 1, cap);
		e = ex_call(A, "wp.where", t, fmax(a->bound, b->bound), 3, c, a, b);
		break;
	}
	}
	return tame(g, deconst(g, e), cap);
}

/* ----------------------------------------------------------------- quaternions */

static Expr *
unit_axis(Gen *g, int depth)
{
	Arena *A = g->A;
	Type v3 = vec3f();

	if (rng_pct(&g->rng, 35)) {
		static const char *ax[] = { "wp.vec3(1.0, 0.0, 0.0)", "wp.vec3(0.0, 1.0, 0.0)", "wp.vec3(0.0, 0.0, 1.0)" };
		Expr *e = ex_new(A, E_CALL, v3, 0);

		e->s = ax[rng_below(&g->rng, 3)];
		e->bound = 1.0;
		e->flags = EF_CONST;
		return e;
	}
	{
		Expr *v = gx_vec(g, v3, depth, 4.0);

		if (!fx_fixed_dir(g, v))
			return ex_call(A, "wp.normalize", v3, 1.0, 1, v);
	}
	{
		static const char *ax[] = { "wp.vec3(1.0, 0.0, 0.0)", "wp.vec3(0.0, 1.0, 0.0)", "wp.vec3(0.0, 0.0, 1.0)" };
		Expr *e = ex_new(A, E_CALL, v3, 0);

		e->s = ax[rng_below(&g->rng, 3)];
		e->bound = 1.0;
		e->flags = EF_CONST;
		return e;
	}
}

static Expr *
gx_quat(Gen *g, int depth)
{
	Arena *A = g->A;
	Type t = quatf();
	Var *v = pick_var(g, t, false);
	enum { Q_VAR, Q_IDENT, Q_AXIS, Q_RPY, Q_MUL, Q_INV, Q_NORM, Q_XROT, Q_WHERE, Q_N };
	int w[Q_N] = { v ? (v->uses_gen == 0 ? 14 : 6) : 0, 1, 5, 2, depth > 0 ? 5 : 0, depth > 0 ? 2 : 0,
		       depth > 0 ? 1 : 0, 0, depth > 0 && (g->feat & F_CMP) ? 1 : 0 };
	int i, d = depth > 0 ? depth - 1 : 0;
	Expr *e;

	for (i = 0; i < g->nscope; i++)
		if (g->scope[i]->ty.kind == TY_XFORM && !g->scope[i]->hidden)
			w[Q_XROT] = 2;
	switch (rng_weighted(&g->rng, w, Q_N)) {
	case Q_VAR:
		return use_var(g, v);
	case Q_IDENT:
		e = ex_new(A, E_CALL, t, 0);
		e->s = "wp.quat_identity()";
		e->bound = 1.0;
		e->flags = EF_CONST;
		return e;
	case Q_AXIS: {
		Expr *ax = unit_axis(g, d);
		Expr *an = gx_float(g, PREC_F32, d, 4.0);

		return ex_call(A, "wp.quat_from_axis_angle", t, 1.0, 2, ax, an);
	}
	case Q_RPY: {
		Expr *r = gx_float(g, PREC_F32, d, 4.0);
		Expr *p = gx_float(g, PREC_F32, d, 4.0);
		Expr *y = gx_float(g, PREC_F32, d, 4.0);

		return ex_call(A, "wp.quat_rpy", t, 1.0, 3, r, p, y);
	}
	case Q_MUL: {
		Expr *a = gx_quat(g, d);
		Expr *b = gx_quat(g, d);

		return ex_bin(A, OP_MUL, a, b, t, 1.0);
	}
	case Q_INV:
		return ex_call(A, "wp.quat_inverse", t, 1.0, 1, gx_quat(g, d));
	case Q_NORM:
		return ex_call(A, "wp.normalize", t, 1.0, 1, gx_quat(g, d));
	case Q_XROT:
		for (i = g->nscope - 1; i >= 0; i--)
			if (!g->scope[i]->hidden && g->scope[i]->ty.kind == TY_XFORM) {
				if (rng_pct(&g->rng, 50))
					return ex_attr(A, use_var(g, g->scope[i]), "q", t, 1.0);
				return ex_call(A, "wp.transform_get_rotation", t, 1.0, 1, use_var(g, g->scope[i]));
			}
		return gx_quat(g, d);
	default: {
		Expr *c = gx_cond(g, d);
		Expr *a = gx_quat(g, d);
		Expr *b = gx_quat(g, d);

		return ex_call(A, "wp.where", t, 1.0, 3, c, a, b);
	}
	}
}

/* ----------------------------------------------------------------- transforms */

static Expr *
gx_xform(Gen *g, int depth, double cap)
{
	Arena *A = g->A;
	Type t = ty_make(TY_XFORM, PREC_F32, 7), v3 = vec3f();
	Var *v = pick_var(g, t, false);
	enum { X_VAR, X_MAKE, X_IDENT, X_MUL, X_INV, X_N };
	int w[X_N] = { v && v->bound <= cap ? (v->uses_gen == 0 ? 14 : 6) : 0, 5, 1, depth > 0 ? 4 : 0, depth > 0 ? 2 : 0 };
	int d = depth > 0 ? depth - 1 : 0;
	Expr *e, *a, *b;

	switch (rng_weighted(&g->rng, w, X_N)) {
	case X_VAR:
		return use_var(g, v);
	case X_MAKE:
		a = gx_vec(g, v3, d, cap);
		return ex_call(A, "wp.transform", t, a->bound, 2, a, gx_quat(g, d));
	case X_IDENT:
		e = ex_new(A, E_CALL, t, 0);
		e->s = "wp.transform_identity()";
		e->bound = 0.0;
		e->flags = EF_CONST;
		return e;
	case X_MUL:
		/* p = pa + rotate(qa, pb): |p| <= |pa| + 7 |pb| componentwise */
		a = gx_xform(g, d, cap / 2);
		b = gx_xform(g, d, cap / 14);
		return ex_call(A, "wp.transform_multiply", t, a->bound + 7.0 * b->bound, 2, a, b);
	default:
		a = gx_xform(g, d, cap / 7);
		return ex_call(A, "wp.transform_inverse", t, 7.0 * a->bound, 1, a);
	}
}

/* ----------------------------------------------------------------- dispatch */

Expr *
gx(Gen *g, Type t, int depth, double cap)
{
	switch (t.kind) {
	case TY_FLOAT:
		return gx_float(g, t.prec, depth, cap);
	case TY_INT:
		return gx_int(g, depth, cap);
	case TY_BOOL:
		return gx_cond(g, depth);
	case TY_VEC:
		return gx_vec(g, t, depth, cap);
	case TY_MAT:
		return gx_mat(g, t, depth, cap);
	case TY_QUAT:
		return gx_quat(g, depth);
	case TY_XFORM:
		return gx_xform(g, depth, cap);
	case TY_STRUCT:
		return gx_struct_arg(g, t);
	default:
		die("cannot generate type kind %d", t.kind);
	}
}

/* gx, retried while the result is a constant (a definition of a named constant, or a
 * loop bound that is not data dependent, reads poorly). */
Expr *
gx_value(Gen *g, Type t, int depth, double cap)
{
	return gx_sized(g, t, depth, cap, false);
}

/* gx, retried while the result is constant, too large to read (> 24 nodes), or (unless
 * leaf_ok) a bare variable or literal. */
Expr *
gx_sized(Gen *g, Type t, int depth, double cap, bool leaf_ok)
{
	Expr *e = NULL, *l;
	int i;

	Expr *best = NULL;
	int bsize = 1 << 30;

	for (i = 0; i < 4; i++) {
		int n;

		e = gx(g, t, depth, cap);
		n = expr_size(e);
		if ((e->flags & EF_CONST) || struct_zero(g, e))
			continue;
		if (!leaf_ok && (e->kind == E_VAR || e->kind == E_LIT) && i < 3)
			continue; /* a plain copy */
		if (n <= 24)
			return e;
		if (n < bsize)
			best = e, bsize = n;
	}
	if (best)
		return best;
	l = input_leaf(g, t);
	return l ? tame(g, l, cap) : e;
}
