/*
 * types.c — Warp's names and types as kpyc understands them.
 *
 * wpname() answers what `wp.NAME` denotes: a scalar, vector, matrix,
 * quaternion or transform type (with Warp's suffixes: vec3f, vec2ub,
 * mat33d, quath, transformf, spatial_vectord ...), a constant (wp.pi), a
 * type factory (wp.array, wp.types.vector), a decorator, or a builtin
 * function (anything else: call.c decides whether it exists);
 * builtinop() finds a builtin's row of ir/ops.def.
 */
#include <string.h>

#include "ast.h"

/* Warp's vector/matrix suffixes by scalar kind (as in type.c). */
static const char *const wpsuffix[NSCALAR] = {
	NULL, "b", "s", "i", "l", "ub", "us", "ui", "ul", "h", "f", "d", NULL,
};

/* Warp's scalar type names. */
static const char *const wpscalar[NSCALAR] = {
	"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"float16", "float32", "float64", "bfloat16",
};

static int
suffixkind(const char *s)
{
	int i;

	if (*s == 0)
		return S_F32;
	for (i = 1; i < NSCALAR; i++)
		if (wpsuffix[i] && strcmp(wpsuffix[i], s) == 0)
			return i;
	return -1;
}

static GVal
gtype(Type t)
{
	GVal v;

	memset(&v, 0, sizeof v);
	v.kind = G_TYPE;
	v.spec.ty = t;
	return v;
}

static GVal wpname1(Kpyc *k, const char *name);

/* wp.NAME, memoized per compilation (a kernel names many). */
GVal
wpname(Kpyc *k, const char *name)
{
	uint32_t i = nmget(&k->wpmap, name);
	GVal v;

	if (i != UINT32_MAX)
		return k->wpvals[i];
	v = wpname1(k, name);
	if (v.kind == G_WPNAME)
		v.s = astrdup(k->a, name);
	APUSH(k->a, k->wpvals, k->nwpvals, k->capwpvals, v);
	nmput(k->a, &k->wpmap, v.kind == G_WPNAME ? v.s : astrdup(k->a, name), k->nwpvals - 1);
	return v;
}

static GVal
wpname1(Kpyc *k, const char *name)
{
	static const struct { const char *name; double v; } consts[] = {
		{"pi", 3.14159265358979323846}, {"PI", 3.14159265358979323846},
		{"e", 2.71828182845904523536}, {"E", 2.71828182845904523536},
		{"tau", 6.28318530717958647692}, {"TAU", 6.28318530717958647692},
		{"half_pi", 1.57079632679489661923}, {"HALF_PI", 1.57079632679489661923},
		{"phi", 1.61803398874989484820}, {"PHI", 1.61803398874989484820},
		{"log2e", 1.44269504088896340736}, {"LOG2E", 1.44269504088896340736},
		{"log10e", 0.43429448190325182765}, {"LOG10E", 0.43429448190325182765},
		{"ln2", 0.69314718055994530942}, {"LN2", 0.69314718055994530942},
		{"ln10", 2.30258509299404568402}, {"LN10", 2.30258509299404568402},
		{"inf", 1.0 / 0.0}, {"INF", 1.0 / 0.0},
	};
	GVal v;
	size_t i;
	int s;

	memset(&v, 0, sizeof v);
	for (s = 0; s < NSCALAR; s++)
		if (strcmp(wpscalar[s], name) == 0)
			return gtype(tscalar(s));
	if (strcmp(name, "half") == 0)
		return gtype(tscalar(S_F16));
	if (strcmp(name, "handle") == 0)
		return gtype(tscalar(S_U64));
	if (strcmp(name, "float") == 0 || strcmp(name, "int") == 0) {
		/* wp.float and wp.int: Python's float and int */
		v.kind = G_PYNAME;
		v.s = name[0] == 'f' ? "builtins.float" : "builtins.int";
		return v;
	}
	if (strncmp(name, "vec", 3) == 0 && name[3] >= '2' && name[3] <= '4' && (s = suffixkind(name + 4)) >= 0)
		return gtype(tvec(name[3] - '0', s));
	if (strncmp(name, "mat", 3) == 0 && name[3] >= '2' && name[3] <= '4' && name[4] == name[3] &&
	    (s = suffixkind(name + 5)) >= 0 && scalarisfloat(s))
		return gtype(tmat(name[3] - '0', name[3] - '0', s));
	if (strncmp(name, "quat", 4) == 0 && (s = suffixkind(name + 4)) >= 0 && scalarisfloat(s))
		return gtype(tquat(s));
	if (strncmp(name, "transform", 9) == 0 && (s = suffixkind(name + 9)) >= 0 && scalarisfloat(s))
		return gtype(txform(s));
	if (strncmp(name, "spatial_vector", 14) == 0 && (s = suffixkind(name + 14)) >= 0 && scalarisfloat(s))
		return gtype(tvec(6, s));
	if (strncmp(name, "spatial_matrix", 14) == 0 && (s = suffixkind(name + 14)) >= 0 && scalarisfloat(s))
		return gtype(tmat(6, 6, s));
	for (i = 0; i < countof(consts); i++)
		if (strcmp(consts[i].name, name) == 0) {
			v.kind = G_CONST;
			v.spec.ty = tscalar(S_F32);
			v.c = aalloc(k->a, sizeof *v.c);
			v.lit.ok = true;
			v.lit.f = consts[i].v;
			v.c[0] = scalround(S_F32, litscal(v.lit, S_F32));
			return v;
		}
	if (strcmp(name, "nan") == 0 || strcmp(name, "NAN") == 0) {
		v.kind = G_CONST;
		v.spec.ty = tscalar(S_F32);
		v.c = aalloc(k->a, sizeof *v.c);
		v.lit.ok = true;
		v.lit.f = 0.0 / 0.0;
		v.c[0].f = v.lit.f;
		return v;
	}
	v.kind = G_WPNAME;
	v.s = name;
	return v;
}

bool
gvaltype(const GVal *g, TySpec *out)
{
	memset(out, 0, sizeof *out);
	if (g->kind == G_TYPE) {
		*out = g->spec;
		return true;
	}
	if (g->kind == G_ANY) {
		out->any = true;
		return true;
	}
	if (g->kind == G_PYNAME) {
		if (strcmp(g->s, "builtins.float") == 0) {
			out->ty = tscalar(S_F32);
			return true;
		}
		if (strcmp(g->s, "builtins.int") == 0) {
			out->ty = tscalar(S_I32);
			return true;
		}
		if (strcmp(g->s, "builtins.bool") == 0) {
			out->ty = tscalar(S_BOOL);
			return true;
		}
	}
	if (g->kind == G_WPNAME && (strcmp(g->s, "Float") == 0 || strcmp(g->s, "Int") == 0 ||
	                            strcmp(g->s, "Scalar") == 0)) {
		/* Warp's generic scalar annotations (TypeVars) */
		out->gen = true;
		out->ty = tscalar(S_F32);
		out->dclass = g->s[0] == 'F' ? DC_FLOAT : g->s[0] == 'I' ? DC_INT : DC_SCALAR;
		return true;
	}
	if (g->kind == G_WPNAME && strncmp(g->s, "array", 5) == 0 &&
	    (g->s[5] == 0 || (g->s[5] >= '1' && g->s[5] <= '4' && strcmp(g->s + 6, "d") == 0))) {
		/* a bare wp.array: any dtype */
		out->ty = tarray(tscalar(S_F32), g->s[5] ? g->s[5] - '0' : 1);
		out->anydtype = true;
		return true;
	}
	return false;
}

const char *
wptypename(const Module *m, Type t)
{
	static char ring[8][128];
	static unsigned next;
	char *s = ring[next++ % 8];
	size_t n = sizeof ring[0];

	switch (t.k) {
	case T_SCALAR:
		snprintf(s, n, "%s", wpscalar[t.s]);
		break;
	case T_VEC:
		if (t.n >= 2 && t.n <= 4 && wpsuffix[t.s])
			snprintf(s, n, "vec%d%s", t.n, wpsuffix[t.s]);
		else
			snprintf(s, n, "vector(length=%d, dtype=%s)", t.n, wpscalar[t.s]);
		break;
	case T_MAT:
		if (t.n == t.m && t.n >= 2 && t.n <= 4 && wpsuffix[t.s])
			snprintf(s, n, "mat%d%d%s", t.n, t.m, wpsuffix[t.s]);
		else
			snprintf(s, n, "matrix(shape=(%d, %d), dtype=%s)", t.n, t.m, wpscalar[t.s]);
		break;
	case T_QUAT:
		snprintf(s, n, "quat%s", wpsuffix[t.s] ? wpsuffix[t.s] : "?");
		break;
	case T_XFORM:
		snprintf(s, n, "transform%s", wpsuffix[t.s] ? wpsuffix[t.s] : "?");
		break;
	case T_STRUCT:
		snprintf(s, n, "%s", m && t.sid < m->nstructs ? m->structs[t.sid].name : "struct");
		break;
	case T_ARRAY: {
		Type e = telem(t);
		const char *en = e.k == T_STRUCT ? (m && e.sid < m->nstructs ? m->structs[e.sid].name : "struct")
		               : e.k == T_SCALAR ? wpscalar[e.s] : typestr(m, e);
		snprintf(s, n, "array(ndim=%d, dtype=%s)", t.nd, en);
		break;
	}
	case T_STR:
		snprintf(s, n, "str");
		break;
	default:
		snprintf(s, n, "None");
	}
	return s;
}

void
typemangle(Buf *b, const Module *m, Type t)
{
	Buf tmp = {0};
	size_t i;
	bool us = false;

	if (t.k == T_ARRAY) {
		bufprintf(b, "a%d", t.nd);
		typemangle(b, m, telem(t));
		return;
	}
	if (t.k == T_STRUCT) {
		bufputs(b, m && t.sid < m->nstructs ? m->structs[t.sid].name : "S");
		return;
	}
	typeprint(&tmp, m, t);
	for (i = 0; i < tmp.n; i++) {
		char c = tmp.s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			bufputc(b, c);
			us = false;
		} else if (!us && i + 1 < tmp.n) {
			bufputc(b, '_');
			us = true;
		}
	}
	buffree(&tmp);
}

const char *
kirident(Arena *a, const char *s)
{
	const char *p;
	Buf b = {0};
	const char *r;

	for (p = s; *p; p++)
		if ((unsigned char)*p >= 0x80)
			break;
	if (!*p)
		return s;
	/* kir names are ASCII: other bytes are spelled _xHH */
	for (p = s; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch >= 0x80)
			bufprintf(&b, "_x%02x", ch);
		else
			bufputc(&b, ch);
	}
	r = astrdup(a, b.s);
	buffree(&b);
	return r;
}

int
builtinop(Kpyc *k, const char *name)
{
	uint32_t v;
	int op;

	if (!k->ops.n)
		for (op = 0; op < NOPS; op++)
			nmput(k->a, &k->ops, opinfo[op].name, (uint32_t)op);
	v = nmget(&k->ops, name);
	op = v == UINT32_MAX ? -1 : (int)v;

	/* rows of ops.def that are not Warp builtins a user calls by name */
	if (op < 0 || (opinfo[op].flags & F_KIRONLY))
		return -1;
	return op;
}

/* Does concrete type t fit the parameter annotation s (Warp's
 * type_matches_template)? */
bool
specfits(const TySpec *s, Type t)
{
	if (s->any)
		return t.k != T_STR;
	if (s->anydtype)
		return t.k == T_ARRAY && t.nd == s->ty.nd;
	if (s->tup)
		return false; /* a tuple annotation takes tuples only (call.c) */
	if (s->gen) {
		/* Warp's type_matches_template: the kind, the sides the pattern
		 * fixes, the components' class (Float, Int, Scalar: no bool) */
		if (t.k != s->ty.k || (!(s->anyn & 1) && t.k != T_SCALAR && t.n != s->ty.n) ||
		    (!(s->anyn & 2) && t.k == T_MAT && t.m != s->ty.m))
			return false;
		switch (s->dclass) {
		case DC_FLOAT:
			return scalarisfloat(t.s);
		case DC_INT:
			return t.s != S_BOOL && !scalarisfloat(t.s);
		case DC_SCALAR:
			return t.s != S_BOOL;
		default:
			return t.s == s->ty.s;
		}
	}
	return typeeq(s->ty, t);
}

/* An annotation as Warp writes it (typing.Any spelled `any`). */
const char *
specstring(Arena *a, const Module *m, const TySpec *s, const char *any)
{
	static const char *const dc[] = {NULL, "Float", "Int", "Scalar"};
	const char *d;

	if (s->any)
		return any;
	if (s->anydtype)
		return aprintf(a, "array(ndim=%d, dtype=%s)", s->ty.nd, any);
	if (s->tup) {
		Buf b = {0};
		const char *r;
		int i;
		for (i = 0; i < s->ntup; i++)
			bufprintf(&b, "%s%s", i ? ", " : "", specstring(a, m, &s->telts[i], any));
		r = aprintf(a, "tuple[%s%s]", b.s ? b.s : "", s->tupvar ? ", ..." : "");
		buffree(&b);
		return r;
	}
	if (!s->gen)
		return wptypename(m, s->ty);
	d = s->dclass == DC_EXACT ? wptypename(m, tscalar(s->ty.s)) : dc[s->dclass];
	if (s->ty.k == T_SCALAR)
		return d;
	if (s->ty.k == T_VEC)
		return s->anyn & 1 ? aprintf(a, "vector(length=%s, dtype=%s)", any, d)
		                   : aprintf(a, "vector(length=%d, dtype=%s)", s->ty.n, d);
	return aprintf(a, "matrix(shape=(%s, %s), dtype=%s)", s->anyn & 1 ? any : aprintf(a, "%d", s->ty.n),
	               s->anyn & 2 ? any : aprintf(a, "%d", s->ty.m), d);
}
