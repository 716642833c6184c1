/*
 * scalarize.c — lower vectors, matrices, quaternions, transforms, structs
 * and the composite builtins to scalar kir ("low kir").  This file holds
 * the pass itself: leaves, the op builders, the scalar expansions, the
 * table of composite expansions, memory, and the walk over the module.
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
 *           expansion in the table xtab[] below (written in
 *           scalarize_*.c, see scalarize.h) in kir scalar ops
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
 *           @kpy_noise3, ...), themselves low kir.  The quaternion
 *           builtins on f32 and f64 become calls of runtime stubs
 *           (@kpy.rt.OP.TYPES, ir.h's isrtstub; xrt below), which kptx
 *           links from the runtime headers compiled to bitcode
 *           (docs/composite-builtins.md); f16 and bf16 keep xtab's.
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

#include "scalarize.h"

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */

void
scerror(S *s, const char *fmt, ...)
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
int
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
void
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

Op *
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
Val
edecl(S *s, int code, const Val *args, int n, Type t)
{
	return emit(s, code, args, n, &t, 1)->res[0];
}

/* A scalar constant of kind sk. */
Val
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




/* C++'s unary minus, which the runtime's composite code uses: for floats
 * the sign flip (-0.0 - x), not kir's scalar neg (0 - x, kpy::neg). */
Val
neg(S *s, Val a)
{
	int sk = ty(s, a).s;

	if (scalarisfloat(sk))
		return op2(s, OP_SUB, K(s, sk, -0.0), a);
	return op1(s, OP_NEG, a);
}

Val
cast(S *s, Val x, int sk)
{
	if (ty(s, x).s == sk)
		return x;
	return edecl(s, OP_CAST, &x, 1, tscalar(sk));
}

/* c + a*b: one fma for f32 and f64 (the runtime's fmaf/fma), two rounded
 * operations for f16 and integers (its muladd). */
Val
muladd(S *s, Val a, Val b, Val c)
{
	int sk = ty(s, a).s;

	if (sk == S_F32 || sk == S_F64)
		return op3(s, OP_FMA, a, b, c);
	return add(s, c, mul(s, a, b));
}

/* Float sums and products of a list, left to right. */
Val
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

Val
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
		if (sk == S_F16 || sk == S_BF16)
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
/* Runtime calls: ops the runtime headers define once for every back end */

/* Whether op goes to a runtime stub (see isrtstub, ir.h): a quaternion
 * builtin on f32 or f64 leaves (f16 and bf16 keep their expansions: the
 * headers' f16 rounds in software), its integer leaves i32 as the shim's
 * (backends/kptx_rt.cpp). */
enum { RTMAX = 64 }; /* leaves of a runtime call's operands and results */

static bool
rtop(S *s, const Op *op)
{
	Type tys[RTMAX];
	int i, k = 0, sk = -1;

	if (opfamily(op->code) != OF_QUAT)
		return false;
	for (i = 0; i < op->nargs; i++) {
		if (nleaves(s->m, AT(i)) > RTMAX - k)
			return false;
		leafinfo(s->m, AT(i), 0, tys, NULL, &k);
	}
	for (i = 0; i < op->nres; i++) {
		if (nleaves(s->m, RT(i)) > RTMAX - k)
			return false;
		leafinfo(s->m, RT(i), 0, tys, NULL, &k);
	}
	for (i = 0; i < k; i++) {
		if (tys[i].k != T_SCALAR)
			return false;
		if (scalarisfloat(tys[i].s)) {
			if (sk >= 0 && tys[i].s != sk)
				return false;
			sk = tys[i].s;
		} else if (tys[i].s != S_I32) {
			return false;
		}
	}
	return sk == S_F32 || sk == S_F64;
}

/* The composite of type t from its leaves (v, n of them). */
static Val
packleaves(S *s, Type t, const Val *v, int n)
{
	static const int ctor[] = {[T_VEC] = OP_VEC, [T_MAT] = OP_MAT, [T_QUAT] = OP_QUAT, [T_XFORM] = OP_TRANSFORM};

	if (flat(t))
		return v[0];
	if (t.k >= (int)countof(ctor) || !ctor[t.k])
		die("scalarize: no constructor for %s", typestr(s->m, t));
	return edecl(s, ctor[t.k], v, n, t);
}

static void unpack(S *s, Val v, Type t, Val *out, int *k);

/* The op as a call of its runtime stub, added to the module the first
 * time: its body rebuilds the operands, applies the op and returns the
 * results' leaves. */
static void
xrt(S *s, const Op *op, const L *in, L *out)
{
	Val args[RTMAX], res[RTMAX];
	Type rt[RTMAX], at[RTMAX];
	Buf name = {0};
	int fi, i, j, na = 0, nr = 0;
	Op *call;

	for (i = 0; i < op->nargs; i++)
		for (j = 0; j < in[i].n; j++)
			args[na++] = in[i].v[j];
	for (i = 0; i < op->nres; i++)
		leafinfo(s->m, RT(i), 0, rt, NULL, &nr);
	for (i = 0; i < na; i++)
		at[i] = ty(s, args[i]);
	bufprintf(&name, RTSTUB_PREFIX "%s", opinfo[op->code].name);
	for (i = 0; i < op->nargs; i++)
		bufprintf(&name, ".%s", typestr(s->m, AT(i)));
	if ((fi = findfunc(s->m, name.s)) < 0) {
		S save = *s;
		Func *f = addfunc(s->m, name.s, false, (Loc){0});
		Val p[RTMAX], a[RTMAX], r[RTMAX];
		Type ot[RTMAX];
		int k = 0;
		fi = (int)s->m->nfuncs - 1;
		for (i = 0; i < na; i++)
			p[i] = addparam(s->m, f, NULL, at[i], (Loc){0});
		for (i = 0; i < nr; i++)
			addret(s->m, f, rt[i]);
		s->f = f;
		s->r = &f->body;
		s->loc = s->kloc = (Loc){0};
		s->map = NULL;
		s->nmap = 0;
		for (i = 0, j = 0; i < op->nargs; i++) {
			a[i] = packleaves(s, vty(save.f, op->args[i]), p + j, in[i].n);
			j += in[i].n;
		}
		for (i = 0; i < op->nres; i++)
			ot[i] = vty(save.f, op->res[i]);
		call = emit(s, op->code, a, op->nargs, ot, op->nres);
		for (i = 0; i < op->nres; i++) {
			if (flat(ot[i]))
				r[k++] = call->res[i];
			else
				unpack(s, call->res[i], ot[i], r, &k);
		}
		emit(s, OP_RET, r, nr, NULL, 0);
		save.nerr = s->nerr;
		*s = save;
	}
	buffree(&name);
	call = emit(s, OP_CALL, args, na, rt, nr);
	call->attr = fi;
	for (i = 0; i < nr; i++)
		res[i] = call->res[i];
	for (i = 0, j = 0; i < op->nres; i++) {
		memcpy(out[i].v, res + j, (size_t)out[i].n * sizeof(Val));
		j += out[i].n;
	}
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
	[OP_NOISE_GRAD] = xnoise, [OP_CURLNOISE_ADJ] = xnoise,
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
					scerror(s, "storing an array into a struct array element is not supported");
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
		scerror(s, "'%s' would have %ld scalar %s, more than an op holds (%d)", opinfo[op->code].name,
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
	if (rtop(s, op)) {
		xrt(s, op, in, out);
	} else if (!xtab[op->code]) {
		scerror(s, "'%s' has no scalar expansion yet: kptx cannot compile it", oi->name);
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
		if (!m->funcs[i]->kernel && !isrtstub(m->funcs[i]))
			olds[i] = flatsig(m, m->funcs[i], &nolds[i]);
	for (i = 0; i < nfuncs; i++) {
		Func *f = m->funcs[i];
		S s = {0};
		Region body = f->body, nb = {0};
		if (isrtstub(f)) /* low already (a module lowered again) */
			continue;
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
