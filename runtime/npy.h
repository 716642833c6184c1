/*
 * npy.h — NumPy .npy files and the host data helpers shared by krun and the
 * standalone programs kcuda writes (which carry npy.h and npy.c as text), so
 * that both read and write the same files and make the same inputs.
 * Valid C11 and C++.
 *
 * Files: format 1.0, 2.0 and 3.0, little-endian, C order; dtypes b1 i1 i2
 * i4 i8 u1 u2 u4 u8 f2 f4 f8.  Arrays of vectors and matrices are arrays
 * with trailing dimensions, as Warp's numpy() gives them.
 *
 * Seeded data: element e of a buffer filled for stream s under seed S is a
 * pure function of (S, s, e): floats uniform in [-1, 1] (rounded to the
 * dtype), signed integers uniform in [-8, 8], unsigned in [0, 8], bools 0
 * or 1.  A stream is the FNV-1a hash of a parameter's (or field's,
 * "param.field") name.
 */
#ifndef KPY_NPY_H
#define KPY_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kpy/kinfo.h"

enum { NPY_MAXDIM = 8 };

typedef struct NpyArray {
	int dtype;                  /* KPY_BOOL .. KPY_F64, KPY_BF16 */
	int ndim;                   /* 0 .. NPY_MAXDIM */
	int64_t shape[NPY_MAXDIM];  /* extents */
	int64_t count;              /* elements: product of shape */
	void *data;                 /* count elements, C order, native little-endian */
} NpyArray;

int npy_dtype_size(int dtype);
const char *npy_dtype_name(int dtype);   /* "float32", "int8", "bool" ... */
/* Allocate a zeroed array of the given dtype and shape; 0 or -1 (no memory). */
int npy_alloc(NpyArray *a, int dtype, int ndim, const int64_t *shape);
void npy_free(NpyArray *a);
/* Parse a whole .npy file held in memory; 0, or -1 with a message in err. */
int npy_parse(const char *buf, size_t n, NpyArray *a, char *err, size_t nerr);
/* Read / write a file (writing goes through a temporary and a rename, so a
 * failed write leaves no partial file).  0, or -1 with a message in err. */
int npy_read(const char *path, NpyArray *a, char *err, size_t nerr);
int npy_write(const char *path, const NpyArray *a, char *err, size_t nerr);
/* Write the .npy bytes of a to f; 0, or -1 when f fails. */
int npy_fwrite(FILE *f, const NpyArray *a);
/* Render the shape as "(1024, 3)". */
void npy_shapestr(const NpyArray *a, char *out, size_t n);

/* Half precision conversions (round to nearest even). */
double kpy_half_to_double(uint16_t h);
uint16_t kpy_double_to_half(double x);
double kpy_bf16_to_double(uint16_t h);
uint16_t kpy_double_to_bf16(double x);
/* Element i of a buffer of dtype as a double, and back (ints wrap, floats round). */
double kpy_get(const void *data, int dtype, int64_t i);
void kpy_set(void *data, int dtype, int64_t i, double x);
/* Convert n elements between dtypes. */
void kpy_convert(void *dst, int ddtype, const void *src, int sdtype, int64_t n);

/* Seeded data. */
uint64_t kpy_stream(const char *name);
uint64_t kpy_stream2(const char *name, const char *field);
void kpy_fill(void *data, int dtype, int64_t n, uint64_t seed, uint64_t stream);
/* Uniform double in [0, 1) for (seed, stream, i). */
double kpy_uniform(uint64_t seed, uint64_t stream, uint64_t i);

/* Launch extents "N[,M[,K[,L]]]" (each >= 0, product < 2^31);
 * 0, or -1 with a message. */
int kpy_parse_dims(const char *s, kpy_launch_bounds *b, char *err, size_t nerr);
/* The default shape of an ndim array parameter for launch b: the launch's
 * extents; 4 in the dimensions an array has beyond the launch's. */
void kpy_default_shape(const kpy_launch_bounds *b, int ndim, int32_t *shape);

/* Print "name dtype (shape) sum=S abs=A" (sums in double, element order). */
void kpy_summary(FILE *f, const char *name, const NpyArray *a);
/* Compare got with want: shapes and dtypes must match; integers and bools
 * exactly, floats within atol + rtol * |want| (NaN matches NaN, inf the
 * same inf).  Returns the number of mismatches (-1: shape or dtype differ,
 * with a message in err); *worst gets the largest |got - want| /
 * (atol + rtol |want|) and *at its element. */
int64_t kpy_compare(const NpyArray *got, const NpyArray *want, double rtol, double atol, double *worst,
                    int64_t *at, char *err, size_t nerr);

#endif /* KPY_NPY_H */
