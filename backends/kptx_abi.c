/*
 * kptx_abi.c — the entry points around the kernel bodies of kptx_emit.c.
 *
 * nvptx: per kernel K (C++ name N, as kcpu and kcuda spell it) a
 *   ptx_kernel void @N(kpy_launch_bounds bounds, params...)
 * with kcuda's parameter list, each aggregate passed by value in the
 * .param space (byval): the bounds; an array as kpy::array_t<T, ND>
 * { T *data; i32 shape[ND]; i64 strides[ND]; }; a composite, an f16 (bf16) or a
 * struct as its bytes; other scalars as themselves (bool as a byte).  The
 * body runs in a grid-stride loop over bounds.size, the thread's first
 * index ctaid.x * ntid.x + tid.x, the stride ntid.x * nctaid.x (NVVM
 * special registers).  The entry is marked both ways: the ptx_kernel
 * calling convention and !nvvm.annotations "kernel".
 *
 * host: kcpu's extern "C" ABI (kpy/kinfo.h), so that krun loads the object
 * exactly as it loads kcpu's: per kernel
 *   void kpy_launch_N(const kpy_launch_bounds *b, int64_t begin,
 *                     int64_t end, void **args)
 * running tasks begin <= task < end (args[i] points to parameter i: a
 * kpy_array for an array, else the value's bytes), and the tables
 * kpy_abi_version, kpy_f32_size, kpy_nkernels, kpy_kernels[], kpy_nstructs,
 * kpy_structs[] with the same contents kcpu's module has.
 */
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "kptx.h"

typedef struct A {
	Kx *x;
	LLVMContextRef c;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMTypeRef i8, i32, i64, ptr;
	Emit *names;      /* kcpu's C++ names of kernels and structs */
} A;

static LLVMValueRef ci32(A *a, int64_t v) { return LLVMConstInt(a->i32, (unsigned long long)v, 1); }
static LLVMValueRef ci64(A *a, int64_t v) { return LLVMConstInt(a->i64, (unsigned long long)v, 1); }

static LLVMValueRef
sreg(A *a, const char *name)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMTypeRef fty = LLVMIntrinsicGetType(a->c, id, NULL, 0);
	LLVMValueRef f = LLVMGetIntrinsicDeclaration(a->mod, id, NULL, 0);

	return LLVMBuildZExt(a->b, LLVMBuildCall2(a->b, fty, f, NULL, 0, ""), a->i64, "");
}

/* C++'s forward progress, which nvcc and kcpu's compiler assume: a loop
 * without effects terminates (an empty kernel is then an empty entry). */
static void
mustprogress(A *a, LLVMValueRef f)
{
	unsigned kind = LLVMGetEnumAttributeKindForName("mustprogress", 12);

	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(a->c, kind, 0));
}

static void
byval(A *a, LLVMValueRef f, unsigned i, LLVMTypeRef t, unsigned align)
{
	unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);

	LLVMAddAttributeAtIndex(f, i + 1, LLVMCreateTypeAttribute(a->c, kind, t));
	LLVMSetParamAlignment(LLVMGetParam(f, i), align);
}

/* The ABI type of a kernel parameter in memory (composites and structs as
 * bytes).  An empty struct is one byte, as C++'s (kcuda's) sizeof says:
 * ptxas rejects a zero-length .param array. */
static LLVMTypeRef
bytes(A *a, const Module *m, Type t)
{
	int n = typesize(m, t);

	return LLVMArrayType2(a->i8, (uint64_t)(n > 0 ? n : 1));
}

/* A loop calling the body for task = first, first + step, ... < end. */
static void
taskloop(A *a, LLVMValueRef fn, LLVMValueRef first, LLVMValueRef end, LLVMValueRef step, LLVMValueRef *args, int nargs)
{
	LLVMBuilderRef b = a->b;
	LLVMValueRef f = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b)), i, next;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(a->c, f, "grid");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(a->c, f, "task");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(a->c, f, "done");

	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, head);
	i = LLVMBuildPhi(b, a->i64, "task");
	LLVMAddIncoming(i, &first, &pre, 1);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, i, end, ""), body, exit);
	LLVMPositionBuilderAtEnd(b, body);
	args[1] = i;
	LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)nargs, "");
	next = LLVMBuildAdd(b, i, step, "");
	LLVMAddIncoming(i, &next, &body, 1);
	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, exit);
	LLVMBuildRetVoid(b);
}

/* ---- nvptx ---- */

static void
ptxentry(A *a, int fi, LLVMValueRef *annot, int *nannot)
{
	Kx *x = a->x;
	const Module *m = kxkir(x);
	const Func *f = m->funcs[fi];
	LLVMTypeRef *pt = xmalloc((f->nparams + 1) * sizeof *pt), fty;
	LLVMValueRef e, *args = xmalloc((f->nparams + 2) * sizeof *args), size, first, step;
	LLVMBuilderRef b = a->b;
	uint32_t i;

	pt[0] = a->ptr;
	for (i = 0; i < f->nparams; i++) {
		Type t = f->vals[f->params[i]].ty;
		pt[1 + i] = t.k == T_SCALAR && t.s != S_F16 && t.s != S_BF16 ? kxmemtype(x, t) : a->ptr;
	}
	fty = LLVMFunctionType(LLVMVoidTypeInContext(a->c), pt, f->nparams + 1, 0);
	e = LLVMAddFunction(a->mod, emitfuncname(a->names, fi), fty);
	LLVMSetFunctionCallConv(e, LLVMPTXKernelCallConv);
	mustprogress(a, e);
	byval(a, e, 0, kxboundstype(x), 8);
	for (i = 0; i < f->nparams; i++) {
		Type t = f->vals[f->params[i]].ty;
		if (t.k == T_ARRAY)
			byval(a, e, 1 + i, kxarraytype(x, t.nd), 8);
		else if (t.k != T_SCALAR || t.s == S_F16 || t.s == S_BF16)
			byval(a, e, 1 + i, t.k == T_SCALAR ? kxmemtype(x, t) : bytes(a, m, t),
			      (unsigned)typealign(m, t));
	}
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(a->c, e, "entry"));
	args[0] = LLVMGetParam(e, 0);
	for (i = 0; i < f->nparams; i++) {
		Type t = f->vals[f->params[i]].ty;
		LLVMValueRef p = LLVMGetParam(e, 1 + i), v;
		if (t.k == T_ARRAY) {
			v = LLVMBuildLoad2(b, kxarraytype(x, t.nd), p, "");
		} else if (t.k == T_SCALAR && (t.s == S_F16 || t.s == S_BF16)) {
			v = LLVMBuildLoad2(b, kxmemtype(x, t), p, "");
		} else if (t.k == T_SCALAR && t.s == S_BOOL) {
			v = LLVMBuildICmp(b, LLVMIntNE, p, LLVMConstInt(a->i8, 0, 0), "");
		} else {
			v = p; /* scalars by value, composites and structs by their address */
		}
		args[2 + i] = v;
	}
	{
		LLVMValueRef idx[2] = {ci32(a, 0), ci32(a, 2)};
		size = LLVMBuildLoad2(b, a->i64, LLVMBuildGEP2(b, kxboundstype(x), args[0], idx, 2, ""), "size");
	}
	first = LLVMBuildAdd(b, LLVMBuildMul(b, sreg(a, "llvm.nvvm.read.ptx.sreg.ctaid.x"),
	                                     sreg(a, "llvm.nvvm.read.ptx.sreg.ntid.x"), ""),
	                     sreg(a, "llvm.nvvm.read.ptx.sreg.tid.x"), "");
	step = LLVMBuildMul(b, sreg(a, "llvm.nvvm.read.ptx.sreg.ntid.x"), sreg(a, "llvm.nvvm.read.ptx.sreg.nctaid.x"), "");
	taskloop(a, kxbody(x, fi), first, size, step, args, (int)f->nparams + 2);
	{
		LLVMMetadataRef md[3];
		md[0] = LLVMValueAsMetadata(e);
		md[1] = LLVMMDStringInContext2(a->c, "kernel", 6);
		md[2] = LLVMValueAsMetadata(ci32(a, 1));
		annot[(*nannot)++] = LLVMMetadataAsValue(a->c, LLVMMDNodeInContext2(a->c, md, 3));
	}
	free(pt);
	free(args);
}

/* ---- host ---- */

static void
hostentry(A *a, int fi, LLVMValueRef *launch)
{
	Kx *x = a->x;
	const Module *m = kxkir(x);
	const Func *f = m->funcs[fi];
	LLVMTypeRef pt[4] = {a->ptr, a->i64, a->i64, a->ptr}, fty;
	LLVMValueRef e, *args = xmalloc((f->nparams + 2) * sizeof *args);
	LLVMBuilderRef b = a->b;
	char name[600];
	uint32_t i;

	snprintf(name, sizeof name, "kpy_launch_%s", emitfuncname(a->names, fi));
	fty = LLVMFunctionType(LLVMVoidTypeInContext(a->c), pt, 4, 0);
	e = LLVMAddFunction(a->mod, name, fty);
	mustprogress(a, e);
	*launch = e;
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(a->c, e, "entry"));
	args[0] = LLVMGetParam(e, 0);
	for (i = 0; i < f->nparams; i++) {
		Type t = f->vals[f->params[i]].ty;
		LLVMValueRef ix = ci64(a, i), p, v;
		p = LLVMBuildLoad2(b, a->ptr, LLVMBuildGEP2(b, a->ptr, LLVMGetParam(e, 3), &ix, 1, ""), "");
		if (t.k == T_ARRAY) {
			/* kpy_array { ptr data; i32 ndim; i32 shape[4]; i64 strides[4]; } */
			LLVMValueRef r = LLVMGetUndef(kxarraytype(x, t.nd)), sh, st, q;
			LLVMValueRef off;
			int d;
			sh = LLVMGetUndef(LLVMArrayType2(a->i32, (uint64_t)t.nd));
			st = LLVMGetUndef(LLVMArrayType2(a->i64, (uint64_t)t.nd));
			r = LLVMBuildInsertValue(b, r, LLVMBuildLoad2(b, a->ptr, p, "data"), 0, "");
			for (d = 0; d < t.nd; d++) {
				off = ci64(a, 12 + 4 * d);
				q = LLVMBuildGEP2(b, a->i8, p, &off, 1, "");
				sh = LLVMBuildInsertValue(b, sh, LLVMBuildLoad2(b, a->i32, q, ""), (unsigned)d, "");
				off = ci64(a, 32 + 8 * d);
				q = LLVMBuildGEP2(b, a->i8, p, &off, 1, "");
				st = LLVMBuildInsertValue(b, st, LLVMBuildLoad2(b, a->i64, q, ""), (unsigned)d, "");
			}
			r = LLVMBuildInsertValue(b, r, sh, 1, "");
			v = LLVMBuildInsertValue(b, r, st, 2, "");
		} else if (t.k == T_SCALAR) {
			v = LLVMBuildLoad2(b, kxmemtype(x, t), p, "");
			if (t.s == S_BOOL)
				v = LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstInt(a->i8, 0, 0), "");
		} else {
			v = p;
		}
		args[2 + i] = v;
	}
	taskloop(a, kxbody(x, fi), LLVMGetParam(e, 1), LLVMGetParam(e, 2), ci64(a, 1), args, (int)f->nparams + 2);
	free(args);
}

/* The kernel table (kpy/kinfo.h), built as constant LLVM globals. */

static LLVMValueRef
namestr(A *a, const char *s)
{
	LLVMValueRef init = LLVMConstStringInContext(a->c, s, (unsigned)strlen(s), 0);
	LLVMValueRef g = LLVMAddGlobal(a->mod, LLVMTypeOf(init), "kpy.name");

	LLVMSetInitializer(g, init);
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
	return g;
}

static LLVMValueRef
global(A *a, const char *name, LLVMValueRef init, bool exported)
{
	LLVMValueRef g = LLVMAddGlobal(a->mod, LLVMTypeOf(init), name);

	LLVMSetInitializer(g, init);
	LLVMSetGlobalConstant(g, 1);
	LLVMSetLinkage(g, exported ? LLVMExternalLinkage : LLVMPrivateLinkage);
	return g;
}

enum { KS = 1, KV, KM, KQ, KT, KSTRUCT, KARR }; /* KPY_SCALAR .. KPY_ARRAY */

static LLVMTypeRef
typeinfot(A *a)
{
	LLVMTypeRef f[8];
	int i;

	for (i = 0; i < 8; i++)
		f[i] = a->i32;
	return LLVMStructTypeInContext(a->c, f, 8, 0);
}

/* {kind, elem, dtype, ndim, rows, cols, sid, size}; the dtype of `as`
 * (the type before f64 widening, or t) */
static LLVMValueRef
typeinfo(A *a, const Module *m, Type t, Type as)
{
	static const int kindof[] = {[T_SCALAR] = KS, [T_VEC] = KV, [T_MAT] = KM, [T_QUAT] = KQ,
		[T_XFORM] = KT, [T_STRUCT] = KSTRUCT, [T_ARRAY] = KARR};
	Type el = t.k == T_ARRAY ? telem(t) : t;
	LLVMValueRef v[8];
	int rows = 1, cols = 1;

	switch (el.k) {
	case T_VEC: rows = el.n; break;
	case T_MAT: rows = el.n; cols = el.m; break;
	case T_QUAT: rows = 4; break;
	case T_XFORM: rows = 7; break;
	}
	v[0] = ci32(a, kindof[t.k]);
	v[1] = ci32(a, kindof[el.k]);
	v[2] = ci32(a, el.k == T_STRUCT ? 0 : (as.k == T_ARRAY ? telem(as) : as).s);
	v[3] = ci32(a, t.k == T_ARRAY ? t.nd : 0);
	v[4] = ci32(a, rows);
	v[5] = ci32(a, cols);
	v[6] = ci32(a, el.k == T_STRUCT ? el.sid : -1);
	v[7] = ci32(a, typesize(m, el));
	return LLVMConstNamedStruct(typeinfot(a), v, 8);
}

/* The type o->abi gives parameter j of kernel fn (or field j of struct
 * sid), where it has the same shape; else t. */
static Type
abiparam(const KptxOpts *o, const Func *fn, uint32_t j, Type t)
{
	int fi = o->abi ? findfunc(o->abi, fn->name) : -1;
	const Func *g = fi >= 0 ? o->abi->funcs[fi] : NULL;
	Type u;

	if (!g || j >= g->nparams)
		return t;
	u = g->vals[g->params[j]].ty;
	return u.k == t.k && u.n == t.n && u.m == t.m && u.nd == t.nd ? u : t;
}

static Type
abifield(const KptxOpts *o, uint32_t sid, uint32_t j, Type t)
{
	Type u;

	if (!o->abi || sid >= o->abi->nstructs || j >= o->abi->structs[sid].nfields)
		return t;
	u = o->abi->structs[sid].fields[j].ty;
	return u.k == t.k && u.n == t.n && u.m == t.m && u.nd == t.nd ? u : t;
}

static void
hosttables(A *a, const KptxOpts *o, const LLVMValueRef *launch)
{
	const Module *m = kxkir(a->x);
	LLVMTypeRef tit = typeinfot(a), pt, ft, st, kt, f[10];
	LLVMValueRef *kin, v[10], g;
	unsigned **acc = paramaccess(m);
	int *kidx = xcalloc(m->nfuncs + 1, sizeof *kidx), nk = 0;
	uint32_t i, j;

	/* kpy_param_info { ptr name; kpy_type_info type; i32 access; i32 adjoint_of; } */
	f[0] = a->ptr; f[1] = tit; f[2] = a->i32; f[3] = a->i32;
	pt = LLVMStructTypeInContext(a->c, f, 4, 0);
	/* kpy_field_info { ptr name; kpy_type_info type; i64 offset; } */
	f[2] = a->i64;
	ft = LLVMStructTypeInContext(a->c, f, 3, 0);
	/* kpy_struct_info { ptr name; i32 nfields; ptr fields; i64 size; i64 align; } */
	f[0] = a->ptr; f[1] = a->i32; f[2] = a->ptr; f[3] = a->i64; f[4] = a->i64;
	st = LLVMStructTypeInContext(a->c, f, 5, 0);
	/* kpy_kernel_info { ptr name, cname, launch; i32 nparams; ptr params; i32 forward, backward, tid_dims; } */
	f[0] = a->ptr; f[1] = a->ptr; f[2] = a->ptr; f[3] = a->i32; f[4] = a->ptr; f[5] = a->i32; f[6] = a->i32; f[7] = a->i32;
	kt = LLVMStructTypeInContext(a->c, f, 8, 0);

	for (i = 0; i < m->nfuncs; i++)
		if (m->funcs[i]->kernel)
			kidx[i] = nk++;
	kin = xcalloc((size_t)nk + 1, sizeof *kin);
	for (i = 0, nk = 0; i < m->nfuncs; i++) {
		const Func *fn = m->funcs[i];
		LLVMValueRef *pin, params;
		int fw = -1, bw = -1;
		if (!fn->kernel)
			continue;
		pin = xcalloc(fn->nparams + 1, sizeof *pin);
		for (j = 0; j < fn->nparams; j++) {
			const char *nm = fn->vals[fn->params[j]].name;
			v[0] = namestr(a, nm ? nm : "");
			v[1] = typeinfo(a, m, fn->vals[fn->params[j]].ty, abiparam(o, fn, j, fn->vals[fn->params[j]].ty));
			v[2] = ci32(a, (int64_t)acc[i][j]);
			v[3] = ci32(a, adjointparam(m, fn, j));
			pin[j] = LLVMConstStructInContext(a->c, v, 4, 0);
		}
		pin[fn->nparams] = LLVMConstNull(pt);
		params = global(a, "kpy.params", LLVMConstArray2(pt, pin, fn->nparams + 1), false);
		if (fn->adjof >= 0 && (uint32_t)fn->adjof < m->nfuncs && m->funcs[fn->adjof]->kernel)
			fw = kidx[fn->adjof];
		for (j = 0; j < m->nfuncs; j++)
			if (m->funcs[j]->kernel && m->funcs[j]->adjof == (int)i)
				bw = kidx[j];
		v[0] = namestr(a, fn->name);
		v[1] = namestr(a, emitfuncname(a->names, (int)i));
		v[2] = launch[i];
		v[3] = ci32(a, fn->nparams);
		v[4] = params;
		v[5] = ci32(a, fw);
		v[6] = ci32(a, bw);
		v[7] = ci32(a, tiddims(&fn->body));
		kin[nk++] = LLVMConstStructInContext(a->c, v, 8, 0);
		free(pin);
	}
	kin[nk] = LLVMConstNull(kt);
	global(a, "kpy_abi_version", ci32(a, 1), true);
	global(a, "kpy_f32_size", ci32(a, o->f64 ? 8 : 4), true);
	global(a, "kpy_nkernels", ci32(a, nk), true);
	global(a, "kpy_kernels", LLVMConstArray2(kt, kin, (uint64_t)nk + 1), true);
	free(kin);
	/* structs */
	{
		LLVMValueRef *sin = xcalloc(m->nstructs + 1, sizeof *sin);
		for (i = 0; i < m->nstructs; i++) {
			const StructDef *sd = &m->structs[i];
			LLVMValueRef *fin = xcalloc(sd->nfields + 1, sizeof *fin), fields;
			for (j = 0; j < sd->nfields; j++) {
				v[0] = namestr(a, sd->fields[j].name);
				v[1] = typeinfo(a, m, sd->fields[j].ty, abifield(o, i, j, sd->fields[j].ty));
				v[2] = ci64(a, fieldoffset(m, (int)i, (int)j));
				fin[j] = LLVMConstStructInContext(a->c, v, 3, 0);
			}
			fin[sd->nfields] = LLVMConstNull(ft);
			fields = global(a, "kpy.fields", LLVMConstArray2(ft, fin, sd->nfields + 1), false);
			v[0] = namestr(a, sd->name);
			v[1] = ci32(a, sd->nfields);
			v[2] = fields;
			v[3] = ci64(a, typesize(m, tstruct((int)i)));
			v[4] = ci64(a, typealign(m, tstruct((int)i)));
			sin[i] = LLVMConstStructInContext(a->c, v, 5, 0);
			free(fin);
		}
		sin[m->nstructs] = LLVMConstNull(st);
		global(a, "kpy_nstructs", ci32(a, m->nstructs), true);
		g = global(a, "kpy_structs", LLVMConstArray2(st, sin, m->nstructs + 1), true);
		(void)g;
		free(sin);
	}
	freeparamaccess(m, acc);
	free(kidx);
}

int
kxentries(Kx *x, const KptxOpts *o)
{
	const Module *m = kxkir(x);
	A a = {0};
	EmitOpts eo = {0};
	LLVMValueRef *annot = xcalloc(m->nfuncs + 1, sizeof *annot), *launch = xcalloc(m->nfuncs + 1, sizeof *launch);
	int nannot = 0;
	uint32_t i;

	a.x = x;
	a.c = kxcontext(x);
	a.mod = kxmodule(x);
	a.b = LLVMCreateBuilderInContext(a.c);
	a.i8 = LLVMInt8TypeInContext(a.c);
	a.i32 = LLVMInt32TypeInContext(a.c);
	a.i64 = LLVMInt64TypeInContext(a.c);
	a.ptr = LLVMPointerTypeInContext(a.c, 0);
	eo.tool = "kptx";
	eo.cuda = o->target == KPTX_NVPTX;
	a.names = emitnew(m, &eo);
	for (i = 0; i < m->nfuncs; i++) {
		if (!m->funcs[i]->kernel)
			continue;
		if (o->target == KPTX_NVPTX)
			ptxentry(&a, (int)i, annot, &nannot);
		else
			hostentry(&a, (int)i, &launch[i]);
	}
	if (o->target == KPTX_NVPTX) {
		for (i = 0; i < (uint32_t)nannot; i++)
			LLVMAddNamedMetadataOperand(a.mod, "nvvm.annotations", annot[i]);
	} else {
		hosttables(&a, o, launch);
	}
	emitfree(a.names);
	LLVMDisposeBuilder(a.b);
	free(annot);
	free(launch);
	return 0;
}
