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

#endif /* KPY_ABI_H */
