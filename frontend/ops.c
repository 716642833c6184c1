/*
 * ops.c — operators: binary and unary operators, comparisons, `and`/`or`
 * (short-circuiting through an `if` when an operand has an effect) and
 * `x if c else y`, typed by typeop() (see expr.c).
 */
#include <string.h>

#include "ast.h"

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
	static const int rank[NSCALAR] = {0, 1, 2, 3, 4, 1, 2, 3, 4, 0, 0, 0, 0};
	bool sa, sb;

	if (scalarisfloat(a) || scalarisfloat(b)) {
		if (a == S_F64 || b == S_F64)
			return S_F64;
		if ((a == S_F16 || a == S_BF16) && a == b)
			return a;
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

X
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

X
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

X
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

X
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
X
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
	if (!i.wconst) {
		/* a literal, wp.static(), the index of a loop Warp unrolls */
		serr(c, ix->loc, "Tuple index must be a compile time expression.");
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
