/*
 * kpy/spatial.h — spatial (6D) vectors and matrices in Featherstone's
 * convention as Warp uses it: a spatial vector is (top, bottom) = (angular
 * w, linear v); spatial_vector is vec_t<6, T>, spatial_matrix mat_t<6,6,T>.
 */
#ifndef KPY_SPATIAL_H
#define KPY_SPATIAL_H

#include "transform.h"

namespace kpy {

template <class T> KPY_HD inline vec_t<3, T> spatial_top(const vec_t<6, T> &a)
{
	return vec_t<3, T>(a.c[0], a.c[1], a.c[2]);
}
template <class T> KPY_HD inline vec_t<3, T> spatial_bottom(const vec_t<6, T> &a)
{
	return vec_t<3, T>(a.c[3], a.c[4], a.c[5]);
}

template <class T> KPY_HD inline T spatial_dot(const vec_t<6, T> &a, const vec_t<6, T> &b) { return dot(a, b); }

/* Motion cross product: (wa x wb, va x wb + wa x vb). */
template <class T> KPY_HD inline vec_t<6, T> spatial_cross(const vec_t<6, T> &a, const vec_t<6, T> &b)
{
	vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a);
	vec_t<3, T> wb = spatial_top(b), vb = spatial_bottom(b);
	vec_t<3, T> w = cross(wa, wb);
	vec_t<3, T> v = cross(va, wb) + cross(wa, vb);
	return vec_t<6, T>(w, v);
}

/* Force cross product: (wa x wb + va x vb, wa x vb). */
template <class T> KPY_HD inline vec_t<6, T> spatial_cross_dual(const vec_t<6, T> &a, const vec_t<6, T> &b)
{
	vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a);
	vec_t<3, T> wb = spatial_top(b), vb = spatial_bottom(b);
	vec_t<3, T> w = cross(wa, wb) + cross(va, vb);
	vec_t<3, T> v = cross(wa, vb);
	return vec_t<6, T>(w, v);
}

/* [R 0; S R] */
template <class T> KPY_HD inline mat_t<6, 6, T> spatial_adjoint(const mat_t<3, 3, T> &r, const mat_t<3, 3, T> &s)
{
	mat_t<6, 6, T> m;
	KPY_UNROLL
	for (int i = 0; i < 3; i++)
		KPY_UNROLL
		for (int j = 0; j < 3; j++) {
			m.rows[i].c[j] = r.rows[i].c[j];
			m.rows[i + 3].c[j + 3] = r.rows[i].c[j];
			m.rows[i + 3].c[j] = s.rows[i].c[j];
		}
	return m;
}

/* Twist (w, v) into the frame t maps to: (R w, R v + p x R w). */
template <class T> KPY_HD inline vec_t<6, T> transform_twist(const transform_t<T> &t, const vec_t<6, T> &x)
{
	vec_t<3, T> w = quat_rotate(t.q, spatial_top(x));
	vec_t<3, T> v = quat_rotate(t.q, spatial_bottom(x)) + cross(t.p, w);
	return vec_t<6, T>(w, v);
}

/* Wrench (tau, f) into the frame t maps to: (R tau + p x R f, R f). */
template <class T> KPY_HD inline vec_t<6, T> transform_wrench(const transform_t<T> &t, const vec_t<6, T> &x)
{
	vec_t<3, T> f = quat_rotate(t.q, spatial_bottom(x));
	vec_t<3, T> tau = quat_rotate(t.q, spatial_top(x)) + cross(t.p, f);
	return vec_t<6, T>(tau, f);
}

/* Linear velocity of the point r of a body moving with twist qd = (w, v). */
template <class T> KPY_HD inline vec_t<3, T> velocity_at_point(const vec_t<6, T> &qd, const vec_t<3, T> &r)
{
	return spatial_bottom(qd) + cross(spatial_top(qd), r);
}

} // namespace kpy

#endif /* KPY_SPATIAL_H */
