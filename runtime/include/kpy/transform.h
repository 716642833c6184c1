/*
 * kpy/transform.h — transform_t<T>: rigid transforms, a translation p and a
 * rotation q, mapping x to quat_rotate(q, x) + p (Warp's spatial.h and
 * math.py transform helpers).  Components index as p.x p.y p.z q.x q.y q.z
 * q.w (0..6).
 */
#ifndef KPY_TRANSFORM_H
#define KPY_TRANSFORM_H

#include "quat.h"

namespace kpy {

template <class T> struct transform_t {
	vec_t<3, T> p; /* translation */
	quat_t<T> q;   /* rotation (x, y, z, w) */

	/* All zero, as Warp's transform() in a kernel (q is not the identity). */
	KPY_HD transform_t() : p(), q() { }
	KPY_HD transform_t(const vec_t<3, T> &p_, const quat_t<T> &q_) : p(p_), q(q_) { }
	/* Translation only: q is the identity (Warp's transformation(p)). */
	KPY_HD explicit transform_t(const vec_t<3, T> &p_) : p(p_), q(0, 0, 0, 1) { }

	/* Fill: all seven components are s. */
	template <class S, typename detail::enable_if<detail::is_scalar<S>::value, int>::type = 0>
	KPY_HD explicit transform_t(S s) : p(s), q(s, s, s, s) { }

	/* Seven components: p.x p.y p.z q.x q.y q.z q.w. */
	template <class A0, class A1, class A2, class A3, class A4, class A5, class A6,
		typename detail::enable_if<detail::all_scalar<A0, A1, A2, A3, A4, A5, A6>::value, int>::type = 0>
	KPY_HD transform_t(A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6) : p(a0, a1, a2), q(a3, a4, a5, a6) { }

	/* Component type conversion. */
	template <class U, typename detail::enable_if<!detail::same<U, T>::value, int>::type = 0>
	KPY_HD explicit transform_t(const transform_t<U> &o) : p(o.p), q(o.q) { }

	/* Component i of (p, q); negative i counts from the end. */
	KPY_HD T &operator[](int i)
	{
		i = i < 0 ? i + 7 : i;
		return i < 3 ? p.c[i] : q[i - 3];
	}
	KPY_HD const T &operator[](int i) const
	{
		i = i < 0 ? i + 7 : i;
		return i < 3 ? p.c[i] : q[i - 3];
	}
};

typedef transform_t<f32> transformf;
typedef transform_t<f64> transformd;
typedef transform_t<f16> transformh;

template <class X> KPY_HD inline X transform_identity()
{
	X t;
	t.q.w = decltype(t.q.w)(1);
	return t;
}

/* ------------------------------------------------------------------ */
/* Operators (componentwise, except * of two transforms)                */

template <class T> KPY_HD inline bool operator==(const transform_t<T> &a, const transform_t<T> &b)
{
	return a.p == b.p && a.q == b.q;
}
template <class T> KPY_HD inline bool operator!=(const transform_t<T> &a, const transform_t<T> &b) { return !(a == b); }
template <class T> KPY_HD inline transform_t<T> operator+(const transform_t<T> &a, const transform_t<T> &b)
{
	return transform_t<T>(a.p + b.p, a.q + b.q);
}
template <class T> KPY_HD inline transform_t<T> operator-(const transform_t<T> &a, const transform_t<T> &b)
{
	return transform_t<T>(a.p - b.p, a.q - b.q);
}
template <class T> KPY_HD inline transform_t<T> operator-(const transform_t<T> &a) { return transform_t<T>(-a.p, -a.q); }
template <class T> KPY_HD inline transform_t<T> &operator+=(transform_t<T> &a, const transform_t<T> &b) { return a = a + b; }
template <class T> KPY_HD inline transform_t<T> &operator-=(transform_t<T> &a, const transform_t<T> &b) { return a = a - b; }
template <class T> KPY_HD inline transform_t<T> operator+(const transform_t<T> &a) { return a; }
template <class T> KPY_HD inline transform_t<T> neg(const transform_t<T> &a) { return -a; }
template <class T> KPY_HD inline transform_t<T> pos(const transform_t<T> &a) { return a; }
template <class T> KPY_HD inline transform_t<T> operator*(const transform_t<T> &a, T s)
{
	return transform_t<T>(a.p * s, a.q * s);
}
template <class T> KPY_HD inline transform_t<T> operator*(T s, const transform_t<T> &a) { return a * s; }

/* ------------------------------------------------------------------ */
/* Functions                                                            */

template <class T> KPY_HD inline vec_t<3, T> transform_get_translation(const transform_t<T> &t) { return t.p; }
template <class T> KPY_HD inline quat_t<T> transform_get_rotation(const transform_t<T> &t) { return t.q; }
template <class T> KPY_HD inline transform_t<T> transform_set_translation(transform_t<T> t, const vec_t<3, T> &p)
{
	t.p = p;
	return t;
}
template <class T> KPY_HD inline transform_t<T> transform_set_rotation(transform_t<T> t, const quat_t<T> &q)
{
	t.q = q;
	return t;
}

template <class T> KPY_HD inline vec_t<3, T> transform_point(const transform_t<T> &t, const vec_t<3, T> &x)
{
	return t.p + quat_rotate(t.q, x);
}
template <class T> KPY_HD inline vec_t<3, T> transform_vector(const transform_t<T> &t, const vec_t<3, T> &x)
{
	return quat_rotate(t.q, x);
}

/* a * b: apply b, then a. */
template <class T> KPY_HD inline transform_t<T> transform_multiply(const transform_t<T> &a, const transform_t<T> &b)
{
	return transform_t<T>(quat_rotate(a.q, b.p) + a.p, a.q * b.q);
}
template <class T> KPY_HD inline transform_t<T> operator*(const transform_t<T> &a, const transform_t<T> &b)
{
	return transform_multiply(a, b);
}

template <class T> KPY_HD inline transform_t<T> transform_inverse(const transform_t<T> &t)
{
	quat_t<T> qi = quat_inverse(t.q);
	return transform_t<T>(-quat_rotate(qi, t.p), qi);
}

template <class T> KPY_HD inline transform_t<T> lerp(const transform_t<T> &a, const transform_t<T> &b, T t)
{
	return a * (T(1) - t) + b * t;
}

template <class T> KPY_HD inline bool isfinite(const transform_t<T> &t) { return isfinite(t.p) && isfinite(t.q); }
template <class T> KPY_HD inline bool isnan(const transform_t<T> &t) { return isnan(t.p) || isnan(t.q); }
template <class T> KPY_HD inline bool isinf(const transform_t<T> &t) { return isinf(t.p) || isinf(t.q); }

/* Copy of t with component i (p then q) replaced by v. */
template <class T> KPY_HD inline transform_t<T> insert(transform_t<T> t, int i, T v)
{
	t[i] = v;
	return t;
}

/* [R p; 0 1] with R = quat_to_matrix(q). */
template <class T> KPY_HD inline mat_t<4, 4, T> transform_to_matrix(const transform_t<T> &t)
{
	mat_t<3, 3, T> r = quat_to_matrix(t.q);
	return mat_t<4, 4, T>(r[0][0], r[0][1], r[0][2], t.p.c[0], r[1][0], r[1][1], r[1][2], t.p.c[1], r[2][0], r[2][1],
		r[2][2], t.p.c[2], T(0), T(0), T(0), T(1));
}

template <class T> KPY_HD inline transform_t<T> transform_from_matrix(const mat_t<4, 4, T> &m)
{
	vec_t<3, T> p(m[0][3], m[1][3], m[2][3]);
	return transform_t<T>(p, quat_from_matrix(m));
}

/* [R*diag(s) p; 0 1] with R = quat_to_matrix(rot). */
template <class T>
KPY_HD inline mat_t<4, 4, T> transform_compose(const vec_t<3, T> &pos, const quat_t<T> &rot, const vec_t<3, T> &scale)
{
	mat_t<3, 3, T> r = quat_to_matrix(rot);
	const T *s = scale.c;
	return mat_t<4, 4, T>(s[0] * r[0][0], s[1] * r[0][1], s[2] * r[0][2], pos.c[0], s[0] * r[1][0], s[1] * r[1][1],
		s[2] * r[1][2], pos.c[1], s[0] * r[2][0], s[1] * r[2][1], s[2] * r[2][2], pos.c[2], T(0), T(0), T(0), T(1));
}

/* Inverse of transform_compose: scales are the column norms of the 3x3
 * block (a zero column is left as is), rotation from the normalized block. */
template <class T>
KPY_HD inline void transform_decompose(const mat_t<4, 4, T> &m, vec_t<3, T> &pos, quat_t<T> &rot, vec_t<3, T> &scale)
{
	pos = vec_t<3, T>(m[0][3], m[1][3], m[2][3]);
	T r00 = m[0][0], r01 = m[0][1], r02 = m[0][2];
	T r10 = m[1][0], r11 = m[1][1], r12 = m[1][2];
	T r20 = m[2][0], r21 = m[2][1], r22 = m[2][2];
	T sx = sqrt(r00 * r00 + r10 * r10 + r20 * r20);
	T sy = sqrt(r01 * r01 + r11 * r11 + r21 * r21);
	T sz = sqrt(r02 * r02 + r12 * r12 + r22 * r22);
	if (sx != T(0)) {
		r00 = r00 / sx;
		r10 = r10 / sx;
		r20 = r20 / sx;
	}
	if (sy != T(0)) {
		r01 = r01 / sy;
		r11 = r11 / sy;
		r21 = r21 / sy;
	}
	if (sz != T(0)) {
		r02 = r02 / sz;
		r12 = r12 / sz;
		r22 = r22 / sz;
	}
	rot = quat_from_matrix(mat_t<3, 3, T>(r00, r01, r02, r10, r11, r12, r20, r21, r22));
	scale = vec_t<3, T>(sx, sy, sz);
}

} // namespace kpy

#endif /* KPY_TRANSFORM_H */
