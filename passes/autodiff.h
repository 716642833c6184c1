/*
 * autodiff.h — what the autodiff and inline passes share: removing
 * escapes from structured control flow, inlined copies of functions, and
 * the derivative-rule language of ops.def's `deriv` column.  (They clone
 * ops with libkir's cloner, ir/clone.c.)
 *
 * Sectioned by the file that implements each group (see ir.h).
 */
#ifndef KPY_AUTODIFF_H
#define KPY_AUTODIFF_H

#include "passes.h"

/* ------------------------------------------------------------------ */
/* autodiff_clone.c — escape removal, pass diagnostics                */

/* Append a loop-carried value of type t, initially init, to loop l (a for
 * or while of f); returns its region value and stores its result in *res.
 * The loop's terminators must then carry one more value. */
Val loopcarry(Module *m, Func *f, Op *l, Type t, Val init, Val *res);

/* Escape removal.  In mode SZ_RET, every `ret` that is not the last op of
 * the function body is removed; in mode SZ_ALL, every break, continue and
 * nested ret is.  Escapes sink to the ends of regions by moving the rest of
 * a region into the branches that fall through (tail duplication), and a
 * loop that an escape leaves (break, or ret inside it) gets a carried i32
 * exit code (0 running, 1 broke, 2 returned) and carried return values; its
 * body is guarded by the code, so its remaining iterations do nothing, and
 * a return is re-raised after the loop.  Meaning is preserved exactly.
 * Returns the number of errors reported (constructs it cannot handle). */
enum { SZ_RET, SZ_ALL };
int structurize(Module *m, Func *f, int mode, Diag *d, const Src *src);

/* Located diagnostics for passes: at the op's Python location when it has
 * one (the source line is shown when the file can be read), else at its
 * position in the kir text, else at the function. */
void passdiag(Module *m, PassOpts *o, const Func *f, const Op *op, const char *kind,
              const char *fmt, ...) KPY_PRINTF(6, 7);

/* ------------------------------------------------------------------ */
/* inline.c                                                            */

/* A scratch copy of function fi with every call inlined (recursively) and,
 * for a @wp.func, its nested returns removed (SZ_RET).  Memoised in *memo
 * (m->nfuncs entries, zeroed by the caller, freed by inlinefree).  NULL
 * after reporting an error (recursion). */
typedef struct InlineMemo {
	Func **copy;   /* per function: the inlined copy, or NULL */
	uint8_t *state; /* per function: 0 not started, 1 in progress, 2 done */
	int nerr;
} InlineMemo;
void inlineinit(InlineMemo *im, const Module *m);
void inlinefree(InlineMemo *im);
Func *inlinedcopy(Module *m, PassOpts *o, InlineMemo *im, int fi);

/* ------------------------------------------------------------------ */
/* autodiff_rules.c — the `deriv` column                               */

/* One application of a rule: the op's operands and results (as values of
 * the backward function), the adjoints of its results (0: zero), and where
 * to emit.  adrule() writes the contributions to the operands' adjoints
 * into contrib[0..nargs) (0: none) and returns 0, or returns -1 with a
 * message in *err when the op has no rule or the rule does not apply to
 * these operand types. */
typedef struct RuleApp {
	Builder *b;
	int code;        /* OP_* */
	int attr;        /* the op's immediate */
	const Val *x;    /* operands */
	int nx;
	const Val *y;    /* results */
	int ny;
	const Val *g;    /* adjoints of the results (0: zero) */
} RuleApp;
int adrule(RuleApp *ra, Val *contrib, const char **err);
/* Free what adrule keeps between calls (parsed rules). */
void adrulesdone(void);
/* Check the syntax of every rule in ops.def; writes problems to out and
 * returns their number. */
int adrulecheck(FILE *out);
/* The zero of a value type in b's function (a constant, or a `zero` op for
 * structs). */
Val adzero(Builder *b, Type t);
/* a + c for adjoints of type t (either may be 0 for zero); structs add
 * field by field. */
Val adadd(Builder *b, Val a, Val c);
/* Is v known to be zero (a zero constant or a `zero` op)? */
bool adiszero(Builder *b, Val v);
/* Does type t carry an adjoint (float scalars, float composites, structs
 * with such fields)? */
bool addiff(const Module *m, Type t);

/* ------------------------------------------------------------------ */
/* autodiff_sink.c — where a backward kernel zeroes adjoints           */

/* Move each store of zero to an array parameter of backward kernel f to
 * the end of its region when no later op of the region may touch the same
 * element, and one store ending both arms of an if to after the if. */
void sinkzeroes(Module *m, Func *f);

#endif
