/*
 * scalarize_decomp.c — the expansions of scalarize for the matrix
 * decompositions svd3, svd2, qr3 and eig3, as kpy/decomp.h (Warp's svd.h)
 * computes them (see scalarize.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scalarize.h"

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
void
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
void
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
void
xqr3(S *s, const Op *op, const L *in, L *out)
{
	(void)op;
	dcqr(s, in[0].v, out[0].v, out[1].v);
}

/* eig3 %a -> Q, d (symmetric a: the lower triangle drives the rotation,
 * d is the diagonal of Q^T A Q with A as given) */
void
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
