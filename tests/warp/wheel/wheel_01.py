# Kernels of NVIDIA Warp 1.19.0's tests and examples (Apache-2.0),
# extracted by tests/warp/wheelkernels.py, chosen by warpkernels.py sample;
# each with the launch spec warp-kernels-diff derived (warpdiff.py SPEC).
# warpdiff: kernel=aux_array_subclass_cache__read_regular {"dim":[4],"ints":{"out":[0,3],"source":[0,3]},"set":{},"shapes":{"out":[4],"source":[4]}}
# warpdiff: kernel=benchmark_cloth_warp__integrate_particles {"dim":[16],"ints":{"dt":[0,3],"f":[0,15],"v":[0,15],"w":[0,15],"x":[0,15]},"set":{},"shapes":{"f":[16],"v":[16],"w":[16],"x":[16]}}
# warpdiff: kernel=example_alloc_tracker__enforce_ground {"dim":[16],"ints":{"positions":[0,15],"velocities":[0,15]},"set":{"restitution":0.6},"shapes":{"positions":[16],"velocities":[16]}}
# warpdiff: kernel=example_elastic_shape_optimization__invert_scalar {"dim":[1],"ints":{"input":[0,0],"output":[0,0]},"set":{},"shapes":{"input":[1],"output":[1]}}
# warpdiff: kernel=example_fluid__pressure_solve {"dim":[4,4],"ints":{"div":[0,15],"p0":[0,15],"p1":[0,15]},"set":{},"shapes":{"div":[16,16],"p0":[16,16],"p1":[16,16]}}
# warpdiff: kernel=example_jax_callable__scale_kernel {"dim":[16],"ints":{"a":[0,15],"output":[0,15]},"set":{"s":2.0},"shapes":{"a":[16],"output":[16]}}
# warpdiff: kernel=example_navier_stokes_perturbation__multiply_k2_inverse {"dim":[4,4],"ints":{"inv_k_sq":[0,3],"omega_hat":[0,3],"psi_hat":[0,3]},"set":{},"shapes":{"inv_k_sq":[4,4],"omega_hat":[4,4],"psi_hat":[4,4]}}
# warpdiff: kernel=test_adam__objective_vec3 {"dim":[16],"ints":{"params":[0,15],"score":[0,15]},"set":{},"shapes":{"params":[16],"score":[16]}}
# warpdiff: kernel=test_apic_load_from_bytes__offset_kernel {"dim":[16],"ints":{"values":[0,15]},"set":{"offset":1.0},"shapes":{"values":[16]}}
# warpdiff: kernel=test_array__inplace_add_mats {"dim":[1],"ints":{"x":[0,0],"y":[0,0]},"set":{},"shapes":{"x":[1],"y":[1]}}
# warpdiff: kernel=test_array__sum_array {"dim":[16],"ints":{"arr":[0,15],"loss":[0,15]},"set":{},"shapes":{"arr":[16],"loss":[16]}}
# warpdiff: kernel=test_assert__expect_ones_compound {"dim":[1],"ints":{"a":[0,0]},"set":{},"shapes":{"a":[1]}}
# warpdiff: kernel=test_clang_cuda__trivial_kernel {"dim":[16],"ints":{"a":[0,15],"b":[0,15]},"set":{},"shapes":{"a":[16],"b":[16]}}
# warpdiff: kernel=test_codegen__TestCodeGen__test_grid_stride_precedence__gs_true {"dim":[16],"ints":{"a":[0,15]},"set":{},"shapes":{"a":[16]}}
# warpdiff: kernel=test_codegen__for_iter_mutated_reuse_self_ref {"dim":[1],"ints":{"out":[0,0]},"set":{},"shapes":{"out":[1]}}
# warpdiff: kernel=test_codegen__test_error_kernel_return_value__f0 {"dim":[1],"ints":{},"set":{"x":3.0},"shapes":{}}
# warpdiff: kernel=test_codegen_instancing__create_kernel_simple__k {"dim":[1],"ints":{},"set":{},"shapes":{"a":[1]}}
# warpdiff: kernel=test_compile_consts__test_hash_shadowed_var__test_function {"dim":[1],"ints":{"data":[0,0]},"set":{},"shapes":{"data":[1]}}
# warpdiff: kernel=test_composite_component_adjoint__mat33_row_iadd_kernel {"dim":[16],"ints":{"x":[0,15],"y":[0,15]},"set":{},"shapes":{"x":[16],"y":[16]}}
# warpdiff: kernel=test_conditional__test_short_circuit_and_grad_kernel {"dim":[16],"ints":{"flag":[0,15],"out":[0,15],"x":[0,15]},"set":{},"shapes":{"flag":[16],"out":[16],"x":[16]}}
# warpdiff: kernel=test_constant_precision__test_typed_constructor_accepts_literals_kernel {"dim":[1],"ints":{"result":[0,0]},"set":{},"shapes":{"result":[1]}}
# warpdiff: kernel=test_copy__mul_1d {"dim":[16],"ints":{"a":[0,15],"s":[0,3]},"set":{},"shapes":{"a":[16]}}
# warpdiff: kernel=test_cpu_precompiled_headers__TestCpuPrecompiledHeaders__test_disabled__offset {"dim":[5],"ints":{"a":[0,4]},"set":{},"shapes":{"a":[5]}}
# warpdiff: kernel=test_cuda_arch_suffix__add_one {"dim":[16],"ints":{"a":[0,15],"b":[0,15]},"set":{},"shapes":{"a":[16],"b":[16]}}
# warpdiff: kernel=test_deterministic_backward__vec3_gather_address_kernel {"dim":[16],"ints":{"output":[0,15],"source_indices":[0,15],"values":[0,15]},"set":{},"shapes":{"output":[16],"source_indices":[16],"values":[16]}}
# warpdiff: kernel=test_deterministic_scatter__mat33_scatter_add_kernel {"dim":[16],"ints":{"data":[0,15],"dest_indices":[0,15],"output":[0,15]},"set":{},"shapes":{"data":[16],"dest_indices":[16],"output":[16]}}
# warpdiff: kernel=test_factory_style_array_annotations__factory_style_ndim_kernel {"dim":[1],"ints":{"arr":[0,15],"arr1d":[0,15],"arr2d":[0,15],"arr3d":[0,15],"arr4d":[0,15],"out":[0,15]},"set":{},"shapes":{"arr":[16,16],"arr1d":[16],"arr2d":[16,16],"arr3d":[16,16,16],"arr4d":[16,16,16,16],"out":[16]}}
# warpdiff: kernel=test_grad__for_loop_grad {"dim":[1],"ints":{"n":[0,0],"s":[0,0],"x":[0,0]},"set":{},"shapes":{"s":[1],"x":[1]}}
# warpdiff: kernel=test_grad_customs__cross_kernel_forward_only {"dim":[1],"ints":{"x":[0,0],"y":[0,0]},"set":{},"shapes":{"x":[1],"y":[1]}}
# warpdiff: kernel=test_grad_debug__module_backward_disabled_wrong_grad_kernel {"dim":[16],"ints":{"a":[0,15],"out":[0,15]},"set":{},"shapes":{"a":[16],"out":[16]}}
# warpdiff: kernel=test_graph__write_tid_kernel {"dim":[16],"ints":{"ptr":[0,15]},"set":{},"shapes":{"ptr":[16]}}
# warpdiff: kernel=test_jax__inc_2d_kernel {"dim":[4,4],"ints":{"x":[0,3],"y":[0,3]},"set":{},"shapes":{"x":[4,4],"y":[4,4]}}
# warpdiff: kernel=test_jax__scale_vec_kernel {"dim":[16],"ints":{"a":[0,15],"output":[0,15],"s":[0,3]},"set":{},"shapes":{"a":[16],"output":[16]}}
# warpdiff: kernel=test_launch__arange {"dim":[16],"ints":{"out":[0,15]},"set":{},"shapes":{"out":[16]}}
# warpdiff: kernel=test_lvalue__intermediate_kernel {"dim":[10],"ints":{"foos":[0,9]},"set":{},"shapes":{"foos":[10]}}
# warpdiff: kernel=test_mat__mat_array_extract_row {"dim":[1,1],"ints":{"x":[0,0],"y":[0,0]},"set":{},"shapes":{"x":[1,1],"y":[1,1]}}
# warpdiff: kernel=test_math__quat_helpers_kernel {"dim":[1],"ints":{"out":[0,15]},"set":{},"shapes":{"out":[16,16]}}
# warpdiff: kernel=test_module_hashing__codegen_order_zulu {"dim":[16],"ints":{"output":[0,15]},"set":{},"shapes":{"output":[16]}}
# warpdiff: kernel=test_overwrite__double_kernel {"dim":[16],"ints":{"x":[0,15],"y":[0,15]},"set":{},"shapes":{"x":[16],"y":[16]}}
# warpdiff: kernel=test_paddle__copy2d_mat22_kernel {"dim":[4,4],"ints":{"dst":[0,3],"src":[0,3]},"set":{},"shapes":{"dst":[4,4],"src":[4,4]}}
import warp as wp

@wp.kernel(enable_backward=False)
def aux_array_subclass_cache__read_regular(source: wp.array[float], out: wp.array[float]):
    out[wp.tid()] = source[wp.tid()] * 2.0

@wp.kernel
def benchmark_cloth_warp__integrate_particles(
    x: wp.array[wp.vec3],
    v: wp.array[wp.vec3],
    f: wp.array[wp.vec3],
    w: wp.array[float],
    dt: float,
):
    tid = wp.tid()

    x0 = x[tid]
    v0 = v[tid]
    f0 = f[tid]
    inv_mass = w[tid]

    g = wp.vec3()

    # treat particles with inv_mass == 0 as kinematic
    if inv_mass > 0.0:
        g = wp.vec3(0.0, 0.0 - 9.81, 0.0)

    # simple semi-implicit Euler. v1 = v0 + a dt, x1 = x0 + v1 dt
    v1 = v0 + (f0 * inv_mass + g) * dt
    x1 = x0 + v1 * dt

    x[tid] = x1
    v[tid] = v1

    # clear forces
    f[tid] = wp.vec3()

@wp.kernel
def example_alloc_tracker__enforce_ground(
    positions: wp.array(dtype=wp.vec3),
    velocities: wp.array(dtype=wp.vec3),
    restitution: float,
):
    tid = wp.tid()
    p = positions[tid]
    v = velocities[tid]
    if p[1] < 0.0:
        positions[tid] = wp.vec3(p[0], 0.0, p[2])
        velocities[tid] = wp.vec3(v[0], wp.abs(v[1]) * restitution, v[2])

@wp.kernel
def example_elastic_shape_optimization__invert_scalar(input: wp.array[float], output: wp.array[float]):
    output[0] = 1.0 / input[0]

grid_width = wp.constant(256)

grid_height = wp.constant(128)

@wp.func
def lookup_float(f: wp.array2d[float], x: int, y: int):
    x = wp.clamp(x, 0, grid_width - 1)
    y = wp.clamp(y, 0, grid_height - 1)

    return f[x, y]

@wp.kernel
def example_fluid__pressure_solve(p0: wp.array2d[float], p1: wp.array2d[float], div: wp.array2d[float]):
    i, j = wp.tid()

    s1 = lookup_float(p0, i - 1, j)
    s2 = lookup_float(p0, i + 1, j)
    s3 = lookup_float(p0, i, j - 1)
    s4 = lookup_float(p0, i, j + 1)

    # Jacobi update
    err = s1 + s2 + s3 + s4 - div[i, j]

    p1[i, j] = err * 0.25

@wp.kernel
def example_jax_callable__scale_kernel(a: wp.array[float], s: float, output: wp.array[float]):
    tid = wp.tid()
    output[tid] = a[tid] * s

@wp.kernel
def example_navier_stokes_perturbation__multiply_k2_inverse(inv_k_sq: wp.array2d[float], omega_hat: wp.array2d[wp.vec2f], psi_hat: wp.array2d[wp.vec2f]):
    """Solve Poisson equation in Fourier space: psi_hat = omega_hat / ||k||^2."""
    i, j = wp.tid()
    psi_hat[i, j] = omega_hat[i, j] * inv_k_sq[i, j]

from warp.tests.unittest_utils import *

@wp.kernel
def test_adam__objective_vec3(params: wp.array[wp.vec3], score: wp.array[float]):
    tid = wp.tid()
    U = wp.dot(params[tid], params[tid])
    wp.atomic_add(score, 0, U)

@wp.kernel(module="unique")
def test_apic_load_from_bytes__offset_kernel(values: wp.array[float], offset: float):
    i = wp.tid()
    values[i] = values[i] + offset

@wp.kernel
def test_array__inplace_add_mats(x: wp.array[wp.mat33], y: wp.array[wp.mat33]):
    i = wp.tid()
    x[i] += y[i]

@wp.kernel
def test_array__sum_array(arr: wp.array[float], loss: wp.array[float]):
    tid = wp.tid()
    wp.atomic_add(loss, 0, arr[tid])

@wp.kernel
def test_assert__expect_ones_compound(a: wp.array[int]):
    i = wp.tid()

    assert a[i] > 0 and a[i] < 2

@wp.kernel
def test_clang_cuda__trivial_kernel(a: wp.array[float], b: wp.array[float]):
    i = wp.tid()
    b[i] = a[i] * 2.0

@wp.kernel(grid_stride=True, module="unique")
def test_codegen__TestCodeGen__test_grid_stride_precedence__gs_true(a: wp.array[float]):
    a[wp.tid()] = 1.0

@wp.kernel
def test_codegen__for_iter_mutated_reuse_self_ref(out: wp.array[wp.int32]):
    s = int(0)
    for i in range(2):
        s = s + i
    k = int(0)
    while k < 3:
        i = i + 1
        k = k + 1
    out[0] = i

@wp.kernel(module="unique")
def test_codegen__test_error_kernel_return_value__f0(x: float):
    return

@wp.kernel
def test_codegen_instancing__create_kernel_simple__k(a: wp.array[int]):
    a[0] = 17

TEST_CONSTANT_SHADOW_0 = wp.constant(1.0)

TEST_CONSTANT_SHADOW_1 = wp.constant(1.0)

TEST_CONSTANT_SHADOW_2 = wp.constant(1.0)

TEST_CONSTANT_SHADOW_0 = wp.constant(0.0)

TEST_CONSTANT_SHADOW_1 = wp.constant(0.0)

TEST_CONSTANT_SHADOW_2 = wp.constant(0.0)

@wp.kernel
def test_compile_consts__test_hash_shadowed_var__test_function(data: wp.array[wp.float32]):
    i = wp.tid()
    TEST_CONSTANT_SHADOW_0 = 2.0
    TEST_CONSTANT_SHADOW_1, TEST_CONSTANT_SHADOW_2 = 4.0, 8.0
    data[i] = TEST_CONSTANT_SHADOW_0 + TEST_CONSTANT_SHADOW_1 + TEST_CONSTANT_SHADOW_2

@wp.kernel
def test_composite_component_adjoint__mat33_row_iadd_kernel(y: wp.array[wp.mat33], x: wp.array[wp.vec3]):
    i = wp.tid()
    y[i][1] += x[i]

@wp.kernel
def test_conditional__test_short_circuit_and_grad_kernel(
    x: wp.array[float],
    flag: wp.array[int],
    out: wp.array[float],
):
    tid = wp.tid()
    # flag[tid] != 0 and tid < 2: only threads 0,1 with flag set take the branch.
    # The backward pass must replay the same short-circuit guards so that
    # gradients flow only through the operands that were actually evaluated.
    if flag[tid] != 0 and tid < 2:
        out[tid] = x[tid] * 3.0
    else:
        out[tid] = x[tid] * 1.0

@wp.kernel
def test_constant_precision__test_typed_constructor_accepts_literals_kernel(result: wp.array[wp.vec3d]):
    """Test that float literals are accepted by typed constructors."""
    v = wp.vec3d(1.0, 2.0, 3.0)
    result[0] = v

@wp.kernel
def test_copy__mul_1d(a: wp.array1d[float], s: float):
    i = wp.tid()
    a[i] = a[i] * s

@wp.kernel(module="unique")
def test_cpu_precompiled_headers__TestCpuPrecompiledHeaders__test_disabled__offset(a: wp.array[float]):
    tid = wp.tid()
    a[tid] = float(tid) + 1.0

@wp.kernel
def test_cuda_arch_suffix__add_one(a: wp.array[float], b: wp.array[float]):
    i = wp.tid()
    b[i] = a[i] + 1.0

@wp.kernel
def test_deterministic_backward__vec3_gather_address_kernel(
    values: wp.array[wp.vec3],
    source_indices: wp.array[wp.int32],
    output: wp.array[wp.vec3],
):
    """Vector-valued gather covering cloth/particle-style position gradients."""
    tid = wp.tid()
    output[tid] = values[source_indices[tid]]

@wp.kernel
def test_deterministic_scatter__mat33_scatter_add_kernel(
    data: wp.array[wp.mat33],
    dest_indices: wp.array[wp.int32],
    output: wp.array[wp.mat33],
):
    """Atomic add with ``wp.mat33`` values."""
    tid = wp.tid()
    wp.atomic_add(output, dest_indices[tid], data[tid])

@wp.kernel
def test_factory_style_array_annotations__factory_style_ndim_kernel(
    arr: wp.array(dtype=float, ndim=2),
    arr1d: wp.array1d(dtype=float),
    arr2d: wp.array2d(dtype=float),
    arr3d: wp.array3d(dtype=float),
    arr4d: wp.array4d(dtype=float),
    out: wp.array(dtype=float),
):
    out[0] = arr[1, 1] + arr1d[1] + arr2d[1, 1] + arr3d[0, 1, 1] + arr4d[0, 0, 1, 1]

@wp.kernel
def test_grad__for_loop_grad(n: int, x: wp.array[float], s: wp.array[float]):
    sum = float(0.0)

    for i in range(n):
        sum = sum + x[i] * 2.0

    s[0] = sum

@wp.func
def cross_kernel_leaf(x: float):
    return x * x

@wp.func
def cross_kernel_helper(x: float):
    return cross_kernel_leaf(x)

@wp.kernel(enable_backward=False)
def test_grad_customs__cross_kernel_forward_only(x: wp.array[float], y: wp.array[float]):
    tid = wp.tid()
    y[tid] = cross_kernel_helper(x[tid])

@wp.func
def wrong_grad_func(x: float):
    return x * x

_MODULE_BACKWARD_DISABLED = "test_grad_debug_module_backward_disabled"

@wp.kernel(module=_MODULE_BACKWARD_DISABLED)
def test_grad_debug__module_backward_disabled_wrong_grad_kernel(a: wp.array[float], out: wp.array[float]):
    tid = wp.tid()
    out[tid] = wrong_grad_func(a[tid])

@wp.kernel
def test_graph__write_tid_kernel(ptr: wp.array[float]):
    tid = wp.tid()
    ptr[tid] = float(tid)

@wp.kernel
def test_jax__inc_2d_kernel(x: wp.array2d[float], y: wp.array2d[float]):
    i, j = wp.tid()
    y[i, j] = x[i, j] + 1.0

@wp.kernel
def test_jax__scale_vec_kernel(a: wp.array[wp.vec2], s: float, output: wp.array[wp.vec2]):
    tid = wp.tid()
    output[tid] = a[tid] * s

@wp.kernel
def test_launch__arange(out: wp.array[int]):
    tid = wp.tid()
    out[tid] = tid

@wp.kernel
def test_lvalue__intermediate_kernel(foos: wp.array[wp.uint32]):
    i = wp.tid()

    x = foos[i]
    x = x + wp.uint32(1)
    foos[i] = x

@wp.kernel
def test_mat__mat_array_extract_row(x: wp.array2d[wp.mat22], y: wp.array2d[wp.vec2]):
    i, j = wp.tid()
    a = x[i, j][0]
    b = x[i, j][1]
    y[i, j] = 1.0 * a + 2.0 * b

@wp.func
def quat_sign_invariant_error(a: wp.quat, b: wp.quat) -> float:
    q_d = wp.vec4(a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3])
    q_s = wp.vec4(a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])
    return wp.min(wp.length(q_d), wp.length(q_s))

@wp.kernel
def test_math__quat_helpers_kernel(out: wp.array2d[float]):
    tid = wp.tid()

    rpy = wp.vec3(0.3, -0.25, 0.7)
    q_rpy = wp.quat_rpy(rpy[0], rpy[1], rpy[2])
    rpy_back = wp.quat_to_rpy(q_rpy)

    e_xyz = wp.vec3(0.2, -0.1, 0.3)
    q_xyz = wp.quat_from_euler(e_xyz, 0, 1, 2)
    e_xyz_back = wp.quat_to_euler(q_xyz, 0, 1, 2)
    q_xyz_back = wp.quat_from_euler(e_xyz_back, 0, 1, 2)
    e_yxz = wp.vec3(0.25, -0.4, 0.15)
    q_yxz = wp.quat_from_euler(e_yxz, 1, 0, 2)
    e_yxz_back = wp.quat_to_euler(q_yxz, 1, 0, 2)
    q_yxz_back = wp.quat_from_euler(e_yxz_back, 1, 0, 2)
    q_zyx = wp.quat_from_euler(wp.vec3(0.4, -0.2, 0.3), 2, 1, 0)
    q_zyx_expected = wp.quat(0.18083558, -0.12628517, 0.12611651, 0.96718415)

    q_axis = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), e_xyz[0])
    q_from_single_axis = wp.quat_from_euler(wp.vec3(e_xyz[0], 0.0, 0.0), 0, 1, 2)
    e_dec = wp.quat_to_euler(q_axis, 2, 1, 0)
    q_dec_axis = wp.quat_from_euler(e_dec, 0, 1, 2)
    e_compound = wp.vec3(0.3, -0.2, 0.4)
    q_compound_xyz = wp.quat_from_euler(e_compound, 0, 1, 2)
    q_compound_zyx = wp.quat_from_euler(e_compound, 2, 1, 0)
    e_dec_compound_zyx = wp.quat_to_euler(q_compound_zyx, 2, 1, 0)
    q_dec_compound_zyx = wp.quat_from_euler(e_dec_compound_zyx, 2, 1, 0)
    e_dec_compound_xyz = wp.quat_to_euler(q_compound_xyz, 2, 1, 0)
    _q_dec_compound_xyz_as_zyx = wp.quat_from_euler(e_dec_compound_xyz, 2, 1, 0)

    e_gimbal = wp.vec3(0.6, wp.HALF_PI, 0.2)
    q_gimbal = wp.quat_from_euler(e_gimbal, 2, 1, 0)
    e_dec_gimbal = wp.quat_to_euler(q_gimbal, 2, 1, 0)
    q_dec_gimbal = wp.quat_from_euler(e_dec_gimbal, 2, 1, 0)

    axis = wp.vec3(0.0, 0.0, 1.0)
    angle_in = 0.9
    q_tw = wp.quat_from_axis_angle(axis, angle_in)
    q_swing = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), 0.4)
    q_mix = wp.mul(q_swing, q_tw)
    twist = wp.quat_twist(axis, q_mix)
    q_tw_neg = wp.quat_from_axis_angle(axis, -angle_in)

    out[tid, 0] = wp.length(rpy_back - rpy)
    out[tid, 1] = quat_sign_invariant_error(q_xyz_back, q_xyz)
    out[tid, 2] = wp.length(e_dec - wp.vec3(e_xyz[0], 0.0, 0.0))
    out[tid, 3] = wp.length(
        wp.vec4(
            q_from_single_axis[0] - q_axis[0],
            q_from_single_axis[1] - q_axis[1],
            q_from_single_axis[2] - q_axis[2],
            q_from_single_axis[3] - q_axis[3],
        )
    )
    out[tid, 4] = quat_sign_invariant_error(q_dec_axis, q_axis)
    out[tid, 5] = quat_sign_invariant_error(twist, q_tw)
    out[tid, 6] = wp.abs(wp.quat_twist_angle(axis, q_mix) - angle_in)
    out[tid, 7] = wp.abs(wp.quat_twist_angle(axis, q_tw_neg) - angle_in)
    out[tid, 8] = quat_sign_invariant_error(q_zyx, q_zyx_expected)
    out[tid, 9] = quat_sign_invariant_error(q_yxz_back, q_yxz)
    out[tid, 10] = quat_sign_invariant_error(q_dec_compound_zyx, q_compound_zyx)
    out[tid, 11] = wp.max(0.0, 1.0e-2 - wp.length(e_dec_compound_xyz - e_compound))
    out[tid, 12] = quat_sign_invariant_error(q_dec_gimbal, q_gimbal)
    out[tid, 13] = wp.abs(wp.quat_twist_angle_signed(axis, q_mix) - angle_in)
    out[tid, 14] = wp.abs(wp.quat_twist_angle_signed(axis, q_tw_neg) + angle_in)

@wp.kernel
def test_module_hashing__codegen_order_zulu(output: wp.array[wp.float32]):
    output[wp.tid()] = 1.0

@wp.kernel
def test_overwrite__double_kernel(x: wp.array[float], y: wp.array[float]):
    tid = wp.tid()
    y[tid] = 2.0 * x[tid]

@wp.kernel
def test_paddle__copy2d_mat22_kernel(dst: wp.array2d[wp.mat22], src: wp.array2d[wp.mat22]):
    i, j = wp.tid()
    dst[i, j] = src[i, j]
