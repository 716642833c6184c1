/*
 * expr.c — expressions: names, constants and the dispatcher over the
 * kinds of expression; the values and ops they make are in value.c,
 * operators and comparisons in ops.c, subscripts and attributes in
 * subscript.c, stores to them in store.c.
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

/* ---- names ---------------------------------------------------------- */

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
