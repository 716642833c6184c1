/*
 * kpy/core.h — macros, scalar types, IEEE half, scalar math and the launch
 * grid: everything a kernel needs before it touches a vector.
 *
 * Meaning: every function here computes what NVIDIA Warp's builtin of the
 * same name computes (warp/native/builtin.h, crt.h), on the host through the
 * C library and in CUDA device code through the CUDA math library, exactly as
 * Warp does.  Compile host code with -ffp-contract=off to get Warp's CPU
 * results bit for bit (Warp's CPU build does not contract a*b+c).
 *
 * f32 is float, or double when KPY_F32_DOUBLE is defined (finite-difference
 * gradient checks).  Functions are therefore overloaded on the C++ types
 * float, double and f16, never on f32 and f64 separately.
 */
#ifndef KPY_CORE_H
#define KPY_CORE_H

#if defined(__CUDACC__)
#define KPY_HD __host__ __device__
#else
#define KPY_HD
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "abi.h"

/* g++ compiles the ordered-compare min/max below into branches (it keeps
 * a comparison that could trap behind the one before it, and threads the
 * jumps of clamp's two selects into each other), which mispredict on data
 * such as clamp(x, 0, 1) of random x: 5-8x slower kernels.  For g++ the
 * same choice is made as a bit mask (KPY_MASK_MINMAX), which it neither
 * branches on nor keeps from vectorizing; clang makes selects of the plain
 * form itself. */
#if !defined(__CUDACC__) && !defined(__clang__) && defined(__GNUC__)
#define KPY_MASK_MINMAX 1
#endif

/* Inlined whatever the compiler's size heuristics say (kcpu's entry points:
 * the specialised copies of a kernel's loop must each be inlined).  Not in
 * a bounds-checked build, which runs one copy (kpy::contiguous, array.h). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(KPY_CHECKED)
#define KPY_FORCEINLINE inline __attribute__((always_inline))
#else
#define KPY_FORCEINLINE inline
#endif

/* Before the loops over a vector's or matrix's components (vec.h, mat.h,
 * spatial.h): unrolled completely.  g++ -O3 otherwise leaves some rolled
 * or, inside a larger kernel, vectorizes a 2- or 3-trip loop with shuffles
 * (a 2x2 matrix product: twice slower than unrolled); clang unrolls them
 * anyway.  nvcc unrolls such loops by itself. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define KPY_UNROLL _Pragma("GCC unroll 16")
#elif defined(__clang__) && !defined(__CUDACC__)
#define KPY_UNROLL _Pragma("unroll")
#else
#define KPY_UNROLL
#endif

#if defined(KPY_DEBUG)
#include <stdio.h>
#include <stdlib.h>
#define KPY_ASSERT(cond) ((cond) ? (void)0 : ::kpy::assert_fail(#cond, __FILE__, __LINE__))
#else
#define KPY_ASSERT(cond) ((void)0)
#endif

namespace kpy {

/* ------------------------------------------------------------------ */
/* Traits (a few, to keep <type_traits> out of every kernel)           */

namespace detail {
template <bool B, class T = void> struct enable_if { };
template <class T> struct enable_if<true, T> { typedef T type; };
template <class T> struct ident { typedef T type; }; /* blocks deduction */
template <class A, class B> struct same { static const bool value = false; };
template <class A> struct same<A, A> { static const bool value = true; };

/* Integer types (not bool).  sgn: signed; U: the unsigned type of the same width. */
template <class T> struct intinfo { static const bool is = false; };
#define KPY_INTINFO(T, S, UT) \
	template <> struct intinfo<T> { static const bool is = true; static const bool sgn = S; typedef UT U; };
KPY_INTINFO(char, (char)-1 < 0, unsigned char)
KPY_INTINFO(signed char, true, unsigned char)
KPY_INTINFO(unsigned char, false, unsigned char)
KPY_INTINFO(short, true, unsigned short)
KPY_INTINFO(unsigned short, false, unsigned short)
KPY_INTINFO(int, true, unsigned int)
KPY_INTINFO(unsigned int, false, unsigned int)
KPY_INTINFO(long, true, unsigned long)
KPY_INTINFO(unsigned long, false, unsigned long)
KPY_INTINFO(long long, true, unsigned long long)
KPY_INTINFO(unsigned long long, false, unsigned long long)
#undef KPY_INTINFO

template <class T> struct is_int { static const bool value = intinfo<T>::is; };
template <class T, class R = T> struct if_int : enable_if<intinfo<T>::is, R> { };
} // namespace detail

/* ------------------------------------------------------------------ */
/* Scalar types                                                        */

typedef int8_t i8;
typedef int16_t i16;
typedef int32_t i32;
typedef int64_t i64;
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#if defined(KPY_F32_DOUBLE)
typedef double f32;
#else
typedef float f32;
#endif
typedef double f64;

typedef kpy_launch_bounds launch_bounds;

/* ------------------------------------------------------------------ */
/* Bit views of floats                                                  */

KPY_HD inline uint32_t float_bits(float x)
{
#if defined(__CUDA_ARCH__)
	return __float_as_uint(x);
#else
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	return u;
#endif
}

KPY_HD inline float bits_float(uint32_t u)
{
#if defined(__CUDA_ARCH__)
	return __uint_as_float(u);
#else
	float x;
	memcpy(&x, &u, sizeof x);
	return x;
#endif
}

KPY_HD inline uint64_t double_bits(double x)
{
#if defined(__CUDA_ARCH__)
	return (uint64_t)__double_as_longlong(x);
#else
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
#endif
}

KPY_HD inline double bits_double(uint64_t u)
{
#if defined(__CUDA_ARCH__)
	return __longlong_as_double((long long)u);
#else
	double x;
	memcpy(&x, &u, sizeof x);
	return x;
#endif
}

/* ------------------------------------------------------------------ */
/* IEEE binary16                                                        */

namespace detail {
/* float -> half bits, round to nearest even; NaN keeps its sign and top
 * payload bits and becomes quiet (as x86 F16C does). */
KPY_HD inline uint16_t half_from_float(float f)
{
#if defined(__CUDA_ARCH__)
	uint16_t h;
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return h;
#else
	uint32_t x = float_bits(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t ax = x & 0x7fffffffu;
	if (ax > 0x7f800000u) /* NaN */
		return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
	if (ax >= 0x477ff000u) /* >= 65520 rounds to infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (ax >= 0x38800000u) { /* normal half: rebias, round away 13 bits */
		uint32_t r = ax - 0x38000000u;
		r += 0xfffu + ((r >> 13) & 1u);
		return (uint16_t)(sign | (r >> 13));
	}
	if (ax < 0x33000000u) /* below half the smallest subnormal: zero */
		return sign;
	/* subnormal half: value / 2^-24, rounded to nearest even */
	uint32_t e = ax >> 23;
	uint32_t m = (ax & 0x7fffffu) | 0x800000u;
	uint32_t shift = 126u - e; /* 14 .. 24 */
	uint32_t q = m >> shift;
	uint32_t rem = m & ((1u << shift) - 1u);
	uint32_t halfway = 1u << (shift - 1u);
	if (rem > halfway || (rem == halfway && (q & 1u)))
		q++;
	return (uint16_t)(sign | q);
#endif
}

KPY_HD inline float half_to_float(uint16_t h)
{
#if defined(__CUDA_ARCH__)
	float f;
	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
	return f;
#else
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t e = (h >> 10) & 0x1fu;
	uint32_t m = h & 0x3ffu;
	uint32_t bits;
	if (e == 0x1fu) {
		bits = sign | 0x7f800000u | (m << 13);
	} else if (e != 0) {
		bits = sign | ((e + 112u) << 23) | (m << 13);
	} else if (m == 0) {
		bits = sign;
	} else { /* subnormal: normalize */
		e = 113;
		while (!(m & 0x400u)) {
			m <<= 1;
			e--;
		}
		bits = sign | (e << 23) | ((m & 0x3ffu) << 13);
	}
	return bits_float(bits);
#endif
}
} // namespace detail

/* A half-precision float.  Arithmetic is done in float and rounded back,
 * as Warp does; conversions from double round through float (double
 * rounding), as Warp's half(float) constructor does. */
struct f16 {
	uint16_t u; /* IEEE binary16 bits */

	f16() = default;
	KPY_HD explicit f16(float f) : u(detail::half_from_float(f)) { }
	KPY_HD explicit f16(double d) : u(detail::half_from_float((float)d)) { }
	KPY_HD explicit f16(bool b) : u(b ? 0x3c00u : 0u) { }
	template <class I, typename detail::if_int<I, int>::type = 0>
	KPY_HD explicit f16(I i) : u(detail::half_from_float((float)i)) { }

	KPY_HD operator float() const { return detail::half_to_float(u); }

	KPY_HD static f16 from_bits(uint16_t b)
	{
		f16 h;
		h.u = b;
		return h;
	}

	KPY_HD f16 &operator+=(f16 b) { *this = f16((float)*this + (float)b); return *this; }
	KPY_HD f16 &operator-=(f16 b) { *this = f16((float)*this - (float)b); return *this; }
	KPY_HD f16 &operator*=(f16 b) { *this = f16((float)*this * (float)b); return *this; }
	KPY_HD f16 &operator/=(f16 b) { *this = f16((float)*this / (float)b); return *this; }
};

namespace detail {
/* float -> bfloat16 bits as Warp's float_to_bfloat16 (device: cvt.rn.bf16,
 * sm_80+; elsewhere its software path): round to nearest even on the top
 * 16 bits; inf and NaN truncate, a NaN keeps a quiet bit so it stays NaN. */
KPY_HD inline uint16_t bf16_from_float(float f)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	uint16_t h;
	asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return h;
#else
	uint32_t x = float_bits(f);
	if ((x & 0x7f800000u) == 0x7f800000u) {
		uint16_t h = (uint16_t)(x >> 16);
		if ((x & 0x7fffffu) != 0 && (h & 0x7fu) == 0)
			h |= 0x40u;
		return h;
	}
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
#endif
}

KPY_HD inline float bf16_to_float(uint16_t h) { return bits_float((uint32_t)h << 16); }
} // namespace detail

/* Warp's bfloat16: arithmetic in float, rounded back as float_to_bfloat16
 * does; conversions from double round through float. */
struct bf16 {
	uint16_t u; /* the top 16 bits of a float */

	bf16() = default;
	KPY_HD explicit bf16(float f) : u(detail::bf16_from_float(f)) { }
	KPY_HD explicit bf16(double d) : u(detail::bf16_from_float((float)d)) { }
	KPY_HD explicit bf16(bool b) : u(b ? 0x3f80u : 0u) { }
	KPY_HD explicit bf16(f16 h) : u(detail::bf16_from_float((float)h)) { }
	template <class I, typename detail::if_int<I, int>::type = 0>
	KPY_HD explicit bf16(I i) : u(detail::bf16_from_float((float)i)) { }

	KPY_HD operator float() const { return detail::bf16_to_float(u); }

	KPY_HD static bf16 from_bits(uint16_t b)
	{
		bf16 h;
		h.u = b;
		return h;
	}

	KPY_HD bf16 &operator+=(bf16 b) { *this = bf16((float)*this + (float)b); return *this; }
	KPY_HD bf16 &operator-=(bf16 b) { *this = bf16((float)*this - (float)b); return *this; }
	KPY_HD bf16 &operator*=(bf16 b) { *this = bf16((float)*this * (float)b); return *this; }
	KPY_HD bf16 &operator/=(bf16 b) { *this = bf16((float)*this / (float)b); return *this; }
};

KPY_HD inline f16 operator+(f16 a, f16 b) { return f16((float)a + (float)b); }
KPY_HD inline bf16 operator+(bf16 a, bf16 b) { return bf16((float)a + (float)b); }
KPY_HD inline f16 operator-(f16 a, f16 b) { return f16((float)a - (float)b); }
KPY_HD inline bf16 operator-(bf16 a, bf16 b) { return bf16((float)a - (float)b); }
KPY_HD inline f16 operator*(f16 a, f16 b) { return f16((float)a * (float)b); }
KPY_HD inline bf16 operator*(bf16 a, bf16 b) { return bf16((float)a * (float)b); }
KPY_HD inline f16 operator/(f16 a, f16 b) { return f16((float)a / (float)b); }
KPY_HD inline bf16 operator/(bf16 a, bf16 b) { return bf16((float)a / (float)b); }
KPY_HD inline f16 operator-(f16 a) { return f16(-(float)a); }
KPY_HD inline bf16 operator-(bf16 a) { return bf16(-(float)a); }
KPY_HD inline f16 operator+(f16 a) { return a; }
KPY_HD inline bf16 operator+(bf16 a) { return a; }
KPY_HD inline bool operator==(f16 a, f16 b) { return (float)a == (float)b; }
KPY_HD inline bool operator==(bf16 a, bf16 b) { return (float)a == (float)b; }
KPY_HD inline bool operator!=(f16 a, f16 b) { return (float)a != (float)b; }
KPY_HD inline bool operator!=(bf16 a, bf16 b) { return (float)a != (float)b; }
KPY_HD inline bool operator<(f16 a, f16 b) { return (float)a < (float)b; }
KPY_HD inline bool operator<(bf16 a, bf16 b) { return (float)a < (float)b; }
KPY_HD inline bool operator<=(f16 a, f16 b) { return (float)a <= (float)b; }
KPY_HD inline bool operator<=(bf16 a, bf16 b) { return (float)a <= (float)b; }
KPY_HD inline bool operator>(f16 a, f16 b) { return (float)a > (float)b; }
KPY_HD inline bool operator>(bf16 a, bf16 b) { return (float)a > (float)b; }
KPY_HD inline bool operator>=(f16 a, f16 b) { return (float)a >= (float)b; }
KPY_HD inline bool operator>=(bf16 a, bf16 b) { return (float)a >= (float)b; }
KPY_HD inline bool operator!(f16 a) { return (float)a == 0.0f; }
KPY_HD inline bool operator!(bf16 a) { return (float)a == 0.0f; }

namespace detail {
/* Scalars a composite may hold, and that casts accept. */
template <class T> struct is_scalar { static const bool value = intinfo<T>::is; };
template <> struct is_scalar<bool> { static const bool value = true; };
template <> struct is_scalar<float> { static const bool value = true; };
template <> struct is_scalar<double> { static const bool value = true; };
template <> struct is_scalar<f16> { static const bool value = true; };
template <> struct is_scalar<bf16> { static const bool value = true; };
template <class... A> struct all_scalar { static const bool value = true; };
template <class T, class... A> struct all_same_as { static const bool value = true; };
template <class T, class A, class... R> struct all_same_as<T, A, R...> {
	static const bool value = same<T, A>::value && all_same_as<T, R...>::value;
};
template <class A, class... R> struct all_scalar<A, R...> {
	static const bool value = is_scalar<A>::value && all_scalar<R...>::value;
};
template <class T> struct is_float { static const bool value = false; };
template <> struct is_float<float> { static const bool value = true; };
template <> struct is_float<double> { static const bool value = true; };
template <> struct is_float<f16> { static const bool value = true; };
template <> struct is_float<bf16> { static const bool value = true; };
} // namespace detail

/* ------------------------------------------------------------------ */
/* Assertions (KPY_ASSERT)                                              */

#if defined(KPY_DEBUG)
KPY_HD inline void assert_fail(const char *cond, const char *file, int line)
{
#if defined(__CUDA_ARCH__)
	printf("%s:%d: assertion failed: %s\n", file, line, cond);
	__trap();
#else
	fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, cond);
	abort();
#endif
}
#endif

/* ------------------------------------------------------------------ */
/* Classification                                                       */

KPY_HD inline bool isnan(float x) { return (float_bits(x) & 0x7fffffffu) > 0x7f800000u; }
KPY_HD inline bool isinf(float x) { return (float_bits(x) & 0x7fffffffu) == 0x7f800000u; }
KPY_HD inline bool isfinite(float x) { return (float_bits(x) & 0x7fffffffu) < 0x7f800000u; }
KPY_HD inline bool isnan(double x) { return (double_bits(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
KPY_HD inline bool isinf(double x) { return (double_bits(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull; }
KPY_HD inline bool isfinite(double x) { return (double_bits(x) & 0x7fffffffffffffffull) < 0x7ff0000000000000ull; }
KPY_HD inline bool isnan(f16 x) { return (x.u & 0x7fffu) > 0x7c00u; }
KPY_HD inline bool isnan(bf16 x) { return (x.u & 0x7fffu) > 0x7f80u; }
KPY_HD inline bool isinf(f16 x) { return (x.u & 0x7fffu) == 0x7c00u; }
KPY_HD inline bool isinf(bf16 x) { return (x.u & 0x7fffu) == 0x7f80u; }
KPY_HD inline bool isfinite(f16 x) { return (x.u & 0x7fffu) < 0x7c00u; }
KPY_HD inline bool isfinite(bf16 x) { return (x.u & 0x7fffu) < 0x7f80u; }
template <class I> KPY_HD inline typename detail::if_int<I, bool>::type isnan(I) { return false; }
template <class I> KPY_HD inline typename detail::if_int<I, bool>::type isinf(I) { return false; }
template <class I> KPY_HD inline typename detail::if_int<I, bool>::type isfinite(I) { return true; }

/* ------------------------------------------------------------------ */
/* min, max, clamp: floats follow C fmin/fmax (a NaN operand is ignored
 * unless both are NaN).  Host: Warp's ordered-compare form; device: fmin. */

KPY_HD inline float min(float a, float b)
{
#if defined(__CUDA_ARCH__)
	return ::fminf(a, b);
#elif defined(KPY_MASK_MINMAX)
	/* all ones where the result is b: a <= b false and b not NaN */
	const uint32_t m = (uint32_t)0 - (uint32_t)(!(a <= b) & (b == b));
	return bits_float((float_bits(a) & ~m) | (float_bits(b) & m));
#else
	return (a <= b) ? a : ((b == b) ? b : a);
#endif
}
KPY_HD inline double min(double a, double b)
{
#if defined(__CUDA_ARCH__)
	return ::fmin(a, b);
#elif defined(KPY_MASK_MINMAX)
	/* all ones where the result is b: a <= b false and b not NaN */
	const uint64_t m = (uint64_t)0 - (uint64_t)(!(a <= b) & (b == b));
	return bits_double((double_bits(a) & ~m) | (double_bits(b) & m));
#else
	return (a <= b) ? a : ((b == b) ? b : a);
#endif
}
KPY_HD inline float max(float a, float b)
{
#if defined(__CUDA_ARCH__)
	return ::fmaxf(a, b);
#elif defined(KPY_MASK_MINMAX)
	/* all ones where the result is b: a >= b false and b not NaN */
	const uint32_t m = (uint32_t)0 - (uint32_t)(!(a >= b) & (b == b));
	return bits_float((float_bits(a) & ~m) | (float_bits(b) & m));
#else
	return (a >= b) ? a : ((b == b) ? b : a);
#endif
}
KPY_HD inline double max(double a, double b)
{
#if defined(__CUDA_ARCH__)
	return ::fmax(a, b);
#elif defined(KPY_MASK_MINMAX)
	/* all ones where the result is b: a >= b false and b not NaN */
	const uint64_t m = (uint64_t)0 - (uint64_t)(!(a >= b) & (b == b));
	return bits_double((double_bits(a) & ~m) | (double_bits(b) & m));
#else
	return (a >= b) ? a : ((b == b) ? b : a);
#endif
}
KPY_HD inline f16 min(f16 a, f16 b) { return f16(min((float)a, (float)b)); }
KPY_HD inline bf16 min(bf16 a, bf16 b) { return bf16(min((float)a, (float)b)); }
KPY_HD inline f16 max(f16 a, f16 b) { return f16(max((float)a, (float)b)); }
KPY_HD inline bf16 max(bf16 a, bf16 b) { return bf16(max((float)a, (float)b)); }
template <class I> KPY_HD inline typename detail::if_int<I>::type min(I a, I b) { return a < b ? a : b; }
template <class I> KPY_HD inline typename detail::if_int<I>::type max(I a, I b) { return a > b ? a : b; }

namespace detail {
/* min/max for a running result (atomic_min/max's read-modify-write): the
 * ordered-compare form as written, whose branch g++ predicts well there
 * (the result rarely changes), where a select would lengthen the chain
 * from one update to the next. */
template <class T> KPY_HD inline T running_min(T a, T b) { return min(a, b); }
template <class T> KPY_HD inline T running_max(T a, T b) { return max(a, b); }
#if !defined(__CUDA_ARCH__)
KPY_HD inline float running_min(float a, float b) { return (a <= b) ? a : ((b == b) ? b : a); }
KPY_HD inline double running_min(double a, double b) { return (a <= b) ? a : ((b == b) ? b : a); }
KPY_HD inline float running_max(float a, float b) { return (a >= b) ? a : ((b == b) ? b : a); }
KPY_HD inline double running_max(double a, double b) { return (a >= b) ? a : ((b == b) ? b : a); }
#endif
} // namespace detail

/* clamp(x, lo, hi) = min(max(lo, x), hi), argument order as in Warp. */
KPY_HD inline float clamp(float x, float a, float b) { return min(max(a, x), b); }
KPY_HD inline double clamp(double x, double a, double b) { return min(max(a, x), b); }
KPY_HD inline f16 clamp(f16 x, f16 a, f16 b) { return f16(clamp((float)x, (float)a, (float)b)); }
KPY_HD inline bf16 clamp(bf16 x, bf16 a, bf16 b) { return bf16(clamp((float)x, (float)a, (float)b)); }
template <class I> KPY_HD inline typename detail::if_int<I>::type clamp(I x, I a, I b) { return min(max(a, x), b); }

/* ------------------------------------------------------------------ */
/* Unary math on floats.  f16 computes in float and rounds back.        */

#define KPY_MATH1(name, ffn, dfn) \
	KPY_HD inline float name(float x) { return ::ffn(x); } \
	KPY_HD inline double name(double x) { return ::dfn(x); } \
	KPY_HD inline f16 name(f16 x) { return f16(::ffn((float)x)); } \
	KPY_HD inline bf16 name(bf16 x) { return bf16(::ffn((float)x)); }
KPY_MATH1(sqrt, sqrtf, sqrt)
KPY_MATH1(cbrt, cbrtf, cbrt)
KPY_MATH1(exp, expf, exp)
KPY_MATH1(log, logf, log)
KPY_MATH1(log2, log2f, log2)
KPY_MATH1(log10, log10f, log10)
KPY_MATH1(sin, sinf, sin)
KPY_MATH1(cos, cosf, cos)
KPY_MATH1(tan, tanf, tan)
KPY_MATH1(atan, atanf, atan)
KPY_MATH1(sinh, sinhf, sinh)
KPY_MATH1(cosh, coshf, cosh)
KPY_MATH1(tanh, tanhf, tanh)
KPY_MATH1(erf, erff, erf)
KPY_MATH1(erfc, erfcf, erfc)
KPY_MATH1(floor, floorf, floor)
KPY_MATH1(ceil, ceilf, ceil)
KPY_MATH1(trunc, truncf, trunc)
KPY_MATH1(round, roundf, round) /* halves away from zero */
KPY_MATH1(rint, rintf, rint)    /* halves to even */
#undef KPY_MATH1

KPY_HD inline float abs(float x) { return ::fabsf(x); }
KPY_HD inline double abs(double x) { return ::fabs(x); }
KPY_HD inline f16 abs(f16 x) { return f16(::fabsf((float)x)); }
KPY_HD inline bf16 abs(bf16 x) { return bf16(::fabsf((float)x)); }

/* asin/acos clamp their argument to [-1, 1] first, with min/max above:
 * a NaN argument therefore becomes -1 (Warp: acos(nan) == pi). */
KPY_HD inline float asin(float x) { return ::asinf(min(max(x, -1.0f), 1.0f)); }
KPY_HD inline double asin(double x) { return ::asin(min(max(x, -1.0), 1.0)); }
KPY_HD inline f16 asin(f16 x) { return f16(asin((float)x)); }
KPY_HD inline bf16 asin(bf16 x) { return bf16(asin((float)x)); }
KPY_HD inline float acos(float x) { return ::acosf(min(max(x, -1.0f), 1.0f)); }
KPY_HD inline double acos(double x) { return ::acos(min(max(x, -1.0), 1.0)); }
KPY_HD inline f16 acos(f16 x) { return f16(acos((float)x)); }
KPY_HD inline bf16 acos(bf16 x) { return bf16(acos((float)x)); }

KPY_HD inline float atan2(float y, float x) { return ::atan2f(y, x); }
KPY_HD inline double atan2(double y, double x) { return ::atan2(y, x); }
KPY_HD inline f16 atan2(f16 y, f16 x) { return f16(::atan2f((float)y, (float)x)); }
KPY_HD inline bf16 atan2(bf16 y, bf16 x) { return bf16(::atan2f((float)y, (float)x)); }
KPY_HD inline float pow(float a, float b) { return ::powf(a, b); }
KPY_HD inline double pow(double a, double b) { return ::pow(a, b); }
KPY_HD inline f16 pow(f16 a, f16 b) { return f16(::powf((float)a, (float)b)); }
KPY_HD inline bf16 pow(bf16 a, bf16 b) { return bf16(::powf((float)a, (float)b)); }

KPY_HD inline float copysign(float x, float y)
{
#if !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__))
	return __builtin_copysignf(x, y);
#else
	return ::copysignf(x, y);
#endif
}
KPY_HD inline double copysign(double x, double y)
{
#if !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__))
	return __builtin_copysign(x, y);
#else
	return ::copysign(x, y);
#endif
}
KPY_HD inline f16 copysign(f16 x, f16 y) { return f16(copysign((float)x, (float)y)); }
KPY_HD inline bf16 copysign(bf16 x, bf16 y) { return bf16(copysign((float)x, (float)y)); }

/* degrees/radians multiply by a double constant: the product is formed in
 * double and rounded to the argument's type (f16: through float). */
#define KPY_RAD_TO_DEG 57.29577951308232087679
#define KPY_DEG_TO_RAD 0.01745329251994329577
KPY_HD inline float degrees(float x) { return (float)(x * KPY_RAD_TO_DEG); }
KPY_HD inline double degrees(double x) { return x * KPY_RAD_TO_DEG; }
KPY_HD inline f16 degrees(f16 x) { return f16((double)(float)x * KPY_RAD_TO_DEG); }
KPY_HD inline bf16 degrees(bf16 x) { return bf16((double)(float)x * KPY_RAD_TO_DEG); }
KPY_HD inline float radians(float x) { return (float)(x * KPY_DEG_TO_RAD); }
KPY_HD inline double radians(double x) { return x * KPY_DEG_TO_RAD; }
KPY_HD inline f16 radians(f16 x) { return f16((double)(float)x * KPY_DEG_TO_RAD); }
KPY_HD inline bf16 radians(bf16 x) { return bf16((double)(float)x * KPY_DEG_TO_RAD); }

/* frac(x) = x - trunc(x) */
KPY_HD inline float frac(float x) { return x - trunc(x); }
KPY_HD inline double frac(double x) { return x - trunc(x); }
KPY_HD inline f16 frac(f16 x) { return f16(frac((float)x)); }
KPY_HD inline bf16 frac(bf16 x) { return bf16(frac((float)x)); }

/* sign(x) = x < 0 ? -1 : 1 (so sign(0) == sign(-0) == sign(nan) == 1);
 * step(x) = x < 0 ? 1 : 0; nonzero(x) = x == 0 ? 0 : 1. */
KPY_HD inline float sign(float x) { return x < 0.0f ? -1.0f : 1.0f; }
KPY_HD inline double sign(double x) { return x < 0.0 ? -1.0 : 1.0; }
KPY_HD inline f16 sign(f16 x) { return f16(sign((float)x)); }
KPY_HD inline bf16 sign(bf16 x) { return bf16(sign((float)x)); }
KPY_HD inline float step(float x) { return x < 0.0f ? 1.0f : 0.0f; }
KPY_HD inline double step(double x) { return x < 0.0 ? 1.0 : 0.0; }
KPY_HD inline f16 step(f16 x) { return f16(step((float)x)); }
KPY_HD inline bf16 step(bf16 x) { return bf16(step((float)x)); }
KPY_HD inline float nonzero(float x) { return x == 0.0f ? 0.0f : 1.0f; }
KPY_HD inline double nonzero(double x) { return x == 0.0 ? 0.0 : 1.0; }
KPY_HD inline f16 nonzero(f16 x) { return f16(nonzero((float)x)); }
KPY_HD inline bf16 nonzero(bf16 x) { return bf16(nonzero((float)x)); }

/* mod = C fmod (sign of the dividend); floordiv = floor(a / b), with the
 * quotient rounded to the operands' type first (f16 divides in half). */
KPY_HD inline float mod(float a, float b) { return ::fmodf(a, b); }
KPY_HD inline double mod(double a, double b) { return ::fmod(a, b); }
KPY_HD inline f16 mod(f16 a, f16 b) { return f16(::fmodf((float)a, (float)b)); }
KPY_HD inline bf16 mod(bf16 a, bf16 b) { return bf16(::fmodf((float)a, (float)b)); }
KPY_HD inline float floordiv(float a, float b) { return ::floorf(a / b); }
KPY_HD inline double floordiv(double a, double b) { return ::floor(a / b); }
KPY_HD inline f16 floordiv(f16 a, f16 b) { return f16(::floorf((float)(a / b))); }
KPY_HD inline bf16 floordiv(bf16 a, bf16 b) { return bf16(::floorf((float)(a / b))); }

/* erfinv/erfcinv: CUDA's on the device; on the host Warp's definition
 * erfinv(z) = ndtri((z + 1) / 2) / sqrt(2) with ndtri from the Cephes
 * library (S. L. Moshier), computed in double; erfcinv(x) = erfinv(1 - x).
 * The float versions round the double result. */
namespace detail {
inline double cephes_polevl(double x, const double *c, int n)
{
	double r = c[0];
	for (int i = 1; i <= n; i++)
		r = r * x + c[i];
	return r;
}

inline double cephes_p1evl(double x, const double *c, int n)
{
	double r = x + c[0];
	for (int i = 1; i < n; i++)
		r = r * x + c[i];
	return r;
}

inline double cephes_ndtri(double y)
{
	static const double s2pi = 2.50662827463100050242E0;
	static const double expm2 = 0.13533528323661269189;
	static const double P0[5] = {-5.99633501014107895267E1, 9.80010754185999661536E1,
		-5.66762857469070293439E1, 1.39312609387279679503E1, -1.23916583867381258016E0};
	static const double Q0[8] = {1.95448858338141759834E0, 4.67627912898881538453E0,
		8.63602421390890590575E1, -2.25462687854119370527E2, 2.00260212380060660359E2,
		-8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0};
	static const double P1[9] = {4.05544892305962419923E0, 3.15251094599893866154E1,
		5.71628192246421288162E1, 4.40805073893200834700E1, 1.46849561928858024014E1,
		2.18663306850790267539E0, -1.40256079171354495875E-1, -3.50424626827848203418E-2,
		-8.57456785154685413611E-4};
	static const double Q1[8] = {1.57799883256466749731E1, 4.53907635128879210584E1,
		4.13172038254672030440E1, 1.50425385692907503408E1, 2.50464946208309415979E0,
		-1.42182922854787788574E-1, -3.80806407691578277194E-2, -9.33259480895457427372E-4};
	static const double P2[9] = {3.23774891776946035970E0, 6.91522889068984211695E0,
		3.93881025292474443415E0, 1.33303460815807542389E0, 2.01485389549179081538E-1,
		1.23716634817820021358E-2, 3.01581553508235416007E-4, 2.65806974686737550832E-6,
		6.23974539184983293730E-9};
	static const double Q2[8] = {6.02427039364742014255E0, 3.67983563856160859403E0,
		1.37702099489081330271E0, 2.16236993594496635890E-1, 1.34204006088543189037E-2,
		3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9};

	if (y <= 0.0)
		return -HUGE_VAL;
	if (y >= 1.0)
		return HUGE_VAL;
	int negate = 1;
	if (y > 1.0 - expm2) {
		y = 1.0 - y;
		negate = 0;
	}
	if (y > expm2) {
		y = y - 0.5;
		double y2 = y * y;
		double x = y + y * (y2 * cephes_polevl(y2, P0, 4) / cephes_p1evl(y2, Q0, 8));
		return x * s2pi;
	}
	double x = ::sqrt(-2.0 * ::log(y));
	double x0 = x - ::log(x) / x;
	double z = 1.0 / x;
	double x1;
	if (x < 8.0)
		x1 = z * cephes_polevl(z, P1, 8) / cephes_p1evl(z, Q1, 8);
	else
		x1 = z * cephes_polevl(z, P2, 8) / cephes_p1evl(z, Q2, 8);
	x = x0 - x1;
	return negate ? -x : x;
}

inline double erfinv_host(double z)
{
	if (z == 0.0)
		return 0.0;
	if (z == 1.0)
		return HUGE_VAL;
	if (z == -1.0)
		return -HUGE_VAL;
	if (z < -1.0 || z > 1.0)
		return NAN;
	return cephes_ndtri((z + 1.0) / 2.0) / ::sqrt(2.0);
}
} // namespace detail

KPY_HD inline double erfinv(double x)
{
#if defined(__CUDA_ARCH__)
	return ::erfinv(x);
#else
	return detail::erfinv_host(x);
#endif
}
KPY_HD inline float erfinv(float x)
{
#if defined(__CUDA_ARCH__)
	return ::erfinvf(x);
#else
	return (float)detail::erfinv_host((double)x);
#endif
}
KPY_HD inline double erfcinv(double x)
{
#if defined(__CUDA_ARCH__)
	return ::erfcinv(x);
#else
	return detail::erfinv_host(1.0 - x);
#endif
}
KPY_HD inline float erfcinv(float x)
{
#if defined(__CUDA_ARCH__)
	return ::erfcinvf(x);
#else
	return (float)detail::erfinv_host(1.0 - (double)x);
#endif
}
KPY_HD inline f16 erfinv(f16 x) { return f16(erfinv((float)x)); }
KPY_HD inline bf16 erfinv(bf16 x) { return bf16(erfinv((float)x)); }
KPY_HD inline f16 erfcinv(f16 x) { return f16(erfcinv((float)x)); }
KPY_HD inline bf16 erfcinv(bf16 x) { return bf16(erfcinv((float)x)); }

/* lerp(a, b, t) = a*(1-t) + b*t and smoothstep, in the operands' type. */
template <class T> KPY_HD inline typename detail::enable_if<detail::is_float<T>::value, T>::type
lerp(T a, T b, T t)
{
	return a * (T(1) - t) + b * t;
}

template <class T> KPY_HD inline typename detail::enable_if<detail::is_float<T>::value, T>::type
smoothstep(T edge0, T edge1, T x)
{
	x = clamp((x - edge0) / (edge1 - edge0), T(0), T(1));
	return x * x * (T(3) - T(2) * x);
}

/* ------------------------------------------------------------------ */
/* Integers                                                             */

namespace detail {
template <bool S> struct intsign;
template <> struct intsign<true> {
	template <class T> KPY_HD static bool neg(T x) { return x < 0; }
};
template <> struct intsign<false> {
	template <class T> KPY_HD static bool neg(T) { return false; }
};
template <class T> KPY_HD inline bool isneg(T x) { return intsign<intinfo<T>::sgn>::neg(x); }
} // namespace detail

/* abs wraps at the most negative value (abs(i8(-128)) == -128). */
template <class I> KPY_HD inline typename detail::if_int<I>::type abs(I x)
{
	typedef typename detail::intinfo<I>::U U;
	return detail::isneg(x) ? (I)(U)(0u - (U)x) : x;
}
template <class I> KPY_HD inline typename detail::if_int<I>::type sign(I x) { return detail::isneg(x) ? (I)-1 : (I)1; }
template <class I> KPY_HD inline typename detail::if_int<I>::type step(I x) { return detail::isneg(x) ? (I)1 : (I)0; }
template <class I> KPY_HD inline typename detail::if_int<I>::type nonzero(I x) { return x == 0 ? (I)0 : (I)1; }

/* mod: C remainder (sign of the dividend). */
template <class I> KPY_HD inline typename detail::if_int<I>::type mod(I a, I b) { return (I)(a % b); }

/* floordiv: quotient rounded toward negative infinity (Warp >= 1.18). */
template <class I> KPY_HD inline typename detail::if_int<I>::type floordiv(I a, I b)
{
	I q = (I)(a / b);
	if (detail::isneg(a) != detail::isneg(b) && (I)(a % b) != 0)
		q = (I)(q - 1);
	return q;
}

/* bit_count: population count of the value's own width, as i32. */
template <class I> KPY_HD inline typename detail::if_int<I, i32>::type bit_count(I x)
{
	typedef typename detail::intinfo<I>::U U;
	U u = (U)x;
	if (sizeof(U) <= 4) {
#if defined(__CUDA_ARCH__)
		return (i32)__popc((unsigned int)u);
#else
		return (i32)__builtin_popcount((unsigned int)u);
#endif
	}
#if defined(__CUDA_ARCH__)
	return (i32)__popcll((unsigned long long)u);
#else
	return (i32)__builtin_popcountll((unsigned long long)u);
#endif
}

/* ------------------------------------------------------------------ */
/* neg and pos: Warp's scalar neg is 0 - x, so neg(0.0) is +0.0 (the C++
 * unary minus gives -0.0).  Composites negate each component. */

template <class T> KPY_HD inline typename detail::enable_if<detail::is_scalar<T>::value, T>::type neg(T x)
{
	return (T)(T(0) - x);
}
template <class T> KPY_HD inline typename detail::enable_if<detail::is_scalar<T>::value, T>::type pos(T x)
{
	return x;
}

/* ------------------------------------------------------------------ */
/* Launch grid                                                          */

/* Unravel a linear thread index into ndim coordinates, last dimension
 * fastest (Warp's wp.tid()). */
KPY_HD inline void unravel(const launch_bounds &b, int64_t linear, i32 *out)
{
	for (int d = b.ndim - 1; d > 0; --d) {
		out[d] = (i32)(linear % b.shape[d]);
		linear /= b.shape[d];
	}
	out[0] = (i32)linear;
}

/* Bounds of a grid of the given extents (unused trailing extents: 0). */
KPY_HD inline launch_bounds make_launch_bounds(int ndim, i32 n0, i32 n1 = 0, i32 n2 = 0, i32 n3 = 0)
{
	launch_bounds b;
	b.ndim = ndim;
	b.shape[0] = n0;
	b.shape[1] = ndim > 1 ? n1 : 0;
	b.shape[2] = ndim > 2 ? n2 : 0;
	b.shape[3] = ndim > 3 ? n3 : 0;
	b.size = 1;
	for (int d = 0; d < ndim; d++)
		b.size *= b.shape[d];
	return b;
}

namespace detail {
/* c + a*b: fused for float and double, rounded twice for f16 and ints (the
 * fma op, and the matrix products of mat.h). */
template <class T> KPY_HD inline T muladd(T a, T b, T c) { return (T)(c + a * b); }
template <> KPY_HD inline float muladd<float>(float a, float b, float c) { return ::fmaf(a, b, c); }
template <> KPY_HD inline double muladd<double>(double a, double b, double c) { return ::fma(a, b, c); }
} // namespace detail

/* wp.block_dim(): the threads per block of the launch (Warp's builtin.h:
 * blockDim.x on CUDA; on the CPU Warp's module block_dim, which resolves to
 * 1 unless warp.config.enable_cpu_blocks is set, and krun runs one thread
 * at a time). */
KPY_HD inline i32 block_dim()
{
#if defined(__CUDA_ARCH__)
	return (i32)blockDim.x;
#else
	return 1;
#endif
}

#if defined(__CUDACC__)
/* Grid-stride loop: for (i64 i = grid_index(); i < b.size; i += grid_stride()) */
__device__ inline int64_t grid_index() { return (int64_t)blockDim.x * blockIdx.x + threadIdx.x; }
__device__ inline int64_t grid_stride() { return (int64_t)blockDim.x * gridDim.x; }
#endif

} // namespace kpy

#endif /* KPY_CORE_H */
