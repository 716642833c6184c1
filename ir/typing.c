/*
 * typing.c — the typing rules of ops.def (TY_* of typing.def).
 *
 * typeop() is the single place where kir decides what an op accepts and
 * what it yields; the frontend, the builder, the parser and the verifier all
 * call it, so a kernel that type-checks in one tool type-checks in all.
 * Warp never converts implicitly: operands must have identical types except
 * where an overload mixes kinds (vector times scalar, ...).
 *
 * For ops with F_CAST the result type is declared by the writer (the frontend
 * knows it from the Python constructor, the parser from the `: type`
 * suffix): the caller stores it in out[0] before the call and typeop checks
 * the operands against it.
 */
#include <string.h>

#include "ir.h"

typedef struct Ctx {
	const Module *m;
	int code;
	const Type *in;
	int n;
	Buf *err;
} Ctx;

static int
fail(Ctx *c, const char *what)
{
	int i;

	if (!c->err)
		return -1;
	bufprintf(c->err, "%s(", opinfo[c->code].name);
	for (i = 0; i < c->n; i++)
		bufprintf(c->err, "%s%s", i ? ", " : "", typestr(c->m, c->in[i]));
	bufprintf(c->err, "): %s", what);
	return -1;
}

static int
one(Type *out, Type t)
{
	out[0] = t;
	return 1;
}

static bool numeric(Type t) { return t.k == T_SCALAR && t.s != S_BOOL; }
static bool numvec(Type t) { return t.k == T_VEC && t.s != S_BOOL; }
static bool fvec(Type t) { return t.k == T_VEC && scalarisfloat(t.s); }
static bool fvecn(Type t, int n) { return fvec(t) && t.n == n; }
/* float32, or float64 in a widened module (Module.widened: krun --double
 * computes the float32-only ops in double, as kcpu's -DKPY_F32_DOUBLE
 * build does) */
static bool f32s(const Module *m, int s) { return s == S_F32 || (m && m->widened && s == S_F64); }
static bool f32vec(const Module *m, Type t) { return t.k == T_VEC && f32s(m, t.s); }
static bool isvalue(Type t) { return t.k == T_SCALAR || iscomposite(t) || t.k == T_STRUCT; }
static bool intvalue(Type t) { return isint(t); }

static bool
allsame(const Type *in, int n)
{
	int i;
	for (i = 1; i < n; i++)
		if (!typeeq(in[0], in[i]))
			return false;
	return true;
}

static int
tymul(Ctx *c, Type *out)
{
	Type a = c->in[0], b = c->in[1];

	if (numeric(a) && typeeq(a, b))
		return one(out, a);
	if (numeric(b) && iscomposite(a) && a.s == b.s && a.k != T_XFORM)
		return one(out, a);
	if (numeric(a) && iscomposite(b) && a.s == b.s && b.k != T_XFORM)
		return one(out, b);
	if (a.k == T_XFORM && numeric(b) && a.s == b.s)
		return one(out, a);
	if (b.k == T_XFORM && numeric(a) && a.s == b.s)
		return one(out, b);
	if (a.s != b.s && (iscomposite(a) || iscomposite(b)))
		return fail(c, "object and coefficient must have the same scalar type");
	if (a.k == T_MAT && b.k == T_VEC) {
		if (a.m != b.n)
			return fail(c, "matrix columns must match the vector length");
		return one(out, tvec(a.n, a.s));
	}
	if (a.k == T_VEC && b.k == T_MAT) {
		if (a.n != b.n)
			return fail(c, "vector length must match the matrix rows");
		return one(out, tvec(b.m, a.s));
	}
	if (a.k == T_MAT && b.k == T_MAT) {
		if (a.m != b.n)
			return fail(c, "matrix shapes do not match for multiplication");
		return one(out, tmat(a.n, b.m, a.s));
	}
	if (a.k == T_QUAT && typeeq(a, b))
		return one(out, a);
	if (a.k == T_XFORM && typeeq(a, b))
		return one(out, a);
	if (a.k == T_VEC && b.k == T_VEC)
		return fail(c, "vectors cannot be multiplied: use dot(), cross(), outer() or cw_mul()");
	if (numeric(a) && numeric(b))
		return fail(c, "input types must be the same");
	return fail(c, "no overload matches these types");
}

static int
tydiv(Ctx *c, Type *out)
{
	Type a = c->in[0], b = c->in[1];

	if (numeric(a) && typeeq(a, b))
		return one(out, a);
	if ((a.k == T_VEC || a.k == T_MAT || a.k == T_QUAT) && numeric(b) && a.s == b.s)
		return one(out, a);
	if ((b.k == T_VEC || b.k == T_MAT || b.k == T_QUAT) && numeric(a) && a.s == b.s)
		return one(out, b);
	if (numeric(a) && numeric(b))
		return fail(c, "input types must be the same");
	return fail(c, "no overload matches these types");
}

static int
tyctor(Ctx *c, Type *out)
{
	Type t = out[0];
	const Type *in = c->in;
	int n = c->n, i, k = ncomp(t);

	if (!iscomposite(t))
		return fail(c, "constructor of a non-composite type");
	if ((c->code == OP_VEC && t.k != T_VEC) || (c->code == OP_MAT && t.k != T_MAT) ||
	    (c->code == OP_QUAT && t.k != T_QUAT) || (c->code == OP_TRANSFORM && t.k != T_XFORM))
		return fail(c, "constructor does not match its declared type");
	if (n == 0)
		return 1;
	if (n == k || n == 1) {
		for (i = 0; i < n; i++)
			if (!(in[i].k == T_SCALAR && in[i].s == t.s))
				goto other;
		if (n == 1 && (t.k == T_QUAT || t.k == T_XFORM))
			goto other;
		return 1;
	}
other:
	if (t.k == T_MAT && n == t.n) {
		for (i = 0; i < n; i++)
			if (!typeeq(in[i], tvec(t.m, t.s)))
				return fail(c, "matrix rows must be vectors of the row length and component type");
		return 1;
	}
	if (t.k == T_QUAT && n == 2 && typeeq(in[0], tvec(3, t.s)) && typeeq(in[1], tscalar(t.s)))
		return 1;
	/* spatial_vector(w, v): Warp has it for float32 only */
	if (t.k == T_VEC && t.n == 6 && f32s(c->m, t.s) && n == 2 && typeeq(in[0], tvec(3, t.s)) &&
	    typeeq(in[1], tvec(3, t.s)))
		return 1;
	if (t.k == T_XFORM && n == 2 && typeeq(in[0], tvec(3, t.s)) && typeeq(in[1], tquat(t.s)))
		return 1;
	return fail(c, "arguments do not match any constructor of this type");
}

static int
tycast(Ctx *c, Type *out)
{
	Type t = out[0], a = c->in[0];

	if (t.k == T_SCALAR && a.k == T_SCALAR)
		return 1;
	if (iscomposite(t) && a.k == t.k && a.n == t.n && a.m == t.m)
		return 1;
	return fail(c, "cannot convert to this type");
}

static int
tyextract(Ctx *c, Type *out, bool insert)
{
	Type a = c->in[0];
	int nidx = c->n - 1 - (insert ? 1 : 0), i;
	Type r;

	for (i = 1; i <= nidx; i++)
		if (!intvalue(c->in[i]))
			return fail(c, "indices must be integers");
	if (nidx == 1 && (a.k == T_VEC || a.k == T_QUAT || a.k == T_XFORM))
		r = tcomp(a);
	else if (nidx == 1 && a.k == T_MAT)
		r = tvec(a.m, a.s);
	else if (nidx == 2 && a.k == T_MAT)
		r = tcomp(a);
	else
		return fail(c, "cannot index this value");
	if (insert) {
		if (!typeeq(c->in[c->n - 1], r))
			return fail(c, "the new component has the wrong type");
		return one(out, a);
	}
	return one(out, r);
}

static int
tymem(Ctx *c, Type *out, int code, int attr)
{
	Type a = c->in[0];
	int nidx, i, extra;

	if (a.k != T_ARRAY)
		return fail(c, "the first operand must be an array");
	extra = code == OP_ATOMIC_CAS ? 2 : code == OP_STORE || (opinfo[code].flags & F_ATOMIC) ? 1 : 0;
	nidx = c->n - 1 - extra;
	for (i = 1; i <= nidx; i++)
		if (!intvalue(c->in[i]))
			return fail(c, "array indices must be integers");
	if (code == OP_VIEW) {
		if (nidx < 1 || nidx >= a.nd)
			return fail(c, "a view takes fewer indices than the array has dimensions");
		return one(out, tarray(telem(a), a.nd - nidx));
	}
	if (nidx != a.nd)
		return fail(c, "wrong number of indices for the array's dimensions");
	for (i = c->n - extra; i < c->n; i++)
		if (!typeeq(c->in[i], telem(a)))
			return fail(c, "value type must be the same as the array's element type");
	if (code == OP_LOAD)
		return one(out, telem(a));
	if (code == OP_STORE)
		return 0;
	if (code == OP_ATOMIC_AND || code == OP_ATOMIC_OR || code == OP_ATOMIC_XOR) {
		Type e = telem(a);
		if (!(isint(e) || (e.k == T_VEC && scalarisint(e.s)) || (e.k == T_MAT && scalarisint(e.s))))
			return fail(c, "bitwise atomics need integer elements");
	} else if (code == OP_ATOMIC_CAS || code == OP_ATOMIC_EXCH) {
		if (telem(a).k != T_SCALAR)
			return fail(c, "atomic_cas and atomic_exch need scalar elements");
	} else {
		Type e = telem(a);
		if (!(numeric(e) || ((e.k == T_VEC || e.k == T_MAT) && e.s != S_BOOL) ||
		      ((code == OP_ATOMIC_ADD || code == OP_ATOMIC_SUB) && (e.k == T_QUAT || e.k == T_XFORM))))
			return fail(c, "atomics need numeric elements");
	}
	(void)attr;
	return one(out, telem(a));
}

static int
tyrand(Ctx *c, Type *out)
{
	const Type *in = c->in;
	Type u32 = tscalar(S_U32), f32 = tscalar(S_F32), i32 = tscalar(S_I32), v;
	int code = c->code;

	if (!typeeq(in[0], u32))
		return fail(c, "the state must be a uint32 (from rand_init)");
	switch (code) {
	case OP_RANDI:
	case OP_RANDU:
	case OP_RANDF:
		v = code == OP_RANDI ? i32 : code == OP_RANDU ? u32 : f32;
		if (c->n == 2)
			return fail(c, "takes a state, or a state, a low and a high bound");
		if (c->n == 3 && !(typeeq(in[1], v) && typeeq(in[2], v)))
			return fail(c, "the bounds have the wrong type");
		break;
	case OP_RANDN:
		v = f32;
		break;
	case OP_SAMPLE_TRIANGLE:
	case OP_SAMPLE_UNIT_RING:
	case OP_SAMPLE_UNIT_DISK:
	case OP_SAMPLE_UNIT_SQUARE:
		v = tvec(2, S_F32);
		break;
	case OP_SAMPLE_UNIT_SPHERE_SURFACE:
	case OP_SAMPLE_UNIT_SPHERE:
	case OP_SAMPLE_UNIT_HEMISPHERE_SURFACE:
	case OP_SAMPLE_UNIT_HEMISPHERE:
	case OP_SAMPLE_UNIT_CUBE:
		v = tvec(3, S_F32);
		break;
	case OP_POISSON:
		if (!typeeq(in[1], f32))
			return fail(c, "lambda must be a float32");
		v = u32;
		break;
	default:
		die("tyrand: op %s", opinfo[code].name);
	}
	out[0] = v;
	out[1] = u32;
	return 2;
}

int
typeop(const Module *m, int code, const Type *in, int n, int attr, Type *out, Buf *err)
{
	Ctx c = {m, code, in, n, err};
	const OpInfo *oi = &opinfo[code];
	Type a = n > 0 ? in[0] : tvoid(), b = n > 1 ? in[1] : tvoid();
	int i;

	if (n < oi->amin || (oi->amax != 255 && n > oi->amax))
		return fail(&c, oi->amin == oi->amax ? "wrong number of arguments"
		                                     : "wrong number of arguments for any overload");
	for (i = 0; i < n; i++)
		if (in[i].k == T_VOID)
			return fail(&c, "an operand has no value");

	switch (oi->ty) {
	case TY_NONE:
	case TY_CONTROL:
		return 0;
	case TY_ARITH:
		if (!typeeq(a, b))
			return fail(&c, "input types must be the same");
		if (numeric(a) || (iscomposite(a) && a.s != S_BOOL))
			return one(out, a);
		return fail(&c, "operands must be numbers, vectors, matrices, quaternions or transforms");
	case TY_MUL:
		return tymul(&c, out);
	case TY_DIV:
		return tydiv(&c, out);
	case TY_SAMEV:
		if (!typeeq(a, b))
			return fail(&c, "input types must be the same");
		if (numeric(a) || numvec(a))
			return one(out, a);
		return fail(&c, "operands must be numbers or vectors");
	case TY_SAMES:
		if (!typeeq(a, b))
			return fail(&c, "input types must be the same");
		if (numeric(a))
			return one(out, a);
		return fail(&c, "operands must be numbers");
	case TY_INTBIN:
		if (!typeeq(a, b))
			return fail(&c, "input types must be the same");
		if ((a.k == T_SCALAR || a.k == T_VEC || a.k == T_MAT) && scalarisint(a.s))
			return one(out, a);
		return fail(&c, "operands must be integers");
	case TY_NEG:
		if (numeric(a) || ((a.k == T_VEC || a.k == T_MAT || a.k == T_QUAT) && a.s != S_BOOL))
			return one(out, a);
		return fail(&c, "operand must be a number, vector, matrix or quaternion");
	case TY_INTUN:
		if ((a.k == T_SCALAR || a.k == T_VEC || a.k == T_MAT) && scalarisint(a.s))
			return one(out, a);
		return fail(&c, "operand must be an integer");
	case TY_NOT:
		if (a.k == T_SCALAR && (a.s == S_BOOL || scalarisint(a.s)))
			return one(out, tscalar(S_BOOL));
		return fail(&c, "operand must be a bool or an integer");
	case TY_CMP:
		if (!typeeq(a, b))
			return fail(&c, "cannot compare values of different types");
		if (a.k == T_SCALAR)
			return one(out, tscalar(S_BOOL));
		return fail(&c, "only numbers can be ordered");
	case TY_EQ:
		if (!typeeq(a, b))
			return fail(&c, "cannot compare values of different types");
		if (a.k == T_SCALAR || iscomposite(a))
			return one(out, tscalar(S_BOOL));
		return fail(&c, "these values cannot be compared");
	case TY_LOGIC:
		if (isbool(a) && isbool(b))
			return one(out, a);
		return fail(&c, "operands must be bool");
	case TY_FLOAT1:
		if (isfloat(a))
			return one(out, a);
		return fail(&c, "operand must be a float");
	case TY_FLOAT2:
	case TY_FLOAT3:
		if (!allsame(in, n))
			return fail(&c, "input types must be the same");
		if (isfloat(a))
			return one(out, a);
		return fail(&c, "operands must be floats");
	case TY_NUM1:
		if (numeric(a))
			return one(out, a);
		return fail(&c, "operand must be a number");
	case TY_NUM1V:
		if (numeric(a) || numvec(a))
			return one(out, a);
		return fail(&c, "operand must be a number or a vector");
	case TY_MINMAX:
		if (n == 1) {
			if (numvec(a))
				return one(out, tcomp(a));
			return fail(&c, "a single operand must be a vector");
		}
		if (!typeeq(a, b))
			return fail(&c, "input types must be the same");
		if (numeric(a) || numvec(a))
			return one(out, a);
		return fail(&c, "operands must be numbers or vectors");
	case TY_CLAMP:
		if (!allsame(in, n))
			return fail(&c, "input types must be the same");
		if (numeric(a))
			return one(out, a);
		return fail(&c, "operands must be numbers");
	case TY_LERP:
		if (!typeeq(a, b))
			return fail(&c, "the two endpoints must have the same type");
		if (!isfloatcomp(a) || !typeeq(in[2], tcomp(a)))
			return fail(&c, "lerp needs float values and a float parameter of their component type");
		return one(out, a);
	case TY_CLASSIFY:
		if ((a.k == T_SCALAR || iscomposite(a)) && a.s != S_BOOL)
			return one(out, tscalar(S_BOOL));
		return fail(&c, "operand must be numeric");
	case TY_INT1:
		if (isint(a))
			return one(out, tscalar(S_I32));
		return fail(&c, "operand must be an integer");
	case TY_WHERE:
		if (!(isbool(a) || isint(a) || a.k == T_ARRAY)) /* an array: true when it has storage */
			return fail(&c, "the condition must be a bool, an integer or an array");
		if (!typeeq(b, in[2]))
			return fail(&c, "the true value must have the same type as the false value");
		if (!isvalue(b))
			return fail(&c, "the values must be values");
		return one(out, b);
	case TY_CAST:
		return tycast(&c, out);
	case TY_CTOR:
		return tyctor(&c, out);
	case TY_FROMVECS: {
		Type t = out[0];
		bool rows = code == OP_MATRIX_FROM_ROWS;
		if (t.k != T_MAT)
			return fail(&c, "declared type must be a matrix");
		if (n != (rows ? t.n : t.m))
			return fail(&c, "wrong number of vectors for the matrix");
		for (i = 0; i < n; i++)
			if (!typeeq(in[i], tvec(rows ? t.m : t.n, t.s)))
				return fail(&c, "vectors must match the matrix shape and component type");
		return 1;
	}
	case TY_ZERO: {
		Type t = out[0];
		if (code == OP_ZERO && (isvalue(t) || t.k == T_ARRAY)) /* an array: no storage */
			return 1;
		if (code == OP_IDENTITY && t.k == T_MAT && t.n == t.m)
			return 1;
		if (code == OP_QUAT_IDENTITY && t.k == T_QUAT)
			return 1;
		if (code == OP_TRANSFORM_IDENTITY && t.k == T_XFORM)
			return 1;
		return fail(&c, "declared type does not fit");
	}
	case TY_EXTRACT:
		return tyextract(&c, out, false);
	case TY_INSERT:
		return tyextract(&c, out, true);
	case TY_FIELD:
	case TY_SETFIELD:
		if (a.k != T_STRUCT || !m || a.sid >= m->nstructs)
			return fail(&c, "operand must be a struct");
		if (attr < 0 || (uint32_t)attr >= m->structs[a.sid].nfields)
			return fail(&c, "no such field");
		if (oi->ty == TY_FIELD)
			return one(out, m->structs[a.sid].fields[attr].ty);
		if (!typeeq(b, m->structs[a.sid].fields[attr].ty))
			return fail(&c, "value type must be the same as the field's type");
		return one(out, a);
	case TY_DOT:
		if (!typeeq(a, b))
			return fail(&c, "input types must be the same");
		if (numvec(a) || a.k == T_QUAT)
			return one(out, tcomp(a));
		return fail(&c, "operands must be vectors or quaternions");
	case TY_CROSS:
		if (typeeq(a, b) && numvec(a) && a.n == 3)
			return one(out, a);
		return fail(&c, "operands must be 3-vectors of the same type");
	case TY_LENGTH:
		if ((code == OP_LENGTH ? fvec(a) : numvec(a)) || (a.k == T_QUAT))
			return one(out, tcomp(a));
		return fail(&c, code == OP_LENGTH ? "operand must be a float vector or quaternion"
		                                  : "operand must be a vector or quaternion");
	case TY_NORMALIZE:
		if (fvec(a) || a.k == T_QUAT)
			return one(out, a);
		return fail(&c, "operand must be a float vector or quaternion");
	case TY_OUTER:
		if (numvec(a) && numvec(b) && a.s == b.s)
			return one(out, tmat(a.n, b.n, a.s));
		return fail(&c, "operands must be vectors of the same component type");
	case TY_CW:
		if (typeeq(a, b) && (numvec(a) || (a.k == T_MAT && a.s != S_BOOL)))
			return one(out, a);
		return fail(&c, "operands must be vectors or matrices of the same type");
	case TY_TRANSPOSE:
		if (a.k == T_MAT)
			return one(out, tmat(a.m, a.n, a.s));
		return fail(&c, "operand must be a matrix");
	case TY_SQMAT:
		if (a.k == T_MAT && a.n == a.m && a.n >= 2 && a.n <= 4 && scalarisfloat(a.s))
			return one(out, a);
		return fail(&c, "operand must be a 2x2, 3x3 or 4x4 float matrix");
	case TY_MATSCAL:
		if (a.k == T_MAT && a.n == a.m && a.s != S_BOOL &&
		    (code != OP_DETERMINANT || (a.n >= 2 && a.n <= 4 && scalarisfloat(a.s))))
			return one(out, tcomp(a));
		return fail(&c, code == OP_DETERMINANT ? "operand must be a 2x2, 3x3 or 4x4 float matrix"
		                                       : "operand must be a square matrix");
	case TY_DIAG:
		if (numvec(a))
			return one(out, tmat(a.n, a.n, a.s));
		return fail(&c, "operand must be a vector");
	case TY_GETDIAG:
		if (a.k == T_MAT && a.n == a.m)
			return one(out, tvec(a.n, a.s));
		return fail(&c, "operand must be a square matrix");
	case TY_DDOT:
		if (typeeq(a, b) && a.k == T_MAT && a.s != S_BOOL)
			return one(out, tcomp(a));
		return fail(&c, "operands must be matrices of the same type");
	case TY_SKEW:
		if (numvec(a) && a.n == 3)
			return one(out, tmat(3, 3, a.s));
		return fail(&c, "operand must be a 3-vector");
	case TY_ARGM:
		if (numvec(a))
			return one(out, tscalar(S_U32));
		return fail(&c, "operand must be a vector");
	case TY_NORM:
		if (!f32vec(m, a) || (n == 2 && !typeeq(b, tcomp(a))))
			return fail(&c, "operands must be a float32 vector and a float32 (Warp defines these for float32 only)");
		return one(out, tcomp(a));
	case TY_SMOOTHNORM:
		if (!f32vec(m, a) || (n == 2 && !typeeq(b, tcomp(a))))
			return fail(&c, "operands must be a float32 vector and a float32 (Warp defines it for float32 only)");
		return one(out, a);
	case TY_DECOMP: {
		int nn = code == OP_SVD2 ? 2 : 3;
		if (!(a.k == T_MAT && a.n == nn && a.m == nn && scalarisfloat(a.s)))
			return fail(&c, code == OP_SVD2 ? "operand must be a 2x2 float matrix" : "operand must be a 3x3 float matrix");
		out[0] = a;
		if (code == OP_QR3) {
			out[1] = a;
			return 2;
		}
		out[1] = tvec(nn, a.s);
		if (code == OP_EIG3)
			return 2;
		out[2] = a;
		return 3;
	}
	case TY_QAXIS:
		if (fvecn(a, 3) && typeeq(b, tcomp(a)))
			return one(out, tquat(a.s));
		return fail(&c, "operands must be a float 3-vector axis and an angle of its type");
	case TY_QROT:
		if (a.k == T_QUAT && typeeq(b, tvec(3, a.s)))
			return one(out, b);
		return fail(&c, "operands must be a quaternion and a 3-vector of its type");
	case TY_Q1:
		if (a.k == T_QUAT)
			return one(out, a);
		return fail(&c, "operand must be a quaternion");
	case TY_QTOMAT:
		if (a.k == T_QUAT)
			return one(out, tmat(3, 3, a.s));
		return fail(&c, "operand must be a quaternion");
	case TY_QFROMMAT:
		if (a.k == T_MAT && a.n == a.m && (a.n == 3 || a.n == 4) && scalarisfloat(a.s))
			return one(out, tquat(a.s));
		return fail(&c, "operand must be a 3x3 or 4x4 float matrix");
	case TY_QRPY:
		if (allsame(in, 3) && isfloat(a))
			return one(out, tquat(a.s));
		return fail(&c, "operands must be three floats of the same type");
	case TY_QTORPY:
		if (a.k == T_QUAT && f32s(m, a.s))
			return one(out, tvec(3, a.s));
		return fail(&c, "operand must be a quaternion");
	case TY_QSLERP:
		if (a.k == T_QUAT && typeeq(a, b) && typeeq(in[2], tcomp(a)))
			return one(out, a);
		return fail(&c, "operands must be two quaternions and a float of their type");
	case TY_QTOAA:
		if (a.k == T_QUAT) {
			out[0] = tvec(3, a.s);
			out[1] = tcomp(a);
			return 2;
		}
		return fail(&c, "operand must be a quaternion");
	case TY_QEULER:
	case TY_QTOEULER:
		if ((oi->ty == TY_QEULER ? fvecn(a, 3) : a.k == T_QUAT) && f32s(m, a.s) &&
		    typeeq(in[1], tscalar(S_I32)) && typeeq(in[2], tscalar(S_I32)) && typeeq(in[3], tscalar(S_I32)))
			return one(out, oi->ty == TY_QEULER ? tquat(a.s) : tvec(3, a.s));
		return fail(&c, "operands must be angles and three int32 axis numbers");
	case TY_QTWIST:
	case TY_QTWISTANG:
		if (fvecn(a, 3) && f32s(m, a.s) && typeeq(b, tquat(a.s)))
			return one(out, oi->ty == TY_QTWIST ? b : tcomp(a));
		return fail(&c, "operands must be a float 3-vector axis and a quaternion of its type");
	case TY_XPOINT:
		if ((a.k == T_XFORM || (a.k == T_MAT && a.n == 4 && a.m == 4)) && typeeq(b, tvec(3, a.s)))
			return one(out, b);
		return fail(&c, "operands must be a transform (or 4x4 matrix) and a 3-vector of its type");
	case TY_XMUL:
		if (a.k == T_XFORM && typeeq(a, b))
			return one(out, a);
		return fail(&c, "operands must be transforms of the same type");
	case TY_X1:
		if (a.k == T_XFORM)
			return one(out, a);
		return fail(&c, "operand must be a transform");
	case TY_XGETP:
		if (a.k == T_XFORM)
			return one(out, tvec(3, a.s));
		return fail(&c, "operand must be a transform");
	case TY_XGETQ:
		if (a.k == T_XFORM)
			return one(out, tquat(a.s));
		return fail(&c, "operand must be a transform");
	case TY_XSETP:
		if (a.k == T_XFORM && typeeq(b, tvec(3, a.s)))
			return one(out, a);
		return fail(&c, "operands must be a transform and a 3-vector of its type");
	case TY_XSETQ:
		if (a.k == T_XFORM && typeeq(b, tquat(a.s)))
			return one(out, a);
		return fail(&c, "operands must be a transform and a quaternion of its type");
	case TY_XTOMAT:
		if (a.k == T_XFORM)
			return one(out, tmat(4, 4, a.s));
		return fail(&c, "operand must be a transform");
	case TY_XFROMMAT:
		if (a.k == T_MAT && a.n == 4 && a.m == 4 && scalarisfloat(a.s))
			return one(out, txform(a.s));
		return fail(&c, "operand must be a 4x4 float matrix");
	case TY_XCOMPOSE:
		if (fvecn(a, 3) && typeeq(b, tquat(a.s)) && typeeq(in[2], a))
			return one(out, tmat(4, 4, a.s));
		return fail(&c, "operands must be a position, a rotation and a scale of one float type");
	case TY_XDECOMP:
		if (a.k == T_MAT && a.n == 4 && a.m == 4 && scalarisfloat(a.s)) {
			out[0] = tvec(3, a.s);
			out[1] = tquat(a.s);
			out[2] = tvec(3, a.s);
			return 3;
		}
		return fail(&c, "operand must be a 4x4 float matrix");
	case TY_SPTOP:
		if (fvecn(a, 6))
			return one(out, tvec(3, a.s));
		return fail(&c, "operand must be a spatial vector");
	case TY_SPCROSS:
		if (fvecn(a, 6) && typeeq(a, b))
			return one(out, a);
		return fail(&c, "operands must be spatial vectors of the same type");
	case TY_SPDOT:
		if (fvecn(a, 6) && typeeq(a, b))
			return one(out, tcomp(a));
		return fail(&c, "operands must be spatial vectors of the same type");
	case TY_SPADJ:
		if (a.k == T_MAT && a.n == 3 && a.m == 3 && scalarisfloat(a.s) && typeeq(a, b))
			return one(out, tmat(6, 6, a.s));
		return fail(&c, "operands must be two 3x3 float matrices of the same type");
	case TY_XTWIST:
		if (a.k == T_XFORM && f32s(m, a.s) && typeeq(b, tvec(6, a.s)))
			return one(out, b);
		return fail(&c, "operands must be a transform and a spatial vector of its type");
	case TY_VELPOINT:
		if (fvecn(a, 6) && f32s(m, a.s) && typeeq(b, tvec(3, a.s)))
			return one(out, b);
		return fail(&c, "operands must be a spatial vector and a 3-vector of its type");
	case TY_LOAD:
	case TY_VIEW:
	case TY_STORE:
	case TY_ATOMIC:
	case TY_ATOMICCAS:
		return tymem(&c, out, code, attr);
	case TY_SHAPE:
		if (a.k != T_ARRAY)
			return fail(&c, "operand must be an array");
		if (attr < 0 || attr >= a.nd)
			return fail(&c, "dimension out of range");
		return one(out, tscalar(S_I32));
	case TY_MEMBER: {
		Type t = out[0];
		if (a.k != T_ARRAY || t.k != T_ARRAY || t.nd != a.nd)
			return fail(&c, "declared type must be an array of the operand's dimensions");
		if (!intvalue(b))
			return fail(&c, "the byte offset must be an integer");
		if (telem(t).k == T_ARRAY || typesize(m, telem(t)) > typesize(m, telem(a)))
			return fail(&c, "the member is larger than the element");
		return 1;
	}
	case TY_TID:
		if (attr < 1 || attr > MAXDIM)
			return fail(&c, "tid yields 1 to 4 indices");
		for (i = 0; i < attr; i++)
			out[i] = tscalar(S_I32);
		return attr;
	case TY_BLOCKDIM:
		return one(out, tscalar(S_I32));
	case TY_CALL: {
		const Func *f;
		if (!m || attr < 0 || (uint32_t)attr >= m->nfuncs)
			return fail(&c, "unknown callee");
		f = m->funcs[attr];
		if (f->kernel)
			return fail(&c, "kernels cannot be called");
		if ((uint32_t)n != f->nparams) {
			if (err)
				bufprintf(err, "call @%s: expects %u arguments, got %d", f->name, f->nparams, n);
			return -1;
		}
		for (i = 0; i < n; i++)
			if (!typeeq(in[i], f->vals[f->params[i]].ty)) {
				if (err)
					bufprintf(err, "call @%s: argument %d has type %s, expected %s", f->name,
					          i + 1, typestr(m, in[i]), typestr(m, f->vals[f->params[i]].ty));
				return -1;
			}
		for (i = 0; i < (int)f->nrets; i++)
			out[i] = f->rets[i];
		return (int)f->nrets;
	}
	case TY_PRINT:
		if (isvalue(a))
			return 0;
		return fail(&c, "cannot print this value");
	case TY_PRINTF:
		if (a.k != T_STR)
			return fail(&c, "the first argument must be a format string");
		for (i = 1; i < n; i++)
			if (in[i].k != T_SCALAR)
				return fail(&c, "printf arguments must be scalars");
		return 0;
	case TY_ASSERT:
		if (isbool(a))
			return 0;
		return fail(&c, "the condition must be a bool");
	case TY_RANDINIT:
		for (i = 0; i < n; i++)
			if (!typeeq(in[i], tscalar(S_I32)))
				return fail(&c, "seed and offset must be int32");
		return one(out, tscalar(S_U32));
	case TY_RAND:
		return tyrand(&c, out);
	case TY_NOISE:
		if (!typeeq(a, tscalar(S_U32)))
			return fail(&c, "the state must be a uint32");
		if (!((b.k == T_SCALAR || (b.k == T_VEC && b.n <= 4)) && f32s(m, b.s)))
			return fail(&c, "the position must be a float32 or a float32 2-, 3- or 4-vector");
		if (code == OP_NOISE && n != 2)
			return fail(&c, "noise takes a state and a position");
		if (code == OP_PNOISE) {
			int dims = b.k == T_SCALAR ? 1 : b.n;
			if (n != 2 + dims)
				return fail(&c, "pnoise takes one int32 period per axis of the position");
			for (i = 2; i < n; i++)
				if (!typeeq(in[i], tscalar(S_I32)))
					return fail(&c, "the periods must be int32");
		}
		return one(out, tscalar(b.s));
	case TY_CURLNOISE:
		if (!typeeq(a, tscalar(S_U32)))
			return fail(&c, "the state must be a uint32");
		if (!(b.k == T_VEC && f32s(m, b.s) && b.n >= 2 && b.n <= 4))
			return fail(&c, "the position must be a float32 2-, 3- or 4-vector");
		if (n > 2 && !typeeq(in[2], tscalar(S_U32)))
			return fail(&c, "octaves must be a uint32");
		for (i = 3; i < n; i++)
			if (!typeeq(in[i], tscalar(b.s)))
				return fail(&c, "lacunarity and gain must be float32");
		return one(out, tvec(b.n == 2 ? 2 : 3, b.s));
	case TY_NOISEGRAD: {
		int dims;
		if (!typeeq(a, tscalar(S_U32)))
			return fail(&c, "the state must be a uint32");
		if (!((b.k == T_SCALAR || (b.k == T_VEC && b.n <= 4)) && f32s(m, b.s)))
			return fail(&c, "the position must be a float32 or a float32 2-, 3- or 4-vector");
		dims = b.k == T_SCALAR ? 1 : b.n;
		if (n != 2 && n != 2 + dims)
			return fail(&c, "noise_grad takes a state, a position and no period or one int32 period per axis");
		for (i = 2; i < n; i++)
			if (!typeeq(in[i], tscalar(S_I32)))
				return fail(&c, "the periods must be int32");
		return one(out, b);
	}
	case TY_CURLADJ:
		if (!typeeq(a, tscalar(S_U32)))
			return fail(&c, "the state must be a uint32");
		if (!(b.k == T_VEC && f32s(m, b.s) && b.n >= 2 && b.n <= 4))
			return fail(&c, "the position must be a float32 2-, 3- or 4-vector");
		if (!typeeq(in[2], tvec(b.n == 2 ? 2 : 3, b.s)))
			return fail(&c, "the adjoint must have curlnoise's result type (vec2f for a 2-vector, else vec3f)");
		if (n > 3 && !typeeq(in[3], tscalar(S_U32)))
			return fail(&c, "octaves must be a uint32");
		for (i = 4; i < n; i++)
			if (!typeeq(in[i], tscalar(b.s)))
				return fail(&c, "lacunarity and gain must be float32");
		return one(out, b);
	}
	die("typeop: rule %d of %s", oi->ty, oi->name);
}
