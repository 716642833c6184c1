/*
 * kpy/abi.h — the C ABI shared by compiled kernels and the programs that
 * launch them (krun, standalone CUDA hosts).  Valid C99 and C++.
 *
 * An array crosses the ABI as a kpy_array: a data pointer, the number of
 * dimensions, and per-dimension extents and byte strides (C order by
 * default: strides[ndim-1] == element size).  Unused dimensions are 0.
 * A launch grid crosses it as a kpy_launch_bounds: extents of up to four
 * dimensions and their product.
 */
#ifndef KPY_ABI_H
#define KPY_ABI_H

#include <stdint.h>

#define KPY_MAX_DIMS 4

typedef struct kpy_array {
	void *data;          /* first element (may be NULL for an empty array) */
	int32_t ndim;        /* 1..KPY_MAX_DIMS */
	int32_t shape[4];    /* extents; shape[d] == 0 for d >= ndim */
	int64_t strides[4];  /* byte distance between neighbours along d */
} kpy_array;

typedef struct kpy_launch_bounds {
	int32_t ndim;        /* 1..KPY_MAX_DIMS */
	int32_t shape[4];    /* extents of the launch grid */
	int64_t size;        /* product of shape[0..ndim) */
} kpy_launch_bounds;

/* Kinds of array access (kpy_bounds_fault.access). */
enum { KPY_ACCESS_READ = 1, KPY_ACCESS_WRITE, KPY_ACCESS_ATOMIC, KPY_ACCESS_ADDRESS, KPY_ACCESS_VIEW };

/* An out-of-bounds array access in a KPY_CHECKED build (kpy/array.h). */
typedef struct kpy_bounds_fault {
	const void *data;    /* the array's (or view's) first element */
	int32_t ndim;        /* its dimensions */
	int32_t shape[4];    /* its extents */
	int32_t nidx;        /* indices of the access (ndim, or fewer for a view) */
	int32_t index[4];    /* the indices as the kernel computed them */
	int32_t dim;         /* the first index out of bounds */
	int32_t access;      /* KPY_ACCESS_* */
	const char *file;    /* source file and line of the access */
	int32_t line;
} kpy_bounds_fault;

#endif /* KPY_ABI_H */
