/*
 * emit.c — kir to readable C++: the one statement and expression emitter
 * of kcpu and kcuda (see emit.h for the naming and inlining rules).
 *
 * Per function, before anything is written:
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
 * Then regions become statements.  Everything is deterministic: names are
 * assigned in output order from a per-function name set seeded with the
 * module-level names.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* ------------------------------------------------------------------ */
/* Name sets                                                           */

typedef struct NameSet {
	char **slot;     /* open addressing; owned strings */
	uint32_t n, cap;
	const struct NameSet *parent; /* names also taken (unchanged while this set lives), or NULL */
	char **hbase;    /* uniqname's hints, open addressing: a base (owned) ... */
	uint32_t *hnext; /* ... and the first of its candidates that may be free */
	uint32_t hn, hcap;
} NameSet;

static uint32_t
strhash(const char *s)
{
	return (uint32_t)hash64(s, strlen(s), 11);
}

static bool
nshas(const NameSet *ns, const char *s)
{
	uint32_t i, h = strhash(s);

	for (; ns; ns = ns->parent) {
		if (!ns->cap)
			continue;
		for (i = h & (ns->cap - 1); ns->slot[i]; i = (i + 1) & (ns->cap - 1))
			if (strcmp(ns->slot[i], s) == 0)
				return true;
	}
	return false;
}

static void
nsadd(NameSet *ns, const char *s)
{
	uint32_t i, j;

	if (nshas(ns, s))
		return;
	if (2 * (ns->n + 1) > ns->cap) {
		uint32_t ncap = ns->cap ? 2 * ns->cap : 256;
		char **ns2 = xcalloc(ncap, sizeof *ns2);
		for (j = 0; j < ns->cap; j++) {
			if (!ns->slot[j])
				continue;
			for (i = strhash(ns->slot[j]) & (ncap - 1); ns2[i]; i = (i + 1) & (ncap - 1))
				;
			ns2[i] = ns->slot[j];
		}
		free(ns->slot);
		ns->slot = ns2;
		ns->cap = ncap;
	}
	for (i = strhash(s) & (ns->cap - 1); ns->slot[i]; i = (i + 1) & (ns->cap - 1))
		;
	ns->slot[i] = xstrdup(s);
	ns->n++;
}

/* uniqname's hint for base: its slot in the hint table (grown first). */
static uint32_t
nshint(NameSet *ns, const char *base)
{
	uint32_t i, j;

	if (2 * (ns->hn + 1) > ns->hcap) {
		uint32_t ncap = ns->hcap ? 2 * ns->hcap : 64;
		char **b2 = xcalloc(ncap, sizeof *b2);
		uint32_t *n2 = xcalloc(ncap, sizeof *n2);
		for (j = 0; j < ns->hcap; j++) {
			if (!ns->hbase[j])
				continue;
			for (i = strhash(ns->hbase[j]) & (ncap - 1); b2[i]; i = (i + 1) & (ncap - 1))
				;
			b2[i] = ns->hbase[j];
			n2[i] = ns->hnext[j];
		}
		free(ns->hbase);
		free(ns->hnext);
		ns->hbase = b2;
		ns->hnext = n2;
		ns->hcap = ncap;
	}
	for (i = strhash(base) & (ns->hcap - 1); ns->hbase[i]; i = (i + 1) & (ns->hcap - 1))
		if (strcmp(ns->hbase[i], base) == 0)
			return i;
	ns->hbase[i] = xstrdup(base);
	ns->hnext[i] = 0;
	ns->hn++;
	return i;
}

static void
nsfree(NameSet *ns)
{
	uint32_t i;

	for (i = 0; i < ns->cap; i++)
		free(ns->slot[i]);
	for (i = 0; i < ns->hcap; i++)
		free(ns->hbase[i]);
	free(ns->slot);
	free(ns->hbase);
	free(ns->hnext);
	memset(ns, 0, sizeof *ns);
}

/* Names no generated identifier may take: C++ keywords and alternative
 * tokens, names the C and math headers declare at global scope or as
 * macros, and the emitter's own. */
static const char *const reserved[] = {
	/* C++17 keywords */
	"alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
	"case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
	"const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
	"co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
	"else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
	"if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
	"nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
	"reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
	"static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
	"throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
	"virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "final", "override",
	"restrict", "_Bool",
	/* CUDA */
	"__global__", "__device__", "__host__", "__shared__", "__constant__", "threadIdx",
	"blockIdx", "blockDim", "gridDim", "warpSize",
	/* our own and the runtime's namespaces and macros */
	"kpy", "std", "main", "bounds", "task", "begin", "end", "args", "KPY_HD", "KPY_ASSERT", "NULL", "INFINITY", "NAN",
	"EOF", "errno", "assert", "offsetof", "size_t", "ptrdiff_t", "int8_t", "int16_t",
	"int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t",
	"uintptr_t", "INT8_MIN", "INT16_MIN", "INT32_MIN", "INT64_MIN", "INT8_MAX", "INT16_MAX",
	"INT32_MAX", "INT64_MAX", "UINT8_MAX", "UINT16_MAX", "UINT32_MAX", "UINT64_MAX",
	"INT64_C", "UINT64_C", "kpy_array", "kpy_launch_bounds",
	/* <math.h>, <stdio.h>, <stdlib.h>, <string.h> */
	"acos", "acosf", "acosh", "asin", "asinf", "asinh", "atan", "atanf", "atan2", "atan2f",
	"atanh", "cbrt", "cbrtf", "ceil", "ceilf", "copysign", "copysignf", "cos", "cosf", "cosh",
	"coshf", "erf", "erff", "erfc", "erfcf", "exp", "expf", "exp2", "exp2f", "expm1", "fabs",
	"fabsf", "fdim", "floor", "floorf", "fma", "fmaf", "fmax", "fmaxf", "fmin", "fminf", "fmod",
	"fmodf", "frexp", "hypot", "hypotf", "ilogb", "ldexp", "lgamma", "llrint", "llround", "log",
	"logf", "log10", "log10f", "log1p", "log2", "log2f", "logb", "lrint", "lround", "modf",
	"nan", "nearbyint", "nextafter", "pow", "powf", "remainder", "remquo", "rint", "rintf",
	"round", "roundf", "scalbn", "sin", "sinf", "sinh", "sinhf", "sqrt", "sqrtf", "tan", "tanf",
	"tanh", "tanhf", "tgamma", "trunc", "truncf", "isnan", "isinf", "isfinite", "signbit",
	"fpclassify", "isnormal", "isgreater", "isless", "abs", "labs", "llabs", "div", "printf",
	"fprintf", "sprintf", "snprintf", "puts", "putchar", "stdin", "stdout", "stderr", "FILE",
	"malloc", "calloc", "realloc", "free", "exit", "abort", "atoi", "atof", "rand", "srand",
	"memcpy", "memset", "memmove", "memcmp", "strlen", "strcmp", "strcpy", "time", "clock",
	"signal", "raise", "setjmp", "longjmp", "environ", "system", "getenv", "qsort", "bsearch",
	"min", "max", "swap",
};

/* Is c a character of a C identifier? */
static bool
identc(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A C identifier from a kir name: other characters become '_', a trailing
 * ".N" (the printer's dedup suffix) is dropped when drop is set. */
static char *
sanitize(const char *name, bool drop)
{
	size_t n = strlen(name), i;
	char *s;

	if (drop) {
		size_t k = n;
		while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
			k--;
		if (k > 1 && k < n && name[k - 1] == '.')
			n = k - 1;
	}
	s = xmalloc(n + 2);
	for (i = 0; i < n; i++)
		s[i] = identc((unsigned char)name[i]) ? name[i] : '_';
	s[n] = 0;
	if (n == 0 || (s[0] >= '0' && s[0] <= '9')) {
		memmove(s + 1, s, n + 1);
		s[0] = '_';
	}
	return s;
}

/* The first of base, base_1, base_2 ... not in ns (ns unchanged but for
 * its hints).  A base
 * that is itself reserved gets a '_' first. */
static char *
uniqname(NameSet *ns, const char *base, const char *const *also, int nalso)
{
	size_t n = strlen(base) + 32;
	char *s = xmalloc(n);
	uint32_t k = 0, h = 0;
	int j;
	bool clash;

	/* Names are only ever added, so the candidates before the one base
	 * got last time still clash: start there (a probe or two per name,
	 * not one per earlier namesake). */
	if (!nalso) {
		h = nshint(ns, base);
		k = ns->hnext[h];
	}
	for (;; k++) {
		if (k)
			snprintf(s, n, "%s_%" PRIu32, base, k);
		else
			snprintf(s, n, "%s", base);
		clash = nshas(ns, s);
		for (j = 0; j < nalso && !clash; j++) {
			char t[512];
			snprintf(t, sizeof t, also[j], s);
			clash = nshas(ns, t);
		}
		if (!clash)
			break;
	}
	if (!nalso)
		ns->hnext[h] = k;
	return s;
}

/* ------------------------------------------------------------------ */
/* Module state                                                        */

typedef struct FState FState;

struct Emit {
	const Module *m;
	EmitOpts o;
	NameSet global;   /* module-level names, reserved words and op names */
	NameSet locals;   /* what a local variable may not be called */
	char **fname;     /* per function: C++ name */
	char **sname;     /* per struct: C++ name */
	char ***field;    /* per struct, per field: C++ name */
	bool *writes;     /* per function: writes memory or prints (itself or through calls) */
	bool *reached;    /* per function: called (maybe indirectly) by a kernel */
	unsigned **acc;   /* per function, per parameter: ACC_* */
	int *tiddims;     /* per function: widest tid */
	unsigned fam;     /* FAM_* used */
	bool asserts;     /* the module has assert ops */
	FState **fs;      /* per function: analysis (emitted lazily) */
};

/* Per-function analysis and emission state. */
struct FState {
	Emit *e;
	const Module *m;
	const Func *f;
	int fi;
	uint8_t *need;        /* per Val: read by the output */
	uint32_t *uses;       /* per Val: emitted reads */
	const Op **user;      /* per Val: the op reading it (when uses == 1) */
	const Region **ureg;  /* per Val: region of that op */
	uint32_t *upos;       /* per Val: index of that op in ureg */
	const Region **home;  /* per Val: region the value is defined in */
	uint32_t *hpos;       /* per Val: index of its defining op there (params: 0) */
	uint8_t *noinl;       /* per Val: must be a variable */
	uint8_t *inl;         /* per Val: written into its single use */
	uint16_t *weight;     /* per Val: size of its inlined expression tree */
	Val *alias;           /* per Val: shares the variable of alias[v] (0: its own) */
	char **name;          /* per Val: C++ variable name (root values) */
	char **retname;       /* out-parameters of a multi-result function */
	Val *args;            /* emittedargs' scratch: the widest operand list + 4 */
	NameSet names;
	uint32_t ntemp;
	/* emission */
	Buf *out;
	uint32_t lastline;
	uint32_t lastfile;
	bool linedir;
};

static FState *fstate(Emit *e, int fi);

/* ------------------------------------------------------------------ */
/* Types                                                               */

static const char *const ctscalar[NSCALAR] = {
	"bool", "kpy::i8", "kpy::i16", "kpy::i32", "kpy::i64", "kpy::u8", "kpy::u16", "kpy::u32",
	"kpy::u64", "kpy::f16", "kpy::f32", "kpy::f64",
};

/* Warp's type-name suffixes (vec3f, vec3ui ...); NULL: none. */
static const char *const vsuffix[NSCALAR] = {
	NULL, "b", "s", "i", "l", "ub", "us", "ui", "ul", "h", "f", "d",
};

static void
ctype1(const Emit *e, Buf *b, Type t)
{
	switch (t.k) {
	case T_SCALAR:
		bufputs(b, ctscalar[t.s]);
		return;
	case T_VEC:
		if (t.n >= 2 && t.n <= 4 && vsuffix[t.s])
			bufprintf(b, "kpy::vec%d%s", t.n, vsuffix[t.s]);
		else
			bufprintf(b, "kpy::vec_t<%d, %s>", t.n, ctscalar[t.s]);
		return;
	case T_MAT:
		if (t.n == t.m && t.n >= 2 && t.n <= 4 && scalarisfloat(t.s))
			bufprintf(b, "kpy::mat%d%d%s", t.n, t.m, vsuffix[t.s]);
		else
			bufprintf(b, "kpy::mat_t<%d, %d, %s>", t.n, t.m, ctscalar[t.s]);
		return;
	case T_QUAT:
		if (scalarisfloat(t.s))
			bufprintf(b, "kpy::quat%s", vsuffix[t.s]);
		else
			bufprintf(b, "kpy::quat_t<%s>", ctscalar[t.s]);
		return;
	case T_XFORM:
		if (scalarisfloat(t.s))
			bufprintf(b, "kpy::transform%s", vsuffix[t.s]);
		else
			bufprintf(b, "kpy::transform_t<%s>", ctscalar[t.s]);
		return;
	case T_STRUCT:
		bufputs(b, t.sid < e->m->nstructs ? e->sname[t.sid] : "void");
		return;
	case T_ARRAY:
		bufputs(b, "kpy::array_t<");
		ctype1(e, b, telem(t));
		bufprintf(b, ", %d>", t.nd);
		return;
	case T_STR:
		bufputs(b, "const char *");
		return;
	default:
		bufputs(b, "void");
	}
}

void
emitctype(const Emit *e, Buf *out, Type t)
{
	ctype1(e, out, t);
}

static unsigned
typefam(Type t)
{
	unsigned f = 0;

	if (t.k == T_ARRAY) {
		f |= FAM_ARRAY;
		t = telem(t);
	}
	switch (t.k) {
	case T_VEC: f |= FAM_VEC; break;
	case T_MAT: f |= FAM_MAT; break;
	case T_QUAT: f |= FAM_QUAT; break;
	case T_XFORM: f |= FAM_TRANSFORM; break;
	}
	return f;
}

/* The header family an op needs beyond its types. */
static unsigned
opfam(int code)
{
	if (code >= OP_QUAT_FROM_AXIS_ANGLE && code <= OP_QUAT_TWIST_ANGLE_SIGNED)
		return FAM_QUAT;
	if (code >= OP_TRANSFORM_POINT && code <= OP_TRANSFORM_DECOMPOSE)
		return FAM_TRANSFORM;
	if (code >= OP_SPATIAL_TOP && code <= OP_VELOCITY_AT_POINT)
		return FAM_SPATIAL;
	if (code >= OP_SVD3 && code <= OP_EIG3)
		return FAM_DECOMP;
	if (code >= OP_ATOMIC_ADD && code <= OP_ATOMIC_CAS)
		return FAM_ATOMIC | FAM_ARRAY;
	if (code == OP_LOAD || code == OP_STORE || code == OP_VIEW || code == OP_SHAPE)
		return FAM_ARRAY;
	if (code == OP_PRINT || code == OP_PRINTF)
		return FAM_PRINT;
	if (code >= OP_RAND_INIT && code <= OP_POISSON)
		return FAM_RAND;
	if (code >= OP_NOISE && code <= OP_CURLNOISE)
		return FAM_NOISE;
	if (code >= OP_DOT && code <= OP_SMOOTH_NORMALIZE)
		return FAM_VEC;
	if (code == OP_MATRIX_FROM_ROWS || code == OP_MATRIX_FROM_COLS || code == OP_IDENTITY)
		return FAM_MAT;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Module-level analysis                                               */

static void
famregion(Emit *e, const Func *f, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		e->fam |= opfam(op->code);
		if (op->code == OP_ASSERT)
			e->asserts = true;
		for (j = 0; j < op->nres; j++)
			e->fam |= typefam(f->vals[op->res[j]].ty);
		for (j = 0; j < op->nregs; j++)
			famregion(e, f, &op->regs[j]);
	}
}

/* Does region r write memory or print (directly or through calls)? */
static bool
regionwrites(const Emit *e, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (opinfo[op->code].flags & F_WRITE)
			return true;
		if (op->code == OP_CALL && op->attr >= 0 && e->writes[op->attr])
			return true;
		for (j = 0; j < op->nregs; j++)
			if (regionwrites(e, &op->regs[j]))
				return true;
	}
	return false;
}

static void
reach(Emit *e, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (op->code == OP_CALL && op->attr >= 0 && !e->reached[op->attr]) {
			e->reached[op->attr] = true;
			reach(e, &e->m->funcs[op->attr]->body);
		}
		for (j = 0; j < op->nregs; j++)
			reach(e, &op->regs[j]);
	}
}

static bool
isoperatorname(const char *s)
{
	return oplookup(s, strlen(s)) >= 0;
}

Emit *
emitnew(const Module *m, const EmitOpts *o)
{
	Emit *e = xcalloc(1, sizeof *e);
	uint32_t i, j;
	bool changed;

	e->m = m;
	e->o = *o;
	for (i = 0; i < countof(reserved); i++) {
		nsadd(&e->global, reserved[i]);
		nsadd(&e->locals, reserved[i]);
	}
	/* every op name is a kpy:: function; a user function of that name
	 * would be found by argument-dependent lookup next to it */
	for (i = 0; i < NOPS; i++)
		nsadd(&e->global, opinfo[i].name);
	nsadd(&e->global, "load");
	nsadd(&e->global, "store");
	nsadd(&e->global, "address");
	nsadd(&e->global, "view");
	nsadd(&e->global, "shape");
	nsadd(&e->global, "unravel");
	nsadd(&e->global, "array_t");
	e->sname = xcalloc(m->nstructs + 1, sizeof(char *));
	e->field = xcalloc(m->nstructs + 1, sizeof(char **));
	for (i = 0; i < m->nstructs; i++) {
		const StructDef *sd = &m->structs[i];
		NameSet fs = {0};
		char *b = sanitize(sd->name, false);
		e->sname[i] = uniqname(&e->global, b, NULL, 0);
		nsadd(&e->global, e->sname[i]);
		nsadd(&e->locals, e->sname[i]);
		free(b);
		e->field[i] = xcalloc(sd->nfields + 1, sizeof(char *));
		for (j = 0; j < countof(reserved); j++)
			nsadd(&fs, reserved[j]);
		for (j = 0; j < sd->nfields; j++) {
			b = sanitize(sd->fields[j].name, false);
			e->field[i][j] = uniqname(&fs, b, NULL, 0);
			nsadd(&fs, e->field[i][j]);
			free(b);
		}
		nsfree(&fs);
	}
	e->fname = xcalloc(m->nfuncs + 1, sizeof(char *));
	for (i = 0; i < m->nfuncs; i++) {
		const Func *f = m->funcs[i];
		static const char *const kalso[] = {"%s_kernel", "kpy_launch_%s"};
		char *b = sanitize(f->name, false);
		if (!f->kernel && isoperatorname(b)) {
			/* a @wp.func named like a builtin: spelled NAME_ */
			char *t = xmalloc(strlen(b) + 2);
			sprintf(t, "%s_", b);
			free(b);
			b = t;
		}
		e->fname[i] = uniqname(&e->global, b, kalso, f->kernel ? 2 : 0);
		nsadd(&e->global, e->fname[i]);
		nsadd(&e->locals, e->fname[i]);
		if (f->kernel) {
			char t[600];
			snprintf(t, sizeof t, "%s_kernel", e->fname[i]);
			nsadd(&e->global, t);
			nsadd(&e->locals, t);
			snprintf(t, sizeof t, "kpy_launch_%s", e->fname[i]);
			nsadd(&e->global, t);
			nsadd(&e->locals, t);
		}
		free(b);
	}
	/* which functions write (fixed point through calls) */
	e->writes = xcalloc(m->nfuncs + 1, sizeof(bool));
	do {
		changed = false;
		for (i = 0; i < m->nfuncs; i++)
			if (!e->writes[i] && regionwrites(e, &m->funcs[i]->body)) {
				e->writes[i] = true;
				changed = true;
			}
	} while (changed);
	/* parameter access (fixed point through calls) */
	e->acc = paramaccess(m);
	e->reached = xcalloc(m->nfuncs + 1, sizeof(bool));
	for (i = 0; i < m->nfuncs; i++)
		if (m->funcs[i]->kernel)
			reach(e, &m->funcs[i]->body);
	e->tiddims = xcalloc(m->nfuncs + 1, sizeof(int));
	e->fam = FAM_CORE;
	for (i = 0; i < m->nfuncs; i++) {
		const Func *f = m->funcs[i];
		e->tiddims[i] = tiddims(&f->body);
		for (j = 0; j < f->nparams; j++)
			e->fam |= typefam(f->vals[f->params[j]].ty);
		for (j = 0; j < f->nrets; j++)
			e->fam |= typefam(f->rets[j]);
		for (j = 1; j < f->nvals; j++)
			if (f->vals[j].kind == V_CONST)
				e->fam |= typefam(f->vals[j].ty);
		famregion(e, f, &f->body);
	}
	for (i = 0; i < m->nstructs; i++)
		for (j = 0; j < m->structs[i].nfields; j++)
			e->fam |= typefam(m->structs[i].fields[j].ty);
	e->fs = xcalloc(m->nfuncs + 1, sizeof(FState *));
	return e;
}

static void fsfree(FState *s);

void
emitfree(Emit *e)
{
	uint32_t i, j;

	if (!e)
		return;
	for (i = 0; i < e->m->nstructs; i++) {
		for (j = 0; j < e->m->structs[i].nfields; j++)
			free(e->field[i][j]);
		free(e->field[i]);
		free(e->sname[i]);
	}
	for (i = 0; i < e->m->nfuncs; i++) {
		free(e->fname[i]);
		if (e->fs[i])
			fsfree(e->fs[i]);
	}
	free(e->fs);
	free(e->field);
	free(e->sname);
	free(e->fname);
	freeparamaccess(e->m, e->acc);
	free(e->writes);
	free(e->reached);
	free(e->tiddims);
	nsfree(&e->global);
	nsfree(&e->locals);
	free(e);
}

unsigned emitfamilies(const Emit *e) { return e->fam; }
const Module *emitmodule(const Emit *e) { return e->m; }
const char *emitfuncname(const Emit *e, int fi) { return e->fname[fi]; }
const char *emitstructname(const Emit *e, int sid) { return e->sname[sid]; }
const char *emitfieldname(const Emit *e, int sid, int fld) { return e->field[sid][fld]; }
unsigned emitparamaccess(const Emit *e, int fi, int pi) { return e->acc[fi][pi]; }
int emittiddims(const Emit *e, int fi) { return e->tiddims[fi]; }

const char *
emitparamname(const Emit *e, int fi, int pi)
{
	FState *s = fstate((Emit *)e, fi);
	return s->name[s->f->params[pi]];
}

/* ------------------------------------------------------------------ */
/* Function analysis                                                   */

/* Where a terminator sits: the op owning its region, which region, and
 * the innermost loop. */
typedef struct Ctx {
	const Op *owner;
	int regno;
	const Op *loop;
} Ctx;

static Val
root(const FState *s, Val v)
{
	int n = 0;

	while (s->alias[v] && n++ < 1 << 20)
		v = s->alias[v];
	return v;
}

/* Carried slot k of loop op: its parameter and result. */
static Val
slotparam(const Op *loop, int k)
{
	return loop->params[k + (loop->code == OP_FOR)];
}

static int
nslots(const Op *loop)
{
	return loop->nparams - (loop->code == OP_FOR);
}

static Val
slotinit(const Op *loop, int k)
{
	return loop->args[k + (loop->code == OP_FOR ? 3 : 0)];
}

static bool
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
static bool
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
	w.marked = xcalloc(n, 1);
	w.slotdone = xcalloc(n, 1);
	w.loopof = xcalloc(n, sizeof *w.loopof);
	w.tstart = xcalloc(n + 1, sizeof *w.tstart);
	w.stack = xcalloc(n, sizeof *w.stack);
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
	free(w.marked);
	free(w.slotdone);
	free(w.loopof);
	free(w.tstart);
	free(w.terms);
	free(w.stack);
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

static FState *
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
	s->need = xcalloc(n, 1);
	s->uses = xcalloc(n, sizeof(uint32_t));
	s->user = xcalloc(n, sizeof(Op *));
	s->ureg = xcalloc(n, sizeof(Region *));
	s->upos = xcalloc(n, sizeof(uint32_t));
	s->home = xcalloc(n, sizeof(Region *));
	s->hpos = xcalloc(n, sizeof(uint32_t));
	s->noinl = xcalloc(n, 1);
	s->inl = xcalloc(n, 1);
	s->weight = xcalloc(n, sizeof(uint16_t));
	s->alias = xcalloc(n, sizeof(Val));
	s->name = xcalloc(n, sizeof(char *));
	needfunc(s);
	for (i = 0; i < f->nparams; i++)
		s->home[f->params[i]] = &f->body;
	useregion(s, &f->body, c);
	aliasregion(s, &f->body);
	inlineregion(s, &f->body);
	/* names: module names, then parameters in order */
	s->names.parent = &e->locals;
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

static void
fsfree(FState *s)
{
	uint32_t i;

	for (i = 0; i <= s->f->nvals; i++)
		free(s->name[i]);
	if (s->retname)
		for (i = 0; i < s->f->nrets; i++)
			free(s->retname[i]);
	free(s->retname);
	free(s->args);
	free(s->need);
	free(s->uses);
	free(s->user);
	free(s->ureg);
	free(s->upos);
	free(s->home);
	free(s->hpos);
	free(s->noinl);
	free(s->inl);
	free(s->weight);
	free(s->alias);
	free(s->name);
	nsfree(&s->names);
	free(s);
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */

/* The variable name of v (assigning one on first use). */
static const char *
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
		char t[32];
		do
			snprintf(t, sizeof t, "t%u", s->ntemp++);
		while (nshas(&s->names, t));
		b = xstrdup(t);
	}
	s->name[v] = uniqname(&s->names, b, NULL, 0);
	nsadd(&s->names, s->name[v]);
	free(b);
	return s->name[v];
}

enum {
	LIT_TYPED = 0,  /* spell the exact C++ type */
	LIT_BARE = 1,   /* converted by the context: a plain literal will do */
};

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
static void
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
			bufprintf(b, "%" PRId64, c.i);
		return;
	case S_U32:
		bufprintf(b, "%" PRIu64 "u", c.u);
		return;
	case S_I8: case S_I16: case S_U8: case S_U16:
		if (mode == LIT_BARE)
			bufprintf(b, "%" PRId64, c.i);
		else
			bufprintf(b, "%s(%" PRId64 ")", ctscalar[s], c.i);
		return;
	case S_I64:
		if (c.i == INT64_MIN)
			bufputs(b, mode == LIT_BARE ? "INT64_MIN" : "kpy::i64(INT64_MIN)");
		else if (mode == LIT_BARE && c.i >= INT32_MIN && c.i <= INT32_MAX)
			bufprintf(b, "%" PRId64, c.i);
		else
			bufprintf(b, "kpy::i64(%" PRId64 "ll)", c.i);
		return;
	case S_U64:
		if (mode == LIT_BARE && c.u <= INT32_MAX)
			bufprintf(b, "%" PRIu64, c.u);
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
		lit1(b, t.s, x->c[0], t.s == S_F16 && mode == LIT_BARE ? LIT_TYPED : mode);
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

static void expr(FState *s, Buf *b, Val v, int mode);

/* Is s wrapped in one pair of parentheses that match each other? */
static bool
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
static void
exprtop(FState *s, Buf *b, Val v, int mode)
{
	Buf t = {0};

	expr(s, &t, v, mode);
	if (t.s && wrapped(t.s, t.n))
		bufwrite(b, t.s + 1, t.n - 2);
	else if (t.s)
		bufwrite(b, t.s, t.n);
	buffree(&t);
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
			Buf t = {0};
			char prev = b->n ? b->s[b->n - 1] : 0;
			if (i >= op->nargs)
				die("template %s: operand %d of %d", tmpl, i, op->nargs);
			char next = p[1];
			expr(s, &t, op->args[i], argmode(s, op, tmpl, i));
			/* T()[i] can read as a declarator: T{}[i] */
			if (t.s && (next == '[' || next == '.') && t.n >= 2 && t.s[t.n - 2] == '(' && t.s[t.n - 1] == ')' &&
			    iszeroctor(s, op->args[i])) {
				t.s[t.n - 2] = '{';
				t.s[t.n - 1] = '}';
			}
			/* an argument or an index needs no parentheses of its own */
			if (t.s && (prev == '(' || prev == '[' || prev == ' ') && (next == ')' || next == ']' || next == ',') &&
			    (prev != ' ' || (b->n > 1 && b->s[b->n - 2] == ',')) && wrapped(t.s, t.n)) {
				memmove(t.s, t.s + 1, t.n - 2);
				t.n -= 2;
				t.s[t.n] = 0;
			}
			if (t.s && (t.s[0] == '-' || t.s[0] == '+') && (prev == '-' || prev == '+' || prev == '~' || prev == '!'))
				bufprintf(b, "(%s)", t.s);
			else if (t.s)
				bufwrite(b, t.s, t.n);
			buffree(&t);
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

	if (!t[0]) {
		snprintf(buf, n, "kpy::%s(%%*)", opinfo[op->code].name);
		return buf;
	}
	if (!(t[0] >= '0' && t[0] <= '9' && t[1] == ':'))
		return t;
	for (alt = t; alt && *alt;) {
		const char *end = strchr(alt, '|');
		size_t len = end ? (size_t)(end - alt) : strlen(alt);
		if (alt[0] >= '0' && alt[0] <= '9' && alt[1] == ':' && alt[0] - '0' == op->nargs) {
			snprintf(buf, n, "%.*s", (int)(len - 2), alt + 2);
			return buf;
		}
		alt = end ? end + 1 : NULL;
	}
	die("no C++ template of %s for %d operands", opinfo[op->code].name, op->nargs);
}

static void
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
static void
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
		expr(s, b, op->args[0], LIT_TYPED);
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
			expr(s, b, op->args[1], argmode(s, op, "(", 1));
			bufputs(b, " : ");
			expr(s, b, op->args[2], argmode(s, op, "(", 2));
			bufputc(b, ')');
			return;
		}
		break;
	}
	tmpl = pickcpp(op, tb, sizeof tb);
	if (op->nres == 1 && smallint(f->vals[op->res[0]].ty) && tmpl[0] == '(' && op->code != OP_WHERE) {
		/* C++ computes 8- and 16-bit arithmetic in int: wrap like Warp */
		Buf t = {0};
		expand(s, &t, op, tmpl);
		ctype1(s->e, b, f->vals[op->res[0]].ty);
		if (t.s && wrapped(t.s, t.n))
			bufwrite(b, t.s, t.n);
		else
			bufprintf(b, "(%s)", t.s ? t.s : "");
		buffree(&t);
		return;
	}
	expand(s, b, op, tmpl);
}

static void
expr(FState *s, Buf *b, Val v, int mode)
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
static void
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

/* ------------------------------------------------------------------ */
/* Statements                                                          */

static void
indent(Buf *b, int d)
{
	int i;

	for (i = 0; i < d; i++)
		bufputs(b, "    ");
}

/* The Python location of a statement: its op's, else the first line among
 * the expressions written into it. */
static Loc
stmtloc(const FState *s, const Op *op, int depth)
{
	Loc best = op->loc, l;
	int j;

	if (best.line || depth > 32)
		return best;
	for (j = 0; j < op->nargs; j++) {
		Val v = op->args[j];
		const Value *x = &s->f->vals[v];
		if (s->inl[v] && x->kind == V_RES && x->def && (l = stmtloc(s, x->def, depth + 1)).line &&
		    (!best.line || l.line < best.line))
			best = l;
	}
	return best;
}

static void
linedir(FState *s, Buf *b, const Op *op)
{
	Loc loc;

	if (!s->linedir || !(loc = stmtloc(s, op, 0)).line ||
	    (loc.line == s->lastline && loc.file == s->lastfile))
		return;
	s->lastline = loc.line;
	s->lastfile = loc.file;
	bufprintf(b, "#line %u ", loc.line);
	emitcstring(b, locsrc(s->m, loc));
	bufputc(b, '\n');
}

/* `T name` for the variable of v. */
static void
declvar(FState *s, Buf *b, Val v)
{
	ctype1(s->e, b, s->f->vals[v].ty);
	bufprintf(b, " %s", vname(s, v));
}

/* `T name{};` (or `T name;` for composites, which construct to zero). */
static void
declzero(FState *s, Buf *b, Val v, int d)
{
	Type t = s->f->vals[v].ty;

	indent(b, d);
	declvar(s, b, v);
	bufputs(b, iscomposite(t) ? ";\n" : "{};\n");
}

static void
declinit(FState *s, Buf *b, Val v, Val init, int d)
{
	indent(b, d);
	declvar(s, b, v);
	bufputs(b, " = ");
	exprtop(s, b, init, LIT_BARE);
	bufputs(b, ";\n");
}

/* Assign srcs[k] to the variables of dsts[k] as one parallel assignment,
 * in order: a source that reads a destination assigned before it is
 * computed into a temporary first. */
static void
passign(FState *s, Buf *b, const Val *dsts, const Val *srcs, int n, int d)
{
	char **tmp = xcalloc(n + 1, sizeof(char *));
	Val *rd = NULL, *done;
	int i, k, nr, cap = 0;
	uint32_t hcap = 16, h;

	/* the destinations assigned so far (their roots): open addressing,
	 * 0 empty, so the whole assignment is linear in what it reads */
	while (hcap < 2u * (uint32_t)n + 2)
		hcap *= 2;
	done = xcalloc(hcap, sizeof *done);
	for (i = 0; i < n; i++) {
		bool clash = false;
		Val dr = root(s, dsts[i]);
		if (root(s, srcs[i]) == dr)
			continue;
		nr = 0;
		reads(s, srcs[i], &rd, &nr, &cap);
		for (k = 0; k < nr && !clash; k++)
			for (h = (rd[k] * 2654435761u) & (hcap - 1); done[h]; h = (h + 1) & (hcap - 1))
				if (done[h] == rd[k]) {
					clash = true;
					break;
				}
		for (h = (dr * 2654435761u) & (hcap - 1); done[h] && done[h] != dr; h = (h + 1) & (hcap - 1))
			;
		done[h] = dr;
		if (clash) {
			char base[300];
			snprintf(base, sizeof base, "%s_next", vname(s, dsts[i]));
			tmp[i] = uniqname(&s->names, base, NULL, 0);
			nsadd(&s->names, tmp[i]);
			indent(b, d);
			ctype1(s->e, b, s->f->vals[dsts[i]].ty);
			bufprintf(b, " %s = ", tmp[i]);
			exprtop(s, b, srcs[i], LIT_BARE);
			bufputs(b, ";\n");
		}
	}
	for (i = 0; i < n; i++) {
		if (root(s, srcs[i]) == root(s, dsts[i]))
			continue;
		indent(b, d);
		bufprintf(b, "%s = ", vname(s, dsts[i]));
		if (tmp[i])
			bufputs(b, tmp[i]);
		else
			exprtop(s, b, srcs[i], LIT_BARE);
		bufputs(b, ";\n");
		free(tmp[i]);
	}
	free(tmp);
	free(rd);
	free(done);
}

static void region(FState *s, Buf *b, const Region *r, int d, Ctx c);

/* Assign the carried slots of loop from args (a yield, break or continue). */
static void
slotassign(FState *s, Buf *b, const Op *loop, const Op *term, int d)
{
	Val *dst = xcalloc(2u * term->nargs + 2, sizeof(Val)), *src = dst + term->nargs + 1;
	int n = 0, k;

	for (k = 0; k < term->nargs && k < nslots(loop); k++)
		if (slotneeded(s, loop, k)) {
			dst[n] = slotparam(loop, k);
			src[n++] = term->args[k];
		}
	passign(s, b, dst, src, n, d);
	free(dst);
}

static void
terminator(FState *s, Buf *b, const Op *op, int d, Ctx c, bool last)
{
	const Func *f = s->f;
	int k;

	switch (op->code) {
	case OP_YIELD:
		if (!c.owner)
			return;
		if (c.owner->code == OP_IF) {
			Val *dst = xcalloc(2u * op->nargs + 2, sizeof(Val)), *src = dst + op->nargs + 1;
			int n = 0;
			for (k = 0; k < op->nargs && k < c.owner->nres; k++)
				if (s->need[c.owner->res[k]]) {
					dst[n] = c.owner->res[k];
					src[n++] = op->args[k];
				}
			passign(s, b, dst, src, n, d);
			free(dst);
		} else if (c.owner->code == OP_WHILE && c.regno == 0) {
			/* the condition: written by the while itself */
		} else {
			slotassign(s, b, c.owner, op, d);
		}
		return;
	case OP_BREAK:
	case OP_CONTINUE:
		linedir(s, b, op);
		if (c.loop)
			slotassign(s, b, c.loop, op, d);
		indent(b, d);
		bufputs(b, op->code == OP_BREAK ? "break;\n" : "continue;\n");
		return;
	case OP_RET:
		linedir(s, b, op);
		if (f->kernel || f->nrets == 0) {
			if (!last) {
				indent(b, d);
				bufputs(b, "return;\n");
			}
		} else if (f->nrets == 1) {
			indent(b, d);
			bufputs(b, "return ");
			exprtop(s, b, op->args[0], LIT_BARE);
			bufputs(b, ";\n");
		} else {
			for (k = 0; k < op->nargs; k++) {
				indent(b, d);
				bufprintf(b, "%s = ", s->retname[k]);
				exprtop(s, b, op->args[k], LIT_BARE);
				bufputs(b, ";\n");
			}
			if (!last) {
				indent(b, d);
				bufputs(b, "return;\n");
			}
		}
		return;
	}
}

/* Does region r write nothing but its terminator's yield (all its ops
 * inlined or dead)? */
static bool
exprregion(const FState *s, const Region *r)
{
	uint32_t i;

	for (i = 0; i + 1 < r->n; i++) {
		const Op *op = r->ops[i];
		if (!oplive(s, op))
			continue;
		if (op->nres == 1 && s->inl[op->res[0]])
			continue;
		return false;
	}
	return r->n > 0 && r->ops[r->n - 1]->code == OP_YIELD;
}

/* The elif shape: the else region is (inlined ops,) one if X, and a
 * yield of X's results in order.  Returns X or NULL. */
static const Op *
elifop(const FState *s, const Op *op)
{
	const Region *r = &op->regs[1];
	const Op *x = NULL, *y;
	uint32_t i;
	int k;

	if (r->n < 2)
		return NULL;
	y = r->ops[r->n - 1];
	for (i = 0; i + 1 < r->n; i++) {
		const Op *o = r->ops[i];
		if (!oplive(s, o) || (o->nres == 1 && s->inl[o->res[0]]))
			continue;
		if (o->code != OP_IF || x)
			return NULL;
		x = o;
	}
	if (!x || y->code != OP_YIELD || x->nres != op->nres || y->nargs != op->nres)
		return NULL;
	for (k = 0; k < op->nres; k++)
		if (y->args[k] != x->res[k] || s->uses[x->res[k]] > 1)
			return NULL;
	return x;
}

static void emitif(FState *s, Buf *b, const Op *op, int d, Ctx c, bool chained);

static void
condexpr(FState *s, Buf *b, Val v, bool negate)
{
	if (!negate) {
		exprtop(s, b, v, LIT_TYPED);
		return;
	}
	Buf t = {0};
	expr(s, &t, v, LIT_TYPED);
	bufputc(b, '!');
	bufputs(b, t.s ? t.s : "");
	buffree(&t);
}

static void
emitif(FState *s, Buf *b, const Op *op, int d, Ctx c, bool chained)
{
	Buf tb = {0}, eb = {0};
	Ctx in = {op, 0, c.loop};
	const Op *elif;
	int k, nneed = 0;

	for (k = 0; k < op->nres; k++)
		if (s->need[op->res[k]])
			nneed++;
	/* r = c ? a : b when both branches are single expressions */
	if (!chained && nneed == 1 && op->nres == 1 && exprregion(s, &op->regs[0]) && exprregion(s, &op->regs[1]) &&
	    op->regs[0].ops[op->regs[0].n - 1]->nargs == 1 && op->regs[1].ops[op->regs[1].n - 1]->nargs == 1) {
		Val a = op->regs[0].ops[op->regs[0].n - 1]->args[0];
		Val e2 = op->regs[1].ops[op->regs[1].n - 1]->args[0];
		indent(b, d);
		declvar(s, b, op->res[0]);
		bufputs(b, " = ");
		expr(s, b, op->args[0], LIT_TYPED);
		bufputs(b, " ? ");
		expr(s, b, a, LIT_BARE);
		bufputs(b, " : ");
		expr(s, b, e2, LIT_BARE);
		bufputs(b, ";\n");
		return;
	}
	if (!chained)
		for (k = 0; k < op->nres; k++)
			if (s->need[op->res[k]] && root(s, op->res[k]) == op->res[k])
				declzero(s, b, op->res[k], d);
	region(s, &tb, &op->regs[0], d + 1, in);
	in.regno = 1;
	if ((elif = elifop(s, op)) != NULL) {
		Buf xb = {0};
		for (k = 0; k < op->nres; k++)
			s->alias[elif->res[k]] = op->res[k];
		emitif(s, &xb, elif, d, in, true);
		if (xb.n) {
			indent(&eb, d);
			bufputs(&eb, "} else ");
			bufwrite(&eb, xb.s, xb.n);
		}
		buffree(&xb);
	} else {
		Buf rb = {0};
		region(s, &rb, &op->regs[1], d + 1, in);
		if (rb.n) {
			indent(&eb, d);
			bufputs(&eb, "} else {\n");
			bufwrite(&eb, rb.s, rb.n);
			indent(&eb, d);
			bufputs(&eb, "}\n");
		}
		buffree(&rb);
	}
	if (!tb.n && !eb.n)
		goto done;
	if (!chained)
		indent(b, d);
	if (!tb.n && eb.n && !elif) {
		/* only an else: negate the condition */
		const char *body = eb.s;
		/* skip the "} else {\n" line */
		body = strchr(body, '\n') + 1;
		bufputs(b, "if (");
		condexpr(s, b, op->args[0], true);
		bufputs(b, ") {\n");
		bufputs(b, body);
		goto done;
	}
	bufputs(b, "if (");
	condexpr(s, b, op->args[0], false);
	bufputs(b, ") {\n");
	if (tb.n)
		bufwrite(b, tb.s, tb.n);
	if (eb.n) {
		bufwrite(b, eb.s, eb.n);
	} else {
		indent(b, d);
		bufputs(b, "}\n");
	}
done:
	buffree(&tb);
	buffree(&eb);
}

/* Declare the carried slots of a loop before it. */
static void
slotdecls(FState *s, Buf *b, const Op *op, int d)
{
	int k;

	for (k = 0; k < nslots(op); k++) {
		Val p = slotparam(op, k);
		if (!slotneeded(s, op, k) || root(s, p) != p)
			continue;
		/* a nameless parameter takes its result's name */
		if (!s->f->vals[p].name && k < op->nres && s->f->vals[op->res[k]].name && !s->name[p]) {
			char *bn = sanitize(s->f->vals[op->res[k]].name, true);
			s->name[p] = uniqname(&s->names, bn, NULL, 0);
			nsadd(&s->names, s->name[p]);
			free(bn);
		}
		declinit(s, b, p, slotinit(op, k), d);
	}
}

static void
emitfor(FState *s, Buf *b, const Op *op, int d, Ctx c)
{
	const Func *f = s->f;
	Val iv = op->params[0], lo = op->args[0], hi = op->args[1], st = op->args[2];
	const char *i;
	Ctx in = {op, 0, op};

	(void)c;
	slotdecls(s, b, op, d);
	i = vname(s, iv);
	indent(b, d);
	bufputs(b, "for (");
	ctype1(s->e, b, f->vals[iv].ty);
	bufprintf(b, " %s = ", i);
	exprtop(s, b, lo, LIT_BARE);
	bufprintf(b, "; ");
	if (isconst(f, st)) {
		const Value *sv = &f->vals[st];
		bool neg = scalarissigned(sv->ty.s) && sv->c[0].i < 0;
		bufprintf(b, "%s %s ", i, neg ? ">" : "<");
		expr(s, b, hi, LIT_BARE);
		if (!neg && sv->c[0].u == 1)
			bufprintf(b, "; ++%s", i);
		else if (neg && sv->c[0].i == -1)
			bufprintf(b, "; --%s", i);
		else if (neg && sv->c[0].i > INT32_MIN) {
			Scal a;
			a.i = -sv->c[0].i;
			bufprintf(b, "; %s -= ", i);
			lit1(b, sv->ty.s, a, LIT_BARE);
		} else {
			bufprintf(b, "; %s += ", i);
			expr(s, b, st, LIT_BARE);
		}
	} else {
		bufputc(b, '(');
		expr(s, b, st, LIT_TYPED);
		bufprintf(b, " > 0 ? %s < ", i);
		expr(s, b, hi, LIT_BARE);
		bufprintf(b, " : %s > ", i);
		expr(s, b, hi, LIT_BARE);
		bufprintf(b, "); %s += ", i);
		expr(s, b, st, LIT_BARE);
	}
	bufputs(b, ") {\n");
	region(s, b, &op->regs[0], d + 1, in);
	indent(b, d);
	bufputs(b, "}\n");
}

static void
emitwhile(FState *s, Buf *b, const Op *op, int d, Ctx c)
{
	const Region *cr = &op->regs[0];
	const Op *cy = cr->n ? cr->ops[cr->n - 1] : NULL;
	Ctx in = {op, 0, op};

	(void)c;
	slotdecls(s, b, op, d);
	indent(b, d);
	if (cy && cy->code == OP_YIELD && cy->nargs == 1 && exprregion(s, cr)) {
		bufputs(b, "while (");
		exprtop(s, b, cy->args[0], LIT_TYPED);
		bufputs(b, ") {\n");
	} else {
		bufputs(b, "while (true) {\n");
		region(s, b, cr, d + 1, in);
		if (cy && cy->code == OP_YIELD && cy->nargs == 1) {
			indent(b, d + 1);
			bufputs(b, "if (");
			condexpr(s, b, cy->args[0], true);
			bufputs(b, ")\n");
			indent(b, d + 2);
			bufputs(b, "break;\n");
		}
	}
	in.regno = 1;
	region(s, b, &op->regs[1], d + 1, in);
	indent(b, d);
	bufputs(b, "}\n");
}

/* Declarations for the results of a multi-result op (or a call), then
 * the statement that fills them. */
static void
multires(FState *s, Buf *b, const Op *op, int d, const char *fn, int first, int nres)
{
	int k;

	for (k = 0; k < nres; k++)
		if (root(s, op->res[k]) == op->res[k])
			declzero(s, b, op->res[k], d);
	indent(b, d);
	bufprintf(b, "%s(", fn);
	callargs(s, b, op, first);
	for (k = 0; k < nres; k++)
		bufprintf(b, "%s%s", op->nargs > first || k ? ", " : "", vname(s, op->res[k]));
	bufputs(b, ");\n");
}

static void
randop(FState *s, Buf *b, const Op *op, int d)
{
	Val st = op->res[op->nres - 1], val = op->nres > 1 ? op->res[0] : 0;
	int k;

	if (root(s, st) != root(s, op->args[0])) {
		/* the old state is read again later: copy it */
		declinit(s, b, st, op->args[0], d);
	}
	indent(b, d);
	if (val && s->need[val]) {
		declvar(s, b, val);
		bufputs(b, " = ");
	}
	bufprintf(b, "kpy::%s(%s", opinfo[op->code].name, vname(s, st));
	for (k = 1; k < op->nargs; k++) {
		bufputs(b, ", ");
		exprtop(s, b, op->args[k], LIT_TYPED);
	}
	bufputs(b, ");\n");
}

static void
statement(FState *s, Buf *b, const Op *op, int d, Ctx c, bool last)
{
	const Func *f = s->f;
	Val v = op->nres ? op->res[0] : 0;
	int k;

	if (!oplive(s, op))
		return;
	if (op->nres == 1 && s->inl[v])
		return;
	if (opinfo[op->code].flags & F_TERM) {
		terminator(s, b, op, d, c, last);
		return;
	}
	linedir(s, b, op);
	switch (op->code) {
	case OP_IF:
		emitif(s, b, op, d, c, false);
		return;
	case OP_FOR:
		emitfor(s, b, op, d, c);
		return;
	case OP_WHILE:
		emitwhile(s, b, op, d, c);
		return;
	case OP_TID: {
		/* kcuda: the launch index and extents are non-negative, so the
		 * unravelling is unsigned (no signed 64-bit division), and each
		 * coordinate is a non-negative i32 (Warp limits every extent to
		 * 2^31 - 1): __builtin_assume tells nvcc, so that indexing by it
		 * needs no wrap-around of negative indices (kptx tells LLVM the
		 * same).  kcpu's text is unchanged. */
		bool cu = s->e->o.cuda;
		const char *task = cu ? "(uint64_t)task" : "task", *ext = cu ? "(uint64_t)(uint32_t)" : "(int64_t)";
		for (k = 0; k < op->nres; k++) {
			if (!s->need[op->res[k]])
				continue;
			indent(b, d);
			declvar(s, b, op->res[k]);
			if (op->nres == 1)
				bufputs(b, " = kpy::i32(task);\n");
			else if (k == 0) {
				int j;
				bufprintf(b, " = kpy::i32(%s / (", task);
				for (j = 1; j < op->nres; j++)
					bufprintf(b, "%s%sbounds.shape[%d]", j > 1 ? " * " : "", ext, j);
				bufputs(b, "));\n");
			} else if (k == op->nres - 1) {
				bufprintf(b, " = kpy::i32(%s %% %sbounds.shape[%d]);\n", task, cu ? "(uint32_t)" : "", k);
			} else {
				int j;
				bufprintf(b, " = kpy::i32(%s / (", task);
				for (j = k + 1; j < op->nres; j++)
					bufprintf(b, "%s%sbounds.shape[%d]", j > k + 1 ? " * " : "", ext, j);
				bufprintf(b, ") %% %sbounds.shape[%d]);\n", cu ? "(uint32_t)" : "", k);
			}
			if (cu) {
				indent(b, d);
				bufprintf(b, "__builtin_assume(%s >= 0);\n", vname(s, op->res[k]));
			}
		}
		return;
	}
	case OP_CALL: {
		const char *fn = s->e->fname[op->attr];
		if (op->nres > 1) {
			multires(s, b, op, d, fn, 0, op->nres);
			return;
		}
		indent(b, d);
		if (op->nres == 1 && s->need[v]) {
			declvar(s, b, v);
			bufputs(b, " = ");
		}
		opexpr(s, b, op);
		bufputs(b, ";\n");
		return;
	}
	case OP_QUAT_TO_AXIS_ANGLE:
		multires(s, b, op, d, "kpy::quat_to_axis_angle", 0, op->nres);
		return;
	case OP_TRANSFORM_DECOMPOSE:
	case OP_SVD3: case OP_SVD2: case OP_QR3: case OP_EIG3: {
		/* results through out-parameters: kpy::NAME(x, r0&, r1&...) */
		char fn[64];
		snprintf(fn, sizeof fn, "kpy::%s", opinfo[op->code].name);
		multires(s, b, op, d, fn, 0, op->nres);
		return;
	}
	case OP_STORE:
		indent(b, d);
		bufputs(b, "kpy::store(");
		for (k = 0; k < op->nargs; k++) {
			if (k)
				bufputs(b, ", ");
			exprtop(s, b, op->args[k], LIT_TYPED);
		}
		bufputs(b, ");\n");
		return;
	case OP_ATOMIC_ADD: case OP_ATOMIC_SUB: case OP_ATOMIC_MIN: case OP_ATOMIC_MAX:
	case OP_ATOMIC_AND: case OP_ATOMIC_OR: case OP_ATOMIC_XOR: case OP_ATOMIC_EXCH:
	case OP_ATOMIC_CAS:
		indent(b, d);
		if (op->nres == 1 && s->need[v]) {
			declvar(s, b, v);
			bufputs(b, " = ");
		}
		bufprintf(b, "kpy::%s(", opinfo[op->code].name);
		callargs(s, b, op, 0);
		bufputs(b, ");\n");
		return;
	case OP_PRINT:
		indent(b, d);
		bufputs(b, "kpy::print(");
		exprtop(s, b, op->args[0], LIT_TYPED);
		bufputs(b, ");\n");
		return;
	case OP_PRINTF:
		indent(b, d);
		bufputs(b, "printf(");
		for (k = 0; k < op->nargs; k++) {
			Type t = f->vals[op->args[k]].ty;
			if (k)
				bufputs(b, ", ");
			/* varargs: f16 and f32 (float or double) travel as double */
			if (t.k == T_SCALAR && (t.s == S_F16 || t.s == S_F32)) {
				bufputs(b, "double(");
				exprtop(s, b, op->args[k], LIT_TYPED);
				bufputc(b, ')');
			} else {
				exprtop(s, b, op->args[k], LIT_TYPED);
			}
		}
		bufputs(b, ");\n");
		return;
	case OP_ASSERT:
		indent(b, d);
		bufputs(b, "KPY_ASSERT(");
		exprtop(s, b, op->args[0], LIT_TYPED);
		bufputs(b, ");\n");
		return;
	case OP_INSERT:
		if (root(s, v) == root(s, op->args[0])) {
			Type t = f->vals[v].ty;
			indent(b, d);
			if (t.k == T_VEC || t.k == T_MAT || t.k == T_QUAT || t.k == T_XFORM) {
				bufputs(b, vname(s, v));
				for (k = 1; k + 1 < op->nargs; k++) {
					bufputc(b, '[');
					exprtop(s, b, op->args[k], LIT_TYPED);
					bufputc(b, ']');
				}
				bufputs(b, " = ");
				exprtop(s, b, op->args[op->nargs - 1], LIT_BARE);
				bufputs(b, ";\n");
			}
			return;
		}
		break;
	case OP_SETFIELD:
		if (root(s, v) != root(s, op->args[0]))
			declinit(s, b, v, op->args[0], d);
		indent(b, d);
		bufprintf(b, "%s.%s = ", vname(s, v), s->e->field[f->vals[op->args[0]].ty.sid][op->attr]);
		exprtop(s, b, op->args[1], LIT_BARE);
		bufputs(b, ";\n");
		return;
	default:
		if (opinfo[op->code].flags & F_RAND) {
			randop(s, b, op, d);
			return;
		}
		break;
	}
	if (op->nres != 1)
		die("no C++ for %s with %d results", opinfo[op->code].name, op->nres);
	indent(b, d);
	declvar(s, b, v);
	bufputs(b, " = ");
	{
		Buf t = {0};
		opexpr(s, &t, op);
		if (t.s && wrapped(t.s, t.n))
			bufwrite(b, t.s + 1, t.n - 2);
		else if (t.s)
			bufwrite(b, t.s, t.n);
		buffree(&t);
	}
	bufputs(b, ";\n");
}

static void
region(FState *s, Buf *b, const Region *r, int d, Ctx c)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		statement(s, b, r->ops[i], d, c, d == 1 && !c.owner && i + 1 == r->n);
}

/* ------------------------------------------------------------------ */
/* Functions                                                           */

static const char *
qual(const Emit *e)
{
	return e->o.cuda ? "static inline __device__" : "static inline";
}

static void
param(FState *s, Buf *b, Val v)
{
	declvar(s, b, v);
	if (!s->need[v]) {
		/* unused: keep the name as a comment */
		size_t n = strlen(s->name[v]);
		b->n -= n;
		b->s[b->n] = 0;
		bufprintf(b, "/*%s*/", s->name[v]);
	}
}

static void
body(FState *s, Buf *b)
{
	Ctx c = {0};

	s->linedir = s->e->o.linedirs && s->m->nsrcs > 0;
	s->lastline = 0;
	s->lastfile = 0;
	region(s, b, &s->f->body, 1, c);
}

static void
emitfunc(Emit *e, Buf *b, int fi, bool proto)
{
	FState *s = fstate(e, fi);
	const Func *f = s->f;
	uint32_t i;

	/* clang and nvcc warn about a static function nothing calls */
	bufprintf(b, "%s%s ", !e->reached[fi] ? "[[maybe_unused]] " : "", qual(e));
	if (f->nrets == 1)
		ctype1(e, b, f->rets[0]);
	else
		bufputs(b, "void");
	bufprintf(b, " %s(", e->fname[fi]);
	for (i = 0; i < f->nparams; i++) {
		if (i)
			bufputs(b, ", ");
		param(s, b, f->params[i]);
	}
	if (f->nrets > 1)
		for (i = 0; i < f->nrets; i++) {
			if (i || f->nparams)
				bufputs(b, ", ");
			ctype1(e, b, f->rets[i]);
			bufprintf(b, " &%s", s->retname[i]);
		}
	bufputc(b, ')');
	if (proto) {
		bufputs(b, ";\n");
		return;
	}
	bufputs(b, "\n{\n");
	body(s, b);
	bufputs(b, "}\n");
}

void
emitkernel(Emit *e, Buf *b, int fi)
{
	FState *s = fstate(e, fi);
	const Func *f = s->f;
	uint32_t i;
	int td = e->tiddims[fi];
	bool usetask = false;

	/* is the thread index read at all? */
	for (i = 1; i < f->nvals; i++)
		if (f->vals[i].kind == V_RES && f->vals[i].def && f->vals[i].def->code == OP_TID && s->need[i])
			usetask = true;
	bufprintf(b, "%s void %s_kernel(const kpy::launch_bounds &%s, int64_t %s", qual(e), e->fname[fi],
	          usetask && td > 1 ? "bounds" : "/*bounds*/", usetask ? "task" : "/*task*/");
	for (i = 0; i < f->nparams; i++) {
		bufputs(b, ", ");
		param(s, b, f->params[i]);
	}
	bufputs(b, ")\n{\n");
	body(s, b);
	bufputs(b, "}\n");
}

/* DFS post-order over the call graph: callees first. */
static void order(const Module *m, int fi, uint8_t *state, int *out, int *n, bool *cycle);

static void
ordercalls(const Module *m, const Region *r, uint8_t *state, int *out, int *n, bool *cycle)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		if (op->code == OP_CALL && op->attr >= 0 && !m->funcs[op->attr]->kernel)
			order(m, op->attr, state, out, n, cycle);
		for (j = 0; j < op->nregs; j++)
			ordercalls(m, &op->regs[j], state, out, n, cycle);
	}
}

static void
order(const Module *m, int fi, uint8_t *state, int *out, int *n, bool *cycle)
{
	if (state[fi] == 2)
		return;
	if (state[fi] == 1) {
		*cycle = true;
		return;
	}
	state[fi] = 1;
	ordercalls(m, &m->funcs[fi]->body, state, out, n, cycle);
	state[fi] = 2;
	out[(*n)++] = fi;
}

static const char *const famheader[] = {
	"core", "vec", "mat", "quat", "transform", "spatial", "decomp", "array", "atomic", "rand", "noise", "print",
};

void
emitprologue(Emit *e, Buf *b, const char *extra)
{
	const Module *m = e->m;
	uint32_t i, j;
	int *ord, n = 0;
	uint8_t *st;
	bool cycle = false;

	bufprintf(b, "// Generated by %s (kpy) %s", e->o.tool ? e->o.tool : "kpy", KPY_VERSION);
	if (m->nsrcs) {
		bufputs(b, " from ");
		for (i = 0; i < m->nsrcs; i++)
			bufprintf(b, "%s%s", i ? ", " : "", m->srcs[i]);
	}
	bufputs(b, ". Do not edit.\n");
	for (i = 0; i < countof(famheader); i++)
		if (e->fam & (1u << i)) {
			/* a family's header includes the ones it builds on */
			bufprintf(b, "#include \"kpy/%s.h\"\n", famheader[i]);
		}
	if (extra)
		bufputs(b, extra);
	if (e->asserts)
		bufputs(b, "\n// Shim: kpy/core.h's release KPY_ASSERT drops its condition, and with it\n"
		           "// the only use of a variable; keep the variables used (-Wunused).\n"
		           "#if !defined(KPY_DEBUG)\n#undef KPY_ASSERT\n#define KPY_ASSERT(cond) ((void)sizeof(cond))\n#endif\n");
	for (i = 0; i < m->nstructs; i++) {
		const StructDef *sd = &m->structs[i];
		bufprintf(b, "\nstruct %s {\n", e->sname[i]);
		for (j = 0; j < sd->nfields; j++) {
			bufputs(b, "    ");
			ctype1(e, b, sd->fields[j].ty);
			bufprintf(b, " %s;\n", e->field[i][j]);
		}
		bufputs(b, "};\n");
	}
	ord = xcalloc(m->nfuncs + 1, sizeof(int));
	st = xcalloc(m->nfuncs + 1, 1);
	for (i = 0; i < m->nfuncs; i++)
		if (!m->funcs[i]->kernel)
			order(m, (int)i, st, ord, &n, &cycle);
	if (cycle) {
		/* recursion (which Warp rejects): declare everything first */
		bufputc(b, '\n');
		for (i = 0; i < m->nfuncs; i++)
			if (!m->funcs[i]->kernel)
				emitfunc(e, b, (int)i, true);
	}
	for (j = 0; j < (uint32_t)n; j++) {
		bufputc(b, '\n');
		emitfunc(e, b, ord[j], false);
	}
	free(ord);
	free(st);
}
