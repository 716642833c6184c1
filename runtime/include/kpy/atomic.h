/*
 * kpy/atomic.h — atomic read-modify-write on array elements, returning the
 * element's old value: atomic_add, atomic_sub, atomic_min, atomic_max,
 * atomic_and, atomic_or, atomic_xor, atomic_exch, atomic_cas.
 *
 * Types (Warp's): add/sub on i32 u32 i64 u64 f16 f32 f64; min/max on i32
 * u32 i64 u64 f32 f64 (and f16 here); and/or/xor on i32 u32 i64 u64;
 * exch/cas on i32 u32 i64 u64 f32 f64 (and f16 here).  Vectors and
 * matrices of those are updated one component at a time (add, sub, min,
 * max, and, or, xor), quaternions and transforms too (add, sub).  Warp's
 * "non-atomic" types i8 u8 i16 u16 (and composites of them) get a plain
 * load-op-store, as Warp does for them.
 *
 * Host: GCC/Clang __atomic builtins (floating point through compare-and-
 * swap loops); with KPY_SERIAL (krun: a launch's threads run one after
 * another on one host thread) plain read-modify-write, as Warp's CPU build.  CUDA (sm_75+): atomicAdd/Min/Max/And/Or/Xor/Exch/CAS, with
 * CAS loops for float min/max and f16.  sub is add of the negated value;
 * float min/max use kpy::min/max (fmin semantics).  cas compares with ==
 * on the host (as Warp's CPU build) and bit patterns on CUDA (as Warp's
 * CUDA build).
 */
#ifndef KPY_ATOMIC_H
#define KPY_ATOMIC_H

#include "array.h"
#include "transform.h"

namespace kpy {
namespace detail {

struct op_add { template <class T> KPY_HD static T f(T a, T b) { return (T)(a + b); } };
struct op_min { template <class T> KPY_HD static T f(T a, T b) { return running_min(a, b); } };
struct op_max { template <class T> KPY_HD static T f(T a, T b) { return running_max(a, b); } };
struct op_and { template <class T> KPY_HD static T f(T a, T b) { return (T)(a & b); } };
struct op_or { template <class T> KPY_HD static T f(T a, T b) { return (T)(a | b); } };
struct op_xor { template <class T> KPY_HD static T f(T a, T b) { return (T)(a ^ b); } };
struct op_exch { template <class T> KPY_HD static T f(T, T b) { return b; } };

/* Not atomic: Warp's treatment of 8- and 16-bit integers. */
template <class Op, class T> KPY_HD inline T plain(T *p, T v)
{
	T old = *p;
	*p = Op::f(old, v);
	return old;
}

#if defined(__CUDA_ARCH__)
template <int S> struct devbits;
template <> struct devbits<2> { typedef unsigned short type; };
template <> struct devbits<4> { typedef unsigned int type; };
template <> struct devbits<8> { typedef unsigned long long type; };
#endif

/* Compare-and-swap loop applying Op; returns the old value. */
template <class Op, class T> KPY_HD inline T cas_loop(T *p, T v)
{
#if defined(__CUDA_ARCH__)
	typedef typename devbits<sizeof(T)>::type B;
	B *bp = (B *)p;
	B old = *bp, assumed; /* a guess (L1 may serve it): the CAS checks it */
	T cur;
	do {
		assumed = old;
		memcpy(&cur, &assumed, sizeof(T));
		T nv = Op::f(cur, v);
		B nb;
		memcpy(&nb, &nv, sizeof(T));
		if (nb == assumed)
			break;
		old = atomicCAS(bp, assumed, nb);
	} while (assumed != old);
	memcpy(&cur, &old, sizeof(T));
	return cur;
#elif defined(KPY_SERIAL)
	return plain<Op>(p, v);
#else
	T old;
	__atomic_load(p, &old, __ATOMIC_SEQ_CST);
	for (;;) {
		T nv = Op::f(old, v);
		if (__atomic_compare_exchange(p, &old, &nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return old;
	}
#endif
}

#if defined(__CUDA_ARCH__)
/* CUDA's integer atomics take int, unsigned, long long or unsigned long
 * long; map i64/u64 (long on LP64) onto them. */
template <class T> struct cudaint { typedef T type; };
template <> struct cudaint<long> { typedef long long type; };
template <> struct cudaint<unsigned long> { typedef unsigned long long type; };
#define KPY_CU(T, p) ((typename detail::cudaint<T>::type *)(p))
#define KPY_CUV(T, v) ((typename detail::cudaint<T>::type)(v))
#define KPY_CUU(T, p) ((unsigned long long *)(p))
#endif
} // namespace detail

/* ------------------------------------------------------------------ */
/* Scalars, through a pointer                                          */

/* Plain read-modify-write: for Warp's non-atomic types below, and for every
 * integer type on a KPY_SERIAL host.  (sub is separate: negating an int or
 * long could overflow, so those take the unsigned negation further down.) */
#define KPY_PLAIN_RMW(T) \
	KPY_HD inline T atomic_add(T *p, T v) { return detail::plain<detail::op_add>(p, v); } \
	KPY_HD inline T atomic_min(T *p, T v) { return detail::plain<detail::op_min>(p, v); } \
	KPY_HD inline T atomic_max(T *p, T v) { return detail::plain<detail::op_max>(p, v); } \
	KPY_HD inline T atomic_and(T *p, T v) { return detail::plain<detail::op_and>(p, v); } \
	KPY_HD inline T atomic_or(T *p, T v) { return detail::plain<detail::op_or>(p, v); } \
	KPY_HD inline T atomic_xor(T *p, T v) { return detail::plain<detail::op_xor>(p, v); } \
	KPY_HD inline T atomic_exch(T *p, T v) { return detail::plain<detail::op_exch>(p, v); } \
	KPY_HD inline T atomic_cas(T *p, T cmp, T v) \
	{ \
		T old = *p; \
		if (old == cmp) \
			*p = v; \
		return old; \
	}

/* Non-atomic types. */
#define KPY_PLAIN(T) \
	KPY_PLAIN_RMW(T) \
	KPY_HD inline T atomic_sub(T *p, T v) { return detail::plain<detail::op_add>(p, (T)-v); }
KPY_PLAIN(i8)
KPY_PLAIN(u8)
KPY_PLAIN(i16)
KPY_PLAIN(u16)
#undef KPY_PLAIN

/* 32- and 64-bit integers. */
#if defined(__CUDA_ARCH__)
#define KPY_INT_ATOMICS(T) \
	KPY_HD inline T atomic_add(T *p, T v) { return (T)atomicAdd(KPY_CUU(T, p), (unsigned long long)v); } \
	KPY_HD inline T atomic_min(T *p, T v) { return (T)atomicMin(KPY_CU(T, p), KPY_CUV(T, v)); } \
	KPY_HD inline T atomic_max(T *p, T v) { return (T)atomicMax(KPY_CU(T, p), KPY_CUV(T, v)); } \
	KPY_HD inline T atomic_and(T *p, T v) { return (T)atomicAnd(KPY_CUU(T, p), (unsigned long long)v); } \
	KPY_HD inline T atomic_or(T *p, T v) { return (T)atomicOr(KPY_CUU(T, p), (unsigned long long)v); } \
	KPY_HD inline T atomic_xor(T *p, T v) { return (T)atomicXor(KPY_CUU(T, p), (unsigned long long)v); } \
	KPY_HD inline T atomic_exch(T *p, T v) { return (T)atomicExch(KPY_CUU(T, p), (unsigned long long)v); } \
	KPY_HD inline T atomic_cas(T *p, T cmp, T v) \
	{ \
		return (T)atomicCAS(KPY_CUU(T, p), (unsigned long long)cmp, (unsigned long long)v); \
	}
#define KPY_INT32_ATOMICS(T) \
	KPY_HD inline T atomic_add(T *p, T v) { return atomicAdd(p, v); } \
	KPY_HD inline T atomic_min(T *p, T v) { return atomicMin(p, v); } \
	KPY_HD inline T atomic_max(T *p, T v) { return atomicMax(p, v); } \
	KPY_HD inline T atomic_and(T *p, T v) { return atomicAnd(p, v); } \
	KPY_HD inline T atomic_or(T *p, T v) { return atomicOr(p, v); } \
	KPY_HD inline T atomic_xor(T *p, T v) { return atomicXor(p, v); } \
	KPY_HD inline T atomic_exch(T *p, T v) { return atomicExch(p, v); } \
	KPY_HD inline T atomic_cas(T *p, T cmp, T v) { return atomicCAS(p, cmp, v); }
KPY_INT32_ATOMICS(int)
KPY_INT32_ATOMICS(unsigned int)
KPY_INT_ATOMICS(long)
KPY_INT_ATOMICS(unsigned long)
KPY_INT_ATOMICS(long long)
KPY_INT_ATOMICS(unsigned long long)
#undef KPY_INT32_ATOMICS
#elif defined(KPY_SERIAL)
/* A host that runs a launch's threads one after another (krun defines
 * KPY_SERIAL): plain read-modify-write, as Warp's CPU build does, the same
 * values in the same order without a locked instruction per update. */
#define KPY_INT_ATOMICS(T) KPY_PLAIN_RMW(T)
KPY_INT_ATOMICS(int)
KPY_INT_ATOMICS(unsigned int)
KPY_INT_ATOMICS(long)
KPY_INT_ATOMICS(unsigned long)
KPY_INT_ATOMICS(long long)
KPY_INT_ATOMICS(unsigned long long)
#else
#define KPY_INT_ATOMICS(T) \
	KPY_HD inline T atomic_add(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); } \
	KPY_HD inline T atomic_min(T *p, T v) { return detail::cas_loop<detail::op_min>(p, v); } \
	KPY_HD inline T atomic_max(T *p, T v) { return detail::cas_loop<detail::op_max>(p, v); } \
	KPY_HD inline T atomic_and(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); } \
	KPY_HD inline T atomic_or(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); } \
	KPY_HD inline T atomic_xor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); } \
	KPY_HD inline T atomic_exch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); } \
	KPY_HD inline T atomic_cas(T *p, T cmp, T v) \
	{ \
		__atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
		return cmp; \
	}
KPY_INT_ATOMICS(int)
KPY_INT_ATOMICS(unsigned int)
KPY_INT_ATOMICS(long)
KPY_INT_ATOMICS(unsigned long)
KPY_INT_ATOMICS(long long)
KPY_INT_ATOMICS(unsigned long long)
#endif
#undef KPY_INT_ATOMICS
#undef KPY_PLAIN_RMW

/* sub: add the negation (wrapping, as Warp's atomic_add(p, -v)). */
template <class I> KPY_HD inline typename detail::if_int<I>::type atomic_sub(I *p, I v)
{
	typedef typename detail::intinfo<I>::U U;
	return atomic_add(p, (I)(U)((U)0 - (U)v));
}

/* Floating point. */
KPY_HD inline float atomic_add(float *p, float v)
{
#if defined(__CUDA_ARCH__)
	return atomicAdd(p, v);
#else
	return detail::cas_loop<detail::op_add>(p, v);
#endif
}
KPY_HD inline double atomic_add(double *p, double v)
{
#if defined(__CUDA_ARCH__)
	return atomicAdd(p, v);
#else
	return detail::cas_loop<detail::op_add>(p, v);
#endif
}
KPY_HD inline f16 atomic_add(f16 *p, f16 v)
{
#if defined(__CUDA_ARCH__)
	f16 old;
	asm volatile("atom.add.noftz.f16 %0, [%1], %2;" : "=h"(old.u) : "l"(p), "h"(v.u) : "memory");
	return old;
#else
	return detail::cas_loop<detail::op_add>(p, v);
#endif
}
/* bf16: a CAS loop on the host and the device alike. */
KPY_HD inline bf16 atomic_add(bf16 *p, bf16 v) { return detail::cas_loop<detail::op_add>(p, v); }

#define KPY_FLOAT_ATOMICS(T) \
	KPY_HD inline T atomic_sub(T *p, T v) { return atomic_add(p, -v); } \
	KPY_HD inline T atomic_min(T *p, T v) { return detail::cas_loop<detail::op_min>(p, v); } \
	KPY_HD inline T atomic_max(T *p, T v) { return detail::cas_loop<detail::op_max>(p, v); }
KPY_FLOAT_ATOMICS(float)
KPY_FLOAT_ATOMICS(double)
KPY_FLOAT_ATOMICS(f16)
KPY_FLOAT_ATOMICS(bf16)
#undef KPY_FLOAT_ATOMICS

KPY_HD inline float atomic_exch(float *p, float v)
{
#if defined(__CUDA_ARCH__)
	return atomicExch(p, v);
#else
	float old;
	__atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
	return old;
#endif
}
KPY_HD inline double atomic_exch(double *p, double v)
{
#if defined(__CUDA_ARCH__)
	return __longlong_as_double((long long)atomicExch((unsigned long long *)p, (unsigned long long)__double_as_longlong(v)));
#else
	double old;
	__atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
	return old;
#endif
}
KPY_HD inline f16 atomic_exch(f16 *p, f16 v) { return detail::cas_loop<detail::op_exch>(p, v); }
KPY_HD inline bf16 atomic_exch(bf16 *p, bf16 v) { return detail::cas_loop<detail::op_exch>(p, v); }

namespace detail {
/* Host: swap when the stored value == cmp (so -0 matches +0, NaN never). */
template <class T> KPY_HD inline T float_cas(T *p, T cmp, T v)
{
#if defined(__CUDA_ARCH__)
	typedef typename devbits<sizeof(T)>::type B;
	B c, n;
	memcpy(&c, &cmp, sizeof(T));
	memcpy(&n, &v, sizeof(T));
	B o = atomicCAS((B *)p, c, n);
	T old;
	memcpy(&old, &o, sizeof(T));
	return old;
#else
	T old;
	__atomic_load(p, &old, __ATOMIC_SEQ_CST);
	for (;;) {
		if (!(old == cmp))
			return old;
		if (__atomic_compare_exchange(p, &old, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return old;
	}
#endif
}
} // namespace detail

KPY_HD inline float atomic_cas(float *p, float cmp, float v) { return detail::float_cas(p, cmp, v); }
KPY_HD inline double atomic_cas(double *p, double cmp, double v) { return detail::float_cas(p, cmp, v); }
KPY_HD inline f16 atomic_cas(f16 *p, f16 cmp, f16 v) { return detail::float_cas(p, cmp, v); }
KPY_HD inline bf16 atomic_cas(bf16 *p, bf16 cmp, bf16 v) { return detail::float_cas(p, cmp, v); }

/* ------------------------------------------------------------------ */
/* Composites, one component at a time                                  */

#define KPY_VEC_ATOMIC(name) \
	template <unsigned N, class T> KPY_HD inline vec_t<N, T> name(vec_t<N, T> *p, const vec_t<N, T> &v) \
	{ \
		vec_t<N, T> old; \
		for (unsigned i = 0; i < N; i++) \
			old.c[i] = name(&p->c[i], v.c[i]); \
		return old; \
	} \
	template <unsigned R, unsigned C, class T> KPY_HD inline mat_t<R, C, T> name(mat_t<R, C, T> *p, const mat_t<R, C, T> &v) \
	{ \
		mat_t<R, C, T> old; \
		for (unsigned i = 0; i < R; i++) \
			old.rows[i] = name(&p->rows[i], v.rows[i]); \
		return old; \
	}
KPY_VEC_ATOMIC(atomic_add)
KPY_VEC_ATOMIC(atomic_sub)
KPY_VEC_ATOMIC(atomic_min)
KPY_VEC_ATOMIC(atomic_max)
KPY_VEC_ATOMIC(atomic_and)
KPY_VEC_ATOMIC(atomic_or)
KPY_VEC_ATOMIC(atomic_xor)
#undef KPY_VEC_ATOMIC

#define KPY_QT_ATOMIC(name) \
	template <class T> KPY_HD inline quat_t<T> name(quat_t<T> *p, const quat_t<T> &v) \
	{ \
		T x = name(&p->x, v.x); \
		T y = name(&p->y, v.y); \
		T z = name(&p->z, v.z); \
		T w = name(&p->w, v.w); \
		return quat_t<T>(x, y, z, w); \
	} \
	template <class T> KPY_HD inline transform_t<T> name(transform_t<T> *p, const transform_t<T> &v) \
	{ \
		vec_t<3, T> pp = name(&p->p, v.p); \
		quat_t<T> q = name(&p->q, v.q); \
		return transform_t<T>(pp, q); \
	}
KPY_QT_ATOMIC(atomic_add)
KPY_QT_ATOMIC(atomic_sub)
#undef KPY_QT_ATOMIC

/* ------------------------------------------------------------------ */
/* Array elements: atomic_OP(a, i[, j, k, l], value) -> old value        */

#define KPY_ARRAY_ATOMIC(name) \
	template <class T> KPY_HD inline T name(const array_t<T, 1> &a, i32 i, const T &v KPY_LOC) \
	{ \
		KPY_CHECK(a, KPY_ACCESS_ATOMIC, i); \
		return name(&detail::elem(a, i), v); \
	} \
	template <class T> KPY_HD inline T name(const array_t<T, 2> &a, i32 i, i32 j, const T &v KPY_LOC) \
	{ \
		KPY_CHECK(a, KPY_ACCESS_ATOMIC, i, j); \
		return name(&detail::elem(a, i, j), v); \
	} \
	template <class T> KPY_HD inline T name(const array_t<T, 3> &a, i32 i, i32 j, i32 k, const T &v KPY_LOC) \
	{ \
		KPY_CHECK(a, KPY_ACCESS_ATOMIC, i, j, k); \
		return name(&detail::elem(a, i, j, k), v); \
	} \
	template <class T> KPY_HD inline T name(const array_t<T, 4> &a, i32 i, i32 j, i32 k, i32 l, const T &v KPY_LOC) \
	{ \
		KPY_CHECK(a, KPY_ACCESS_ATOMIC, i, j, k, l); \
		return name(&detail::elem(a, i, j, k, l), v); \
	}
KPY_ARRAY_ATOMIC(atomic_add)
KPY_ARRAY_ATOMIC(atomic_sub)
KPY_ARRAY_ATOMIC(atomic_min)
KPY_ARRAY_ATOMIC(atomic_max)
KPY_ARRAY_ATOMIC(atomic_and)
KPY_ARRAY_ATOMIC(atomic_or)
KPY_ARRAY_ATOMIC(atomic_xor)
KPY_ARRAY_ATOMIC(atomic_exch)
#undef KPY_ARRAY_ATOMIC

template <class T> KPY_HD inline T atomic_cas(const array_t<T, 1> &a, i32 i, const T &cmp, const T &v KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_ATOMIC, i);
	return atomic_cas(&detail::elem(a, i), cmp, v);
}
template <class T> KPY_HD inline T atomic_cas(const array_t<T, 2> &a, i32 i, i32 j, const T &cmp, const T &v KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_ATOMIC, i, j);
	return atomic_cas(&detail::elem(a, i, j), cmp, v);
}
template <class T>
KPY_HD inline T atomic_cas(const array_t<T, 3> &a, i32 i, i32 j, i32 k, const T &cmp, const T &v KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_ATOMIC, i, j, k);
	return atomic_cas(&detail::elem(a, i, j, k), cmp, v);
}
template <class T>
KPY_HD inline T atomic_cas(const array_t<T, 4> &a, i32 i, i32 j, i32 k, i32 l, const T &cmp, const T &v KPY_LOC)
{
	KPY_CHECK(a, KPY_ACCESS_ATOMIC, i, j, k, l);
	return atomic_cas(&detail::elem(a, i, j, k, l), cmp, v);
}

} // namespace kpy

#endif /* KPY_ATOMIC_H */
