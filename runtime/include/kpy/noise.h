/*
 * kpy/noise.h — Warp's Perlin noise, periodic noise and curl noise
 * (warp/native/noise.h), same numbers as Warp.
 *
 * Lattice gradients come from the random generator seeded by a hash of the
 * cell's integer coordinates and the state; values between lattice points
 * are blended with the quintic smootherstep 6t^5 - 15t^4 + 10t^3.
 *
 * Warp computes in float.  Here the coordinate arithmetic is done in the
 * argument's type T: for float that is Warp's computation; with
 * KPY_F32_DOUBLE it is carried out in double (the lattice gradients are
 * still Warp's float gradients, widened), so noise stays smooth for
 * finite-difference checks.
 */
#ifndef KPY_NOISE_H
#define KPY_NOISE_H

#include "rand.h"

namespace kpy {
namespace detail {

template <class T> KPY_HD inline T smootherstep(T t) { return t * t * t * (t * (t * T(6) - T(15)) + T(10)); }
template <class T> KPY_HD inline T smootherstep_gradient(T t) { return T(30) * t * t * (t * (t - T(2)) + T(1)); }
template <class T> KPY_HD inline T interpolate(T a0, T a1, T t) { return (a1 - a0) * smootherstep(t) + a0; }
template <unsigned N, class T>
KPY_HD inline vec_t<N, T> interpolate_gradient(T a0, T a1, T t, const vec_t<N, T> &d_a0, const vec_t<N, T> &d_a1,
	const vec_t<N, T> &d_t)
{
	return (d_a1 - d_a0) * smootherstep(t) + (a1 - a0) * smootherstep_gradient(t) * d_t + d_a0;
}

/* Lattice gradients.  Note C precedence: x*p1 ^ y*p2 + state hashes
 * x*p1 ^ (y*p2 + state). */
KPY_HD inline float random_gradient_1d(u32 state, int ix)
{
	const u32 p1 = 73856093u;
	u32 idx = (u32)ix * p1 + state;
	return randf32(idx, -1.0f, 1.0f);
}
KPY_HD inline vec_t<2, float> random_gradient_2d(u32 state, int ix, int iy)
{
	const u32 p1 = 73856093u, p2 = 19349663u;
	u32 idx = ((u32)ix * p1) ^ ((u32)iy * p2 + state);
	float x = randf32(idx) - 0.5f;
	float y = randf32(idx) - 0.5f;
	return normalize(vec_t<2, float>(x, y));
}
KPY_HD inline vec_t<3, float> random_gradient_3d(u32 state, int ix, int iy, int iz)
{
	const u32 p1 = 73856093u, p2 = 19349663u, p3 = 53471161u;
	u32 idx = ((u32)ix * p1) ^ ((u32)iy * p2) ^ ((u32)iz * p3 + state);
	float x = randf32(idx) - 0.5f;
	float y = randf32(idx) - 0.5f;
	float z = randf32(idx) - 0.5f;
	return normalize(vec_t<3, float>(x, y, z));
}
KPY_HD inline vec_t<4, float> random_gradient_4d(u32 state, int ix, int iy, int iz, int it)
{
	const u32 p1 = 73856093u, p2 = 19349663u, p3 = 53471161u, p4 = 10000019u;
	u32 idx = ((u32)ix * p1) ^ ((u32)iy * p2) ^ ((u32)iz * p3) ^ ((u32)it * p4 + state);
	float a = randf32(idx) - 0.5f;
	float b = randf32(idx) - 0.5f;
	float c = randf32(idx) - 0.5f;
	float d = randf32(idx) - 0.5f;
	return normalize(vec_t<4, float>(a, b, c, d));
}

/* A lattice cell: integer corners i0 (low) and i1 (high), offset d of the
 * point from the low corner, per axis. */
template <unsigned N, class T> struct cell {
	int i0[N], i1[N];
	T d[N];
};

/* Cell of x; with periods p (p == 0: not periodic) the corner indices
 * wrap as Warp's pnoise does (C remainder: negative stays negative). */
template <unsigned N, class T> KPY_HD inline cell<N, T> make_cell(const T *x, const int *p)
{
	cell<N, T> c;
	for (unsigned k = 0; k < N; k++) {
		T f = floor(x[k]);
		c.d[k] = x[k] - f;
		int i0 = (int)f;
		if (p) {
			c.i0[k] = i0 % p[k];
			c.i1[k] = (c.i0[k] + 1) % p[k];
		} else {
			c.i0[k] = i0;
			c.i1[k] = i0 + 1;
		}
	}
	return c;
}

template <class T> KPY_HD inline T lattice1(u32 s, int ix, T dx) { return dx * (T)random_gradient_1d(s, ix); }
template <class T> KPY_HD inline T lattice2(u32 s, int ix, int iy, T dx, T dy)
{
	vec_t<2, T> g(random_gradient_2d(s, ix, iy));
	return dx * g.c[0] + dy * g.c[1];
}
template <class T> KPY_HD inline T lattice3(u32 s, int ix, int iy, int iz, T dx, T dy, T dz)
{
	vec_t<3, T> g(random_gradient_3d(s, ix, iy, iz));
	return dx * g.c[0] + dy * g.c[1] + dz * g.c[2];
}
template <class T> KPY_HD inline T lattice4(u32 s, int ix, int iy, int iz, int it, T dx, T dy, T dz, T dt)
{
	vec_t<4, T> g(random_gradient_4d(s, ix, iy, iz, it));
	return dx * g.c[0] + dy * g.c[1] + dz * g.c[2] + dt * g.c[3];
}

template <class T> KPY_HD inline T noise1(u32 s, const cell<1, T> &c)
{
	T v0 = lattice1(s, c.i0[0], c.d[0]);
	T v1 = lattice1(s, c.i1[0], c.d[0] - T(1));
	return interpolate(v0, v1, c.d[0]);
}

template <class T> KPY_HD inline T noise2(u32 s, const cell<2, T> &c)
{
	const int *a = c.i0, *b = c.i1;
	T dx = c.d[0], dy = c.d[1];
	T v00 = lattice2(s, a[0], a[1], dx, dy);
	T v10 = lattice2(s, b[0], a[1], dx - T(1), dy);
	T xi0 = interpolate(v00, v10, dx);
	T v01 = lattice2(s, a[0], b[1], dx, dy - T(1));
	T v11 = lattice2(s, b[0], b[1], dx - T(1), dy - T(1));
	T xi1 = interpolate(v01, v11, dx);
	return interpolate(xi0, xi1, dy);
}

template <class T> KPY_HD inline T noise3(u32 s, const cell<3, T> &c)
{
	const int *a = c.i0, *b = c.i1;
	T dx = c.d[0], dy = c.d[1], dz = c.d[2];
	T v000 = lattice3(s, a[0], a[1], a[2], dx, dy, dz);
	T v100 = lattice3(s, b[0], a[1], a[2], dx - T(1), dy, dz);
	T xi00 = interpolate(v000, v100, dx);
	T v010 = lattice3(s, a[0], b[1], a[2], dx, dy - T(1), dz);
	T v110 = lattice3(s, b[0], b[1], a[2], dx - T(1), dy - T(1), dz);
	T xi10 = interpolate(v010, v110, dx);
	T yi0 = interpolate(xi00, xi10, dy);
	T v001 = lattice3(s, a[0], a[1], b[2], dx, dy, dz - T(1));
	T v101 = lattice3(s, b[0], a[1], b[2], dx - T(1), dy, dz - T(1));
	T xi01 = interpolate(v001, v101, dx);
	T v011 = lattice3(s, a[0], b[1], b[2], dx, dy - T(1), dz - T(1));
	T v111 = lattice3(s, b[0], b[1], b[2], dx - T(1), dy - T(1), dz - T(1));
	T xi11 = interpolate(v011, v111, dx);
	T yi1 = interpolate(xi01, xi11, dy);
	return interpolate(yi0, yi1, dz);
}

template <class T> KPY_HD inline T noise4(u32 s, const cell<4, T> &c)
{
	const int *a = c.i0, *b = c.i1;
	T dx = c.d[0], dy = c.d[1], dz = c.d[2], dt = c.d[3];
	T zi[2];
	for (int l = 0; l < 2; l++) { /* t layer: low, then high */
		int it = l ? b[3] : a[3];
		T ddt = l ? dt - T(1) : dt;
		T yi[2];
		for (int kz = 0; kz < 2; kz++) { /* z layer */
			int iz = kz ? b[2] : a[2];
			T ddz = kz ? dz - T(1) : dz;
			T v00 = lattice4(s, a[0], a[1], iz, it, dx, dy, ddz, ddt);
			T v10 = lattice4(s, b[0], a[1], iz, it, dx - T(1), dy, ddz, ddt);
			T xi0 = interpolate(v00, v10, dx);
			T v01 = lattice4(s, a[0], b[1], iz, it, dx, dy - T(1), ddz, ddt);
			T v11 = lattice4(s, b[0], b[1], iz, it, dx - T(1), dy - T(1), ddz, ddt);
			T xi1 = interpolate(v01, v11, dx);
			yi[kz] = interpolate(xi0, xi1, dy);
		}
		zi[l] = interpolate(yi[0], yi[1], dz);
	}
	return interpolate(zi[0], zi[1], dt);
}

/* Gradients of the noise with respect to the point (curl noise). */
template <class T> KPY_HD inline vec_t<2, T> noise2_gradient(u32 s, const cell<2, T> &c)
{
	const int *a = c.i0, *b = c.i1;
	T dx = c.d[0], dy = c.d[1];
	vec_t<2, T> g00(random_gradient_2d(s, a[0], a[1]));
	T v00 = dot(vec_t<2, T>(dx, dy), g00);
	vec_t<2, T> g10(random_gradient_2d(s, b[0], a[1]));
	T v10 = dot(vec_t<2, T>(dx - T(1), dy), g10);
	vec_t<2, T> g01(random_gradient_2d(s, a[0], b[1]));
	T v01 = dot(vec_t<2, T>(dx, dy - T(1)), g01);
	vec_t<2, T> g11(random_gradient_2d(s, b[0], b[1]));
	T v11 = dot(vec_t<2, T>(dx - T(1), dy - T(1)), g11);
	vec_t<2, T> ex(T(1), T(0)), ey(T(0), T(1));
	T xi0 = interpolate(v00, v10, dx);
	vec_t<2, T> gxi0 = interpolate_gradient(v00, v10, dx, g00, g10, ex);
	T xi1 = interpolate(v01, v11, dx);
	vec_t<2, T> gxi1 = interpolate_gradient(v01, v11, dx, g01, g11, ex);
	return interpolate_gradient(xi0, xi1, dy, gxi0, gxi1, ey);
}

template <class T> KPY_HD inline vec_t<3, T> noise3_gradient(u32 s, const cell<3, T> &c)
{
	const int *a = c.i0, *b = c.i1;
	T dx = c.d[0], dy = c.d[1], dz = c.d[2];
	T v[2][2][2];
	vec_t<3, T> g[2][2][2];
	for (int kz = 0; kz < 2; kz++)
		for (int ky = 0; ky < 2; ky++)
			for (int kx = 0; kx < 2; kx++) {
				g[kz][ky][kx] = vec_t<3, T>(random_gradient_3d(s, kx ? b[0] : a[0], ky ? b[1] : a[1], kz ? b[2] : a[2]));
				v[kz][ky][kx] = dot(vec_t<3, T>(kx ? dx - T(1) : dx, ky ? dy - T(1) : dy, kz ? dz - T(1) : dz),
					g[kz][ky][kx]);
			}
	vec_t<3, T> ex(T(1), T(0), T(0)), ey(T(0), T(1), T(0)), ez(T(0), T(0), T(1));
	T xi[2][2];
	vec_t<3, T> gxi[2][2];
	for (int kz = 0; kz < 2; kz++)
		for (int ky = 0; ky < 2; ky++) {
			xi[kz][ky] = interpolate(v[kz][ky][0], v[kz][ky][1], dx);
			gxi[kz][ky] = interpolate_gradient(v[kz][ky][0], v[kz][ky][1], dx, g[kz][ky][0], g[kz][ky][1], ex);
		}
	T yi[2];
	vec_t<3, T> gyi[2];
	for (int kz = 0; kz < 2; kz++) {
		yi[kz] = interpolate(xi[kz][0], xi[kz][1], dy);
		gyi[kz] = interpolate_gradient(xi[kz][0], xi[kz][1], dy, gxi[kz][0], gxi[kz][1], ey);
	}
	return interpolate_gradient(yi[0], yi[1], dz, gyi[0], gyi[1], ez);
}

template <class T> KPY_HD inline vec_t<4, T> noise4_gradient(u32 s, const cell<4, T> &c)
{
	const int *a = c.i0, *b = c.i1;
	T v[2][2][2][2];
	vec_t<4, T> g[2][2][2][2];
	for (int kt = 0; kt < 2; kt++)
		for (int kz = 0; kz < 2; kz++)
			for (int ky = 0; ky < 2; ky++)
				for (int kx = 0; kx < 2; kx++) {
					vec_t<4, T> gg(random_gradient_4d(s, kx ? b[0] : a[0], ky ? b[1] : a[1], kz ? b[2] : a[2],
						kt ? b[3] : a[3]));
					vec_t<4, T> d(kx ? c.d[0] - T(1) : c.d[0], ky ? c.d[1] - T(1) : c.d[1], kz ? c.d[2] - T(1) : c.d[2],
						kt ? c.d[3] - T(1) : c.d[3]);
					g[kt][kz][ky][kx] = gg;
					v[kt][kz][ky][kx] = dot(d, gg);
				}
	vec_t<4, T> e[4];
	for (int k = 0; k < 4; k++)
		e[k].c[k] = T(1);
	T xi[2][2][2];
	vec_t<4, T> gxi[2][2][2];
	for (int kt = 0; kt < 2; kt++)
		for (int kz = 0; kz < 2; kz++)
			for (int ky = 0; ky < 2; ky++) {
				const T *vv = v[kt][kz][ky];
				const vec_t<4, T> *gg = g[kt][kz][ky];
				xi[kt][kz][ky] = interpolate(vv[0], vv[1], c.d[0]);
				gxi[kt][kz][ky] = interpolate_gradient(vv[0], vv[1], c.d[0], gg[0], gg[1], e[0]);
			}
	T yi[2][2];
	vec_t<4, T> gyi[2][2];
	for (int kt = 0; kt < 2; kt++)
		for (int kz = 0; kz < 2; kz++) {
			yi[kt][kz] = interpolate(xi[kt][kz][0], xi[kt][kz][1], c.d[1]);
			gyi[kt][kz] = interpolate_gradient(xi[kt][kz][0], xi[kt][kz][1], c.d[1], gxi[kt][kz][0], gxi[kt][kz][1], e[1]);
		}
	T zi[2];
	vec_t<4, T> gzi[2];
	for (int kt = 0; kt < 2; kt++) {
		zi[kt] = interpolate(yi[kt][0], yi[kt][1], c.d[2]);
		gzi[kt] = interpolate_gradient(yi[kt][0], yi[kt][1], c.d[2], gyi[kt][0], gyi[kt][1], e[2]);
	}
	return interpolate_gradient(zi[0], zi[1], c.d[3], gzi[0], gzi[1], e[3]);
}

/* Gradient of 1-D noise with respect to x. */
template <class T> KPY_HD inline T noise1_gradient(u32 s, const cell<1, T> &c)
{
	T g0 = (T)random_gradient_1d(s, c.i0[0]);
	T v0 = c.d[0] * g0;
	T g1 = (T)random_gradient_1d(s, c.i1[0]);
	T v1 = (c.d[0] - T(1)) * g1;
	return (g1 - g0) * smootherstep(c.d[0]) + (v1 - v0) * smootherstep_gradient(c.d[0]) * T(1) + g0;
}

/* Hessian of the noise in a cell (second partials with respect to the
 * point), for the adjoint of curl noise.  Every corner value dot(d, g) is
 * linear in the point; the second derivatives come from the smootherstep
 * blends: interpolating A and B along axis k with S = smootherstep(d_k),
 *   F = A + (B - A) S
 *   grad F = grad A + (grad B - grad A) S + (B - A) S' e_k
 *   H_F = H_A + (H_B - H_A) S + S' (dg e_k^T + e_k dg^T) + (B - A) S'' e_k e_k^T
 * with dg = grad B - grad A (Warp 1.19's noise_Nd_hessian). */
template <class T> KPY_HD inline T smootherstep_hessian(T t) { return T(60) * t * (t * (t * T(2) - T(3)) + T(1)); }

template <unsigned N, class T> struct level {
	T val;
	T grad[N];
	T hess[N][N];
};

template <unsigned N, class T> KPY_HD inline void level_compose(level<N, T> &F, const level<N, T> &A,
	const level<N, T> &B, unsigned k, T S, T S1, T S2)
{
	T dv = B.val - A.val, dg[N];
	F.val = A.val + dv * S;
	for (unsigned i = 0; i < N; ++i)
		dg[i] = B.grad[i] - A.grad[i];
	for (unsigned i = 0; i < N; ++i)
		F.grad[i] = A.grad[i] + dg[i] * S;
	F.grad[k] += dv * S1;
	for (unsigned i = 0; i < N; ++i)
		for (unsigned j = 0; j < N; ++j)
			F.hess[i][j] = A.hess[i][j] + (B.hess[i][j] - A.hess[i][j]) * S;
	for (unsigned i = 0; i < N; ++i) {
		F.hess[i][k] += dg[i] * S1;
		F.hess[k][i] += dg[i] * S1;
	}
	F.hess[k][k] += dv * S2;
}

template <unsigned N, class T> KPY_HD inline vec_t<N, T> lattice_gradient(u32 s, const int *ix)
{
	vec_t<N, T> g;
	if (N == 2) {
		vec_t<2, float> r = random_gradient_2d(s, ix[0], ix[1]);
		for (unsigned k = 0; k < N; k++)
			g.c[k] = (T)r.c[k];
	} else if (N == 3) {
		vec_t<3, float> r = random_gradient_3d(s, ix[0], ix[1], ix[2]);
		for (unsigned k = 0; k < N; k++)
			g.c[k] = (T)r.c[k];
	} else {
		vec_t<4, float> r = random_gradient_4d(s, ix[0], ix[1], ix[2], ix[3]);
		for (unsigned k = 0; k < N; k++)
			g.c[k] = (T)r.c[k];
	}
	return g;
}

/* hess[N][N] of the noise at cell c (corner bit k of the index is axis k,
 * interpolating x first, then y, ...). */
template <unsigned N, class T> KPY_HD inline void noise_hessian(u32 s, const cell<N, T> &c, T hess[N][N])
{
	level<N, T> lv[1u << N];
	for (unsigned m = 0; m < (1u << N); m++) {
		int ix[4] = {0, 0, 0, 0};
		T d[N];
		for (unsigned k = 0; k < N; k++) {
			bool hi = (m >> k) & 1u;
			ix[k] = hi ? c.i1[k] : c.i0[k];
			d[k] = hi ? c.d[k] - T(1) : c.d[k];
		}
		vec_t<N, T> g = lattice_gradient<N, T>(s, ix);
		T v = d[0] * g.c[0];
		for (unsigned k = 1; k < N; k++)
			v = v + d[k] * g.c[k];
		lv[m].val = v;
		for (unsigned i = 0; i < N; i++) {
			lv[m].grad[i] = g.c[i];
			for (unsigned j = 0; j < N; j++)
				lv[m].hess[i][j] = T(0);
		}
	}
	unsigned n = 1u << N;
	for (unsigned k = 0; k < N; k++, n /= 2) {
		T t = c.d[k], S = smootherstep(t), S1 = smootherstep_gradient(t), S2 = smootherstep_hessian(t);
		for (unsigned m = 0; m < n / 2; m++) {
			level<N, T> F;
			level_compose(F, lv[2 * m], lv[2 * m + 1], k, S, S1, S2);
			lv[m] = F;
		}
	}
	for (unsigned i = 0; i < N; i++)
		for (unsigned j = 0; j < N; j++)
			hess[i][j] = lv[0].hess[i][j];
}

template <class T> struct if_real : enable_if<same<T, float>::value || same<T, double>::value, T> { };
} // namespace detail

/* ------------------------------------------------------------------ */
/* noise(state, x): Perlin noise of a point in 1 to 4 dimensions.        */

template <class T> KPY_HD inline typename detail::if_real<T>::type noise(u32 state, T x)
{
	return detail::noise1(state, detail::make_cell<1, T>(&x, 0));
}
template <class T> KPY_HD inline typename detail::if_real<T>::type noise(u32 state, const vec_t<2, T> &x)
{
	return detail::noise2(state, detail::make_cell<2, T>(x.c, 0));
}
template <class T> KPY_HD inline typename detail::if_real<T>::type noise(u32 state, const vec_t<3, T> &x)
{
	return detail::noise3(state, detail::make_cell<3, T>(x.c, 0));
}
template <class T> KPY_HD inline typename detail::if_real<T>::type noise(u32 state, const vec_t<4, T> &x)
{
	return detail::noise4(state, detail::make_cell<4, T>(x.c, 0));
}

/* pnoise(state, x, px[, py, pz, pt]): noise periodic with integer period
 * p along each axis. */
template <class T> KPY_HD inline typename detail::if_real<T>::type pnoise(u32 state, T x, i32 px)
{
	const int p[1] = {px};
	return detail::noise1(state, detail::make_cell<1, T>(&x, p));
}
template <class T> KPY_HD inline typename detail::if_real<T>::type pnoise(u32 state, const vec_t<2, T> &x, i32 px, i32 py)
{
	const int p[2] = {px, py};
	return detail::noise2(state, detail::make_cell<2, T>(x.c, p));
}
template <class T>
KPY_HD inline typename detail::if_real<T>::type pnoise(u32 state, const vec_t<3, T> &x, i32 px, i32 py, i32 pz)
{
	const int p[3] = {px, py, pz};
	return detail::noise3(state, detail::make_cell<3, T>(x.c, p));
}
template <class T>
KPY_HD inline typename detail::if_real<T>::type pnoise(u32 state, const vec_t<4, T> &x, i32 px, i32 py, i32 pz, i32 pt)
{
	const int p[4] = {px, py, pz, pt};
	return detail::noise4(state, detail::make_cell<4, T>(x.c, p));
}

/* pnoise(state, x, p) for vectors: the same period on every axis (a kpy
 * extension for hand-written C++; Warp, and so kir, take one per axis). */
template <unsigned N, class T>
KPY_HD inline typename detail::enable_if<(N >= 2 && N <= 4), typename detail::if_real<T>::type>::type
pnoise(u32 state, const vec_t<N, T> &x, i32 p)
{
	const int ps[4] = {p, p, p, p};
	if (N == 2)
		return detail::noise2(state, detail::make_cell<2, T>(x.c, ps));
	if (N == 3)
		return detail::noise3(state, detail::make_cell<3, T>(x.c, ps));
	return detail::noise4(state, detail::make_cell<4, T>(x.c, ps));
}

/* curlnoise(state, x, octaves = 1, lacunarity = 2, gain = 0.5): the curl of
 * a noise potential summed over octaves (frequency *= lacunarity,
 * amplitude *= gain).  2D: rotated gradient of one field; 3D and 4D: curl
 * of three fields, the state re-seeded with rand_init between them. */
template <class T>
KPY_HD inline vec_t<2, T> curlnoise(u32 state, const vec_t<2, T> &xy, u32 octaves = 1,
	typename detail::ident<T>::type lacunarity = T(2), typename detail::ident<T>::type gain = T(0.5))
{
	vec_t<2, T> sum;
	T freq = T(1), amp = T(1);
	for (int i = 0; i < (int)octaves; i++) {
		vec_t<2, T> pt = freq * xy;
		vec_t<2, T> g = detail::noise2_gradient(state, detail::make_cell<2, T>(pt.c, 0));
		sum = sum + amp * g;
		amp = amp * gain;
		freq = freq * lacunarity;
	}
	return vec_t<2, T>(-sum.c[1], sum.c[0]);
}

namespace detail {
template <class T> KPY_HD inline vec_t<3, T> noisen_gradient(u32 s, const cell<3, T> &c)
{
	return noise3_gradient(s, c);
}
template <class T> KPY_HD inline vec_t<4, T> noisen_gradient(u32 s, const cell<4, T> &c)
{
	return noise4_gradient(s, c);
}

/* curlnoise of a 3D or 4D point: the gradients of three fields summed over
 * octaves, then their curl (the first three components). */
template <unsigned N, class T>
KPY_HD inline vec_t<3, T> curlnoise3(u32 state, const vec_t<N, T> &x, u32 octaves, T lacunarity, T gain)
{
	vec_t<N, T> s1, s2, s3;
	T freq = T(1), amp = T(1);
	for (int i = 0; i < (int)octaves; i++) {
		vec_t<N, T> pt = freq * x;
		cell<N, T> c = make_cell<N, T>(pt.c, 0);
		vec_t<N, T> g1 = noisen_gradient(state, c);
		state = rand_init((i32)state, 10019689);
		vec_t<N, T> g2 = noisen_gradient(state, c);
		state = rand_init((i32)state, 13112221);
		vec_t<N, T> g3 = noisen_gradient(state, c);
		s1 = s1 + amp * g1;
		s2 = s2 + amp * g2;
		s3 = s3 + amp * g3;
		amp = amp * gain;
		freq = freq * lacunarity;
	}
	return vec_t<3, T>(s3.c[1] - s2.c[2], s1.c[2] - s3.c[0], s2.c[0] - s1.c[1]);
}
} // namespace detail

template <class T>
KPY_HD inline vec_t<3, T> curlnoise(u32 state, const vec_t<3, T> &xyz, u32 octaves = 1,
	typename detail::ident<T>::type lacunarity = T(2), typename detail::ident<T>::type gain = T(0.5))
{
	return detail::curlnoise3<3, T>(state, xyz, octaves, lacunarity, gain);
}

template <class T>
KPY_HD inline vec_t<3, T> curlnoise(u32 state, const vec_t<4, T> &xyzt, u32 octaves = 1,
	typename detail::ident<T>::type lacunarity = T(2), typename detail::ident<T>::type gain = T(0.5))
{
	return detail::curlnoise3<4, T>(state, xyzt, octaves, lacunarity, gain);
}

/* ------------------------------------------------------------------ */
/* Derivatives (kir's noise_grad and curlnoise_adj, which kopt's autodiff
 * makes; Warp 1.19's adj_noise, adj_pnoise and adj_curlnoise). */

/* noise_grad(state, x[, periods]): the gradient of noise (pnoise with the
 * periods) with respect to x: a scalar for 1-D, else a vector like x. */
template <class T> KPY_HD inline typename detail::if_real<T>::type noise_grad(u32 state, T x)
{
	return detail::noise1_gradient(state, detail::make_cell<1, T>(&x, 0));
}
template <class T> KPY_HD inline typename detail::if_real<T>::type noise_grad(u32 state, T x, i32 px)
{
	const int p[1] = {px};
	return detail::noise1_gradient(state, detail::make_cell<1, T>(&x, p));
}
template <class T> KPY_HD inline vec_t<2, T> noise_grad(u32 state, const vec_t<2, T> &x)
{
	return detail::noise2_gradient(state, detail::make_cell<2, T>(x.c, 0));
}
template <class T> KPY_HD inline vec_t<2, T> noise_grad(u32 state, const vec_t<2, T> &x, i32 px, i32 py)
{
	const int p[2] = {px, py};
	return detail::noise2_gradient(state, detail::make_cell<2, T>(x.c, p));
}
template <class T> KPY_HD inline vec_t<3, T> noise_grad(u32 state, const vec_t<3, T> &x)
{
	return detail::noise3_gradient(state, detail::make_cell<3, T>(x.c, 0));
}
template <class T> KPY_HD inline vec_t<3, T> noise_grad(u32 state, const vec_t<3, T> &x, i32 px, i32 py, i32 pz)
{
	const int p[3] = {px, py, pz};
	return detail::noise3_gradient(state, detail::make_cell<3, T>(x.c, p));
}
template <class T> KPY_HD inline vec_t<4, T> noise_grad(u32 state, const vec_t<4, T> &x)
{
	return detail::noise4_gradient(state, detail::make_cell<4, T>(x.c, 0));
}
template <class T>
KPY_HD inline vec_t<4, T> noise_grad(u32 state, const vec_t<4, T> &x, i32 px, i32 py, i32 pz, i32 pt)
{
	const int p[4] = {px, py, pz, pt};
	return detail::noise4_gradient(state, detail::make_cell<4, T>(x.c, p));
}

/* curlnoise_adj(state, x, g[, octaves, lacunarity, gain]): the adjoint of
 * x for curlnoise(state, x, ...) with the adjoint g of its result, summed
 * over the octaves as Warp's adj_curlnoise does (lacunarity and gain get
 * no adjoint, as in Warp). */
template <class T>
KPY_HD inline vec_t<2, T> curlnoise_adj(u32 state, const vec_t<2, T> &xy, const vec_t<2, T> &g, u32 octaves = 1,
	typename detail::ident<T>::type lacunarity = T(2), typename detail::ident<T>::type gain = T(0.5))
{
	vec_t<2, T> adj;
	T freq = T(1), amp = T(1);
	for (u32 i = 0; i < octaves; ++i) {
		vec_t<2, T> pt = freq * xy;
		T H[2][2];
		detail::noise_hessian<2, T>(state, detail::make_cell<2, T>(pt.c, 0), H);
		T k = amp * freq;
		adj.c[0] = adj.c[0] + k * (-H[1][0] * g.c[0] + H[0][0] * g.c[1]);
		adj.c[1] = adj.c[1] + k * (-H[1][1] * g.c[0] + H[0][1] * g.c[1]);
		amp = amp * gain;
		freq = freq * lacunarity;
	}
	return adj;
}

namespace detail {
template <unsigned N, class T>
KPY_HD inline vec_t<N, T> curlnoise_adj3(u32 state, const vec_t<N, T> &x, const vec_t<3, T> &g, u32 octaves,
	T lacunarity, T gain)
{
	vec_t<N, T> adj;
	T freq = T(1), amp = T(1);
	for (u32 i = 0; i < octaves; ++i) {
		vec_t<N, T> pt = freq * x;
		cell<N, T> c = make_cell<N, T>(pt.c, 0);
		T H1[N][N], H2[N][N], H3[N][N];
		noise_hessian<N, T>(state, c, H1);
		state = rand_init((i32)state, 10019689);
		noise_hessian<N, T>(state, c, H2);
		state = rand_init((i32)state, 13112221);
		noise_hessian<N, T>(state, c, H3);
		T k = amp * freq;
		for (unsigned j = 0; j < N; ++j)
			adj.c[j] = adj.c[j] + k * (g.c[0] * (H3[1][j] - H2[2][j]) + g.c[1] * (H1[2][j] - H3[0][j]) +
				g.c[2] * (H2[0][j] - H1[1][j]));
		amp = amp * gain;
		freq = freq * lacunarity;
	}
	return adj;
}
} // namespace detail

template <class T>
KPY_HD inline vec_t<3, T> curlnoise_adj(u32 state, const vec_t<3, T> &xyz, const vec_t<3, T> &g, u32 octaves = 1,
	typename detail::ident<T>::type lacunarity = T(2), typename detail::ident<T>::type gain = T(0.5))
{
	return detail::curlnoise_adj3<3, T>(state, xyz, g, octaves, lacunarity, gain);
}
template <class T>
KPY_HD inline vec_t<4, T> curlnoise_adj(u32 state, const vec_t<4, T> &xyzt, const vec_t<3, T> &g, u32 octaves = 1,
	typename detail::ident<T>::type lacunarity = T(2), typename detail::ident<T>::type gain = T(0.5))
{
	return detail::curlnoise_adj3<4, T>(state, xyzt, g, octaves, lacunarity, gain);
}

} // namespace kpy

#endif /* KPY_NOISE_H */
