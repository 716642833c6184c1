/*
 * expr.c — expressions: names, constants, operators, comparisons,
 * subscripts, attributes, and stores to subscripts and attributes.
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

static X
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

static const char *
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
static Val
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

static X
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

/* ---- operators ------------------------------------------------------ */

static int
binopcode(int op)
{
	switch (op) {
	case B_ADD: return OP_ADD;
	case B_SUB: return OP_SUB;
	case B_MUL: return OP_MUL;
	case B_MATMUL: return OP_MUL;
	case B_DIV: return OP_DIV;
	case B_FLOORDIV: return OP_FLOORDIV;
	case B_MOD: return OP_MOD;
	case B_POW: return OP_POW;
	case B_LSHIFT: return OP_LSHIFT;
	case B_RSHIFT: return OP_RSHIFT;
	case B_BITAND: return OP_BIT_AND;
	case B_BITOR: return OP_BIT_OR;
	case B_BITXOR: return OP_BIT_XOR;
	}
	return OP_ADD;
}

X
binop(Ctx *c, int op, X a, X b, Loc loc, Loc oploc)
{
	Val args[2];
	Val r;
	char what[64];

	if (a.k == X_NONE || b.k == X_NONE)
		return xnone();
	if (!(args[0] = xvalue(c, a, loc)) || !(args[1] = xvalue(c, b, loc)))
		return xnone();
	snprintf(what, sizeof what, "invalid operand types for '%s'", opsym(op));
	c->errloc = oploc;
	r = emit1(c, binopcode(op), args, 2, loc, what);
	c->errloc = (Loc){0};
	return r ? xval(r) : xnone();
}

/* C's usual arithmetic conversions for a comparison of scalars a and b. */
static int
commonscalar(int a, int b)
{
	static const int rank[NSCALAR] = {0, 1, 2, 3, 4, 1, 2, 3, 4, 0, 0, 0};
	bool sa, sb;

	if (scalarisfloat(a) || scalarisfloat(b)) {
		if (a == S_F64 || b == S_F64)
			return S_F64;
		if (a == S_F16 && b == S_F16)
			return S_F16;
		return S_F32;
	}
	/* integer promotions */
	if (a == S_BOOL || rank[a] < 3)
		a = S_I32;
	if (b == S_BOOL || rank[b] < 3)
		b = S_I32;
	if (a == b)
		return a;
	sa = scalarissigned(a);
	sb = scalarissigned(b);
	if (sa == sb)
		return rank[a] >= rank[b] ? a : b;
	if (!sa && rank[a] >= rank[b])
		return a;
	if (!sb && rank[b] >= rank[a])
		return b;
	/* the signed type is wider and holds every value of the unsigned one */
	return sa ? a : b;
}

static Val
cmpop(Ctx *c, int op, Val a, Val b, Loc loc)
{
	static const int code[] = {OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE};
	Type ta = vty(c->f, a), tb = vty(c->f, b);
	Val args[2];

	if (!typeeq(ta, tb) && ta.k == T_SCALAR && tb.k == T_SCALAR) {
		Type t = tscalar(commonscalar(ta.s, tb.s));
		a = emitcast(c, a, t, loc);
		b = emitcast(c, b, t, loc);
		if (!a || !b)
			return 0;
	}
	args[0] = a;
	args[1] = b;
	return emit1(c, code[op], args, 2, loc, "invalid comparison");
}

static X
compare(Ctx *c, Node *e)
{
	uint32_t n = e->l1.n, i;
	X *xs = aalloc(c->tmp, (n + 1) * sizeof *xs);
	Val *vs = aalloc(c->tmp, (n + 1) * sizeof *vs), acc = 0;

	for (i = 0; i < n; i++)
		if (e->cmpops[i] >= C_IN) {
			static const char *const nm[] = {"in", "not in", "is", "is not"};
			serr(c, e->oploc, "`%s` comparisons are not supported in kernels", nm[e->cmpops[i] - C_IN]);
			return xnone();
		}
	/* Warp evaluates every operand first */
	xs[0] = expr(c, e->a);
	for (i = 0; i < n; i++)
		xs[i + 1] = expr(c, e->l1.v[i]);
	for (i = 0; i <= n; i++) {
		if (xs[i].k == X_NONE)
			return xnone();
		if (!(vs[i] = xvalue(c, xs[i], i ? e->l1.v[i - 1]->loc : e->a->loc)))
			return xnone();
	}
	for (i = 0; i < n; i++) {
		Val r;
		if (i > 0 && !typeeq(vty(c->f, vs[i]), vty(c->f, vs[i + 1]))) {
			static const char *const sym[] = {"<", "<=", ">", ">=", "==", "!="};
			serr(c, e->l1.v[i]->loc, "Cannot chain comparisons of unequal types: %s %s %s.",
			     wptypename(c->m, vty(c->f, vs[i])), sym[e->cmpops[i]], wptypename(c->m, vty(c->f, vs[i + 1])));
			return xnone();
		}
		if (!(r = cmpop(c, e->cmpops[i], vs[i], vs[i + 1], e->loc)))
			return xnone();
		if (acc) {
			Val a2[2] = {acc, r};
			acc = emit1(c, OP_AND, a2, 2, e->loc, "comparison");
		} else {
			acc = r;
		}
	}
	return xval(acc);
}

/* Compile e into a fresh region; report whether it had no effect. */
static X
sideregion(Ctx *c, Node *e, Region *r, bool *pure, Env *after)
{
	Region *keep = c->b.r;
	Env pre = envcopy(c, &c->env);
	X x;
	uint32_t i;

	c->b.r = r;
	x = expr(c, e);
	c->b.r = keep;
	*pure = regionpure(r);
	for (i = 0; i < c->env.n; i++)
		if (!envfind(&pre, c->env.v[i].name) || envfind(&pre, c->env.v[i].name)->v != c->env.v[i].v)
			*pure = false;
	*after = c->env;
	c->env = pre;
	return x;
}

static void
splice(Ctx *c, Region *r)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		regpush(c->m, c->b.r, r->ops[i]);
}

/* Variables a side region rebound (random states): merged like an if. */
static int
sidechanges(Ctx *c, const Env *after, const char ***names)
{
	uint32_t i;
	int n = 0;

	*names = aalloc(c->tmp, (after->n + 1) * sizeof **names);
	for (i = 0; i < after->n; i++) {
		Bind *o = envfind(&c->env, after->v[i].name);
		if (after->v[i].poison || (o && o->v == after->v[i].v))
			continue;
		if (!o)
			continue; /* first bound inside an expression: not visible after */
		(*names)[n++] = after->v[i].name;
	}
	return n;
}

static X
boolop(Ctx *c, Node *e)
{
	bool isand = e->op == BO_AND;
	X x = expr(c, e->l1.v[0]);
	Val acc;
	uint32_t i;

	if (x.k == X_NONE)
		return xnone();
	if (!(acc = condval(c, x, e->l1.v[0]->loc)))
		return xnone();
	for (i = 1; i < e->l1.n; i++) {
		Region r = {0}, other = {0};
		bool pure;
		Env after;
		X y = sideregion(c, e->l1.v[i], &r, &pure, &after);
		Val yv;
		if (y.k == X_NONE)
			return xnone();
		{
			Region *keep = c->b.r;
			Env save = c->env;
			c->b.r = &r;
			c->env = after;
			yv = condval(c, y, e->l1.v[i]->loc);
			c->b.r = keep;
			c->env = save;
		}
		if (!yv)
			return xnone();
		pure = pure && regionpure(&r);
		if (pure) {
			Val a2[2] = {acc, yv};
			splice(c, &r);
			acc = emit1(c, isand ? OP_AND : OP_OR, a2, 2, e->loc, "boolean operator");
			if (!acc)
				return xnone();
			continue;
		}
		{
			/* short-circuit: if acc { rhs } else { false } (and), if acc { true } else { rhs } (or) */
			const char **nm;
			int nn = sidechanges(c, &after, &nm), j;
			Type *tys = aalloc(c->tmp, (size_t)(nn + 1) * sizeof *tys);
			Val *yr = aalloc(c->tmp, (size_t)(nn + 1) * sizeof *yr), *yo = aalloc(c->tmp, (size_t)(nn + 1) * sizeof *yo);
			Op *op;
			tys[0] = tscalar(S_BOOL);
			yr[0] = yv;
			yo[0] = cbool(c->m, c->f, !isand);
			for (j = 0; j < nn; j++) {
				Bind *nb = envfind(&after, nm[j]), *ob = envfind(&c->env, nm[j]);
				tys[j + 1] = vty(c->f, nb->v);
				yr[j + 1] = nb->v;
				yo[j + 1] = ob->v;
			}
			regpush(c->m, &r, mkop(c->m, c->f, OP_YIELD, yr, nn + 1, NULL, 0, e->loc));
			regpush(c->m, &other, mkop(c->m, c->f, OP_YIELD, yo, nn + 1, NULL, 0, e->loc));
			op = mkop(c->m, c->f, OP_IF, &acc, 1, tys, nn + 1, e->loc);
			opsetregions(c->m, op, 2);
			op->regs[isand ? 0 : 1] = r;
			op->regs[isand ? 1 : 0] = other;
			regpush(c->m, c->b.r, op);
			acc = op->res[0];
			for (j = 0; j < nn; j++) {
				Bind b = *envfind(&after, nm[j]);
				b.v = op->res[j + 1];
				b.wconst = false;
				nameval(c, b.v, b.name);
				envset(c, b);
			}
		}
	}
	return xval(acc);
}

static X
ifexp(Ctx *c, Node *e)
{
	X cx = expr(c, e->b), a, b;
	Region ra = {0}, rb = {0};
	bool pa, pb;
	Env ea, eb;
	Val av, bv, cv;

	if (cx.k == X_NONE)
		return xnone();
	if (cx.k == X_VAL && cx.wconst && !cx.hasrange && isconst(c->f, cx.v) && vty(c->f, cx.v).k == T_SCALAR) {
		const Value *v = val(c->f, cx.v);
		bool t = scalarisfloat(v->ty.s) ? v->c[0].f != 0 : v->c[0].u != 0;
		return expr(c, t ? e->a : e->c);
	}
	if (!(cv = xvalue(c, cx, e->b->loc)))
		return xnone();
	a = sideregion(c, e->a, &ra, &pa, &ea);
	b = sideregion(c, e->c, &rb, &pb, &eb);
	if (a.k == X_NONE || b.k == X_NONE)
		return xnone();
	if (!(av = xvalue(c, a, e->a->loc)) || !(bv = xvalue(c, b, e->c->loc)))
		return xnone();
	if (!typeeq(vty(c->f, av), vty(c->f, bv))) {
		serr(c, e->loc, "where() true value type (%s) must be of the same type as the false type (%s)",
		     wptypename(c->m, vty(c->f, av)), wptypename(c->m, vty(c->f, bv)));
		return xnone();
	}
	if (pa && pb) {
		Val args[3] = {cv, av, bv};
		Val r;
		splice(c, &ra);
		splice(c, &rb);
		r = emit1(c, OP_WHERE, args, 3, e->loc, "conditional expression");
		return r ? xval(r) : xnone();
	}
	{
		Type t = vty(c->f, av);
		Op *op;
		Val cb;
		const char **na, **nb;
		int nna, nnb;
		if (!isbool(vty(c->f, cv))) {
			Type ct = vty(c->f, cv);
			if (!isint(ct)) {
				serr(c, e->b->loc, "where(): the condition must be a bool or an integer, not %s", wptypename(c->m, ct));
				return xnone();
			}
			cb = condval(c, xval(cv), e->b->loc);
		} else {
			cb = cv;
		}
		nna = sidechanges(c, &ea, &na);
		nnb = sidechanges(c, &eb, &nb);
		{
			/* variables a branch rebinds (random states): results of the if */
			const char **nm = aalloc(c->tmp, (size_t)(nna + nnb + 1) * sizeof *nm);
			Type *tys = aalloc(c->tmp, (size_t)(nna + nnb + 2) * sizeof *tys);
			Val *ya = aalloc(c->tmp, (size_t)(nna + nnb + 2) * sizeof *ya);
			Val *yb = aalloc(c->tmp, (size_t)(nna + nnb + 2) * sizeof *yb);
			int n = 0, j, q;
			for (j = 0; j < nna; j++)
				nm[n++] = na[j];
			for (j = 0; j < nnb; j++) {
				for (q = 0; q < nna; q++)
					if (strcmp(na[q], nb[j]) == 0)
						break;
				if (q == nna)
					nm[n++] = nb[j];
			}
			tys[0] = t;
			ya[0] = av;
			yb[0] = bv;
			for (j = 0; j < n; j++) {
				Bind *pa = envfind(&ea, nm[j]), *pb = envfind(&eb, nm[j]), *pp = envfind(&c->env, nm[j]);
				ya[j + 1] = pa && !pa->poison ? pa->v : pp->v;
				yb[j + 1] = pb && !pb->poison ? pb->v : pp->v;
				tys[j + 1] = vty(c->f, pp->v);
			}
			regpush(c->m, &ra, mkop(c->m, c->f, OP_YIELD, ya, n + 1, NULL, 0, e->loc));
			regpush(c->m, &rb, mkop(c->m, c->f, OP_YIELD, yb, n + 1, NULL, 0, e->loc));
			op = mkop(c->m, c->f, OP_IF, &cb, 1, tys, n + 1, e->loc);
			opsetregions(c->m, op, 2);
			op->regs[0] = ra;
			op->regs[1] = rb;
			regpush(c->m, c->b.r, op);
			for (j = 0; j < n; j++) {
				Bind b = *envfind(&c->env, nm[j]);
				b.v = op->res[j + 1];
				b.wconst = false;
				nameval(c, b.v, b.name);
				envset(c, b);
			}
			return xval(op->res[0]);
		}
	}
}

static X
unary(Ctx *c, Node *e)
{
	X a = expr(c, e->a);
	Val v;
	static const int code[] = {OP_NEG, OP_POS, OP_UNOT, OP_INVERT};
	static const char *const sym[] = {"-", "+", "not", "~"};
	char what[64];

	if (a.k == X_NONE)
		return xnone();
	if (!(v = xvalue(c, a, e->loc)))
		return xnone();
	if (e->op == U_NEG && a.wconst && !a.hasrange && isconst(c->f, v) && vty(c->f, v).k == T_SCALAR &&
	    vty(c->f, v).s != S_BOOL) {
		/* Warp folds unary minus on a constant */
		Type t = vty(c->f, v);
		Scal s = val(c->f, v)->c[0];
		X r;
		if (scalarisfloat(t.s))
			s.f = -s.f;
		else
			s.i = (int64_t)(0 - s.u);
		r = xval(cscalar(c->m, c->f, t, s));
		r.wconst = true;
		r.lit = a.lit;
		if (r.lit.ok) {
			r.lit.i = (int64_t)(0 - (uint64_t)r.lit.i);
			r.lit.f = -r.lit.f;
		}
		return r;
	}
	/* not a: Warp's unot(a: array) is !a.data */
	if (e->op == U_NOT && vty(c->f, v).k == T_ARRAY && !(v = arraytruth(c, v, e->loc)))
		return xnone();
	snprintf(what, sizeof what, "invalid operand type for unary '%s'", sym[e->op]);
	v = emit1(c, code[e->op], &v, 1, e->loc, what);
	return v ? xval(v) : xnone();
}


/* t[i] of a tuple (Warp's extract(a: tuple, i: int32)): a constant i
 * in [0, len) picks the element; an index known only at run
 * time (an unrolled loop's, range(len(t))) selects among elements of one
 * type, as Warp's unrolled copies each pick one. */
static X
tupleindex(Ctx *c, Node *e, X t)
{
	Node *ix = e->l1.v[0];
	X i;
	Val v, r;
	int k;

	if (e->l1.n != 1 || e->tcomma || ix->kind == E_SLICE) {
		serr(c, e->loc, "a tuple takes one integer index");
		return xnone();
	}
	i = expr(c, ix);
	if (i.k == X_NONE)
		return xnone();
	if (!(v = xvalue(c, i, ix->loc)))
		return xnone();
	if (!isint(vty(c->f, v))) {
		serr(c, ix->loc, "indices must be integers, not %s", wptypename(c->m, vty(c->f, v)));
		return xnone();
	}
	if (isconst(c->f, v)) {
		int64_t n = val(c->f, v)->c[0].i;
		if (n < 0 || n >= t.n) { /* Warp's extract<-1> does not compile either */
			serr(c, ix->loc, "tuple index %lld out of range (the tuple has %d elements; Warp counts no "
			     "index from the end)", (long long)n, t.n);
			return xnone();
		}
		return t.elts[n];
	}
	for (k = 0; k < t.n; k++)
		if (t.elts[k].k != X_VAL || !typeeq(vty(c->f, t.elts[k].v), vty(c->f, t.elts[0].v))) {
			serr(c, ix->loc, "kpyc indexes a tuple of elements of different types only with a constant");
			return xnone();
		}
	/* where(i == k, t[k], ...), the last element otherwise */
	r = t.elts[t.n - 1].v;
	for (k = t.n - 2; k >= 0 && r; k--) {
		Val a[3], eq[2] = {v, cint(c->m, c->f, vty(c->f, v).s, k)};
		if (!(a[0] = emit1(c, OP_EQ, eq, 2, ix->loc, "tuple index")))
			return xnone();
		a[1] = t.elts[k].v;
		a[2] = r;
		r = emit1(c, OP_WHERE, a, 3, e->loc, "tuple index");
	}
	return r ? xval(r) : xnone();
}

/* ---- subscripts and attributes -------------------------------------- */

/* An integer index value. */
static Val
indexval(Ctx *c, Node *n)
{
	X x;
	Val v;

	if (n->kind == E_SLICE) {
		serr(c, n->loc, "slices are not supported here");
		return 0;
	}
	if (n->kind == E_STARRED) {
		serr(c, n->loc, "starred indices are not supported");
		return 0;
	}
	x = expr(c, n);
	if (x.k == X_NONE)
		return 0;
	if (!(v = xvalue(c, x, n->loc)))
		return 0;
	if (!isint(vty(c->f, v))) {
		serr(c, n->loc, "indices must be integers, not %s", wptypename(c->m, vty(c->f, v)));
		return 0;
	}
	return v;
}

/* A component index into a composite of n components: constant negative
 * indices count from the end, as in Python and Warp. */
static Val
compindex(Ctx *c, Val i, int n, Loc loc)
{
	const Value *v = val(c->f, i);

	if (isconst(c->f, i)) {
		int64_t k = scalarissigned(v->ty.s) ? v->c[0].i : (int64_t)v->c[0].u;
		if (k < -n || k >= n) {
			serr(c, loc, "index %lld is out of range for %d components", (long long)k, n);
			return 0;
		}
		if (k < 0)
			return cint(c->m, c->f, S_I32, k + n);
	}
	return i;
}

/* A subscript not yet turned into a value: a sub-array (fewer indices
 * than dimensions, so a[i][j] is one load) or a matrix row (so m[i][j]
 * is one extract). */
typedef struct Pend {
	Val arr;             /* array with n indices so far */
	Val idx[MAXDIM];
	int n;
	Val mat, row;        /* row `row` of matrix `mat` */
} Pend;

static Val
materialize(Ctx *c, Pend *p, Loc loc)
{
	Val a[MAXDIM + 1];

	if (p->arr) {
		Op *op;
		a[0] = p->arr;
		memcpy(a + 1, p->idx, (size_t)p->n * sizeof *a);
		op = emitop(c, OP_VIEW, a, p->n + 1, 0, tvoid(), loc, "array view");
		return op ? op->res[0] : 0;
	}
	a[0] = p->mat;
	a[1] = p->row;
	return emit1(c, OP_EXTRACT, a, 2, loc, "row");
}

static X
pending(void)
{
	X x = xnone();
	x.k = X_VAL;
	x.v = 0;
	return x;
}

static X
addindices(Ctx *c, Node *e, Pend *p)
{
	int nd = vty(c->f, p->arr).nd;
	uint32_t i;
	Val a[MAXDIM + 1];
	Op *op;

	for (i = 0; i < e->l1.n; i++) {
		Node *ix = e->l1.v[i];
		Val v;
		if (ix->kind == E_SLICE) {
			serr(c, ix->loc, "array slices are not supported by kpyc");
			return xnone();
		}
		if (!(v = indexval(c, ix)))
			return xnone();
		if (p->n >= nd) {
			serr(c, ix->loc, "too many indices for a %d-dimensional array", nd);
			return xnone();
		}
		p->idx[p->n++] = v;
	}
	if (p->n < nd)
		return pending();
	a[0] = p->arr;
	memcpy(a + 1, p->idx, (size_t)p->n * sizeof *a);
	op = emitop(c, OP_LOAD, a, p->n + 1, 0, tvoid(), e->loc, "array index");
	p->arr = 0;
	return op ? xval(op->res[0]) : xnone();
}

/* The components a constant slice ix selects of len, in order, as
 * Python's slice.indices: false (reported) if a bound is not a constant
 * integer, the step is zero or nothing is selected (Warp's zero-length
 * vectors are not compiled). */
static bool
slicebounds(Ctx *c, Node *ix, int len, int *idx, int *n)
{
	int64_t bnd[3] = {0, len, 1};
	Node *pp[3] = {ix->a, ix->b, ix->c};
	int k;

	for (k = 0; k < 3; k++) {
		X bx;
		if (!pp[k])
			continue;
		bx = expr(c, pp[k]);
		if (bx.k == X_NONE)
			return false;
		if (bx.k != X_VAL || !bx.wconst || bx.hasrange || !isconst(c->f, bx.v) || !isint(vty(c->f, bx.v))) {
			serr(c, pp[k]->loc, "Slice component must be a compile-time constant.");
			return false;
		}
		bnd[k] = val(c->f, bx.v)->c[0].i;
	}
	if (bnd[2] == 0) {
		serr(c, ix->loc, "slice step cannot be zero");
		return false;
	}
	if (!pp[0])
		bnd[0] = bnd[2] < 0 ? len - 1 : 0;
	else if (bnd[0] < 0)
		bnd[0] += len;
	if (!pp[1])
		bnd[1] = bnd[2] < 0 ? -1 : len;
	else if (bnd[1] < 0)
		bnd[1] += len;
	for (k = 0; k < 2; k++) {
		if (bnd[k] < -1)
			bnd[k] = -1;
		if (bnd[k] > len)
			bnd[k] = len;
	}
	*n = 0;
	for (k = (int)bnd[0]; bnd[2] > 0 ? k < bnd[1] : k > bnd[1]; k += (int)bnd[2])
		if (k >= 0 && k < len)
			idx[(*n)++] = k;
	if (*n == 0) {
		serr(c, ix->loc, "the slice is empty");
		return false;
	}
	return true;
}

/* m[a:b], m[a:b, c:d], m[i, a:b], m[a:b, j] with constant bounds and
 * indices: the selected rows and columns, a matrix where both are
 * slices (one row slice alone keeps every column), else a vector. */
static X
matslice(Ctx *c, Node *e, Val base, Type t)
{
	int idx[2][MAXVEC], cnt[2], ax, i, j, n = 0;
	bool sl[2] = {true, true};
	Val *comps = aalloc(c->tmp, (size_t)(t.n * t.m + 1) * sizeof *comps), a[3];
	Op *op;

	for (ax = 0; ax < 2; ax++) {
		int len = ax ? t.m : t.n;
		Node *ix = ax < (int)e->l1.n ? e->l1.v[ax] : NULL;
		if (!ix) {
			for (i = 0; i < len; i++)
				idx[ax][i] = i;
			cnt[ax] = len;
		} else if (ix->kind == E_SLICE) {
			if (!slicebounds(c, ix, len, idx[ax], &cnt[ax]))
				return xnone();
		} else {
			X x = expr(c, ix);
			int64_t v;
			if (x.k == X_NONE)
				return xnone();
			if (x.k != X_VAL || !x.wconst || !isconst(c->f, x.v) || !isint(vty(c->f, x.v))) {
				serr(c, ix->loc, "kpyc slices a matrix with constant indices only");
				return xnone();
			}
			v = val(c->f, x.v)->c[0].i;
			if (v < 0)
				v += len;
			if (v < 0 || v >= len) {
				serr(c, ix->loc, "matrix index %lld is out of range", (long long)val(c->f, x.v)->c[0].i);
				return xnone();
			}
			idx[ax][0] = (int)v;
			cnt[ax] = 1;
			sl[ax] = false;
		}
	}
	for (i = 0; i < cnt[0]; i++)
		for (j = 0; j < cnt[1]; j++) {
			a[0] = base;
			a[1] = cint(c->m, c->f, S_I32, idx[0][i]);
			a[2] = cint(c->m, c->f, S_I32, idx[1][j]);
			if (!(comps[n++] = emit1(c, OP_EXTRACT, a, 3, e->loc, "component")))
				return xnone();
		}
	if (sl[0] && sl[1])
		op = emitop(c, OP_MAT, comps, n, 0, tmat(cnt[0], cnt[1], t.s), e->loc, "slice");
	else
		op = emitop(c, OP_VEC, comps, n, 0, tvec(n, t.s), e->loc, "slice");
	return op ? xval(op->res[0]) : xnone();
}

static X compsub(Ctx *c, Node *e, Val base);


/* ---- array slices ----------------------------------------------------- */

static Val
i32op(Ctx *c, int code, Val a, Val b, Loc loc)
{
	Val args[2];

	if (!a || !b)
		return 0;
	args[0] = a;
	args[1] = b;
	return emit1(c, code, args, 2, loc, "slice");
}

static Val
i32where(Ctx *c, Val cond, Val a, Val b, Loc loc)
{
	Val args[3];

	if (!cond || !a || !b)
		return 0;
	args[0] = cond;
	args[1] = a;
	args[2] = b;
	return emit1(c, OP_WHERE, args, 3, loc, "slice");
}

/* An int32 index or slice bound. */
static Val
sliceint(Ctx *c, Node *n)
{
	Val v = indexval(c, n);

	if (v && vty(c->f, v).s != S_I32) {
		serr(c, n->loc, "array slice bounds and indices must be int32, not %s", wptypename(c->m, vty(c->f, v)));
		return 0;
	}
	return v;
}

/* Warp's slice_adjust_indices and slice_get_length (native/builtin.h)
 * for bounds b[0..2] (NULL: omitted) against a dimension of length len:
 * the first index and the length of the selection, the step in *step. */
static bool
sliceadjust(Ctx *c, Node *ix, Val len, Val *first, Val *n, Val *step)
{
	Node *pp[3] = {ix->a, ix->b, ix->c};
	Val b[3] = {0, 0, 0}, zero = cint(c->m, c->f, S_I32, 0), one = cint(c->m, c->f, S_I32, 1);
	Val neg, pos, ends[2], absstep, d, up, down;
	Loc loc = ix->loc;
	int k;

	for (k = 0; k < 3; k++)
		if (pp[k] && !(b[k] = sliceint(c, pp[k])))
			return false;
	*step = b[2] ? b[2] : one;
	if (isconst(c->f, *step) && val(c->f, *step)->c[0].i == 0) {
		serr(c, pp[2]->loc, "Slice step cannot be zero.");
		return false;
	}
	neg = i32op(c, OP_LT, *step, zero, loc);
	pos = i32op(c, OP_GT, *step, zero, loc);
	for (k = 0; k < 2; k++) {
		if (!b[k]) {
			/* start: step < 0 ? len - 1 : 0; stop: step < 0 ? -1 : len */
			ends[k] = k == 0 ? i32where(c, neg, i32op(c, OP_SUB, len, one, loc), zero, loc)
			                 : i32where(c, neg, cint(c->m, c->f, S_I32, -1), len, loc);
		} else {
			Val t = i32op(c, OP_MIN, i32op(c, OP_MAX, b[k], i32op(c, OP_SUB, zero, len, loc), loc), len, loc);
			ends[k] = i32where(c, i32op(c, OP_LT, t, zero, loc), i32op(c, OP_ADD, t, len, loc), t, loc);
		}
	}
	absstep = i32where(c, neg, i32op(c, OP_SUB, zero, *step, loc), *step, loc);
	d = i32op(c, OP_MAX, absstep, one, loc);
	/* 1 + (stop - start - 1) / step, or 1 + (start - stop - 1) / -step, or 0 */
	up = i32op(c, OP_ADD, one, i32op(c, OP_DIV, i32op(c, OP_SUB, i32op(c, OP_SUB, ends[1], ends[0], loc), one, loc), d,
	                                 loc), loc);
	down = i32op(c, OP_ADD, one, i32op(c, OP_DIV, i32op(c, OP_SUB, i32op(c, OP_SUB, ends[0], ends[1], loc), one, loc),
	                                   d, loc), loc);
	up = i32where(c, i32op(c, OP_AND, pos, i32op(c, OP_LT, ends[0], ends[1], loc), loc), up, zero, loc);
	*n = i32where(c, i32op(c, OP_AND, neg, i32op(c, OP_GT, ends[0], ends[1], loc), loc), down, up, loc);
	*first = ends[0];
	return *n != 0;
}

/* The view of array arr before any index: every dimension whole. */
static ASlice *
wholeview(Ctx *c, Val arr, Loc loc)
{
	ASlice *s = aalloc(c->tmp, sizeof *s);
	int d;

	memset(s, 0, sizeof *s);
	s->base = arr;
	s->nbase = s->nd = vty(c->f, arr).nd;
	for (d = 0; d < s->nd; d++) {
		Op *op = emitop(c, OP_SHAPE, &arr, 1, d, tvoid(), loc, "shape");
		if (!op)
			return NULL;
		s->first[d] = cint(c->m, c->f, S_I32, 0);
		s->step[d] = cint(c->m, c->f, S_I32, 1);
		s->len[d] = op->res[0];
		s->dim[d] = d;
	}
	return s;
}

static bool
hasslice(Node *e)
{
	uint32_t i;

	for (i = 0; i < e->l1.n; i++)
		if (e->l1.v[i]->kind == E_SLICE)
			return true;
	return false;
}

/* The base indices of element e->l1 (integers, one per view dimension)
 * of view s: first + k * step in each base dimension.  As in Warp, an
 * element's indices are not wrapped when negative. */
static bool
sliceelem(Ctx *c, Node *e, const ASlice *s, Val *idx)
{
	int b, d;
	Val k[MAXDIM];

	if ((int)e->l1.n != s->nd || hasslice(e)) {
		serr(c, e->loc, "index a %d-dimensional array slice with %d integers", s->nd, s->nd);
		return false;
	}
	for (d = 0; d < s->nd; d++)
		if (!(k[d] = sliceint(c, e->l1.v[d])))
			return false;
	for (b = 0; b < s->nbase; b++)
		idx[b] = s->first[b];
	for (d = 0; d < s->nd; d++) {
		b = s->dim[d];
		idx[b] = i32op(c, OP_ADD, s->first[b], i32op(c, OP_MUL, k[d], s->step[b], e->loc), e->loc);
		if (!idx[b])
			return false;
	}
	return true;
}

/* e (its indices: integers and slices) applied to view s: an element
 * (a load) when it gives an integer for every dimension, else a new view.
 * As in Warp's view(), integer indices of a view are wrapped when
 * negative; slice dimensions come first, then the dimensions not indexed. */
static X
sliceview(Ctx *c, Node *e, const ASlice *s, Val *elemidx)
{
	ASlice *r;
	X x = xnone();
	int d, nd = 0;

	if (!hasslice(e) && (int)e->l1.n == s->nd) {
		Val a[MAXDIM + 1];
		Op *op;
		if (elemidx) {
			/* the element's place, for a store */
			if (!sliceelem(c, e, s, elemidx))
				return xnone();
			return pending();
		}
		if (!sliceelem(c, e, s, a + 1))
			return xnone();
		a[0] = s->base;
		op = emitop(c, OP_LOAD, a, s->nbase + 1, 0, tvoid(), e->loc, "array index");
		return op ? xval(op->res[0]) : xnone();
	}
	if ((int)e->l1.n > s->nd) {
		serr(c, e->loc, "too many indices for a %d-dimensional array", s->nd);
		return xnone();
	}
	r = aalloc(c->tmp, sizeof *r);
	*r = *s;
	for (d = 0; d < (int)e->l1.n; d++) {
		Node *ix = e->l1.v[d];
		int b = s->dim[d];
		Val first, n, step;
		if (ix->kind == E_SLICE) {
			if (!sliceadjust(c, ix, s->len[d], &first, &n, &step))
				return xnone();
			r->len[nd] = n;
			r->dim[nd++] = b;
		} else {
			if (!(first = sliceint(c, ix)))
				return xnone();
			first = i32where(c, i32op(c, OP_LT, first, cint(c->m, c->f, S_I32, 0), ix->loc),
			                 i32op(c, OP_ADD, first, s->len[d], ix->loc), first, ix->loc);
			step = cint(c->m, c->f, S_I32, 0);
		}
		r->first[b] = i32op(c, OP_ADD, s->first[b], i32op(c, OP_MUL, first, s->step[b], ix->loc), ix->loc);
		r->step[b] = ix->kind == E_SLICE ? i32op(c, OP_MUL, s->step[b], step, ix->loc) : step;
		if (!r->first[b] || !r->step[b])
			return xnone();
	}
	for (; d < s->nd; d++) {
		r->len[nd] = s->len[d];
		r->dim[nd++] = s->dim[d];
	}
	r->nd = nd;
	x.k = X_G;
	x.g.kind = G_SLICE;
	x.g.sl = r;
	x.loc = e->loc;
	return x;
}

/* The index groups g[0..n) as one subscript (a[1:3][i] is a[1:3, i]). */
static Node *
joined(Ctx *c, Node **g, int n)
{
	Node *j;
	int k, i = 0;
	uint32_t total = 0;

	if (n == 1)
		return g[0];
	for (k = 0; k < n; k++)
		total += g[k]->l1.n;
	j = aalloc(c->tmp, sizeof *j);
	*j = *g[n - 1];
	j->l1.v = aalloc(c->tmp, (total + 1) * sizeof *j->l1.v);
	j->l1.n = j->l1.cap = total;
	for (k = 0; k < n; k++) {
		uint32_t q;
		for (q = 0; q < g[k]->l1.n; q++)
			j->l1.v[i++] = g[k]->l1.v[q];
	}
	j->tcomma = true;
	return j;
}

/* Chained subscripts g[0..m) (innermost first) of view s, grouped as
 * Warp's recurse_subscript (codegen.py) does: while more indices remain
 * than the view has dimensions, its first ndim indices (which must end a
 * group) index it; the rest index the result together, so a2d[1:3][0] is
 * a2d[1:3, 0].  Stops at an element (a value, or with elemidx its base
 * indices: pending()); *used: the groups consumed. */
static X
viewgroups(Ctx *c, const ASlice *s, Node **g, int m, int *used, Val *elemidx)
{
	int k = 0;
	X x = xnone();

	while (k < m) {
		int total = 0, acc = 0, h;
		for (h = k; h < m; h++)
			total += (int)g[h]->l1.n;
		h = m;
		if (total > s->nd) {
			for (h = k; h < m; h++) {
				acc += (int)g[h]->l1.n;
				if (acc >= s->nd)
					break;
			}
			if (acc > s->nd) {
				serr(c, g[h]->loc, "Incorrect number of indices specified for array indexing, got %d indices "
				     "for a %d dimensional array.", acc, s->nd);
				return xnone();
			}
			h++;
		}
		x = sliceview(c, joined(c, g + k, h - k), s, elemidx);
		k = h;
		if (x.k != X_G)
			break;
		s = x.g.sl;
	}
	*used = k;
	return x;
}

/* e, a chain of subscripts over an array or array view with a slice in
 * it, or over a local bound to a view: its value (true); false when it is
 * not one (a vector's slice), compiled as usual. */
static bool
slicechain(Ctx *c, Node *e, X *out)
{
	Node *g[64], *root = e;
	int m = 0, k, used;
	bool sl = false, isview;
	Bind *bd;
	ASlice *s;
	X b, x;

	while (root->kind == E_SUBSCRIPT && m < 64) {
		sl = sl || hasslice(root);
		g[m++] = root;
		root = root->a;
	}
	bd = root->kind == E_NAME ? envfind(&c->env, root->s) : NULL;
	isview = bd && bd->fn && bd->fn->kind == G_SLICE;
	if ((!sl && !isview) || (root->kind != E_NAME && root->kind != E_ATTR))
		return false;
	b = expr(c, root); /* a name or a field: evaluating it again is harmless */
	if (b.k == X_NONE) {
		*out = xnone();
		return true;
	}
	if (b.k == X_G && b.g.kind == G_SLICE && b.g.n == 0)
		s = b.g.sl;
	else if (b.k == X_VAL && vty(c->f, b.v).k == T_ARRAY)
		s = wholeview(c, b.v, root->loc);
	else
		return false;
	if (!s) {
		*out = xnone();
		return true;
	}
	for (k = 0; k < m / 2; k++) {
		Node *t = g[k];
		g[k] = g[m - 1 - k];
		g[m - 1 - k] = t;
	}
	x = viewgroups(c, s, g, m, &used, NULL);
	if (x.k == X_VAL && used < m)
		x = compsub(c, joined(c, g + used, m - used), x.v);
	*out = x;
	return true;
}

/* A constant integer slice component (Warp's eval_const_slice_component). */
static bool
sliceconst(Ctx *c, Node *n, int64_t *v)
{
	X x = expr(c, n);

	if (x.k == X_NONE)
		return false;
	if (x.k != X_VAL || !x.wconst || x.hasrange || !isconst(c->f, x.v)) {
		serr(c, n->loc, "Slice component must be a compile-time constant.");
		return false;
	}
	if (!isint(vty(c->f, x.v))) {
		serr(c, n->loc, "Slice component must be an integer.");
		return false;
	}
	*v = val(c->f, x.v)->c[0].i;
	return true;
}

int
starredslice(Ctx *c, Node *n, X *out, int max)
{
	Node *ix;
	X b;
	Type t;
	int64_t bnd[3] = {0, 0, 1}, k;
	int cnt = 0;

	if (n->kind != E_SUBSCRIPT || n->l1.n != 1 || n->tcomma || n->l1.v[0]->kind != E_SLICE)
		return 0;
	ix = n->l1.v[0];
	if (n->a->kind != E_NAME && n->a->kind != E_ATTR)
		return 0;
	b = expr(c, n->a); /* a name or a field: evaluating it again is harmless */
	if (b.k != X_VAL || vty(c->f, b.v).k != T_ARRAY)
		return 0;
	t = vty(c->f, b.v);
	if (t.nd != 1) {
		serr(c, n->loc, "Starred expressions with slices are only supported for 1D arrays, got %dD array.", t.nd);
		return -1;
	}
	if ((ix->c && !sliceconst(c, ix->c, &bnd[2])) || (ix->a && !sliceconst(c, ix->a, &bnd[0])) ||
	    (ix->b && !sliceconst(c, ix->b, &bnd[1])))
		return -1;
	if (bnd[2] == 0) {
		serr(c, ix->loc, "Slice step cannot be zero.");
		return -1;
	}
	if (bnd[2] < 0 && (!ix->a || !ix->b)) {
		serr(c, ix->loc, "Reverse slices require explicit start and stop bounds when the sequence length is not "
		     "known at compile time (e.g. slicing an array).");
		return -1;
	}
	if (!ix->b) {
		serr(c, ix->loc, "Starred expression on arrays requires explicit upper bound (e.g., *array[0:3], not "
		     "*array[0:]).");
		return -1;
	}
	if (bnd[0] < 0 || bnd[1] < 0) {
		serr(c, ix->loc, "Starred expression slice bounds cannot be negative for arrays.");
		return -1;
	}
	if (bnd[2] < 0) {
		serr(c, ix->loc, "Starred expression slice step cannot be negative for arrays.");
		return -1;
	}
	for (k = bnd[0]; k < bnd[1]; k += bnd[2]) {
		Val a[2];
		Op *op;
		if (cnt == max) {
			serr(c, n->loc, "kpyc unpacks at most %d elements of an array", max);
			return -1;
		}
		a[0] = b.v;
		a[1] = cint(c->m, c->f, S_I32, k);
		if (!(op = emitop(c, OP_LOAD, a, 2, 0, tvoid(), n->loc, "array index")))
			return -1;
		out[cnt++] = xval(op->res[0]);
	}
	if (!cnt) {
		serr(c, n->loc, "Starred expression results in empty sequence.");
		return -1;
	}
	return cnt;
}

/* Extent k of an array (arr) or of a view (s, arr 0). */
static Val
extent(Ctx *c, Val arr, const ASlice *s, int k, Loc loc)
{
	Op *op;

	if (s)
		return s->len[k];
	op = emitop(c, OP_SHAPE, &arr, 1, k, tvoid(), loc, "shape");
	return op ? op->res[0] : 0;
}

/* a.shape[d] (arr) or view.shape[d] (s), e the subscript.  Warp's shape has
 * four entries, 0 past the array's dimensions.  A constant d picks one; a
 * negative constant counts from the end of an array's dimensions (Python's
 * reading: Warp reads outside its shape there); any other int d selects
 * among the four (0 where d is out of range, where Warp reads outside). */
static X
shapesub(Ctx *c, Node *e, Val arr, const ASlice *s)
{
	int nd = s ? s->nd : vty(c->f, arr).nd;
	Val r, dim, k;
	int64_t d;
	X ix;

	if (e->l1.n != 1 || e->l1.v[0]->kind == E_SLICE) {
		serr(c, e->loc, "index a shape with one integer: a.shape[0]");
		return xnone();
	}
	ix = expr(c, e->l1.v[0]);
	if (ix.k == X_NONE)
		return xnone();
	if (ix.k != X_VAL) {
		serr(c, e->l1.v[0]->loc, "a shape index must be an int32 value");
		return xnone();
	}
	if (vty(c->f, ix.v).k != T_SCALAR || vty(c->f, ix.v).s != S_I32) {
		serr(c, e->l1.v[0]->loc, "a shape index must be an int32, not %s", wptypename(c->m, vty(c->f, ix.v)));
		return xnone();
	}
	if (isconst(c->f, ix.v) && !ix.hasrange) {
		d = val(c->f, ix.v)->c[0].i;
		if (d < 0 && !s)
			d += nd;
		if (d < 0 || d >= MAXDIM) {
			serr(c, e->l1.v[0]->loc, "shape index %lld out of range (a shape has %d entries)",
			     (long long)val(c->f, ix.v)->c[0].i, MAXDIM);
			return xnone();
		}
		r = d < nd ? extent(c, arr, s, (int)d, e->loc) : cint(c->m, c->f, S_I32, 0);
		return r ? xval(r) : xnone();
	}
	r = cint(c->m, c->f, S_I32, 0);
	for (int i = nd - 1; i >= 0 && r; i--) {
		dim = extent(c, arr, s, i, e->loc);
		k = cint(c->m, c->f, S_I32, i);
		r = i32where(c, i32op(c, OP_EQ, ix.v, k, e->loc), dim, r, e->loc);
	}
	return r ? xval(r) : xnone();
}

static X
subeval(Ctx *c, Node *e, Pend *p)
{
	X b;
	Pend in;

	memset(p, 0, sizeof *p);
	if (slicechain(c, e, &b))
		return b;
	if (e->a->kind == E_SUBSCRIPT) {
		b = subeval(c, e->a, &in);
		if (b.k == X_NONE)
			return b;
		if (b.k == X_VAL && !b.v && in.arr) {
			*p = in;
			return addindices(c, e, p);
		}
		if (b.k == X_VAL && !b.v && in.mat) {
			if (e->l1.n == 1 && e->l1.v[0]->kind != E_SLICE && !e->tcomma) {
				Type t = vty(c->f, in.mat);
				Val a[3];
				Val r;
				if (!(a[2] = indexval(c, e->l1.v[0])) || !(a[2] = compindex(c, a[2], t.m, e->l1.v[0]->loc)))
					return xnone();
				a[0] = in.mat;
				a[1] = in.row;
				r = emit1(c, OP_EXTRACT, a, 3, e->loc, "component");
				return r ? xval(r) : xnone();
			}
			b = xval(materialize(c, &in, e->a->loc));
			if (!b.v)
				return xnone();
		}
	} else {
		b = expr(c, e->a);
	}
	if (b.k == X_NONE)
		return xnone();
	if (b.k == X_SHAPE)
		return shapesub(c, e, b.v, 0);
	if (b.k == X_G && b.g.kind == G_SLICE && b.g.n == 1)
		return shapesub(c, e, 0, b.g.sl);
	if (b.k == X_G) {
		serr(c, e->loc, "%s cannot be subscripted in a kernel", gdesc(&b.g));
		return xnone();
	}
	if (b.k == X_TUPLE)
		return tupleindex(c, e, b);
	if (vty(c->f, b.v).k == T_ARRAY) {
		p->arr = b.v;
		p->n = 0;
		return addindices(c, e, p);
	}
	if (vty(c->f, b.v).k == T_MAT && e->l1.n == 1 && e->l1.v[0]->kind != E_SLICE && !e->tcomma) {
		Type t = vty(c->f, b.v);
		Val r;
		if (!(r = indexval(c, e->l1.v[0])) || !(r = compindex(c, r, t.n, e->l1.v[0]->loc)))
			return xnone();
		p->mat = b.v;
		p->row = r;
		return pending();
	}
	return compsub(c, e, b.v);
}

static X
subscript(Ctx *c, Node *e)
{
	Pend p;
	X x = subeval(c, e, &p);

	if (x.k == X_VAL && !x.v) {
		x.v = materialize(c, &p, e->loc);
		if (!x.v)
			return xnone();
	}
	return x;
}

static X
compsub(Ctx *c, Node *e, Val base)
{
	Type t = vty(c->f, base);
	Val a[3];
	Val r;

	if (t.k == T_VEC || t.k == T_QUAT || t.k == T_XFORM) {
		Node *ix = e->l1.v[0];
		if (e->l1.n != 1 || e->tcomma) {
			serr(c, e->loc, "a %s takes one index", wptypename(c->m, t));
			return xnone();
		}
		if (ix->kind == E_SLICE && (t.k == T_VEC || t.k == T_QUAT || t.k == T_XFORM)) {
			/* v[a:b:s] with constant bounds: a vector of those components
			 * (of a quaternion or transform too, as Warp) */
			int idx[MAXVEC], k, n;
			Val comps[MAXVEC];
			Op *op;
			if (!slicebounds(c, ix, ncomp(t), idx, &n))
				return xnone();
			for (k = 0; k < n; k++) {
				a[0] = base;
				a[1] = cint(c->m, c->f, S_I32, idx[k]);
				if (!(comps[k] = emit1(c, OP_EXTRACT, a, 2, e->loc, "component")))
					return xnone();
			}
			op = emitop(c, OP_VEC, comps, n, 0, tvec(n, t.s), e->loc, "slice");
			return op ? xval(op->res[0]) : xnone();
		}
		if (!(a[1] = indexval(c, ix)))
			return xnone();
		if (!(a[1] = compindex(c, a[1], ncomp(t), ix->loc)))
			return xnone();
		a[0] = base;
		r = emit1(c, OP_EXTRACT, a, 2, e->loc, "component");
		return r ? xval(r) : xnone();
	}
	if (t.k == T_MAT) {
		if (e->l1.n <= 2 && !e->tcomma && (e->l1.v[0]->kind == E_SLICE || (e->l1.n == 2 && e->l1.v[1]->kind == E_SLICE)))
			return matslice(c, e, base, t);
		if (e->l1.n == 2) {
			if (!(a[1] = indexval(c, e->l1.v[0])) || !(a[2] = indexval(c, e->l1.v[1])))
				return xnone();
			if (!(a[1] = compindex(c, a[1], t.n, e->l1.v[0]->loc)) || !(a[2] = compindex(c, a[2], t.m, e->l1.v[1]->loc)))
				return xnone();
			a[0] = base;
			r = emit1(c, OP_EXTRACT, a, 3, e->loc, "component");
			return r ? xval(r) : xnone();
		}
		serr(c, e->loc, "a matrix takes one or two indices");
		return xnone();
	}
	serr(c, e->loc, "'%s' object is not subscriptable", wptypename(c->m, t));
	return xnone();
}

/* Is e the function of the call being compiled, or an attribute path
 * that leads to it (NS.warp in NS.warp.tid())? */
static bool
oncalleepath(Ctx *c, Node *e)
{
	Node *p;

	for (p = c->calleepath; p; p = p->kind == E_ATTR ? p->a : NULL)
		if (p == e)
			return true;
	return false;
}

static X
attribute(Ctx *c, Node *e)
{
	X b;
	Type t;
	Val a[2];
	Val r;

	if (e->a->kind == E_ATTR && e->a->a->kind == E_NAME && !envfind(&c->env, e->a->a->s)) {
		/* ENUM.MEMBER.value (a module name, not a local) */
		const Global *g = gfind(c->file, e->a->a->s);
		if (g && g->v.kind == G_ENUM && g->v.n != 2) {
			GVal v = geval(c->k, c->file, e, true);
			if (v.kind == G_CONST)
				return gvalx(c, v, e->loc, e->s);
		}
	}
	b = expr(c, e->a);
	if (b.k == X_NONE)
		return xnone();
	if (b.k == X_G) {
		GVal g = b.g, v;
		memset(&v, 0, sizeof v);
		if (g.kind == G_WARP) {
			if (strcmp(e->s, "types") == 0 || strcmp(e->s, "_src") == 0) {
				v.kind = G_WARP;
				v.s = e->s;
				return xg(v, e->loc);
			}
			v = wpname(c->k, e->s);
			return gvalx(c, v, e->loc, e->s);
		}
		if (g.kind == G_MODULE) {
			if (strcmp(g.s, "math") == 0 && (strcmp(e->s, "pi") == 0 || strcmp(e->s, "e") == 0 ||
			                                 strcmp(e->s, "tau") == 0 || strcmp(e->s, "inf") == 0)) {
				Node tmp = *e;
				v = geval(c->k, c->file, &tmp, true);
				return gvalx(c, v, e->loc, e->s);
			}
			v.kind = G_PYNAME;
			v.s = aprintf(c->k->a, "%s.%s", g.s, e->s);
			return xg(v, e->loc);
		}
		if (g.kind == G_TYPE && !g.spec.any) {
			Node tmp = *e;
			v = geval(c->k, c->file, &tmp, true);
			if (v.kind != G_NONE)
				return gvalx(c, v, e->loc, e->s);
		}
		if (g.kind == G_SLICE && g.n == 0 && strcmp(e->s, "shape") == 0) {
			b.g.n = 1;
			return b;
		}
		if (g.kind == G_SLICE && g.n == 0 && strcmp(e->s, "ndim") == 0) {
			X x = xval(cint(c->m, c->f, S_I32, g.sl->nd));
			x.wconst = true;
			x.lit.ok = x.lit.isint = true;
			x.lit.i = g.sl->nd;
			x.lit.f = g.sl->nd;
			return x;
		}
		if (g.kind == G_SLICE) {
			serr(c, e->loc, "'%s': kpyc reads an array slice's shape and ndim only", e->s);
			return xnone();
		}
		if (g.kind == G_ENUM && g.n == 2 && !oncalleepath(c, e)) {
			serr(c, e->a->loc, "Invalid external reference type: <class 'types.SimpleNamespace'> (Warp reads "
			     "a namespace's attributes only in the function of a call)");
			return xnone();
		}
		if (g.kind == G_ENUM) {
			const Global *m = gfind(c->file, aprintf(c->tmp, "%s.%s", g.s, e->s));
			if (m)
				return gvalx(c, m->v, e->loc, e->s);
			if (g.n)
				serr(c, e->loc, "'%s.%s' is not a constant kpyc evaluates (kpyc reads the constant attributes of "
				     "a class only)", g.s, e->s);
			else
				serr(c, e->loc, "type object '%s' has no attribute '%s'", g.s, e->s);
			return xnone();
		}
		serr(c, e->loc, "'%s' is not an attribute kpyc knows of %s", e->s, gdesc(&g));
		return xnone();
	}
	if (b.k != X_VAL) {
		serr(c, e->loc, "'%s' is not an attribute of this expression", e->s);
		return xnone();
	}
	t = vty(c->f, b.v);
	if ((t.k == T_VEC && t.n <= 4) || t.k == T_QUAT) {
		const char *sw = "xyzw", *p;
		if (strlen(e->s) == 1 && (p = strchr(sw, e->s[0])) && p - sw < ncomp(t)) {
			a[0] = b.v;
			a[1] = cint(c->m, c->f, S_I32, p - sw);
			r = emit1(c, OP_EXTRACT, a, 2, e->loc, "component");
			return r ? xval(r) : xnone();
		}
	}
	if (t.k == T_XFORM && (strcmp(e->s, "p") == 0 || strcmp(e->s, "q") == 0)) {
		r = emit1(c, e->s[0] == 'p' ? OP_TRANSFORM_GET_TRANSLATION : OP_TRANSFORM_GET_ROTATION, &b.v, 1, e->loc,
		          "transform");
		return r ? xval(r) : xnone();
	}
	if (t.k == T_STRUCT) {
		int fi = fieldindex(c->m, t.sid, kirident(c->tmp, e->s));
		Op *op;
		if (fi < 0) {
			serr(c, e->oploc, "struct %s has no field '%s'", c->m->structs[t.sid].name, e->s);
			return xnone();
		}
		op = emitop(c, OP_FIELD, &b.v, 1, fi, tvoid(), e->loc, "field");
		return op ? xval(op->res[0]) : xnone();
	}
	if (t.k == T_ARRAY) {
		if (strcmp(e->s, "shape") == 0) {
			X x = xnone();
			x.k = X_SHAPE;
			x.v = b.v;
			return x;
		}
		if (strcmp(e->s, "dtype") == 0) {
			/* a.dtype(x): the element type */
			X x = xnone();
			x.k = X_G;
			x.g.kind = G_TYPE;
			x.g.spec.ty = telem(t);
			x.loc = e->loc;
			return x;
		}
		if (strcmp(e->s, "ndim") == 0) {
			X x = xval(cint(c->m, c->f, S_I32, t.nd));
			x.wconst = true;
			x.lit.ok = x.lit.isint = true;
			x.lit.i = t.nd;
			x.lit.f = t.nd;
			return x;
		}
		serr(c, e->oploc, "array attribute '%s' is not supported in kernels (only a.shape[i], a.ndim, a.dtype)",
		     e->s);
		return xnone();
	}
	serr(c, e->oploc, "Error, `%s` is not an attribute of '%s' (%s)", e->s,
	     e->a->kind == E_NAME ? e->a->s : "expression", wptypename(c->m, t));
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

/* ---- stores to subscripts and attributes ---------------------------- */

/* One step of a store path below its base: a component index, a struct
 * field or a transform's p/q. */
typedef struct Step {
	int kind;        /* 'i' index, 'f' field, 'p' or 'q' transform part */
	Val idx[2];
	int nidx;
	int field;
	Val container;   /* the value the step reads from */
	Loc loc;
} Step;

/* Warp's element types whose in-place + and - are not atomic. */
static bool
nonatomic(Type t)
{
	int s = t.s;
	return s == S_I8 || s == S_U8 || s == S_I16 || s == S_U16; /* Warp's types.non_atomic_types */
}

/* Read the leaf of a path and apply op with rhs (an augmented assignment). */
static Val
augvalue(Ctx *c, Val cur, int op, Node *rhs, Loc loc)
{
	X r = expr(c, rhs);
	X v;

	if (r.k == X_NONE)
		return 0;
	v = binop(c, op, xval(cur), r, loc, loc);
	if (v.k != X_VAL)
		return 0;
	if (!typeeq(vty(c->f, v.v), vty(c->f, cur))) {
		serr(c, loc, "augmented assignment produces a %s where a %s is stored", wptypename(c->m, vty(c->f, v.v)),
		     wptypename(c->m, vty(c->f, cur)));
		return 0;
	}
	return v.v;
}

static Val
readstep(Ctx *c, Step *s)
{
	Val a[3];
	Op *op;

	a[0] = s->container;
	switch (s->kind) {
	case 'i':
		a[1] = s->idx[0];
		a[2] = s->idx[1];
		return emit1(c, OP_EXTRACT, a, s->nidx + 1, s->loc, "component");
	case 'f':
		op = emitop(c, OP_FIELD, a, 1, s->field, tvoid(), s->loc, "field");
		return op ? op->res[0] : 0;
	case 'p':
		return emit1(c, OP_TRANSFORM_GET_TRANSLATION, a, 1, s->loc, "transform");
	default:
		return emit1(c, OP_TRANSFORM_GET_ROTATION, a, 1, s->loc, "transform");
	}
}

static Val
writestep(Ctx *c, Step *s, Val v)
{
	Val a[4];
	Op *op;
	Type ct = vty(c->f, s->container), vt = vty(c->f, v);

	a[0] = s->container;
	switch (s->kind) {
	case 'i': {
		Type want = ct.k == T_MAT && s->nidx == 1 ? tvec(ct.m, ct.s) : tcomp(ct);
		if (!typeeq(want, vt)) {
			serr(c, s->loc, "cannot assign a %s to a component of a %s (expected %s)", wptypename(c->m, vt),
			     wptypename(c->m, ct), wptypename(c->m, want));
			return 0;
		}
		a[1] = s->idx[0];
		a[2] = s->idx[1];
		a[s->nidx + 1] = v;
		return emit1(c, OP_INSERT, a, s->nidx + 2, s->loc, "component assignment");
	}
	case 'f': {
		Type ft = c->m->structs[ct.sid].fields[s->field].ty;
		if (!typeeq(ft, vt)) {
			serr(c, s->loc, "Error, assigning to struct field `%s` (%s) with different type (%s)",
			     c->m->structs[ct.sid].fields[s->field].name, wptypename(c->m, ft), wptypename(c->m, vt));
			return 0;
		}
		a[1] = v;
		op = emitop(c, OP_SETFIELD, a, 2, s->field, tvoid(), s->loc, "field assignment");
		return op ? op->res[0] : 0;
	}
	default:
		a[1] = v;
		return emit1(c, s->kind == 'p' ? OP_TRANSFORM_SET_TRANSLATION : OP_TRANSFORM_SET_ROTATION, a, 2, s->loc,
		             "transform assignment");
	}
}

/* The step an attribute or subscript node takes from a value of type t. */
static bool
mkstep(Ctx *c, Node *n, Type t, Step *s)
{
	memset(s, 0, sizeof *s);
	s->loc = n->loc;
	if (n->kind == E_ATTR) {
		if ((t.k == T_VEC && t.n <= 4) || t.k == T_QUAT) {
			const char *sw = "xyzw", *p;
			if (strlen(n->s) == 1 && (p = strchr(sw, n->s[0])) && p - sw < ncomp(t)) {
				s->kind = 'i';
				s->nidx = 1;
				s->idx[0] = cint(c->m, c->f, S_I32, p - sw);
				return true;
			}
		}
		if (t.k == T_XFORM && (strcmp(n->s, "p") == 0 || strcmp(n->s, "q") == 0)) {
			s->kind = n->s[0];
			return true;
		}
		if (t.k == T_STRUCT) {
			int fi = fieldindex(c->m, t.sid, kirident(c->tmp, n->s));
			if (fi < 0) {
				serr(c, n->oploc, "struct %s has no field '%s'", c->m->structs[t.sid].name, n->s);
				return false;
			}
			s->kind = 'f';
			s->field = fi;
			return true;
		}
		serr(c, n->oploc, "Error, `%s` is not an attribute of %s", n->s, wptypename(c->m, t));
		return false;
	}
	/* a subscript of a composite */
	if (!iscomposite(t)) {
		serr(c, n->loc, "'%s' object does not support item assignment", wptypename(c->m, t));
		return false;
	}
	if (n->l1.n < 1 || n->l1.n > (t.k == T_MAT ? 2u : 1u)) {
		serr(c, n->loc, "wrong number of indices for a %s", wptypename(c->m, t));
		return false;
	}
	s->kind = 'i';
	s->nidx = (int)n->l1.n;
	if (!(s->idx[0] = indexval(c, n->l1.v[0])))
		return false;
	if (!(s->idx[0] = compindex(c, s->idx[0], t.k == T_MAT ? t.n : ncomp(t), n->l1.v[0]->loc)))
		return false;
	if (s->nidx == 2) {
		if (!(s->idx[1] = indexval(c, n->l1.v[1])))
			return false;
		if (!(s->idx[1] = compindex(c, s->idx[1], t.m, n->l1.v[1]->loc)))
			return false;
	}
	return true;
}

static Type
steptype(Ctx *c, Type t, const Step *s)
{
	switch (s->kind) {
	case 'i': return t.k == T_MAT && s->nidx == 1 ? tvec(t.m, t.s) : tcomp(t);
	case 'f': return c->m->structs[t.sid].fields[s->field].ty;
	case 'p': return tvec(3, t.s);
	default: return tquat(t.s);
	}
}

/* The state of a store path: a base (a local variable's value, or an
 * array element loaded only if needed) and steps below it, whose
 * containers are read on demand. */
typedef struct Path {
	Val base;            /* the base value (0: the element is not loaded yet) */
	Val arr;             /* the base is element idx of arr */
	Val idx[MAXDIM];
	int nidx;
	Step steps[64];
	int n;
	Loc loc;
} Path;

static Val
container(Ctx *c, Path *p, int k)
{
	Val a[MAXDIM + 1];

	if (p->steps[k].container)
		return p->steps[k].container;
	if (k == 0) {
		if (!p->base) {
			a[0] = p->arr;
			memcpy(a + 1, p->idx, (size_t)p->nidx * sizeof *a);
			p->base = emit1(c, OP_LOAD, a, p->nidx + 1, p->loc, "array index");
		}
		return p->steps[0].container = p->base;
	}
	if (!container(c, p, k - 1))
		return 0;
	return p->steps[k].container = readstep(c, &p->steps[k - 1]);
}

/* The current value at the end of the path. */
static Val
pathval(Ctx *c, Path *p)
{
	if (p->n == 0)
		return container(c, p, 0) ? p->base : 0; /* (n == 0 only with an element base) */
	if (!container(c, p, p->n - 1))
		return 0;
	return readstep(c, &p->steps[p->n - 1]);
}

void
storeto(Ctx *c, Node *target, X val, int augop, Node *rhs)
{
	Node *nodes[64];
	int np = 0, i;
	Node *root = target;
	Path p;
	const char *local = NULL;
	Type t;
	Val v;
	Loc loc = target->loc;
	X b;
	const ASlice *sv = NULL; /* the array view walked through */

	memset(&p, 0, sizeof p);
	p.loc = loc;
	while ((root->kind == E_SUBSCRIPT || root->kind == E_ATTR) && np < 64) {
		nodes[np++] = root;
		root = root->a;
	}
	/* the base */
	if (root->kind == E_NAME && !envfind(&c->env, root->s) && gfind(c->file, root->s)) {
		serr(c, root->loc, "cannot assign to '%s', a module-level name", root->s);
		return;
	}
	b = expr(c, root);
	if (b.k == X_G && b.g.kind == G_SLICE && b.g.n == 0) {
		sv = b.g.sl; /* view[i] = v */
		t = tvoid();
	} else {
		if (b.k == X_NONE || !(p.base = xvalue(c, b, root->loc)))
			return;
		t = vty(c->f, p.base);
		if (root->kind == E_NAME && t.k != T_ARRAY)
			local = root->s;
	}
	/* walk from the base to the target */
	for (i = np - 1; i >= 0; i--) {
		Node *n = nodes[i];
		if (sv || (t.k == T_ARRAY && n->kind == E_SUBSCRIPT && hasslice(n))) {
			/* through an array view (view[i] = v, a[1:3][i].x = v): the
			 * consecutive subscripts grouped as Warp does; an element of
			 * the view is its base's element */
			Node *g[64];
			int m = 0, used;
			X x;
			if (!sv) {
				Val arr = p.n ? pathval(c, &p) : p.base;
				if (!arr || !(sv = wholeview(c, arr, n->loc)))
					return;
			}
			while (i - m >= 0 && nodes[i - m]->kind == E_SUBSCRIPT)
				g[m] = nodes[i - m], m++;
			if (m == 0) {
				serr(c, n->oploc, "cannot assign to an array attribute");
				return;
			}
			x = viewgroups(c, sv, g, m, &used, p.idx);
			if (x.k == X_NONE)
				return;
			local = NULL;
			i -= used - 1;
			if (x.k == X_G) {
				sv = x.g.sl;
				continue;
			}
			p.arr = sv->base;
			p.nidx = sv->nbase;
			p.base = 0;
			p.n = 0;
			t = telem(vty(c->f, sv->base));
			sv = NULL;
			continue;
		}
		if (t.k == T_ARRAY) {
			uint32_t j;
			Val arr;
			if (n->kind != E_SUBSCRIPT) {
				serr(c, n->oploc, "cannot assign to an array attribute");
				return;
			}
			arr = p.n ? pathval(c, &p) : p.base;
			if (!arr)
				return;
			p.arr = arr;
			p.nidx = 0;
			for (;;) {
				for (j = 0; j < n->l1.n; j++) {
					if (n->l1.v[j]->kind == E_SLICE) {
						serr(c, n->l1.v[j]->loc, "array slices are not supported by kpyc");
						return;
					}
					if (p.nidx >= t.nd) {
						serr(c, n->l1.v[j]->loc, "too many indices for a %d-dimensional array", t.nd);
						return;
					}
					if (!(p.idx[p.nidx++] = indexval(c, n->l1.v[j])))
						return;
				}
				if (p.nidx == t.nd || i == 0)
					break;
				n = nodes[--i]; /* a[i][j]: the indices go on */
				if (n->kind != E_SUBSCRIPT) {
					serr(c, n->oploc, "a sub-array has no attribute '%s'", n->s);
					return;
				}
			}
			if (p.nidx < t.nd) {
				serr(c, n->loc, "cannot assign to a sub-array (%d of %d indices)", p.nidx, t.nd);
				return;
			}
			/* the element is the new base, written back with a store */
			p.base = 0;
			p.n = 0;
			local = NULL;
			t = telem(t);
			continue;
		}
		if (p.n == 64) {
			serr(c, n->loc, "the assignment target is too deep");
			return;
		}
		if (!mkstep(c, n, t, &p.steps[p.n]))
			return;
		t = steptype(c, t, &p.steps[p.n]);
		p.n++;
	}
	if (sv) {
		serr(c, loc, "cannot assign to an array slice; assign to its elements");
		return;
	}
	if (p.n == 0 && !p.arr) {
		serr(c, loc, "cannot assign to this expression");
		return;
	}
	/* a[i] = v, a[i] op= v */
	if (p.n == 0) {
		Val a[MAXDIM + 2];
		Type et = t;
		int code;
		a[0] = p.arr;
		memcpy(a + 1, p.idx, (size_t)p.nidx * sizeof *a);
		if (augop < 0) {
			if (!(v = xvalue(c, val, loc)))
				return;
			if (!typeeq(vty(c->f, v), et)) {
				serr(c, loc, "array_store() value argument type (%s) must be of the same type as the array (%s)",
				     wptypename(c->m, vty(c->f, v)), wptypename(c->m, et));
				return;
			}
			a[p.nidx + 1] = v;
			emitop(c, OP_STORE, a, p.nidx + 2, 0, tvoid(), loc, "array store");
			return;
		}
		/* Warp's in-place operators on array elements: + - & | ^ are
		 * atomic, except on its non-atomic types; the rest load, compute
		 * and store */
		code = augop == B_ADD ? OP_ATOMIC_ADD : augop == B_SUB ? OP_ATOMIC_SUB
		     : augop == B_BITAND ? OP_ATOMIC_AND : augop == B_BITOR ? OP_ATOMIC_OR
		     : augop == B_BITXOR ? OP_ATOMIC_XOR : -1;
		if (code >= 0 && !nonatomic(et)) {
			X r = expr(c, rhs);
			if (r.k == X_NONE || !(v = xvalue(c, r, rhs->loc)))
				return;
			if (!typeeq(vty(c->f, v), et)) {
				serr(c, loc, "%s() value argument type (%s) must be of the same type as the array (%s)",
				     opinfo[code].name, wptypename(c->m, vty(c->f, v)), wptypename(c->m, et));
				return;
			}
			a[p.nidx + 1] = v;
			emitop(c, code, a, p.nidx + 2, 0, tvoid(), loc, "augmented assignment");
			return;
		}
		if (!(v = pathval(c, &p)) || !(v = augvalue(c, v, augop, rhs, loc)))
			return;
		a[p.nidx + 1] = v;
		emitop(c, OP_STORE, a, p.nidx + 2, 0, tvoid(), loc, "array store");
		return;
	}
	/* a[i].x op= v (a component of an array element, Warp's "slot"):
	 * + and - (and & | ^ on 32/64-bit integers) are one atomic operation
	 * on a composite holding v at that component and, elsewhere, the
	 * operation's identity (0, or all ones for &) */
	if (p.arr && !p.base && augop >= 0) {
		Type et = telem(vty(c->f, p.arr));
		int leaf = tcomp(t).s, k;
		bool bits = augop == B_BITAND || augop == B_BITOR || augop == B_BITXOR;
		bool composite = true, supported;
		for (k = 0; k < p.n; k++)
			if (p.steps[k].kind == 'f')
				composite = false;
		supported = (augop == B_ADD || augop == B_SUB)
		          ? (scalarisfloat(leaf) || leaf == S_I32 || leaf == S_U32 || leaf == S_I64 || leaf == S_U64)
		          : bits && (leaf == S_I32 || leaf == S_U32 || leaf == S_I64 || leaf == S_U64);
		if (composite && supported) {
			X r = expr(c, rhs);
			Val a[MAXDIM + 2];
			Type lt = et;
			int code = augop == B_ADD ? OP_ATOMIC_ADD : augop == B_SUB ? OP_ATOMIC_SUB
			         : augop == B_BITAND ? OP_ATOMIC_AND : augop == B_BITOR ? OP_ATOMIC_OR : OP_ATOMIC_XOR;
			Type *lv = aalloc(c->tmp, (size_t)(p.n + 1) * sizeof *lv);
			if (r.k == X_NONE || !(v = xvalue(c, r, rhs->loc)))
				return;
			if (!typeeq(vty(c->f, v), t)) {
				serr(c, loc, "invalid operand types for '%s': %s and %s", opsym(augop), wptypename(c->m, t),
				     wptypename(c->m, vty(c->f, v)));
				return;
			}
			for (k = 0; k < p.n; k++) {
				lv[k] = lt;
				lt = steptype(c, lt, &p.steps[k]);
			}
			for (k = p.n - 1; k >= 0; k--) {
				Scal fill[MAXVEC * MAXVEC];
				int q;
				memset(fill, 0, sizeof fill);
				if (augop == B_BITAND)
					for (q = 0; q < ncomp(lv[k]); q++)
						fill[q].i = -1;
				p.steps[k].container = cconst(c->m, c->f, lv[k], fill);
				if (!(v = writestep(c, &p.steps[k], v)))
					return;
			}
			a[0] = p.arr;
			memcpy(a + 1, p.idx, (size_t)p.nidx * sizeof *a);
			a[p.nidx + 1] = v;
			emitop(c, code, a, p.nidx + 2, 0, tvoid(), loc, "augmented assignment");
			return;
		}
		/* otherwise load, compute, store; Warp's backward pass cannot
		 * differentiate that for float values */
		/* (through struct fields kir has no atomic: Warp's atomic slot
		 * update becomes load, compute, store) */
		if (!supported && (isfloatcomp(t) || t.k == T_STRUCT) && !c->fd->nobackward && !c->file->nobackward) {
			serr(c, target->oploc.line ? loc : loc,
			     "Differentiable composite slot augmented assignments with this operator are not supported with "
			     "backward code generation enabled. Write the result to a separate array, or use "
			     "enable_backward=False for forward-only code.");
			return;
		}
	}
	if (augop < 0) {
		if (!(v = xvalue(c, val, loc)))
			return;
	} else if (!(v = pathval(c, &p)) || !(v = augvalue(c, v, augop, rhs, loc))) {
		return;
	}
	for (i = p.n - 1; i >= 0; i--) {
		if (!container(c, &p, i))
			return;
		if (!(v = writestep(c, &p.steps[i], v)))
			return;
	}
	if (p.arr) {
		Val a[MAXDIM + 2];
		a[0] = p.arr;
		memcpy(a + 1, p.idx, (size_t)p.nidx * sizeof *a);
		a[p.nidx + 1] = v;
		emitop(c, OP_STORE, a, p.nidx + 2, 0, tvoid(), loc, "array store");
		return;
	}
	if (local) {
		assignname(c, local, xval(v), root->loc, false);
		return;
	}
	serr(c, loc, "cannot assign to a component of a temporary value");
}
