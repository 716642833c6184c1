/*
 * unit_test.cpp — checks of the runtime that need no Warp reference:
 * half-precision conversions (all halves, and floats against the
 * compiler's _Float16 when it has one), array indexing and views, the ABI
 * structs, atomics (values, and real atomicity under threads), the launch
 * grid, constructors and component access.  One unnumbered TAP line per
 * check (the .test script numbers them).
 */
#include "kpy/kpy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thread>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char *name)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", name);
	failures += !ok;
}

/* ------------------------------------------------------------------ */
/* f16                                                                  */

void test_half()
{
	/* every half converts to float and back to itself (NaNs stay NaN) */
	bool ok = true;
	for (unsigned h = 0; h < 65536; h++) {
		kpy::f16 x = kpy::f16::from_bits((uint16_t)h);
		float f = (float)x;
		kpy::f16 y(f);
		bool nan = (h & 0x7fffu) > 0x7c00u;
		if (nan ? !(kpy::isnan(f) && kpy::isnan(y) && (y.u & 0x8000u) == (h & 0x8000u)) : y.u != h)
			ok = false;
	}
	check(ok, "f16: every half -> float -> half is the identity");

	/* values spelled out */
	check(kpy::f16(1.0f).u == 0x3c00 && kpy::f16(-2.0f).u == 0xc000 && kpy::f16(65504.0f).u == 0x7bff &&
			kpy::f16(65520.0f).u == 0x7c00 && kpy::f16(65519.99f).u == 0x7bff &&
			kpy::f16(5.9604645e-08f).u == 0x0001 && kpy::f16(2.9802322e-08f).u == 0x0000 &&
			kpy::f16(2.9802326e-08f).u == 0x0001 && kpy::f16(-0.0f).u == 0x8000 && kpy::f16(0.1f).u == 0x2e66,
		"f16: rounding of edge values (max, overflow, subnormals, ties)");
	check(kpy::f16(1e-8).u == 0 && kpy::f16(0.1).u == 0x2e66 && kpy::f16(3).u == 0x4200 &&
			kpy::f16((kpy::u64)70000).u == 0x7c00 && kpy::f16(true).u == 0x3c00,
		"f16: conversions from double, integers and bool");
	/* double rounding through float, as Warp: this double is just above a
	 * half tie but rounds to the tie in float */
	double d = 1.0 + 1.0 / 2048 + 1.0 / (1 << 30);
	check(kpy::f16(d).u == 0x3c00 && kpy::f16((float)d).u == 0x3c00, "f16: from double rounds through float");

#if defined(__FLT16_MAX__)
	/* against the compiler's own conversion */
	uint32_t state = 12345;
	ok = true;
	for (int i = 0; i < 4000000 && ok; i++) {
		state = kpy::rand_pcg(state);
		uint32_t bits = state;
		if (i % 4 == 0) /* concentrate on the half range */
			bits = (bits & 0x80ffffffu) | ((0x30u + (bits >> 24) % 0x18u) << 24);
		float f = kpy::bits_float(bits);
		if (kpy::isnan(f))
			continue;
		_Float16 h = (_Float16)f;
		uint16_t hb;
		memcpy(&hb, &h, 2);
		if (kpy::f16(f).u != hb) {
			printf("# f16(%a): kpy %04x, compiler %04x\n", (double)f, kpy::f16(f).u, hb);
			ok = false;
		}
	}
	check(ok, "f16: float -> half agrees with _Float16 on 4M floats");
#else
	printf("ok - f16: float -> half against _Float16 # SKIP compiler has no _Float16\n");
#endif

	kpy::f16 a(1.5f), b(0.1f);
	check((a + b).u == kpy::f16(1.5f + (float)b).u && (a * b).u == kpy::f16(1.5f * (float)b).u &&
			(a / b).u == kpy::f16(1.5f / (float)b).u && (-a).u == 0xbe00 && a > b && !(a == b) && (kpy::i32)a == 1,
		"f16: arithmetic rounds float results; comparisons; casts");
}

/* ------------------------------------------------------------------ */
/* composites                                                           */

void test_composites()
{
	kpy::vec3f v(1.0f, 2.0f, 3.0f);
	check(v[-1] == 3.0f && v[-3] == 1.0f && kpy::vec3f(2.0f) == kpy::vec3f(2.0f, 2.0f, 2.0f) &&
			kpy::vec3f() == kpy::vec3f(0.0f, 0.0f, 0.0f),
		"vec: negative indices, fill and zero constructors");
	kpy::mat22f m(1.0f, 2.0f, 3.0f, 4.0f);
	check(m[0][1] == 2.0f && m[1][0] == 3.0f && m[-1][-1] == 4.0f && m[1] == kpy::vec2f(3.0f, 4.0f) &&
			kpy::mat22f(kpy::vec2f(1.0f, 2.0f), kpy::vec2f(3.0f, 4.0f)) == m && kpy::mat22f(7.0f)[1][0] == 7.0f,
		"mat: row-major elements, rows, row-vector constructor, fill");
	check(kpy::matrix_from_cols<kpy::mat22f>(kpy::vec2f(1.0f, 3.0f), kpy::vec2f(2.0f, 4.0f)) == m &&
			kpy::identity<kpy::mat33d>()[2][2] == 1.0 && kpy::identity<kpy::mat33d>()[2][1] == 0.0,
		"mat: matrix_from_cols, identity");
	kpy::quatf q(1.0f, 2.0f, 3.0f, 4.0f);
	check(q[0] == 1.0f && q[3] == 4.0f && q[-1] == 4.0f && kpy::quatf() == kpy::quatf(0, 0, 0, 0) &&
			kpy::quat_identity<kpy::quatf>() == kpy::quatf(0, 0, 0, 1) && kpy::quatf(v, 4.0f) == q,
		"quat: (x, y, z, w) order, zero default, identity, (vec3, w)");
	kpy::transformf t(v, q);
	check(t[0] == 1.0f && t[3] == 1.0f && t[6] == 4.0f && t[-1] == 4.0f && kpy::transformf() == kpy::transformf(0.0f) &&
			kpy::transformf(v).q == kpy::quat_identity<kpy::quatf>() &&
			kpy::transformf(1.0f, 2.0f, 3.0f, 1.0f, 2.0f, 3.0f, 4.0f) == t &&
			kpy::transform_identity<kpy::transformf>().q.w == 1.0f,
		"transform: p then q, zero default, transform(p), 7 scalars, identity");
	kpy::vec_t<6, double> sv(kpy::vec3d(1.0, 2.0, 3.0), kpy::vec3d(4.0, 5.0, 6.0));
	check(sv[3] == 4.0 && kpy::spatial_bottom(sv)[2] == 6.0, "spatial vector from (w, v)");
	check(kpy::vec3d(kpy::vec3f(0.1f))[0] == (double)0.1f && kpy::vec3i(kpy::vec3f(-1.7f))[0] == -1 &&
			kpy::vec3h(kpy::vec3d(0.1))[1].u == 0x2e66 && kpy::mat22d(m)[1][1] == 4.0,
		"composite conversions (truncating to int, rounding to half)");
	check(kpy::insert(v, -1, 9.0f) == kpy::vec3f(1.0f, 2.0f, 9.0f) && kpy::insert(m, 0, 1, 9.0f)[0][1] == 9.0f &&
			kpy::insert(q, 3, 0.0f).w == 0.0f && kpy::insert(t, 6, 0.5f).q.w == 0.5f,
		"insert returns updated copies");
	kpy::vec3i a(12, -7, 5), b(10, 3, 1);
	check((a & b) == kpy::vec3i(8, 1, 1) && (a | b) == kpy::vec3i(14, -5, 5) && (a ^ b) == kpy::vec3i(6, -6, 4) &&
			(a << b) == kpy::vec3i(12288, -56, 10) && (a >> b) == kpy::vec3i(0, -1, 2) && (~a) == kpy::vec3i(-13, 6, -6),
		"integer vector bitwise operators");
}

/* ------------------------------------------------------------------ */
/* arrays                                                               */

void test_arrays()
{
	float buf[2 * 3 * 4];
	for (int i = 0; i < 24; i++)
		buf[i] = (float)i;
	kpy::array_t<float, 3> a(buf, 2, 3, 4);
	check(a.strides[0] == 48 && a.strides[1] == 16 && a.strides[2] == 4 && kpy::shape(a, 1) == 3,
		"array: C-order byte strides and shape");
	check(kpy::load(a, 1, 2, 3) == 23.0f && kpy::load(a, -1, -1, -1) == 23.0f && kpy::load(a, -2, 0, -4) == 0.0f,
		"array: element access, negative indices wrap (Warp release builds)");
	kpy::array_t<float, 2> v = kpy::view(a, 1);
	kpy::array_t<float, 1> w = kpy::view(a, -1, 1);
	check(kpy::load(v, 0, 0) == 12.0f && kpy::shape(v, 0) == 3 && kpy::load(w, 2) == 18.0f && kpy::shape(w, 0) == 4,
		"array: view at leading indices");
	kpy::store(a, 0, 1, -1, 99.0f);
	kpy::address(a, 0, 0, 0) += 1.0f;
	check(buf[7] == 99.0f && buf[0] == 1.0f, "array: store and address");
	/* a strided (transposed) view through the ABI struct */
	kpy_array raw;
	raw.data = buf;
	raw.ndim = 2;
	raw.shape[0] = 4;
	raw.shape[1] = 2;
	raw.shape[2] = raw.shape[3] = 0;
	raw.strides[0] = 4;
	raw.strides[1] = 48;
	raw.strides[2] = raw.strides[3] = 0;
	kpy::array_t<float, 2> tr(raw);
	kpy_array back = tr.abi();
	check(kpy::load(tr, 3, 1) == 15.0f && back.ndim == 2 && back.strides[1] == 48 && back.shape[0] == 4 &&
			back.data == (void *)buf,
		"array: arbitrary strides from kpy_array, and back");
	kpy::array_t<float, 1> empty;
	check(!empty && (bool)a, "array: truth is having storage (Warp's where(arr, ...))");
	check(sizeof(kpy_array) == 64 && sizeof(kpy_launch_bounds) == 32, "abi: struct sizes");
	kpy::array_t<kpy::vec3f, 1> va((kpy::vec3f *)buf, 8);
	check(va.strides[0] == 12 && kpy::load(va, 1)[0] == 3.0f, "array of vec3f: 12-byte elements");
}

/* ------------------------------------------------------------------ */
/* atomics                                                              */

template <class T> bool seq_ok(T init, T v, T (*op)(T *, T), T want_old, T want_new)
{
	T x = init;
	T old = op(&x, v);
	return old == want_old && x == want_new;
}

void test_atomic_values()
{
	check(seq_ok<kpy::i32>(5, 3, kpy::atomic_add, 5, 8) && seq_ok<kpy::i32>(5, 3, kpy::atomic_sub, 5, 2) &&
			seq_ok<kpy::i32>(5, 3, kpy::atomic_min, 5, 3) && seq_ok<kpy::i32>(5, 3, kpy::atomic_max, 5, 5) &&
			seq_ok<kpy::i32>(6, 3, kpy::atomic_and, 6, 2) && seq_ok<kpy::i32>(6, 3, kpy::atomic_or, 6, 7) &&
			seq_ok<kpy::i32>(6, 3, kpy::atomic_xor, 6, 5) && seq_ok<kpy::i32>(6, 3, kpy::atomic_exch, 6, 3),
		"atomics i32: old value returned, new value stored");
	check(seq_ok<kpy::u32>(1, 2, kpy::atomic_sub, 1, 0xffffffffu) && seq_ok<kpy::u64>(1, 2, kpy::atomic_sub, 1, ~0ull) &&
			seq_ok<kpy::i64>(-5, 3, kpy::atomic_min, -5, -5) && seq_ok<kpy::u64>(5, 9, kpy::atomic_max, 5, 9),
		"atomics u32/u64/i64: wrap-around, min, max");
	check(seq_ok<kpy::i8>(127, 1, kpy::atomic_add, 127, -128) && seq_ok<kpy::u8>(0, 1, kpy::atomic_sub, 0, 255) &&
			seq_ok<kpy::i16>(-3, 4, kpy::atomic_max, -3, 4) && seq_ok<kpy::u16>(12, 10, kpy::atomic_and, 12, 8),
		"atomics on 8/16-bit integers (plain load-op-store, as Warp)");
	check(seq_ok<float>(1.5f, 2.0f, kpy::atomic_add, 1.5f, 3.5f) && seq_ok<float>(1.5f, 2.0f, kpy::atomic_sub, 1.5f, -0.5f) &&
			seq_ok<double>(1.5, -2.0, kpy::atomic_min, 1.5, -2.0) && seq_ok<double>(NAN, 2.0, kpy::atomic_max, NAN, 2.0) == false,
		"atomics f32/f64: add, sub, min");
	double x = NAN;
	double old = kpy::atomic_max(&x, 2.0);
	check(kpy::isnan(old) && x == 2.0, "atomic_max with a NaN stored keeps the number (fmax)");
	/* Warp's CPU build: *p = min(old, v) in the ordered-compare form, so a
	 * NaN value leaves the number and a tie of zeros keeps the old one */
	float fm = 3.0f, fx = 3.0f, zm = 0.0f, zx = -0.0f, nm = NAN;
	double dm = -1.0, dx = -1.0;
	kpy::atomic_min(&nm, 2.0f);
	kpy::atomic_min(&fm, (float)NAN);
	kpy::atomic_max(&fx, (float)NAN);
	kpy::atomic_min(&zm, -0.0f);
	kpy::atomic_max(&zx, 0.0f);
	kpy::atomic_min(&dm, (double)NAN);
	kpy::atomic_max(&dx, (double)NAN);
	check(nm == 2.0f && fm == 3.0f && fx == 3.0f && kpy::float_bits(zm) == 0u && kpy::float_bits(zx) == 0x80000000u && dm == -1.0 &&
			dx == -1.0,
		"atomic_min/max f32/f64: NaN old or new gives the number, a tie of zeros the old value");
	kpy::f16 h(1.5f);
	kpy::f16 ho = kpy::atomic_add(&h, kpy::f16(0.25f));
	check(ho.u == kpy::f16(1.5f).u && h.u == kpy::f16(1.75f).u, "atomics f16: add");
	float z = -0.0f;
	float zo = kpy::atomic_cas(&z, 0.0f, 5.0f);
	float n = NAN;
	float no = kpy::atomic_cas(&n, NAN, 5.0f);
	kpy::i32 c = 7;
	kpy::i32 co = kpy::atomic_cas(&c, 7, 9);
	kpy::i32 co2 = kpy::atomic_cas(&c, 7, 11);
	check(kpy::float_bits(zo) == 0x80000000u && z == 5.0f && kpy::isnan(no) && kpy::isnan(n) && co == 7 && co2 == 9 &&
			c == 9,
		"atomic_cas: host compares values with == (-0 matches +0, NaN never), as Warp's CPU build");
	float arr[4] = {1, 2, 3, 4};
	kpy::array_t<float, 2> a(arr, 2, 2);
	float o = kpy::atomic_add(a, 1, -1, 10.0f);
	check(o == 4.0f && arr[3] == 14.0f && kpy::atomic_exch(a, 0, 0, 7.0f) == 1.0f && arr[0] == 7.0f,
		"atomics on array elements (negative indices wrap)");
	kpy::vec3f vs[1] = {kpy::vec3f(1.0f, 5.0f, -1.0f)};
	kpy::array_t<kpy::vec3f, 1> va(vs, 1);
	kpy::vec3f vo = kpy::atomic_min(va, 0, kpy::vec3f(2.0f, 2.0f, 2.0f));
	check(vo == kpy::vec3f(1.0f, 5.0f, -1.0f) && vs[0] == kpy::vec3f(1.0f, 2.0f, -1.0f), "atomics on vectors, per component");
	kpy::transformf xs[1] = {kpy::transformf(1.0f)};
	kpy::array_t<kpy::transformf, 1> xa(xs, 1);
	kpy::atomic_sub(xa, 0, kpy::transformf(0.5f));
	check(xs[0] == kpy::transformf(0.5f), "atomic_sub on transforms");
}

template <class T> bool hammer(void (*body)(T *, int), T *target, int threads)
{
	std::vector<std::thread> ts;
	for (int t = 0; t < threads; t++)
		ts.emplace_back(body, target, t);
	for (auto &t : ts)
		t.join();
	return true;
}

void test_atomic_threads()
{
	const int T = 4, N = 100000;
	static kpy::i64 cnt = 0;
	hammer<kpy::i64>([](kpy::i64 *p, int) {
		for (int i = 0; i < N; i++)
			kpy::atomic_add(p, (kpy::i64)1);
	}, &cnt, T);
	static float fsum = 0.0f;
	hammer<float>([](float *p, int) {
		for (int i = 0; i < N; i++)
			kpy::atomic_add(p, 1.0f);
	}, &fsum, T);
	static double dmax = -1.0;
	hammer<double>([](double *p, int t) {
		for (int i = 0; i < N; i++)
			kpy::atomic_max(p, (double)(i * T + t));
	}, &dmax, T);
	static kpy::f16 hsum(0.0f);
	hammer<kpy::f16>([](kpy::f16 *p, int) {
		for (int i = 0; i < 500; i++)
			kpy::atomic_add(p, kpy::f16(1.0f));
	}, &hsum, T);
	static kpy::u32 bits = 0;
	hammer<kpy::u32>([](kpy::u32 *p, int t) {
		for (int i = 0; i < 8; i++)
			kpy::atomic_or(p, 1u << (t * 8 + i));
	}, &bits, T);
	check(cnt == (kpy::i64)T * N && fsum == (float)(T * N) && dmax == (double)(N * T - 1) && (float)hsum == 2000.0f &&
			bits == 0xffffffffu,
		"atomics are atomic under 4 threads (i64 add, f32 add, f64 max, f16 add, u32 or)");
}

/* ------------------------------------------------------------------ */
/* launch grid                                                          */

void test_launch()
{
	kpy::launch_bounds b = kpy::make_launch_bounds(3, 4, 5, 6);
	bool ok = b.size == 120 && b.ndim == 3 && b.shape[3] == 0;
	kpy::i64 lin = 0;
	for (int i = 0; i < 4 && ok; i++)
		for (int j = 0; j < 5; j++)
			for (int k = 0; k < 6; k++, lin++) {
				kpy::i32 c[4] = {-1, -1, -1, -1};
				kpy::unravel(b, lin, c);
				ok = ok && c[0] == i && c[1] == j && c[2] == k;
			}
	check(ok, "unravel: row-major, last dimension fastest (wp.tid())");
	kpy::launch_bounds b1 = kpy::make_launch_bounds(1, 1000);
	kpy::i32 c[4];
	kpy::unravel(b1, 999, c);
	check(b1.size == 1000 && c[0] == 999, "unravel: 1D");
}

/* ------------------------------------------------------------------ */
/* integer semantics spelled out (Warp 1.19)                            */

void test_ints()
{
	check(kpy::floordiv(-7, 2) == -4 && kpy::floordiv(7, -2) == -4 && kpy::floordiv(-7, -2) == 3 &&
			kpy::floordiv(6, -3) == -2 && kpy::floordiv((kpy::i8)-128, (kpy::i8)-1) == -128 &&
			kpy::floordiv(7u, 2u) == 3u,
		"floordiv rounds toward negative infinity");
	check(kpy::mod(-7, 3) == -1 && kpy::mod(7, -3) == 1 && kpy::mod(-7.5f, 2.0f) == -1.5f, "mod keeps the dividend's sign");
	check(kpy::abs((kpy::i8)-128) == -128 && kpy::sign(0) == 1 && kpy::sign(-0.0f) == 1.0f && kpy::step(-1) == 1 &&
			kpy::step(0.0) == 0.0 && kpy::nonzero((kpy::u8)7) == 1 && kpy::sign((kpy::u32)0) == 1u,
		"abs, sign, step, nonzero on integers");
	check(kpy::bit_count((kpy::i8)-1) == 8 && kpy::bit_count((kpy::u64)~0ull) == 64 && kpy::bit_count((kpy::i32)-1) == 32,
		"bit_count counts the type's own width, returns i32");
	check(kpy::float_bits(kpy::neg(0.0f)) == 0 && kpy::float_bits(-kpy::vec2f(0.0f, 0.0f)[0]) == 0x80000000u,
		"neg(0.0) is +0.0 (Warp's 0 - x); vector negation keeps -0.0");
	kpy::vec3f px(1.3f, -2.7f, 5.5f);
	check(kpy::pnoise(7u, px, 3) == kpy::pnoise(7u, px, 3, 3, 3) &&
			kpy::pnoise(7u, kpy::vec2f(0.5f, -9.25f), 4) == kpy::pnoise(7u, kpy::vec2f(0.5f, -9.25f), 4, 4),
		"pnoise with one period for every axis");
	check(kpy::acos(NAN) == kpy::acos(-1.0f) && kpy::min((double)NAN, 1.0) == 1.0 && kpy::isnan(kpy::min((double)NAN, (double)NAN)),
		"acos clamps (acos(nan) == pi); min ignores a NaN operand");
}

} // namespace

int main()
{
	test_half();
	test_composites();
	test_arrays();
	test_atomic_values();
	test_atomic_threads();
	test_launch();
	test_ints();
	return failures ? 1 : 0;
}
