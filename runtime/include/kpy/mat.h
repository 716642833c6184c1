/*
 * kpy/mat.h — mat_t<R, C, T>: R x C matrices stored row-major, with Warp's
 * matrix builtins (warp/native/mat.h).
 *
 * Precision follows Warp operation for operation: M*M and ddot accumulate
 * with fused multiply-adds (fmaf/fma; f16 rounds each step), M*V sums
 * column multiples left to right, and the 4x4 determinant and inverse keep
 * their 2x2 minors in double (for f16, in half arithmetic widened to
 * double), as Warp's USD-derived code does.
 */
#ifndef KPY_MAT_H
#define KPY_MAT_H

#include "vec.h"

namespace kpy {

template <unsigned R, unsigned C, class T> struct mat_t {
	vec_t<C, T> rows[R]; /* row i is rows[i]; element (i, j) is rows[i].c[j] */

	KPY_HD mat_t() : rows() { }

	/* Fill: every element is s. */
	template <class S, typename detail::enable_if<detail::is_scalar<S>::value, int>::type = 0>
	KPY_HD explicit mat_t(S s)
	{
		KPY_UNROLL
		for (unsigned i = 0; i < R; i++)
			rows[i] = vec_t<C, T>(s);
	}

	/* R*C elements, row-major. */
	template <class... A,
		typename detail::enable_if<sizeof...(A) == R * C && (R * C > 1) && detail::all_scalar<A...>::value,
			int>::type = 0>
	KPY_HD mat_t(A... a)
	{
		const T e[R * C] = {static_cast<T>(a)...};
		KPY_UNROLL
		for (unsigned i = 0; i < R; i++)
			KPY_UNROLL
			for (unsigned j = 0; j < C; j++)
				rows[i].c[j] = e[i * C + j];
	}

	/* R row vectors (Warp's Python-scope wp.matrix(v0, v1, ...); Warp
	 * kernels only accept matrix_from_rows/matrix_from_cols). */
	template <class... V,
		typename detail::enable_if<sizeof...(V) == R && detail::all_same_as<vec_t<C, T>, V...>::value, int>::type = 0>
	KPY_HD mat_t(const V &...v) : rows{v...} { }

	/* Element type conversion. */
	template <class U, typename detail::enable_if<!detail::same<U, T>::value, int>::type = 0>
	KPY_HD explicit mat_t(const mat_t<R, C, U> &o)
	{
		KPY_UNROLL
		for (unsigned i = 0; i < R; i++)
			rows[i] = vec_t<C, T>(o.rows[i]);
	}

	/* Row i (negative: from the end); m[i][j] is element (i, j). */
	KPY_HD vec_t<C, T> &operator[](int i) { return rows[i < 0 ? i + (int)R : i]; }
	KPY_HD const vec_t<C, T> &operator[](int i) const { return rows[i < 0 ? i + (int)R : i]; }

	KPY_HD vec_t<R, T> col(int j) const
	{
		vec_t<R, T> r;
		KPY_UNROLL
		for (unsigned i = 0; i < R; i++)
			r.c[i] = rows[i][j];
		return r;
	}

	KPY_HD mat_t &operator+=(const mat_t &b) { return *this = *this + b; }
	KPY_HD mat_t &operator-=(const mat_t &b) { return *this = *this - b; }
	KPY_HD mat_t &operator*=(T s) { return *this = *this * s; }
	KPY_HD mat_t &operator/=(T s) { return *this = *this / s; }
};

#define KPY_MAT_TYPES(S, T) \
	typedef mat_t<2, 2, T> mat22##S; \
	typedef mat_t<3, 3, T> mat33##S; \
	typedef mat_t<4, 4, T> mat44##S; \
	typedef mat_t<6, 6, T> spatial_matrix##S;
KPY_MAT_TYPES(f, f32)
KPY_MAT_TYPES(d, f64)
KPY_MAT_TYPES(h, f16)
#undef KPY_MAT_TYPES

namespace detail {
template <class M> struct matinfo;
template <unsigned R, unsigned C, class T> struct matinfo<mat_t<R, C, T> > {
	static const unsigned rows = R;
	static const unsigned cols = C;
	typedef T scalar;
};
} // namespace detail

/* ------------------------------------------------------------------ */
/* Construction                                                         */

/* identity<M>() for a square matrix type M. */
template <class M> KPY_HD inline M identity()
{
	typedef typename detail::matinfo<M>::scalar T;
	M m;
	KPY_UNROLL
	for (unsigned i = 0; i < detail::matinfo<M>::rows; i++)
		m.rows[i].c[i] = T(1);
	return m;
}

template <class M, class... V> KPY_HD inline M matrix_from_rows(const V &...v)
{
	static_assert(sizeof...(V) == detail::matinfo<M>::rows, "matrix_from_rows: one vector per row");
	M m;
	const vec_t<detail::matinfo<M>::cols, typename detail::matinfo<M>::scalar> r[] = {v...};
	KPY_UNROLL
	for (unsigned i = 0; i < detail::matinfo<M>::rows; i++)
		m.rows[i] = r[i];
	return m;
}

template <class M, class... V> KPY_HD inline M matrix_from_cols(const V &...v)
{
	static_assert(sizeof...(V) == detail::matinfo<M>::cols, "matrix_from_cols: one vector per column");
	M m;
	const vec_t<detail::matinfo<M>::rows, typename detail::matinfo<M>::scalar> c[] = {v...};
	KPY_UNROLL
	for (unsigned j = 0; j < detail::matinfo<M>::cols; j++)
		KPY_UNROLL
		for (unsigned i = 0; i < detail::matinfo<M>::rows; i++)
			m.rows[i].c[j] = c[j].c[i];
	return m;
}

/* diag(d): square matrix with d on the diagonal; get_diag: the diagonal. */
template <unsigned N, class T> KPY_HD inline mat_t<N, N, T> diag(const vec_t<N, T> &d)
{
	mat_t<N, N, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		m.rows[i].c[i] = d.c[i];
	return m;
}
template <unsigned N, class T> KPY_HD inline vec_t<N, T> get_diag(const mat_t<N, N, T> &m)
{
	vec_t<N, T> d;
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		d.c[i] = m.rows[i].c[i];
	return d;
}

/* outer(a, b)[i][j] = a[i] * b[j] */
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> outer(const vec_t<R, T> &a, const vec_t<C, T> &b)
{
	mat_t<R, C, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		KPY_UNROLL
		for (unsigned j = 0; j < C; j++)
			m.rows[i].c[j] = (T)(a.c[i] * b.c[j]);
	return m;
}

/* skew(a) * b == cross(a, b) */
template <class T> KPY_HD inline mat_t<3, 3, T> skew(const vec_t<3, T> &a)
{
	return mat_t<3, 3, T>(T(0), -a.c[2], a.c[1], a.c[2], T(0), -a.c[0], -a.c[1], a.c[0], T(0));
}

/* Copies with row i, or element (i, j), replaced (negative: from the end). */
template <unsigned R, unsigned C, class T>
KPY_HD inline mat_t<R, C, T> insert(mat_t<R, C, T> m, int i, const vec_t<C, T> &row)
{
	m[i] = row;
	return m;
}
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> insert(mat_t<R, C, T> m, int i, int j, T x)
{
	m[i][j] = x;
	return m;
}

/* ------------------------------------------------------------------ */
/* Operators                                                            */

template <unsigned R, unsigned C, class T> KPY_HD inline bool operator==(const mat_t<R, C, T> &a, const mat_t<R, C, T> &b)
{
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		if (a.rows[i] != b.rows[i])
			return false;
	return true;
}
template <unsigned R, unsigned C, class T> KPY_HD inline bool operator!=(const mat_t<R, C, T> &a, const mat_t<R, C, T> &b)
{
	return !(a == b);
}

#define KPY_MAT_BINOP(op) \
	template <unsigned R, unsigned C, class T> \
	KPY_HD inline mat_t<R, C, T> operator op(const mat_t<R, C, T> &a, const mat_t<R, C, T> &b) \
	{ \
		mat_t<R, C, T> m; \
		KPY_UNROLL \
		for (unsigned i = 0; i < R; i++) \
			m.rows[i] = a.rows[i] op b.rows[i]; \
		return m; \
	}
KPY_MAT_BINOP(+)
KPY_MAT_BINOP(-)
KPY_MAT_BINOP(&)
KPY_MAT_BINOP(|)
KPY_MAT_BINOP(^)
KPY_MAT_BINOP(<<)
KPY_MAT_BINOP(>>)
#undef KPY_MAT_BINOP

/* Integer matrix and scalar, either side (Warp's bit_and(mat, s) ...). */
#define KPY_MAT_SCALAR_BITOP(op) \
	template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> operator op(const mat_t<R, C, T> &a, T s) \
	{ \
		mat_t<R, C, T> m; \
		KPY_UNROLL \
		for (unsigned i = 0; i < R; i++) \
			KPY_UNROLL \
			for (unsigned j = 0; j < C; j++) \
				m.rows[i].c[j] = (T)(a.rows[i].c[j] op s); \
		return m; \
	} \
	template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> operator op(T s, const mat_t<R, C, T> &a) \
	{ \
		mat_t<R, C, T> m; \
		KPY_UNROLL \
		for (unsigned i = 0; i < R; i++) \
			KPY_UNROLL \
			for (unsigned j = 0; j < C; j++) \
				m.rows[i].c[j] = (T)(s op a.rows[i].c[j]); \
		return m; \
	}
KPY_MAT_SCALAR_BITOP(&)
KPY_MAT_SCALAR_BITOP(|)
KPY_MAT_SCALAR_BITOP(^)
KPY_MAT_SCALAR_BITOP(<<)
KPY_MAT_SCALAR_BITOP(>>)
#undef KPY_MAT_SCALAR_BITOP

template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> operator~(const mat_t<R, C, T> &a)
{
	mat_t<R, C, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		m.rows[i] = ~a.rows[i];
	return m;
}
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> operator-(const mat_t<R, C, T> &a)
{
	mat_t<R, C, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		m.rows[i] = -a.rows[i];
	return m;
}
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> operator+(const mat_t<R, C, T> &a) { return a; }
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> neg(const mat_t<R, C, T> &a) { return -a; }
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> pos(const mat_t<R, C, T> &a) { return a; }

template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> operator*(const mat_t<R, C, T> &a, T s)
{
	mat_t<R, C, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		m.rows[i] = a.rows[i] * s;
	return m;
}
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> operator*(T s, const mat_t<R, C, T> &a) { return a * s; }
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> operator/(const mat_t<R, C, T> &a, T s)
{
	mat_t<R, C, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		m.rows[i] = a.rows[i] / s;
	return m;
}
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> operator/(T s, const mat_t<R, C, T> &a)
{
	mat_t<R, C, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		m.rows[i] = s / a.rows[i];
	return m;
}

/* M * v (v a column): col(0)*v[0] + col(1)*v[1] + ..., left to right. */
template <unsigned R, unsigned C, class T> KPY_HD inline vec_t<R, T> operator*(const mat_t<R, C, T> &a, const vec_t<C, T> &v)
{
	vec_t<R, T> r = a.col(0) * v.c[0];
	KPY_UNROLL
	for (unsigned j = 1; j < C; j++)
		r = r + a.col(j) * v.c[j];
	return r;
}
/* v * M (v a row): row(0)*v[0] + row(1)*v[1] + ... */
template <unsigned R, unsigned C, class T> KPY_HD inline vec_t<C, T> operator*(const vec_t<R, T> &v, const mat_t<R, C, T> &a)
{
	vec_t<C, T> r = a.rows[0] * v.c[0];
	KPY_UNROLL
	for (unsigned i = 1; i < R; i++)
		r = r + a.rows[i] * v.c[i];
	return r;
}

template <unsigned R, unsigned K, unsigned C, class T>
KPY_HD inline mat_t<R, C, T> operator*(const mat_t<R, K, T> &a, const mat_t<K, C, T> &b)
{
	mat_t<R, C, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		KPY_UNROLL
		for (unsigned j = 0; j < C; j++) {
			T s = T(0);
			KPY_UNROLL
			for (unsigned k = 0; k < K; k++)
				s = detail::muladd(a.rows[i].c[k], b.rows[k].c[j], s);
			m.rows[i].c[j] = s;
		}
	return m;
}

/* ------------------------------------------------------------------ */
/* Functions                                                            */

template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<C, R, T> transpose(const mat_t<R, C, T> &a)
{
	mat_t<C, R, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < C; i++)
		KPY_UNROLL
		for (unsigned j = 0; j < R; j++)
			m.rows[i].c[j] = a.rows[j].c[i];
	return m;
}

template <unsigned R, unsigned C, class T> KPY_HD inline T ddot(const mat_t<R, C, T> &a, const mat_t<R, C, T> &b)
{
	T r = T(0);
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		KPY_UNROLL
		for (unsigned j = 0; j < C; j++)
			r = detail::muladd(a.rows[i].c[j], b.rows[i].c[j], r);
	return r;
}

template <unsigned N, class T> KPY_HD inline T trace(const mat_t<N, N, T> &m)
{
	T r = m.rows[0].c[0];
	KPY_UNROLL
	for (unsigned i = 1; i < N; i++)
		r = (T)(r + m.rows[i].c[i]);
	return r;
}

template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> cw_mul(const mat_t<R, C, T> &a, const mat_t<R, C, T> &b)
{
	mat_t<R, C, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		m.rows[i] = cw_mul(a.rows[i], b.rows[i]);
	return m;
}
template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> cw_div(const mat_t<R, C, T> &a, const mat_t<R, C, T> &b)
{
	mat_t<R, C, T> m;
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		m.rows[i] = cw_div(a.rows[i], b.rows[i]);
	return m;
}

template <unsigned R, unsigned C, class T>
KPY_HD inline mat_t<R, C, T> lerp(const mat_t<R, C, T> &a, const mat_t<R, C, T> &b, T t)
{
	return a * (T(1) - t) + b * t;
}

template <unsigned R, unsigned C, class T> KPY_HD inline bool isfinite(const mat_t<R, C, T> &m)
{
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		if (!isfinite(m.rows[i]))
			return false;
	return true;
}
template <unsigned R, unsigned C, class T> KPY_HD inline bool isnan(const mat_t<R, C, T> &m)
{
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		if (isnan(m.rows[i]))
			return true;
	return false;
}
template <unsigned R, unsigned C, class T> KPY_HD inline bool isinf(const mat_t<R, C, T> &m)
{
	KPY_UNROLL
	for (unsigned i = 0; i < R; i++)
		if (isinf(m.rows[i]))
			return true;
	return false;
}

/* transform_point/transform_vector with a 4x4 matrix: M * (v, 1), M * (v, 0). */
template <class T> KPY_HD inline vec_t<3, T> transform_point(const mat_t<4, 4, T> &m, const vec_t<3, T> &v)
{
	vec_t<4, T> r = m * vec_t<4, T>(v.c[0], v.c[1], v.c[2], T(1));
	return vec_t<3, T>(r.c[0], r.c[1], r.c[2]);
}
template <class T> KPY_HD inline vec_t<3, T> transform_vector(const mat_t<4, 4, T> &m, const vec_t<3, T> &v)
{
	vec_t<4, T> r = m * vec_t<4, T>(v.c[0], v.c[1], v.c[2], T(0));
	return vec_t<3, T>(r.c[0], r.c[1], r.c[2]);
}

/* ------------------------------------------------------------------ */
/* Determinant and inverse (2x2, 3x3, 4x4)                              */

template <class T> KPY_HD inline T determinant(const mat_t<2, 2, T> &m)
{
	return (T)(m.rows[0].c[0] * m.rows[1].c[1] - m.rows[1].c[0] * m.rows[0].c[1]);
}

template <class T> KPY_HD inline T determinant(const mat_t<3, 3, T> &m)
{
	return dot(m.rows[0], cross(m.rows[1], m.rows[2]));
}

namespace detail {
/* Arithmetic of Warp's 4x4 code, where T values meet double minors: for
 * float and double the mixed products are double; for f16 they are half
 * (Warp's half*double operator rounds the double product to half). */
template <class T> struct mix {
	typedef double type;
	KPY_HD static double mul(T a, double b) { return (double)a * b; }
};
template <> struct mix<f16> {
	typedef f16 type;
	KPY_HD static f16 mul(f16 a, double b) { return f16((double)(float)a * b); }
};

/* The six 2x2 minors of columns p and q of m, computed in T and kept in
 * double: y[] = {y01, y02, y03, y12, y13, y23} with
 * yij = m[i][p]*m[j][q] - m[j][p]*m[i][q]. */
template <class T> KPY_HD inline void minors4(const mat_t<4, 4, T> &m, int p, int q, double y[6])
{
	const int I[6] = {0, 0, 0, 1, 1, 2};
	const int J[6] = {1, 2, 3, 2, 3, 3};
	KPY_UNROLL
	for (int k = 0; k < 6; k++) {
		const vec_t<4, T> &ri = m.rows[I[k]], &rj = m.rows[J[k]];
		y[k] = (double)(T)(ri.c[p] * rj.c[q] - rj.c[p] * ri.c[q]);
	}
}
enum { Y01, Y02, Y03, Y12, Y13, Y23 };
} // namespace detail

template <class T> KPY_HD inline T determinant(const mat_t<4, 4, T> &m)
{
	typedef detail::mix<T> X;
	double y[6];
	detail::minors4(m, 2, 3, y);
	T x00 = m.rows[0].c[0], x10 = m.rows[1].c[0], x20 = m.rows[2].c[0], x30 = m.rows[3].c[0];
	T x01 = m.rows[0].c[1], x11 = m.rows[1].c[1], x21 = m.rows[2].c[1], x31 = m.rows[3].c[1];
	using namespace detail;
	T z30 = (T)(X::mul(x11, y[Y02]) - X::mul(x21, y[Y01]) - X::mul(x01, y[Y12]));
	T z20 = (T)(X::mul(x01, y[Y13]) - X::mul(x11, y[Y03]) + X::mul(x31, y[Y01]));
	T z10 = (T)(X::mul(x21, y[Y03]) - X::mul(x31, y[Y02]) - X::mul(x01, y[Y23]));
	T z00 = (T)(X::mul(x11, y[Y23]) - X::mul(x21, y[Y13]) + X::mul(x31, y[Y12]));
	return (T)(x30 * z30 + x20 * z20 + x10 * z10 + x00 * z00);
}

/* inverse: adjugate / determinant; the zero matrix when the determinant is
 * zero (2x2: also when it is NaN; 3x3 and 4x4 return NaNs for NaN). */
template <class T> KPY_HD inline mat_t<2, 2, T> inverse(const mat_t<2, 2, T> &m)
{
	T det = determinant(m);
	if (det > T(0) || det < -T(0)) {
		T rcp = T(1) / det;
		return mat_t<2, 2, T>(m.rows[1].c[1], -m.rows[0].c[1], -m.rows[1].c[0], m.rows[0].c[0]) * rcp;
	}
	return mat_t<2, 2, T>();
}

template <class T> KPY_HD inline mat_t<3, 3, T> inverse(const mat_t<3, 3, T> &m)
{
	T det = determinant(m);
	if (det != T(0)) {
		const vec_t<3, T> *a = m.rows;
		mat_t<3, 3, T> b;
		b.rows[0].c[0] = (T)(a[1].c[1] * a[2].c[2] - a[1].c[2] * a[2].c[1]);
		b.rows[1].c[0] = (T)(a[1].c[2] * a[2].c[0] - a[1].c[0] * a[2].c[2]);
		b.rows[2].c[0] = (T)(a[1].c[0] * a[2].c[1] - a[1].c[1] * a[2].c[0]);
		b.rows[0].c[1] = (T)(a[0].c[2] * a[2].c[1] - a[0].c[1] * a[2].c[2]);
		b.rows[1].c[1] = (T)(a[0].c[0] * a[2].c[2] - a[0].c[2] * a[2].c[0]);
		b.rows[2].c[1] = (T)(a[0].c[1] * a[2].c[0] - a[0].c[0] * a[2].c[1]);
		b.rows[0].c[2] = (T)(a[0].c[1] * a[1].c[2] - a[0].c[2] * a[1].c[1]);
		b.rows[1].c[2] = (T)(a[0].c[2] * a[1].c[0] - a[0].c[0] * a[1].c[2]);
		b.rows[2].c[2] = (T)(a[0].c[0] * a[1].c[1] - a[0].c[1] * a[1].c[0]);
		T rcp = T(1) / det;
		return b * rcp;
	}
	return mat_t<3, 3, T>();
}

/* 4x4: cofactors of the last two columns use the first two columns'
 * minors and are kept in double; those of the first two columns use the
 * last two columns' minors and are rounded to T. */
template <class T> KPY_HD inline mat_t<4, 4, T> inverse(const mat_t<4, 4, T> &m)
{
	typedef detail::mix<T> X;
	typedef typename X::type A;
	using namespace detail;
	T x00 = m.rows[0].c[0], x01 = m.rows[0].c[1], x02 = m.rows[0].c[2], x03 = m.rows[0].c[3];
	T x10 = m.rows[1].c[0], x11 = m.rows[1].c[1], x12 = m.rows[1].c[2], x13 = m.rows[1].c[3];
	T x20 = m.rows[2].c[0], x21 = m.rows[2].c[1], x22 = m.rows[2].c[2], x23 = m.rows[2].c[3];
	T x30 = m.rows[3].c[0], x31 = m.rows[3].c[1], x32 = m.rows[3].c[2], x33 = m.rows[3].c[3];
	double y[6];

	minors4(m, 0, 1, y);
	double z33 = (double)(A)(X::mul(x02, y[Y12]) - X::mul(x12, y[Y02]) + X::mul(x22, y[Y01]));
	double z23 = (double)(A)(X::mul(x12, y[Y03]) - X::mul(x32, y[Y01]) - X::mul(x02, y[Y13]));
	double z13 = (double)(A)(X::mul(x02, y[Y23]) - X::mul(x22, y[Y03]) + X::mul(x32, y[Y02]));
	double z03 = (double)(A)(X::mul(x22, y[Y13]) - X::mul(x32, y[Y12]) - X::mul(x12, y[Y23]));
	double z32 = (double)(A)(X::mul(x13, y[Y02]) - X::mul(x23, y[Y01]) - X::mul(x03, y[Y12]));
	double z22 = (double)(A)(X::mul(x03, y[Y13]) - X::mul(x13, y[Y03]) + X::mul(x33, y[Y01]));
	double z12 = (double)(A)(X::mul(x23, y[Y03]) - X::mul(x33, y[Y02]) - X::mul(x03, y[Y23]));
	double z02 = (double)(A)(X::mul(x13, y[Y23]) - X::mul(x23, y[Y13]) + X::mul(x33, y[Y12]));

	minors4(m, 2, 3, y);
	T z30 = (T)(X::mul(x11, y[Y02]) - X::mul(x21, y[Y01]) - X::mul(x01, y[Y12]));
	T z20 = (T)(X::mul(x01, y[Y13]) - X::mul(x11, y[Y03]) + X::mul(x31, y[Y01]));
	T z10 = (T)(X::mul(x21, y[Y03]) - X::mul(x31, y[Y02]) - X::mul(x01, y[Y23]));
	T z00 = (T)(X::mul(x11, y[Y23]) - X::mul(x21, y[Y13]) + X::mul(x31, y[Y12]));
	T z31 = (T)(X::mul(x00, y[Y12]) - X::mul(x10, y[Y02]) + X::mul(x20, y[Y01]));
	T z21 = (T)(X::mul(x10, y[Y03]) - X::mul(x30, y[Y01]) - X::mul(x00, y[Y13]));
	T z11 = (T)(X::mul(x00, y[Y23]) - X::mul(x20, y[Y03]) + X::mul(x30, y[Y02]));
	T z01 = (T)(X::mul(x20, y[Y13]) - X::mul(x30, y[Y12]) - X::mul(x10, y[Y23]));

	double det = (double)(T)(x30 * z30 + x20 * z20 + x10 * z10 + x00 * z00);
	if (!(::fabs(det) > 0.0))
		return mat_t<4, 4, T>();
	double rcp = 1.0 / det;
	return mat_t<4, 4, T>(
		(T)((double)z00 * rcp), (T)((double)z10 * rcp), (T)((double)z20 * rcp), (T)((double)z30 * rcp),
		(T)((double)z01 * rcp), (T)((double)z11 * rcp), (T)((double)z21 * rcp), (T)((double)z31 * rcp),
		(T)(z02 * rcp), (T)(z12 * rcp), (T)(z22 * rcp), (T)(z32 * rcp),
		(T)(z03 * rcp), (T)(z13 * rcp), (T)(z23 * rcp), (T)(z33 * rcp));
}

} // namespace kpy

#endif /* KPY_MAT_H */
