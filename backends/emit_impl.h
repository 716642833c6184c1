/*
 * emit_impl.h — what the files of the C++ emitter share (emit.h is its
 * public face, used by kcpu, kcuda and kptx):
 *
 * emit.c        the module level: C++ types, module analysis (names,
 *               header families, what writes, what kernels reach),
 *               functions, kernels and the prologue
 * emit_names.c  name sets: unique, sanitized C++ identifiers
 * emit_live.c   the per-function analysis run before anything is
 *               written: liveness, uses, shared variables, inlining
 * emit_expr.c   expressions: literals, ops.def's C++ templates
 * emit_stmt.c   statements: declarations, assignments, control flow
 *
 * Private to backends/emit*.c.
 */
#ifndef KPY_EMIT_IMPL_H
#define KPY_EMIT_IMPL_H

#include "emit.h"

/* emit_names.c */

/* A set of C++ names; lookups also see the parent's. */
typedef struct NameSet {
	StrMap set;      /* the names (owned copies) */
	const struct NameSet *parent; /* names also taken (unchanged while this set lives), or NULL */
	StrMap hint;     /* uniqname's hints: per base (owned), the first of its
	                  * candidates that may be free */
} NameSet;

/* An empty set under parent whose names are copied into a (an arena
 * that outlives it; NULL: malloc'd copies, freed by nsfree). */
void nsinit(NameSet *ns, const NameSet *parent, Arena *a);
bool nshas(const NameSet *ns, const char *s);
void nsadd(NameSet *ns, const char *s);
void nsfree(NameSet *ns);
char *sanitize(const char *name, bool drop);
char *uniqname(NameSet *ns, const char *base, const char *const *also, int nalso);

/* emit.c */

typedef struct FState FState;

struct Emit {
	const Module *m;
	EmitOpts o;
	Arena *names;     /* the copies of the name sets' names */
	NameSet global;   /* module-level names, reserved words and op names */
	NameSet locals;   /* what a local variable may not be called */
	char **fname;     /* per function: C++ name */
	char **sname;     /* per struct: C++ name */
	char ***field;    /* per struct, per field: C++ name */
	bool *writes;     /* per function: writes memory or prints (itself or through calls) */
	bool *reached;    /* per function: called (maybe indirectly) by a kernel */
	unsigned **acc;   /* per function, per parameter: ACC_* */
	int *tiddims;     /* per function: widest tid */
	unsigned fam;     /* FAM_* used */
	bool asserts;     /* the module has assert ops */
	FState **fs;      /* per function: analysis (emitted lazily) */
};

/* Per-function analysis and emission state. */
struct FState {
	Emit *e;
	const Module *m;
	const Func *f;
	int fi;
	uint8_t *need;        /* per Val: read by the output */
	uint32_t *uses;       /* per Val: emitted reads */
	const Op **user;      /* per Val: the op reading it (when uses == 1) */
	const Region **ureg;  /* per Val: region of that op */
	uint32_t *upos;       /* per Val: index of that op in ureg */
	const Region **home;  /* per Val: region the value is defined in */
	uint32_t *hpos;       /* per Val: index of its defining op there (params: 0) */
	uint8_t *noinl;       /* per Val: must be a variable */
	uint8_t *inl;         /* per Val: written into its single use */
	uint16_t *weight;     /* per Val: size of its inlined expression tree */
	Val *alias;           /* per Val: shares the variable of alias[v] (0: its own) */
	char **name;          /* per Val: C++ variable name (root values) */
	char **retname;       /* out-parameters of a multi-result function */
	Val *args;            /* emittedargs' scratch: the widest operand list + 4 */
	NameSet names;
	uint32_t ntemp;
	size_t ebase;         /* the expression being written starts at out->s[ebase]
	                       * (emit_expr.c writes subexpressions in place) */
	/* emission */
	Buf *out;
	uint32_t lastline;
	uint32_t lastfile;
	bool linedir;
};

extern const char *const ctscalar[NSCALAR]; /* C++ names of the scalar kinds */
void ctype1(const Emit *e, Buf *b, Type t);
bool regionwrites(const Emit *e, const Region *r);

/* emit_live.c */

/* Where a terminator sits: the op owning its region, which region, and
 * the innermost loop. */
typedef struct Ctx {
	const Op *owner;
	int regno;
	const Op *loop;
} Ctx;

FState *fstate(Emit *e, int fi);  /* the analysis of function fi (made once) */
void fsfree(FState *s);
Val root(const FState *s, Val v); /* the value whose variable v uses */
Val slotparam(const Op *loop, int k);
int nslots(const Op *loop);
Val slotinit(const Op *loop, int k);
bool slotneeded(const FState *s, const Op *loop, int k);
bool oplive(const FState *s, const Op *op);  /* is op written at all? */

/* emit_expr.c */

enum {
	LIT_TYPED = 0,  /* spell the exact C++ type */
	LIT_BARE = 1,   /* converted by the context: a plain literal will do */
};

const char *vname(FState *s, Val v);
void lit1(Buf *b, int s, Scal c, int mode);
bool wrapped(const char *s, size_t n);
void exprtop(FState *s, Buf *b, Val v, int mode);
void callargs(FState *s, Buf *b, const Op *op, int first);
void opexpr(FState *s, Buf *b, const Op *op);
void valexpr(FState *s, Buf *b, Val v, int mode);
/* The variables the expression of v reads, appended to *out. */
void reads(const FState *s, Val v, Val **out, int *n, int *cap);

/* emit_stmt.c */
void declvar(FState *s, Buf *b, Val v);
void region(FState *s, Buf *b, const Region *r, int d, Ctx c);

#endif
