/*
 * build.c — creating modules, functions, values, constants and ops.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* findfunc's index: function numbers by name, valid for the funcs array
 * and count it was made for (code that reorders or drops functions
 * replaces m->funcs or m->nfuncs: then it is made again).  The first
 * function of a name wins, as in a linear scan. */
typedef struct FuncIndex {
	StrMap byname; /* name (borrowed from the Func) -> function number */
	Func **funcs;  /* m->funcs and m->nfuncs when last brought up to date */
	uint32_t n;
} FuncIndex;

const OpInfo opinfo[NOPS] = {
#define OP(id, name, amin, amax, ty, flags, cpp, deriv, llvm) \
	{name, amin, amax, ty, flags, cpp, deriv, llvm},
#include "ops.def"
#undef OP
};

/* oplookup's table: op number + 1 by hash of the name, open addressing;
 * filled on a thread's first use (per thread: no locking).  The first op
 * of a name wins, as in a linear scan. */
enum { OPHASH = 1024 };
static _Thread_local short ophash[OPHASH];
static _Thread_local unsigned char oplen[NOPS];
_Static_assert(NOPS < OPHASH / 2 && NOPS < 32767, "oplookup's table size");

int
oplookup(const char *name, size_t len)
{
	uint32_t h;
	int i;

	if (!oplen[0]) {
		for (i = 0; i < NOPS; i++) {
			size_t n = strlen(opinfo[i].name);
			oplen[i] = (unsigned char)(n < 255 ? n : 255);
		}
		for (i = 0; i < NOPS; i++) {
			h = (uint32_t)hash64(opinfo[i].name, oplen[i], 0) % OPHASH;
			while (ophash[h] && strcmp(opinfo[ophash[h] - 1].name, opinfo[i].name) != 0)
				h = (h + 1) % OPHASH;
			if (!ophash[h])
				ophash[h] = (short)(i + 1);
		}
	}
	if (len >= 255)
		return -1;
	h = (uint32_t)hash64(name, len, 0) % OPHASH;
	for (; ophash[h]; h = (h + 1) % OPHASH) {
		i = ophash[h] - 1;
		if (oplen[i] == len && memcmp(opinfo[i].name, name, len) == 0)
			return i;
	}
	return -1;
}

Module *
modnew(void)
{
	Arena *a = arena_new();
	Module *m = aalloc(a, sizeof *m);

	m->arena = a;
	return m;
}

void
modfree(Module *m)
{
	if (m) {
		if (m->fidx)
			smfree(&m->fidx->byname);
		free(m->fidx);
		arena_free(m->arena);
	}
}

const char *
locsrc(const Module *m, Loc loc)
{
	if (!m->nsrcs)
		return "<python>";
	return m->srcs[loc.file < m->nsrcs ? loc.file : 0];
}

int
addstruct(Module *m, const char *name, Loc loc)
{
	StructDef s = {0};

	s.name = astrdup(m->arena, name);
	s.loc = loc;
	APUSH(m->arena, m->structs, m->nstructs, m->capstructs, s);
	return (int)m->nstructs - 1;
}

void
addfield(Module *m, int sid, const char *name, Type ty)
{
	StructDef *s = &m->structs[sid];
	Field *nf = aalloc(m->arena, (s->nfields + 1) * sizeof *nf);

	if (s->nfields)
		memcpy(nf, s->fields, s->nfields * sizeof *nf);
	nf[s->nfields].name = astrdup(m->arena, name);
	nf[s->nfields].ty = ty;
	s->fields = nf;
	s->nfields++;
}

int
findstruct(const Module *m, const char *name)
{
	uint32_t i;

	for (i = 0; i < m->nstructs; i++)
		if (strcmp(m->structs[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
fieldindex(const Module *m, int sid, const char *name)
{
	const StructDef *s = &m->structs[sid];
	uint32_t i;

	for (i = 0; i < s->nfields; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return (int)i;
	return -1;
}


static void
fidxput(FuncIndex *x, const Module *m, uint32_t fi)
{
	bool added;
	uint32_t *v = smput(&x->byname, m->funcs[fi]->name, &added);

	if (added)
		*v = fi;
}

/* The index of m, made or extended for m->funcs[0 .. nfuncs). */
static FuncIndex *
fidx(Module *m)
{
	FuncIndex *x = m->fidx;
	uint32_t i, from = 0;

	if (!x)
		x = m->fidx = xcalloc(1, sizeof *x);
	if (x->funcs == m->funcs && x->n <= m->nfuncs)
		from = x->n;
	if (!from)
		smclear(&x->byname);
	for (i = from; i < m->nfuncs; i++)
		fidxput(x, m, i);
	x->funcs = m->funcs;
	x->n = m->nfuncs;
	return x;
}

Func *
addfunc(Module *m, const char *name, bool kernel, Loc loc)
{
	Func *f = aalloc(m->arena, sizeof *f);
	bool indexed = m->fidx && m->fidx->funcs == m->funcs && m->fidx->n == m->nfuncs;

	f->name = astrdup(m->arena, name);
	f->kernel = kernel;
	f->loc = loc;
	f->adjof = -1;
	APUSH(m->arena, m->funcs, m->nfuncs, m->capfuncs, f);
	if (indexed) {
		/* the array may have moved: what was indexed is still in it */
		m->fidx->funcs = m->funcs;
		fidx(m);
	}
	return f;
}

int
findfunc(const Module *m, const char *name)
{
	/* the index is a cache: filling it changes nothing findfunc returns */
	const uint32_t *fi = smget(&fidx((Module *)m)->byname, name);

	return fi ? (int)*fi : -1;
}

int
funcindex(const Module *m, const Func *f)
{
	uint32_t i;

	for (i = 0; i < m->nfuncs; i++)
		if (m->funcs[i] == f)
			return (int)i;
	return -1;
}

static void
renumbercalls(Region *r, const int *newidx)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		if (op->code == OP_CALL && op->attr >= 0) {
			if (newidx[op->attr] < 0)
				die("delfuncs: a call of a deleted function remains");
			op->attr = newidx[op->attr];
		}
		for (j = 0; j < op->nregs; j++)
			renumbercalls(&op->regs[j], newidx);
	}
}

void
delfuncs(Module *m, const bool *keep)
{
	int *newidx = xmalloc((m->nfuncs + 1) * sizeof *newidx);
	Func **nf = aalloc(m->arena, (m->nfuncs + 1) * sizeof *nf);
	uint32_t i, n = 0;

	for (i = 0; i < m->nfuncs; i++) {
		newidx[i] = keep[i] ? (int)n : -1;
		if (keep[i])
			nf[n++] = m->funcs[i];
	}
	for (i = 0; i < n; i++) {
		renumbercalls(&nf[i]->body, newidx);
		if (nf[i]->adjof >= 0)
			nf[i]->adjof = newidx[nf[i]->adjof];
	}
	m->funcs = nf;
	m->nfuncs = m->capfuncs = n;
	free(newidx);
}

void
addret(Module *m, Func *f, Type t)
{
	Type *nr = aalloc(m->arena, (f->nrets + 1) * sizeof *nr);

	if (f->nrets)
		memcpy(nr, f->rets, f->nrets * sizeof *nr);
	nr[f->nrets++] = t;
	f->rets = nr;
}

int
addstr(Module *m, const char *s)
{
	uint32_t i;

	for (i = 0; i < m->nstrs; i++)
		if (strcmp(m->strs[i], s) == 0)
			return (int)i;
	APUSH(m->arena, m->strs, m->nstrs, m->capstrs, astrdup(m->arena, s));
	return (int)m->nstrs - 1;
}

Val
newval(Module *m, Func *f, Type t, int kind, const char *name)
{
	Value v = {0};

	if (f->nvals == 0) {
		Value none = {0};
		APUSH(m->arena, f->vals, f->nvals, f->capvals, none);
	}
	v.ty = t;
	v.kind = (uint8_t)kind;
	v.name = name ? astrdup(m->arena, name) : NULL;
	APUSH(m->arena, f->vals, f->nvals, f->capvals, v);
	return f->nvals - 1;
}

/* A count does not fit an op's (or a parameter number) 16 bits. */
static void
toobig(Module *m, Loc loc)
{
	if (!m->toobig)
		m->toobigloc = loc;
	m->toobig = true;
}

Val
addparam(Module *m, Func *f, const char *name, Type t, Loc loc)
{
	Val v = newval(m, f, t, V_ARG, name);

	if (f->nparams >= MAXOPVALS)
		toobig(m, loc);
	f->vals[v].idx = (uint16_t)f->nparams;
	f->vals[v].loc = loc;
	if (f->params != f->ownparams || f->capparams < f->nparams) {
		/* params set elsewhere: copy them once (doubling: linear time) */
		Val *np = aalloc(m->arena, (2 * (size_t)f->nparams + 4) * sizeof *np);
		if (f->nparams)
			memcpy(np, f->params, f->nparams * sizeof *np);
		f->params = f->ownparams = np;
		f->capparams = 2 * f->nparams + 4;
	}
	APUSH(m->arena, f->params, f->nparams, f->capparams, v);
	f->ownparams = f->params;
	return v;
}

/* IEEE half rounding of a double (through float, round to nearest even). */
static double
roundhalf(double d)
{
	float x = (float)d;
	double ax, q;
	int e;

	if (isnan(x) || isinf(x))
		return x;
	ax = fabs((double)x);
	if (ax >= 65520.0)
		return copysign(INFINITY, x);
	frexp(ax, &e); /* ax = f * 2^e, f in [0.5, 1): leading bit is 2^(e-1) */
	q = e - 1 < -14 ? ldexp(1.0, -24) : ldexp(1.0, e - 1 - 10);
	return copysign(nearbyint(ax / q) * q, x);
}

/* bfloat16 rounding of a double: through float, then Warp's
 * float_to_bfloat16 (round to nearest even on the top 16 bits; inf and NaN
 * keep theirs, a NaN stays a NaN). */
static double
roundbf16(double d)
{
	float x = (float)d;
	uint32_t u;

	memcpy(&u, &x, sizeof u);
	if ((u & 0x7f800000u) == 0x7f800000u)
		return x;
	u += 0x7fffu + ((u >> 16) & 1);
	u &= 0xffff0000u;
	memcpy(&x, &u, sizeof x);
	return x;
}

Scal
scalround(int s, Scal v)
{
	Scal r = {0};

	switch (s) {
	case S_BOOL: r.i = v.i != 0; break;
	case S_I8: r.i = (int8_t)v.i; break;
	case S_I16: r.i = (int16_t)v.i; break;
	case S_I32: r.i = (int32_t)v.i; break;
	case S_I64: r.i = v.i; break;
	case S_U8: r.u = (uint8_t)v.u; break;
	case S_U16: r.u = (uint16_t)v.u; break;
	case S_U32: r.u = (uint32_t)v.u; break;
	case S_U64: r.u = v.u; break;
	case S_F16: r.f = roundhalf(v.f); break;
	case S_F32: r.f = (double)(float)v.f; break;
	case S_F64: r.f = v.f; break;
	case S_BF16: r.f = roundbf16(v.f); break;
	default: die("scalround: kind %d", s);
	}
	return r;
}

static uint64_t
consthash(Type t, const Scal *c, int n)
{
	uint64_t h, w;
	int i;

	_Static_assert(sizeof t == sizeof w && sizeof *c == sizeof w, "a Type and a Scal are words");
	memcpy(&w, &t, sizeof w);
	h = hmix(0, w);
	for (i = 0; i < n; i++)
		h = hmix(h, c[i].u);
	return hfinal(h);
}

static bool
sameconst(const Func *f, Val v, Type t, const Scal *c, int n)
{
	const Value *x = &f->vals[v];
	return typeeq(x->ty, t) && memcmp(x->c, c, (size_t)n * sizeof *c) == 0;
}

Val
cconst(Module *m, Func *f, Type t, const Scal *c)
{
	int n = t.k == T_STR ? 1 : ncomp(t), i;
	Scal buf[16], *cc; /* the arena's copy only for a new constant */
	uint64_t h;
	uint32_t slot;
	Val v;

	if (n <= 0)
		die("cconst: type %s has no constants", typestr(m, t));
	cc = (size_t)n <= countof(buf) ? buf : aalloc(m->arena, (size_t)n * sizeof *cc);
	for (i = 0; i < n; i++)
		cc[i] = t.k == T_STR ? c[i] : scalround(t.s, c[i]);
	/* grow the intern table at half load */
	if (2 * (f->nconst + 1) > f->nctab) {
		uint32_t ncap = f->nctab ? 2 * f->nctab : 64, j;
		uint32_t *nt = aalloc(m->arena, ncap * sizeof *nt);
		for (j = 0; j < f->nctab; j++) {
			Val o = f->ctab[j];
			if (!o)
				continue;
			slot = (uint32_t)consthash(f->vals[o].ty, f->vals[o].c,
			                           f->vals[o].ty.k == T_STR ? 1 : ncomp(f->vals[o].ty)) & (ncap - 1);
			while (nt[slot])
				slot = (slot + 1) & (ncap - 1);
			nt[slot] = o;
		}
		f->ctab = nt;
		f->nctab = ncap;
	}
	h = consthash(t, cc, n);
	for (slot = (uint32_t)h & (f->nctab - 1); f->ctab[slot]; slot = (slot + 1) & (f->nctab - 1))
		if (sameconst(f, f->ctab[slot], t, cc, n))
			return f->ctab[slot];
	if (cc == buf) {
		cc = aalloc(m->arena, (size_t)n * sizeof *cc);
		memcpy(cc, buf, (size_t)n * sizeof *cc);
	}
	v = newval(m, f, t, V_CONST, NULL);
	f->vals[v].c = cc;
	f->ctab[slot] = v;
	f->nconst++;
	return v;
}

Val
cscalar(Module *m, Func *f, Type t, Scal v)
{
	return cconst(m, f, t, &v);
}

Val
cint(Module *m, Func *f, int s, int64_t v)
{
	Scal c;
	c.i = v;
	return cscalar(m, f, tscalar(s), c);
}

Val
cfloat(Module *m, Func *f, int s, double v)
{
	Scal c;
	c.f = v;
	return cscalar(m, f, tscalar(s), c);
}

Val
cbool(Module *m, Func *f, bool v)
{
	Scal c;
	c.i = v;
	return cscalar(m, f, tscalar(S_BOOL), c);
}

Val
czero(Module *m, Func *f, Type t)
{
	Scal z[MAXVEC * MAXVEC];

	if (!(t.k == T_SCALAR || iscomposite(t)))
		die("czero: not a scalar or composite: %s", typestr(m, t));
	memset(z, 0, sizeof z);
	return cconst(m, f, t, z);
}

Val
cstr(Module *m, Func *f, const char *s)
{
	Scal c;
	c.u = (uint64_t)addstr(m, s);
	return cconst(m, f, tstr(), &c);
}

Op *
mkop(Module *m, Func *f, int code, const Val *args, int nargs, const Type *rtys, int nres, Loc loc)
{
	Op *op = aalloc(m->arena, sizeof *op);
	int i;

	if (nargs > MAXOPVALS || nres > MAXOPVALS)
		toobig(m, loc);
	op->code = (uint16_t)code;
	op->loc = loc;
	op->nargs = (uint16_t)nargs;
	if (nargs) {
		op->args = aalloc(m->arena, (size_t)nargs * sizeof(Val));
		memcpy(op->args, args, (size_t)nargs * sizeof(Val));
	}
	op->nres = (uint16_t)nres;
	if (nres) {
		op->res = aalloc(m->arena, (size_t)nres * sizeof(Val));
		for (i = 0; i < nres; i++) {
			Val v = newval(m, f, rtys[i], V_RES, NULL);
			f->vals[v].def = op;
			f->vals[v].idx = (uint16_t)i;
			op->res[i] = v;
		}
	}
	return op;
}

void
opsetregions(Module *m, Op *op, int nregs)
{
	op->nregs = (uint8_t)nregs;
	op->regs = aalloc(m->arena, (size_t)nregs * sizeof(Region));
}

void
opsetparams(Module *m, Func *f, Op *op, const Type *tys, int n)
{
	int i;

	if (n > MAXOPVALS)
		toobig(m, op->loc);
	op->nparams = (uint16_t)n;
	op->params = aalloc(m->arena, (size_t)(n ? n : 1) * sizeof(Val));
	for (i = 0; i < n; i++) {
		Val v = newval(m, f, tys[i], V_PARAM, NULL);
		f->vals[v].def = op;
		f->vals[v].idx = (uint16_t)i;
		op->params[i] = v;
	}
}

void
regpush(Module *m, Region *r, Op *op)
{
	APUSH(m->arena, r->ops, r->n, r->cap, op);
}

Op *
bop(Builder *b, int code, const Val *args, int nargs, const Type *rtys, int nres)
{
	Op *op = mkop(b->m, b->f, code, args, nargs, rtys, nres, b->loc);
	regpush(b->m, b->r, op);
	return op;
}

Val
b1(Builder *b, int code, const Val *args, int nargs, const char **err)
{
	Type in[256], out[8];
	Buf e = {0};
	int i, n;

	if (nargs > 255)
		die("b1: too many operands");
	for (i = 0; i < nargs; i++)
		in[i] = vty(b->f, args[i]);
	n = typeop(b->m, code, in, nargs, 0, out, &e);
	if (n != 1) {
		if (err)
			*err = astrdup(b->m->arena, n < 0 && e.s ? e.s : "op does not yield one value");
		buffree(&e);
		return 0;
	}
	buffree(&e);
	return bop(b, code, args, nargs, out, 1)->res[0];
}

Val
b2(Builder *b, int code, Val x, Val y)
{
	Val a[2] = {x, y};
	const char *err = NULL;
	Val v = b1(b, code, a, 2, &err);

	if (!v)
		die("b2: %s", err);
	return v;
}

Val
bun(Builder *b, int code, Val x)
{
	const char *err = NULL;
	Val v = b1(b, code, &x, 1, &err);

	if (!v)
		die("bun: %s", err);
	return v;
}
