/*
 * scalarize_linalg.c — the expansions of scalarize for elementwise ops,
 * construction, component access, vectors and matrices, in the evaluation
 * order and precision of kpy/vec.h and kpy/mat.h (see scalarize.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scalarize.h"

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
void
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

void
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
		scerror(s, "where() with an array condition and array values is not supported");
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

void
xwhere(S *s, const Op *op, const L *in, L *out)
{
	int k;

	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = selany(s, in[0].v[0], in[1].v[k], in[2].v[k]);
}

void
xlerp(S *s, const Op *op, const L *in, L *out)
{
	int k, sk = RT(0).s;
	Val omt = sub(s, K(s, sk, 1), in[2].v[0]);

	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = add(s, mul(s, in[0].v[k], omt), mul(s, in[1].v[k], in[2].v[0]));
}

/* min/max: two operands elementwise, one vector reduced left to right. */
void
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
void
xeq(S *s, const Op *op, const L *in, L *out)
{
	Val r = eq(s, in[0].v[0], in[1].v[0]);
	int k;

	for (k = 1; k < in[0].n; k++)
		r = land(s, r, eq(s, in[0].v[k], in[1].v[k]));
	out[0].v[0] = op->code == OP_NE ? lnot(s, r) : r;
}

/* isfinite: all; isnan, isinf: any. */
void
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

void
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

void
xfromvecs(S *s, const Op *op, const L *in, L *out)
{
	Type t = RT(0);
	int i, j;

	for (i = 0; i < t.n; i++)
		for (j = 0; j < t.m; j++)
			out[0].v[i * t.m + j] = op->code == OP_MATRIX_FROM_ROWS ? in[i].v[j] : in[j].v[i];
}

void
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

void
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
int
cindex(S *s, Val i, int n, Val *dyn)
{
	int64_t c;
	int sk = ty(s, i).s;

	if (constidx(s, i, &c)) {
		if (c < 0)
			c += n;
		if (c < 0 || c >= n) {
			scerror(s, "index %lld out of range for %d components", (long long)(c < 0 ? c - n : c), n);
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
Val
pick(S *s, Val dyn, const Val *c, int n, int step)
{
	Val r = c[(n - 1) * step];
	int k, sk = ty(s, dyn).s;

	for (k = n - 2; k >= 0; k--)
		r = sel(s, eq(s, dyn, KI(s, sk, k)), c[k * step], r);
	return r;
}

void
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

void
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

void
xfield(S *s, const Op *op, const L *in, L *out)
{
	int n, first = fieldleaves(s->m, AT(0), op->attr, &n), k;

	for (k = 0; k < n; k++)
		out[0].v[k] = in[0].v[first + k];
}

void
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
Val
vdot(S *s, const Val *a, const Val *b, int n)
{
	return dotn(s, a, b, n, n > 3);
}

void
cross3(S *s, const Val *a, const Val *b, Val *r)
{
	r[0] = sub(s, mul(s, a[1], b[2]), mul(s, a[2], b[1]));
	r[1] = sub(s, mul(s, a[2], b[0]), mul(s, a[0], b[2]));
	r[2] = sub(s, mul(s, a[0], b[1]), mul(s, a[1], b[0]));
}

/* normalize a vector: a / length(a), zero unless the length is > 0. */
void
vnormalize(S *s, const Val *a, int n, Val *r)
{
	int sk = ty(s, a[0]).s, k;
	Val l = sqr(s, vdot(s, a, a, n)), pos = gt(s, l, K(s, sk, 0)), z = K(s, sk, 0);

	for (k = 0; k < n; k++)
		r[k] = sel(s, pos, dvd(s, a[k], l), z);
}

void
qnormalize(S *s, const Val *q, Val *r)
{
	int sk = ty(s, q[0]).s, k;
	Val l = sqr(s, dotn(s, q, q, 4, false)), pos = gt(s, l, K(s, sk, 0));
	Val inv = dvd(s, K(s, sk, 1), l);

	for (k = 0; k < 4; k++)
		r[k] = sel(s, pos, mul(s, q[k], inv), K(s, sk, k == 3));
}

void
xdot(S *s, const Op *op, const L *in, L *out)
{
	out[0].v[0] = AT(0).k == T_QUAT ? dotn(s, in[0].v, in[1].v, 4, false) : vdot(s, in[0].v, in[1].v, in[0].n);
}

void
xcross(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	cross3(s, in[0].v, in[1].v, out[0].v);
}

void
xlength(S *s, const Op *op, const L *in, L *out)
{
	Val d = AT(0).k == T_QUAT ? dotn(s, in[0].v, in[0].v, 4, false) : vdot(s, in[0].v, in[0].v, in[0].n);

	out[0].v[0] = op->code == OP_LENGTH || op->code == OP_NORM_L2 ? sqr(s, d) : d;
}

void
xnormalize(S *s, const Op *op, const L *in, L *out)
{
	if (AT(0).k == T_QUAT)
		qnormalize(s, in[0].v, out[0].v);
	else
		vnormalize(s, in[0].v, in[0].n, out[0].v);
}

void
xouter(S *s, const Op *op, const L *in, L *out)
{
	int i, j;

	for (i = 0; i < in[0].n; i++)
		for (j = 0; j < in[1].n; j++)
			out[0].v[i * in[1].n + j] = mul(s, in[0].v[i], in[1].v[j]);
}

void
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

void
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
void
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

void
quatmul(S *s, const Val *a, const Val *b, Val *r)
{
	/* (x, y, z, w) = a*b in Warp's operand order */
	r[0] = sub(s, add(s, add(s, mul(s, a[3], b[0]), mul(s, b[3], a[0])), mul(s, a[1], b[2])), mul(s, b[1], a[2]));
	r[1] = sub(s, add(s, add(s, mul(s, a[3], b[1]), mul(s, b[3], a[1])), mul(s, a[2], b[0])), mul(s, b[2], a[0]));
	r[2] = sub(s, add(s, add(s, mul(s, a[3], b[2]), mul(s, b[3], a[2])), mul(s, a[0], b[1])), mul(s, b[0], a[1]));
	r[3] = sub(s, sub(s, sub(s, mul(s, a[3], b[3]), mul(s, a[0], b[0])), mul(s, a[1], b[1])), mul(s, a[2], b[2]));
}


/* transform a*b = (quat_rotate(a.q, b.p) + a.p, a.q * b.q) */
void
xformmul(S *s, const Val *a, const Val *b, Val *r)
{
	Val p[3];
	int k;

	quatrot(s, a + 3, b, false, p);
	for (k = 0; k < 3; k++)
		r[k] = add(s, p[k], a[k]);
	quatmul(s, a + 3, b + 3, r + 3);
}

void
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

void
xdiv(S *s, const Op *op, const L *in, L *out)
{
	int k;

	for (k = 0; k < out[0].n; k++)
		out[0].v[k] = flat(AT(0)) ? dvd(s, in[0].v[0], in[1].v[k]) : dvd(s, in[0].v[k], in[1].v[0]);
}

void
xtranspose(S *s, const Op *op, const L *in, L *out)
{
	Type t = AT(0);
	int i, j;

	for (i = 0; i < t.m; i++)
		for (j = 0; j < t.n; j++)
			out[0].v[i * t.n + j] = in[0].v[j * t.m + i];
}

void
xtrace(S *s, const Op *op, const L *in, L *out)
{
	Type t = AT(0);
	Val r = in[0].v[0];
	int i;

	for (i = 1; i < t.n; i++)
		r = add(s, r, in[0].v[i * t.m + i]);
	out[0].v[0] = r;
}

void
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

void
xddot(S *s, const Op *op, const L *in, L *out)
{
	Val r = K(s, AT(0).s, 0);
	int k;

	for (k = 0; k < in[0].n; k++)
		r = muladd(s, in[0].v[k], in[1].v[k], r);
	out[0].v[0] = r;
}

void
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

void
xdeterminant(S *s, const Op *op, const L *in, L *out)
{
	int n = AT(0).n;

	out[0].v[0] = n == 2 ? det2(s, in[0].v) : n == 3 ? det3(s, in[0].v) : det4(s, in[0].v, NULL);
}

void
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
