/* kgen — random, valid, race-free NVIDIA Warp kernels, by category and seed.
 *
 * One shared header, sectioned by .c file (see STYLE.md).  The pipeline for one kernel:
 *
 *   rng_for_kernel(seed, index)        rng.c      independent stream per (seed, index)
 *   category->build(g)                 category.c typed AST (ast.c) built by the
 *                                                 expression (expr.c) and statement
 *                                                 (stmt.c) generators
 *   finish_kernel(g)                   stmt.c     dead-code removal, dynamic-loop marking
 *   check_kernel(k, &err)              check.c    kgen's own sanity checks
 *   emit_module(k, &out)               emit.c     the Python module text
 *
 * Invariants every generated kernel keeps (the generators rely on them, check.c tests
 * what can be tested syntactically):
 *   - Types follow Warp's rules exactly: no implicit int/float promotion, operands of
 *     binary operators, comparisons, where() and min/max/clamp have identical types.
 *   - Every expression carries `bound`, an upper bound of |value| (componentwise for
 *     vectors, matrices, quaternions, the translation of transforms) for all inputs the
 *     runner may draw: floats in [-1, 1], ints in [-8, 8], any positive launch size.
 *     Producers keep results under the cap they are given, so values stay finite.
 *   - Quaternion values have norm <= 1; transform rotations too.
 *   - Arrays: inputs are only read, outputs are stored exactly once per element at the
 *     top level of the kernel (out[tid] = v), accumulators only receive atomics.
 *   - Indices are the thread index, clamped or guarded neighbours, i // c, or values
 *     reduced modulo / clamped by arr.shape[k]; so every launch size is in bounds.
 *   - Local names are unique within a function, so no name is ever rebound to another
 *     type, and no variable is first assigned inside a branch that sits in a loop.
 *
 * Memory: everything for one kernel lives in one Arena, freed at once after emission.
 */
#ifndef KGEN_H
#define KGEN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KGEN_VERSION "0.1.0"

/* Output must not depend on the compiler: no fused multiply-adds in bound arithmetic
 * (GCC does not contract in ISO C mode, -std=c11; clang needs the pragma).  Likewise,
 * no two random draws may sit in one function call's arguments or one expression's
 * operands: C leaves their evaluation order unspecified. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* ---------------------------------------------------------------- libkir's util.h */

/* die (internal error, exit 2), xmalloc, the Arena (aalloc: zeroed; astrdup, aprintf)
 * and Buf (bufputs, bufprintf, buffree): libkir's utilities, the ones every kpy
 * program uses; kgen links libkir.a for them and nothing else. */
#include "util.h"

/* ---------------------------------------------------------------- rng.c */

/* xoshiro256** seeded from splitmix64(seed, index): kernel i never depends on any
 * other kernel's draws, so output can be sharded by index. */
typedef struct Rng {
	uint64_t s[4];
} Rng;

uint64_t splitmix64(uint64_t *x);
void rng_for_kernel(Rng *r, uint64_t seed, uint64_t index);
uint64_t rng_next(Rng *r);
int rng_below(Rng *r, int n);                 /* uniform in [0, n), n > 0 */
int rng_range(Rng *r, int lo, int hi);        /* uniform in [lo, hi] */
bool rng_pct(Rng *r, int pct);                /* true with probability pct/100 */
int rng_weighted(Rng *r, const int *w, int n); /* index drawn by weights (>= 0, sum > 0) */

/* ---------------------------------------------------------------- ast.c */

enum { PREC_F32, PREC_F64 };

typedef enum TyKind {
	TY_VOID,
	TY_BOOL,
	TY_INT,    /* int32 */
	TY_UINT,   /* uint32: only the random state */
	TY_FLOAT,  /* float32 / float64 by prec */
	TY_VEC,    /* vecN, N = n in 2..4, float32 or float64 */
	TY_MAT,    /* square matN, float32 */
	TY_QUAT,   /* quat, float32 */
	TY_XFORM,  /* transform, float32 */
	TY_STRUCT, /* a @wp.struct of the kernel, sid indexes Kernel.structs */
	TY_ARRAY,  /* only in Var.ty of array parameters; element type in Var.elem */
} TyKind;

typedef struct Type {
	unsigned char kind; /* TyKind */
	unsigned char prec; /* PREC_* for float-based kinds */
	unsigned char n;    /* vector length / matrix size */
	signed char sid;    /* struct index, -1 otherwise */
} Type;

#define MAX_FIELDS 6

typedef struct Var Var;
typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Func Func;

/* Operators (E_BIN, E_UN, E_CMP, E_BOOL, S_AUG). */
typedef enum Op {
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_MATMUL, OP_POW,
	OP_BITAND, OP_BITOR, OP_BITXOR, OP_SHL, OP_SHR,
	OP_NEG, OP_NOT,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
	OP_AND, OP_OR,
	OP_INVERT, /* ~a on int (E_UN) */
} Op;

typedef enum ExprKind {
	E_LIT,   /* literal, text in s (already spelled for its type, e.g. wp.float64(0.5)) */
	E_VAR,   /* var */
	E_BIN,   /* a[0] op a[1] */
	E_UN,    /* op a[0] (OP_NEG, OP_NOT) */
	E_CMP,   /* a[0] op a[1] -> bool */
	E_BOOL,  /* a[0] and/or a[1] */
	E_CALL,  /* s(a[0], ..., a[n-1]); s may carry keyword text e.g. "wp.identity" */
	E_LOAD,  /* var[a[0], ..., a[n-1]]: array element */
	E_INDEX, /* a[0][a[1]] or a[0][a[1], a[2]]: vector/matrix component or matrix row */
	E_ATTR,  /* a[0].s */
	E_IFEXP, /* a[1] if a[0] else a[2] */
	E_SHAPE, /* var.shape[n] */
	E_RAW,   /* verbatim text s (keyword arguments, e.g. "n=3, dtype=float") */
} ExprKind;

enum {
	EF_NONNEG = 1, /* integer known >= 0 */
	EF_LIT = 2,    /* a bare literal (constant for Warp) */
	EF_RAND = 4,   /* draws from the random state */
	EF_CONST = 8,  /* built from literals only */
};

/* What kgen knows about a value by construction (facts.c), to keep kernels away from
 * numerically degenerate forms: cross products of parallel vectors, x - x, normalize
 * of a fixed direction, determinants of singular matrices.
 *   dir   vectors: a direction the value is always parallel to (value = s * base for
 *         some scalar s).  Fresh ids for values of no known relation, derived ids for
 *         components/fields/rows of a value, DIR_CONST ids for fixed directions
 *         (wp.vec3(t), wp.vec3(0.5, 0.0, 1.0) * t), DIR_ZERO for the zero vector.
 *         Floats: the base the value is a known multiple of (value = coef * base), 0
 *         when none; literals are multiples of DIR_ONE.  Matrices: the value's id.
 *   coef  the multiple when it is a known constant, NAN otherwise.
 *   perp  vectors: directions the value is perpendicular to (a cross product's).
 *   span  vectors: up to two directions whose span holds the value (a + b, lerp).
 *   mag   vectors: the length when it is a known constant (a normalised vector's is
 *         1), NAN otherwise.
 *   rowdir, rank  matrices: all rows parallel to rowdir when rank == 1; rank is an
 *         upper bound of the rank (0: unknown, full as far as kgen knows).
 *   zero  components that are zero for every input (structural zeros: the off-diagonal
 *         of wp.diag(v), literal 0.0 components): vectors bit k, matrices bit 4r + c,
 *         floats bit 0. */
typedef struct Facts {
	unsigned dir;
	unsigned perp[2];
	unsigned span[2];
	unsigned rowdir;
	unsigned zero;
	int rank;
	double coef;
	double mag;
} Facts;

#define DIR_ONE 1u
#define DIR_DERIVED 0x40000000u
#define DIR_CONST 0x80000000u
#define DIR_ZERO DIR_CONST

struct Expr {
	unsigned char kind; /* ExprKind */
	unsigned char op;   /* Op for E_BIN/E_UN/E_CMP/E_BOOL */
	unsigned char flags;/* EF_* */
	bool fx;            /* facts computed (facts.c) */
	Type ty;            /* result type */
	double bound;       /* |value| <= bound for every admissible input */
	const char *s;      /* literal text, callee, attribute name */
	Var *var;           /* E_VAR, E_LOAD, E_SHAPE */
	int n;              /* number of operands in a (E_SHAPE: the dimension) */
	Expr **a;           /* operands */
	Facts f;            /* facts, when fx */
};

typedef enum VarRole {
	V_LOCAL,   /* local variable of a kernel or function */
	V_TID,     /* launch index from wp.tid() */
	V_LOOP,    /* for-loop index (read only) */
	V_SCALAR,  /* scalar, vector or struct kernel/function parameter (read only) */
	V_ARRAY,   /* array parameter */
} VarRole;

typedef enum ArrayUse {
	IO_IN,  /* read only */
	IO_OUT, /* stored once per element, never read */
	IO_ACC, /* only target of atomics */
} ArrayUse;

/* What an accumulator receives.  Additions commute with additions (their
 * order changes only float rounding), a min with mins, a max with maxes;
 * any other mix on one element depends on the order of the threads, so an
 * accumulator receives atomics of one class only.  Bitwise ors commute with
 * ors, ands with ands and xors with xors (exactly): classes of their own.
 * Exchanges and compare-and-swaps do not commute: an array receiving them is
 * touched by each thread at its own element only (the old value a thread gets
 * back is then its own input's), once, at the top level of the kernel. */
typedef enum AccClass {
	ACC_NONE, ACC_ADD, ACC_MIN, ACC_MAX, ACC_OR, ACC_AND, ACC_XOR,
	ACC_EXCH, ACC_CAS, /* atomic_exch / atomic_cas at the thread's own element only */
} AccClass;

struct Var {
	const char *name;
	Type ty;              /* value type; TY_ARRAY for arrays */
	Type elem;            /* arrays: element type */
	unsigned char role;   /* VarRole */
	unsigned char ndim;   /* arrays: dimensions (= launch ndim) */
	unsigned char io;     /* arrays: ArrayUse */
	unsigned char acc;    /* accumulators: the one AccClass of atomics they receive (0: none yet) */
	bool mutable_;        /* may be reassigned by mutation statements */
	bool frozen;          /* read since definition: bound may no longer grow */
	bool literal_init;    /* defined by a bare literal (a constant for Warp) */
	bool need_dynamic;    /* emit the literal definition as float(...) / int(...) */
	bool nonneg;          /* integer known >= 0 */
	bool counter;         /* while-loop counter: mutated only by its loop */
	bool hidden;          /* temporarily invisible to leaf selection */
	bool mutated;         /* some mutation statement changes it */
	double bound;         /* |value| <= bound, now and for the rest of the function */
	double base;          /* bound of the initial value and of every overwrite */
	double used;          /* budget consumed by accumulations: |value| <= base + used */
	int loop_depth;       /* loop nesting depth where defined */
	int reads;            /* uses in expressions (recounted before dead-code removal) */
	int uses_gen;         /* uses at generation time (leaf preference) */
	Expr *def;            /* locals: the defining expression (its value until reassigned) */
	bool reassigned;      /* some statement after the definition assigns it (facts.c) */
	Expr *fdef[MAX_FIELDS]; /* struct locals: the expression stored in each field */
	bool fx;              /* facts computed (facts.c) */
	Facts f;              /* facts of the current value, when fx */
};

typedef enum StmtKind {
	S_ASSIGN,   /* var = e (is_def: first definition) */
	S_AUG,      /* var op= e */
	S_STORE,    /* var[idx] = e */
	S_ATOMIC,   /* s(var, idx..., e) with s = "wp.atomic_add" ..., or var[idx] += e if s NULL */
	S_IF,       /* if e: body else orelse (orelse holding one S_IF with elif set prints elif) */
	S_FOR,      /* for var in range(idx...): body */
	S_WHILE,    /* while e: body */
	S_BREAK,
	S_CONTINUE,
	S_RETURN,   /* return idx[0], ..., idx[nidx-1] */
	S_UNPACK,   /* vars[0], ..., vars[nvars-1] = e */
	S_SETATTR,  /* var.s = e, or var[k] = e when s is "[k]" (a vector component) */
	S_ASSERT,   /* assert e: a condition true by construction (shapes that agree) */
} StmtKind;

typedef struct Block {
	Stmt **v; /* statements in order */
	int n;    /* count */
	int cap;  /* capacity */
} Block;

struct Stmt {
	unsigned char kind; /* StmtKind */
	unsigned char op;   /* S_AUG operator */
	bool is_def;        /* S_ASSIGN defines var */
	bool elif;          /* S_IF printed as elif of the enclosing else */
	bool dynamic;       /* S_FOR: Warp emits a dynamic loop (filled by mark_dynamic) */
	Var *var;           /* target / array / loop index */
	Var **vars;         /* S_UNPACK targets */
	int nvars;
	Expr *e;            /* value, condition or call */
	Expr **idx;         /* indices / range arguments / returned values */
	int nidx;
	const char *s;      /* S_ATOMIC function, S_SETATTR field */
	int trips;          /* loops: maximum iterations */
	Block body, orelse;
};

#define MAX_PARAMS 12

struct Func {
	const char *name;
	Var *params[MAX_PARAMS];
	int nparams;
	Type rets[3];       /* returned types (nrets > 1: a tuple, no annotation) */
	double retbound[3]; /* bound of each returned value */
	unsigned retdir[3]; /* vectors returned parallel to parameter p: p + 1; to a fixed
			     * direction: that DIR_CONST id; else 0 (facts.c) */
	int nrets;
	Block body;
	bool used;          /* called by the kernel */
};

typedef struct StructDef {
	const char *name;
	int nfields;
	const char *fname[MAX_FIELDS];
	Type fty[MAX_FIELDS];
	double fbound[MAX_FIELDS]; /* bound of every value stored in the field */
	bool param;                /* passed as a kernel parameter (filled by __main__) */
} StructDef;

#define MAX_FUNCS 6
#define MAX_STRUCTS 2

typedef struct Kernel {
	const char *name;      /* verb_noun: what it computes, e.g. diffuse_density */
	const char *verb;      /* the verb of the name (integrate, blend, ...) */
	const char *noun;      /* what it writes (the first output's name) */
	const char *description; /* one sentence (describe.c) */
	const char *category;
	uint64_t seed, index;
	int ndim;              /* launch dimensions 1..3 */
	int dims[3];           /* default launch size */
	Var *params[MAX_PARAMS];
	int nparams;
	Block body;
	Func *funcs[MAX_FUNCS]; /* in definition order (callees first) */
	int nfuncs;
	StructDef structs[MAX_STRUCTS];
	int nstructs;
	uint32_t np_seed;      /* numpy seed of the __main__ block */
	const char *gist[4];   /* recipes: sentences of what the kernel does (describe.c
				* picks one); none for the random categories */
	int ngist;
} Kernel;

Type ty_make(int kind, int prec, int n);
Type ty_float(int prec);
Type ty_int(void);
Type ty_bool(void);
bool ty_eq(Type a, Type b);
bool ty_is_floaty(Type t); /* float-based (differentiable) */
int ty_ncomp(Type t);      /* scalar components (1 for scalars) */
const char *ty_py(Type t, const Kernel *k);       /* annotation / constructor name */
const char *ty_scalar_py(Type t);                 /* "float", "wp.float64", "int" */

Expr *ex_new(Arena *A, int kind, Type ty, int n);
Expr *ex_var(Arena *A, Var *v);
Expr *ex_lit_float(Arena *A, int prec, double v);
Expr *ex_lit_int(Arena *A, int v);
Expr *ex_lit_bool(Arena *A, bool v);
double lit_value(const Expr *e); /* the number a literal spells (inside wp.float64(...)) */
Expr *ex_raw(Arena *A, const char *text);
Expr *ex_bin(Arena *A, int op, Expr *a, Expr *b, Type ty, double bound);
Expr *ex_un(Arena *A, int op, Expr *a);
Expr *ex_cmp(Arena *A, int op, Expr *a, Expr *b);
Expr *ex_bool(Arena *A, int op, Expr *a, Expr *b);
Expr *ex_call(Arena *A, const char *fn, Type ty, double bound, int n, ...);
Expr *ex_calln(Arena *A, const char *fn, Type ty, double bound, int n, Expr **args);
Expr *ex_index(Arena *A, Expr *base, Type ty, double bound, int n, ...);
Expr *ex_attr(Arena *A, Expr *base, const char *name, Type ty, double bound);
Expr *ex_ifexp(Arena *A, Expr *c, Expr *a, Expr *b);
Expr *ex_load(Arena *A, Var *arr, int n, Expr **idx);
Expr *ex_shape(Arena *A, Var *arr, int dim);

Stmt *st_new(Arena *A, int kind);
void block_push(Arena *A, Block *b, Stmt *s);
void block_insert(Arena *A, Block *b, int at, Stmt *s);

/* A set of variables in insertion order, of VARSET_MAX at most (adds past that are
 * dropped); for the analyses of stmt.c and tidy.c. */
enum { VARSET_MAX = 512 };
typedef struct VarSet {
	const Var *v[VARSET_MAX];
	int n;
} VarSet;
bool varset_has(const VarSet *s, const Var *v);
void varset_add(VarSet *s, const Var *v);

/* ---------------------------------------------------------------- gen (expr.c, stmt.c, category.c) */

/* Features a category turns on; producers are picked only among enabled ones. */
enum {
	F_MATH = 1 << 0,     /* transcendental builtins */
	F_INT = 1 << 1,      /* integer arithmetic and conversions */
	F_CMP = 1 << 2,      /* comparisons, where(), ternaries */
	F_VEC = 1 << 3,
	F_MAT = 1 << 4,
	F_QUAT = 1 << 5,
	F_XFORM = 1 << 6,
	F_IF = 1 << 7,       /* if/elif/else statements */
	F_LOOP = 1 << 8,     /* for loops */
	F_WHILE = 1 << 9,
	F_NEST = 1 << 10,    /* loops inside loops */
	F_BREAK = 1 << 11,   /* break / continue */
	F_ATOMIC = 1 << 12,
	F_RAND = 1 << 13,
	F_FUNC = 1 << 14,    /* calls of @wp.func helpers */
	F_STRUCT = 1 << 15,
	F_GATHER = 1 << 16,  /* clamped neighbour loads */
	F_F64 = 1 << 17,     /* float64 conversions */
	F_BITS = 1 << 18,    /* bitwise integer operators */
	F_MANYIF = 1 << 19,  /* long elif chains, nested conditions */
};

#define PAL_MAX 8

/* A weighted set of types for new locals and function parameters. */
typedef struct Palette {
	Type t[PAL_MAX];
	int w[PAL_MAX];
	int n;
} Palette;

typedef struct Options {
	uint64_t seed;
	uint64_t count;
	int depth;       /* expression depth */
	int stmts;       /* statements per kernel body (before dead-code removal) */
	int loops;       /* maximum loops per kernel */
	unsigned long long catmask; /* selected categories (bit per category, at most 64) */
	bool unique;     /* struct and helper names carry the kernel index (--unique-names) */
} Options;

#define MAX_SCOPE 256
#define MAX_LOOP_DEPTH 8

/* Generation state for one kernel. */
typedef struct Gen {
	Rng rng;
	Arena *A;
	Kernel *k;
	const Options *o;
	unsigned feat;           /* F_* */
	Palette pal;
	Var *scope[MAX_SCOPE];   /* visible variables, innermost last */
	int nscope;
	const char *names[512];  /* names taken in the current function */
	int nnames;
	int loop_depth;          /* enclosing loops */
	int trips[MAX_LOOP_DEPTH]; /* maximum iterations of each enclosing loop */
	bool loop_static[MAX_LOOP_DEPTH]; /* loop has literal range() bounds (Warp may unroll) */
	int branch_depth;        /* enclosing if bodies */
	int loops_made;          /* loops generated so far */
	bool in_while_body;      /* (continue must not skip the counter) */
	Func *fn;                /* function being generated, NULL for the kernel */
	Var *tid[3];             /* launch indices */
	Var *rstate;             /* random state, if any */
	Var *fields_of[4];       /* struct-typed locals/params whose fields are leaves */
	int nfields_of;
	int depth;               /* expression depth for this kernel */
	bool force_nest;         /* the next loop body starts with a nested loop */
	unsigned next_id;        /* fresh value ids (facts.c) */
} Gen;

/* expr.c */
Expr *gx(Gen *g, Type t, int depth, double cap);           /* any expression of type t */
Expr *gx_cond(Gen *g, int depth);                          /* a boolean condition */
Expr *gx_value(Gen *g, Type t, int depth, double cap);     /* gx, not a constant or copy */
Expr *gx_sized(Gen *g, Type t, int depth, double cap, bool leaf_ok);
Expr *tame(Gen *g, Expr *e, double cap);                   /* bound e by cap */
Expr *lit_nice(Gen *g, Type t, double maxabs, bool positive);
Expr *use_var(Gen *g, Var *v);                             /* E_VAR, counts the read */
Var *pick_var(Gen *g, Type t, bool mutable_only);
double nice_value(Gen *g, double maxabs);
Type pal_pick(Gen *g);
bool pal_find(Gen *g, int kind, Type *out);
double cap_for(Type t);

/* stmt.c */
const char *fresh_name(Gen *g, const char *base);
bool name_taken(Gen *g, const char *name);
void reserve_name(Gen *g, const char *name);
Var *new_var(Gen *g, const char *base, Type t, int role);
void scope_push_var(Gen *g, Var *v);
Var *def_local(Gen *g, Block *b, const char *base, Expr *e);
void gen_stmts(Gen *g, Block *b, int n);
bool gen_mutation(Gen *g, Block *b, Var *v);
void gen_if(Gen *g, Block *b);
void gen_for(Gen *g, Block *b);
void gen_while(Gen *g, Block *b);
bool gen_atomic(Gen *g, Block *b);
int acc_class(const Stmt *s);
Var *def_accumulator(Gen *g, Block *b, Type t);
void finish_func(Gen *g, Block *body);
void recount_reads(Block *body);
void mark_dynamic(Block *b);

/* facts.c */
const Facts *facts(Gen *g, Expr *e);
const Facts *var_facts(Gen *g, Var *v);
void var_assigned(Gen *g, Var *v, Expr *value);            /* v may now hold value */
void func_retdirs(Gen *g, Func *f, Expr **rets);
void unpack_facts(Gen *g, Func *f, Expr **args, Var **vars);
bool fx_same(const Expr *a, const Expr *b);                /* same value by construction */
bool fx_parallel(Gen *g, Expr *a, Expr *b);
bool fx_perp(Gen *g, Expr *a, Expr *b);
bool fx_cancels(Gen *g, Expr *a, Expr *b, int op);         /* a op b is zero (+, -) */
bool fx_fixed_dir(Gen *g, Expr *e);                        /* normalize(e) is a constant */
bool fx_fixed_len(Gen *g, Expr *e);                        /* length(e) is a constant */
bool fx_singular(Gen *g, Expr *m);
bool fx_zero(Gen *g, Expr *e);                             /* zero for every input */

/* category.c */
typedef struct Category {
	const char *name;
	int weight;
	const char *desc;
	void (*build)(Gen *g);
} Category;

extern const Category categories[];
/* shared with recipe.c */
void set_launch(Gen *g, int ndim);
void add_param(Gen *g, Var *v);
Var *add_array(Gen *g, const char *base, Type elem, int io);
void emit_tid(Gen *g, Block *b);
Expr *load_tid(Gen *g, Var *arr);
const char *global_name(Gen *g, const char *base);

/* recipe.c: purposeful kernels from domain recipes (categories of their own) */
void rec_particles(Gen *g);
void rec_springs(Gen *g);
void rec_heat(Gen *g);
void rec_histogram(Gen *g);
void rec_optimizer(Gen *g);
void rec_sdf(Gen *g);
void rec_outcode(Gen *g);
void rec_sampling(Gen *g);
void rec_rigid(Gen *g);
void rec_loss(Gen *g);
void rec_filter(Gen *g);
void rec_twist(Gen *g);
void rec_strain(Gen *g);
void rec_noise(Gen *g);
void rec_cells(Gen *g);
bool rec_short(Gen *g, const char *cat); /* a short kernel for the family's share, else false */
void recipe_vary(Gen *g);

extern const int ncategories;
int category_find(const char *name);
Kernel *gen_kernel(Arena *A, const Options *o, uint64_t index);

/* check.c */
int check_kernel(const Kernel *k, Buf *err); /* number of violations, described in err */
int check_deadweight(const Kernel *k, Buf *err); /* unused parameters, no-ops, repeats */

/* tidy.c */
void tidy_loads(Gen *g);                  /* before dead-code removal */
void tidy_units(Block *b);                /* before dead-code removal */
void tidy_copies(Block *body);            /* before dead-code removal */
bool tidy_dead_stores(Block *body);       /* before dead-code removal */
int dead_defs(const Block *body);         /* definitions nothing reads (check.c) */
void tidy_branches(Gen *g, Block *b);     /* after it */
bool tidy_func_params(Gen *g);
void tidy_kernel_params(Gen *g);
const char *local_name_for(const Var *arr); /* category.c: xi for x, p for pos ... */

/* describe.c */
const char *describe_kernel(Arena *A, const Kernel *k, Rng *r); /* one sentence */

/* emit.c */
void emit_module(const Kernel *k, Buf *out);                      /* the module alone */
void emit_header(const Kernel *k, Buf *out);                      /* "# kgen: ..." line */
void emit_meta(const Kernel *k, const char *module, Buf *out);    /* key value lines */
void emit_harness(const Kernel *k, const char *module, Buf *out); /* runs the module */
void emit_expr(Buf *b, const Expr *e, const Kernel *k);

#endif
