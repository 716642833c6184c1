/*
 * parse.c — reading kir text (recursive descent over lex.re's tokens).
 *
 * The grammar is in man/kir.5.  The parser stops at the first syntax error
 * (reported located, with the source line); the verifier then checks what
 * parses.  Names are per function and flat (the printer keeps them unique):
 * a use must follow its definition in the text.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "kirlex.h"

typedef struct Fixup {
	Op *op;
	const char *callee;
	Loc loc;
} Fixup;

typedef struct P {
	Lexer lx;
	Tok tok;          /* current token */
	Tok prev;         /* last consumed token */
	const Src *src;
	Diag *d;
	Module *m;
	Func *f;          /* function being parsed */
	StrMap syms;      /* value names (arena copies) of f -> values */
	Fixup *fix;
	uint32_t nfix, capfix;
	int depth;        /* regions open */
	jmp_buf fail;
} P;

static void
next(P *p)
{
	p->prev = p->tok;
	lexnext(&p->lx, &p->tok);
}

KPY_NORETURN static void
err(P *p, Loc loc, const char *fmt, ...) KPY_PRINTF(3, 4);

static void
err(P *p, Loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diagv(p->d, p->src, loc, "error", fmt, ap);
	va_end(ap);
	longjmp(p->fail, 1);
}

static const char *
tokdesc(const Tok *t)
{
	static char buf[80];

	if (t->kind == TEOF)
		return "end of file";
	if (t->kind == TBAD && t->len >= 1 && ((unsigned char)t->start[0] < 0x20 || (unsigned char)t->start[0] >= 0x7f)) {
		snprintf(buf, sizeof buf, "invalid byte 0x%02x", (unsigned char)t->start[0]);
		return buf;
	}
	snprintf(buf, sizeof buf, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->start);
	return buf;
}

static void
expect(P *p, int kind, const char *what)
{
	if (p->tok.kind != kind)
		err(p, p->tok.loc, "expected %s, found %s", what, tokdesc(&p->tok));
	next(p);
}

static bool
accept(P *p, int kind)
{
	if (p->tok.kind != kind)
		return false;
	next(p);
	return true;
}

static bool
iskw(const Tok *t, const char *kw)
{
	return t->kind == TIDENT && t->len == strlen(kw) && memcmp(t->start, kw, t->len) == 0;
}

static bool
acceptkw(P *p, const char *kw)
{
	if (!iskw(&p->tok, kw))
		return false;
	next(p);
	return true;
}

static void
expectkw(P *p, const char *kw)
{
	if (!acceptkw(p, kw))
		err(p, p->tok.loc, "expected '%s', found %s", kw, tokdesc(&p->tok));
}

static char *
tokstr(P *p, const Tok *t, size_t skip)
{
	return astrndup(p->m->arena, t->start + skip, t->len - skip);
}

/* ---- value names --------------------------------------------------- */

static void
defname(P *p, const Tok *t, Val v)
{
	char *name = tokstr(p, t, 1);
	bool added;
	uint32_t *s = smput(&p->syms, name, &added);

	if (!added)
		err(p, t->loc, "redefinition of %%%s", name);
	*s = v;
	/* temporaries (%12) keep no name: the printer numbers them */
	if (!(name[0] >= '0' && name[0] <= '9'))
		p->f->vals[v].name = name;
}

static Val
usename(P *p, const Tok *t)
{
	char buf[128]; /* a use only looks the name up: no copy in the arena */
	char *name = t->len - 1 < sizeof buf ? buf : tokstr(p, t, 1);
	const uint32_t *s;

	if (name == buf) {
		memcpy(buf, t->start + 1, t->len - 1);
		buf[t->len - 1] = 0;
	}
	s = smget(&p->syms, name);

	if (!s)
		err(p, t->loc, "use of undefined value %%%s", name);
	return *s;
}

/* ---- types --------------------------------------------------------- */

static int
parseint(P *p, long lo, long hi, const char *what)
{
	long v;
	char *end;

	if (p->tok.kind != TINT)
		err(p, p->tok.loc, "expected %s, found %s", what, tokdesc(&p->tok));
	errno = 0;
	v = strtol(p->tok.start, &end, 10);
	if (errno || v < lo || v > hi)
		err(p, p->tok.loc, "%s out of range (%ld..%ld)", what, lo, hi);
	next(p);
	return (int)v;
}

static int
parsescalarkind(P *p)
{
	Type t;

	if (p->tok.kind != TIDENT || !typeparse_name(p->tok.start, p->tok.len, &t) || t.k != T_SCALAR)
		err(p, p->tok.loc, "expected a scalar type, found %s", tokdesc(&p->tok));
	next(p);
	return t.s;
}

static Type
parsetype(P *p)
{
	Type t;
	Tok tk = p->tok;

	if (tk.kind == TSYM) {
		const char *name = tokstr(p, &tk, 1);
		int sid;
		if ((sid = findstruct(p->m, name)) < 0)
			err(p, tk.loc, "unknown struct @%s", name);
		next(p);
		return tstruct(sid);
	}
	if (tk.kind != TIDENT)
		err(p, tk.loc, "expected a type, found %s", tokdesc(&tk));
	next(p);
	if (p->tok.kind == '<') {
		next(p);
		if (iskw(&tk, "vec")) {
			int n = parseint(p, 1, MAXVEC, "vector length");
			expect(p, ',', "','");
			t = tvec(n, parsescalarkind(p));
		} else if (iskw(&tk, "mat")) {
			int r = parseint(p, 1, MAXVEC, "matrix rows"), c;
			expect(p, ',', "','");
			c = parseint(p, 1, MAXVEC, "matrix columns");
			expect(p, ',', "','");
			t = tmat(r, c, parsescalarkind(p));
		} else if (iskw(&tk, "quat")) {
			t = tquat(parsescalarkind(p));
		} else if (iskw(&tk, "transform")) {
			t = txform(parsescalarkind(p));
		} else if (iskw(&tk, "array")) {
			Type e;
			int nd;
			/* checked before the recursion: types nest two deep at most */
			if (iskw(&p->tok, "array"))
				err(p, tk.loc, "array elements must be scalars, composites or structs");
			e = parsetype(p);
			expect(p, ',', "','");
			nd = parseint(p, 1, MAXDIM, "array dimensions");
			if (!(e.k == T_SCALAR || iscomposite(e) || e.k == T_STRUCT))
				err(p, tk.loc, "array elements must be scalars, composites or structs");
			t = tarray(e, nd);
		} else {
			err(p, tk.loc, "unknown type %s", tokdesc(&tk));
		}
		expect(p, '>', "'>'");
		return t;
	}
	if (!typeparse_name(tk.start, tk.len, &t))
		err(p, tk.loc, "unknown type %s", tokdesc(&tk));
	return t;
}

/* Lists of types, values and names grow in the module's arena (an error
 * longjmps out of the parser: nothing to free).  An op holds at most
 * MAXOPVALS operands, results and region values. */
typedef struct TypeVec { Type *v; uint32_t n, cap; } TypeVec;
typedef struct ValVec { Val *v; uint32_t n, cap; } ValVec;
typedef struct TokVec { Tok *v; uint32_t n, cap; } TokVec;

static void
toomany(P *p, uint32_t n, const char *what)
{
	if (n >= MAXOPVALS)
		err(p, p->tok.loc, "too many %s (an op holds at most %d)", what, MAXOPVALS);
}

static int
parsetypes(P *p, TypeVec *out)
{
	do {
		Type t;
		toomany(p, out->n, "types");
		t = parsetype(p);
		APUSH(p->m->arena, out->v, out->n, out->cap, t);
	} while (accept(p, ','));
	return (int)out->n;
}

/* ---- constants ----------------------------------------------------- */

/* The contents of a string token, escapes decoded, in the arena (never
 * longer than the token, so no growable buffer: errors may longjmp). */
static char *
unescape(P *p, const Tok *t)
{
	const char *s = t->start + 1, *e = t->start + t->len - 1;
	char *r = aalloc(p->m->arena, t->len), *o = r;

	while (s < e) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': *o++ = '\n'; s++; break;
		case 't': *o++ = '\t'; s++; break;
		case 'r': *o++ = '\r'; s++; break;
		case '\\': *o++ = '\\'; s++; break;
		case '"': *o++ = '"'; s++; break;
		case 'x': {
			int v = 0, k;
			s++;
			for (k = 0; k < 2 && s < e; k++, s++) {
				int c = *s;
				int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
				      : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
				if (d < 0)
					break;
				v = v * 16 + d;
			}
			if (k == 0 || v == 0)
				err(p, t->loc, "bad \\x escape in string");
			*o++ = (char)v;
			break;
		}
		default:
			err(p, t->loc, "unknown escape '\\%c' in string", *s);
		}
	}
	*o = 0;
	return r;
}

/* One bare component literal of scalar kind s. */
static Scal
parselit(P *p, int s)
{
	Scal c = {0};
	Tok t = p->tok;
	bool neg = false;

	if (t.kind == '-' ) {
		next(p);
		neg = true;
		t = p->tok;
		if (!iskw(&t, "inf") && !iskw(&t, "nan"))
			err(p, t.loc, "expected inf or nan after '-'");
	}
	if (iskw(&t, "true") || iskw(&t, "false")) {
		if (s != S_BOOL)
			err(p, t.loc, "boolean literal for a %s component", scalarname[s]);
		c.i = iskw(&t, "true");
	} else if (iskw(&t, "inf") || iskw(&t, "nan")) {
		if (!scalarisfloat(s))
			err(p, t.loc, "%.*s is not a %s", (int)t.len, t.start, scalarname[s]);
		c.f = iskw(&t, "inf") ? INFINITY : NAN;
		if (neg)
			c.f = -c.f;
	} else if (t.kind == TINT) {
		char *end;
		errno = 0;
		if (scalarisfloat(s)) {
			c.f = strtod(t.start, &end);
		} else if (s == S_BOOL) {
			err(p, t.loc, "integer literal for a bool");
		} else if (s >= S_U8) {
			if (t.start[0] == '-')
				err(p, t.loc, "negative literal for an unsigned type");
			c.u = strtoull(t.start, &end, 10);
		} else {
			c.i = strtoll(t.start, &end, 10);
		}
		if (errno == ERANGE)
			err(p, t.loc, "integer literal out of range");
		if (!scalarisfloat(s)) {
			Scal r = scalround(s, c);
			if ((s >= S_U8 ? r.u != c.u : r.i != c.i))
				err(p, t.loc, "integer literal out of range for %s", scalarname[s]);
		}
	} else if (t.kind == TFLOAT) {
		if (!scalarisfloat(s))
			err(p, t.loc, "float literal for a %s", scalarname[s]);
		c.f = strtod(t.start, NULL);
	} else {
		err(p, t.loc, "expected a literal, found %s", tokdesc(&t));
	}
	next(p);
	return c;
}

static Val
parseconst(P *p)
{
	Tok t = p->tok;
	Type ty;
	Scal c[MAXVEC * MAXVEC];
	int n, i;

	if (t.kind == TSTR) {
		next(p);
		return cstr(p->m, p->f, unescape(p, &t));
	}
	if (t.kind == TINT) {
		c[0] = parselit(p, S_I32);
		return cconst(p->m, p->f, tscalar(S_I32), c);
	}
	if (t.kind == TFLOAT || t.kind == '-' || iskw(&t, "inf") || iskw(&t, "nan")) {
		c[0] = parselit(p, S_F32);
		return cconst(p->m, p->f, tscalar(S_F32), c);
	}
	if (iskw(&t, "true") || iskw(&t, "false")) {
		c[0] = parselit(p, S_BOOL);
		return cconst(p->m, p->f, tscalar(S_BOOL), c);
	}
	if (t.kind != TIDENT)
		err(p, t.loc, "expected a value, found %s", tokdesc(&t));
	ty = parsetype(p);
	n = ncomp(ty);
	if (n <= 0)
		err(p, t.loc, "type %s has no constants", typestr(p->m, ty));
	expect(p, '(', "'(' after the constant's type");
	for (i = 0; i < n; i++) {
		if (i)
			expect(p, ',', "',' between components");
		c[i] = parselit(p, ty.s);
	}
	if (p->tok.kind == ',')
		err(p, p->tok.loc, "too many components for %s", typestr(p->m, ty));
	expect(p, ')', "')'");
	return cconst(p->m, p->f, ty, c);
}

static Val
parseval(P *p)
{
	if (p->tok.kind == TVAL) {
		Val v = usename(p, &p->tok);
		next(p);
		return v;
	}
	return parseconst(p);
}

/* ---- ops ------------------------------------------------------------ */

static void parseregion(P *p, Region *r);

/* Append a list of values to out; returns the count in out. */
static int
parsevals(P *p, ValVec *out)
{
	do {
		Val v;
		toomany(p, out->n, "operands");
		v = parseval(p);
		APUSH(p->m->arena, out->v, out->n, out->cap, v);
	} while (accept(p, ','));
	return (int)out->n;
}

/* Append one value to out; returns the count in out. */
static int
parsevalone(P *p, ValVec *out)
{
	Val v = parseval(p);

	APUSH(p->m->arena, out->v, out->n, out->cap, v);
	return (int)out->n;
}

static bool
startsvalue(const Tok *t)
{
	return t->kind == TVAL || t->kind == TINT || t->kind == TFLOAT || t->kind == TSTR ||
	       t->kind == '-' || (t->kind == TIDENT && !iskw(t, "else") && !iskw(t, "do"));
}

static void
checkres(P *p, Loc loc, int nres, int ntys)
{
	if (nres != ntys)
		err(p, loc, "%d result%s but %d type%s", nres, nres == 1 ? "" : "s", ntys, ntys == 1 ? "" : "s");
}

/* The location a `; loc` comment names; its source index must name a
 * `source` line. */
static Loc
tokloc(P *p)
{
	Loc l = p->tok.loc2;

	if (l.file && l.file >= p->m->nsrcs) {
		err(p, p->tok.loc, "location in source %u, but the module has %u source%s", l.file,
		    p->m->nsrcs, p->m->nsrcs == 1 ? "" : "s");
		l.file = 0;
	}
	return l;
}

static void
setloc(P *p, Op *op)
{
	if (p->tok.kind == TLOC) {
		op->loc = tokloc(p);
		next(p);
	}
}

static void
bindres(P *p, Op *op, const Tok *rtok, int nres)
{
	int i;

	for (i = 0; i < nres; i++)
		defname(p, &rtok[i], op->res[i]);
}

/* `iter(%a = v, ...)`: parse names and inits (appended to args); returns
 * the count. */
static int
parseiter(P *p, TokVec *names, ValVec *args)
{
	int n = 0;

	if (!acceptkw(p, "iter"))
		return 0;
	expect(p, '(', "'('");
	do {
		Val v;
		toomany(p, args->n, "loop-carried values");
		if (p->tok.kind != TVAL)
			err(p, p->tok.loc, "expected a value name, found %s", tokdesc(&p->tok));
		APUSH(p->m->arena, names->v, names->n, names->cap, p->tok);
		next(p);
		expect(p, '=', "'='");
		v = parseval(p);
		APUSH(p->m->arena, args->v, args->n, args->cap, v);
		n++;
	} while (accept(p, ','));
	expect(p, ')', "')'");
	return n;
}

static Op *
parseop(P *p)
{
	/* the vectors start on the stack: agrow copies them to the arena only
	 * when an op has more (mkop copies what it keeps) */
	Tok optok, rtokbuf[4];
	Type rtysbuf[4];
	Val argsbuf[8];
	TokVec rtok = {rtokbuf, 0, 4};
	TypeVec rtys = {rtysbuf, 0, 4};
	ValVec args = {argsbuf, 0, 8};
	int nres = 0, nargs = 0, ntys = 0, code, i;
	Op *op;
	Module *m = p->m;
	Func *f = p->f;

	if (p->tok.kind == TVAL) {
		do {
			toomany(p, rtok.n, "results");
			if (p->tok.kind != TVAL)
				err(p, p->tok.loc, "expected a result name, found %s", tokdesc(&p->tok));
			APUSH(m->arena, rtok.v, rtok.n, rtok.cap, p->tok);
			next(p);
		} while (accept(p, ','));
		nres = (int)rtok.n;
		expect(p, '=', "'='");
	}
	optok = p->tok;
	if (optok.kind != TIDENT)
		err(p, optok.loc, "expected an operation, found %s", tokdesc(&optok));
	if ((code = oplookup(optok.start, optok.len)) < 0)
		err(p, optok.loc, "unknown operation '%.*s'", (int)optok.len, optok.start);
	next(p);

	switch (code) {
	case OP_IF:
		parsevalone(p, &args);
		if (accept(p, TARROW))
			ntys = parsetypes(p, &rtys);
		checkres(p, optok.loc, nres, ntys);
		op = mkop(m, f, code, args.v, 1, rtys.v, nres, (Loc){0});
		opsetregions(m, op, 2);
		expect(p, '{', "'{'");
		setloc(p, op);
		parseregion(p, &op->regs[0]);
		if (acceptkw(p, "else")) {
			expect(p, '{', "'{'");
			parseregion(p, &op->regs[1]);
		} else {
			regpush(m, &op->regs[1], mkop(m, f, OP_YIELD, NULL, 0, NULL, 0, op->loc));
		}
		bindres(p, op, rtok.v, nres);
		return op;
	case OP_FOR:
	case OP_WHILE: {
		Tok idx = {0};
		TokVec names = {0};
		Type *ptys;
		int niter, first = 0;
		if (code == OP_FOR) {
			if (p->tok.kind != TVAL)
				err(p, p->tok.loc, "expected the loop index name, found %s", tokdesc(&p->tok));
			idx = p->tok;
			next(p);
			expect(p, '=', "'='");
			parsevalone(p, &args);
			expectkw(p, "to");
			parsevalone(p, &args);
			expectkw(p, "step");
			parsevalone(p, &args);
			first = 3;
		}
		niter = parseiter(p, &names, &args);
		if (accept(p, TARROW))
			ntys = parsetypes(p, &rtys);
		checkres(p, optok.loc, nres, ntys);
		op = mkop(m, f, code, args.v, first + niter, rtys.v, nres, (Loc){0});
		ptys = aalloc(m->arena, (size_t)(niter + 1) * sizeof *ptys);
		if (code == OP_FOR)
			ptys[0] = vty(f, args.v[0]);
		for (i = 0; i < niter; i++)
			ptys[(code == OP_FOR) + i] = vty(f, args.v[first + i]);
		opsetparams(m, f, op, ptys, (code == OP_FOR) + niter);
		if (code == OP_FOR)
			defname(p, &idx, op->params[0]);
		for (i = 0; i < niter; i++)
			defname(p, &names.v[i], op->params[(code == OP_FOR) + i]);
		opsetregions(m, op, code == OP_FOR ? 1 : 2);
		expect(p, '{', "'{'");
		setloc(p, op);
		parseregion(p, &op->regs[0]);
		if (code == OP_WHILE) {
			expectkw(p, "do");
			expect(p, '{', "'{'");
			parseregion(p, &op->regs[1]);
		}
		bindres(p, op, rtok.v, nres);
		return op;
	}
	case OP_CALL: {
		Tok callee = p->tok;
		Fixup fx;
		expect(p, TSYM, "the callee '@name'");
		expect(p, '(', "'('");
		if (p->tok.kind != ')')
			nargs = parsevals(p, &args);
		expect(p, ')', "')'");
		if (accept(p, ':'))
			ntys = parsetypes(p, &rtys);
		checkres(p, optok.loc, nres, ntys);
		op = mkop(m, f, code, args.v, nargs, rtys.v, nres, (Loc){0});
		op->attr = -1;
		fx.op = op;
		fx.callee = tokstr(p, &callee, 1);
		fx.loc = callee.loc;
		APUSH(m->arena, p->fix, p->nfix, p->capfix, fx);
		break;
	}
	case OP_FIELD:
	case OP_SETFIELD: {
		Tok fld;
		Type st;
		const char *fname;
		nargs = parsevalone(p, &args);
		expect(p, ',', "','");
		fld = p->tok;
		expect(p, TIDENT, "a field name");
		if (code == OP_SETFIELD) {
			expect(p, ',', "','");
			nargs = parsevalone(p, &args);
		}
		expect(p, ':', "':' and the result type");
		ntys = parsetypes(p, &rtys);
		checkres(p, optok.loc, nres, ntys);
		op = mkop(m, f, code, args.v, nargs, rtys.v, nres, (Loc){0});
		st = vty(f, args.v[0]);
		fname = tokstr(p, &fld, 0);
		if (st.k != T_STRUCT)
			err(p, fld.loc, "%s of a value of type %s, not a struct", optok.start[0] == 's' ? "setfield" : "field",
			    typestr(m, st));
		if ((op->attr = fieldindex(m, st.sid, fname)) < 0)
			err(p, fld.loc, "struct @%s has no field '%s'", m->structs[st.sid].name, fname);
		break;
	}
	case OP_SHAPE:
		nargs = parsevalone(p, &args);
		expect(p, ',', "','");
		i = parseint(p, 0, MAXDIM - 1, "dimension");
		expect(p, ':', "':' and the result type");
		ntys = parsetypes(p, &rtys);
		checkres(p, optok.loc, nres, ntys);
		op = mkop(m, f, code, args.v, nargs, rtys.v, nres, (Loc){0});
		op->attr = i;
		break;
	default:
		if (opinfo[code].flags & F_IDX) {
			nargs = parsevalone(p, &args);
			expect(p, '[', "'['");
			if (p->tok.kind != ']')
				nargs = parsevals(p, &args);
			expect(p, ']', "']'");
			if (accept(p, ','))
				nargs = parsevals(p, &args);
		} else if ((opinfo[code].flags & F_TERM) ? p->tok.kind != '}' && p->tok.kind != TLOC : startsvalue(&p->tok)) {
			nargs = parsevals(p, &args);
		}
		if (accept(p, ':'))
			ntys = parsetypes(p, &rtys);
		checkres(p, optok.loc, nres, ntys);
		op = mkop(m, f, code, args.v, nargs, rtys.v, nres, (Loc){0});
		if (code == OP_TID)
			op->attr = nres;
		break;
	}
	setloc(p, op);
	bindres(p, op, rtok.v, nres);
	return op;
}

static Op *
parseopat(P *p)
{
	Loc k = p->tok.loc;
	Op *op = parseop(p);

	op->kloc = k;
	return op;
}

static void
parseregion(P *p, Region *r)
{
	if (++p->depth > MAXREGIONDEPTH)
		err(p, p->prev.loc, "regions nested too deeply (more than %d)", MAXREGIONDEPTH);
	while (p->tok.kind != '}') {
		if (p->tok.kind == TEOF)
			err(p, p->tok.loc, "unexpected end of file: missing '}'");
		regpush(p->m, r, parseopat(p));
	}
	next(p);
	p->depth--;
}

static void
parsefunc(P *p, bool kernel)
{
	Tok name = p->tok;
	const char *fname;
	Func *f;
	TypeVec tys = {0};
	int n, i;

	expect(p, TSYM, "a function name '@name'");
	fname = tokstr(p, &name, 1);
	if (findfunc(p->m, fname) >= 0)
		err(p, name.loc, "redefinition of @%s", fname);
	f = addfunc(p->m, fname, kernel, (Loc){0});
	f->kloc = name.loc;
	p->f = f;
	smclear(&p->syms);
	expect(p, '(', "'('");
	if (p->tok.kind != ')') {
		do {
			Tok pn = p->tok;
			Type t;
			Val v;
			toomany(p, f->nparams, "parameters");
			expect(p, TVAL, "a parameter name");
			expect(p, ':', "':'");
			t = parsetype(p);
			v = addparam(p->m, f, NULL, t, pn.loc);
			defname(p, &pn, v);
		} while (accept(p, ','));
	}
	expect(p, ')', "')'");
	if (accept(p, TARROW)) {
		n = parsetypes(p, &tys);
		for (i = 0; i < n; i++)
			addret(p->m, f, tys.v[i]);
	}
	expect(p, '{', "'{'");
	if (p->tok.kind == TLOC) {
		f->loc = tokloc(p);
		next(p);
	}
	parseregion(p, &f->body);
}

static void
parsestruct(P *p)
{
	Tok name = p->tok;
	const char *sname;
	int sid;

	expect(p, TSYM, "a struct name '@name'");
	sname = tokstr(p, &name, 1);
	if (findstruct(p->m, sname) >= 0)
		err(p, name.loc, "redefinition of struct @%s", sname);
	sid = addstruct(p->m, sname, (Loc){0});
	expect(p, '{', "'{'");
	if (p->tok.kind != '}') {
		do {
			Tok fn = p->tok;
			const char *fname;
			Type t;
			expect(p, TIDENT, "a field name");
			fname = tokstr(p, &fn, 0);
			if (fieldindex(p->m, sid, fname) >= 0)
				err(p, fn.loc, "duplicate field '%s'", fname);
			expect(p, ':', "':'");
			t = parsetype(p);
			if (t.k == T_STRUCT && t.sid == sid)
				err(p, fn.loc, "struct @%s contains itself", sname);
			addfield(p->m, sid, fname, t);
		} while (accept(p, ','));
	}
	expect(p, '}', "'}'");
	if (p->tok.kind == TLOC) {
		p->m->structs[sid].loc = tokloc(p);
		next(p);
	}
}

Module *
parsekir(const Src *src, Diag *d)
{
	P p = {0};
	uint32_t i;
	int nerr0 = d->nerr;

	p.src = src;
	p.d = d;
	p.m = modnew();
	lexinit(&p.lx, src);
	if (setjmp(p.fail)) {
		smfree(&p.syms);
		modfree(p.m);
		return NULL;
	}
	next(&p);
	if (!acceptkw(&p, "kir"))
		err(&p, p.tok.loc, "expected the header 'kir %d'", KIR_VERSION);
	if (p.tok.kind != TINT || parseint(&p, 0, 1000, "kir version") != KIR_VERSION)
		err(&p, p.prev.loc, "unsupported kir version (this is kir %d)", KIR_VERSION);
	while (acceptkw(&p, "source")) {
		Tok t = p.tok;
		expect(&p, TSTR, "a file name string");
		APUSH(p.m->arena, p.m->srcs, p.m->nsrcs, p.m->capsrcs, unescape(&p, &t));
	}
	for (;;) {
		if (acceptkw(&p, "struct"))
			parsestruct(&p);
		else if (acceptkw(&p, "func"))
			parsefunc(&p, false);
		else if (acceptkw(&p, "kernel"))
			parsefunc(&p, true);
		else if (p.tok.kind == TEOF)
			break;
		else
			err(&p, p.tok.loc, "expected 'struct', 'func' or 'kernel', found %s", tokdesc(&p.tok));
	}
	for (i = 0; i < p.nfix; i++) {
		Fixup *fx = &p.fix[i];
		int k = findfunc(p.m, fx->callee);
		if (k < 0)
			err(&p, fx->loc, "call of undefined function @%s", fx->callee);
		fx->op->attr = k;
	}
	/* backward kernels name their forward kernel: NAME.adj */
	for (i = 0; i < p.m->nfuncs; i++) {
		Func *f = p.m->funcs[i];
		size_t n = strlen(f->name);
		if (f->kernel && n > 4 && strcmp(f->name + n - 4, ".adj") == 0) {
			char *base = astrndup(p.m->arena, f->name, n - 4);
			f->adjof = findfunc(p.m, base);
		}
	}
	smfree(&p.syms);
	if (d->nerr > nerr0) {
		modfree(p.m);
		return NULL;
	}
	return p.m;
}
