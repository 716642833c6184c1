/*
 * autodiff_clone.c — escape removal (structurize), the pass diagnostics
 * autodiff and inline share, and the `noescape` pass that exposes escape
 * removal.  (The cloner it is named after is libkir's, ir/clone.c.)
 *
 * noescape
 * requires: a verified module
 * provides: no break or continue anywhere, and `ret` only as the last op of
 *           a function body (see structurize() in autodiff.h); the meaning
 *           of every function is unchanged.
 * breaks:   code size (the rest of a region is copied into each branch that
 *           falls through an escaping if).
 *
 * Escape removal works on one function in two steps, innermost regions
 * first.  While it runs, a region may end in a "terminating if": an if
 * after which nothing follows, every path through it ending in a
 * terminator that leaves the region (a `yield` at the end of such a path
 * belongs to the region's owner, not to the if).  fix() turns terminating
 * ifs back into valid kir: the if gets results, the paths yield them to
 * it, and the region ends with its own terminator applied to them.
 */
#include <stdlib.h>
#include <string.h>

#include "autodiff.h"

/* ------------------------------------------------------------------ */
/* diagnostics                                                         */

/* The Python file name, read and its lines indexed once: a module with
 * many diagnostics pointing into it (a warning per op) re-read and
 * re-scanned the whole file for each.  The last file read stays to the end
 * of the run; NULL when it cannot be read. */
static const Src *
pysource(const char *name)
{
	static Src last;
	static char *lastname;
	char *text;
	size_t len;

	if (lastname && strcmp(lastname, name) == 0)
		return last.text ? &last : NULL;
	srcunindex(&last);
	free((char *)last.text);
	free(lastname);
	memset(&last, 0, sizeof last);
	lastname = xstrdup(name);
	if (!(text = readfile(name, &len)))
		return NULL;
	last.name = lastname;
	last.text = text;
	last.len = len;
	srcindex(&last);
	return &last;
}

void
passdiag(Module *m, PassOpts *o, const Func *f, const Op *op, const char *kind, const char *fmt, ...)
{
	va_list ap;
	Src py = {0};
	const Src *text;

	va_start(ap, fmt);
	if (op && op->loc.line) {
		py.name = locsrc(m, op->loc);
		if (m->nsrcs && (text = pysource(py.name))) {
			py = *text;
			py.name = locsrc(m, op->loc);
		}
		diagv(o->d, &py, op->loc, kind, fmt, ap);
	} else if (op && op->kloc.line) {
		diagv(o->d, o->src, op->kloc, kind, fmt, ap);
	} else if (f && f->kloc.line) {
		diagv(o->d, o->src, f->kloc, kind, fmt, ap);
	} else if (f && f->loc.line) {
		py.name = locsrc(m, f->loc);
		diagv(o->d, &py, f->loc, kind, fmt, ap);
	} else {
		diagv(o->d, NULL, (Loc){0}, kind, fmt, ap);
	}
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* escape removal                                                      */

typedef struct SZ {
	Module *m;
	Func *f;
	Diag *d;
	const Src *src;
	int nerr;
} SZ;

static void
szerr(SZ *s, const Op *op, const char *msg)
{
	PassOpts o = {0};

	o.d = s->d;
	o.src = s->src;
	passdiag(s->m, &o, s->f, op, "error", "in @%s: %s", s->f->name, msg);
	s->nerr++;
}

static bool
isterm(const Op *op)
{
	return (opinfo[op->code].flags & F_TERM) != 0;
}

/* Does r contain, through ifs but not loops, a terminator that is an
 * escape in this mode? */
static bool
hasesc(const Region *r, int mode)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (op->code == OP_RET)
			return true;
		if (mode == SZ_ALL && (op->code == OP_BREAK || op->code == OP_CONTINUE))
			return true;
		if (op->code == OP_IF)
			for (j = 0; j < op->nregs; j++)
				if (hasesc(&op->regs[j], mode))
					return true;
	}
	return false;
}

/* Any ret anywhere in r (loops included)? */
static bool
hasretdeep(const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (op->code == OP_RET)
			return true;
		for (j = 0; j < op->nregs; j++)
			if (hasretdeep(&op->regs[j]))
				return true;
	}
	return false;
}

static void sink(SZ *s, Region *r, int mode);

/* Append a copy of rest[0..n) at every path of region b that falls through
 * to the end of the if p (its `yield`s), then sink what was appended. */
static void
appendrest(SZ *s, Region *b, Op *p, Op **rest, uint32_t n, int mode)
{
	Op *last = b->ops[b->n - 1];
	uint32_t i;
	int k;

	if (last->code == OP_YIELD) {
		Cloner c;
		clinit(&c, s->m, s->f, s->f);
		for (k = 0; k < p->nres && k < last->nargs; k++)
			clset(&c, p->res[k], last->args[k]);
		b->n--;
		for (i = 0; i < n; i++)
			regpush(s->m, b, clop(&c, rest[i]));
		clfree(&c);
		sink(s, b, mode);
	} else if (last->code == OP_IF) {
		for (k = 0; k < last->nregs; k++)
			appendrest(s, &last->regs[k], p, rest, n, mode);
	}
}

/* Make the first escaping if of r terminating: the ops after it move into
 * its branches.  The branches of every if in r are already sunk. */
static void
sink(SZ *s, Region *r, int mode)
{
	uint32_t i, n;
	int j;

	for (i = 0; i + 1 < r->n; i++) {
		Op *p = r->ops[i];
		bool esc = false;
		Op **rest;
		if (p->code != OP_IF)
			continue;
		for (j = 0; j < p->nregs; j++)
			if (hasesc(&p->regs[j], mode))
				esc = true;
		if (!esc)
			continue;
		n = r->n - i - 1;
		rest = xmalloc(n * sizeof *rest);
		if (n)
			memcpy(rest, r->ops + i + 1, n * sizeof *rest);
		for (j = 0; j < p->nregs; j++)
			appendrest(s, &p->regs[j], p, rest, n, mode);
		free(rest);
		r->n = i + 1;
		return;
	}
}

enum { FX_RET, FX_YIELD };

/* Give the terminating if at the end of r results of types tys and make r
 * end with its terminator (kind N) again; with asyield, the paths of r that
 * end in N yield to r's owner (an enclosing terminating if) instead. */
static void
fix(SZ *s, Region *r, int kind, const Type *tys, int nty, bool asyield)
{
	Op *last = r->ops[r->n - 1], *t;
	Module *m = s->m;
	int j;

	if (isterm(last)) {
		if (kind == FX_YIELD && last->code == OP_CONTINUE)
			last->code = OP_YIELD;
		else if (asyield && kind == FX_RET && last->code == OP_RET)
			last->code = OP_YIELD;
		return;
	}
	if (last->code != OP_IF)
		die("fix: region of @%s ends with %s", s->f->name, opinfo[last->code].name);
	for (j = 0; j < last->nregs; j++)
		fix(s, &last->regs[j], kind, tys, nty, true);
	last->nres = (uint16_t)nty;
	last->res = aalloc(m->arena, ((size_t)nty + 1) * sizeof(Val));
	for (j = 0; j < nty; j++) {
		Val v = newval(m, s->f, tys[j], V_RES, NULL);
		s->f->vals[v].def = last;
		s->f->vals[v].idx = (uint16_t)j;
		last->res[j] = v;
	}
	t = mkop(m, s->f, asyield || kind == FX_YIELD ? OP_YIELD : OP_RET, last->res, nty, NULL, 0, last->loc);
	regpush(m, r, t);
}

/* Does a path of r end in a break or a ret (after sinking)? */
static void
tailkinds(const Region *r, bool *brk, bool *ret)
{
	const Op *last = r->ops[r->n - 1];
	int j;

	if (last->code == OP_BREAK)
		*brk = true;
	else if (last->code == OP_RET)
		*ret = true;
	else if (last->code == OP_IF && !isterm(last))
		for (j = 0; j < last->nregs; j++)
			tailkinds(&last->regs[j], brk, ret);
}

Val
loopcarry(Module *m, Func *f, Op *l, Type t, Val init, Val *res)
{
	Val *na = aalloc(m->arena, ((size_t)l->nargs + 1) * sizeof(Val));
	Val *np = aalloc(m->arena, ((size_t)l->nparams + 1) * sizeof(Val));
	Val *nr = aalloc(m->arena, ((size_t)l->nres + 1) * sizeof(Val));
	Val p, r;

	if (l->nargs)
		memcpy(na, l->args, l->nargs * sizeof(Val));
	if (l->nparams)
		memcpy(np, l->params, l->nparams * sizeof(Val));
	if (l->nres)
		memcpy(nr, l->res, l->nres * sizeof(Val));
	na[l->nargs++] = init;
	p = newval(m, f, t, V_PARAM, NULL);
	f->vals[p].def = l;
	f->vals[p].idx = l->nparams;
	np[l->nparams++] = p;
	r = newval(m, f, t, V_RES, NULL);
	f->vals[r].def = l;
	f->vals[r].idx = l->nres;
	nr[l->nres++] = r;
	l->args = na;
	l->params = np;
	l->res = nr;
	*res = r;
	return p;
}

typedef struct Ext {
	const Val *carried;  /* the loop's carried values (its params after the index) */
	int nc;
	Val code;            /* the exit-code param */
	const Val *pay;      /* the return-value params */
	int npay;
	Val one, two;        /* i32 constants 1, 2 */
} Ext;

/* Rewrite the tails of a loop body for the exit code. */
static void
exttails(SZ *s, Region *r, const Ext *e)
{
	Op *last = r->ops[r->n - 1];
	Val *a;
	int j, n = 0;

	if (last->code == OP_IF && !isterm(last)) {
		for (j = 0; j < last->nregs; j++)
			exttails(s, &last->regs[j], e);
		return;
	}
	a = xmalloc(((size_t)e->nc + 2 + e->npay + last->nargs) * sizeof *a);
	switch (last->code) {
	case OP_YIELD:
	case OP_CONTINUE:
		for (j = 0; j < last->nargs; j++)
			a[n++] = last->args[j];
		a[n++] = e->code;
		for (j = 0; j < e->npay; j++)
			a[n++] = e->pay[j];
		break;
	case OP_BREAK:
		for (j = 0; j < last->nargs; j++)
			a[n++] = last->args[j];
		a[n++] = e->one;
		for (j = 0; j < e->npay; j++)
			a[n++] = e->pay[j];
		break;
	case OP_RET:
		for (j = 0; j < e->nc; j++)
			a[n++] = e->carried[j];
		a[n++] = e->two;
		for (j = 0; j < last->nargs && j < e->npay; j++)
			a[n++] = last->args[j];
		break;
	default:
		die("exttails: %s", opinfo[last->code].name);
	}
	r->ops[r->n - 1] = mkop(s->m, s->f, OP_YIELD, a, n, NULL, 0, last->loc);
	r->ops[r->n - 1]->kloc = last->kloc;
	free(a);
}

/* Guard region r (a loop body or while condition): it becomes
 *   %c = ne %code, 0 ; if %c { yield whenset... } else { r }
 * with the if terminating. */
static void
guard(SZ *s, Region *r, Val code, const Val *whenset, int nset, Loc loc)
{
	Module *m = s->m;
	Region old = *r;
	Builder b = {m, s->f, NULL, loc};
	Op *g;
	Val c;

	memset(r, 0, sizeof *r);
	b.r = r;
	c = b2(&b, OP_NE, code, cint(m, s->f, S_I32, 0));
	g = bop(&b, OP_IF, &c, 1, NULL, 0);
	opsetregions(m, g, 2);
	regpush(m, &g->regs[0], mkop(m, s->f, OP_YIELD, whenset, nset, NULL, 0, loc));
	g->regs[1] = old;
}

/* Internal mode: inside a loop body in SZ_RET mode (no sinking). */
enum { SZ_KEEP = 2 };

/* In SZ_RET mode, a loop with a return inside: every terminator that
 * leaves or restarts the loop carries the exit code and the return values;
 * `ret V` becomes `break params, 2, V`. */
static void
retbreak(SZ *s, Region *r, const Ext *e, bool isbody)
{
	Op *last = r->ops[r->n - 1];
	Val *a;
	uint32_t i;
	int j, n = 0;

	for (i = 0; i < r->n; i++)
		if (r->ops[i]->code == OP_IF)
			for (j = 0; j < r->ops[i]->nregs; j++)
				retbreak(s, &r->ops[i]->regs[j], e, false);
	if (last->code == OP_YIELD && !isbody)
		return;
	a = xmalloc(((size_t)e->nc + 2 + e->npay + last->nargs) * sizeof *a);
	if (last->code == OP_RET) {
		for (j = 0; j < e->nc; j++)
			a[n++] = e->carried[j];
		a[n++] = e->two;
		for (j = 0; j < last->nargs && j < e->npay; j++)
			a[n++] = last->args[j];
	} else {
		for (j = 0; j < last->nargs; j++)
			a[n++] = last->args[j];
		a[n++] = e->code;
		for (j = 0; j < e->npay; j++)
			a[n++] = e->pay[j];
	}
	r->ops[r->n - 1] = mkop(s->m, s->f, last->code == OP_RET ? OP_BREAK : last->code, a, n, NULL, 0, last->loc);
	r->ops[r->n - 1]->kloc = last->kloc;
	free(a);
}

typedef struct OpList {
	Op **ops;
	uint32_t n, cap;
} OpList;

static void process(SZ *s, Region *r, int mode);

/* Remove the escapes of loop l; ops to place before and after it go to out
 * (l itself too). */
static void
loop(SZ *s, Op *l, int mode, OpList *out)
{
	Module *m = s->m;
	Func *f = s->f;
	bool isfor = l->code == OP_FOR, brk = false, ret = false;
	Region *body = &l->regs[isfor ? 0 : 1];
	bool hasret = hasretdeep(body);
	int lmode = mode == SZ_ALL ? SZ_ALL : hasret ? SZ_KEEP : SZ_RET;
	int first = isfor, nc = l->nparams - first, j, nall;
	Type *tys;
	Val codep, coder, *pay = NULL, *payr = NULL, *all;
	Ext e = {0};

	if (!isfor) {
		Region *cond = &l->regs[0];
		if (hasretdeep(cond)) {
			szerr(s, l, "a return inside a while condition is not supported");
			APUSH(m->arena, out->ops, out->n, out->cap, l);
			return;
		}
		process(s, cond, SZ_RET);
	}
	process(s, body, lmode);
	if (lmode == SZ_RET) {
		APUSH(m->arena, out->ops, out->n, out->cap, l);
		return;
	}
	if (lmode == SZ_ALL)
		tailkinds(body, &brk, &ret);
	else
		ret = true;
	tys = xmalloc(((size_t)l->nparams + 2 + f->nrets) * sizeof *tys);
	if (!brk && !ret) {
		for (j = 0; j < nc; j++)
			tys[j] = f->vals[l->params[first + j]].ty;
		fix(s, body, FX_YIELD, tys, nc, false);
		APUSH(m->arena, out->ops, out->n, out->cap, l);
		free(tys);
		return;
	}
	/* exit code and return values, carried */
	codep = loopcarry(m, f, l, tscalar(S_I32), cint(m, f, S_I32, 0), &coder);
	if (ret && f->nrets) {
		pay = xmalloc(f->nrets * sizeof *pay);
		payr = xmalloc(f->nrets * sizeof *payr);
		for (j = 0; j < (int)f->nrets; j++) {
			Type t = f->rets[j];
			Val init;
			if (t.k == T_SCALAR || iscomposite(t)) {
				init = czero(m, f, t);
			} else if (t.k == T_STRUCT) {
				Op *z = mkop(m, f, OP_ZERO, NULL, 0, &t, 1, l->loc);
				APUSH(m->arena, out->ops, out->n, out->cap, z);
				init = z->res[0];
			} else {
				szerr(s, l, "a return of this type from inside a loop is not supported");
				init = 0;
				free(tys);
				free(pay);
				free(payr);
				APUSH(m->arena, out->ops, out->n, out->cap, l);
				return;
			}
			pay[j] = loopcarry(m, f, l, t, init, &payr[j]);
		}
		e.pay = pay;
		e.npay = (int)f->nrets;
	}
	all = xmalloc(((size_t)l->nparams + 1) * sizeof *all);
	for (j = 0; j < nc; j++)
		all[j] = l->params[first + j];
	e.carried = all;
	e.nc = nc;
	e.code = codep;
	e.one = cint(m, f, S_I32, 1);
	e.two = cint(m, f, S_I32, 2);
	if (lmode == SZ_KEEP) {
		/* returns become breaks out of the loop; nothing is guarded */
		retbreak(s, body, &e, true);
		goto reraise;
	}
	exttails(s, body, &e);
	nall = l->nparams - first;
	for (j = 0; j < nall; j++) {
		all[j] = l->params[first + j];
		tys[j] = f->vals[all[j]].ty;
	}
	guard(s, body, codep, all, nall, l->loc);
	fix(s, body, FX_YIELD, tys, nall, false);
	if (!isfor) {
		Region *cond = &l->regs[0];
		Val no = cbool(m, f, false);
		Type bt = tscalar(S_BOOL);
		guard(s, cond, codep, &no, 1, l->loc);
		fix(s, cond, FX_YIELD, &bt, 1, false);
	}
reraise:
	APUSH(m->arena, out->ops, out->n, out->cap, l);
	if (ret) {
		/* re-raise the return after the loop */
		Region tmp = {0};
		Builder b = {m, f, &tmp, l->loc};
		Val isret = b2(&b, OP_EQ, coder, e.two);
		Op *d = bop(&b, OP_IF, &isret, 1, NULL, 0);
		opsetregions(m, d, 2);
		regpush(m, &d->regs[0], mkop(m, f, OP_RET, payr, payr ? (int)f->nrets : 0, NULL, 0, l->loc));
		regpush(m, &d->regs[1], mkop(m, f, OP_YIELD, NULL, 0, NULL, 0, l->loc));
		for (j = 0; j < (int)tmp.n; j++)
			APUSH(m->arena, out->ops, out->n, out->cap, tmp.ops[j]);
	}
	free(all);
	free(tys);
	free(pay);
	free(payr);
}

/* Remove the escapes inside r's ops (loops innermost first), then sink r
 * (SZ_KEEP: do not sink; returns inside a loop become breaks instead). */
static void
process(SZ *s, Region *r, int mode)
{
	OpList out = {0};
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		if (op->code == OP_FOR || op->code == OP_WHILE) {
			loop(s, op, mode, &out);
			continue;
		}
		if (op->code == OP_IF)
			for (j = 0; j < op->nregs; j++)
				process(s, &op->regs[j], mode);
		APUSH(s->m->arena, out.ops, out.n, out.cap, op);
	}
	r->ops = out.ops;
	r->n = out.n;
	r->cap = out.cap;
	if (mode != SZ_KEEP)
		sink(s, r, mode);
}

int
structurize(Module *m, Func *f, int mode, Diag *d, const Src *src)
{
	SZ s = {0};

	s.m = m;
	s.f = f;
	s.d = d;
	s.src = src;
	process(&s, &f->body, mode);
	fix(&s, &f->body, FX_RET, f->rets, (int)f->nrets, false);
	return s.nerr;
}

int
noescape(Module *m, PassOpts *o)
{
	uint32_t i;
	int nerr = 0;

	for (i = 0; i < m->nfuncs; i++)
		nerr += structurize(m, m->funcs[i], SZ_ALL, o->d, o->src);
	return nerr;
}
