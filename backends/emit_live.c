/*
 * emit_live.c — the C++ emitter's analysis of a function, run before
 * anything is written:
 *  1. need[]: which values the output reads (a fixed point over the
 *     regions: live ops mark their emitted operands; a loop's carried slot
 *     is live when its parameter or its result is);
 *  2. uses[]: how often each value is read by what is emitted, and by which
 *     op;
 *  3. alias[]: values that share another value's variable: a loop result
 *     and its parameter (one variable per carried slot), the new RNG state
 *     of randf & co. and the old one, insert/setfield results and their
 *     source, a loop's parameter and a single-use initial variable — each
 *     only when the old value has no other reader;
 *  4. inl[]: single-use pure expressions (and loads / read-only calls with
 *     no write between definition and use) written into their use.
 * Then emit_stmt.c turns regions into statements.  Everything is
 * deterministic: names are assigned in output order from a per-function
 * name set seeded with the module-level names.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit_impl.h"

/* ------------------------------------------------------------------ */
/* Function analysis                                                   */

Val
root(const FState *s, Val v)
{
	int n = 0;

	while (s->alias[v] && n++ < 1 << 20)
		v = s->alias[v];
	return v;
}

/* Carried slot k of loop op: its parameter and result. */
Val
slotparam(const Op *loop, int k)
{
	return loop->params[k + (loop->code == OP_FOR)];
}

int
nslots(const Op *loop)
{
	return loop->nparams - (loop->code == OP_FOR);
}

Val
slotinit(const Op *loop, int k)
{
	return loop->args[k + (loop->code == OP_FOR ? 3 : 0)];
}

bool
slotneeded(const FState *s, const Op *loop, int k)
{
	return s->need[slotparam(loop, k)] || (k < loop->nres && s->need[loop->res[k]]);
}

/* Does region r have an effect besides its values: a write, a print, a
 * writing call, a return, or a break/continue? */
static bool
regioneffect(const Emit *e, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		unsigned fl = opinfo[op->code].flags;
		if (fl & F_WRITE)
			return true;
		if (op->code == OP_RET || op->code == OP_BREAK || op->code == OP_CONTINUE)
			return true;
		if (op->code == OP_CALL && op->attr >= 0 && e->writes[op->attr])
			return true;
		for (j = 0; j < op->nregs; j++)
			if (regioneffect(e, &op->regs[j]))
				return true;
	}
	return false;
}

/* Is op live (emitted)?  A region op is when one of its values is read or
 * its regions have an effect. */
bool
oplive(const FState *s, const Op *op)
{
	unsigned fl = opinfo[op->code].flags;
	int i;

	if (fl & (F_TERM | F_WRITE))
		return true;
	if (op->code == OP_CALL && op->attr >= 0 && s->e->writes[op->attr])
		return true;
	if (op->code == OP_FOR || op->code == OP_WHILE) {
		for (i = 0; i < op->nparams - (op->code == OP_FOR); i++)
			if (slotneeded(s, op, i))
				return true;
	} else {
		for (i = 0; i < op->nres; i++)
			if (s->need[op->res[i]])
				return true;
	}
	if (fl & F_REGION)
		for (i = 0; i < op->nregs; i++)
			if (regioneffect(s->e, &op->regs[i]))
				return true;
	return false;
}

/* The operands op reads in the output (given need[]), into out[]. */
static int
emittedargs(const FState *s, const Op *op, Ctx c, Val *out)
{
	int n = 0, k;

	switch (op->code) {
	case OP_IF:
		out[n++] = op->args[0];
		return n;
	case OP_FOR:
		out[n++] = op->args[0];
		out[n++] = op->args[1];
		out[n++] = op->args[2];
		/* fallthrough */
	case OP_WHILE:
		for (k = 0; k < nslots(op); k++)
			if (slotneeded(s, op, k))
				out[n++] = slotinit(op, k);
		return n;
	case OP_YIELD:
		if (!c.owner)
			return 0;
		if (c.owner->code == OP_IF) {
			for (k = 0; k < op->nargs && k < c.owner->nres; k++)
				if (s->need[c.owner->res[k]])
					out[n++] = op->args[k];
		} else if (c.owner->code == OP_WHILE && c.regno == 0) {
			if (op->nargs)
				out[n++] = op->args[0];
		} else {
			for (k = 0; k < op->nargs && k < nslots(c.owner); k++)
				if (slotneeded(s, c.owner, k))
					out[n++] = op->args[k];
		}
		return n;
	case OP_BREAK:
	case OP_CONTINUE:
		if (!c.loop)
			return 0;
		for (k = 0; k < op->nargs && k < nslots(c.loop); k++)
			if (slotneeded(s, c.loop, k))
				out[n++] = op->args[k];
		return n;
	default:
		for (k = 0; k < op->nargs; k++)
			out[n++] = op->args[k];
		return n;
	}
}

/*
 * need[] is the least fixed point of "a live op's emitted operands are
 * needed" (oplive, emittedargs).  A worklist reaches it in linear time:
 * every value is needed once, every op is marked live once, and a region
 * is walked once, when its owner is marked.  What a value's becoming
 * needed changes: its defining op turns live (marked with the operands it
 * emits now), or, for an op already marked, an if result or a loop's
 * carried slot now read, the matching operand of the op's yields (and of
 * the loop's breaks and continues) and the slot's initial value.
 * The yields, breaks and continues that refer to each if or loop are
 * listed once beforehand (terms), keyed like the marks by the op's first
 * result or parameter.  Ops are only ever marked inside regions already
 * walked: an operand is defined in the region of its reader or an
 * enclosing one (the verifier checks), so the result is that of the plain
 * fixed point iteration over the regions.
 */
typedef struct Need {
	FState *s;
	uint8_t *marked;     /* per key: the op is marked live */
	uint8_t *slotdone;   /* per loop slot parameter: the slot's reads are needed */
	const Op **loopof;   /* per key: the innermost loop around the op */
	uint32_t *tstart;    /* per key: its terms are terms[tstart[k] .. tstart[k+1]) */
	const Op **terms;    /* yields of an if or loop, breaks/continues of a loop */
	Val *stack;          /* values needed, not yet looked at */
	uint32_t nstack;
} Need;

static Val
opkey(const Op *op)
{
	return op->nres ? op->res[0] : op->nparams ? op->params[0] : 0;
}

static void
needval(Need *w, Val v)
{
	if (w->s->need[v])
		return;
	w->s->need[v] = 1;
	w->stack[w->nstack++] = v;
}

/* Count (tstart != terms) or file the terms of the ops in r; find the
 * loop around each op and the widest operand list. */
static void
termregion(Need *w, const Region *r, Ctx c, uint32_t *fill, uint32_t *maxargs)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		Val owner = 0;
		if (op->nargs > *maxargs)
			*maxargs = op->nargs;
		if (opkey(op))
			w->loopof[opkey(op)] = c.loop;
		if (op->code == OP_YIELD && c.owner && !(c.owner->code == OP_WHILE && c.regno == 0))
			owner = opkey(c.owner);
		else if ((op->code == OP_BREAK || op->code == OP_CONTINUE) && c.loop)
			owner = opkey(c.loop);
		if (owner) {
			if (fill)
				w->terms[fill[owner]++] = op;
			else
				w->tstart[owner + 1]++;
		}
		for (j = 0; j < op->nregs; j++) {
			Ctx in = {op, j, (op->code == OP_FOR || op->code == OP_WHILE) ? op : c.loop};
			termregion(w, &op->regs[j], in, fill, maxargs);
		}
	}
}

static void markop(Need *w, const Op *op, Ctx c);

static void
markregion(Need *w, const Region *r, Ctx c)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		if (oplive(w->s, r->ops[i]))
			markop(w, r->ops[i], c);
}

static void
markop(Need *w, const Op *op, Ctx c)
{
	Val key = opkey(op);
	int j, n;

	if (key) {
		if (w->marked[key])
			return;
		w->marked[key] = 1;
	}
	n = emittedargs(w->s, op, c, w->s->args);
	for (j = 0; j < n; j++)
		needval(w, w->s->args[j]);
	if (op->code == OP_FOR || op->code == OP_WHILE)
		for (j = 0; j < nslots(op); j++)
			if (slotneeded(w->s, op, j))
				w->slotdone[slotparam(op, j)] = 1;
	for (j = 0; j < op->nregs; j++) {
		Ctx in = {op, j, (op->code == OP_FOR || op->code == OP_WHILE) ? op : c.loop};
		markregion(w, &op->regs[j], in);
	}
}

/* v has just been found needed. */
static void
needed(Need *w, Val v)
{
	const Value *x = &w->s->f->vals[v];
	const Op *op;
	uint32_t t;
	int k;

	if (x->kind != V_RES && x->kind != V_PARAM)
		return;
	op = x->def;
	if (!w->marked[opkey(op)]) {
		Ctx c = {NULL, 0, w->loopof[opkey(op)]};
		markop(w, op, c);
		return;
	}
	if (op->code == OP_IF && x->kind == V_RES) {
		k = x->idx;
	} else if (op->code == OP_FOR || op->code == OP_WHILE) {
		k = x->idx - (x->kind == V_PARAM && op->code == OP_FOR);
		if (k < 0 || k >= nslots(op) || w->slotdone[slotparam(op, k)])
			return;
		w->slotdone[slotparam(op, k)] = 1;
		needval(w, slotinit(op, k));
	} else {
		return;
	}
	for (t = w->tstart[opkey(op)]; t < w->tstart[opkey(op) + 1]; t++)
		if (k < w->terms[t]->nargs)
			needval(w, w->terms[t]->args[k]);
}

static void
needfunc(FState *s)
{
	const Func *f = s->f;
	uint32_t n = f->nvals + 1, i, maxargs = 0, *fill;
	Ctx c = {0};
	Need w = {0};

	w.s = s;
	/* the per-value arrays in one block (loopof first: it holds it), widest
	 * elements first */
	{
		char *p = xcalloc(n + 1, sizeof *w.loopof + sizeof *w.tstart + sizeof *w.stack + 2);
		w.loopof = (void *)p, p += (n + 1) * sizeof *w.loopof;
		w.tstart = (void *)p, p += (n + 1) * sizeof *w.tstart;
		w.stack = (void *)p, p += (n + 1) * sizeof *w.stack;
		w.marked = (void *)p, p += n + 1;
		w.slotdone = (void *)p;
	}
	termregion(&w, &f->body, c, NULL, &maxargs);
	for (i = 0; i < n; i++)
		w.tstart[i + 1] += w.tstart[i];
	w.terms = xcalloc(w.tstart[n] + 1, sizeof *w.terms);
	fill = xcalloc(n, sizeof *fill);
	memcpy(fill, w.tstart, n * sizeof *fill);
	termregion(&w, &f->body, c, fill, &maxargs);
	free(fill);
	s->args = xcalloc(maxargs + 4, sizeof *s->args);
	markregion(&w, &f->body, c);
	while (w.nstack)
		needed(&w, w.stack[--w.nstack]);
	free(w.loopof); /* and the other per-value arrays */
	free(w.terms);
}

static void
useregion(FState *s, const Region *r, Ctx c)
{
	Val *args = s->args;
	uint32_t i;
	int j, n;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		for (j = 0; j < op->nres; j++) {
			s->home[op->res[j]] = r;
			s->hpos[op->res[j]] = i;
		}
		if (op->code == OP_FOR && op->nregs > 0)
			for (j = 0; j < op->nparams; j++)
				s->home[op->params[j]] = &op->regs[0];
		if (op->code == OP_WHILE && op->nregs > 1)
			for (j = 0; j < op->nparams; j++)
				s->home[op->params[j]] = &op->regs[1];
		if (!oplive(s, op))
			continue;
		n = emittedargs(s, op, c, args);
		for (j = 0; j < n; j++) {
			Val v = args[j];
			s->uses[v]++;
			s->user[v] = op;
			s->ureg[v] = r;
			s->upos[v] = i;
		}
		for (j = 0; j < op->nregs; j++) {
			Ctx in = {op, j, (op->code == OP_FOR || op->code == OP_WHILE) ? op : c.loop};
			useregion(s, &op->regs[j], in);
		}
	}
}

/* Can v's variable be taken over by op, in region r (v read once, there)? */
static bool
canmutate(const FState *s, Val v, const Region *r)
{
	const Value *x = &s->f->vals[v];

	if (x->kind == V_CONST || s->uses[v] != 1 || s->ureg[v] != r)
		return false;
	return s->home[v] == r;
}

static bool
inlinekind(const FState *s, const Op *op)
{
	unsigned fl = opinfo[op->code].flags;

	if (op->nres != 1 || (fl & (F_REGION | F_TERM)))
		return false;
	if (op->code == OP_LOAD)
		return true;
	if (op->code == OP_CALL)
		return op->attr >= 0 && !s->e->writes[op->attr] && s->f->vals[op->res[0]].ty.k != T_STR;
	if (op->code == OP_SETFIELD)
		return false;
	return (fl & F_PURE) != 0;
}

static void
aliasregion(FState *s, const Region *r)
{
	uint32_t i;
	int j, k;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (!oplive(s, op))
			continue;
		if ((opinfo[op->code].flags & F_RAND) && op->nres >= 2 && canmutate(s, op->args[0], r)) {
			s->alias[op->res[op->nres - 1]] = op->args[0];
			s->noinl[op->args[0]] = 1;
		}
		if ((op->code == OP_INSERT || op->code == OP_SETFIELD) && canmutate(s, op->args[0], r)) {
			s->alias[op->res[0]] = op->args[0];
			s->noinl[op->args[0]] = 1;
		}
		if (op->code == OP_FOR || op->code == OP_WHILE) {
			for (k = 0; k < nslots(op); k++) {
				Val p = slotparam(op, k), x = slotinit(op, k);
				const Value *xv = &s->f->vals[x];
				if (k < op->nres)
					s->alias[op->res[k]] = p;
				if (!slotneeded(s, op, k) || !canmutate(s, x, r))
					continue;
				if (xv->kind == V_RES && inlinekind(s, xv->def))
					continue; /* its expression initializes the slot instead */
				if (!typeeq(xv->ty, s->f->vals[p].ty))
					continue;
				s->alias[p] = x;
			}
		}
		for (j = 0; j < op->nregs; j++)
			aliasregion(s, &op->regs[j]);
	}
}

/* Does op write memory or print (a barrier for moving loads)? */
static bool
isbarrier(const FState *s, const Op *op)
{
	int j;

	if (opinfo[op->code].flags & F_WRITE)
		return true;
	if (op->code == OP_CALL && op->attr >= 0 && s->e->writes[op->attr])
		return true;
	for (j = 0; j < op->nregs; j++)
		if (regionwrites(s->e, &op->regs[j]))
			return true;
	return false;
}

enum { MAXWEIGHT = 8 };

/* May the single use of v (op user, operand position) take an expression? */
static bool
exprposition(const FState *s, Val v)
{
	const Op *u = s->user[v];
	int j;

	if (!u)
		return false;
	if (u->code == OP_FOR) {
		/* the bound and the step are read on every iteration */
		if (u->args[1] == v || u->args[2] == v)
			return false;
	}
	if ((opinfo[u->code].flags & F_RAND) && u->args[0] == v)
		return s->alias[u->res[u->nres - 1]] != v;
	for (j = 0; j < u->nres; j++)
		if (s->alias[u->res[j]] == v)
			return false;
	return true;
}

static void
inlineregion(FState *s, const Region *r)
{
	uint32_t i;
	int j;

	/* forward: pure single-use values, bounded expression size */
	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		for (j = 0; j < op->nregs; j++)
			inlineregion(s, &op->regs[j]);
		if (!oplive(s, op) || !inlinekind(s, op))
			continue;
		Val v = op->res[0];
		unsigned w = 1;
		for (j = 0; j < op->nargs; j++)
			if (s->inl[op->args[j]])
				w += s->weight[op->args[j]];
		s->weight[v] = (uint16_t)(w > 60000 ? 60000 : w);
		if (s->noinl[v] || s->alias[v] || s->uses[v] != 1 || s->ureg[v] != r || !exprposition(s, v) || w > MAXWEIGHT)
			continue;
		s->inl[v] = 1;
	}
	/* backward: loads and calls must not move across a write */
	for (i = r->n; i-- > 0;) {
		const Op *op = r->ops[i];
		Val v;
		uint32_t fp, k;
		if (op->nres != 1 || !s->inl[v = op->res[0]])
			continue;
		if (op->code != OP_LOAD && op->code != OP_CALL)
			continue;
		/* final position: follow inlined users */
		fp = s->upos[v];
		{
			Val u = v;
			while (s->user[u] && s->user[u]->nres == 1 && s->inl[s->user[u]->res[0]] && s->ureg[s->user[u]->res[0]] == r) {
				u = s->user[u]->res[0];
				fp = s->upos[u];
			}
		}
		for (k = i + 1; k < fp && k < r->n; k++)
			if (isbarrier(s, r->ops[k]))
				break;
		if (k < fp)
			s->inl[v] = 0;
	}
}

FState *
fstate(Emit *e, int fi)
{
	FState *s;
	const Func *f;
	uint32_t n, i;
	Ctx c = {0};

	if (e->fs[fi])
		return e->fs[fi];
	f = e->m->funcs[fi];
	n = f->nvals + 1;
	s = xcalloc(1, sizeof *s);
	s->e = e;
	s->m = e->m;
	s->f = f;
	s->fi = fi;
	/* the per-value arrays in one block (user first: it holds it), widest
	 * elements first */
	{
		char *p = xcalloc(n, 4 * sizeof(void *) + 3 * sizeof(uint32_t) + sizeof(Val) + sizeof(uint16_t) + 3);
		s->user = (const Op **)p, p += n * sizeof(Op *);
		s->ureg = (const Region **)p, p += n * sizeof(Region *);
		s->home = (const Region **)p, p += n * sizeof(Region *);
		s->name = (char **)p, p += n * sizeof(char *);
		s->uses = (uint32_t *)p, p += n * sizeof(uint32_t);
		s->upos = (uint32_t *)p, p += n * sizeof(uint32_t);
		s->hpos = (uint32_t *)p, p += n * sizeof(uint32_t);
		s->alias = (Val *)p, p += n * sizeof(Val);
		s->weight = (uint16_t *)p, p += n * sizeof(uint16_t);
		s->need = (uint8_t *)p, p += n;
		s->noinl = (uint8_t *)p, p += n;
		s->inl = (uint8_t *)p;
	}
	needfunc(s);
	for (i = 0; i < f->nparams; i++)
		s->home[f->params[i]] = &f->body;
	useregion(s, &f->body, c);
	aliasregion(s, &f->body);
	inlineregion(s, &f->body);
	/* names: module names, then parameters in order */
	nsinit(&s->names, &e->locals, e->names);
	for (i = 0; i < f->nparams; i++) {
		Val v = f->params[i];
		const char *nm = f->vals[v].name;
		char *b = sanitize(nm ? nm : "arg", true);
		s->name[v] = uniqname(&s->names, b, NULL, 0);
		nsadd(&s->names, s->name[v]);
		free(b);
	}
	if (!f->kernel && f->nrets > 1) {
		s->retname = xcalloc(f->nrets, sizeof(char *));
		for (i = 0; i < f->nrets; i++) {
			char b[32];
			snprintf(b, sizeof b, "ret%u", i);
			s->retname[i] = uniqname(&s->names, b, NULL, 0);
			nsadd(&s->names, s->retname[i]);
		}
	}
	e->fs[fi] = s;
	return s;
}

void
fsfree(FState *s)
{
	uint32_t i;

	for (i = 0; i <= s->f->nvals; i++)
		if (s->name[i])
			free(s->name[i]);
	if (s->retname)
		for (i = 0; i < s->f->nrets; i++)
			free(s->retname[i]);
	free(s->retname);
	free(s->args);
	free(s->user); /* and the other per-value arrays (fstate) */
	nsfree(&s->names);
	free(s);
}
