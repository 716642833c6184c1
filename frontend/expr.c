/*
 * expr.c — expressions: names, constants and the dispatcher over the
 * kinds of expression; operators and comparisons are in ops.c, subscripts
 * and attributes in subscript.c, stores to them in store.c.
 *
 * Typing is typeop()'s (ir/typing.c): kpyc never converts implicitly,
 * like Warp, with Warp's exceptions: comparisons are C++ comparisons in
 * Warp, so mixed scalar operands are converted with C's usual arithmetic
 * conversions (a cast op is emitted); constant conditions fold; unary
 * minus on a constant is a constant.  `and`/`or` and `x if c else y`
 * become the and/or/where ops when their operands have no effect, else
 * an `if` so that they short-circuit.
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

/* ---- names ---------------------------------------------------------- */

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

static X
namex(Ctx *c, Node *e)
{
	Bind *b = envfind(&c->env, e->s);
	const Global *g;
	X x;

	if (b) {
		if (b->poison)
			return xnone();
		if (b->fn && b->fn->kind == G_VTUPLE) {
			X t = xnone();
			t.k = X_TUPLE;
			t.elts = b->fn->xt;
			t.n = b->fn->n;
			return t;
		}
		if (b->fn)
			return xg(*b->fn, e->loc);
		if (b->ghost) {
			serr(c, e->loc, "'%s' has no value here (kpyc lost track of it: please report)", e->s);
			return xnone();
		}
		if (b->zinit) {
			serr(c, e->loc, "Referencing undefined symbol: %s (it is first assigned later in the loop)", e->s);
			return xnone();
		}
		x = xval(b->v);
		x.wconst = b->wconst;
		x.lit = b->lit;
		x.hasrange = b->hasrange;
		x.lo = b->lo;
		x.hi = b->hi;
		x.name = b->name;
		x.loc = e->loc;
		return x;
	}
	if (c->fd->closure) {
		bool isc;
		GVal cv = closureval(c->k, c->file, c->fd->closure, e->s, &isc);
		if (isc && cv.kind != G_NONE)
			return gvalx(c, cv, e->loc, e->s);
		if (isc) {
			serr(c, e->loc, "'%s' is a name of the function this kernel is nested in (Warp reads it from "
			     "there); kpyc reads only the ones it binds once to a constant expression", e->s);
			return xnone();
		}
	}
	if ((g = gfind(c->file, e->s)))
		return gvalx(c, g->v, e->loc, e->s);
	{
		static const char *const py[] = {"float", "int", "bool", "range", "len", "abs", "min", "max",
		                                 "round", "pow", "print", "reversed", "isinstance", "sum", "list",
		                                 "tuple", "type"};
		size_t i;
		for (i = 0; i < countof(py); i++)
			if (strcmp(py[i], e->s) == 0) {
				GVal gv;
				memset(&gv, 0, sizeof gv);
				gv.kind = G_PYNAME;
				gv.s = aprintf(c->k->a, "builtins.%s", e->s);
				return xg(gv, e->loc);
			}
	}
	if (c->callee) {
		/* a call of a name the module does not bind: Warp looks it up in
		 * the warp module (sin(x), vec3(...), expect_eq(...) with no
		 * import), then in Python's builtins */
		GVal v = wpname(c->k, e->s);
		c->callee = false;
		if (v.kind != G_WPNAME || iswarpname(e->s))
			return xg(v, e->loc);
	}
	if (!c->syntaxerr)
		serr(c, e->loc, "Referencing undefined symbol: %s", e->s);
	return xnone();
}

/* ---- the dispatcher ------------------------------------------------- */

X
expr(Ctx *c, Node *e)
{
	X x;
	uint32_t i;

	c->b.loc = e->loc;
	switch (e->kind) {
	case E_INT:
		if (e->big || e->u > (uint64_t)INT64_MAX) {
			serr(c, e->loc, "integer literal too large");
			return xnone();
		}
		x = xval(cint(c->m, c->f, S_I32, (int64_t)e->u));
		x.wconst = true;
		x.lit = (Lit){true, true, (int64_t)e->u, (double)(int64_t)e->u};
		return x;
	case E_FLOAT:
		x = xval(cfloat(c->m, c->f, S_F32, e->f));
		x.wconst = true;
		x.lit = (Lit){true, false, 0, e->f};
		return x;
	case E_BOOL:
		x = xval(cbool(c->m, c->f, e->u != 0));
		x.wconst = true;
		x.lit = (Lit){true, true, (int64_t)e->u, (double)e->u};
		return x;
	case E_STR:
		if (e->op == 'b') {
			serr(c, e->loc, "bytes literals are not supported in kernels");
			return xnone();
		}
		x = xval(cstr(c->m, c->f, e->s));
		x.wconst = true;
		return x;
	case E_NONE:
		serr(c, e->loc, "None type unsupported");
		return xnone();
	case E_ELLIPSIS:
		serr(c, e->loc, "`...` is not a value in a kernel");
		return xnone();
	case E_NAME:
		return namex(c, e);
	case E_ATTR:
		return attribute(c, e);
	case E_SUBSCRIPT:
		return subscript(c, e);
	case E_CALL:
		return call(c, e, 0, true);
	case E_BINOP: {
		X a = expr(c, e->a), b = expr(c, e->b);
		return binop(c, e->op, a, b, e->loc, e->oploc);
	}
	case E_UNARY:
		return unary(c, e);
	case E_BOOLOP:
		return boolop(c, e);
	case E_COMPARE:
		return compare(c, e);
	case E_IFEXP:
		return ifexp(c, e);
	case E_TUPLE:
		x = xnone();
		x.k = X_TUPLE;
		x.n = (int)e->l1.n;
		x.elts = aalloc(c->tmp, (e->l1.n + 1) * sizeof *x.elts);
		for (i = 0; i < e->l1.n; i++) {
			if (e->l1.v[i]->kind == E_STARRED) {
				serr(c, e->l1.v[i]->loc, "starred expressions are only supported in calls");
				return xnone();
			}
			x.elts[i] = expr(c, e->l1.v[i]);
			if (x.elts[i].k == X_NONE)
				return xnone();
			if (x.elts[i].k == X_VAL && e->l1.v[i]->kind == E_NAME)
				x.elts[i].wconst = false;
		}
		return x;
	case E_LIST:
		serr(c, e->loc, "List constructs are not supported in kernels. Use vectors like `wp.vec3()` for small "
		     "fixed-size collections, or `wp.zeros(shape=N, dtype=...)` for stack-allocated arrays.");
		return xnone();
	case E_STARRED:
		serr(c, e->loc, "Starred expressions are only supported in calls (wp.vec4(*v, 1.0))");
		return xnone();
	case E_SLICE:
		serr(c, e->loc, "a slice is only valid as an index");
		return xnone();
	case E_UNSUP:
		if (strncmp(e->s, "ast.", 4) == 0)
			serr(c, e->loc, "Construct `%s` not supported in kernels.", e->s);
		else
			serr(c, e->loc, "%s are not supported in kernels", e->s);
		return xnone();
	case E_KEYWORD:
		serr(c, e->loc, "keyword argument outside a call");
		return xnone();
	default:
		serr(c, e->loc, "unsupported expression");
		return xnone();
	}
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
