/*
 * consteval.c — module-level evaluation: the value (GVal) of an expression
 * at a file's top level, as Python would compute it when the module runs:
 * constants, arithmetic, math functions, wp.constant, type constructors
 * (vec5 = wp.types.vector(length=5, dtype=wp.float32)) and members of the
 * imported modules; the constants of a nested kernel's closure; type
 * annotations evaluated to kir types (evaltype).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* ---- module-level evaluation --------------------------------------- */

static const struct { const char *name; double v; } mathconst[] = {
	{"pi", 3.14159265358979323846}, {"e", 2.71828182845904523536},
	{"tau", 6.28318530717958647692}, {"inf", INFINITY}, {"nan", NAN},
};

/* A member of a module that is not warp. */
GVal
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

bool
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
Node *
kwarg(Node *call, const char *name)
{
	uint32_t i;

	for (i = 0; i < call->l2.n; i++)
		if (call->l2.v[i]->s && strcmp(call->l2.v[i]->s, name) == 0)
			return call->l2.v[i]->a;
	return NULL;
}

/* ---- host functions called at compile time ------------------------- */

/* wp.static(f(...)) where f is a module-level Python function, or a
 * @wp.func (Warp's Function.__call__ runs its Python body): Python runs
 * it when Warp generates code, so kpyc does too, for a small subset:
 * positional arguments and defaults; statements NAME = e, NAME op= e,
 * s.field = e of a local struct instance (S() is one: G_HOST "struct0",
 * never shared: t = s, passing or storing one fails), return e, pass,
 * if/elif/else, a docstring; and the module values such a
 * function changes, as Python would: L.append(e) of a module list,
 * D[key] = e and D[key] op= e of a module dict.  Anything else fails
 * (G_NONE: the caller reports it).  The changes are undone when the
 * whole geval fails.  Module values change only in a kernel's own
 * wp.statics (k->hmut): Warp evaluates those when it declares the
 * kernel, in source order as kpyc does, and a @wp.func's later, when it
 * builds the module, where kpyc compiles the function at its first call. */

typedef struct HFrame {
	const char **names;
	GVal *vals;
	uint32_t n, cap;
} HFrame;

typedef struct HUndo {
	Global *g;
	GVal old;
} HUndo;

enum { HOST_MAXDEPTH = 32, HOST_MAXSTEPS = 10000 };

static GVal *
hlocal(HFrame *fr, const char *name)
{
	uint32_t i;

	for (i = fr->n; i-- > 0;)
		if (strcmp(fr->names[i], name) == 0)
			return &fr->vals[i];
	return NULL;
}

static void
hbind(Kpyc *k, HFrame *fr, const char *name, GVal v)
{
	GVal *p = hlocal(fr, name);

	if (p) {
		*p = v;
		return;
	}
	if (fr->n == fr->cap) {
		uint32_t cap = fr->cap ? 2 * fr->cap : 8;
		const char **nn = aalloc(k->a, cap * sizeof *nn);
		GVal *nv = aalloc(k->a, cap * sizeof *nv);
		if (fr->n) {
			memcpy(nn, fr->names, fr->n * sizeof *nn);
			memcpy(nv, fr->vals, fr->n * sizeof *nv);
		}
		fr->names = nn;
		fr->vals = nv;
		fr->cap = cap;
	}
	fr->names[fr->n] = name;
	fr->vals[fr->n++] = v;
}

/* A module list or dict (kind "list", "dict") the running host function
 * changes (not one of its locals), to change in place: its Global, the
 * undo log updated. */
static Global *
hmodvar(Kpyc *k, FileCtx *f, Node *n, const char *kind)
{
	Global *g;
	HUndo u;

	if (!k->hmut || n->kind != E_NAME || hlocal(k->hframe, n->s) || !(g = (Global *)gfind(f, n->s)) ||
	    g->v.kind != G_HOST || !g->v.elts || !g->v.s || strcmp(g->v.s, kind) != 0)
		return NULL;
	u.g = g;
	u.old = g->v;
	APUSH(k->a, k->hundo, k->nhundo, k->caphundo, u);
	return g;
}

static bool
gtruth(const GVal *v, bool *t)
{
	Lit l;

	if (v->kind == G_STR)
		*t = v->s[0] != 0;
	else if (numval(v, &l))
		*t = l.isint ? l.i != 0 : l.f != 0;
	else if (v->kind == G_TUPLE || (v->kind == G_HOST && v->elts))
		*t = v->n != 0;
	else
		return false;
	return true;
}

/* Python's == of two module values kpyc holds: numbers or strings; -1
 * when it cannot tell. */
static int
geq(const GVal *a, const GVal *b)
{
	Lit x, y;

	if (a->kind == G_STR && b->kind == G_STR)
		return strcmp(a->s, b->s) == 0;
	if (a->kind == G_STR || b->kind == G_STR)
		return a->kind == G_STR && (b->kind == G_CONST || b->kind == G_TUPLE) ? 0 : -1;
	if (!numval(a, &x) || !numval(b, &y))
		return -1;
	if (x.isint && y.isint)
		return x.i == y.i;
	return (x.isint ? (double)x.i : x.f) == (y.isint ? (double)y.i : y.f);
}

/* D[key] of a module dict: the index of its value in elts, or -1. */
static int
dictslot(const GVal *d, const GVal *key)
{
	int i, r = -1;

	for (i = 0; i < d->n; i++)
		if (geq(&d->elts[2 * i], key) == 1)
			r = 2 * i + 1;
	return r;
}

/* A struct instance (G_HOST "struct0", spec.ty the struct; elts NULL:
 * every field zero, else one value per field, G_NONE for zero)? */
static bool
isstructv(const GVal *v)
{
	return v->kind == G_HOST && v->s && strcmp(v->s, "struct0") == 0;
}

/* Python's s.name = v on struct instance *sv, as Warp's struct stores
 * it: a value of the field's type, a number for a scalar field. */
static bool
setfield(Kpyc *k, GVal *sv, const char *name, GVal v)
{
	const StructDef *sd;
	GVal *elts;
	Type ft;
	Lit l;
	int fi;

	if (!isstructv(sv) || (fi = fieldindex(k->m, sv->spec.ty.sid, kirident(k->a, name))) < 0)
		return false;
	sd = &k->m->structs[sv->spec.ty.sid];
	ft = sd->fields[fi].ty;
	if (ft.k == T_SCALAR && numval(&v, &l)) {
		if (!l.isint && scalarisint(ft.s))
			return false;
		v = gscalar(k, ft.s, l);
	} else if (!(v.kind == G_CONST && typeeq(v.spec.ty, ft)) && !(isstructv(&v) && typeeq(v.spec.ty, ft))) {
		return false;
	}
	elts = aalloc(k->a, (sd->nfields + 1) * sizeof *elts);
	if (sv->elts)
		memcpy(elts, sv->elts, sd->nfields * sizeof *elts);
	else
		memset(elts, 0, (sd->nfields + 1) * sizeof *elts);
	elts[fi] = v;
	sv->elts = elts;
	sv->n = (int)sd->nfields;
	return true;
}

/* Run statements; 1: returned (*ret), 0: fell through, -1: unsupported. */
static int
hexec(Kpyc *k, FileCtx *f, NodeList *body, GVal *ret)
{
	uint32_t i;

	for (i = 0; i < body->n; i++) {
		Node *s = body->v[i];
		GVal v, *p;
		Global *g;
		bool t;
		int r;
		if (++k->hsteps > HOST_MAXSTEPS)
			return -1; /* a call tree too large to run (f(n - 1) + f(n - 1)) */
		switch (s->kind) {
		case S_PASS:
			break;
		case S_RETURN:
			*ret = s->a ? geval1(k, f, s->a, true) : gnone();
			return s->a && ret->kind != G_NONE ? 1 : -1;
		case S_ASSIGN:
			v = geval1(k, f, s->a, true);
			if (v.kind == G_NONE || s->l1.n != 1)
				return -1;
			if (s->l1.v[0]->kind == E_NAME) {
				if (isstructv(&v) && s->a->kind != E_CALL)
					return -1; /* t = s: Python shares the instance */
				hbind(k, k->hframe, s->l1.v[0]->s, v);
				break;
			}
			if (s->l1.v[0]->kind == E_ATTR) {
				/* s.f = e of a local struct instance */
				if (!(p = s->l1.v[0]->a->kind == E_NAME ? hlocal(k->hframe, s->l1.v[0]->a->s) : NULL) ||
				    !setfield(k, p, s->l1.v[0]->s, v))
					return -1;
				break;
			}
			/* D[key] = v: */
			/* fall through */
		case S_AUGASSIGN: {
			Node *t0 = s->kind == S_ASSIGN ? s->l1.v[0] : s->a;
			if (s->kind == S_AUGASSIGN) {
				v = geval1(k, f, s->b, true);
				if (v.kind == G_NONE)
					return -1;
			}
			if (s->kind == S_AUGASSIGN && t0->kind == E_NAME) {
				if (!(p = hlocal(k->hframe, t0->s)) || (v = garith(k, s->op, *p, v)).kind == G_NONE)
					return -1; /* a module name: Python's UnboundLocalError */
				*p = v;
				break;
			}
			if (t0->kind == E_SUBSCRIPT && t0->l1.n == 1 && !t0->tcomma && t0->l1.v[0]->kind != E_SLICE) {
				GVal key = geval1(k, f, t0->l1.v[0], true), *elts;
				int slot;
				if ((key.kind != G_STR && key.kind != G_CONST) || isstructv(&v))
					return -1;
				if (!(g = hmodvar(k, f, t0->a, "dict")))
					return -1;
				slot = dictslot(&g->v, &key);
				if (s->kind == S_AUGASSIGN) {
					if (slot < 0 || (v = garith(k, s->op, g->v.elts[slot], v)).kind == G_NONE)
						return -1; /* Python's KeyError */
				}
				elts = aalloc(k->a, (size_t)(2 * g->v.n + 3) * sizeof *elts);
				memcpy(elts, g->v.elts, (size_t)(2 * g->v.n) * sizeof *elts);
				if (slot < 0) {
					elts[2 * g->v.n] = key;
					slot = 2 * g->v.n++ + 1;
				}
				elts[slot] = v;
				g->v.elts = elts;
				break;
			}
			return -1;
		}
		case S_EXPR: {
			Node *e = s->a;
			if (e->kind == E_CALL && e->a->kind == E_ATTR && strcmp(e->a->s, "append") == 0 && e->l1.n == 1 &&
			    !e->l2.n && e->l1.v[0]->kind != E_STARRED) {
				/* L.append(v) of a module list */
				GVal *elts;
				v = geval1(k, f, e->l1.v[0], true);
				if (v.kind == G_NONE || isstructv(&v) || !(g = hmodvar(k, f, e->a->a, "list")))
					return -1;
				elts = aalloc(k->a, (size_t)(g->v.n + 2) * sizeof *elts);
				if (g->v.n)
					memcpy(elts, g->v.elts, (size_t)g->v.n * sizeof *elts);
				elts[g->v.n++] = v;
				g->v.elts = elts;
				break;
			}
			if (i == 0 && e->kind == E_STR)
				break; /* the docstring */
			if (e->kind != E_CALL || geval1(k, f, e, true).kind == G_NONE)
				return -1;
			break;
		}
		case S_IF:
			v = geval1(k, f, s->a, true);
			if (!gtruth(&v, &t))
				return -1;
			r = hexec(k, f, t ? &s->l1 : &s->l2, ret);
			if (r != 0)
				return r;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

/* Bind every name the statements assign to nothing yet: Python's locals
 * (reading one before its assignment is UnboundLocalError, not the
 * module's value). */
static void
hlocals(Kpyc *k, HFrame *fr, NodeList *body)
{
	uint32_t i;

	for (i = 0; i < body->n; i++) {
		Node *s = body->v[i];
		if (s->kind == S_ASSIGN && s->l1.n == 1 && s->l1.v[0]->kind == E_NAME && !hlocal(fr, s->l1.v[0]->s))
			hbind(k, fr, s->l1.v[0]->s, gnone());
		else if (s->kind == S_AUGASSIGN && s->a->kind == E_NAME && !hlocal(fr, s->a->s))
			hbind(k, fr, s->a->s, gnone());
		else if (s->kind == S_IF) {
			hlocals(k, fr, &s->l1);
			hlocals(k, fr, &s->l2);
		}
	}
}

/* Call def (an S_DEF of file df) with the arguments of call e (evaluated
 * in file f). */
static GVal
hostcall(Kpyc *k, FileCtx *f, FileCtx *df, Node *def, Node *e)
{
	HFrame fr, *saved = k->hframe;
	GVal (*sl)(Kpyc *, Node *, bool *) = k->slocal, (*st)(Kpyc *, Node *, bool *) = k->stype;
	const NameMap *cl = k->closure;
	GVal ret = gnone();
	uint32_t i, np = def->l2.n;
	int r;

	if (k->hdepth >= HOST_MAXDEPTH || e->l2.n || e->l1.n > np)
		return gnone();
	memset(&fr, 0, sizeof fr);
	for (i = 0; i < np; i++) {
		Node *pm = def->l2.v[i];
		GVal v;
		if (pm->op != 0)
			return gnone(); /* *args, **kwargs */
		if (i < e->l1.n) {
			if (e->l1.v[i]->kind == E_STARRED)
				return gnone();
			v = geval1(k, f, e->l1.v[i], true); /* in the caller's scope */
			if (isstructv(&v))
				return gnone(); /* Python shares the instance */
		} else if (pm->b) {
			/* a default: in the function's module */
			k->hframe = NULL;
			k->slocal = NULL;
			k->stype = NULL;
			k->closure = NULL;
			v = geval1(k, df, pm->b, true);
			k->hframe = saved;
			k->slocal = sl;
			k->stype = st;
			k->closure = cl;
		} else {
			return gnone();
		}
		if (v.kind == G_NONE)
			return gnone();
		hbind(k, &fr, pm->s, v);
	}
	/* the function's own scope: its locals, then its module */
	hlocals(k, &fr, &def->l1);
	if (!saved)
		k->hsteps = 0;
	k->hframe = &fr;
	k->slocal = NULL;
	k->stype = NULL;
	k->closure = NULL;
	k->hdepth++;
	r = hexec(k, df, &def->l1, &ret);
	k->hdepth--;
	k->hframe = saved;
	k->slocal = sl;
	k->stype = st;
	k->closure = cl;
	if (r != 1)
		ret = gnone(); /* falling off the end returns None */
	return ret;
}

/* The S_DEF of a module-level host function fn names (e->a), else NULL. */
static Node *
hostdef(Kpyc *k, FileCtx *f, Node *fnode)
{
	uint32_t i;
	NodeList *l;

	const Global *g;
	Loc at;

	if (fnode->kind != E_NAME || (k->hframe && hlocal(k->hframe, fnode->s)) ||
	    (i = nmget(&f->hdmap, fnode->s)) == UINT32_MAX || !(g = gfind(f, fnode->s)))
		return NULL;
	at = f->toks.v[f->hdefs[i].from + 1].loc;
	if (g->loc.line != at.line || g->loc.col != at.col)
		return NULL; /* the name is bound again after the def */
	l = parse(k, f, f->hdefs[i].from, f->hdefs[i].to, true);
	return l && l->n == 1 && l->v[0]->kind == S_DEF && !l->v[0]->l3.n ? l->v[0] : NULL;
}

/* Does struct type t hold an array (a field, or a field's field)? */
static bool
structhasarray(Kpyc *k, Type t, int depth)
{
	const StructDef *sd = &k->m->structs[t.sid];
	uint32_t i;

	if (depth > 16)
		return true;
	for (i = 0; i < sd->nfields; i++)
		if (sd->fields[i].ty.k == T_ARRAY ||
		    (sd->fields[i].ty.k == T_STRUCT && structhasarray(k, sd->fields[i].ty, depth + 1)))
			return true;
	return false;
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

	if (fn.kind == G_TYPE && !fn.spec.any && !fn.spec.gen && e->l2.n == 0 &&
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
		if (a.kind == G_TUPLE || (a.kind == G_HOST && a.elts && !isstructv(&a)))
			return gscalar(k, S_I32, litint(a.n));
		if (a.kind == G_STR)
			return gscalar(k, S_I32, litint((int64_t)strlen(a.s)));
		if (a.kind == G_TYPE && !a.spec.any && !a.spec.gen) {
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
	if (fn.kind == G_TYPE && !fn.spec.any && !fn.spec.gen && fn.spec.ty.k == T_STRUCT && !e->l1.n && !e->l2.n &&
	    !structhasarray(k, fn.spec.ty, 0)) {
		/* S(): an instance whose fields are zero (Python's are, arrays
		 * None), host data a kernel reads in wp.static() only; defs.c
		 * keeps it where the module uses it nowhere else (no change) */
		v = gkind(G_HOST, "struct0");
		v.spec.ty = fn.spec.ty;
		return v;
	}
	if (fn.kind == G_FUNC && fn.fd && !fn.fd->next && !fn.fd->kernel && fn.fd->def && !fn.fd->generic &&
	    !fn.fd->closure && (int)e->l1.n == fn.fd->nparams && !e->l2.n) {
		/* a @wp.func called in Python: its one overload takes constants
		 * of its parameters' types (Warp's get_arg_type: a Python float
		 * or int is float32, int32), then runs its Python body */
		for (i = 0; i < e->l1.n; i++) {
			GVal a = geval1(k, f, e->l1.v[i], true);
			if (a.kind != G_CONST || !typeeq(a.spec.ty, fn.fd->params[i].spec.ty) ||
			    specgeneric(&fn.fd->params[i].spec))
				return gnone();
		}
		return hostcall(k, f, fn.fd->file, fn.fd->def, e);
	}
	if (fn.kind == G_HOST) {
		Node *def = hostdef(k, f, e->a);
		return def ? hostcall(k, f, f, def, e) : gnone();
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
		int dclass = DC_EXACT; /* a vector or matrix of wp.Float, wp.Int, wp.Scalar */
		Type et = tscalar(S_F32);
		if (dt) {
			GVal g = geval1(k, f, dt, quiet);
			if (g.kind == G_ANY) {
				anyd = true;
			} else if (!gvaltype(&g, &ts) || ts.any || ts.anydtype) {
				return gnone();
			} else {
				et = ts.ty;
				dclass = ts.gen ? ts.dclass : DC_EXACT;
			}
		}
		if (strcmp(w, "vector") == 0 || strcmp(w, "matrix") == 0) {
			Node *ln = kwarg(e, w[0] == 'v' ? "length" : "shape");
			GVal g;
			uint8_t anyn = 0;
			if (!ln && e->l1.n >= 1) {
				/* wp.types.vector(3, float), wp.types.matrix((2, 2), dtype=bool) */
				ln = e->l1.v[0];
				if (e->l1.n >= 2 && !dt) {
					GVal d = geval1(k, f, e->l1.v[1], quiet);
					if (!gvaltype(&d, &ts) || ts.any || ts.anydtype)
						return gnone();
					et = ts.ty;
					dclass = ts.gen ? ts.dclass : DC_EXACT;
				}
			}
			/* dtype=Any: Warp's vector() fails (Any has no _type_) */
			if (!ln || anyd || et.k != T_SCALAR)
				return gnone();
			g = geval1(k, f, ln, quiet);
			v.kind = G_TYPE;
			if (w[0] == 'v') {
				Lit l;
				if (g.kind == G_ANY)
					anyn = 1;
				else if (!numval(&g, &l) || !l.isint || l.i < 1 || l.i > MAXVEC)
					return gnone();
				v.spec.ty = tvec(anyn ? 1 : (int)l.i, et.s);
			} else {
				Lit r, c;
				if (g.kind != G_TUPLE || g.n != 2)
					return gnone();
				anyn = (g.elts[0].kind == G_ANY ? 1 : 0) | (g.elts[1].kind == G_ANY ? 2 : 0);
				if ((!(anyn & 1) && (!numval(&g.elts[0], &r) || !r.isint || r.i < 1 || r.i > MAXVEC)) ||
				    (!(anyn & 2) && (!numval(&g.elts[1], &c) || !c.isint || c.i < 1 || c.i > MAXVEC)))
					return gnone();
				v.spec.ty = tmat(anyn & 1 ? 1 : (int)r.i, anyn & 2 ? 1 : (int)c.i, et.s);
			}
			if (anyn || dclass != DC_EXACT) {
				/* a generic annotation (Warp's vector(length=Any,
				 * dtype=Float) and the like): a pattern */
				v.spec.gen = true;
				v.spec.anyn = anyn;
				v.spec.dclass = (uint8_t)dclass;
			}
			return v;
		}
		if (dclass != DC_EXACT)
			return gnone(); /* quaternion(dtype=wp.Float), array(dtype=wp.Int): not read */
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
		if (k->hframe) {
			GVal *p = hlocal(k->hframe, e->s);
			if (p)
				return *p;
		}
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
			/* a module's struct instance in a Python function: shared, it
			 * could change; kpyc reads it in wp.static(NAME) only */
			return k->hframe && isstructv(&g->v) ? gnone() : g->v;
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
		if (b.kind == G_TYPE && !b.spec.any && !b.spec.gen) {
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
	case E_BINOP: {
		GVal a = geval1(k, f, e->a, quiet); /* left first: host calls change module values */
		return garith(k, e->op, a, geval1(k, f, e->b, quiet));
	}
	case E_COMPARE: {
		/* Python's comparisons of numbers, and == != of strings */
		GVal a = geval1(k, f, e->a, quiet), b;
		bool truth = true;
		for (i = 0; i < e->l1.n; i++) {
			Lit x, y;
			int op = e->cmpops[i], r;
			b = geval1(k, f, e->l1.v[i], quiet);
			if ((op == C_IN || op == C_NOTIN) && (b.kind == G_TUPLE || (b.kind == G_HOST && b.elts && !isstructv(&b))) &&
			    (a.kind == G_STR || a.kind == G_CONST)) {
				/* x in (1, 2), x in {2, 3}, key in D: of numbers and strings */
				bool dict = b.kind == G_HOST && b.s && strcmp(b.s, "dict") == 0;
				int j, q = 0;
				for (j = 0; j < b.n && q != 1; j++) {
					q = geq(&a, &b.elts[dict ? 2 * j : j]);
					if (q < 0)
						return gnone();
				}
				r = q == 1;
				truth = truth && (op == C_IN ? r : !r);
			} else if (a.kind == G_STR && b.kind == G_STR && (op == C_EQ || op == C_NE)) {
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
		 * elts key, value, key, value...), read by subscripts and len();
		 * a set display: a G_TUPLE (s "set"), read by in and len() */
		if (e->s && strcmp(e->s, "ast.Set") == 0) {
			Node tmp = *e;
			tmp.kind = E_TUPLE;
			v = geval1(k, f, &tmp, quiet);
			if (v.kind == G_TUPLE) {
				int j, m = 0;
				for (i = 0; i < (uint32_t)v.n; i++) {
					for (j = 0; j < m && geq(&v.elts[j], &v.elts[i]) != 1; j++)
						;
					if (j == m)
						v.elts[m++] = v.elts[i];
				}
				v.n = m;
				v.s = "set";
			}
			return v;
		}
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
		v.s = e->kind == E_LIST ? "list" : NULL; /* a list: L.append() in a host function */
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
		if (b.kind == G_HOST && b.elts && !isstructv(&b) && e->l1.n == 1 && !e->tcomma &&
		    e->l1.v[0]->kind != E_SLICE) {
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
		if (b.kind == G_PYNAME && strcmp(b.s, "typing.Literal") == 0 && e->l1.n == 1 && !e->tcomma &&
		    e->l1.v[0]->kind != E_SLICE)
			return geval1(k, f, e->l1.v[0], quiet); /* Literal[3] in Vector[float, Literal[3]] */
		if (b.kind == G_WPNAME && strncmp(b.s, "_src.types.", 11) == 0) {
			/* warp._src.types' hint classes (top.c dofrom): Vector[dtype,
			 * length], Matrix[dtype, rows, cols], Quaternion[dtype],
			 * Transformation[dtype] (Warp's __class_getitem__ makes the
			 * vector(), matrix()... type) */
			const char *h = b.s + 11;
			int want = h[0] == 'V' ? 2 : h[0] == 'M' ? 3 : 1, dims[2] = {0, 0};
			GVal d;
			if ((int)e->l1.n != want || (want == 1 && e->tcomma))
				return gnone();
			d = geval1(k, f, e->l1.v[0], quiet);
			if (!gvaltype(&d, &ts) || specgeneric(&ts) || ts.ty.k != T_SCALAR)
				return gnone();
			for (i = 1; i < e->l1.n; i++) {
				GVal n = geval1(k, f, e->l1.v[i], quiet);
				Lit l;
				if (!numval(&n, &l) || !l.isint || n.spec.ty.s == S_BOOL || l.i < 1 || l.i > MAXVEC)
					return gnone();
				dims[i - 1] = (int)l.i;
			}
			if (want == 1 && !scalarisfloat(ts.ty.s))
				return gnone();
			v.kind = G_TYPE;
			v.spec.ty = want == 2 ? tvec(dims[0], ts.ty.s) : want == 3 ? tmat(dims[0], dims[1], ts.ty.s) :
			            h[0] == 'Q' ? tquat(ts.ty.s) : txform(ts.ty.s);
			return v;
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
			if (!gvaltype(&d, &ts) || specgeneric(&ts) || ts.ty.k == T_ARRAY)
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
	uint32_t mark = k->nhundo;
	GVal v = geval1(k, f, e, quiet);

	if (v.kind == G_NONE && k->nhundo != mark) {
		/* undo the module values host functions changed: Python did
		 * not run them (kpyc reports it, or evaluates again) */
		while (k->nhundo > mark) {
			k->nhundo--;
			k->hundo[k->nhundo].g->v = k->hundo[k->nhundo].old;
		}
		k->hrolled = true;
	}
	return v;
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

/* The Warp name kpyc does not support that type expression e is built
 * from (wp.indexedarray(dtype=float)), or NULL. */
static const char *
unsupportedin(Kpyc *k, FileCtx *f, Node *e, int depth)
{
	static const char *const names[] = {"indexedarray", "fabricarray", "indexedfabricarray"};
	const char *r;
	uint32_t i;
	size_t j;

	if (!e || depth > 16)
		return NULL;
	if (e->kind == E_ATTR || e->kind == E_NAME) {
		GVal g = geval(k, f, e, true);
		if (g.kind == G_WPNAME)
			for (j = 0; j < countof(names); j++)
				if (strncmp(g.s, names[j], strlen(names[j])) == 0)
					return g.s;
		return NULL;
	}
	if ((r = unsupportedin(k, f, e->a, depth + 1)))
		return r;
	for (i = 0; i < e->l1.n; i++)
		if ((r = unsupportedin(k, f, e->l1.v[i], depth + 1)))
			return r;
	for (i = 0; i < e->l2.n; i++)
		if ((r = unsupportedin(k, f, e->l2.v[i], depth + 1)))
			return r;
	return NULL;
}

bool
evaltype(Kpyc *k, FileCtx *f, Node *e, TySpec *out, bool quiet)
{
	GVal g = geval(k, f, e, true);
	const char *un;

	if (gvaltype(&g, out))
		return true;
	if (!quiet && g.kind == G_NONE && (e->kind == E_SUBSCRIPT || e->kind == E_CALL) &&
	    (un = unsupportedin(k, f, e, 0))) {
		kerr(k, e->loc, "wp.%s is not supported by kpyc (use wp.array)", un);
		return false;
	}
	if (!quiet) {
		if (g.kind == G_WPNAME && (strcmp(g.s, "indexedarray") == 0 || strncmp(g.s, "fabricarray", 11) == 0 ||
		                           strncmp(g.s, "indexedfabricarray", 18) == 0 ||
		                           strncmp(g.s, "indexedarray", 12) == 0))
			kerr(k, e->loc, "wp.%s is not supported by kpyc (use wp.array)", g.s);
		else if (e->kind == E_NAME && g.kind == G_NONE && k->closure && nmget(k->closure, e->s) != UINT32_MAX)
			kerr(k, e->loc, "'%s' is a name of the function this kernel is nested in (Warp reads it from "
			     "there); kpyc compiles nested kernels that read module names only", e->s);
		else if (e->kind == E_NAME && g.kind == G_NONE)
			kerr(k, e->loc, "unknown type name '%s'", e->s);
		else if (e->kind == E_CALL && g.kind == G_NONE)
			kerr(k, e->loc, "cannot evaluate this type expression (expected a Warp type such as wp.array(dtype=float))");
		else
			kerr(k, e->loc, "not a Warp type");
	}
	return false;
}
