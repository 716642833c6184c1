/*
 * kptx_rt.cpp — the runtime headers' composite builtins as C entry points,
 * compiled to LLVM bitcode (kptx_rt.bc) at build time by clang of
 * libLLVM's major version, which kptx links into the modules that call
 * them (backends/kptx_target.c), as it links libdevice.
 *
 * One entry point per runtime stub scalarize makes (isrtstub, ir/ir.h):
 * kpy_rt_OP_TYPES(T *out, leaves...), TYPES the operand types as kir
 * spells them, the parameters the operands' leaves (quat x y z w, vecN
 * components, matrices row by row) and out the results' leaves in order.
 * The arithmetic is the headers' own: this file only converts.  Compiled
 * for the host (x86-64 generic) with -ffp-contract=off -fno-math-errno as
 * krun compiles kcpu's output; kptx retargets it for nvptx (libm calls and
 * math intrinsics become libdevice's, as kptx lowers its own ops).
 */
#include "kpy/quat.h"

using namespace kpy;

#define RT extern "C" __attribute__((always_inline))

namespace {
template <class T> inline void put(T *o, T s) { o[0] = s; }
template <unsigned N, class T> inline void put(T *o, const vec_t<N, T> &v)
{
	for (unsigned i = 0; i < N; i++)
		o[i] = v.c[i];
}
template <class T> inline void put(T *o, const quat_t<T> &q)
{
	o[0] = q.x;
	o[1] = q.y;
	o[2] = q.z;
	o[3] = q.w;
}
template <unsigned R, unsigned C, class T> inline void put(T *o, const mat_t<R, C, T> &m)
{
	for (unsigned i = 0; i < R; i++)
		for (unsigned j = 0; j < C; j++)
			o[i * C + j] = m.rows[i].c[j];
}
} // namespace

/* Parameter lists and the values they make. */
#define PQ(n) T n##x, T n##y, T n##z, T n##w
#define Q(n) quat_t<T>(n##x, n##y, n##z, n##w)
#define PV3(n) T n##0, T n##1, T n##2
#define V3(n) vec_t<3, T>(n##0, n##1, n##2)
#define PM33(n) T n##0, T n##1, T n##2, T n##3, T n##4, T n##5, T n##6, T n##7, T n##8
#define M33(n) mat_t<3, 3, T>(n##0, n##1, n##2, n##3, n##4, n##5, n##6, n##7, n##8)
#define PM44(n) PM33(n), T n##9, T n##a, T n##b, T n##c, T n##d, T n##e, T n##f
#define M44(n) mat_t<4, 4, T>(n##0, n##1, n##2, n##3, n##4, n##5, n##6, n##7, n##8, n##9, n##a, n##b, n##c, \
                              n##d, n##e, n##f)

/* The quaternion builtins for scalar type T, kir spellings S (f32) and K
 * (the composite suffix, f). */
#define QUATS(T, S, K)                                                                                       \
	RT void kpy_rt_quat_from_axis_angle_vec3##K##_##S(T *o, PV3(a), T t)                                 \
	{ put(o, quat_from_axis_angle(V3(a), t)); }                                                          \
	RT void kpy_rt_quat_rotate_quat##K##_vec3##K(T *o, PQ(q), PV3(v)) { put(o, quat_rotate(Q(q), V3(v))); } \
	RT void kpy_rt_quat_rotate_inv_quat##K##_vec3##K(T *o, PQ(q), PV3(v))                                \
	{ put(o, quat_rotate_inv(Q(q), V3(v))); }                                                            \
	RT void kpy_rt_quat_inverse_quat##K(T *o, PQ(q)) { put(o, quat_inverse(Q(q))); }                     \
	RT void kpy_rt_quat_to_matrix_quat##K(T *o, PQ(q)) { put(o, quat_to_matrix(Q(q))); }                 \
	RT void kpy_rt_quat_from_matrix_mat33##K(T *o, PM33(m)) { put(o, quat_from_matrix(M33(m))); }        \
	RT void kpy_rt_quat_from_matrix_mat44##K(T *o, PM44(m)) { put(o, quat_from_matrix(M44(m))); }        \
	RT void kpy_rt_quat_rpy_##S##_##S##_##S(T *o, T r, T p, T y) { put(o, quat_rpy(r, p, y)); }          \
	RT void kpy_rt_quat_to_rpy_quat##K(T *o, PQ(q)) { put(o, quat_to_rpy(Q(q))); }                       \
	RT void kpy_rt_quat_slerp_quat##K##_quat##K##_##S(T *o, PQ(a), PQ(b), T t)                           \
	{ put(o, quat_slerp(Q(a), Q(b), t)); }                                                               \
	RT void kpy_rt_quat_to_axis_angle_quat##K(T *o, PQ(q))                                               \
	{                                                                                                    \
		vec_t<3, T> axis;                                                                            \
		T angle;                                                                                     \
		quat_to_axis_angle(Q(q), axis, angle);                                                       \
		put(o, axis);                                                                                \
		o[3] = angle;                                                                                \
	}                                                                                                    \
	RT void kpy_rt_quat_from_euler_vec3##K##_i32_i32_i32(T *o, PV3(e), i32 i, i32 j, i32 k)              \
	{ put(o, quat_from_euler(V3(e), i, j, k)); }                                                         \
	RT void kpy_rt_quat_to_euler_quat##K##_i32_i32_i32(T *o, PQ(q), i32 i, i32 j, i32 k)                 \
	{ put(o, quat_to_euler(Q(q), i, j, k)); }                                                            \
	RT void kpy_rt_quat_twist_vec3##K##_quat##K(T *o, PV3(a), PQ(q)) { put(o, quat_twist(V3(a), Q(q))); } \
	RT void kpy_rt_quat_twist_angle_vec3##K##_quat##K(T *o, PV3(a), PQ(q))                               \
	{ put(o, quat_twist_angle(V3(a), Q(q))); }                                                           \
	RT void kpy_rt_quat_twist_angle_signed_vec3##K##_quat##K(T *o, PV3(a), PQ(q))                        \
	{ put(o, quat_twist_angle_signed(V3(a), Q(q))); }

#define T f32
QUATS(f32, f32, f)
#undef T
#define T f64
QUATS(f64, f64, d)
#undef T
