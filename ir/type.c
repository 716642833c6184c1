/*
 * type.c — kir types: constructors, predicates, spelling.
 *
 * Canonical spellings (no spaces, so a type is one token):
 *   bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 bf16
 *   vec3f vec2d vec4h vec3i vec3ui vec3b vec3ub vec3s vec3us vec3l vec3ul
 *                     (lengths 2..4; other lengths and kinds: vec<6,f32>)
 *   mat22f mat33d mat44h (square 2..4 of floats; else mat<3,4,f32>)
 *   quatf quatd quath   transformf transformd transformh
 *   array<ELEM,ND>      @StructName      str
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

const char *const scalarname[NSCALAR] = {
	"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bf16",
};

const int scalarsize[NSCALAR] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 2};

/* Warp's suffixes for vector (and matrix) type names, by scalar kind. */
static const char *const vecsuffix[NSCALAR] = {
	NULL, "b", "s", "i", "l", "ub", "us", "ui", "ul", "h", "f", "d", NULL,
};

Type tvoid(void) { Type t = {0}; return t; }
Type tscalar(int s) { Type t = {0}; t.k = T_SCALAR; t.s = (uint8_t)s; return t; }
Type tvec(int n, int s) { Type t = tscalar(s); t.k = T_VEC; t.n = (uint8_t)n; return t; }
Type tmat(int n, int m, int s) { Type t = tscalar(s); t.k = T_MAT; t.n = (uint8_t)n; t.m = (uint8_t)m; return t; }
Type tquat(int s) { Type t = tscalar(s); t.k = T_QUAT; return t; }
Type txform(int s) { Type t = tscalar(s); t.k = T_XFORM; return t; }
Type tstruct(int sid) { Type t = {0}; t.k = T_STRUCT; t.sid = (uint16_t)sid; return t; }
Type tstr(void) { Type t = {0}; t.k = T_STR; return t; }

Type
tarray(Type elem, int nd)
{
	Type t = elem;
	t.ek = elem.k;
	t.k = T_ARRAY;
	t.nd = (uint8_t)nd;
	return t;
}

Type
telem(Type arr)
{
	Type t = arr;
	t.k = arr.ek;
	t.ek = 0;
	t.nd = 0;
	return t;
}

Type
tcomp(Type t)
{
	return tscalar(t.s);
}

bool
typeeq(Type a, Type b)
{
	if (a.k != b.k)
		return false;
	switch (a.k) {
	case T_VOID:
	case T_STR:
		return true;
	case T_SCALAR:
	case T_QUAT:
	case T_XFORM:
		return a.s == b.s;
	case T_VEC:
		return a.s == b.s && a.n == b.n;
	case T_MAT:
		return a.s == b.s && a.n == b.n && a.m == b.m;
	case T_STRUCT:
		return a.sid == b.sid;
	case T_ARRAY:
		return a.nd == b.nd && typeeq(telem(a), telem(b));
	}
	return false;
}

bool scalarisfloat(int s) { return s == S_F16 || s == S_F32 || s == S_F64 || s == S_BF16; }
bool scalarisint(int s) { return s >= S_I8 && s <= S_U64; }
bool scalarissigned(int s) { return (s >= S_I8 && s <= S_I64) || scalarisfloat(s); }

bool isscalar(Type t) { return t.k == T_SCALAR; }
bool isfloat(Type t) { return t.k == T_SCALAR && scalarisfloat(t.s); }
bool isint(Type t) { return t.k == T_SCALAR && scalarisint(t.s); }
bool issigned(Type t) { return t.k == T_SCALAR && scalarissigned(t.s); }
bool isbool(Type t) { return t.k == T_SCALAR && t.s == S_BOOL; }
bool iscomposite(Type t) { return t.k == T_VEC || t.k == T_MAT || t.k == T_QUAT || t.k == T_XFORM; }

bool
isfloatcomp(Type t)
{
	return (t.k == T_SCALAR || iscomposite(t)) && scalarisfloat(t.s);
}

int
ncomp(Type t)
{
	switch (t.k) {
	case T_SCALAR: return 1;
	case T_VEC: return t.n;
	case T_MAT: return t.n * t.m;
	case T_QUAT: return 4;
	case T_XFORM: return 7;
	default: return 0;
	}
}

int
typealign(const Module *m, Type t)
{
	uint32_t i;
	int a = 1;

	switch (t.k) {
	case T_SCALAR:
	case T_VEC:
	case T_MAT:
	case T_QUAT:
	case T_XFORM:
		return scalarsize[t.s];
	case T_ARRAY:
		return 8;
	case T_STRUCT:
		if (!m || t.sid >= m->nstructs)
			return 1;
		for (i = 0; i < m->structs[t.sid].nfields; i++) {
			int fa = typealign(m, m->structs[t.sid].fields[i].ty);
			if (fa > a)
				a = fa;
		}
		return a;
	default:
		return 1;
	}
}

static int
roundup(int n, int a)
{
	return (n + a - 1) / a * a;
}

int
fieldoffset(const Module *m, int sid, int field)
{
	const StructDef *s = &m->structs[sid];
	int off = 0, i;

	for (i = 0; i < (int)s->nfields; i++) {
		off = roundup(off, typealign(m, s->fields[i].ty));
		if (i == field)
			return off;
		off += typesize(m, s->fields[i].ty);
	}
	return off;
}

int
typesize(const Module *m, Type t)
{
	switch (t.k) {
	case T_SCALAR:
	case T_VEC:
	case T_MAT:
	case T_QUAT:
	case T_XFORM:
		return ncomp(t) * scalarsize[t.s];
	case T_ARRAY:
		return roundup(8 + 4 * t.nd, 8) + 8 * t.nd;
	case T_STRUCT:
		if (!m || t.sid >= m->nstructs)
			return 0;
		return roundup(fieldoffset(m, t.sid, (int)m->structs[t.sid].nfields), typealign(m, t));
	default:
		return 0;
	}
}

void
typeprint(Buf *b, const Module *m, Type t)
{
	switch (t.k) {
	case T_VOID:
		bufputs(b, "void");
		return;
	case T_STR:
		bufputs(b, "str");
		return;
	case T_SCALAR:
		bufputs(b, scalarname[t.s]);
		return;
	case T_VEC:
		if (t.n >= 2 && t.n <= 4 && vecsuffix[t.s]) {
			bufputs(b, "vec");
			bufputc(b, '0' + t.n);
			bufputs(b, vecsuffix[t.s]);
		} else
			bufprintf(b, "vec<%d,%s>", t.n, scalarname[t.s]);
		return;
	case T_MAT:
		if (t.n == t.m && t.n >= 2 && t.n <= 4 && scalarisfloat(t.s) && vecsuffix[t.s]) {
			bufputs(b, "mat");
			bufputc(b, '0' + t.n);
			bufputc(b, '0' + t.m);
			bufputs(b, vecsuffix[t.s]);
		} else
			bufprintf(b, "mat<%d,%d,%s>", t.n, t.m, scalarname[t.s]);
		return;
	case T_QUAT:
		if (scalarisfloat(t.s) && vecsuffix[t.s]) {
			bufputs(b, "quat");
			bufputs(b, vecsuffix[t.s]);
		} else
			bufprintf(b, "quat<%s>", scalarname[t.s]);
		return;
	case T_XFORM:
		if (scalarisfloat(t.s) && vecsuffix[t.s]) {
			bufputs(b, "transform");
			bufputs(b, vecsuffix[t.s]);
		} else
			bufprintf(b, "transform<%s>", scalarname[t.s]);
		return;
	case T_STRUCT:
		if (m && t.sid < m->nstructs) {
			bufputc(b, '@');
			bufputs(b, m->structs[t.sid].name);
		} else
			bufprintf(b, "@struct%d", t.sid);
		return;
	case T_ARRAY:
		bufputs(b, "array<");
		typeprint(b, m, telem(t));
		bufputc(b, ',');
		bufputi(b, t.nd);
		bufputc(b, '>');
		return;
	}
	bufputs(b, "?");
}

const char *
typestr(const Module *m, Type t)
{
	/* A ring of buffers so several calls may appear in one printf. */
	static char ring[8][96];
	static unsigned next;
	char *s = ring[next++ % 8];
	Buf b = {0};

	typeprint(&b, m, t);
	snprintf(s, sizeof ring[0], "%s", b.s ? b.s : "");
	buffree(&b);
	return s;
}

/* w (NUL-terminated) is the n bytes at s; stops at the first difference. */
static bool
isword(const char *w, const char *s, size_t n)
{
	size_t i;

	if (!w)
		return false;
	for (i = 0; i < n; i++)
		if (!w[i] || w[i] != s[i])
			return false;
	return !w[n];
}

static int
scalarbyname(const char *s, size_t n)
{
	int i;

	for (i = 0; i < NSCALAR; i++)
		if (isword(scalarname[i], s, n))
			return i;
	return -1;
}

static int
scalarbysuffix(const char *s, size_t n)
{
	int i;

	for (i = 1; i < NSCALAR; i++)
		if (isword(vecsuffix[i], s, n))
			return i;
	return -1;
}

static bool
prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && memcmp(s, p, k) == 0;
}

bool
typeparse_name(const char *s, size_t n, Type *t)
{
	int sk;

	if ((sk = scalarbyname(s, n)) >= 0) {
		*t = tscalar(sk);
		return true;
	}
	if (prefix(s, n, "vec") && n >= 5 && s[3] >= '2' && s[3] <= '4' &&
	    (sk = scalarbysuffix(s + 4, n - 4)) >= 0) {
		*t = tvec(s[3] - '0', sk);
		return true;
	}
	if (prefix(s, n, "mat") && n >= 6 && s[3] >= '2' && s[3] <= '4' && s[4] == s[3] &&
	    (sk = scalarbysuffix(s + 5, n - 5)) >= 0 && scalarisfloat(sk)) {
		*t = tmat(s[3] - '0', s[4] - '0', sk);
		return true;
	}
	if (prefix(s, n, "quat") && (sk = scalarbysuffix(s + 4, n - 4)) >= 0 && scalarisfloat(sk)) {
		*t = tquat(sk);
		return true;
	}
	if (prefix(s, n, "transform") && (sk = scalarbysuffix(s + 9, n - 9)) >= 0 && scalarisfloat(sk)) {
		*t = txform(sk);
		return true;
	}
	if (n == 3 && memcmp(s, "str", 3) == 0) {
		*t = tstr();
		return true;
	}
	return false;
}
