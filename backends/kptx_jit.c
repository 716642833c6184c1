/*
 * kptx_jit.c — the host code of low kir, compiled and loaded in this
 * process through LLVM's ORC LLJIT (the same libLLVM kptx uses).
 *
 * The module is the one kptx --target=host writes as an object (the same
 * lowering, entry points and kernel table, through default<On>); LLJIT
 * generates its code with a target machine made from kptx's (same CPU,
 * features, optimization level) and links it in memory; the C library's
 * functions (sinf, memcpy, ...) resolve to this process's.  The caller
 * then reads kpy_kernels and the other tables through kptxjitsym, as krun
 * reads them through dlsym from a shared object.
 *
 * Memory: one LLJIT per module, holding its code until kptxjitfree; the
 * kir module is not referenced after kptxjit returns.
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>

#include "kptx.h"

struct KptxJit {
	LLVMOrcLLJITRef jit; /* owns the code and the tables */
};

/* Report an LLVM error (and consume it). */
static void
jiterror(const KptxOpts *o, const Module *m, const char *what, LLVMErrorRef e)
{
	char *msg = LLVMGetErrorMessage(e);
	Src s = *o->src;
	Loc loc = {1, 1, 0};

	if (m->nfuncs && m->funcs[0]->kloc.line)
		loc = m->funcs[0]->kloc;
	diagerr(o->d, &s, loc, "%s: %s", what, msg ? msg : "");
	LLVMDisposeErrorMessage(msg);
}

KptxJit *
kptxjit(Module *m, const KptxOpts *o)
{
	char *triple = NULL;
	LLVMTargetMachineRef tm;
	LLVMOrcThreadSafeContextRef tsc;
	LLVMOrcLLJITBuilderRef jb;
	LLVMOrcLLJITRef jit = NULL;
	LLVMOrcDefinitionGeneratorRef gen;
	LLVMOrcJITDylibRef jd;
	LLVMModuleRef mod;
	LLVMErrorRef e;
	KptxJit *j;

	if (o->target != KPTX_HOST)
		die("kptxjit: the JIT runs host code only");
	if (kptxlowcheck(m, o))
		return NULL;
	if (!(tm = kptxmachine(m, o, &triple))) {
		LLVMDisposeMessage(triple);
		return NULL;
	}
	tsc = LLVMOrcCreateNewThreadSafeContext();
	if (kptxlower(m, o, LLVMOrcThreadSafeContextGetContext(tsc), tm, triple, &mod)) {
		LLVMOrcDisposeThreadSafeContext(tsc); /* and the module in it */
		LLVMDisposeTargetMachine(tm);
		LLVMDisposeMessage(triple);
		return NULL;
	}
	LLVMDisposeMessage(triple);
	/* the code generator: kptx's target machine (taken over by the builder) */
	jb = LLVMOrcCreateLLJITBuilder();
	LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
	if ((e = LLVMOrcCreateLLJIT(&jit, jb))) { /* takes the builder */
		jiterror(o, m, "cannot create the LLVM JIT", e);
		LLVMOrcDisposeThreadSafeContext(tsc);
		return NULL;
	}
	jd = LLVMOrcLLJITGetMainJITDylib(jit);
	if ((e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL,
	                                                               NULL))) {
		jiterror(o, m, "LLVM JIT: the process's symbols", e);
		goto fail;
	}
	LLVMOrcJITDylibAddGenerator(jd, gen);
	e = LLVMOrcLLJITAddLLVMIRModule(jit, jd, LLVMOrcCreateNewThreadSafeModule(mod, tsc));
	LLVMOrcDisposeThreadSafeContext(tsc); /* the module holds it now */
	tsc = NULL;
	if (e) {
		jiterror(o, m, "LLVM JIT: adding the module", e);
		goto fail;
	}
	/* compile and link now, so that errors are reported here */
	{
		LLVMOrcExecutorAddress a;
		if ((e = LLVMOrcLLJITLookup(jit, &a, "kpy_kernels"))) {
			jiterror(o, m, "LLVM JIT", e);
			goto fail;
		}
	}
	j = xcalloc(1, sizeof *j);
	j->jit = jit;
	return j;
fail:
	if (tsc)
		LLVMOrcDisposeThreadSafeContext(tsc);
	if ((e = LLVMOrcDisposeLLJIT(jit)))
		LLVMConsumeError(e);
	return NULL;
}

void *
kptxjitsym(KptxJit *j, const char *name)
{
	LLVMOrcExecutorAddress a = 0;
	LLVMErrorRef e = LLVMOrcLLJITLookup(j->jit, &a, name);

	if (e) {
		LLVMConsumeError(e);
		return NULL;
	}
	return (void *)(uintptr_t)a;
}

void
kptxjitfree(KptxJit *j)
{
	LLVMErrorRef e;

	if (!j)
		return;
	if ((e = LLVMOrcDisposeLLJIT(j->jit)))
		LLVMConsumeError(e);
	free(j);
}
