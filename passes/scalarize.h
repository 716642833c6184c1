/*
 * scalarize.h — what the files of the scalarize pass share: the lowering
 * state, the leaves of a value, the op builders the expansions are written
 * with and the expansions the table xtab[] (scalarize.c) dispatches to.
 *
 * scalarize.c          the pass: leaves, op builders, scalar expansions,
 *                      memory, the walk over regions and functions
 * scalarize_linalg.c   elementwise ops, construction, component access,
 *                      vectors and matrices
 * scalarize_decomp.c   svd3, svd2, qr3, eig3 (kpy/decomp.h)
 * scalarize_quat.c     quaternions, transforms and spatial vectors
 * scalarize_rand.c     random numbers, and the poisson and noise helper
 *                      functions built once per module
 * scalarize_print.c    print, as printf in the formats of kpy/print.h
 *
 * Private to passes/scalarize*.c.
 */
#ifndef KPY_SCALARIZE_H
#define KPY_SCALARIZE_H

#include "passes.h"

/* The leaves of a value. */
typedef struct L {
	Val *v;  /* leaf values */
	int n;   /* number of leaves */
} L;

/* The state of the pass over one function. */
typedef struct S {
	Module *m;
	Func *f;          /* function being lowered (or helper being built) */
	PassOpts *o;
	Region *r;        /* where new ops go */
	Loc loc, kloc;    /* locations given to new ops */
	L *map;           /* per old Val (< nmap): its leaves; n == 0: unmapped */
	uint32_t nmap;
	uint32_t mark;    /* first Val created while lowering the current op */
	int nerr;
	const Op *cur;    /* op being lowered (diagnostics) */
	uint32_t nfuncs0; /* functions of the input (helpers come after) */
} S;

/* Composite expansions.  Each gets the leaves of the operands and fills
 * the (preallocated) leaves of the results. */
typedef void Xfn(S *s, const Op *op, const L *in, L *out);

/* Type of operand i / result i of the op being lowered. */
#define AT(i) vty(s->f, op->args[i])
#define RT(i) vty(s->f, op->res[i])

/* scalarize.c */
void scerror(S *s, const char *fmt, ...) KPY_PRINTF(2, 3);
int nleaves(const Module *m, Type t);
void leafinfo(const Module *m, Type t, int base, Type *tys, int *offs, int *k);
Op *emit(S *s, int code, const Val *args, int nargs, const Type *rtys, int nres);
Val edecl(S *s, int code, const Val *args, int n, Type t);
Val K(S *s, int sk, double v);
Val neg(S *s, Val a);
Val cast(S *s, Val x, int sk);
Val muladd(S *s, Val a, Val b, Val c);
Val dotn(S *s, const Val *a, const Val *b, int n, bool fromzero);
Val sx(S *s, int code, const Val *a, int n);

static inline bool
flat(Type t)
{
	return !(iscomposite(t) || t.k == T_STRUCT);
}

static inline Type
ty(S *s, Val v)
{
	return vty(s->f, v);
}

/* An integer constant of kind sk. */
static inline Val KI(S *s, int sk, int64_t v) { return cint(s->m, s->f, sk, v); }
/* Scalar ops through sx: low ones as they are, the others expanded. */
static inline Val op1(S *s, int code, Val a) { return sx(s, code, &a, 1); }
static inline Val op2(S *s, int code, Val a, Val b) { Val x[2] = {a, b}; return sx(s, code, x, 2); }
static inline Val op3(S *s, int code, Val a, Val b, Val c) { Val x[3] = {a, b, c}; return sx(s, code, x, 3); }
static inline Val add(S *s, Val a, Val b) { return op2(s, OP_ADD, a, b); }
static inline Val sub(S *s, Val a, Val b) { return op2(s, OP_SUB, a, b); }
static inline Val mul(S *s, Val a, Val b) { return op2(s, OP_MUL, a, b); }
static inline Val dvd(S *s, Val a, Val b) { return op2(s, OP_DIV, a, b); }
static inline Val sqr(S *s, Val a) { return op1(s, OP_SQRT, a); }
static inline Val sel(S *s, Val c, Val a, Val b) { return op3(s, OP_WHERE, c, a, b); }
static inline Val lt(S *s, Val a, Val b) { return op2(s, OP_LT, a, b); }
static inline Val gt(S *s, Val a, Val b) { return op2(s, OP_GT, a, b); }
static inline Val ge(S *s, Val a, Val b) { return op2(s, OP_GE, a, b); }
static inline Val eq(S *s, Val a, Val b) { return op2(s, OP_EQ, a, b); }
static inline Val ne(S *s, Val a, Val b) { return op2(s, OP_NE, a, b); }
static inline Val land(S *s, Val a, Val b) { return op2(s, OP_AND, a, b); }
static inline Val lor(S *s, Val a, Val b) { return op2(s, OP_OR, a, b); }
static inline Val lnot(S *s, Val a) { return op1(s, OP_UNOT, a); }

/* scalarize_linalg.c */
Xfn xew, xcast, xwhere, xlerp, xminmax, xeq, xclassify, xctor, xfromvecs, xzero;
Xfn xextract, xinsert, xfield, xsetfield;
Xfn xdot, xcross, xlength, xnormalize, xouter, xargm, xnorm;
Xfn xmul, xdiv, xtranspose, xtrace, xdiag, xddot, xskew, xdeterminant, xinverse;
void zeroleaves(S *s, Type t, L out);
int cindex(S *s, Val i, int n, Val *dyn);
Val pick(S *s, Val dyn, const Val *c, int n, int step);
Val vdot(S *s, const Val *a, const Val *b, int n);
void cross3(S *s, const Val *a, const Val *b, Val *r);
void vnormalize(S *s, const Val *a, int n, Val *r);
void qnormalize(S *s, const Val *q, Val *r);
void matvec(S *s, const Val *m, int rows, int cols, const Val *v, Val *r);
void quatmul(S *s, const Val *a, const Val *b, Val *r);
void xformmul(S *s, const Val *a, const Val *b, Val *r);

/* scalarize_decomp.c */
Xfn xsvd3, xsvd2, xqr3, xeig3;

/* scalarize_quat.c */
Xfn xquatrot, xquatinv, xfromaxisangle, xtoaxisangle, xslerp, xquattomat, xquatfrommat;
Xfn xquatrpy, xquattorpy, xquatfromeuler, xquattoeuler, xquattwist;
Xfn xxpoint, xxmul, xxinverse, xslice, xxtomat, xxfrommat, xxcompose, xxdecompose;
Xfn xspcross, xspdot, xspadjoint, xtwist, xvelpoint;
void quatrot(S *s, const Val *q, const Val *v, bool inv, Val *r);

/* scalarize_rand.c */
Xfn xrand, xnoise;
Op *ifelse(S *s, Val c, int tcode, const Val *a, int na, int ecode, const Val *b, int nb, const Type *tys, int n);

/* scalarize_print.c */
Xfn xprint;

#endif
