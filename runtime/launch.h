/*
 * launch.h — one launch of a kernel of the kernel table (kpy/kinfo.h) on
 * host arrays: the arguments bound to the ABI, arrays moved against guard
 * pages, the threads in an order, the first out-of-bounds access caught
 * and described, an output array as written.  Shared by krun and keval's
 * python target (evalpy.c), so that a launch means the same in both.
 */
#ifndef KPY_LAUNCH_H
#define KPY_LAUNCH_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include "ir.h"
#include "data.h"

/* An array moved against a guard page (see run_guard()). */
typedef struct Guard {
	void *base;     /* the mapping */
	size_t len;     /* its bytes, the guard page included */
	void *orig;     /* the array's own buffer, given back by run_free() */
} Guard;

typedef struct Run {
	const kpy_kernel_info *k;
	KpyArg *args;
	kpy_array *abi;
	void **argp;
	Guard *guards;  /* per parameter, or NULL */
} Run;

/* The threads' order: forward (one call over the whole launch), reverse,
 * or a seeded shuffle, one thread per call. */
enum { ORDER_FORWARD, ORDER_REVERSE, ORDER_SHUFFLE };

/* r for kernel k, its arguments zeroed (to be made by the caller). */
void run_init(Run *r, const kpy_kernel_info *k);
void run_free(Run *r);
/* Point the ABI at the host data of every argument. */
void run_bind(Run *r);
/* Move each array argument so that it ends where a PROT_NONE page begins;
 * 0, or -1 when memory is short. */
int run_guard(Run *r);

/* A seeded permutation of 0 .. n-1 (Fisher-Yates over splitmix64). */
int64_t *run_permutation(int64_t n, uint64_t seed);
/* Run the threads of r over b in order (perm: the shuffle's). */
void run_threads(const Run *r, const kpy_launch_bounds *b, int order, const int64_t *perm);

/* The first out-of-bounds access of the current launch: a checked module's
 * kpy_bounds_handler is run_onbounds, which records it in run_fault and
 * longjmps to run_faultjmp, set by the launch. */
extern kpy_bounds_fault run_fault;
extern jmp_buf run_faultjmp;
void run_onbounds(const kpy_bounds_fault *f);
/* "[FILE:LINE: ]error: kernel K reads array 'x' at index (..), outside
 * its shape (..)" for run_fault in r's arguments, into m; file: the source
 * to name (NULL: none).  Returns the array's name, or NULL where the
 * access is in none of them. */
const char *run_faultline(const Run *r, const char *file, Buf *m);

/* The array written for sub array j of a (j < 0: a itself): its data as
 * stored, or in f32size's float32 (dbl: as stored, the double build's);
 * tmp holds a conversion (its data freed by the caller).  NULL when
 * memory is short. */
const NpyArray *run_output(const KpyArg *a, int j, bool dbl, int f32size, NpyArray *tmp);

#endif
