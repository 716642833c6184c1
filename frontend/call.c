/*
 * call.c — calls: the dispatch of a call, and user functions.
 *
 * Builtins are in builtins.c, constructors and casts in ctors.c, the
 * arguments in args.c; this file dispatches a call and calls user
 * functions.
 *
 * User functions: overloads are tried in order (concrete before generic);
 * the match is exact, like Warp's; instance() compiles the callee for the
 * argument types.
 */
#include <string.h>

#include "ast.h"

/* ---- user functions ------------------------------------------------- */

static const char *
specname(Ctx *c, const TySpec *s)
{
	return specstring(c->tmp, c->m, s, "Any");
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
	for (j = 0; j < fd->nparams; j++) {
		if (out[j].k == X_TUPLE && out[j].results && out[j].n > 0) {
			if (report)
				serr(c, loc, "Failed to determine type code for argument '%s' of function %s: a call's %d "
				     "results are not a tuple (Warp passes them as one once bound to a local)",
				     fd->params[j].name, fd->name, out[j].n);
			return false;
		}
		if (out[j].k == X_TUPLE && out[j].n > 0 && (fd->params[j].spec.tup || fd->params[j].spec.any)) {
			/* a tuple for a tuple[...] or Any parameter: of values */
			for (i = 0; i < out[j].n; i++)
				if (out[j].elts[i].k != X_VAL) {
					if (report)
						serr(c, loc, "kpyc passes tuples of values only (element %d of argument '%s' is not "
						     "a value)", i, fd->params[j].name);
					return false;
				}
			continue;
		}
		if (out[j].k != X_VAL) {
			if (report)
				xvalue(c, out[j], loc);
			return false;
		}
	}
	return true;
}

/* Does the bound argument x fit parameter annotation s: a value by
 * specfits, a tuple element by element (Warp's tuple[T, U], tuple[T,
 * ...], Any)? */
static bool
argfits(Ctx *c, const TySpec *s, X x)
{
	int i;

	if (x.k != X_TUPLE)
		return specfits(s, vty(c->f, x.v));
	if (s->any)
		return true;
	if (!s->tup || (!s->tupvar && x.n != s->ntup))
		return false;
	for (i = 0; i < x.n; i++)
		if (!specfits(&s->telts[s->tupvar ? 0 : i], vty(c->f, x.elts[i].v)))
			return false;
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
	int i, n, nargs, *tup;
	bool anytup;

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
				if (!argfits(c, &fd->params[i].spec, b[i]))
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
			bufprintf(&tl, "%s%s", i ? ", " : "", a.pos[i].k == X_VAL ? wptypename(c->m, vty(c->f, a.pos[i].v)) :
			          a.pos[i].k == X_TUPLE ? "tuple" : "?");
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
	/* tuple arguments go as their elements in turn */
	nargs = 0;
	for (i = 0; i < fd->nparams; i++)
		nargs += bound[i].k == X_TUPLE ? bound[i].n : 1;
	types = aalloc(c->tmp, (size_t)(nargs + 1) * sizeof *types);
	vals = aalloc(c->tmp, (size_t)(nargs + 1) * sizeof *vals);
	tup = aalloc(c->tmp, (size_t)(fd->nparams + 1) * sizeof *tup);
	anytup = false;
	for (i = 0, n = 0; i < fd->nparams; i++) {
		int j;
		tup[i] = bound[i].k == X_TUPLE ? bound[i].n : 0;
		anytup |= tup[i] > 0;
		for (j = 0; j < (tup[i] ? tup[i] : 1); j++, n++) {
			vals[n] = tup[i] ? bound[i].elts[j].v : bound[i].v;
			types[n] = vty(c->f, vals[n]);
			if (types[n].k == T_STR) {
				serr(c, e->loc, "strings cannot be passed to functions");
				return xnone();
			}
		}
	}
	in = instantiatet(c->k, fd, types, anytup ? tup : NULL, e->loc);
	if (!in) {
		if (c->k->lenient)
			serr(c, e->loc, "'%s' does not compile for these argument types", fd->name);
		return xnone();
	}
	op = mkop(c->m, c->f, OP_CALL, vals, nargs, in->f->rets, (int)in->f->nrets, e->loc);
	op->attr = in->fidx;
	regpush(c->m, c->b.r, op);
	if (op->nres == 1)
		return xval(op->res[0]);
	if (op->nres == 0)
		return void_x();
	{
		X x = xnone();
		x.k = X_TUPLE;
		x.results = true;
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
		if (specgeneric(&fn.g.spec)) {
			serr(c, e->loc, "a generic type cannot be constructed");
			return xnone();
		}
		if (typeeq(fn.g.spec.ty, tscalar(S_U64)) && e->l1.n == 1 && e->l2.n == 0 && e->l1.v[0]->kind == E_INT &&
		    !e->l1.v[0]->big && e->l1.v[0]->u > (uint64_t)INT64_MAX) {
			/* wp.uint64(0xFF51AFD7ED558CCD): Warp's uint64 constant of a
			 * Python int above int64's range (elsewhere such a literal is
			 * an error: kpyc's literals are int64) */
			return xval(cint(c->m, c->f, S_U64, (int64_t)e->l1.v[0]->u));
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
