/*
 * kptx_target.c — from the LLVM module to the output: the target machine,
 * libdevice, internalization, the pass pipeline and the writer.
 *
 * nvptx: triple nvptx64-nvidia-cuda, CPU sm_XX (LLVM picks the PTX ISA
 * version the SM needs), module flag nvvm-reflect-ftz = 0 (no flush to
 * zero, as nvcc without --use_fast_math) and libdevice's
 * __nvvm_reflect("__CUDA_PREC_SQRT") = 1 (IEEE sqrt.rn, as nvcc's
 * -prec-sqrt=true); f32 division is LLVM's fdiv, which NVPTX lowers to
 * the correctly rounded div.rn.f32.  --fast-math turns all three the other
 * way, as nvcc's --use_fast_math: ftz, sqrt.approx, div.full/approx.  When the module calls a __nv_*
 * function, libdevice.10.bc is read and linked in; then every function but
 * the entry points is made internal, so that the pipeline keeps only the
 * libdevice functions the kernels use and inlines them (NVVMReflect, which
 * the NVPTX target machine adds to the pipeline, resolves __nvvm_reflect).
 * host: the default triple, the generic CPU of its architecture (x86-64:
 * the code runs on any x86-64), position-independent code, so that the
 * object can be linked into a shared object krun loads.
 * Then `default<On>` (the new pass manager's, LLVMRunPasses; -O n, 1 for
 * nvptx and 3 for host unless told) and the target machine's assembly
 * (PTX) or object writer.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "kptx.h"

/* LLVM's own diagnostics (link warnings and the like) are not ours to
 * print; errors come back through return values. */
static void
quiet(LLVMDiagnosticInfoRef di, void *ctx)
{
	(void)di;
	(void)ctx;
}

static void
moderror(const KptxOpts *o, const Module *m, const char *what, const char *msg)
{
	Src s = *o->src;
	Loc loc = {1, 1, 0};

	if (m->nfuncs && m->funcs[0]->kloc.line)
		loc = m->funcs[0]->kloc;
	diagerr(o->d, &s, loc, "%s%s%s", what, msg && *msg ? ": " : "", msg ? msg : "");
}

/* mod declares a function whose name begins with prefix (one it calls
 * and a bitcode library defines: libdevice's __nv_, the runtime's kpy_rt_) */
static bool
declares(LLVMModuleRef mod, const char *prefix)
{
	size_t l = strlen(prefix);
	LLVMValueRef f;

	for (f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
		size_t n;
		const char *name = LLVMGetValueName2(f, &n);
		if (LLVMIsDeclaration(f) && n > l && strncmp(name, prefix, l) == 0)
			return true;
	}
	return false;
}

/* Read the bitcode library at path lazily: a function body is read only
 * when the linker needs it.  NULL after a located error naming it (what:
 * "libdevice", "the runtime's bitcode"; hint follows the path). */
static LLVMModuleRef
readlib(LLVMContextRef c, const KptxOpts *o, const Module *m, const char *path, const char *what, const char *hint,
        const char *invalid)
{
	LLVMMemoryBufferRef mb;
	LLVMModuleRef lib;
	char *msg = NULL;

	if (LLVMCreateMemoryBufferWithContentsOfFile(path, &mb, &msg)) {
		Buf b = {0};
		bufprintf(&b, "cannot read %s %s%s", what, path, hint);
		moderror(o, m, b.s, msg);
		buffree(&b);
		LLVMDisposeMessage(msg);
		return NULL;
	}
	if (LLVMGetBitcodeModuleInContext2(c, mb, &lib)) { /* takes the buffer */
		moderror(o, m, invalid, path);
		return NULL;
	}
	return lib;
}

/* Link lib into mod.  Its definitions made linkonce_odr, the linker links
 * only those the module calls (and what they call), so that neither
 * reading nor the pipeline spends time on the rest of the library.  0, or
 * 1 after a located error. */
static int
linklib(LLVMModuleRef mod, LLVMModuleRef lib, const KptxOpts *o, const Module *m, const char *what,
        const char *path)
{
	LLVMValueRef f, g;

	for (f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
			LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
	for (g = LLVMGetFirstGlobal(lib); g; g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g) && LLVMGetLinkage(g) == LLVMExternalLinkage)
			LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
	LLVMSetTarget(lib, LLVMGetTarget(mod));
	LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(mod));
	if (LLVMLinkModules2(mod, lib)) { /* takes lib */
		Buf b = {0};
		bufprintf(&b, "linking %s failed", what);
		moderror(o, m, b.s, path);
		buffree(&b);
		return 1;
	}
	return 0;
}

static int
linklibdevice(LLVMContextRef c, LLVMModuleRef mod, const KptxOpts *o, const Module *m)
{
	LLVMModuleRef ld;

	if (!o->libdevice || !*o->libdevice) {
		moderror(o, m, "the module calls libdevice math but no libdevice.10.bc is known "
		               "(configure with the CUDA toolkit, or give --libdevice=PATH)", NULL);
		return 1;
	}
	if (!(ld = readlib(c, o, m, o->libdevice, "libdevice", "", "libdevice is not valid bitcode")))
		return 1;
	return linklib(mod, ld, o, m, "libdevice", o->libdevice);
}

/* The path of kptx_rt.bc: $KPY_KPTX_RT, else beside the running program
 * (the build tree), else in ../share/kpy beside it (an installed tree,
 * wherever it was moved: DESTDIR, a copied prefix), else where it was
 * installed. */
static const char *
rtpath(Buf *b)
{
	const char *e = getenv("KPY_KPTX_RT");
	char exe[4096];
	ssize_t n;

	if (e && *e)
		return e;
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
		char *slash;
		exe[n] = 0;
		if ((slash = strrchr(exe, '/'))) {
			slash[1] = 0;
			bufprintf(b, "%skptx_rt.bc", exe);
			if (access(b->s, R_OK) == 0)
				return b->s;
			b->n = 0;
			bufprintf(b, "%s../share/kpy/kptx_rt.bc", exe);
			if (access(b->s, R_OK) == 0)
				return b->s;
		}
	}
	return KPY_KPTX_RT;
}

static void
redirect(LLVMModuleRef mod, LLVMValueRef f, const char *name)
{
	LLVMValueRef g = LLVMGetNamedFunction(mod, name);

	if (!g)
		g = LLVMAddFunction(mod, name, LLVMGlobalGetValueType(f));
	LLVMReplaceAllUsesWith(f, g);
	LLVMDeleteFunction(f);
}

/* nvptx: the C library's math and LLVM's math intrinsics of the runtime's
 * code, as libdevice's functions. */
static void
rtmath(LLVMModuleRef mod)
{
	static const char *const libm[] = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
	                                   "tanh", "exp", "exp2", "log", "log2", "log10", "pow", "sqrt", "cbrt",
	                                   "fmod", "erf", "erfc", "hypot"};
	LLVMValueRef f, next;

	for (f = LLVMGetFirstFunction(mod); f; f = next) {
		size_t n, i;
		const char *name = LLVMGetValueName2(f, &n);
		char to[64];
		next = LLVMGetNextFunction(f);
		if (!LLVMIsDeclaration(f) || n >= 40)
			continue;
		for (i = 0; i < countof(libm); i++) {
			size_t k = strlen(libm[i]);
			if (strncmp(name, "llvm.", 5) == 0 && strncmp(name + 5, libm[i], k) == 0 &&
			    (strcmp(name + 5 + k, ".f32") == 0 || strcmp(name + 5 + k, ".f64") == 0)) {
				snprintf(to, sizeof to, "__nv_%s%s", libm[i], name[5 + k + 2] == '3' ? "f" : "");
				break;
			}
			if (strncmp(name, libm[i], k) == 0 && (!name[k] || (name[k] == 'f' && !name[k + 1]))) {
				snprintf(to, sizeof to, "__nv_%s", name);
				break;
			}
		}
		if (i < countof(libm))
			redirect(mod, f, to);
	}
}

/* The runtime's composite builtins (kptx_rt.bc, backends/kptx_rt.cpp):
 * linked when the module calls a kpy_rt_* function (a runtime stub's
 * body), lazily and linkonce_odr as libdevice.  The bitcode is the host's
 * (clang for x86-64 generic): its functions lose their target-cpu and
 * target-features, so that they inline into kptx's (always: scalarize's
 * expansions were inline code); for nvptx, its math
 * becomes libdevice's as kptx's own ops' (the C library's sinf and the
 * llvm.sin.f32 clang makes of it: __nv_sinf), and with --fmad=on its
 * fadd, fsub and fmul may contract, as kptx's own. */
static int
linkrt(LLVMContextRef c, LLVMModuleRef mod, const KptxOpts *o, const Module *m)
{
	static const char *const drop[] = {"target-cpu", "target-features", "tune-cpu"};
	LLVMModuleRef rt;
	LLVMValueRef f;
	char **names = NULL;
	size_t nnames = 0, cap = 0, i, k;
	Buf b = {0};
	const char *path = rtpath(&b);
	unsigned inl = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	int nerr = 0;

	if (!(rt = readlib(c, o, m, path, "the runtime's bitcode", " (set KPY_KPTX_RT)",
	                   "the runtime's bitcode is not valid"))) {
		buffree(&b);
		return 1;
	}
	for (f = LLVMGetFirstFunction(rt); f; f = LLVMGetNextFunction(f)) {
		size_t n;
		const char *name = LLVMGetValueName2(f, &n);
		if (LLVMIsDeclaration(f))
			continue;
		for (k = 0; k < countof(drop); k++)
			LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, drop[k], (unsigned)strlen(drop[k]));
		/* inline, as scalarize's expansions were */
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, inl, 0));
		if (nnames == cap)
			names = xrealloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
		names[nnames++] = xstrdup(name);
	}
	if (linklib(mod, rt, o, m, "the runtime's bitcode", path)) {
		nerr = 1;
		goto done;
	}
	/* a stub the shim does not define (a kptx_rt.bc older than kopt) */
	for (f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
		size_t n;
		const char *name = LLVMGetValueName2(f, &n);
		if (LLVMIsDeclaration(f) && n > 7 && strncmp(name, "kpy_rt_", 7) == 0) {
			Buf e = {0};
			bufprintf(&e, "the runtime's bitcode %s does not define %s", path, name);
			moderror(o, m, e.s, NULL);
			buffree(&e);
			nerr++;
		}
	}
	if (nerr)
		goto done;
	if (o->target != KPTX_HOST)
		rtmath(mod);
	/* the kernels' bodies, grown by the runtime's inline code, still
	 * inline into their one entry point */
	for (f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
		size_t n;
		const char *name = LLVMGetValueName2(f, &n);
		LLVMUseRef u = LLVMGetFirstUse(f);
		if (!LLVMIsDeclaration(f) && strncmp(name, "kir.", 4) == 0 && u && !LLVMGetNextUse(u))
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, inl, 0));
	}
	/* --fmad=on: the linked functions' float arithmetic may contract */
	for (i = 0; i < nnames && o->fmad; i++) {
		LLVMBasicBlockRef bb;
		LLVMValueRef in;
		if (!(f = LLVMGetNamedFunction(mod, names[i])) || LLVMIsDeclaration(f))
			continue;
		for (bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			for (in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
				LLVMOpcode op = LLVMGetInstructionOpcode(in);
				if ((op == LLVMFAdd || op == LLVMFSub || op == LLVMFMul) && LLVMCanValueUseFastMathFlags(in))
					LLVMSetFastMathFlags(in, LLVMGetFastMathFlags(in) | LLVMFastMathAllowContract);
			}
	}
done:
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	buffree(&b); /* path */
	return nerr;
}

/* libdevice asks __nvvm_reflect("__CUDA_PREC_SQRT") whether sqrtf (and
 * hypotf, norm3df, ...) is IEEE (sqrt.rn) or approximate; LLVM 19's
 * NVVMReflect knows only __CUDA_FTZ and __CUDA_ARCH and answers 0 to the
 * rest, which would select sqrt.approx.f32.  Answer it here, before the
 * pipeline: 1 (precise, nvcc's -prec-sqrt=true, clang's -fcuda-prec-sqrt)
 * unless --fast-math. */
static void
reflectprecsqrt(LLVMModuleRef mod, bool fast)
{
	LLVMValueRef f = LLVMGetNamedFunction(mod, "__nvvm_reflect"), *calls = NULL;
	LLVMUseRef u;
	size_t n = 0, cap = 0, i;

	if (!f)
		return;
	for (u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef call = LLVMGetUser(u), arg, g;
		const char *s;
		size_t len;
		if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != f || LLVMGetNumArgOperands(call) != 1)
			continue;
		arg = LLVMGetOperand(call, 0);
		/* the argument: the string's global, possibly through a cast or a
		 * constant GEP to its first byte */
		for (g = arg; g && LLVMIsAConstantExpr(g);)
			g = LLVMGetOperand(g, 0);
		if (!g || !LLVMIsAGlobalVariable(g) || !LLVMGetInitializer(g) ||
		    !LLVMIsAConstantDataSequential(LLVMGetInitializer(g)))
			continue;
		s = LLVMGetAsString(LLVMGetInitializer(g), &len);
		if (len < 16 || memcmp(s, "__CUDA_PREC_SQRT", 16) != 0 || (len > 16 && s[16]))
			continue;
		if (n == cap)
			calls = xrealloc(calls, (cap = cap ? 2 * cap : 16) * sizeof *calls);
		calls[n++] = call;
	}
	for (i = 0; i < n; i++) {
		LLVMReplaceAllUsesWith(calls[i], LLVMConstInt(LLVMTypeOf(calls[i]), !fast, 0));
		LLVMInstructionEraseFromParent(calls[i]);
	}
	free(calls);
}

/* --fast-math, as nvcc's --use_fast_math: f32 denormals flushed to zero
 * (.ftz), division and square root approximate (div.full/div.approx,
 * sqrt.approx), on every function the module defines. */
static void
fastattrs(LLVMContextRef c, LLVMModuleRef mod)
{
	static const char *const kv[][2] = {
		{"unsafe-fp-math", "true"},
		{"approx-func-fp-math", "true"},
		{"denormal-fp-math-f32", "preserve-sign,preserve-sign"},
	};
	LLVMValueRef f;
	size_t i;

	for (f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		for (i = 0; i < countof(kv); i++)
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
			                        LLVMCreateStringAttribute(c, kv[i][0], (unsigned)strlen(kv[i][0]), kv[i][1],
			                                                  (unsigned)strlen(kv[i][1])));
	}
}

/* Everything but the entry points (and the host's kernel table) is
 * internal: unused functions and globals are then dropped by the pipeline. */
static void
internalize(LLVMModuleRef mod, bool host)
{
	LLVMValueRef f, g;

	for (f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
		size_t n;
		const char *name = LLVMGetValueName2(f, &n);
		if (LLVMIsDeclaration(f))
			continue;
		if (host ? strncmp(name, "kpy_launch_", 11) == 0 : LLVMGetFunctionCallConv(f) == LLVMPTXKernelCallConv)
			continue;
		LLVMSetLinkage(f, LLVMInternalLinkage);
	}
	for (g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g)) {
		size_t n;
		const char *name = LLVMGetValueName2(g, &n);
		if (LLVMIsDeclaration(g) || (host && strncmp(name, "kpy_", 4) == 0 && LLVMGetLinkage(g) == LLVMExternalLinkage))
			continue;
		if (LLVMGetLinkage(g) != LLVMPrivateLinkage)
			LLVMSetLinkage(g, LLVMInternalLinkage);
	}
}

/* Find the function the verifier complains about, for the location. */
static int
verifymod(LLVMModuleRef mod, const KptxOpts *o, const Module *m)
{
	char *msg = NULL;
	LLVMValueRef f;
	Src s = *o->src;

	if (!LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
		LLVMDisposeMessage(msg);
		return 0;
	}
	for (f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
		size_t n;
		const char *name = LLVMGetValueName2(f, &n);
		int fi;
		if (LLVMIsDeclaration(f) || !LLVMVerifyFunction(f, LLVMReturnStatusAction))
			continue;
		if (n > 4 && strncmp(name, "kir.", 4) == 0 && (fi = findfunc(m, name + 4)) >= 0) {
			diagerr(o->d, &s, m->funcs[fi]->kloc.line ? m->funcs[fi]->kloc : (Loc){1, 1, 0},
			        "in @%s: LLVM verifier: %s", m->funcs[fi]->name, msg ? msg : "");
			LLVMDisposeMessage(msg);
			return 1;
		}
	}
	moderror(o, m, "LLVM verifier", msg);
	LLVMDisposeMessage(msg);
	return 1;
}

static void
inittargets(bool host)
{
	if (host) {
		LLVMInitializeNativeTarget();
		LLVMInitializeNativeAsmPrinter();
	} else {
		LLVMInitializeNVPTXTargetInfo();
		LLVMInitializeNVPTXTarget();
		LLVMInitializeNVPTXTargetMC();
		LLVMInitializeNVPTXAsmPrinter();
	}
}

/* --time: the wall and CPU (user + system) time of each phase, on
 * stderr; the first line, "start", is the time from the process's start
 * (its CPU time; the wall time is not known) to the first phase. */
static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double
cpunow(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double lapcpu;

static void
lap(const KptxOpts *o, double *t, const char *what)
{
	double n, c;

	if (!o->timing)
		return;
	n = now();
	c = cpunow();
	fprintf(stderr, "kptx: %-28s %8.2f ms wall %8.2f ms CPU\n", what, 1e3 * (n - *t), 1e3 * (c - lapcpu));
	*t = n;
	lapcpu = c;
}

/* nvptx's -O1 pipeline: LLVM 19's default<O1> as `opt -passes='default<O1>'
 * -print-pipeline-passes` prints it for nvptx64-nvidia-cuda, less four of its
 * eight instcombines (the one after bdce and the last one of the inliner's
 * function simplification, the one after loop-unroll, and the two around
 * the loop vectorizer, which is dropped with loop-distribute and
 * loop-load-elim: it does nothing for NVPTX here).  kopt has already
 * inlined, unrolled, folded and CSE'd the kernel; the instcombines were 40%
 * of the pipeline's time.  It adds O2's gvn after memcpyopt: without it a
 * load after an `if` that one arm also makes is made twice (ray_plane ran
 * 1.05x Warp's time on an H200 against O3's 1.00x; docs/gpu-bundle.md), for
 * 8% more of kptx's time.  docs/kptx-startup.md has the measurements. */
#define IC "instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>"
#define SCFG_(r, u)                                                                                  \
	"simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;" r "switch-range-to-icmp;no-switch-to-" \
	"lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-"    \
	"branch;" u "speculate-unpredictables>"
#define SCFG SCFG_("", "no-")
static const char nvptxo1[] =
	"annotation2metadata,forceattrs,function(nvvm-reflect,nvvm-intr-range),inferattrs,"
	"coro-early,function<eager-inv>(ee-instrument<>,lower-expect," SCFG_("no-", "no-") ","
	"sroa<modify-cfg>,early-cse<>),openmp-opt,ipsccp,called-value-propagation,globalopt,"
	"always-inline,require<globals-aa>,function(invalidate<aa>),require<profile-summary>,"
	"cgscc(devirt<4>(inline,function-attrs<skip-non-recursive-function-attrs>,"
	"function<eager-inv;no-rerun>(sroa<modify-cfg>,early-cse<memssa>," SCFG "," IC ",libcalls-shrinkwrap,"
	SCFG ",reassociate,loop-mssa(loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,"
	"loop-rotate<header-duplication;no-prepare-for-lto>,licm<allowspeculation>,"
	"simple-loop-unswitch<no-nontrivial;trivial>)," SCFG "," IC ",loop(loop-idiom,"
	"indvars,loop-deletion,loop-unroll-full),sroa<modify-cfg>,memcpyopt,gvn<>,sccp,bdce,coro-elide,"
	"adce," SCFG "),"
	"function-attrs,function(require<should-not-run-function-passes>),coro-split)),"
	"deadargelim,coro-cleanup,globalopt,globaldce,elim-avail-extern,rpo-function-attrs,"
	"recompute-globalsaa,function<eager-inv>(float2int,lower-constant-intrinsics,"
	"loop(loop-rotate<header-duplication;no-prepare-for-lto>,loop-deletion),loop-unroll<O1>,"
	"transform-warning,sroa<preserve-cfg>,infer-alignment,loop-mssa(licm<allowspeculation>),"
	"alignment-from-assumptions,loop-sink,instsimplify,div-rem-pairs,tailcallelim,"
	SCFG_("", "") "),"
	"globaldce,constmerge,cg-profile,rel-lookup-table-converter,function(annotation-remarks)";
#undef IC
#undef SCFG
#undef SCFG_

LLVMTargetMachineRef
kptxmachine(Module *m, const KptxOpts *o, char **triple)
{
	bool host = o->target == KPTX_HOST;
	char *err = NULL;
	const char *cpu;
	LLVMTargetRef target;
	LLVMTargetMachineRef tm;
	LLVMCodeGenOptLevel lvl;

	*triple = host ? LLVMGetDefaultTargetTriple() : LLVMCreateMessage("nvptx64-nvidia-cuda");
	inittargets(host);
	if (LLVMGetTargetFromTriple(*triple, &target, &err)) {
		moderror(o, m, "no LLVM target", err);
		LLVMDisposeMessage(err);
		return NULL;
	}
	cpu = host ? (strncmp(*triple, "x86_64", 6) == 0 ? "x86-64" : "generic") : o->arch;
	/* the code generator's level: host, Aggressive at every -O but 0 (its
	 * objects are those of before); nvptx, Aggressive at -O3 only:
	 * Default runs EarlyCSE where Aggressive runs GVN twice before
	 * instruction selection (docs/kptx-startup.md) */
	lvl = !o->optlevel ? LLVMCodeGenLevelNone
	      : host || o->optlevel == 3 ? LLVMCodeGenLevelAggressive
	                                 : LLVMCodeGenLevelDefault;
	tm = LLVMCreateTargetMachine(target, *triple, cpu, "", lvl,
	                             host ? LLVMRelocPIC : LLVMRelocDefault, LLVMCodeModelDefault);
	if (!tm)
		moderror(o, m, "cannot create the target machine", cpu);
	return tm;
}

int
kptxlower(Module *m, const KptxOpts *o, LLVMContextRef c, LLVMTargetMachineRef tm, const char *triple,
          LLVMModuleRef *modp)
{
	double t = now();
	bool host = o->target == KPTX_HOST;
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	Kx *x = NULL;
	LLVMModuleRef mod;
	int nerr = 0;

	LLVMContextSetDiagnosticHandler(c, quiet, NULL);
	x = kxnew(m, o, c, td, triple);
	*modp = mod = kxmodule(x);
	if ((nerr = kxbuild(x)) || (nerr = kxentries(x, o)))
		goto done;
	lap(o, &t, "LLVM IR built");
	if ((nerr = verifymod(mod, o, m)))
		goto done;
	lap(o, &t, "LLVM verifier");
	if (declares(mod, "kpy_rt_")) {
		if ((nerr = linkrt(c, mod, o, m)))
			goto done;
		lap(o, &t, "runtime linked");
	}
	if (!host) {
		LLVMAddModuleFlag(mod, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
		                  LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), o->fastmath, 0)));
		if (declares(mod, "__nv_") && (nerr = linklibdevice(c, mod, o, m)))
			goto done;
		reflectprecsqrt(mod, o->fastmath);
		if (o->fastmath)
			fastattrs(c, mod);
	}
	lap(o, &t, "libdevice linked");
	internalize(mod, host);
	{
		LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
		char pipe[32];
		LLVMErrorRef e;
		const char *passes = pipe;
		if (!host && o->optlevel == 1) {
			passes = nvptxo1;
			snprintf(pipe, sizeof pipe, "kptx's O1 pipeline");
		} else {
			snprintf(pipe, sizeof pipe, "default<O%d>", o->optlevel);
		}
		e = LLVMRunPasses(mod, passes, tm, po);
		LLVMDisposePassBuilderOptions(po);
		lap(o, &t, pipe);
		if (e) {
			char *msg = LLVMGetErrorMessage(e);
			moderror(o, m, "LLVM pass pipeline", msg);
			LLVMDisposeErrorMessage(msg);
			nerr = 1;
			goto done;
		}
	}
done:
	kxfree(x);
	LLVMDisposeTargetData(td);
	return nerr;
}

int
kptxcompile(Module *m, const KptxOpts *o, Buf *out)
{
	double t = now();
	char *triple = NULL, *err = NULL;
	LLVMTargetMachineRef tm = NULL;
	LLVMContextRef c = NULL;
	LLVMModuleRef mod;
	int nerr = 0;

	if (o->timing) {
		lapcpu = cpunow();
		fprintf(stderr, "kptx: %-28s %8s    %8.2f ms CPU\n", "start", "", 1e3 * lapcpu);
	}
	if ((nerr = kptxlowcheck(m, o)))
		goto done;
	lap(o, &t, "low kir check");
	if (!(tm = kptxmachine(m, o, &triple))) {
		nerr = 1;
		goto done;
	}
	lap(o, &t, "target machine");
	c = LLVMContextCreate();
	if ((nerr = kptxlower(m, o, c, tm, triple, &mod)))
		goto done;
	t = now();
	if (o->emit == EMIT_LL) {
		char *s = LLVMPrintModuleToString(mod);
		bufputs(out, s);
		LLVMDisposeMessage(s);
	} else {
		LLVMMemoryBufferRef mb;
		if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, o->emit == EMIT_PTX ? LLVMAssemblyFile : LLVMObjectFile, &err,
		                                        &mb)) {
			moderror(o, m, "LLVM code generation", err);
			LLVMDisposeMessage(err);
			nerr = 1;
			goto done;
		}
		bufwrite(out, LLVMGetBufferStart(mb), LLVMGetBufferSize(mb));
		LLVMDisposeMemoryBuffer(mb);
	}
	lap(o, &t, o->emit == EMIT_PTX ? "PTX written" : o->emit == EMIT_LL ? "IR printed" : "object written");
done:
	if (c)
		LLVMContextDispose(c);
	if (tm)
		LLVMDisposeTargetMachine(tm);
	if (triple)
		LLVMDisposeMessage(triple);
	return nerr;
}
