/*
 * kpy/decomp.h — Warp's small-matrix decompositions (warp/native/svd.h):
 *
 *   svd3(A, U, sigma, V)   A = U diag(sigma) V^T, 3x3; sigma signed, sorted
 *                          by decreasing magnitude
 *   svd2(A, U, sigma, V)   the same for 2x2 (closed form), sigma >= 0
 *   qr3(A, Q, R)           A = Q R, Q a rotation, R upper triangular
 *   eig3(A, Q, d)          A = Q diag(d) Q^T for symmetric A (only the
 *                          lower triangle is read)
 *
 * Results go to out-parameters, as kir's multi-result ops are emitted
 * (like quat_to_axis_angle and transform_decompose).  The algorithms are
 * Warp's (McAdams et al., "Computing the SVD of 3x3 matrices with minimal
 * branching", as in E. Jang's svd3): a fixed number of cyclic Jacobi sweeps
 * with approximate Givens quaternions on A^T A, the columns of A V sorted
 * by norm, and a QR decomposition by three Givens rotations.  Every
 * operation is Warp's, in Warp's order, so the host results are Warp's
 * CPU results bit for bit (with -ffp-contract=off); the device uses
 * rsqrt like Warp's CUDA code.
 *
 * Precision is chosen by the C++ scalar type, as in Warp: double runs 8
 * sweeps with epsilon 1e-12, float and f16 run 4 with 1e-6 (f16 rounding
 * every operation).  With KPY_F32_DOUBLE, f32 decompositions are therefore
 * the double ones.
 */
#ifndef KPY_DECOMP_H
#define KPY_DECOMP_H

#include "mat.h"

namespace kpy {

namespace detail {

/* Epsilon of the Givens rotations and number of Jacobi sweeps, per scalar
 * type (f16 uses float's, as in Warp). */
template <class T> struct decomp_cfg {
	static constexpr float eps = 1e-6f;
	static const int sweeps = 4;
};
template <> struct decomp_cfg<double> {
	static constexpr double eps = 1e-12;
	static const int sweeps = 8;
};

/* 1 / sqrt(x): rsqrt on the device for float and double, as in Warp. */
template <class T> KPY_HD inline T dc_rsqrt(T x) { return T(1) / kpy::sqrt(x); }
#if defined(__CUDA_ARCH__)
template <> KPY_HD inline float dc_rsqrt<float>(float x) { return ::rsqrtf(x); }
template <> KPY_HD inline double dc_rsqrt<double>(double x) { return ::rsqrt(x); }
#endif

/* 3x3 products with plain left-to-right sums (no fused multiply-add, unlike
 * operator*): a * b and a^T * b. */
template <class T> KPY_HD inline mat_t<3, 3, T> dc_mul(const mat_t<3, 3, T> &a, const mat_t<3, 3, T> &b)
{
	mat_t<3, 3, T> m;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			m.rows[i].c[j] = a.rows[i].c[0] * b.rows[0].c[j] + a.rows[i].c[1] * b.rows[1].c[j] +
				a.rows[i].c[2] * b.rows[2].c[j];
	return m;
}
template <class T> KPY_HD inline mat_t<3, 3, T> dc_mul_tn(const mat_t<3, 3, T> &a, const mat_t<3, 3, T> &b)
{
	mat_t<3, 3, T> m;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			m.rows[i].c[j] = a.rows[0].c[i] * b.rows[0].c[j] + a.rows[1].c[i] * b.rows[1].c[j] +
				a.rows[2].c[i] * b.rows[2].c[j];
	return m;
}

/* The rotation matrix of quaternion q = (x, y, z, w), unnormalized form. */
template <class T> KPY_HD inline mat_t<3, 3, T> dc_quat_mat(const T q[4])
{
	T x = q[0], y = q[1], z = q[2], w = q[3];
	T xx = x * x, yy = y * y, zz = z * z;
	T xz = x * z, xy = x * y, yz = y * z;
	T wx = w * x, wy = w * y, wz = w * z;
	T one(1), two(2);
	return mat_t<3, 3, T>(one - two * (yy + zz), two * (xy - wz), two * (xz + wy),
		two * (xy + wz), one - two * (xx + zz), two * (yz - wx),
		two * (xz - wy), two * (yz + wx), one - two * (xx + yy));
}

/* A symmetric 3x3 matrix by its lower triangle. */
template <class T> struct dc_sym {
	T s11, s21, s22, s31, s32, s33;
};

/* One Jacobi step: rotate the leading 2x2 block of s towards diagonal with
 * an approximate Givens rotation (cos(pi/8), sin(pi/8) when the exact angle
 * is too large), accumulate it into the quaternion q (k: which coordinate
 * pair of the original matrix the block is), then relabel the coordinates
 * cyclically so that the next step works on the next pair. */
template <class T> KPY_HD inline void dc_jacobi_step(dc_sym<T> &s, T q[4], int k)
{
	const T gamma = T(5.82842712474619);    /* 3 + sqrt(8) */
	const T cstar = T(0.9238795325112867);  /* cos(pi/8) */
	const T sstar = T(0.3826834323650898);  /* sin(pi/8) */
	T ch = T(2) * (s.s11 - s.s22), sh = s.s21;
	bool exact = gamma * sh * sh < ch * ch;
	T w = dc_rsqrt(ch * ch + sh * sh);
	ch = exact ? w * ch : cstar;
	sh = exact ? w * sh : sstar;

	T scale = ch * ch + sh * sh;
	T a = (ch * ch - sh * sh) / scale;
	T b = (T(2) * sh * ch) / scale;
	dc_sym<T> o = s;
	s.s11 = a * (a * o.s11 + b * o.s21) + b * (a * o.s21 + b * o.s22);
	s.s21 = a * (-b * o.s11 + a * o.s21) + b * (-b * o.s21 + a * o.s22);
	s.s22 = -b * (-b * o.s11 + a * o.s21) + a * (-b * o.s21 + a * o.s22);
	s.s31 = a * o.s31 + b * o.s32;
	s.s32 = -b * o.s31 + a * o.s32;

	/* q = q * (ch about axis z of this pair) */
	int x = k, y = (k + 1) % 3, z = (k + 2) % 3;
	T t[3] = {q[0] * sh, q[1] * sh, q[2] * sh};
	sh *= q[3];
	for (int i = 0; i < 4; i++)
		q[i] *= ch;
	q[z] += sh;
	q[3] -= t[z];
	q[x] += t[y];
	q[y] -= t[x];

	/* coordinates (0, 1, 2) -> (2, 0, 1) */
	o = s;
	s.s11 = o.s22;
	s.s21 = o.s32;
	s.s22 = o.s33;
	s.s31 = o.s21;
	s.s32 = o.s31;
	s.s33 = o.s11;
}

/* The quaternion of the rotation that diagonalizes s (s is left nearly
 * diagonal): a fixed number of cyclic sweeps over the pairs (0,1), (1,2),
 * (0,2). */
template <class T> KPY_HD inline void dc_jacobi(dc_sym<T> &s, T q[4])
{
	q[0] = T(0);
	q[1] = T(0);
	q[2] = T(0);
	q[3] = T(1);
	for (int i = 0; i < decomp_cfg<T>::sweeps; i++)
		for (int k = 0; k < 3; k++)
			dc_jacobi_step(s, q, k);
}

/* Swap columns i and j of m, negating the one moved to j, when c. */
template <class T> KPY_HD inline void dc_negswap_cols(bool c, mat_t<3, 3, T> &m, int i, int j)
{
	for (int r = 0; r < 3; r++) {
		T neg = -m.rows[r].c[i];
		m.rows[r].c[i] = c ? m.rows[r].c[j] : m.rows[r].c[i];
		m.rows[r].c[j] = c ? neg : m.rows[r].c[j];
	}
}

/* Order the columns of b by decreasing norm, moving v's columns with them
 * (Warp's sequence of three conditional swaps; the third compares norms
 * the first two have already exchanged). */
template <class T> KPY_HD inline void dc_sort_cols(mat_t<3, 3, T> &b, mat_t<3, 3, T> &v)
{
	T rho[3];
	for (int j = 0; j < 3; j++)
		rho[j] = b.rows[0].c[j] * b.rows[0].c[j] + b.rows[1].c[j] * b.rows[1].c[j] + b.rows[2].c[j] * b.rows[2].c[j];
	for (int p = 0; p < 3; p++) {
		int i = p == 2 ? 1 : 0, j = p == 0 ? 1 : 2; /* (0,1), (0,2), (1,2) */
		bool c = rho[i] < rho[j];
		dc_negswap_cols(c, b, i, j);
		dc_negswap_cols(c, v, i, j);
		if (p < 2) {
			T t = rho[i];
			rho[i] = c ? rho[j] : rho[i];
			rho[j] = c ? t : rho[j];
		}
	}
}

/* The Givens rotation (ch, sh) that zeroes a2 against the pivot a1. */
template <class T> KPY_HD inline void dc_givens(T a1, T a2, T &ch, T &sh)
{
	const T eps = T(decomp_cfg<T>::eps);
	T rho = kpy::sqrt(a1 * a1 + a2 * a2);
	sh = rho > eps ? a2 : T(0);
	ch = kpy::abs(a1) + kpy::max(rho, eps);
	if (a1 < T(0)) {
		T t = sh;
		sh = ch;
		ch = t;
	}
	T w = dc_rsqrt(ch * ch + sh * sh);
	ch *= w;
	sh *= w;
}

/* Rotate rows p and q of m so that m[q][p] becomes zero; returns (ch, sh). */
template <class T> KPY_HD inline void dc_rotate_rows(mat_t<3, 3, T> &m, int p, int q, T &ch, T &sh)
{
	dc_givens(m.rows[p].c[p], m.rows[q].c[p], ch, sh);
	T a = T(1) - T(2) * sh * sh;
	T b = T(2) * ch * sh;
	for (int j = 0; j < 3; j++) {
		T mp = m.rows[p].c[j], mq = m.rows[q].c[j];
		m.rows[p].c[j] = a * mp + b * mq;
		m.rows[q].c[j] = -b * mp + a * mq;
	}
}

/* QR by Givens rotations on the pairs (0,1), (0,2), (1,2); Q, the product
 * of the three rotations, in closed form. */
template <class T> KPY_HD inline void dc_qr(const mat_t<3, 3, T> &a, mat_t<3, 3, T> &q, mat_t<3, 3, T> &r)
{
	T c1, s1, c2, s2, c3, s3;
	mat_t<3, 3, T> m = a;
	dc_rotate_rows(m, 0, 1, c1, s1);
	dc_rotate_rows(m, 0, 2, c2, s2);
	dc_rotate_rows(m, 1, 2, c3, s3);
	r = m;

	const T one(1), two(2), four(4), mone(-1), mtwo(-2), meight(-8);
	T s1s = s1 * s1, s2s = s2 * s2, s3s = s3 * s3;
	T m1 = mone + two * s1s, m2 = mone + two * s2s, m3 = mone + two * s3s; /* -cos of each angle */
	q.rows[0].c[0] = m1 * m2;
	q.rows[0].c[1] = four * c2 * c3 * m1 * s2 * s3 + two * c1 * s1 * m3;
	q.rows[0].c[2] = four * c1 * c3 * s1 * s3 - two * c2 * m1 * s2 * m3;
	q.rows[1].c[0] = two * c1 * s1 * (one - two * s2s);
	q.rows[1].c[1] = meight * c1 * c2 * c3 * s1 * s2 * s3 + m1 * m3;
	q.rows[1].c[2] = mtwo * c3 * s3 + four * s1 * (c3 * s1 * s3 + c1 * c2 * s2 * m3);
	q.rows[2].c[0] = two * c2 * s2;
	q.rows[2].c[1] = two * c3 * (one - two * s2s) * s3;
	q.rows[2].c[2] = m2 * m3;
}

} // namespace detail

template <class T>
KPY_HD inline void svd3(const mat_t<3, 3, T> &a, mat_t<3, 3, T> &u, vec_t<3, T> &sigma, mat_t<3, 3, T> &v)
{
	mat_t<3, 3, T> m = a; /* the outputs may alias a */
	mat_t<3, 3, T> ata = detail::dc_mul_tn(m, m);
	detail::dc_sym<T> s = {ata.rows[0].c[0], ata.rows[1].c[0], ata.rows[1].c[1],
		ata.rows[2].c[0], ata.rows[2].c[1], ata.rows[2].c[2]};
	T q[4];
	detail::dc_jacobi(s, q);
	mat_t<3, 3, T> vv = detail::dc_quat_mat(q);
	mat_t<3, 3, T> b = detail::dc_mul(m, vv);
	detail::dc_sort_cols(b, vv);
	mat_t<3, 3, T> uu, r;
	detail::dc_qr(b, uu, r);
	u = uu;
	sigma = vec_t<3, T>(r.rows[0].c[0], r.rows[1].c[1], r.rows[2].c[2]);
	v = vv;
}

template <class T>
KPY_HD inline void svd2(const mat_t<2, 2, T> &a, mat_t<2, 2, T> &u, vec_t<2, T> &sigma, mat_t<2, 2, T> &v)
{
	T a11 = a.rows[0].c[0], a12 = a.rows[0].c[1], a21 = a.rows[1].c[0], a22 = a.rows[1].c[1];
	/* eigenvalues of A^T A = [[p, r], [r, q]] */
	T p = a11 * a11 + a21 * a21;
	T r = a11 * a12 + a21 * a22;
	T q = a12 * a12 + a22 * a22;
	T tr = p + q, d = p - q;
	T disc = d * d + T(4) * r * r;
	if (disc == T(0)) { /* a multiple of a rotation: any basis will do */
		T sv = kpy::sqrt(T(0.5) * tr);
		sigma = vec_t<2, T>(sv, sv);
		u = mat_t<2, 2, T>(T(1), T(0), T(0), T(1));
		v = u;
		return;
	}
	T root = kpy::sqrt(disc);
	T l1 = (tr + root) * T(0.5);
	T l2 = (tr - root) * T(0.5);
	T inv1 = detail::dc_rsqrt(l1);
	T s1 = T(1) / inv1;
	T s2 = kpy::sqrt(l2);

	/* first right singular vector, then its perpendicular */
	T vy = d - root + T(2) * r, vx = d + root - T(2) * r;
	T n2 = vx * vx + vy * vy;
	T v11, v21;
	if (n2 == T(0)) {
		v11 = T(0.707106781186547524401);
		v21 = v11;
	} else {
		T inv = detail::dc_rsqrt(n2);
		v11 = vx * inv;
		v21 = vy * inv;
	}
	/* U's first column is A v1 / s1; the second completes it with the sign
	 * of det A (s2 may be zero) */
	T u11 = (a11 * v11 + a12 * v21) * inv1;
	T u21 = (a21 * v11 + a22 * v21) * inv1;
	T sg = kpy::sign(a11 * a22 - a12 * a21);
	u = mat_t<2, 2, T>(u11, -u21 * sg, u21, u11 * sg);
	v = mat_t<2, 2, T>(v11, -v21, v21, v11);
	sigma = vec_t<2, T>(s1, s2);
}

template <class T> KPY_HD inline void qr3(const mat_t<3, 3, T> &a, mat_t<3, 3, T> &q, mat_t<3, 3, T> &r)
{
	mat_t<3, 3, T> qq, rr;
	detail::dc_qr(a, qq, rr);
	q = qq;
	r = rr;
}

template <class T> KPY_HD inline void eig3(const mat_t<3, 3, T> &a, mat_t<3, 3, T> &q, vec_t<3, T> &d)
{
	mat_t<3, 3, T> m = a;
	detail::dc_sym<T> s = {m.rows[0].c[0], m.rows[1].c[0], m.rows[1].c[1], m.rows[2].c[0], m.rows[2].c[1], m.rows[2].c[2]};
	T qv[4];
	detail::dc_jacobi(s, qv);
	mat_t<3, 3, T> qq = detail::dc_quat_mat(qv);
	/* the diagonal of Q^T A Q, with A as given (both triangles) */
	mat_t<3, 3, T> t = detail::dc_mul(detail::dc_mul_tn(qq, m), qq);
	q = qq;
	d = vec_t<3, T>(t.rows[0].c[0], t.rows[1].c[1], t.rows[2].c[2]);
}

} // namespace kpy

#endif /* KPY_DECOMP_H */
