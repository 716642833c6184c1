/*
 * fold.c — constant folding.
 *
 * requires: a verified module
 * provides: every pure op whose operands are constants and whose result is
 *           exactly determined by IEEE arithmetic (+ - * / on floats
 *           computed in the component precision, integer arithmetic with
 *           the type's wrap-around, comparisons, casts, construction,
 *           extract/insert) is replaced by a constant; `where` and `if`
 *           with a constant condition keep only the chosen side; identities
 *           exact for every value (x + -0, x - +0, x * 1, x / 1 on ints and
 *           floats, true and x, false or x, where(c, x, x)) keep x.
 * keeps:    transcendental functions, reductions (dot, length...) and
 *           anything whose folded value could differ from the run-time one;
 *           integer division by zero and out-of-range shifts or float to
 *           integer conversions (left for the runtime, like Warp).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

typedef struct F {
	Module *m;
	Func *f;
	Val *repl;     /* per Val that existed before the pass: replacement, or 0 */
	uint32_t nrepl;
	int changed;
} F;

static Val
sub(F *c, Val v)
{
	while (v < c->nrepl && c->repl[v])
		v = c->repl[v];
	return v;
}

/* Integer result of kind s from a wide value (wraps like the C type). */
static Scal
mkint(int s, int64_t v)
{
	Scal r;
	r.i = v;
	return scalround(s, r);
}

static Scal
mkuint(int s, uint64_t v)
{
	Scal r;
	r.u = v;
	return scalround(s, r);
}

static Scal
mkflt(int s, double v)
{
	Scal r;
	r.f = v;
	return scalround(s, r);
}

static Scal
mkbool(bool v)
{
	Scal r;
	r.i = v;
	return r;
}

/* Fold a binary or unary scalar op on kind s.  Returns false when the
 * result must be left to run time. */
static bool
scalar(int code, int s, const Scal *x, int n, Scal *r)
{
	bool fl = scalarisfloat(s), un = s >= S_U8 && s <= S_U64, bo = s == S_BOOL;
	Scal a = x[0], b = n > 1 ? x[1] : x[0];
	int bits = scalarsize[s] * 8;

	switch (code) {
	case OP_ADD:
		*r = fl ? mkflt(s, a.f + b.f) : un ? mkuint(s, a.u + b.u) : mkint(s, (int64_t)((uint64_t)a.i + (uint64_t)b.i));
		return !bo;
	case OP_SUB:
		*r = fl ? mkflt(s, a.f - b.f) : un ? mkuint(s, a.u - b.u) : mkint(s, (int64_t)((uint64_t)a.i - (uint64_t)b.i));
		return !bo;
	case OP_MUL:
		*r = fl ? mkflt(s, a.f * b.f) : un ? mkuint(s, a.u * b.u) : mkint(s, (int64_t)((uint64_t)a.i * (uint64_t)b.i));
		return !bo;
	case OP_DIV:
		if (fl) {
			*r = mkflt(s, a.f / b.f);
			return true;
		}
		if (un ? b.u == 0 : b.i == 0)
			return false;
		if (!un && b.i == -1 && a.i == INT64_MIN)
			return false;
		*r = un ? mkuint(s, a.u / b.u) : mkint(s, a.i / b.i);
		return !bo;
	case OP_MOD:
		if (fl) {
			*r = mkflt(s, fmod(a.f, b.f));
			return true;
		}
		if (un ? b.u == 0 : b.i == 0)
			return false;
		if (!un && b.i == -1)
			*r = mkint(s, 0);
		else
			*r = un ? mkuint(s, a.u % b.u) : mkint(s, a.i % b.i);
		return !bo;
	case OP_FLOORDIV:
		if (fl) {
			*r = mkflt(s, floor(a.f / b.f));
			return s != S_F32 || (double)(float)(a.f / b.f) == a.f / b.f;
		}
		if (un ? b.u == 0 : b.i == 0)
			return false;
		if (un) {
			*r = mkuint(s, a.u / b.u);
		} else {
			int64_t q;
			if (b.i == -1 && a.i == INT64_MIN)
				return false;
			q = a.i / b.i;
			if ((a.i % b.i != 0) && ((a.i < 0) != (b.i < 0)))
				q--;
			*r = mkint(s, q);
		}
		return !bo;
	case OP_NEG:
		*r = fl ? mkflt(s, -a.f) : un ? mkuint(s, 0 - a.u) : mkint(s, (int64_t)(0 - (uint64_t)a.i));
		return !bo;
	case OP_POS:
		*r = a;
		return !bo;
	case OP_BIT_AND: *r = un ? mkuint(s, a.u & b.u) : mkint(s, a.i & b.i); return !fl;
	case OP_BIT_OR:  *r = un ? mkuint(s, a.u | b.u) : mkint(s, a.i | b.i); return !fl;
	case OP_BIT_XOR: *r = un ? mkuint(s, a.u ^ b.u) : mkint(s, a.i ^ b.i); return !fl;
	case OP_INVERT:  *r = un ? mkuint(s, ~a.u) : mkint(s, ~a.i); return !fl;
	case OP_LSHIFT:
		if (fl || (un ? b.u : (uint64_t)b.i) >= (uint64_t)(bits < 32 ? 32 : bits) || (!un && b.i < 0))
			return false;
		if (!un && a.i < 0)
			return false;
		*r = un ? mkuint(s, a.u << b.u) : mkint(s, (int64_t)((uint64_t)a.i << b.i));
		return true;
	case OP_RSHIFT:
		if (fl || (un ? b.u : (uint64_t)b.i) >= (uint64_t)(bits < 32 ? 32 : bits) || (!un && b.i < 0))
			return false;
		*r = un ? mkuint(s, a.u >> b.u) : mkint(s, a.i >> b.i);
		return true;
	case OP_EQ: *r = mkbool(fl ? a.f == b.f : a.u == b.u); return true;
	case OP_NE: *r = mkbool(fl ? a.f != b.f : a.u != b.u); return true;
	case OP_LT: *r = mkbool(fl ? a.f < b.f : un ? a.u < b.u : a.i < b.i); return true;
	case OP_LE: *r = mkbool(fl ? a.f <= b.f : un ? a.u <= b.u : a.i <= b.i); return true;
	case OP_GT: *r = mkbool(fl ? a.f > b.f : un ? a.u > b.u : a.i > b.i); return true;
	case OP_GE: *r = mkbool(fl ? a.f >= b.f : un ? a.u >= b.u : a.i >= b.i); return true;
	case OP_AND: *r = mkbool(a.i && b.i); return bo;
	case OP_OR: *r = mkbool(a.i || b.i); return bo;
	case OP_UNOT: *r = mkbool(fl ? a.f == 0 : a.u == 0); return !fl;
	case OP_ABS:
		*r = fl ? mkflt(s, fabs(a.f)) : un ? a : mkint(s, a.i < 0 ? (int64_t)(0 - (uint64_t)a.i) : a.i);
		return !bo;
	case OP_MIN:
	case OP_MAX: {
		bool less = fl ? a.f < b.f : un ? a.u < b.u : a.i < b.i;
		if (fl && (isnan(a.f) || isnan(b.f)))
			return false;
		*r = (code == OP_MIN) == less ? a : b;
		return n == 2 && !bo;
	}
	default:
		return false;
	}
}

/* Convert one component from kind from to kind to (C++ semantics). */
static bool
convert(int from, int to, Scal a, Scal *r)
{
	if (scalarisfloat(to)) {
		double v = scalarisfloat(from) ? a.f : from >= S_U8 ? (double)a.u : (double)a.i;
		*r = mkflt(to, v);
		return true;
	}
	if (to == S_BOOL) {
		*r = mkbool(scalarisfloat(from) ? a.f != 0 : a.u != 0);
		return true;
	}
	if (scalarisfloat(from)) {
		double t = trunc(a.f);
		int bits = scalarsize[to] * 8;
		if (isnan(a.f))
			return false;
		if (to >= S_U8) {
			if (t < 0 || t >= ldexp(1.0, bits))
				return false;
			*r = mkuint(to, (uint64_t)t);
		} else {
			if (t < -ldexp(1.0, bits - 1) || t >= ldexp(1.0, bits - 1))
				return false;
			*r = mkint(to, (int64_t)t);
		}
		return true;
	}
	/* integer or bool to integer: modular, as C++ does */
	*r = to >= S_U8 ? mkuint(to, a.u) : mkint(to, a.i);
	if (from >= S_U8 && to < S_U8)
		*r = mkint(to, (int64_t)a.u);
	return true;
}

static const Scal *
cv(F *c, Val v)
{
	return c->f->vals[v].c;
}

static bool
allconst(F *c, const Op *op)
{
	int i;

	for (i = 0; i < op->nargs; i++)
		if (!isconst(c->f, op->args[i]))
			return false;
	return true;
}

/* v is a constant whose every component is k (0 or 1); a float 0 must
 * have the sign neg (x + -0 and x - +0 are x for every x, -0 included). */
static bool
isk(F *c, Val v, int k, bool neg)
{
	Type t = vty(c->f, v);
	int i, n;

	if (!isconst(c->f, v) || (t.k != T_SCALAR && t.k != T_VEC && t.k != T_MAT))
		return false;
	n = ncomp(t);
	for (i = 0; i < n; i++) {
		Scal x = cv(c, v)[i];
		if (scalarisfloat(t.s) ? x.f != k || (k == 0 && !signbit(x.f) != !neg) : x.i != k)
			return false;
	}
	return true;
}

/* An identity of op that holds for every value, float or not: x + -0,
 * x - +0, x * 1, x / 1, true and x, false or x, where(c, x, x) are x;
 * false and x, true or x are the constant.  Returns the replacement or 0. */
static Val
identity(F *c, Op *op)
{
	Func *f = c->f;
	Type rt = vty(f, op->res[0]);
	Val a = op->args[0], b = op->nargs > 1 ? op->args[1] : 0;

	switch (op->code) {
	case OP_ADD:
		if (isk(c, a, 0, true) && typeeq(vty(f, b), rt))
			return b;
		/* fallthrough */
	case OP_SUB:
		if (isk(c, b, 0, op->code == OP_ADD) && typeeq(vty(f, a), rt))
			return a;
		return 0;
	case OP_MUL: /* by a scalar 1 only: a matrix of ones is no identity */
		if (vty(f, a).k == T_SCALAR && isk(c, a, 1, false) && typeeq(vty(f, b), rt))
			return b;
		/* fallthrough */
	case OP_DIV:
		if (vty(f, b).k == T_SCALAR && isk(c, b, 1, false) && typeeq(vty(f, a), rt))
			return a;
		return 0;
	case OP_AND:
	case OP_OR:
		if (!typeeq(vty(f, a), rt) || !typeeq(vty(f, b), rt))
			return 0;
		if (isconst(f, a))
			return (cv(c, a)[0].u != 0) == (op->code == OP_AND) ? b : a;
		if (isconst(f, b))
			return (cv(c, b)[0].u != 0) == (op->code == OP_AND) ? a : b;
		return 0;
	case OP_WHERE:
		return a && op->args[1] == op->args[2] ? op->args[1] : 0;
	default:
		return 0;
	}
}

/* Try to fold op (operands already substituted).  Returns the constant or 0. */
static Val
tryfold(F *c, Op *op)
{
	const OpInfo *oi = &opinfo[op->code];
	Func *f = c->f;
	Scal r[MAXVEC * MAXVEC];
	Type rt;
	int i, k, n;

	if (op->nres != 1 || !(oi->flags & F_PURE) || (oi->flags & F_REGION))
		return 0;
	rt = vty(f, op->res[0]);
	if (op->code == OP_WHERE && isconst(f, op->args[0])) {
		Scal cond = cv(c, op->args[0])[0];
		return cond.u != 0 ? op->args[1] : op->args[2];
	}
	if (!allconst(c, op))
		return identity(c, op);
	switch (op->code) {
	case OP_ZERO:
		if (rt.k == T_SCALAR || iscomposite(rt))
			return czero(c->m, f, rt);
		return 0;
	case OP_IDENTITY:
		memset(r, 0, sizeof r);
		for (i = 0; i < rt.n; i++)
			r[i * rt.m + i] = mkflt(rt.s, 1.0);
		if (!scalarisfloat(rt.s))
			for (i = 0; i < rt.n; i++)
				r[i * rt.m + i] = mkint(rt.s, 1);
		return cconst(c->m, f, rt, r);
	case OP_QUAT_IDENTITY:
	case OP_TRANSFORM_IDENTITY:
		memset(r, 0, sizeof r);
		r[ncomp(rt) - 1] = mkflt(rt.s, 1.0);
		return cconst(c->m, f, rt, r);
	case OP_CAST: {
		Type a = vty(f, op->args[0]);
		n = ncomp(rt);
		for (i = 0; i < n; i++)
			if (!convert(a.s, rt.s, cv(c, op->args[0])[i], &r[i]))
				return 0;
		return cconst(c->m, f, rt, r);
	}
	case OP_VEC:
	case OP_MAT:
	case OP_QUAT:
	case OP_TRANSFORM:
	case OP_MATRIX_FROM_ROWS:
	case OP_MATRIX_FROM_COLS:
		n = ncomp(rt);
		if (op->nargs == 0) {
			if (op->code == OP_QUAT || op->code == OP_TRANSFORM)
				return 0; /* default constructors: left to the runtime's definition */
			return czero(c->m, f, rt);
		}
		if (op->code == OP_MATRIX_FROM_COLS) {
			for (i = 0; i < rt.m; i++)
				for (k = 0; k < rt.n; k++)
					r[k * rt.m + i] = cv(c, op->args[i])[k];
			return cconst(c->m, f, rt, r);
		}
		k = 0;
		for (i = 0; i < op->nargs; i++) {
			Type a = vty(f, op->args[i]);
			int j, na = ncomp(a);
			for (j = 0; j < na && k < n; j++)
				r[k++] = cv(c, op->args[i])[j];
		}
		if (k == 1 && n > 1 && (rt.k == T_VEC || rt.k == T_MAT))
			for (; k < n; k++)
				r[k] = r[0];
		if (k != n)
			return 0;
		return cconst(c->m, f, rt, r);
	case OP_EXTRACT: {
		Type a = vty(f, op->args[0]);
		int64_t i0 = cv(c, op->args[1])[0].i, i1 = op->nargs > 2 ? cv(c, op->args[2])[0].i : 0;
		int len = a.k == T_MAT ? a.n : ncomp(a);
		if (scalarisint(vty(f, op->args[1]).s) && vty(f, op->args[1]).s >= S_U8)
			i0 = (int64_t)cv(c, op->args[1])[0].u;
		if (i0 < 0)
			i0 += len;
		if (i0 < 0 || i0 >= len)
			return 0;
		if (a.k == T_MAT && op->nargs == 2) {
			for (i = 0; i < a.m; i++)
				r[i] = cv(c, op->args[0])[i0 * a.m + i];
			return cconst(c->m, f, rt, r);
		}
		if (a.k == T_MAT) {
			if (i1 < 0)
				i1 += a.m;
			if (i1 < 0 || i1 >= a.m)
				return 0;
			return cscalar(c->m, f, rt, cv(c, op->args[0])[i0 * a.m + i1]);
		}
		return cscalar(c->m, f, rt, cv(c, op->args[0])[i0]);
	}
	default:
		break;
	}
	if (op->nargs == 0) /* block_dim: a launch's value, not a constant */
		return 0;
	/* elementwise and broadcasting arithmetic */
	if (rt.k == T_SCALAR || ((oi->flags & F_EW) || op->code == OP_MUL || op->code == OP_DIV ||
	                         op->code == OP_EQ || op->code == OP_NE)) {
		Type a = vty(f, op->args[0]);
		Type b = op->nargs > 1 ? vty(f, op->args[1]) : a;
		int s = a.s;
		int na = ncomp(a), nb = ncomp(b), nr = ncomp(rt);
		Scal x[3];
		if (op->code == OP_MUL || op->code == OP_DIV) {
			/* only composite (op) scalar forms are elementwise */
			if (iscomposite(a) && iscomposite(b))
				return 0;
			if (a.k == T_XFORM || b.k == T_XFORM)
				return 0;
		}
		if (op->code == OP_EQ || op->code == OP_NE) {
			bool all = true;
			if (na != nb)
				return 0;
			for (i = 0; i < na; i++) {
				x[0] = cv(c, op->args[0])[i];
				x[1] = cv(c, op->args[1])[i];
				if (!scalar(OP_EQ, s, x, 2, &r[0]))
					return 0;
				all = all && r[0].i;
			}
			return cbool(c->m, f, op->code == OP_EQ ? all : !all);
		}
		if (op->nargs > 2)
			return 0;
		if (op->code == OP_MIN || op->code == OP_MAX) {
			if (op->nargs != 2)
				return 0;
		}
		for (i = 0; i < nr; i++) {
			x[0] = cv(c, op->args[0])[na == 1 ? 0 : i];
			if (op->nargs > 1)
				x[1] = cv(c, op->args[1])[nb == 1 ? 0 : i];
			if (!scalar(op->code, s, x, op->nargs, &r[i]))
				return 0;
		}
		return cconst(c->m, f, rt, r);
	}
	return 0;
}

static void foldregion(F *c, Region *r);

static void
substargs(F *c, Op *op)
{
	int i;

	for (i = 0; i < op->nargs; i++)
		op->args[i] = sub(c, op->args[i]);
}

static void
foldregion(F *c, Region *r)
{
	Region out = {0};
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		Val v;

		substargs(c, op);
		if (op->code == OP_IF && isconst(c->f, op->args[0])) {
			Region *taken = &op->regs[cv(c, op->args[0])[0].u ? 0 : 1];
			Op *term;
			foldregion(c, taken);
			term = taken->ops[taken->n - 1];
			if (term->code == OP_YIELD) {
				for (j = 0; j + 1 < (int)taken->n; j++)
					regpush(c->m, &out, taken->ops[j]);
				for (j = 0; j < op->nres; j++)
					c->repl[op->res[j]] = sub(c, term->args[j]);
				c->changed++;
				continue;
			}
			/* the taken side leaves by break/continue/ret: keep the if */
			for (j = 0; j < op->nregs; j++)
				if (&op->regs[j] != taken)
					foldregion(c, &op->regs[j]);
			regpush(c->m, &out, op);
			continue;
		}
		for (j = 0; j < op->nregs; j++)
			foldregion(c, &op->regs[j]);
		if ((v = tryfold(c, op))) {
			c->repl[op->res[0]] = v;
			c->changed++;
			continue;
		}
		regpush(c->m, &out, op);
	}
	*r = out;
}

int
fold(Module *m, PassOpts *o)
{
	uint32_t i;

	(void)o;
	for (i = 0; i < m->nfuncs; i++) {
		F c = {0};
		c.m = m;
		c.f = m->funcs[i];
		/* only results of ops that exist now are ever replaced; constants
		 * interned while folding get higher numbers and map to themselves */
		c.nrepl = c.f->nvals;
		c.repl = xcalloc(c.nrepl + 1, sizeof(Val));
		foldregion(&c, &c.f->body);
		free(c.repl);
	}
	return 0;
}
