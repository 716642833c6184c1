/*
 * passes.h — the kopt pass library: one function per pass (passes.def).
 */
#ifndef KPY_PASSES_H
#define KPY_PASSES_H

#include "ir.h"

/* What every pass gets besides the module. */
typedef struct PassOpts {
	Diag *d;           /* diagnostics */
	const Src *src;    /* the kir text the module came from (for kloc) */
	int max_unroll;    /* unroll: largest trip count unrolled (Warp: 16) */
} PassOpts;

/* A pass returns 0, or the number of errors it reported to o->d. */
typedef int (*PassFn)(Module *m, PassOpts *o);

typedef struct PassInfo {
	const char *name;
	PassFn fn;
	const char *doc;
} PassInfo;

#define PASS(name, fn, doc) int fn(Module *m, PassOpts *o);
#include "passes.def"
#undef PASS

extern const PassInfo passtab[];
extern const int npasses;
const PassInfo *findpass(const char *name, size_t len);
/* Append the passes of a comma-separated list ("O": the default pipeline)
 * to pipe[*npipe..max); false, with a message, on an unknown name. */
bool addpasses(const char *list, const PassInfo **pipe, int *npipe, int max);

/* The pipeline -O stands for. */
#define KOPT_DEFAULT_PIPELINE "fold,cse,dce"

#endif
