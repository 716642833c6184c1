/*
 * data.c — host-side kernel arguments (see data.h).
 *
 * Also compiled as C++ inside kcuda's standalone programs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

int
kpy_storage_dtype(int dt, int f32size)
{
	return dt == KPY_F32 && f32size == 8 ? KPY_F64 : dt;
}

int
kpy_elem_shape(const kpy_type_info *t, int64_t *dims)
{
	switch (t->elem) {
	case KPY_VEC: dims[0] = t->rows; return 1;
	case KPY_MAT: dims[0] = t->rows; dims[1] = t->cols; return 2;
	case KPY_QUAT: dims[0] = 4; return 1;
	case KPY_TRANSFORM: dims[0] = 7; return 1;
	}
	return 0;
}

int64_t
kpy_elem_count(const kpy_type_info *t)
{
	switch (t->elem) {
	case KPY_SCALAR: return 1;
	case KPY_VEC: return t->rows;
	case KPY_MAT: return (int64_t)t->rows * t->cols;
	case KPY_QUAT: return 4;
	case KPY_TRANSFORM: return 7;
	}
	return 0;
}

static const char *
kindword(int k)
{
	static const char *const w[] = {"?", "scalar", "vector", "matrix", "quaternion", "transform", "struct", "array"};
	return k >= 1 && k <= 7 ? w[k] : "?";
}

/* Fill n components of dtype dt (stored as sdt) at dst from (seed, stream). */
static int
fillcomps(void *dst, int dt, int sdt, int64_t n, uint64_t seed, uint64_t stream)
{
	void *tmp;

	if (dt == sdt) {
		kpy_fill(dst, dt, n, seed, stream);
		return 0;
	}
	tmp = malloc((size_t)(n ? n : 1) * (size_t)npy_dtype_size(dt));
	if (!tmp)
		return -1;
	kpy_fill(tmp, dt, n, seed, stream);
	kpy_convert(dst, sdt, tmp, dt, n);
	free(tmp);
	return 0;
}

/* Parse "v" or "v0,v1,..." into n components stored as sdt at dst. */
static int
parseset(const char *s, int dt, int sdt, int64_t n, void *dst, const char *name, char *err, size_t nerr)
{
	const char *p = s;
	int64_t k = 0;

	while (k < n) {
		char *end;
		double x;
		errno = 0;
		while (*p == ' ')
			p++;
		if (dt == KPY_BOOL && (strncmp(p, "true", 4) == 0 || strncmp(p, "True", 4) == 0)) {
			x = 1;
			end = (char *)p + 4;
		} else if (dt == KPY_BOOL && (strncmp(p, "false", 5) == 0 || strncmp(p, "False", 5) == 0)) {
			x = 0;
			end = (char *)p + 5;
		} else if (dt == KPY_I64 || dt == KPY_U64) {
			if (dt == KPY_I64) {
				long long v = strtoll(p, &end, 0);
				if (end != p)
					((int64_t *)dst)[k] = v;
			} else {
				unsigned long long v = strtoull(p, &end, 0);
				if (end != p)
					((uint64_t *)dst)[k] = v;
			}
			if (end == p || errno)
				goto bad;
			k++;
			p = end;
			if (*p == ',')
				p++;
			continue;
		} else {
			x = strtod(p, &end);
		}
		if (end == p || errno == ERANGE)
			goto bad;
		if (dt < KPY_F16 && x != floor(x))
			goto bad;
		kpy_set(dst, sdt, k++, x);
		p = end;
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
		else if (*p && k < n)
			goto bad;
	}
	while (*p == ' ')
		p++;
	if (*p == 0)
		return 0;
bad:
	if (err && nerr) {
		snprintf(err, nerr, "--set %s=%s: expected %lld %s value%s", name, s, (long long)n, npy_dtype_name(dt),
		         n == 1 ? "" : "s separated by commas");
	}
	return -1;
}

static int fillstruct(unsigned char *bytes, int sid, const kpy_struct_info *structs, const char *name,
                      const kpy_launch_bounds *b, uint64_t seed, bool zero, int f32size, KpyArg *a,
                      int64_t index, char *err, size_t nerr);

static int
addsub(KpyArg *a, const char *name, int64_t off, const kpy_type_info *t, const kpy_launch_bounds *b, uint64_t seed,
       bool zero, int f32size, char *err, size_t nerr)
{
	KpySub *s, *ns;
	int64_t shape[NPY_MAXDIM], edims[2];
	int32_t ext[4];
	int er, d, sdt = kpy_storage_dtype(t->dtype, f32size);

	if (t->elem == KPY_STRUCT) {
		snprintf(err, nerr, "%s: arrays of structs inside structs are not supported", name);
		return -1;
	}
	ns = (KpySub *)realloc(a->subs, sizeof(KpySub) * (size_t)(a->nsubs + 1));
	if (!ns) {
		snprintf(err, nerr, "out of memory");
		return -1;
	}
	a->subs = ns;
	s = &a->subs[a->nsubs++];
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	s->offset = off;
	s->ndim = t->ndim;
	s->esize = t->size;
	s->nelem = 1;
	kpy_default_shape(b, t->ndim, ext);
	for (d = 0; d < t->ndim; d++)
		shape[d] = ext[d];
	er = kpy_elem_shape(t, edims);
	for (d = 0; d < er; d++)
		shape[t->ndim + d] = edims[d];
	if (npy_alloc(&s->a, sdt, t->ndim + er, shape) < 0) {
		snprintf(err, nerr, "out of memory");
		return -1;
	}
	if (!zero && fillcomps(s->a.data, t->dtype, sdt, s->a.count, seed, kpy_stream(name)) < 0) {
		snprintf(err, nerr, "out of memory");
		return -1;
	}
	return 0;
}

/* Fill the value of type t at bytes (a struct field, a scalar...). */
static int
fillvalue(unsigned char *bytes, const kpy_type_info *t, const kpy_struct_info *structs, const char *name,
          const kpy_launch_bounds *b, uint64_t seed, bool zero, int f32size, KpyArg *a, int64_t index, char *err,
          size_t nerr)
{
	int sdt = kpy_storage_dtype(t->dtype, f32size);
	int64_t n;

	if (t->kind == KPY_STRUCT)
		return fillstruct(bytes, t->sid, structs, name, b, seed, zero, f32size, a, index, err, nerr);
	n = kpy_elem_count(t);
	if ((int64_t)t->size != n * npy_dtype_size(sdt)) {
		snprintf(err, nerr, "%s: a %s of %d bytes is not %lld packed %s components", name, kindword(t->kind), t->size,
		         (long long)n, npy_dtype_name(sdt));
		return -1;
	}
	if (zero)
		return 0;
	if (index < 0)
		return fillcomps(bytes, t->dtype, sdt, n, seed, kpy_stream(name));
	/* element `index` of an array of structs: components index*n ... */
	{
		void *tmp = malloc((size_t)(n * (index + 1)) * (size_t)npy_dtype_size(sdt));
		if (!tmp)
			return -1;
		fillcomps(tmp, t->dtype, sdt, n * (index + 1), seed, kpy_stream(name));
		memcpy(bytes, (unsigned char *)tmp + (size_t)(n * index) * (size_t)npy_dtype_size(sdt),
		       (size_t)n * (size_t)npy_dtype_size(sdt));
		free(tmp);
	}
	return 0;
}

static int
fillstruct(unsigned char *bytes, int sid, const kpy_struct_info *structs, const char *name, const kpy_launch_bounds *b,
           uint64_t seed, bool zero, int f32size, KpyArg *a, int64_t index, char *err, size_t nerr)
{
	const kpy_struct_info *si = &structs[sid];
	int i;

	for (i = 0; i < si->nfields; i++) {
		const kpy_field_info *fi = &si->fields[i];
		char sub[160];
		snprintf(sub, sizeof sub, "%s.%s", name, fi->name);
		if (fi->type.kind == KPY_ARRAY) {
			/* arrays in array-of-struct elements stay empty */
			if (index < 0 && addsub(a, sub, fi->offset, &fi->type, b, seed, zero, f32size, err, nerr) < 0)
				return -1;
			continue;
		}
		if (fillvalue(bytes + fi->offset, &fi->type, structs, sub, b, seed, zero, f32size, a, index, err, nerr) < 0)
			return -1;
	}
	return 0;
}

int
kpy_arg_make(KpyArg *a, const kpy_param_info *p, const kpy_struct_info *structs, const kpy_launch_bounds *b,
             uint64_t seed, const KpyArgSpec *spec, int f32size, char *err, size_t nerr)
{
	const kpy_type_info *t = &p->type;
	int sdt = kpy_storage_dtype(t->dtype, f32size);
	int64_t shape[NPY_MAXDIM], edims[2];
	int32_t ext[4];
	int er, d;

	memset(a, 0, sizeof *a);
	a->p = p;
	if (t->kind != KPY_ARRAY) {
		int64_t size = t->kind == KPY_STRUCT ? structs[t->sid].size : t->size;
		if (spec->inpath) {
			snprintf(err, nerr, "--in %s: '%s' is a %s parameter, not an array (use --set)", p->name, p->name,
			         kindword(t->kind));
			return -1;
		}
		a->bytes = (unsigned char *)calloc(1, (size_t)(size ? size : 1));
		if (!a->bytes) {
			snprintf(err, nerr, "out of memory");
			return -1;
		}
		if (spec->setval) {
			int64_t n = kpy_elem_count(t);
			if (t->kind == KPY_STRUCT) {
				snprintf(err, nerr, "--set %s: set a struct's fields one by one (--set %s.FIELD=VALUE)", p->name,
				         p->name);
				return -1;
			}
			if ((int64_t)t->size != n * npy_dtype_size(sdt)) {
				snprintf(err, nerr, "%s: unexpected layout", p->name);
				return -1;
			}
			return parseset(spec->setval, t->dtype, sdt, n, a->bytes, p->name, err, nerr);
		}
		return fillvalue(a->bytes, t, structs, p->name, b, seed, spec->zero, f32size, a, -1, err, nerr);
	}
	if (spec->setval) {
		snprintf(err, nerr, "--set %s: '%s' is an array (use --in)", p->name, p->name);
		return -1;
	}
	a->isarray = true;
	a->ndim = t->ndim;
	a->esize = t->size;
	er = kpy_elem_shape(t, edims);
	if (t->elem == KPY_STRUCT) {
		/* raw bytes, one row per element */
		int64_t i, n = 1;
		if (spec->inpath) {
			snprintf(err, nerr, "--in %s: arrays of structs cannot be read from .npy", p->name);
			return -1;
		}
		if (spec->shape)
			for (d = 0; d < t->ndim; d++)
				ext[d] = spec->shape[d];
		else
			kpy_default_shape(b, t->ndim, ext);
		for (d = 0; d < t->ndim; d++) {
			shape[d] = ext[d];
			n *= ext[d];
		}
		shape[t->ndim] = t->size;
		if (npy_alloc(&a->a, KPY_U8, t->ndim + 1, shape) < 0) {
			snprintf(err, nerr, "out of memory");
			return -1;
		}
		for (i = 0; i < n; i++)
			if (fillstruct((unsigned char *)a->a.data + i * t->size, t->sid, structs, p->name, b, seed, spec->zero,
			               f32size, a, i, err, nerr) < 0)
				return -1;
		/* array fields: one shared array per field */
		{
			const kpy_struct_info *si = &structs[t->sid];
			int f;
			for (f = 0; f < si->nfields; f++) {
				char sub[160];
				if (si->fields[f].type.kind != KPY_ARRAY)
					continue;
				snprintf(sub, sizeof sub, "%s.%s", p->name, si->fields[f].name);
				if (addsub(a, sub, si->fields[f].offset, &si->fields[f].type, b, seed, spec->zero, f32size, err, nerr) < 0)
					return -1;
				a->subs[a->nsubs - 1].inarray = true;
				a->subs[a->nsubs - 1].nelem = n;
				a->subs[a->nsubs - 1].stride = t->size;
			}
		}
		return 0;
	}
	if ((int64_t)t->size != kpy_elem_count(t) * npy_dtype_size(sdt)) {
		snprintf(err, nerr, "%s: elements of %d bytes are not packed %s components", p->name, t->size,
		         npy_dtype_name(sdt));
		return -1;
	}
	if (spec->inpath) {
		NpyArray f;
		char e2[256];
		if (npy_read(spec->inpath, &f, e2, sizeof e2) < 0) {
			snprintf(err, nerr, "%s: %s", spec->inpath, e2);
			return -1;
		}
		/* NumPy has no bfloat16: a bf16 array reads a float32 file, each
		 * value rounded to nearest even (and is written as float32) */
		if (f.dtype != t->dtype && !(t->dtype == KPY_BF16 && f.dtype == KPY_F32)) {
			snprintf(err, nerr, "%s: dtype %s, but parameter '%s' holds %s", spec->inpath, npy_dtype_name(f.dtype),
			         p->name, npy_dtype_name(t->dtype));
			npy_free(&f);
			return -1;
		}
		if (f.ndim != t->ndim + er) {
			char sh[128];
			npy_shapestr(&f, sh, sizeof sh);
			snprintf(err, nerr, "%s: shape %s has %d dimensions, parameter '%s' needs %d (%d array + %d element)",
			         spec->inpath, sh, f.ndim, p->name, t->ndim + er, t->ndim, er);
			npy_free(&f);
			return -1;
		}
		for (d = 0; d < er; d++)
			if (f.shape[t->ndim + d] != edims[d]) {
				char sh[128], es[64];
				npy_shapestr(&f, sh, sizeof sh);
				if (er == 1)
					snprintf(es, sizeof es, "dimension must be %lld", (long long)edims[0]);
				else
					snprintf(es, sizeof es, "dimensions must be %lld, %lld", (long long)edims[0], (long long)edims[1]);
				snprintf(err, nerr, "%s: shape %s: for parameter '%s' (%s elements) the last %s", spec->inpath, sh,
				         p->name, kindword(t->elem), es);
				npy_free(&f);
				return -1;
			}
		for (d = 0; d < t->ndim; d++)
			if (f.shape[d] > 0x7fffffff) {
				snprintf(err, nerr, "%s: extent too large", spec->inpath);
				npy_free(&f);
				return -1;
			}
		if (sdt != f.dtype) {
			if (npy_alloc(&a->a, sdt, f.ndim, f.shape) < 0) {
				snprintf(err, nerr, "out of memory");
				npy_free(&f);
				return -1;
			}
			kpy_convert(a->a.data, sdt, f.data, f.dtype, f.count);
			npy_free(&f);
		} else {
			a->a = f;
		}
		return 0;
	}
	if (spec->shape)
		for (d = 0; d < t->ndim; d++)
			ext[d] = spec->shape[d];
	else
		kpy_default_shape(b, t->ndim, ext);
	for (d = 0; d < t->ndim; d++)
		shape[d] = ext[d];
	for (d = 0; d < er; d++)
		shape[t->ndim + d] = edims[d];
	if (npy_alloc(&a->a, sdt, t->ndim + er, shape) < 0) {
		snprintf(err, nerr, "out of memory");
		return -1;
	}
	if (!spec->zero && fillcomps(a->a.data, t->dtype, sdt, a->a.count, seed, kpy_stream(p->name)) < 0) {
		snprintf(err, nerr, "out of memory");
		return -1;
	}
	return 0;
}

int
kpy_arg_setfield(KpyArg *a, const kpy_struct_info *structs, const char *path, const char *val, int f32size,
                 char *err, size_t nerr)
{
	const kpy_type_info *t = &a->p->type;
	const char *f = path;
	int64_t off = 0, n;
	int sdt;

	if (t->kind != KPY_STRUCT) {
		snprintf(err, nerr, "--set %s.%s: '%s' is not a struct", a->p->name, path, a->p->name);
		return -1;
	}
	while (t->kind == KPY_STRUCT) {
		const kpy_struct_info *si = &structs[t->sid];
		const char *dot = strchr(f, '.');
		size_t len = dot ? (size_t)(dot - f) : strlen(f);
		int i;
		for (i = 0; i < si->nfields; i++)
			if (strlen(si->fields[i].name) == len && strncmp(si->fields[i].name, f, len) == 0)
				break;
		if (i == si->nfields) {
			snprintf(err, nerr, "--set %s.%s: struct %s has no field '%.*s'", a->p->name, path, si->name, (int)len, f);
			return -1;
		}
		t = &si->fields[i].type;
		off += si->fields[i].offset;
		if (!dot) {
			f = NULL;
			break;
		}
		f = dot + 1;
	}
	if (f) {
		snprintf(err, nerr, "--set %s.%s: '%.*s' is not a struct", a->p->name, path, (int)(f - 1 - path), path);
		return -1;
	}
	if (t->kind == KPY_STRUCT) {
		snprintf(err, nerr, "--set %s.%s: a struct: set its fields one by one", a->p->name, path);
		return -1;
	}
	if (t->kind == KPY_ARRAY) {
		snprintf(err, nerr, "--set %s.%s: an array field cannot be set", a->p->name, path);
		return -1;
	}
	sdt = kpy_storage_dtype(t->dtype, f32size);
	n = kpy_elem_count(t);
	if ((int64_t)t->size != n * npy_dtype_size(sdt)) {
		snprintf(err, nerr, "%s.%s: unexpected layout", a->p->name, path);
		return -1;
	}
	{
		char name[256];
		snprintf(name, sizeof name, "%s.%s", a->p->name, path);
		return parseset(val, t->dtype, sdt, n, a->bytes + off, name, err, nerr);
	}
}

void
kpy_arg_free(KpyArg *a)
{
	int i;

	npy_free(&a->a);
	free(a->bytes);
	for (i = 0; i < a->nsubs; i++)
		npy_free(&a->subs[i].a);
	free(a->subs);
	memset(a, 0, sizeof *a);
}

void
kpy_arg_abi(const NpyArray *a, int ndim, int64_t esize, void *data, kpy_array *out)
{
	int d;
	int64_t s = esize;

	memset(out, 0, sizeof *out);
	out->data = data;
	out->ndim = ndim;
	for (d = ndim - 1; d >= 0; d--) {
		out->shape[d] = (int32_t)a->shape[d];
		out->strides[d] = s;
		s *= a->shape[d];
	}
}

void
kpy_put_array_t(unsigned char *bytes, int64_t off, const kpy_array *arr)
{
	unsigned char *p = bytes + off;
	int d, nd = arr->ndim;

	memcpy(p, &arr->data, sizeof(void *));
	for (d = 0; d < nd; d++)
		memcpy(p + 8 + 4 * d, &arr->shape[d], 4);
	for (d = 0; d < nd; d++)
		memcpy(p + 8 + 8 * ((nd + 1) / 2) + 8 * d, &arr->strides[d], 8);
}

void
kpy_arg_bindsub(KpyArg *a, KpySub *s, void *data)
{
	unsigned char *base = s->inarray ? (unsigned char *)a->a.data : a->bytes;
	kpy_array arr;
	int64_t e;

	s->dev = data;
	kpy_arg_abi(&s->a, s->ndim, s->esize, data, &arr);
	for (e = 0; e < s->nelem; e++)
		kpy_put_array_t(base + e * s->stride, s->offset, &arr);
}

const NpyArray *
kpy_arg_output(const KpyArg *a, int f32size, NpyArray *tmp)
{
	memset(tmp, 0, sizeof *tmp);
	if (a->p && a->p->type.dtype == KPY_F32 && f32size == 8 && a->a.dtype == KPY_F64) {
		if (npy_alloc(tmp, KPY_F32, a->a.ndim, a->a.shape) < 0)
			return NULL;
		kpy_convert(tmp->data, KPY_F32, a->a.data, KPY_F64, a->a.count);
		return tmp;
	}
	return &a->a;
}
