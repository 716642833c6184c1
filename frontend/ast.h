/*
 * ast.h — kpyc, the Warp-Python frontend: one header for the frontend
 * library (libkpyc.a), sectioned by the file that implements each part.
 *
 * Pipeline inside kpyc
 * --------------------
 *   lex.re    the whole file -> a token array (INDENT/DEDENT/NEWLINE made
 *             from the indentation stack, brackets join lines);
 *   top.c     splits the token array into top-level statements and keeps
 *             only what Warp compiles: imports, @wp.kernel / @wp.func
 *             definitions, @wp.struct classes and module-level constants;
 *             everything else (host code) is skipped by indentation;
 *             its parts: diag.c (diagnostics), names.c (name maps,
 *             globals), parse.c (a statement through py.y),
 *             consteval.c (module-level evaluation), defs.c
 *             (kept statements, options), launches.c (overloads and
 *             launches), enums.c, decls.c (struct and function
 *             declarations);
 *   py.y      Bison parses each kept statement into an AST (this file);
 *   types.c   Warp's names and types (what wp.NAME is, type names);
 *   sema.c    statements: name resolution, SSA over structured control
 *             flow, functions and their instances;
 *             its parts: env.c (environments), liveness.c, control.c
 *             (regions, if, loops), det.c (deterministic mode);
 *   expr.c    expressions; its parts: value.c (values, emitting ops),
 *             ops.c (operators), subscript.c (subscripts, attributes),
 *             store.c (stores to them);
 *   call.c    calls, user functions; its parts: args.c (arguments),
 *             builtins.c (rows of ir/ops.def), ctors.c (constructors,
 *             casts).  docs/kpyc.md says which file calls which.
 *
 * Memory: one arena (Kpyc.arena) holds tokens' side data, the AST and the
 * symbol tables of every file; the kir module has its own arena.  Scratch
 * state of one function body lives in Kpyc.tmp, reset between bodies.
 */
#ifndef KPY_FRONTEND_AST_H
#define KPY_FRONTEND_AST_H

#include "ir.h"

/* ------------------------------------------------------------------ */
/* lex.re — tokens                                                     */

typedef struct Token {
	int kind;          /* Bison token kind (py.tab.h); PYEOF at the end */
	uint32_t off;      /* byte offset of its first byte in the source */
	uint32_t len;      /* length in bytes */
	Loc loc;           /* line and 1-based byte column */
	const char *msg;   /* BADTOK: what is wrong; other kinds: a layout
	                    * error (unexpected indent, a missing block) */
	bool parsed;       /* read by a parse that reports errors */
} Token;

typedef struct TokArray {
	Token *v;      /* tokens, the last one is PYEOF */
	uint32_t n;    /* number of tokens */
	uint32_t cap;  /* allocated */
} TokArray;

/* Tokenize a whole NUL-terminated source.  Never fails: malformed input
 * becomes BADTOK tokens (or tokens with a msg) that the parser reports if
 * it reads them; kpyc reports the others (tokreport). */
void pytokenize(Arena *a, const Src *src, TokArray *out);

/* ------------------------------------------------------------------ */
/* The AST (built by py.y)                                             */

typedef struct Node Node;

/* A list of nodes, growable in the arena. */
typedef struct NodeList {
	Node **v;     /* elements */
	uint32_t n;   /* count */
	uint32_t cap; /* allocated */
} NodeList;

enum NodeKind {
	/* expressions */
	E_NAME,      /* s */
	E_INT,       /* u (value), big (does not fit in 64 bits) */
	E_FLOAT,     /* f */
	E_STR,       /* s (decoded), u = length in bytes; op = 'b' for bytes */
	E_BOOL,      /* u = 0 or 1 */
	E_NONE,
	E_ELLIPSIS,
	E_ATTR,      /* a.s */
	E_SUBSCRIPT, /* a[l1...]: l1 holds the indices (E_SLICE allowed) */
	E_SLICE,     /* a:b:c, each may be NULL */
	E_CALL,      /* a(l1 positional (E_STARRED allowed), l2 keywords (E_KEYWORD)) */
	E_KEYWORD,   /* s=a; s NULL for **a */
	E_BINOP,     /* a op b; op is a BinOp */
	E_UNARY,     /* op a; op is a UnOp */
	E_BOOLOP,    /* l1 joined by op (BO_AND, BO_OR) */
	E_COMPARE,   /* a, then l1 comparators, ops in cmpops[] */
	E_IFEXP,     /* a if b else c */
	E_TUPLE,     /* (l1) */
	E_LIST,      /* [l1] */
	E_STARRED,   /* *a */
	E_UNSUP,     /* an expression kpyc (and Warp) do not compile; s names it
	              * ("ast.Dict": l1 holds the items as E_KEYWORD, b the key,
	              * a the value; b NULL for **a; "ast.Set": l1 the elements) */
	/* statements */
	S_EXPR,      /* a */
	S_ASSIGN,    /* l1 targets (more than one: x = y = v), a value */
	S_AUGASSIGN, /* a op= b */
	S_ANNASSIGN, /* a: b [= c] */
	S_IF,        /* if a: l1 else: l2 (elif is an S_IF alone in l2) */
	S_FOR,       /* for a in b: l1 else: l2 */
	S_WHILE,     /* while a: l1 else: l2 */
	S_BREAK,
	S_CONTINUE,
	S_RETURN,    /* a may be NULL */
	S_PASS,
	S_ASSERT,    /* a [, b] */
	S_DEF,       /* def s(l2 params) -> a: l1; l3 decorators */
	S_CLASS,     /* class s(l2 bases): l1; l3 decorators */
	S_IMPORT,    /* import l1 (E_ALIAS) */
	S_FROM,      /* from s import l1 (E_ALIAS); u = leading dots */
	E_ALIAS,     /* s as s2 (s2 NULL if none) */
	P_PARAM,     /* parameter s: a = b; op: 0 plain, '*' *args, 'k' **kwargs */
	S_UNSUP,     /* a statement kpyc does not compile; s names it */
	S_ERROR,     /* a statement that did not parse (already reported) */
	NNODEKIND
};

enum BinOp { B_ADD, B_SUB, B_MUL, B_DIV, B_FLOORDIV, B_MOD, B_POW, B_MATMUL,
             B_LSHIFT, B_RSHIFT, B_BITAND, B_BITOR, B_BITXOR, NBINOP };
enum UnOp { U_NEG, U_POS, U_NOT, U_INVERT };
enum BoolOp { BO_AND, BO_OR };
enum CmpOp { C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE, C_IN, C_NOTIN, C_IS, C_ISNOT };

struct Node {
	uint16_t kind;     /* NodeKind */
	uint16_t op;       /* operator (BinOp, UnOp, BoolOp), P_PARAM kind */
	Loc loc;           /* first character */
	Loc end;           /* last character (statements; for liveness) */
	Loc oploc;         /* the operator (binary, comparison, augmented) */
	const char *s;     /* name, attribute, string, construct name */
	const char *s2;    /* E_ALIAS: the `as` name */
	Node *a, *b, *c;   /* operands, see NodeKind */
	NodeList l1, l2, l3;
	uint8_t *cmpops;   /* E_COMPARE: l1.n operators (CmpOp) */
	union {
		uint64_t u;    /* E_INT, E_BOOL, E_STR length, S_FROM level */
		double f;      /* E_FLOAT */
	};
	bool big;          /* E_INT: more than 64 bits */
	bool paren;        /* expression written in parentheses */
	uint64_t *live;    /* sema.c: names live after an if or loop (for and
	                    * while: then those live at the loop's head) */
	bool tcomma;       /* E_SUBSCRIPT index list with a trailing comma */
};

/* ------------------------------------------------------------------ */
/* py.y — the parser                                                   */

/* Parser state shared with yylex through %param. */
typedef struct PState {
	Arena *a;
	const Src *src;
	uint32_t file;     /* index of src among the module's sources (Loc.file) */
	const TokArray *toks;
	uint32_t pos;      /* next token to hand out */
	uint32_t end;      /* one past the last token of this unit */
	Diag *d;
	bool quiet;        /* syntax errors are not reported (host code) */
	/* where syntax errors go (kpyc collects them to sort them by place) */
	void (*report)(void *ctx, Loc loc, const char *msg);
	void *ctx;
	int nerr;          /* syntax errors in this unit */
	bool lasterr;      /* the last statement line did not parse */
	NodeList result;   /* statements parsed */
} PState;

/* Parse tokens [from, to) as a sequence of statements into ps->result.
 * Returns the number of syntax errors (0 on success). */
int pyparse_unit(PState *ps, uint32_t from, uint32_t to);

Node *mknode(Arena *a, int kind, Loc loc);
void nlpush(Arena *a, NodeList *l, Node *n);
/* The construct's name as Warp's message spells it: "ast.Lambda"... */
const char *nodename(const Node *n);

/* ------------------------------------------------------------------ */
/* top.c and its parts — files, module-level names and constants      */

typedef struct KpycOpts {
	int max_unroll;    /* Warp's max_unroll (16) for the dynamic-loop rule */
	bool parse_only;   /* stop after parsing (the fuzz harness's fast mode) */
} KpycOpts;

/* stack.c */
/* Compile the Python sources into one kir module.  Diagnostics go to d;
 * returns NULL when any error was reported. */
Module *kpyc_compile(Src *srcs, int nsrcs, Diag *d, const KpycOpts *o);
/* top.c */
/* The same on the calling thread (stack.c runs it on a large stack). */
Module *kpyc_compile_here(Src *srcs, int nsrcs, Diag *d, const KpycOpts *o);

/* The Python value of a literal constant, kept exactly (Warp converts
 * literals at their full precision where it adapts them). */
typedef struct Lit {
	bool ok;       /* a scalar value is known */
	bool isint;    /* Python int (or bool): i; else float: f */
	int64_t i;
	double f;
} Lit;

/* Kinds of module-level values (and of what a name in a kernel denotes
 * before it is turned into kir values). */
enum GKind {
	G_NONE,     /* nothing / error */
	G_HOST,     /* host code kpyc does not evaluate */
	G_WARP,     /* the warp package or a submodule (s: "", "types", ...) */
	G_WPNAME,   /* a Warp function or type factory by its Warp name (s) */
	G_CONST,    /* a constant: ty, c[ncomp(ty)], lit for scalars */
	G_STR,      /* a string constant (s) */
	G_TYPE,     /* a type: ty; spec.any / spec.anydtype for generics */
	G_FUNC,     /* @wp.func overloads: fd */
	G_KERNEL,   /* @wp.kernel: fd */
	G_MODULE,   /* another Python module (s: "math", "typing", ...) */
	G_PYNAME,   /* a member of another module (s: "typing.Any", "math.sqrt") */
	G_TUPLE,    /* a tuple of values: elts[n] (shapes) */
	G_ANY,      /* typing.Any */
	G_ENUM,     /* an enum.IntEnum or IntFlag class (s: its name); its members are
	             * the module names "CLASS.MEMBER", G_CONST int32 with s "enum";
	             * n 1: a plain class, its constant attributes "CLASS.NAME";
	             * n 2: a types.SimpleNamespace, its attributes "NAME.ATTR",
	             * which Warp resolves in a call's function only */
	G_SLICE,    /* in a function body only: an array view Warp makes with
	             * slices (a[1:3], a[i, ::2]): sl; n 1: its .shape */
	G_VTUPLE,   /* in a function body only: a local bound to a tuple of
	             * values (t = (1, x), t = f() of several results): xt[n] */
};

struct FuncDecl;

/* A type as a parameter annotation gives it: concrete, or generic. */
typedef struct TySpec {
	Type ty;
	bool any;      /* typing.Any: matches every type */
	bool anydtype; /* array(dtype=Any): matches arrays of ty.nd dimensions */
	bool gen;      /* a pattern of Warp's generic annotations: wp.Float,
	                * wp.Int, wp.Scalar (ty a scalar), vector(Any, float),
	                * vector(3, wp.Int), matrix((Any, Any), float) (ty a
	                * vector or matrix): anyn, dclass */
	uint8_t anyn;   /* gen: 1 any length (rows), 2 any columns */
	uint8_t dclass; /* gen: the components' class, DC_* */
	bool tup;       /* a function parameter's tuple[T, U], tuple[T, ...]:
	                 * ntup element specs telts (tupvar: telts[0], any count) */
	bool tupvar;
	int ntup;
	const struct TySpec *telts;
} TySpec;

enum { DC_EXACT, DC_FLOAT, DC_INT, DC_SCALAR }; /* TySpec.dclass */

/* Is s a generic annotation (typing.Any, array(dtype=Any), a pattern)? */
static inline bool specgeneric(const TySpec *s) { return s->any || s->anydtype || s->gen || s->tup; }

typedef struct GVal {
	int kind;            /* G_* */
	const char *s;       /* G_WARP, G_WPNAME, G_MODULE, G_PYNAME, G_STR */
	TySpec spec;         /* G_TYPE; G_CONST: spec.ty is the constant's type */
	Scal *c;             /* G_CONST: components */
	Lit lit;             /* G_CONST scalar: the Python value */
	struct FuncDecl *fd; /* G_FUNC, G_KERNEL */
	struct GVal *elts;   /* G_TUPLE */
	int n;               /* G_TUPLE: count */
	struct ASlice *sl;   /* G_SLICE */
	struct X *xt;        /* G_VTUPLE: the elements, X_VAL each */
} GVal;

/* An array view Warp makes with slices, which kpyc keeps as its base
 * array and, per base dimension, the index of the view's first element
 * and the step (0: an integer index dropped that dimension), and per view
 * dimension its length; element (k0, k1...) of the view is the base's
 * element first[b] + k * step[b].  Its values live in the region where
 * it was made (a local bound to it is not carried out of loops). */
typedef struct ASlice {
	Val base;              /* the array */
	int nbase, nd;         /* base and view dimensions */
	Val first[MAXDIM];     /* per base dimension, i32 */
	Val step[MAXDIM];      /* per base dimension, i32; 0: dropped */
	Val len[MAXDIM];       /* per view dimension, i32 */
	int dim[MAXDIM];       /* view dimension -> base dimension */
} ASlice;

/* A module-level name. */
typedef struct Global {
	const char *name;
	GVal v;
	Loc loc;
} Global;

/* A parameter of a kernel or function. */
typedef struct Param {
	const char *name;
	Node *node;        /* P_PARAM */
	TySpec spec;       /* resolved annotation */
	bool hasdflt;      /* has a default value */
	GVal dflt;         /* the default (a module-level constant) */
} Param;

/* One compiled instance of a function for concrete argument types. */
typedef struct Inst {
	Type *args;          /* argument types (a tuple argument's elements in turn) */
	int *tup;            /* NULL, or per parameter: 0 a value, n a tuple of n */
	int nargs;           /* entries of args */
	Func *f;             /* the kir function (NULL if it failed) */
	int fidx;            /* its index in Module.funcs (until the final sort) */
	bool busy;           /* being compiled (a call to it is recursion) */
	bool lenient;        /* compiled only because nothing called it */
	struct Inst *next;
} Inst;

/* A @wp.kernel or @wp.func definition. */
struct NameMap;
typedef struct FuncDecl {
	Node *def;              /* S_DEF */
	struct FileCtx *file;
	const char *name;
	bool kernel;
	bool generic;           /* a parameter is generic */
	bool bad;               /* its signature did not resolve */
	Param *params;
	int nparams;
	bool hasret;            /* return annotation present (and not None) */
	TySpec *rets;           /* annotated return types */
	int nrets;
	int order;              /* position among the file's definitions */
	bool nobackward;        /* enable_backward=False (decorator or module options) */
	bool det;               /* module_options deterministic: RUN_TO_RUN or GPU_TO_GPU */
	int max_unroll;         /* module_options max_unroll + 1 (0: not set) */
	const struct NameMap *closure; /* a kernel nested in a function: the names that function
	                         * binds (read as module names they would be wrong) */
	struct FuncDecl *next;  /* next overload of the same name */
	Inst *insts;
	int ninsts;
	struct KOverload *ovls; /* a generic kernel: its wp.overload types, in order */
	uint32_t novls, capovls;
	int launched;           /* 1: ovls are the types of launches in the file (top.c
	                         * launches); -1: it has declared overloads */
} FuncDecl;

/* One wp.overload of a generic kernel: a concrete type per parameter. */
typedef struct KOverload {
	Type *args;
	Loc loc;
} KOverload;

/* Open-addressing map from names to indices. */
typedef struct NameMap {
	const char **keys;
	uint32_t *vals;
	uint32_t n, cap;
} NameMap;

/* One Python source file. */
typedef struct FileCtx {
	Src *src;
	int index;             /* among the input files */
	TokArray toks;
	Global *g;             /* module-level names, in order of binding */
	uint32_t ng, capg;
	NameMap gmap;          /* name -> index in g (the latest binding) */
	FuncDecl **decls;      /* kernels and functions, in source order */
	uint32_t ndecls, capdecls;
	const char *modname;   /* the file name without directories and .py */
	bool nobackward;       /* wp.set_module_options({"enable_backward": False}) */
	bool det;              /* deterministic mode set for the module (options or wp.config) */
	int max_unroll;        /* max_unroll set for the module + 1 (0: not set) */
	const char *starmod;   /* the module of the first `from M import *` */
	struct HostDef *hdefs; /* top-level plain defs (function factories), by hdmap */
	uint32_t nhdefs, caphdefs;
	NameMap hdmap;         /* name -> index in hdefs (the latest def) */
} FileCtx;

/* A top-level def without decorators: its tokens [from, to). */
typedef struct HostDef {
	uint32_t from, to;
	Loc funcloc;           /* its first @wp.func (hasfunc) */
	bool hasfunc, used;    /* has a @wp.func directly in its body; called as a factory */
} HostDef;

/* One diagnostic, formatted, kept until every file is done so that they
 * print in source order. */
typedef struct Diagnostic {
	int file;
	Loc loc;
	uint32_t seq;
	bool error;
	Buf text;          /* the message, source line, caret and notes */
} Diagnostic;

/* The whole compilation. */
typedef struct Kpyc {
	Module *m;
	Diag *d;
	Arena *a;              /* AST and tables, for the whole run */
	const KpycOpts *o;
	FileCtx *files;
	int nfiles;
	FileCtx *file;         /* the file being compiled */
	int lenient;           /* > 0: errors are reported as warnings */
	int nlenient;          /* errors downgraded so far */
	NameMap fnames;        /* kir function names in use */
	struct FuncKey *keys;  /* per kir function: where it comes from */
	uint32_t nkeys, capkeys;
	Diagnostic *diags;     /* collected diagnostics (printed sorted at the end) */
	uint32_t ndiags, capdiags;
	NameMap ops;           /* op name -> OP_* (builtins by name) */
	NameMap wpmap;         /* wp.NAME -> index in wpvals (memo of wpname) */
	GVal *wpvals;
	uint32_t nwpvals, capwpvals;
	Arena *tmps[64];       /* scratch arenas, one per nesting depth of bodies */
	int depth;             /* bodies being compiled (calls compile callees) */
	/* wp.static() in a body: geval asks slocal about a name before the
	 * module (found: the name is the body's, with that value or none) */
	GVal (*slocal)(struct Kpyc *k, Node *name, bool *found);
	/* and, for len(NAME), the type of the body's NAME (Warp replaces len()
	 * of a local or parameter by its type's length) */
	GVal (*stype)(struct Kpyc *k, Node *name, bool *found);
	void *sctx;
	const NameMap *closure; /* the body being compiled is nested: names geval must not
	                         * read from the module (FuncDecl.closure) */
	struct ClosureConst *cconsts; /* closure names bound once, to a constant expression */
	uint32_t ncconsts, capcconsts;
	/* a host function geval is running (consteval.c hostcall): its
	 * locals; module values it changed, restored if geval fails;
	 * hmut: it may change them (a kernel's own wp.static, not a
	 * @wp.func's, nor module-level code kpyc may evaluate twice);
	 * hrolled: set when geval undid changes */
	struct HFrame *hframe;
	int hdepth;
	uint32_t hsteps;        /* statements the outermost call ran */
	struct HUndo *hundo;
	uint32_t nhundo, caphundo;
	bool hmut, hrolled;
} Kpyc;

/* diag.c */
/* Report an error located in the current file (a warning when lenient). */
void kerr(Kpyc *k, Loc loc, const char *fmt, ...) KPY_PRINTF(3, 4);
void kwarn(Kpyc *k, Loc loc, const char *fmt, ...) KPY_PRINTF(3, 4);
void knote(Kpyc *k, const char *fmt, ...) KPY_PRINTF(2, 3);

/* names.c */
uint32_t strhash(const char *s);                        /* FNV-1a */
uint32_t nmget(const NameMap *m, const char *key);     /* UINT32_MAX if absent */
void nmput(Arena *a, NameMap *m, const char *key, uint32_t val);

const Global *gfind(const FileCtx *f, const char *name);
/* consteval.c */
/* A name of the function a kernel is nested in (closure: its names):
 * *isclosure set, and its value when the function binds it once to an
 * expression kpyc evaluates (N = 4, dtype = wp.float64), else G_NONE. */
GVal closureval(Kpyc *k, FileCtx *f, const NameMap *closure, const char *name, bool *isclosure);
/* Evaluate a module-level expression (constants, types, Warp names).
 * quiet: return G_NONE without reporting. */
GVal geval(Kpyc *k, FileCtx *f, Node *e, bool quiet);

/* Shared by the files of the top level (top.c, diag.c, names.c,
 * consteval.c, defs.c, launches.c, enums.c, decls.c); types.c, sema.c,
 * expr.c and call.c do not use them. */

/* A closure name bound once, to a constant expression (Kpyc.cconsts). */
typedef struct ClosureConst {
	FileCtx *f;
	uint32_t from, to; /* the statement NAME = EXPR */
	int state;         /* 0 not evaluated, 1 being evaluated, 2 done */
	GVal v;
} ClosureConst;

/* diag.c — kpyc's diagnostics, kept and sorted */
void syntaxerr(void *ctx, Loc loc, const char *msg);
void flushdiags(Kpyc *k);

/* names.c — name maps and a file's module-level names */
void gbind(Kpyc *k, FileCtx *f, const char *name, GVal v, Loc loc);
GVal gnone(void);
GVal gkind(int kind, const char *s);
GVal gscalar(Kpyc *k, int s, Lit l);
Lit litint(int64_t i);
Lit litfloat(double f);

/* parse.c — parsing a top-level statement */
char *toktext(Kpyc *k, FileCtx *f, const Token *t);
NodeList *parse(Kpyc *k, FileCtx *f, uint32_t from, uint32_t to, bool quiet);

/* consteval.c — module-level evaluation */
GVal modmember(Kpyc *k, const char *mod, const char *name);
bool numval(const GVal *v, Lit *l);
Node *kwarg(Node *call, const char *name);

/* defs.c — definitions and assignments kpyc keeps */
NameMap *closurenames(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, bool params);
bool factorycall(Kpyc *k, FileCtx *f, Node *s);
void doassign(Kpyc *k, FileCtx *f, Node *s);
bool tokis(const FileCtx *f, const Token *t, const char *name);
void moduleoptions(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e);
void configassign(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e);
void decoptions(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, FuncDecl *fd);

/* launches.c — kernel overloads and launches */
void launches(Kpyc *k, FileCtx *f);
void overloadcall(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e);
void overloadloop(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e);
bool overloadstub(Kpyc *k, FileCtx *f, Node *d);

/* enums.c — plain classes as enums */
bool intenum(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e);

/* decls.c — declaring structs and functions */
void declstruct(Kpyc *k, FileCtx *f, Node *cls);
FuncDecl *declfunc(Kpyc *k, FileCtx *f, Node *def, int kind, const char *encl, const NameMap *closure);

/* ------------------------------------------------------------------ */
/* types.c — Warp's names and types                                    */

/* What `wp.NAME` is: a type, a constant, a function or a factory. */
GVal wpname(Kpyc *k, const char *name);
/* consteval.c */
/* Resolve a type expression (an annotation, a dtype=).  Reports errors
 * unless quiet; returns false if e is not a type. */
bool evaltype(Kpyc *k, FileCtx *f, Node *e, TySpec *out, bool quiet);
/* types.c */
/* Turn a GVal into a type (a G_TYPE, a scalar Python builtin...). */
bool gvaltype(const GVal *g, TySpec *out);
/* Does concrete type t fit the parameter annotation s (Warp's
 * type_matches_template)? */
bool specfits(const TySpec *s, Type t);
const char *specstring(Arena *a, const Module *m, const TySpec *s, const char *any);
/* Warp's spelling of a type for messages: float32, vec3f, array(dtype=float32, ndim=2) */
const char *wptypename(const Module *m, Type t);
/* A name for t that is a valid identifier part (function instance names). */
void typemangle(Buf *b, const Module *m, Type t);
/* s as a kir identifier (non-ASCII bytes spelled _xHH). */
const char *kirident(Arena *a, const char *s);
/* names.c */
/* The scalar type of a Python literal constant (i32, f32, bool). */
Scal litscal(Lit l, int s);

/* ------------------------------------------------------------------ */
/* sema.c and its parts — functions and statements                     */

/* A local variable's current binding. */
typedef struct Bind {
	const char *name;
	Val v;           /* current value (0 when poisoned) */
	bool wconst;     /* Warp sees a compile-time constant (x = 1.0) */
	bool poison;     /* an earlier error left it without a value */
	bool zinit;      /* a loop's placeholder: undefined until assigned */
	bool hasrange;   /* index of a loop Warp unrolls: values in [lo, hi] */
	int64_t lo, hi;
	Lit lit;         /* exact Python value of a constant binding */
	Lit ilast;       /* the index after a loop Warp unrolls: its last value,
	                  * which Warp keeps as a constant (for wp.static()) */
	GVal *fn;        /* bound to a function (f = wp.sin, g = my_func): no value */
	bool ghost;      /* Warp still knows the name (with type gty) but it is
	                  * dead here, so kir has no value for it */
	Type gty;
} Bind;

/* An environment's hash index: name -> position in v (open addressing).
 * Shallow copies of an Env (saved and restored around branches and loops)
 * share it, so it may also hold other environments' entries: an entry
 * counts only when its position is below the Env's n and the binding there
 * has the name.  Every name of v[0, n) has an entry. */
typedef struct EnvSlot {
	uint32_t hash, at;     /* at: UINT32_MAX for an empty slot */
} EnvSlot;
typedef struct EnvIdx {
	uint32_t cap, used;    /* slots (a power of two); entries, stale ones too */
	EnvSlot slot[];
} EnvIdx;

typedef struct Env {
	Bind *v;
	uint32_t n, cap;
	EnvIdx *ix;            /* NULL: none yet (n == 0) */
} Env;

/* What an expression evaluates to. */
enum XKind {
	X_NONE,   /* an error was reported */
	X_VAL,    /* a kir value */
	X_TUPLE,  /* several values (a tuple, a multi-result call) */
	X_G,      /* a module-level thing: type, function, module ... */
	X_SHAPE,  /* arr.shape (v: the array) */
};

typedef struct X {
	int k;
	Val v;              /* X_VAL; X_SHAPE: the array */
	bool wconst;        /* Warp sees a compile-time constant */
	bool hasrange;      /* a static loop index: values in [lo, hi] */
	int64_t lo, hi;
	Lit lit;            /* exact Python value of a literal constant */
	GVal g;             /* X_G */
	struct X *elts;     /* X_TUPLE */
	int n;
	bool results;       /* X_TUPLE: a call's several results, which Warp
	                     * passes on as a tuple only once bound to a local */
	const char *name;   /* the expression is this local variable */
	Loc loc;
} X;

typedef struct LoopCtx {
	struct LoopCtx *up;
	Op *op;
	int first;            /* params before the carried ones (1: for) */
	int nc;               /* carried variables */
	const char **names;
	const char *target;   /* for: the index's name (NULL: while) */
	bool unrolled;        /* for: Warp unrolls it (the index is a constant in each copy) */
} LoopCtx;

/* The state of one function body being compiled. */
typedef struct Ctx {
	Kpyc *k;
	FileCtx *file;
	FuncDecl *fd;
	Module *m;
	Func *f;
	Builder b;            /* b.r: the region ops go to */
	Arena *tmp;           /* scratch for this body */
	Env env;
	bool dead;            /* the current region already has its terminator */
	LoopCtx *loop;        /* innermost loop */
	bool retset;          /* the function's result types are known */
	NameMap lnames;       /* liveness: local name -> bit */
	uint32_t nw;          /* 64-bit words per liveness set */
	Region scratch;       /* dead code goes here */
	Loc errloc;           /* where emitop reports a typing error (0: the op's loc) */
	bool syntaxerr;       /* a statement did not parse: unknown names are not reported */
	bool callee;          /* compiling a call's function: an unbound name may be Warp's */
	Node *calleepath;     /* the function of the innermost call being compiled */
} Ctx;

/* diag.c */
/* Report an error in a function body. */
void serr(Ctx *c, Loc loc, const char *fmt, ...) KPY_PRINTF(3, 4);
/* env.c */
Bind *envfind(const Env *e, const char *name);
void envset(Ctx *c, Bind b);
Env envcopy(Ctx *c, const Env *e);
/* Bind a local name to x (an assignment); fromname: x = y copies, which
 * Warp never treats as a constant. */
void assignname(Ctx *c, const char *name, X x, Loc loc, bool fromname);
void nameval(Ctx *c, Val v, const char *name);
/* value.c */
/* Has region r no effect? */
bool regionpure(const Region *r);

/* sema.c */
/* Compile every kernel of every file, the functions they call, then the
 * remaining non-generic functions. */
void semamodule(Kpyc *k);
/* The instance of fd for argument types args (compiling it if new);
 * NULL after an error. */
Inst *instantiate(Kpyc *k, FuncDecl *fd, const Type *args, Loc callloc);
Inst *instantiatet(Kpyc *k, FuncDecl *fd, const Type *args, const int *tup, Loc callloc);

/* Shared by the files of sema.c's part (sema.c, env.c, liveness.c,
 * control.c, det.c). */

/* The names a loop body assigns, with where (liveness.c). */
typedef struct Assigned {
	const char **names;
	Loc *locs;
	uint32_t n, cap, capl;
} Assigned;

/* sema.c — simple statements and functions */
void stmts(Ctx *c, NodeList *l);

/* env.c — environments */
bool samebind(const Bind *a, const Bind *b);
Type bindtype(Ctx *c, const Bind *b);
void ghost(Ctx *c, const char *name, Type t);
void settype(Ctx *c, Val v, Type t);

/* liveness.c — liveness and what a loop body assigns */
bool lvhas(Ctx *c, const uint64_t *s, const char *name);
void liveness(Ctx *c, Node *def);
void addassigned(Ctx *c, Assigned *as, const char *name, Loc loc);
void scanrand(Ctx *c, Assigned *as, Node *e);
void scanassigned(Ctx *c, Assigned *as, NodeList *l);
bool hasbreak(NodeList *l);
bool hasstatic(Ctx *c, Node *n);
void checkconstmut(Ctx *c, Assigned *as, const char *target);

/* control.c — regions, if and loops */
int maxunroll(Ctx *c);
Op *term(Ctx *c, int code, const Val *args, int n, Loc loc);
Val *loopvals(Ctx *c, LoopCtx *lc, Loc loc);
void ifstmt(Ctx *c, Node *s);
void forstmt(Ctx *c, Node *s);
void whilestmt(Ctx *c, Node *s);

/* det.c — deterministic mode */
void detcheck(Ctx *c, Func *f);

/* ------------------------------------------------------------------ */
/* expr.c and its parts — expressions                                  */

/* value.c */
X xnone(void);
X xval(Val v);
/* expr.c */
X expr(Ctx *c, Node *e);
/* value.c */
/* The kir value of x; reports an error if x is not a value. */
Val xvalue(Ctx *c, X x, Loc loc);
/* x as a bool (Python truthiness of numbers, as Warp's C++ does). */
Val condval(Ctx *c, X x, Loc loc);
/* Emit op code on args; the result's type from typeop (out[0] preset for
 * F_CAST ops).  On a typing error reports "what: reason" and returns NULL. */
Op *emitop(Ctx *c, int code, const Val *args, int n, int attr, Type declared, Loc loc, const char *what);
Val emit1(Ctx *c, int code, const Val *args, int n, Loc loc, const char *what);
Val emitcast(Ctx *c, Val v, Type t, Loc loc);
/* A zero of type t: a constant, or a zero op for structs; 0 for arrays. */
Val zeroval(Ctx *c, Type t, Loc loc);
/* ops.c */
X binop(Ctx *c, int op, X a, X b, Loc loc, Loc oploc);
/* store.c */
/* An assignment to a subscript or attribute target. */
void storeto(Ctx *c, Node *target, X val, int augop, Node *rhs);
/* value.c */
const char *opsym(int binop);
/* subscript.c */
/* *a[s:t:k] of a 1D array n (E_STARRED's operand): its elements into
 * out[0..max), as Warp's unpack_starred; the count, -1 after an error, 0
 * when n is not a slice of an array. */
int starredslice(Ctx *c, Node *n, X *out, int max);

/* Shared by the files of expr.c's part (expr.c, ops.c, subscript.c,
 * store.c). */

/* value.c — values and the ops they emit */
X xg(GVal g, Loc loc);
const char *gdesc(const GVal *g);
Val arraytruth(Ctx *c, Val v, Loc loc);
X gvalx(Ctx *c, GVal g, Loc loc, const char *name);

/* ops.c — operators */
X compare(Ctx *c, Node *e);
X boolop(Ctx *c, Node *e);
X ifexp(Ctx *c, Node *e);
X unary(Ctx *c, Node *e);
X tupleindex(Ctx *c, Node *e, X t);

/* subscript.c — subscripts, attributes and array slices */
Val indexval(Ctx *c, Node *n);
Val compindex(Ctx *c, Val i, int n, Loc loc);
ASlice *wholeview(Ctx *c, Val arr, Loc loc);
bool hasslice(Node *e);
X viewgroups(Ctx *c, const ASlice *s, Node **g, int m, int *used, Val *elemidx);
X subscript(Ctx *c, Node *e);
X attribute(Ctx *c, Node *e);

/* ------------------------------------------------------------------ */
/* call.c and its parts — calls                                        */

/* Compile a call; want: the number of values the context unpacks (0: one
 * or none); used: the result is used. */
X call(Ctx *c, Node *e, int want, bool used);
/* types.c */
/* The op (OP_*) a Warp builtin name maps to, or -1. */
int builtinop(Kpyc *k, const char *name);
/* builtins.c */
/* Is name one of Warp's builtins (kpyc's or not)? */
bool iswarpname(const char *name);

/* Shared by the files of call.c's part (call.c, ctors.c, builtins.c). */

/* A call's arguments, evaluated (call.c). */
typedef struct Args {
	X *pos;           /* positional (starred ones expanded) */
	Loc *ploc;
	int n;
	const char **kw;  /* keyword names */
	X *kx;
	Loc *kloc;
	int nk;
	bool starred;     /* some positional argument was starred */
} Args;

/* args.c — arguments */
bool evalargs(Ctx *c, Node *e, Args *a);
X *kwget(Args *a, const char *name);
bool nokw(Ctx *c, Args *a, const char *what);
Val *argvals(Ctx *c, Args *a);
bool typearg(Ctx *c, X *x, Loc loc, Type *t);
bool intarg(Ctx *c, X *x, Loc loc, int64_t *v);
X void_x(void);

/* ctors.c — constructors and casts */
X opx(Op *op);
X castx(Ctx *c, Type t, Args *a, Loc loc, const char *name);
X construct(Ctx *c, Type t, Args *a, Loc loc, const char *name);
X factory(Ctx *c, const char *w, Args *a, Loc loc);

/* builtins.c — Warp builtins */
X generic(Ctx *c, int code, const char *name, Args *a, Loc loc, Node *e);
X builtin(Ctx *c, Node *e, const char *name, int want, bool pyname);
X pybuiltin(Ctx *c, Node *e, const char *name, int want);

#endif /* KPY_FRONTEND_AST_H */
