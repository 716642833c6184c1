/*
 * print.c — kir's canonical text.
 *
 * The printer owns value naming: a value with a source name prints as %name
 * (with .1, .2 ... appended when the name is already taken in the function),
 * a temporary prints as %N numbered in order of definition.  Names are
 * assigned in print order, so printing is deterministic and re-parsing the
 * output reproduces it byte for byte.
 *
 * Constants print inline: `true`, `3` (i32), `1.5` (f32), `f64(1.5)`,
 * `u32(7)`, `vec3f(1.0, 2.0, 3.0)`, `"text"`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct Names {
	int flags;       /* PRINT_* */
	const Module *m;
	const Func *f;
	char **name;     /* per Val: assigned spelling (malloc'd), or NULL */
	uint32_t ntemp;  /* next temporary number */
	StrMap used;     /* the names taken (the keys of name[]) */
	StrMap hint;     /* per source name given so far: the first suffix that
	                  * may be free */
} Names;

/* The suffix to try first for base: names are only ever taken, so the
 * suffixes before the one base got last time are still taken (one probe
 * per name instead of one per earlier namesake). */
static uint32_t *
hint(Names *nm, const char *base)
{
	return smput(&nm->hint, base, NULL);
}

/* %u into s (room for 11 bytes). */
static void
utoa(char *s, uint32_t u)
{
	char t[12], *p = t + sizeof t;

	*--p = 0;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	memcpy(s, p, (size_t)(t + sizeof t - p));
}

static const char *
name(Names *nm, Val v)
{
	const Value *x = &nm->f->vals[v];
	char *s;

	if (v >= nm->f->nvals)
		return "?";
	if (nm->name[v])
		return nm->name[v];
	if (x->name && !(nm->flags & PRINT_NORM)) {
		size_t n = strlen(x->name) + 16;
		uint32_t *k = hint(nm, x->name);
		s = xmalloc(n);
		for (;; ++*k) {
			memcpy(s, x->name, n - 15);
			if (*k) {
				s[n - 16] = '.';
				utoa(s + n - 15, *k);
			}
			if (!smget(&nm->used, s))
				break;
		}
	} else {
		s = xmalloc(16);
		do
			utoa(s, nm->ntemp++);
		while (smget(&nm->used, s));
	}
	smput(&nm->used, s, NULL);
	nm->name[v] = s;
	return s;
}

static bool
roundtrips(const char *t, double x, int s)
{
	double y = strtod(t, NULL);
	Scal a;

	if (s == S_F64)
		return y == x;
	a.f = y;
	return scalround(s, a).f == x;
}

/* fmtfloat's spellings of the last values it formatted (the loop below
 * costs a few snprintf and strtod; a module repeats its constants). */
enum { FFCACHE = 256 };
static _Thread_local struct {
	uint64_t bits;
	int s;
	char t[28]; /* NUL-terminated, "" when unused */
} ffcache[FFCACHE];

void
fmtfloat(Buf *out, double x, int s)
{
	char tmp[64], e[64];
	int prec, maxprec = s == S_F64 ? 17 : 9, ex;
	uint64_t bits;
	unsigned slot;

	if (isnan(x)) {
		bufputs(out, signbit(x) ? "-nan" : "nan");
		return;
	}
	if (isinf(x)) {
		bufputs(out, x < 0 ? "-inf" : "inf");
		return;
	}
	/* integers print as %.1f prints them: the loop below finds at most
	 * ex + 1 digits for them, so dec <= 0, and the integer is exact */
	if (x == floor(x) && fabs(x) < 1e15) {
		if (signbit(x))
			bufputc(out, '-');
		bufputu(out, (unsigned long long)fabs(x));
		bufputs(out, ".0");
		return;
	}
	memcpy(&bits, &x, sizeof bits);
	slot = (unsigned)(((bits ^ (uint64_t)s) * 0x9e3779b97f4a7c15ull) >> 56) % FFCACHE;
	if (ffcache[slot].t[0] && ffcache[slot].bits == bits && ffcache[slot].s == s) {
		bufputs(out, ffcache[slot].t);
		return;
	}
	/* fewest significant digits that read back to x */
	for (prec = 1; prec < maxprec; prec++) {
		snprintf(e, sizeof e, "%.*e", prec - 1, x);
		if (roundtrips(e, x, s))
			break;
	}
	snprintf(e, sizeof e, "%.*e", prec - 1, x);
	ex = atoi(strchr(e, 'e') + 1);
	if (ex >= -5 && ex < 17) {
		int dec = prec - 1 - ex;
		snprintf(tmp, sizeof tmp, "%.*f", dec < 1 ? 1 : dec, x);
		if (!roundtrips(tmp, x, s))
			snprintf(tmp, sizeof tmp, "%s", e);
	} else {
		snprintf(tmp, sizeof tmp, "%s", e);
	}
	if (strlen(tmp) < sizeof ffcache[0].t) {
		ffcache[slot].bits = bits;
		ffcache[slot].s = s;
		strcpy(ffcache[slot].t, tmp);
	}
	bufputs(out, tmp);
}

static void
fmtscal(Buf *out, int s, Scal c)
{
	if (s == S_BOOL)
		bufputs(out, c.i ? "true" : "false");
	else if (scalarisfloat(s))
		fmtfloat(out, c.f, s);
	else if (s >= S_U8)
		bufputu(out, (unsigned long long)c.u);
	else
		bufputi(out, (long long)c.i);
}

static void
fmtstr(Buf *out, const char *s)
{
	bufputc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '"': bufputs(out, "\\\""); break;
		case '\\': bufputs(out, "\\\\"); break;
		case '\n': bufputs(out, "\\n"); break;
		case '\t': bufputs(out, "\\t"); break;
		case '\r': bufputs(out, "\\r"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				bufprintf(out, "\\x%02x", c);
			else
				bufputc(out, c);
		}
	}
	bufputc(out, '"');
}

void
printconst(Buf *out, const Module *m, const Func *f, Val v)
{
	const Value *x = &f->vals[v];
	Type t = x->ty;
	int i, n;

	if (t.k == T_STR) {
		uint64_t k = x->c[0].u;
		fmtstr(out, k < m->nstrs ? m->strs[k] : "");
		return;
	}
	if (t.k == T_SCALAR && (t.s == S_BOOL || t.s == S_I32 || t.s == S_F32)) {
		fmtscal(out, t.s, x->c[0]);
		return;
	}
	typeprint(out, m, t);
	bufputc(out, '(');
	n = ncomp(t);
	for (i = 0; i < n; i++) {
		if (i)
			bufputs(out, ", ");
		fmtscal(out, t.s, x->c[i]);
	}
	bufputc(out, ')');
}

/* A type; in normalized form struct names are replaced by their number. */
static void
ptype(Buf *out, const Module *m, int flags, Type t)
{
	if (!(flags & PRINT_NORM) || (t.k != T_STRUCT && !(t.k == T_ARRAY && t.ek == T_STRUCT))) {
		typeprint(out, m, t);
		return;
	}
	if (t.k == T_ARRAY)
		bufprintf(out, "array<@s%d,%d>", t.sid, t.nd);
	else
		bufprintf(out, "@s%d", t.sid);
}

static void
pval(Buf *out, Names *nm, Val v)
{
	if (v && v < nm->f->nvals && nm->f->vals[v].kind == V_CONST) {
		if (nm->flags & PRINT_NORM) {
			bufputc(out, '?');
			ptype(out, nm->m, nm->flags, nm->f->vals[v].ty);
			return;
		}
		printconst(out, nm->m, nm->f, v);
		return;
	}
	if (v == 0 || v >= nm->f->nvals) {
		bufputs(out, "%?");
		return;
	}
	bufputc(out, '%');
	bufputs(out, name(nm, v));
}

static void
pvals(Buf *out, Names *nm, const Val *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i)
			bufputs(out, ", ");
		pval(out, nm, v[i]);
	}
}

static void
ptypes(Buf *out, const Names *nm, const Val *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i)
			bufputs(out, ", ");
		ptype(out, nm->m, nm->flags, nm->f->vals[v[i]].ty);
	}
}

static void
indent(Buf *out, int d)
{
	int i;
	for (i = 0; i < d; i++)
		bufputs(out, "  ");
}

static void
ploc(Buf *out, const Names *nm, Loc loc)
{
	if (!loc.line || (nm->flags & PRINT_NORM))
		return;
	bufputs(out, "  ; loc ");
	if (loc.file) {
		bufputu(out, loc.file);
		bufputc(out, ':');
	}
	bufputu(out, loc.line);
	bufputc(out, ':');
	bufputu(out, loc.col);
}

static void pregion(Buf *out, Names *nm, const Region *r, int d);

static bool
isemptyyield(const Region *r)
{
	return r->n == 1 && r->ops[0]->code == OP_YIELD && r->ops[0]->nargs == 0;
}

static void
fieldname(Buf *out, const Names *nm, const Op *op)
{
	Type t = nm->f->vals[op->args[0]].ty;
	const Module *m = nm->m;

	if (nm->flags & PRINT_NORM)
		bufprintf(out, "f%d", op->attr);
	else if (t.k == T_STRUCT && t.sid < m->nstructs && op->attr >= 0 &&
	         (uint32_t)op->attr < m->structs[t.sid].nfields)
		bufputs(out, m->structs[t.sid].fields[op->attr].name);
	else
		bufprintf(out, "#%d", op->attr);
}

static void
pop(Buf *out, Names *nm, const Op *op, int d)
{
	const OpInfo *oi = &opinfo[op->code];
	const Module *m = nm->m;
	int i;

	indent(out, d);
	/* results */
	if (op->nres) {
		for (i = 0; i < op->nres; i++) {
			if (i)
				bufputs(out, ", ");
			pval(out, nm, op->res[i]);
		}
		bufputs(out, " = ");
	}
	bufputs(out, oi->name);
	switch (op->code) {
	case OP_IF:
		bufputc(out, ' ');
		pval(out, nm, op->args[0]);
		if (op->nres) {
			bufputs(out, " -> ");
			ptypes(out, nm, op->res, op->nres);
		}
		bufputs(out, " {");
		ploc(out, nm, op->loc);
		bufputc(out, '\n');
		pregion(out, nm, &op->regs[0], d + 1);
		indent(out, d);
		if (op->nregs > 1 && !isemptyyield(&op->regs[1])) {
			bufputs(out, "} else {\n");
			pregion(out, nm, &op->regs[1], d + 1);
			indent(out, d);
		}
		bufputs(out, "}\n");
		return;
	case OP_FOR:
	case OP_WHILE: {
		int first = 0;
		if (op->code == OP_FOR) {
			bufputc(out, ' ');
			pval(out, nm, op->params[0]);
			bufputs(out, " = ");
			pval(out, nm, op->args[0]);
			bufputs(out, " to ");
			pval(out, nm, op->args[1]);
			bufputs(out, " step ");
			pval(out, nm, op->args[2]);
			first = 1;
		}
		if (op->nparams > first) {
			bufputs(out, " iter(");
			for (i = first; i < op->nparams; i++) {
				if (i > first)
					bufputs(out, ", ");
				pval(out, nm, op->params[i]);
				bufputs(out, " = ");
				pval(out, nm, op->args[i + (op->code == OP_FOR ? 2 : 0)]);
			}
			bufputc(out, ')');
		}
		if (op->nres) {
			bufputs(out, " -> ");
			ptypes(out, nm, op->res, op->nres);
		}
		bufputs(out, " {");
		ploc(out, nm, op->loc);
		bufputc(out, '\n');
		pregion(out, nm, &op->regs[0], d + 1);
		indent(out, d);
		if (op->code == OP_WHILE) {
			bufputs(out, "} do {\n");
			pregion(out, nm, &op->regs[1], d + 1);
			indent(out, d);
		}
		bufputs(out, "}\n");
		return;
	}
	case OP_CALL: {
		const char *callee = op->attr >= 0 && (uint32_t)op->attr < m->nfuncs ? m->funcs[op->attr]->name : "?";
		if (nm->flags & PRINT_NORM)
			bufprintf(out, " @f%d(", op->attr);
		else
			bufprintf(out, " @%s(", callee);
		pvals(out, nm, op->args, op->nargs);
		bufputc(out, ')');
		break;
	}
	case OP_FIELD:
		bufputc(out, ' ');
		pval(out, nm, op->args[0]);
		bufputs(out, ", ");
		fieldname(out, nm, op);
		break;
	case OP_SETFIELD:
		bufputc(out, ' ');
		pval(out, nm, op->args[0]);
		bufputs(out, ", ");
		fieldname(out, nm, op);
		bufputs(out, ", ");
		pval(out, nm, op->args[1]);
		break;
	case OP_SHAPE:
		bufputc(out, ' ');
		pval(out, nm, op->args[0]);
		bufprintf(out, ", %d", op->attr);
		break;
	case OP_TID:
		break;
	default:
		if (op->nargs == 0)
			break;
		bufputc(out, ' ');
		if (oi->flags & F_IDX) {
			Type at = nm->f->vals[op->args[0]].ty;
			int nidx = op->code == OP_VIEW || op->code == OP_LOAD ? op->nargs - 1
			         : at.k == T_ARRAY ? at.nd : op->nargs - 1;
			if (nidx > op->nargs - 1)
				nidx = op->nargs - 1;
			pval(out, nm, op->args[0]);
			bufputc(out, '[');
			pvals(out, nm, op->args + 1, nidx);
			bufputc(out, ']');
			if (op->nargs > 1 + nidx) {
				bufputs(out, ", ");
				pvals(out, nm, op->args + 1 + nidx, op->nargs - 1 - nidx);
			}
		} else {
			pvals(out, nm, op->args, op->nargs);
		}
	}
	if (op->nres) {
		bufputs(out, " : ");
		ptypes(out, nm, op->res, op->nres);
	}
	ploc(out, nm, op->loc);
	bufputc(out, '\n');
}

static void
pregion(Buf *out, Names *nm, const Region *r, int d)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		pop(out, nm, r->ops[i], d);
}

static void
namesinit(Names *nm, const Module *m, const Func *f, int flags)
{
	memset(nm, 0, sizeof *nm);
	nm->flags = flags;
	nm->m = m;
	nm->f = f;
	nm->name = xcalloc(f->nvals + 1, sizeof(char *));
}

static void
namesfini(Names *nm)
{
	uint32_t i;

	for (i = 0; i <= nm->f->nvals; i++)
		if (nm->name[i])
			free(nm->name[i]);
	free(nm->name);
	smfree(&nm->used);
	smfree(&nm->hint);
}

/* Print f with the names in nm (fresh: they are assigned as printed). */
static void
printfuncn(Buf *out, Names *nm, const Func *f)
{
	const Module *m = nm->m;
	int flags = nm->flags;
	uint32_t i;

	if (flags & PRINT_NORM)
		bufprintf(out, "%s @f%d(", f->kernel ? "kernel" : "func", funcindex(m, f));
	else
		bufprintf(out, "%s @%s(", f->kernel ? "kernel" : "func", f->name);
	for (i = 0; i < f->nparams; i++) {
		if (i)
			bufputs(out, ", ");
		pval(out, nm, f->params[i]);
		bufputs(out, ": ");
		ptype(out, m, flags, f->vals[f->params[i]].ty);
	}
	bufputc(out, ')');
	if (f->nrets) {
		bufputs(out, " -> ");
		for (i = 0; i < f->nrets; i++) {
			if (i)
				bufputs(out, ", ");
			ptype(out, m, flags, f->rets[i]);
		}
	}
	bufputs(out, " {");
	ploc(out, nm, f->loc);
	bufputc(out, '\n');
	pregion(out, nm, &f->body, 1);
	bufputs(out, "}\n");
}

static void
printfuncx(Buf *out, const Module *m, const Func *f, int flags)
{
	Names nm;

	namesinit(&nm, m, f, flags);
	printfuncn(out, &nm, f);
	namesfini(&nm);
}

Names *
namesnew(const Module *m, const Func *f)
{
	Names *nm = xmalloc(sizeof *nm);
	Buf scratch = {0};

	namesinit(nm, m, f, 0);
	printfuncn(&scratch, nm, f);
	buffree(&scratch);
	return nm;
}

void
namesfree(Names *nm)
{
	if (nm) {
		namesfini(nm);
		free(nm);
	}
}

const char *
valname(Names *nm, Val v)
{
	return name(nm, v);
}

/* ---- modrename: the names without the text ------------------------ */

/* Give v its printed name, as pval does the first time v is printed: only
 * named values (a temporary parses back as none, whatever its number). */
static void
rnval(Names *nm, Val v)
{
	if (v && v < nm->f->nvals && nm->f->vals[v].kind != V_CONST && nm->f->vals[v].name)
		name(nm, v);
}

/* The values of r's ops in the order pop prints them: results, then the
 * operands and region values (for: index, bounds, then each carried value
 * and its init), then the regions. */
static void
rnregion(Names *nm, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		for (j = 0; j < op->nres; j++)
			rnval(nm, op->res[j]);
		if (op->code == OP_FOR || op->code == OP_WHILE) {
			int first = op->code == OP_FOR, skip = first ? 2 : 0;
			if (first) {
				rnval(nm, op->params[0]);
				for (j = 0; j < 3 && j < op->nargs; j++)
					rnval(nm, op->args[j]);
			}
			for (j = first; j < op->nparams; j++) {
				rnval(nm, op->params[j]);
				if (j + skip < op->nargs)
					rnval(nm, op->args[j + skip]);
			}
		} else {
			for (j = 0; j < op->nargs; j++)
				rnval(nm, op->args[j]);
		}
		for (j = 0; j < op->nregs; j++)
			rnregion(nm, &op->regs[j]);
	}
}

void
modrename(Module *m)
{
	uint32_t i;
	Val v;

	for (i = 0; i < m->nfuncs; i++) {
		Func *f = m->funcs[i];
		Names nm;

		namesinit(&nm, m, f, 0);
		for (v = 0; v < f->nparams; v++)
			rnval(&nm, f->params[v]);
		rnregion(&nm, &f->body);
		for (v = 1; v < f->nvals; v++) {
			Value *x = &f->vals[v];
			const char *s = nm.name[v];

			/* a temporary stays one; a value never printed keeps its name */
			if (s && strcmp(x->name, s) != 0)
				x->name = astrdup(m->arena, s);
		}
		namesfini(&nm);
	}
}

void
printopline(Buf *out, Names *nm, const Op *op)
{
	Buf one = {0};
	size_t n;
	char *loc;

	pop(&one, nm, op, 0);
	n = strcspn(one.s, "\n");
	one.s[n] = 0;
	if ((loc = strstr(one.s, "  ; loc")) != NULL || (loc = strstr(one.s, " ; loc")) != NULL)
		*loc = 0;
	n = strlen(one.s);
	while (n > 0 && (one.s[n - 1] == ' ' || one.s[n - 1] == '{'))
		one.s[--n] = 0;
	bufputs(out, one.s);
	buffree(&one);
}

void
printfunc(Buf *out, const Module *m, const Func *f)
{
	printfuncx(out, m, f, 0);
}

static void
printmodx(Buf *out, const Module *m, int flags)
{
	Names none = {0};
	uint32_t i, j;

	none.flags = flags;
	bufprintf(out, "kir %d\n", KIR_VERSION);
	for (i = 0; i < m->nsrcs && !(flags & PRINT_NORM); i++) {
		bufputs(out, "source ");
		fmtstr(out, m->srcs[i]);
		bufputc(out, '\n');
	}
	for (i = 0; i < m->nstructs; i++) {
		const StructDef *s = &m->structs[i];
		bufputc(out, '\n');
		if (flags & PRINT_NORM)
			bufprintf(out, "struct @s%u {", i);
		else
			bufprintf(out, "struct @%s {", s->name);
		for (j = 0; j < s->nfields; j++) {
			if (flags & PRINT_NORM)
				bufprintf(out, "%s f%u: ", j ? "," : "", j);
			else
				bufprintf(out, "%s %s: ", j ? "," : "", s->fields[j].name);
			ptype(out, m, flags, s->fields[j].ty);
		}
		bufputs(out, s->nfields ? " }" : "}");
		ploc(out, &none, s->loc);
		bufputc(out, '\n');
	}
	for (i = 0; i < m->nfuncs; i++) {
		bufputc(out, '\n');
		printfuncx(out, m, m->funcs[i], flags);
	}
}

void
printmod(Buf *out, const Module *m)
{
	printmodx(out, m, 0);
}

void
printnorm(Buf *out, const Module *m)
{
	printmodx(out, m, PRINT_NORM);
}
