/*
 * emit_expr.c — the C++ emitter's expressions: variable names, literals,
 * and ops through their ops.def C++ templates, with inlined operands
 * written in place.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit_impl.h"

/* ------------------------------------------------------------------ */
/* Expressions                                                         */

/* The variable name of v (assigning one on first use). */
const char *
vname(FState *s, Val v)
{
	char *b;
	const char *nm;

	v = root(s, v);
	if (s->name[v])
		return s->name[v];
	nm = s->f->vals[v].name;
	if (nm) {
		b = sanitize(nm, true);
	} else {
		char t[16], *q;
		do { /* t%u */
			uint32_t u = s->ntemp++;
			q = t + sizeof t;
			*--q = 0;
			do
				*--q = (char)('0' + u % 10);
			while (u /= 10);
			*--q = 't';
		} while (nshas(&s->names, q));
		b = xstrdup(q);
	}
	s->name[v] = uniqname(&s->names, b, NULL, 0);
	nsadd(&s->names, s->name[v]);
	free(b);
	return s->name[v];
}

static void
fmtf(Buf *b, double x, int s, const char *suffix)
{
	if (isnan(x)) {
		bufputs(b, signbit(x) ? "-NAN" : "NAN");
		return;
	}
	if (isinf(x)) {
		bufputs(b, x < 0 ? "-INFINITY" : "INFINITY");
		return;
	}
	fmtfloat(b, x, s);
	bufputs(b, suffix);
}

/* One scalar component. */
void
lit1(Buf *b, int s, Scal c, int mode)
{
	switch (s) {
	case S_BOOL:
		bufputs(b, c.i ? "true" : "false");
		return;
	case S_I32:
		if (c.i == INT32_MIN)
			bufputs(b, "INT32_MIN");
		else
			bufputi(b, c.i);
		return;
	case S_U32:
		bufputu(b, c.u);
		bufputc(b, 'u');
		return;
	case S_I8: case S_I16: case S_U8: case S_U16:
		if (mode == LIT_BARE)
			bufputi(b, c.i);
		else
			bufprintf(b, "%s(%" PRId64 ")", ctscalar[s], c.i);
		return;
	case S_I64:
		if (c.i == INT64_MIN)
			bufputs(b, mode == LIT_BARE ? "INT64_MIN" : "kpy::i64(INT64_MIN)");
		else if (mode == LIT_BARE && c.i >= INT32_MIN && c.i <= INT32_MAX)
			bufputi(b, c.i);
		else
			bufprintf(b, "kpy::i64(%" PRId64 "ll)", c.i);
		return;
	case S_U64:
		if (mode == LIT_BARE && c.u <= INT32_MAX)
			bufputu(b, c.u);
		else
			bufprintf(b, "kpy::u64(%" PRIu64 "ull)", c.u);
		return;
	case S_F16:
		if (mode == LIT_BARE) {
			fmtf(b, c.f, S_F16, "f");
		} else {
			bufputs(b, "kpy::f16(");
			fmtf(b, c.f, S_F16, "f");
			bufputc(b, ')');
		}
		return;
	case S_BF16:
		/* bf16 values are exact floats: always under the conversion */
		bufputs(b, "kpy::bf16(");
		fmtf(b, c.f, S_F32, "f");
		bufputc(b, ')');
		return;
	case S_F32:
		if (mode == LIT_BARE) {
			fmtf(b, c.f, S_F32, "f");
		} else {
			bufputs(b, "kpy::f32(");
			fmtf(b, c.f, S_F32, "f");
			bufputc(b, ')');
		}
		return;
	case S_F64:
		if (mode == LIT_BARE || (!isnan(c.f) && !isinf(c.f))) {
			fmtf(b, c.f, S_F64, "");
		} else {
			bufputs(b, "kpy::f64(");
			fmtf(b, c.f, S_F64, "");
			bufputc(b, ')');
		}
		return;
	}
}

void
emitcstring(Buf *out, const char *s)
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
		case '?': bufputs(out, "\\?"); break; /* no trigraphs */
		default:
			if (c < 0x20 || c >= 0x7f)
				bufprintf(out, "\\%03o", c);
			else
				bufputc(out, c);
		}
	}
	bufputc(out, '"');
}

static void
literal(FState *s, Buf *b, Val v, int mode)
{
	const Value *x = &s->f->vals[v];
	Type t = x->ty;
	int i, n;
	bool zero = true;

	if (t.k == T_STR) {
		uint64_t k = x->c[0].u;
		emitcstring(b, k < s->m->nstrs ? s->m->strs[k] : "");
		return;
	}
	if (t.k == T_SCALAR) {
		/* a bare f16 literal would be a float: only under a conversion */
		lit1(b, t.s, x->c[0], (t.s == S_F16 || t.s == S_BF16) && mode == LIT_BARE ? LIT_TYPED : mode);
		return;
	}
	n = ncomp(t);
	for (i = 0; i < n; i++)
		if (x->c[i].u != 0)
			zero = false;
	ctype1(s->e, b, t);
	bufputc(b, '(');
	if (!zero) {
		for (i = 0; i < n; i++) {
			if (i)
				bufputs(b, ", ");
			lit1(b, t.s, x->c[i], LIT_BARE);
		}
	}
	bufputc(b, ')');
}

/* Is s wrapped in one pair of parentheses that match each other? */
bool
wrapped(const char *s, size_t n)
{
	size_t i;
	int d = 0;
	bool instr = false;

	if (n < 2 || s[0] != '(' || s[n - 1] != ')')
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (instr) {
			if (c == '\\')
				i++;
			else if (c == '"')
				instr = false;
			continue;
		}
		if (c == '"')
			instr = true;
		else if (c == '(')
			d++;
		else if (c == ')' && --d == 0 && i + 1 < n)
			return false;
	}
	return true;
}

/* Expression of v without its outer parentheses (for initializers,
 * arguments and conditions). */
/* Write v's expression at the end of b as if into a Buf of its own
 * (expand looks back no further than its start), returning that start:
 * no temporary Buf per subexpression. */
static size_t
subexpr(FState *s, Buf *b, Val v, int mode)
{
	size_t start = b->n, saved = s->ebase;

	s->ebase = start;
	valexpr(s, b, v, mode);
	s->ebase = saved;
	return start;
}

/* Drop the first and the last character of b->s[start..b->n). */
static void
unwrap(Buf *b, size_t start)
{
	memmove(b->s + start, b->s + start + 1, b->n - start - 2);
	b->n -= 2;
	b->s[b->n] = 0;
}

/* Put b->s[start..b->n) in parentheses. */
static void
wrapat(Buf *b, size_t start)
{
	size_t n = b->n - start;

	bufputc(b, ')');
	memmove(b->s + start + 1, b->s + start, n);
	b->s[start] = '(';
}

void
exprtop(FState *s, Buf *b, Val v, int mode)
{
	size_t start = subexpr(s, b, v, mode);

	if (b->n > start && wrapped(b->s + start, b->n - start))
		unwrap(b, start);
}


static bool
smallint(Type t)
{
	return t.k == T_SCALAR && (t.s == S_I8 || t.s == S_I16 || t.s == S_U8 || t.s == S_U16);
}

/* Literal mode of operand i of op under template tmpl. */
static int
argmode(FState *s, const Op *op, const char *tmpl, int i)
{
	const Func *f = s->f;
	unsigned fl = opinfo[op->code].flags;
	int other = -1;

	if ((fl & F_CAST) && strncmp(tmpl, "%t(", 3) == 0)
		return LIT_BARE;
	if (tmpl[0] == '(' && op->nargs == 2 && op->code != OP_LSHIFT && op->code != OP_RSHIFT)
		other = 1 - i;
	if (op->code == OP_WHERE && (i == 1 || i == 2)) {
		/* c ? 1 : x is an int when x is an 8- or 16-bit integer */
		if (smallint(f->vals[op->args[i]].ty))
			return LIT_TYPED;
		other = 3 - i;
	}
	if (other >= 0) {
		Type t = f->vals[op->args[i]].ty, u = f->vals[op->args[other]].ty;
		if (t.k == T_SCALAR && typeeq(t, u) && !isconst(f, op->args[other]))
			return LIT_BARE;
	}
	return LIT_TYPED;
}

/* Is v written as T() (a zero composite or struct)? */
static bool
iszeroctor(const FState *s, Val v)
{
	const Value *x = &s->f->vals[v];
	int i;

	if (x->kind == V_CONST && x->ty.k != T_SCALAR && x->ty.k != T_STR) {
		for (i = 0; i < ncomp(x->ty); i++)
			if (x->c[i].u)
				return false;
		return true;
	}
	return s->inl[v] && x->kind == V_RES && x->def && x->def->code == OP_ZERO && x->ty.k != T_SCALAR;
}

/* Expand an ops.def C++ template for op. */
static void
expand(FState *s, Buf *b, const Op *op, const char *tmpl)
{
	const Func *f = s->f;
	const char *p;

	for (p = tmpl; *p; p++) {
		if (*p != '%') {
			bufputc(b, *p);
			continue;
		}
		p++;
		if (*p >= '0' && *p <= '9') {
			int i = *p - '0';
			size_t here = b->n - s->ebase, start, n;
			char prev = here ? b->s[b->n - 1] : 0;
			bool comma = here > 1 && b->s[b->n - 2] == ',';
			if (i >= op->nargs)
				die("template %s: operand %d of %d", tmpl, i, op->nargs);
			char next = p[1];
			start = subexpr(s, b, op->args[i], argmode(s, op, tmpl, i));
			n = b->n - start;
			/* T()[i] can read as a declarator: T{}[i] */
			if ((next == '[' || next == '.') && n >= 2 && b->s[b->n - 2] == '(' && b->s[b->n - 1] == ')' &&
			    iszeroctor(s, op->args[i])) {
				b->s[b->n - 2] = '{';
				b->s[b->n - 1] = '}';
			}
			/* an argument or an index needs no parentheses of its own */
			if ((prev == '(' || prev == '[' || prev == ' ') && (next == ')' || next == ']' || next == ',') &&
			    (prev != ' ' || comma) && n && wrapped(b->s + start, n))
				unwrap(b, start);
			if (b->n > start && (b->s[start] == '-' || b->s[start] == '+') &&
			    (prev == '-' || prev == '+' || prev == '~' || prev == '!'))
				wrapat(b, start);
		} else if (*p == '*') {
			int i;
			for (i = 0; i < op->nargs; i++) {
				if (i)
					bufputs(b, ", ");
				exprtop(s, b, op->args[i], argmode(s, op, tmpl, i));
			}
		} else if (*p == 't') {
			ctype1(s->e, b, f->vals[op->res[0]].ty);
		} else if (*p == 'f') {
			Type st = f->vals[op->args[0]].ty;
			bufputs(b, st.k == T_STRUCT && op->attr >= 0 ? s->e->field[st.sid][op->attr] : "?");
		} else if (*p == '%') {
			bufputc(b, '%');
		} else {
			die("bad template %s", tmpl);
		}
	}
}

/* The template of op for its operand count. */
static const char *
pickcpp(const Op *op, char *buf, size_t n)
{
	const char *t = opinfo[op->code].cpp, *alt;

	if (!t[0]) { /* kpy::NAME(%*) */
		size_t k = strlen(opinfo[op->code].name);
		if (k + 10 > n)
			die("op name %s too long", opinfo[op->code].name);
		memcpy(buf, "kpy::", 5);
		memcpy(buf + 5, opinfo[op->code].name, k);
		memcpy(buf + 5 + k, "(%*)", 5);
		return buf;
	}
	if (!(t[0] >= '0' && t[0] <= '9' && t[1] == ':'))
		return t;
	for (alt = t; alt && *alt;) {
		const char *end = strchr(alt, '|');
		size_t len = end ? (size_t)(end - alt) : strlen(alt);
		if (alt[0] >= '0' && alt[0] <= '9' && alt[1] == ':' && alt[0] - '0' == op->nargs) {
			if (len - 2 >= n)
				die("C++ template of %s too long", opinfo[op->code].name);
			memcpy(buf, alt + 2, len - 2);
			buf[len - 2] = 0;
			return buf;
		}
		alt = end ? end + 1 : NULL;
	}
	die("no C++ template of %s for %d operands", opinfo[op->code].name, op->nargs);
}

void
callargs(FState *s, Buf *b, const Op *op, int first)
{
	int i;

	for (i = first; i < op->nargs; i++) {
		if (i > first)
			bufputs(b, ", ");
		exprtop(s, b, op->args[i], LIT_TYPED);
	}
}

/* The expression computing single-result op. */
void
opexpr(FState *s, Buf *b, const Op *op)
{
	const Func *f = s->f;
	char tb[256];
	const char *tmpl;

	switch (op->code) {
	case OP_CALL: {
		const Func *g = s->m->funcs[op->attr];
		int i;
		bufprintf(b, "%s(", s->e->fname[op->attr]);
		for (i = 0; i < op->nargs; i++) {
			if (i)
				bufputs(b, ", ");
			/* by-value parameters convert */
			exprtop(s, b, op->args[i], (uint32_t)i < g->nparams ? LIT_BARE : LIT_TYPED);
		}
		bufputc(b, ')');
		return;
	}
	case OP_LOAD:
		bufputs(b, "kpy::load(");
		callargs(s, b, op, 0);
		bufputc(b, ')');
		return;
	case OP_VIEW:
		bufputs(b, "kpy::view(");
		callargs(s, b, op, 0);
		bufputc(b, ')');
		return;
	case OP_SHAPE:
		valexpr(s, b, op->args[0], LIT_TYPED);
		bufprintf(b, ".shape[%d]", op->attr);
		return;
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
		if (op->args[0] == op->args[1] && !isfloatcomp(f->vals[op->args[0]].ty)) {
			/* x == x on integers: written so that no compiler calls it
			 * tautological */
			bool r = op->code == OP_EQ || op->code == OP_LE || op->code == OP_GE;
			bufputs(b, r ? "true" : "false");
			return;
		}
		break;
	case OP_WHERE:
		if (f->vals[op->args[0]].ty.k == T_ARRAY) {
			bufputs(b, "(bool(");
			exprtop(s, b, op->args[0], LIT_TYPED);
			bufputs(b, ") ? ");
			valexpr(s, b, op->args[1], argmode(s, op, "(", 1));
			bufputs(b, " : ");
			valexpr(s, b, op->args[2], argmode(s, op, "(", 2));
			bufputc(b, ')');
			return;
		}
		break;
	}
	tmpl = pickcpp(op, tb, sizeof tb);
	if (op->nres == 1 && smallint(f->vals[op->res[0]].ty) && tmpl[0] == '(' && op->code != OP_WHERE) {
		/* C++ computes 8- and 16-bit arithmetic in int: wrap like Warp */
		size_t start, saved = s->ebase;
		ctype1(s->e, b, f->vals[op->res[0]].ty);
		start = s->ebase = b->n;
		expand(s, b, op, tmpl);
		s->ebase = saved;
		if (!(b->n > start && wrapped(b->s + start, b->n - start)))
			wrapat(b, start);
		return;
	}
	expand(s, b, op, tmpl);
}

void
valexpr(FState *s, Buf *b, Val v, int mode)
{
	const Value *x = &s->f->vals[v];

	if (x->kind == V_CONST) {
		literal(s, b, v, mode);
		return;
	}
	if (s->inl[v] && x->kind == V_RES && x->def) {
		opexpr(s, b, x->def);
		return;
	}
	bufputs(b, vname(s, v));
}

/* Collect the variables an expression reads (all of them: *out grows). */
void
reads(const FState *s, Val v, Val **out, int *n, int *cap)
{
	const Value *x = &s->f->vals[v];
	int j;

	if (x->kind == V_CONST)
		return;
	if (s->inl[v] && x->kind == V_RES && x->def) {
		for (j = 0; j < x->def->nargs; j++)
			reads(s, x->def->args[j], out, n, cap);
		return;
	}
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*out = xrealloc(*out, (size_t)*cap * sizeof **out);
	}
	(*out)[(*n)++] = root(s, v);
}
