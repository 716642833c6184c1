/*
 * kptx.h — kptx, low kir to PTX (and host objects) through the LLVM C API.
 *
 * One pipeline, three files:
 *   kptx_emit.c    low kir -> an LLVM module: regions to a CFG, kir values
 *                  to SSA registers, ops through the `llvm` column of
 *                  ir/ops.def, each kernel's body as an internal function
 *                  run once per launch index;
 *   kptx_abi.c     the entry points around the bodies: a ptx_kernel with a
 *                  grid-stride loop (kcuda's parameter list), or kcpu's
 *                  extern "C" kpy_launch_K and kernel table (kpy/kinfo.h);
 *   kptx_target.c  libdevice (linked and internalized), the new pass
 *                  manager's default<On>, and the target machine writing PTX,
 *                  LLVM IR or an object file;
 *   kptx_jit.c     the host code loaded in process through LLVM's ORC JIT.
 * kptx.c is the command line.  Memory: the kir module lives in its arena;
 * LLVM objects live in one LLVMContext per run, disposed at the end.
 */
#ifndef KPY_KPTX_H
#define KPY_KPTX_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "ir.h"

enum { KPTX_NVPTX, KPTX_HOST };            /* targets */
enum { EMIT_PTX, EMIT_LL, EMIT_OBJ };      /* outputs */

/* The default -O: 1 for nvptx (as good PTX as O3 on tests/ptx's kernels, for
 * less time; docs/kptx-startup.md), 3 for host (krun's JIT objects). */
#define KPTX_OPTLEVEL(host) ((host) ? 3 : 1)

typedef struct KptxOpts {
	int target;            /* KPTX_NVPTX or KPTX_HOST */
	int emit;              /* EMIT_* */
	const char *arch;      /* nvptx: "sm_80" */
	const char *libdevice; /* path of libdevice.10.bc (nvptx) */
	int optlevel;          /* 0..3: the pass pipeline default<On>; kptx's default
	                        * KPTX_OPTLEVEL(host) */
	bool fmad;             /* contract a*b+c into fma (nvptx default, as nvcc) */
	bool fastmath;         /* --fast-math (nvptx): nvcc's --use_fast_math (ftz, approximate
	                        * sqrt, division and f32 sin/cos/exp/log/pow) */
	bool f64;              /* host: the module's f32 was widened to f64 as for kcpu's
	                        * output built with -DKPY_F32_DOUBLE (krun --double):
	                        * the kernel table says kpy_f32_size 8 */
	const Module *abi;     /* or NULL: the module whose parameter and field types
	                        * the kernel table reports (f64: the one before widening;
	                        * sizes and offsets are the compiled module's) */
	bool checked;          /* host: every array access checks its indices, as kcpu's
	                        * output built with -DKPY_CHECKED (kpy/array.h): a fault
	                        * goes to kpy_bounds_handler, which the module exports */
	bool verify;           /* run the LLVM verifier (always on; off only for debugging) */
	bool timing;           /* --time: print each phase's wall and CPU time on stderr */
	const Src *src;        /* the kir text, for located diagnostics */
	Diag *d;
} KptxOpts;

/* The state of one compilation (kptx_emit.c). */
typedef struct Kx Kx;

/* kptx_emit.c */
/* Check that m is low kir (every op F_LOW, scalar or array values); report
 * each violation located; returns the number. */
int kptxlowcheck(const Module *m, const KptxOpts *o);
/* Build the LLVM module of m in context c; NULL after reporting errors. */
Kx *kxnew(Module *m, const KptxOpts *o, LLVMContextRef c, LLVMTargetDataRef td, const char *triple);
LLVMModuleRef kxmodule(Kx *x);
int kxbuild(Kx *x);              /* errors reported */
void kxfree(Kx *x);
/* Pieces kptx_abi.c uses. */
LLVMValueRef kxbody(Kx *x, int fi);          /* @kir.K(bounds, task, params...) */
LLVMTypeRef kxbodytype(Kx *x, int fi);
LLVMTypeRef kxvaltype(Kx *x, Type t);        /* type of a kir value in registers */
LLVMTypeRef kxmemtype(Kx *x, Type t);        /* type of a kir scalar in memory */
LLVMTypeRef kxarraytype(Kx *x, int nd);      /* { ptr, [nd x i32], [nd x i64] } */
LLVMTypeRef kxboundstype(Kx *x);             /* kpy_launch_bounds */
LLVMContextRef kxcontext(Kx *x);
const Module *kxkir(Kx *x);
void kxerror(Kx *x, const Func *f, const Op *op, const char *fmt, ...) KPY_PRINTF(4, 5);

/* kptx_abi.c: entry points (and, for the host, the kernel table). */
int kxentries(Kx *x, const KptxOpts *o);

/* kptx_target.c */
/* Whole compilation: returns 0 and the output in *out, or the number of
 * errors (reported). */
int kptxcompile(Module *m, const KptxOpts *o, Buf *out);
/* The target machine of o (NULL after reporting); *triple (an LLVM
 * message) is its triple. */
LLVMTargetMachineRef kptxmachine(Module *m, const KptxOpts *o, char **triple);
/* The LLVM module of low kir m in context c, verified, libdevice linked
 * (nvptx), internalized and through default<On>: returns 0 and the module
 * (owned by c) in *mod, or the number of errors (reported). */
int kptxlower(Module *m, const KptxOpts *o, LLVMContextRef c, LLVMTargetMachineRef tm, const char *triple,
              LLVMModuleRef *mod);

/* kptx_jit.c: the host code of low kir loaded in this process (LLVM ORC
 * LLJIT), for krun to run through the same kernel table (kpy/kinfo.h) a
 * dlopened module has. */
typedef struct KptxJit KptxJit;
/* Compile m (o->target KPTX_HOST) and load it; NULL after reporting. */
KptxJit *kptxjit(Module *m, const KptxOpts *o);
/* The address of a symbol the loaded code defines (kpy_kernels, ...), or
 * NULL. */
void *kptxjitsym(KptxJit *j, const char *name);
void kptxjitfree(KptxJit *j);

#endif
