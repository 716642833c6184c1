/* compile_cuda.cu — every runtime family instantiated in device code (see
 * exercise.inc), one kernel per part, plus a grid-stride kernel over an
 * array.  Compiled, not run, by compile.test. */
#include "kpy/kpy.h"

#include "exercise.inc"

#define EX_KERNEL(part) \
	extern "C" __global__ void exercise_##part(kpy::ex::ex_buffers *b, double *out, float x, kpy_launch_bounds bounds) \
	{ \
		for (int64_t i = kpy::grid_index(); i < bounds.size; i += kpy::grid_stride()) { \
			kpy::i32 c[4]; \
			kpy::unravel(bounds, i, c); \
			out[i] = kpy::ex::kpy_exercise(b, x, c[0], kpy::ex::part); \
		} \
	}
EX_KERNEL(EX_F32)
EX_KERNEL(EX_F64)
EX_KERNEL(EX_F16)
EX_KERNEL(EX_INT)
EX_KERNEL(EX_CAST)
EX_KERNEL(EX_RAND)
EX_KERNEL(EX_ATOMIC)

extern "C" __global__ void saxpy(kpy_array xs, kpy_array ys, kpy::f32 a, kpy_launch_bounds bounds)
{
	kpy::array_t<kpy::vec3f, 1> x(xs), y(ys);
	for (int64_t i = kpy::grid_index(); i < bounds.size; i += kpy::grid_stride()) {
		kpy::i32 c[4];
		kpy::unravel(bounds, i, c);
		kpy::vec3f v = kpy::load(x, c[0]) * a + kpy::load(y, c[0]);
		kpy::store(y, c[0], v);
		kpy::atomic_add(y, 0, kpy::normalize(v));
	}
}
