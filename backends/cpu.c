/*
 * cpu.c — kcpu's wrappers around the shared emitter: for each kernel an
 * extern "C" entry point looping over a range of the launch, and the
 * kernel table of kpy/kinfo.h.
 */
#include <stdlib.h>
#include <string.h>

#include "emit.h"

static const char *const kindname[] = {
	[T_SCALAR] = "KPY_SCALAR", [T_VEC] = "KPY_VEC", [T_MAT] = "KPY_MAT", [T_QUAT] = "KPY_QUAT",
	[T_XFORM] = "KPY_TRANSFORM", [T_STRUCT] = "KPY_STRUCT", [T_ARRAY] = "KPY_ARRAY",
};

static const char *const dtypename[NSCALAR] = {
	"KPY_BOOL", "KPY_I8", "KPY_I16", "KPY_I32", "KPY_I64", "KPY_U8", "KPY_U16", "KPY_U32", "KPY_U64",
	"KPY_F16", "KPY_F32", "KPY_F64", "KPY_BF16",
};

/* {kind, elem, dtype, ndim, rows, cols, sid, size} */
static void
typeinfo(const Emit *e, Buf *b, Type t)
{
	Type el = t.k == T_ARRAY ? telem(t) : t;
	int rows = 1, cols = 1;

	switch (el.k) {
	case T_VEC: rows = el.n; break;
	case T_MAT: rows = el.n; cols = el.m; break;
	case T_QUAT: rows = 4; break;
	case T_XFORM: rows = 7; break;
	}
	bufprintf(b, "{%s, %s, %s, %d, %d, %d, %d, sizeof(", kindname[t.k], kindname[el.k],
	          el.k == T_STRUCT ? "0" : dtypename[el.s], t.k == T_ARRAY ? t.nd : 0, rows, cols,
	          el.k == T_STRUCT ? el.sid : -1);
	emitctype(e, b, el);
	bufputs(b, ")}");
}

void
emitfieldtables(const Emit *e, Buf *b)
{
	const Module *m = emitmodule(e);
	uint32_t i, j;

	for (i = 0; i < m->nstructs; i++) {
		const StructDef *sd = &m->structs[i];
		const char *sn = emitstructname(e, (int)i);
		bufprintf(b, "static const kpy_field_info kpy_fields_%s[] = {\n", sn);
		for (j = 0; j < sd->nfields; j++) {
			Type t = sd->fields[j].ty;
			bufputs(b, "    {");
			emitcstring(b, sd->fields[j].name);
			bufputs(b, ", ");
			typeinfo(e, b, t);
			bufprintf(b, ", offsetof(%s, %s)},\n", sn, emitfieldname(e, (int)i, (int)j));
		}
		bufputs(b, "    {NULL, {0, 0, 0, 0, 0, 0, 0, 0}, 0},\n};\n");
		/* krun fills array fields by the layout kpy/kinfo.h describes */
		for (j = 0; j < sd->nfields; j++) {
			Type t = sd->fields[j].ty;
			if (t.k != T_ARRAY)
				continue;
			bufputs(b, "static_assert(sizeof(");
			emitctype(e, b, t);
			bufprintf(b, ") == %d, \"array_t layout (kpy/kinfo.h)\");\n", 8 + 8 * ((t.nd + 1) / 2) + 8 * t.nd);
		}
	}
}

void
emitstructlist(const Emit *e, Buf *b, const char *qual)
{
	const Module *m = emitmodule(e);
	uint32_t i;

	bufprintf(b, "%s kpy_struct_info kpy_structs[] = {\n", qual);
	for (i = 0; i < m->nstructs; i++) {
		const char *sn = emitstructname(e, (int)i);
		bufputs(b, "    {");
		emitcstring(b, m->structs[i].name);
		bufprintf(b, ", %u, kpy_fields_%s, sizeof(%s), alignof(%s)},\n", m->structs[i].nfields, sn, sn, sn);
	}
	bufputs(b, "    {NULL, 0, NULL, 0, 0},\n};\n");
}

void
emitparamtable(const Emit *e, Buf *b, int fi)
{
	const Module *m = emitmodule(e);
	const Func *f = m->funcs[fi];
	uint32_t j;

	bufprintf(b, "static const kpy_param_info kpy_params_%s[] = {\n", emitfuncname(e, fi));
	for (j = 0; j < f->nparams; j++) {
		const char *nm = f->vals[f->params[j]].name;
		unsigned acc = emitparamaccess(e, fi, (int)j);
		bufputs(b, "    {");
		emitcstring(b, nm ? nm : "");
		bufputs(b, ", ");
		typeinfo(e, b, f->vals[f->params[j]].ty);
		bufprintf(b, ", %s%s%s%s%s%s, %d},\n", acc & ACC_READ ? "KPY_READ" : "",
		          (acc & ACC_READ) && (acc & ~ACC_READ) ? " | " : "", acc & ACC_WRITE ? "KPY_WRITE" : "",
		          (acc & ACC_MINMAX) ? " | " : "", acc & ACC_MINMAX ? "KPY_MINMAX" : "", acc ? "" : "0",
		          adjointparam(m, f, j));
	}
	bufputs(b, "    {NULL, {0, 0, 0, 0, 0, 0, 0, 0}, 0, 0},\n};\n");
}

/* A kernel with array parameters is called twice by its entry point (see
 * emitentry): declare it force-inlined, before its definition, so that
 * both copies of the loop get its body to specialise, whatever its size
 * (as Warp's CPU kernels, templates instantiated once per loop). */
static void
emitinlines(const Emit *e, Buf *b)
{
	const Module *m = emitmodule(e);
	uint32_t i, j;
	bool first = true;

	for (i = 0; i < m->nfuncs; i++) {
		const Func *f = m->funcs[i];
		bool arrays = false;
		if (!f->kernel)
			continue;
		for (j = 0; j < f->nparams; j++)
			arrays |= f->vals[f->params[j]].ty.k == T_ARRAY;
		if (!arrays)
			continue;
		if (first)
			bufputs(b, "\n// Each called by both loops of its entry point: inlined into both.\n");
		first = false;
		bufprintf(b, "static KPY_FORCEINLINE void %s_kernel(const kpy::launch_bounds &, int64_t", emitfuncname(e, (int)i));
		for (j = 0; j < f->nparams; j++) {
			bufputs(b, ", ");
			emitctype(e, b, f->vals[f->params[j]].ty);
		}
		bufputs(b, ");\n");
	}
}

/* The entry point of kernel fi: its parameters from args, then the loop
 * over its threads.  A kernel with array parameters gets the loop twice,
 * in kpy_tasks_N (force-inlined into both calls): once for arrays that are
 * all C-contiguous and thread numbers that fit an i32, with each array's
 * strides rewritten from its extents (kpy::contiguous_view) so that the
 * compiler knows the innermost one and that an index never wraps (Warp's
 * wp_linear_contiguous kernels), and once for any other launch. */
static void
emitentry(const Emit *e, Buf *b, int fi)
{
	const Func *f = emitmodule(e)->funcs[fi];
	const char *fn = emitfuncname(e, fi);
	uint32_t j, narrays = 0;

	for (j = 0; j < f->nparams; j++)
		narrays += f->vals[f->params[j]].ty.k == T_ARRAY;
	if (narrays) {
		bufprintf(b, "\nstatic KPY_FORCEINLINE void kpy_tasks_%s(const kpy_launch_bounds *bounds, int64_t begin, int64_t end", fn);
		for (j = 0; j < f->nparams; j++) {
			bufputs(b, ", ");
			emitctype(e, b, f->vals[f->params[j]].ty);
			bufprintf(b, " %s", emitparamname(e, fi, (int)j));
		}
		bufputs(b, ")\n{\n");
		bufprintf(b, "    for (int64_t task = begin; task < end; ++task)\n        %s_kernel(*bounds, task", fn);
		for (j = 0; j < f->nparams; j++)
			bufprintf(b, ", %s", emitparamname(e, fi, (int)j));
		bufputs(b, ");\n}\n");
	}
	bufprintf(b, "\nextern \"C\" void kpy_launch_%s(const kpy_launch_bounds *bounds, int64_t begin, int64_t end, void **%s)\n{\n",
	          fn, f->nparams ? "args" : "/*args*/");
	for (j = 0; j < f->nparams; j++) {
		Type t = f->vals[f->params[j]].ty;
		bufputs(b, "    ");
		emitctype(e, b, t);
		if (t.k == T_ARRAY) {
			bufprintf(b, " %s(*(const kpy_array *)args[%u]);\n", emitparamname(e, fi, (int)j), j);
		} else {
			bufprintf(b, " %s = *(const ", emitparamname(e, fi, (int)j));
			emitctype(e, b, t);
			bufprintf(b, " *)args[%u];\n", j);
		}
	}
	if (!narrays) {
		bufprintf(b, "    for (int64_t task = begin; task < end; ++task)\n        %s_kernel(*bounds, task", fn);
		for (j = 0; j < f->nparams; j++)
			bufprintf(b, ", %s", emitparamname(e, fi, (int)j));
		bufputs(b, ");\n}\n");
		return;
	}
	bufputs(b, "    if (begin >= 0 && end <= INT32_MAX");
	for (j = 0; j < f->nparams; j++)
		if (f->vals[f->params[j]].ty.k == T_ARRAY)
			bufprintf(b, " && kpy::contiguous(%s)", emitparamname(e, fi, (int)j));
	bufprintf(b, ")\n        kpy_tasks_%s(bounds, begin, end", fn);
	for (j = 0; j < f->nparams; j++)
		bufprintf(b, f->vals[f->params[j]].ty.k == T_ARRAY ? ", kpy::contiguous_view(%s)" : ", %s",
		          emitparamname(e, fi, (int)j));
	bufprintf(b, ");\n    else\n        kpy_tasks_%s(bounds, begin, end", fn);
	for (j = 0; j < f->nparams; j++)
		bufprintf(b, ", %s", emitparamname(e, fi, (int)j));
	bufputs(b, ");\n}\n");
}

void
emitcpu(const Module *m, const EmitOpts *o, Buf *b)
{
	Emit *e = emitnew(m, o);
	uint32_t i, j;
	int nk = 0, *kidx = xcalloc(m->nfuncs + 1, sizeof(int)), *bwof = xmalloc((m->nfuncs + 1) * sizeof(int));

	emitprologue(e, b, "#include \"kpy/kinfo.h\"\n\n#include <stddef.h>\n");
	emitinlines(e, b);
	for (i = 0; i < m->nfuncs; i++) {
		const Func *f = m->funcs[i];
		if (!f->kernel)
			continue;
		kidx[i] = nk++;
		bufputc(b, '\n');
		emitkernel(e, b, (int)i);
	}
	/* entry points */
	for (i = 0; i < m->nfuncs; i++)
		if (m->funcs[i]->kernel)
			emitentry(e, b, (int)i);
	/* the table */
	bufputs(b, "\n// The kernel table (kpy/kinfo.h) krun reads.\n");
	emitfieldtables(e, b);
	for (i = 0; i < m->nfuncs; i++)
		if (m->funcs[i]->kernel)
			emitparamtable(e, b, (int)i);
	bufprintf(b, "\nextern \"C\" const int32_t kpy_abi_version = KPY_ABI_VERSION;\n");
	bufprintf(b, "extern \"C\" const int32_t kpy_f32_size = sizeof(kpy::f32);\n");
	bufprintf(b, "extern \"C\" const int32_t kpy_nkernels = %d;\n", nk);
	bufputs(b, "extern \"C\" const kpy_kernel_info kpy_kernels[] = {\n");
	/* each kernel's backward kernel (the last one naming it) */
	for (i = 0; i < m->nfuncs; i++)
		bwof[i] = -1;
	for (j = 0; j < m->nfuncs; j++)
		if (m->funcs[j]->kernel && m->funcs[j]->adjof >= 0 && (uint32_t)m->funcs[j]->adjof < m->nfuncs)
			bwof[m->funcs[j]->adjof] = kidx[j];
	for (i = 0; i < m->nfuncs; i++) {
		const Func *f = m->funcs[i];
		const char *fn = emitfuncname(e, (int)i);
		int fw = -1, bw = bwof[i];
		if (!f->kernel)
			continue;
		if (f->adjof >= 0 && (uint32_t)f->adjof < m->nfuncs && m->funcs[f->adjof]->kernel)
			fw = kidx[f->adjof];
		bufputs(b, "    {");
		emitcstring(b, f->name);
		bufprintf(b, ", \"%s\", kpy_launch_%s, %u, kpy_params_%s, %d, %d, %d},\n", fn, fn, f->nparams, fn, fw, bw,
		          emittiddims(e, (int)i));
	}
	bufputs(b, "    {NULL, NULL, NULL, 0, NULL, 0, 0, 0},\n};\n");
	bufprintf(b, "extern \"C\" const int32_t kpy_nstructs = %u;\n", m->nstructs);
	emitstructlist(e, b, "extern \"C\" const");
	free(kidx);
	free(bwof);
	emitfree(e);
}
