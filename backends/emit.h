/*
 * emit.h — the C++ statement and expression emitter shared by kcpu and kcuda.
 *
 * One emitter, two wrappers: emit.c turns every kir function into readable
 * C++ (a @wp.func into a static function, a kernel into a per-thread
 * function NAME_kernel(bounds, task, params...)); kcpu.c and kcuda.c only
 * add what differs: function qualifiers, the launch loop and, for kcpu, the
 * kernel table krun reads.
 *
 * Naming (deterministic, byte for byte):
 *  - module level: a function or kernel named N is spelled N with every
 *    character that is not a C identifier character ('.' in K.adj) turned
 *    into '_'; a name that is a C++ keyword, a C library, CUDA or kpy name,
 *    or already taken becomes N_1 (N_2 ...).  A @wp.func named like a kir op
 *    (length, step ...) is spelled N_ first, so that argument-dependent
 *    lookup never meets the runtime's kpy::N.  A kernel K reserves K,
 *    K_kernel and kpy_launch_K together.
 *  - struct fields keep their kir names (a keyword becomes N_1).
 *  - values: the Python name (a trailing ".N" dropped), deduplicated as x,
 *    x_1, x_2 ...; unnamed values are t0, t1 ...; every name avoids the
 *    module-level names and the emitter's own (bounds, task, ...).
 * Expressions: a pure operation (or a load or a read-only call) whose value
 * is used once, in the same region, is written into its use; everything
 * else becomes a declaration `T name = expr;`.  Loop-carried values are
 * mutable variables (one per carried slot, shared by the loop's parameter
 * and result) assigned before each back edge; if results are variables
 * assigned in each branch.
 */
#ifndef KPY_EMIT_H
#define KPY_EMIT_H

#include "ir.h"

typedef struct EmitOpts {
	bool cuda;        /* CUDA: __device__ functions */
	bool linedirs;    /* #line directives from op locations */
	const char *tool; /* "kcpu" or "kcuda", for the header comment */
} EmitOpts;

typedef struct Emit Emit;

/* Header families a module uses (bits of emitfamilies()). */
enum {
	FAM_CORE = 1 << 0, FAM_VEC = 1 << 1, FAM_MAT = 1 << 2, FAM_QUAT = 1 << 3,
	FAM_TRANSFORM = 1 << 4, FAM_SPATIAL = 1 << 5, FAM_DECOMP = 1 << 6, FAM_ARRAY = 1 << 7,
	FAM_ATOMIC = 1 << 8, FAM_RAND = 1 << 9, FAM_NOISE = 1 << 10, FAM_PRINT = 1 << 11,
};

Emit *emitnew(const Module *m, const EmitOpts *o);
void emitfree(Emit *e);

/* The header comment, the #include lines of the families used (plus
 * `extra` lines, may be NULL), struct definitions and every @wp.func. */
void emitprologue(Emit *e, Buf *out, const char *extra);
/* The per-thread function of kernel number fi:
 *   static inline void NAME_kernel(const kpy::launch_bounds &bounds,
 *                                  int64_t task, PARAMS...)  */
void emitkernel(Emit *e, Buf *out, int fi);

unsigned emitfamilies(const Emit *e);
const Module *emitmodule(const Emit *e);
/* C++ spelling of a type ("kpy::vec3f", "kpy::array_t<kpy::f32, 1>", "Body"). */
void emitctype(const Emit *e, Buf *out, Type t);
/* Module-level C++ name of function/kernel fi and of struct sid. */
const char *emitfuncname(const Emit *e, int fi);
const char *emitstructname(const Emit *e, int sid);
const char *emitfieldname(const Emit *e, int sid, int field);
/* C++ name of parameter pi of function fi (as in its definition). */
const char *emitparamname(const Emit *e, int fi, int pi);
/* ACC_* of parameter pi of kernel fi. */
unsigned emitparamaccess(const Emit *e, int fi, int pi);
/* Number of results of the widest tid in kernel fi (0: no tid). */
int emittiddims(const Emit *e, int fi);
/* Write s as a C string literal. */
void emitcstring(Buf *out, const char *s);

/* ------------------------------------------------------------------ */
/* load.c — reading a module for a back end                            */

/* Read, parse and verify a kir file ("-": standard input).  Diagnostics go
 * to stderr; returns NULL on bad input (the caller exits 1).  *text keeps
 * the source alive for diagnostics; free it after modfree(). */
Module *loadkir(const char *path, char **text);

/* ------------------------------------------------------------------ */
/* cpu.c — kcpu's wrappers                                             */

/* The whole C++ translation unit for the CPU: prologue, per-thread kernel
 * functions, extern "C" entry points and the kernel table (kpy/kinfo.h). */
void emitcpu(const Module *m, const EmitOpts *o, Buf *out);
/* Parts of the table, also used by kcuda's standalone programs:
 * kpy_fields_S[] per struct, kpy_structs[] (declared `qual`), and
 * kpy_params_K[] of kernel fi. */
void emitfieldtables(const Emit *e, Buf *out);
void emitstructlist(const Emit *e, Buf *out, const char *qual);
void emitparamtable(const Emit *e, Buf *out, int fi);

/* ------------------------------------------------------------------ */
/* cuda.c — kcuda's wrappers                                           */

typedef struct CudaOpts {
	bool standalone;      /* add a host main() */
	const char *kernel;   /* standalone: kir name of the kernel to run (NULL: first forward) */
	const char *dim;      /* standalone: default launch dims "N[,M..]" */
	int seed;             /* standalone: default seed */
	const char *arch;     /* Makefile: default sm_NN */
	const char *include;  /* Makefile: default directory of the kpy/ headers */
} CudaOpts;

/* The CUDA translation unit: device functions, extern "C" __global__
 * kernels with grid-stride loops and, with standalone, the host program. */
void emitcuda(const Module *m, const EmitOpts *o, const CudaOpts *co, Buf *out);
/* 0, or -1 when a standalone program has no kernel to run. */
int emitcudacheck(const Module *m, const CudaOpts *co);
/* A Makefile building `cu` (its base name `name`) with nvcc. */
void emitmakefile(const CudaOpts *co, const char *cu, const char *name, Buf *out);

#endif /* KPY_EMIT_H */
