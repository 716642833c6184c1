/*
 * data.h — host-side kernel arguments, built from a kernel's parameter
 * table (kpy/kinfo.h): from .npy files, --set values, or seeded data.
 * Shared by krun and kcuda's standalone programs (which carry it as text),
 * so that both make the same inputs from the same seed.  Valid C11 and C++.
 *
 * Layout rules:
 *  - an array parameter of ndim dimensions with element shape E (vec n:
 *    (n); mat r x c: (r, c); quat: (4); transform: (7); scalar: ()) is an
 *    .npy array of shape (d0, ..., d{ndim-1}) + E; its default extents are
 *    kpy_default_shape() of the launch;
 *  - components are stored in the build's type: f32 is float, or double in
 *    a KPY_F32_DOUBLE build (f32size 8): .npy float32 data is widened;
 *  - a struct value is laid out by kpy_structs; an array field gets its own
 *    host array, named "param.field", of the launch's default shape; in an
 *    array of structs, every element's field refers to that one array.
 */
#ifndef KPY_DATA_H
#define KPY_DATA_H

#include <stdbool.h>

#include "npy.h"

typedef struct KpySub {
	char name[160];  /* "param.field" */
	int64_t offset;  /* byte offset of the kpy::array_t in the value */
	int ndim;        /* the field's dimensions */
	int64_t esize;   /* bytes per element */
	NpyArray a;      /* host data */
	bool inarray;    /* in the elements of an array of structs (all of
	                  * them share this one array), else in the value */
	int64_t nelem;   /* structs holding it: 1, or the array's elements */
	int64_t stride;  /* bytes from one struct to the next */
	void *dev;       /* where a launcher put the data (device copies) */
} KpySub;

typedef struct KpyArg {
	const kpy_param_info *p;
	bool isarray;
	int ndim;               /* arrays: the parameter's dimensions */
	int64_t esize;          /* arrays: bytes per element */
	NpyArray a;             /* arrays: host data, shape = extents + element shape */
	unsigned char *bytes;   /* values: the bytes the kernel reads */
	KpySub *subs;           /* arrays inside a struct value */
	int nsubs;
} KpyArg;

/* The dtype components of dtype dt are stored as in a build with f32size. */
int kpy_storage_dtype(int dt, int f32size);
/* Element shape of t (an array's element or a value): returns its rank and
 * writes the extents. */
int kpy_elem_shape(const kpy_type_info *t, int64_t *dims);
/* Components per element / value (1 for scalars; structs: 0). */
int64_t kpy_elem_count(const kpy_type_info *t);

typedef struct KpyArgSpec {
	const char *inpath;     /* .npy to load (arrays), or NULL */
	const char *setval;     /* "1.5" or "1,2,3" (values), or NULL */
	const int32_t *shape;   /* array extents, or NULL for the default */
	bool zero;              /* no seeded data: zeros */
} KpyArgSpec;

/* Build the host argument for parameter p.  0, or -1 with a message. */
int kpy_arg_make(KpyArg *a, const kpy_param_info *p, const kpy_struct_info *structs,
                 const kpy_launch_bounds *b, uint64_t seed, const KpyArgSpec *spec, int f32size,
                 char *err, size_t nerr);
/* Set field path ("f" or "f.g...", nested structs) of struct value a to val
 * ("v" or "v0,v1,..."), as --set a.PATH=val.  0, or -1 with a message. */
int kpy_arg_setfield(KpyArg *a, const kpy_struct_info *structs, const char *path, const char *val, int f32size,
                     char *err, size_t nerr);
void kpy_arg_free(KpyArg *a);
/* The kpy_array describing host array a (data: where its elements live). */
void kpy_arg_abi(const NpyArray *a, int ndim, int64_t esize, void *data, kpy_array *out);
/* Write a kpy::array_t<T, ndim> (layout of kpy/kinfo.h) into bytes+off. */
void kpy_put_array_t(unsigned char *bytes, int64_t off, const kpy_array *arr);
/* Point every struct holding sub array s of argument a at data. */
void kpy_arg_bindsub(KpyArg *a, KpySub *s, void *data);
/* Copy an array with storage dtype f64 for f32 (widened build) back to
 * float32 for writing; other arrays are returned as they are.  The caller
 * frees tmp->data when it is not NULL. */
const NpyArray *kpy_arg_output(const KpyArg *a, int f32size, NpyArray *tmp);

#endif /* KPY_DATA_H */
