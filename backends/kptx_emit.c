/*
 * kptx_emit.c — low kir to an LLVM module, almost op for op.
 *
 * Values.  A kir scalar is an SSA register: bool i1, iN/uN iN, f16 half, bf16 bfloat,
 * f32 float, f64 double (in memory a bool is one byte).  An array is the
 * first-class struct { ptr data, [nd x i32] shape, [nd x i64] strides }
 * (kpy::array_t's layout, byte strides); views and member views build new
 * ones, and LLVM's SROA takes them apart.  A composite or struct kernel
 * parameter is a pointer to its bytes; `extract` and `field` (the only ops
 * low kir applies to one) load from it.
 *
 * Control flow.  Regions become blocks: `if` a conditional branch to a then
 * and an else block meeting in a merge block whose phis are the results;
 * `for` a header (phis of the index and carried values, the test
 * lo < hi, or > for a negative step), the body, a latch that adds the step,
 * and an exit whose phis are the results (from the header's test and from
 * every break); `while` the same with the condition region as the header.
 * `yield` and `continue` branch to the merge block, latch or condition,
 * `break` to the exit, `ret` returns.  Phis left without predecessors (a
 * merge no branch reaches) are replaced by poison.
 *
 * Ops.  Arithmetic, comparisons and math are read from the `llvm` column
 * of ir/ops.def (see its header): an instruction, a comparison, an LLVM
 * intrinsic overloaded on the operand type, or a libdevice function
 * (`__nv_sinf`) — on the host the C library's (`sinf`).  f16 math calls go
 * through f32.  Memory, casts, tid, calls, printf and the parameter reads
 * are written here by hand.  `assert` compiles to nothing (Warp's release
 * builds define NDEBUG).
 *
 * Functions.  A @wp.func is an internal function (several results: a
 * struct); a kernel's body is an internal function
 *   void @kir.K(ptr bounds, i64 task, params...)
 * run once per launch index, which kptx_abi.c wraps in entry points.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kpy/abi.h"
#include "kptx.h"

#include <llvm-c/Analysis.h>

typedef struct Loop Loop;

/* Where the terminators of the region being emitted go. */
typedef struct Dest {
	int kind;                /* D_* */
	LLVMBasicBlockRef bb;    /* merge block, latch, or condition block */
	LLVMValueRef *phis;      /* its phis, one per yielded value */
	int nphis;
	Loop *loop;              /* D_COND: the while loop */
} Dest;

enum { D_FUNC, D_IF, D_BODY, D_COND };

struct Loop {
	Loop *up;
	LLVMBasicBlockRef cont;  /* continue: the latch (for) or condition (while) */
	LLVMValueRef *contphis;  /* its phis for the carried values */
	LLVMBasicBlockRef exit;
	LLVMValueRef *exitphis;  /* the loop's results */
	int ncar;
};

struct Kx {
	Module *m;
	const KptxOpts *o;
	LLVMContextRef c;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMTargetDataRef td;
	bool host;
	LLVMValueRef *fn;        /* per kir function: its LLVM function */
	LLVMTypeRef *fnty;
	int nerr;
	/* the function being emitted */
	const Func *f;
	LLVMValueRef llf;
	LLVMValueRef *v;         /* per Val */
	Val *mbase;              /* per Val: a member view's underlying array (not a view), or 0 */
	LLVMValueRef *moff;      /* per Val: that member view's byte offset (i64) */
	LLVMValueRef bounds, task;
	Loop *loop;
	LLVMValueRef *phis;      /* every phi made in this function (cleanup) */
	uint32_t nphis, capphis;
	LLVMBasicBlockRef entry; /* for allocas */
	const Op *cur;           /* op being emitted (diagnostics) */
	/* types */
	LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, ptr, voidt, boundst;
	LLVMTypeRef arrt[MAXDIM + 1];
};

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */

static void
vreport(Diag *d, const Src *src, const Module *m, const Func *f, const Op *op, const char *fmt, va_list ap)
{
	Buf b = {0};
	Src py = {0};

	bufvprintf(&b, fmt, ap);
	py.name = locsrc(m, op ? op->loc : (Loc){0});
	if (op && op->kloc.line)
		diagerr(d, src, op->kloc, "in @%s: %s", f->name, b.s);
	else if (op && op->loc.line)
		diagerr(d, &py, op->loc, "in @%s: %s", f->name, b.s);
	else if (f && f->kloc.line)
		diagerr(d, src, f->kloc, "in @%s: %s", f->name, b.s);
	else
		diagerr(d, src, (Loc){1, 1, 0}, "%s%s%s", f ? "in @" : "", f ? f->name : "", b.s);
	buffree(&b);
}

void
kxerror(Kx *x, const Func *f, const Op *op, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(x->o->d, x->o->src, x->m, f, op, fmt, ap);
	va_end(ap);
	x->nerr++;
}

/* ------------------------------------------------------------------ */
/* Low kir                                                              */

static bool
flat(Type t)
{
	return t.k == T_SCALAR || t.k == T_ARRAY || t.k == T_STR;
}

/* A composite or struct value a kernel may read: a parameter, or a field
 * of one. */
static bool
paramagg(const Func *f, Val v)
{
	const Value *x = &f->vals[v];

	if (x->kind == V_ARG)
		return f->kernel;
	if (x->kind == V_RES && x->def && x->def->code == OP_LOAD)
		return x->ty.k == T_STRUCT; /* a struct element holding arrays */
	return x->kind == V_RES && x->def && x->def->code == OP_FIELD && paramagg(f, x->def->args[0]);
}

typedef struct LC {
	const Module *m;
	const KptxOpts *o;
	const Func *f;
	int n;
} LC;

static void
lcerr(LC *c, const Op *op, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(c->o->d, c->o->src, c->m, c->f, op, fmt, ap);
	va_end(ap);
	c->n++;
}

static void
lcregion(LC *c, const Region *r)
{
	uint32_t i;
	int j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		const OpInfo *oi = &opinfo[op->code];
		bool agg = op->code == OP_FIELD || op->code == OP_EXTRACT;
		if (!(oi->flags & F_LOW)) {
			lcerr(c, op, "'%s' is not low kir (lower the module first: kopt -p scalarize)", oi->name);
			continue;
		}
		for (j = 0; j < op->nargs; j++) {
			Val a = op->args[j];
			Type t = c->f->vals[a].ty;
			if (flat(t))
				continue;
			if (agg && j == 0 && paramagg(c->f, a))
				continue;
			lcerr(c, op, "'%s' of a %s value is not low kir (lower the module first: kopt -p scalarize)",
			      oi->name, typestr(c->m, t));
			break;
		}
		for (j = 0; j < op->nres; j++)
			if (!flat(c->f->vals[op->res[j]].ty) &&
			    !((op->code == OP_FIELD || op->code == OP_LOAD) && paramagg(c->f, op->res[j]))) {
				lcerr(c, op, "'%s' yields a %s value: not low kir (lower the module first: kopt -p scalarize)",
				      oi->name, typestr(c->m, c->f->vals[op->res[j]].ty));
				break;
			}
		for (j = 0; j < op->nparams; j++)
			if (!flat(c->f->vals[op->params[j]].ty))
				lcerr(c, op, "a %s loop-carried value is not low kir", typestr(c->m, c->f->vals[op->params[j]].ty));
		for (j = 0; j < op->nregs; j++)
			lcregion(c, &op->regs[j]);
	}
}

int
kptxlowcheck(const Module *m, const KptxOpts *o)
{
	LC c = {0};
	uint32_t i, j;

	c.m = m;
	c.o = o;
	for (i = 0; i < m->nfuncs; i++) {
		c.f = m->funcs[i];
		if (!c.f->kernel) {
			for (j = 0; j < c.f->nparams; j++)
				if (!flat(c.f->vals[c.f->params[j]].ty))
					lcerr(&c, NULL, "parameter %u is a %s: not low kir (lower the module first: kopt -p scalarize)",
					      j + 1, typestr(m, c.f->vals[c.f->params[j]].ty));
			for (j = 0; j < c.f->nrets; j++)
				if (!flat(c.f->rets[j]))
					lcerr(&c, NULL, "result %u is a %s: not low kir (lower the module first: kopt -p scalarize)",
					      j + 1, typestr(m, c.f->rets[j]));
		}
		if (!isrtstub(c.f)) /* its body is the runtime's (kptx_rt.bc) */
			lcregion(&c, &c.f->body);
	}
	return c.n;
}

/* ------------------------------------------------------------------ */
/* Types                                                                */

static LLVMTypeRef
scalartype(Kx *x, int s)
{
	switch (s) {
	case S_BOOL: return x->i1;
	case S_I8: case S_U8: return x->i8;
	case S_I16: case S_U16: return x->i16;
	case S_I32: case S_U32: return x->i32;
	case S_I64: case S_U64: return x->i64;
	case S_F16: return x->f16;
	case S_BF16:
		return x->bf16;
	case S_F32: return x->f32;
	default: return x->f64;
	}
}

LLVMTypeRef
kxarraytype(Kx *x, int nd)
{
	if (!x->arrt[nd]) {
		LLVMTypeRef el[3];
		el[0] = x->ptr;
		el[1] = LLVMArrayType2(x->i32, (uint64_t)nd);
		el[2] = LLVMArrayType2(x->i64, (uint64_t)nd);
		x->arrt[nd] = LLVMStructTypeInContext(x->c, el, 3, 0);
	}
	return x->arrt[nd];
}

LLVMTypeRef
kxvaltype(Kx *x, Type t)
{
	switch (t.k) {
	case T_SCALAR: return scalartype(x, t.s);
	case T_ARRAY: return kxarraytype(x, t.nd);
	default: return x->ptr; /* composite/struct parameters, strings */
	}
}

LLVMTypeRef
kxmemtype(Kx *x, Type t)
{
	if (t.k == T_SCALAR && t.s == S_BOOL)
		return x->i8;
	return kxvaltype(x, t);
}

LLVMTypeRef kxboundstype(Kx *x) { return x->boundst; }
LLVMContextRef kxcontext(Kx *x) { return x->c; }
LLVMModuleRef kxmodule(Kx *x) { return x->mod; }
const Module *kxkir(Kx *x) { return x->m; }
LLVMValueRef kxbody(Kx *x, int fi) { return x->fn[fi]; }
LLVMTypeRef kxbodytype(Kx *x, int fi) { return x->fnty[fi]; }

static LLVMValueRef ci32(Kx *x, int64_t v) { return LLVMConstInt(x->i32, (unsigned long long)v, 1); }
static LLVMValueRef ci64(Kx *x, int64_t v) { return LLVMConstInt(x->i64, (unsigned long long)v, 1); }

/* ------------------------------------------------------------------ */
/* Values                                                               */

static LLVMValueRef
strconst(Kx *x, const char *s)
{
	size_t n = strlen(s);
	LLVMValueRef init = LLVMConstStringInContext(x->c, s, (unsigned)n, 0);
	unsigned as = x->host ? 0 : 4;
	LLVMValueRef g = LLVMAddGlobalInAddressSpace(x->mod, LLVMTypeOf(init), "kpy.str", as);

	LLVMSetInitializer(g, init);
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
	LLVMSetAlignment(g, 1);
	if (as)
		return LLVMConstAddrSpaceCast(g, x->ptr);
	return g;
}

static LLVMValueRef
constval(Kx *x, Val v)
{
	const Value *c = &x->f->vals[v];
	Type t = c->ty;

	if (t.k == T_STR)
		return strconst(x, c->c[0].u < x->m->nstrs ? x->m->strs[c->c[0].u] : "");
	if (t.k != T_SCALAR)
		return NULL;
	if (scalarisfloat(t.s))
		return LLVMConstReal(scalartype(x, t.s), c->c[0].f);
	if (t.s == S_BOOL)
		return LLVMConstInt(x->i1, c->c[0].i != 0, 0);
	return LLVMConstInt(scalartype(x, t.s), c->c[0].u, 0);
}

static LLVMValueRef
lv(Kx *x, Val v)
{
	if (x->f->vals[v].kind == V_CONST) {
		LLVMValueRef c = constval(x, v);
		if (!c) {
			kxerror(x, x->f, x->cur, "a %s constant is not low kir", typestr(x->m, x->f->vals[v].ty));
			return LLVMGetPoison(x->i32);
		}
		return c;
	}
	if (!x->v[v])
		die("kptx: value %u of @%s has no LLVM value", v, x->f->name);
	return x->v[v];
}

static Type
ty(Kx *x, Val v)
{
	return x->f->vals[v].ty;
}

/* ------------------------------------------------------------------ */
/* The llvm column                                                      */

/* The spec for operand kind k ('f', 'i', 'u', 'b') of op code, or NULL;
 * its length in *len. */
static const char *
spec(int code, char k, size_t *len)
{
	const char *s = opinfo[code].llvm;

	while (*s) {
		const char *e;
		while (*s == ' ')
			s++;
		e = s;
		while (*e && *e != ' ')
			e++;
		if (e - s > 2 && s[1] == ':' && (s[0] == k || s[0] == '*')) {
			*len = (size_t)(e - s - 2);
			return s + 2;
		}
		s = e;
	}
	return NULL;
}

static char
kindof(Type t)
{
	if (t.s == S_BOOL)
		return 'b';
	if (scalarisfloat(t.s))
		return 'f';
	return scalarissigned(t.s) ? 'i' : 'u';
}

static bool
is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(s, w, n) == 0;
}

static LLVMValueRef
contract(Kx *x, LLVMValueRef v)
{
	if (x->o->fmad && LLVMIsAInstruction(v) && LLVMCanValueUseFastMathFlags(v))
		LLVMSetFastMathFlags(v, LLVMFastMathAllowContract);
	return v;
}

/* An overloaded intrinsic on type t. */
static LLVMValueRef
intrinsic(Kx *x, const char *name, size_t n, LLVMTypeRef t, LLVMTypeRef *fty)
{
	unsigned id = LLVMLookupIntrinsicID(name, n);
	LLVMValueRef f;

	if (!id)
		die("kptx: no intrinsic %.*s", (int)n, name);
	f = LLVMGetIntrinsicDeclaration(x->mod, id, &t, 1);
	*fty = LLVMIntrinsicGetType(x->c, id, &t, 1);
	return f;
}

/* A non-overloaded intrinsic. */
static LLVMValueRef
intrinsicn(Kx *x, const char *name, LLVMTypeRef *fty)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));

	if (!id)
		die("kptx: no intrinsic %s", name);
	*fty = LLVMIntrinsicGetType(x->c, id, NULL, 0);
	return LLVMGetIntrinsicDeclaration(x->mod, id, NULL, 0);
}

/* A declared external function name(args) -> ret. */
static LLVMValueRef
extfn(Kx *x, const char *name, LLVMTypeRef ret, LLVMTypeRef *args, int n, bool vararg, LLVMTypeRef *fty)
{
	LLVMValueRef f = LLVMGetNamedFunction(x->mod, name);

	*fty = LLVMFunctionType(ret, args, (unsigned)n, vararg);
	if (!f)
		f = LLVMAddFunction(x->mod, name, *fty);
	return f;
}

static LLVMValueRef
callf(Kx *x, LLVMTypeRef fty, LLVMValueRef f, LLVMValueRef *a, int n)
{
	return LLVMBuildCall2(x->b, fty, f, a, (unsigned)n, "");
}

/* --fast-math: the f32 functions nvcc's --use_fast_math replaces by their
 * intrinsics (sinf by __sinf, ...): libdevice's __nv_fast_NAME. */
static bool
fastname(const char *name)
{
	static const char *const t[] = {"sinf", "cosf", "tanf", "expf", "exp10f", "logf", "log2f", "log10f", "powf"};
	size_t i;

	for (i = 0; i < countof(t); i++)
		if (strcmp(name, t[i]) == 0)
			return true;
	return false;
}

/* Call a math library function: libdevice's __nv_NAME (nvptx) or the C
 * library's NAME (host); `$` stands for the f32 suffix. */
static LLVMValueRef
mathcall(Kx *x, const char *s, size_t n, Type t, LLVMValueRef *a, int na)
{
	char name[64];
	size_t i, k = 0;
	bool half = t.s == S_F16 || t.s == S_BF16;
	LLVMTypeRef ft = half ? x->f32 : scalartype(x, t.s), args[3], fty;
	LLVMValueRef f, r;
	int j;

	for (i = 0; i < n && k + 2 < sizeof name; i++) {
		if (s[i] == '$') {
			if (t.s != S_F64)
				name[k++] = 'f';
		} else {
			name[k++] = s[i];
		}
	}
	name[k] = 0;
	if (x->host && strncmp(name, "__nv_", 5) == 0)
		memmove(name, name + 5, strlen(name + 5) + 1);
	else if (x->o->fastmath && t.s != S_F64 && fastname(name + 5)) {
		memmove(name + 10, name + 5, strlen(name + 5) + 1);
		memcpy(name + 5, "fast_", 5);
	}
	for (j = 0; j < na; j++) {
		args[j] = ft;
		if (half)
			a[j] = LLVMBuildFPExt(x->b, a[j], x->f32, "");
	}
	f = extfn(x, name, ft, args, na, false, &fty);
	r = callf(x, fty, f, a, na);
	if (half)
		r = LLVMBuildFPTrunc(x->b, r, scalartype(x, t.s), "");
	return r;
}

static LLVMRealPredicate
fpred(const char *p, size_t n)
{
	static const struct { const char *s; LLVMRealPredicate p; } t[] = {
		{"oeq", LLVMRealOEQ}, {"one", LLVMRealONE}, {"olt", LLVMRealOLT}, {"ole", LLVMRealOLE},
		{"ogt", LLVMRealOGT}, {"oge", LLVMRealOGE}, {"une", LLVMRealUNE}, {"ueq", LLVMRealUEQ},
		{"uno", LLVMRealUNO}, {"ord", LLVMRealORD},
	};
	size_t i;

	for (i = 0; i < countof(t); i++)
		if (is(p, n, t[i].s))
			return t[i].p;
	die("kptx: fcmp predicate %.*s", (int)n, p);
}

static LLVMIntPredicate
ipred(const char *p, size_t n)
{
	static const struct { const char *s; LLVMIntPredicate p; } t[] = {
		{"eq", LLVMIntEQ}, {"ne", LLVMIntNE}, {"slt", LLVMIntSLT}, {"sle", LLVMIntSLE}, {"sgt", LLVMIntSGT},
		{"sge", LLVMIntSGE}, {"ult", LLVMIntULT}, {"ule", LLVMIntULE}, {"ugt", LLVMIntUGT}, {"uge", LLVMIntUGE},
	};
	size_t i;

	for (i = 0; i < countof(t); i++)
		if (is(p, n, t[i].s))
			return t[i].p;
	die("kptx: icmp predicate %.*s", (int)n, p);
}

/* Apply spec s (from the llvm column) to operands a[0..n) of kir type t. */
static LLVMValueRef
applyspec(Kx *x, const char *s, size_t n, Type t, LLVMValueRef *a, int na)
{
	LLVMBuilderRef b = x->b;
	LLVMTypeRef lt = scalartype(x, t.s), fty;

	if (s[0] == '@') {
		if (n > 6 && memcmp(s + 1, "llvm.", 5) == 0) {
			LLVMValueRef f = intrinsic(x, s + 1, n - 1, lt, &fty), args[3];
			int j;
			for (j = 0; j < na; j++)
				args[j] = a[j];
			if (is(s + 1, n - 1, "llvm.abs"))
				args[na++] = LLVMConstInt(x->i1, 0, 0);
			if (is(s + 1, n - 1, "llvm.fma") && (t.s == S_F16 || t.s == S_BF16)) /* the runtime's muladd: two roundings */
				return contract(x, LLVMBuildFAdd(b, a[2], contract(x, LLVMBuildFMul(b, a[0], a[1], "")), ""));
			return callf(x, fty, f, args, na);
		}
		return mathcall(x, s + 1, n - 1, t, a, na);
	}
	if (n > 5 && memcmp(s, "fcmp.", 5) == 0)
		return LLVMBuildFCmp(b, fpred(s + 5, n - 5), a[0], a[1], "");
	if (is(s, n, "icmp.eq0"))
		return LLVMBuildICmp(b, LLVMIntEQ, a[0], LLVMConstNull(LLVMTypeOf(a[0])), "");
	if (n > 5 && memcmp(s, "icmp.", 5) == 0)
		return LLVMBuildICmp(b, ipred(s + 5, n - 5), a[0], a[1], "");
	if (is(s, n, "fadd")) return contract(x, LLVMBuildFAdd(b, a[0], a[1], ""));
	if (is(s, n, "fsub")) return contract(x, LLVMBuildFSub(b, a[0], a[1], ""));
	if (is(s, n, "fmul")) return contract(x, LLVMBuildFMul(b, a[0], a[1], ""));
	if (is(s, n, "fdiv")) return LLVMBuildFDiv(b, a[0], a[1], "");
	if (is(s, n, "frem")) return LLVMBuildFRem(b, a[0], a[1], "");
	if (is(s, n, "fneg")) return LLVMBuildFNeg(b, a[0], "");
	if (is(s, n, "fsub0")) return contract(x, LLVMBuildFSub(b, LLVMConstReal(lt, 0.0), a[0], ""));
	if (is(s, n, "add")) return LLVMBuildAdd(b, a[0], a[1], "");
	if (is(s, n, "sub")) return LLVMBuildSub(b, a[0], a[1], "");
	if (is(s, n, "mul")) return LLVMBuildMul(b, a[0], a[1], "");
	if (is(s, n, "sdiv")) return LLVMBuildSDiv(b, a[0], a[1], "");
	if (is(s, n, "udiv")) return LLVMBuildUDiv(b, a[0], a[1], "");
	if (is(s, n, "srem")) return LLVMBuildSRem(b, a[0], a[1], "");
	if (is(s, n, "urem")) return LLVMBuildURem(b, a[0], a[1], "");
	if (is(s, n, "and")) return LLVMBuildAnd(b, a[0], a[1], "");
	if (is(s, n, "or")) return LLVMBuildOr(b, a[0], a[1], "");
	if (is(s, n, "xor")) return LLVMBuildXor(b, a[0], a[1], "");
	if (is(s, n, "shl")) return LLVMBuildShl(b, a[0], a[1], "");
	if (is(s, n, "ashr")) return LLVMBuildAShr(b, a[0], a[1], "");
	if (is(s, n, "lshr")) return LLVMBuildLShr(b, a[0], a[1], "");
	if (is(s, n, "not")) return LLVMBuildNot(b, a[0], "");
	if (is(s, n, "neg")) return LLVMBuildNeg(b, a[0], "");
	if (is(s, n, "copy")) return a[0];
	if (is(s, n, "select")) return LLVMBuildSelect(b, a[0], a[1], a[2], "");
	if (is(s, n, "smin") || is(s, n, "smax") || is(s, n, "umin") || is(s, n, "umax")) {
		char nm[16];
		LLVMValueRef f;
		snprintf(nm, sizeof nm, "llvm.%.*s", (int)n, s);
		f = intrinsic(x, nm, strlen(nm), lt, &fty);
		return callf(x, fty, f, a, 2);
	}
	die("kptx: unknown llvm spec '%.*s'", (int)n, s);
}

/* ------------------------------------------------------------------ */
/* Casts                                                                */

static LLVMValueRef
convert(Kx *x, LLVMValueRef v, Type from, Type to)
{
	LLVMBuilderRef b = x->b;
	LLVMTypeRef lt = scalartype(x, to.s);
	bool ff = scalarisfloat(from.s), tf = scalarisfloat(to.s);

	if (from.s == to.s)
		return v;
	if (to.s == S_BOOL)
		return ff ? LLVMBuildFCmp(b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "")
		          : LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
	/* bf16 as Warp converts it: through float, both ways (f16 <-> bf16 too) */
	if (to.s == S_BF16 && from.s != S_F32 && from.s != S_BOOL)
		return LLVMBuildFPTrunc(b, convert(x, v, from, tscalar(S_F32)), lt, "");
	if (from.s == S_BF16 && to.s != S_F32)
		return convert(x, LLVMBuildFPExt(b, v, x->f32, ""), tscalar(S_F32), to);
	if (ff && tf)
		return scalarsize[to.s] > scalarsize[from.s] ? LLVMBuildFPExt(b, v, lt, "") : LLVMBuildFPTrunc(b, v, lt, "");
	if (ff)
		return scalarissigned(to.s) ? LLVMBuildFPToSI(b, v, lt, "") : LLVMBuildFPToUI(b, v, lt, "");
	if (tf)
		return from.s != S_BOOL && scalarissigned(from.s) ? LLVMBuildSIToFP(b, v, lt, "") : LLVMBuildUIToFP(b, v, lt, "");
	/* integer or bool to integer: truncate, or extend by the source's sign */
	{
		unsigned fb = LLVMGetIntTypeWidth(LLVMTypeOf(v)), tb = LLVMGetIntTypeWidth(lt);
		if (tb < fb)
			return LLVMBuildTrunc(b, v, lt, "");
		if (tb == fb)
			return v;
		return from.s != S_BOOL && scalarissigned(from.s) ? LLVMBuildSExt(b, v, lt, "") : LLVMBuildZExt(b, v, lt, "");
	}
}

/* A truth value: bool as is, an integer != 0, an array with storage. */
static LLVMValueRef
truth(Kx *x, LLVMValueRef v, Type t)
{
	if (t.k == T_ARRAY)
		return LLVMBuildICmp(x->b, LLVMIntNE, LLVMBuildExtractValue(x->b, v, 0, ""), LLVMConstNull(x->ptr), "");
	if (t.s == S_BOOL)
		return v;
	return convert(x, v, t, tscalar(S_BOOL));
}

/* ------------------------------------------------------------------ */
/* Memory                                                               */

/* Index i (kir type it) widened to i64, a negative one counted from the
 * end of a dimension of extent shape (i32). */
static LLVMValueRef
wrapidx(Kx *x, LLVMValueRef i, Type it, LLVMValueRef shape)
{
	LLVMBuilderRef b = x->b;
	LLVMValueRef w;

	if (!scalarissigned(it.s))
		return LLVMBuildZExtOrBitCast(b, i, x->i64, "");
	if (LLVMIsAConstantInt(i) && LLVMConstIntGetSExtValue(i) >= 0)
		return LLVMBuildSExtOrBitCast(b, i, x->i64, "");
	if (scalarsize[it.s] <= 4) { /* as the runtime: i += shape in i32 */
		w = LLVMBuildSExtOrBitCast(b, i, x->i32, "");
		w = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, w, ci32(x, 0), ""), LLVMBuildAdd(b, w, shape, ""), w, "");
		return LLVMBuildSExt(b, w, x->i64, "");
	}
	w = LLVMBuildSExtOrBitCast(b, i, x->i64, "");
	return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, w, ci64(x, 0), ""),
	                       LLVMBuildAdd(b, w, LLVMBuildSExt(b, shape, x->i64, ""), ""), w, "");
}

/* KptxOpts.checked (host): indices idx[0..n) (i64, after the wrap; raw:
 * as the kernel computed them, i32, for the report) of
 * array value arr against its extents, as kpy/array.h's KPY_CHECKED build
 * checks them: outside, a kpy_bounds_fault (kpy/abi.h) goes to the
 * function kpy_bounds_handler points to (the module exports that pointer;
 * krun sets it, and it does not return), else the process traps.  The
 * access itself is never made. */
static LLVMValueRef entryalloca(Kx *x, LLVMTypeRef t);
static LLVMBasicBlockRef block(Kx *x, const char *name);

static void
checkidx(Kx *x, LLVMValueRef arr, LLVMValueRef *idx, LLVMValueRef *raw, int n, int access)
{
	LLVMBuilderRef b = x->b;
	LLVMValueRef bad = NULL, oob[MAXDIM], sh[MAXDIM], f, h, g, dim, fn;
	LLVMBasicBlockRef fail = block(x, "oob"), ok = block(x, "inbounds");
	LLVMTypeRef fty, hty;
	const char *file;
	int d;

	for (d = 0; d < n; d++) {
		sh[d] = LLVMBuildExtractValue(b, LLVMBuildExtractValue(b, arr, 1, ""), (unsigned)d, "");
		oob[d] = LLVMBuildICmp(b, LLVMIntUGE, idx[d], LLVMBuildSExt(b, sh[d], x->i64, ""), "");
		bad = bad ? LLVMBuildOr(b, bad, oob[d], "") : oob[d];
	}
	if (!bad)
		return;
	LLVMBuildCondBr(b, bad, fail, ok);
	LLVMPositionBuilderAtEnd(b, fail);
	/* { ptr data; i32 ndim, shape[4], nidx, index[4], dim, access; ptr file; i32 line } */
	f = entryalloca(x, LLVMArrayType2(x->i64, 9));
#define AT(o) LLVMBuildGEP2(b, x->i8, f, (LLVMValueRef[]){ci64(x, o)}, 1, "")
	LLVMBuildStore(b, LLVMBuildExtractValue(b, arr, 0, ""), AT(0));
	LLVMBuildStore(b, ci32(x, n), AT(8));
	LLVMBuildStore(b, ci32(x, n), AT(28));
	dim = ci32(x, n - 1);
	for (d = MAXDIM - 1; d >= 0; d--) {
		LLVMBuildStore(b, d < n ? sh[d] : ci32(x, 0), AT(12 + 4 * d));
		LLVMBuildStore(b, d < n ? raw[d] : ci32(x, 0), AT(32 + 4 * d));
		if (d < n)
			dim = LLVMBuildSelect(b, oob[d], ci32(x, d), dim, "");
	}
	LLVMBuildStore(b, dim, AT(48));
	LLVMBuildStore(b, ci32(x, access), AT(52));
	file = locsrc(x->m, x->cur ? x->cur->loc : (Loc){0});
	LLVMBuildStore(b, LLVMBuildGlobalStringPtr(b, file, "kpy.file"), AT(56));
	LLVMBuildStore(b, ci32(x, x->cur ? x->cur->loc.line : 0), AT(64));
#undef AT
	if (!(g = LLVMGetNamedGlobal(x->mod, "kpy_bounds_handler"))) {
		g = LLVMAddGlobal(x->mod, x->ptr, "kpy_bounds_handler");
		LLVMSetInitializer(g, LLVMConstNull(x->ptr));
	}
	h = LLVMBuildLoad2(b, x->ptr, g, "");
	{
		LLVMBasicBlockRef call = block(x, "fault"), trap = block(x, "trap");
		LLVMBuildCondBr(b, LLVMBuildIsNull(b, h, ""), trap, call);
		LLVMPositionBuilderAtEnd(b, call);
		hty = LLVMFunctionType(x->voidt, &x->ptr, 1, 0);
		LLVMBuildCall2(b, hty, h, &f, 1, "");
		LLVMBuildBr(b, trap);
		LLVMPositionBuilderAtEnd(b, trap);
		fn = intrinsicn(x, "llvm.trap", &fty);
		LLVMBuildCall2(b, fty, fn, NULL, 0, "");
		LLVMBuildUnreachable(b);
	}
	LLVMPositionBuilderAtEnd(b, ok);
}

/* Byte offset of the element at indices args[0..n) of array value arr
 * (checked against its extents with KptxOpts.checked: access is the
 * KPY_ACCESS_* kind). */
static LLVMValueRef
offset(Kx *x, LLVMValueRef arr, const Val *args, int n, int access)
{
	LLVMBuilderRef b = x->b;
	LLVMValueRef off = NULL, ix64[MAXDIM], raw[MAXDIM];
	bool checked = x->host && x->o->checked && n <= MAXDIM;
	int d;

	if (checked) {
		for (d = 0; d < n; d++) {
			unsigned ix[2] = {1, (unsigned)d};
			LLVMValueRef shape = LLVMBuildExtractValue(b, LLVMBuildExtractValue(b, arr, ix[0], ""), ix[1], "");
			ix64[d] = wrapidx(x, lv(x, args[d]), ty(x, args[d]), shape);
			raw[d] = LLVMBuildIntCast2(b, lv(x, args[d]), x->i32, scalarissigned(ty(x, args[d]).s), "");
		}
		checkidx(x, arr, ix64, raw, n, access);
	}
	for (d = 0; d < n; d++) {
		unsigned ix[2] = {1, (unsigned)d};
		LLVMValueRef shape = LLVMBuildExtractValue(b, LLVMBuildExtractValue(b, arr, ix[0], ""), ix[1], "");
		LLVMValueRef stride = LLVMBuildExtractValue(b, LLVMBuildExtractValue(b, arr, 2, ""), (unsigned)d, "");
		LLVMValueRef i = checked ? ix64[d] : wrapidx(x, lv(x, args[d]), ty(x, args[d]), shape);
		LLVMValueRef t = LLVMBuildMul(b, i, stride, "");
		off = off ? LLVMBuildAdd(b, off, t, "") : t;
	}
	return off ? off : ci64(x, 0);
}

/* An array's data pointer, known to point into global memory (nvptx):
 * every kpy array lives in global memory (Warp's device arrays; a kernel
 * cannot make a local one), so the generic pointer is cast to the global
 * address space (addrspace(1)) and loads, stores and atomics go through
 * it: ld.global/st.global/atom.global instead of a generic ld/st, which
 * checks the address space at run time.  (A cast to global and straight
 * back would not do: InstCombine folds the pair away.)  A struct element's
 * pointer is cast back to generic for `field` (OP_LOAD), so that it mixes
 * with parameter pointers; InferAddressSpaces makes those loads global
 * again.  No ld.global.nc (the read-only path):
 * two array parameters may alias, so an array the kernel only reads may
 * still be written through another parameter during the launch. */
static LLVMValueRef
globalptr(Kx *x, LLVMValueRef p)
{
	if (x->host)
		return p;
	return LLVMBuildAddrSpaceCast(x->b, p, LLVMPointerTypeInContext(x->c, 1), "");
}

/* The element at indices args[0..n) of array value a.  Through a member
 * view, the member's offset is added last, to the element's address, so
 * that it becomes an immediate of the load or store instead of a pointer
 * kept in a register per member. */
static LLVMValueRef
elemptr(Kx *x, Val a, const Val *args, int n, int access)
{
	Val base = x->mbase[a] ? x->mbase[a] : a;
	LLVMValueRef arr = lv(x, base), off = offset(x, arr, args, n, access), p;

	p = LLVMBuildGEP2(x->b, x->i8, globalptr(x, LLVMBuildExtractValue(x->b, arr, 0, "")), &off, 1, "");
	if (x->mbase[a])
		p = LLVMBuildGEP2(x->b, x->i8, p, &x->moff[a], 1, "");
	return p;
}

static LLVMValueRef
loadmem(Kx *x, LLVMValueRef p, Type t)
{
	LLVMValueRef v = LLVMBuildLoad2(x->b, kxmemtype(x, t), p, "");

	if (t.k == T_SCALAR) {
		LLVMSetAlignment(v, (unsigned)scalarsize[t.s]);
		if (t.s == S_BOOL)
			v = LLVMBuildICmp(x->b, LLVMIntNE, v, LLVMConstInt(x->i8, 0, 0), "");
	} else {
		LLVMSetAlignment(v, 8);
	}
	return v;
}

static void
storemem(Kx *x, LLVMValueRef p, LLVMValueRef v, Type t)
{
	LLVMValueRef s;

	if (t.s == S_BOOL)
		v = LLVMBuildZExt(x->b, v, x->i8, "");
	s = LLVMBuildStore(x->b, v, p);
	LLVMSetAlignment(s, (unsigned)scalarsize[t.s]);
}

/* An array value with the given data pointer and the dimensions of arr
 * from dimension `from` on. */
static LLVMValueRef
subarray(Kx *x, LLVMValueRef arr, LLVMValueRef data, int nd, int from)
{
	LLVMBuilderRef b = x->b;
	LLVMValueRef r = LLVMGetUndef(kxarraytype(x, nd - from)), sh = LLVMBuildExtractValue(b, arr, 1, "");
	LLVMValueRef st = LLVMBuildExtractValue(b, arr, 2, "");
	LLVMValueRef nsh = LLVMGetUndef(LLVMArrayType2(x->i32, (uint64_t)(nd - from)));
	LLVMValueRef nst = LLVMGetUndef(LLVMArrayType2(x->i64, (uint64_t)(nd - from)));
	int d;

	for (d = from; d < nd; d++) {
		nsh = LLVMBuildInsertValue(b, nsh, LLVMBuildExtractValue(b, sh, (unsigned)d, ""), (unsigned)(d - from), "");
		nst = LLVMBuildInsertValue(b, nst, LLVMBuildExtractValue(b, st, (unsigned)d, ""), (unsigned)(d - from), "");
	}
	r = LLVMBuildInsertValue(b, r, data, 0, "");
	r = LLVMBuildInsertValue(b, r, nsh, 1, "");
	return LLVMBuildInsertValue(b, r, nst, 2, "");
}

/* Float atomic_min/max: a compare-and-swap loop that reads the element
 * first and leaves it alone when the stored value already wins (the new
 * value's bits equal the old's), as kcuda's runtime (kpy/atomic.h) does;
 * the first read is an ordinary load, which the L1 cache may serve: a
 * stale value only costs a failed CAS, and under contention (a reduction
 * into one element) every thread reading it from L2 (a volatile load) is
 * what made the loop 2.9x slower than Warp's on an H200;
 * LLVM's expansion of atomicrmw fmin/fmax always issues the CAS, which
 * serializes every thread of a reduction into one element.  The new value
 * is llvm.minnum/maxnum, atomicrmw fmin/fmax's own.  Returns the old value. */
static LLVMValueRef
fminmaxloop(Kx *x, LLVMValueRef p, LLVMValueRef v, Type et, bool max)
{
	LLVMBuilderRef b = x->b;
	LLVMTypeRef ft = scalartype(x, et.s), it = LLVMIntTypeInContext(x->c, (unsigned)(8 * scalarsize[et.s])), fty;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(b), loop, cas, done;
	LLVMValueRef first, old, cur, nv, nb, pair, got, ok, phi, f, args[2];
	LLVMAtomicOrdering ord = LLVMAtomicOrderingMonotonic;

	first = LLVMBuildLoad2(b, it, p, "");
	LLVMSetAlignment(first, (unsigned)scalarsize[et.s]);
	loop = LLVMAppendBasicBlockInContext(x->c, x->llf, "minmax.loop");
	cas = LLVMAppendBasicBlockInContext(x->c, x->llf, "minmax.cas");
	done = LLVMAppendBasicBlockInContext(x->c, x->llf, "minmax.done");
	LLVMBuildBr(b, loop);
	LLVMPositionBuilderAtEnd(b, loop);
	old = LLVMBuildPhi(b, it, "");
	cur = LLVMBuildBitCast(b, old, ft, "");
	f = intrinsic(x, max ? "llvm.maxnum" : "llvm.minnum", strlen("llvm.minnum"), ft, &fty);
	args[0] = cur;
	args[1] = v;
	nv = callf(x, fty, f, args, 2);
	nb = LLVMBuildBitCast(b, nv, it, "");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, nb, old, ""), done, cas);
	LLVMPositionBuilderAtEnd(b, cas);
	pair = LLVMBuildAtomicCmpXchg(b, p, old, nb, ord, ord, 0);
	LLVMSetAlignment(pair, (unsigned)scalarsize[et.s]);
	got = LLVMBuildExtractValue(b, pair, 0, "");
	ok = LLVMBuildExtractValue(b, pair, 1, "");
	LLVMBuildCondBr(b, ok, done, loop);
	{
		LLVMValueRef iv[2] = {first, got};
		LLVMBasicBlockRef ib[2] = {pre, cas};
		LLVMAddIncoming(old, iv, ib, 2);
	}
	LLVMPositionBuilderAtEnd(b, done);
	phi = LLVMBuildPhi(b, it, "");
	{
		LLVMValueRef iv[2] = {old, got};
		LLVMBasicBlockRef ib[2] = {loop, cas};
		LLVMAddIncoming(phi, iv, ib, 2);
	}
	return LLVMBuildBitCast(b, phi, ft, "");
}

static LLVMValueRef
atomic(Kx *x, const Op *op, LLVMValueRef p, Type et)
{
	LLVMBuilderRef b = x->b;
	int nidx = ty(x, op->args[0]).nd;
	LLVMValueRef v = lv(x, op->args[1 + nidx]), r;
	bool fl = scalarisfloat(et.s), sg = scalarissigned(et.s), bo = et.s == S_BOOL;
	LLVMAtomicRMWBinOp rop;
	LLVMAtomicOrdering ord = LLVMAtomicOrderingMonotonic;

	if (bo)
		v = LLVMBuildZExt(b, v, x->i8, "");
	if (fl && (op->code == OP_ATOMIC_MIN || op->code == OP_ATOMIC_MAX))
		return fminmaxloop(x, p, v, et, op->code == OP_ATOMIC_MAX);
	switch (op->code) {
	case OP_ATOMIC_ADD: rop = fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; break;
	case OP_ATOMIC_SUB: /* float: add the negation (kpy/atomic.h's), a native atom.add, where
	                     * atomicrmw fsub would become a CAS loop */
		if (fl)
			v = LLVMBuildFNeg(b, v, "");
		rop = fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpSub;
		break;
	case OP_ATOMIC_MIN: rop = fl ? LLVMAtomicRMWBinOpFMin : sg ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin; break;
	case OP_ATOMIC_MAX: rop = fl ? LLVMAtomicRMWBinOpFMax : sg ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax; break;
	case OP_ATOMIC_AND: rop = LLVMAtomicRMWBinOpAnd; break;
	case OP_ATOMIC_OR: rop = LLVMAtomicRMWBinOpOr; break;
	case OP_ATOMIC_XOR: rop = LLVMAtomicRMWBinOpXor; break;
	case OP_ATOMIC_EXCH: rop = LLVMAtomicRMWBinOpXchg; break;
	default: { /* cas: compares bit patterns (as Warp's CUDA build) */
		LLVMValueRef cmp = v, nv = lv(x, op->args[2 + nidx]);
		LLVMTypeRef it = LLVMIntTypeInContext(x->c, (unsigned)(8 * scalarsize[et.s]));
		if (bo)
			nv = LLVMBuildZExt(b, nv, x->i8, "");
		if (fl) {
			cmp = LLVMBuildBitCast(b, cmp, it, "");
			nv = LLVMBuildBitCast(b, nv, it, "");
		}
		r = LLVMBuildAtomicCmpXchg(b, p, cmp, nv, ord, ord, 0);
		LLVMSetAlignment(r, (unsigned)scalarsize[et.s]);
		r = LLVMBuildExtractValue(b, r, 0, "");
		if (fl)
			r = LLVMBuildBitCast(b, r, scalartype(x, et.s), "");
		goto done;
	}
	}
	r = LLVMBuildAtomicRMW(b, rop, p, v, ord, 0);
	LLVMSetAlignment(r, (unsigned)scalarsize[et.s]);
done:
	if (bo)
		r = LLVMBuildICmp(b, LLVMIntNE, r, LLVMConstInt(x->i8, 0, 0), "");
	return r;
}

/* Read a composite or struct parameter: pointer p to a value of type t;
 * extract (component) or field.  Returns the scalar, array or the
 * pointer to an inner composite/struct. */
static LLVMValueRef
aggread(Kx *x, const Op *op)
{
	LLVMBuilderRef b = x->b;
	LLVMValueRef p = lv(x, op->args[0]), off;
	Type t = ty(x, op->args[0]), rt = ty(x, op->res[0]);

	if (op->code == OP_FIELD) {
		off = ci64(x, fieldoffset(x->m, t.sid, op->attr));
		p = LLVMBuildGEP2(b, x->i8, p, &off, 1, "");
		return flat(rt) ? loadmem(x, p, rt) : p;
	}
	/* extract: component (i[, j]) of a composite */
	{
		int rows = t.k == T_MAT ? t.n : ncomp(t), cols = t.k == T_MAT ? t.m : 1;
		LLVMValueRef i = wrapidx(x, lv(x, op->args[1]), ty(x, op->args[1]), ci32(x, rows)), k;
		k = LLVMBuildMul(b, i, ci64(x, cols), "");
		if (op->nargs == 3)
			k = LLVMBuildAdd(b, k, wrapidx(x, lv(x, op->args[2]), ty(x, op->args[2]), ci32(x, cols)), "");
		if (op->nargs == 2 && t.k == T_MAT) {
			kxerror(x, x->f, op, "a matrix row is not low kir");
			return LLVMGetPoison(x->i32);
		}
		off = LLVMBuildMul(b, k, ci64(x, scalarsize[t.s]), "");
		p = LLVMBuildGEP2(b, x->i8, p, &off, 1, "");
		return loadmem(x, p, rt);
	}
}

/* ------------------------------------------------------------------ */
/* tid, printf                                                          */

/* Unravel the launch index into k coordinates, last dimension fastest. */
static void
tid(Kx *x, const Op *op)
{
	LLVMBuilderRef b = x->b;
	LLVMValueRef lin = x->task, shp;
	int k = op->nres, d;

	if (!x->bounds) {
		kxerror(x, x->f, op, "tid outside a kernel");
		return;
	}
	for (d = k - 1; d > 0; d--) {
		LLVMValueRef idx[3] = {ci32(x, 0), ci32(x, 1), ci32(x, d)}, p;
		p = LLVMBuildGEP2(b, x->boundst, x->bounds, idx, 3, "");
		shp = LLVMBuildLoad2(b, x->i32, p, "");
		LLVMSetAlignment(shp, 4);
		shp = LLVMBuildZExt(b, shp, x->i64, "");
		x->v[op->res[d]] = LLVMBuildTrunc(b, LLVMBuildURem(b, lin, shp, ""), x->i32, "");
		lin = LLVMBuildUDiv(b, lin, shp, "");
	}
	x->v[op->res[0]] = LLVMBuildTrunc(b, lin, x->i32, "");
	/* launch coordinates are non-negative int32 (Warp limits every extent
	 * to 2^31 - 1): tell LLVM, so that indexing by them needs no
	 * wrap-around of negative indices */
	for (d = 0; d < k; d++) {
		LLVMTypeRef fty;
		LLVMValueRef as = intrinsicn(x, "llvm.assume", &fty);
		LLVMValueRef c = LLVMBuildICmp(b, LLVMIntSGE, x->v[op->res[d]], ci32(x, 0), "");
		callf(x, fty, as, &c, 1);
	}
}

/* An alloca in the entry block. */
static LLVMValueRef
entryalloca(Kx *x, LLVMTypeRef t)
{
	LLVMBuilderRef eb = LLVMCreateBuilderInContext(x->c);
	LLVMValueRef first = LLVMGetFirstInstruction(x->entry), a;

	if (first)
		LLVMPositionBuilderBefore(eb, first);
	else
		LLVMPositionBuilderAtEnd(eb, x->entry);
	a = LLVMBuildAlloca(eb, t, "");
	LLVMDisposeBuilder(eb);
	return a;
}

/* printf: C's default argument promotions, then vprintf (nvptx: its
 * arguments packed in a local buffer) or printf (host). */
static void
printf_(Kx *x, const Op *op)
{
	LLVMBuilderRef b = x->b;
	int i, n = op->nargs - 1;
	LLVMValueRef *a = xcalloc((size_t)n + 2, sizeof *a), fmt = lv(x, op->args[0]), f;
	LLVMTypeRef *t = xcalloc((size_t)n + 1, sizeof *t), fty;

	for (i = 0; i < n; i++) {
		Type at = ty(x, op->args[1 + i]);
		LLVMValueRef v = lv(x, op->args[1 + i]);
		if (scalarisfloat(at.s)) {
			v = at.s == S_F64 ? v : LLVMBuildFPExt(b, v, x->f64, "");
		} else if (scalarsize[at.s] < 4 || at.s == S_BOOL) {
			v = at.s != S_BOOL && scalarissigned(at.s) ? LLVMBuildSExt(b, v, x->i32, "") : LLVMBuildZExt(b, v, x->i32, "");
		}
		a[i] = v;
		t[i] = LLVMTypeOf(v);
	}
	if (x->host) {
		LLVMTypeRef p = x->ptr;
		f = extfn(x, "printf", x->i32, &p, 1, true, &fty);
		memmove(a + 1, a, (size_t)n * sizeof *a);
		a[0] = fmt;
		callf(x, fty, f, a, n + 1);
		free(a);
		free(t);
		return;
	}
	{
		LLVMTypeRef pt[2] = {x->ptr, x->ptr};
		LLVMValueRef args[2], buf;
		f = extfn(x, "vprintf", x->i32, pt, 2, false, &fty);
		args[0] = fmt;
		if (n) {
			LLVMTypeRef st = LLVMStructTypeInContext(x->c, t, (unsigned)n, 0);
			buf = entryalloca(x, st);
			for (i = 0; i < n; i++)
				LLVMBuildStore(b, a[i], LLVMBuildStructGEP2(b, st, buf, (unsigned)i, ""));
			args[1] = buf;
		} else {
			args[1] = LLVMConstNull(x->ptr);
		}
		callf(x, fty, f, args, 2);
	}
	free(a);
	free(t);
}

/* ------------------------------------------------------------------ */
/* Regions                                                              */

static LLVMBasicBlockRef
block(Kx *x, const char *name)
{
	return LLVMAppendBasicBlockInContext(x->c, x->llf, name);
}

static LLVMValueRef
phi(Kx *x, LLVMTypeRef t)
{
	LLVMValueRef p = LLVMBuildPhi(x->b, t, "");

	APUSH(x->m->arena, x->phis, x->nphis, x->capphis, p);
	return p;
}

static void
incoming(Kx *x, LLVMValueRef *phis, const Val *vals, int n)
{
	LLVMBasicBlockRef bb = LLVMGetInsertBlock(x->b);
	int i;

	for (i = 0; i < n; i++) {
		LLVMValueRef v = lv(x, vals[i]);
		LLVMAddIncoming(phis[i], &v, &bb, 1);
	}
}

static void incomingv(Kx *x, LLVMValueRef *phis, LLVMValueRef *vals, int n)
{
	LLVMBasicBlockRef bb = LLVMGetInsertBlock(x->b);
	int i;

	for (i = 0; i < n; i++)
		LLVMAddIncoming(phis[i], &vals[i], &bb, 1);
}

static void region(Kx *x, const Region *r, Dest *d);
static void op1(Kx *x, const Op *op, Dest *d);
static LLVMValueRef erfinv(Kx *x, LLVMValueRef v, Type t, bool complement);

/* Phis of the given kir types, at the start of the current block. */
static LLVMValueRef *
phis(Kx *x, const Val *types, int n)
{
	LLVMValueRef *p = aalloc(x->m->arena, (size_t)(n ? n : 1) * sizeof *p);
	int i;

	for (i = 0; i < n; i++)
		p[i] = phi(x, kxvaltype(x, ty(x, types[i])));
	return p;
}

static void
emitif(Kx *x, const Op *op)
{
	LLVMValueRef c = truth(x, lv(x, op->args[0]), ty(x, op->args[0]));
	LLVMBasicBlockRef th = block(x, "then"), el = block(x, "else"), mg = block(x, "endif");
	Dest d = {0};
	int i;

	LLVMBuildCondBr(x->b, c, th, el);
	LLVMPositionBuilderAtEnd(x->b, mg);
	d.kind = D_IF;
	d.bb = mg;
	d.phis = phis(x, op->res, op->nres);
	d.nphis = op->nres;
	LLVMPositionBuilderAtEnd(x->b, th);
	region(x, &op->regs[0], &d);
	LLVMPositionBuilderAtEnd(x->b, el);
	region(x, &op->regs[1], &d);
	LLVMPositionBuilderAtEnd(x->b, mg);
	for (i = 0; i < op->nres; i++)
		x->v[op->res[i]] = d.phis[i];
}

static void
emitfor(Kx *x, const Op *op)
{
	LLVMBuilderRef b = x->b;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(b), head = block(x, "for"), body = block(x, "body");
	LLVMBasicBlockRef latch = block(x, "latch"), exit = block(x, "endfor");
	Type it = ty(x, op->args[0]);
	LLVMValueRef lo = lv(x, op->args[0]), hi = lv(x, op->args[1]), st = lv(x, op->args[2]);
	LLVMValueRef idx, cond, next, *hp, *lp;
	int ncar = op->nargs - 3, i;
	bool sg = scalarissigned(it.s);
	Loop l = {0};
	Dest d = {0};

	LLVMBuildBr(b, head);
	/* header: index and carried values */
	LLVMPositionBuilderAtEnd(b, head);
	idx = phi(x, scalartype(x, it.s));
	LLVMAddIncoming(idx, &lo, &pre, 1);
	hp = phis(x, op->params + 1, ncar);
	for (i = 0; i < ncar; i++) {
		LLVMValueRef v = lv(x, op->args[3 + i]);
		LLVMAddIncoming(hp[i], &v, &pre, 1);
	}
	x->v[op->params[0]] = idx;
	for (i = 0; i < ncar; i++)
		x->v[op->params[1 + i]] = hp[i];
	if (!sg || (LLVMIsAConstantInt(st) && LLVMConstIntGetSExtValue(st) > 0)) {
		cond = LLVMBuildICmp(b, sg ? LLVMIntSLT : LLVMIntULT, idx, hi, "");
	} else if (LLVMIsAConstantInt(st)) {
		cond = LLVMBuildICmp(b, LLVMIntSGT, idx, hi, "");
	} else {
		LLVMValueRef up = LLVMBuildICmp(b, LLVMIntSGT, st, LLVMConstNull(LLVMTypeOf(st)), "");
		cond = LLVMBuildSelect(b, up, LLVMBuildICmp(b, LLVMIntSLT, idx, hi, ""),
		                       LLVMBuildICmp(b, LLVMIntSGT, idx, hi, ""), "");
	}
	/* exit: the results, from the header's test and from breaks */
	LLVMPositionBuilderAtEnd(b, exit);
	l.exitphis = phis(x, op->res, op->nres);
	LLVMPositionBuilderAtEnd(b, head);
	incomingv(x, l.exitphis, hp, ncar);
	LLVMBuildCondBr(b, cond, body, exit);
	/* latch: carried values from yields and continues, then the step */
	LLVMPositionBuilderAtEnd(b, latch);
	lp = phis(x, op->params + 1, ncar);
	next = LLVMBuildAdd(b, idx, st, "");
	LLVMAddIncoming(idx, &next, &latch, 1);
	for (i = 0; i < ncar; i++)
		LLVMAddIncoming(hp[i], &lp[i], &latch, 1);
	LLVMBuildBr(b, head);
	/* body */
	l.up = x->loop;
	l.cont = latch;
	l.contphis = lp;
	l.exit = exit;
	l.ncar = ncar;
	x->loop = &l;
	d.kind = D_BODY;
	d.bb = latch;
	d.phis = lp;
	d.nphis = ncar;
	LLVMPositionBuilderAtEnd(b, body);
	region(x, &op->regs[0], &d);
	x->loop = l.up;
	LLVMPositionBuilderAtEnd(b, exit);
	for (i = 0; i < op->nres; i++)
		x->v[op->res[i]] = l.exitphis[i];
}

static void
emitwhile(Kx *x, const Op *op)
{
	LLVMBuilderRef b = x->b;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(b), head = block(x, "while"), body = block(x, "do");
	LLVMBasicBlockRef exit = block(x, "endwhile");
	LLVMValueRef *hp;
	int n = op->nargs, i;
	Loop l = {0};
	Dest d = {0};

	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, head);
	hp = phis(x, op->params, n);
	for (i = 0; i < n; i++) {
		LLVMValueRef v = lv(x, op->args[i]);
		LLVMAddIncoming(hp[i], &v, &pre, 1);
		x->v[op->params[i]] = hp[i];
	}
	LLVMPositionBuilderAtEnd(b, exit);
	l.exitphis = phis(x, op->res, op->nres);
	l.up = x->loop;
	l.cont = head;
	l.contphis = hp;
	l.exit = exit;
	l.ncar = n;
	/* the condition: its yield branches to the body or out */
	d.kind = D_COND;
	d.bb = body;
	d.loop = &l;
	LLVMPositionBuilderAtEnd(b, head);
	region(x, &op->regs[0], &d);
	x->loop = &l;
	d.kind = D_BODY;
	d.bb = head;
	d.phis = hp;
	d.nphis = n;
	d.loop = NULL;
	LLVMPositionBuilderAtEnd(b, body);
	region(x, &op->regs[1], &d);
	x->loop = l.up;
	LLVMPositionBuilderAtEnd(b, exit);
	for (i = 0; i < op->nres; i++)
		x->v[op->res[i]] = l.exitphis[i];
}

static void
terminator(Kx *x, const Op *op, Dest *d)
{
	LLVMBuilderRef b = x->b;

	switch (op->code) {
	case OP_YIELD:
		if (d->kind == D_COND) {
			LLVMValueRef c = truth(x, lv(x, op->args[0]), ty(x, op->args[0]));
			incomingv(x, d->loop->exitphis, d->loop->contphis, d->loop->ncar);
			LLVMBuildCondBr(b, c, d->bb, d->loop->exit);
			return;
		}
		if (d->kind == D_FUNC)
			break;
		incoming(x, d->phis, op->args, op->nargs);
		LLVMBuildBr(b, d->bb);
		return;
	case OP_BREAK:
		incoming(x, x->loop->exitphis, op->args, op->nargs);
		LLVMBuildBr(b, x->loop->exit);
		return;
	case OP_CONTINUE:
		incoming(x, x->loop->contphis, op->args, op->nargs);
		LLVMBuildBr(b, x->loop->cont);
		return;
	case OP_RET:
		if (x->f->kernel || op->nargs == 0) {
			LLVMBuildRetVoid(b);
		} else if (op->nargs == 1) {
			LLVMBuildRet(b, lv(x, op->args[0]));
		} else {
			LLVMValueRef r = LLVMGetUndef(LLVMGetReturnType(x->fnty[funcindex(x->m, x->f)]));
			int i;
			for (i = 0; i < op->nargs; i++)
				r = LLVMBuildInsertValue(b, r, lv(x, op->args[i]), (unsigned)i, "");
			LLVMBuildRet(b, r);
		}
		return;
	}
	kxerror(x, x->f, op, "misplaced %s", opinfo[op->code].name);
	LLVMBuildUnreachable(b);
}

static void
region(Kx *x, const Region *r, Dest *d)
{
	uint32_t i;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		x->cur = op;
		if (opinfo[op->code].flags & F_TERM)
			terminator(x, op, d);
		else
			op1(x, op, d);
	}
}

/* ------------------------------------------------------------------ */
/* One op                                                               */

static void
op1(Kx *x, const Op *op, Dest *d)
{
	LLVMBuilderRef b = x->b;
	const OpInfo *oi = &opinfo[op->code];
	LLVMValueRef a[8], r = NULL;
	Type t0 = op->nargs ? ty(x, op->args[0]) : tvoid(), rt = op->nres ? ty(x, op->res[0]) : tvoid();
	int i, nidx;
	size_t n;
	const char *s;

	(void)d;
	switch (op->code) {
	case OP_IF:
		emitif(x, op);
		return;
	case OP_FOR:
		emitfor(x, op);
		return;
	case OP_WHILE:
		emitwhile(x, op);
		return;
	case OP_CALL: {
		LLVMValueRef *args = xcalloc((size_t)op->nargs + 1, sizeof *args);
		int fi = op->attr;
		for (i = 0; i < op->nargs; i++)
			args[i] = lv(x, op->args[i]);
		r = LLVMBuildCall2(b, x->fnty[fi], x->fn[fi], args, op->nargs, "");
		free(args);
		if (op->nres == 1)
			x->v[op->res[0]] = r;
		else
			for (i = 0; i < op->nres; i++)
				x->v[op->res[i]] = LLVMBuildExtractValue(b, r, (unsigned)i, "");
		return;
	}
	case OP_TID:
		tid(x, op);
		return;
	case OP_BLOCK_DIM: { /* the runtime's kpy::block_dim(): ntid.x; 1 on the host */
		LLVMTypeRef fty;
		LLVMValueRef f;
		if (x->host) {
			r = LLVMConstInt(x->i32, 1, 0);
			break;
		}
		f = intrinsicn(x, "llvm.nvvm.read.ptx.sreg.ntid.x", &fty);
		r = LLVMBuildCall2(b, fty, f, NULL, 0, "");
		break;
	}
	case OP_CAST:
		r = convert(x, lv(x, op->args[0]), t0, rt);
		break;
	case OP_ZERO:
		r = LLVMConstNull(kxvaltype(x, rt));
		break;
	case OP_WHERE:
		r = LLVMBuildSelect(b, truth(x, lv(x, op->args[0]), t0), lv(x, op->args[1]), lv(x, op->args[2]), "");
		break;
	case OP_EXTRACT:
	case OP_FIELD:
		r = aggread(x, op);
		break;
	case OP_LOAD:
		r = elemptr(x, op->args[0], op->args + 1, op->nargs - 1, KPY_ACCESS_READ);
		if (flat(rt))
			r = loadmem(x, r, rt);
		else if (!x->host) /* a struct element, read by field: generic */
			r = LLVMBuildAddrSpaceCast(b, r, x->ptr, "");
		break;
	case OP_STORE:
		nidx = t0.nd;
		storemem(x, elemptr(x, op->args[0], op->args + 1, nidx, KPY_ACCESS_WRITE), lv(x, op->args[1 + nidx]),
		         telem(t0));
		return;
	case OP_ATOMIC_ADD: case OP_ATOMIC_SUB: case OP_ATOMIC_MIN: case OP_ATOMIC_MAX: case OP_ATOMIC_AND:
	case OP_ATOMIC_OR: case OP_ATOMIC_XOR: case OP_ATOMIC_EXCH: case OP_ATOMIC_CAS:
		r = atomic(x, op, elemptr(x, op->args[0], op->args + 1, t0.nd, KPY_ACCESS_ATOMIC), telem(t0));
		break;
	case OP_VIEW: {
		LLVMValueRef arr = lv(x, op->args[0]), off = offset(x, arr, op->args + 1, op->nargs - 1, KPY_ACCESS_VIEW);
		LLVMValueRef p = LLVMBuildGEP2(b, x->i8, LLVMBuildExtractValue(b, arr, 0, ""), &off, 1, "");
		r = subarray(x, arr, p, t0.nd, op->nargs - 1);
		break;
	}
	case OP_MEMBER: {
		LLVMValueRef arr = lv(x, op->args[0]);
		LLVMValueRef off = LLVMBuildSExtOrBitCast(b, lv(x, op->args[1]), x->i64, "");
		LLVMValueRef p = LLVMBuildGEP2(b, x->i8, LLVMBuildExtractValue(b, arr, 0, ""), &off, 1, "");
		Val a = op->args[0];
		r = LLVMBuildInsertValue(b, arr, p, 0, "");
		/* for loads and stores: the underlying array and the total offset */
		x->mbase[op->res[0]] = x->mbase[a] ? x->mbase[a] : a;
		x->moff[op->res[0]] = x->mbase[a] ? LLVMBuildAdd(b, x->moff[a], off, "") : off;
		break;
	}
	case OP_SHAPE:
		r = LLVMBuildExtractValue(b, LLVMBuildExtractValue(b, lv(x, op->args[0]), 1, ""), (unsigned)op->attr, "");
		break;
	case OP_PRINTF:
		printf_(x, op);
		return;
	case OP_ASSERT:
		return;
	case OP_BIT_COUNT:
		s = spec(op->code, kindof(t0), &n);
		a[0] = lv(x, op->args[0]);
		r = applyspec(x, s, n, t0, a, 1);
		r = LLVMBuildZExtOrBitCast(b, LLVMBuildTruncOrBitCast(b, r, scalarsize[t0.s] > 4 ? x->i32 : LLVMTypeOf(r), ""), x->i32, "");
		break;
	case OP_ASIN:
	case OP_ACOS: {
		/* the runtime clamps the argument to [-1, 1] first */
		LLVMTypeRef fty;
		LLVMValueRef mx = intrinsic(x, "llvm.maxnum", 11, scalartype(x, t0.s), &fty), mn, c[2];
		c[0] = lv(x, op->args[0]);
		c[1] = LLVMConstReal(scalartype(x, t0.s), -1.0);
		c[0] = callf(x, fty, mx, c, 2);
		mn = intrinsic(x, "llvm.minnum", 11, scalartype(x, t0.s), &fty);
		c[1] = LLVMConstReal(scalartype(x, t0.s), 1.0);
		a[0] = callf(x, fty, mn, c, 2);
		s = spec(op->code, 'f', &n);
		r = applyspec(x, s, n, t0, a, 1);
		break;
	}
	default:
		if (op->nargs > 8 || op->nres != 1)
			goto unsupported;
		for (i = 0; i < op->nargs; i++) {
			if (!flat(ty(x, op->args[i])))
				goto unsupported;
			a[i] = lv(x, op->args[i]);
		}
		if (!(s = spec(op->code, kindof(t0), &n)))
			goto unsupported;
		if (x->host && (op->code == OP_ERFINV || op->code == OP_ERFCINV)) {
			r = erfinv(x, a[0], t0, op->code == OP_ERFCINV);
			break;
		}
		r = applyspec(x, s, n, t0, a, op->nargs);
		break;
	}
	if (op->nres == 1)
		x->v[op->res[0]] = r;
	(void)oi;
	return;
unsupported:
	kxerror(x, x->f, op, "'%s' on %s is not supported by kptx", oi->name, op->nargs ? typestr(x->m, t0) : "nothing");
	if (op->nres == 1)
		x->v[op->res[0]] = LLVMGetPoison(kxvaltype(x, rt));
}

/* ------------------------------------------------------------------ */
/* erfinv on the host: the runtime's (Cephes ndtri in double)           */

static LLVMValueRef
polevl(Kx *x, LLVMValueRef v, const double *c, int n, bool p1)
{
	LLVMBuilderRef b = x->b;
	LLVMValueRef r = p1 ? LLVMBuildFAdd(b, v, LLVMConstReal(x->f64, c[0]), "") : LLVMConstReal(x->f64, c[0]);
	int i;

	for (i = 1; i < (p1 ? n : n + 1); i++)
		r = LLVMBuildFAdd(b, LLVMBuildFMul(b, r, v, ""), LLVMConstReal(x->f64, c[i]), "");
	return r;
}

static LLVMValueRef
dcall(Kx *x, const char *name, LLVMValueRef v)
{
	LLVMTypeRef fty, t = x->f64;
	LLVMValueRef f = extfn(x, name, x->f64, &t, 1, false, &fty);

	return callf(x, fty, f, &v, 1);
}

static LLVMValueRef
erfinv(Kx *x, LLVMValueRef v, Type t, bool complement)
{
	static const double P0[5] = {-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
		1.39312609387279679503E1, -1.23916583867381258016E0};
	static const double Q0[8] = {1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
		-2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1, 1.59056225126211695515E1,
		-1.18331621121330003142E0};
	static const double P1[9] = {4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
		4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0, -1.40256079171354495875E-1,
		-3.50424626827848203418E-2, -8.57456785154685413611E-4};
	static const double Q1[8] = {1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
		1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1, -3.80806407691578277194E-2,
		-9.33259480895457427372E-4};
	static const double P2[9] = {3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
		1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2, 3.01581553508235416007E-4,
		2.65806974686737550832E-6, 6.23974539184983293730E-9};
	static const double Q2[8] = {6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
		2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4, 2.89247864745380683936E-6,
		6.79019408009981274425E-9};
	LLVMBuilderRef b = x->b;
	LLVMValueRef z, y, neg, ya, y2, xa, xx, x0, zz, x1a, x1b, x1, xb, nd, r;
	LLVMValueRef one = LLVMConstReal(x->f64, 1.0), zero = LLVMConstReal(x->f64, 0.0);
	LLVMValueRef inf = LLVMConstReal(x->f64, INFINITY), expm2 = LLVMConstReal(x->f64, 0.13533528323661269189);

	z = t.s == S_F64 ? v : LLVMBuildFPExt(b, v, x->f64, "");
	if (complement)
		z = LLVMBuildFSub(b, one, z, "");
	/* ndtri((z + 1) / 2) / sqrt(2), all branches computed and selected */
	y = LLVMBuildFDiv(b, LLVMBuildFAdd(b, z, one, ""), LLVMConstReal(x->f64, 2.0), "");
	neg = LLVMBuildFCmp(b, LLVMRealOGT, y, LLVMBuildFSub(b, one, expm2, ""), "");
	y = LLVMBuildSelect(b, neg, LLVMBuildFSub(b, one, y, ""), y, "");
	/* middle: |y - 0.5| small */
	ya = LLVMBuildFSub(b, y, LLVMConstReal(x->f64, 0.5), "");
	y2 = LLVMBuildFMul(b, ya, ya, "");
	xa = LLVMBuildFAdd(b, ya, LLVMBuildFMul(b, ya, LLVMBuildFDiv(b, LLVMBuildFMul(b, y2, polevl(x, y2, P0, 4, false), ""),
	                                                                 polevl(x, y2, Q0, 8, true), ""), ""), "");
	xa = LLVMBuildFMul(b, xa, LLVMConstReal(x->f64, 2.50662827463100050242E0), "");
	/* tails */
	xx = dcall(x, "sqrt", LLVMBuildFMul(b, LLVMConstReal(x->f64, -2.0), dcall(x, "log", y), ""));
	x0 = LLVMBuildFSub(b, xx, LLVMBuildFDiv(b, dcall(x, "log", xx), xx, ""), "");
	zz = LLVMBuildFDiv(b, one, xx, "");
	x1a = LLVMBuildFDiv(b, LLVMBuildFMul(b, zz, polevl(x, zz, P1, 8, false), ""), polevl(x, zz, Q1, 8, true), "");
	x1b = LLVMBuildFDiv(b, LLVMBuildFMul(b, zz, polevl(x, zz, P2, 8, false), ""), polevl(x, zz, Q2, 8, true), "");
	x1 = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, xx, LLVMConstReal(x->f64, 8.0), ""), x1a, x1b, "");
	xb = LLVMBuildFSub(b, x0, x1, "");
	xb = LLVMBuildSelect(b, neg, xb, LLVMBuildFNeg(b, xb, ""), "");
	nd = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, y, expm2, ""), xa, xb, "");
	/* ndtri's ends, then erfinv's special cases */
	{
		LLVMValueRef y0 = LLVMBuildFDiv(b, LLVMBuildFAdd(b, z, one, ""), LLVMConstReal(x->f64, 2.0), "");
		nd = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, y0, one, ""), inf, nd, "");
		nd = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLE, y0, zero, ""), LLVMBuildFNeg(b, inf, ""), nd, "");
	}
	r = LLVMBuildFDiv(b, nd, dcall(x, "sqrt", LLVMConstReal(x->f64, 2.0)), "");
	{
		LLVMTypeRef fty;
		LLVMValueRef fabsf_ = intrinsic(x, "llvm.fabs", 9, x->f64, &fty), az = callf(x, fty, fabsf_, &z, 1);
		r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUGT, az, one, ""), LLVMConstReal(x->f64, NAN), r, "");
	}
	r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, z, one, ""), inf, r, "");
	r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, z, LLVMConstReal(x->f64, -1.0), ""), LLVMBuildFNeg(b, inf, ""), r, "");
	r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, z, zero, ""), zero, r, "");
	if (t.s != S_F64)
		r = LLVMBuildFPTrunc(b, r, scalartype(x, t.s), "");
	return r;
}

/* ------------------------------------------------------------------ */
/* Functions                                                            */

static void
declare(Kx *x, int fi)
{
	const Func *f = x->m->funcs[fi];
	LLVMTypeRef *pt = xcalloc((size_t)f->nparams + 2, sizeof *pt), rt;
	char name[300];
	uint32_t i, np = 0;

	if (f->kernel) {
		pt[np++] = x->ptr;   /* bounds */
		pt[np++] = x->i64;   /* task */
	}
	for (i = 0; i < f->nparams; i++)
		pt[np++] = kxvaltype(x, f->vals[f->params[i]].ty);
	if (f->nrets == 0) {
		rt = x->voidt;
	} else if (f->nrets == 1) {
		rt = kxvaltype(x, f->rets[0]);
	} else {
		LLVMTypeRef *el = xmalloc(f->nrets * sizeof *el);
		for (i = 0; i < f->nrets; i++)
			el[i] = kxvaltype(x, f->rets[i]);
		rt = LLVMStructTypeInContext(x->c, el, f->nrets, 0);
		free(el);
	}
	snprintf(name, sizeof name, "kir.%s", f->name);
	x->fnty[fi] = LLVMFunctionType(rt, pt, np, 0);
	free(pt);
	x->fn[fi] = LLVMAddFunction(x->mod, name, x->fnty[fi]);
	LLVMSetLinkage(x->fn[fi], LLVMInternalLinkage);
}

/* A runtime stub (isrtstub, ir.h): its body calls the runtime's
 * definition, kpy_rt_OP_KIND(T *out, leaves...) in kptx_rt.bc (linked by
 * kptx_target.c), which writes the results' leaves, all of one type T, to
 * out. */
static void
definestub(Kx *x, int fi)
{
	const Func *f = x->m->funcs[fi];
	LLVMTypeRef *pt = xcalloc((size_t)f->nparams + 1, sizeof *pt), et, fty;
	LLVMValueRef *args = xcalloc((size_t)f->nparams + 1, sizeof *args), out, callee, r;
	char name[300], *p;
	uint32_t i;

	et = kxvaltype(x, f->rets[0]);
	for (i = 1; i < f->nrets; i++)
		if (kxvaltype(x, f->rets[i]) != et)
			kxerror(x, f, NULL, "runtime stub @%s: its results are not of one type", f->name);
	snprintf(name, sizeof name, "kpy_rt_%s", f->name + strlen(RTSTUB_PREFIX));
	for (p = name; *p; p++)
		if (*p == '.')
			*p = '_';
	pt[0] = x->ptr;
	for (i = 0; i < f->nparams; i++)
		pt[i + 1] = kxvaltype(x, f->vals[f->params[i]].ty);
	fty = LLVMFunctionType(x->voidt, pt, f->nparams + 1, 0);
	if (!(callee = LLVMGetNamedFunction(x->mod, name)))
		callee = LLVMAddFunction(x->mod, name, fty);
	LLVMPositionBuilderAtEnd(x->b, block(x, "entry"));
	out = LLVMBuildAlloca(x->b, LLVMArrayType2(et, f->nrets), "out");
	args[0] = out;
	for (i = 0; i < f->nparams; i++)
		args[i + 1] = LLVMGetParam(x->fn[fi], i);
	LLVMBuildCall2(x->b, fty, callee, args, f->nparams + 1, "");
	r = f->nrets == 1 ? NULL : LLVMGetUndef(LLVMGetReturnType(x->fnty[fi]));
	for (i = 0; i < f->nrets; i++) {
		LLVMValueRef idx = LLVMConstInt(x->i64, i, 0);
		LLVMValueRef v = LLVMBuildLoad2(x->b, et, LLVMBuildInBoundsGEP2(x->b, et, out, &idx, 1, ""), "");
		r = f->nrets == 1 ? v : LLVMBuildInsertValue(x->b, r, v, i, "");
	}
	LLVMBuildRet(x->b, r);
	LLVMAddAttributeAtIndex(x->fn[fi], LLVMAttributeFunctionIndex,
	                        LLVMCreateEnumAttribute(x->c, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
	free(pt);
	free(args);
}

static void
define(Kx *x, int fi)
{
	const Func *f = x->m->funcs[fi];
	Dest d = {0};
	uint32_t i, k = 0;

	if (isrtstub(f)) {
		x->f = f;
		x->llf = x->fn[fi];
		definestub(x, fi);
		return;
	}

	x->f = f;
	x->llf = x->fn[fi];
	x->v = xcalloc(f->nvals + 1, sizeof *x->v);
	x->mbase = xcalloc(f->nvals + 1, sizeof *x->mbase);
	x->moff = xcalloc(f->nvals + 1, sizeof *x->moff);
	x->nphis = 0;
	x->loop = NULL;
	x->bounds = x->task = NULL;
	if (f->kernel) {
		x->bounds = LLVMGetParam(x->llf, 0);
		x->task = LLVMGetParam(x->llf, 1);
		k = 2;
	}
	for (i = 0; i < f->nparams; i++)
		x->v[f->params[i]] = LLVMGetParam(x->llf, k + i);
	x->entry = block(x, "entry");
	LLVMPositionBuilderAtEnd(x->b, x->entry);
	d.kind = D_FUNC;
	region(x, &f->body, &d);
	/* phis no branch reaches are dead: poison */
	for (i = 0; i < x->nphis; i++)
		if (LLVMCountIncoming(x->phis[i]) == 0) {
			LLVMReplaceAllUsesWith(x->phis[i], LLVMGetPoison(LLVMTypeOf(x->phis[i])));
			LLVMInstructionEraseFromParent(x->phis[i]);
		}
	/* blocks left open (after an unreachable merge) end in unreachable */
	{
		LLVMBasicBlockRef bb;
		for (bb = LLVMGetFirstBasicBlock(x->llf); bb; bb = LLVMGetNextBasicBlock(bb))
			if (!LLVMGetBasicBlockTerminator(bb)) {
				LLVMPositionBuilderAtEnd(x->b, bb);
				LLVMBuildUnreachable(x->b);
			}
	}
	free(x->v);
	free(x->mbase);
	free(x->moff);
	x->v = NULL;
	x->mbase = NULL;
	x->moff = NULL;
}

Kx *
kxnew(Module *m, const KptxOpts *o, LLVMContextRef c, LLVMTargetDataRef td, const char *triple)
{
	Kx *x = xcalloc(1, sizeof *x);
	LLVMTypeRef bt[3];
	char *dl;

	x->m = m;
	x->o = o;
	x->c = c;
	x->td = td;
	x->host = o->target == KPTX_HOST;
	x->mod = LLVMModuleCreateWithNameInContext(m->nsrcs ? m->srcs[0] : "kir", c);
	LLVMSetTarget(x->mod, triple);
	dl = LLVMCopyStringRepOfTargetData(td);
	LLVMSetDataLayout(x->mod, dl);
	LLVMDisposeMessage(dl);
	x->b = LLVMCreateBuilderInContext(c);
	x->i1 = LLVMInt1TypeInContext(c);
	x->i8 = LLVMInt8TypeInContext(c);
	x->i16 = LLVMInt16TypeInContext(c);
	x->i32 = LLVMInt32TypeInContext(c);
	x->i64 = LLVMInt64TypeInContext(c);
	x->f16 = LLVMHalfTypeInContext(c);
	x->bf16 = LLVMBFloatTypeInContext(c);
	x->f32 = LLVMFloatTypeInContext(c);
	x->f64 = LLVMDoubleTypeInContext(c);
	x->ptr = LLVMPointerTypeInContext(c, 0);
	x->voidt = LLVMVoidTypeInContext(c);
	bt[0] = x->i32;
	bt[1] = LLVMArrayType2(x->i32, 4);
	bt[2] = x->i64;
	x->boundst = LLVMStructCreateNamed(c, "kpy_launch_bounds");
	LLVMStructSetBody(x->boundst, bt, 3, 0);
	x->fn = xcalloc(m->nfuncs + 1, sizeof *x->fn);
	x->fnty = xcalloc(m->nfuncs + 1, sizeof *x->fnty);
	return x;
}

/* LLVM lowers bfloat conversions (and bfloat arithmetic, done in float) on
 * x86 to calls of compiler-rt's __truncsfbf2, which the host objects krun
 * loads do not link (libgcc has it from GCC 13): an error at the first
 * function with a bf16 value (a struct field of bf16 is not looked for). */
static void
hostbf16(Kx *x)
{
	uint32_t i, v;

	for (i = 0; i < x->m->nfuncs; i++) {
		const Func *f = x->m->funcs[i];
		for (v = 1; v < f->nvals; v++)
			if (f->vals[v].ty.k != T_STRUCT && f->vals[v].ty.k != T_VOID && f->vals[v].ty.k != T_STR &&
			    f->vals[v].ty.s == S_BF16) {
				kxerror(x, f, NULL, "bf16 is not supported by kptx --target=host (LLVM would call "
				        "compiler-rt's __truncsfbf2); kcpu and the nvptx target support it");
				return;
			}
	}
}

int
kxbuild(Kx *x)
{
	uint32_t i;

	if (x->host)
		hostbf16(x);
	if (x->nerr)
		return x->nerr;
	for (i = 0; i < x->m->nfuncs; i++)
		declare(x, (int)i);
	if (x->nerr)
		return x->nerr;
	for (i = 0; i < x->m->nfuncs; i++)
		define(x, (int)i);
	return x->nerr;
}

void
kxfree(Kx *x)
{
	if (!x)
		return;
	LLVMDisposeBuilder(x->b);
	free(x->fn);
	free(x->fnty);
	free(x);
}
