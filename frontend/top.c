/*
 * top.c — a Python file's top level: what kpyc keeps and what it skips.
 *
 * A Warp module is ordinary Python: imports, host code, classes,
 * `if __name__ == "__main__":` blocks.  kpyc splits the token array into
 * top-level statements by indentation alone (a statement runs to the next
 * line at column 0 that does not continue it: else/elif/except/finally or
 * a decorated definition) and parses only:
 *   - imports (to learn the names of warp, warp.types, typing, math),
 *   - definitions decorated @wp.kernel / @wp.func / @wp.struct,
 *   - `NAME = expr` assignments, evaluated as constants or type aliases
 *     when they are (N = wp.constant(3), SCALE = 2.5,
 *     vec5 = wp.types.vector(length=5, dtype=wp.float32)), else recorded
 *     as host names.
 * Everything else is skipped without being parsed, so host code may use
 * any Python syntax.  Names are processed in order, like Python executes a
 * module; function bodies see the final binding of every name.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* ---- diagnostics ---------------------------------------------------- */

/* Format a diagnostic as diag.c does and keep it. */
static void
collect(Kpyc *k, Loc loc, const char *kind, const char *fmt, va_list ap)
{
	Diagnostic dg;
	Diag tmp;
	FileCtx *f = k->file;
	char *text = NULL;
	size_t len = 0;
	FILE *ms;

	memset(&dg, 0, sizeof dg);
	if (strcmp(kind, "error") == 0 && k->d->maxerr && k->d->nerr >= k->d->maxerr) {
		/* past the errors flushdiags prints: counted, not formatted (a
		 * file of garbage makes one per line, and formatting one scans
		 * the source up to its line) */
		dg.file = loc.line && loc.file < (uint32_t)k->nfiles ? (int)loc.file : 0;
		dg.loc = loc;
		dg.seq = k->ndiags;
		dg.error = true;
		k->d->nerr++;
		APUSH(k->a, k->diags, k->ndiags, k->capdiags, dg);
		return;
	}
	if (!(ms = open_memstream(&text, &len)))
		fatal("open_memstream:");
	diaginit(&tmp);
	tmp.out = ms;
	tmp.maxerr = 0;
	/* a location names its file; the current file is a fallback for none */
	if (loc.line && loc.file < (uint32_t)k->nfiles)
		f = &k->files[loc.file];
	diagv(&tmp, f ? f->src : NULL, loc, kind, fmt, ap);
	fclose(ms);
	bufwrite(&dg.text, text, len);
	free(text);
	dg.file = f ? f->index : 0;
	dg.loc = loc;
	dg.seq = k->ndiags;
	dg.error = strcmp(kind, "error") == 0;
	if (strcmp(kind, "note") == 0 && k->ndiags) {
		/* a note follows its diagnostic (none if that was not formatted) */
		if (k->diags[k->ndiags - 1].text.n)
			bufwrite(&k->diags[k->ndiags - 1].text, dg.text.s, dg.text.n);
		buffree(&dg.text);
		return;
	}
	if (dg.error)
		k->d->nerr++;
	else
		k->d->nwarn++;
	APUSH(k->a, k->diags, k->ndiags, k->capdiags, dg);
}

void
kerr(Kpyc *k, Loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (k->lenient) {
		collect(k, loc, "warning", fmt, ap);
		k->nlenient++;
	} else {
		collect(k, loc, "error", fmt, ap);
	}
	va_end(ap);
}

void
kwarn(Kpyc *k, Loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	collect(k, loc, "warning", fmt, ap);
	va_end(ap);
}

void
knote(Kpyc *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	collect(k, (Loc){0}, "note", fmt, ap);
	va_end(ap);
}

static void
syntaxerr(void *ctx, Loc loc, const char *msg)
{
	kerr(ctx, loc, "%s", msg);
}

static int
cmpdiag(const void *a, const void *b)
{
	const Diagnostic *p = a, *q = b;

	if (p->file != q->file)
		return p->file - q->file;
	if (p->loc.line != q->loc.line)
		return p->loc.line < q->loc.line ? -1 : 1;
	if (p->loc.col != q->loc.col)
		return p->loc.col < q->loc.col ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* Print the collected diagnostics in source order (Diag.maxerr errors at most). */
static void
flushdiags(Kpyc *k)
{
	uint32_t i;
	int nerr = 0;

	if (k->ndiags > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(k->diags, k->ndiags, sizeof *k->diags, cmpdiag);
	for (i = 0; i < k->ndiags; i++) {
		Diagnostic *dg = &k->diags[i];
		if (dg->error && k->d->maxerr && ++nerr > k->d->maxerr) {
			fprintf(k->d->out, "%s: too many errors; stopping the list\n", k->files[dg->file].src->name);
			break;
		}
		if (dg->text.n)
			fwrite(dg->text.s, 1, dg->text.n, k->d->out);
	}
	for (i = 0; i < k->ndiags; i++)
		buffree(&k->diags[i].text);
}

/* ---- name maps ------------------------------------------------------ */

uint32_t
strhash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

uint32_t
nmget(const NameMap *m, const char *key)
{
	uint32_t i;

	if (!m->cap)
		return UINT32_MAX;
	for (i = strhash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (strcmp(m->keys[i], key) == 0)
			return m->vals[i];
	return UINT32_MAX;
}

void
nmput(Arena *a, NameMap *m, const char *key, uint32_t val)
{
	uint32_t i;

	if (2 * (m->n + 1) > m->cap) {
		uint32_t ncap = m->cap ? 2 * m->cap : 64, j;
		const char **nk = aalloc(a, ncap * sizeof *nk);
		uint32_t *nv = aalloc(a, ncap * sizeof *nv);
		for (j = 0; j < m->cap; j++) {
			if (!m->keys[j])
				continue;
			for (i = strhash(m->keys[j]) & (ncap - 1); nk[i]; i = (i + 1) & (ncap - 1))
				;
			nk[i] = m->keys[j];
			nv[i] = m->vals[j];
		}
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	for (i = strhash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (strcmp(m->keys[i], key) == 0) {
			m->vals[i] = val;
			return;
		}
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
}

/* ---- globals ------------------------------------------------------- */

const Global *
gfind(const FileCtx *f, const char *name)
{
	uint32_t i = nmget(&f->gmap, name);
	return i == UINT32_MAX ? NULL : &f->g[i];
}

static void
gbind(Kpyc *k, FileCtx *f, const char *name, GVal v, Loc loc)
{
	Global g;

	g.name = name;
	g.v = v;
	g.loc = loc;
	APUSH(k->a, f->g, f->ng, f->capg, g);
	nmput(k->a, &f->gmap, name, f->ng - 1);
}

static GVal
gnone(void)
{
	GVal v;
	memset(&v, 0, sizeof v);
	return v;
}

static GVal
gkind(int kind, const char *s)
{
	GVal v = gnone();
	v.kind = kind;
	v.s = s;
	return v;
}

/* A scalar constant of kind s from a Python value. */
static GVal
gscalar(Kpyc *k, int s, Lit l)
{
	GVal v = gnone();

	v.kind = G_CONST;
	v.spec.ty = tscalar(s);
	v.c = aalloc(k->a, sizeof *v.c);
	v.c[0] = scalround(s, litscal(l, s));
	v.lit = l;
	return v;
}

static Lit
litint(int64_t i)
{
	Lit l = {true, true, i, (double)i};
	return l;
}

static Lit
litfloat(double f)
{
	Lit l = {true, false, 0, f};
	return l;
}

/* ---- module-level evaluation --------------------------------------- */

static const struct { const char *name; double v; } mathconst[] = {
	{"pi", 3.14159265358979323846}, {"e", 2.71828182845904523536},
	{"tau", 6.28318530717958647692}, {"inf", INFINITY}, {"nan", NAN},
};

/* A member of a module that is not warp. */
static GVal
modmember(Kpyc *k, const char *mod, const char *name)
{
	size_t i;

	if (strcmp(mod, "typing") == 0 && strcmp(name, "Any") == 0)
		return gkind(G_ANY, NULL);
	if (strcmp(mod, "math") == 0 || strcmp(mod, "numpy") == 0)
		for (i = 0; i < countof(mathconst); i++)
			if (strcmp(mathconst[i].name, name) == 0)
				return gscalar(k, S_F32, litfloat(mathconst[i].v));
	if (strcmp(mod, "builtins") == 0) {
		GVal v = gkind(G_PYNAME, aprintf(k->a, "builtins.%s", name));
		return v;
	}
	return gkind(G_PYNAME, aprintf(k->a, "%s.%s", mod, name));
}

static GVal geval1(Kpyc *k, FileCtx *f, Node *e, bool quiet);

static bool
numval(const GVal *v, Lit *l)
{
	if (v->kind != G_CONST || v->spec.ty.k != T_SCALAR || !v->lit.ok)
		return false;
	*l = v->lit;
	return true;
}

/* Python arithmetic on two module-level numbers. */
static GVal
garith(Kpyc *k, int op, GVal a, GVal b)
{
	Lit x, y, r = {0};
	bool isint;

	if (!numval(&a, &x) || !numval(&b, &y))
		return gnone();
	isint = x.isint && y.isint;
	r.ok = true;
	r.isint = isint;
	if (isint) {
		int64_t p = x.i, q = y.i;
		switch (op) {
		case B_ADD: r.i = (int64_t)((uint64_t)p + (uint64_t)q); break;
		case B_SUB: r.i = (int64_t)((uint64_t)p - (uint64_t)q); break;
		case B_MUL: r.i = (int64_t)((uint64_t)p * (uint64_t)q); break;
		case B_FLOORDIV:
		case B_MOD: {
			int64_t qq, rr;
			if (q == 0 || (p == INT64_MIN && q == -1))
				return gnone();
			qq = p / q;
			rr = p % q;
			if (rr != 0 && ((rr < 0) != (q < 0))) {
				qq--;
				rr += q;
			}
			r.i = op == B_FLOORDIV ? qq : rr;
			break;
		}
		case B_DIV:
			if (q == 0)
				return gnone();
			r.isint = false;
			r.f = (double)p / (double)q;
			break;
		case B_POW:
			if (q < 0) {
				r.isint = false;
				r.f = pow((double)p, (double)q);
			} else {
				int64_t acc = 1, i;
				for (i = 0; i < q && i < 64; i++)
					acc = (int64_t)((uint64_t)acc * (uint64_t)p);
				r.i = acc;
			}
			break;
		case B_LSHIFT: if (q < 0 || q > 63) return gnone(); r.i = (int64_t)((uint64_t)p << q); break;
		case B_RSHIFT: if (q < 0) return gnone(); r.i = q > 63 ? (p < 0 ? -1 : 0) : p >> q; break;
		case B_BITAND: r.i = p & q; break;
		case B_BITOR: r.i = p | q; break;
		case B_BITXOR: r.i = p ^ q; break;
		default: return gnone();
		}
		if (r.isint)
			r.f = (double)r.i;
		return gscalar(k, S_I32, r);
	}
	{
		double p = x.isint ? (double)x.i : x.f, q = y.isint ? (double)y.i : y.f;
		switch (op) {
		case B_ADD: r.f = p + q; break;
		case B_SUB: r.f = p - q; break;
		case B_MUL: r.f = p * q; break;
		case B_DIV: if (q == 0) return gnone(); r.f = p / q; break;
		case B_FLOORDIV: if (q == 0) return gnone(); r.f = floor(p / q); break;
		case B_MOD: if (q == 0) return gnone(); r.f = fmod(p, q); if (r.f != 0 && ((r.f < 0) != (q < 0))) r.f += q; break;
		case B_POW: r.f = pow(p, q); break;
		default: return gnone();
		}
	}
	/* a Warp-typed operand keeps its type (wp.float64(2) * 2.0 is a float64) */
	{
		int s = S_F32;
		if (a.spec.ty.k == T_SCALAR && scalarisfloat(a.spec.ty.s) && !(a.lit.ok && a.spec.ty.s == S_F32))
			s = a.spec.ty.s;
		else if (b.spec.ty.k == T_SCALAR && scalarisfloat(b.spec.ty.s))
			s = b.spec.ty.s;
		return gscalar(k, s, r);
	}
}

/* math.f(x) and Python's round/abs/min/max/pow on module-level numbers. */
static GVal
gmath(Kpyc *k, FileCtx *f, Node *e, const char *fn)
{
	static const struct { const char *name; double (*f1)(double); } m1[] = {
		{"sqrt", sqrt}, {"exp", exp}, {"log", log}, {"log2", log2}, {"log10", log10}, {"sin", sin},
		{"cos", cos}, {"tan", tan}, {"asin", asin}, {"acos", acos}, {"atan", atan}, {"sinh", sinh},
		{"cosh", cosh}, {"tanh", tanh}, {"fabs", fabs}, {"exp2", exp2}, {"cbrt", cbrt},
	};
	GVal a = geval1(k, f, e->l1.v[0], true), b;
	Lit x, y = {0}, r = {true, false, 0, 0};
	double dx, dy = 0;
	size_t i;

	if (!numval(&a, &x))
		return gnone();
	dx = x.isint ? (double)x.i : x.f;
	if (e->l1.n == 2) {
		b = geval1(k, f, e->l1.v[1], true);
		if (!numval(&b, &y))
			return gnone();
		dy = y.isint ? (double)y.i : y.f;
	}
	if (strncmp(fn, "math.", 5) == 0) {
		const char *n = fn + 5;
		if (e->l1.n == 1)
			for (i = 0; i < countof(m1); i++)
				if (strcmp(m1[i].name, n) == 0) {
					r.f = m1[i].f1(dx);
					return gscalar(k, S_F32, r);
				}
		if (e->l1.n == 1 && (strcmp(n, "floor") == 0 || strcmp(n, "ceil") == 0 || strcmp(n, "trunc") == 0)) {
			double v = n[0] == 'f' ? floor(dx) : n[0] == 'c' ? ceil(dx) : trunc(dx);
			return gscalar(k, S_I32, litint((int64_t)v));
		}
		if (e->l1.n == 2 && (strcmp(n, "pow") == 0 || strcmp(n, "atan2") == 0 || strcmp(n, "hypot") == 0 ||
		                     strcmp(n, "fmod") == 0)) {
			r.f = n[0] == 'p' ? pow(dx, dy) : n[0] == 'a' ? atan2(dx, dy) : n[0] == 'h' ? hypot(dx, dy) : fmod(dx, dy);
			return gscalar(k, S_F32, r);
		}
		if (e->l1.n == 1 && strcmp(n, "radians") == 0) {
			r.f = dx * 3.14159265358979323846 / 180.0;
			return gscalar(k, S_F32, r);
		}
		if (e->l1.n == 1 && strcmp(n, "degrees") == 0) {
			r.f = dx * 180.0 / 3.14159265358979323846;
			return gscalar(k, S_F32, r);
		}
		return gnone();
	}
	fn += 9;
	if (strcmp(fn, "round") == 0 && e->l1.n == 1) {
		/* Python rounds half to even */
		double v = nearbyint(dx);
		return x.isint ? a : gscalar(k, S_I32, litint((int64_t)v));
	}
	if (strcmp(fn, "abs") == 0 && e->l1.n == 1) {
		if (x.isint) {
			x.i = x.i < 0 ? -x.i : x.i;
			x.f = (double)x.i;
			return gscalar(k, a.spec.ty.s, x);
		}
		x.f = fabs(x.f);
		return gscalar(k, a.spec.ty.s, x);
	}
	if ((strcmp(fn, "min") == 0 || strcmp(fn, "max") == 0) && e->l1.n == 2) {
		bool lt = dx < dy;
		if (x.isint && y.isint)
			lt = x.i < y.i;
		return (fn[1] == 'i') == lt ? a : b;
	}
	if (strcmp(fn, "pow") == 0 && e->l1.n == 2)
		return garith(k, B_POW, a, b);
	return gnone();
}

/* A keyword argument of a call node, or NULL. */
static Node *
kwarg(Node *call, const char *name)
{
	uint32_t i;

	for (i = 0; i < call->l2.n; i++)
		if (call->l2.v[i]->s && strcmp(call->l2.v[i]->s, name) == 0)
			return call->l2.v[i]->a;
	return NULL;
}

/* Evaluate a call at module level: wp.constant(), type factories, scalar
 * and composite constructors with constant arguments. */
static GVal
gcall(Kpyc *k, FileCtx *f, Node *e, bool quiet)
{
	GVal fn = geval1(k, f, e->a, true), v = gnone();
	const char *w;
	uint32_t i;
	TySpec ts;

	if (fn.kind == G_TYPE && !fn.spec.any && e->l2.n == 0 &&
	    (fn.spec.ty.k == T_SCALAR || iscomposite(fn.spec.ty))) {
		/* a constant of a Warp type: wp.float64(2.5), wp.vec3(1, 2, 3) */
		Type t = fn.spec.ty;
		int n = ncomp(t), j = 0;
		Scal *c;
		if (e->l1.n == 0) {
			v.kind = G_CONST;
			v.spec.ty = t;
			v.c = aalloc(k->a, (size_t)n * sizeof *v.c);
			return v;
		}
		if (t.k == T_SCALAR && e->l1.n != 1)
			return gnone();
		if (t.k != T_SCALAR && e->l1.n == 1 && (e->l1.v[0]->kind == E_LIST || e->l1.v[0]->kind == E_TUPLE) &&
		    (int)e->l1.v[0]->l1.n == n) {
			/* vec3bool([True, False, True]): the components in a sequence */
			Node tmp = *e;
			tmp.l1 = e->l1.v[0]->l1;
			return gcall(k, f, &tmp, quiet);
		}
		if (t.k == T_XFORM && e->l1.n == 2) {
			/* wp.transform(p, q) of a vector and a quaternion constant */
			GVal p = geval1(k, f, e->l1.v[0], true), q = geval1(k, f, e->l1.v[1], true);
			if (p.kind != G_CONST || q.kind != G_CONST || !typeeq(p.spec.ty, tvec(3, t.s)) ||
			    !typeeq(q.spec.ty, tquat(t.s)))
				return gnone();
			c = aalloc(k->a, (size_t)n * sizeof *c);
			memcpy(c, p.c, 3 * sizeof *c);
			memcpy(c + 3, q.c, 4 * sizeof *c);
			v.kind = G_CONST;
			v.spec.ty = t;
			v.c = c;
			return v;
		}
		if (t.k != T_SCALAR && (int)e->l1.n != n && e->l1.n != 1)
			return gnone();
		c = aalloc(k->a, (size_t)n * sizeof *c);
		for (i = 0; i < e->l1.n; i++) {
			GVal a = geval1(k, f, e->l1.v[i], true);
			Lit l;
			if (!numval(&a, &l))
				return gnone();
			c[j++] = scalround(t.s, litscal(l, t.s));
			if (t.k == T_SCALAR) {
				if (!l.isint && scalarisint(t.s)) {
					l.isint = true;
					l.i = (int64_t)l.f;
				}
				v = gscalar(k, t.s, l);
				return v;
			}
		}
		if (e->l1.n == 1)
			for (; j < n; j++)
				c[j] = c[0];
		v.kind = G_CONST;
		v.spec.ty = t;
		v.c = c;
		return v;
	}
	if (fn.kind == G_PYNAME && (strncmp(fn.s, "math.", 5) == 0 || strcmp(fn.s, "builtins.round") == 0 ||
	                            strcmp(fn.s, "builtins.abs") == 0 || strcmp(fn.s, "builtins.min") == 0 ||
	                            strcmp(fn.s, "builtins.max") == 0 || strcmp(fn.s, "builtins.pow") == 0) &&
	    e->l2.n == 0 && e->l1.n >= 1 && e->l1.n <= 2)
		return gmath(k, f, e, fn.s);
	if (fn.kind == G_PYNAME && strcmp(fn.s, "builtins.len") == 0 && e->l1.n == 1 && !e->l2.n) {
		/* Python's len() of a module tuple, list or string; of a type
		 * (Warp's type_length: a local's type in wp.static) */
		GVal a = gnone();
		bool found = false;
		if (k->stype && e->l1.v[0]->kind == E_NAME)
			a = k->stype(k, e->l1.v[0], &found);
		if (!found)
			a = geval1(k, f, e->l1.v[0], true);
		if (a.kind == G_TUPLE || (a.kind == G_HOST && a.elts))
			return gscalar(k, S_I32, litint(a.n));
		if (a.kind == G_STR)
			return gscalar(k, S_I32, litint((int64_t)strlen(a.s)));
		if (a.kind == G_TYPE && !a.spec.any) {
			Type t = a.spec.ty;
			if (t.k == T_VEC || t.k == T_MAT)
				return gscalar(k, S_I32, litint(t.n));
			if (t.k == T_QUAT || t.k == T_XFORM)
				return gscalar(k, S_I32, litint(ncomp(t)));
			if (t.k == T_ARRAY)
				return gscalar(k, S_I32, litint(0)); /* an annotation's array has no data */
			if (t.k == T_SCALAR)
				return gscalar(k, S_I32, litint(1)); /* Warp's scalar types have _length_ 1 */
		}
		return gnone();
	}
	if (fn.kind == G_PYNAME && strncmp(fn.s, "builtins.", 9) == 0) {
		const char *b = fn.s + 9;
		if ((strcmp(b, "float") == 0 || strcmp(b, "int") == 0) && e->l1.n == 1 && !e->l2.n) {
			GVal a = geval1(k, f, e->l1.v[0], true);
			Lit l;
			if (!numval(&a, &l))
				return gnone();
			if (b[0] == 'f')
				return gscalar(k, S_F32, litfloat(l.isint ? (double)l.i : l.f));
			return gscalar(k, S_I32, litint(l.isint ? l.i : (int64_t)l.f));
		}
		return gnone();
	}
	if (fn.kind != G_WPNAME)
		return gnone();
	w = fn.s;
	if (strcmp(w, "constant") == 0 || strcmp(w, "static") == 0) {
		if (e->l1.n != 1)
			return gnone();
		return geval1(k, f, e->l1.v[0], quiet);
	}
	/* type factories */
	if (strcmp(w, "vector") == 0 || strcmp(w, "matrix") == 0 || strcmp(w, "quaternion") == 0 ||
	    strcmp(w, "transformation") == 0 || strncmp(w, "array", 5) == 0) {
		Node *dt = kwarg(e, "dtype");
		bool anyd = false;
		Type et = tscalar(S_F32);
		if (dt) {
			GVal g = geval1(k, f, dt, quiet);
			if (g.kind == G_ANY) {
				anyd = true;
			} else if (!gvaltype(&g, &ts) || ts.any) {
				return gnone();
			} else {
				et = ts.ty;
			}
		}
		if (strcmp(w, "vector") == 0 || strcmp(w, "matrix") == 0) {
			Node *ln = kwarg(e, w[0] == 'v' ? "length" : "shape");
			GVal g;
			if (!ln && e->l1.n >= 1) {
				/* wp.types.vector(3, float), wp.types.matrix((2, 2), dtype=bool) */
				ln = e->l1.v[0];
				if (e->l1.n >= 2 && !dt) {
					GVal d = geval1(k, f, e->l1.v[1], quiet);
					if (!gvaltype(&d, &ts) || ts.any)
						return gnone();
					et = ts.ty;
				}
			}
			if (!ln || anyd || et.k != T_SCALAR)
				return gnone();
			g = geval1(k, f, ln, quiet);
			v.kind = G_TYPE;
			if (w[0] == 'v') {
				Lit l;
				if (!numval(&g, &l) || !l.isint || l.i < 1 || l.i > MAXVEC)
					return gnone();
				v.spec.ty = tvec((int)l.i, et.s);
			} else {
				Lit r, c;
				if (g.kind != G_TUPLE || g.n != 2 || !numval(&g.elts[0], &r) || !numval(&g.elts[1], &c) ||
				    !r.isint || !c.isint || r.i < 1 || r.i > MAXVEC || c.i < 1 || c.i > MAXVEC)
					return gnone();
				v.spec.ty = tmat((int)r.i, (int)c.i, et.s);
			}
			return v;
		}
		if (strcmp(w, "quaternion") == 0 || strcmp(w, "transformation") == 0) {
			if (anyd || et.k != T_SCALAR || !scalarisfloat(et.s))
				return gnone();
			v.kind = G_TYPE;
			v.spec.ty = w[0] == 'q' ? tquat(et.s) : txform(et.s);
			return v;
		}
		/* arrays */
		{
			int nd = 1;
			Node *ndn = kwarg(e, "ndim");
			if (strcmp(w, "array") != 0 && strcmp(w, "array1d") != 0 && strcmp(w, "array2d") != 0 &&
			    strcmp(w, "array3d") != 0 && strcmp(w, "array4d") != 0)
				return gnone();
			if (w[5] >= '1' && w[5] <= '4')
				nd = w[5] - '0';
			if (!dt && e->l1.n >= 1 && w[5] == 0) {
				/* wp.array(float) is a data argument in Python; kpyc reads it as a dtype */
				return gnone();
			}
			if (!dt)
				anyd = true;
			if (ndn) {
				GVal g = geval1(k, f, ndn, quiet);
				Lit l;
				if (!numval(&g, &l) || !l.isint || l.i < 1 || l.i > MAXDIM)
					return gnone();
				nd = (int)l.i;
			}
			v.kind = G_TYPE;
			v.spec.ty = tarray(anyd ? tscalar(S_F32) : et, nd);
			v.spec.anydtype = anyd;
			if (!anyd && (et.k == T_ARRAY || et.k == T_VOID))
				return gnone();
			return v;
		}
	}
	return gnone();
}

static GVal
geval1(Kpyc *k, FileCtx *f, Node *e, bool quiet)
{
	GVal v = gnone();
	const Global *g;
	uint32_t i;

	switch (e->kind) {
	case E_INT:
		if (e->big)
			return gnone();
		return gscalar(k, S_I32, litint((int64_t)e->u));
	case E_FLOAT:
		return gscalar(k, S_F32, litfloat(e->f));
	case E_BOOL: {
		Lit l = litint((int64_t)e->u);
		return gscalar(k, S_BOOL, l);
	}
	case E_STR:
		if (e->op == 'b')
			return gnone();
		return gkind(G_STR, e->s);
	case E_NAME:
		if (k->slocal) {
			bool found = false;
			v = k->slocal(k, e, &found);
			if (found)
				return v;
		}
		if (k->closure) {
			/* the enclosing function's name, not the module's */
			bool isc;
			v = closureval(k, f, k->closure, e->s, &isc);
			if (isc)
				return v;
		}
		if ((g = gfind(f, e->s)))
			return g->v;
		if (strcmp(e->s, "float") == 0 || strcmp(e->s, "int") == 0 || strcmp(e->s, "bool") == 0 ||
		    strcmp(e->s, "range") == 0 || strcmp(e->s, "len") == 0 || strcmp(e->s, "abs") == 0 ||
		    strcmp(e->s, "min") == 0 || strcmp(e->s, "max") == 0 || strcmp(e->s, "round") == 0 ||
		    strcmp(e->s, "pow") == 0 || strcmp(e->s, "print") == 0 || strcmp(e->s, "reversed") == 0 ||
		    strcmp(e->s, "tuple") == 0)
			return gkind(G_PYNAME, aprintf(k->a, "builtins.%s", e->s));
		return gnone();
	case E_ATTR: {
		GVal b = geval1(k, f, e->a, quiet);
		if (b.kind == G_WARP) {
			if (strcmp(e->s, "types") == 0 || strcmp(e->s, "_src") == 0 || strcmp(e->s, "context") == 0)
				return gkind(G_WARP, e->s);
			return wpname(k, e->s);
		}
		if (b.kind == G_MODULE)
			return modmember(k, b.s, e->s);
		if (b.kind == G_ENUM) {
			const Global *g = gfind(f, aprintf(k->a, "%s.%s", b.s, e->s));
			return g ? g->v : gnone();
		}
		if (b.kind == G_CONST && b.s && strcmp(b.s, "enum") == 0 && strcmp(e->s, "value") == 0) {
			b.s = NULL; /* a member's value: the int itself */
			return b;
		}
		if (b.kind == G_TYPE && !b.spec.any) {
			/* vec3.dtype, vec3.length */
			if (strcmp(e->s, "dtype") == 0 && b.spec.ty.k != T_STRUCT && b.spec.ty.k != T_ARRAY) {
				v.kind = G_TYPE;
				v.spec.ty = tcomp(b.spec.ty);
				return v;
			}
			if (strcmp(e->s, "length") == 0 && b.spec.ty.k == T_VEC)
				return gscalar(k, S_I32, litint(b.spec.ty.n));
		}
		return gnone();
	}
	case E_UNARY: {
		GVal a = geval1(k, f, e->a, quiet);
		Lit l;
		if (!numval(&a, &l))
			return gnone();
		if (e->op == U_NEG) {
			if (l.isint)
				l.i = (int64_t)(0 - (uint64_t)l.i);
			else
				l.f = -l.f;
			if (l.isint)
				l.f = (double)l.i;
			return gscalar(k, a.spec.ty.s == S_BOOL ? S_I32 : a.spec.ty.s, l);
		}
		if (e->op == U_POS)
			return a;
		if (e->op == U_INVERT && l.isint) {
			l.i = ~l.i;
			l.f = (double)l.i;
			return gscalar(k, S_I32, l);
		}
		if (e->op == U_NOT) {
			l = litint(l.isint ? l.i == 0 : l.f == 0);
			return gscalar(k, S_BOOL, l);
		}
		return gnone();
	}
	case E_BINOP:
		return garith(k, e->op, geval1(k, f, e->a, quiet), geval1(k, f, e->b, quiet));
	case E_COMPARE: {
		/* Python's comparisons of numbers, and == != of strings */
		GVal a = geval1(k, f, e->a, quiet), b;
		bool truth = true;
		for (i = 0; i < e->l1.n; i++) {
			Lit x, y;
			int op = e->cmpops[i], r;
			b = geval1(k, f, e->l1.v[i], quiet);
			if (a.kind == G_STR && b.kind == G_STR && (op == C_EQ || op == C_NE)) {
				r = strcmp(a.s, b.s) == 0;
				truth = truth && (op == C_EQ ? r : !r);
			} else if (numval(&a, &x) && numval(&b, &y)) {
				double p = x.isint ? (double)x.i : x.f, q = y.isint ? (double)y.i : y.f;
				bool lt = x.isint && y.isint ? x.i < y.i : p < q, eq = x.isint && y.isint ? x.i == y.i : p == q;
				switch (op) {
				case C_LT: r = lt; break;
				case C_LE: r = lt || eq; break;
				case C_GT: r = !lt && !eq; break;
				case C_GE: r = !lt; break;
				case C_EQ: r = eq; break;
				case C_NE: r = !eq; break;
				default: return gnone();
				}
				if (!x.isint && !y.isint && (isnan(p) || isnan(q)))
					r = op == C_NE;
				truth = truth && r;
			} else {
				return gnone();
			}
			a = b;
		}
		return gscalar(k, S_BOOL, litint(truth));
	}
	case E_UNSUP:
		/* a dict display of constant keys: host data (G_HOST, s "dict",
		 * elts key, value, key, value...), read by subscripts and len() */
		if (!e->s || strcmp(e->s, "ast.Dict") != 0)
			return gnone();
		v.kind = G_HOST;
		v.s = "dict";
		v.n = (int)e->l1.n;
		v.elts = aalloc(k->a, (2 * e->l1.n + 1) * sizeof *v.elts);
		for (i = 0; i < e->l1.n; i++) {
			Node *it = e->l1.v[i];
			if (!it->b)
				return gnone(); /* **mapping */
			v.elts[2 * i] = geval1(k, f, it->b, quiet);
			v.elts[2 * i + 1] = geval1(k, f, it->a, quiet);
			if (v.elts[2 * i].kind != G_STR && v.elts[2 * i].kind != G_CONST)
				return gnone();
		}
		return v;
	case E_BOOLOP:
		/* Python's and/or: the first operand that decides, of numbers
		 * and strings */
		for (i = 0; i < e->l1.n; i++) {
			Lit l;
			bool t;
			v = geval1(k, f, e->l1.v[i], quiet);
			if (v.kind == G_STR)
				t = v.s[0] != 0;
			else if (numval(&v, &l))
				t = l.isint ? l.i != 0 : l.f != 0;
			else
				return gnone();
			if (t == (e->op == BO_OR))
				return v;
		}
		return v;
	case E_LIST:
	case E_TUPLE:
		v.kind = G_TUPLE;
		v.n = (int)e->l1.n;
		v.elts = aalloc(k->a, (e->l1.n + 1) * sizeof *v.elts);
		for (i = 0; i < e->l1.n; i++) {
			v.elts[i] = geval1(k, f, e->l1.v[i], quiet);
			if (v.elts[i].kind == G_NONE)
				return gnone();
		}
		return v;
	case E_CALL:
		return gcall(k, f, e, quiet);
	case E_SUBSCRIPT: {
		/* wp.array[float], wp.array2d[wp.vec3] */
		GVal b;
		TySpec ts;
		if (e->a->kind == E_ATTR && strcmp(e->a->s, "builtin_functions") == 0 && e->l1.n == 1 &&
		    e->l1.v[0]->kind == E_STR && e->l1.v[0]->op != 'b') {
			/* context.builtin_functions["tid"]: Warp's registry of its
			 * builtins, the builtin itself */
			b = geval1(k, f, e->a->a, quiet);
			size_t n = b.kind == G_WARP ? strlen(b.s) : 0;
			if (n >= 7 && strcmp(b.s + n - 7, "context") == 0) {
				v = wpname(k, e->l1.v[0]->s);
				return v.kind == G_WPNAME ? v : gnone();
			}
			return gnone();
		}
		b = geval1(k, f, e->a, quiet);
		if (b.kind == G_HOST && b.elts && e->l1.n == 1 && !e->tcomma && e->l1.v[0]->kind != E_SLICE) {
			/* D["key"] of a module dict, L[i] of a module list or tuple */
			GVal key = geval1(k, f, e->l1.v[0], quiet);
			Lit l;
			if (b.s && strcmp(b.s, "dict") == 0) {
				for (i = 0; i < (uint32_t)b.n; i++) {
					GVal *kk = &b.elts[2 * i];
					Lit a;
					if ((kk->kind == G_STR && key.kind == G_STR && strcmp(kk->s, key.s) == 0) ||
					    (numval(kk, &a) && numval(&key, &l) && a.isint && l.isint && a.i == l.i))
						v = b.elts[2 * i + 1];
				}
				return v;
			}
			if (!numval(&key, &l) || !l.isint || key.spec.ty.s == S_BOOL)
				return gnone();
			if (l.i < 0)
				l.i += b.n;
			return l.i >= 0 && l.i < b.n ? b.elts[l.i] : gnone();
		}
		if (b.kind == G_WPNAME && strncmp(b.s, "array", 5) == 0 && e->l1.n == 1) {
			GVal d = geval1(k, f, e->l1.v[0], quiet);
			int nd = b.s[5] >= '1' && b.s[5] <= '4' ? b.s[5] - '0' : 1;
			v.kind = G_TYPE;
			if (d.kind == G_ANY) {
				v.spec.ty = tarray(tscalar(S_F32), nd);
				v.spec.anydtype = true;
				return v;
			}
			if (!gvaltype(&d, &ts) || ts.any || ts.ty.k == T_ARRAY)
				return gnone();
			v.spec.ty = tarray(ts.ty, nd);
			return v;
		}
		return gnone();
	}
	default:
		return gnone();
	}
}

GVal
geval(Kpyc *k, FileCtx *f, Node *e, bool quiet)
{
	return geval1(k, f, e, quiet);
}

/* ---- splitting the file -------------------------------------------- */

/* The end (exclusive) of the top-level statement starting at token i:
 * its first NEWLINE at depth 0 that is not followed by an indented block,
 * a continuation keyword (else, elif, except, finally) or, after a
 * decorator line, the decorated definition. */
static uint32_t
stmtend(const TokArray *t, uint32_t i)
{
	int depth = 0;
	uint32_t line = i; /* first token of the current logical line */

	for (; i < t->n; i++) {
		int kind = t->v[i].kind, nk;
		if (kind == T_END)
			return i;
		if (kind == T_INDENT) {
			depth++;
			line = i + 1;
			continue;
		}
		if (kind == T_DEDENT) {
			depth--;
			line = i + 1;
			if (depth > 0)
				continue;
			depth = 0;
			nk = i + 1 < t->n ? t->v[i + 1].kind : T_END;
			if (nk == T_DEDENT || nk == T_ELSE || nk == T_ELIF || nk == T_EXCEPT || nk == T_FINALLY)
				continue;
			return i + 1;
		}
		if (kind != T_NEWLINE || depth > 0) {
			if (kind == T_NEWLINE)
				line = i + 1;
			continue;
		}
		nk = i + 1 < t->n ? t->v[i + 1].kind : T_END;
		if (nk == T_INDENT || t->v[line].kind == '@' ||
		    nk == T_ELSE || nk == T_ELIF || nk == T_EXCEPT || nk == T_FINALLY) {
			line = i + 1;
			continue;
		}
		return i + 1;
	}
	return i;
}

/* Is the decorator expression starting at token i (after '@') one of
 * Warp's?  Returns 'k' (kernel), 'f' (func), 's' (struct), 'g'
 * (func_grad), 'r' (func_replay), 'v' (overload), 'o' (another Warp
 * decorator: func_native, ...) or 0. */
static int
warpdecorator(Kpyc *k, FileCtx *f, uint32_t i)
{
	const TokArray *t = &f->toks;
	const char *text = f->src->text;
	GVal v = gnone();
	char name[128];
	bool first = true;

	while (i < t->n && t->v[i].kind == T_NAME) {
		const Token *tk = &t->v[i];
		if (tk->len >= sizeof name)
			return 0;
		memcpy(name, text + tk->off, tk->len);
		name[tk->len] = 0;
		if (first) {
			const Global *g = gfind(f, name);
			if (!g)
				return 0;
			v = g->v;
			first = false;
		} else if (v.kind == G_WARP) {
			if (strcmp(name, "types") == 0 || strcmp(name, "context") == 0)
				v = gkind(G_WARP, "types");
			else
				v = wpname(k, name);
		} else {
			return 0;
		}
		i++;
		if (i < t->n && t->v[i].kind == '.')
			i++;
		else
			break;
	}
	if (v.kind != G_WPNAME)
		return 0;
	if (strcmp(v.s, "kernel") == 0)
		return 'k';
	if (strcmp(v.s, "func") == 0)
		return 'f';
	if (strcmp(v.s, "struct") == 0)
		return 's';
	if (strcmp(v.s, "func_grad") == 0)
		return 'g';
	if (strcmp(v.s, "func_replay") == 0)
		return 'r';
	if (strcmp(v.s, "overload") == 0)
		return 'v';
	if (strncmp(v.s, "func_", 5) == 0)
		return 'o';
	return 0;
}

/* A decorator at token i (after '@') that names a Warp decorator through
 * a root name this file does not bind (@wp.kernel with wp from a star
 * import, or no import at all): its last name, else NULL. */
static const char *
unbounddecorator(Kpyc *k, FileCtx *f, uint32_t i)
{
	static const char *const tails[] = {"kernel", "func", "struct", "func_grad", "func_replay", "func_native",
	                                    "overload"};
	const TokArray *t = &f->toks;
	uint32_t last;
	size_t j;
	char *root;

	if (i >= t->n || t->v[i].kind != T_NAME)
		return NULL;
	root = astrndup(k->a, f->src->text + t->v[i].off, t->v[i].len);
	if (gfind(f, root))
		return NULL;
	for (last = i; last + 2 < t->n && t->v[last + 1].kind == '.' && t->v[last + 2].kind == T_NAME; last += 2)
		;
	for (j = 0; j < countof(tails); j++)
		if (t->v[last].len == strlen(tails[j]) && memcmp(f->src->text + t->v[last].off, tails[j], t->v[last].len) == 0)
			return tails[j];
	return NULL;
}

static NodeList *parse(Kpyc *k, FileCtx *f, uint32_t from, uint32_t to, bool quiet);
static char *toktext(Kpyc *k, FileCtx *f, const Token *t);
static FuncDecl *declfunc(Kpyc *k, FileCtx *f, Node *def, int kind, const char *encl, const NameMap *closure);
static void decoptions(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, FuncDecl *fd);

/* The names the function whose tokens are [i, e) binds (a superset): its
 * parameters, assignment and for targets, `as`, import, def and class
 * names, walrus targets.  A kernel nested in it must not read them as
 * module names (Warp reads the function's). */
typedef struct ClosureConst {
	FileCtx *f;
	uint32_t from, to; /* the statement NAME = EXPR */
	int state;         /* 0 not evaluated, 1 being evaluated, 2 done */
	GVal v;
} ClosureConst;

/* Bind a name in a closure map: val (2 + a ClosureConst) the first time,
 * 1 (bound, value unknown) after. */
static void
closurebind(Kpyc *k, NameMap *m, const char *name, uint32_t val)
{
	nmput(k->a, m, name, nmget(m, name) == UINT32_MAX ? val : 1);
}

GVal
closureval(Kpyc *k, FileCtx *f, const NameMap *closure, const char *name, bool *isclosure)
{
	uint32_t i = nmget(closure, name);
	ClosureConst *cc;
	GVal v = gnone();

	*isclosure = i != UINT32_MAX;
	if (i == UINT32_MAX || i < 2)
		return v;
	cc = &k->cconsts[i - 2];
	if (cc->state == 2)
		return cc->v;
	if (cc->state == 1 || cc->f != f)
		return v; /* a cycle (N = M, M = N) */
	cc->state = 1;
	{
		NodeList *l = parse(k, f, cc->from, cc->to, true);
		const NameMap *saved = k->closure;
		k->closure = closure;
		if (l && l->n == 1 && l->v[0]->kind == S_ASSIGN && l->v[0]->l1.n == 1)
			v = geval(k, f, l->v[0]->a, true);
		k->closure = saved;
	}
	if (v.kind != G_CONST && v.kind != G_TYPE && v.kind != G_STR && v.kind != G_WPNAME && v.kind != G_FUNC)
		v = gnone();
	cc = &k->cconsts[i - 2]; /* the table may have grown */
	cc->v = v;
	cc->state = 2;
	return v;
}

static NameMap *
closurenames(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, bool params)
{
	const TokArray *t = &f->toks;
	NameMap *m = aalloc(k->a, sizeof *m);
	uint32_t j, x;
	int depth = 0, level = 0;

#define ADDNAME(ix) closurebind(k, m, toktext(k, f, &t->v[ix]), 1)
	for (j = i; j < e && t->v[j].kind != T_DEF; j++)
		;
	for (j += 2; j < e; j++) {
		int kd = t->v[j].kind;
		if (kd == '(' || kd == '[' || kd == '{') {
			depth++;
		} else if (kd == ')' || kd == ']' || kd == '}') {
			if (--depth <= 0)
				break;
		} else if (kd == T_NAME && depth == 1 && params) {
			int pk = t->v[j - 1].kind;
			if (pk == '(' || pk == ',' || pk == '*' || pk == T_POW)
				ADDNAME(j);
		}
	}
	for (; j < e; j++) {
		int kd = t->v[j].kind, pk = t->v[j - 1].kind;
		if (kd == T_INDENT)
			level++;
		else if (kd == T_DEDENT)
			level--;
		if (level == 1 && (pk == T_NEWLINE || pk == T_INDENT || pk == T_DEDENT) && kd == T_NAME &&
		    j + 2 < e && t->v[j + 1].kind == '=') {
			/* NAME = EXPR directly in the body: a constant if the only binding */
			int d = 0;
			bool one = true;
			for (x = j + 2; x < e && t->v[x].kind != T_NEWLINE; x++) {
				int xk = t->v[x].kind;
				if (xk == '(' || xk == '[' || xk == '{')
					d++;
				else if (xk == ')' || xk == ']' || xk == '}')
					d--;
				else if (d == 0 && (xk == '=' || xk == ','))
					one = false;
			}
			if (one && x < e) {
				ClosureConst cc;
				memset(&cc, 0, sizeof cc);
				cc.f = f;
				cc.from = j;
				cc.to = x + 1;
				APUSH(k->a, k->cconsts, k->ncconsts, k->capcconsts, cc);
				closurebind(k, m, toktext(k, f, &t->v[j]), k->ncconsts + 1);
				continue;
			}
		}
		if ((kd == T_AS || kd == T_DEF || kd == T_CLASS) && j + 1 < e && t->v[j + 1].kind == T_NAME) {
			ADDNAME(j + 1);
		} else if (kd == T_FOR) {
			for (x = j + 1; x < e && t->v[x].kind != T_IN && t->v[x].kind != T_NEWLINE; x++)
				if (t->v[x].kind == T_NAME)
					ADDNAME(x);
		} else if (kd == T_IMPORT || kd == T_GLOBAL || kd == T_NONLOCAL) {
			for (x = j + 1; x < e && t->v[x].kind != T_NEWLINE; x++)
				if (t->v[x].kind == T_NAME && t->v[x - 1].kind != '.')
					ADDNAME(x);
		} else if (kd == T_WALRUS && t->v[j - 1].kind == T_NAME) {
			ADDNAME(j - 1);
		} else if ((pk == T_NEWLINE || pk == T_INDENT || pk == T_DEDENT) &&
		           (kd == T_NAME || kd == '(' || kd == '[' || kd == '*')) {
			/* a statement: the names before its first =, op= or : at depth 0 */
			int d = 0;
			for (x = j; x < e && t->v[x].kind != T_NEWLINE; x++) {
				int xk = t->v[x].kind;
				if (xk == '(' || xk == '[' || xk == '{')
					d++;
				else if (xk == ')' || xk == ']' || xk == '}')
					d--;
				else if (d == 0 && (xk == '=' || xk == T_AUGASSIGN || xk == ':'))
					break;
			}
			if (x < e && t->v[x].kind != T_NEWLINE) {
				uint32_t y;
				for (y = j; y < x; y++) {
					int nk = y + 1 < e ? t->v[y + 1].kind : 0;
					if (t->v[y].kind == T_NAME && t->v[y - 1].kind != '.' && nk != '.' && nk != '(' && nk != '[')
						ADDNAME(y);
				}
			}
		}
	}
#undef ADDNAME
	return m;
}

/* The end (exclusive) of the definition whose decorators start at token
 * j: after the DEDENT that closes its body; 0 for a one-line body. */
static uint32_t
nestedend(const TokArray *t, uint32_t j, uint32_t e, uint32_t *defat)
{
	int depth = 0;

	while (j < e && t->v[j].kind == '@') {
		while (j < e && t->v[j].kind != T_NEWLINE)
			j++;
		j++;
	}
	if (j >= e || t->v[j].kind != T_DEF)
		return 0;
	*defat = j;
	while (j < e && t->v[j].kind != T_NEWLINE)
		j++;
	if (j + 1 >= e || t->v[j + 1].kind != T_INDENT)
		return 0;
	for (j++; j < e; j++) {
		if (t->v[j].kind == T_INDENT)
			depth++;
		else if (t->v[j].kind == T_DEDENT && --depth == 0)
			return j + 1;
	}
	return 0;
}

/* Warp definitions nested in the host statement [i, e) (a function, a
 * class, an if block).  A @wp.kernel directly in the body of a function
 * (encl: its name) is compiled as kernel encl__NAME, leniently: its
 * errors are warnings and it is left out, and it may not read a name the
 * function binds (Warp would read the function's).  Any other nested
 * definition is skipped, with a warning. */
static void
nesteddefs(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, const char *encl)
{
	const TokArray *t = &f->toks;
	NameMap *closure = NULL;
	uint32_t j, hi;
	int depth = 0;

	for (j = i + 1; j + 1 < e; j++) {
		int pk = t->v[j - 1].kind, w;
		uint32_t end, defat = 0;
		if (t->v[j].kind == T_INDENT)
			depth++;
		else if (t->v[j].kind == T_DEDENT)
			depth--;
		if (t->v[j].kind != '@' || (pk != T_NEWLINE && pk != T_INDENT && pk != T_DEDENT))
			continue;
		w = warpdecorator(k, f, j + 1);
		if (w == 'k' && encl && depth == 1 && (end = nestedend(t, j, e, &defat)) != 0) {
			NodeList *l = parse(k, f, j, end, true);
			if (l && l->n == 1 && l->v[0]->kind == S_DEF) {
				int nl = k->nlenient;
				FuncDecl *fd;
				if (!closure)
					closure = closurenames(k, f, i, e, true);
				k->lenient++;
				fd = declfunc(k, f, l->v[0], 'k', encl, closure);
				k->lenient--;
				if (k->nlenient != nl) {
					fd->bad = true;
					knote(k, "kernel '%s' (inside function '%s') does not compile; it is left out", l->v[0]->s,
					      encl);
				} else {
					decoptions(k, f, j, defat, fd);
				}
				j = end - 1;
				continue;
			}
		}
		if ((w == 'f' || w == 's') && encl && depth >= 1 && (hi = nmget(&f->hdmap, encl)) != UINT32_MAX &&
		    f->hdefs[hi].from == i) {
			/* reported at the end of the file unless a factory call compiles it */
			if (!f->hdefs[hi].hasfunc)
				f->hdefs[hi].funcloc = t->v[j].loc;
			f->hdefs[hi].hasfunc = true;
		} else if (w == 'k' || w == 'f' || w == 's')
			kwarn(k, t->v[j].loc, "a @wp.%s inside a function, class or block is not compiled: kpyc compiles "
			      "module-level definitions only", w == 'k' ? "kernel" : w == 'f' ? "func" : "struct");
	}
}

static char *
toktext(Kpyc *k, FileCtx *f, const Token *t)
{
	return astrndup(k->a, f->src->text + t->off, t->len);
}

/* ---- imports -------------------------------------------------------- */

static void
doimport(Kpyc *k, FileCtx *f, Node *s)
{
	uint32_t i;

	for (i = 0; i < s->l1.n; i++) {
		Node *al = s->l1.v[i];
		const char *mod = al->s, *bind = al->s2;
		GVal v;
		if (!bind) {
			/* import a.b binds a */
			const char *dot = strchr(mod, '.');
			bind = dot ? astrndup(k->a, mod, (size_t)(dot - mod)) : mod;
			mod = bind;
		}
		if (strcmp(mod, "warp") == 0)
			v = gkind(G_WARP, "");
		else if (strncmp(mod, "warp.", 5) == 0)
			v = gkind(G_WARP, mod + 5);
		else
			v = gkind(G_MODULE, mod);
		gbind(k, f, bind, v, al->loc);
	}
}

static void
dofrom(Kpyc *k, FileCtx *f, Node *s)
{
	uint32_t i;
	const char *mod = s->s;
	bool warp = s->u == 0 && (strcmp(mod, "warp") == 0 || strncmp(mod, "warp.", 5) == 0);

	for (i = 0; i < s->l1.n; i++) {
		Node *al = s->l1.v[i];
		const char *bind = al->s2 ? al->s2 : al->s;
		GVal v;
		if (strcmp(al->s, "*") == 0) {
			/* kpyc does not read the names a star import binds (not even
			 * warp's): a decorator that needs them is reported */
			if (!f->starmod)
				f->starmod = s->u ? "a relative module" : mod;
			continue;
		}
		if (warp) {
			if (strcmp(al->s, "types") == 0 || strcmp(al->s, "context") == 0 || strcmp(al->s, "_src") == 0)
				v = gkind(G_WARP, al->s);
			else
				v = wpname(k, al->s);
		} else if (s->u == 0) {
			v = modmember(k, mod, al->s);
		} else {
			v = gkind(G_HOST, NULL);
		}
		gbind(k, f, bind, v, al->loc);
	}
}

/* ---- definitions ---------------------------------------------------- */

static FuncDecl *declfunc(Kpyc *k, FileCtx *f, Node *def, int kind, const char *encl, const NameMap *closure);
static void declstruct(Kpyc *k, FileCtx *f, Node *cls);

/* Parse tokens [from, to) as statements; NULL on a syntax error. */
static NodeList *
parse(Kpyc *k, FileCtx *f, uint32_t from, uint32_t to, bool quiet)
{
	PState ps;
	NodeList *l;

	memset(&ps, 0, sizeof ps);
	ps.a = k->a;
	ps.src = f->src;
	ps.file = (uint32_t)f->index;
	ps.toks = &f->toks;
	ps.d = k->d;
	ps.quiet = quiet;
	ps.report = syntaxerr;
	ps.ctx = k;
	if (pyparse_unit(&ps, from, to) != 0 && quiet)
		return NULL;
	l = aalloc(k->a, sizeof *l);
	*l = ps.result;
	return l;
}

static FuncDecl *declfunc(Kpyc *k, FileCtx *f, Node *def, int kind, const char *encl, const NameMap *closure);
static NameMap *closurenames(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, bool params);

/* Is def decorated @wp.func (alone), or a class @wp.struct? */
static bool
funcdecorated(Kpyc *k, FileCtx *f, Node *def)
{
	GVal g;

	if ((def->kind != S_DEF && def->kind != S_CLASS) || def->l3.n != 1)
		return false;
	g = geval(k, f, def->l3.v[0], true);
	return g.kind == G_WPNAME && strcmp(g.s, def->kind == S_DEF ? "func" : "struct") == 0;
}

static void declstruct(Kpyc *k, FileCtx *f, Node *cls);

/* The @wp.func definitions of a factory's body l that Python runs, into
 * defs (at most max): definitions, and the branch an `if` whose condition
 * geval values (the closure: the factory's arguments) takes; *ret: the
 * name of the final `return NAME`.  False on any other statement. */
static bool
factorybody(Kpyc *k, FileCtx *f, NodeList *l, Node **defs, int *n, int max, const char **ret, bool top)
{
	uint32_t j;

	for (j = 0; j < l->n; j++) {
		Node *b = l->v[j];
		if (top && j == 0 && b->kind == S_EXPR && b->a->kind == E_STR)
			continue;
		if (b->kind == S_PASS)
			continue;
		if (funcdecorated(k, f, b)) {
			if (*n == max)
				return false;
			defs[(*n)++] = b;
			continue;
		}
		if (b->kind == S_IF) {
			GVal c = geval(k, f, b->a, true);
			Lit lt;
			if (c.kind != G_CONST || c.spec.ty.k != T_SCALAR || !c.lit.ok)
				return false;
			lt = c.lit;
			if (!factorybody(k, f, (lt.isint ? lt.i != 0 : lt.f != 0) ? &b->l1 : &b->l2, defs, n, max, ret, false))
				return false;
			continue;
		}
		if (top && j + 1 == l->n && b->kind == S_RETURN && b->a && b->a->kind == E_NAME) {
			*ret = b->a->s;
			continue;
		}
		return false;
	}
	return true;
}

/* NAME = FACTORY(args) at the top level, FACTORY a top-level def without
 * decorators whose body is @wp.func definitions of one name (overloads,
 * in ifs on the arguments too) and its return (an optional docstring
 * aside): Warp's function factory, which makes new functions at each
 * call, reading the factory's parameters from its closure.  kpyc declares
 * the functions once per call (FACTORY__f, their kir names numbered), the
 * parameters bound to the call's arguments when kpyc evaluates them
 * (constants, strings, types, functions; the others and the names the
 * body rebinds are closure names without a value), the function's name
 * to the overloads themselves, and binds NAME to them.  False if s is not
 * such a call (host code). */
static bool
factorycall(Kpyc *k, FileCtx *f, Node *s)
{
	Node *t, *call, *def, *fdefs[8];
	NodeList *l;
	NameMap *m;
	GVal *vals, v;
	const Global *g;
	const NameMap *saved;
	const char *ret = NULL;
	bool *set, ok;
	uint32_t hi, j, np, self;
	int nf = 0, q;
	FuncDecl *head = NULL, **tail = &head;

	if (s->kind != S_ASSIGN || s->l1.n != 1 || (t = s->l1.v[0])->kind != E_NAME)
		return false;
	call = s->a;
	if (call->kind != E_CALL || call->a->kind != E_NAME ||
	    (hi = nmget(&f->hdmap, call->a->s)) == UINT32_MAX ||
	    !(g = gfind(f, call->a->s)) || g->v.kind != G_HOST)
		return false;
	l = parse(k, f, f->hdefs[hi].from, f->hdefs[hi].to, true);
	if (!l || l->n != 1 || (def = l->v[0])->kind != S_DEF || def->l3.n)
		return false;
	/* the call's arguments, as Python binds them */
	np = def->l2.n;
	vals = aalloc(k->a, (np + 1) * sizeof *vals);
	set = aalloc(k->a, (np + 1) * sizeof *set);
	memset(set, 0, (np + 1) * sizeof *set);
	for (j = 0; j < np; j++)
		if (def->l2.v[j]->op != 0)
			return false; /* *args, **kwargs, / */
	if (call->l1.n > np)
		return false;
	for (j = 0; j < call->l1.n; j++) {
		if (call->l1.v[j]->kind == E_STARRED)
			return false;
		vals[j] = geval(k, f, call->l1.v[j], true);
		set[j] = true;
	}
	for (j = 0; j < call->l2.n; j++) {
		Node *kw = call->l2.v[j];
		uint32_t p;
		if (!kw->s)
			return false;
		for (p = 0; p < np && strcmp(def->l2.v[p]->s, kw->s) != 0; p++)
			;
		if (p == np || set[p])
			return false;
		vals[p] = geval(k, f, kw->a, true);
		set[p] = true;
	}
	for (j = 0; j < np; j++) {
		if (!set[j]) {
			if (!def->l2.v[j]->b)
				return false;
			vals[j] = geval(k, f, def->l2.v[j]->b, true);
		}
	}
	m = closurenames(k, f, f->hdefs[hi].from, f->hdefs[hi].to, false);
	for (j = 0; j < np; j++) {
		const char *pn = def->l2.v[j]->s;
		int kd = vals[j].kind;
		if (nmget(m, pn) != UINT32_MAX)
			continue; /* rebound in the body */
		if (kd == G_CONST || kd == G_STR || kd == G_TYPE || kd == G_WPNAME || kd == G_FUNC ||
		    (kd == G_PYNAME && (strcmp(vals[j].s, "builtins.int") == 0 || strcmp(vals[j].s, "builtins.float") == 0 ||
		                        strcmp(vals[j].s, "builtins.bool") == 0))) {
			ClosureConst cc;
			memset(&cc, 0, sizeof cc);
			cc.f = f;
			cc.state = 2;
			cc.v = vals[j];
			APUSH(k->a, k->cconsts, k->ncconsts, k->capcconsts, cc);
			nmput(k->a, m, pn, k->ncconsts + 1);
		} else {
			nmput(k->a, m, pn, 1);
		}
	}
	saved = k->closure;
	k->closure = m;
	ok = factorybody(k, f, &def->l1, fdefs, &nf, (int)countof(fdefs), &ret, true);
	k->closure = saved;
	if (!ok || !nf || !ret)
		return false;
	for (q = 0; q < nf; q++)
		if (strcmp(fdefs[q]->s, ret) != 0 || fdefs[q]->kind != fdefs[0]->kind)
			return false;
	if (fdefs[0]->kind == S_CLASS) {
		/* a struct factory: a new struct type per call, bound to NAME only */
		const Global *pg;
		GVal prev, sv;
		if (nf != 1)
			return false;
		pg = gfind(f, ret);
		prev = pg ? pg->v : gkind(G_HOST, NULL);
		f->hdefs[hi].used = true;
		k->closure = m;
		declstruct(k, f, fdefs[0]);
		k->closure = saved;
		sv = gfind(f, ret)->v;
		gbind(k, f, ret, prev, fdefs[0]->oploc);
		gbind(k, f, t->s, sv, t->loc);
		return true;
	}
	{
		/* the function's own name in its closure: its overloads (filled in below) */
		ClosureConst cc;
		memset(&cc, 0, sizeof cc);
		cc.f = f;
		cc.state = 2;
		APUSH(k->a, k->cconsts, k->ncconsts, k->capcconsts, cc);
		self = k->ncconsts - 1;
		nmput(k->a, m, ret, self + 2);
	}
	f->hdefs[hi].used = true;
	for (q = 0; q < nf; q++) {
		FuncDecl *fd = declfunc(k, f, fdefs[q], 'f', def->s, m);
		*tail = fd;
		tail = &fd->next;
	}
	v = gnone();
	v.kind = G_FUNC;
	v.fd = head;
	k->cconsts[self].v = v;
	gbind(k, f, t->s, v, t->loc);
	return true;
}

/* NAME = types.SimpleNamespace(a=..., b=...): Warp resolves NAME.a in a
 * kernel by getattr on the object, so each keyword whose value kpyc
 * evaluates (a constant, a string, a type, a builtin or @wp.func, the warp
 * module) becomes the module name "NAME.a" and NAME is bound as G_ENUM
 * with n 2; the others stay host code, reported where read.  Warp reads
 * the namespace in a call's function only (NS.f(x), NS.warp.tid()):
 * elsewhere (NS.a + 1) it is Warp's "Invalid external reference type".
 * False if val is not such a call. */
static bool
namespaceassign(Kpyc *k, FileCtx *f, Node *t, Node *val)
{
	GVal fn, v;
	uint32_t i;

	if (val->kind != E_CALL || val->l1.n)
		return false;
	fn = geval(k, f, val->a, true);
	if (fn.kind != G_PYNAME || strcmp(fn.s, "types.SimpleNamespace") != 0)
		return false;
	for (i = 0; i < val->l2.n; i++) {
		Node *kw = val->l2.v[i];
		if (!kw->s)
			return false; /* **mapping */
	}
	for (i = 0; i < val->l2.n; i++) {
		Node *kw = val->l2.v[i];
		v = geval(k, f, kw->a, true);
		if (v.kind != G_CONST && v.kind != G_STR && v.kind != G_TYPE && v.kind != G_WPNAME && v.kind != G_FUNC &&
		    v.kind != G_WARP && v.kind != G_ENUM)
			v = gkind(G_HOST, NULL);
		gbind(k, f, aprintf(k->a, "%s.%s", t->s, kw->s), v, kw->loc);
	}
	v = gkind(G_ENUM, t->s);
	v.n = 2;
	gbind(k, f, t->s, v, t->loc);
	return true;
}

static void
doassign(Kpyc *k, FileCtx *f, Node *s)
{
	Node *t;
	Node *val;
	GVal v;
	uint32_t i;

	if (s->kind == S_ANNASSIGN) {
		t = s->a;
		val = s->c;
		if (!val)
			return;
	} else {
		val = s->a;
		if (s->l1.n != 1) {
			for (i = 0; i < s->l1.n; i++)
				if (s->l1.v[i]->kind == E_NAME)
					gbind(k, f, s->l1.v[i]->s, gkind(G_HOST, NULL), s->l1.v[i]->loc);
			return;
		}
		t = s->l1.v[0];
	}
	if (t->kind == E_TUPLE) {
		for (i = 0; i < t->l1.n; i++)
			if (t->l1.v[i]->kind == E_NAME)
				gbind(k, f, t->l1.v[i]->s, gkind(G_HOST, NULL), t->l1.v[i]->loc);
		return;
	}
	if (t->kind != E_NAME)
		return;
	if (namespaceassign(k, f, t, val))
		return;
	v = geval(k, f, val, true);
	if (v.kind == G_TUPLE) {
		/* host data, but len() of it is known */
		v.kind = G_HOST;
	} else if (v.kind == G_NONE) {
		v = gkind(G_HOST, NULL);
	}
	gbind(k, f, t->s, v, t->loc);
}

/* Is token t the string "key" (either quote)? */
static bool
tokkey(const FileCtx *f, const Token *t, const char *key)
{
	size_t n = strlen(key);

	return t->kind == T_STRING && t->len == n + 2 && memcmp(f->src->text + t->off + 1, key, n) == 0 &&
	       (f->src->text[t->off] == '"' || f->src->text[t->off] == '\'');
}

static bool
tokis(const FileCtx *f, const Token *t, const char *name)
{
	size_t n = strlen(name);

	return t->len == n && memcmp(f->src->text + t->off, name, n) == 0;
}

/* Where the module options read go: a file's (set_module_options,
 * wp.config) or a kernel's (module_options, kernel: its name). */
typedef struct OptSink {
	bool *nobackward;
	bool *det;
	int *max_unroll; /* the option's value + 1 (0: not set) */
	const char *kernel;
} OptSink;

/* Warp 1.19's module options (Module.options): the keys a kernel's
 * module_options may name. */
static const char *const modopts[] = {
	"block_dim", "compile_time_trace", "cpu_compiler_flags", "cuda_output", "default_grid_stride",
	"deterministic", "deterministic_max_records", "enable_backward", "enable_mathdx_fft", "enable_mathdx_gemm",
	"enable_mathdx_solver", "extra_build_options", "fast_math", "fuse_fp", "lineinfo", "max_unroll", "mode",
	"optimization_level", "strip_hash",
};

/* The value of the module option opt (tokens [v, ve), its name at loc):
 * "enable_backward" sets *nobackward; "deterministic" sets *det (Warp's
 * deterministic mode: the same results on the CPU, where Warp runs the
 * threads in order; sema.c rejects, located, the kernels whose atomics
 * kpyc cannot vouch Warp accepts in that mode); "max_unroll" (an integer
 * literal) sets *max_unroll, for Warp's dynamic-loop rule; a negative
 * "deterministic_max_records" is an error, and "fast_math" or "fuse_fp"
 * (flags of Warp's C++ compilers, which kpy does not apply) a warning,
 * rather than ignored. */
static void
optvalue(Kpyc *k, FileCtx *f, Loc loc, const char *opt, uint32_t v, uint32_t ve, const OptSink *o)
{
	const TokArray *t = &f->toks;

	if (strcmp(opt, "enable_backward") == 0) {
		if (ve == v + 1 && t->v[v].kind == T_FALSE)
			*o->nobackward = true;
		else if (ve == v + 1 && t->v[v].kind == T_TRUE)
			*o->nobackward = false;
	} else if (strcmp(opt, "deterministic") == 0) {
		/* Warp takes a DeterministicMode only (False is a ValueError there) */
		bool mode = ve > v + 1 && t->v[ve - 1].kind == T_NAME && t->v[ve - 2].kind == '.';
		if (mode && tokis(f, &t->v[ve - 1], "NOT_GUARANTEED"))
			*o->det = false;
		else if (mode && (tokis(f, &t->v[ve - 1], "RUN_TO_RUN") || tokis(f, &t->v[ve - 1], "GPU_TO_GPU")))
			*o->det = true;
		else
			kerr(k, loc, "deterministic must be a warp.DeterministicMode value (wp.DeterministicMode.NOT_GUARANTEED, "
			     "RUN_TO_RUN or GPU_TO_GPU)");
	} else if (strcmp(opt, "deterministic_max_records") == 0) {
		/* a capacity of Warp's CUDA scatter buffers: nothing on the CPU */
		if (t->v[v].kind == '-' || t->v[v].kind == T_TRUE || t->v[v].kind == T_FALSE)
			kerr(k, loc, "deterministic_max_records must be a non-negative integer");
	} else if (strcmp(opt, "fast_math") == 0 || strcmp(opt, "fuse_fp") == 0) {
		bool dflt = ve == v + 1 && t->v[v].kind == (opt[1] == 'a' ? T_FALSE : T_TRUE);
		if (!dflt)
			kwarn(k, loc, "kpy does not apply the module option \"%s\" (a flag of Warp's C++ compilers): "
			      "results may differ from Warp's in rounding", opt);
	} else if (strcmp(opt, "max_unroll") == 0) {
		char buf[16];
		const Token *n = &t->v[v];
		if (ve == v + 1 && n->kind == T_NUMBER && n->len < 10) {
			memcpy(buf, f->src->text + n->off, n->len);
			buf[n->len] = 0;
			if (strspn(buf, "0123456789") == n->len) {
				*o->max_unroll = atoi(buf) + 1;
				return;
			}
		}
		kerr(k, loc, "kpyc reads the module option \"max_unroll\" as an integer literal only");
	}
}

/* The module options of a dict display in tokens [i, e) (a dict is host
 * syntax kpyc does not parse), each as optvalue reads it; a kernel's
 * module_options may name Warp's options only. */
static void
optdict(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, const OptSink *o)
{
	const TokArray *t = &f->toks;
	uint32_t j;
	size_t m;

	for (j = i; j + 2 < e; j++) {
		const Token *key = &t->v[j];
		uint32_t v = j + 2, ve;
		int depth = 0;
		if (key->kind != T_STRING || t->v[j + 1].kind != ':')
			continue;
		/* the value: to the next ',' or '}' outside brackets */
		for (ve = v; ve < e; ve++) {
			int kd = t->v[ve].kind;
			if (kd == '(' || kd == '[' || kd == '{')
				depth++;
			else if ((kd == ')' || kd == ']' || kd == '}') && depth-- == 0)
				break;
			else if (kd == ',' && depth == 0)
				break;
		}
		if (ve == v)
			continue;
		for (m = 0; m < countof(modopts) && !tokkey(f, key, modopts[m]); m++)
			;
		if (m == countof(modopts)) {
			if (o->kernel)
				kerr(k, key->loc, "@wp.kernel for '%s': unknown module_options: %.*s", o->kernel, (int)key->len,
				     f->src->text + key->off);
		} else {
			optvalue(k, f, key->loc, modopts[m], v, ve, o);
		}
		j = ve - 1;
	}
}

/* WARP.set_module_options({...}) at the top level: recognized by its
 * tokens. */
static void
moduleoptions(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e)
{
	const TokArray *t = &f->toks;
	const char *text = f->src->text;

	if (e - i < 6 || t->v[i + 1].kind != '.' || t->v[i + 2].kind != T_NAME ||
	    t->v[i + 2].len != 18 || memcmp(text + t->v[i + 2].off, "set_module_options", 18) != 0)
		return;
	{
		char *name = toktext(k, f, &t->v[i]);
		const Global *g = gfind(f, name);
		if (!g || g->v.kind != G_WARP)
			return;
	}
	{
		OptSink o = {&f->nobackward, &f->det, &f->max_unroll, NULL};
		optdict(k, f, i + 3, e, &o);
	}
}

/* WARP.config.NAME = VALUE at the top level (tokens [i, e)): Warp's
 * global defaults of the same options. */
static void
configassign(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e)
{
	const TokArray *t = &f->toks;
	OptSink o = {&f->nobackward, &f->det, &f->max_unroll, NULL};
	uint32_t ve = e;
	size_t j;

	if (e - i < 7 || t->v[i + 1].kind != '.' || t->v[i + 2].kind != T_NAME || !tokis(f, &t->v[i + 2], "config") ||
	    t->v[i + 3].kind != '.' || t->v[i + 4].kind != T_NAME || t->v[i + 5].kind != '=')
		return;
	{
		const Global *g = gfind(f, toktext(k, f, &t->v[i]));
		if (!g || g->v.kind != G_WARP)
			return;
	}
	while (ve > i + 6 && (t->v[ve - 1].kind == T_NEWLINE || t->v[ve - 1].kind == T_DEDENT))
		ve--;
	if (ve == i + 6)
		return;
	for (j = 0; j < countof(modopts); j++)
		if (tokis(f, &t->v[i + 4], modopts[j]))
			optvalue(k, f, t->v[i + 4].loc, modopts[j], i + 6, ve, &o);
}

/* @wp.kernel(module_options={...}) in the decorator tokens [i, e).  As
 * Warp 1.19: the options are a dict (or None), for a module="unique". */
static void
decoptions(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, FuncDecl *fd)
{
	const TokArray *t = &f->toks;
	uint32_t j, m;
	bool unique = false;

	for (m = i; m + 2 < e; m++)
		if (t->v[m].kind == T_NAME && tokis(f, &t->v[m], "module") && t->v[m + 1].kind == '=' &&
		    (tokis(f, &t->v[m + 2], "\"unique\"") || tokis(f, &t->v[m + 2], "'unique'")))
			unique = true;
	for (j = i; j + 2 < e; j++)
		if (t->v[j].kind == T_NAME && tokis(f, &t->v[j], "module_options") && t->v[j + 1].kind == '=') {
			if (tokis(f, &t->v[j + 2], "None"))
				continue;
			if (t->v[j + 2].kind != '{')
				kerr(k, t->v[j + 2].loc, "module_options must be a dict");
			else if (!unique)
				kerr(k, t->v[j].loc, "module_options requires module=\"unique\"; use wp.set_module_options() "
				     "to set module-level options for a shared module");
			else
			{
				OptSink o = {&fd->nobackward, &fd->det, &fd->max_unroll, fd->def->s};
				optdict(k, f, j + 2, e, &o);
			}
		}
}

/* ---- kernel overloads ------------------------------------------------ */

/* Does concrete type t fit the parameter annotation s (Warp's
 * type_matches_template)? */
static bool
fitsspec(const TySpec *s, Type t)
{
	if (s->any)
		return t.k != T_STR;
	if (s->anydtype)
		return t.k == T_ARRAY && t.nd == s->ty.nd;
	return typeeq(s->ty, t);
}

static const char *
specstr(Kpyc *k, const TySpec *s)
{
	if (s->any)
		return "typing.Any";
	if (s->anydtype)
		return aprintf(k->a, "array(ndim=%d, dtype=typing.Any)", s->ty.nd);
	return wptypename(k->m, s->ty);
}

/* Add an overload of the generic kernel fd: types[i] is the annotation of
 * parameter i (NULL: keep the kernel's own, a wp.overload dict that does
 * not name it).  Checked as Warp's Kernel.add_overload does; an overload
 * already declared is not added twice. */
static void
addoverload(Kpyc *k, FileCtx *f, FuncDecl *fd, Node **types, Loc loc)
{
	Type *args = aalloc(k->a, (size_t)(fd->nparams + 1) * sizeof *args);
	KOverload o;
	uint32_t n;
	int i;

	for (i = 0; i < fd->nparams; i++) {
		TySpec ts;
		Loc at = types[i] ? types[i]->loc : loc;
		if (!types[i])
			ts = fd->params[i].spec;
		else if (!evaltype(k, f, types[i], &ts, false))
			return;
		if (ts.any || ts.anydtype) {
			kerr(k, at, "Kernel %s argument '%s' cannot be generic, got %s", fd->name, fd->params[i].name,
			     specstr(k, &ts));
			return;
		}
		if (!fitsspec(&fd->params[i].spec, ts.ty)) {
			kerr(k, at, "Kernel %s argument '%s' type mismatch: expected %s, got %s", fd->name,
			     fd->params[i].name, specstr(k, &fd->params[i].spec), wptypename(k->m, ts.ty));
			return;
		}
		args[i] = ts.ty;
	}
	for (n = 0; n < fd->novls; n++) {
		for (i = 0; i < fd->nparams && typeeq(fd->ovls[n].args[i], args[i]); i++)
			;
		if (i == fd->nparams)
			return;
	}
	o.args = args;
	o.loc = loc;
	APUSH(k->a, fd->ovls, fd->novls, fd->capovls, o);
}

/* ---- launches: Warp's instantiation of generic kernels ------------------ */

/* The value bound to NAME in the function body l when one plain
 * `NAME = value` is its only binding there (nested blocks included,
 * nested defs not); else NULL.  *n counts the bindings. */
static Node *
onebinding(const NodeList *l, const char *name, int *n)
{
	Node *v = NULL, *w;
	uint32_t i, j;

	for (i = 0; i < l->n; i++) {
		Node *s = l->v[i];
		if (s->kind == S_ASSIGN) {
			for (j = 0; j < s->l1.n; j++) {
				Node *t = s->l1.v[j];
				if (t->kind == E_NAME && strcmp(t->s, name) == 0) {
					(*n)++;
					v = s->l1.n == 1 ? s->a : NULL;
				} else if (t->kind != E_NAME && t->kind != E_SUBSCRIPT && t->kind != E_ATTR) {
					(*n)++; /* a tuple target: assume it binds the name */
				}
			}
		} else if ((s->kind == S_AUGASSIGN || s->kind == S_ANNASSIGN) && s->a->kind == E_NAME &&
		           strcmp(s->a->s, name) == 0) {
			(*n) += 2;
		} else if (s->kind == S_FOR) {
			(*n) += s->a->kind != E_NAME || strcmp(s->a->s, name) == 0 ? 2 : 0;
		} else if (s->kind == S_UNSUP) {
			(*n) += 2; /* with, try...: not read */
		}
		if (s->kind == S_IF || s->kind == S_FOR || s->kind == S_WHILE) {
			if ((w = onebinding(&s->l1, name, n)))
				v = w;
			if ((w = onebinding(&s->l2, name, n)))
				v = w;
		}
	}
	return *n == 1 ? v : NULL;
}

/* The type Warp infers for launch argument e of a function whose body is
 * body, read without running it (as Warp's infer_argument_types sees the
 * value): a literal (int32, float32, bool), a Warp type's constructor
 * wp.vec3(...), or an array made by wp.zeros/empty/ones/full(shape,
 * dtype=T) (its shape a tuple: that many dimensions; an int, a module int
 * constant or a local bound once to an int, int() or len(): one; anything
 * else may have any number) or wp.array(flat list or tuple of literals,
 * dtype=T);
 * a name bound once in the body to one of those.  False if unknown. */
static bool
launchtype(Kpyc *k, FileCtx *f, const NodeList *body, Node *e, Type *t, int depth)
{
	GVal g;
	TySpec ts;
	Node *dt, *shape;
	const char *maker;
	int n = 0, nd = 1;
	uint32_t i;

	if (depth > 8)
		return false;
	switch (e->kind) {
	case E_INT:
		*t = tscalar(S_I32);
		return !e->big;
	case E_FLOAT:
		*t = tscalar(S_F32);
		return true;
	case E_BOOL:
		*t = tscalar(S_BOOL);
		return true;
	case E_UNARY:
		return e->op == U_NEG && (e->a->kind == E_INT || e->a->kind == E_FLOAT) &&
		       launchtype(k, f, body, e->a, t, depth + 1);
	case E_NAME:
		if (!(e = onebinding(body, e->s, &n)))
			return false;
		return launchtype(k, f, body, e, t, depth + 1);
	case E_CALL:
		break;
	default:
		return false;
	}
	g = geval(k, f, e->a, true);
	if (g.kind == G_TYPE && !g.spec.any && !g.spec.anydtype && g.spec.ty.k != T_ARRAY) {
		*t = g.spec.ty;
		return true;
	}
	if (g.kind != G_WPNAME || !(strcmp(g.s, "zeros") == 0 || strcmp(g.s, "empty") == 0 || strcmp(g.s, "ones") == 0 ||
	                            strcmp(g.s, "full") == 0 || strcmp(g.s, "array") == 0))
		return false;
	maker = g.s;
	if (!(dt = kwarg(e, "dtype")))
		return false;
	g = geval(k, f, dt, true);
	if (!gvaltype(&g, &ts) || ts.any || ts.anydtype || ts.ty.k == T_ARRAY || ts.ty.k == T_VOID)
		return false;
	shape = kwarg(e, "shape");
	if (strcmp(maker, "array") == 0) {
		/* wp.array(data, dtype=T): flat data of literals */
		Node *data = e->l1.n ? e->l1.v[0] : kwarg(e, "data");
		if (shape || !data || (data->kind != E_LIST && data->kind != E_TUPLE) || !data->l1.n)
			return false;
		for (i = 0; i < data->l1.n; i++) {
			Node *d = data->l1.v[i]->kind == E_UNARY ? data->l1.v[i]->a : data->l1.v[i];
			if (d->kind != E_INT && d->kind != E_FLOAT && d->kind != E_BOOL)
				return false;
		}
	} else {
		if (!shape && e->l1.n)
			shape = e->l1.v[0];
		if (!shape)
			return false;
		int nb = 0, nb2 = 0;
		if (shape->kind == E_NAME && !onebinding(body, shape->s, &nb) && nb == 0) {
			/* a module constant: an int is one dimension */
			GVal sg = geval(k, f, shape, true);
			Lit l;
			if (!numval(&sg, &l) || !l.isint)
				return false;
		} else if (shape->kind == E_NAME) {
			/* a local bound once to an int, int(...) or len(...) */
			Node *b = onebinding(body, shape->s, &nb2);
			if (b && (b->kind == E_TUPLE || b->kind == E_LIST) && b->l1.n >= 1 && b->l1.n <= MAXDIM)
				nd = (int)b->l1.n;
			else if (!b || !(b->kind == E_INT || (b->kind == E_CALL && b->a->kind == E_NAME &&
			                                      (strcmp(b->a->s, "int") == 0 || strcmp(b->a->s, "len") == 0))))
				return false;
		} else if (shape->kind == E_TUPLE || shape->kind == E_LIST) {
			if (shape->l1.n < 1 || shape->l1.n > MAXDIM)
				return false;
			nd = (int)shape->l1.n;
		} else if (shape->kind != E_INT) {
			return false; /* a.shape, a call: any number of dimensions */
		}
	}
	*t = tarray(ts.ty, nd);
	return true;
}

static bool fitsspec(const TySpec *s, Type t);

/* wp.launch(K, dim, inputs=[...], outputs=[...]) call c in a function
 * whose body is body, K a generic kernel the file declares no overload
 * of: Warp instantiates K for the arguments' types at the launch; where
 * launchtype reads them all, kpyc declares that overload (the launches'
 * order, a repeated one once). */
static void
launchoverload(Kpyc *k, FileCtx *f, const NodeList *body, Node *c)
{
	Node *kn = c->l1.n ? c->l1.v[0] : kwarg(c, "kernel"), *parts[2], *args[64];
	const Global *g;
	FuncDecl *fd;
	Type *types;
	KOverload o;
	uint32_t n = 0, i, j, q;
	int p;

	if (!kn || kn->kind != E_NAME || !(g = gfind(f, kn->s)) || g->v.kind != G_KERNEL || !(fd = g->v.fd) ||
	    !fd->generic || fd->bad || !fd->def || fd->closure || fd->launched < 0)
		return;
	if (fd->novls && !fd->launched) {
		fd->launched = -1; /* declared overloads: Warp's launches add to them, kpyc takes those only */
		return;
	}
	parts[0] = c->l1.n > 2 ? c->l1.v[2] : kwarg(c, "inputs");
	parts[1] = kwarg(c, "outputs");
	for (q = 0; q < 2; q++) {
		if (!parts[q])
			continue;
		for (i = 0; (parts[q]->kind == E_LIST || parts[q]->kind == E_TUPLE) && i < parts[q]->l1.n; i++) {
			if (n == countof(args) || parts[q]->l1.v[i]->kind == E_STARRED)
				break;
			args[n++] = parts[q]->l1.v[i];
		}
		if ((parts[q]->kind != E_LIST && parts[q]->kind != E_TUPLE) || i < parts[q]->l1.n) {
			kwarn(k, parts[q]->loc, "kpyc cannot read the arguments of this launch of generic kernel '%s' "
			      "without running the file; the kernel is not compiled for this launch", fd->name);
			return;
		}
	}
	if ((int)n != fd->nparams) {
		kwarn(k, c->loc, "this launch of generic kernel '%s' passes %u arguments for %d parameters; kpyc "
		      "does not compile the kernel for it", fd->name, n, fd->nparams);
		return;
	}
	types = aalloc(k->a, (n + 1) * sizeof *types);
	for (p = 0; p < fd->nparams; p++) {
		const TySpec *sp = &fd->params[p].spec;
		if (!sp->any && !sp->anydtype) {
			types[p] = sp->ty;
			continue;
		}
		if (!launchtype(k, f, body, args[p], &types[p], 0) || !fitsspec(sp, types[p])) {
			kwarn(k, args[p]->loc, "kpyc cannot tell the type of this argument of generic kernel '%s' "
			      "without running the file; the kernel is not compiled for this launch", fd->name);
			return;
		}
	}
	for (j = 0; j < fd->novls; j++) {
		for (p = 0; p < fd->nparams && typeeq(fd->ovls[j].args[p], types[p]); p++)
			;
		if (p == fd->nparams)
			return;
	}
	o.args = types;
	o.loc = c->loc;
	APUSH(k->a, fd->ovls, fd->novls, fd->capovls, o);
	fd->launched = 1;
}

/* Every wp.launch call under node n of the function whose body is body
 * (a nested def is a function of its own). */
static void
findlaunches(Kpyc *k, FileCtx *f, const NodeList *body, Node *n, int depth)
{
	uint32_t i;
	GVal g;

	if (!n || depth > 200)
		return;
	if (n->kind == S_DEF) {
		for (i = 0; i < n->l1.n; i++)
			findlaunches(k, f, &n->l1, n->l1.v[i], depth + 1);
		return;
	}
	if (n->kind == E_CALL && (n->a->kind == E_ATTR || n->a->kind == E_NAME) &&
	    (g = geval(k, f, n->a, true)).kind == G_WPNAME && strcmp(g.s, "launch") == 0)
		launchoverload(k, f, body, n);
	findlaunches(k, f, body, n->a, depth + 1);
	findlaunches(k, f, body, n->b, depth + 1);
	findlaunches(k, f, body, n->c, depth + 1);
	for (i = 0; i < n->l1.n; i++)
		findlaunches(k, f, body, n->l1.v[i], depth + 1);
	for (i = 0; i < n->l2.n; i++)
		findlaunches(k, f, body, n->l2.v[i], depth + 1);
}

/* The launches in the file's top-level plain functions (Warp's tests
 * and examples launch there). */
static void
launches(Kpyc *k, FileCtx *f)
{
	uint32_t i;

	for (i = 0; i < f->nhdefs; i++) {
		NodeList *l = parse(k, f, f->hdefs[i].from, f->hdefs[i].to, true);
		if (l && l->n == 1 && l->v[0]->kind == S_DEF)
			findlaunches(k, f, &l->v[0]->l1, l->v[0], 0);
	}
}

/* The kernel a wp.overload names (a module-level @wp.kernel), else NULL
 * (reported where Warp rejects it). */
static FuncDecl *
overloadtarget(Kpyc *k, FileCtx *f, const char *name, Loc loc)
{
	const Global *g = gfind(f, name);

	if (!g || g->v.kind != G_KERNEL || !g->v.fd)
		return NULL;
	if (g->v.fd->bad || !g->v.fd->def)
		return NULL;
	if (!g->v.fd->generic) {
		kerr(k, loc, "Only generic kernels can be overloaded.  Kernel %s is not generic", name);
		return NULL;
	}
	return g->v.fd;
}

/* The WARP.overload(...) call statement s is, alone or assigned, else NULL. */
static Node *
overloadof(Kpyc *k, FileCtx *f, Node *s)
{
	Node *call = s->kind == S_EXPR ? s->a : s->kind == S_ASSIGN ? s->a : NULL;
	GVal fn;

	if (!call || call->kind != E_CALL)
		return NULL;
	fn = geval(k, f, call->a, true);
	if (fn.kind != G_WPNAME || strcmp(fn.s, "overload") != 0)
		return NULL;
	return call;
}

static void overloadnode(Kpyc *k, FileCtx *f, Node *call);

/* WARP.overload(KERNEL, [types]) or WARP.overload(KERNEL, {"name": type})
 * at the top level, alone or assigned (tokens [i, e)). */
static void
overloadcall(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e)
{
	const TokArray *t = &f->toks;
	NodeList *l;
	Node *call;
	uint32_t j;

	for (j = i; j + 1 < e && j < i + 6; j++)
		if (t->v[j].kind == T_NAME && tokis(f, &t->v[j], "overload") && t->v[j + 1].kind == '(')
			break;
	if (j + 1 >= e || j >= i + 6)
		return;
	l = parse(k, f, i, e, true);
	if (!l || l->n != 1 || !(call = overloadof(k, f, l->v[0])))
		return;
	overloadnode(k, f, call);
}

/* for NAME in (T1, T2, ...): WARP.overload(K, [...]) at the top level
 * (tokens [i, e)): Warp declares an overload per element.  kpyc reads a
 * loop over a tuple or list display (of tuples, for NAME, NAME2 in ...)
 * whose body is wp.overload calls only, each call once per element with
 * the names bound to its values (they stay bound to the last, as in
 * Python); any other loop is host code, not read. */
static void
overloadloop(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e)
{
	NodeList *l = parse(k, f, i, e, true);
	Node *s, *it, *tg, *names[MAXDIM * 2];
	GVal *vals;
	uint32_t j, q, nn;

	if (!l || l->n != 1 || (s = l->v[0])->kind != S_FOR || s->l2.n || !s->l1.n)
		return;
	it = s->b;
	tg = s->a;
	if (it->kind != E_TUPLE && it->kind != E_LIST)
		return;
	if (tg->kind == E_NAME) {
		names[0] = tg;
		nn = 1;
	} else if (tg->kind == E_TUPLE && tg->l1.n >= 1 && tg->l1.n <= countof(names)) {
		for (nn = 0; nn < tg->l1.n; nn++) {
			if (tg->l1.v[nn]->kind != E_NAME)
				return;
			names[nn] = tg->l1.v[nn];
		}
	} else {
		return;
	}
	for (j = 0; j < s->l1.n; j++)
		if (s->l1.v[j]->kind != S_PASS && !overloadof(k, f, s->l1.v[j]))
			return;
	vals = aalloc(k->a, (it->l1.n * nn + 1) * sizeof *vals);
	for (j = 0; j < it->l1.n; j++) {
		Node *el = it->l1.v[j];
		if (nn > 1 && (el->kind != E_TUPLE || el->l1.n != nn))
			return;
		for (q = 0; q < nn; q++) {
			GVal v = geval(k, f, nn > 1 ? el->l1.v[q] : el, true);
			if (v.kind == G_NONE || v.kind == G_HOST)
				return;
			vals[j * nn + q] = v;
		}
	}
	for (j = 0; j < it->l1.n; j++) {
		uint32_t b;
		int nerr = k->d->nerr;
		for (q = 0; q < nn; q++)
			gbind(k, f, names[q]->s, vals[j * nn + q], names[q]->loc);
		for (b = 0; b < s->l1.n && k->d->nerr == nerr; b++)
			if (s->l1.v[b]->kind != S_PASS)
				overloadnode(k, f, overloadof(k, f, s->l1.v[b]));
		if (k->d->nerr != nerr)
			break; /* Python stops at the first exception */
	}
}

/* The overload call node call: its kernel and types. */
static void
overloadnode(Kpyc *k, FileCtx *f, Node *call)
{
	Node *kn = NULL, *tn = NULL, **types;
	FuncDecl *fd;
	uint32_t j;

	if (call->l1.n > 0)
		kn = call->l1.v[0];
	if (call->l1.n > 1)
		tn = call->l1.v[1];
	for (j = 0; j < call->l2.n; j++) {
		Node *kw = call->l2.v[j];
		if (kw->s && strcmp(kw->s, "kernel") == 0)
			kn = kw->a;
		else if (kw->s && strcmp(kw->s, "arg_types") == 0)
			tn = kw->a;
	}
	if (!kn || kn->kind != E_NAME || !(fd = overloadtarget(k, f, kn->s, kn->loc)))
		return;
	if (!tn || tn->kind == E_NONE) {
		kerr(k, call->loc, "Invalid number of arguments for kernel %s", kn->s);
		return;
	}
	types = aalloc(k->a, (size_t)(fd->nparams + 1) * sizeof *types);
	if (tn->kind == E_BINOP && tn->op == B_MUL && tn->a->kind == E_LIST && tn->b->kind == E_INT && !tn->b->big &&
	    tn->b->u <= (uint64_t)fd->nparams && tn->a->l1.n * tn->b->u == (uint64_t)fd->nparams) {
		/* [wp.array[T]] * 4 */
		for (j = 0; j < (uint32_t)fd->nparams; j++)
			types[j] = tn->a->l1.v[j % tn->a->l1.n];
	} else if (tn->kind == E_LIST) {
		if ((int)tn->l1.n != fd->nparams) {
			kerr(k, tn->loc, "Invalid number of arguments for kernel %s", kn->s);
			return;
		}
		for (j = 0; j < tn->l1.n; j++)
			types[j] = tn->l1.v[j];
	} else if (tn->kind == E_UNSUP && strcmp(tn->s, "ast.Dict") == 0) {
		for (j = 0; j < tn->l1.n; j++) {
			Node *it = tn->l1.v[j];
			int p;
			if (!it->b || it->b->kind != E_STR) {
				kerr(k, it->loc, "kpyc reads wp.overload dicts whose keys are parameter names (strings)");
				return;
			}
			for (p = 0; p < fd->nparams && strcmp(fd->params[p].name, it->b->s) != 0; p++)
				;
			if (p == fd->nparams) {
				kerr(k, it->b->loc, "Invalid argument name '%s' in overload of kernel %s", it->b->s, kn->s);
				return;
			}
			types[p] = it->a;
		}
	} else {
		kerr(k, tn->loc, "Kernel overload types must be given in a list or dict");
		return;
	}
	addoverload(k, f, fd, types, call->loc);
}

/* @WARP.overload on a def (d): an overload of the generic kernel of that
 * name, its types the stub's annotations, its body empty as Warp requires.
 * False if d names no kernel (a @wp.func overload: kpyc instantiates
 * generic functions for the types they are called with anyway). */
static bool
overloadstub(Kpyc *k, FileCtx *f, Node *d)
{
	const Global *g = gfind(f, d->s);
	FuncDecl *fd;
	Node **types;
	uint32_t j;
	int np = 0;

	if (!g || g->v.kind != G_KERNEL)
		return false;
	if (!(fd = overloadtarget(k, f, d->s, d->loc)))
		return true;
	for (j = 0; j < d->l1.n; j++) {
		Node *s = d->l1.v[j];
		if (s->kind == S_PASS || (s->kind == S_EXPR && (s->a->kind == E_STR || s->a->kind == E_ELLIPSIS)))
			continue;
		kerr(k, s->loc, "Illegal statement in kernel overload definition.  Only pass, ellipsis (...), comments, "
		     "or docstrings are allowed");
		return true;
	}
	if (d->a && d->a->kind != E_NONE) {
		kerr(k, d->a->loc, "Return annotations are not allowed on @wp.overload stubs; omit the return annotation "
		     "or use `-> None`.");
		return true;
	}
	types = aalloc(k->a, (d->l2.n + 1) * sizeof *types);
	for (j = 0; j < d->l2.n; j++) {
		Node *p = d->l2.v[j];
		if (p->op == '/')
			continue;
		if (p->op == '*' || p->op == 'k' || !p->a) {
			kerr(k, p->loc, "Incomplete argument annotations on kernel overload %s", d->s);
			return true;
		}
		types[np++] = p->a;
	}
	if (np != fd->nparams) {
		kerr(k, d->loc, "Invalid number of arguments for kernel %s", d->s);
		return true;
	}
	addoverload(k, f, fd, types, d->loc);
	return true;
}

/* ---- enums ------------------------------------------------------------ */

/* A plain class (no base but object) at the top level: Warp reads
 * CLASS.NAME in a kernel as the class attribute's value, so each
 * attribute bound to a constant kpyc evaluates (ONE = wp.constant(1),
 * DISABLED = False) becomes the module name "CLASS.NAME"; the class is
 * bound as G_ENUM (n 1: a plain class) when it has one, else it stays
 * host code (false). */
static bool
classconsts(Kpyc *k, FileCtx *f, Node *cls)
{
	uint32_t j;
	int n = 0;
	GVal v;

	for (j = 0; j < cls->l1.n; j++) {
		Node *s = cls->l1.v[j];
		if (s->kind != S_ASSIGN || s->l1.n != 1 || s->l1.v[0]->kind != E_NAME)
			continue;
		v = geval(k, f, s->a, true);
		if (v.kind != G_CONST)
			continue;
		gbind(k, f, aprintf(k->a, "%s.%s", cls->s, s->l1.v[0]->s), v, s->l1.v[0]->loc);
		n++;
	}
	if (!n)
		return false;
	v = gkind(G_ENUM, cls->s);
	v.n = 1;
	gbind(k, f, cls->s, v, cls->oploc);
	return true;
}

/* class NAME(enum.IntEnum) or (enum.IntFlag) at the top level (tokens
 * [i, e); a class with no base goes to classconsts), whose members are
 * integer constants or enum.auto(): Warp reads
 * a member as the int it is (an int32 constant).  Binds NAME as G_ENUM
 * and each member as "NAME.MEMBER"; false (nothing bound) for any other
 * class or member kpyc cannot value, which stays host code. */
static bool
intenum(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e)
{
	NodeList *l;
	Node *cls;
	GVal b, v;
	bool flag;
	int64_t last = 0, hi = 0, *vals;
	uint32_t j;
	int n = 0;

	if (i + 2 >= e || (f->toks.v[i + 2].kind != '(' && f->toks.v[i + 2].kind != ':'))
		return false;
	l = parse(k, f, i, e, true);
	if (!l || l->n != 1 || l->v[0]->kind != S_CLASS)
		return false;
	cls = l->v[0];
	if (cls->l2.n == 0 || (cls->l2.n == 1 && (b = geval(k, f, cls->l2.v[0], true)).kind == G_PYNAME &&
	                       strcmp(b.s, "builtins.object") == 0))
		return classconsts(k, f, cls);
	if (cls->l2.n != 1)
		return false;
	b = geval(k, f, cls->l2.v[0], true);
	if (b.kind != G_PYNAME || (strcmp(b.s, "enum.IntEnum") != 0 && strcmp(b.s, "enum.IntFlag") != 0))
		return false;
	flag = strcmp(b.s, "enum.IntFlag") == 0;
	/* every statement a member, a docstring or pass */
	for (j = 0; j < cls->l1.n; j++) {
		Node *s = cls->l1.v[j];
		if (s->kind == S_PASS || (s->kind == S_EXPR && s->a->kind == E_STR))
			continue;
		if (s->kind != S_ASSIGN || s->l1.n != 1 || s->l1.v[0]->kind != E_NAME)
			return false;
	}
	vals = aalloc(k->a, (cls->l1.n + 1) * sizeof *vals);
	for (j = 0; j < cls->l1.n; j++) {
		Node *s = cls->l1.v[j], *val;
		int64_t x;
		Lit lit;
		if (s->kind != S_ASSIGN)
			continue;
		val = s->a;
		if (val->kind == E_CALL && val->l1.n == 0 && val->l2.n == 0 &&
		    (v = geval(k, f, val->a, true)).kind == G_PYNAME && strcmp(v.s, "enum.auto") == 0) {
			/* enum's _generate_next_value_: IntEnum counts from 1, IntFlag
			 * takes the next power of two */
			if (!flag)
				x = n ? last + 1 : 1;
			else {
				x = 1;
				while (x <= hi && x < ((int64_t)1 << 62))
					x <<= 1;
			}
		} else {
			v = geval(k, f, val, true);
			if (v.kind != G_CONST || !numval(&v, &lit) || !lit.isint)
				return false; /* a member kpyc cannot value: host code */
			x = lit.i;
		}
		if (x < INT32_MIN || x > INT32_MAX)
			return false;
		vals[j] = last = x;
		if (x > hi)
			hi = x;
		n++;
	}
	for (j = 0; j < cls->l1.n; j++) {
		Node *s = cls->l1.v[j];
		if (s->kind != S_ASSIGN)
			continue;
		v = gscalar(k, S_I32, litint(vals[j]));
		v.s = "enum";
		gbind(k, f, aprintf(k->a, "%s.%s", cls->s, s->l1.v[0]->s), v, s->l1.v[0]->loc);
	}
	v = gkind(G_ENUM, cls->s);
	gbind(k, f, cls->s, v, cls->oploc);
	return true;
}

/* Read the top level of file f: bind names, declare definitions. */
static void
scanfile(Kpyc *k, FileCtx *f)
{
	const TokArray *t = &f->toks;
	uint32_t i = 0, e;

	while (i < t->n && t->v[i].kind != T_END) {
		const Token *tk = &t->v[i];
		e = stmtend(t, i);
		if (e <= i)
			e = i + 1;
		switch (tk->kind) {
		case T_IMPORT:
		case T_FROM: {
			NodeList *l = parse(k, f, i, e, false);
			uint32_t j;
			for (j = 0; l && j < l->n; j++) {
				if (l->v[j]->kind == S_IMPORT)
					doimport(k, f, l->v[j]);
				else if (l->v[j]->kind == S_FROM)
					dofrom(k, f, l->v[j]);
			}
			break;
		}
		case '@': {
			/* decorated: is any decorator Warp's? */
			uint32_t j = i, defat = i;
			int kind = 0;
			while (j < e && t->v[j].kind == '@') {
				int w = warpdecorator(k, f, j + 1);
				const char *tail;
				if (w && !kind)
					kind = w;
				if (!w && (tail = unbounddecorator(k, f, j + 1))) {
					char *root = toktext(k, f, &t->v[j + 1]);
					if (f->starmod)
						kerr(k, t->v[j + 1].loc, "'%s' is not defined: kpyc does not read the names of "
						     "`from %s import *`, so this definition would be skipped (use import warp as wp)",
						     root, f->starmod);
					else
						kerr(k, t->v[j + 1].loc, "'%s' is not defined, so this definition would be skipped",
						     root);
					kind = 'o';
				}
				while (j < e && t->v[j].kind != T_NEWLINE)
					j++;
				j++;
			}
			defat = j;
			if (defat < e && t->v[defat].kind == T_ASYNC)
				defat++;
			if (kind == 'v' && defat + 1 < e && t->v[defat].kind == T_DEF && t->v[defat + 1].kind == T_NAME) {
				const Global *g = gfind(f, toktext(k, f, &t->v[defat + 1]));
				NodeList *l;
				if (g && g->v.kind == G_KERNEL && (l = parse(k, f, i, e, false)) && l->n == 1 &&
				    l->v[0]->kind == S_DEF)
					overloadstub(k, f, l->v[0]);
			}
			if (kind == 'k' || kind == 'f' || kind == 's') {
				NodeList *l = parse(k, f, i, e, false);
				if (l && l->n == 1 && (l->v[0]->kind == S_DEF || l->v[0]->kind == S_CLASS)) {
					Node *d = l->v[0];
					if (kind == 's' && d->kind == S_CLASS)
						declstruct(k, f, d);
					else if (kind != 's' && d->kind == S_DEF) {
						decoptions(k, f, i, defat, declfunc(k, f, d, kind, NULL, NULL));
					}
					else
						kerr(k, d->loc, "@wp.%s decorates a %s", kind == 's' ? "struct" : kind == 'k' ? "kernel" : "func",
						     d->kind == S_DEF ? "function" : "class");
				} else if (l && l->n == 1 && l->v[0]->kind == S_UNSUP) {
					kerr(k, l->v[0]->loc, "Construct `%s` not supported in kernels.", l->v[0]->s);
				}
			} else if (defat + 1 < e && (t->v[defat].kind == T_DEF || t->v[defat].kind == T_CLASS) &&
			           t->v[defat + 1].kind == T_NAME) {
				/* host function or class (or a Warp decorator kpyc leaves to Warp: overload, func_native) */
				if ((kind == 'g' || kind == 'r') && !f->nobackward) {
					/* kopt -p ad would differentiate (replay) the function itself */
					kerr(k, t->v[i + 1].loc, "%s is not supported by kpyc: the backward kernel would %s the "
					     "function itself (set enable_backward to False in the module's options if no "
					     "gradient is wanted)", kind == 'g' ? "a custom gradient (@wp.func_grad)" :
					     "a custom replay (@wp.func_replay)", kind == 'g' ? "differentiate" : "replay");
				} else if (kind == 'g' || kind == 'r') {
					/* no backward pass: nothing to use them for */
				} else if (kind != 'o' && kind != 'v')
					gbind(k, f, toktext(k, f, &t->v[defat + 1]), gkind(G_HOST, NULL), t->v[defat + 1].loc);
			}
			if (kind != 'k' && kind != 'f' && kind != 's')
				nesteddefs(k, f, defat, e,
				           defat + 1 < e && t->v[defat].kind == T_DEF && t->v[defat + 1].kind == T_NAME ?
				           toktext(k, f, &t->v[defat + 1]) : NULL);
			break;
		}
		case T_DEF:
		case T_CLASS:
			if (tk->kind == T_CLASS && intenum(k, f, i, e))
				break;
			if (tk->kind == T_DEF && i + 1 < e && t->v[i + 1].kind == T_NAME) {
				/* a possible function factory (factorycall) */
				HostDef hd;
				memset(&hd, 0, sizeof hd);
				hd.from = i;
				hd.to = e;
				APUSH(k->a, f->hdefs, f->nhdefs, f->caphdefs, hd);
				nmput(k->a, &f->hdmap, toktext(k, f, &t->v[i + 1]), f->nhdefs - 1);
			}
			if (i + 1 < e && t->v[i + 1].kind == T_NAME)
				gbind(k, f, toktext(k, f, &t->v[i + 1]), gkind(G_HOST, NULL), t->v[i + 1].loc);
			nesteddefs(k, f, i, e, tk->kind == T_DEF && i + 1 < e && t->v[i + 1].kind == T_NAME ?
			           toktext(k, f, &t->v[i + 1]) : NULL);
			break;
		case T_NAME: {
			/* NAME = ... or NAME: T = ...: a possible constant */
			if (i + 1 < e && (t->v[i + 1].kind == '=' || t->v[i + 1].kind == ':' || t->v[i + 1].kind == ',')) {
				NodeList *l = parse(k, f, i, e, false);
				if (l && l->n >= 1 && factorycall(k, f, l->v[0]))
					;
				else if (l && l->n >= 1 && (l->v[0]->kind == S_ASSIGN || l->v[0]->kind == S_ANNASSIGN))
					doassign(k, f, l->v[0]);
				else if (t->v[i + 1].kind == '=')
					gbind(k, f, toktext(k, f, tk), gkind(G_HOST, NULL), tk->loc);
			}
			break;
		}
		case T_FOR:
			overloadloop(k, f, i, e);
			nesteddefs(k, f, i, e, NULL);
			break;
		default:
			nesteddefs(k, f, i, e, NULL); /* host code: skipped */
			break;
		}
		if (tk->kind == T_NAME) {
			overloadcall(k, f, i, e);
			moduleoptions(k, f, i, e);
			configassign(k, f, i, e);
		}
		i = e;
	}
	launches(k, f);
	for (i = 0; i < f->nhdefs; i++)
		if (f->hdefs[i].hasfunc && !f->hdefs[i].used)
			kwarn(k, f->hdefs[i].funcloc, "a @wp.func or @wp.struct inside a function is not compiled: kpyc "
			      "compiles it only for top-level calls NAME = FACTORY(...) of a function whose body is the "
			      "definition and its return");
}

/* ---- declarations --------------------------------------------------- */

static void
declstruct(Kpyc *k, FileCtx *f, Node *cls)
{
	const char *name = kirident(k->a, cls->s);
	int sid;
	uint32_t i;
	GVal v = gnone();

	if (findstruct(k->m, name) >= 0) {
		/* redefined (in this file or another): a fresh name */
		const char *base = name;
		int n = f->index + 1;
		while (findstruct(k->m, (name = aprintf(k->a, "%s_%d", base, n))) >= 0)
			n++;
	}
	sid = addstruct(k->m, name, cls->loc);
	for (i = 0; i < cls->l1.n; i++) {
		Node *s = cls->l1.v[i];
		TySpec ts;
		if (s->kind == S_PASS || (s->kind == S_EXPR && (s->a->kind == E_STR || s->a->kind == E_ELLIPSIS)))
			continue;
		if (s->kind != S_ANNASSIGN || s->a->kind != E_NAME) {
			kerr(k, s->loc, "a @wp.struct holds field declarations only (`name: type`)");
			continue;
		}
		if (s->c)
			kerr(k, s->c->loc, "struct fields cannot have default values");
		if (!evaltype(k, f, s->b, &ts, false))
			continue;
		if (ts.any || ts.anydtype) {
			kerr(k, s->b->loc, "struct fields cannot be generic (typing.Any)");
			continue;
		}
		if (fieldindex(k->m, sid, kirident(k->a, s->a->s)) >= 0) {
			kerr(k, s->a->loc, "field '%s' declared twice", s->a->s);
			continue;
		}
		addfield(k->m, sid, kirident(k->a, s->a->s), ts.ty);
	}
	v.kind = G_TYPE;
	v.spec.ty = tstruct(sid);
	gbind(k, f, cls->s, v, cls->oploc);
}

static bool
sametypes(const FuncDecl *a, const FuncDecl *b)
{
	int i;

	if (a->nparams != b->nparams)
		return false;
	for (i = 0; i < a->nparams; i++) {
		const TySpec *x = &a->params[i].spec, *y = &b->params[i].spec;
		if (x->any != y->any || x->anydtype != y->anydtype)
			return false;
		if (!x->any && !(x->anydtype ? x->ty.nd == y->ty.nd : typeeq(x->ty, y->ty)))
			return false;
	}
	return true;
}

/* Declare a @wp.kernel or @wp.func; encl: the function a kernel is nested
 * in (closure: the names it binds), then the kernel is not bound to a
 * module name. */
static FuncDecl *
declfunc(Kpyc *k, FileCtx *f, Node *def, int kind, const char *encl, const NameMap *closure)
{
	FuncDecl *fd = aalloc(k->a, sizeof *fd);
	Global *prev = encl ? NULL : (Global *)gfind(f, def->s);
	GVal v = gnone();
	uint32_t i;
	bool star = false;
	const NameMap *saved = k->closure;

	fd->def = def;
	fd->file = f;
	fd->name = encl ? aprintf(k->a, "%s__%s", encl, def->s) : def->s;
	fd->closure = closure;
	k->closure = closure;
	fd->kernel = kind == 'k';
	fd->params = aalloc(k->a, (def->l2.n + 1) * sizeof *fd->params);
	for (i = 0; i < def->l2.n; i++) {
		Node *p = def->l2.v[i];
		Param *pp = &fd->params[fd->nparams];
		if (p->op == '/' ) {
			continue;
		}
		if (p->op == '*' || p->op == 'k') {
			if (!star)
				kerr(k, p->loc, "%s parameters (%s%s) are not supported in Warp %s",
				     p->op == '*' ? "variadic" : "keyword", p->op == '*' ? "*" : "**", p->s,
				     fd->kernel ? "kernels" : "functions");
			star = true;
			fd->bad = true;
			continue;
		}
		pp->name = p->s;
		pp->node = p;
		if (!p->a) {
			if (fd->kernel)
				kerr(k, p->loc, "Incomplete argument annotations on function %s: parameter '%s' has no type",
				     def->s, p->s);
			else
				kerr(k, p->loc, "parameter '%s' of @wp.func %s needs a type annotation", p->s, def->s);
			fd->bad = true;
		} else if (!evaltype(k, f, p->a, &pp->spec, false)) {
			fd->bad = true;
		}
		if (pp->spec.any || pp->spec.anydtype)
			fd->generic = true;
		if (p->b) {
			pp->hasdflt = true;
			pp->dflt = geval(k, f, p->b, true);
			if (pp->dflt.kind != G_CONST && pp->dflt.kind != G_STR) {
				kerr(k, p->b->loc, "default value of '%s' is not a constant kpyc can evaluate", p->s);
				fd->bad = true;
			}
		}
		fd->nparams++;
	}
	if (def->a && !(def->a->kind == E_NONE)) {
		Node *r = def->a;
		if (fd->kernel) {
			kerr(k, r->loc, "'%s': Warp kernels cannot return values. Write results to output arguments, and "
			     "omit the return annotation or use `-> None`.", def->s);
			fd->bad = true;
		} else {
			/* T, (T, U), tuple[T, U] or typing.Tuple[T, U] */
			NodeList one = {0};
			NodeList *l = &one;
			int j;
			if (r->kind == E_TUPLE) {
				l = &r->l1;
			} else if (r->kind == E_SUBSCRIPT) {
				GVal g = geval(k, f, r->a, true);
				if (g.kind == G_PYNAME && (strcmp(g.s, "builtins.tuple") == 0 || strcmp(g.s, "typing.Tuple") == 0))
					l = &r->l1;
				else
					nlpush(k->a, &one, r);
			} else {
				nlpush(k->a, &one, r);
			}
			fd->rets = aalloc(k->a, (l->n + 1) * sizeof *fd->rets);
			fd->hasret = true;
			for (j = 0; j < (int)l->n; j++) {
				if (!evaltype(k, f, l->v[j], &fd->rets[j], false)) {
					fd->bad = true;
					break;
				}
				if (fd->rets[j].any || fd->rets[j].anydtype) {
					/* a generic result: known from the body */
					fd->hasret = false;
				}
			}
			fd->nrets = (int)l->n;
		}
	}
	/* @wp.kernel(enable_backward=False); a name= and launch bounds Warp
	 * rejects */
	for (i = 0; i < def->l3.n; i++) {
		Node *d = def->l3.v[i];
		Node *bounds = NULL, *maxreg = NULL;
		uint32_t j;
		if (d->kind != E_CALL)
			continue;
		for (j = 0; j < d->l2.n; j++) {
			Node *kw = d->l2.v[j];
			if (kw->s && strcmp(kw->s, "enable_backward") == 0) {
				GVal g = geval(k, f, kw->a, true);
				if (g.kind == G_CONST && g.lit.ok)
					fd->nobackward = g.lit.isint ? g.lit.i == 0 : g.lit.f == 0;
			} else if (fd->kernel && kw->s && strcmp(kw->s, "name") == 0 && kw->a->kind == E_STR) {
				const char *n = kw->a->s;
				size_t m = strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
				if (!n[0] || n[m] || (n[0] >= '0' && n[0] <= '9'))
					kerr(k, kw->a->loc, "name must be a non-empty valid C++ identifier matching "
					     "[A-Za-z_][A-Za-z0-9_]*");
			} else if (kw->s && strcmp(kw->s, "launch_bounds") == 0 && kw->a->kind != E_NONE) {
				bounds = kw;
			} else if (kw->s && strcmp(kw->s, "cuda_max_registers") == 0 && kw->a->kind != E_NONE) {
				maxreg = kw;
			}
		}
		if (fd->kernel && bounds && maxreg)
			kerr(k, maxreg->loc, "cuda_max_registers and launch_bounds cannot be specified together");
	}
	k->closure = saved;
	fd->order = (int)f->ndecls;
	APUSH(k->a, f->decls, f->ndecls, f->capdecls, fd);
	if (encl)
		return fd;
	/* bind the name; @wp.func definitions of the same name are overloads */
	if (!fd->kernel && prev && prev->v.kind == G_FUNC) {
		FuncDecl *o, **pp;
		/* an overload with the same parameter types replaces the earlier
		 * one under the name; a name bound to the earlier function before
		 * (f1 = f) still calls it, as in Warp */
		for (pp = &prev->v.fd; (o = *pp); pp = &o->next)
			if (sametypes(o, fd)) {
				fd->next = o->next;
				*pp = fd;
				return fd;
			}
		*pp = fd;
		return fd;
	}
	if (prev && (prev->v.kind == G_FUNC || prev->v.kind == G_KERNEL)) {
		FuncDecl *o;
		for (o = prev->v.fd; o; o = o->next) {
			o->bad = true;
			o->def = NULL;
		}
	}
	v.kind = fd->kernel ? G_KERNEL : G_FUNC;
	v.fd = fd;
	gbind(k, f, def->s, v, def->oploc);
	return fd;
}

/* ---- driver ---------------------------------------------------------- */

static const char *
basename_noext(Arena *a, const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 3 && strcmp(b + n - 3, ".py") == 0)
		n -= 3;
	return astrndup(a, b, n);
}

Module *
kpyc_compile_here(Src *srcs, int nsrcs, Diag *d, const KpycOpts *o)
{
	Kpyc k;
	int i;
	uint32_t j;
	int nerr0 = d->nerr;
	Module *m = modnew();

	memset(&k, 0, sizeof k);
	k.m = m;
	k.d = d;
	k.a = arena_new();
	k.o = o;
	k.nfiles = nsrcs;
	k.files = aalloc(k.a, (size_t)(nsrcs + 1) * sizeof *k.files);
	for (i = 0; i < nsrcs; i++) {
		FileCtx *f = &k.files[i];
		f->src = &srcs[i];
		srcindex(&srcs[i]); /* a file of many diagnostics: each finds its line at once */
		f->index = i;
		f->modname = basename_noext(k.a, srcs[i].name);
		APUSH(m->arena, m->srcs, m->nsrcs, m->capsrcs, astrdup(m->arena, srcs[i].name));
		k.file = f;
		pytokenize(k.a, f->src, &f->toks);
		for (j = 0; j < f->toks.n; j++)
			f->toks.v[j].loc.file = (uint32_t)i;
		scanfile(&k, f);
		/* what the tokenizer found wrong outside compiled code (host
		 * code is not parsed, but Python would reject the file) */
		for (j = 0; j < f->toks.n; j++)
			if (f->toks.v[j].msg && !f->toks.v[j].parsed)
				kerr(&k, f->toks.v[j].loc, "%s", f->toks.v[j].msg);
	}
	if (!o->parse_only)
		semamodule(&k);
	if (m->toobig)
		kerr(&k, m->toobigloc, "more than %d operands, results, loop-carried values or parameters in one "
		     "operation (kir's limit)", MAXOPVALS);
	flushdiags(&k);
	for (i = 0; i < nsrcs; i++) {
		free(k.files[i].toks.v);
		srcunindex(&srcs[i]);
	}
	for (i = 0; i < (int)countof(k.tmps); i++)
		arena_free(k.tmps[i]);
	arena_free(k.a);
	if (d->nerr != nerr0) {
		modfree(m);
		return NULL;
	}
	return m;
}
