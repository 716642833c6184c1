/*
 * kpy/kinfo.h — the table a kcpu module exports so that a launcher (krun)
 * can call any of its kernels without generated glue.  Valid C99 and C++.
 *
 * A module compiled from kcpu output exports, with C linkage:
 *
 *   const int32_t kpy_abi_version;          KPY_ABI_VERSION
 *   const int32_t kpy_f32_size;             sizeof(kpy::f32): 4, or 8 when
 *                                           built with -DKPY_F32_DOUBLE
 *   const int32_t kpy_nkernels;             entries of kpy_kernels
 *   const kpy_kernel_info kpy_kernels[];    (one extra all-zero entry ends it)
 *   const int32_t kpy_nstructs;             entries of kpy_structs
 *   const kpy_struct_info kpy_structs[];    (one extra all-zero entry ends it)
 *
 * and per kernel K (C++ name N, see kcpu(1)) the entry point
 *
 *   void kpy_launch_N(const kpy_launch_bounds *b, int64_t begin, int64_t end,
 *                     void **args);
 *
 * which runs the threads begin <= task < end of the launch b, one after the
 * other, on the calling thread.  args[i] points to parameter i: to a
 * kpy_array for an array, else to the value itself, laid out as the kpy
 * runtime lays it out (components in order; f32 components are double in a
 * KPY_F32_DOUBLE build) — a struct as described by kpy_structs.
 */
#ifndef KPY_KINFO_H
#define KPY_KINFO_H

#include <stdint.h>

#include "abi.h"

#define KPY_ABI_VERSION 1

/* Kinds of values (kpy_type_info.kind and .elem). */
enum {
	KPY_SCALAR = 1,
	KPY_VEC = 2,
	KPY_MAT = 3,
	KPY_QUAT = 4,
	KPY_TRANSFORM = 5,
	KPY_STRUCT = 6,
	KPY_ARRAY = 7
};

/* Scalar types, in kir's order (kpy_type_info.dtype). */
enum {
	KPY_BOOL = 0,
	KPY_I8, KPY_I16, KPY_I32, KPY_I64,
	KPY_U8, KPY_U16, KPY_U32, KPY_U64,
	KPY_F16, KPY_F32, KPY_F64,
	KPY_BF16 /* last: bfloat16 came after the others */
};

/* How a kernel uses an array parameter (kpy_param_info.access).  KPY_MINMAX:
 * the kernel applies atomic_min/max to it, whose backward compares each value
 * with the element's final contents (Warp's rule), so a launcher gives the
 * backward kernel that array as the forward left it. */
enum { KPY_READ = 1, KPY_WRITE = 2, KPY_MINMAX = 4 };

typedef struct kpy_type_info {
	int32_t kind;  /* KPY_ARRAY, or the kind of the value */
	int32_t elem;  /* kind of an array's elements; of a value: == kind */
	int32_t dtype; /* scalar type of the (element's) components */
	int32_t ndim;  /* arrays: 1..4; values: 0 */
	int32_t rows;  /* components: vec length, matrix rows, 4 (quat), 7
	                * (transform), 1 (scalar, struct) */
	int32_t cols;  /* matrix columns; 1 otherwise */
	int32_t sid;   /* struct: index into kpy_structs; -1 otherwise */
	int32_t size;  /* bytes of one value (arrays: of one element) */
} kpy_type_info;

typedef struct kpy_param_info {
	const char *name;     /* kir name of the parameter */
	kpy_type_info type;
	int32_t access;       /* arrays: KPY_READ | KPY_WRITE as the kernel uses it */
	int32_t adjoint_of;   /* backward kernels: the forward parameter whose
	                       * adjoint this is (adj_x -> x); -1 otherwise */
} kpy_param_info;

typedef struct kpy_field_info {
	const char *name;     /* kir field name */
	kpy_type_info type;
	int64_t offset;       /* byte offset in the struct.  An array field is a
	                       * kpy::array_t<T, ND>: a data pointer at +0, ND
	                       * int32 extents at +8, ND int64 byte strides at
	                       * +8 + 8 * ceil(ND / 2) */
} kpy_field_info;

typedef struct kpy_struct_info {
	const char *name;     /* kir struct name */
	int32_t nfields;
	const kpy_field_info *fields;
	int64_t size;         /* sizeof */
	int64_t align;        /* alignof */
} kpy_struct_info;

typedef void (*kpy_launch_fn)(const kpy_launch_bounds *bounds, int64_t begin, int64_t end, void **args);

typedef struct kpy_kernel_info {
	const char *name;     /* kir name: "K", or "K.adj" for a backward kernel */
	const char *cname;    /* its C++ name (K_adj ...) */
	kpy_launch_fn launch; /* kpy_launch_<cname> */
	int32_t nparams;
	const kpy_param_info *params;
	int32_t forward;      /* backward kernel: index in kpy_kernels of its forward kernel; -1 otherwise */
	int32_t backward;     /* forward kernel: index of its backward kernel; -1 if none */
	int32_t tid_dims;     /* results of the widest wp.tid() in the kernel (0: none) */
} kpy_kernel_info;

#endif /* KPY_KINFO_H */
