/*
 * value.c — the values of expressions and the ops they emit: X values,
 * emitting a typed op (typeop() decides, its error located), casts, zero
 * values and the truth of a condition.  It calls no other file of the
 * expression compiler: every one of them builds on it.
 */
#include <string.h>

#include "ast.h"

X
xnone(void)
{
	X x;
	memset(&x, 0, sizeof x);
	return x;
}

X
xval(Val v)
{
	X x = xnone();
	x.k = X_VAL;
	x.v = v;
	return x;
}

X
xg(GVal g, Loc loc)
{
	X x = xnone();
	x.k = X_G;
	x.g = g;
	x.loc = loc;
	return x;
}

const char *
opsym(int op)
{
	static const char *const s[NBINOP] = {"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"};
	return op >= 0 && op < NBINOP ? s[op] : "?";
}

const char *
gdesc(const GVal *g)
{
	switch (g->kind) {
	case G_TYPE: return "a type";
	case G_FUNC: return "a function";
	case G_KERNEL: return "a kernel";
	case G_WARP: return "a module";
	case G_MODULE: return "a module";
	case G_WPNAME: return "a Warp builtin";
	case G_PYNAME: return "a Python object";
	case G_VTUPLE: return "a tuple";
	case G_SLICE: return g->n ? "an array slice's shape" : "an array slice (kpyc indexes it and reads its shape and ndim, but does not pass, return or store it)";
	case G_ENUM: return g->n == 2 ? "a namespace" : g->n ? "a class" : "an enum class";
	default: return "not a value";
	}
}

Val
xvalue(Ctx *c, X x, Loc loc)
{
	if (x.k == X_VAL)
		return x.v;
	if (x.k == X_TUPLE && x.n == 0)
		serr(c, loc, "the call returns no value");
	else if (x.k == X_TUPLE)
		serr(c, loc, "a tuple is not a value here");
	else if (x.k == X_SHAPE)
		serr(c, loc, "an array's shape is not a value; index it (a.shape[0])");
	else if (x.k == X_G)
		serr(c, loc, "this is %s, not a value", gdesc(&x.g));
	return 0;
}

/* The reason part of a typeop message ("add(f32, i32): reason"). */
static const char *
reason(const char *msg)
{
	const char *p = msg ? strstr(msg, "): ") : NULL;
	return p ? p + 3 : msg ? msg : "type error";
}

Op *
emitop(Ctx *c, int code, const Val *args, int n, int attr, Type declared, Loc loc, const char *what)
{
	Type in[256], out[8];
	Buf e = {0};
	int i, nr;
	Op *op;

	for (i = 0; i < n; i++) {
		if (!args[i])
			return NULL;
		in[i] = vty(c->f, args[i]);
	}
	out[0] = declared;
	nr = typeop(c->m, code, in, n, attr, out, &e);
	if (nr < 0) {
		if (what) {
			Buf t = {0};
			for (i = 0; i < n; i++)
				bufprintf(&t, "%s%s", i ? ", " : "", wptypename(c->m, in[i]));
			serr(c, c->errloc.line ? c->errloc : loc, "%s: %s (argument types: %s)", what, reason(e.s), t.s ? t.s : "");
			buffree(&t);
		}
		buffree(&e);
		return NULL;
	}
	buffree(&e);
	if ((opinfo[code].flags & F_CAST) && nr == 1)
		out[0] = declared;
	op = mkop(c->m, c->f, code, args, n, out, nr, loc);
	op->attr = attr;
	regpush(c->m, c->b.r, op);
	return op;
}

Val
emit1(Ctx *c, int code, const Val *args, int n, Loc loc, const char *what)
{
	Op *op = emitop(c, code, args, n, 0, tvoid(), loc, what);

	if (!op || op->nres != 1)
		return 0;
	return op->res[0];
}

Val
emitcast(Ctx *c, Val v, Type t, Loc loc)
{
	Op *op;

	if (typeeq(vty(c->f, v), t))
		return v;
	if (isconst(c->f, v) && t.k == T_SCALAR && vty(c->f, v).k == T_SCALAR) {
		Scal s = val(c->f, v)->c[0];
		int from = vty(c->f, v).s;
		Scal r;
		if (scalarisfloat(from) && t.s == S_BOOL)
			r.i = s.f != 0;
		else if (scalarisfloat(from) && !scalarisfloat(t.s))
			r.i = s.f != s.f ? 0 : s.f >= 9.2e18 ? INT64_MAX : s.f <= -9.2e18 ? INT64_MIN : (int64_t)s.f;
		else if (!scalarisfloat(from) && scalarisfloat(t.s))
			r.f = from >= S_U8 && from <= S_U64 ? (double)s.u : (double)s.i;
		else
			r = s;
		return cscalar(c->m, c->f, t, r);
	}
	op = emitop(c, OP_CAST, &v, 1, 0, t, loc, "conversion");
	return op ? op->res[0] : 0;
}

Val
zeroval(Ctx *c, Type t, Loc loc)
{
	Op *op;

	if (t.k == T_SCALAR || iscomposite(t))
		return czero(c->m, c->f, t);
	if (t.k != T_STRUCT)
		return 0;
	op = mkop(c->m, c->f, OP_ZERO, NULL, 0, &t, 1, loc);
	regpush(c->m, c->b.r, op);
	return op->res[0];
}

/* An array as a condition (`if a:`, `a and ...`, `not a`): Warp's C++
 * converts array_t to its data pointer (array.h `operator T*`), so an
 * array is true when it has storage; where(a, true, false) is that
 * (kpy's where takes an array condition as Warp's does). */
Val
arraytruth(Ctx *c, Val v, Loc loc)
{
	Val a[3] = {v, cbool(c->m, c->f, true), cbool(c->m, c->f, false)};

	return emit1(c, OP_WHERE, a, 3, loc, "condition");
}

Val
condval(Ctx *c, X x, Loc loc)
{
	Val v = xvalue(c, x, loc), a[2];
	Type t;

	if (!v)
		return 0;
	t = vty(c->f, v);
	if (isbool(t))
		return v;
	if (t.k == T_SCALAR) {
		a[0] = v;
		a[1] = czero(c->m, c->f, t);
		return emit1(c, OP_NE, a, 2, loc, "condition");
	}
	if (t.k == T_ARRAY)
		return arraytruth(c, v, loc);
	serr(c, loc, "a condition must be a bool or a number, not %s", wptypename(c->m, t));
	return 0;
}

bool
regionpure(const Region *r)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		if (!(opinfo[r->ops[i]->code].flags & F_PURE))
			return false;
	return true;
}

X
gvalx(Ctx *c, GVal g, Loc loc, const char *name)
{
	X x;

	switch (g.kind) {
	case G_CONST:
		x = xval(cconst(c->m, c->f, g.spec.ty, g.c));
		x.wconst = true;
		x.lit = g.lit;
		return x;
	case G_STR:
		x = xval(cstr(c->m, c->f, g.s));
		x.wconst = true;
		return x;
	case G_HOST:
		serr(c, loc, "'%s' is not a Warp constant, function or type (kpyc does not evaluate host code)", name);
		return xnone();
	case G_NONE:
		serr(c, loc, "'%s' cannot be used in a kernel", name);
		return xnone();
	default:
		return xg(g, loc);
	}
}
