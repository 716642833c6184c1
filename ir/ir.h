/*
 * ir.h — libkir: the kir intermediate representation shared by every kpy tool.
 *
 * One header for the library, sectioned by the .c file that implements each
 * group of functions (QBE's all.h, cproc's cc.h); util.c's section, which
 * knows nothing of the IR, is util.h, included here (kgen uses it alone).
 *
 * Shape of the data
 * -----------------
 * A Module owns an Arena; everything reachable from the module (strings,
 * types' tables, functions, ops, regions, value tables) lives in it and is
 * freed at once by modfree().
 *
 * Types are small flat values (struct Type, 8 bytes) compared with typeeq():
 * no interning, no pointers, so a type can be copied, hashed and stored in
 * any table.  An array type carries its element type's fields inline.
 *
 * Values are indices (Val) into the per-function table Func.vals; index 0 is
 * "no value".  A value is a function parameter, an op result, a value an op
 * defines for its regions (a `for` index or an `iter` argument), or a
 * constant.  Constants are interned per function (same type and bits, same
 * Val), so cse and fold compare operands by index.
 *
 * Ops are heap nodes (Op *) kept in Regions, which are plain growable arrays
 * of Op pointers.  Control flow is structured: `if`, `for` and `while` hold
 * regions; values leave a region through its terminator (yield, break,
 * continue, ret).  There are no blocks, no gotos and no phis: passes walk the
 * tree recursively and rebuild regions as new arrays when they transform them.
 * Pointer-linked ops (rather than QBE's index tables) were chosen because
 * autodiff and inlining build new functions out of pieces of old ones; the
 * value table stays index-based so that per-value side tables in passes are
 * plain arrays indexed by Val.
 */
#ifndef KPY_IR_H
#define KPY_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KPY_VERSION "0.1.0"
#define KIR_VERSION 1

#include "util.h"

/* ------------------------------------------------------------------ */
/* diag.c — located diagnostics                                        */

/* A source location: 1-based line and column; line 0 means unknown.  file
 * indexes the module's `source` list (Python locations; 0 for the first file
 * and for kir text locations). */
typedef struct Loc {
	uint32_t line;
	uint32_t col;
	uint32_t file;
} Loc;

/* A source text diagnostics point into. */
typedef struct Src {
	const char *name; /* file name as given, "<stdin>" for stdin */
	const char *text; /* whole contents, NUL-terminated (may be NULL) */
	size_t len;
} Src;
/* Index the lines of src's text (a source with many diagnostics: each then
 * finds its line at once, not by scanning the text), until srcunindex, to
 * be called before the text is freed.  Not thread-safe. */
void srcindex(const Src *src);
void srcunindex(const Src *src);

/* Diagnostic sink: messages go to `out` (stderr) as
 *   file:line:col: error: message
 *       source line
 *       ^
 * and are counted. */
typedef struct Diag {
	FILE *out;
	int nerr;
	int nwarn;
	int maxerr;     /* stop printing after this many errors (0: no limit) */
} Diag;
void diaginit(Diag *d);
void diagerr(Diag *d, const Src *src, Loc loc, const char *fmt, ...) KPY_PRINTF(4, 5);
void diagwarn(Diag *d, const Src *src, Loc loc, const char *fmt, ...) KPY_PRINTF(4, 5);
void diagnote(Diag *d, const Src *src, Loc loc, const char *fmt, ...) KPY_PRINTF(4, 5);
void diagv(Diag *d, const Src *src, Loc loc, const char *kind, const char *fmt, va_list ap);

/* ------------------------------------------------------------------ */
/* type.c — types                                                      */

/* Scalar kinds, in the order kir and Warp list them; bf16 (Warp's
 * bfloat16) came later and goes last, so the others keep their numbers. */
enum {
	S_BOOL,
	S_I8, S_I16, S_I32, S_I64,
	S_U8, S_U16, S_U32, S_U64,
	S_F16, S_F32, S_F64,
	S_BF16,
	NSCALAR
};

enum TypeKind {
	T_VOID,   /* no value (only as "no type") */
	T_SCALAR, /* s */
	T_VEC,    /* vec<n, s> */
	T_MAT,    /* mat<n, m, s>: n rows, m columns */
	T_QUAT,   /* quat<s>: x y z w */
	T_XFORM,  /* transform<s>: p (vec3) then q (quat) */
	T_STRUCT, /* module struct number sid */
	T_ARRAY,  /* array<elem, nd>: elem is (ek, s, n, m, sid) */
	T_STR,    /* a string literal (printf formats); never a variable */
};

typedef struct Type {
	uint8_t k;    /* TypeKind */
	uint8_t s;    /* scalar kind: of a scalar, of a composite's components,
	               * of an array's element */
	uint8_t n;    /* vec length / mat rows (also for an array element) */
	uint8_t m;    /* mat columns (also for an array element) */
	uint8_t ek;   /* array: element TypeKind (T_SCALAR .. T_STRUCT) */
	uint8_t nd;   /* array: number of dimensions, 1..4 */
	uint16_t sid; /* struct number (T_STRUCT, or array of struct) */
} Type;

#define MAXVEC 32   /* longest vector / matrix side kir accepts */
#define MAXDIM 4    /* array dimensions */

extern const char *const scalarname[NSCALAR]; /* "bool", "i8", ..., "f64", "bf16" */
extern const int scalarsize[NSCALAR];         /* bytes */

Type tvoid(void);
Type tscalar(int s);
Type tvec(int n, int s);
Type tmat(int n, int m, int s);
Type tquat(int s);
Type txform(int s);
Type tstruct(int sid);
Type tarray(Type elem, int nd);
Type tstr(void);
Type telem(Type arr);          /* element type of an array */
Type tcomp(Type t);            /* scalar type of t's components */
bool typeeq(Type a, Type b);
bool isscalar(Type t);
bool isfloat(Type t);          /* float scalar */
bool isint(Type t);            /* integer scalar (not bool) */
bool issigned(Type t);
bool isbool(Type t);
bool isfloatcomp(Type t);      /* float scalar or composite of floats */
bool iscomposite(Type t);      /* vec, mat, quat, transform */
int ncomp(Type t);             /* number of scalar components (1 for scalars) */
bool scalarisfloat(int s);
bool scalarisint(int s);
bool scalarissigned(int s);

struct Module;
/* Memory layout of a value of type t as kpy's C ABI stores it (array
 * elements, struct fields): scalars have their natural size and alignment
 * (bool is one byte); a composite is its components in kir order with the
 * component's alignment (vec3f: 12 bytes, align 4); a struct is a C struct
 * of its fields in order; an array (a struct field) is the runtime's
 * array_t<T, ND> { T *data; i32 shape[ND]; i64 strides[ND]; }. */
int typesize(const struct Module *m, Type t);
int typealign(const struct Module *m, Type t);
int fieldoffset(const struct Module *m, int sid, int field); /* bytes */
/* Print a type in canonical kir spelling ("f32", "vec3f", "mat<2,5,f32>",
 * "array<vec3f,2>", "@Body"). */
void typeprint(Buf *b, const struct Module *m, Type t);
const char *typestr(const struct Module *m, Type t); /* static ring buffer */
/* Parse a type name without struct references ("vec3f", "mat33d"...).
 * Returns false if `name` is not a builtin type name. */
bool typeparse_name(const char *name, size_t len, Type *t);

/* ------------------------------------------------------------------ */
/* ops.def — the table of operations                                   */

enum {
#define OP(id, name, amin, amax, ty, flags, cpp, deriv, llvm) OP_##id,
#include "ops.def"
#undef OP
	NOPS
};

/* Op flags (the `flags` column). */
enum {
	F_PURE   = 1 << 0,  /* no side effects, result depends only on operands */
	F_EW     = 1 << 1,  /* elementwise: applies componentwise to vec/mat */
	F_COMM   = 1 << 2,  /* commutative in its two operands */
	F_TERM   = 1 << 3,  /* region terminator */
	F_REGION = 1 << 4,  /* has regions (if, for, while) */
	F_MEM    = 1 << 5,  /* reads or writes an array (operand 0 is the array) */
	F_WRITE  = 1 << 6,  /* writes memory or has an effect (store, atomics, print) */
	F_NOAD   = 1 << 7,  /* not differentiable: zero adjoint for every operand */
	F_IDX    = 1 << 8,  /* printed as `op %arr[%i, %j], rest` */
	F_ATTR   = 1 << 9,  /* carries an immediate (Op.attr) printed as operand */
	F_CAST   = 1 << 10, /* result type is written by the user, not inferred */
	F_RAND   = 1 << 11, /* random: last result is the new RNG state */
	F_FUNC   = 1 << 12, /* only valid in a kernel (tid) */
	F_LOW    = 1 << 13, /* allowed in low kir (after scalarize): scalar only */
	F_ATOMIC = 1 << 14, /* atomic read-modify-write of an array element */
	F_LINEAR = 1 << 15, /* linear: zero when all its float operands are zero */
	F_MULTILIN = 1 << 16, /* linear in each operand: zero when one float operand is */
	F_KIRONLY = 1 << 17, /* a kir construct, not a Warp builtin called by name (kpyc) */
	F_OUTARGS = 1 << 18, /* Warp also takes output variables after its amax inputs (svd3) */
};

/* Op families (in the `flags` column, at most one per row): which runtime
 * header (kpy/vec.h, quat.h, ...) the C++ spelling of the op needs beyond
 * the headers of its types.  A 4-bit field above the F_* bits: read it
 * with opfamily(). */
enum {
	OF_SHIFT = 24,
	OF_VEC = 1 << OF_SHIFT, OF_MAT = 2 << OF_SHIFT, OF_QUAT = 3 << OF_SHIFT,
	OF_TRANSFORM = 4 << OF_SHIFT, OF_SPATIAL = 5 << OF_SHIFT, OF_DECOMP = 6 << OF_SHIFT,
	OF_ARRAY = 7 << OF_SHIFT, OF_ATOMIC = 8 << OF_SHIFT, OF_RAND = 9 << OF_SHIFT,
	OF_NOISE = 10 << OF_SHIFT, OF_PRINT = 11 << OF_SHIFT,
	OF_MASK = 15 << OF_SHIFT,
};

/* Typing rules (the `ty` column); implemented in typing.c. */
enum {
#define TY(id, doc) TY_##id,
#include "typing.def"
#undef TY
	NTY
};

typedef struct OpInfo {
	const char *name;  /* kir spelling, also the Warp builtin name when one exists */
	uint8_t amin;      /* fewest operands */
	uint8_t amax;      /* most operands (255: any number) */
	uint8_t ty;        /* typing rule TY_* */
	uint32_t flags;    /* F_* */
	const char *cpp;   /* C++ spelling template for kcpu/kcuda (see ops.def) */
	const char *deriv; /* derivative rule (see ops.def), "" if none */
	const char *llvm;  /* scalar LLVM lowering for kptx (see ops.def), "" if none */
} OpInfo;

extern const OpInfo opinfo[NOPS];
/* The OF_* family of op code, or 0. */
static inline uint32_t opfamily(int code) { return opinfo[code].flags & OF_MASK; }
int oplookup(const char *name, size_t len); /* OP_* or -1 */

/* ------------------------------------------------------------------ */
/* The IR                                                              */

typedef uint32_t Val; /* index into Func.vals; 0: none */

enum ValKind {
	V_NONE,
	V_ARG,   /* function parameter number idx */
	V_RES,   /* result number idx of op def */
	V_PARAM, /* region value number idx defined by op def (for index, iter args) */
	V_CONST, /* constant; components in c */
};

/* A scalar constant component.  Integers are stored sign- or zero-extended
 * in i/u; floats as double, already rounded to the scalar's precision. */
typedef union Scal {
	int64_t i;
	uint64_t u;
	double f;
} Scal;

struct Op;

typedef struct Value {
	Type ty;
	uint8_t kind;      /* ValKind */
	uint16_t idx;      /* V_ARG: param number; V_RES/V_PARAM: position in def */
	const char *name;  /* source name, or NULL for a temporary (%N) */
	struct Op *def;    /* V_RES, V_PARAM: the op defining it */
	Scal *c;           /* V_CONST: ncomp(ty) components; T_STR: c[0].u is a
	                    * string number in Module.strs */
	Loc loc;           /* V_ARG: where the parameter was declared */
} Value;

typedef struct Region {
	struct Op **ops; /* ops in order; the last one is the terminator */
	uint32_t n;      /* number of ops */
	uint32_t cap;    /* allocated slots */
} Region;

/* Most operands, results and region values of one op (Op's counts are
 * 16 bits; Value.idx too), and the deepest nesting of regions kir allows. */
enum { MAXOPVALS = 65535, MAXREGIONDEPTH = 1000 };

typedef struct Op {
	uint16_t code;     /* OP_* */
	uint16_t nres;     /* number of results (at most MAXOPVALS) */
	uint16_t nargs;    /* number of operands (at most MAXOPVALS) */
	uint16_t nparams;  /* number of region values the op defines (at most MAXOPVALS) */
	uint8_t nregs;     /* number of regions */
	Val *res;          /* results */
	Val *args;         /* operands */
	Val *params;       /* for: [index, iter...]; while: [iter...] */
	Region *regs;      /* if: then, else; for: body; while: cond, body */
	int32_t attr;      /* F_ATTR immediate: field number, tid dimension
	                    * count, call: callee number in Module.funcs */
	Loc loc;           /* position in the Python source (line 0: none) */
	Loc kloc;          /* position in the kir text it was parsed from (line 0: none) */
} Op;

typedef struct Func {
	const char *name;   /* without '@' */
	bool kernel;        /* kernel (grid of threads) or func */
	uint32_t nparams;
	Val *params;        /* V_ARG values */
	uint32_t capparams; /* addparam's slots, if params is still its array */
	Val *ownparams;     /* that array (params set elsewhere differ) */
	uint32_t nrets;
	Type *rets;         /* result types (kernels: none) */
	Region body;
	Value *vals;        /* value table, vals[0] unused */
	uint32_t nvals;
	uint32_t capvals;
	uint32_t *ctab;     /* constant intern table (open addressing, Val or 0) */
	uint32_t nctab;     /* slots (power of two) */
	uint32_t nconst;    /* constants interned */
	Loc loc;            /* position in the Python source */
	Loc kloc;           /* position in the kir text it was parsed from */
	int adjof;          /* backward kernel: number of the forward kernel, else -1 */
} Func;

typedef struct Field {
	const char *name;
	Type ty;
} Field;

typedef struct StructDef {
	const char *name;  /* without '@' */
	uint32_t nfields;
	Field *fields;
	Loc loc;
} StructDef;

typedef struct Module {
	Arena *arena;
	uint32_t nsrcs, capsrcs;
	const char **srcs;  /* `source` lines: Python files the module came from */
	uint32_t nstructs, capstructs;
	StructDef *structs;
	uint32_t nfuncs, capfuncs;
	Func **funcs;       /* functions and kernels, in order */
	struct FuncIndex *fidx; /* findfunc's name index (build.c; malloc'd, freed by modfree) */
	uint32_t nstrs, capstrs;
	const char **strs;  /* string constants */
	bool toobig;        /* an op or function got more than MAXOPVALS operands,
	                     * results, region values or parameters (the counts
	                     * are cut: the module is unusable) */
	Loc toobigloc;      /* the first such op's or parameter's location */
	bool widened;       /* every f32 was made f64 (krun --double, runtime/jit.c):
	                     * the ops Warp defines for float32 only type f64 too */
} Module;

/* ------------------------------------------------------------------ */
/* build.c — building and editing IR                                   */

Module *modnew(void);
void modfree(Module *m);
/* The Python file a location points into (its `source` line), "<python>" when
 * the module names none. */
const char *locsrc(const Module *m, Loc loc);
int addstruct(Module *m, const char *name, Loc loc);            /* sid */
void addfield(Module *m, int sid, const char *name, Type ty);
int findstruct(const Module *m, const char *name);              /* sid or -1 */
int fieldindex(const Module *m, int sid, const char *name);     /* or -1 */
Func *addfunc(Module *m, const char *name, bool kernel, Loc loc);
int findfunc(const Module *m, const char *name);                /* index or -1 */
/* A runtime stub: a function scalarize adds, named RTSTUB_PREFIX, the op
 * and its operand types, dot separated (@kpy.rt.quat_rotate.quatf.vec3f),
 * with flat parameters and results (the leaves of the op's operands and
 * results) and as body the op itself on values rebuilt from them: kcpu
 * compiles it as any function, kptx calls the runtime headers' definition
 * compiled to bitcode (backends/kptx_rt.cpp, kptx_rt.bc).  Low kir but for
 * its body, which scalarize leaves as it is. */
#define RTSTUB_PREFIX "kpy.rt."
static inline bool isrtstub(const Func *f) { return strncmp(f->name, RTSTUB_PREFIX, 7) == 0; }
int funcindex(const Module *m, const Func *f);
/* Delete the functions i with !keep[i]: compacts Module.funcs and renumbers
 * call immediates and Func.adjof (an adjof of a deleted kernel becomes -1).
 * No remaining op may call a deleted function. */
void delfuncs(Module *m, const bool *keep);
void addret(Module *m, Func *f, Type t);
Val addparam(Module *m, Func *f, const char *name, Type t, Loc loc);
int addstr(Module *m, const char *s);                           /* string number */

Val newval(Module *m, Func *f, Type t, int kind, const char *name);
Val cscalar(Module *m, Func *f, Type t, Scal v);    /* interned scalar constant */
Val cint(Module *m, Func *f, int s, int64_t v);     /* integer constant of kind s */
Val cfloat(Module *m, Func *f, int s, double v);    /* float constant (rounded) */
Val cbool(Module *m, Func *f, bool v);
Val cconst(Module *m, Func *f, Type t, const Scal *c); /* any constant */
Val czero(Module *m, Func *f, Type t);              /* zero of a value type */
Val cstr(Module *m, Func *f, const char *s);
Scal scalround(int s, Scal v);  /* round/wrap a component to scalar kind s */

/* Create an op (not yet placed in a region).  Results are created with the
 * given types; nargs operands are copied.  More than MAXOPVALS operands or
 * results set Module.toobig. */
Op *mkop(Module *m, Func *f, int code, const Val *args, int nargs,
         const Type *rtys, int nres, Loc loc);
void opsetregions(Module *m, Op *op, int nregs);
void opsetparams(Module *m, Func *f, Op *op, const Type *tys, int n);
void regpush(Module *m, Region *r, Op *op);

/* Builder: a cursor appending to a region, with a default location. */
typedef struct Builder {
	Module *m;
	Func *f;
	Region *r;   /* where new ops go */
	Loc loc;     /* location for new ops */
} Builder;
/* Append an op inferring its result type(s) with the typing rules; on a
 * typing error returns 0 and, if err is not NULL, stores a message there
 * (in the module arena).  Multi-result ops: use bop(). */
Val b1(Builder *b, int code, const Val *args, int nargs, const char **err);
Val b2(Builder *b, int code, Val x, Val y);  /* dies on a typing error */
Val bun(Builder *b, int code, Val x);        /* dies on a typing error */
Op *bop(Builder *b, int code, const Val *args, int nargs, const Type *rtys, int nres);

static inline Value *val(const Func *f, Val v) { return &f->vals[v]; }
static inline Type vty(const Func *f, Val v) { return f->vals[v].ty; }
static inline bool isconst(const Func *f, Val v) { return f->vals[v].kind == V_CONST; }

/* ------------------------------------------------------------------ */
/* map.c — a value map and a string map                                */

/* The values of one function to values (0: unmapped): a dense array grown
 * on demand.  Zero-initialize; free with vmfree. */
typedef struct ValMap {
	Val *v;        /* per Val: its image, or 0 */
	uint32_t cap;  /* entries of v */
} ValMap;

void vmset(ValMap *vm, Val from, Val to);
static inline Val vmget(const ValMap *vm, Val v) { return v < vm->cap ? vm->v[v] : 0; }
/* v followed through the map to the first unmapped value (replacement
 * chains). */
Val vmchase(const ValMap *vm, Val v);
void vmfree(ValMap *vm);

/* Strings to numbers, open addressing.  Zero-initialize (set own first to
 * have keys copied in and freed by smclear and smfree; otherwise they are
 * borrowed and must outlive the map); free with smfree. */
typedef struct StrMap {
	const char **key;  /* per slot: a key, or NULL */
	uint32_t *val;     /* per slot: its value */
	uint32_t *hash;    /* per slot: its key's hash (compared before the key) */
	uint32_t n, cap;   /* keys; slots (0 or a power of two) */
	bool own;          /* the map owns copies of its keys */
	Arena *keys;       /* when set, new keys are copied here instead
	                    * (the arena's: neither own nor freed by the map) */
} StrMap;

/* The value of key k, or NULL when k is absent. */
uint32_t *smget(const StrMap *sm, const char *k);
/* The value of key k, added with the value 0 when absent (*added, when
 * added is not NULL, says whether it was).  Valid until the next smput. */
uint32_t *smput(StrMap *sm, const char *k, bool *added);
void smclear(StrMap *sm);  /* remove every key (the slots stay) */
void smfree(StrMap *sm);

/* ------------------------------------------------------------------ */
/* clone.c — copying ops and functions                                 */

/* Copies ops of function `src` into function `dst` (which may be the same
 * function), renaming values through `map`: every value defined by a
 * cloned op gets a fresh value in dst, and operands are looked up in the
 * map.  Constants are re-interned in dst. */
typedef struct Cloner {
	Module *m;
	Func *src;      /* where the ops come from */
	Func *dst;      /* where the copies go */
	ValMap map;     /* per src Val: the dst Val (0: not mapped yet) */
} Cloner;

void clinit(Cloner *c, Module *m, Func *src, Func *dst);
void clfree(Cloner *c);
void clset(Cloner *c, Val from, Val to);
/* The dst value for src value v; constants map to themselves (re-interned
 * when src != dst); an unmapped value is itself when src == dst, else
 * clget dies unless it is a constant. */
Val clget(Cloner *c, Val v);
/* Deep copy of op (its regions too); results and region values are mapped. */
Op *clop(Cloner *c, const Op *op);
/* Append copies of src->ops[from, to) to dst. */
void clops(Cloner *c, const Region *src, uint32_t from, uint32_t to, Region *dst);

/* A function object that is not part of m->funcs: a deep copy of f, to be
 * transformed without touching f. */
Func *scratchcopy(Module *m, const Func *f);

/* ------------------------------------------------------------------ */
/* typing.c — the typing rules of ops.def                              */

/* Infer the result types of op `code` applied to operands of types
 * `in[0..n)` (attr: the op's immediate).  On success returns the number of
 * results and writes them to out[]; on failure returns -1 and writes a
 * message (Warp's wording where Warp has one) to err. */
int typeop(const Module *m, int code, const Type *in, int n, int attr,
           Type *out, Buf *err);

/* ------------------------------------------------------------------ */
/* print.c — canonical text                                            */

void printmod(Buf *out, const Module *m);
void printfunc(Buf *out, const Module *m, const Func *f);
/* Normalized form, for deduplication: no source names (every value is a
 * temporary), no locations or source lines, functions @fN, structs @sN,
 * fields fN, every constant `?TYPE`.  Two modules that differ only in
 * names and constants print the same. */
enum { PRINT_NORM = 1 };
void printnorm(Buf *out, const Module *m);
/* The printer's value names, for tools that show values as kir does (kopt
 * --dot): namesnew assigns every value of f the spelling printfunc gives it
 * (without '%'); printopline prints op's first line as printfunc does, with
 * no location and no opening brace. */
typedef struct Names Names;
Names *namesnew(const Module *m, const Func *f);
void namesfree(Names *nm);
const char *valname(Names *nm, Val v);
void printopline(Buf *out, Names *nm, const Op *op);
/* Give every value the name it has once the module is printed and parsed
 * again: the printed spelling (%p.3: "p.3"), none for a temporary.  The
 * in-process chain (kpyc --emit) names values as the pipe's text does. */
void modrename(Module *m);
/* Print a constant's value in kir syntax. */
void printconst(Buf *out, const Module *m, const Func *f, Val v);
/* Format a float so that it reads back to the same value of kind s. */
void fmtfloat(Buf *out, double x, int s);

/* ------------------------------------------------------------------ */
/* dot.c — Graphviz                                                    */

/* f as a Graphviz digraph: a node per op (its kir line), a cluster per
 * region inside its op's, an edge from each value's definition to each use;
 * yields and returns point back at the op they give values to (dashed). */
void printdot(Buf *out, const Module *m, const Func *f);

/* ------------------------------------------------------------------ */
/* parse.c — reading kir                                               */

/* Parse kir text.  Errors go to d located in src; returns NULL if any. */
Module *parsekir(const Src *src, Diag *d);

/* ------------------------------------------------------------------ */
/* verify.c                                                            */

/* Check types, SSA dominance in structured regions, terminators, yields,
 * break/continue placement and call signatures.  Reports every violation
 * to d (located at the op's Python loc when known, else by function) and
 * returns the number found. */
int verify(const Module *m, const Src *src, Diag *d);

/* ------------------------------------------------------------------ */
/* walk.c — traversal helpers                                          */

/* Call fn on every op in r, depth first, parents before their regions. */
void walkops(Region *r, void (*fn)(Op *op, void *ctx), void *ctx);
/* Count uses of every value of f into uses[0..f->nvals). */
void countuses(const Func *f, uint32_t *uses);
/* The loop op (for/while) a break/continue in `r` refers to, computed by
 * callers that track nesting; see verify.c. */
bool opispure(const Op *op);

/* How functions use their array parameters (through views, struct fields
 * and calls): ACC_READ (load, atomics), ACC_WRITE (store, atomics),
 * ACC_MINMAX (atomic_min/max: their backward compares with the element's
 * final contents).  paramaccess returns acc[fi][pi]; free with
 * freeparamaccess. */
enum { ACC_READ = 1, ACC_WRITE = 2, ACC_MINMAX = 4 };
unsigned **paramaccess(const Module *m);
void freeparamaccess(const Module *m, unsigned **acc);
/* The parameter of f an array-typed value comes from (through views and
 * struct fields), or -1. */
int arrayparam(const Func *f, Val v);
/* The widest tid (1-4) a region reads, 0 if none. */
int tiddims(const Region *r);
/* The forward parameter a backward kernel's parameter pi is the adjoint of:
 * by name (adj_x of x), else by position among the array parameters; -1. */
int adjointparam(const Module *m, const Func *k, uint32_t pi);

#endif /* KPY_IR_H */
