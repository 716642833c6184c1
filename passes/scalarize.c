/*
 * scalarize.c — lower vectors, matrices, quaternions, transforms, structs
 * and the composite builtins to scalar kir ("low kir").
 *
 * requires: a verified module
 * provides: low kir: every op has the F_LOW flag, and every value an op
 *           yields is a scalar or an array (or a printf string), except
 *           that a kernel keeps its parameters as they are (the kernel ABI
 *           does not change) and reads the scalars of a composite or struct
 *           parameter once, at its entry, with `extract` and `field` (a
 *           nested struct field yields the inner struct, read the same way),
 *           and that an array field of a struct array element is read by
 *           loading the element whole and taking the field (arrays cannot
 *           be array elements, so there is no member view of one).
 *           Every non-kernel function gets a flat signature: each parameter
 *           and result becomes its scalar (and array) leaves, in the order
 *           below, and calls pass and receive leaves.
 * leaves:   a value is represented by the list of its scalar leaves, in the
 *           order of its memory layout: vector components; matrix elements
 *           row by row; quaternion x y z w; transform p.x p.y p.z then q;
 *           struct fields in order, each flattened the same way (an array
 *           field is one leaf).  Leaves of named values are named after
 *           them (%v.x, %m.01, %t.qw, %p.pos.x).
 * how:      elementwise ops (F_EW, where, cast, lerp, two-operand min/max)
 *           apply to each leaf; every other composite builtin has an
 *           expansion in the table xtab[] below, written in kir scalar ops
 *           with the evaluation order and precision of the runtime headers
 *           (kpy/vec.h, mat.h, quat.h, transform.h, spatial.h, which follow
 *           Warp's warp/native headers): products associate left to right, M*M
 *           and ddot accumulate with fma, 4x4 determinant and inverse keep
 *           their minors in f64, branches become `where`; the
 *           decompositions (svd3, svd2, qr3, eig3) follow kpy/decomp.h
 *           without fma, their Jacobi sweeps a `for` loop.  Scalar builtins
 *           without a direct LLVM mapping (sign, step, nonzero, clamp,
 *           floordiv, frac, degrees, radians, isnan, isinf, isfinite, lerp,
 *           smoothstep) expand to low ops too, as do print (to printf) and
 *           the random numbers (Warp's PCG hash in integer ops).  Poisson
 *           sampling, noise, pnoise and curlnoise become calls of helper
 *           functions the pass adds to the module once (@kpy_poisson,
 *           @kpy_noise3, ...), themselves low kir.
 * memory:   a load, store or atomic of a composite or struct element becomes
 *           one scalar access per leaf through `member` views (the array of
 *           one leaf of every element: same shape and strides, data offset
 *           by the leaf's byte offset, the C layout of kpy/abi.h), so a
 *           vec3f element is three consecutive f32.
 * errors:   (located) an op without an expansion (none today), a constant
 *           component index out of range, a store of
 *           a struct holding an array into an array (unless the array is
 *           the one loaded from that element, or one without storage,
 *           stored as zero bytes), a printed struct.  A zero
 *           struct's array fields are arrays without storage.
 * after:    run fold,cse,dce: the expansions leave constant arithmetic and
 *           repeated member views for them.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* The leaves of a value. */
typedef struct L {
	Val *v;  /* leaf values */
	int n;   /* number of leaves */
} L;

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

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */

static void
error(S *s, const char *fmt, ...) KPY_PRINTF(2, 3);

static void
error(S *s, const char *fmt, ...)
{
	va_list ap;
	Buf b = {0};
	Src py = {0};

	va_start(ap, fmt);
	bufvprintf(&b, fmt, ap);
	va_end(ap);
	if (s->cur)
		py.name = locsrc(s->m, s->cur->loc);
	if (s->cur && s->cur->kloc.line)
		diagerr(s->o->d, s->o->src, s->cur->kloc, "in @%s: %s", s->f->name, b.s);
	else if (s->cur && s->cur->loc.line)
		diagerr(s->o->d, &py, s->cur->loc, "in @%s: %s", s->f->name, b.s);
	else
		diagerr(s->o->d, s->o->src, s->f->kloc, "in @%s: %s", s->f->name, b.s);
	buffree(&b);
	s->nerr++;
}

/* ------------------------------------------------------------------ */
/* Types and leaves                                                     */

/* Number of leaves of a value of type t. */
static int
nleaves(const Module *m, Type t)
{
	const StructDef *sd;
	int n = 0;
	uint32_t i;

	switch (t.k) {
	case T_VEC:
	case T_MAT:
	case T_QUAT:
	case T_XFORM:
		return ncomp(t);
	case T_STRUCT:
		sd = &m->structs[t.sid];
		for (i = 0; i < sd->nfields; i++)
			n += nleaves(m, sd->fields[i].ty);
		return n;
	default:
		return 1;
	}
}

/* Leaf types and byte offsets (relative to base) of t, appended at *k. */
static void
leafinfo(const Module *m, Type t, int base, Type *tys, int *offs, int *k)
{
	const StructDef *sd;
	uint32_t i;
	int j;

	switch (t.k) {
	case T_VEC:
	case T_MAT:
	case T_QUAT:
	case T_XFORM:
		for (j = 0; j < ncomp(t); j++) {
			if (tys)
				tys[*k] = tcomp(t);
			if (offs)
				offs[*k] = base + j * scalarsize[t.s];
			(*k)++;
		}
		return;
	case T_STRUCT:
		sd = &m->structs[t.sid];
		for (i = 0; i < sd->nfields; i++)
			leafinfo(m, sd->fields[i].ty, base + fieldoffset(m, t.sid, (int)i), tys, offs, k);
		return;
	default:
		if (tys)
			tys[*k] = t;
		if (offs)
			offs[*k] = base;
		(*k)++;
	}
}

static bool
flat(Type t)
{
	return !(iscomposite(t) || t.k == T_STRUCT);
}

/* Name suffix of leaf k of a value of type t ("x", "01", "pos.x"). */
static void
leafsuffix(const Module *m, Type t, int k, Buf *b)
{
	static const char xyzw[] = "xyzw";
	const StructDef *sd;
	uint32_t i;

	switch (t.k) {
	case T_VEC:
		if (t.n <= 4)
			bufputc(b, xyzw[k]);
		else
			bufprintf(b, "%d", k);
		return;
	case T_QUAT:
		bufputc(b, xyzw[k]);
		return;
	case T_XFORM:
		bufprintf(b, "%c%c", k < 3 ? 'p' : 'q', k < 3 ? xyzw[k] : xyzw[k - 3]);
		return;
	case T_MAT:
		if (t.n <= 10 && t.m <= 10)
			bufprintf(b, "%d%d", k / t.m, k % t.m);
		else
			bufprintf(b, "%d_%d", k / t.m, k % t.m);
		return;
	case T_STRUCT:
		sd = &m->structs[t.sid];
		for (i = 0; i < sd->nfields; i++) {
			int n = nleaves(m, sd->fields[i].ty);
			if (k < n) {
				bufputs(b, sd->fields[i].name);
				if (!flat(sd->fields[i].ty)) {
					bufputc(b, '.');
					leafsuffix(m, sd->fields[i].ty, k, b);
				}
				return;
			}
			k -= n;
		}
		return;
	default:
		return;
	}
}

static L
newleaves(S *s, int n)
{
	L l;

	l.n = n;
	l.v = aalloc(s->m->arena, (size_t)(n ? n : 1) * sizeof(Val));
	return l;
}

/* ------------------------------------------------------------------ */
/* Emitting ops                                                         */

static Op *
emit(S *s, int code, const Val *args, int nargs, const Type *rtys, int nres)
{
	Op *op = mkop(s->m, s->f, code, args, nargs, rtys, nres, s->loc);

	op->kloc = s->kloc;
	regpush(s->m, s->r, op);
	return op;
}

/* One-result op typed by the typing rules (an internal error if they
 * reject it: the expansions only build well-typed ops). */
static Val
e1(S *s, int code, const Val *args, int n)
{
	Type in[16], out[4];
	Buf e = {0};
	int i;

	for (i = 0; i < n; i++)
		in[i] = vty(s->f, args[i]);
	if (typeop(s->m, code, in, n, 0, out, &e) != 1)
		die("scalarize: %s: %s", opinfo[code].name, e.s ? e.s : "not one result");
	buffree(&e);
	return emit(s, code, args, n, out, 1)->res[0];
}

/* An op whose result type is declared (cast, member, zero). */
static Val
edecl(S *s, int code, const Val *args, int n, Type t)
{
	return emit(s, code, args, n, &t, 1)->res[0];
}

static Type
ty(S *s, Val v)
{
	return vty(s->f, v);
}

/* A scalar constant of kind sk. */
static Val
K(S *s, int sk, double v)
{
	if (scalarisfloat(sk))
		return cfloat(s->m, s->f, sk, v);
	if (sk == S_BOOL)
		return cbool(s->m, s->f, v != 0);
	if (sk >= S_U8)
		return cint(s->m, s->f, sk, (int64_t)(uint64_t)v);
	return cint(s->m, s->f, sk, (int64_t)v);
}

static Val KI(S *s, int sk, int64_t v) { return cint(s->m, s->f, sk, v); }

static Val sx(S *s, int code, const Val *a, int n);

static Val op1(S *s, int code, Val a) { return sx(s, code, &a, 1); }
static Val op2(S *s, int code, Val a, Val b) { Val x[2] = {a, b}; return sx(s, code, x, 2); }
static Val op3(S *s, int code, Val a, Val b, Val c) { Val x[3] = {a, b, c}; return sx(s, code, x, 3); }

static Val add(S *s, Val a, Val b) { return op2(s, OP_ADD, a, b); }
static Val sub(S *s, Val a, Val b) { return op2(s, OP_SUB, a, b); }
static Val mul(S *s, Val a, Val b) { return op2(s, OP_MUL, a, b); }
static Val dvd(S *s, Val a, Val b) { return op2(s, OP_DIV, a, b); }
/* C++'s unary minus, which the runtime's composite code uses: for floats
 * the sign flip (-0.0 - x), not kir's scalar neg (0 - x, kpy::neg). */
static Val
neg(S *s, Val a)
{
	int sk = ty(s, a).s;

	if (scalarisfloat(sk))
		return op2(s, OP_SUB, K(s, sk, -0.0), a);
	return op1(s, OP_NEG, a);
}
static Val sqr(S *s, Val a) { return op1(s, OP_SQRT, a); }
static Val sel(S *s, Val c, Val a, Val b) { return op3(s, OP_WHERE, c, a, b); }
static Val lt(S *s, Val a, Val b) { return op2(s, OP_LT, a, b); }
static Val gt(S *s, Val a, Val b) { return op2(s, OP_GT, a, b); }
static Val ge(S *s, Val a, Val b) { return op2(s, OP_GE, a, b); }
static Val eq(S *s, Val a, Val b) { return op2(s, OP_EQ, a, b); }
static Val ne(S *s, Val a, Val b) { return op2(s, OP_NE, a, b); }
static Val land(S *s, Val a, Val b) { return op2(s, OP_AND, a, b); }
static Val lor(S *s, Val a, Val b) { return op2(s, OP_OR, a, b); }
static Val lnot(S *s, Val a) { return op1(s, OP_UNOT, a); }

static Val
cast(S *s, Val x, int sk)
{
	if (ty(s, x).s == sk)
		return x;
	return edecl(s, OP_CAST, &x, 1, tscalar(sk));
}

/* c + a*b: one fma for f32 and f64 (the runtime's fmaf/fma), two rounded
 * operations for f16 and integers (its muladd). */
static Val
muladd(S *s, Val a, Val b, Val c)
{
	int sk = ty(s, a).s;

	if (sk == S_F32 || sk == S_F64)
		return op3(s, OP_FMA, a, b, c);
	return add(s, c, mul(s, a, b));
}

/* Float sums and products of a list, left to right. */
static Val
dotn(S *s, const Val *a, const Val *b, int n, bool fromzero)
{
	Val r;
	int i;

	if (fromzero)
		r = K(s, ty(s, a[0]).s, 0);
	else
		r = mul(s, a[0], b[0]);
	for (i = fromzero ? 0 : 1; i < n; i++)
		r = add(s, r, mul(s, a[i], b[i]));
	return r;
}

/* ------------------------------------------------------------------ */
/* Scalar ops: low ones as they are, the others expanded                */

static Val
sx(S *s, int code, const Val *a, int n)
{
	Type t = n ? ty(s, a[0]) : tvoid();
	int sk = t.s;
	bool fl = scalarisfloat(sk);
	Val x = n ? a[0] : 0, r;

	if (opinfo[code].flags & F_LOW)
		return e1(s, code, a, n);
	switch (code) {
	case OP_FLOORDIV:
		if (fl)
			return op1(s, OP_FLOOR, dvd(s, a[0], a[1]));
		if (sk >= S_U8)
			return dvd(s, a[0], a[1]);
		{
			/* q = a/b, minus one when the signs differ and b does not divide a */
			Val q = dvd(s, a[0], a[1]), rm = op2(s, OP_MOD, a[0], a[1]);
			Val z = KI(s, sk, 0);
			Val adj = land(s, ne(s, lt(s, a[0], z), lt(s, a[1], z)), ne(s, rm, z));
			return sel(s, adj, sub(s, q, KI(s, sk, 1)), q);
		}
	case OP_SIGN:
		if (sk >= S_U8 && sk <= S_U64)
			return K(s, sk, 1);
		return sel(s, lt(s, x, K(s, sk, 0)), K(s, sk, -1), K(s, sk, 1));
	case OP_STEP:
		if (sk >= S_U8 && sk <= S_U64)
			return K(s, sk, 0);
		return sel(s, lt(s, x, K(s, sk, 0)), K(s, sk, 1), K(s, sk, 0));
	case OP_NONZERO:
		return sel(s, eq(s, x, K(s, sk, 0)), K(s, sk, 0), K(s, sk, 1));
	case OP_CLAMP:
		/* clamp(x, lo, hi) = min(max(lo, x), hi) */
		return op2(s, OP_MIN, op2(s, OP_MAX, a[1], a[0]), a[2]);
	case OP_FRAC:
		return sub(s, x, op1(s, OP_TRUNC, x));
	case OP_DEGREES:
	case OP_RADIANS: {
		/* the product is formed in f64 and rounded (f16: through f32) */
		double k = code == OP_DEGREES ? 57.29577951308232087679 : 0.01745329251994329577;
		r = mul(s, cast(s, x, S_F64), K(s, S_F64, k));
		if (sk == S_F16)
			r = cast(s, r, S_F32);
		return cast(s, r, sk);
	}
	case OP_ISNAN:
		return fl ? ne(s, x, x) : cbool(s->m, s->f, false);
	case OP_ISINF:
		return fl ? eq(s, op1(s, OP_ABS, x), K(s, sk, INFINITY)) : cbool(s->m, s->f, false);
	case OP_ISFINITE:
		return fl ? lt(s, op1(s, OP_ABS, x), K(s, sk, INFINITY)) : cbool(s->m, s->f, true);
	case OP_LERP:
		/* a*(1-t) + b*t */
		return add(s, mul(s, a[0], sub(s, K(s, sk, 1), a[2])), mul(s, a[1], a[2]));
	case OP_SMOOTHSTEP: {
		/* x = clamp((x - e0)/(e1 - e0), 0, 1); x*x*(3 - 2*x) */
		Val y = dvd(s, sub(s, a[2], a[0]), sub(s, a[1], a[0]));
		y = op3(s, OP_CLAMP, y, K(s, sk, 0), K(s, sk, 1));
		return mul(s, mul(s, y, y), sub(s, K(s, sk, 3), mul(s, K(s, sk, 2), y)));
	}
	default:
		die("scalarize: no scalar expansion of %s", opinfo[code].name);
	}
}

/* ------------------------------------------------------------------ */
/* Leaves of operands and results                                       */

static L
get(S *s, Val v)
{
	const Value *x = &s->f->vals[v];
	L l;
	int i, n;

	if (v < s->nmap && s->map[v].n)
		return s->map[v];
	if (x->kind == V_CONST && iscomposite(x->ty)) {
		n = ncomp(x->ty);
		l = newleaves(s, n);
		for (i = 0; i < n; i++)
			l.v[i] = cscalar(s->m, s->f, tcomp(x->ty), x->c[i]);
		if (v < s->nmap)
			s->map[v] = l;
		return l;
	}
	l = newleaves(s, 1);
	l.v[0] = v;
	return l;
}

/* Give old value v the leaves l, naming the new ones after v. */
static void
put(S *s, Val v, L l)
{
	const char *name = s->f->vals[v].name;
	Type t = vty(s->f, v);
	int k;

	if (v < s->nmap)
		s->map[v] = l;
	for (k = 0; k < l.n; k++) {
		Value *x = &s->f->vals[l.v[k]];
		if (l.v[k] < s->mark || x->kind == V_CONST || x->name || !name)
			continue;
		if (flat(t)) {
			x->name = name;
		} else {
			Buf b = {0};
			bufprintf(&b, "%s.", name);
			leafsuffix(s->m, t, k, &b);
			x->name = astrdup(s->m->arena, b.s);
			buffree(&b);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Composite expansions.  Each gets the leaves of the operands and fills
 * the (preallocated) leaves of the results.                            */

typedef void Xfn(S *s, const Op *op, const L *in, L *out);

/* Type of operand i / result i of the op being lowered. */
#define AT(i) vty(s->f, op->args[i])
#define RT(i) vty(s->f, op->res[i])

/* Scalar op code applied per leaf by an elementwise op. */
static int
ewcode(int code)
{
	switch (code) {
	case OP_CW_MUL: return OP_MUL;
	case OP_CW_DIV: return OP_DIV;
	default: return code;
	}
}

/* Elementwise: composite operands leaf by leaf, scalar operands repeated. */
static void
xew(S *s, const Op *op, const L *in, L *out)
{
	int k, i, code = ewcode(op->code);
	Val a[4];

	for (k = 0; k < out[0].n; k++) {
		for (i = 0; i < op->nargs; i++)
			a[i] = in[i].n == out[0].n ? in[i].v[k] : in[i].v[0];
		if (code == OP_NEG && scalarisfloat(ty(s, a[0]).s))
			/* a composite's components are negated (-0.0 stays),
			 * a scalar is 0 - x (kpy::neg): -x is -0.0 - x */
			out[0].v[k] = sub(s, K(s, ty(s, a[0]).s, -0.0), a[0]);
		else
			out[0].v[k] = sx(s, code, a, op->nargs);
	}
}

static void
xcast(S *s, const Op *op, const L *in, L *out)
{
	int k;

	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = cast(s, in[0].v[k], RT(0).s);
}

/* where(c, a, b) on composites and structs; array leaves through `if`. */
static Val
selany(S *s, Val c, Val a, Val b)
{
	Region *save = s->r;
	Op *op;
	Type t = ty(s, a);
	Val ca;

	if (t.k != T_ARRAY)
		return sel(s, c, a, b);
	ca = c;
	if (!isbool(ty(s, c)))
		ca = ty(s, c).k == T_ARRAY ? 0 : ne(s, c, K(s, ty(s, c).s, 0));
	if (!ca) {
		error(s, "where() with an array condition and array values is not supported");
		return a;
	}
	op = emit(s, OP_IF, &ca, 1, &t, 1);
	opsetregions(s->m, op, 2);
	s->r = &op->regs[0];
	emit(s, OP_YIELD, &a, 1, NULL, 0);
	s->r = &op->regs[1];
	emit(s, OP_YIELD, &b, 1, NULL, 0);
	s->r = save;
	return op->res[0];
}

static void
xwhere(S *s, const Op *op, const L *in, L *out)
{
	int k;

	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = selany(s, in[0].v[0], in[1].v[k], in[2].v[k]);
}

static void
xlerp(S *s, const Op *op, const L *in, L *out)
{
	int k, sk = RT(0).s;
	Val omt = sub(s, K(s, sk, 1), in[2].v[0]);

	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = add(s, mul(s, in[0].v[k], omt), mul(s, in[1].v[k], in[2].v[0]));
}

/* min/max: two operands elementwise, one vector reduced left to right. */
static void
xminmax(S *s, const Op *op, const L *in, L *out)
{
	int k;

	if (op->nargs == 2) {
		xew(s, op, in, out);
		return;
	}
	out[0].v[0] = in[0].v[0];
	for (k = 1; k < in[0].n; k++)
		out[0].v[0] = op2(s, op->code, out[0].v[0], in[0].v[k]);
}

/* eq/ne: all components equal / not all equal. */
static void
xeq(S *s, const Op *op, const L *in, L *out)
{
	Val r = eq(s, in[0].v[0], in[1].v[0]);
	int k;

	for (k = 1; k < in[0].n; k++)
		r = land(s, r, eq(s, in[0].v[k], in[1].v[k]));
	out[0].v[0] = op->code == OP_NE ? lnot(s, r) : r;
}

/* isfinite: all; isnan, isinf: any. */
static void
xclassify(S *s, const Op *op, const L *in, L *out)
{
	Val r = op1(s, op->code, in[0].v[0]);
	int k;

	for (k = 1; k < in[0].n; k++)
		r = op->code == OP_ISFINITE ? land(s, r, op1(s, op->code, in[0].v[k]))
		                           : lor(s, r, op1(s, op->code, in[0].v[k]));
	out[0].v[0] = r;
}

/* ---- construction ---- */

static void
xctor(S *s, const Op *op, const L *in, L *out)
{
	Type t = RT(0);
	int n = ncomp(t), k, i, p = 0;

	if (op->nargs == 0) {
		for (k = 0; k < n; k++)
			out[0].v[k] = K(s, t.s, 0);
		return;
	}
	if (op->nargs == 1 && flat(AT(0))) {
		for (k = 0; k < n; k++)
			out[0].v[k] = in[0].v[0];
		return;
	}
	/* components, rows, (v3, w) or (v3, q): concatenate */
	for (i = 0; i < op->nargs; i++)
		for (k = 0; k < in[i].n; k++)
			out[0].v[p++] = in[i].v[k];
	if (p != n)
		die("scalarize: constructor of %s from %d components", typestr(s->m, t), p);
}

static void
xfromvecs(S *s, const Op *op, const L *in, L *out)
{
	Type t = RT(0);
	int i, j;

	for (i = 0; i < t.n; i++)
		for (j = 0; j < t.m; j++)
			out[0].v[i * t.m + j] = op->code == OP_MATRIX_FROM_ROWS ? in[i].v[j] : in[j].v[i];
}

static void
zeroleaves(S *s, Type t, L out)
{
	Type *tys = xmalloc((size_t)out.n * sizeof *tys);
	int k = 0;

	leafinfo(s->m, t, 0, tys, NULL, &k);
	for (k = 0; k < out.n; k++)
		out.v[k] = tys[k].k == T_ARRAY ? edecl(s, OP_ZERO, NULL, 0, tys[k]) /* no storage */
		                               : K(s, tys[k].s, 0);
	free(tys);
}

static void
xzero(S *s, const Op *op, const L *in, L *out)
{
	Type t = RT(0);
	int i;

	(void)in;
	switch (op->code) {
	case OP_ZERO:
		zeroleaves(s, t, out[0]);
		return;
	case OP_IDENTITY:
		for (i = 0; i < out[0].n; i++)
			out[0].v[i] = K(s, t.s, i / t.m == i % t.m);
		return;
	default: /* quat_identity, transform_identity */
		for (i = 0; i < out[0].n; i++)
			out[0].v[i] = K(s, t.s, i == out[0].n - 1);
	}
}

/* ---- component access ---- */

/* Constant index as int64, or false. */
static bool
constidx(S *s, Val v, int64_t *out)
{
	const Value *x = &s->f->vals[v];

	if (x->kind != V_CONST)
		return false;
	*out = x->ty.s >= S_U8 ? (int64_t)x->c[0].u : x->c[0].i;
	return true;
}

/* Index i into n components: Warp's negative indices count from the end.
 * Constant: checked (-1 on error); dynamic: -2, *dyn the wrapped index. */
static int
cindex(S *s, Val i, int n, Val *dyn)
{
	int64_t c;
	int sk = ty(s, i).s;

	if (constidx(s, i, &c)) {
		if (c < 0)
			c += n;
		if (c < 0 || c >= n) {
			error(s, "index %lld out of range for %d components", (long long)(c < 0 ? c - n : c), n);
			return -1;
		}
		return (int)c;
	}
	if (sk >= S_U8)
		*dyn = i;
	else
		*dyn = sel(s, lt(s, i, KI(s, sk, 0)), add(s, i, KI(s, sk, n)), i);
	return -2;
}

/* Component number `dyn` of c[0..n), step apart: a chain of selects (an
 * index out of range reads the last component). */
static Val
pick(S *s, Val dyn, const Val *c, int n, int step)
{
	Val r = c[(n - 1) * step];
	int k, sk = ty(s, dyn).s;

	for (k = n - 2; k >= 0; k--)
		r = sel(s, eq(s, dyn, KI(s, sk, k)), c[k * step], r);
	return r;
}

static void
xextract(S *s, const Op *op, const L *in, L *out)
{
	Type t = AT(0);
	int rows = t.k == T_MAT ? t.n : ncomp(t), cols = t.k == T_MAT ? t.m : 1, i, j, k;
	Val di = 0, dj = 0;

	i = cindex(s, in[1].v[0], rows, &di);
	if (i == -1)
		goto bad;
	if (op->nargs == 2 && t.k == T_MAT) { /* a row */
		for (k = 0; k < t.m; k++)
			out[0].v[k] = i >= 0 ? in[0].v[i * t.m + k] : pick(s, di, in[0].v + k, rows, t.m);
		return;
	}
	if (op->nargs == 2) {
		out[0].v[0] = i >= 0 ? in[0].v[i] : pick(s, di, in[0].v, rows, 1);
		return;
	}
	j = cindex(s, in[2].v[0], cols, &dj);
	if (j == -1)
		goto bad;
	if (i >= 0 && j >= 0) {
		out[0].v[0] = in[0].v[i * cols + j];
	} else if (i >= 0) {
		out[0].v[0] = pick(s, dj, in[0].v + i * cols, cols, 1);
	} else {
		Val row[MAXVEC];
		for (k = 0; k < cols; k++)
			row[k] = pick(s, di, in[0].v + k, rows, cols);
		out[0].v[0] = j >= 0 ? row[j] : pick(s, dj, row, cols, 1);
	}
	return;
bad:
	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = K(s, RT(0).s, 0);
}

static void
xinsert(S *s, const Op *op, const L *in, L *out)
{
	Type t = AT(0);
	int rows = t.k == T_MAT ? t.n : ncomp(t), cols = t.k == T_MAT ? t.m : 1, i, j, k, r, c;
	const L *v = &in[op->nargs - 1];
	Val di = 0, dj = 0;

	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = in[0].v[k];
	i = cindex(s, in[1].v[0], rows, &di);
	if (i == -1)
		return;
	if (op->nargs == 3 && t.k == T_MAT) { /* a row */
		for (r = 0; r < rows; r++) {
			if (i >= 0 && r != i)
				continue;
			for (c = 0; c < cols; c++)
				out[0].v[r * cols + c] = i >= 0 ? v->v[c]
				    : sel(s, eq(s, di, KI(s, ty(s, di).s, r)), v->v[c], in[0].v[r * cols + c]);
		}
		return;
	}
	if (op->nargs == 3) {
		for (r = 0; r < rows; r++)
			if (i >= 0)
				out[0].v[i] = v->v[0];
			else
				out[0].v[r] = sel(s, eq(s, di, KI(s, ty(s, di).s, r)), v->v[0], in[0].v[r]);
		return;
	}
	j = cindex(s, in[2].v[0], cols, &dj);
	if (j == -1)
		return;
	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++) {
			Val hit;
			if ((i >= 0 && r != i) || (j >= 0 && c != j))
				continue;
			if (i >= 0 && j >= 0) {
				out[0].v[r * cols + c] = v->v[0];
				continue;
			}
			hit = i >= 0 ? eq(s, dj, KI(s, ty(s, dj).s, c))
			    : j >= 0 ? eq(s, di, KI(s, ty(s, di).s, r))
			    : land(s, eq(s, di, KI(s, ty(s, di).s, r)), eq(s, dj, KI(s, ty(s, dj).s, c)));
			out[0].v[r * cols + c] = sel(s, hit, v->v[0], in[0].v[r * cols + c]);
		}
}

/* First leaf and leaf count of field `fi` of struct type t. */
static int
fieldleaves(const Module *m, Type t, int fi, int *n)
{
	const StructDef *sd = &m->structs[t.sid];
	int first = 0, i;

	for (i = 0; i < fi; i++)
		first += nleaves(m, sd->fields[i].ty);
	*n = nleaves(m, sd->fields[fi].ty);
	return first;
}

static void
xfield(S *s, const Op *op, const L *in, L *out)
{
	int n, first = fieldleaves(s->m, AT(0), op->attr, &n), k;

	for (k = 0; k < n; k++)
		out[0].v[k] = in[0].v[first + k];
}

static void
xsetfield(S *s, const Op *op, const L *in, L *out)
{
	int n, first = fieldleaves(s->m, AT(0), op->attr, &n), k;

	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = in[0].v[k];
	for (k = 0; k < n; k++)
		out[0].v[first + k] = in[1].v[k];
}

/* ---- vectors ---- */

/* dot of vectors of n components (Warp: 2 and 3 summed directly, longer
 * ones accumulated from zero). */
static Val
vdot(S *s, const Val *a, const Val *b, int n)
{
	return dotn(s, a, b, n, n > 3);
}

static void
cross3(S *s, const Val *a, const Val *b, Val *r)
{
	r[0] = sub(s, mul(s, a[1], b[2]), mul(s, a[2], b[1]));
	r[1] = sub(s, mul(s, a[2], b[0]), mul(s, a[0], b[2]));
	r[2] = sub(s, mul(s, a[0], b[1]), mul(s, a[1], b[0]));
}

/* normalize a vector: a / length(a), zero unless the length is > 0. */
static void
vnormalize(S *s, const Val *a, int n, Val *r)
{
	int sk = ty(s, a[0]).s, k;
	Val l = sqr(s, vdot(s, a, a, n)), pos = gt(s, l, K(s, sk, 0)), z = K(s, sk, 0);

	for (k = 0; k < n; k++)
		r[k] = sel(s, pos, dvd(s, a[k], l), z);
}

static void
qnormalize(S *s, const Val *q, Val *r)
{
	int sk = ty(s, q[0]).s, k;
	Val l = sqr(s, dotn(s, q, q, 4, false)), pos = gt(s, l, K(s, sk, 0));
	Val inv = dvd(s, K(s, sk, 1), l);

	for (k = 0; k < 4; k++)
		r[k] = sel(s, pos, mul(s, q[k], inv), K(s, sk, k == 3));
}

static void
xdot(S *s, const Op *op, const L *in, L *out)
{
	out[0].v[0] = AT(0).k == T_QUAT ? dotn(s, in[0].v, in[1].v, 4, false) : vdot(s, in[0].v, in[1].v, in[0].n);
}

static void
xcross(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	cross3(s, in[0].v, in[1].v, out[0].v);
}

static void
xlength(S *s, const Op *op, const L *in, L *out)
{
	Val d = AT(0).k == T_QUAT ? dotn(s, in[0].v, in[0].v, 4, false) : vdot(s, in[0].v, in[0].v, in[0].n);

	out[0].v[0] = op->code == OP_LENGTH || op->code == OP_NORM_L2 ? sqr(s, d) : d;
}

static void
xnormalize(S *s, const Op *op, const L *in, L *out)
{
	if (AT(0).k == T_QUAT)
		qnormalize(s, in[0].v, out[0].v);
	else
		vnormalize(s, in[0].v, in[0].n, out[0].v);
}

static void
xouter(S *s, const Op *op, const L *in, L *out)
{
	int i, j;

	for (i = 0; i < in[0].n; i++)
		for (j = 0; j < in[1].n; j++)
			out[0].v[i * in[1].n + j] = mul(s, in[0].v[i], in[1].v[j]);
}

static void
xargm(S *s, const Op *op, const L *in, L *out)
{
	/* the first extremum among the non-NaN components, 0 if none */
	Val best = KI(s, S_U32, 0), bestv = in[0].v[0], found = cbool(s->m, s->f, false);
	int k;

	for (k = 0; k < in[0].n; k++) {
		Val x = in[0].v[k], ok = lnot(s, op1(s, OP_ISNAN, x));
		Val better = op->code == OP_ARGMIN ? lt(s, x, bestv) : gt(s, x, bestv);
		Val take = k == 0 ? ok : land(s, ok, lor(s, lnot(s, found), better));
		best = k == 0 ? sel(s, take, KI(s, S_U32, 0), best) : sel(s, take, KI(s, S_U32, k), best);
		bestv = k == 0 ? x : sel(s, take, x, bestv);
		found = k == 0 ? ok : lor(s, found, ok);
	}
	out[0].v[0] = best;
}

static void
xnorm(S *s, const Op *op, const L *in, L *out)
{
	int sk = AT(0).s, k;
	Val d, a, delta = op->nargs == 2 ? in[1].v[0] : K(s, sk, 1), half = K(s, sk, 0.5);

	switch (op->code) {
	case OP_NORM_L1:
		d = K(s, sk, 0);
		for (k = 0; k < in[0].n; k++)
			d = add(s, d, op1(s, OP_ABS, in[0].v[k]));
		out[0].v[0] = d;
		return;
	case OP_NORM_HUBER:
		a = vdot(s, in[0].v, in[0].v, in[0].n);
		out[0].v[0] = sel(s, op2(s, OP_LE, a, mul(s, delta, delta)), mul(s, half, a),
		                  mul(s, delta, sub(s, sqr(s, a), mul(s, half, delta))));
		return;
	default: /* norm_pseudo_huber, smooth_normalize */
		a = vdot(s, in[0].v, in[0].v, in[0].n);
		d = mul(s, delta, sqr(s, add(s, K(s, sk, 1), dvd(s, a, mul(s, delta, delta)))));
		if (op->code == OP_NORM_PSEUDO_HUBER)
			out[0].v[0] = d;
		else
			for (k = 0; k < in[0].n; k++)
				out[0].v[k] = dvd(s, in[0].v[k], d);
	}
}

/* ---- matrices ---- */

/* M*v: col(0)*v0 + col(1)*v1 + ... */
static void
matvec(S *s, const Val *m, int rows, int cols, const Val *v, Val *r)
{
	int i, j;

	for (i = 0; i < rows; i++) {
		r[i] = mul(s, m[i * cols], v[0]);
		for (j = 1; j < cols; j++)
			r[i] = add(s, r[i], mul(s, m[i * cols + j], v[j]));
	}
}

/* A*B, each element accumulated from zero with muladd. */
static void
matmat(S *s, const Val *a, const Val *b, int rows, int inner, int cols, Val *r)
{
	int i, j, k, sk = ty(s, a[0]).s;

	for (i = 0; i < rows; i++)
		for (j = 0; j < cols; j++) {
			Val acc = K(s, sk, 0);
			for (k = 0; k < inner; k++)
				acc = muladd(s, a[i * inner + k], b[k * cols + j], acc);
			r[i * cols + j] = acc;
		}
}

static void
quatmul(S *s, const Val *a, const Val *b, Val *r)
{
	/* (x, y, z, w) = a*b in Warp's operand order */
	r[0] = sub(s, add(s, add(s, mul(s, a[3], b[0]), mul(s, b[3], a[0])), mul(s, a[1], b[2])), mul(s, b[1], a[2]));
	r[1] = sub(s, add(s, add(s, mul(s, a[3], b[1]), mul(s, b[3], a[1])), mul(s, a[2], b[0])), mul(s, b[2], a[0]));
	r[2] = sub(s, add(s, add(s, mul(s, a[3], b[2]), mul(s, b[3], a[2])), mul(s, a[0], b[1])), mul(s, b[0], a[1]));
	r[3] = sub(s, sub(s, sub(s, mul(s, a[3], b[3]), mul(s, a[0], b[0])), mul(s, a[1], b[1])), mul(s, a[2], b[2]));
}

static void quatrot(S *s, const Val *q, const Val *v, bool inv, Val *r);

/* transform a*b = (quat_rotate(a.q, b.p) + a.p, a.q * b.q) */
static void
xformmul(S *s, const Val *a, const Val *b, Val *r)
{
	Val p[3];
	int k;

	quatrot(s, a + 3, b, false, p);
	for (k = 0; k < 3; k++)
		r[k] = add(s, p[k], a[k]);
	quatmul(s, a + 3, b + 3, r + 3);
}

static void
xmul(S *s, const Op *op, const L *in, L *out)
{
	Type a = AT(0), b = AT(1);
	int k;

	if (flat(a) || flat(b)) { /* composite and scalar: each component times it */
		int c = flat(a) ? 1 : 0;
		for (k = 0; k < out[0].n; k++)
			out[0].v[k] = c ? mul(s, in[1].v[k], in[0].v[0]) : mul(s, in[0].v[k], in[1].v[0]);
		return;
	}
	if (a.k == T_MAT && b.k == T_VEC) {
		matvec(s, in[0].v, a.n, a.m, in[1].v, out[0].v);
	} else if (a.k == T_VEC && b.k == T_MAT) { /* row(0)*v0 + row(1)*v1 + ... */
		int i, j;
		for (j = 0; j < b.m; j++) {
			out[0].v[j] = mul(s, in[1].v[j], in[0].v[0]);
			for (i = 1; i < b.n; i++)
				out[0].v[j] = add(s, out[0].v[j], mul(s, in[1].v[i * b.m + j], in[0].v[i]));
		}
	} else if (a.k == T_MAT) {
		matmat(s, in[0].v, in[1].v, a.n, a.m, b.m, out[0].v);
	} else if (a.k == T_QUAT) {
		quatmul(s, in[0].v, in[1].v, out[0].v);
	} else {
		xformmul(s, in[0].v, in[1].v, out[0].v);
	}
}

static void
xdiv(S *s, const Op *op, const L *in, L *out)
{
	int k;

	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = flat(AT(0)) ? dvd(s, in[0].v[0], in[1].v[k]) : dvd(s, in[0].v[k], in[1].v[0]);
}

static void
xtranspose(S *s, const Op *op, const L *in, L *out)
{
	Type t = AT(0);
	int i, j;

	for (i = 0; i < t.m; i++)
		for (j = 0; j < t.n; j++)
			out[0].v[i * t.n + j] = in[0].v[j * t.m + i];
}

static void
xtrace(S *s, const Op *op, const L *in, L *out)
{
	Type t = AT(0);
	Val r = in[0].v[0];
	int i;

	for (i = 1; i < t.n; i++)
		r = add(s, r, in[0].v[i * t.m + i]);
	out[0].v[0] = r;
}

static void
xdiag(S *s, const Op *op, const L *in, L *out)
{
	int n = op->code == OP_DIAG ? in[0].n : AT(0).n, i, j;

	for (i = 0; i < n; i++) {
		if (op->code == OP_GET_DIAG) {
			out[0].v[i] = in[0].v[i * n + i];
			continue;
		}
		for (j = 0; j < n; j++)
			out[0].v[i * n + j] = i == j ? in[0].v[i] : K(s, AT(0).s, 0);
	}
}

static void
xddot(S *s, const Op *op, const L *in, L *out)
{
	Val r = K(s, AT(0).s, 0);
	int k;

	for (k = 0; k < in[0].n; k++)
		r = muladd(s, in[0].v[k], in[1].v[k], r);
	out[0].v[0] = r;
}

static void
xskew(S *s, const Op *op, const L *in, L *out)
{
	const Val *a = in[0].v;
	Val z = K(s, AT(0).s, 0), *r = out[0].v;

	r[0] = z; r[1] = neg(s, a[2]); r[2] = a[1];
	r[3] = a[2]; r[4] = z; r[5] = neg(s, a[0]);
	r[6] = neg(s, a[1]); r[7] = a[0]; r[8] = z;
}

static Val
det2(S *s, const Val *m)
{
	return sub(s, mul(s, m[0], m[3]), mul(s, m[2], m[1]));
}

static Val
det3(S *s, const Val *m)
{
	Val c[3];

	cross3(s, m + 3, m + 6, c);
	return vdot(s, m, c, 3);
}

/* 4x4: Warp's minors in f64 (f16: half products of widened values). */
typedef struct Mix {
	int sk;   /* T */
	int ak;   /* arithmetic of the mixed products: f64, or f16 for f16 */
} Mix;

static Val
mixmul(S *s, Mix x, Val a, Val y)
{
	Val p = mul(s, cast(s, a, S_F64), y);
	return x.ak == S_F16 ? cast(s, cast(s, p, S_F32), S_F16) : p;
}

enum { Y01, Y02, Y03, Y12, Y13, Y23 };

/* The six 2x2 minors of columns p and q, computed in T, widened to f64. */
static void
minors4(S *s, const Val *m, int p, int q, Val *y)
{
	static const int I[6] = {0, 0, 0, 1, 1, 2}, J[6] = {1, 2, 3, 2, 3, 3};
	int k;

	for (k = 0; k < 6; k++) {
		const Val *ri = m + 4 * I[k], *rj = m + 4 * J[k];
		y[k] = cast(s, sub(s, mul(s, ri[p], rj[q]), mul(s, rj[p], ri[q])), S_F64);
	}
}

/* z = a*y[i] - b*y[j] - c*y[k] or a*y[i] - b*y[j] + c*y[k], in the mixed
 * arithmetic. */
static Val
cof(S *s, Mix x, Val a, Val ya, Val b, Val yb, Val c, Val yc, bool plus)
{
	Val r = sub(s, mixmul(s, x, a, ya), mixmul(s, x, b, yb));
	return plus ? add(s, r, mixmul(s, x, c, yc)) : sub(s, r, mixmul(s, x, c, yc));
}

/* The first-two-column cofactors z30 z20 z10 z00 of the determinant. */
static void
det4cols(S *s, Mix x, const Val *m, const Val *y, Val *z)
{
	Val x01 = m[1], x11 = m[5], x21 = m[9], x31 = m[13];

	z[3] = cast(s, cof(s, x, x11, y[Y02], x21, y[Y01], x01, y[Y12], false), x.sk);
	z[2] = cast(s, cof(s, x, x01, y[Y13], x11, y[Y03], x31, y[Y01], true), x.sk);
	z[1] = cast(s, cof(s, x, x21, y[Y03], x31, y[Y02], x01, y[Y23], false), x.sk);
	z[0] = cast(s, cof(s, x, x11, y[Y23], x21, y[Y13], x31, y[Y12], true), x.sk);
}

static Val
det4(S *s, const Val *m, Val *zc)
{
	Mix x;
	Val y[6], z[4];

	x.sk = ty(s, m[0]).s;
	x.ak = x.sk == S_F16 ? S_F16 : S_F64;
	minors4(s, m, 2, 3, y);
	det4cols(s, x, m, y, z);
	if (zc)
		memcpy(zc, z, sizeof z);
	/* x30*z30 + x20*z20 + x10*z10 + x00*z00 */
	return add(s, add(s, add(s, mul(s, m[12], z[3]), mul(s, m[8], z[2])), mul(s, m[4], z[1])), mul(s, m[0], z[0]));
}

static void
xdeterminant(S *s, const Op *op, const L *in, L *out)
{
	int n = AT(0).n;

	out[0].v[0] = n == 2 ? det2(s, in[0].v) : n == 3 ? det3(s, in[0].v) : det4(s, in[0].v, NULL);
}

static void
xinverse(S *s, const Op *op, const L *in, L *out)
{
	const Val *m = in[0].v;
	int n = AT(0).n, sk = AT(0).s, k;
	Val z = K(s, sk, 0), *r = out[0].v;

	if (n == 2) {
		Val det = det2(s, m), ok = lor(s, gt(s, det, z), lt(s, det, neg(s, z)));
		Val rcp = dvd(s, K(s, sk, 1), det);
		Val adj[4];
		adj[0] = m[3]; adj[1] = neg(s, m[1]); adj[2] = neg(s, m[2]); adj[3] = m[0];
		for (k = 0; k < 4; k++)
			r[k] = sel(s, ok, mul(s, adj[k], rcp), z);
	} else if (n == 3) {
		Val det = det3(s, m), ok = ne(s, det, z), rcp, b[9];
		const Val *a0 = m, *a1 = m + 3, *a2 = m + 6;
		b[0] = sub(s, mul(s, a1[1], a2[2]), mul(s, a1[2], a2[1]));
		b[3] = sub(s, mul(s, a1[2], a2[0]), mul(s, a1[0], a2[2]));
		b[6] = sub(s, mul(s, a1[0], a2[1]), mul(s, a1[1], a2[0]));
		b[1] = sub(s, mul(s, a0[2], a2[1]), mul(s, a0[1], a2[2]));
		b[4] = sub(s, mul(s, a0[0], a2[2]), mul(s, a0[2], a2[0]));
		b[7] = sub(s, mul(s, a0[1], a2[0]), mul(s, a0[0], a2[1]));
		b[2] = sub(s, mul(s, a0[1], a1[2]), mul(s, a0[2], a1[1]));
		b[5] = sub(s, mul(s, a0[2], a1[0]), mul(s, a0[0], a1[2]));
		b[8] = sub(s, mul(s, a0[0], a1[1]), mul(s, a0[1], a1[0]));
		rcp = dvd(s, K(s, sk, 1), det);
		for (k = 0; k < 9; k++)
			r[k] = sel(s, ok, mul(s, b[k], rcp), z);
	} else {
		Mix x;
		Val y[6], zl[8], zh[8], det, ok, rcp, dz = K(s, S_F64, 0);
		Val x00 = m[0], x01 = m[1], x02 = m[2], x03 = m[3], x10 = m[4], x11 = m[5], x12 = m[6], x13 = m[7];
		Val x20 = m[8], x21 = m[9], x22 = m[10], x23 = m[11], x30 = m[12], x31 = m[13], x32 = m[14], x33 = m[15];
		x.sk = sk;
		x.ak = sk == S_F16 ? S_F16 : S_F64;
		/* last two columns: kept in f64 (z33 z23 z13 z03 z32 z22 z12 z02) */
		minors4(s, m, 0, 1, y);
		zh[0] = cast(s, cof(s, x, x02, y[Y12], x12, y[Y02], x22, y[Y01], true), S_F64);  /* z33 */
		zh[1] = cast(s, cof(s, x, x12, y[Y03], x32, y[Y01], x02, y[Y13], false), S_F64); /* z23 */
		zh[2] = cast(s, cof(s, x, x02, y[Y23], x22, y[Y03], x32, y[Y02], true), S_F64);  /* z13 */
		zh[3] = cast(s, cof(s, x, x22, y[Y13], x32, y[Y12], x12, y[Y23], false), S_F64); /* z03 */
		zh[4] = cast(s, cof(s, x, x13, y[Y02], x23, y[Y01], x03, y[Y12], false), S_F64); /* z32 */
		zh[5] = cast(s, cof(s, x, x03, y[Y13], x13, y[Y03], x33, y[Y01], true), S_F64);  /* z22 */
		zh[6] = cast(s, cof(s, x, x23, y[Y03], x33, y[Y02], x03, y[Y23], false), S_F64); /* z12 */
		zh[7] = cast(s, cof(s, x, x13, y[Y23], x23, y[Y13], x33, y[Y12], true), S_F64);  /* z02 */
		/* first two columns: rounded to T (z30 z20 z10 z00 z31 z21 z11 z01) */
		minors4(s, m, 2, 3, y);
		zl[0] = cast(s, cof(s, x, x11, y[Y02], x21, y[Y01], x01, y[Y12], false), sk); /* z30 */
		zl[1] = cast(s, cof(s, x, x01, y[Y13], x11, y[Y03], x31, y[Y01], true), sk);  /* z20 */
		zl[2] = cast(s, cof(s, x, x21, y[Y03], x31, y[Y02], x01, y[Y23], false), sk); /* z10 */
		zl[3] = cast(s, cof(s, x, x11, y[Y23], x21, y[Y13], x31, y[Y12], true), sk);  /* z00 */
		zl[4] = cast(s, cof(s, x, x00, y[Y12], x10, y[Y02], x20, y[Y01], true), sk);  /* z31 */
		zl[5] = cast(s, cof(s, x, x10, y[Y03], x30, y[Y01], x00, y[Y13], false), sk); /* z21 */
		zl[6] = cast(s, cof(s, x, x00, y[Y23], x20, y[Y03], x30, y[Y02], true), sk);  /* z11 */
		zl[7] = cast(s, cof(s, x, x20, y[Y13], x30, y[Y12], x10, y[Y23], false), sk); /* z01 */
		det = add(s, add(s, add(s, mul(s, x30, zl[0]), mul(s, x20, zl[1])), mul(s, x10, zl[2])), mul(s, x00, zl[3]));
		det = cast(s, det, S_F64);
		ok = gt(s, op1(s, OP_ABS, det), dz);
		rcp = dvd(s, K(s, S_F64, 1), det);
		{
			/* rows: (z00 z10 z20 z30) (z01 z11 z21 z31) (z02 z12 z22 z32) (z03 z13 z23 z33) */
			Val e[16];
			e[0] = zl[3]; e[1] = zl[2]; e[2] = zl[1]; e[3] = zl[0];
			e[4] = zl[7]; e[5] = zl[6]; e[6] = zl[5]; e[7] = zl[4];
			e[8] = zh[7]; e[9] = zh[6]; e[10] = zh[5]; e[11] = zh[4];
			e[12] = zh[3]; e[13] = zh[2]; e[14] = zh[1]; e[15] = zh[0];
			for (k = 0; k < 16; k++)
				r[k] = sel(s, ok, cast(s, mul(s, cast(s, e[k], S_F64), rcp), sk), z);
		}
	}
}

/* ---- decompositions (kpy/decomp.h: Warp's svd.h) ---- */

/* Operation by operation as kpy/decomp.h writes them: sums and products
 * left to right without fma, 1/sqrt for rsqrt (the host's), branches as
 * `where` (both sides are computed; neither traps).  Precision by scalar
 * kind as there: f64 runs 8 Jacobi sweeps with epsilon 1e-12, f32 and f16
 * 4 with 1e-6f; f16 rounds every operation (kir's f16 arithmetic). */

/* A constant of kind sk as the runtime's T(v): through float for f32 and
 * f16 (f16's constructor from double rounds through float). */
static Val
DK(S *s, int sk, double v)
{
	return K(s, sk, sk == S_F64 ? v : (double)(float)v);
}

static Val
rsq(S *s, Val x)
{
	return dvd(s, DK(s, ty(s, x).s, 1), sqr(s, x));
}

/* a*b + c*d + e*f, left to right */
static Val
sum3(S *s, Val a, Val b, Val c, Val d, Val e, Val f)
{
	return add(s, add(s, mul(s, a, b), mul(s, c, d)), mul(s, e, f));
}

/* dc_mul and dc_mul_tn: r = a*b or a^T*b, 3x3, row-major leaves */
static void
dcmul(S *s, const Val *a, const Val *b, bool tn, Val *r)
{
	int i, j;

#define A_(i, k) (tn ? a[(k) * 3 + (i)] : a[(i) * 3 + (k)])
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			r[i * 3 + j] = sum3(s, A_(i, 0), b[j], A_(i, 1), b[3 + j], A_(i, 2), b[6 + j]);
#undef A_
}

/* dc_quat_mat: q = (x, y, z, w), unnormalized */
static void
dcquatmat(S *s, const Val *q, Val *r)
{
	int sk = ty(s, q[0]).s;
	Val x = q[0], y = q[1], z = q[2], w = q[3];
	Val xx = mul(s, x, x), yy = mul(s, y, y), zz = mul(s, z, z);
	Val xz = mul(s, x, z), xy = mul(s, x, y), yz = mul(s, y, z);
	Val wx = mul(s, w, x), wy = mul(s, w, y), wz = mul(s, w, z);
	Val one = DK(s, sk, 1), two = DK(s, sk, 2);

	r[0] = sub(s, one, mul(s, two, add(s, yy, zz)));
	r[1] = mul(s, two, sub(s, xy, wz));
	r[2] = mul(s, two, add(s, xz, wy));
	r[3] = mul(s, two, add(s, xy, wz));
	r[4] = sub(s, one, mul(s, two, add(s, xx, zz)));
	r[5] = mul(s, two, sub(s, yz, wx));
	r[6] = mul(s, two, sub(s, xz, wy));
	r[7] = mul(s, two, add(s, yz, wx));
	r[8] = sub(s, one, mul(s, two, add(s, xx, yy)));
}

/* dc_jacobi_step: c = s11 s21 s22 s31 s32 s33 (the symmetric matrix by its
 * lower triangle), then q x y z w; updated in place. */
enum { S11, S21, S22, S31, S32, S33 };

static void
dcjacobistep(S *s, Val *c, int k)
{
	int sk = ty(s, c[0]).s, x = k, y = (k + 1) % 3, z = (k + 2) % 3, i;
	Val *q = c + 6, o[6], t[3];
	Val ch, sh, exact, w, scale, a, b, mb;

	memcpy(o, c, sizeof o);
	ch = mul(s, DK(s, sk, 2), sub(s, o[S11], o[S22]));
	sh = o[S21];
	exact = lt(s, mul(s, mul(s, DK(s, sk, 5.82842712474619), sh), sh), mul(s, ch, ch));
	w = rsq(s, add(s, mul(s, ch, ch), mul(s, sh, sh)));
	ch = sel(s, exact, mul(s, w, ch), DK(s, sk, 0.9238795325112867));
	sh = sel(s, exact, mul(s, w, sh), DK(s, sk, 0.3826834323650898));

	scale = add(s, mul(s, ch, ch), mul(s, sh, sh));
	a = dvd(s, sub(s, mul(s, ch, ch), mul(s, sh, sh)), scale);
	b = dvd(s, mul(s, mul(s, DK(s, sk, 2), sh), ch), scale);
	mb = neg(s, b);
	c[S11] = add(s, mul(s, a, add(s, mul(s, a, o[S11]), mul(s, b, o[S21]))),
	                mul(s, b, add(s, mul(s, a, o[S21]), mul(s, b, o[S22]))));
	c[S21] = add(s, mul(s, a, add(s, mul(s, mb, o[S11]), mul(s, a, o[S21]))),
	                mul(s, b, add(s, mul(s, mb, o[S21]), mul(s, a, o[S22]))));
	c[S22] = add(s, mul(s, mb, add(s, mul(s, mb, o[S11]), mul(s, a, o[S21]))),
	                mul(s, a, add(s, mul(s, mb, o[S21]), mul(s, a, o[S22]))));
	c[S31] = add(s, mul(s, a, o[S31]), mul(s, b, o[S32]));
	c[S32] = add(s, mul(s, mb, o[S31]), mul(s, a, o[S32]));

	/* q = q * (ch about axis z of this pair) */
	for (i = 0; i < 3; i++)
		t[i] = mul(s, q[i], sh);
	sh = mul(s, sh, q[3]);
	for (i = 0; i < 4; i++)
		q[i] = mul(s, q[i], ch);
	q[z] = add(s, q[z], sh);
	q[3] = sub(s, q[3], t[z]);
	q[x] = add(s, q[x], t[y]);
	q[y] = sub(s, q[y], t[x]);

	/* coordinates (0, 1, 2) -> (2, 0, 1) */
	memcpy(o, c, sizeof o);
	c[S11] = o[S22];
	c[S21] = o[S32];
	c[S22] = o[S33];
	c[S31] = o[S21];
	c[S32] = o[S31];
	c[S33] = o[S11];
}

/* dc_jacobi: a `for` loop over the sweeps (8 for f64, else 4), each the
 * three steps; sym (6 leaves, see dcjacobistep) in, q (4) out. */
static void
dcjacobi(S *s, const Val *sym, Val *q)
{
	int sk = ty(s, sym[0]).s, i, k;
	Region *save = s->r;
	Val args[13], c[10];
	Type tys[10], pt[11];
	Op *loop;

	args[0] = KI(s, S_I32, 0);
	args[1] = KI(s, S_I32, sk == S_F64 ? 8 : 4);
	args[2] = KI(s, S_I32, 1);
	for (i = 0; i < 6; i++)
		args[3 + i] = sym[i];
	args[9] = DK(s, sk, 0);
	args[10] = DK(s, sk, 0);
	args[11] = DK(s, sk, 0);
	args[12] = DK(s, sk, 1);
	pt[0] = tscalar(S_I32);
	for (i = 0; i < 10; i++)
		tys[i] = pt[1 + i] = tscalar(sk);
	loop = emit(s, OP_FOR, args, 13, tys, 10);
	opsetparams(s->m, s->f, loop, pt, 11);
	opsetregions(s->m, loop, 1);
	s->r = &loop->regs[0];
	for (i = 0; i < 10; i++)
		c[i] = loop->params[1 + i];
	for (k = 0; k < 3; k++)
		dcjacobistep(s, c, k);
	emit(s, OP_YIELD, c, 10, NULL, 0);
	s->r = save;
	for (i = 0; i < 4; i++)
		q[i] = loop->res[6 + i];
}

/* dc_negswap_cols: swap columns i and j of m, negating the one moved to
 * j, when c */
static void
dcnegswap(S *s, Val c, Val *m, int i, int j)
{
	int r;

	for (r = 0; r < 3; r++) {
		Val ng = neg(s, m[r * 3 + i]);
		m[r * 3 + i] = sel(s, c, m[r * 3 + j], m[r * 3 + i]);
		m[r * 3 + j] = sel(s, c, ng, m[r * 3 + j]);
	}
}

/* dc_sort_cols */
static void
dcsortcols(S *s, Val *b, Val *v)
{
	Val rho[3], c, t;
	int j, p;

	for (j = 0; j < 3; j++)
		rho[j] = sum3(s, b[j], b[j], b[3 + j], b[3 + j], b[6 + j], b[6 + j]);
	for (p = 0; p < 3; p++) {
		int i = p == 2 ? 1 : 0;
		j = p == 0 ? 1 : 2;
		c = lt(s, rho[i], rho[j]);
		dcnegswap(s, c, b, i, j);
		dcnegswap(s, c, v, i, j);
		if (p < 2) {
			t = rho[i];
			rho[i] = sel(s, c, rho[j], rho[i]);
			rho[j] = sel(s, c, t, rho[j]);
		}
	}
}

/* dc_givens: the rotation (ch, sh) that zeroes a2 against a1 */
static void
dcgivens(S *s, Val a1, Val a2, Val *chp, Val *shp)
{
	int sk = ty(s, a1).s;
	Val eps = DK(s, sk, sk == S_F64 ? 1e-12 : (double)1e-6f), z = DK(s, sk, 0);
	Val rho = sqr(s, add(s, mul(s, a1, a1), mul(s, a2, a2)));
	Val sh = sel(s, gt(s, rho, eps), a2, z);
	Val ch = add(s, op1(s, OP_ABS, a1), op2(s, OP_MAX, rho, eps));
	Val swap = lt(s, a1, z), t = sh, w;

	sh = sel(s, swap, ch, sh);
	ch = sel(s, swap, t, ch);
	w = rsq(s, add(s, mul(s, ch, ch), mul(s, sh, sh)));
	*chp = mul(s, ch, w);
	*shp = mul(s, sh, w);
}

/* dc_rotate_rows: rotate rows p and q of m so that m[q][p] becomes zero */
static void
dcrotrows(S *s, Val *m, int p, int q, Val *ch, Val *sh)
{
	int sk = ty(s, m[0]).s, j;
	Val a, b, mb;

	dcgivens(s, m[p * 3 + p], m[q * 3 + p], ch, sh);
	a = sub(s, DK(s, sk, 1), mul(s, mul(s, DK(s, sk, 2), *sh), *sh));
	b = mul(s, mul(s, DK(s, sk, 2), *ch), *sh);
	mb = neg(s, b);
	for (j = 0; j < 3; j++) {
		Val mp = m[p * 3 + j], mq = m[q * 3 + j];
		m[p * 3 + j] = add(s, mul(s, a, mp), mul(s, b, mq));
		m[q * 3 + j] = add(s, mul(s, mb, mp), mul(s, a, mq));
	}
}

/* products left to right */
static Val
prod(S *s, int n, ...)
{
	va_list ap;
	Val r;
	int i;

	va_start(ap, n);
	r = va_arg(ap, Val);
	for (i = 1; i < n; i++)
		r = mul(s, r, va_arg(ap, Val));
	va_end(ap);
	return r;
}

/* dc_qr: a = q r by three Givens rotations; q in closed form */
static void
dcqr(S *s, const Val *a, Val *q, Val *r)
{
	int sk = ty(s, a[0]).s;
	Val c1, s1, c2, s2, c3, s3, s1s, s2s, s3s, m1, m2, m3;
	Val one = DK(s, sk, 1), two = DK(s, sk, 2), four = DK(s, sk, 4);
	Val mone = DK(s, sk, -1), mtwo = DK(s, sk, -2), meight = DK(s, sk, -8);

	memcpy(r, a, 9 * sizeof(Val));
	dcrotrows(s, r, 0, 1, &c1, &s1);
	dcrotrows(s, r, 0, 2, &c2, &s2);
	dcrotrows(s, r, 1, 2, &c3, &s3);

	s1s = mul(s, s1, s1);
	s2s = mul(s, s2, s2);
	s3s = mul(s, s3, s3);
	m1 = add(s, mone, mul(s, two, s1s));
	m2 = add(s, mone, mul(s, two, s2s));
	m3 = add(s, mone, mul(s, two, s3s));
	q[0] = mul(s, m1, m2);
	q[1] = add(s, prod(s, 6, four, c2, c3, m1, s2, s3), prod(s, 4, two, c1, s1, m3));
	q[2] = sub(s, prod(s, 5, four, c1, c3, s1, s3), prod(s, 5, two, c2, m1, s2, m3));
	q[3] = mul(s, prod(s, 3, two, c1, s1), sub(s, one, mul(s, two, s2s)));
	q[4] = add(s, prod(s, 7, meight, c1, c2, c3, s1, s2, s3), mul(s, m1, m3));
	q[5] = add(s, prod(s, 3, mtwo, c3, s3),
	              mul(s, mul(s, four, s1), add(s, prod(s, 3, c3, s1, s3), prod(s, 4, c1, c2, s2, m3))));
	q[6] = prod(s, 3, two, c2, s2);
	q[7] = mul(s, mul(s, mul(s, two, c3), sub(s, one, mul(s, two, s2s))), s3);
	q[8] = mul(s, m2, m3);
}

/* svd3 %a -> U, sigma, V */
static void
xsvd3(S *s, const Op *op, const L *in, L *out)
{
	const Val *m = in[0].v;
	Val ata[9], sym[6], q[4], v[9], b[9], u[9], r[9];
	int i;

	(void)op;
	dcmul(s, m, m, true, ata);
	sym[S11] = ata[0];
	sym[S21] = ata[3];
	sym[S22] = ata[4];
	sym[S31] = ata[6];
	sym[S32] = ata[7];
	sym[S33] = ata[8];
	dcjacobi(s, sym, q);
	dcquatmat(s, q, v);
	dcmul(s, m, v, false, b);
	dcsortcols(s, b, v);
	dcqr(s, b, u, r);
	for (i = 0; i < 9; i++) {
		out[0].v[i] = u[i];
		out[2].v[i] = v[i];
	}
	for (i = 0; i < 3; i++)
		out[1].v[i] = r[i * 4];
}

/* svd2 %a -> U, sigma, V (closed form) */
static void
xsvd2(S *s, const Op *op, const L *in, L *out)
{
	const Val *m = in[0].v;
	int sk = AT(0).s;
	Val a11 = m[0], a12 = m[1], a21 = m[2], a22 = m[3];
	Val p, r, q, tr, d, disc, rot, sv, root, l1, l2, inv1, s1, s2, vy, vx, n2, exact, inv;
	Val v11, v21, u11, u21, sg, one = DK(s, sk, 1), zero = DK(s, sk, 0), two = DK(s, sk, 2);
	Val half = DK(s, sk, 0.5), h = DK(s, sk, 0.707106781186547524401);

	p = add(s, mul(s, a11, a11), mul(s, a21, a21));
	r = add(s, mul(s, a11, a12), mul(s, a21, a22));
	q = add(s, mul(s, a12, a12), mul(s, a22, a22));
	tr = add(s, p, q);
	d = sub(s, p, q);
	disc = add(s, mul(s, d, d), mul(s, mul(s, DK(s, sk, 4), r), r));
	/* disc == 0: a multiple of a rotation, U = V = I */
	rot = eq(s, disc, zero);
	sv = sqr(s, mul(s, half, tr));
	root = sqr(s, disc);
	l1 = mul(s, add(s, tr, root), half);
	l2 = mul(s, sub(s, tr, root), half);
	inv1 = rsq(s, l1);
	s1 = dvd(s, one, inv1);
	s2 = sqr(s, l2);

	vy = add(s, sub(s, d, root), mul(s, two, r));
	vx = sub(s, add(s, d, root), mul(s, two, r));
	n2 = add(s, mul(s, vx, vx), mul(s, vy, vy));
	exact = ne(s, n2, zero);
	inv = rsq(s, n2);
	v11 = sel(s, exact, mul(s, vx, inv), h);
	v21 = sel(s, exact, mul(s, vy, inv), h);
	u11 = mul(s, add(s, mul(s, a11, v11), mul(s, a12, v21)), inv1);
	u21 = mul(s, add(s, mul(s, a21, v11), mul(s, a22, v21)), inv1);
	sg = op1(s, OP_SIGN, sub(s, mul(s, a11, a22), mul(s, a12, a21)));

	out[0].v[0] = sel(s, rot, one, u11);
	out[0].v[1] = sel(s, rot, zero, mul(s, neg(s, u21), sg));
	out[0].v[2] = sel(s, rot, zero, u21);
	out[0].v[3] = sel(s, rot, one, mul(s, u11, sg));
	out[1].v[0] = sel(s, rot, sv, s1);
	out[1].v[1] = sel(s, rot, sv, s2);
	out[2].v[0] = sel(s, rot, one, v11);
	out[2].v[1] = sel(s, rot, zero, neg(s, v21));
	out[2].v[2] = sel(s, rot, zero, v21);
	out[2].v[3] = sel(s, rot, one, v11);
}

/* qr3 %a -> Q, R */
static void
xqr3(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	dcqr(s, in[0].v, out[0].v, out[1].v);
}

/* eig3 %a -> Q, d (symmetric a: the lower triangle drives the rotation,
 * d is the diagonal of Q^T A Q with A as given) */
static void
xeig3(S *s, const Op *op, const L *in, L *out)
{
	const Val *m = in[0].v;
	Val sym[6], q[4], qq[9], qtm[9];
	int i;

	(void)op;
	sym[S11] = m[0];
	sym[S21] = m[3];
	sym[S22] = m[4];
	sym[S31] = m[6];
	sym[S32] = m[7];
	sym[S33] = m[8];
	dcjacobi(s, sym, q);
	dcquatmat(s, q, qq);
	dcmul(s, qq, m, true, qtm);
	for (i = 0; i < 9; i++)
		out[0].v[i] = qq[i];
	/* the diagonal of (Q^T A) Q */
	for (i = 0; i < 3; i++)
		out[1].v[i] = sum3(s, qtm[i * 3], qq[i], qtm[i * 3 + 1], qq[3 + i], qtm[i * 3 + 2], qq[6 + i]);
}

/* ---- quaternions ---- */

static void
quatrot(S *s, const Val *q, const Val *v, bool inv, Val *r)
{
	int sk = ty(s, q[0]).s, k;
	Val two = K(s, sk, 2);
	Val c = sub(s, mul(s, mul(s, two, q[3]), q[3]), K(s, sk, 1));
	Val d = mul(s, two, add(s, add(s, mul(s, q[0], v[0]), mul(s, q[1], v[1])), mul(s, q[2], v[2])));
	static const int A[3] = {1, 2, 0}, B[3] = {2, 0, 1};

	for (k = 0; k < 3; k++) {
		/* v[k]*c + q[k]*d +- (q[A]*v[B] - q[B]*v[A])*w*2 */
		Val t = mul(s, mul(s, sub(s, mul(s, q[A[k]], v[B[k]]), mul(s, q[B[k]], v[A[k]])), q[3]), two);
		Val u = add(s, mul(s, v[k], c), mul(s, q[k], d));
		r[k] = inv ? sub(s, u, t) : add(s, u, t);
	}
}

static void
xquatrot(S *s, const Op *op, const L *in, L *out)
{
	quatrot(s, in[0].v, in[1].v, op->code == OP_QUAT_ROTATE_INV, out[0].v);
}

static void
qinverse(S *s, const Val *q, Val *r)
{
	r[0] = neg(s, q[0]);
	r[1] = neg(s, q[1]);
	r[2] = neg(s, q[2]);
	r[3] = q[3];
}

static void
xquatinv(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	qinverse(s, in[0].v, out[0].v);
}

static void
fromaxisangle(S *s, const Val *axis, Val angle, Val *r)
{
	Val half = mul(s, angle, K(s, ty(s, angle).s, 0.5)), sn = op1(s, OP_SIN, half);
	int k;

	r[3] = op1(s, OP_COS, half);
	for (k = 0; k < 3; k++)
		r[k] = mul(s, axis[k], sn);
}

static void
xfromaxisangle(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	fromaxisangle(s, in[0].v, in[1].v[0], out[0].v);
}

static void
toaxisangle(S *s, const Val *q, Val *axis, Val *angle)
{
	int sk = ty(s, q[0]).s, k;
	Val n[3], wneg = lt(s, q[3], K(s, sk, 0));

	vnormalize(s, q, 3, n);
	for (k = 0; k < 3; k++)
		axis[k] = sel(s, wneg, neg(s, n[k]), n[k]);
	*angle = mul(s, K(s, sk, 2), op2(s, OP_ATAN2, sqr(s, vdot(s, q, q, 3)), op1(s, OP_ABS, q[3])));
}

static void
xtoaxisangle(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	toaxisangle(s, in[0].v, out[0].v, &out[1].v[0]);
}

static void
xslerp(S *s, const Op *op, const L *in, L *out)
{
	Val qi[4], d[4], axis[3], angle, r[4];

	(void)op;
	qinverse(s, in[0].v, qi);
	quatmul(s, qi, in[1].v, d);
	toaxisangle(s, d, axis, &angle);
	fromaxisangle(s, axis, mul(s, in[2].v[0], angle), r);
	quatmul(s, in[0].v, r, out[0].v);
}

/* Columns are the rotated unit axes. */
static void
quattomat(S *s, const Val *q, Val *m, int stride)
{
	int sk = ty(s, q[0]).s, j, i;

	for (j = 0; j < 3; j++) {
		Val e[3], c[3];
		for (i = 0; i < 3; i++)
			e[i] = K(s, sk, i == j);
		quatrot(s, q, e, false, c);
		for (i = 0; i < 3; i++)
			m[i * stride + j] = c[i];
	}
}

static void
xquattomat(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	quattomat(s, in[0].v, out[0].v, 3);
}

/* Shepperd's method on a 3x3 block (m[i][j] = m[i*stride + j]), all four
 * cases computed and the right one selected, then normalized. */
static void
quatfrommat(S *s, const Val *m, int stride, Val *r)
{
#define M(i, j) m[(i) * stride + (j)]
	int sk = ty(s, m[0]).s, k;
	Val half = K(s, sk, 0.5), one = K(s, sk, 1);
	Val tr = add(s, add(s, M(0, 0), M(1, 1)), M(2, 2));
	Val a[4], c0[4], c1[4], c2[4], h, hh, d1, d2, pos, q[4];

	h = sqr(s, add(s, tr, one));
	a[3] = mul(s, half, h);
	hh = dvd(s, half, h);
	a[0] = mul(s, sub(s, M(2, 1), M(1, 2)), hh);
	a[1] = mul(s, sub(s, M(0, 2), M(2, 0)), hh);
	a[2] = mul(s, sub(s, M(1, 0), M(0, 1)), hh);

	h = sqr(s, add(s, sub(s, M(0, 0), add(s, M(1, 1), M(2, 2))), one));
	c0[0] = mul(s, half, h);
	hh = dvd(s, half, h);
	c0[1] = mul(s, add(s, M(0, 1), M(1, 0)), hh);
	c0[2] = mul(s, add(s, M(2, 0), M(0, 2)), hh);
	c0[3] = mul(s, sub(s, M(2, 1), M(1, 2)), hh);

	h = sqr(s, add(s, sub(s, M(1, 1), add(s, M(2, 2), M(0, 0))), one));
	c1[1] = mul(s, half, h);
	hh = dvd(s, half, h);
	c1[2] = mul(s, add(s, M(1, 2), M(2, 1)), hh);
	c1[0] = mul(s, add(s, M(0, 1), M(1, 0)), hh);
	c1[3] = mul(s, sub(s, M(0, 2), M(2, 0)), hh);

	h = sqr(s, add(s, sub(s, M(2, 2), add(s, M(0, 0), M(1, 1))), one));
	c2[2] = mul(s, half, h);
	hh = dvd(s, half, h);
	c2[0] = mul(s, add(s, M(2, 0), M(0, 2)), hh);
	c2[1] = mul(s, add(s, M(1, 2), M(2, 1)), hh);
	c2[3] = mul(s, sub(s, M(1, 0), M(0, 1)), hh);

	pos = ge(s, tr, K(s, sk, 0));
	d1 = gt(s, M(1, 1), M(0, 0));
	d2 = gt(s, M(2, 2), sel(s, d1, M(1, 1), M(0, 0)));
	for (k = 0; k < 4; k++)
		q[k] = sel(s, pos, a[k], sel(s, d2, c2[k], sel(s, d1, c1[k], c0[k])));
	qnormalize(s, q, r);
#undef M
}

static void
xquatfrommat(S *s, const Op *op, const L *in, L *out)
{
	quatfrommat(s, in[0].v, AT(0).m, out[0].v);
}

static void
xquatrpy(S *s, const Op *op, const L *in, L *out)
{
	int sk = RT(0).s;
	Val h = K(s, sk, 0.5), *r = out[0].v;
	Val cy = op1(s, OP_COS, mul(s, in[2].v[0], h)), sy = op1(s, OP_SIN, mul(s, in[2].v[0], h));
	Val cr = op1(s, OP_COS, mul(s, in[0].v[0], h)), sr = op1(s, OP_SIN, mul(s, in[0].v[0], h));
	Val cp = op1(s, OP_COS, mul(s, in[1].v[0], h)), sp = op1(s, OP_SIN, mul(s, in[1].v[0], h));

	r[3] = add(s, mul(s, mul(s, cy, cr), cp), mul(s, mul(s, sy, sr), sp));
	r[0] = sub(s, mul(s, mul(s, cy, sr), cp), mul(s, mul(s, sy, cr), sp));
	r[1] = add(s, mul(s, mul(s, cy, cr), sp), mul(s, mul(s, sy, sr), cp));
	r[2] = sub(s, mul(s, mul(s, sy, cr), cp), mul(s, mul(s, cy, sr), sp));
}

static void
xquattorpy(S *s, const Op *op, const L *in, L *out)
{
	int sk = AT(0).s;
	const Val *q = in[0].v;
	Val x = q[0], y = q[1], z = q[2], w = q[3], two = K(s, sk, 2), one = K(s, sk, 1);
	Val t0 = mul(s, two, add(s, mul(s, w, x), mul(s, y, z)));
	Val t1 = sub(s, one, mul(s, two, add(s, mul(s, x, x), mul(s, y, y))));
	Val t2 = mul(s, two, sub(s, mul(s, w, y), mul(s, z, x)));
	Val t3 = mul(s, two, add(s, mul(s, w, z), mul(s, x, y)));
	Val t4 = sub(s, one, mul(s, two, add(s, mul(s, y, y), mul(s, z, z))));

	t2 = op3(s, OP_CLAMP, t2, K(s, sk, -1), one);
	out[0].v[0] = op2(s, OP_ATAN2, t0, t1);
	out[0].v[1] = op1(s, OP_ASIN, t2);
	out[0].v[2] = op2(s, OP_ATAN2, t3, t4);
}

/* The quaternion of a rotation by angle h*2 (sin h, cos h given) about
 * axis number `ax` (a value: 0, 1 or 2). */
static void
axisquat(S *s, Val ax, Val sn, Val cs, Val *q)
{
	int sk = ty(s, sn).s, k;
	Val z = K(s, sk, 0);

	for (k = 0; k < 3; k++)
		q[k] = k == 0 ? sel(s, eq(s, ax, KI(s, S_I32, 0)), sn, z)
		     : k == 1 ? sel(s, eq(s, ax, KI(s, S_I32, 1)), sn, z)
		              : sel(s, lor(s, eq(s, ax, KI(s, S_I32, 0)), eq(s, ax, KI(s, S_I32, 1))), z, sn);
	q[3] = cs;
}

static void
xquatfromeuler(S *s, const Op *op, const L *in, L *out)
{
	int sk = RT(0).s, k;
	Val h = K(s, sk, 0.5), sn[3], cs[3], q[3][4], t[4], dummy;

	for (k = 0; k < 3; k++) {
		Val ax = in[1 + k].v[0], e;
		if (cindex(s, ax, 3, &dummy) == -1)
			return;
		e = pick(s, sel(s, lt(s, ax, KI(s, S_I32, 0)), add(s, ax, KI(s, S_I32, 3)), ax), in[0].v, 3, 1);
		e = mul(s, h, e);
		sn[k] = op1(s, OP_SIN, e);
		cs[k] = op1(s, OP_COS, e);
		axisquat(s, ax, sn[k], cs[k], q[k]);
	}
	quatmul(s, q[1], q[0], t);
	quatmul(s, q[2], t, out[0].v);
}

/* x selected by an axis number 1..3 (q1, q2 or q3). */
static Val
pick123(S *s, Val i, Val q1, Val q2, Val q3)
{
	return sel(s, eq(s, i, KI(s, S_I32, 2)), q2, sel(s, eq(s, i, KI(s, S_I32, 3)), q3, q1));
}

static void
xquattoeuler(S *s, const Op *op, const L *in, L *out)
{
	int sk = AT(0).s;
	const Val *q = in[0].v;
	Val q0 = q[3], q1 = q[0], q2 = q[1], q3 = q[2], one = KI(s, S_I32, 1), two = K(s, sk, 2);
	Val i = add(s, in[1].v[0], one), j = add(s, in[2].v[0], one), k = add(s, in[3].v[0], one);
	Val proper = eq(s, i, k), np = lnot(s, proper), e, a, b, c, d, t1, t2, t3, tp, tm, c1, c2, z, r[3];
	Val aa, bb;
	int n;

	k = sel(s, proper, sub(s, sub(s, KI(s, S_I32, 6), i), j), k);
	e = dvd(s, cast(s, mul(s, mul(s, sub(s, i, j), sub(s, j, k)), sub(s, k, i)), sk), two);
	a = q0;
	b = pick123(s, i, q1, q2, q3);
	c = pick123(s, j, q1, q2, q3);
	d = mul(s, pick123(s, k, q1, q2, q3), e);
	a = sel(s, np, sub(s, a, pick123(s, j, q1, q2, q3)), a);
	b = sel(s, np, add(s, b, mul(s, pick123(s, k, q1, q2, q3), e)), b);
	c = sel(s, np, add(s, c, q0), c);
	d = sel(s, np, sub(s, d, pick123(s, i, q1, q2, q3)), d);
	aa = add(s, mul(s, a, a), mul(s, b, b));
	bb = add(s, add(s, aa, mul(s, c, c)), mul(s, d, d));
	t2 = op1(s, OP_ACOS, sub(s, dvd(s, mul(s, two, aa), bb), K(s, sk, 1)));
	tp = op2(s, OP_ATAN2, b, a);
	tm = op2(s, OP_ATAN2, d, c);
	z = K(s, sk, 0);
	c1 = lt(s, op1(s, OP_ABS, t2), K(s, sk, 1e-6));
	c2 = lt(s, op1(s, OP_ABS, sub(s, t2, K(s, sk, 3.14159265358979323846))), K(s, sk, 1e-6));
	t1 = sel(s, lor(s, c1, c2), z, sub(s, tp, tm));
	t3 = sel(s, c1, sub(s, mul(s, two, tp), z), sel(s, c2, add(s, mul(s, two, tm), z), add(s, tp, tm)));
	t2 = sel(s, np, sub(s, t2, K(s, sk, 1.57079632679489661923)), t2);
	t3 = sel(s, np, mul(s, t3, e), t3);
	/* ex, ey, ez = t1, t2, t3, then permuted by i, j, k */
	r[0] = sel(s, eq(s, i, KI(s, S_I32, 2)), t2, sel(s, eq(s, i, KI(s, S_I32, 3)), t3, t1));
	r[1] = sel(s, eq(s, i, KI(s, S_I32, 2)), t1, t2);
	r[2] = sel(s, eq(s, i, KI(s, S_I32, 3)), t1, t3);
	/* j, then k: 1 is x, 2 is y, anything else z */
	for (n = 0; n < 2; n++) {
		Val ax = n ? k : j, t = n ? t3 : t2;
		Val is1 = eq(s, ax, one), is2 = eq(s, ax, KI(s, S_I32, 2));
		r[0] = sel(s, is1, t, r[0]);
		r[1] = sel(s, is2, t, r[1]);
		r[2] = sel(s, lor(s, is1, is2), r[2], t);
	}
	memcpy(out[0].v, r, sizeof r);
}

static void
xquattwist(S *s, const Op *op, const L *in, L *out)
{
	const Val *ax = in[0].v, *q = in[1].v;
	Val proj = vdot(s, q, ax, 3), t[4];
	int k;

	if (op->code == OP_QUAT_TWIST) {
		for (k = 0; k < 3; k++)
			t[k] = mul(s, ax[k], proj);
		t[3] = q[3];
		qnormalize(s, t, out[0].v);
		return;
	}
	proj = vdot(s, ax, q, 3);
	if (op->code == OP_QUAT_TWIST_ANGLE)
		proj = op1(s, OP_ABS, proj);
	out[0].v[0] = mul(s, K(s, AT(0).s, 2), op2(s, OP_ATAN2, proj, q[3]));
}

/* ---- transforms and spatial vectors ---- */

static void
xxpoint(S *s, const Op *op, const L *in, L *out)
{
	const Val *v = in[1].v;
	int k, sk = AT(1).s;

	if (AT(0).k == T_MAT) { /* M * (v, 1) or M * (v, 0) */
		Val v4[4], r4[4];
		v4[0] = v[0]; v4[1] = v[1]; v4[2] = v[2];
		v4[3] = K(s, sk, op->code == OP_TRANSFORM_POINT);
		matvec(s, in[0].v, 4, 4, v4, r4);
		memcpy(out[0].v, r4, 3 * sizeof(Val));
		return;
	}
	quatrot(s, in[0].v + 3, v, false, out[0].v);
	if (op->code == OP_TRANSFORM_POINT)
		for (k = 0; k < 3; k++)
			out[0].v[k] = add(s, in[0].v[k], out[0].v[k]);
}

static void
xxmul(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	xformmul(s, in[0].v, in[1].v, out[0].v);
}

static void
xxinverse(S *s, const Op *op, const L *in, L *out)
{
	Val qi[4], p[3];
	int k;

	(void)op;
	qinverse(s, in[0].v + 3, qi);
	quatrot(s, qi, in[0].v, false, p);
	for (k = 0; k < 3; k++)
		out[0].v[k] = neg(s, p[k]);
	memcpy(out[0].v + 3, qi, sizeof qi);
}

/* transform_get/set_translation/rotation, spatial_top/bottom: slices. */
static void
xslice(S *s, const Op *op, const L *in, L *out)
{
	int k;

	switch (op->code) {
	case OP_TRANSFORM_GET_TRANSLATION:
	case OP_SPATIAL_TOP:
		memcpy(out[0].v, in[0].v, 3 * sizeof(Val));
		return;
	case OP_SPATIAL_BOTTOM:
		memcpy(out[0].v, in[0].v + 3, 3 * sizeof(Val));
		return;
	case OP_TRANSFORM_GET_ROTATION:
		memcpy(out[0].v, in[0].v + 3, 4 * sizeof(Val));
		return;
	default:
		for (k = 0; k < 7; k++)
			out[0].v[k] = in[0].v[k];
		if (op->code == OP_TRANSFORM_SET_TRANSLATION)
			memcpy(out[0].v, in[1].v, 3 * sizeof(Val));
		else
			memcpy(out[0].v + 3, in[1].v, 4 * sizeof(Val));
	}
}

static void
xxtomat(S *s, const Op *op, const L *in, L *out)
{
	int sk = AT(0).s, i;
	Val *r = out[0].v;

	(void)op;
	quattomat(s, in[0].v + 3, r, 4);
	for (i = 0; i < 3; i++)
		r[i * 4 + 3] = in[0].v[i];
	for (i = 0; i < 4; i++)
		r[12 + i] = K(s, sk, i == 3);
}

static void
xxfrommat(S *s, const Op *op, const L *in, L *out)
{
	const Val *m = in[0].v;

	(void)op;
	out[0].v[0] = m[3];
	out[0].v[1] = m[7];
	out[0].v[2] = m[11];
	quatfrommat(s, m, 4, out[0].v + 3);
}

static void
xxcompose(S *s, const Op *op, const L *in, L *out)
{
	const Val *p = in[0].v, *sc = in[2].v;
	Val rm[9], *r = out[0].v;
	int i, j, sk = AT(0).s;

	(void)op;
	quattomat(s, in[1].v, rm, 3);
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++)
			r[i * 4 + j] = mul(s, sc[j], rm[i * 3 + j]);
		r[i * 4 + 3] = p[i];
	}
	for (i = 0; i < 4; i++)
		r[12 + i] = K(s, sk, i == 3);
}

static void
xxdecompose(S *s, const Op *op, const L *in, L *out)
{
	const Val *m = in[0].v;
	int sk = AT(0).s, i, j;
	Val rr[9], sc[3], z = K(s, sk, 0);

	(void)op;
	out[0].v[0] = m[3];
	out[0].v[1] = m[7];
	out[0].v[2] = m[11];
	for (j = 0; j < 3; j++) {
		Val col[3], nz;
		for (i = 0; i < 3; i++)
			col[i] = m[i * 4 + j];
		sc[j] = sqr(s, add(s, add(s, mul(s, col[0], col[0]), mul(s, col[1], col[1])), mul(s, col[2], col[2])));
		nz = ne(s, sc[j], z);
		for (i = 0; i < 3; i++)
			rr[i * 3 + j] = sel(s, nz, dvd(s, col[i], sc[j]), col[i]);
	}
	quatfrommat(s, rr, 3, out[1].v);
	memcpy(out[2].v, sc, sizeof sc);
}

static void
xspcross(S *s, const Op *op, const L *in, L *out)
{
	const Val *wa = in[0].v, *va = in[0].v + 3, *wb = in[1].v, *vb = in[1].v + 3;
	Val c1[3], c2[3];
	int k;

	cross3(s, wa, wb, c1);
	if (op->code == OP_SPATIAL_CROSS) { /* (wa x wb, va x wb + wa x vb) */
		memcpy(out[0].v, c1, sizeof c1);
		cross3(s, va, wb, c1);
		cross3(s, wa, vb, c2);
		for (k = 0; k < 3; k++)
			out[0].v[3 + k] = add(s, c1[k], c2[k]);
	} else { /* (wa x wb + va x vb, wa x vb) */
		cross3(s, va, vb, c2);
		for (k = 0; k < 3; k++)
			out[0].v[k] = add(s, c1[k], c2[k]);
		cross3(s, wa, vb, out[0].v + 3);
	}
}

static void
xspdot(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	out[0].v[0] = vdot(s, in[0].v, in[1].v, 6);
}

static void
xspadjoint(S *s, const Op *op, const L *in, L *out)
{
	int i, j;
	Val z = K(s, AT(0).s, 0);

	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++)
			out[0].v[i * 6 + j] = i < 3 && j < 3 ? in[0].v[i * 3 + j]
			                    : i >= 3 && j >= 3 ? in[0].v[(i - 3) * 3 + j - 3]
			                    : i >= 3 ? in[1].v[(i - 3) * 3 + j] : z;
}

static void
xtwist(S *s, const Op *op, const L *in, L *out)
{
	const Val *t = in[0].v, *x = in[1].v;
	Val a[3], b[3], c[3];
	int k;

	if (op->code == OP_TRANSFORM_TWIST) { /* (R w, R v + p x R w) */
		quatrot(s, t + 3, x, false, a);
		quatrot(s, t + 3, x + 3, false, b);
		cross3(s, t, a, c);
		for (k = 0; k < 3; k++) {
			out[0].v[k] = a[k];
			out[0].v[3 + k] = add(s, b[k], c[k]);
		}
	} else { /* (R tau + p x R f, R f) */
		quatrot(s, t + 3, x + 3, false, a);
		quatrot(s, t + 3, x, false, b);
		cross3(s, t, a, c);
		for (k = 0; k < 3; k++) {
			out[0].v[k] = add(s, b[k], c[k]);
			out[0].v[3 + k] = a[k];
		}
	}
}

static void
xvelpoint(S *s, const Op *op, const L *in, L *out)
{
	Val c[3];
	int k;

	(void)op;
	cross3(s, in[0].v, in[1].v, c);
	for (k = 0; k < 3; k++)
		out[0].v[k] = add(s, in[0].v[3 + k], c[k]);
}

/* ------------------------------------------------------------------ */
/* Random numbers (kpy/rand.h, Warp's rand.h)                           */

static uint32_t
pcghost(uint32_t state)
{
	uint32_t b = state * 747796405u + 2891336453u;
	uint32_t c = ((b >> ((b >> 28u) + 4u)) ^ b) * 277803737u;
	return (c >> 22u) ^ c;
}

static Val
U32(S *s, uint32_t v)
{
	return KI(s, S_U32, v);
}

static Val
pcg(S *s, Val x)
{
	Val b = add(s, mul(s, x, U32(s, 747796405u)), U32(s, 2891336453u));
	Val sh = add(s, op2(s, OP_RSHIFT, b, U32(s, 28)), U32(s, 4));
	Val c = mul(s, op2(s, OP_BIT_XOR, op2(s, OP_RSHIFT, b, sh), b), U32(s, 277803737u));
	return op2(s, OP_BIT_XOR, op2(s, OP_RSHIFT, c, U32(s, 22)), c);
}

/* randf32: advances *st; uniform in [0, 1) from the top 24 bits. */
static Val
randf32(S *s, Val *st)
{
	*st = pcg(s, *st);
	return mul(s, cast(s, op2(s, OP_RSHIFT, *st, U32(s, 8)), S_F32), K(s, S_F32, 1.0 / 16777216.0));
}

static Val
randf32r(S *s, Val *st, Val lo, Val hi)
{
	return add(s, mul(s, sub(s, hi, lo), randf32(s, st)), lo);
}

static Val F(S *s, double v) { return K(s, S_F32, v); }

#define TWOPI_F 6.28318530717958647692 /* 2.0f * KPY_PI_F, exact in float */

static Val callhelper(S *s, const char *name, const Val *args, int nargs, Val *res, int nres);

static void
xrand(S *s, const Op *op, const L *in, L *out)
{
	Val st = in[0].v[0], v[3], x, r, th, phi;
	int code = op->code;

	switch (code) {
	case OP_RAND_INIT:
		if (op->nargs == 1)
			out[0].v[0] = pcg(s, cast(s, in[0].v[0], S_U32));
		else
			out[0].v[0] = pcg(s, add(s, cast(s, in[0].v[0], S_U32), pcg(s, cast(s, in[1].v[0], S_U32))));
		return;
	case OP_RANDI:
	case OP_RANDU:
		st = pcg(s, st);
		if (op->nargs == 1) {
			x = st;
		} else {
			Val lo = cast(s, in[1].v[0], S_U32), hi = cast(s, in[2].v[0], S_U32);
			x = add(s, op2(s, OP_MOD, st, sub(s, hi, lo)), lo);
		}
		out[0].v[0] = cast(s, x, code == OP_RANDI ? S_I32 : S_U32);
		break;
	case OP_RANDF:
		out[0].v[0] = op->nargs == 1 ? randf32(s, &st) : randf32r(s, &st, in[1].v[0], in[2].v[0]);
		break;
	case OP_RANDN: {
		Val u1 = randf32(s, &st), u2 = randf32(s, &st);
		x = sqr(s, mul(s, F(s, -2), op1(s, OP_LOG, add(s, u1, F(s, 5.96e-8)))));
		out[0].v[0] = mul(s, x, op1(s, OP_COS, mul(s, F(s, TWOPI_F), u2)));
		break;
	}
	case OP_SAMPLE_TRIANGLE:
		r = sqr(s, randf32(s, &st));
		out[0].v[0] = sub(s, F(s, 1), r);
		out[0].v[1] = mul(s, randf32(s, &st), r);
		break;
	case OP_SAMPLE_UNIT_RING:
		th = randf32r(s, &st, F(s, 0), F(s, TWOPI_F));
		out[0].v[0] = op1(s, OP_COS, th);
		out[0].v[1] = op1(s, OP_SIN, th);
		break;
	case OP_SAMPLE_UNIT_DISK:
		r = sqr(s, randf32(s, &st));
		th = randf32r(s, &st, F(s, 0), F(s, TWOPI_F));
		out[0].v[0] = mul(s, r, op1(s, OP_COS, th));
		out[0].v[1] = mul(s, r, op1(s, OP_SIN, th));
		break;
	case OP_SAMPLE_UNIT_SPHERE_SURFACE:
	case OP_SAMPLE_UNIT_SPHERE:
	case OP_SAMPLE_UNIT_HEMISPHERE_SURFACE:
	case OP_SAMPLE_UNIT_HEMISPHERE: {
		bool hemi = code == OP_SAMPLE_UNIT_HEMISPHERE_SURFACE || code == OP_SAMPLE_UNIT_HEMISPHERE;
		bool ball = code == OP_SAMPLE_UNIT_SPHERE || code == OP_SAMPLE_UNIT_HEMISPHERE;
		Val u = randf32(s, &st), sp;
		phi = op1(s, OP_ACOS, sub(s, F(s, 1), hemi ? u : mul(s, F(s, 2), u)));
		th = randf32r(s, &st, F(s, 0), F(s, TWOPI_F));
		sp = op1(s, OP_SIN, phi);
		if (ball) {
			r = op2(s, OP_POW, randf32(s, &st), F(s, 1.0 / 3.0));
			out[0].v[0] = mul(s, mul(s, r, op1(s, OP_COS, th)), sp);
			out[0].v[1] = mul(s, mul(s, r, op1(s, OP_SIN, th)), sp);
			out[0].v[2] = mul(s, r, op1(s, OP_COS, phi));
		} else {
			out[0].v[0] = mul(s, op1(s, OP_COS, th), sp);
			out[0].v[1] = mul(s, op1(s, OP_SIN, th), sp);
			out[0].v[2] = op1(s, OP_COS, phi);
		}
		break;
	}
	case OP_SAMPLE_UNIT_SQUARE:
	case OP_SAMPLE_UNIT_CUBE: {
		int k, n = code == OP_SAMPLE_UNIT_SQUARE ? 2 : 3;
		for (k = 0; k < n; k++)
			out[0].v[k] = sub(s, randf32(s, &st), F(s, 0.5));
		break;
	}
	case OP_POISSON:
		v[0] = st;
		v[1] = in[1].v[0];
		callhelper(s, "kpy_poisson", v, 2, v, 2);
		out[0].v[0] = v[0];
		st = v[1];
		break;
	default:
		die("scalarize: random op %s", opinfo[code].name);
	}
	out[op->nres - 1].v[0] = st;
}

/* ------------------------------------------------------------------ */
/* Helper functions (poisson, noise), built once per module in low kir  */

/* Build an `if` with two regions; fills then/else through callbacks. */
typedef struct Helper {
	const char *name;
	int nparams, nrets;
	int ptys[10], rtys[4];   /* scalar kinds */
	void (*build)(S *s, const Val *p, Val *r);
} Helper;

static const Helper *findhelper(const char *name);

/* Emit a `while` loop whose body is produced by fn; see poisson. */

/* log(Gamma(x)) (kpy/rand.h loggam) */
static Val
loggam(S *s, Val x)
{
	static const double a[10] = {8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04,
		-5.952380952380952e-04, 8.417508417508418e-04, -1.917526917526918e-03, 6.410256410256410e-03,
		-2.955065359477124e-02, 1.796443723688307e-01, -1.39243221690590e+00};
	Val small = lt(s, x, F(s, 7)), n, x0, x2, gl0, gl, t, one = F(s, 1);
	Region *save = s->r;
	Op *loop;
	Val init[3];
	Type tys[2];
	int i;

	n = sel(s, small, cast(s, sub(s, F(s, 7), x), S_U32), U32(s, 0));
	x0 = add(s, x, cast(s, n, S_F32));
	x2 = mul(s, dvd(s, one, x0), dvd(s, one, x0));
	gl0 = F(s, a[9]);
	for (i = 8; i >= 0; i--)
		gl0 = add(s, mul(s, gl0, x2), F(s, a[i]));
	gl = sub(s, add(s, add(s, dvd(s, gl0, x0), mul(s, F(s, 0.5), F(s, 1.8378770664093453))),
	                mul(s, sub(s, x0, F(s, 0.5)), op1(s, OP_LOG, x0))), x0);
	/* for k = 1 .. n: gl -= log(x0 - 1); x0 -= 1 (n is 0 unless x < 7) */
	init[0] = U32(s, 1);
	init[1] = add(s, n, U32(s, 1));
	init[2] = U32(s, 1);
	{
		Val args[5] = {init[0], init[1], init[2], gl, x0};
		tys[0] = tscalar(S_F32);
		tys[1] = tscalar(S_F32);
		loop = emit(s, OP_FOR, args, 5, tys, 2);
	}
	{
		Type pt[3] = {tscalar(S_U32), tscalar(S_F32), tscalar(S_F32)};
		opsetparams(s->m, s->f, loop, pt, 3);
	}
	opsetregions(s->m, loop, 1);
	s->r = &loop->regs[0];
	{
		Val g = loop->params[1], xx = loop->params[2], y[2];
		t = sub(s, xx, one);
		y[0] = sub(s, g, op1(s, OP_LOG, t));
		y[1] = t;
		emit(s, OP_YIELD, y, 2, NULL, 0);
	}
	s->r = save;
	return sel(s, lor(s, eq(s, x, one), eq(s, x, F(s, 2))), F(s, 0), loop->res[0]);
}

/* A `while true` loop: body(s, carried, next) fills the loop body, ending
 * it with a yield or a break of its own; returns the results. */
static Op *
loopforever(S *s, const Val *init, const Type *tys, int n, void (*body)(S *s, const Val *c, void *ctx), void *ctx)
{
	Region *save = s->r;
	Op *op = emit(s, OP_WHILE, init, n, tys, n);
	Val t = cbool(s->m, s->f, true);

	opsetparams(s->m, s->f, op, tys, n);
	opsetregions(s->m, op, 2);
	s->r = &op->regs[0];
	emit(s, OP_YIELD, &t, 1, NULL, 0);
	s->r = &op->regs[1];
	body(s, op->params, ctx);
	s->r = save;
	return op;
}

/* `if c { then: yield/break a } else { yield/break b }`; tys of n results. */
static Op *
ifelse(S *s, Val c, int tcode, const Val *a, int na, int ecode, const Val *b, int nb, const Type *tys, int n)
{
	Region *save = s->r;
	Op *op = emit(s, OP_IF, &c, 1, tys, n);

	opsetregions(s->m, op, 2);
	s->r = &op->regs[0];
	emit(s, tcode, a, na, NULL, 0);
	s->r = &op->regs[1];
	emit(s, ecode, b, nb, NULL, 0);
	s->r = save;
	return op;
}

typedef struct PCtx {
	Val lam, enlam;                      /* mult */
	Val slam, loglam, a, b, invalpha, vr; /* ptrs */
} PCtx;

/* carried: x (u32), prod (f32), state (u32) */
static void
multbody(S *s, const Val *c, void *ctx)
{
	PCtx *p = ctx;
	Val st = c[2], prod = mul(s, c[1], randf32(s, &st)), y[3], bk[3];
	Type tys[3] = {tscalar(S_U32), tscalar(S_F32), tscalar(S_U32)};
	Op *op;

	y[0] = add(s, c[0], U32(s, 1));
	y[1] = prod;
	y[2] = st;
	bk[0] = c[0];
	bk[1] = prod;
	bk[2] = st;
	op = ifelse(s, gt(s, prod, p->enlam), OP_YIELD, y, 3, OP_BREAK, bk, 3, tys, 3);
	emit(s, OP_YIELD, op->res, 3, NULL, 0);
}

/* carried: k (u32 result), state (u32).  Accept, reject (next draw) or
 * test against log Gamma, which is evaluated only in the last case. */
static void
ptrsbody(S *s, const Val *c, void *ctx)
{
	PCtx *p = ctx;
	Val st = c[1], u = sub(s, randf32(s, &st), F(s, 0.5)), v = randf32(s, &st);
	Val us = sub(s, F(s, 0.5), op1(s, OP_ABS, u)), k, ku, acc, rej, lhs, rhs, res[2], cont[2];
	Type tys[2] = {tscalar(S_U32), tscalar(S_U32)};
	Region *save = s->r;
	Op *o1, *o2, *o3;

	k = op1(s, OP_FLOOR, add(s, add(s, mul(s, add(s, dvd(s, mul(s, F(s, 2), p->a), us), p->b), u), p->lam),
	                         F(s, 0.43)));
	ku = cast(s, k, S_U32);
	acc = land(s, ge(s, us, F(s, 0.07)), op2(s, OP_LE, v, p->vr));
	res[0] = ku;
	res[1] = st;
	cont[0] = c[0];
	cont[1] = st;
	o1 = emit(s, OP_IF, &acc, 1, tys, 2);
	opsetregions(s->m, o1, 2);
	s->r = &o1->regs[0];
	emit(s, OP_BREAK, res, 2, NULL, 0);
	s->r = &o1->regs[1];
	rej = lor(s, lt(s, k, F(s, 0)), land(s, lt(s, us, F(s, 0.013)), gt(s, v, us)));
	o2 = emit(s, OP_IF, &rej, 1, tys, 2);
	opsetregions(s->m, o2, 2);
	s->r = &o2->regs[0];
	emit(s, OP_YIELD, cont, 2, NULL, 0);
	s->r = &o2->regs[1];
	lhs = sub(s, add(s, op1(s, OP_LOG, v), op1(s, OP_LOG, p->invalpha)),
	          op1(s, OP_LOG, add(s, dvd(s, p->a, mul(s, us, us)), p->b)));
	rhs = sub(s, add(s, neg(s, p->lam), mul(s, k, p->loglam)), loggam(s, add(s, k, F(s, 1))));
	o3 = ifelse(s, op2(s, OP_LE, lhs, rhs), OP_BREAK, res, 2, OP_YIELD, cont, 2, tys, 2);
	emit(s, OP_YIELD, o3->res, 2, NULL, 0);
	s->r = &o1->regs[1];
	emit(s, OP_YIELD, o2->res, 2, NULL, 0);
	s->r = save;
	emit(s, OP_YIELD, o1->res, 2, NULL, 0);
}

static void
hpoisson(S *s, const Val *p, Val *r)
{
	Val st = p[0], lam = p[1], res[2];
	Type tys[3] = {tscalar(S_U32), tscalar(S_F32), tscalar(S_U32)};
	PCtx c = {0};
	Op *big, *small, *op;
	Region *save = s->r;
	Val init[3];

	c.lam = lam;
	/* lam >= 10: PTRS */
	big = emit(s, OP_IF, (Val[]){ge(s, lam, F(s, 10))}, 1, (Type[]){tscalar(S_U32), tscalar(S_U32)}, 2);
	opsetregions(s->m, big, 2);
	s->r = &big->regs[0];
	c.slam = sqr(s, lam);
	c.loglam = op1(s, OP_LOG, lam);
	c.b = add(s, F(s, 0.931), mul(s, F(s, 2.53), c.slam));
	c.a = add(s, F(s, -0.059), mul(s, F(s, 0.02483), c.b));
	c.invalpha = add(s, F(s, 1.1239), dvd(s, F(s, 1.1328), sub(s, c.b, F(s, 3.4))));
	c.vr = sub(s, F(s, 0.9277), dvd(s, F(s, 3.6224), sub(s, c.b, F(s, 2))));
	init[0] = U32(s, 0);
	init[1] = st;
	op = loopforever(s, init, (Type[]){tscalar(S_U32), tscalar(S_U32)}, 2, ptrsbody, &c);
	emit(s, OP_YIELD, op->res, 2, NULL, 0);
	s->r = &big->regs[1];
	/* lam == 0: 0; else multiplication method */
	small = emit(s, OP_IF, (Val[]){eq(s, lam, F(s, 0))}, 1, (Type[]){tscalar(S_U32), tscalar(S_U32)}, 2);
	opsetregions(s->m, small, 2);
	s->r = &small->regs[0];
	res[0] = U32(s, 0);
	res[1] = st;
	emit(s, OP_YIELD, res, 2, NULL, 0);
	s->r = &small->regs[1];
	c.enlam = op1(s, OP_EXP, neg(s, lam));
	init[0] = U32(s, 0);
	init[1] = F(s, 1);
	init[2] = st;
	op = loopforever(s, init, tys, 3, multbody, &c);
	res[0] = op->res[0];
	res[1] = op->res[2];
	emit(s, OP_YIELD, res, 2, NULL, 0);
	s->r = &big->regs[1];
	emit(s, OP_YIELD, small->res, 2, NULL, 0);
	s->r = save;
	r[0] = big->res[0];
	r[1] = big->res[1];
}

/* ---- noise (kpy/noise.h) ---- */

static const uint32_t noiseprime[4] = {73856093u, 19349663u, 53471161u, 10000019u};

/* The lattice gradient of dimension n at integer corner ix[] (i32). */
static void
gradient(S *s, Val state, int n, const Val *ix, Val *g)
{
	Val idx = 0, t[4];
	int k;

	for (k = 0; k < n; k++) {
		Val h = mul(s, cast(s, ix[k], S_U32), U32(s, noiseprime[k]));
		if (k == n - 1)
			h = add(s, h, state);
		idx = k == 0 ? h : op2(s, OP_BIT_XOR, idx, h);
	}
	if (n == 1) {
		g[0] = randf32r(s, &idx, F(s, -1), F(s, 1));
		return;
	}
	for (k = 0; k < n; k++)
		t[k] = sub(s, randf32(s, &idx), F(s, 0.5));
	vnormalize(s, t, n, g);
}

static Val
smoother(S *s, Val t)
{
	/* t*t*t*(t*(t*6 - 15) + 10) */
	return mul(s, mul(s, mul(s, t, t), t), add(s, mul(s, t, sub(s, mul(s, t, F(s, 6)), F(s, 15))), F(s, 10)));
}

static Val
smoothergrad(S *s, Val t)
{
	/* 30*t*t*(t*(t - 2) + 1) */
	return mul(s, mul(s, mul(s, F(s, 30), t), t), add(s, mul(s, t, sub(s, t, F(s, 2))), F(s, 1)));
}

static Val
interp(S *s, Val a0, Val a1, Val t)
{
	return add(s, mul(s, sub(s, a1, a0), smoother(s, t)), a0);
}

/* (d_a1 - d_a0)*ss(t) + (a1 - a0)*sg(t)*d_t + d_a0, n components */
static void
interpgrad(S *s, Val a0, Val a1, Val t, const Val *da0, const Val *da1, const Val *dt, int n, Val *r)
{
	Val ss = smoother(s, t), w = mul(s, sub(s, a1, a0), smoothergrad(s, t));
	int k;

	for (k = 0; k < n; k++)
		r[k] = add(s, add(s, mul(s, sub(s, da1[k], da0[k]), ss), mul(s, dt[k], w)), da0[k]);
}

/* The cell of x[0..n): corners i0, i1 and offsets d, with periods p (or
 * none). */
static void
cell(S *s, int n, const Val *x, const Val *p, Val *i0, Val *i1, Val *d)
{
	int k;

	for (k = 0; k < n; k++) {
		Val f = op1(s, OP_FLOOR, x[k]);
		d[k] = sub(s, x[k], f);
		i0[k] = cast(s, f, S_I32);
		if (p) {
			i0[k] = op2(s, OP_MOD, i0[k], p[k]);
			i1[k] = op2(s, OP_MOD, add(s, i0[k], KI(s, S_I32, 1)), p[k]);
		} else {
			i1[k] = add(s, i0[k], KI(s, S_I32, 1));
		}
	}
}

/* Noise value of dimension n in a cell, interpolating x first. */
static Val
noisecell(S *s, Val state, int n, const Val *i0, const Val *i1, const Val *d)
{
	Val v[16], dd[4], ix[4], g[4];
	int c, k, m, half;

	for (c = 0; c < (1 << n); c++) {
		for (k = 0; k < n; k++) {
			int hi = (c >> k) & 1;
			ix[k] = hi ? i1[k] : i0[k];
			dd[k] = hi ? sub(s, d[k], F(s, 1)) : d[k];
		}
		gradient(s, state, n, ix, g);
		if (n == 1) {
			v[c] = mul(s, dd[0], g[0]);
		} else {
			v[c] = mul(s, dd[0], g[0]);
			for (k = 1; k < n; k++)
				v[c] = add(s, v[c], mul(s, dd[k], g[k]));
		}
	}
	/* interpolate along x, then y, ... (corner bit k is axis k) */
	for (k = 0, m = 1 << n; k < n; k++, m = half) {
		half = m / 2;
		for (c = 0; c < half; c++)
			v[c] = interp(s, v[2 * c], v[2 * c + 1], d[k]);
	}
	return v[0];
}

/* Gradient of the noise in a cell (noise2/3/4_gradient). */
static void
noisegrad(S *s, Val state, int n, const Val *i0, const Val *i1, const Val *d, Val *out)
{
	Val v[16], g[16][4], dd[4], ix[4], e[4][4];
	int c, k, j, m, half;

	for (c = 0; c < (1 << n); c++) {
		for (k = 0; k < n; k++) {
			int hi = (c >> k) & 1;
			ix[k] = hi ? i1[k] : i0[k];
			dd[k] = hi ? sub(s, d[k], F(s, 1)) : d[k];
		}
		gradient(s, state, n, ix, g[c]);
		v[c] = vdot(s, dd, g[c], n);
	}
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			e[k][j] = F(s, k == j);
	for (k = 0, m = 1 << n; k < n; k++, m = half) {
		half = m / 2;
		for (c = 0; c < half; c++) {
			Val gv[4];
			interpgrad(s, v[2 * c], v[2 * c + 1], d[k], g[2 * c], g[2 * c + 1], e[k], n, gv);
			v[c] = interp(s, v[2 * c], v[2 * c + 1], d[k]);
			memcpy(g[c], gv, sizeof gv);
		}
	}
	memcpy(out, g[0], (size_t)n * sizeof(Val));
}

/* noise/pnoise of dimension n: params state, x[n] (, period[n]). */
static void
hnoise(S *s, const Val *p, Val *r, int n, bool periodic)
{
	Val i0[4], i1[4], d[4];

	cell(s, n, p + 1, periodic ? p + 1 + n : NULL, i0, i1, d);
	r[0] = noisecell(s, p[0], n, i0, i1, d);
}

static void hnoise1(S *s, const Val *p, Val *r) { hnoise(s, p, r, 1, false); }
static void hnoise2(S *s, const Val *p, Val *r) { hnoise(s, p, r, 2, false); }
static void hnoise3(S *s, const Val *p, Val *r) { hnoise(s, p, r, 3, false); }
static void hnoise4(S *s, const Val *p, Val *r) { hnoise(s, p, r, 4, false); }
static void hpnoise1(S *s, const Val *p, Val *r) { hnoise(s, p, r, 1, true); }
static void hpnoise2(S *s, const Val *p, Val *r) { hnoise(s, p, r, 2, true); }
static void hpnoise3(S *s, const Val *p, Val *r) { hnoise(s, p, r, 3, true); }
static void hpnoise4(S *s, const Val *p, Val *r) { hnoise(s, p, r, 4, true); }

/* noise gradient of dimension n: params state, x[n]; results g[n]. */
static void
hgrad(S *s, const Val *p, Val *r, int n)
{
	Val i0[4], i1[4], d[4];

	cell(s, n, p + 1, NULL, i0, i1, d);
	noisegrad(s, p[0], n, i0, i1, d, r);
}

static void hgrad2(S *s, const Val *p, Val *r) { hgrad(s, p, r, 2); }
static void hgrad3(S *s, const Val *p, Val *r) { hgrad(s, p, r, 3); }
static void hgrad4(S *s, const Val *p, Val *r) { hgrad(s, p, r, 4); }

/* curlnoise: params state, x[n], octaves (u32), lacunarity, gain. */
static void
hcurl(S *s, const Val *p, Val *r, int n)
{
	Region *save = s->r;
	Val init[3 + 1 + 3 * 4 + 2 + 1], st, g[3][4], y[20], pt[4], res[4];
	Type tys[20];
	int nc = n == 2 ? 1 : 3, k, j, ncar, fi;
	Op *loop;
	char name[32];

	/* carried: the sums (nc fields of n components), freq, amp, state */
	ncar = nc * n + 3;
	init[0] = KI(s, S_I32, 0);
	init[1] = cast(s, p[1 + n], S_I32);
	init[2] = KI(s, S_I32, 1);
	for (k = 0; k < nc * n; k++) {
		init[3 + k] = F(s, 0);
		tys[k] = tscalar(S_F32);
	}
	init[3 + nc * n] = F(s, 1);
	init[4 + nc * n] = F(s, 1);
	init[5 + nc * n] = p[0];
	tys[nc * n] = tscalar(S_F32);
	tys[nc * n + 1] = tscalar(S_F32);
	tys[nc * n + 2] = tscalar(S_U32);
	loop = emit(s, OP_FOR, init, 3 + ncar, tys, ncar);
	{
		Type pt2[20];
		pt2[0] = tscalar(S_I32);
		memcpy(pt2 + 1, tys, (size_t)ncar * sizeof(Type));
		opsetparams(s->m, s->f, loop, pt2, ncar + 1);
	}
	opsetregions(s->m, loop, 1);
	s->r = &loop->regs[0];
	{
		const Val *c = loop->params + 1;
		Val freq = c[nc * n], amp = c[nc * n + 1];
		st = c[nc * n + 2];
		for (k = 0; k < n; k++)
			pt[k] = mul(s, p[1 + k], freq);
		snprintf(name, sizeof name, "kpy_noise%d_grad", n);
		for (fi = 0; fi < nc; fi++) {
			Val a[5];
			if (fi == 1)
				st = pcg(s, add(s, st, U32(s, pcghost(10019689u))));
			if (fi == 2)
				st = pcg(s, add(s, st, U32(s, pcghost(13112221u))));
			a[0] = st;
			for (k = 0; k < n; k++)
				a[1 + k] = pt[k];
			callhelper(s, name, a, 1 + n, g[fi], n);
		}
		for (fi = 0; fi < nc; fi++)
			for (k = 0; k < n; k++)
				y[fi * n + k] = add(s, c[fi * n + k], mul(s, g[fi][k], amp));
		y[nc * n] = mul(s, freq, p[2 + n]);
		y[nc * n + 1] = mul(s, amp, p[3 + n]);
		y[nc * n + 2] = st;
		emit(s, OP_YIELD, y, ncar, NULL, 0);
	}
	s->r = save;
	for (j = 0; j < nc * n; j++)
		y[j] = loop->res[j];
	if (n == 2) {
		res[0] = neg(s, y[1]);
		res[1] = y[0];
	} else { /* (s3.y - s2.z, s1.z - s3.x, s2.x - s1.y) */
		Val *s1 = y, *s2 = y + n, *s3 = y + 2 * n;
		res[0] = sub(s, s3[1], s2[2]);
		res[1] = sub(s, s1[2], s3[0]);
		res[2] = sub(s, s2[0], s1[1]);
	}
	memcpy(r, res, (size_t)(n == 2 ? 2 : 3) * sizeof(Val));
}

static void hcurl2(S *s, const Val *p, Val *r) { hcurl(s, p, r, 2); }
static void hcurl3(S *s, const Val *p, Val *r) { hcurl(s, p, r, 3); }
static void hcurl4(S *s, const Val *p, Val *r) { hcurl(s, p, r, 4); }

enum { U = S_U32, I = S_I32, FL = S_F32 };

static const Helper helpers[] = {
	{"kpy_poisson", 2, 2, {U, FL}, {U, U}, hpoisson},
	{"kpy_noise1", 2, 1, {U, FL}, {FL}, hnoise1},
	{"kpy_noise2", 3, 1, {U, FL, FL}, {FL}, hnoise2},
	{"kpy_noise3", 4, 1, {U, FL, FL, FL}, {FL}, hnoise3},
	{"kpy_noise4", 5, 1, {U, FL, FL, FL, FL}, {FL}, hnoise4},
	{"kpy_pnoise1", 3, 1, {U, FL, I}, {FL}, hpnoise1},
	{"kpy_pnoise2", 5, 1, {U, FL, FL, I, I}, {FL}, hpnoise2},
	{"kpy_pnoise3", 7, 1, {U, FL, FL, FL, I, I, I}, {FL}, hpnoise3},
	{"kpy_pnoise4", 9, 1, {U, FL, FL, FL, FL, I, I, I, I}, {FL}, hpnoise4},
	{"kpy_noise2_grad", 3, 2, {U, FL, FL}, {FL, FL}, hgrad2},
	{"kpy_noise3_grad", 4, 3, {U, FL, FL, FL}, {FL, FL, FL}, hgrad3},
	{"kpy_noise4_grad", 5, 4, {U, FL, FL, FL, FL}, {FL, FL, FL, FL}, hgrad4},
	{"kpy_curlnoise2", 6, 2, {U, FL, FL, U, FL, FL}, {FL, FL}, hcurl2},
	{"kpy_curlnoise3", 7, 3, {U, FL, FL, FL, U, FL, FL}, {FL, FL, FL}, hcurl3},
	{"kpy_curlnoise4", 8, 3, {U, FL, FL, FL, FL, U, FL, FL}, {FL, FL, FL}, hcurl4},
};

static const Helper *
findhelper(const char *name)
{
	size_t i;

	for (i = 0; i < countof(helpers); i++)
		if (strcmp(helpers[i].name, name) == 0)
			return &helpers[i];
	die("scalarize: no helper %s", name);
}

/* Call helper `name` (adding it to the module the first time). */
static Val
callhelper(S *s, const char *name, const Val *args, int nargs, Val *res, int nres)
{
	const Helper *h = findhelper(name);
	int fi = findfunc(s->m, name), i;
	Type rt[8];
	Op *op;

	if (fi < 0) {
		S save = *s;
		Func *f = addfunc(s->m, name, false, (Loc){0});
		Val p[8], r[8];
		fi = (int)s->m->nfuncs - 1;
		for (i = 0; i < h->nparams; i++)
			p[i] = addparam(s->m, f, NULL, tscalar(h->ptys[i]), (Loc){0});
		for (i = 0; i < h->nrets; i++)
			addret(s->m, f, tscalar(h->rtys[i]));
		s->f = f;
		s->r = &f->body;
		s->loc = (Loc){0};
		s->kloc = (Loc){0};
		s->map = NULL;
		s->nmap = 0;
		h->build(s, p, r);
		emit(s, OP_RET, r, h->nrets, NULL, 0);
		save.nerr = s->nerr;
		*s = save;
	}
	if (nargs != h->nparams || nres != h->nrets)
		die("scalarize: helper %s called with %d arguments", name, nargs);
	for (i = 0; i < h->nrets; i++)
		rt[i] = tscalar(h->rtys[i]);
	op = emit(s, OP_CALL, args, nargs, rt, nres);
	op->attr = fi;
	for (i = 0; i < nres; i++)
		res[i] = op->res[i];
	return res[0];
}

static void
xnoise(S *s, const Op *op, const L *in, L *out)
{
	Val a[10];
	int n = AT(1).k == T_VEC ? AT(1).n : 1, k, na = 0;
	char name[32];

	a[na++] = in[0].v[0];
	for (k = 0; k < n; k++)
		a[na++] = in[1].v[k];
	if (op->code == OP_PNOISE) /* one i32 period per axis */
		for (k = 0; k < n; k++)
			a[na++] = in[2 + k].v[0];
	if (op->code == OP_CURLNOISE) {
		a[na++] = op->nargs > 2 ? in[2].v[0] : U32(s, 1);
		a[na++] = op->nargs > 3 ? in[3].v[0] : F(s, 2);
		a[na++] = op->nargs > 4 ? in[4].v[0] : F(s, 0.5);
		snprintf(name, sizeof name, "kpy_curlnoise%d", n);
		callhelper(s, name, a, na, out[0].v, out[0].n);
		return;
	}
	snprintf(name, sizeof name, "kpy_%snoise%d", op->code == OP_PNOISE ? "p" : "", n);
	callhelper(s, name, a, na, out[0].v, 1);
}

/* ------------------------------------------------------------------ */
/* print: printf in the formats of kpy/print.h                          */

static void
printfv(S *s, const char *fmt, const Val *args, int n)
{
	Val a[64];

	a[0] = cstr(s->m, s->f, fmt);
	if (n > 63)
		die("scalarize: printf of %d values", n);
	memcpy(a + 1, args, (size_t)n * sizeof(Val));
	emit(s, OP_PRINTF, a, n + 1, NULL, 0);
}

static void
xprint(S *s, const Op *op, const L *in, L *out)
{
	Type t = AT(0);
	Val c[64];
	Buf b = {0};
	int k, i, j;

	(void)out;
	if (t.k == T_STRUCT) {
		error(s, "cannot print a struct");
		return;
	}
	if (t.k == T_SCALAR) {
		const char *f;
		Val x = in[0].v[0];
		if (t.s == S_BOOL) {
			Val a1 = cstr(s->m, s->f, "True\n"), a2 = cstr(s->m, s->f, "False\n");
			ifelse(s, x, OP_PRINTF, &a1, 1, OP_PRINTF, &a2, 1, NULL, 0);
			/* ifelse ended both regions with printf: give them terminators */
			{
				Op *ifop = s->r->ops[s->r->n - 1];
				Region *save = s->r;
				for (k = 0; k < 2; k++) {
					s->r = &ifop->regs[k];
					emit(s, OP_YIELD, NULL, 0, NULL, 0);
				}
				s->r = save;
			}
			return;
		}
		if (scalarisfloat(t.s)) {
			f = "%g\n";
			if (t.s == S_F16)
				x = cast(s, x, S_F32);
		} else if (t.s == S_I64) {
			f = "%lld\n";
		} else if (t.s == S_U64) {
			f = "%llu\n";
		} else {
			f = t.s >= S_U8 ? "%u\n" : "%d\n";
		}
		printfv(s, f, &x, 1);
		return;
	}
	/* composites: components through f32 */
	for (k = 0; k < in[0].n && k < 64; k++)
		c[k] = cast(s, in[0].v[k], S_F32);
	switch (t.k) {
	case T_VEC:
		for (k = 0; k < t.n; k++)
			bufputs(&b, "%g ");
		bufputs(&b, "\n");
		printfv(s, b.s, c, t.n);
		break;
	case T_MAT:
		for (i = 0; i < t.n; i++) {
			buffree(&b);
			for (j = 0; j < t.m; j++)
				bufputs(&b, "%g ");
			bufputs(&b, "\n");
			printfv(s, b.s, c + i * t.m, t.m);
		}
		break;
	case T_QUAT:
		printfv(s, "%g %g %g %g\n", c, 4);
		break;
	default:
		printfv(s, "(%g %g %g) (%g %g %g %g)\n", c, 7);
	}
	buffree(&b);
}

/* ------------------------------------------------------------------ */
/* The table: composite expansions by op                                */

static Xfn *const xtab[NOPS] = {
	[OP_ADD] = xew, [OP_SUB] = xew, [OP_MOD] = xew, [OP_NEG] = xew, [OP_POS] = xew,
	[OP_BIT_AND] = xew, [OP_BIT_OR] = xew, [OP_BIT_XOR] = xew, [OP_LSHIFT] = xew, [OP_RSHIFT] = xew,
	[OP_INVERT] = xew, [OP_ABS] = xew, [OP_SIGN] = xew, [OP_CW_MUL] = xew, [OP_CW_DIV] = xew,
	[OP_MUL] = xmul, [OP_DIV] = xdiv,
	[OP_EQ] = xeq, [OP_NE] = xeq, [OP_WHERE] = xwhere, [OP_CAST] = xcast,
	[OP_VEC] = xctor, [OP_MAT] = xctor, [OP_QUAT] = xctor, [OP_TRANSFORM] = xctor,
	[OP_MATRIX_FROM_ROWS] = xfromvecs, [OP_MATRIX_FROM_COLS] = xfromvecs,
	[OP_ZERO] = xzero, [OP_IDENTITY] = xzero, [OP_QUAT_IDENTITY] = xzero, [OP_TRANSFORM_IDENTITY] = xzero,
	[OP_EXTRACT] = xextract, [OP_INSERT] = xinsert, [OP_FIELD] = xfield, [OP_SETFIELD] = xsetfield,
	[OP_MIN] = xminmax, [OP_MAX] = xminmax,
	[OP_ISFINITE] = xclassify, [OP_ISNAN] = xclassify, [OP_ISINF] = xclassify, [OP_LERP] = xlerp,
	[OP_DOT] = xdot, [OP_CROSS] = xcross, [OP_LENGTH] = xlength, [OP_LENGTH_SQ] = xlength,
	[OP_NORMALIZE] = xnormalize, [OP_OUTER] = xouter, [OP_TRANSPOSE] = xtranspose,
	[OP_INVERSE] = xinverse, [OP_DETERMINANT] = xdeterminant, [OP_TRACE] = xtrace,
	[OP_DIAG] = xdiag, [OP_GET_DIAG] = xdiag, [OP_DDOT] = xddot, [OP_SKEW] = xskew,
	[OP_ARGMIN] = xargm, [OP_ARGMAX] = xargm, [OP_NORM_L1] = xnorm, [OP_NORM_L2] = xlength,
	[OP_NORM_HUBER] = xnorm, [OP_NORM_PSEUDO_HUBER] = xnorm, [OP_SMOOTH_NORMALIZE] = xnorm,
	[OP_QUAT_FROM_AXIS_ANGLE] = xfromaxisangle, [OP_QUAT_ROTATE] = xquatrot, [OP_QUAT_ROTATE_INV] = xquatrot,
	[OP_QUAT_INVERSE] = xquatinv, [OP_QUAT_TO_MATRIX] = xquattomat, [OP_QUAT_FROM_MATRIX] = xquatfrommat,
	[OP_QUAT_RPY] = xquatrpy, [OP_QUAT_TO_RPY] = xquattorpy, [OP_QUAT_SLERP] = xslerp,
	[OP_QUAT_TO_AXIS_ANGLE] = xtoaxisangle, [OP_QUAT_FROM_EULER] = xquatfromeuler,
	[OP_QUAT_TO_EULER] = xquattoeuler, [OP_QUAT_TWIST] = xquattwist, [OP_QUAT_TWIST_ANGLE] = xquattwist,
	[OP_QUAT_TWIST_ANGLE_SIGNED] = xquattwist,
	[OP_TRANSFORM_POINT] = xxpoint, [OP_TRANSFORM_VECTOR] = xxpoint, [OP_TRANSFORM_MULTIPLY] = xxmul,
	[OP_TRANSFORM_INVERSE] = xxinverse, [OP_TRANSFORM_GET_TRANSLATION] = xslice,
	[OP_TRANSFORM_GET_ROTATION] = xslice, [OP_TRANSFORM_SET_TRANSLATION] = xslice,
	[OP_TRANSFORM_SET_ROTATION] = xslice, [OP_TRANSFORM_TO_MATRIX] = xxtomat,
	[OP_TRANSFORM_FROM_MATRIX] = xxfrommat, [OP_TRANSFORM_COMPOSE] = xxcompose,
	[OP_TRANSFORM_DECOMPOSE] = xxdecompose,
	[OP_SPATIAL_TOP] = xslice, [OP_SPATIAL_BOTTOM] = xslice, [OP_SPATIAL_CROSS] = xspcross,
	[OP_SPATIAL_CROSS_DUAL] = xspcross, [OP_SPATIAL_DOT] = xspdot, [OP_SPATIAL_ADJOINT] = xspadjoint,
	[OP_TRANSFORM_TWIST] = xtwist, [OP_TRANSFORM_WRENCH] = xtwist, [OP_VELOCITY_AT_POINT] = xvelpoint,
	[OP_RAND_INIT] = xrand, [OP_RANDI] = xrand, [OP_RANDU] = xrand, [OP_RANDF] = xrand, [OP_RANDN] = xrand,
	[OP_SAMPLE_TRIANGLE] = xrand, [OP_SAMPLE_UNIT_RING] = xrand, [OP_SAMPLE_UNIT_DISK] = xrand,
	[OP_SAMPLE_UNIT_SPHERE_SURFACE] = xrand, [OP_SAMPLE_UNIT_SPHERE] = xrand,
	[OP_SAMPLE_UNIT_HEMISPHERE_SURFACE] = xrand, [OP_SAMPLE_UNIT_HEMISPHERE] = xrand,
	[OP_SAMPLE_UNIT_SQUARE] = xrand, [OP_SAMPLE_UNIT_CUBE] = xrand, [OP_POISSON] = xrand,
	[OP_NOISE] = xnoise, [OP_PNOISE] = xnoise, [OP_CURLNOISE] = xnoise,
	[OP_PRINT] = xprint,
	[OP_SVD3] = xsvd3, [OP_SVD2] = xsvd2, [OP_QR3] = xqr3, [OP_EIG3] = xeig3,
};

/* ------------------------------------------------------------------ */
/* Memory: composite and struct elements through member views          */

/* Read leaf k of struct value v (type t) through a chain of field ops. */
static Val
fieldleaf(S *s, Val v, Type t, int k)
{
	const StructDef *sd = &s->m->structs[t.sid];
	uint32_t i;

	for (i = 0; i < sd->nfields; i++) {
		Type ft = sd->fields[i].ty;
		int n = nleaves(s->m, ft);
		if (k < n) {
			Op *fo = emit(s, OP_FIELD, &v, 1, &ft, 1);
			fo->attr = (int)i;
			return ft.k == T_STRUCT ? fieldleaf(s, fo->res[0], ft, k) : fo->res[0];
		}
		k -= n;
	}
	die("scalarize: no leaf %d", k);
}

/* Is array value v one without storage (zero)? */
static bool
nostorage(S *s, Val v)
{
	const Value *x = &s->f->vals[v];

	return x->kind == V_RES && x->def && x->def->code == OP_ZERO;
}

/* Is array leaf v the same field of the same element of arr (loaded whole
 * at the indices of op) it is about to be stored into? */
static bool
reloaded(S *s, Val v, Val arr, const Op *op, int nidx)
{
	const Value *x = &s->f->vals[v];
	const Op *ld;
	int i;

	while (x->kind == V_RES && x->def && x->def->code == OP_FIELD)
		x = &s->f->vals[x->def->args[0]];
	if (x->kind != V_RES || !x->def || x->def->code != OP_LOAD)
		return false;
	ld = x->def;
	if (ld->args[0] != arr || ld->nargs != 1 + nidx)
		return false;
	for (i = 0; i < nidx; i++)
		if (ld->args[1 + i] != get(s, op->args[1 + i]).v[0])
			return false;
	return true;
}

static void
lowermem(S *s, const Op *op)
{
	L a = get(s, op->args[0]);
	Type at = vty(s->f, a.v[0]), et = telem(at);
	int nd = at.nd, nidx, extra, nl, k, i;
	Type *tys;
	int *offs;
	Val args[8];

	extra = op->code == OP_LOAD ? 0 : op->code == OP_ATOMIC_CAS ? 2 : 1;
	nidx = op->nargs - 1 - extra;
	nl = nleaves(s->m, et);
	tys = xmalloc((size_t)nl * sizeof *tys);
	offs = xmalloc((size_t)nl * sizeof *offs);
	k = 0;
	leafinfo(s->m, et, 0, tys, offs, &k);
	{
		L out = newleaves(s, op->nres ? nl : 0);
		L v[2];
		Val whole = 0;  /* the element, loaded whole (arrays in it) */
		for (i = 0; i < extra; i++)
			v[i] = get(s, op->args[1 + nidx + i]);
		for (k = 0; k < nl; k++) {
			Val mb, off;
			Type mt;
			if (tys[k].k == T_ARRAY) {
				/* an array field of a struct element: the element is
				 * loaded whole and the field read from it (low kir
				 * allows that struct value, as it does parameters) */
				if (op->code != OP_LOAD) {
					/* storing it back where it was loaded from needs
					 * no store; anything else has no low form */
					if (op->code == OP_STORE && reloaded(s, v[0].v[k], a.v[0], op, nidx))
						continue;
					if (op->code == OP_STORE && nostorage(s, v[0].v[k])) {
						/* an array without storage is all zero bytes */
						int w;
						for (w = 0; w < typesize(s->m, tys[k]); w += 8) {
							args[0] = a.v[0];
							args[1] = KI(s, S_I32, offs[k] + w);
							mb = edecl(s, OP_MEMBER, args, 2, tarray(tscalar(S_U64), nd));
							args[0] = mb;
							for (i = 0; i < nidx; i++)
								args[1 + i] = get(s, op->args[1 + i]).v[0];
							args[1 + nidx] = KI(s, S_U64, 0);
							emit(s, OP_STORE, args, 2 + nidx, NULL, 0);
						}
						continue;
					}
					error(s, "storing an array into a struct array element is not supported");
					break;
				}
				if (!whole) {
					args[0] = a.v[0];
					for (i = 0; i < nidx; i++)
						args[1 + i] = get(s, op->args[1 + i]).v[0];
					whole = emit(s, OP_LOAD, args, 1 + nidx, &et, 1)->res[0];
				}
				out.v[k] = fieldleaf(s, whole, et, k);
				continue;
			}
			off = KI(s, S_I32, offs[k]);
			mt = tarray(tys[k], nd);
			args[0] = a.v[0];
			args[1] = off;
			mb = edecl(s, OP_MEMBER, args, 2, mt);
			args[0] = mb;
			for (i = 0; i < nidx; i++)
				args[1 + i] = get(s, op->args[1 + i]).v[0];
			for (i = 0; i < extra; i++)
				args[1 + nidx + i] = v[i].v[k];
			if (op->nres)
				out.v[k] = emit(s, op->code, args, op->nargs, &tys[k], 1)->res[0];
			else
				emit(s, op->code, args, op->nargs, NULL, 0);
		}
		if (op->nres && k == nl)
			put(s, op->res[0], out);
	}
	free(tys);
	free(offs);
}

/* ------------------------------------------------------------------ */
/* Ops, regions, functions                                              */

static void lowerregion(S *s, const Region *from, Region *to);

/* Flattened leaves of values vals[0..n) appended to out; returns count. */
static int
flatvals(S *s, const Val *vals, int n, Val *out, int max)
{
	int i, k, c = 0;

	for (i = 0; i < n; i++) {
		L l = get(s, vals[i]);
		for (k = 0; k < l.n; k++) {
			if (c == max)
				die("scalarize: too many values");
			out[c++] = l.v[k];
		}
	}
	return c;
}

/* Leaf types of values vals[0..n). */
static int
flattypes(S *s, const Val *vals, int n, Type *out, int max)
{
	int i, c = 0;

	for (i = 0; i < n; i++) {
		Type t = vty(s->f, vals[i]);
		if (c + nleaves(s->m, t) > max)
			die("scalarize: too many values");
		leafinfo(s->m, t, 0, out, NULL, &c);
	}
	return c;
}

/* Give old values vals[0..n) leaves from the new values nv[]. */
static void
putflat(S *s, const Val *vals, int n, const Val *nv)
{
	int i, k, c = 0;

	for (i = 0; i < n; i++) {
		L l = newleaves(s, nleaves(s->m, vty(s->f, vals[i])));
		for (k = 0; k < l.n; k++)
			l.v[k] = nv[c++];
		put(s, vals[i], l);
		/* region values get their names from the old ones too */
		for (k = 0; k < l.n; k++) {
			Value *x = &s->f->vals[l.v[k]];
			if (x->kind == V_PARAM && !x->name && s->f->vals[vals[i]].name && l.n == 1)
				x->name = s->f->vals[vals[i]].name;
		}
	}
}

#define MAXV 4096

/* How many leaves values vals[0..n) have (as flatvals and flattypes
 * count them). */
static long
nflat(S *s, const Val *vals, int n, bool types)
{
	long c = 0;
	int i;

	for (i = 0; i < n; i++) {
		Val v = vals[i];
		const Value *x = &s->f->vals[v];
		if (types)
			c += nleaves(s->m, x->ty);
		else if (v < s->nmap && s->map[v].n)
			c += s->map[v].n; /* what get returns, without making leaves */
		else if (x->kind == V_CONST && iscomposite(x->ty))
			c += ncomp(x->ty);
		else
			c++;
	}
	return c;
}

static void
lowerctl(S *s, const Op *op)
{
	long ca = nflat(s, op->args, op->nargs, false), cr = nflat(s, op->res, op->nres, true),
	     cp = nflat(s, op->params, op->nparams, true);
	Val *args;
	Type *rt, *pt;
	int na, nr, np, i;
	Op *n;
	Region *save = s->r;
	uint32_t mark = s->mark;

	if (ca > MAXOPVALS || cr > MAXOPVALS || cp > MAXOPVALS) {
		error(s, "'%s' would have %ld scalar %s, more than an op holds (%d)", opinfo[op->code].name,
		      ca > MAXOPVALS ? ca : cr > cp ? cr : cp, ca > MAXOPVALS ? "operands" : "results or carried values",
		      MAXOPVALS);
		return;
	}
	args = xmalloc((size_t)(ca + 1) * sizeof(Val));
	rt = xmalloc((size_t)(cr + 1) * sizeof(Type));
	pt = xmalloc((size_t)(cp + 1) * sizeof(Type));
	na = flatvals(s, op->args, op->nargs, args, (int)ca);
	nr = flattypes(s, op->res, op->nres, rt, (int)cr);
	np = flattypes(s, op->params, op->nparams, pt, (int)cp);
	n = emit(s, op->code, args, na, rt, nr);
	n->attr = op->attr;
	if (op->code == OP_CALL) {
		putflat(s, op->res, op->nres, n->res);
		goto done;
	}
	if (opinfo[op->code].flags & F_REGION) {
		if (op->code == OP_IF)
			np = 0;
		opsetparams(s->m, s->f, n, pt, np);
		putflat(s, op->params, op->nparams, n->params);
		opsetregions(s->m, n, op->nregs);
		for (i = 0; i < op->nregs; i++)
			lowerregion(s, &op->regs[i], &n->regs[i]);
		s->r = save;
		s->cur = op;
		s->mark = mark;
		putflat(s, op->res, op->nres, n->res);
	}
done:
	free(args);
	free(rt);
	free(pt);
}

static bool
allflat(S *s, const Op *op)
{
	int i;

	for (i = 0; i < op->nargs; i++)
		if (!flat(vty(s->f, op->args[i])))
			return false;
	for (i = 0; i < op->nres; i++)
		if (!flat(vty(s->f, op->res[i])))
			return false;
	return true;
}

static void
lowerop(S *s, const Op *op)
{
	const OpInfo *oi = &opinfo[op->code];
	L *in, out[8];
	Val *a;
	int i;

	s->cur = op;
	s->loc = op->loc;
	s->kloc = op->kloc;
	s->mark = s->f->nvals;
	if (oi->flags & (F_REGION | F_TERM) || op->code == OP_CALL) {
		lowerctl(s, op);
		return;
	}
	if ((oi->flags & F_MEM) && !flat(telem(vty(s->f, op->args[0])))) {
		lowermem(s, op);
		return;
	}
	/* sized by the op: a printf may have any number of operands */
	in = xmalloc(((size_t)op->nargs + 1) * sizeof *in);
	a = xmalloc(((size_t)op->nargs + 1) * sizeof *a);
	for (i = 0; i < op->nargs; i++)
		in[i] = get(s, op->args[i]);
	if (allflat(s, op) && (oi->flags & F_LOW)) {
		/* a low op on scalars: copy it with the new operands */
		Type rt[8];
		Op *n;
		for (i = 0; i < op->nargs; i++)
			a[i] = in[i].v[0];
		for (i = 0; i < op->nres; i++)
			rt[i] = vty(s->f, op->res[i]);
		n = emit(s, op->code, a, op->nargs, rt, op->nres);
		n->attr = op->attr;
		for (i = 0; i < op->nres; i++) {
			L l = newleaves(s, 1);
			l.v[0] = n->res[i];
			put(s, op->res[i], l);
		}
		goto done;
	}
	if (allflat(s, op) && !xtab[op->code]) {
		L l = newleaves(s, 1);
		for (i = 0; i < op->nargs; i++)
			a[i] = in[i].v[0];
		l.v[0] = sx(s, op->code, a, op->nargs);
		put(s, op->res[0], l);
		goto done;
	}
	for (i = 0; i < op->nres; i++)
		out[i] = newleaves(s, nleaves(s->m, vty(s->f, op->res[i])));
	if (!xtab[op->code]) {
		error(s, "'%s' has no scalar expansion yet: kptx cannot compile it", oi->name);
		for (i = 0; i < op->nres; i++)
			zeroleaves(s, vty(s->f, op->res[i]), out[i]);
	} else {
		xtab[op->code](s, op, in, out);
	}
	for (i = 0; i < op->nres; i++)
		put(s, op->res[i], out[i]);
done:
	free(in);
	free(a);
}

static void
lowerregion(S *s, const Region *from, Region *to)
{
	uint32_t i;

	s->r = to;
	for (i = 0; i < from->n && !s->nerr; i++) {
		lowerop(s, from->ops[i]);
		s->r = to;
	}
}

/* Leaves of kernel parameter v of type t read with extract and field,
 * appended to out at *k. */
static void
unpack(S *s, Val v, Type t, Val *out, int *k)
{
	const StructDef *sd;
	uint32_t i;
	int r, c;

	switch (t.k) {
	case T_VEC:
	case T_QUAT:
	case T_XFORM:
		for (r = 0; r < ncomp(t); r++) {
			Val a[2] = {v, KI(s, S_I32, r)};
			out[(*k)++] = e1(s, OP_EXTRACT, a, 2);
		}
		return;
	case T_MAT:
		for (r = 0; r < t.n; r++)
			for (c = 0; c < t.m; c++) {
				Val a[3] = {v, KI(s, S_I32, r), KI(s, S_I32, c)};
				out[(*k)++] = e1(s, OP_EXTRACT, a, 3);
			}
		return;
	case T_STRUCT:
		sd = &s->m->structs[t.sid];
		for (i = 0; i < sd->nfields; i++) {
			Type ft = sd->fields[i].ty;
			Op *fo = emit(s, OP_FIELD, &v, 1, &ft, 1);
			fo->attr = (int)i;
			if (flat(ft))
				out[(*k)++] = fo->res[0];
			else
				unpack(s, fo->res[0], ft, out, k);
		}
		return;
	default:
		out[(*k)++] = v;
	}
}

/* Flatten the signature of function f (not a kernel); returns its old
 * parameters. */
static Val *
flatsig(Module *m, Func *f, uint32_t *nold)
{
	Val *old = aalloc(m->arena, (f->nparams + 1) * sizeof(Val));
	Type *oldrets = f->rets, tys[MAXV];
	uint32_t i, nr = f->nrets;
	int k, n;

	if (f->nparams)
		memcpy(old, f->params, f->nparams * sizeof(Val));
	*nold = f->nparams;
	f->nparams = 0;
	f->params = NULL;
	for (i = 0; i < *nold; i++) {
		Value *x = &f->vals[old[i]];
		Type t = x->ty;
		n = 0;
		leafinfo(m, t, 0, tys, NULL, &n);
		for (k = 0; k < n; k++) {
			Val p;
			Buf b = {0};
			if (x->name) {
				bufputs(&b, x->name);
				if (!flat(t)) {
					bufputc(&b, '.');
					leafsuffix(m, t, k, &b);
				}
			}
			p = addparam(m, f, b.s, tys[k], x->loc);
			buffree(&b);
			(void)p;
		}
	}
	f->nrets = 0;
	f->rets = NULL;
	for (i = 0; i < nr; i++) {
		n = 0;
		leafinfo(m, oldrets[i], 0, tys, NULL, &n);
		for (k = 0; k < n; k++)
			addret(m, f, tys[k]);
	}
	return old;
}

int
scalarize(Module *m, PassOpts *o)
{
	uint32_t i, j, nfuncs = m->nfuncs, nold;
	Val **olds = xcalloc(nfuncs + 1, sizeof *olds);
	uint32_t *nolds = xcalloc(nfuncs + 1, sizeof *nolds);
	int nerr = 0;

	/* flat signatures first, so that calls see their callees' */
	for (i = 0; i < nfuncs; i++)
		if (!m->funcs[i]->kernel)
			olds[i] = flatsig(m, m->funcs[i], &nolds[i]);
	for (i = 0; i < nfuncs; i++) {
		Func *f = m->funcs[i];
		S s = {0};
		Region body = f->body, nb = {0};
		s.m = m;
		s.f = f;
		s.o = o;
		s.nfuncs0 = nfuncs;
		s.nmap = f->nvals;
		s.map = xcalloc(s.nmap + 1, sizeof *s.map);
		s.r = &nb;
		s.loc = f->loc;
		s.kloc = f->kloc;
		s.mark = f->nvals;
		if (f->kernel) {
			/* read composite and struct parameters at entry */
			for (j = 0; j < f->nparams; j++) {
				Val p = f->params[j];
				Type t = vty(f, p);
				Val *lv;
				int k = 0;
				L l;
				if (flat(t))
					continue;
				lv = xmalloc((size_t)nleaves(m, t) * sizeof(Val));
				unpack(&s, p, t, lv, &k);
				l = newleaves(&s, k);
				memcpy(l.v, lv, (size_t)k * sizeof(Val));
				free(lv);
				put(&s, p, l);
			}
		} else {
			int c = 0;
			for (j = 0; j < nolds[i]; j++) {
				L l = newleaves(&s, nleaves(m, vty(f, olds[i][j])));
				int k;
				for (k = 0; k < l.n; k++)
					l.v[k] = f->params[c++];
				s.map[olds[i][j]] = l;
			}
		}
		lowerregion(&s, &body, &nb);
		f->body = nb;
		nerr += s.nerr;
		free(s.map);
	}
	free(olds);
	free(nolds);
	(void)nold;
	return nerr;
}
