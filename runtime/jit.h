/*
 * jit.h — krun's .kir modules: lowered and compiled in process (jit.c).
 */
#ifndef KPY_JIT_H
#define KPY_JIT_H

#include <stdbool.h>

/* The pipeline that lowers kopt -p ad,O's output for kptx (as kshard
 * lowers a kernel's ad.kir into low.kir). */
#define KRUN_LOWER_PIPELINE "inline,unroll,scalarize,O"

/* Load the kir module FILE: parsed, verified, lowered with
 * KRUN_LOWER_PIPELINE, compiled for the host by kptx's back end at -O
 * optlevel (dbl: f32 computed and stored as f64; checked: array accesses
 * checked, faults to kpy_bounds_handler) and loaded by LLVM's JIT.
 * Returns a handle for jitsym, or NULL after a message on stderr.  A file
 * loaded before with the same options returns the same handle (krun
 * --batch loads each module once; its children inherit the code). */
void *jitload(const char *file, bool dbl, bool checked, int optlevel);
/* The same for the kir module text (len bytes, NUL-terminated; its
 * diagnostics name name), compiled each call (keval's modules). */
void *jitloadtext(const char *name, const char *text, size_t len, bool dbl, bool checked, int optlevel);
/* The address of a symbol of a loaded module, or NULL. */
void *jitsym(void *h, const char *name);

#endif
