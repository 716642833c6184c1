/*
 * verify.c — the kir verifier.
 *
 * Checks, reporting every violation (not just the first):
 *  - every operand is defined before use and visible where it is used:
 *    structured dominance (a value is visible after its definition in its
 *    region and in regions nested below; an op's params only inside its
 *    regions);
 *  - every op's operands type-check with its typing rule and its declared
 *    result types equal the inferred ones;
 *  - every region ends with exactly one terminator and has no other;
 *    yield/break/continue/ret carry the values their context requires;
 *    break/continue appear only inside loops; the function body ends in ret;
 *  - tid only in kernels; kernels return nothing; calls match callees.
 * Violations are located at the op's position in the kir text when it was
 * parsed, else at its Python location.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct Ctx {
	const Module *m;
	const Func *f;
	const Src *src;   /* the kir text, for kloc */
	Src py;           /* the Python source, for loc (no text) */
	Diag *d;
	uint8_t *vis;     /* per Val: visible here */
	int n;            /* violations */
} Ctx;

/* What the innermost enclosing constructs expect of terminators. */
typedef struct Scope {
	const Op *loop;   /* innermost for/while (NULL: none) */
	const Op *owner;  /* op owning the current region (NULL: function body) */
	int regno;        /* which of owner's regions */
} Scope;

static void
report(Ctx *c, const Op *op, const char *fmt, ...) KPY_PRINTF(3, 4);

static void
report(Ctx *c, const Op *op, const char *fmt, ...)
{
	va_list ap;
	Buf b = {0};

	va_start(ap, fmt);
	bufvprintf(&b, fmt, ap);
	va_end(ap);
	if (op && op->kloc.line)
		diagerr(c->d, c->src, op->kloc, "in @%s: %s", c->f->name, b.s);
	else if (op && op->loc.line)
		diagerr(c->d, &c->py, op->loc, "in @%s: %s", c->f->name, b.s);
	else if (c->f->kloc.line)
		diagerr(c->d, c->src, c->f->kloc, "in @%s: %s", c->f->name, b.s);
	else
		diagerr(c->d, NULL, (Loc){0}, "in @%s: %s", c->f->name, b.s);
	buffree(&b);
	c->n++;
}

/* Operand i (from 0) of op. */
static bool
okval(Ctx *c, const Op *op, int i)
{
	Val v = op->args[i];

	if (v == 0 || v >= c->f->nvals) {
		report(c, op, "%s operand %d: invalid value", opinfo[op->code].name, i + 1);
		return false;
	}
	if (c->f->vals[v].kind == V_CONST)
		return true;
	if (!c->vis[v]) {
		report(c, op, "%s operand %d: value used where its definition is not visible",
		       opinfo[op->code].name, i + 1);
		return false;
	}
	return true;
}

/* Check that vals[0..n) have the types of tvals (as values) or tys. */
static void
matchtypes(Ctx *c, const Op *op, const char *what, const Val *vals, int n, const Val *tvals,
           const Type *tys, int nt)
{
	int i;

	if (n != nt) {
		report(c, op, "%s carries %d value%s, expected %d", what, n, n == 1 ? "" : "s", nt);
		return;
	}
	for (i = 0; i < n; i++) {
		Type want = tvals ? c->f->vals[tvals[i]].ty : tys[i];
		Type got = c->f->vals[vals[i]].ty;
		if (!typeeq(got, want))
			report(c, op, "%s value %d has type %s, expected %s", what, i + 1, typestr(c->m, got),
			       typestr(c->m, want));
	}
}

static void region(Ctx *c, const Region *r, Scope sc);

static void
terminator(Ctx *c, const Op *op, Scope sc)
{
	const Op *o = sc.owner;

	switch (op->code) {
	case OP_RET:
		if (c->f->kernel && op->nargs)
			report(c, op, "kernels cannot return values");
		else if (!c->f->kernel)
			matchtypes(c, op, "ret", op->args, op->nargs, NULL, c->f->rets, (int)c->f->nrets);
		return;
	case OP_BREAK:
	case OP_CONTINUE:
		if (!sc.loop) {
			report(c, op, "%s outside a loop", opinfo[op->code].name);
			return;
		}
		if (o && o->code == OP_WHILE && sc.regno == 0 && o == sc.loop) {
			report(c, op, "%s in a while condition", opinfo[op->code].name);
			return;
		}
		if (op->code == OP_BREAK)
			matchtypes(c, op, "break", op->args, op->nargs, sc.loop->res, NULL, sc.loop->nres);
		else {
			int first = sc.loop->code == OP_FOR;
			matchtypes(c, op, "continue", op->args, op->nargs, sc.loop->params + first, NULL,
			           sc.loop->nparams - first);
		}
		return;
	case OP_YIELD:
		if (!o) {
			report(c, op, "yield at the top level of a function (use ret)");
			return;
		}
		if (o->code == OP_IF) {
			matchtypes(c, op, "yield", op->args, op->nargs, o->res, NULL, o->nres);
		} else if (o->code == OP_WHILE && sc.regno == 0) {
			if (op->nargs != 1 || !isbool(c->f->vals[op->args[0]].ty))
				report(c, op, "a while condition must yield one bool");
		} else {
			int first = o->code == OP_FOR;
			matchtypes(c, op, "yield", op->args, op->nargs, o->params + first, NULL, o->nparams - first);
		}
		return;
	}
}

static void
regionop(Ctx *c, const Op *op, Scope sc)
{
	Scope in = sc;
	int i, first;

	in.owner = op;
	switch (op->code) {
	case OP_IF:
		if (op->nargs != 1 || op->nregs != 2) {
			report(c, op, "if takes one condition and two regions");
			return;
		}
		if (!isbool(c->f->vals[op->args[0]].ty))
			report(c, op, "if condition has type %s, expected bool", typestr(c->m, c->f->vals[op->args[0]].ty));
		break;
	case OP_FOR:
		if (op->nargs < 3 || op->nregs != 1 || op->nparams != op->nargs - 2) {
			report(c, op, "malformed for");
			return;
		}
		{
			Type t = c->f->vals[op->args[0]].ty;
			if (!isint(t))
				report(c, op, "loop bounds must be integers, not %s", typestr(c->m, t));
			for (i = 1; i < 3; i++)
				if (!typeeq(c->f->vals[op->args[i]].ty, t))
					report(c, op, "loop start, end and step must have the same type");
			if (!typeeq(c->f->vals[op->params[0]].ty, t))
				report(c, op, "loop index type differs from its bounds");
		}
		in.loop = op;
		break;
	case OP_WHILE:
		if (op->nregs != 2 || op->nparams != op->nargs) {
			report(c, op, "malformed while");
			return;
		}
		in.loop = op;
		break;
	}
	if (op->code != OP_IF) {
		first = op->code == OP_FOR;
		for (i = first; i < op->nparams; i++) {
			Type init = c->f->vals[op->args[i + (op->code == OP_FOR ? 2 : 0)]].ty;
			if (!typeeq(c->f->vals[op->params[i]].ty, init))
				report(c, op, "loop-carried value %d: initial value has type %s, carried %s", i - first + 1,
				       typestr(c->m, init), typestr(c->m, c->f->vals[op->params[i]].ty));
		}
		if (op->nres != op->nparams - first)
			report(c, op, "a loop yields one result per loop-carried value");
		else
			for (i = 0; i < op->nres; i++)
				if (!typeeq(c->f->vals[op->res[i]].ty, c->f->vals[op->params[i + first]].ty))
					report(c, op, "loop result %d has a different type from its carried value", i + 1);
	}
	for (i = 0; i < op->nparams; i++)
		c->vis[op->params[i]] = 1;
	for (i = 0; i < op->nregs; i++) {
		in.regno = i;
		region(c, &op->regs[i], in);
	}
	for (i = 0; i < op->nparams; i++)
		c->vis[op->params[i]] = 0;
}

static void
checkop(Ctx *c, const Op *op, Scope sc)
{
	const OpInfo *oi = &opinfo[op->code];
	Type *in, *out; /* a call yields its callee's results */
	Type inbuf[16], outbuf[16]; /* most ops: no malloc */
	Buf e = {0};
	int i, n;
	size_t nout;
	bool ok = true;

	for (i = 0; i < op->nargs; i++)
		if (!okval(c, op, i))
			ok = false;
	for (i = 0; i < op->nres; i++)
		if (op->res[i] == 0 || op->res[i] >= c->f->nvals || c->f->vals[op->res[i]].def != op) {
			report(c, op, "%s: malformed result %d", oi->name, i + 1);
			return;
		}
	if (!ok)
		return;
	if (oi->flags & F_REGION) {
		regionop(c, op, sc);
		return;
	}
	if (oi->flags & F_TERM) {
		terminator(c, op, sc);
		return;
	}
	if (op->code == OP_TID && !c->f->kernel)
		report(c, op, "tid() may only be called from a kernel");
	nout = (size_t)op->nres + 8;
	if (op->code == OP_CALL && op->attr >= 0 && (uint32_t)op->attr < c->m->nfuncs)
		nout += c->m->funcs[op->attr]->nrets;
	in = (size_t)op->nargs + 1 <= countof(inbuf) ? inbuf : xmalloc(((size_t)op->nargs + 1) * sizeof *in);
	out = nout <= countof(outbuf) ? outbuf : xmalloc(nout * sizeof *out);
	for (i = 0; i < op->nargs; i++)
		in[i] = c->f->vals[op->args[i]].ty;
	if ((oi->flags & F_CAST) && op->nres == 1)
		out[0] = c->f->vals[op->res[0]].ty;
	n = typeop(c->m, op->code, in, op->nargs, op->attr, out, &e);
	if (n < 0) {
		report(c, op, "%s", e.s ? e.s : "type error");
	} else if (n != op->nres) {
		report(c, op, "%s yields %d result%s, not %d", oi->name, n, n == 1 ? "" : "s", op->nres);
	} else {
		for (i = 0; i < n; i++)
			if (!typeeq(out[i], c->f->vals[op->res[i]].ty))
				report(c, op, "%s result %d has type %s, expected %s", oi->name, i + 1,
				       typestr(c->m, c->f->vals[op->res[i]].ty), typestr(c->m, out[i]));
	}
	buffree(&e);
	if (in != inbuf)
		free(in);
	if (out != outbuf)
		free(out);
}

static void
region(Ctx *c, const Region *r, Scope sc)
{
	uint32_t i;
	int j;

	if (r->n == 0) {
		report(c, sc.owner, "empty region (a region ends with a terminator)");
		return;
	}
	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		bool term = opinfo[op->code].flags & F_TERM;
		if (term && i + 1 < r->n)
			report(c, op, "%s before the end of its region", opinfo[op->code].name);
		if (!term && i + 1 == r->n)
			report(c, op, "region does not end with a terminator (yield, break, continue or ret)");
		checkop(c, op, sc);
		for (j = 0; j < op->nres; j++)
			if (op->res[j] && op->res[j] < c->f->nvals)
				c->vis[op->res[j]] = 1;
	}
	/* values defined here are not visible after the region */
	for (i = 0; i < r->n; i++)
		for (j = 0; j < r->ops[i]->nres; j++)
			if (r->ops[i]->res[j] < c->f->nvals)
				c->vis[r->ops[i]->res[j]] = 0;
}

int
verify(const Module *m, const Src *src, Diag *d)
{
	Ctx c = {0};
	uint32_t i, j, *later = xcalloc(m->nfuncs + 1, sizeof *later);
	StrMap count = {0};

	/* later[i]: how many functions after i have its name (one hash pass
	 * from the end, not a scan of the rest per function) */
	for (i = m->nfuncs; i-- > 0;)
		later[i] = (*smput(&count, m->funcs[i]->name, NULL))++;
	smfree(&count);

	c.m = m;
	c.src = src;
	c.py.name = m->nsrcs ? m->srcs[0] : "<python>";
	c.d = d;
	for (i = 0; i < m->nfuncs; i++) {
		const Func *f = m->funcs[i];
		Scope sc = {0};
		c.f = f;
		c.vis = xcalloc(f->nvals + 1, 1);
		for (j = 0; j < f->nparams; j++) {
			Type t = f->vals[f->params[j]].ty;
			c.vis[f->params[j]] = 1;
			if (!(t.k == T_SCALAR || iscomposite(t) || t.k == T_STRUCT || t.k == T_ARRAY))
				report(&c, NULL, "parameter %u has no value type", j + 1);
		}
		if (f->kernel && f->nrets)
			report(&c, NULL, "kernels cannot return values");
		for (j = 0; j < later[i]; j++)
			report(&c, NULL, "function @%s defined twice", f->name);
		region(&c, &f->body, sc);
		if (f->body.n && f->body.ops[f->body.n - 1]->code != OP_RET &&
		    (opinfo[f->body.ops[f->body.n - 1]->code].flags & F_TERM))
			report(&c, f->body.ops[f->body.n - 1], "a function body ends with ret");
		free(c.vis);
	}
	free(later);
	return c.n;
}
