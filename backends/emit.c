/*
 * emit.c — kir to readable C++: the one statement and expression emitter
 * of kcpu and kcuda (see emit.h for the naming and inlining rules).  This
 * file holds its module level: C++ types, the module analysis, and whole
 * functions, kernels and the prologue; emit_live.c analyses a function
 * before it is written, emit_expr.c and emit_stmt.c write it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit_impl.h"

/* ------------------------------------------------------------------ */
/* Types                                                               */

const char *const ctscalar[NSCALAR] = {
	"bool", "kpy::i8", "kpy::i16", "kpy::i32", "kpy::i64", "kpy::u8", "kpy::u16", "kpy::u32",
	"kpy::u64", "kpy::f16", "kpy::f32", "kpy::f64", "kpy::bf16",
};

/* Warp's type-name suffixes (vec3f, vec3ui ...); NULL: none. */
static const char *const vsuffix[NSCALAR] = {
	NULL, "b", "s", "i", "l", "ub", "us", "ui", "ul", "h", "f", "d", NULL,
};

void
ctype1(const Emit *e, Buf *b, Type t)
{
	switch (t.k) {
	case T_SCALAR:
		bufputs(b, ctscalar[t.s]);
		return;
	case T_VEC:
		if (t.n >= 2 && t.n <= 4 && vsuffix[t.s]) {
			bufputs(b, "kpy::vec");
			bufputc(b, '0' + t.n);
			bufputs(b, vsuffix[t.s]);
		} else
			bufprintf(b, "kpy::vec_t<%d, %s>", t.n, ctscalar[t.s]);
		return;
	case T_MAT:
		if (t.n == t.m && t.n >= 2 && t.n <= 4 && vsuffix[t.s] && scalarisfloat(t.s)) {
			bufputs(b, "kpy::mat");
			bufputc(b, '0' + t.n);
			bufputc(b, '0' + t.m);
			bufputs(b, vsuffix[t.s]);
		} else
			bufprintf(b, "kpy::mat_t<%d, %d, %s>", t.n, t.m, ctscalar[t.s]);
		return;
	case T_QUAT:
		if (vsuffix[t.s] && scalarisfloat(t.s)) {
			bufputs(b, "kpy::quat");
			bufputs(b, vsuffix[t.s]);
		} else
			bufprintf(b, "kpy::quat_t<%s>", ctscalar[t.s]);
		return;
	case T_XFORM:
		if (vsuffix[t.s] && scalarisfloat(t.s)) {
			bufputs(b, "kpy::transform");
			bufputs(b, vsuffix[t.s]);
		} else
			bufprintf(b, "kpy::transform_t<%s>", ctscalar[t.s]);
		return;
	case T_STRUCT:
		bufputs(b, t.sid < e->m->nstructs ? e->sname[t.sid] : "void");
		return;
	case T_ARRAY:
		bufputs(b, "kpy::array_t<");
		ctype1(e, b, telem(t));
		bufputs(b, ", ");
		bufputi(b, t.nd);
		bufputc(b, '>');
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

/* The header families an op needs beyond its types (its ops.def family). */
static unsigned
opfam(int code)
{
	switch (opfamily(code)) {
	case OF_VEC: return FAM_VEC;
	case OF_MAT: return FAM_MAT;
	case OF_QUAT: return FAM_QUAT;
	case OF_TRANSFORM: return FAM_TRANSFORM;
	case OF_SPATIAL: return FAM_SPATIAL;
	case OF_DECOMP: return FAM_DECOMP;
	case OF_ARRAY: return FAM_ARRAY;
	case OF_ATOMIC: return FAM_ATOMIC | FAM_ARRAY;
	case OF_RAND: return FAM_RAND;
	case OF_NOISE: return FAM_NOISE;
	case OF_PRINT: return FAM_PRINT;
	default: return 0;
	}
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
		/* a constant the ops no longer use (kir text has none) adds none */
		for (j = 0; j < op->nargs; j++)
			if (f->vals[op->args[j]].kind == V_CONST)
				e->fam |= typefam(f->vals[op->args[j]].ty);
		for (j = 0; j < op->nregs; j++)
			famregion(e, f, &op->regs[j]);
	}
}

/* Does region r write memory or print (directly or through calls)? */
bool
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

/* The names no identifier may take (ops false: the reserved words; true:
 * those and the module-level ones), built on the first call and read only
 * after: the parents of every emitter's name sets, not copied into each
 * set of each module (a process that emits many modules, kpyc --emit, pays
 * once).  Not thread-safe on the first call. */
static const NameSet *
reservednames(bool ops)
{
	static NameSet words, modlevel;
	static bool built;
	uint32_t i;

	if (!built) {
		for (i = 0; i < countof(reserved); i++)
			nsadd(&words, reserved[i]);
		modlevel.parent = &words;
		/* every op name is a kpy:: function; a user function of that
		 * name would be found by argument-dependent lookup next to it */
		for (i = 0; i < NOPS; i++)
			nsadd(&modlevel, opinfo[i].name);
		nsadd(&modlevel, "load");
		nsadd(&modlevel, "store");
		nsadd(&modlevel, "address");
		nsadd(&modlevel, "view");
		nsadd(&modlevel, "shape");
		nsadd(&modlevel, "unravel");
		nsadd(&modlevel, "array_t");
		built = true;
	}
	return ops ? &modlevel : &words;
}

Emit *
emitnew(const Module *m, const EmitOpts *o)
{
	Emit *e = xcalloc(1, sizeof *e);
	uint32_t i, j;
	bool changed;

	e->m = m;
	e->o = *o;
	e->names = arena_new();
	nsinit(&e->global, reservednames(true), e->names);
	nsinit(&e->locals, reservednames(false), e->names);
	e->sname = xcalloc(m->nstructs + 1, sizeof(char *));
	e->field = xcalloc(m->nstructs + 1, sizeof(char **));
	for (i = 0; i < m->nstructs; i++) {
		const StructDef *sd = &m->structs[i];
		NameSet fs;
		char *b = sanitize(sd->name, false);
		e->sname[i] = uniqname(&e->global, b, NULL, 0);
		nsadd(&e->global, e->sname[i]);
		nsadd(&e->locals, e->sname[i]);
		free(b);
		nsinit(&fs, reservednames(false), e->names);
		e->field[i] = xcalloc(sd->nfields + 1, sizeof(char *));
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
		famregion(e, f, &f->body); /* and the constants the ops use */
	}
	for (i = 0; i < m->nstructs; i++)
		for (j = 0; j < m->structs[i].nfields; j++)
			e->fam |= typefam(m->structs[i].fields[j].ty);
	e->fs = xcalloc(m->nfuncs + 1, sizeof(FState *));
	return e;
}

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
	arena_free(e->names);
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
