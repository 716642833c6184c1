/*
 * decls.c — declarations: a @wp.struct class becomes a kir struct type and
 * a @wp.kernel or @wp.func definition a FuncDecl (signature, options,
 * overloads), compiled later by sema.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* ---- declarations --------------------------------------------------- */

void
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
		if (specgeneric(&ts)) {
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

/* Is annotation e tuple[...] or typing.Tuple[...]? */
static bool
tupleannot(Kpyc *k, FileCtx *f, Node *e)
{
	GVal g;

	if (e->kind != E_SUBSCRIPT)
		return false;
	g = geval(k, f, e->a, true);
	return g.kind == G_PYNAME && (strcmp(g.s, "builtins.tuple") == 0 || strcmp(g.s, "typing.Tuple") == 0);
}

/* A function parameter's tuple[T, U, ...] or tuple[T, ...] (any count of
 * T): each element's annotation in turn. */
static bool
tuplespec(Kpyc *k, FileCtx *f, Node *e, TySpec *out)
{
	NodeList *l = &e->l1;
	TySpec *elts;
	uint32_t i, n = l->n;

	memset(out, 0, sizeof *out);
	out->tup = true;
	if (n == 2 && l->v[1]->kind == E_ELLIPSIS) {
		out->tupvar = true;
		n = 1;
	}
	if (n == 0) {
		kerr(k, e->loc, "an empty tuple annotation is not supported");
		return false;
	}
	elts = aalloc(k->a, n * sizeof *elts);
	for (i = 0; i < n; i++) {
		if (l->v[i]->kind == E_ELLIPSIS || tupleannot(k, f, l->v[i])) {
			kerr(k, l->v[i]->loc, "kpyc reads tuple[T, U] and tuple[T, ...] of types (no nested tuples)");
			return false;
		}
		if (!evaltype(k, f, l->v[i], &elts[i], false))
			return false;
	}
	out->ntup = (int)n;
	out->telts = elts;
	return true;
}

static bool
sametypes(const FuncDecl *a, const FuncDecl *b)
{
	int i;

	if (a->nparams != b->nparams)
		return false;
	for (i = 0; i < a->nparams; i++) {
		const TySpec *x = &a->params[i].spec, *y = &b->params[i].spec;
		if (x->any != y->any || x->anydtype != y->anydtype || x->gen != y->gen)
			return false;
		if (x->gen && (x->anyn != y->anyn || x->dclass != y->dclass || !typeeq(x->ty, y->ty)))
			return false;
		if (x->tup != y->tup || (x->tup && (x->tupvar != y->tupvar || x->ntup != y->ntup)))
			return false;
		if (x->tup) {
			int j;
			for (j = 0; j < x->ntup; j++) {
				const TySpec *p = &x->telts[j], *q = &y->telts[j];
				if (p->any != q->any || p->anydtype != q->anydtype || p->gen != q->gen ||
				    p->anyn != q->anyn || p->dclass != q->dclass || !typeeq(p->ty, q->ty))
					return false;
			}
			continue;
		}
		if (!x->any && !(x->anydtype ? x->ty.nd == y->ty.nd : typeeq(x->ty, y->ty)))
			return false;
	}
	return true;
}

/* Declare a @wp.kernel or @wp.func; encl: the function a kernel is nested
 * in (closure: the names it binds), then the kernel is not bound to a
 * module name. */
FuncDecl *
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
		} else if (tupleannot(k, f, p->a)) {
			if (fd->kernel) {
				kerr(k, p->a->loc, "kernel parameter '%s' cannot be a tuple (Warp passes tuples to functions only)",
				     p->s);
				fd->bad = true;
			} else if (!tuplespec(k, f, p->a, &pp->spec)) {
				fd->bad = true;
			}
		} else if (!evaltype(k, f, p->a, &pp->spec, false)) {
			fd->bad = true;
		}
		if (specgeneric(&pp->spec))
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
		GVal rg = fd->kernel ? geval(k, f, r, true) : gnone();
		if (fd->kernel && rg.kind == G_PYNAME && strcmp(rg.s, "types.NoneType") == 0) {
			/* -> types.NoneType: Warp's None annotation too */
		} else if (fd->kernel) {
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
				if (specgeneric(&fd->rets[j])) {
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
