/*
 * kpy/rand.h — Warp's random numbers, bit for bit (warp/native/rand.h).
 *
 * The generator is stateless: a u32 state is hashed with the PCG hash of
 * Jarzynski & Olano ("Hash Functions for GPU Rendering", JCGT 2020) and the
 * hash becomes the new state.  Every draw takes the state by reference.
 *
 * All floating-point work is done in float, as in Warp; with KPY_F32_DOUBLE
 * the float result is widened, so the numbers stay Warp's.  randn draws its
 * two uniforms left to right (the first feeds the logarithm), which is what
 * Warp's CPU build (clang) does.
 */
#ifndef KPY_RAND_H
#define KPY_RAND_H

#include "vec.h"

namespace kpy {

KPY_HD inline u32 rand_pcg(u32 state)
{
	u32 b = state * 747796405u + 2891336453u;
	u32 c = ((b >> ((b >> 28u) + 4u)) ^ b) * 277803737u;
	return (c >> 22u) ^ c;
}

KPY_HD inline u32 rand_init(i32 seed) { return rand_pcg((u32)seed); }
KPY_HD inline u32 rand_init(i32 seed, i32 offset) { return rand_pcg((u32)seed + rand_pcg((u32)offset)); }

KPY_HD inline i32 randi(u32 &state)
{
	state = rand_pcg(state);
	return (i32)state;
}
/* lo + state mod (hi - lo), all in u32 arithmetic. */
KPY_HD inline i32 randi(u32 &state, i32 lo, i32 hi)
{
	state = rand_pcg(state);
	return (i32)(state % ((u32)hi - (u32)lo) + (u32)lo);
}
KPY_HD inline u32 randu(u32 &state)
{
	state = rand_pcg(state);
	return state;
}
KPY_HD inline u32 randu(u32 &state, u32 lo, u32 hi)
{
	state = rand_pcg(state);
	return state % (hi - lo) + lo;
}

namespace detail {
#define KPY_PI_F 3.14159265358979323846f
#define KPY_RANDN_EPSILON 5.96e-8f

/* Uniform in [0, 1 - 2^-24], steps of 2^-24: the top 24 bits of the hash. */
KPY_HD inline float randf32(u32 &state)
{
	state = rand_pcg(state);
	return (float)(state >> 8) * (1.0f / 16777216.0f);
}
KPY_HD inline float randf32(u32 &state, float lo, float hi) { return (hi - lo) * randf32(state) + lo; }
} // namespace detail

KPY_HD inline f32 randf(u32 &state) { return (f32)detail::randf32(state); }
KPY_HD inline f32 randf(u32 &state, f32 lo, f32 hi) { return (f32)detail::randf32(state, (float)lo, (float)hi); }

/* Box-Muller: sqrt(-2 log(u1 + eps)) * cos(2 pi u2). */
KPY_HD inline f32 randn(u32 &state)
{
	float u1 = detail::randf32(state);
	float u2 = detail::randf32(state);
	return (f32)(sqrt(-2.0f * log(u1 + KPY_RANDN_EPSILON)) * cos(2.0f * KPY_PI_F * u2));
}

/* ------------------------------------------------------------------ */
/* Uniform samples of shapes                                            */

/* Barycentric (u, v) of a point in a triangle. */
KPY_HD inline vec_t<2, f32> sample_triangle(u32 &state)
{
	float r = sqrt(detail::randf32(state));
	float u = 1.0f - r;
	float v = detail::randf32(state) * r;
	return vec_t<2, f32>(u, v);
}

KPY_HD inline vec_t<2, f32> sample_unit_ring(u32 &state)
{
	float theta = detail::randf32(state, 0.0f, 2.0f * KPY_PI_F);
	return vec_t<2, f32>(cos(theta), sin(theta));
}

KPY_HD inline vec_t<2, f32> sample_unit_disk(u32 &state)
{
	float r = sqrt(detail::randf32(state));
	float theta = detail::randf32(state, 0.0f, 2.0f * KPY_PI_F);
	return vec_t<2, f32>(r * cos(theta), r * sin(theta));
}

KPY_HD inline vec_t<3, f32> sample_unit_sphere_surface(u32 &state)
{
	float phi = acos(1.0f - 2.0f * detail::randf32(state));
	float theta = detail::randf32(state, 0.0f, 2.0f * KPY_PI_F);
	return vec_t<3, f32>(cos(theta) * sin(phi), sin(theta) * sin(phi), cos(phi));
}

KPY_HD inline vec_t<3, f32> sample_unit_sphere(u32 &state)
{
	float phi = acos(1.0f - 2.0f * detail::randf32(state));
	float theta = detail::randf32(state, 0.0f, 2.0f * KPY_PI_F);
	float r = pow(detail::randf32(state), 1.0f / 3.0f);
	return vec_t<3, f32>(r * cos(theta) * sin(phi), r * sin(theta) * sin(phi), r * cos(phi));
}

KPY_HD inline vec_t<3, f32> sample_unit_hemisphere_surface(u32 &state)
{
	float phi = acos(1.0f - detail::randf32(state));
	float theta = detail::randf32(state, 0.0f, 2.0f * KPY_PI_F);
	return vec_t<3, f32>(cos(theta) * sin(phi), sin(theta) * sin(phi), cos(phi));
}

KPY_HD inline vec_t<3, f32> sample_unit_hemisphere(u32 &state)
{
	float phi = acos(1.0f - detail::randf32(state));
	float theta = detail::randf32(state, 0.0f, 2.0f * KPY_PI_F);
	float r = pow(detail::randf32(state), 1.0f / 3.0f);
	return vec_t<3, f32>(r * cos(theta) * sin(phi), r * sin(theta) * sin(phi), r * cos(phi));
}

KPY_HD inline vec_t<2, f32> sample_unit_square(u32 &state)
{
	float x = detail::randf32(state) - 0.5f;
	float y = detail::randf32(state) - 0.5f;
	return vec_t<2, f32>(x, y);
}

KPY_HD inline vec_t<3, f32> sample_unit_cube(u32 &state)
{
	float x = detail::randf32(state) - 0.5f;
	float y = detail::randf32(state) - 0.5f;
	float z = detail::randf32(state) - 0.5f;
	return vec_t<3, f32>(x, y, z);
}

KPY_HD inline vec_t<4, f32> sample_unit_hypercube(u32 &state)
{
	float a = detail::randf32(state) - 0.5f;
	float b = detail::randf32(state) - 0.5f;
	float c = detail::randf32(state) - 0.5f;
	float d = detail::randf32(state) - 0.5f;
	return vec_t<4, f32>(a, b, c, d);
}

/* ------------------------------------------------------------------ */
/* Poisson (NumPy's algorithms at float precision, as Warp adapts them)  */

namespace detail {
/* log(Gamma(x)) by the SPECFUN asymptotic series (Zhang & Jin, 1996). */
KPY_HD inline float loggam(float x)
{
	const float a[10] = {8.333333333333333e-02f, -2.777777777777778e-03f, 7.936507936507937e-04f,
		-5.952380952380952e-04f, 8.417508417508418e-04f, -1.917526917526918e-03f, 6.410256410256410e-03f,
		-2.955065359477124e-02f, 1.796443723688307e-01f, -1.39243221690590e+00f};
	if (x == 1.0f || x == 2.0f)
		return 0.0f;
	u32 n = x < 7.0f ? (u32)(7 - x) : 0u;
	float x0 = x + (float)n;
	float x2 = (1.0f / x0) * (1.0f / x0);
	const float lg2pi = 1.8378770664093453f; /* log(2 pi) */
	float gl0 = a[9];
	for (int i = 8; i >= 0; i--) {
		gl0 = gl0 * x2;
		gl0 = gl0 + a[i];
	}
	float gl = gl0 / x0 + 0.5f * lg2pi + (x0 - 0.5f) * log(x0) - x0;
	if (x < 7.0f) {
		for (u32 k = 1; k <= n; k++) {
			gl = gl - log(x0 - 1.0f);
			x0 = x0 - 1.0f;
		}
	}
	return gl;
}

/* Small lam: count uniforms until their product drops to exp(-lam). */
KPY_HD inline u32 poisson_mult(u32 &state, float lam)
{
	float enlam = exp(-lam);
	u32 x = 0;
	float prod = 1.0f;
	for (;;) {
		prod = prod * randf32(state);
		if (prod > enlam)
			x += 1;
		else
			return x;
	}
}

/* Large lam: Hoermann's transformed rejection (PTRS), Insurance:
 * Mathematics and Economics 12, 39-45 (1993). */
KPY_HD inline u32 poisson_ptrs(u32 &state, float lam)
{
	float slam = sqrt(lam);
	float loglam = log(lam);
	float b = 0.931f + 2.53f * slam;
	float a = -0.059f + 0.02483f * b;
	float invalpha = 1.1239f + 1.1328f / (b - 3.4f);
	float vr = 0.9277f - 3.6224f / (b - 2.0f);
	for (;;) {
		float u = randf32(state) - 0.5f;
		float v = randf32(state);
		float us = 0.5f - abs(u);
		float k = floor((2.0f * a / us + b) * u + lam + 0.43f);
		if (us >= 0.07f && v <= vr)
			return (u32)k;
		if (k < 0.0f || (us < 0.013f && v > us))
			continue;
		if ((log(v) + log(invalpha) - log(a / (us * us) + b)) <= (-lam + k * loglam - loggam(k + 1.0f)))
			return (u32)k;
	}
}
} // namespace detail

KPY_HD inline u32 poisson(u32 &state, f32 lam)
{
	float l = (float)lam;
	if (l >= 10.0f)
		return detail::poisson_ptrs(state, l);
	if (l == 0.0f)
		return 0;
	return detail::poisson_mult(state, l);
}

} // namespace kpy

#endif /* KPY_RAND_H */
