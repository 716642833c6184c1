/*
 * evalpy.h — keval's python target in process (evalpy.c): the Warp-Python
 * through the frontend and the passes (the libraries kpyc and kopt drive),
 * its kir through krun's JIT (jit.c), and its launches as krun makes them,
 * without a process per tool or per trial.  See keval(1), docs/keval.md.
 */
#ifndef KPY_EVALPY_H
#define KPY_EVALPY_H

#include <stdbool.h>
#include <stdio.h>

#include "ir.h"
#include "npy.h"

/* A module loaded by the JIT: its kernel table. */
typedef struct PyMod {
	void *jit;
	const kpy_kernel_info *kernels;
	int nkernels;
	const kpy_struct_info *structs;
	int f32size;
} PyMod;

/* kpyc | kopt -p ad,O | kopt -p forward|backward of the Python text (its
 * diagnostics name NAME.py) in this process, the module's text in kir.
 * 0, or -1 with "kpyc failed: " or "kopt failed: " and the first error
 * line in why. */
int evalpy_compile(const char *text, size_t len, const char *name, bool backward, Buf *kir, char *why, size_t n);
/* Load module text kir (named name) through krun's JIT at -O0,
 * bounds-checked (dbl: f32 as f64, as krun --double).  0, or -1 with a
 * message in why (the JIT's diagnostics on stderr). */
int evalpy_load(const char *name, const Buf *kir, bool dbl, PyMod *m, char *why, size_t n);
/* One launch of kernel kname of m over b, as krun MODULE --kernel KNAME
 * --dim B --seed SEED --order ORDER --in=P=in[i] (for every array P of
 * ref, the reference's kernel, i its index there: the .npy file's data)
 * --out=- [--double] [--sandbox: guard]: its arrays written to f in krun's
 * --out=- stream.  0, or -1 with the reason in why (an out-of-bounds
 * access: krun's message). */
int evalpy_run(const PyMod *m, const char *kname, const kpy_kernel_info *ref, const NpyArray *in,
               const kpy_launch_bounds *b, unsigned long long seed, const char *order, bool guard, bool dbl, FILE *f,
               char *why, size_t n);

/* The first line of s (NULL: none) that says "error", else its first
 * line, into dst (n chars). */
void evalpy_errline(const char *s, char *dst, size_t n);

#endif /* KPY_EVALPY_H */
