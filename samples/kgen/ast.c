/* Types and AST node constructors. */
#include <stdio.h>
#include <string.h>

#include "kgen.h"

Type
ty_make(int kind, int prec, int n)
{
	Type t;

	t.kind = (unsigned char)kind;
	t.prec = (unsigned char)prec;
	t.n = (unsigned char)n;
	t.sid = -1;
	return t;
}

Type ty_float(int prec) { return ty_make(TY_FLOAT, prec, 1); }
Type ty_int(void) { return ty_make(TY_INT, PREC_F32, 1); }
Type ty_bool(void) { return ty_make(TY_BOOL, PREC_F32, 1); }

bool
ty_eq(Type a, Type b)
{
	if (a.kind != b.kind)
		return false;
	switch (a.kind) {
	case TY_FLOAT:
		return a.prec == b.prec;
	case TY_VEC:
	case TY_MAT:
		return a.prec == b.prec && a.n == b.n;
	case TY_STRUCT:
		return a.sid == b.sid;
	default:
		return true;
	}
}

bool
ty_is_floaty(Type t)
{
	return t.kind == TY_FLOAT || t.kind == TY_VEC || t.kind == TY_MAT || t.kind == TY_QUAT ||
	       t.kind == TY_XFORM;
}

int
ty_ncomp(Type t)
{
	switch (t.kind) {
	case TY_VEC:
		return t.n;
	case TY_MAT:
		return t.n * t.n;
	case TY_QUAT:
		return 4;
	case TY_XFORM:
		return 7;
	default:
		return 1;
	}
}

const char *
ty_scalar_py(Type t)
{
	switch (t.kind) {
	case TY_INT:
		return "int";
	case TY_BOOL:
		return "bool";
	case TY_UINT:
		return "wp.uint32";
	default:
		return t.prec == PREC_F64 ? "wp.float64" : "float";
	}
}

const char *
ty_py(Type t, const Kernel *k)
{
	static const char *vecs[2][7] = { /* 6: spatial vectors and matrices (recipes only, float32) */
		{ "", "", "wp.vec2", "wp.vec3", "wp.vec4", "", "wp.spatial_vector" },
		{ "", "", "wp.vec2d", "wp.vec3d", "wp.vec4d", "", "wp.spatial_vectord" },
	};
	static const char *mats[7] = { "", "", "wp.mat22", "wp.mat33", "wp.mat44", "", "wp.spatial_matrix" };

	switch (t.kind) {
	case TY_VOID:
		return "None";
	case TY_BOOL:
	case TY_INT:
	case TY_UINT:
	case TY_FLOAT:
		return ty_scalar_py(t);
	case TY_VEC:
		return vecs[t.prec][t.n];
	case TY_MAT:
		return mats[t.n];
	case TY_QUAT:
		return "wp.quat";
	case TY_XFORM:
		return "wp.transform";
	case TY_STRUCT:
		if (!k || t.sid < 0 || t.sid >= k->nstructs)
			die("bad struct type %d", t.sid);
		return k->structs[t.sid].name;
	default:
		die("no Python spelling for type kind %d", t.kind);
	}
}

Expr *
ex_new(Arena *A, int kind, Type ty, int n)
{
	Expr *e = aalloc(A, sizeof *e);

	e->kind = (unsigned char)kind;
	e->ty = ty;
	e->n = n;
	if (n > 0)
		e->a = aalloc(A, sizeof(Expr *) * (size_t)n);
	return e;
}

Expr *
ex_var(Arena *A, Var *v)
{
	Expr *e = ex_new(A, E_VAR, v->ty, 0);

	e->var = v;
	e->bound = v->bound;
	/* a variable that may still change could turn negative later (in a loop, before
	 * this read executes again): only read-only ones carry their sign */
	if (v->nonneg && !v->mutable_)
		e->flags |= EF_NONNEG;
	return e;
}

/* Float literals are "nice" decimals; the text always has a '.' or an exponent so that
 * Python reads a float.  float64 literals are spelled wp.float64(x): a bare literal is a
 * float32 in Warp. */
Expr *
ex_lit_float(Arena *A, int prec, double v)
{
	Expr *e = ex_new(A, E_LIT, ty_float(prec), 0);
	char t[64];

	if (v == 0.0)
		v = 0.0; /* no "-0.0" */
	snprintf(t, sizeof t, "%.6g", v);
	if (!strpbrk(t, ".en"))
		strcat(t, ".0");
	e->s = prec == PREC_F64 ? aprintf(A, "wp.float64(%s)", t) : astrdup(A, t);
	e->bound = v < 0 ? -v : v;
	e->flags = EF_LIT | EF_CONST | (v >= 0 ? EF_NONNEG : 0);
	return e;
}

Expr *
ex_lit_int(Arena *A, int v)
{
	Expr *e = ex_new(A, E_LIT, ty_int(), 0);

	e->s = aprintf(A, "%d", v);
	e->bound = v < 0 ? -(double)v : (double)v;
	e->flags = EF_LIT | EF_CONST | (v >= 0 ? EF_NONNEG : 0);
	return e;
}

Expr *
ex_lit_bool(Arena *A, bool v)
{
	Expr *e = ex_new(A, E_LIT, ty_bool(), 0);

	e->s = v ? "True" : "False";
	e->flags = EF_LIT | EF_CONST;
	return e;
}

double
lit_value(const Expr *e)
{
	const char *s = e->s;
	double v = 0;

	if (!strncmp(s, "wp.float64(", 11))
		s += 11;
	sscanf(s, "%lf", &v);
	return v;
}

Expr *
ex_raw(Arena *A, const char *text)
{
	Expr *e = ex_new(A, E_RAW, ty_make(TY_VOID, 0, 0), 0);

	e->s = text;
	return e;
}

/* EF_RAND if any operand draws random numbers; EF_CONST if all operands are constant */
static unsigned char
rand_of(Expr *a, Expr *b)
{
	unsigned char f = (unsigned char)(((a ? a->flags : 0) | (b ? b->flags : 0)) & EF_RAND);

	if ((!a || (a->flags & EF_CONST)) && (!b || (b->flags & EF_CONST)))
		f |= EF_CONST;
	return f;
}

/* The literal -x of a negative float/int literal x (same type). */
static Expr *
lit_negated(Arena *A, const Expr *x)
{
	const char *t = x->s;
	double v = 0;

	if (x->ty.kind == TY_INT)
		return ex_lit_int(A, -(int)x->bound * (t[0] == '-' ? -1 : 1));
	if (!strncmp(t, "wp.float64(", 11))
		t += 11;
	sscanf(t, "%lf", &v);
	return ex_lit_float(A, x->ty.prec, -v);
}

static bool
neg_lit(const Expr *x)
{
	return x->kind == E_LIT && (x->s[0] == '-' || !strncmp(x->s, "wp.float64(-", 12));
}

Expr *
ex_bin(Arena *A, int op, Expr *a, Expr *b, Type ty, double bound)
{
	Expr *e;

	/* a - -c * x reads as a + c * x; a + -c as a - c (exactly the same values) */
	if ((op == OP_ADD || op == OP_SUB) && neg_lit(b)) {
		b = lit_negated(A, b);
		op = op == OP_ADD ? OP_SUB : OP_ADD;
	} else if ((op == OP_ADD || op == OP_SUB) && b->kind == E_BIN && b->op == OP_MUL && neg_lit(b->a[0])) {
		b = ex_bin(A, OP_MUL, lit_negated(A, b->a[0]), b->a[1], b->ty, b->bound);
		op = op == OP_ADD ? OP_SUB : OP_ADD;
	}
	e = ex_new(A, E_BIN, ty, 2);

	e->op = (unsigned char)op;
	e->a[0] = a;
	e->a[1] = b;
	e->bound = bound;
	e->flags = rand_of(a, b);
	return e;
}

Expr *
ex_un(Arena *A, int op, Expr *a)
{
	Expr *e = ex_new(A, E_UN, op == OP_NOT ? ty_bool() : a->ty, 1);

	e->op = (unsigned char)op;
	e->a[0] = a;
	e->bound = a->bound;
	e->flags = rand_of(a, NULL);
	return e;
}

Expr *
ex_cmp(Arena *A, int op, Expr *a, Expr *b)
{
	Expr *e = ex_new(A, E_CMP, ty_bool(), 2);

	e->op = (unsigned char)op;
	e->a[0] = a;
	e->a[1] = b;
	e->flags = rand_of(a, b);
	return e;
}

Expr *
ex_bool(Arena *A, int op, Expr *a, Expr *b)
{
	Expr *e = ex_new(A, E_BOOL, ty_bool(), 2);

	e->op = (unsigned char)op;
	e->a[0] = a;
	e->a[1] = b;
	e->flags = rand_of(a, b);
	return e;
}

Expr *
ex_calln(Arena *A, const char *fn, Type ty, double bound, int n, Expr **args)
{
	Expr *e = ex_new(A, E_CALL, ty, n);
	int i;

	e->s = fn;
	e->bound = bound;
	e->flags = EF_CONST;
	for (i = 0; i < n; i++) {
		e->a[i] = args[i];
		e->flags |= args[i]->flags & EF_RAND;
		if (!(args[i]->flags & EF_CONST))
			e->flags &= (unsigned char)~EF_CONST;
	}
	return e;
}

Expr *
ex_call(Arena *A, const char *fn, Type ty, double bound, int n, ...)
{
	Expr *args[16];
	va_list ap;
	int i;

	if (n > 16)
		die("too many arguments");
	va_start(ap, n);
	for (i = 0; i < n; i++)
		args[i] = va_arg(ap, Expr *);
	va_end(ap);
	return ex_calln(A, fn, ty, bound, n, args);
}

Expr *
ex_index(Arena *A, Expr *base, Type ty, double bound, int n, ...)
{
	Expr *e = ex_new(A, E_INDEX, ty, n + 1);
	va_list ap;
	int i;

	e->a[0] = base;
	va_start(ap, n);
	for (i = 0; i < n; i++)
		e->a[i + 1] = va_arg(ap, Expr *);
	va_end(ap);
	e->bound = bound;
	e->flags = rand_of(base, NULL);
	return e;
}

Expr *
ex_attr(Arena *A, Expr *base, const char *name, Type ty, double bound)
{
	Expr *e = ex_new(A, E_ATTR, ty, 1);

	e->a[0] = base;
	e->s = name;
	e->bound = bound;
	e->flags = rand_of(base, NULL);
	return e;
}

Expr *
ex_ifexp(Arena *A, Expr *c, Expr *a, Expr *b)
{
	Expr *e = ex_new(A, E_IFEXP, a->ty, 3);

	e->a[0] = c;
	e->a[1] = a;
	e->a[2] = b;
	e->bound = a->bound > b->bound ? a->bound : b->bound;
	e->flags = rand_of(a, b) & rand_of(c, NULL);
	e->flags |= (a->flags | b->flags | c->flags) & EF_RAND;
	return e;
}

Expr *
ex_load(Arena *A, Var *arr, int n, Expr **idx)
{
	Expr *e = ex_new(A, E_LOAD, arr->elem, n);
	int i;

	e->var = arr;
	for (i = 0; i < n; i++)
		e->a[i] = idx[i];
	/* runner inputs: floats in [-1, 1], ints in [-8, 8] */
	e->bound = arr->elem.kind == TY_INT ? 8.0 : 1.0;
	return e;
}

Expr *
ex_shape(Arena *A, Var *arr, int dim)
{
	Expr *e = ex_new(A, E_SHAPE, ty_int(), 0);

	e->var = arr;
	e->n = dim;
	e->bound = 2147483647.0;
	e->flags = EF_NONNEG;
	return e;
}

Stmt *
st_new(Arena *A, int kind)
{
	Stmt *s = aalloc(A, sizeof *s);

	s->kind = (unsigned char)kind;
	return s;
}

void
block_push(Arena *A, Block *b, Stmt *s)
{
	block_insert(A, b, b->n, s);
}

void
block_insert(Arena *A, Block *b, int at, Stmt *s)
{
	if (b->n == b->cap) {
		int cap = b->cap ? b->cap * 2 : 8;
		Stmt **v = aalloc(A, sizeof(Stmt *) * (size_t)cap);

		if (b->n)
			memcpy(v, b->v, sizeof(Stmt *) * (size_t)b->n);
		b->v = v;
		b->cap = cap;
	}
	memmove(b->v + at + 1, b->v + at, sizeof(Stmt *) * (size_t)(b->n - at));
	b->v[at] = s;
	b->n++;
}

bool
varset_has(const VarSet *s, const Var *v)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return true;
	return false;
}

void
varset_add(VarSet *s, const Var *v)
{
	if (s->n < VARSET_MAX && !varset_has(s, v))
		s->v[s->n++] = v;
}
