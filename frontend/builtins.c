/*
 * builtins.c — Warp builtins: calls of the rows of ir/ops.def, Warp's
 * signatures of them (sigs.inc), and the builtins that need more.
 *
 * A builtin `wp.NAME(...)` is the row NAME of ir/ops.def: its operands are
 * the arguments (keywords mapped through Warp's parameter names, from
 * sigs.inc), its typing rule decides, and when no overload fits the error
 * lists Warp's signatures of NAME.  A few builtins need more than an op:
 *   tid           as many results as the assignment unpacks (1 to 4);
 *   rand*, sample_*, poisson
 *                 yield (value, new state); a state held in a variable is
 *                 rebound to the new state, as Warp's in-place uint32&;
 *   print, printf, len, min/max/abs/round/pow (Python's names), where;
 *   type names    constructors (wp.vec3(...), wp.mat22(...), wp.quat(...),
 *                 wp.transform(...), wp.spatial_vector(...), S()) and casts
 *                 (float(x), wp.int64(x), wp.vec3d(v)); constant arguments
 *                 are converted at their full Python precision, as Warp
 *                 does (wp.vec3d(0.1, ...), wp.float64(0.1));
 *   vector, matrix, quaternion, transformation, identity, quat_identity,
 *   transform_identity, matrix_from_rows/cols: result types from dtype=,
 *                 length=, shape= or the arguments;
 *   static        evaluated at compile time (wp.constant is module-level
 *                 only: in a kernel an error, as in Warp).
 */
#include <string.h>

#include "ast.h"

static const struct Sig {
	const char *name, *params, *sigs;
} sigtab[] = {
#define SIG(n, p, s) {n, p, s},
#define WARPNAME(n)
#include "sigs.inc"
#undef SIG
#undef WARPNAME
};

static const char *const warpnames[] = {
#define SIG(n, p, s)
#define WARPNAME(n) n,
#include "sigs.inc"
#undef SIG
#undef WARPNAME
};

static const struct Sig *
findsig(const char *name)
{
	size_t i;

	for (i = 0; i < countof(sigtab); i++)
		if (strcmp(sigtab[i].name, name) == 0)
			return &sigtab[i];
	return NULL;
}

bool
iswarpname(const char *name)
{
	size_t i;

	for (i = 0; i < countof(warpnames); i++)
		if (strcmp(warpnames[i], name) == 0)
			return true;
	return findsig(name) != NULL;
}

static void
candidates(Ctx *c, const char *name)
{
	const struct Sig *s = findsig(name);
	const char *p, *e;

	if (!s || !*s->sigs)
		return;
	for (p = s->sigs; *p; p = *e ? e + 1 : e) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		knote(c->k, "candidate: %.*s", (int)(e - p), p);
	}
}

static void
typelist(Ctx *c, Buf *b, const Val *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		bufprintf(b, "%s%s", i ? ", " : "", wptypename(c->m, vty(c->f, v[i])));
}

/* ---- builtins ------------------------------------------------------- */

/* Map keyword arguments onto positions through Warp's parameter names. */
static bool
keywords(Ctx *c, const char *name, Args *a)
{
	const struct Sig *s = findsig(name);
	const char *names[16];
	int n = 0, i, j;
	X *pos;
	Loc *ploc;
	bool *have;
	char buf[256];
	char *p, *tok;

	if (!a->nk)
		return true;
	if (!s) {
		serr(c, a->kloc[0], "%s() takes no keyword arguments", name);
		return false;
	}
	snprintf(buf, sizeof buf, "%s", s->params);
	for (p = buf; n < 16 && (tok = strtok(p, ",")); p = NULL)
		names[n++] = tok;
	pos = aalloc(c->tmp, (size_t)(n + a->n + 1) * sizeof *pos);
	ploc = aalloc(c->tmp, (size_t)(n + a->n + 1) * sizeof *ploc);
	have = aalloc(c->tmp, (size_t)(n + a->n + 1) * sizeof *have);
	for (i = 0; i < a->n; i++) {
		pos[i] = a->pos[i];
		ploc[i] = a->ploc[i];
		have[i] = true;
	}
	for (i = 0; i < a->nk; i++) {
		for (j = 0; j < n; j++)
			if (strcmp(names[j], a->kw[i]) == 0)
				break;
		if (j == n) {
			serr(c, a->kloc[i], "%s() got an unexpected keyword argument '%s'", name, a->kw[i]);
			return false;
		}
		if (j < a->n || have[j]) {
			serr(c, a->kloc[i], "%s() got multiple values for argument '%s'", name, a->kw[i]);
			return false;
		}
		pos[j] = a->kx[i];
		ploc[j] = a->kloc[i];
		have[j] = true;
	}
	for (j = 0; j < n && have[j]; j++)
		;
	for (i = j; i < n; i++)
		if (have[i]) {
			serr(c, a->kloc[0], "%s(): argument '%s' needs the arguments before it (kpyc does not fill Warp's defaults)",
			     name, names[j]);
			return false;
		}
	a->pos = pos;
	a->ploc = ploc;
	a->n = j;
	a->nk = 0;
	return true;
}

/* Warp builtins that also take output variables after their inputs
 * (F_OUTARGS): svd3(A, U, sigma, V) assigns U, sigma and V.  The number of
 * inputs, or -1. */
static int
outputform(int code)
{
	return (opinfo[code].flags & F_OUTARGS) ? opinfo[code].amax : -1;
}


static X
outputcall(Ctx *c, int code, const char *name, Args *a, Loc loc, Node *e, int nin)
{
	Args in = *a;
	X r;
	int i;

	in.n = nin;
	r = generic(c, code, name, &in, loc, e);
	if (r.k == X_NONE)
		return r;
	if (r.k != X_TUPLE || r.n != a->n - nin) {
		serr(c, loc, "%s() takes %d output variables", name, r.k == X_TUPLE ? r.n : 1);
		return xnone();
	}
	for (i = 0; i < r.n; i++) {
		Node *t = e->l1.v[nin + i];
		Bind *b;
		if (t->kind != E_NAME || !(b = envfind(&c->env, t->s)) || b->poison || b->fn || b->ghost || b->zinit) {
			serr(c, t->loc, "%s(): output argument %d must be a variable assigned before the call", name, i + 1);
			return xnone();
		}
		assignname(c, t->s, r.elts[i], t->loc, false);
	}
	return void_x();
}

X
generic(Ctx *c, int code, const char *name, Args *a, Loc loc, Node *e)
{
	Val *v;
	Type in[256], out[8];
	Buf err = {0};
	int i, nr;
	Op *op;

	if (!keywords(c, name, a))
		return xnone();
	if (outputform(code) >= 0 && a->n > outputform(code) && !a->starred && a->n == (int)e->l1.n)
		return outputcall(c, code, name, a, loc, e, outputform(code));
	if (!(v = argvals(c, a)))
		return xnone();
	for (i = 0; i < a->n && i < 256; i++)
		in[i] = vty(c->f, v[i]);
	nr = typeop(c->m, code, in, a->n, 0, out, &err);
	if (nr < 0) {
		Buf tl = {0};
		const char *why = err.s ? strstr(err.s, "): ") : NULL;
		typelist(c, &tl, v, a->n);
		if ((opinfo[code].flags & F_ATOMIC) && a->n >= 2 && in[0].k == T_ARRAY &&
		    why && strstr(why, "element type"))
			serr(c, loc, "%s() value argument type (%s) must be of the same type as the array (%s)", name,
			     wptypename(c->m, in[a->n - 1]), wptypename(c->m, telem(in[0])));
		else
			serr(c, loc, "Couldn't find function overload for '%s' that matched inputs with types: [%s] (%s)",
			     name, tl.s ? tl.s : "", why ? why + 3 : "no overload matches");
		buffree(&tl);
		buffree(&err);
		candidates(c, name);
		return xnone();
	}
	buffree(&err);
	op = mkop(c->m, c->f, code, v, a->n, out, nr, loc);
	regpush(c->m, c->b.r, op);
	if (opinfo[code].flags & F_RAND) {
		/* (value, new state): the variable holding the state takes the new one */
		X st = a->pos[0];
		if (st.name && e->l1.n > 0 && e->l1.v[0]->kind == E_NAME) {
			assignname(c, st.name, xval(op->res[1]), e->l1.v[0]->loc, false);
		}
		return xval(op->res[0]);
	}
	if (code == OP_TRANSFORM_SET_TRANSLATION || code == OP_TRANSFORM_SET_ROTATION) {
		/* Warp sets these in place (they return nothing): the variable
		 * passed takes the new transform */
		X xf = a->pos[0];
		if (xf.name && e->l1.n > 0 && e->l1.v[0]->kind == E_NAME)
			assignname(c, xf.name, xval(op->res[0]), e->l1.v[0]->loc, false);
		else
			kwarn(c->k, loc, "wp.%s() modifies its first argument in place; this one is a temporary, "
			      "so the call has no effect", name);
		return void_x();
	}
	if (nr == 1)
		return xval(op->res[0]);
	if (nr == 0)
		return void_x();
	{
		X x = xnone();
		x.k = X_TUPLE;
		x.results = true;
		x.n = nr;
		x.elts = aalloc(c->tmp, (size_t)nr * sizeof *x.elts);
		for (i = 0; i < nr; i++)
			x.elts[i] = xval(op->res[i]);
		return x;
	}
}

static X
tidcall(Ctx *c, Args *a, int want, Loc loc)
{
	Type t[4];
	Op *op;
	int n = want ? want : 1, i;

	if (!c->fd->kernel) {
		serr(c, loc, "tid() may only be called from a Warp kernel, not a Warp function. Instead, obtain the "
		     "indices from a @wp.kernel and pass them as arguments to the function %s", c->fd->name);
		return xnone();
	}
	if (a->n || a->nk) {
		serr(c, loc, "tid() takes no arguments");
		return xnone();
	}
	if (n > MAXDIM) {
		serr(c, loc, "tid() yields 1 to 4 indices, not %d", n);
		return xnone();
	}
	for (i = 0; i < n; i++)
		t[i] = tscalar(S_I32);
	op = mkop(c->m, c->f, OP_TID, NULL, 0, t, n, loc);
	op->attr = n;
	regpush(c->m, c->b.r, op);
	if (n == 1)
		return xval(op->res[0]);
	{
		X x = xnone();
		x.k = X_TUPLE;
		x.results = true;
		x.n = n;
		x.elts = aalloc(c->tmp, (size_t)n * sizeof *x.elts);
		for (i = 0; i < n; i++)
			x.elts[i] = xval(op->res[i]);
		return x;
	}
}

/* Escape % for a printf format made from a plain string. */
static const char *
pctescape(Ctx *c, const char *s, bool nl)
{
	Buf b = {0};
	const char *r;

	for (; *s; s++) {
		if (*s == '%')
			bufputc(&b, '%');
		bufputc(&b, *s);
	}
	if (nl)
		bufputc(&b, '\n');
	r = astrdup(c->k->a, b.s ? b.s : "");
	buffree(&b);
	return r;
}

/* End the regions rs (then, else) of the expect builtins' check, built
 * while c->b.r was parent: `if cond { rs[0] } else { rs[1] }` in parent. */
static X
closeif(Ctx *c, Val cond, Region rs[2], Region *parent, Loc loc)
{
	Op *op;
	int i;

	for (i = 0; i < 2; i++)
		regpush(c->m, &rs[i], mkop(c->m, c->f, OP_YIELD, NULL, 0, NULL, 0, loc));
	c->b.r = parent;
	op = mkop(c->m, c->f, OP_IF, &cond, 1, NULL, 0, loc);
	opsetregions(c->m, op, 2);
	op->regs[0] = rs[0];
	op->regs[1] = rs[1];
	regpush(c->m, parent, op);
	return void_x();
}

/* wp.expect_eq(actual, expected) and wp.expect_neq: where the check fails,
 * Warp's runtime prints "Error, expect_eq() failed:" and both values (its
 * builtin.h); here the same prints, in an if on the values' equality. */
static X
expectcall(Ctx *c, Args *a, Loc loc, bool neq)
{
	static const char *const lines[] = {"\t Expected: ", "\t Actual: "};
	const char *name = neq ? "expect_neq" : "expect_eq";
	Region rs[2] = {{0}}, *parent = c->b.r;
	Val *v, eq, f;
	int i;

	if (!nokw(c, a, name) || !(v = argvals(c, a)))
		return xnone();
	if (a->n != 2 || !typeeq(vty(c->f, v[0]), vty(c->f, v[1]))) {
		serr(c, loc, "Couldn't find function overload for '%s' that matched inputs with types: [%s%s%s]", name,
		     a->n > 0 ? wptypename(c->m, vty(c->f, v[0])) : "", a->n > 1 ? ", " : "",
		     a->n > 1 ? wptypename(c->m, vty(c->f, v[1])) : "");
		return xnone();
	}
	if (!(eq = emit1(c, OP_EQ, v, 2, loc, name)))
		return xnone();
	/* the prints go where the check fails: else for expect_eq, then for expect_neq */
	c->b.r = &rs[neq ? 0 : 1];
	f = cstr(c->m, c->f, neq ? "Error, expect_neq() failed:\n" : "Error, expect_eq() failed:\n");
	emitop(c, OP_PRINTF, &f, 1, 0, tvoid(), loc, name);
	for (i = 1; i >= 0; i--) {
		f = cstr(c->m, c->f, lines[1 - i]);
		emitop(c, OP_PRINTF, &f, 1, 0, tvoid(), loc, name);
		if (!emitop(c, OP_PRINT, &v[i], 1, 0, tvoid(), loc, name)) {
			c->b.r = parent;
			return xnone();
		}
	}
	return closeif(c, eq, rs, parent, loc);
}

/* wp.expect_near(a, b, tolerance=1e-6): Warp's runtime prints where the
 * largest absolute difference of the components (of a float, vector,
 * quaternion or matrix) exceeds the tolerance, as its builtin.h, vec.h,
 * quat.h and mat.h do. */
static X
expectnear(Ctx *c, Args *a, Loc loc)
{
	Region rs[2] = {{0}}, *parent = c->b.r;
	Val v[3], d, cond, f, ab[3];
	X *tolx = kwget(a, "tolerance");
	Type t, s;
	int i, j, n, m;

	if (a->nk > (tolx ? 1 : 0) || a->n < 2 || a->n > (tolx ? 2 : 3)) {
		serr(c, a->nk > (tolx ? 1 : 0) ? a->kloc[0] : loc, "Couldn't find function overload for 'expect_near': it "
		     "takes a, b and tolerance");
		return xnone();
	}
	for (i = 0; i < a->n; i++)
		if (!(v[i] = xvalue(c, a->pos[i], a->ploc[i])))
			return xnone();
	t = vty(c->f, v[0]);
	s = t.k == T_SCALAR ? t : tscalar(t.s);
	if (tolx && !(v[2] = xvalue(c, *tolx, loc)))
		return xnone();
	if (a->n == 2 && !tolx)
		v[2] = cfloat(c->m, c->f, s.s, 1.0e-6);
	if (!typeeq(t, vty(c->f, v[1])) || !typeeq(s, vty(c->f, v[2])) || !scalarisfloat(s.s) ||
	    !(t.k == T_SCALAR || t.k == T_VEC || t.k == T_QUAT || t.k == T_MAT)) {
		serr(c, loc, "Couldn't find function overload for 'expect_near' that matched inputs with types: [%s, %s, %s]",
		     wptypename(c->m, t), wptypename(c->m, vty(c->f, v[1])), wptypename(c->m, vty(c->f, v[2])));
		return xnone();
	}
	if (t.k == T_SCALAR) {
		if (!(d = emit1(c, OP_SUB, v, 2, loc, "expect_near")) || !(d = emit1(c, OP_ABS, &d, 1, loc, "expect_near")))
			return xnone();
	} else {
		/* the largest difference of components, from zero, in Warp's order */
		n = t.k == T_QUAT ? 4 : t.n;
		m = t.k == T_MAT ? t.m : 1;
		d = cfloat(c->m, c->f, s.s, 0.0);
		for (i = 0; i < n; i++)
			for (j = 0; j < m; j++) {
				Val ex[3] = {v[0], cint(c->m, c->f, S_I32, i), cint(c->m, c->f, S_I32, j)}, di, comp[2];
				int k2, na = t.k == T_MAT ? 3 : 2;
				for (k2 = 0; k2 < 2; k2++) {
					ex[0] = v[k2];
					if (!(comp[k2] = emit1(c, OP_EXTRACT, ex, na, loc, "expect_near")))
						return xnone();
				}
				if (!(di = emit1(c, OP_SUB, comp, 2, loc, "expect_near")) ||
				    !(di = emit1(c, OP_ABS, &di, 1, loc, "expect_near")))
					return xnone();
				ab[0] = d;
				ab[1] = di;
				if (!(d = emit1(c, OP_MAX, ab, 2, loc, "expect_near")))
					return xnone();
			}
	}
	ab[0] = d;
	ab[1] = v[2];
	if (!(cond = emit1(c, OP_GT, ab, 2, loc, "expect_near")))
		return xnone();
	c->b.r = &rs[0];
	{
		const char *text[4] = {"Error, expect_near() failed with tolerance ", "    Expected: ", "    Actual: ",
		                       t.k == T_SCALAR ? "    Absolute difference: " : "    Max absolute difference: "};
		Val vals[4] = {v[2], v[1], v[0], d};
		for (i = 0; i < 4; i++) {
			f = cstr(c->m, c->f, text[i]);
			emitop(c, OP_PRINTF, &f, 1, 0, tvoid(), loc, "expect_near");
			if (!emitop(c, OP_PRINT, &vals[i], 1, 0, tvoid(), loc, "expect_near")) {
				c->b.r = parent;
				return xnone();
			}
		}
	}
	return closeif(c, cond, rs, parent, loc);
}

static X
printcall(Ctx *c, Args *a, Loc loc, bool isprintf)
{
	Val *v;
	Op *op;

	if (!isprintf) {
		X *sep = kwget(a, "end");
		if (a->nk && !(a->nk == 1 && sep)) {
			serr(c, a->kloc[0], "print() keyword arguments are not supported in kernels");
			return xnone();
		}
		if (a->n != 1) {
			serr(c, loc, "Couldn't find function overload for 'print' that matched inputs with types: [%d values] "
			     "(Warp's print takes one value)", a->n);
			candidates(c, "print");
			return xnone();
		}
		if (!(v = argvals(c, a)))
			return xnone();
		if (vty(c->f, v[0]).k == T_STR) {
			Val f = cstr(c->m, c->f, pctescape(c, c->m->strs[val(c->f, v[0])->c[0].u], true));
			op = emitop(c, OP_PRINTF, &f, 1, 0, tvoid(), loc, "print");
			return op ? void_x() : xnone();
		}
		if (vty(c->f, v[0]).k == T_ARRAY) {
			/* Warp has no print of an array: its builtin.h catch-all
			 * template prints this line */
			Val f;
			if (sep) {
				serr(c, loc, "print() of an array with end=: kpyc prints an array (Warp's \"<type without "
				     "print implementation>\" line) without end=");
				return xnone();
			}
			f = cstr(c->m, c->f, pctescape(c, "<type without print implementation>", true));
			op = emitop(c, OP_PRINTF, &f, 1, 0, tvoid(), loc, "print");
			return op ? void_x() : xnone();
		}
		op = emitop(c, OP_PRINT, v, 1, 0, tvoid(), loc, "print");
		if (!op)
			candidates(c, "print");
		return op ? void_x() : xnone();
	}
	if (!nokw(c, a, "printf"))
		return xnone();
	if (a->n > 33) {
		/* the format and at most 32 values, as Warp 1.19 */
		serr(c, loc, "the maximum number of variadic arguments that can be passed to `printf` is 32");
		return xnone();
	}
	if (!(v = argvals(c, a)))
		return xnone();
	op = emitop(c, OP_PRINTF, v, a->n, 0, tvoid(), loc, "printf");
	return op ? void_x() : xnone();
}

static X
lencall(Ctx *c, Args *a, Loc loc)
{
	Val v;
	Type t;
	Op *op;

	if (a->n != 1 || a->nk) {
		serr(c, loc, "len() takes one argument");
		return xnone();
	}
	if (a->pos[0].k == X_TUPLE && a->pos[0].n > 0) {
		/* a tuple's length: a constant for Warp */
		X r = xval(cint(c->m, c->f, S_I32, a->pos[0].n));
		r.wconst = true;
		r.lit = (Lit){true, true, a->pos[0].n, (double)a->pos[0].n};
		return r;
	}
	if (!(v = xvalue(c, a->pos[0], a->ploc[0])))
		return xnone();
	t = vty(c->f, v);
	if (t.k == T_ARRAY) {
		op = emitop(c, OP_SHAPE, &v, 1, 0, tvoid(), loc, "len");
		return opx(op);
	}
	if (iscomposite(t)) {
		/* a compile-time constant for Warp (range(len(v)) unrolls) */
		int64_t n = t.k == T_MAT ? t.n : ncomp(t);
		X r = xval(cint(c->m, c->f, S_I32, n));
		r.wconst = true;
		r.lit = (Lit){true, true, n, (double)n};
		return r;
	}
	serr(c, loc, "Couldn't find function overload for 'len' that matched inputs with types: [%s]",
	     wptypename(c->m, t));
	return xnone();
}

/* Declared-type builtins: identity(n, dtype), quat_identity(dtype), ... */
static X
identitycall(Ctx *c, int code, const char *name, Args *a, Loc loc)
{
	X *dt = kwget(a, "dtype"), *nx = kwget(a, "n");
	Type st = tscalar(S_F32), t;
	int64_t n = 0;

	if (code == OP_IDENTITY) {
		if (!nx && a->n >= 1)
			nx = &a->pos[0];
		if (!dt && a->n >= 2)
			dt = &a->pos[1];
		if (!nx || !intarg(c, nx, loc, &n))
			return xnone();
		if (n < 1 || n > MAXVEC) {
			serr(c, loc, "identity() size out of range");
			return xnone();
		}
	} else if (!dt && a->n >= 1) {
		dt = &a->pos[0];
	}
	if (dt && !typearg(c, dt, loc, &st))
		return xnone();
	if (st.k != T_SCALAR) {
		serr(c, loc, "dtype must be a scalar type");
		return xnone();
	}
	t = code == OP_IDENTITY ? tmat((int)n, (int)n, st.s) : code == OP_QUAT_IDENTITY ? tquat(st.s) : txform(st.s);
	return opx(emitop(c, code, NULL, 0, 0, t, loc, name));
}

static X
fromvecs(Ctx *c, int code, const char *name, Args *a, Loc loc)
{
	Val *v;
	Type vt;

	if (!nokw(c, a, name) || a->n == 0) {
		if (a->n == 0)
			serr(c, loc, "%s() needs at least one vector", name);
		return xnone();
	}
	if (!(v = argvals(c, a)))
		return xnone();
	vt = vty(c->f, v[0]);
	if (vt.k != T_VEC) {
		serr(c, loc, "%s() takes vectors", name);
		return xnone();
	}
	return opx(emitop(c, code, v, a->n, 0, code == OP_MATRIX_FROM_ROWS ? tmat(a->n, vt.n, vt.s) : tmat(vt.n, a->n, vt.s),
	                  loc, name));
}

/*
 * wp.static(expr) and the function's locals.  Warp evaluates the
 * expression with Python's eval over the module's names, at declaration;
 * only an expression that names the index of an enclosing `for` loop is
 * deferred to code generation, where the locals Warp holds as constants
 * (an unrolled loop's index in each copy, x = 3) come before the module's
 * names.  Elsewhere a local that shadows a module name is not seen, and a
 * module name is only missed when it does not exist: then the constant
 * locals are tried.  kpyc keeps loops as loops, so an unrolled loop's index
 * has no value at compile time: wp.static() of +, -, * over such indices
 * and integer constants is compiled as that arithmetic (the same numbers
 * in each copy); anything else over an index, or over a local kpyc cannot
 * tell Warp's value of, is rejected, never given the module's value.
 */
enum { SL_CONSTS = 1, SL_DEFERRED = 2 };

typedef struct SLocal {
	Ctx *c;
	int mode;
	Node *index;   /* first unrolled loop index named */
	Node *unknown; /* first local Warp may see as a constant that kpyc cannot value */
} SLocal;

/* The enclosing for loop whose index is name, innermost first, or NULL. */
static const LoopCtx *
loopof(Ctx *c, const char *name)
{
	const LoopCtx *l;

	for (l = c->loop; l; l = l->up)
		if (l->target && strcmp(l->target, name) == 0)
			return l;
	return NULL;
}

static bool
namesindex(Ctx *c, Node *n)
{
	uint32_t i;

	if (!n)
		return false;
	if (n->kind == E_NAME && loopof(c, n->s))
		return true;
	if (namesindex(c, n->a) || namesindex(c, n->b) || namesindex(c, n->c))
		return true;
	for (i = 0; i < n->l1.n; i++)
		if (namesindex(c, n->l1.v[i]))
			return true;
	for (i = 0; i < n->l2.n; i++)
		if (namesindex(c, n->l2.v[i]))
			return true;
	return false;
}

static GVal
slocal(Kpyc *k, Node *e, bool *found)
{
	SLocal *sl = k->sctx;
	Ctx *c = sl->c;
	Bind *b = envfind(&c->env, e->s);
	const LoopCtx *l = loopof(c, e->s);
	GVal v;

	memset(&v, 0, sizeof v);
	if (!b)
		return v;
	if (b->hasrange && l && l->unrolled && (sl->mode & SL_DEFERRED)) {
		*found = true;
		if (!sl->index)
			sl->index = e;
		return v;
	}
	if (!b->poison && !b->zinit && !b->ghost && !b->fn && (sl->mode & SL_DEFERRED) && b->ilast.ok &&
	    vty(c->f, b->v).k == T_SCALAR) {
		/* the index after an unrolled loop: its last value */
		*found = true;
		v.kind = G_CONST;
		v.spec.ty = tscalar(S_I32);
		v.c = aalloc(k->a, sizeof *v.c);
		v.c[0].i = b->ilast.i;
		v.lit = b->ilast;
		return v;
	}
	if (!b->poison && !b->zinit && !b->ghost && !b->fn && b->wconst && !b->hasrange && b->lit.ok &&
	    isconst(c->f, b->v) && vty(c->f, b->v).k == T_SCALAR) {
		/* x = 3: Warp's constant, its Python value */
		Lit lt = b->lit;
		int sk = vty(c->f, b->v).s;
		*found = true;
		v.kind = G_CONST;
		v.spec.ty = tscalar(sk);
		v.c = aalloc(k->a, sizeof *v.c);
		v.c[0] = val(c->f, b->v)->c[0];
		v.lit = lt;
		return v;
	}
	if (l || b->wconst || b->fn) {
		/* an index rebound in the loop, a dynamic loop's index (Warp would
		 * take the module's name, or fail), a constant kpyc has no Python
		 * value of: not guessed */
		*found = true;
		if (!sl->unknown)
			sl->unknown = e;
		return v;
	}
	return v; /* a value Warp does not hold as a constant: the module's name */
}

/* len(NAME) in wp.static(): the type of the local or parameter NAME,
 * whose length Warp's evaluate_static_expression puts in its place. */
static GVal
stype(Kpyc *k, Node *e, bool *found)
{
	SLocal *sl = k->sctx;
	Ctx *c = sl->c;
	Bind *b = envfind(&c->env, e->s);
	GVal v;

	memset(&v, 0, sizeof v);
	if (!b || b->poison || b->zinit || b->ghost || b->fn)
		return v;
	*found = true;
	v.kind = G_TYPE;
	v.spec.ty = vty(c->f, b->v);
	return v;
}

static GVal
sgeval(Ctx *c, Node *e, SLocal *sl)
{
	GVal g;

	c->k->slocal = slocal;
	c->k->stype = stype;
	c->k->sctx = sl;
	g = geval(c->k, c->file, e, true);
	c->k->slocal = NULL;
	c->k->stype = NULL;
	c->k->sctx = NULL;
	return g;
}

/* Is e an expression whose value Python's and kpy's arithmetic agree on,
 * over the indices of enclosing unrolled loops (each a non-negative
 * range) and constants: + - * of them, % and // of an index by a positive
 * integer (floored and truncated alike), comparisons, float() and int(),
 * float literals and wp.static() of a constant? */
static bool
staticsimple(Ctx *c, Node *e)
{
	uint32_t i;

	switch (e->kind) {
	case E_INT:
		return !e->big && e->u <= INT32_MAX;
	case E_FLOAT:
		return true;
	case E_NAME: {
		Bind *bd = envfind(&c->env, e->s);
		const LoopCtx *l = loopof(c, e->s);
		return bd && bd->hasrange && l && l->unrolled && !bd->poison;
	}
	case E_UNARY:
		return (e->op == U_NEG || e->op == U_POS) && staticsimple(c, e->a);
	case E_BINOP:
		if (e->op == B_ADD || e->op == B_SUB || e->op == B_MUL)
			return staticsimple(c, e->a) && staticsimple(c, e->b);
		if (e->op == B_MOD || e->op == B_FLOORDIV) {
			Bind *bd = e->a->kind == E_NAME ? envfind(&c->env, e->a->s) : NULL;
			return staticsimple(c, e->a) && bd && bd->lo >= 0 && e->b->kind == E_INT && !e->b->big && e->b->u > 0 &&
			       e->b->u <= INT32_MAX;
		}
		return false;
	case E_COMPARE:
		if (!staticsimple(c, e->a))
			return false;
		for (i = 0; i < e->l1.n; i++)
			if (e->cmpops[i] > C_NE || !staticsimple(c, e->l1.v[i]))
				return false;
		return true;
	case E_CALL:
		if (e->l1.n != 1 || e->l2.n)
			return false;
		if (e->a->kind == E_NAME && (strcmp(e->a->s, "float") == 0 || strcmp(e->a->s, "int") == 0) &&
		    !envfind(&c->env, e->a->s) && !gfind(c->file, e->a->s))
			return staticsimple(c, e->l1.v[0]);
		{
			GVal fn = geval(c->k, c->file, e->a, true), v;
			if (fn.kind != G_WPNAME || strcmp(fn.s, "static") != 0)
				return false;
			v = geval(c->k, c->file, e->l1.v[0], true);
			return v.kind == G_CONST && v.spec.ty.k == T_SCALAR;
		}
	default:
		return false;
	}
}

/* wp.static(e) where e names an unrolled loop's index: e's integer
 * arithmetic, compiled; xnone() after an error. */
static X
staticarith(Ctx *c, Node *e)
{
	X a, b;

	if ((e->kind == E_COMPARE || e->kind == E_CALL || e->kind == E_FLOAT ||
	     (e->kind == E_BINOP && (e->op == B_MOD || e->op == B_FLOORDIV))) && staticsimple(c, e))
		return expr(c, e);
	switch (e->kind) {
	case E_INT:
		if (e->big || e->u > INT32_MAX)
			break;
		return xval(cint(c->m, c->f, S_I32, (int64_t)e->u));
	case E_NAME: {
		Bind *bd = envfind(&c->env, e->s);
		const LoopCtx *l = loopof(c, e->s);
		const Global *g;
		if (bd && bd->hasrange && l && l->unrolled)
			return expr(c, e);
		if (bd && !bd->poison && !bd->zinit && !bd->ghost && !bd->fn && bd->ilast.ok)
			return xval(cint(c->m, c->f, S_I32, bd->ilast.i));
		if (bd && !bd->poison && !bd->zinit && !bd->ghost && !bd->fn && bd->wconst && !bd->hasrange &&
		    bd->lit.ok && bd->lit.isint && vty(c->f, bd->v).k == T_SCALAR && scalarisint(vty(c->f, bd->v).s))
			return xval(cint(c->m, c->f, S_I32, bd->lit.i));
		if (bd && (l || bd->wconst || bd->fn))
			break;
		if ((g = gfind(c->file, e->s)) && g->v.kind == G_CONST && g->v.spec.ty.k == T_SCALAR && g->v.lit.ok &&
		    g->v.lit.isint && g->v.lit.i >= INT32_MIN && g->v.lit.i <= INT32_MAX)
			return xval(cint(c->m, c->f, S_I32, g->v.lit.i));
		break;
	}
	case E_BINOP:
		if (e->op != B_ADD && e->op != B_SUB && e->op != B_MUL)
			break;
		a = staticarith(c, e->a);
		if (a.k == X_NONE)
			return a;
		b = staticarith(c, e->b);
		if (b.k == X_NONE)
			return b;
		return binop(c, e->op, a, b, e->loc, e->oploc);
	case E_UNARY:
		if (e->op != U_NEG && e->op != U_POS)
			break;
		a = staticarith(c, e->a);
		if (a.k == X_NONE || e->op == U_POS)
			return a;
		return binop(c, B_SUB, xval(cint(c->m, c->f, S_I32, 0)), a, e->loc, e->loc);
	case E_SUBSCRIPT: {
		/* L[i] of a module list or tuple of integer constants and the
		 * index i of an unrolled loop whose values are all in range:
		 * in each copy Warp reads L[i]; kpy selects it */
		GVal l;
		Bind *bd;
		const LoopCtx *lp;
		Val r, iv;
		int k;
		if (e->l1.n != 1 || e->tcomma || e->l1.v[0]->kind != E_NAME)
			break;
		bd = envfind(&c->env, e->l1.v[0]->s);
		lp = loopof(c, e->l1.v[0]->s);
		if (!bd || !bd->hasrange || !lp || !lp->unrolled || bd->poison)
			break;
		l = geval(c->k, c->file, e->a, true);
		if (!((l.kind == G_TUPLE || l.kind == G_HOST) && l.elts && l.n > 0) || bd->lo < 0 || bd->hi >= l.n ||
		    (l.s && strcmp(l.s, "struct0") == 0))
			break;
		for (k = 0; k < l.n; k++)
			if (l.elts[k].kind != G_CONST || l.elts[k].spec.ty.k != T_SCALAR || !l.elts[k].lit.ok ||
			    !l.elts[k].lit.isint || l.elts[k].lit.i < INT32_MIN || l.elts[k].lit.i > INT32_MAX)
				break;
		if (k < l.n)
			break;
		a = expr(c, e->l1.v[0]);
		if (a.k == X_NONE || !(iv = xvalue(c, a, e->l1.v[0]->loc)))
			return xnone();
		r = cint(c->m, c->f, S_I32, l.elts[bd->hi].lit.i);
		for (k = (int)bd->hi - 1; k >= (int)bd->lo && r; k--) {
			Val w[3], eq[2] = {iv, cint(c->m, c->f, vty(c->f, iv).s, k)};
			if (!(w[0] = emit1(c, OP_EQ, eq, 2, e->loc, "wp.static")))
				return xnone();
			w[1] = cint(c->m, c->f, S_I32, l.elts[k].lit.i);
			w[2] = r;
			r = emit1(c, OP_WHERE, w, 3, e->loc, "wp.static");
		}
		return r ? xval(r) : xnone();
	}
	default:
		break;
	}
	serr(c, e->loc, "wp.static() over the index of an unrolled loop: kpyc evaluates only +, -, * of the "
	     "indices and integer constants, %% and // of an index by a positive integer, L[i] of a module list of "
	     "integers, comparisons and float()/int() of those (Warp evaluates the expression in each unrolled "
	     "copy)");
	return xnone();
}

/* The value of struct instance g (consteval.c: G_HOST "struct0"): zero,
 * then its fields set. */
static Val
structval(Ctx *c, const GVal *g, Loc loc)
{
	Op *op = emitop(c, OP_ZERO, NULL, 0, 0, g->spec.ty, loc, "wp.static");
	Val v, a[2];
	int i;

	if (!op)
		return 0;
	v = op->res[0];
	for (i = 0; g->elts && i < g->n; i++) {
		const GVal *fv = &g->elts[i];
		if (fv->kind == G_NONE)
			continue;
		a[1] = fv->kind == G_CONST ? cconst(c->m, c->f, fv->spec.ty, fv->c) : structval(c, fv, loc);
		if (!a[1])
			return 0;
		a[0] = v;
		if (!(op = emitop(c, OP_SETFIELD, a, 2, i, tvoid(), loc, "wp.static")))
			return 0;
		v = op->res[0];
	}
	return v;
}

static X
staticcall(Ctx *c, Node *e, const char *name)
{
	GVal g;
	X x;
	SLocal sl;
	Node *arg;

	if (e->l1.n != 1 || e->l2.n) {
		serr(c, e->loc, "wp.%s() takes one argument", name);
		return xnone();
	}
	arg = e->l1.v[0];
	memset(&sl, 0, sizeof sl);
	sl.c = c;
	if (strcmp(name, "static") == 0 && arg->kind == E_CALL && arg->a && arg->a->kind == E_NAME &&
	    strcmp(arg->a->s, "len") == 0 && arg->l1.n == 1 && !arg->l2.n && arg->l1.v[0]->kind == E_NAME) {
		/* wp.static(len(t)) of a local tuple: its length */
		Bind *b = envfind(&c->env, arg->l1.v[0]->s);
		if (b && !b->poison && b->fn && b->fn->kind == G_VTUPLE)
			return expr(c, arg);
	}
	/* module values change in a kernel's own wp.static (a @wp.func's:
	 * Warp evaluates it later; a generic kernel's: per instance) */
	c->k->hmut = c->fd->kernel && !c->fd->generic;
	if (strcmp(name, "static") == 0 && namesindex(c, arg)) {
		/* deferred by Warp to code generation: constant locals first */
		sl.mode = SL_CONSTS | SL_DEFERRED;
		g = sgeval(c, arg, &sl);
		c->k->hmut = false;
		if (sl.unknown) {
			serr(c, sl.unknown->loc, "wp.static() over '%s': kpyc cannot tell the value Warp gives it here "
			     "(the local's if Warp holds it as a constant, else the module's '%s')",
			     sl.unknown->s, sl.unknown->s);
			return xnone();
		}
		if (sl.index) {
			x = staticarith(c, arg);
			if (x.k == X_NONE)
				return x;
			x.wconst = true;
			x.hasrange = x.k == X_VAL && isint(vty(c->f, x.v)); /* a value per unrolled copy */
			x.lo = INT32_MIN;
			x.hi = INT32_MAX;
			memset(&x.lit, 0, sizeof x.lit);
			return x;
		}
	} else {
		c->k->hrolled = false;
		g = geval(c->k, c->file, arg, true);
		if (g.kind == G_NONE && strcmp(name, "static") == 0 && c->k->hrolled) {
			/* Python functions changed module values, and a name the
			 * module lacks failed it: Warp runs them again, more than once */
			c->k->hmut = false;
			serr(c, arg->loc, "wp.%s() calls Python functions that change module values, in an expression that "
			     "reads a local of the body: Warp evaluates it more than once, kpyc does not compile it", name);
			return xnone();
		}
		if (g.kind == G_NONE && strcmp(name, "static") == 0) {
			/* a name the module lacks: Warp retries with the constant locals */
			sl.mode = SL_CONSTS;
			g = sgeval(c, arg, &sl);
		}
	}
	c->k->hmut = false;
	if (strcmp(name, "static") == 0 &&
	    (g.kind == G_FUNC || (g.kind == G_WPNAME && builtinop(c->k, g.s) >= 0))) {
		/* wp.static(my_func)(x): the function */
		x = xnone();
		x.k = X_G;
		x.g = g;
		return x;
	}
	if (strcmp(name, "static") == 0 && g.kind == G_HOST && g.s && strcmp(g.s, "struct0") == 0) {
		/* a struct instance: S() of the module (fields zero), or one a
		 * Python function made */
		Val v = structval(c, &g, arg->loc);
		return v ? xval(v) : xnone();
	}
	if (g.kind != G_CONST && g.kind != G_TYPE && g.kind != G_STR) {
		GVal fn = arg->kind == E_CALL ? geval(c->k, c->file, arg->a, true) : gnone();
		if (g.kind == G_HOST && g.s && strcmp(g.s, "struct") == 0)
			serr(c, arg->loc, "wp.%s() of a struct instance the module also uses elsewhere (it may change "
			     "it): kpyc reads an instance S() whose name appears only in wp.static(NAME)", name);
		else if (fn.kind == G_HOST || fn.kind == G_FUNC)
			serr(c, arg->loc, "wp.%s() calls a Python function that kpyc cannot run at compile time (it "
			     "runs module-level functions of positional arguments, and @wp.funcs of constants of their "
			     "parameters' types, with the statements NAME = e, NAME op= e, s.field = e, if, return, "
			     "L.append(e) and D[key] (op)= e over module constants; module lists and dicts change in a "
			     "kernel's own wp.statics only)", name);
		else
			serr(c, arg->loc, "wp.%s() needs an expression kpyc can evaluate at compile time "
			     "(module constants and literals)", name);
		return xnone();
	}
	x = xnone();
	if (g.kind == G_TYPE) {
		x.k = X_G;
		x.g = g;
		return x;
	}
	if (g.kind == G_STR)
		x = xval(cstr(c->m, c->f, g.s));
	else
		x = xval(cconst(c->m, c->f, g.spec.ty, g.c));
	x.wconst = true;
	x.lit = g.lit;
	return x;
}

/* wp.lower_bound(arr, value), wp.lower_bound(arr, begin, end, value):
 * Warp's binary search (array.h) over a 1-D array of a scalar type,
 * compiled as its loop:
 *   lower = begin; upper = end - 1
 *   while lower < upper:
 *       mid = lower + (upper - lower) / 2
 *       if arr[mid] < value: lower = mid + 1  else: upper = mid
 *   return lower
 * (Warp's upper bound is end - 1: a value above every element gives
 * end - 1, not end). */
static X
lowerbound(Ctx *c, Args *a, Loc loc)
{
	Val arr, value, lo, hi, one, v[3], lh[2], mid, cond, nlo, nhi;
	Type tys[2] = {tscalar(S_I32), tscalar(S_I32)}, at, vt;
	Region *parent = c->b.r;
	Op *op;
	int i;
	Buf tl = {0};
	bool ok = !a->nk && (a->n == 2 || a->n == 4);

	for (i = 0; ok && i < a->n; i++)
		ok = a->pos[i].k == X_VAL;
	if (ok) {
		at = vty(c->f, a->pos[0].v);
		vt = vty(c->f, a->pos[a->n - 1].v);
		ok = at.k == T_ARRAY && at.nd == 1 && at.ek == T_SCALAR && at.s != S_BOOL && typeeq(vt, telem(at));
		for (i = 1; ok && i < a->n - 1; i++)
			ok = typeeq(vty(c->f, a->pos[i].v), tscalar(S_I32));
	}
	if (!ok && a->n >= 1 && a->pos[0].k == X_VAL && vty(c->f, a->pos[0].v).k == T_ARRAY &&
	    vty(c->f, a->pos[0].v).nd != 1) {
		/* Warp compiles it and asserts ndim == 1 in debug builds only */
		serr(c, loc, "wp.lower_bound searches a 1-D array (Warp's asserts arr.ndim == 1); kpyc does not "
		     "compile it for %d dimensions", vty(c->f, a->pos[0].v).nd);
		return xnone();
	}
	if (!ok) {
		for (i = 0; i < a->n; i++)
			bufprintf(&tl, "%s%s", i ? ", " : "",
			          a->pos[i].k == X_VAL ? wptypename(c->m, vty(c->f, a->pos[i].v)) : "?");
		serr(c, loc, "Couldn't find function overload for 'lower_bound' that matched inputs with types: [%s]",
		     tl.s ? tl.s : "");
		buffree(&tl);
		return xnone();
	}
	arr = a->pos[0].v;
	value = a->pos[a->n - 1].v;
	one = cint(c->m, c->f, S_I32, 1);
	if (a->n == 4) {
		lo = a->pos[1].v;
		v[0] = a->pos[2].v;
	} else {
		Op *sh = emitop(c, OP_SHAPE, &arr, 1, 0, tvoid(), loc, "lower_bound");
		if (!sh)
			return xnone();
		lo = cint(c->m, c->f, S_I32, 0);
		v[0] = sh->res[0];
	}
	v[1] = one;
	if (!(hi = emit1(c, OP_SUB, v, 2, loc, "lower_bound")))
		return xnone();
	lh[0] = lo;
	lh[1] = hi;
	op = mkop(c->m, c->f, OP_WHILE, lh, 2, tys, 2, loc);
	opsetparams(c->m, c->f, op, tys, 2);
	opsetregions(c->m, op, 2);
	/* the condition: lower < upper */
	c->b.r = &op->regs[0];
	cond = emit1(c, OP_LT, op->params, 2, loc, "lower_bound");
	if (cond)
		regpush(c->m, c->b.r, mkop(c->m, c->f, OP_YIELD, &cond, 1, NULL, 0, loc));
	/* the body */
	c->b.r = &op->regs[1];
	v[0] = op->params[1];
	v[1] = op->params[0];
	ok = cond && (v[0] = emit1(c, OP_SUB, v, 2, loc, "lower_bound"));
	if (ok) {
		v[1] = cint(c->m, c->f, S_I32, 2);
		ok = (v[1] = emit1(c, OP_DIV, v, 2, loc, "lower_bound"));
	}
	if (ok) {
		v[0] = op->params[0];
		ok = (mid = emit1(c, OP_ADD, v, 2, loc, "lower_bound"));
	}
	if (ok) {
		v[0] = arr;
		v[1] = mid;
		ok = (v[0] = emit1(c, OP_LOAD, v, 2, loc, "lower_bound"));
	}
	if (ok) {
		v[1] = value;
		ok = (cond = emit1(c, OP_LT, v, 2, loc, "lower_bound"));
	}
	if (ok) {
		v[0] = mid;
		v[1] = one;
		ok = (v[1] = emit1(c, OP_ADD, v, 2, loc, "lower_bound"));
	}
	if (ok) {
		v[0] = cond;
		v[2] = op->params[0];
		ok = (nlo = emit1(c, OP_WHERE, v, 3, loc, "lower_bound"));
	}
	if (ok) {
		v[1] = op->params[1];
		v[2] = mid;
		ok = (nhi = emit1(c, OP_WHERE, v, 3, loc, "lower_bound"));
	}
	if (ok) {
		lh[0] = nlo;
		lh[1] = nhi;
		regpush(c->m, c->b.r, mkop(c->m, c->f, OP_YIELD, lh, 2, NULL, 0, loc));
	}
	c->b.r = parent;
	if (!ok)
		return xnone();
	regpush(c->m, parent, op);
	return xval(op->res[0]);
}

/* wp.sample_cdf(state, cdf): Warp's rand.h, u = randf(state) (the state
 * variable takes the new state), then lower_bound(cdf, u) over a float32
 * array. */
static X
samplecdf(Ctx *c, Node *e, Args *a, Loc loc)
{
	Args r, lb;
	X u;

	if (a->nk || a->n != 2 || a->pos[0].k != X_VAL || a->pos[1].k != X_VAL ||
	    !typeeq(vty(c->f, a->pos[0].v), tscalar(S_U32)) ||
	    !typeeq(vty(c->f, a->pos[1].v), tarray(tscalar(S_F32), 1))) {
		serr(c, loc, "Couldn't find function overload for 'sample_cdf' that matched inputs with types: [%s, %s]",
		     a->n > 0 && a->pos[0].k == X_VAL ? wptypename(c->m, vty(c->f, a->pos[0].v)) : "?",
		     a->n > 1 && a->pos[1].k == X_VAL ? wptypename(c->m, vty(c->f, a->pos[1].v)) : "?");
		return xnone();
	}
	r = *a;
	r.n = 1;
	u = generic(c, OP_RANDF, "randf", &r, loc, e);
	if (u.k != X_VAL)
		return xnone();
	lb = *a;
	lb.pos = aalloc(c->tmp, 2 * sizeof *lb.pos);
	lb.pos[0] = a->pos[1];
	lb.pos[1] = u;
	return lowerbound(c, &lb, loc);
}

/* Emit op code over n operands (0 if an operand or the op failed). */
static Val
cpop(Ctx *c, int code, Val x, Val y, Val z, int n, Loc loc)
{
	Val v[3] = {x, y, z};
	int i;

	for (i = 0; i < n; i++)
		if (!v[i])
			return 0;
	return emit1(c, code, v, n, loc, "closest_point_edge_edge");
}

/* Warp's diff_product(a, b, c, d) (intersect.h): a*b - c*d with the
 * rounding error of c*d compensated, fmaf(a, b, -cd) + fmaf(-c, d, cd). */
static Val
diffproduct(Ctx *c, Val a, Val b, Val cc, Val d, Loc loc)
{
	Val cd = cpop(c, OP_MUL, cc, d, 0, 2, loc);
	Val diff = cpop(c, OP_FMA, a, b, cpop(c, OP_NEG, cd, 0, 0, 1, loc), 3, loc);
	Val err = cpop(c, OP_FMA, cpop(c, OP_NEG, cc, 0, 0, 1, loc), d, cd, 3, loc);
	return cpop(c, OP_ADD, diff, err, 0, 2, loc);
}

/* wp.closest_point_edge_edge(p1, q1, p2, q2, epsilon) -> vec3(s, t, dist):
 * Warp's branches (intersect.h: both edges points; edge 1 a point; edge 2
 * a point; the general case with s from diff_product's num/denom when
 * denom > 0, t corrected to 0 or 1 with s recomputed) compiled as
 * selects.  A branch not taken divides by 1 instead of its possibly zero
 * divisor, so every value is finite and the derivative of the selected
 * branch (autodiff of these ops) is not spoiled by a NaN of another;
 * Warp's own adjoint is analytic and damped where denom is tiny. */
static X
closestedges(Ctx *c, Args *a, Loc loc)
{
	static const char *const names[5] = {"p1", "q1", "p2", "q2", "epsilon"};
	X x[5];
	bool have[5] = {false};
	Val p1, q1, p2, q2, eps, d1, d2, r, A, E, F, C, B, dg1, dg2, one, zero, es, as, den, num, posd, dens, sinit,
	    tinit, sE, sF, tlo, thi, sD, tD, tB, s, t, c1, c2, dist, v[3];
	Type f32 = tscalar(S_F32), v3 = tvec(3, S_F32);
	Buf tl = {0};
	Op *op;
	int i, j;
	bool ok = a->n <= 5;

	for (i = 0; ok && i < a->n; i++) {
		x[i] = a->pos[i];
		have[i] = true;
	}
	for (i = 0; ok && i < a->nk; i++) {
		for (j = 0; j < 5 && strcmp(names[j], a->kw[i]) != 0; j++)
			;
		ok = j < 5 && !have[j];
		if (ok) {
			x[j] = a->kx[i];
			have[j] = true;
		}
	}
	for (i = 0; ok && i < 5; i++)
		ok = have[i] && x[i].k == X_VAL && typeeq(vty(c->f, x[i].v), i < 4 ? v3 : f32);
	if (!ok) {
		for (i = 0; i < a->n; i++)
			bufprintf(&tl, "%s%s", i ? ", " : "",
			          a->pos[i].k == X_VAL ? wptypename(c->m, vty(c->f, a->pos[i].v)) : "?");
		for (i = 0; i < a->nk; i++)
			bufprintf(&tl, "%s%s=%s", i || a->n ? ", " : "", a->kw[i],
			          a->kx[i].k == X_VAL ? wptypename(c->m, vty(c->f, a->kx[i].v)) : "?");
		serr(c, loc, "Couldn't find function overload for 'closest_point_edge_edge' that matched inputs with "
		     "types: [%s]", tl.s ? tl.s : "");
		buffree(&tl);
		return xnone();
	}
	p1 = x[0].v, q1 = x[1].v, p2 = x[2].v, q2 = x[3].v, eps = x[4].v;
	one = cfloat(c->m, c->f, S_F32, 1.0);
	zero = cfloat(c->m, c->f, S_F32, 0.0);
	d1 = cpop(c, OP_SUB, q1, p1, 0, 2, loc);
	d2 = cpop(c, OP_SUB, q2, p2, 0, 2, loc);
	r = cpop(c, OP_SUB, p1, p2, 0, 2, loc);
	A = cpop(c, OP_DOT, d1, d1, 0, 2, loc);
	E = cpop(c, OP_DOT, d2, d2, 0, 2, loc);
	F = cpop(c, OP_DOT, d2, r, 0, 2, loc);
	C = cpop(c, OP_DOT, d1, r, 0, 2, loc);
	B = cpop(c, OP_DOT, d1, d2, 0, 2, loc);
	dg1 = cpop(c, OP_LE, A, eps, 0, 2, loc);
	dg2 = cpop(c, OP_LE, E, eps, 0, 2, loc);
	/* divisors: e where edge 2 is not a point, a where edge 1 is not */
	es = cpop(c, OP_WHERE, dg2, one, E, 3, loc);
	as = cpop(c, OP_WHERE, dg1, one, A, 3, loc);
	/* the general case */
	den = diffproduct(c, A, E, B, B, loc);
	num = diffproduct(c, B, F, C, E, loc);
	posd = cpop(c, OP_GT, den, zero, 0, 2, loc);
	dens = cpop(c, OP_WHERE, posd, den, one, 3, loc);
	sinit = cpop(c, OP_WHERE, posd, cpop(c, OP_CLAMP, cpop(c, OP_DIV, num, dens, 0, 2, loc), zero, one, 3, loc), zero,
	             3, loc);
	tinit = cpop(c, OP_DIV, cpop(c, OP_ADD, cpop(c, OP_MUL, B, sinit, 0, 2, loc), F, 0, 2, loc), es, 0, 2, loc);
	sE = cpop(c, OP_CLAMP, cpop(c, OP_DIV, cpop(c, OP_NEG, C, 0, 0, 1, loc), as, 0, 2, loc), zero, one, 3, loc);
	sF = cpop(c, OP_CLAMP, cpop(c, OP_DIV, cpop(c, OP_SUB, B, C, 0, 2, loc), as, 0, 2, loc), zero, one, 3, loc);
	tlo = cpop(c, OP_LT, tinit, zero, 0, 2, loc);
	thi = cpop(c, OP_GT, tinit, one, 0, 2, loc);
	sD = cpop(c, OP_WHERE, tlo, sE, cpop(c, OP_WHERE, thi, sF, sinit, 3, loc), 3, loc);
	tD = cpop(c, OP_WHERE, tlo, zero, cpop(c, OP_WHERE, thi, one, tinit, 3, loc), 3, loc);
	/* edge 1 a point: t = clamp(f / e, 0, 1); edge 2 a point: s = sE */
	tB = cpop(c, OP_CLAMP, cpop(c, OP_DIV, F, es, 0, 2, loc), zero, one, 3, loc);
	s = cpop(c, OP_WHERE, dg1, zero, cpop(c, OP_WHERE, dg2, sE, sD, 3, loc), 3, loc);
	t = cpop(c, OP_WHERE, dg1, cpop(c, OP_WHERE, dg2, zero, tB, 3, loc), cpop(c, OP_WHERE, dg2, zero, tD, 3, loc), 3,
	         loc);
	c1 = cpop(c, OP_ADD, p1, cpop(c, OP_MUL, s, d1, 0, 2, loc), 0, 2, loc);
	c2 = cpop(c, OP_ADD, p2, cpop(c, OP_MUL, t, d2, 0, 2, loc), 0, 2, loc);
	dist = cpop(c, OP_LENGTH, cpop(c, OP_SUB, c2, c1, 0, 2, loc), 0, 0, 1, loc);
	if (!dist)
		return xnone();
	v[0] = s;
	v[1] = t;
	v[2] = dist;
	op = emitop(c, OP_VEC, v, 3, 0, v3, loc, "closest_point_edge_edge");
	return op ? xval(op->res[0]) : xnone();
}

X
builtin(Ctx *c, Node *e, const char *name, int want, bool pyname)
{
	Args a;
	int code;
	Loc loc = e->loc;

	if (strcmp(name, "static") == 0)
		return staticcall(c, e, name);
	if (strcmp(name, "constant") == 0) {
		/* module level only: in a kernel, wp.constant(X) would read the
		 * module's X even where a local X shadows it */
		serr(c, loc, "Could not find function wp.constant as a built-in or user-defined function. Note that "
		     "user functions must be annotated with a @wp.func decorator to be called from a kernel.");
		return xnone();
	}
	if (strcmp(name, "select") == 0) {
		serr(c, loc, "wp.select() has been removed. Use wp.where(cond, value_if_true, value_if_false) instead.");
		return xnone();
	}
	if (strcmp(name, "range") == 0 || strcmp(name, "reversed") == 0) {
		serr(c, loc, "%s() is only supported as the iterable of a for loop", name);
		return xnone();
	}
	if (!evalargs(c, e, &a))
		return xnone();
	if (!pyname && strcmp(name, "inverse_approx") == 0) {
		/* Warp's inverse with an approximate reciprocal of the determinant
		 * on CUDA; on the CPU the same inversion as wp.inverse, and the
		 * same adjoint everywhere (mat.h): kpy compiles wp.inverse */
		Type t = a.n == 1 && a.pos[0].k == X_VAL ? vty(c->f, a.pos[0].v) : tvoid();
		if (a.nk || t.k != T_MAT || t.n != t.m || t.n < 2 || t.n > 4 || !scalarisfloat(t.s)) {
			serr(c, loc, "Couldn't find function overload for 'inverse_approx' that matched inputs with types: [%s]",
			     a.n == 1 && a.pos[0].k == X_VAL ? wptypename(c->m, t) : "...");
			return xnone();
		}
		name = "inverse";
	}
	if (!pyname && strcmp(name, "div_approx") == 0) {
		/* approximate division intrinsics on CUDA; on the CPU the exact
		 * division, and the division's adjoint everywhere (builtin.h
		 * approx_div): kpy compiles a / b, for Warp's signatures (float
		 * scalars, and a vector, matrix or quaternion with a scalar of
		 * its type on either side) */
		Type t0 = a.n == 2 && a.pos[0].k == X_VAL ? vty(c->f, a.pos[0].v) : tvoid();
		Type t1 = a.n == 2 && a.pos[1].k == X_VAL ? vty(c->f, a.pos[1].v) : tvoid();
		bool sc0 = t0.k == T_SCALAR, sc1 = t1.k == T_SCALAR;
		bool comp0 = t0.k == T_VEC || t0.k == T_MAT || t0.k == T_QUAT;
		bool comp1 = t1.k == T_VEC || t1.k == T_MAT || t1.k == T_QUAT;
		if (a.nk || t0.k == T_VOID || t1.k == T_VOID || !scalarisfloat(tcomp(t0).s) || tcomp(t0).s != tcomp(t1).s ||
		    !((sc0 && sc1) || (comp0 && sc1) || (sc0 && comp1))) {
			serr(c, loc, "Couldn't find function overload for 'div_approx' that matched inputs with types: [%s, %s]",
			     t0.k != T_VOID ? wptypename(c->m, t0) : "...", t1.k != T_VOID ? wptypename(c->m, t1) : "...");
			return xnone();
		}
		return binop(c, B_DIV, a.pos[0], a.pos[1], loc, loc);
	}
	if (strcmp(name, "tid") == 0)
		return tidcall(c, &a, want, loc);
	if (strcmp(name, "print") == 0 || strcmp(name, "printf") == 0)
		return printcall(c, &a, loc, name[5] == 'f');
	if (!pyname && (strcmp(name, "expect_eq") == 0 || strcmp(name, "expect_neq") == 0))
		return expectcall(c, &a, loc, name[7] == 'n');
	if (!pyname && strcmp(name, "expect_near") == 0)
		return expectnear(c, &a, loc);
	if (strcmp(name, "len") == 0)
		return lencall(c, &a, loc);
	if (!pyname && strcmp(name, "lower_bound") == 0)
		return lowerbound(c, &a, loc);
	if (!pyname && strcmp(name, "closest_point_edge_edge") == 0)
		return closestedges(c, &a, loc);
	if (!pyname && strcmp(name, "sample_cdf") == 0)
		return samplecdf(c, e, &a, loc);
	if (strcmp(name, "vector") == 0 || strcmp(name, "matrix") == 0 || strcmp(name, "quaternion") == 0 ||
	    strcmp(name, "transformation") == 0)
		return factory(c, name, &a, loc);
	if (strcmp(name, "identity") == 0)
		return identitycall(c, OP_IDENTITY, name, &a, loc);
	if (strcmp(name, "quat_identity") == 0)
		return identitycall(c, OP_QUAT_IDENTITY, name, &a, loc);
	if (strcmp(name, "transform_identity") == 0)
		return identitycall(c, OP_TRANSFORM_IDENTITY, name, &a, loc);
	if (strcmp(name, "matrix_from_rows") == 0)
		return fromvecs(c, OP_MATRIX_FROM_ROWS, name, &a, loc);
	if (strcmp(name, "matrix_from_cols") == 0)
		return fromvecs(c, OP_MATRIX_FROM_COLS, name, &a, loc);
	code = builtinop(c->k, name);
	if (code < 0 && !pyname && (strcmp(name, "zeros") == 0 || strcmp(name, "empty") == 0 ||
	                            strcmp(name, "ones") == 0 || strcmp(name, "full") == 0)) {
		serr(c, loc, "wp.%s in a kernel makes a fixed-size local array (Warp's fixedarray), which kpy does not "
		     "support", name);
		return xnone();
	}
	if (code < 0) {
		if (!pyname && iswarpname(name))
			serr(c, loc, "wp.%s is a Warp builtin that kpyc does not support", name);
		else
			serr(c, loc, "Could not find function %s%s as a built-in or user-defined function. Note that user "
			     "functions must be annotated with a @wp.func decorator to be called from a kernel.",
			     pyname ? "" : "wp.", name);
		return xnone();
	}
	return generic(c, code, name, &a, loc, e);
}

/* Python's builtins that Warp maps to its own. */
X
pybuiltin(Ctx *c, Node *e, const char *name, int want)
{
	Args a;

	if (strcmp(name, "float") == 0 || strcmp(name, "int") == 0 || strcmp(name, "bool") == 0) {
		Type t = tscalar(name[0] == 'f' ? S_F32 : name[0] == 'i' ? S_I32 : S_BOOL);
		if (!evalargs(c, e, &a))
			return xnone();
		return castx(c, t, &a, e->loc, name);
	}
	if (strcmp(name, "type") == 0) {
		/* type(x): x's type, to construct or convert with (generic code) */
		X r = xnone();
		Val v;
		if (!evalargs(c, e, &a))
			return xnone();
		if (a.n != 1 || a.nk || !(v = xvalue(c, a.pos[0], a.ploc[0]))) {
			if (a.n != 1 || a.nk)
				serr(c, e->loc, "type() takes one argument");
			return xnone();
		}
		r.k = X_G;
		r.g.kind = G_TYPE;
		r.g.spec.ty = vty(c->f, v);
		r.loc = e->loc;
		return r;
	}
	if (strcmp(name, "abs") == 0 || strcmp(name, "min") == 0 || strcmp(name, "max") == 0 ||
	    strcmp(name, "round") == 0 || strcmp(name, "pow") == 0 || strcmp(name, "print") == 0 ||
	    strcmp(name, "len") == 0 || strcmp(name, "range") == 0 || strcmp(name, "reversed") == 0)
		return builtin(c, e, name, want, true);
	serr(c, e->loc, "Could not find function %s as a built-in or user-defined function. Note that user functions "
	     "must be annotated with a @wp.func decorator to be called from a kernel.", name);
	return xnone();
}
