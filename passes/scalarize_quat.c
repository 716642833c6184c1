/*
 * scalarize_quat.c — the expansions of scalarize for quaternions,
 * transforms and spatial vectors, as kpy/quat.h, transform.h and
 * spatial.h compute them (see scalarize.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scalarize.h"

/* ---- quaternions ---- */

void
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

void
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

void
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

void
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

void
xtoaxisangle(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	toaxisangle(s, in[0].v, out[0].v, &out[1].v[0]);
}

void
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

void
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
	int sk = ty(s, m[0]).s, i, k;
	Val half = K(s, sk, 0.5), one = K(s, sk, 1);
	Val tr = add(s, add(s, M(0, 0), M(1, 1)), M(2, 2));
	Val a[4], c[3][4], h, hh, d1, d2, pos, q[4];

	h = sqr(s, add(s, tr, one));
	a[3] = mul(s, half, h);
	hh = dvd(s, half, h);
	a[0] = mul(s, sub(s, M(2, 1), M(1, 2)), hh);
	a[1] = mul(s, sub(s, M(0, 2), M(2, 0)), hh);
	a[2] = mul(s, sub(s, M(1, 0), M(0, 1)), hh);

	/* the three diagonal cases: i the largest element, j and k after it */
	for (i = 0; i < 3; i++) {
		int j = (i + 1) % 3, l = (i + 2) % 3;
		h = sqr(s, add(s, sub(s, M(i, i), add(s, M(j, j), M(l, l))), one));
		c[i][i] = mul(s, half, h);
		hh = dvd(s, half, h);
		c[i][j] = mul(s, add(s, M(i, j), M(j, i)), hh);
		c[i][l] = mul(s, add(s, M(l, i), M(i, l)), hh);
		c[i][3] = mul(s, sub(s, M(l, j), M(j, l)), hh);
	}

	pos = ge(s, tr, K(s, sk, 0));
	d1 = gt(s, M(1, 1), M(0, 0));
	d2 = gt(s, M(2, 2), sel(s, d1, M(1, 1), M(0, 0)));
	for (k = 0; k < 4; k++)
		q[k] = sel(s, pos, a[k], sel(s, d2, c[2][k], sel(s, d1, c[1][k], c[0][k])));
	qnormalize(s, q, r);
#undef M
}

void
xquatfrommat(S *s, const Op *op, const L *in, L *out)
{
	quatfrommat(s, in[0].v, AT(0).m, out[0].v);
}

void
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

void
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

void
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

void
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

void
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

void
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

void
xxmul(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	xformmul(s, in[0].v, in[1].v, out[0].v);
}

void
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
void
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

void
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

void
xxfrommat(S *s, const Op *op, const L *in, L *out)
{
	const Val *m = in[0].v;

	(void)op;
	out[0].v[0] = m[3];
	out[0].v[1] = m[7];
	out[0].v[2] = m[11];
	quatfrommat(s, m, 4, out[0].v + 3);
}

void
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

void
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

void
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

void
xspdot(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	out[0].v[0] = vdot(s, in[0].v, in[1].v, 6);
}

void
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

void
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

void
xvelpoint(S *s, const Op *op, const L *in, L *out)
{
	Val c[3];
	int k;

	(void)op;
	cross3(s, in[0].v, in[1].v, c);
	for (k = 0; k < 3; k++)
		out[0].v[k] = add(s, in[0].v[3 + k], c[k]);
}
