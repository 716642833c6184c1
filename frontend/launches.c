/*
 * launches.c — kernel overloads and launches: wp.overload declarations and
 * Warp's instantiation of generic kernels at their wp.launch calls, with
 * the argument types read from the host code.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* ---- kernel overloads ------------------------------------------------ */

static const char *
specstr(Kpyc *k, const TySpec *s)
{
	return specstring(k->a, k->m, s, "typing.Any");
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
		if (specgeneric(&ts)) {
			kerr(k, at, "Kernel %s argument '%s' cannot be generic, got %s", fd->name, fd->params[i].name,
			     specstr(k, &ts));
			return;
		}
		if (!specfits(&fd->params[i].spec, ts.ty)) {
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
	if (g.kind == G_TYPE && !specgeneric(&g.spec) && g.spec.ty.k != T_ARRAY) {
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
	if (!gvaltype(&g, &ts) || specgeneric(&ts) || ts.ty.k == T_ARRAY || ts.ty.k == T_VOID)
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
		if (!specgeneric(sp)) {
			types[p] = sp->ty;
			continue;
		}
		if (!launchtype(k, f, body, args[p], &types[p], 0) || !specfits(sp, types[p])) {
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
void
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
void
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
void
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
bool
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
