/*
 * kpy/vec.h — vec_t<N, T>: fixed-length vectors of any scalar type, with
 * Warp's vector builtins (warp/native/vec.h, warp/_src/math.py).
 *
 * Evaluation order follows Warp operation for operation, so that results
 * agree bit for bit: dot/length of 2- and 3-vectors sum the products
 * directly, longer vectors accumulate from 0 (which only shows in the sign
 * of a zero result).
 */
#ifndef KPY_VEC_H
#define KPY_VEC_H

#include "core.h"

namespace kpy {

template <unsigned N, class T> struct vec_t {
	T c[N]; /* components */

	KPY_HD vec_t() : c() { }

	/* Fill: every component is s. */
	template <class S, typename detail::enable_if<detail::is_scalar<S>::value, int>::type = 0>
	KPY_HD explicit vec_t(S s)
	{
		KPY_UNROLL
		for (unsigned i = 0; i < N; i++)
			c[i] = static_cast<T>(s);
	}

	/* N components. */
	template <class... A,
		typename detail::enable_if<sizeof...(A) == N && (N > 1) && detail::all_scalar<A...>::value, int>::type = 0>
	KPY_HD vec_t(A... a) : c{static_cast<T>(a)...} { }

	/* Spatial vector from its angular (top) and linear (bottom) halves. */
	template <unsigned M = N, typename detail::enable_if<M == 6, int>::type = 0>
	KPY_HD vec_t(const vec_t<3, T> &w, const vec_t<3, T> &v)
	{
		c[0] = w.c[0];
		c[1] = w.c[1];
		c[2] = w.c[2];
		c[3] = v.c[0];
		c[4] = v.c[1];
		c[5] = v.c[2];
	}

	/* Component type conversion. */
	template <class U, typename detail::enable_if<!detail::same<U, T>::value, int>::type = 0>
	KPY_HD explicit vec_t(const vec_t<N, U> &o)
	{
		KPY_UNROLL
		for (unsigned i = 0; i < N; i++)
			c[i] = static_cast<T>(o.c[i]);
	}

	/* Component i; negative i counts from the end (Warp's extract). */
	KPY_HD T &operator[](int i) { return c[i < 0 ? i + (int)N : i]; }
	KPY_HD const T &operator[](int i) const { return c[i < 0 ? i + (int)N : i]; }

	KPY_HD vec_t &operator+=(const vec_t &b) { return *this = *this + b; }
	KPY_HD vec_t &operator-=(const vec_t &b) { return *this = *this - b; }
	KPY_HD vec_t &operator*=(T s) { return *this = *this * s; }
	KPY_HD vec_t &operator/=(T s) { return *this = *this / s; }
};

#define KPY_VEC_TYPES(S, T) \
	typedef vec_t<2, T> vec2##S; \
	typedef vec_t<3, T> vec3##S; \
	typedef vec_t<4, T> vec4##S;
KPY_VEC_TYPES(f, f32)
KPY_VEC_TYPES(d, f64)
KPY_VEC_TYPES(h, f16)
KPY_VEC_TYPES(b, i8)
KPY_VEC_TYPES(ub, u8)
KPY_VEC_TYPES(s, i16)
KPY_VEC_TYPES(us, u16)
KPY_VEC_TYPES(i, i32)
KPY_VEC_TYPES(ui, u32)
KPY_VEC_TYPES(l, i64)
KPY_VEC_TYPES(ul, u64)
#undef KPY_VEC_TYPES
typedef vec_t<6, f32> spatial_vectorf;
typedef vec_t<6, f64> spatial_vectord;
typedef vec_t<6, f16> spatial_vectorh;

/* ------------------------------------------------------------------ */
/* Operators                                                            */

template <unsigned N, class T> KPY_HD inline bool operator==(const vec_t<N, T> &a, const vec_t<N, T> &b)
{
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		if (a.c[i] != b.c[i])
			return false;
	return true;
}
template <unsigned N, class T> KPY_HD inline bool operator!=(const vec_t<N, T> &a, const vec_t<N, T> &b)
{
	return !(a == b);
}

#define KPY_VEC_BINOP(op) \
	template <unsigned N, class T> KPY_HD inline vec_t<N, T> operator op(const vec_t<N, T> &a, const vec_t<N, T> &b) \
	{ \
		vec_t<N, T> r; \
		KPY_UNROLL \
		for (unsigned i = 0; i < N; i++) \
			r.c[i] = (T)(a.c[i] op b.c[i]); \
		return r; \
	}
KPY_VEC_BINOP(+)
KPY_VEC_BINOP(-)
KPY_VEC_BINOP(&) /* bitwise operators: integer vectors */
KPY_VEC_BINOP(|)
KPY_VEC_BINOP(^)
KPY_VEC_BINOP(<<)
KPY_VEC_BINOP(>>)
#undef KPY_VEC_BINOP

template <unsigned N, class T> KPY_HD inline vec_t<N, T> operator~(const vec_t<N, T> &a)
{
	vec_t<N, T> r;
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		r.c[i] = (T)~a.c[i];
	return r;
}

/* Unary minus negates each component (Warp's vector neg: -0.0 stays). */
template <unsigned N, class T> KPY_HD inline vec_t<N, T> operator-(const vec_t<N, T> &a)
{
	vec_t<N, T> r;
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		r.c[i] = (T)-a.c[i];
	return r;
}
template <unsigned N, class T> KPY_HD inline vec_t<N, T> operator+(const vec_t<N, T> &a) { return a; }
template <unsigned N, class T> KPY_HD inline vec_t<N, T> neg(const vec_t<N, T> &a) { return -a; }
template <unsigned N, class T> KPY_HD inline vec_t<N, T> pos(const vec_t<N, T> &a) { return a; }

template <unsigned N, class T> KPY_HD inline vec_t<N, T> operator*(const vec_t<N, T> &a, T s)
{
	vec_t<N, T> r;
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		r.c[i] = (T)(a.c[i] * s);
	return r;
}
template <unsigned N, class T> KPY_HD inline vec_t<N, T> operator*(T s, const vec_t<N, T> &a) { return a * s; }
template <unsigned N, class T> KPY_HD inline vec_t<N, T> operator/(const vec_t<N, T> &a, T s)
{
	vec_t<N, T> r;
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		r.c[i] = (T)(a.c[i] / s);
	return r;
}
template <unsigned N, class T> KPY_HD inline vec_t<N, T> operator/(T s, const vec_t<N, T> &a)
{
	vec_t<N, T> r;
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		r.c[i] = (T)(s / a.c[i]);
	return r;
}

/* ------------------------------------------------------------------ */
/* Componentwise functions                                              */

template <unsigned N, class T> KPY_HD inline vec_t<N, T> cw_mul(const vec_t<N, T> &a, const vec_t<N, T> &b)
{
	vec_t<N, T> r;
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		r.c[i] = (T)(a.c[i] * b.c[i]);
	return r;
}
template <unsigned N, class T> KPY_HD inline vec_t<N, T> cw_div(const vec_t<N, T> &a, const vec_t<N, T> &b)
{
	vec_t<N, T> r;
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		r.c[i] = (T)(a.c[i] / b.c[i]);
	return r;
}

#define KPY_VEC_MAP1(name) \
	template <unsigned N, class T> KPY_HD inline vec_t<N, T> name(const vec_t<N, T> &a) \
	{ \
		vec_t<N, T> r; \
		KPY_UNROLL \
		for (unsigned i = 0; i < N; i++) \
			r.c[i] = name(a.c[i]); \
		return r; \
	}
#define KPY_VEC_MAP2(name) \
	template <unsigned N, class T> KPY_HD inline vec_t<N, T> name(const vec_t<N, T> &a, const vec_t<N, T> &b) \
	{ \
		vec_t<N, T> r; \
		KPY_UNROLL \
		for (unsigned i = 0; i < N; i++) \
			r.c[i] = name(a.c[i], b.c[i]); \
		return r; \
	}
KPY_VEC_MAP1(abs)
KPY_VEC_MAP1(sign)
KPY_VEC_MAP2(min)
KPY_VEC_MAP2(max)
KPY_VEC_MAP2(mod)
#undef KPY_VEC_MAP1
#undef KPY_VEC_MAP2

/* Reductions: min/max skip NaN components (fmin semantics); all-NaN gives
 * v[0].  argmin/argmax return the first index of the extremum among the
 * non-NaN components, 0 if there is none. */
template <unsigned N, class T> KPY_HD inline T min(const vec_t<N, T> &v)
{
	T r = v.c[0];
	KPY_UNROLL
	for (unsigned i = 1; i < N; i++)
		r = min(r, v.c[i]);
	return r;
}
template <unsigned N, class T> KPY_HD inline T max(const vec_t<N, T> &v)
{
	T r = v.c[0];
	KPY_UNROLL
	for (unsigned i = 1; i < N; i++)
		r = max(r, v.c[i]);
	return r;
}
template <unsigned N, class T> KPY_HD inline u32 argmin(const vec_t<N, T> &v)
{
	unsigned r = 0;
	while (r < N && isnan(v.c[r]))
		r++;
	if (r == N)
		return 0;
	KPY_UNROLL
	for (unsigned i = r + 1; i < N; i++)
		if (!isnan(v.c[i]) && v.c[i] < v.c[r])
			r = i;
	return r;
}
template <unsigned N, class T> KPY_HD inline u32 argmax(const vec_t<N, T> &v)
{
	unsigned r = 0;
	while (r < N && isnan(v.c[r]))
		r++;
	if (r == N)
		return 0;
	KPY_UNROLL
	for (unsigned i = r + 1; i < N; i++)
		if (!isnan(v.c[i]) && v.c[i] > v.c[r])
			r = i;
	return r;
}

/* isfinite: all components finite; isnan/isinf: any component. */
template <unsigned N, class T> KPY_HD inline bool isfinite(const vec_t<N, T> &v)
{
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		if (!isfinite(v.c[i]))
			return false;
	return true;
}
template <unsigned N, class T> KPY_HD inline bool isnan(const vec_t<N, T> &v)
{
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		if (isnan(v.c[i]))
			return true;
	return false;
}
template <unsigned N, class T> KPY_HD inline bool isinf(const vec_t<N, T> &v)
{
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		if (isinf(v.c[i]))
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Geometry                                                             */

template <unsigned N, class T> KPY_HD inline T dot(const vec_t<N, T> &a, const vec_t<N, T> &b)
{
	T r = T(0);
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		r = (T)(r + a.c[i] * b.c[i]);
	return r;
}
template <class T> KPY_HD inline T dot(const vec_t<2, T> &a, const vec_t<2, T> &b)
{
	return (T)(a.c[0] * b.c[0] + a.c[1] * b.c[1]);
}
template <class T> KPY_HD inline T dot(const vec_t<3, T> &a, const vec_t<3, T> &b)
{
	return (T)(a.c[0] * b.c[0] + a.c[1] * b.c[1] + a.c[2] * b.c[2]);
}

template <unsigned N, class T> KPY_HD inline T length_sq(const vec_t<N, T> &a) { return dot(a, a); }
template <unsigned N, class T> KPY_HD inline T length(const vec_t<N, T> &a) { return sqrt(dot(a, a)); }

/* normalize: a / length(a), or the zero vector when length(a) is not > 0. */
template <unsigned N, class T> KPY_HD inline vec_t<N, T> normalize(const vec_t<N, T> &a)
{
	T l = length(a);
	if (l > T(0))
		return a / l;
	return vec_t<N, T>();
}

template <class T> KPY_HD inline vec_t<3, T> cross(const vec_t<3, T> &a, const vec_t<3, T> &b)
{
	return vec_t<3, T>((T)(a.c[1] * b.c[2] - a.c[2] * b.c[1]), (T)(a.c[2] * b.c[0] - a.c[0] * b.c[2]),
		(T)(a.c[0] * b.c[1] - a.c[1] * b.c[0]));
}

template <unsigned N, class T> KPY_HD inline vec_t<N, T> lerp(const vec_t<N, T> &a, const vec_t<N, T> &b, T t)
{
	return a * (T(1) - t) + b * t;
}

/* Copy of v with component i (negative: from the end) replaced by x. */
template <unsigned N, class T> KPY_HD inline vec_t<N, T> insert(vec_t<N, T> v, int i, T x)
{
	v[i] = x;
	return v;
}

/* ------------------------------------------------------------------ */
/* Norms (warp/_src/math.py; Warp defines them for float32 vectors, kpy
 * for every float type, in the vector's own precision).               */

template <unsigned N, class T> KPY_HD inline T norm_l1(const vec_t<N, T> &v)
{
	T n = T(0);
	KPY_UNROLL
	for (unsigned i = 0; i < N; i++)
		n = n + abs(v.c[i]);
	return n;
}
template <unsigned N, class T> KPY_HD inline T norm_l2(const vec_t<N, T> &v) { return length(v); }

/* 0.5*|v|^2 if |v| <= delta, else delta*(|v| - 0.5*delta) */
template <unsigned N, class T> KPY_HD inline T norm_huber(const vec_t<N, T> &v, T delta)
{
	T a = dot(v, v);
	if (a <= delta * delta)
		return T(0.5) * a;
	return delta * (sqrt(a) - T(0.5) * delta);
}
template <unsigned N, class T> KPY_HD inline T norm_huber(const vec_t<N, T> &v) { return norm_huber(v, T(1)); }

/* delta * sqrt(1 + |v|^2/delta^2) */
template <unsigned N, class T> KPY_HD inline T norm_pseudo_huber(const vec_t<N, T> &v, T delta)
{
	T a = dot(v, v);
	return delta * sqrt(T(1) + a / (delta * delta));
}
template <unsigned N, class T> KPY_HD inline T norm_pseudo_huber(const vec_t<N, T> &v)
{
	return norm_pseudo_huber(v, T(1));
}

template <unsigned N, class T> KPY_HD inline vec_t<N, T> smooth_normalize(const vec_t<N, T> &v, T delta)
{
	return v / norm_pseudo_huber(v, delta);
}
template <unsigned N, class T> KPY_HD inline vec_t<N, T> smooth_normalize(const vec_t<N, T> &v)
{
	return smooth_normalize(v, T(1));
}

} // namespace kpy

#endif /* KPY_VEC_H */
