/*
 * chain.h — kpy's codegen chain in one process: kpyc's Module goes to
 * kopt's passes and to kcpu's or kcuda's emitter in memory, with no kir
 * text printed and parsed between the stages.  Its output is byte for
 * byte what the pipe `kpyc | kopt -p PASSES | kcuda` writes
 * (tests/cli/chain.test).  kpyc's --emit option is its driver.
 */
#ifndef KPY_CHAIN_H
#define KPY_CHAIN_H

#include "ir.h"
#include "passes.h"
#include "emit.h"

typedef enum { CHAIN_KIR, CHAIN_CUDA, CHAIN_CPP } ChainEmit;

typedef struct ChainOpts {
	const PassInfo *const *pipe; /* the passes (addpasses), run in order */
	int npipe;
	int max_unroll;              /* kpyc's and kopt's --max-unroll (16) */
	ChainEmit emit;              /* what to write: kir, CUDA C++ or CPU C++ */
	bool linedirs;               /* C++: #line directives */
	const CudaOpts *co;          /* CHAIN_CUDA: kcuda's options */
} ChainOpts;

/* Compile the Python sources, run the passes on the module and append the
 * kir or C++ to out.  Diagnostics go to d (a pass's, which in the pipe
 * point into kir text, carry no kir position here).  Returns 0, or 1 when
 * the input was rejected (out is then left as it was). */
int kchain(Src *srcs, int n, const ChainOpts *o, Diag *d, Buf *out);

#endif /* KPY_CHAIN_H */
