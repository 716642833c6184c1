#!/usr/bin/env python3
"""genops.py — writes tests/ad/ops_*.kir: one small kernel per derivative
rule and operand shape, each checked by ops.test with kirgrad.

Run from the repository root after changing the list; the .kir files are
checked in.  A kernel loads its float operands from arrays a0, a1, ...,
applies the op and stores every result to arrays r0, r1, ...; the line
`# CHECK @name: OPTIONS` gives kirgrad's options for it.
"""
import sys

V3 = "vec3f"; V2 = "vec2f"; V4 = "vec4f"; V6 = "vec<6,f32>"
M22 = "mat22f"; M33 = "mat33f"; M44 = "mat44f"; Q = "quatf"; X = "transformf"

def k(name, ins, expr, outs, opts=""):
    """ins: operand types (str) or ('c', 'literal') for inline constants;
    expr: the op text with {0}, {1}.. for operands; outs: result types."""
    lines = []
    params = []
    ops = []
    n = 0
    args = []
    for t in ins:
        if isinstance(t, tuple):
            args.append(t[1])
            continue
        params.append("%%a%d: array<%s,1>" % (n, t))
        ops.append("  %%x%d = load %%a%d[%%i] : %s" % (n, n, t))
        args.append("%%x%d" % n)
        n += 1
    for j, t in enumerate(outs):
        params.append("%%r%d: array<%s,1>" % (j, t))
    res = ", ".join("%%y%d" % j for j in range(len(outs)))
    ops.append("  %s = %s : %s" % (res, expr.format(*args), ", ".join(outs)))
    for j, t in enumerate(outs):
        ops.append("  store %%r%d[%%i], %%y%d" % (j, j))
    lines.append("# CHECK @%s: %s" % (name, opts))
    lines.append("kernel @%s(%s) {" % (name, ", ".join(params)))
    lines.append("  %i = tid : i32")
    lines += ops
    lines.append("  ret")
    lines.append("}")
    return "\n".join(lines)

POS = "-r 0.5,2"

families = {}

families["scalar"] = [
    k("neg", ["f32"], "neg {0}", ["f32"]),
    k("pos", ["f32"], "pos {0}", ["f32"]),
    k("abs", ["f32"], "abs {0}", ["f32"]),
    k("sqrt", ["f32"], "sqrt {0}", ["f32"], POS),
    k("cbrt", ["f32"], "cbrt {0}", ["f32"], POS),
    k("exp", ["f32"], "exp {0}", ["f32"]),
    k("log", ["f32"], "log {0}", ["f32"], POS),
    k("log2", ["f32"], "log2 {0}", ["f32"], POS),
    k("log10", ["f32"], "log10 {0}", ["f32"], POS),
    k("sin", ["f32"], "sin {0}", ["f32"]),
    k("cos", ["f32"], "cos {0}", ["f32"]),
    k("tan", ["f32"], "tan {0}", ["f32"]),
    k("asin", ["f32"], "asin {0}", ["f32"], "-r -0.8,0.8"),
    k("acos", ["f32"], "acos {0}", ["f32"], "-r -0.8,0.8"),
    k("atan", ["f32"], "atan {0}", ["f32"]),
    k("sinh", ["f32"], "sinh {0}", ["f32"]),
    k("cosh", ["f32"], "cosh {0}", ["f32"]),
    k("tanh", ["f32"], "tanh {0}", ["f32"]),
    k("degrees", ["f32"], "degrees {0}", ["f32"]),
    k("radians", ["f32"], "radians {0}", ["f32"]),
    k("erf", ["f32"], "erf {0}", ["f32"]),
    k("erfc", ["f32"], "erfc {0}", ["f32"]),
    k("erfinv", ["f32"], "erfinv {0}", ["f32"], "-r -0.8,0.8"),
    k("erfcinv", ["f32"], "erfcinv {0}", ["f32"], "-r 0.3,1.7"),
    k("frac", ["f32"], "frac {0}", ["f32"], "-r 0.1,0.9"),
    k("floor", ["f32"], "floor {0}", ["f32"], "-r 0.1,0.9"),
    k("sign", ["f32"], "sign {0}", ["f32"]),
    k("add", ["f32", "f32"], "add {0}, {1}", ["f32"]),
    k("sub", ["f32", "f32"], "sub {0}, {1}", ["f32"]),
    k("mul", ["f32", "f32"], "mul {0}, {1}", ["f32"]),
    k("div", ["f32", "f32"], "div {0}, {1}", ["f32"], POS),
    k("mod", ["f32", "f32"], "mod {0}, {1}", ["f32"], "-r 0.3,2"),
    k("pow", ["f32", "f32"], "pow {0}, {1}", ["f32"], POS),
    k("atan2", ["f32", "f32"], "atan2 {0}, {1}", ["f32"]),
    k("copysign", ["f32", "f32"], "copysign {0}, {1}", ["f32"]),
    k("min", ["f32", "f32"], "min {0}, {1}", ["f32"]),
    k("max", ["f32", "f32"], "max {0}, {1}", ["f32"]),
    k("clamp", ["f32", "f32", "f32"], "clamp {0}, {1}, {2}", ["f32"], "-d 12"),
    k("lerp", ["f32", "f32", "f32"], "lerp {0}, {1}, {2}", ["f32"]),
    k("smoothstep", ["f32", "f32", "f32"], "smoothstep {0}, {1}, {2}", ["f32"], "-d 12"),
    k("where", ["bool", "f32", "f32"], "where {0}, {1}, {2}", ["f32"], "-d 12"),
    k("sqrt_f64", ["f64"], "sqrt {0}", ["f64"], POS),
    k("mul_f64", ["f64", "f64"], "mul {0}, {1}", ["f64"]),
    k("sin_f16", ["f16"], "sin {0}", ["f16"]),
    k("cast_f64", ["f32"], "cast {0}", ["f64"]),
    k("cast_f32", ["f64"], "cast {0}", ["f32"]),
    k("cast_i32", ["f32"], "cast {0}", ["i32"], "-r 0.1,5"),
    k("cast_from_i32", ["i32"], "cast {0}", ["f32"]),
]

families["vec"] = [
    k("vadd", [V3, V3], "add {0}, {1}", [V3]),
    k("vsub", [V3, V3], "sub {0}, {1}", [V3]),
    k("vneg", [V3], "neg {0}", [V3]),
    k("vmul_vs", [V3, "f32"], "mul {0}, {1}", [V3]),
    k("vmul_sv", ["f32", V3], "mul {0}, {1}", [V3]),
    k("vdiv_vs", [V3, "f32"], "div {0}, {1}", [V3], POS),
    k("vdiv_sv", ["f32", V3], "div {0}, {1}", [V3], POS),
    k("dot", [V3, V3], "dot {0}, {1}", ["f32"]),
    k("dot4", [V4, V4], "dot {0}, {1}", ["f32"]),
    k("cross", [V3, V3], "cross {0}, {1}", [V3]),
    k("length", [V3], "length {0}", ["f32"]),
    k("length_sq", [V3], "length_sq {0}", ["f32"]),
    k("normalize", [V3], "normalize {0}", [V3]),
    k("normalize2", [V2], "normalize {0}", [V2]),
    k("outer", [V3, V2], "outer {0}, {1}", ["mat<3,2,f32>"]),
    k("cw_mul", [V3, V3], "cw_mul {0}, {1}", [V3]),
    k("cw_div", [V3, V3], "cw_div {0}, {1}", [V3], POS),
    k("vabs", [V3], "abs {0}", [V3]),
    k("vmin", [V3, V3], "min {0}, {1}", [V3]),
    k("vmax", [V3, V3], "max {0}, {1}", [V3]),
    k("vmin1", [V3], "min {0}", ["f32"]),
    k("vmax1", [V4], "max {0}", ["f32"]),
    k("vmod", [V3, V3], "mod {0}, {1}", [V3], "-r 0.3,2"),
    k("norm_l1", [V3], "norm_l1 {0}", ["f32"]),
    k("norm_l2", [V3], "norm_l2 {0}", ["f32"]),
    k("norm_huber", [V3], "norm_huber {0}", ["f32"], "-d 12"),
    k("norm_huber_d", [V3, "f32"], "norm_huber {0}, {1}", ["f32"], "-d 12 -r 0.2,1"),
    k("norm_pseudo_huber", [V3], "norm_pseudo_huber {0}", ["f32"]),
    k("norm_pseudo_huber_d", [V3, "f32"], "norm_pseudo_huber {0}, {1}", ["f32"], POS),
    k("smooth_normalize", [V3], "smooth_normalize {0}", [V3]),
    k("smooth_normalize_d", [V3, "f32"], "smooth_normalize {0}, {1}", [V3], POS),
    k("vlerp", [V3, V3, "f32"], "lerp {0}, {1}, {2}", [V3]),
    k("vextract", [V3], "extract {0}, 1", ["f32"]),
    k("vinsert", [V3, "f32"], "insert {0}, 2, {1}", [V3]),
    k("vctor", ["f32", "f32", "f32"], "vec {0}, {1}, {2}", [V3]),
    k("vbroadcast", ["f32"], "vec {0}", [V3]),
    k("vcast", [V3], "cast {0}", ["vec3d"]),
    k("vadd_f64", ["vec3d", "vec3d"], "add {0}, {1}", ["vec3d"]),
    k("vwhere", ["bool", V3, V3], "where {0}, {1}, {2}", [V3], "-d 12"),
]

families["mat"] = [
    k("madd", [M33, M33], "add {0}, {1}", [M33]),
    k("mmul", [M33, M33], "mul {0}, {1}", [M33]),
    k("mmul_rect", ["mat<2,3,f32>", "mat<3,4,f32>"], "mul {0}, {1}", ["mat<2,4,f32>"]),
    k("mmul_mv", [M33, V3], "mul {0}, {1}", [V3]),
    k("mmul_vm", [V3, M33], "mul {0}, {1}", [V3]),
    k("mmul_ms", [M33, "f32"], "mul {0}, {1}", [M33]),
    k("mmul_sm", ["f32", M33], "mul {0}, {1}", [M33]),
    k("mdiv_ms", [M33, "f32"], "div {0}, {1}", [M33], POS),
    k("mdiv_sm", ["f32", M22], "div {0}, {1}", [M22], POS),
    k("transpose", ["mat<2,3,f32>"], "transpose {0}", ["mat<3,2,f32>"]),
    k("inverse2", [M22], "inverse {0}", [M22]),
    k("inverse3", [M33], "inverse {0}", [M33]),
    k("inverse4", [M44], "inverse {0}", [M44]),
    k("determinant2", [M22], "determinant {0}", ["f32"]),
    k("determinant3", [M33], "determinant {0}", ["f32"]),
    k("determinant4", [M44], "determinant {0}", ["f32"]),
    k("trace", [M33], "trace {0}", ["f32"]),
    k("diag", [V3], "diag {0}", [M33]),
    k("get_diag", [M33], "get_diag {0}", [V3]),
    k("ddot", [M33, M33], "ddot {0}, {1}", ["f32"]),
    k("skew", [V3], "skew {0}", [M33]),
    k("mcw_mul", [M22, M22], "cw_mul {0}, {1}", [M22]),
    k("mcw_div", [M22, M22], "cw_div {0}, {1}", [M22], POS),
    k("mneg", [M33], "neg {0}", [M33]),
    k("mlerp", [M22, M22, "f32"], "lerp {0}, {1}, {2}", [M22]),
    k("from_rows", [V3, V3], "matrix_from_rows {0}, {1}", ["mat<2,3,f32>"]),
    k("from_cols", [V3, V3], "matrix_from_cols {0}, {1}", ["mat<3,2,f32>"]),
    k("mctor", ["f32", "f32", "f32", "f32"], "mat {0}, {1}, {2}, {3}", [M22]),
    k("mctor_rows", [V2, V2], "mat {0}, {1}", [M22]),
    k("mbroadcast", ["f32"], "mat {0}", [M22]),
    k("mextract_row", [M33], "extract {0}, 1", [V3]),
    k("mextract", [M33], "extract {0}, 2, 0", ["f32"]),
    k("minsert", [M33, "f32"], "insert {0}, 0, 1, {1}", [M33]),
    k("minsert_row", [M33, V3], "insert {0}, 2, {1}", [M33]),
]

families["decomp"] = [
    k("svd3", [M33], "svd3 {0}", [M33, V3, M33]),
    k("svd2", [M22], "svd2 {0}", [M22, V2, M22]),
    k("qr3", [M33], "qr3 {0}", [M33, M33]),
]

families["quat"] = [
    k("qmul", [Q, Q], "mul {0}, {1}", [Q]),
    k("qmul_qs", [Q, "f32"], "mul {0}, {1}", [Q]),
    k("qdiv_qs", [Q, "f32"], "div {0}, {1}", [Q], POS),
    k("qadd", [Q, Q], "add {0}, {1}", [Q]),
    k("qneg", [Q], "neg {0}", [Q]),
    k("quat_inverse", [Q], "quat_inverse {0}", [Q]),
    k("quat_rotate", [Q, V3], "quat_rotate {0}, {1}", [V3]),
    k("quat_rotate_inv", [Q, V3], "quat_rotate_inv {0}, {1}", [V3]),
    k("quat_to_matrix", [Q], "quat_to_matrix {0}", [M33]),
    k("quat_from_matrix", [M33], "quat_from_matrix {0}", [Q], "-d 24"),
    k("quat_from_matrix44", [M44], "quat_from_matrix {0}", [Q], "-d 24"),
    k("quat_from_axis_angle", [V3, "f32"], "quat_from_axis_angle {0}, {1}", [Q]),
    k("quat_rpy", ["f32", "f32", "f32"], "quat_rpy {0}, {1}, {2}", [Q]),
    k("quat_to_rpy", [Q], "quat_to_rpy {0}", [V3], "-r -0.6,0.6"),
    k("quat_slerp", [Q, Q, "f32"], "quat_slerp {0}, {1}, {2}", [Q]),
    k("quat_to_axis_angle", [Q], "quat_to_axis_angle {0}", [V3, "f32"]),
    k("qnormalize", [Q], "normalize {0}", [Q]),
    k("qlength", [Q], "length {0}", ["f32"]),
    k("qlength_sq", [Q], "length_sq {0}", ["f32"]),
    k("qdot", [Q, Q], "dot {0}, {1}", ["f32"]),
    k("qlerp", [Q, Q, "f32"], "lerp {0}, {1}, {2}", [Q]),
    k("qextract", [Q], "extract {0}, 3", ["f32"]),
    k("qctor", ["f32", "f32", "f32", "f32"], "quat {0}, {1}, {2}, {3}", [Q]),
    k("qctor_vs", [V3, "f32"], "quat {0}, {1}", [Q]),
    k("quat_from_euler012", [V3, ("c", "0"), ("c", "1"), ("c", "2")], "quat_from_euler {0}, {1}, {2}, {3}", [Q]),
    k("quat_from_euler210", [V3, ("c", "2"), ("c", "1"), ("c", "0")], "quat_from_euler {0}, {1}, {2}, {3}", [Q]),
    k("quat_from_euler010", [V3, ("c", "0"), ("c", "1"), ("c", "0")], "quat_from_euler {0}, {1}, {2}, {3}", [Q]),
    k("quat_to_euler012", [Q, ("c", "0"), ("c", "1"), ("c", "2")], "quat_to_euler {0}, {1}, {2}, {3}", [V3]),
    k("quat_to_euler201", [Q, ("c", "2"), ("c", "0"), ("c", "1")], "quat_to_euler {0}, {1}, {2}, {3}", [V3]),
    k("quat_to_euler121", [Q, ("c", "1"), ("c", "2"), ("c", "1")], "quat_to_euler {0}, {1}, {2}, {3}", [V3]),
    k("quat_twist", [V3, Q], "quat_twist {0}, {1}", [Q]),
    k("quat_twist_angle", [V3, Q], "quat_twist_angle {0}, {1}", ["f32"]),
    k("quat_twist_angle_signed", [V3, Q], "quat_twist_angle_signed {0}, {1}", ["f32"]),
]

families["xform"] = [
    k("transform_point", [X, V3], "transform_point {0}, {1}", [V3]),
    k("transform_point44", [M44, V3], "transform_point {0}, {1}", [V3]),
    k("transform_vector", [X, V3], "transform_vector {0}, {1}", [V3]),
    k("transform_vector44", [M44, V3], "transform_vector {0}, {1}", [V3]),
    k("transform_multiply", [X, X], "transform_multiply {0}, {1}", [X]),
    k("xmul", [X, X], "mul {0}, {1}", [X]),
    k("xmul_xs", [X, "f32"], "mul {0}, {1}", [X]),
    k("xadd", [X, X], "add {0}, {1}", [X]),
    k("transform_inverse", [X], "transform_inverse {0}", [X]),
    k("get_translation", [X], "transform_get_translation {0}", [V3]),
    k("get_rotation", [X], "transform_get_rotation {0}", [Q]),
    k("set_translation", [X, V3], "transform_set_translation {0}, {1}", [X]),
    k("set_rotation", [X, Q], "transform_set_rotation {0}, {1}", [X]),
    k("transform_to_matrix", [X], "transform_to_matrix {0}", [M44]),
    k("transform_from_matrix", [M44], "transform_from_matrix {0}", [X], "-d 24"),
    k("transform_compose", [V3, Q, V3], "transform_compose {0}, {1}, {2}", [M44]),
    k("transform_decompose", [M44], "transform_decompose {0}", [V3, Q, V3], "-d 24"),
    k("xctor", [V3, Q], "transform {0}, {1}", [X]),
    k("xlerp", [X, X, "f32"], "lerp {0}, {1}, {2}", [X]),
    k("xextract", [X], "extract {0}, 5", ["f32"]),
]

families["spatial"] = [
    k("spatial_vector", [V3, V3], "vec {0}, {1}", [V6]),
    k("spatial_top", [V6], "spatial_top {0}", [V3]),
    k("spatial_bottom", [V6], "spatial_bottom {0}", [V3]),
    k("spatial_cross", [V6, V6], "spatial_cross {0}, {1}", [V6]),
    k("spatial_cross_dual", [V6, V6], "spatial_cross_dual {0}, {1}", [V6]),
    k("spatial_dot", [V6, V6], "spatial_dot {0}, {1}", ["f32"]),
    k("spatial_adjoint", [M33, M33], "spatial_adjoint {0}, {1}", ["mat<6,6,f32>"]),
    k("transform_twist", [X, V6], "transform_twist {0}, {1}", [V6]),
    k("transform_wrench", [X, V6], "transform_wrench {0}, {1}", [V6]),
    k("velocity_at_point", [V6, V3], "velocity_at_point {0}, {1}", [V3]),
]

extra = {"decomp": """
# eig3 is defined for symmetric matrices (Warp reads the lower triangle)
# CHECK @eig3_sym:
kernel @eig3_sym(%a0: array<mat33f,1>, %r0: array<mat33f,1>, %r1: array<vec3f,1>) {
  %i = tid : i32
  %m = load %a0[%i] : mat33f
  %t = transpose %m : mat33f
  %x0 = add %m, %t : mat33f
  %y0, %y1 = eig3 %x0 : mat33f, vec3f
  store %r0[%i], %y0
  store %r1[%i], %y1
  ret
}
"""}

for fam, ks in families.items():
    with open("tests/ad/ops_%s.kir" % fam, "w") as f:
        f.write("kir 1\n# generated by tests/ad/genops.py: one kernel per derivative rule and shape\n\n")
        f.write("\n\n".join(ks) + "\n")
        f.write(extra.get(fam, ""))
