/*
 * kpy/quat.h — quat_t<T>: quaternions stored (x, y, z, w), w the real part,
 * with Warp's quaternion builtins (warp/native/quat.h) and the quaternion
 * helpers Warp writes in Python (warp/_src/math.py: quat_to_rpy,
 * quat_from_euler, quat_to_euler, quat_twist*), which Warp defines for
 * float32 and kpy for every float type.
 */
#ifndef KPY_QUAT_H
#define KPY_QUAT_H

#include "mat.h"

namespace kpy {

template <class T> struct quat_t {
	T x, y, z; /* imaginary part */
	T w;       /* real part */

	/* Zero, as Warp's quat() in a kernel (not the identity). */
	KPY_HD quat_t() : x(), y(), z(), w() { }

	template <class A, class B, class C, class D,
		typename detail::enable_if<detail::all_scalar<A, B, C, D>::value, int>::type = 0>
	KPY_HD quat_t(A x_, B y_, C z_, D w_)
		: x(static_cast<T>(x_)), y(static_cast<T>(y_)), z(static_cast<T>(z_)), w(static_cast<T>(w_)) { }

	/* From the imaginary part and the real part. */
	template <class S, typename detail::enable_if<detail::is_scalar<S>::value, int>::type = 0>
	KPY_HD quat_t(const vec_t<3, T> &v, S w_) : x(v.c[0]), y(v.c[1]), z(v.c[2]), w(static_cast<T>(w_)) { }

	/* Component type conversion. */
	template <class U, typename detail::enable_if<!detail::same<U, T>::value, int>::type = 0>
	KPY_HD explicit quat_t(const quat_t<U> &o)
		: x(static_cast<T>(o.x)), y(static_cast<T>(o.y)), z(static_cast<T>(o.z)), w(static_cast<T>(o.w)) { }

	/* Component i in x, y, z, w order; negative i counts from the end. */
	KPY_HD T &operator[](int i)
	{
		i = i < 0 ? i + 4 : i;
		return i == 0 ? x : i == 1 ? y : i == 2 ? z : w;
	}
	KPY_HD const T &operator[](int i) const
	{
		i = i < 0 ? i + 4 : i;
		return i == 0 ? x : i == 1 ? y : i == 2 ? z : w;
	}
};

typedef quat_t<f32> quatf;
typedef quat_t<f64> quatd;
typedef quat_t<f16> quath;

template <class Q> KPY_HD inline Q quat_identity()
{
	return Q(0, 0, 0, 1);
}

/* ------------------------------------------------------------------ */
/* Operators                                                            */

template <class T> KPY_HD inline bool operator==(const quat_t<T> &a, const quat_t<T> &b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}
template <class T> KPY_HD inline bool operator!=(const quat_t<T> &a, const quat_t<T> &b) { return !(a == b); }

template <class T> KPY_HD inline quat_t<T> operator+(const quat_t<T> &a, const quat_t<T> &b)
{
	return quat_t<T>(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
template <class T> KPY_HD inline quat_t<T> operator-(const quat_t<T> &a, const quat_t<T> &b)
{
	return quat_t<T>(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}
template <class T> KPY_HD inline quat_t<T> operator-(const quat_t<T> &a) { return quat_t<T>(-a.x, -a.y, -a.z, -a.w); }
template <class T> KPY_HD inline quat_t<T> &operator+=(quat_t<T> &a, const quat_t<T> &b) { return a = a + b; }
template <class T> KPY_HD inline quat_t<T> &operator-=(quat_t<T> &a, const quat_t<T> &b) { return a = a - b; }
template <class T> KPY_HD inline quat_t<T> operator+(const quat_t<T> &a) { return a; }
template <class T> KPY_HD inline quat_t<T> neg(const quat_t<T> &a) { return -a; }
template <class T> KPY_HD inline quat_t<T> pos(const quat_t<T> &a) { return a; }

/* Hamilton product, in Warp's operand order. */
template <class T> KPY_HD inline quat_t<T> operator*(const quat_t<T> &a, const quat_t<T> &b)
{
	return quat_t<T>(a.w * b.x + b.w * a.x + a.y * b.z - b.y * a.z, a.w * b.y + b.w * a.y + a.z * b.x - b.z * a.x,
		a.w * b.z + b.w * a.z + a.x * b.y - b.x * a.y, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
template <class T> KPY_HD inline quat_t<T> operator*(const quat_t<T> &a, T s)
{
	return quat_t<T>(a.x * s, a.y * s, a.z * s, a.w * s);
}
template <class T> KPY_HD inline quat_t<T> operator*(T s, const quat_t<T> &a) { return a * s; }
template <class T> KPY_HD inline quat_t<T> operator/(const quat_t<T> &a, T s)
{
	return quat_t<T>(a.x / s, a.y / s, a.z / s, a.w / s);
}
template <class T> KPY_HD inline quat_t<T> operator/(T s, const quat_t<T> &a)
{
	return quat_t<T>(s / a.x, s / a.y, s / a.z, s / a.w);
}

/* ------------------------------------------------------------------ */
/* Functions                                                            */

template <class T> KPY_HD inline T dot(const quat_t<T> &a, const quat_t<T> &b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
template <class T> KPY_HD inline T length_sq(const quat_t<T> &q) { return dot(q, q); }
template <class T> KPY_HD inline T length(const quat_t<T> &q) { return sqrt(dot(q, q)); }

/* normalize: q / |q|, or the identity when |q| is not > 0. */
template <class T> KPY_HD inline quat_t<T> normalize(const quat_t<T> &q)
{
	T l = length(q);
	if (l > T(0)) {
		T inv = T(1) / l;
		return quat_t<T>(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
	}
	return quat_t<T>(0, 0, 0, 1);
}

template <class T> KPY_HD inline quat_t<T> quat_inverse(const quat_t<T> &q) { return quat_t<T>(-q.x, -q.y, -q.z, q.w); }

template <class T> KPY_HD inline quat_t<T> lerp(const quat_t<T> &a, const quat_t<T> &b, T t)
{
	return a * (T(1) - t) + b * t;
}

template <class T> KPY_HD inline bool isfinite(const quat_t<T> &q)
{
	return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}
template <class T> KPY_HD inline bool isnan(const quat_t<T> &q) { return isnan(q.x) || isnan(q.y) || isnan(q.z) || isnan(q.w); }
template <class T> KPY_HD inline bool isinf(const quat_t<T> &q) { return isinf(q.x) || isinf(q.y) || isinf(q.z) || isinf(q.w); }

/* Copy of q with component i (x, y, z, w order) replaced by v. */
template <class T> KPY_HD inline quat_t<T> insert(quat_t<T> q, int i, T v)
{
	q[i] = v;
	return q;
}

template <class T> KPY_HD inline quat_t<T> quat_from_axis_angle(const vec_t<3, T> &axis, T angle)
{
	T half = angle * T(0.5);
	T w = cos(half);
	vec_t<3, T> v = axis * sin(half);
	return quat_t<T>(v.c[0], v.c[1], v.c[2], w);
}

/* The rotation's axis (unit, or zero) and angle in [0, 2*pi]. */
template <class T> KPY_HD inline void quat_to_axis_angle(const quat_t<T> &q, vec_t<3, T> &axis, T &angle)
{
	vec_t<3, T> v(q.x, q.y, q.z);
	axis = q.w < T(0) ? -normalize(v) : normalize(v);
	angle = T(2) * atan2(length(v), abs(q.w));
}

/* Rotation by roll about x, then pitch about y, then yaw about z (fixed axes). */
template <class T> KPY_HD inline quat_t<T> quat_rpy(T roll, T pitch, T yaw)
{
	T cy = cos(yaw * T(0.5));
	T sy = sin(yaw * T(0.5));
	T cr = cos(roll * T(0.5));
	T sr = sin(roll * T(0.5));
	T cp = cos(pitch * T(0.5));
	T sp = sin(pitch * T(0.5));
	T w = cy * cr * cp + sy * sr * sp;
	T x = cy * sr * cp - sy * cr * sp;
	T y = cy * cr * sp + sy * sr * cp;
	T z = sy * cr * cp - cy * sr * sp;
	return quat_t<T>(x, y, z, w);
}

template <class T> KPY_HD inline vec_t<3, T> quat_rotate(const quat_t<T> &q, const vec_t<3, T> &v)
{
	T c = T(2) * q.w * q.w - T(1);
	T d = T(2) * (q.x * v.c[0] + q.y * v.c[1] + q.z * v.c[2]);
	return vec_t<3, T>(v.c[0] * c + q.x * d + (q.y * v.c[2] - q.z * v.c[1]) * q.w * T(2),
		v.c[1] * c + q.y * d + (q.z * v.c[0] - q.x * v.c[2]) * q.w * T(2),
		v.c[2] * c + q.z * d + (q.x * v.c[1] - q.y * v.c[0]) * q.w * T(2));
}

template <class T> KPY_HD inline vec_t<3, T> quat_rotate_inv(const quat_t<T> &q, const vec_t<3, T> &v)
{
	T c = T(2) * q.w * q.w - T(1);
	T d = T(2) * (q.x * v.c[0] + q.y * v.c[1] + q.z * v.c[2]);
	return vec_t<3, T>(v.c[0] * c + q.x * d - (q.y * v.c[2] - q.z * v.c[1]) * q.w * T(2),
		v.c[1] * c + q.y * d - (q.z * v.c[0] - q.x * v.c[2]) * q.w * T(2),
		v.c[2] * c + q.z * d - (q.x * v.c[1] - q.y * v.c[0]) * q.w * T(2));
}

/* q0 * exp(t * log(q0^-1 q1)), through the axis-angle form as Warp does. */
template <class T> KPY_HD inline quat_t<T> quat_slerp(const quat_t<T> &q0, const quat_t<T> &q1, T t)
{
	vec_t<3, T> axis;
	T angle;
	quat_to_axis_angle(quat_inverse(q0) * q1, axis, angle);
	return q0 * quat_from_axis_angle(axis, t * angle);
}

/* Columns are the rotated unit axes. */
template <class T> KPY_HD inline mat_t<3, 3, T> quat_to_matrix(const quat_t<T> &q)
{
	vec_t<3, T> c1 = quat_rotate(q, vec_t<3, T>(1.0, 0.0, 0.0));
	vec_t<3, T> c2 = quat_rotate(q, vec_t<3, T>(0.0, 1.0, 0.0));
	vec_t<3, T> c3 = quat_rotate(q, vec_t<3, T>(0.0, 0.0, 1.0));
	return matrix_from_cols<mat_t<3, 3, T> >(c1, c2, c3);
}

/* From the upper-left 3x3 block of a 3x3 or 4x4 rotation matrix
 * (Shepperd's method on the largest of the trace and the diagonal),
 * normalized. */
template <unsigned N, class T> KPY_HD inline quat_t<T> quat_from_matrix(const mat_t<N, N, T> &mm)
{
	static_assert(N == 3 || N == 4, "quat_from_matrix: 3x3 or 4x4 matrix");
	const vec_t<N, T> *m = mm.rows;
	const T tr = m[0].c[0] + m[1].c[1] + m[2].c[2];
	T x = T(0), y = T(0), z = T(0), w = T(0), h = T(0);
	if (tr >= T(0)) {
		h = sqrt(tr + T(1));
		w = T(0.5) * h;
		h = T(0.5) / h;
		x = (m[2].c[1] - m[1].c[2]) * h;
		y = (m[0].c[2] - m[2].c[0]) * h;
		z = (m[1].c[0] - m[0].c[1]) * h;
	} else {
		int d = 0;
		if (m[1].c[1] > m[0].c[0])
			d = 1;
		if (m[2].c[2] > m[d].c[d])
			d = 2;
		if (d == 0) {
			h = sqrt((m[0].c[0] - (m[1].c[1] + m[2].c[2])) + T(1));
			x = T(0.5) * h;
			h = T(0.5) / h;
			y = (m[0].c[1] + m[1].c[0]) * h;
			z = (m[2].c[0] + m[0].c[2]) * h;
			w = (m[2].c[1] - m[1].c[2]) * h;
		} else if (d == 1) {
			h = sqrt((m[1].c[1] - (m[2].c[2] + m[0].c[0])) + T(1));
			y = T(0.5) * h;
			h = T(0.5) / h;
			z = (m[1].c[2] + m[2].c[1]) * h;
			x = (m[0].c[1] + m[1].c[0]) * h;
			w = (m[0].c[2] - m[2].c[0]) * h;
		} else {
			h = sqrt((m[2].c[2] - (m[0].c[0] + m[1].c[1])) + T(1));
			z = T(0.5) * h;
			h = T(0.5) / h;
			x = (m[2].c[0] + m[0].c[2]) * h;
			y = (m[1].c[2] + m[2].c[1]) * h;
			w = (m[1].c[0] - m[0].c[1]) * h;
		}
	}
	return normalize(quat_t<T>(x, y, z, w));
}

/* ------------------------------------------------------------------ */
/* Euler angles and twist (Warp's Python helpers)                       */

/* (roll, pitch, yaw), the inverse of quat_rpy; pitch clamped to +-pi/2. */
template <class T> KPY_HD inline vec_t<3, T> quat_to_rpy(const quat_t<T> &q)
{
	T x = q.x, y = q.y, z = q.z, w = q.w;
	T t0 = T(2) * (w * x + y * z);
	T t1 = T(1) - T(2) * (x * x + y * y);
	T roll = atan2(t0, t1);
	T t2 = T(2) * (w * y - z * x);
	t2 = clamp(t2, T(-1), T(1));
	T pitch = asin(t2);
	T t3 = T(2) * (w * z + x * y);
	T t4 = T(1) - T(2) * (y * y + z * z);
	T yaw = atan2(t3, t4);
	return vec_t<3, T>(roll, pitch, yaw);
}

/* Rotations by e[i] about axis i, then e[j] about j, then e[k] about k
 * (fixed axes): q = qk * (qj * qi).  e is indexed by axis. */
template <class T> KPY_HD inline quat_t<T> quat_from_euler(const vec_t<3, T> &e, i32 i, i32 j, i32 k)
{
	T hi = T(0.5) * e[i];
	T hj = T(0.5) * e[j];
	T hk = T(0.5) * e[k];
	T si = sin(hi), sj = sin(hj), sk = sin(hk);
	T ci = cos(hi), cj = cos(hj), ck = cos(hk);
	quat_t<T> qi = i == 0 ? quat_t<T>(si, T(0), T(0), ci) : i == 1 ? quat_t<T>(T(0), si, T(0), ci) : quat_t<T>(T(0), T(0), si, ci);
	quat_t<T> qj = j == 0 ? quat_t<T>(sj, T(0), T(0), cj) : j == 1 ? quat_t<T>(T(0), sj, T(0), cj) : quat_t<T>(T(0), T(0), sj, cj);
	quat_t<T> qk = k == 0 ? quat_t<T>(sk, T(0), T(0), ck) : k == 1 ? quat_t<T>(T(0), sk, T(0), ck) : quat_t<T>(T(0), T(0), sk, ck);
	return qk * (qj * qi);
}

/* Euler angles of q for the axis sequence i, j, k (Bernardes & Viollet's
 * quaternion-to-Euler method, as Warp writes it; see quat_from_euler for
 * the convention and Warp's documentation for proper sequences). */
template <class T> KPY_HD inline vec_t<3, T> quat_to_euler(const quat_t<T> &q, i32 i, i32 j, i32 k)
{
	const T pi = T(3.14159265358979323846);
	const T half_pi = T(1.57079632679489661923);
	T q0 = q.w, q1 = q.x, q2 = q.y, q3 = q.z;
	i += 1;
	j += 1;
	k += 1;
	bool not_proper = true;
	if (i == k) {
		not_proper = false;
		k = 6 - i - j;
	}
	T e = T((i - j) * (j - k) * (k - i)) / T(2);
	T a = q0;
	T b = i == 2 ? q2 : i == 3 ? q3 : q1;
	T c = j == 2 ? q2 : j == 3 ? q3 : q1;
	T d = k == 2 ? q2 * e : k == 3 ? q3 * e : q1 * e;
	if (not_proper) {
		T qj = j == 2 ? q2 : j == 3 ? q3 : q1;
		T qk = k == 2 ? q2 : k == 3 ? q3 : q1;
		T qi = i == 2 ? q2 : i == 3 ? q3 : q1;
		a = a - qj;
		b = b + qk * e;
		c = c + q0;
		d = d - qi;
	}
	T t2 = acos(T(2) * (a * a + b * b) / (a * a + b * b + c * c + d * d) - T(1));
	T tp = atan2(b, a);
	T tm = atan2(d, c);
	T t1 = T(0);
	T t3 = T(0);
	if (abs(t2) < T(1e-6)) {
		t3 = T(2) * tp - t1;
	} else if (abs(t2 - pi) < T(1e-6)) {
		t3 = T(2) * tm + t1;
	} else {
		t1 = tp - tm;
		t3 = tp + tm;
	}
	if (not_proper) {
		t2 = t2 - half_pi;
		t3 = t3 * e;
	}
	T ex = t1, ey = t2, ez = t3;
	if (i == 2) {
		ex = t2;
		ey = t1;
	} else if (i == 3) {
		ex = t3;
		ez = t1;
	}
	if (j == 1)
		ex = t2;
	else if (j == 2)
		ey = t2;
	else
		ez = t2;
	if (k == 1)
		ex = t3;
	else if (k == 2)
		ey = t3;
	else
		ez = t3;
	return vec_t<3, T>(ex, ey, ez);
}

/* Twist of q about a unit axis (swing-twist decomposition). */
template <class T> KPY_HD inline quat_t<T> quat_twist(const vec_t<3, T> &axis, const quat_t<T> &q)
{
	vec_t<3, T> a(q.x, q.y, q.z);
	T proj = dot(a, axis);
	a = proj * axis;
	return normalize(quat_t<T>(a.c[0], a.c[1], a.c[2], q.w));
}
template <class T> KPY_HD inline T quat_twist_angle(const vec_t<3, T> &axis, const quat_t<T> &q)
{
	T s = abs(dot(axis, vec_t<3, T>(q.x, q.y, q.z)));
	return T(2) * atan2(s, q.w);
}
template <class T> KPY_HD inline T quat_twist_angle_signed(const vec_t<3, T> &axis, const quat_t<T> &q)
{
	T s = dot(axis, vec_t<3, T>(q.x, q.y, q.z));
	return T(2) * atan2(s, q.w);
}

} // namespace kpy

#endif /* KPY_QUAT_H */
