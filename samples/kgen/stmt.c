/* Statements: definitions, bounded mutations, branches, loops, atomics; then dead-code
 * removal and the marking of loops Warp will not unroll.
 *
 * Bounds of mutable variables.  A variable keeps |value| <= base + used <= bound, where
 * base bounds its initial value and every overwrite, and used sums, over every
 * accumulating statement, (its increment's bound) x (the product of the trip counts of
 * the loops between the variable's definition and the statement).  Every mutation form
 * is non-expansive in the variable itself (v += e, v = v*c + e with |c| <= 1,
 * v = max(v, e), v *= c, q = q*r, ...), so the sum holds in any execution order,
 * including Warp's replay of loops in the backward pass.  Once a variable has been read
 * (frozen), readers relied on its bound, which then never grows: later mutations must
 * fit in the remaining budget.
 *
 * Warp rules enforced here: no variable is first assigned inside a branch that sits
 * inside a loop (Warp would merge an uninitialised value, WARP_NOTES §9); while-loop
 * counters are incremented first so that continue never skips them; variables mutated
 * in loops Warp does not unroll are declared dynamic when defined by a literal
 * (mark_dynamic: "Error mutating a constant"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen.h"

#define VMAX 256.0    /* float-based variables never exceed this */
#define IVMAX 4096.0  /* integer variables */
#define MIN_INC 0.05  /* smallest useful increment bound */

/* ----------------------------------------------------------------- names */

static const char *const reserved[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
	"def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
	"is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
	"float", "int", "bool", "range", "min", "max", "abs", "len", "print", "round", "pow", "sum", "list",
	"dict", "tuple", "type", "id", "input", "iter", "next", "map", "filter", "zip", "all", "any",
	"object", "str", "bytes", "hash", "open", "super", "reversed", "slice", "format", "vars", "dir",
	"wp", "np", "rng", "shape", "checksum", "result", "math", "warp", "numpy", "sys", "os", "self",
	"dtype", "ndim", "device", "inputs", "dim", "kernel", "func", "struct", "tape", "grad", "array",
	NULL,
};

bool
name_taken(Gen *g, const char *name)
{
	int i;

	for (i = 0; reserved[i]; i++)
		if (!strcmp(reserved[i], name))
			return true;
	for (i = 0; i < g->nnames; i++)
		if (!strcmp(g->names[i], name))
			return true;
	if (g->k) {
		if (g->k->name && !strcmp(g->k->name, name))
			return true;
		for (i = 0; i < g->k->nfuncs; i++)
			if (!strcmp(g->k->funcs[i]->name, name))
				return true;
		for (i = 0; i < g->k->nstructs; i++)
			if (g->k->structs[i].name && !strcmp(g->k->structs[i].name, name))
				return true;
	}
	return false;
}

void
reserve_name(Gen *g, const char *name)
{
	if (g->nnames >= (int)(sizeof g->names / sizeof g->names[0]))
		die("too many names");
	g->names[g->nnames++] = name;
}

/* A name not used in the current function: base, else base1, base2, ... */
const char *
fresh_name(Gen *g, const char *base)
{
	const char *name = base;
	size_t n = strlen(base);
	bool digit = n && base[n - 1] >= '0' && base[n - 1] <= '9';
	int i;

	for (i = 1; name_taken(g, name); i++)
		name = aprintf(g->A, digit ? "%s_%d" : "%s%d", base, i);
	reserve_name(g, name);
	return name;
}

Var *
new_var(Gen *g, const char *base, Type t, int role)
{
	Var *v = aalloc(g->A, sizeof *v);

	v->name = fresh_name(g, base);
	v->ty = t;
	v->role = (unsigned char)role;
	v->loop_depth = g->loop_depth;
	return v;
}

void
scope_push_var(Gen *g, Var *v)
{
	if (g->nscope >= MAX_SCOPE)
		die("scope overflow");
	g->scope[g->nscope++] = v;
}

static const char *
base_name(Gen *g, Type t)
{
	static const char *const fl[] = { "tmp", "val", "s", "t", "w", "h", "energy", "phase", "mag", "dist", "gain",
					  "weight", "e", "c", "r", "y", "z", "u", "amp", "bias", "damp", "level",
					  "score", "alpha", "beta", "theta", "sig", "term", "f" };
	static const char *const in[] = { "k", "idx", "count", "bucket", "cell", "lane", "code", "offset", "bin", "m",
					  "slot", "tag" };
	static const char *const bo[] = { "flag", "inside", "mask", "hit", "active", "ok", "neg", "far", "near" };
	static const char *const ve[] = { "p", "dir", "vel", "off", "axis", "nrm", "d", "v", "pos", "delta", "g",
					  "force", "tangent", "color", "mid", "x" };
	static const char *const ma[] = { "m", "rot", "basis", "jac", "cov", "mtx", "a", "b", "stress" };
	static const char *const qu[] = { "q", "rot_q", "spin", "orient", "dq", "qr" };
	static const char *const xf[] = { "xf", "pose", "frame", "tf", "body_tf", "world" };
#define PICK(a) a[rng_below(&g->rng, (int)(sizeof a / sizeof a[0]))]
	switch (t.kind) {
	case TY_INT:
		return PICK(in);
	case TY_BOOL:
		return PICK(bo);
	case TY_VEC:
		return PICK(ve);
	case TY_MAT:
		return PICK(ma);
	case TY_QUAT:
		return PICK(qu);
	case TY_XFORM:
		return PICK(xf);
	default:
		return PICK(fl);
	}
#undef PICK
}

/* ----------------------------------------------------------------- definitions */

static double
vmax_of(Type t)
{
	return t.kind == TY_INT ? IVMAX : VMAX;
}

Var *
def_local(Gen *g, Block *b, const char *base, Expr *e)
{
	Var *v = new_var(g, base ? base : base_name(g, e->ty), e->ty, V_LOCAL);
	Stmt *s = st_new(g->A, S_ASSIGN);

	v->bound = v->base = e->bound;
	v->literal_init = (e->flags & EF_LIT) != 0;
	v->nonneg = (e->flags & EF_NONNEG) != 0;
	v->mutable_ = e->ty.kind != TY_STRUCT;
	/* headroom: later mutations may add up to this much even after v has been read */
	if (e->ty.kind == TY_FLOAT || e->ty.kind == TY_VEC || e->ty.kind == TY_MAT) {
		if (rng_pct(&g->rng, 60))
			v->bound = v->base + fmax(v->base, 1.0) * (1 << rng_below(&g->rng, 3));
	} else if (e->ty.kind == TY_INT && v->base < 1024 && rng_pct(&g->rng, 50)) {
		v->bound = v->base + 8 * (1 << rng_below(&g->rng, 3));
		v->nonneg = false;
	}
	s->is_def = true;
	s->var = v;
	s->e = e;
	v->def = e;
	block_push(g->A, b, s);
	scope_push_var(g, v);
	return v;
}

/* A local meant to accumulate: a literal or a small expression, with headroom. */
Var *
def_accumulator(Gen *g, Block *b, Type t)
{
	Expr *e;
	Var *v;

	if (t.kind == TY_FLOAT && rng_pct(&g->rng, 55))
		e = ex_lit_float(g->A, t.prec, rng_pct(&g->rng, 70) ? 0.0 : (rng_pct(&g->rng, 50) ? 1.0 : 0.5));
	else if (t.kind == TY_INT && rng_pct(&g->rng, 70))
		e = ex_lit_int(g->A, rng_pct(&g->rng, 80) ? 0 : 1);
	else if (t.kind == TY_VEC && rng_pct(&g->rng, 40))
		e = ex_call(g->A, ty_py(t, g->k), t, 0.0, 1, ex_lit_float(g->A, t.prec, 0.0));
	else
		e = gx(g, t, g->depth > 1 ? g->depth - 1 : 1, 4.0);
	v = def_local(g, b, t.kind == TY_FLOAT && rng_pct(&g->rng, 50) ? "acc" : NULL, e);
	return v;
}

/* ----------------------------------------------------------------- mutation */

/* Product of the trip counts of the loops entered since v was defined. */
static double
trips_since(Gen *g, const Var *v)
{
	double t = 1;
	int d;

	for (d = v->loop_depth; d < g->loop_depth; d++)
		t *= g->trips[d];
	return t;
}

static Stmt *
assign(Gen *g, Block *b, Var *v, Expr *e)
{
	Stmt *s = st_new(g->A, S_ASSIGN);

	s->var = v;
	s->e = e;
	block_push(g->A, b, s);
	var_assigned(g, v, e);
	return s;
}

static Stmt *
aug(Gen *g, Block *b, Var *v, int op, Expr *e)
{
	Stmt *s = st_new(g->A, S_AUG);

	if ((op == OP_ADD || op == OP_SUB) && e->kind == E_LIT && (e->s[0] == '-' || !strncmp(e->s, "wp.float64(-", 12))) {
		Expr *z = ex_lit_int(g->A, 0);

		/* v -= -c reads as v += c: rebuild through ex_bin's flip */
		z->ty = e->ty;
		e = ex_bin(g->A, op, z, e, e->ty, e->bound);
		op = e->op;
		e = e->a[1];
	}

	s->var = v;
	s->op = (unsigned char)op;
	s->e = e;
	block_push(g->A, b, s);
	var_assigned(g, v, ex_bin(g->A, op, ex_var(g->A, v), e, v->ty, v->bound));
	return s;
}

/* A read of v inside its own update: does not freeze v. */
static Expr *
self(Gen *g, Var *v)
{
	v->uses_gen++;
	return ex_var(g->A, v);
}

static void
commit(Var *v, double inc)
{
	v->mutated = true;
	v->used += inc;
	if (!v->frozen)
		v->bound = v->base + v->used;
	if (v->base + v->used > v->bound * (1 + 1e-9) + 1e-12)
		die("bound of %s exceeded (%g + %g > %g)", v->name, v->base, v->used, v->bound);
}

bool
gen_mutation(Gen *g, Block *b, Var *v)
{
	Arena *A = g->A;
	Type t = v->ty;
	double T = trips_since(g, v);
	double avail = (v->frozen ? v->bound : vmax_of(t)) - v->base - v->used;
	double inc_cap = fmin(cap_for(t), avail / T);
	int d = g->depth > 1 ? g->depth - 1 : 1;
	bool ok = true;
	Expr *e;

	if (v->role != V_LOCAL || !v->mutable_ || v->counter)
		return false;
	v->hidden = true;
	switch (t.kind) {
	case TY_FLOAT:
	case TY_VEC:
	case TY_MAT: {
		enum { U_ADD, U_RELAX, U_MAX, U_SCALE, U_OVER, U_AVG, U_SIN, U_N };
		int w[U_N] = { inc_cap >= MIN_INC ? 10 : 0, inc_cap >= MIN_INC ? 4 : 0,
			       t.kind != TY_MAT && v->base >= MIN_INC ? 2 : 0, 1, v->base >= MIN_INC || !v->frozen ? 1 : 0,
			       v->base >= MIN_INC ? 2 : 0, t.kind == TY_FLOAT && (g->feat & F_MATH) && inc_cap >= MIN_INC ? 1 : 0 };
		Type st = ty_float(t.prec);

		switch (rng_weighted(&g->rng, w, U_N)) {
		case U_ADD: {
			/* v -= e with e the value of v (off -= offsets[i]) would zero v */
			int op;

			e = gx_sized(g, t, d, inc_cap, true);
			op = rng_pct(&g->rng, 75) ? OP_ADD : OP_SUB;
			if (fx_cancels(g, ex_var(A, v), e, op))
				op = op == OP_ADD ? OP_SUB : OP_ADD;
			aug(g, b, v, op, e);
			commit(v, T * e->bound);
			break;
		}
		case U_RELAX: {
			double c = nice_value(g, 0.95);
			Expr *vc;
			int tries;

			e = gx(g, t, d, inc_cap);
			vc = ex_bin(A, OP_MUL, ex_var(A, v), ex_lit_float(A, t.prec, c), t, v->bound * c);
			for (tries = 0; tries < 2 && fx_cancels(g, vc, e, OP_ADD); tries++)
				e = gx(g, t, d, inc_cap);
			assign(g, b, v, ex_bin(A, OP_ADD, ex_bin(A, OP_MUL, self(g, v), ex_lit_float(A, t.prec, c), t, v->bound * c), e, t,
					       v->bound * c + e->bound));
			commit(v, T * e->bound);
			break;
		}
		case U_MAX: {
			int tries;

			e = gx(g, t, d, v->base);
			for (tries = 0; tries < 2 && fx_same(ex_var(A, v), e); tries++)
				e = gx(g, t, d, v->base);
			assign(g, b, v, ex_call(A, rng_pct(&g->rng, 50) ? "wp.max" : "wp.min", t, v->bound, 2, self(g, v), e));
			commit(v, 0);
			break;
		}
		case U_SCALE:
			aug(g, b, v, OP_MUL, ex_lit_float(A, st.prec, nice_value(g, 0.95)));
			commit(v, 0);
			break;
		case U_OVER:
			if (v->frozen) {
				e = gx_value(g, t, d, v->base);
			} else {
				e = gx_value(g, t, d, cap_for(t));
				v->base = fmax(v->base, e->bound);
			}
			assign(g, b, v, e);
			commit(v, 0);
			break;
		case U_AVG: {
			int tries;

			e = gx(g, t, d, v->base);
			for (tries = 0; tries < 2 && fx_cancels(g, ex_var(A, v), e, OP_ADD); tries++)
				e = gx(g, t, d, v->base);
			assign(g, b, v, ex_bin(A, OP_MUL, ex_lit_float(A, t.prec, 0.5),
					       ex_bin(A, OP_ADD, self(g, v), e, t, v->bound + e->bound), t, v->bound));
			commit(v, 0);
			break;
		}
		default:
			e = gx(g, t, d, inc_cap);
			assign(g, b, v, ex_bin(A, OP_ADD, ex_call(A, rng_pct(&g->rng, 50) ? "wp.sin" : "wp.tanh", t, v->bound, 1, self(g, v)),
					       e, t, v->bound + e->bound));
			commit(v, T * e->bound);
			break;
		}
		break;
	}
	case TY_INT: {
		enum { U_ADD, U_MOD, U_MAX, U_AND, U_N };
		int w[U_N] = { inc_cap >= 1 ? 8 : 0, v->base >= 2 ? 3 : 0, v->base >= 1 ? 2 : 0,
			       (g->feat & F_BITS) && v->nonneg ? 1 : 0 };

		if (!w[0] && !w[1] && !w[2] && !w[3]) {
			ok = false;
			break;
		}
		switch (rng_weighted(&g->rng, w, U_N)) {
		case U_ADD:
			if (rng_pct(&g->rng, 40))
				e = ex_lit_int(A, 1);
			else
				e = gx(g, t, d, inc_cap);
			aug(g, b, v, rng_pct(&g->rng, 80) ? OP_ADD : OP_SUB, e);
			commit(v, T * e->bound);
			if (e->kind != E_LIT || e->s[0] == '-' || (b->v[b->n - 1]->op == OP_SUB))
				v->nonneg = false;
			break;
		case U_MOD: {
			/* v = (v * k + e) % m: |v*k + e| <= 4096*3 + 16, result |.| < m <= base */
			int m = rng_range(&g->rng, 2, (int)fmin(v->base + 1, 64));
			int k = rng_range(&g->rng, 1, 3);
			Expr *x = k == 1 ? self(g, v) : ex_bin(A, OP_MUL, self(g, v), ex_lit_int(A, k), t, v->bound * k);

			e = gx(g, t, d, 16);
			x = ex_bin(A, OP_ADD, x, e, t, x->bound + e->bound);
			assign(g, b, v, ex_bin(A, OP_MOD, x, ex_lit_int(A, m), t, m - 1));
			commit(v, 0);
			v->nonneg = false;
			break;
		}
		case U_MAX:
			e = gx(g, t, d, v->base);
			assign(g, b, v, ex_call(A, rng_pct(&g->rng, 50) ? "wp.max" : "wp.min", t, v->bound, 2, self(g, v), e));
			commit(v, 0);
			v->nonneg = false;
			break;
		default:
			aug(g, b, v, OP_BITAND, ex_lit_int(A, rng_range(&g->rng, 1, 15)));
			commit(v, 0);
			break;
		}
		break;
	}
	case TY_BOOL:
		switch (rng_below(&g->rng, 3)) {
		case 0:
			assign(g, b, v, gx_cond(g, d));
			break;
		case 1: {
			int op = rng_pct(&g->rng, 50) ? OP_OR : OP_AND;

			e = gx_cond(g, d);
			assign(g, b, v, ex_bool(A, op, self(g, v), e));
			break;
		}
		default:
			assign(g, b, v, ex_un(A, OP_NOT, self(g, v)));
			break;
		}
		break;
	case TY_QUAT: {
		Expr *r = gx(g, t, d, 1.0);

		switch (rng_below(&g->rng, 3)) {
		case 0:
			assign(g, b, v, ex_bin(A, OP_MUL, self(g, v), r, t, 1.0));
			break;
		case 1:
			assign(g, b, v, ex_call(A, "wp.normalize", t, 1.0, 1, ex_bin(A, OP_MUL, r, self(g, v), t, 1.0)));
			break;
		default:
			assign(g, b, v, r);
			break;
		}
		break;
	}
	case TY_XFORM:
		if (inc_cap / 7.0 < MIN_INC) {
			ok = false;
			break;
		}
		e = gx(g, t, d, inc_cap / 7.0);
		assign(g, b, v, ex_call(A, "wp.transform_multiply", t, v->bound + 7.0 * e->bound, 2, self(g, v), e));
		commit(v, T * 7.0 * e->bound);
		break;
	default:
		ok = false;
		break;
	}
	v->hidden = false;
	return ok;
}

/* Mutate some mutable variable (defined outside the current loop when acc_only). */
static bool
mutate_some(Gen *g, Block *b)
{
	int tries;

	for (tries = 0; tries < 4; tries++) {
		Type t = g->nscope && rng_pct(&g->rng, 60) ? g->scope[rng_below(&g->rng, g->nscope)]->ty : pal_pick(g);
		Var *v = pick_var(g, t, true);

		if (v && gen_mutation(g, b, v))
			return true;
	}
	return false;
}

/* ----------------------------------------------------------------- atomics */

/* An index into accumulator arr valid for every launch size. */
static void
acc_index(Gen *g, Var *arr, Expr **idx)
{
	Arena *A = g->A;
	Type it = ty_int();
	int d, mode = rng_below(&g->rng, 5);

	for (d = 0; d < arr->ndim; d++) {
		Expr *t = use_var(g, g->tid[d]);

		switch (mode) {
		case 0: /* a single cell */
			idx[d] = ex_lit_int(A, 0);
			break;
		case 1: /* i // c <= i */
			idx[d] = d == 0 ? ex_bin(A, OP_FLOORDIV, t, ex_lit_int(A, rng_range(&g->rng, 2, 4)), it, 2147483647.0)
					: ex_lit_int(A, 0);
			break;
		case 2: /* the thread's own row or column */
			idx[d] = d == 0 ? t : ex_lit_int(A, 0);
			break;
		case 3: { /* a small bin: min(i % c, n - 1) */
			Expr *hi = ex_bin(A, OP_SUB, ex_shape(A, arr, d), ex_lit_int(A, 1), it, 2147483647.0);
			int c = rng_range(&g->rng, 2, 8);

			idx[d] = d == 0 ? ex_call(A, "wp.min", it, c, 2, ex_bin(A, OP_MOD, t, ex_lit_int(A, c), it, c - 1), hi)
					: ex_lit_int(A, 0);
			break;
		}
		default: { /* data-dependent bin: abs(k) % n */
			Var *iv = pick_var(g, it, false);

			if (iv && iv->role != V_TID && iv->bound <= 4096 && d == 0) {
				Expr *a = ex_call(A, "wp.abs", it, iv->bound, 1, use_var(g, iv));

				a->flags |= EF_NONNEG;
				idx[d] = ex_bin(A, OP_MOD, a, ex_shape(A, arr, d), it, iv->bound);
			} else {
				idx[d] = d == 0 ? t : ex_lit_int(A, 0);
			}
			break;
		}
		}
	}
}

/* The AccClass of atomic statement s. */
int
acc_class(const Stmt *s)
{
	if (s->s && !strcmp(s->s, "wp.atomic_min"))
		return ACC_MIN;
	if (s->s && !strcmp(s->s, "wp.atomic_max"))
		return ACC_MAX;
	if (s->s && !strcmp(s->s, "wp.atomic_or"))
		return ACC_OR;
	if (s->s && !strcmp(s->s, "wp.atomic_and"))
		return ACC_AND;
	if (s->s && !strcmp(s->s, "wp.atomic_xor"))
		return ACC_XOR;
	return ACC_ADD;
}

bool
gen_atomic(Gen *g, Block *b)
{
	Var *c[MAX_PARAMS];
	int n = 0, i;
	Var *arr;
	Stmt *s;
	static const char *const fns[] = { "wp.atomic_add", "wp.atomic_sub", "wp.atomic_min", "wp.atomic_max", NULL, NULL };
	int w[6] = { 8, 1, 2, 2, 4, 1 };
	int k;

	if (g->fn)
		return false;
	for (i = 0; i < g->k->nparams; i++)
		if (g->k->params[i]->role == V_ARRAY && g->k->params[i]->io == IO_ACC)
			c[n++] = g->k->params[i];
	if (!n)
		return false;
	arr = c[rng_below(&g->rng, n)];
	s = st_new(g->A, S_ATOMIC);
	s->var = arr;
	s->nidx = arr->ndim;
	s->idx = aalloc(g->A, sizeof(Expr *) * 3);
	acc_index(g, arr, s->idx);
	/* one class of atomics per accumulator: see AccClass */
	if (arr->acc == ACC_ADD)
		w[2] = w[3] = 0;
	else if (arr->acc == ACC_MIN)
		w[0] = w[1] = w[3] = w[4] = w[5] = 0;
	else if (arr->acc == ACC_MAX)
		w[0] = w[1] = w[2] = w[4] = w[5] = 0;
	k = rng_weighted(&g->rng, w, 6);
	s->s = fns[k];
	s->op = k == 5 ? OP_SUB : OP_ADD;
	arr->acc = (unsigned char)acc_class(s);
	if (arr->elem.kind == TY_INT) {
		s->e = rng_pct(&g->rng, 40) ? ex_lit_int(g->A, 1) : gx(g, arr->elem, g->depth - 1, 16);
	} else {
		s->e = gx(g, arr->elem, g->depth, 8.0);
	}
	block_push(g->A, b, s);
	return true;
}

/* ----------------------------------------------------------------- unpack */

static bool
gen_unpack(Gen *g, Block *b)
{
	Func *c[MAX_FUNCS];
	int n = 0, i;
	Func *f;
	Stmt *s;
	Expr *args[MAX_PARAMS];

	if (!(g->feat & F_FUNC))
		return false;
	for (i = 0; i < g->k->nfuncs; i++) {
		Func *h = g->k->funcs[i];

		if (h == g->fn)
			break;
		if (h->nrets > 1) {
			bool ok = true;
			int j;

			for (j = 0; j < h->nparams; j++)
				if (h->params[j]->ty.kind == TY_STRUCT)
					ok = false;
			if (ok)
				c[n++] = h;
		}
	}
	if (!n)
		return false;
	f = c[rng_below(&g->rng, n)];
	for (i = 0; i < f->nparams; i++)
		args[i] = gx(g, f->params[i]->ty, g->depth - 1, f->params[i]->bound);
	s = st_new(g->A, S_UNPACK);
	s->e = ex_calln(g->A, f->name, f->rets[0], 0, f->nparams, args);
	s->nvars = f->nrets;
	s->vars = aalloc(g->A, sizeof(Var *) * (size_t)f->nrets);
	for (i = 0; i < f->nrets; i++) {
		Var *v = new_var(g, base_name(g, f->rets[i]), f->rets[i], V_LOCAL);

		v->bound = v->base = f->retbound[i];
		v->mutable_ = true;
		s->vars[i] = v;
	}
	f->used = true;
	unpack_facts(g, f, args, s->vars);
	block_push(g->A, b, s);
	for (i = 0; i < f->nrets; i++)
		scope_push_var(g, s->vars[i]);
	return true;
}

/* ----------------------------------------------------------------- branches */

static void gen_branch(Gen *g, Block *b, int n);

void
gen_if(Gen *g, Block *b)
{
	Stmt *s = st_new(g->A, S_IF), *cur;
	int nelif = 0, i;
	bool many = (g->feat & F_MANYIF) != 0;

	/* branches need something to change: make sure a mutable local exists (unless this
	 * block is itself a branch inside a loop, where no definition may appear) */
	if (!(g->branch_depth > 0 && g->loop_depth > 0) && !pick_var(g, pal_pick(g), true)) {
		Type t = pal_pick(g);

		if (t.kind == TY_FLOAT || t.kind == TY_INT || t.kind == TY_VEC)
			def_accumulator(g, b, t);
	}
	s->e = gx_cond(g, many ? 2 : 1);
	gen_branch(g, &s->body, rng_range(&g->rng, 1, g->branch_depth ? 1 : 2));
	block_push(g->A, b, s);
	if (rng_pct(&g->rng, many ? (g->branch_depth ? 40 : 80) : 30))
		nelif = rng_range(&g->rng, 1, many && g->branch_depth == 0 ? 4 : 1);
	cur = s;
	for (i = 0; i < nelif; i++) {
		Stmt *e = st_new(g->A, S_IF);

		e->elif = true;
		e->e = gx_cond(g, many ? 2 : 1);
		gen_branch(g, &e->body, rng_range(&g->rng, 1, g->branch_depth ? 1 : 2));
		block_push(g->A, &cur->orelse, e);
		cur = e;
	}
	if (rng_pct(&g->rng, 55))
		gen_branch(g, &cur->orelse, rng_range(&g->rng, 1, g->branch_depth ? 1 : 2));
}

static void gen_loop_body(Gen *g, Block *b, int n);

static void
gen_break(Gen *g, Block *b)
{
	Stmt *s = st_new(g->A, S_IF);

	s->e = gx_cond(g, 1);
	/* no continue in a loop Warp may unroll: it would lower the rest of the body into a
	 * branch, where our definitions would become branch-local */
	bool cont = !g->loop_static[g->loop_depth - 1] && rng_pct(&g->rng, 40);

	block_push(g->A, &s->body, st_new(g->A, cont ? S_CONTINUE : S_BREAK));
	block_push(g->A, b, s);
}

static void
gen_branch(Gen *g, Block *b, int n)
{
	int mark = g->nscope, i;
	int maxdepth = 2;

	g->branch_depth++;
	for (i = 0; i < n; i++) {
		enum { B_MUT, B_DEF, B_IF, B_ATOMIC, B_N };
		int w[B_N] = { 10, g->loop_depth == 0 && i + 1 < n ? 3 : 0,
			       g->branch_depth < maxdepth && (g->feat & F_IF) ? ((g->feat & F_MANYIF) ? 2 : 1) : 0,
			       (g->feat & F_ATOMIC) ? 4 : 0 };

		switch (rng_weighted(&g->rng, w, B_N)) {
		case B_MUT:
			if (!mutate_some(g, b) && (g->feat & F_ATOMIC))
				gen_atomic(g, b);
			break;
		case B_DEF: {
			Type t = pal_pick(g);

			def_local(g, b, NULL, gx_value(g, t, g->depth, cap_for(t)));
			break;
		}
		case B_IF:
			gen_if(g, b);
			break;
		case B_ATOMIC:
			if (!gen_atomic(g, b))
				mutate_some(g, b);
			break;
		}
	}
	if (b->n == 0)
		mutate_some(g, b);
	g->nscope = mark;
	g->branch_depth--;
}

/* ----------------------------------------------------------------- loops */

static Var *
outer_mutable(Gen *g)
{
	Var *c[MAX_SCOPE];
	int n = 0, i;

	for (i = 0; i < g->nscope; i++) {
		Var *v = g->scope[i];

		if (v->role == V_LOCAL && v->mutable_ && !v->counter && !v->hidden && v->ty.kind != TY_BOOL &&
		    v->ty.kind != TY_STRUCT && v->loop_depth <= g->loop_depth &&
		    (!v->frozen || v->bound - v->base - v->used > 0.5))
			c[n++] = v;
	}
	return n ? c[rng_below(&g->rng, n)] : NULL;
}

static void
enter_loop(Gen *g, int trips, bool literal)
{
	if (g->loop_depth >= MAX_LOOP_DEPTH)
		die("loops nested too deep");
	g->loop_static[g->loop_depth] = literal;
	g->trips[g->loop_depth++] = trips > 0 ? trips : 0;
	g->loops_made++;
}

void
gen_for(Gen *g, Block *b)
{
	Arena *A = g->A;
	Stmt *s = st_new(A, S_FOR);
	Var *acc = outer_mutable(g), *iv;
	static const char *const lnames[] = { "j", "k", "it", "step", "m", "r", "n" };
	int lo = 0, hi = 0, step = 1, trips = 0, mark;
	double ib;

	if (!acc || rng_pct(&g->rng, 30))
		acc = def_accumulator(g, b, pal_pick(g));
	s->idx = aalloc(A, sizeof(Expr *) * 3);
	switch (rng_below(&g->rng, 10)) {
	case 0:
	case 1:
	case 2: /* range(K) */
		hi = rng_range(&g->rng, 2, 6);
		s->idx[0] = ex_lit_int(A, hi);
		s->nidx = 1;
		trips = hi;
		ib = hi - 1;
		break;
	case 3: /* range(a, b) */
		lo = rng_range(&g->rng, -2, 2);
		hi = lo + rng_range(&g->rng, 2, 5);
		s->idx[0] = ex_lit_int(A, lo);
		s->idx[1] = ex_lit_int(A, hi);
		s->nidx = 2;
		trips = hi - lo;
		ib = fmax(fabs((double)lo), fabs((double)(hi - 1)));
		break;
	case 4: /* range(a, b, s), possibly counting down */
		if (rng_pct(&g->rng, 50)) {
			step = rng_range(&g->rng, 2, 3);
			lo = rng_range(&g->rng, 0, 1);
			hi = lo + rng_range(&g->rng, 4, 9);
			trips = (hi - lo + step - 1) / step;
			ib = hi;
		} else {
			step = -rng_range(&g->rng, 1, 2);
			lo = rng_range(&g->rng, 3, 6);
			hi = rng_range(&g->rng, -1, 0);
			trips = (lo - hi + (-step) - 1) / (-step);
			ib = lo;
		}
		s->idx[0] = ex_lit_int(A, lo);
		s->idx[1] = ex_lit_int(A, hi);
		s->idx[2] = ex_lit_int(A, step);
		s->nidx = 3;
		break;
	case 5: /* beyond Warp's max_unroll: a dynamic loop with constant bounds */
		hi = rng_range(&g->rng, 17, 24);
		s->idx[0] = ex_lit_int(A, hi);
		s->nidx = 1;
		trips = hi;
		ib = hi;
		break;
	default: { /* dynamic bound: an integer expression bounded by 8, not from the thread index */
		Expr *n;
		int d;

		for (d = 0; d < 3; d++)
			if (g->tid[d])
				g->tid[d]->hidden = true;
		n = gx_value(g, ty_int(), 2, 8.0);
		for (d = 0; d < 3; d++)
			if (g->tid[d])
				g->tid[d]->hidden = false;
		if (n->flags & EF_CONST) {
			/* nothing data dependent at hand: a constant trip count */
			hi = rng_range(&g->rng, 2, 6);
			s->idx[0] = ex_lit_int(A, hi);
			s->nidx = 1;
			trips = hi;
			ib = hi - 1;
			break;
		}
		if (rng_pct(&g->rng, 25)) {
			lo = rng_range(&g->rng, 0, 1);
			s->idx[0] = ex_lit_int(A, lo);
			s->idx[1] = n;
			s->nidx = 2;
		} else {
			s->idx[0] = n;
			s->nidx = 1;
		}
		trips = (int)n->bound - lo;
		ib = n->bound;
		break;
	}
	}
	if (trips < 1)
		trips = 1;
	s->trips = trips;
	iv = new_var(g, lnames[rng_below(&g->rng, 7)], ty_int(), V_LOOP);
	iv->bound = iv->base = ib;
	iv->nonneg = step > 0 ? lo >= 0 : hi >= -1;
	s->var = iv;
	block_push(A, b, s);

	mark = g->nscope;
	enter_loop(g, trips, s->idx[0]->kind == E_LIT && (s->nidx < 2 || s->idx[1]->kind == E_LIT));
	scope_push_var(g, iv);
	gen_loop_body(g, &s->body, rng_range(&g->rng, 1, 3));
	if (!gen_mutation(g, &s->body, acc))
		mutate_some(g, &s->body);
	g->loop_depth--;
	g->nscope = mark;
}

void
gen_while(Gen *g, Block *b)
{
	Arena *A = g->A;
	Stmt *s = st_new(A, S_WHILE);
	Var *acc = outer_mutable(g), *cnt;
	Expr *lim, *cond;
	int mark, trips;

	if (!acc || rng_pct(&g->rng, 30))
		acc = def_accumulator(g, b, pal_pick(g));
	cnt = def_local(g, b, rng_pct(&g->rng, 50) ? "it" : "count", ex_lit_int(A, 0));
	cnt->counter = true;
	cnt->mutable_ = false;
	cnt->nonneg = true;
	if (rng_pct(&g->rng, 50)) {
		int k = rng_range(&g->rng, 2, 8);

		lim = ex_lit_int(A, k);
	} else {
		cnt->hidden = true;
		lim = gx_value(g, ty_int(), 2, 8.0);
		cnt->hidden = false;
		if (lim->flags & EF_CONST)
			lim = ex_lit_int(A, rng_range(&g->rng, 2, 8));
	}
	trips = (int)lim->bound;
	if (trips < 1)
		trips = 1;
	/* the counter stops at the limit: 0 <= cnt <= max(limit) */
	cnt->bound = cnt->base = lim->bound;
	cond = ex_cmp(A, OP_LT, use_var(g, cnt), lim);
	if ((g->feat & F_CMP) && rng_pct(&g->rng, 35))
		cond = ex_bool(A, OP_AND, cond, gx_cond(g, 1));
	s->e = cond;
	s->trips = trips;
	block_push(A, b, s);

	mark = g->nscope;
	enter_loop(g, trips, false);
	aug(g, &s->body, cnt, OP_ADD, ex_lit_int(A, 1));
	gen_loop_body(g, &s->body, rng_range(&g->rng, 1, 3));
	if (!gen_mutation(g, &s->body, acc))
		mutate_some(g, &s->body);
	g->loop_depth--;
	g->nscope = mark;
}

static void
gen_loop_body(Gen *g, Block *b, int n)
{
	int i;
	bool did_break = false;

	if (g->force_nest && g->loop_depth < 3) {
		g->force_nest = false;
		if (rng_pct(&g->rng, 75) || !(g->feat & F_WHILE))
			gen_for(g, b);
		else
			gen_while(g, b);
	}
	for (i = 0; i < n; i++) {
		enum { L_DEF, L_MUT, L_IF, L_LOOP, L_WHILE, L_ATOMIC, L_BREAK, L_N };
		int w[L_N] = { 6, 5, (g->feat & F_IF) ? 2 : 0,
			       (g->feat & F_NEST) && g->loop_depth < 3 && g->loops_made < g->o->loops ? 4 : 0,
			       (g->feat & F_NEST) && (g->feat & F_WHILE) && g->loop_depth < 3 && g->loops_made < g->o->loops ? 1 : 0,
			       (g->feat & F_ATOMIC) ? 4 : 0, (g->feat & F_BREAK) && !did_break ? 3 : 0 };

		switch (rng_weighted(&g->rng, w, L_N)) {
		case L_DEF: {
			Type t = pal_pick(g);

			def_local(g, b, NULL, gx_value(g, t, g->depth, cap_for(t)));
			break;
		}
		case L_MUT:
			mutate_some(g, b);
			break;
		case L_IF:
			gen_if(g, b);
			break;
		case L_LOOP:
			gen_for(g, b);
			break;
		case L_WHILE:
			gen_while(g, b);
			break;
		case L_ATOMIC:
			gen_atomic(g, b);
			break;
		case L_BREAK:
			gen_break(g, b);
			did_break = true;
			break;
		}
	}
}

/* ----------------------------------------------------------------- blocks */

void
gen_stmts(Gen *g, Block *b, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		enum { T_DEF, T_MUT, T_IF, T_FOR, T_WHILE, T_ATOMIC, T_UNPACK, T_N };
		bool loops_left = g->loops_made < g->o->loops;
		int w[T_N] = { 10, 4, (g->feat & F_IF) ? 4 : 0,
			       (g->feat & F_LOOP) && loops_left ? 5 : 0, (g->feat & F_WHILE) && loops_left ? 3 : 0,
			       (g->feat & F_ATOMIC) ? 5 : 0, (g->feat & F_FUNC) ? 3 : 0 };

		if (i == 0)
			w[T_MUT] = 0;
		switch (rng_weighted(&g->rng, w, T_N)) {
		case T_DEF: {
			Type t = pal_pick(g);

			def_local(g, b, NULL, gx_value(g, t, g->depth, cap_for(t) * (rng_pct(&g->rng, 50) ? 0.25 : 1.0)));
			break;
		}
		case T_MUT:
			if (!mutate_some(g, b))
				i--;
			break;
		case T_IF:
			gen_if(g, b);
			break;
		case T_FOR:
			gen_for(g, b);
			break;
		case T_WHILE:
			gen_while(g, b);
			break;
		case T_ATOMIC:
			gen_atomic(g, b);
			break;
		case T_UNPACK:
			if (!gen_unpack(g, b)) {
				Type t = pal_pick(g);

				def_local(g, b, NULL, gx_value(g, t, g->depth, cap_for(t)));
			}
			break;
		}
	}
}

/* ----------------------------------------------------------------- dead code */

static void
count_expr(const Expr *e, const Var *self_var)
{
	int i;

	if (!e)
		return;
	if ((e->kind == E_VAR || e->kind == E_LOAD || e->kind == E_SHAPE) && e->var != self_var)
		e->var->reads++;
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		count_expr(e->a[i], self_var);
}

static void
count_block(const Block *b)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		switch (s->kind) {
		case S_ASSIGN:
		case S_AUG:
		case S_SETATTR:
			count_expr(s->e, s->var);
			break;
		case S_UNPACK:
			count_expr(s->e, NULL);
			break;
		default:
			count_expr(s->e, NULL);
			for (j = 0; j < s->nidx; j++)
				count_expr(s->idx[j], NULL);
			break;
		}
		count_block(&s->body);
		count_block(&s->orelse);
	}
}

static void
zero_reads(Block *b)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		Stmt *s = b->v[i];

		if (s->var)
			s->var->reads = 0;
		for (j = 0; j < s->nvars; j++)
			s->vars[j]->reads = 0;
		zero_reads(&s->body);
		zero_reads(&s->orelse);
	}
}

/* No statement in b (at any depth) changes a variable or an array, other than while
 * counters: running b only decides control flow. */
static bool
inert(const Block *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		switch (s->kind) {
		case S_BREAK:
		case S_CONTINUE:
			break;
		case S_AUG:
			if (!s->var->counter)
				return false;
			break;
		case S_IF:
		case S_FOR:
		case S_WHILE:
			if (!inert(&s->body) || !inert(&s->orelse))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

static bool
has_loop_exit(const Block *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if (s->kind == S_BREAK || s->kind == S_CONTINUE)
			return true;
		if (s->kind == S_IF && (has_loop_exit(&s->body) || has_loop_exit(&s->orelse)))
			return true;
	}
	return false;
}

/* Remove statements whose effects are never observed; true if anything changed. */
static bool
sweep(Arena *A, Block *b)
{
	bool changed = false;
	int i, j;

	for (i = 0; i < b->n; i++) {
		Stmt *s = b->v[i];
		bool dead = false;

		switch (s->kind) {
		case S_ASSIGN:
		case S_AUG:
		case S_SETATTR:
			dead = s->var->role == V_LOCAL && s->var->reads == 0 && !s->var->counter;
			break;
		case S_UNPACK:
			dead = true;
			for (j = 0; j < s->nvars; j++)
				dead &= s->vars[j]->reads == 0;
			break;
		case S_IF:
			changed |= sweep(A, &s->body);
			changed |= sweep(A, &s->orelse);
			if (s->body.n == 0 && s->orelse.n == 0)
				dead = true;
			else if (s->body.n == 0 && s->orelse.n == 1 && s->orelse.v[0]->kind == S_IF && s->orelse.v[0]->elif &&
				 s->orelse.v[0]->body.n == 0 && s->orelse.v[0]->orelse.n == 0)
				s->orelse.n = 0, changed = true;
			break;
		case S_FOR:
			changed |= sweep(A, &s->body);
			dead = inert(&s->body);
			break;
		case S_WHILE:
			changed |= sweep(A, &s->body);
			dead = inert(&s->body);
			break;
		default:
			break;
		}
		if (dead) {
			memmove(b->v + i, b->v + i + 1, sizeof(Stmt *) * (size_t)(b->n - i - 1));
			b->n--;
			i--;
			changed = true;
		}
	}
	return changed;
}

/* ----------------------------------------------------------------- dynamic loops */

/* Variables defined (defs) and assigned after definition (muts) anywhere in b. */
static void
collect(const Block *b, VarSet *defs, VarSet *muts)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if (s->kind == S_ASSIGN && s->is_def)
			varset_add(defs, s->var);
		else if (s->kind == S_ASSIGN || s->kind == S_AUG)
			varset_add(muts, s->var);
		else if (s->kind == S_UNPACK)
			for (j = 0; j < s->nvars; j++)
				varset_add(defs, s->vars[j]);
		else if (s->kind == S_FOR)
			varset_add(defs, s->var);
		collect(&s->body, defs, muts);
		collect(&s->orelse, defs, muts);
	}
}

static bool
static_range(const Stmt *s)
{
	int v[3] = { 0, 0, 1 }, i, n;

	for (i = 0; i < s->nidx; i++) {
		if (s->idx[i]->kind != E_LIT)
			return false;
		sscanf(s->idx[i]->s, "%d", &v[i]);
	}
	if (s->nidx == 1) {
		v[1] = v[0];
		v[0] = 0;
	}
	if (v[2] > 0)
		n = v[1] > v[0] ? (v[1] - v[0] + v[2] - 1) / v[2] : 0;
	else
		n = v[0] > v[1] ? (v[0] - v[1] - v[2] - 1) / -v[2] : 0;
	return n <= 16;
}

/* Decide which loops Warp emits dynamically (not all-literal range(), more than
 * max_unroll = 16 trips, break/continue inside, or while) and declare the literal-
 * initialised variables they mutate as dynamic: float(0.0), int(0). */
void
mark_dynamic(Block *b)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		Stmt *s = b->v[i];

		if (s->kind == S_FOR || s->kind == S_WHILE) {
			s->dynamic = s->kind == S_WHILE || !static_range(s) || has_loop_exit(&s->body);
			if (s->dynamic) {
				VarSet *defs = xmalloc(sizeof *defs), *muts = xmalloc(sizeof *muts);

				defs->n = muts->n = 0;
				collect(&s->body, defs, muts);
				for (j = 0; j < muts->n; j++)
					if (!varset_has(defs, muts->v[j]) && muts->v[j]->literal_init)
						((Var *)muts->v[j])->need_dynamic = true;
				free(defs);
				free(muts);
			}
		}
		mark_dynamic(&s->body);
		mark_dynamic(&s->orelse);
	}
}

/* Var.reads of everything assigned in body, from the statements as they stand. */
void
recount_reads(Block *body)
{
	zero_reads(body);
	count_block(body);
}

/* Dead-code removal to a fixpoint, then dynamic-loop marking. */
void
finish_func(Gen *g, Block *body)
{
	do {
		zero_reads(body);
		count_block(body);
	} while (sweep(g->A, body));
	mark_dynamic(body);
}
