# Kernels of NVIDIA Warp 1.19.0's tests and examples (Apache-2.0),
# extracted by tests/warp/wheelkernels.py, chosen by warpkernels.py sample;
# each with the launch spec warp-kernels-diff derived (warpdiff.py SPEC).
# warpdiff: kernel=test_quat__quat_assign_attribute {"dim":[16],"ints":{"x":[0,15],"y":[0,15]},"set":{},"shapes":{"x":[16],"y":[16]}}
# warpdiff: kernel=test_rand__test_kernel {"dim":[16],"ints":{"float_01":[0,15],"float_ab":[0,15],"int_a":[0,15],"int_ab":[0,15],"kernel_seed":[0,3],"uint_a":[0,15],"uint_ab":[0,15]},"set":{},"shapes":{"float_01":[16],"float_ab":[16],"int_a":[16],"int_ab":[16],"uint_a":[16],"uint_ab":[16]}}
# warpdiff: kernel=test_sparse_marching_cubes__sphere_field_kernel_grad {"dim":[3,3,3],"ints":{"delta":[0,2],"field":[0,2],"lower":[0,2],"radius":[0,2]},"set":{},"shapes":{"field":[3,3,3],"radius":[3]}}
# warpdiff: kernel=test_spatial__transform_extract_subscript {"dim":[1],"ints":{"x":[0,0],"y":[0,0]},"set":{},"shapes":{"x":[1],"y":[1]}}
# warpdiff: kernel=test_static__test_static_for_loop_force_unroll__static_loop_force_unroll {"dim":[1],"ints":{"results":[0,0]},"set":{},"shapes":{"results":[1]}}
# warpdiff: kernel=test_surface_nets__weighted_vertex_sum {"dim":[16],"ints":{"out":[0,15],"verts":[0,15],"weights":[0,15]},"set":{},"shapes":{"out":[16],"verts":[16],"weights":[16]}}
# warpdiff: kernel=test_template_launch_bounds__count_visits_4d {"dim":[3,3,3,3],"ints":{"counts":[0,2]},"set":{},"shapes":{"counts":[3,3,3,3]}}
# warpdiff: kernel=test_torch__copy1d_float_kernel {"dim":[16],"ints":{"dst":[0,15],"src":[0,15]},"set":{},"shapes":{"dst":[16],"src":[16]}}
# warpdiff: kernel=test_unique_module__TestUniqueModule__test_global_deterministic_captured_at_module_creation___config_capture_kernel {"dim":[16],"ints":{"out":[0,15]},"set":{},"shapes":{"out":[16]}}
# warpdiff: kernel=test_vec__vec_array_assign_subscript {"dim":[4,4],"ints":{"x":[0,3],"y":[0,3]},"set":{},"shapes":{"x":[4,4],"y":[4,4]}}
import warp as wp

from warp.tests.unittest_utils import *

@wp.kernel
def test_quat__quat_assign_attribute(x: wp.array[float], y: wp.array[wp.quat]):
    i = wp.tid()

    a = wp.quat()
    a.x = 1.0 * x[i]
    a.y = 2.0 * x[i]
    a.z = 3.0 * x[i]
    a.w = 4.0 * x[i]
    y[i] = a

@wp.kernel
def test_rand__test_kernel(
    kernel_seed: int,
    int_a: wp.array[int],
    int_ab: wp.array[int],
    uint_a: wp.array[wp.uint32],
    uint_ab: wp.array[wp.uint32],
    float_01: wp.array[float],
    float_ab: wp.array[float],
):
    tid = wp.tid()

    state = wp.rand_init(kernel_seed, tid)

    int_a[tid] = wp.randi(state)
    int_ab[tid] = wp.randi(state, 0, 100)
    uint_a[tid] = wp.randu(state)
    uint_ab[tid] = wp.randu(state, wp.uint32(0), wp.uint32(100))
    float_01[tid] = wp.randf(state)
    float_ab[tid] = wp.randf(state, 0.0, 100.0)

@wp.kernel
def test_sparse_marching_cubes__sphere_field_kernel_grad(field: wp.array3d[float], lower: wp.vec3, delta: wp.vec3, radius: wp.array[wp.float32]):
    i, j, k = wp.tid()
    p = lower + wp.cw_mul(delta, wp.vec3(float(i), float(j), float(k)))
    field[i, j, k] = wp.length(p) - radius[0]

@wp.kernel
def test_spatial__transform_extract_subscript(x: wp.array[wp.transform], y: wp.array[float]):
    tid = wp.tid()

    a = x[tid]
    b = a[0] + 2.0 * a[1] + 3.0 * a[2] + 4.0 * a[3] + 5.0 * a[4] + 6.0 * a[5] + 7.0 * a[6]
    y[tid] = b

@wp.kernel
def test_static__test_static_for_loop_force_unroll__static_loop_force_unroll(results: wp.array[int]):
    s = 0
    for i in range(0, 8):
        s += wp.static(i)
    results[0] = s

@wp.kernel
def test_surface_nets__weighted_vertex_sum(verts: wp.array[wp.vec3], weights: wp.array[wp.vec3], out: wp.array[wp.float32]):
    tid = wp.tid()
    wp.atomic_add(out, 0, wp.dot(verts[tid], weights[tid]))

@wp.kernel
def test_template_launch_bounds__count_visits_4d(counts: wp.array4d[wp.int32]):
    i, j, k, l = wp.tid()
    wp.atomic_add(counts, i, j, k, l, 1)

@wp.kernel
def test_torch__copy1d_float_kernel(dst: wp.array[float], src: wp.array[float]):
    i = wp.tid()
    dst[i] = src[i]

@wp.kernel(module="unique")
def test_unique_module__TestUniqueModule__test_global_deterministic_captured_at_module_creation___config_capture_kernel(out: wp.array[float]):
    tid = wp.tid()
    wp.atomic_add(out, 0, float(tid))

@wp.kernel
def test_vec__vec_array_assign_subscript(x: wp.array2d[float], y: wp.array2d[wp.vec3]):
    i, j = wp.tid()

    y[i, j][0] = 1.0 * x[i, j]
    y[i, j][1] = 2.0 * x[i, j]
    y[i, j][2] = 3.0 * x[i, j]
