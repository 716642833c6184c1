/*
 * sema.c — from a function's statements to structured SSA kir.
 *
 * Variables.  A body keeps an environment (Env) from Python names to
 * their current kir value; an assignment rebinds the name (SSA: a new
 * value, named after the variable; the printer numbers redefinitions).
 * Warp forbids changing a variable's type, and so does kpyc.
 *
 * Control flow (if/elif/else, loops, Warp's loop rule): control.c, with
 * the analyses it needs in liveness.c; environments: env.c; Warp's
 * deterministic mode: det.c.
 *
 * Functions.  Kernels are compiled in source order; a call to a @wp.func
 * compiles an instance for the argument types (generic functions get one
 * per type list).  Functions no kernel calls are compiled afterwards;
 * their errors are warnings and such a function is left out, since Warp
 * never compiles a function nothing calls.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

/* ---- simple statements ---------------------------------------------- */

static void
returnstmt(Ctx *c, Node *s)
{
	X x;
	Val *vals;
	int n, i;

	if (c->fd->kernel) {
		if (s->a) {
			serr(c, s->loc, "Warp kernels cannot return values. Write results to output arguments, and omit "
			     "the return annotation or use `-> None`.");
			return;
		}
		term(c, OP_RET, NULL, 0, s->loc);
		return;
	}
	if (!s->a) {
		if (c->retset && c->f->nrets) {
			vals = aalloc(c->tmp, c->f->nrets * sizeof *vals);
			for (i = 0; i < (int)c->f->nrets; i++)
				vals[i] = zeroval(c, c->f->rets[i], s->loc);
			term(c, OP_RET, vals, (int)c->f->nrets, s->loc);
			return;
		}
		c->retset = true;
		term(c, OP_RET, NULL, 0, s->loc);
		return;
	}
	x = expr(c, s->a);
	if (x.k == X_NONE)
		return;
	if (x.k == X_TUPLE) {
		n = x.n;
		vals = aalloc(c->tmp, (size_t)(n + 1) * sizeof *vals);
		for (i = 0; i < n; i++)
			if (!(vals[i] = xvalue(c, x.elts[i], s->a->loc)))
				return;
	} else {
		n = 1;
		vals = aalloc(c->tmp, sizeof *vals);
		if (!(vals[0] = xvalue(c, x, s->a->loc)))
			return;
	}
	for (i = 0; i < n; i++)
		if (vty(c->f, vals[i]).k == T_STR || vty(c->f, vals[i]).k == T_ARRAY) {
			serr(c, s->a->loc, "a @wp.func cannot return %s", vty(c->f, vals[i]).k == T_STR ? "a string" : "an array");
			return;
		}
	if (!c->retset) {
		for (i = 0; i < n; i++)
			addret(c->m, c->f, vty(c->f, vals[i]));
		c->retset = true;
	} else {
		bool same = (int)c->f->nrets == n;
		for (i = 0; same && i < n; i++)
			if (!typeeq(c->f->rets[i], vty(c->f, vals[i])))
				same = false;
		if (!same) {
			Buf a = {0}, b = {0};
			for (i = 0; i < (int)c->f->nrets; i++)
				bufprintf(&a, "%s%s", i ? ", " : "", wptypename(c->m, c->f->rets[i]));
			for (i = 0; i < n; i++)
				bufprintf(&b, "%s%s", i ? ", " : "", wptypename(c->m, vty(c->f, vals[i])));
			if (c->fd->hasret)
				serr(c, s->a->loc, "The function `%s` has its return type annotated as `%s` but the code returns "
				     "a value of type `%s`.", c->fd->name, a.s ? a.s : "None", b.s);
			else
				serr(c, s->a->loc, "Error, function returned different types, previous: [%s], new [%s]",
				     a.s ? a.s : "", b.s);
			buffree(&a);
			buffree(&b);
			return;
		}
	}
	term(c, OP_RET, vals, n, s->loc);
}

static void
assignstmt(Ctx *c, Node *s)
{
	Node *t, *v = s->a;
	X x;
	uint32_t i;

	if (s->l1.n != 1) {
		serr(c, s->loc, "Assigning the same value to multiple variables is not supported");
		return;
	}
	t = s->l1.v[0];
	if (v->kind == E_LIST) {
		serr(c, v->loc, "List constructs are not supported in kernels. Use vectors like `wp.vec3()` for small "
		     "fixed-size collections, or `wp.zeros(shape=N, dtype=...)` for stack-allocated arrays.");
		return;
	}
	if (t->kind == E_TUPLE) {
		int want = (int)t->l1.n;
		for (i = 0; i < t->l1.n; i++)
			if (t->l1.v[i]->kind != E_NAME) {
				serr(c, t->l1.v[i]->loc, "Multiple return functions can only assign to simple variables, "
				     "e.g.: x, y = func()");
				return;
			}
		if (v->kind == E_CALL)
			x = call(c, v, want, true);
		else
			x = expr(c, v);
		if (x.k == X_NONE) {
			for (i = 0; i < t->l1.n; i++) {
				Bind b = {0};
				b.name = t->l1.v[i]->s;
				b.poison = true;
				envset(c, b);
			}
			return;
		}
		if (x.k != X_TUPLE) {
			if (x.k == X_VAL && iscomposite(vty(c->f, x.v)))
				serr(c, v->loc, "cannot unpack a %s into %d variables (Warp: object of type 'Var' has no len()); "
				     "use its components (v[0], v.x ...)", wptypename(c->m, vty(c->f, x.v)), want);
			else
				serr(c, v->loc, "cannot unpack a single value into %d variables", want);
			return;
		}
		if (x.n != want) {
			serr(c, v->loc, "Invalid number of values to unpack (expected %d, got %d).", want, x.n);
			return;
		}
		for (i = 0; i < t->l1.n; i++)
			assignname(c, t->l1.v[i]->s, x.elts[i], t->l1.v[i]->loc,
			           v->kind == E_TUPLE && v->l1.v[i]->kind == E_NAME);
		return;
	}
	if (t->kind == E_NAME) {
		x = v->kind == E_CALL ? call(c, v, 0, true) : expr(c, v);
		assignname(c, t->s, x, t->loc, v->kind == E_NAME);
		return;
	}
	if (t->kind == E_SUBSCRIPT || t->kind == E_ATTR) {
		x = expr(c, v);
		if (x.k == X_NONE)
			return;
		storeto(c, t, x, -1, NULL);
		return;
	}
	if (t->kind == E_STARRED)
		serr(c, t->loc, "starred assignment targets are not supported");
	else
		serr(c, t->loc, "Error, unsupported assignment statement.");
}

static void
augassign(Ctx *c, Node *s)
{
	Node *t = s->a;

	if (t->kind == E_NAME) {
		X cur, rhs, r;
		Bind *b;
		rhs = expr(c, s->b);
		cur = expr(c, t);
		if (rhs.k == X_NONE || cur.k == X_NONE) {
			if ((b = envfind(&c->env, t->s)) && cur.k == X_NONE) {
				Bind p = {0};
				p.name = t->s;
				p.poison = true;
				envset(c, p);
			}
			return;
		}
		r = binop(c, s->op, cur, rhs, s->loc, s->oploc);
		if (r.k == X_NONE)
			return;
		if (cur.k == X_VAL && r.k == X_VAL && !typeeq(vty(c->f, cur.v), vty(c->f, r.v))) {
			serr(c, s->oploc, "Error, augmented assignment to `%s` (%s) produces different type (%s)", t->s,
			     wptypename(c->m, vty(c->f, cur.v)), wptypename(c->m, vty(c->f, r.v)));
			return;
		}
		r.wconst = false;
		assignname(c, t->s, r, t->loc, false);
		return;
	}
	if (t->kind == E_SUBSCRIPT || t->kind == E_ATTR) {
		storeto(c, t, xnone(), s->op, s->b);
		return;
	}
	serr(c, t->loc, "Error, unsupported augmented assignment target.");
}

static void
stmt(Ctx *c, Node *s)
{
	c->b.loc = s->loc;
	switch (s->kind) {
	case S_EXPR:
		if (s->a->kind == E_STR || s->a->kind == E_ELLIPSIS || s->a->kind == E_INT || s->a->kind == E_FLOAT ||
		    s->a->kind == E_BOOL)
			return; /* docstrings and other standalone constants */
		if (s->a->kind == E_CALL)
			call(c, s->a, 0, false);
		else
			expr(c, s->a);
		return;
	case S_ASSIGN:
		assignstmt(c, s);
		return;
	case S_AUGASSIGN:
		augassign(c, s);
		return;
	case S_ANNASSIGN:
		serr(c, s->loc, "Construct `ast.AnnAssign` not supported in kernels.");
		return;
	case S_IF:
		ifstmt(c, s);
		return;
	case S_FOR:
		forstmt(c, s);
		return;
	case S_WHILE:
		whilestmt(c, s);
		return;
	case S_BREAK:
	case S_CONTINUE:
		if (!c->loop) {
			serr(c, s->loc, "'%s' outside loop", s->kind == S_BREAK ? "break" : "continue");
			return;
		}
		term(c, s->kind == S_BREAK ? OP_BREAK : OP_CONTINUE, loopvals(c, c->loop, s->loc), c->loop->nc, s->loc);
		return;
	case S_RETURN:
		returnstmt(c, s);
		return;
	case S_PASS:
		return;
	case S_ERROR:
		c->syntaxerr = true;
		return;
	case S_ASSERT: {
		X x = expr(c, s->a);
		Val v;
		if (x.k == X_NONE)
			return;
		if (!(v = condval(c, x, s->a->loc)))
			return;
		c->b.loc = s->loc;
		emit1(c, OP_ASSERT, &v, 1, s->loc, "assert");
		return;
	}
	case S_DEF:
		serr(c, s->loc, "nested function definitions are not supported in kernels (define a @wp.func at module level)");
		return;
	case S_CLASS:
		serr(c, s->loc, "Construct `ast.ClassDef` not supported in kernels.");
		return;
	case S_IMPORT:
	case S_FROM:
		serr(c, s->loc, "Construct `%s` not supported in kernels.", s->kind == S_IMPORT ? "ast.Import" : "ast.ImportFrom");
		return;
	case S_UNSUP:
		serr(c, s->loc, "Construct `%s` not supported in kernels.", s->s);
		return;
	default:
		serr(c, s->loc, "unsupported statement");
	}
}

void
stmts(Ctx *c, NodeList *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		if (c->dead && c->b.r != &c->scratch) {
			/* unreachable code: still checked, then dropped */
			Region *keep = c->b.r;
			LoopCtx *lp = c->loop;
			Env e = envcopy(c, &c->env);
			c->scratch.n = 0;
			c->b.r = &c->scratch;
			c->dead = false;
			for (; i < l->n; i++)
				stmt(c, l->v[i]);
			c->b.r = keep;
			c->loop = lp;
			c->env = e;
			c->dead = true;
			return;
		}
		stmt(c, l->v[i]);
	}
}

/* ---- functions ------------------------------------------------------ */

/* A kir name for a new function: the Python name, mangled with the
 * argument types for overloaded and generic functions, made unique. */
static const char *
funcname(Kpyc *k, FuncDecl *fd, const Inst *in)
{
	const Type *args = in->args;
	int ai = 0;
	Buf b = {0};
	const char *name;
	int i, n = 2;
	uint32_t gi = nmget(&fd->file->gmap, fd->name);
	/* (a function made by a factory is bound to no module name of its own) */
	bool mangle = fd->kernel ? fd->generic
	                         : fd->generic || fd->next || (gi != UINT32_MAX && fd->file->g[gi].v.fd != fd);

	bufputs(&b, kirident(k->a, fd->name));
	if (mangle) {
		bufputs(&b, "_");
		for (i = 0; i < fd->nparams; i++) {
			int j, n = in->tup ? in->tup[i] : 0;
			bufputs(&b, "_");
			if (n)
				bufprintf(&b, "t%d", n);
			for (j = 0; j < (n ? n : 1); j++)
				typemangle(&b, k->m, args[ai++]);
		}
	}
	name = astrdup(k->a, b.s);
	while (nmget(&k->fnames, name) != UINT32_MAX)
		name = aprintf(k->a, "%s_%d", b.s, n++);
	buffree(&b);
	nmput(k->a, &k->fnames, name, 1);
	return name;
}

/* Where a kir function comes from: its final position is by file, then
 * definition, then instance creation; failed lenient ones are dropped. */
typedef struct FuncKey {
	int file, decl;
	uint32_t seq;
	bool failed;
} FuncKey;

static Func *
compile(Kpyc *k, FuncDecl *fd, Inst *inst)
{
	Ctx c;
	Func *f;
	int i, ai, nerr0 = k->d->nerr, nlen0 = k->nlenient;
	FileCtx *savefile = k->file;
	const NameMap *saveclosure = k->closure;
	FuncKey key;

	memset(&c, 0, sizeof c);
	k->file = fd->file;
	k->closure = fd->closure;
	c.k = k;
	c.file = fd->file;
	c.fd = fd;
	c.m = k->m;
	if (k->depth >= (int)countof(k->tmps)) {
		kerr(k, fd->def->loc, "functions nested too deeply in calls");
		k->file = savefile;
		k->closure = saveclosure;
		return NULL;
	}
	if (!k->tmps[k->depth])
		k->tmps[k->depth] = arena_new();
	c.tmp = k->tmps[k->depth++];
	arena_reset(c.tmp);
	f = addfunc(k->m, funcname(k, fd, inst), fd->kernel, fd->def->loc);
	key.file = fd->file->index;
	key.decl = fd->order;
	key.seq = k->nkeys;
	key.failed = false;
	APUSH(k->a, k->keys, k->nkeys, k->capkeys, key);
	c.f = f;
	c.b.m = k->m;
	c.b.f = f;
	c.b.r = &f->body;
	c.b.loc = fd->def->loc;
	inst->f = f;
	inst->fidx = (int)k->m->nfuncs - 1;
	for (i = 0, ai = 0; i < fd->nparams; i++) {
		Bind b = {0};
		int n = inst->tup ? inst->tup[i] : 0;
		b.name = fd->params[i].name;
		if (n) {
			/* a tuple argument: one kir parameter per element, the
			 * name bound to the tuple of them (as a local tuple) */
			X t = xnone();
			int j;
			t.k = X_TUPLE;
			t.n = n;
			t.elts = aalloc(c.tmp, (size_t)n * sizeof *t.elts);
			for (j = 0; j < n; j++)
				t.elts[j] = xval(addparam(k->m, f, kirident(c.tmp, aprintf(c.tmp, "%s_%d", b.name, j)),
				                          inst->args[ai++], fd->params[i].node->loc));
			assignname(&c, b.name, t, fd->params[i].node->loc, false);
			continue;
		}
		b.v = addparam(k->m, f, kirident(c.tmp, b.name), inst->args[ai++], fd->params[i].node->loc);
		envset(&c, b);
	}
	if (fd->hasret) {
		for (i = 0; i < fd->nrets; i++)
			addret(k->m, f, fd->rets[i].ty);
		c.retset = true;
	}
	liveness(&c, fd->def);
	stmts(&c, &fd->def->l1);
	if (!c.dead) {
		c.b.loc = fd->def->loc;
		if (f->nrets) {
			Val *vals = aalloc(c.tmp, f->nrets * sizeof *vals);
			for (i = 0; i < (int)f->nrets; i++)
				vals[i] = zeroval(&c, f->rets[i], fd->def->loc);
			term(&c, OP_RET, vals, (int)f->nrets, fd->def->loc);
		} else {
			c.retset = true;
			term(&c, OP_RET, NULL, 0, fd->def->loc);
		}
	}
	if (fd->kernel && (fd->det || fd->file->det) && k->d->nerr == nerr0 && k->nlenient == nlen0)
		detcheck(&c, f);
	k->depth--;
	k->file = savefile;
	k->closure = saveclosure;
	if (k->d->nerr != nerr0 || k->nlenient != nlen0) {
		k->keys[key.seq].failed = true;
		inst->f = NULL;
		return NULL;
	}
	return f;
}

static bool
typesmatch(const Type *a, const Type *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!typeeq(a[i], b[i]))
			return false;
	return true;
}

static bool
tupmatch(const int *a, const int *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if ((a ? a[i] : 0) != (b ? b[i] : 0))
			return false;
	return true;
}

Inst *
instantiate(Kpyc *k, FuncDecl *fd, const Type *args, Loc callloc)
{
	return instantiatet(k, fd, args, NULL, callloc);
}

/* The instance of fd for these argument types; tup (NULL: none) says
 * which arguments are tuples, of how many elements, in args in turn. */
Inst *
instantiatet(Kpyc *k, FuncDecl *fd, const Type *args, const int *tup, Loc callloc)
{
	Inst *in;
	int i, nargs = 0;

	for (i = 0; i < fd->nparams; i++)
		nargs += tup && tup[i] ? tup[i] : 1;
	for (in = fd->insts; in; in = in->next)
		if (in->nargs == nargs && tupmatch(in->tup, tup, fd->nparams) && typesmatch(in->args, args, nargs)) {
			if (in->busy) {
				kerr(k, callloc, "recursive call of %s (Warp does not support recursion)", fd->name);
				return NULL;
			}
			return in->f ? in : NULL;
		}
	in = aalloc(k->a, sizeof *in);
	in->args = aalloc(k->a, (size_t)(nargs + 1) * sizeof *in->args);
	memcpy(in->args, args, (size_t)nargs * sizeof *args);
	in->nargs = nargs;
	in->tup = NULL;
	if (tup) {
		in->tup = aalloc(k->a, (size_t)(fd->nparams + 1) * sizeof *in->tup);
		memcpy(in->tup, tup, (size_t)fd->nparams * sizeof *tup);
	}
	in->next = fd->insts;
	in->lenient = k->lenient > 0;
	fd->insts = in;
	fd->ninsts++;
	in->busy = true;
	compile(k, fd, in);
	in->busy = false;
	return in->f ? in : NULL;
}

/* Sort the module's functions into source order and drop failed lenient
 * instances; call ops name callees by index, so they are renumbered. */
typedef struct Remap {
	int *to;
} Remap;

static void
remapcall(Op *op, void *ctx)
{
	Remap *r = ctx;
	if (op->code == OP_CALL && op->attr >= 0)
		op->attr = r->to[op->attr];
}

typedef struct Sorted {
	FuncKey key;
	uint32_t idx;
} Sorted;

static int
cmpkey(const void *a, const void *b)
{
	const FuncKey *p = &((const Sorted *)a)->key, *q = &((const Sorted *)b)->key;

	if (p->file != q->file)
		return p->file - q->file;
	if (p->decl != q->decl)
		return p->decl - q->decl;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

static void
reorder(Kpyc *k)
{
	Module *m = k->m;
	uint32_t n = m->nfuncs, i, j = 0;
	Sorted *s = xcalloc(n + 1, sizeof *s);
	Func **nf = aalloc(m->arena, (n + 1) * sizeof *nf);
	Remap r;

	r.to = xcalloc(n + 1, sizeof *r.to);
	for (i = 0; i < n; i++) {
		s[i].key = k->keys[i];
		s[i].idx = i;
	}
	qsort(s, n, sizeof *s, cmpkey);
	for (i = 0; i < n; i++) {
		r.to[s[i].idx] = -1;
		if (!s[i].key.failed) {
			r.to[s[i].idx] = (int)j;
			nf[j++] = m->funcs[s[i].idx];
		}
	}
	m->funcs = nf;
	m->nfuncs = j;
	m->capfuncs = n + 1;
	for (i = 0; i < m->nfuncs; i++)
		walkops(&m->funcs[i]->body, remapcall, &r);
	free(s);
	free(r.to);
}

void
semamodule(Kpyc *k)
{
	int fi;
	uint32_t i;

	/* kernels, in source order, and what they call */
	for (fi = 0; fi < k->nfiles; fi++) {
		FileCtx *f = &k->files[fi];
		k->file = f;
		for (i = 0; i < f->ndecls; i++) {
			FuncDecl *fd = f->decls[i];
			Type *args;
			int j;
			if (!fd->kernel || fd->bad || !fd->def)
				continue;
			if (fd->generic && !fd->closure && fd->novls) {
				/* one kernel per wp.overload, as Warp builds them */
				for (j = 0; j < (int)fd->novls; j++)
					instantiate(k, fd, fd->ovls[j].args, fd->ovls[j].loc);
				continue;
			}
			if (fd->generic) {
				kwarn(k, fd->def->loc, "kernel '%s' has generic (typing.Any) parameters and no wp.overload, and "
				      "kpyc reads no launch of it in the file's functions whose argument types it can tell; "
				      "Warp compiles it only for the types it is launched with, kpyc skips it", fd->name);
				continue;
			}
			args = aalloc(k->a, (size_t)(fd->nparams + 1) * sizeof *args);
			for (j = 0; j < fd->nparams; j++)
				args[j] = fd->params[j].spec.ty;
			if (fd->closure) {
				/* nested in a function: compiled if it can be, else left out */
				int nl = k->nlenient;
				k->lenient++;
				instantiate(k, fd, args, fd->def->loc);
				k->lenient--;
				if (k->nlenient != nl)
					knote(k, "kernel '%s' is nested in a function and does not compile; it is left out",
					      fd->def->s);
				continue;
			}
			instantiate(k, fd, args, fd->def->loc);
		}
	}
	/* functions nothing called: compiled for their own sake, leniently */
	k->lenient++;
	for (fi = 0; fi < k->nfiles; fi++) {
		FileCtx *f = &k->files[fi];
		k->file = f;
		for (i = 0; i < f->ndecls; i++) {
			FuncDecl *fd = f->decls[i];
			Type *args;
			int j, nl = k->nlenient;
			if (fd->kernel || fd->bad || !fd->def || fd->generic || fd->insts)
				continue;
			args = aalloc(k->a, (size_t)(fd->nparams + 1) * sizeof *args);
			for (j = 0; j < fd->nparams; j++)
				args[j] = fd->params[j].spec.ty;
			instantiate(k, fd, args, fd->def->loc);
			if (k->nlenient != nl)
				knote(k, "function '%s' is not called by any kernel and does not compile; it is left out", fd->name);
		}
	}
	k->lenient--;
	reorder(k);
}
