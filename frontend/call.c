/*
 * call.c — calls: arguments, user functions and the dispatch of a call.
 *
 * Builtins are in builtins.c, constructors and casts in ctors.c; this
 * file evaluates the arguments, dispatches a call and calls user
 * functions.
 *
 * User functions: overloads are tried in order (concrete before generic);
 * the match is exact, like Warp's; instance() compiles the callee for the
 * argument types.
 */
#include <string.h>

#include "ast.h"

/* ---- arguments ------------------------------------------------------ */

bool
evalargs(Ctx *c, Node *e, Args *a)
{
	uint32_t i;
	int cap = 8;
	bool ok = true;

	memset(a, 0, sizeof *a);
	for (i = 0; i < e->l1.n; i++)
		cap += e->l1.v[i]->kind == E_STARRED ? 40 : 1;
	a->pos = aalloc(c->tmp, (size_t)cap * sizeof *a->pos);
	a->ploc = aalloc(c->tmp, (size_t)cap * sizeof *a->ploc);
	for (i = 0; i < e->l1.n; i++) {
		Node *n = e->l1.v[i];
		if (n->kind == E_STARRED) {
			X v;
			Type t;
			int k, m;
			a->starred = true;
			if ((m = starredslice(c, n->a, a->pos + a->n, 40)) != 0) {
				/* *arr[0:3] */
				if (m < 0) {
					ok = false;
					continue;
				}
				for (k = 0; k < m; k++)
					a->ploc[a->n++] = n->loc;
				continue;
			}
			v = expr(c, n->a);
			if (v.k == X_NONE) {
				ok = false;
				continue;
			}
			if (v.k != X_VAL) {
				serr(c, n->loc, "Starred expressions are only supported for arrays (with slice), vectors, "
				     "quaternions, and matrices.");
				ok = false;
				continue;
			}
			t = vty(c->f, v.v);
			if (!(t.k == T_VEC || t.k == T_QUAT || t.k == T_MAT)) {
				serr(c, n->loc, "Starred expressions are only supported for arrays (with slice), vectors, "
				     "quaternions, and matrices.");
				ok = false;
				continue;
			}
			m = t.k == T_MAT ? t.n : ncomp(t);
			for (k = 0; k < m; k++) {
				Val args[2];
				args[0] = v.v;
				args[1] = cint(c->m, c->f, S_I32, k);
				a->pos[a->n] = xval(emit1(c, OP_EXTRACT, args, 2, n->loc, "starred argument"));
				a->ploc[a->n++] = n->loc;
			}
			continue;
		}
		a->pos[a->n] = expr(c, n);
		if (a->pos[a->n].k == X_NONE)
			ok = false;
		a->ploc[a->n++] = n->loc;
	}
	a->kw = aalloc(c->tmp, (e->l2.n + 1) * sizeof *a->kw);
	a->kx = aalloc(c->tmp, (e->l2.n + 1) * sizeof *a->kx);
	a->kloc = aalloc(c->tmp, (e->l2.n + 1) * sizeof *a->kloc);
	for (i = 0; i < e->l2.n; i++) {
		Node *k = e->l2.v[i];
		if (!k->s) {
			serr(c, k->loc, "**kwargs arguments are not supported in kernels");
			ok = false;
			continue;
		}
		a->kw[a->nk] = k->s;
		a->kloc[a->nk] = k->loc;
		a->kx[a->nk] = expr(c, k->a);
		if (a->kx[a->nk].k == X_NONE)
			ok = false;
		a->nk++;
	}
	return ok;
}

X *
kwget(Args *a, const char *name)
{
	int i;

	for (i = 0; i < a->nk; i++)
		if (strcmp(a->kw[i], name) == 0)
			return &a->kx[i];
	return NULL;
}

bool
nokw(Ctx *c, Args *a, const char *what)
{
	if (a->nk) {
		serr(c, a->kloc[0], "%s takes no keyword argument '%s'", what, a->kw[0]);
		return false;
	}
	return true;
}

/* The values of all positional arguments. */
Val *
argvals(Ctx *c, Args *a)
{
	Val *v = aalloc(c->tmp, (size_t)(a->n + 1) * sizeof *v);
	int i;

	for (i = 0; i < a->n; i++)
		if (!(v[i] = xvalue(c, a->pos[i], a->ploc[i])))
			return NULL;
	return v;
}

/* A type given as a keyword (dtype=float). */
bool
typearg(Ctx *c, X *x, Loc loc, Type *t)
{
	TySpec ts;

	if (x->k == X_G && gvaltype(&x->g, &ts) && !ts.any && !ts.anydtype) {
		*t = ts.ty;
		return true;
	}
	serr(c, loc, "expected a type");
	return false;
}

bool
intarg(Ctx *c, X *x, Loc loc, int64_t *v)
{
	if (x->k == X_VAL && isconst(c->f, x->v) && isint(vty(c->f, x->v)) && !x->hasrange) {
		*v = val(c->f, x->v)->c[0].i;
		return true;
	}
	serr(c, loc, "expected a constant integer");
	return false;
}

/* ---- user functions ------------------------------------------------- */

static bool
matches(const TySpec *s, Type t)
{
	if (s->any)
		return t.k != T_STR;
	if (s->anydtype)
		return t.k == T_ARRAY && t.nd == s->ty.nd;
	return typeeq(s->ty, t);
}

static const char *
specname(Ctx *c, const TySpec *s)
{
	if (s->any)
		return "Any";
	if (s->anydtype)
		return aprintf(c->tmp, "array(ndim=%d, dtype=Any)", s->ty.nd);
	return wptypename(c->m, s->ty);
}

/* Bind the arguments to fd's parameters; false if they do not fit. */
static bool
bindargs(Ctx *c, FuncDecl *fd, Args *a, X *out, bool report, Loc loc)
{
	int i, j;
	bool *have = aalloc(c->tmp, (size_t)(fd->nparams + 1) * sizeof *have);

	if (a->n > fd->nparams) {
		if (report)
			serr(c, loc, "%s() takes %d arguments but %d were given", fd->name, fd->nparams, a->n);
		return false;
	}
	for (i = 0; i < a->n; i++) {
		out[i] = a->pos[i];
		have[i] = true;
	}
	for (i = 0; i < a->nk; i++) {
		for (j = 0; j < fd->nparams; j++)
			if (strcmp(fd->params[j].name, a->kw[i]) == 0)
				break;
		if (j == fd->nparams || have[j]) {
			if (report)
				serr(c, a->kloc[i], j == fd->nparams ? "%s() got an unexpected keyword argument '%s'"
				                                     : "%s() got multiple values for argument '%s'", fd->name, a->kw[i]);
			return false;
		}
		out[j] = a->kx[i];
		have[j] = true;
	}
	for (j = 0; j < fd->nparams; j++) {
		if (have[j])
			continue;
		if (!fd->params[j].hasdflt) {
			if (report)
				serr(c, loc, "%s() missing required argument '%s'", fd->name, fd->params[j].name);
			return false;
		}
		if (fd->params[j].dflt.kind == G_STR)
			out[j] = xval(cstr(c->m, c->f, fd->params[j].dflt.s));
		else if (fd->params[j].dflt.kind == G_CONST)
			out[j] = xval(cconst(c->m, c->f, fd->params[j].dflt.spec.ty, fd->params[j].dflt.c));
		else
			return false;
		out[j].wconst = true;
	}
	for (j = 0; j < fd->nparams; j++)
		if (out[j].k != X_VAL) {
			if (report)
				xvalue(c, out[j], loc);
			return false;
		}
	return true;
}

static X
usercall(Ctx *c, Node *e, FuncDecl *first)
{
	Args a;
	FuncDecl *fd, *pick = NULL;
	X *bound = NULL;
	int pass;
	Type *types;
	Inst *in;
	Val *vals;
	Op *op;
	int i;

	if (!evalargs(c, e, &a))
		return xnone();
	/* concrete overloads first, then generic ones */
	for (pass = 0; pass < 2 && !pick; pass++)
		for (fd = first; fd && !pick; fd = fd->next) {
			X *b;
			if (!fd->def || fd->bad || fd->generic != (pass == 1))
				continue;
			b = aalloc(c->tmp, (size_t)(fd->nparams + 1) * sizeof *b);
			if (!bindargs(c, fd, &a, b, false, e->loc))
				continue;
			for (i = 0; i < fd->nparams; i++)
				if (!matches(&fd->params[i].spec, vty(c->f, b[i].v)))
					break;
			if (i == fd->nparams) {
				pick = fd;
				bound = b;
			}
		}
	if (!pick) {
		Buf tl = {0};
		int nlive = 0;
		for (fd = first; fd; fd = fd->next)
			if (fd->def)
				nlive++;
		if (nlive == 1) {
			for (fd = first; !fd->def; fd = fd->next)
				;
			bound = aalloc(c->tmp, (size_t)(fd->nparams + 1) * sizeof *bound);
			if (!bindargs(c, fd, &a, bound, true, e->loc))
				return xnone();
		}
		for (i = 0; i < a.n; i++)
			bufprintf(&tl, "%s%s", i ? ", " : "", a.pos[i].k == X_VAL ? wptypename(c->m, vty(c->f, a.pos[i].v)) : "?");
		for (i = 0; i < a.nk; i++)
			bufprintf(&tl, "%s%s=%s", i || a.n ? ", " : "", a.kw[i],
			          a.kx[i].k == X_VAL ? wptypename(c->m, vty(c->f, a.kx[i].v)) : "?");
		serr(c, e->loc, "Couldn't find function overload for '%s' that matched inputs with types: [%s]",
		     first->name, tl.s ? tl.s : "");
		buffree(&tl);
		for (fd = first; fd; fd = fd->next) {
			Buf s = {0};
			if (!fd->def)
				continue;
			for (i = 0; i < fd->nparams; i++)
				bufprintf(&s, "%s%s: %s", i ? ", " : "", fd->params[i].name, specname(c, &fd->params[i].spec));
			knote(c->k, "candidate: %s(%s)", fd->name, s.s ? s.s : "");
			buffree(&s);
		}
		return xnone();
	}
	fd = pick;
	if (fd->bad)
		return xnone();
	types = aalloc(c->tmp, (size_t)(fd->nparams + 1) * sizeof *types);
	vals = aalloc(c->tmp, (size_t)(fd->nparams + 1) * sizeof *vals);
	for (i = 0; i < fd->nparams; i++) {
		vals[i] = bound[i].v;
		types[i] = vty(c->f, vals[i]);
		if (types[i].k == T_STR) {
			serr(c, e->loc, "strings cannot be passed to functions");
			return xnone();
		}
	}
	in = instantiate(c->k, fd, types, e->loc);
	if (!in) {
		if (c->k->lenient)
			serr(c, e->loc, "'%s' does not compile for these argument types", fd->name);
		return xnone();
	}
	op = mkop(c->m, c->f, OP_CALL, vals, fd->nparams, in->f->rets, (int)in->f->nrets, e->loc);
	op->attr = in->fidx;
	regpush(c->m, c->b.r, op);
	if (op->nres == 1)
		return xval(op->res[0]);
	if (op->nres == 0)
		return void_x();
	{
		X x = xnone();
		x.k = X_TUPLE;
		x.n = op->nres;
		x.elts = aalloc(c->tmp, (size_t)x.n * sizeof *x.elts);
		for (i = 0; i < x.n; i++)
			x.elts[i] = xval(op->res[i]);
		return x;
	}
}

/* ---- the entry ------------------------------------------------------ */

X
call(Ctx *c, Node *e, int want, bool used)
{
	(void)used; /* every call is compiled the same: an unused result is dropped */
	X fn;
	X r;

	Node *savedpath = c->calleepath;

	c->b.loc = e->loc;
	c->callee = e->a->kind == E_NAME;
	c->calleepath = e->a;
	fn = expr(c, e->a);
	c->calleepath = savedpath;
	c->callee = false;
	if (fn.k == X_NONE)
		return xnone();
	if (fn.k != X_G) {
		if (fn.k == X_VAL)
			serr(c, e->loc, "'%s' object is not callable", wptypename(c->m, vty(c->f, fn.v)));
		else
			serr(c, e->loc, "this expression is not callable");
		return xnone();
	}
	c->b.loc = e->loc;
	switch (fn.g.kind) {
	case G_WPNAME:
		r = builtin(c, e, fn.g.s, want, false);
		break;
	case G_TYPE: {
		Args a;
		if (fn.g.spec.any || fn.g.spec.anydtype) {
			serr(c, e->loc, "a generic type cannot be constructed");
			return xnone();
		}
		if (!evalargs(c, e, &a))
			return xnone();
		r = construct(c, fn.g.spec.ty, &a, e->loc, e->a->kind == E_ATTR ? e->a->s : e->a->kind == E_NAME ? e->a->s : "type");
		break;
	}
	case G_PYNAME:
		if (strncmp(fn.g.s, "builtins.", 9) == 0) {
			r = pybuiltin(c, e, fn.g.s + 9, want);
			break;
		}
		{
			/* math.sqrt, np.sin, from math import floor: Warp calls its
			 * builtin of that name */
			const char *attr = strrchr(fn.g.s, '.');
			if (attr && builtinop(c->k, attr + 1) >= 0 && strncmp(fn.g.s, "typing.", 7) != 0) {
				r = builtin(c, e, attr + 1, want, true);
				break;
			}
		}
		serr(c, e->loc, "Could not find function %s as a built-in or user-defined function. Note that user functions "
		     "must be annotated with a @wp.func decorator to be called from a kernel.", fn.g.s);
		return xnone();
	case G_FUNC:
		r = usercall(c, e, fn.g.fd);
		break;
	case G_KERNEL:
		serr(c, e->loc, "kernels cannot be called from kernels or functions (Could not find function %s as a "
		     "built-in or user-defined function)", fn.g.fd->name);
		return xnone();
	default:
		serr(c, e->loc, "this is not a function");
		return xnone();
	}
	return r;
}

X
void_x(void)
{
	X x = xnone();
	x.k = X_TUPLE;
	x.n = 0;
	return x;
}
