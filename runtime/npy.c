/*
 * npy.c — .npy reader/writer and the host data helpers (see npy.h).
 *
 * This file is also compiled as C++ inside the standalone programs kcuda
 * writes: no implicit conversions from void *, no designated initializers.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"

static const char *const dtnames[] = {
	"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"float16", "float32", "float64", "bfloat16",
};
/* bfloat16 has no NumPy dtype: it is never parsed from a file (a file of
 * another dtype converts to it, rounding to nearest even) and is written
 * as float32, which holds every bfloat16 value exactly. */
static const char dtkind[] = {'b', 'i', 'i', 'i', 'i', 'u', 'u', 'u', 'u', 'f', 'f', 'f', 'f'};
static const int dtsize[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 2};

int
npy_dtype_size(int dt)
{
	return dt >= 0 && dt <= KPY_BF16 ? dtsize[dt] : 0;
}

const char *
npy_dtype_name(int dt)
{
	return dt >= 0 && dt <= KPY_BF16 ? dtnames[dt] : "?";
}

static void
seterr(char *err, size_t nerr, const char *fmt, const char *a, const char *b)
{
	if (err && nerr)
		snprintf(err, nerr, fmt, a, b);
}

int
npy_alloc(NpyArray *a, int dt, int ndim, const int64_t *shape)
{
	int64_t n = 1;
	int i;

	memset(a, 0, sizeof *a);
	a->dtype = dt;
	a->ndim = ndim;
	for (i = 0; i < ndim; i++) {
		a->shape[i] = shape[i];
		n *= shape[i];
	}
	a->count = n;
	a->data = calloc((size_t)(n ? n : 1), (size_t)npy_dtype_size(dt));
	return a->data ? 0 : -1;
}

void
npy_free(NpyArray *a)
{
	free(a->data);
	a->data = NULL;
	a->count = 0;
}

void
npy_shapestr(const NpyArray *a, char *out, size_t n)
{
	size_t k = 0;
	int i;

	k += (size_t)snprintf(out + k, n > k ? n - k : 0, "(");
	for (i = 0; i < a->ndim; i++)
		k += (size_t)snprintf(out + k, n > k ? n - k : 0, "%s%lld", i ? ", " : "", (long long)a->shape[i]);
	if (a->ndim == 1)
		k += (size_t)snprintf(out + k, n > k ? n - k : 0, ",");
	snprintf(out + k, n > k ? n - k : 0, ")");
}

/* ---- parsing the header dictionary --------------------------------- */

static const char *
skipws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Find the value of key 'name' in the header dictionary. */
static const char *
dictval(const char *h, const char *e, const char *key)
{
	size_t kl = strlen(key);
	const char *p;

	for (p = h; p + kl + 2 < e; p++) {
		if ((*p == '\'' || *p == '"') && p[kl + 1] == *p && memcmp(p + 1, key, kl) == 0) {
			p = skipws(p + kl + 2, e);
			if (p < e && *p == ':')
				return skipws(p + 1, e);
			return NULL;
		}
	}
	return NULL;
}

static int
parsedescr(const char *p, const char *e, int *dt, char *err, size_t nerr)
{
	char q, d[16];
	size_t n = 0;
	int i;

	if (!p || p >= e || (*p != '\'' && *p != '"')) {
		seterr(err, nerr, "malformed header: no 'descr' string%s%s", "", "");
		return -1;
	}
	q = *p++;
	while (p < e && *p != q && n + 1 < sizeof d)
		d[n++] = *p++;
	d[n] = 0;
	if (p >= e || *p != q) {
		seterr(err, nerr, "malformed header: bad 'descr'%s%s", "", "");
		return -1;
	}
	if (n < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=' && d[0] != '>')) {
		seterr(err, nerr, "unsupported dtype '%s' (structured or unknown)%s", d, "");
		return -1;
	}
	for (i = 0; i <= KPY_F64; i++) {
		char want[8];
		snprintf(want, sizeof want, "%c%d", dtkind[i], dtsize[i]);
		if (strcmp(d + 1, want) == 0) {
			if (d[0] == '>' && dtsize[i] > 1) {
				seterr(err, nerr, "big-endian dtype '%s' is not supported%s", d, "");
				return -1;
			}
			*dt = i;
			return 0;
		}
	}
	seterr(err, nerr, "unsupported dtype '%s'%s", d, "");
	return -1;
}

static int
parseshape(const char *p, const char *e, NpyArray *a, char *err, size_t nerr)
{
	if (!p || p >= e || *p != '(') {
		seterr(err, nerr, "malformed header: no 'shape' tuple%s%s", "", "");
		return -1;
	}
	p++;
	a->ndim = 0;
	a->count = 1;
	for (;;) {
		long long v = 0;
		int digits = 0;
		p = skipws(p, e);
		if (p < e && *p == ')')
			break;
		while (p < e && *p >= '0' && *p <= '9') {
			if (v > (1LL << 40)) {
				seterr(err, nerr, "shape extent too large%s%s", "", "");
				return -1;
			}
			v = v * 10 + (*p++ - '0');
			digits++;
		}
		if (!digits) {
			seterr(err, nerr, "malformed header: bad 'shape'%s%s", "", "");
			return -1;
		}
		if (a->ndim == NPY_MAXDIM) {
			seterr(err, nerr, "too many dimensions%s%s", "", "");
			return -1;
		}
		a->shape[a->ndim++] = v;
		/* count <= 2^40 here: check before multiplying, so it never overflows */
		if (v && a->count > (1LL << 40) / v) {
			seterr(err, nerr, "array too large%s%s", "", "");
			return -1;
		}
		a->count *= v;
		p = skipws(p, e);
		if (p < e && *p == 'L')
			p++;
		p = skipws(p, e);
		if (p < e && *p == ',') {
			p++;
			continue;
		}
		if (p < e && *p == ')')
			break;
		seterr(err, nerr, "malformed header: bad 'shape'%s%s", "", "");
		return -1;
	}
	return 0;
}

int
npy_parse(const char *buf, size_t n, NpyArray *a, char *err, size_t nerr)
{
	size_t hlen, off, need;
	const char *h, *e, *fo;
	int major;

	memset(a, 0, sizeof *a);
	if (n < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
		seterr(err, nerr, "not a .npy file (bad magic)%s%s", "", "");
		return -1;
	}
	major = (unsigned char)buf[6];
	if (major == 1) {
		hlen = (unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8;
		off = 10;
	} else if (major == 2 || major == 3) {
		if (n < 12) {
			seterr(err, nerr, "truncated file (in the header)%s%s", "", "");
			return -1;
		}
		hlen = (unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8 | (size_t)(unsigned char)buf[10] << 16 |
		       (size_t)(unsigned char)buf[11] << 24;
		off = 12;
	} else {
		char v[16];
		snprintf(v, sizeof v, "%d", major);
		seterr(err, nerr, "unsupported .npy format version %s.x%s", v, "");
		return -1;
	}
	if (off + hlen > n) {
		seterr(err, nerr, "truncated file (in the header)%s%s", "", "");
		return -1;
	}
	h = buf + off;
	e = h + hlen;
	if (parsedescr(dictval(h, e, "descr"), e, &a->dtype, err, nerr) < 0)
		return -1;
	fo = dictval(h, e, "fortran_order");
	/* the value must lie inside the header (e - fo: the bytes left) */
	if (!fo || !((e - fo >= 5 && memcmp(fo, "False", 5) == 0) || (e - fo >= 4 && memcmp(fo, "True", 4) == 0))) {
		seterr(err, nerr, "malformed header: no 'fortran_order'%s%s", "", "");
		return -1;
	}
	if (fo[0] == 'T') {
		int i, nd;
		if (parseshape(dictval(h, e, "shape"), e, a, err, nerr) < 0)
			return -1;
		for (i = nd = 0; i < a->ndim; i++)
			nd += a->shape[i] > 1;
		if (nd > 1) {
			seterr(err, nerr, "Fortran-order arrays are not supported (write it in C order)%s%s", "", "");
			return -1;
		}
	} else if (parseshape(dictval(h, e, "shape"), e, a, err, nerr) < 0) {
		return -1;
	}
	need = (size_t)a->count * (size_t)dtsize[a->dtype];
	if (n - off - hlen < need) {
		char got[32], want[32];
		snprintf(got, sizeof got, "%llu", (unsigned long long)(n - off - hlen));
		snprintf(want, sizeof want, "%llu", (unsigned long long)need);
		seterr(err, nerr, "truncated file: %s bytes of data, the header promises %s", got, want);
		return -1;
	}
	a->data = malloc(need ? need : 1);
	if (!a->data) {
		seterr(err, nerr, "out of memory%s%s", "", "");
		return -1;
	}
	memcpy(a->data, buf + off + hlen, need);
	return 0;
}

int
npy_read(const char *path, NpyArray *a, char *err, size_t nerr)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, k;
	int rc;

	memset(a, 0, sizeof *a);
	if (!f) {
		seterr(err, nerr, "cannot open: %s%s", strerror(errno), "");
		return -1;
	}
	for (;;) {
		if (n + 65536 > cap) {
			char *nb;
			cap = cap ? 2 * cap : 1 << 20;
			nb = (char *)realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				seterr(err, nerr, "out of memory%s%s", "", "");
				return -1;
			}
			buf = nb;
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		seterr(err, nerr, "read error: %s%s", strerror(errno), "");
		return -1;
	}
	fclose(f);
	rc = npy_parse(buf ? buf : "", n, a, err, nerr);
	free(buf);
	return rc;
}

/* The .npy bytes of a (format 1.0): 0, or -1 when f fails. */
int
npy_fwrite(FILE *f, const NpyArray *a)
{
	char hdr[512], shape[256];
	size_t hl, pre, total;
	int i, ok;

	if (a->dtype == KPY_BF16) { /* as float32 (exact) */
		NpyArray w;
		if (npy_alloc(&w, KPY_F32, a->ndim, a->shape) < 0)
			return -1;
		kpy_convert(w.data, KPY_F32, a->data, KPY_BF16, a->count);
		ok = npy_fwrite(f, &w);
		npy_free(&w);
		return ok;
	}

	/* the shape tuple: (n,) for one dimension */
	shape[0] = 0;
	{
		size_t k = 0;
		k += (size_t)snprintf(shape + k, sizeof shape - k, "(");
		for (i = 0; i < a->ndim; i++)
			k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%lld", i ? ", " : "", (long long)a->shape[i]);
		if (a->ndim == 1)
			k += (size_t)snprintf(shape + k, sizeof shape - k, ",");
		snprintf(shape + k, sizeof shape - k, ")");
	}
	hl = (size_t)snprintf(hdr, sizeof hdr, "{'descr': '%c%c%d', 'fortran_order': False, 'shape': %s, }",
	                      dtsize[a->dtype] == 1 ? '|' : '<', dtkind[a->dtype], dtsize[a->dtype], shape);
	/* pad with spaces and a newline to a multiple of 64 (format 1.0) */
	pre = 10;
	total = pre + hl + 1;
	while (total % 64)
		total++;
	while (pre + hl + 1 < total && hl < sizeof hdr - 2)
		hdr[hl++] = ' ';
	hdr[hl++] = '\n';
	{
		unsigned char pfx[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
		pfx[8] = (unsigned char)(hl & 0xff);
		pfx[9] = (unsigned char)(hl >> 8);
		ok = fwrite(pfx, 1, 10, f) == 10;
	}
	ok = ok && fwrite(hdr, 1, hl, f) == hl;
	if (a->count)
		ok = ok && fwrite(a->data, (size_t)dtsize[a->dtype], (size_t)a->count, f) == (size_t)a->count;
	return ok ? 0 : -1;
}

int
npy_write(const char *path, const NpyArray *a, char *err, size_t nerr)
{
	size_t plen = strlen(path);
	char *tmp;
	int ok;
	FILE *f;

	tmp = (char *)malloc(plen + 32);
	if (!tmp) {
		seterr(err, nerr, "out of memory%s%s", "", "");
		return -1;
	}
	snprintf(tmp, plen + 32, "%s.tmp%ld", path, (long)getpid());
	if (!(f = fopen(tmp, "wb"))) {
		seterr(err, nerr, "cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	ok = npy_fwrite(f, a) == 0;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		seterr(err, nerr, "cannot write %s: %s", path, strerror(errno));
		remove(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* ---- element access ------------------------------------------------ */

double
kpy_half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;

	if (e == 0x1f)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp((double)m, -24);
	else
		v = ldexp((double)(m | 0x400), e - 25);
	return (h & 0x8000) ? -v : v;
}

uint16_t
kpy_double_to_half(double x)
{
	/* round the double to float first? no: directly to nearest even */
	uint16_t sign = signbit(x) ? 0x8000 : 0;
	double a = fabs(x), r;
	int e;

	if (isnan(x))
		return (uint16_t)(sign | 0x7e00);
	if (a >= 65520.0)
		return (uint16_t)(sign | 0x7c00);
	if (a < ldexp(1.0, -14)) {
		/* subnormal: units of 2^-24 */
		r = nearbyint(a * 16777216.0);
		return (uint16_t)(sign | (uint16_t)r);
	}
	frexp(a, &e);          /* a = f * 2^e, f in [0.5, 1) */
	r = nearbyint(ldexp(a, 11 - e)); /* 11 significant bits */
	if (r >= 2048.0) {
		r /= 2;
		e++;
	}
	return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | ((uint16_t)r & 0x3ff));
}

double
kpy_bf16_to_double(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float x;

	memcpy(&x, &u, sizeof x);
	return x;
}

/* Through float (rounded to nearest), then Warp's float_to_bfloat16: round
 * to nearest even on the top 16 bits; inf and NaN truncate, a NaN keeps a
 * quiet bit. */
uint16_t
kpy_double_to_bf16(double d)
{
	float x = (float)d;
	uint32_t u;

	memcpy(&u, &x, sizeof u);
	if ((u & 0x7f800000u) == 0x7f800000u) {
		uint16_t h = (uint16_t)(u >> 16);
		if ((u & 0x7fffffu) != 0 && (h & 0x7fu) == 0)
			h |= 0x40u;
		return h;
	}
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

double
kpy_get(const void *data, int dt, int64_t i)
{
	const unsigned char *p = (const unsigned char *)data;

	switch (dt) {
	case KPY_BOOL: return p[i] != 0;
	case KPY_I8: return ((const int8_t *)data)[i];
	case KPY_I16: return ((const int16_t *)data)[i];
	case KPY_I32: return ((const int32_t *)data)[i];
	case KPY_I64: return (double)((const int64_t *)data)[i];
	case KPY_U8: return ((const uint8_t *)data)[i];
	case KPY_U16: return ((const uint16_t *)data)[i];
	case KPY_U32: return ((const uint32_t *)data)[i];
	case KPY_U64: return (double)((const uint64_t *)data)[i];
	case KPY_F16: return kpy_half_to_double(((const uint16_t *)data)[i]);
	case KPY_F32: return ((const float *)data)[i];
	case KPY_F64: return ((const double *)data)[i];
	case KPY_BF16: return kpy_bf16_to_double(((const uint16_t *)data)[i]);
	}
	return 0;
}

static int64_t
toint(double x)
{
	if (isnan(x))
		return 0;
	if (x >= 9.2e18)
		return INT64_MAX;
	if (x <= -9.2e18)
		return INT64_MIN;
	return (int64_t)x;
}

void
kpy_set(void *data, int dt, int64_t i, double x)
{
	switch (dt) {
	case KPY_BOOL: ((unsigned char *)data)[i] = x != 0; break;
	case KPY_I8: ((int8_t *)data)[i] = (int8_t)toint(x); break;
	case KPY_I16: ((int16_t *)data)[i] = (int16_t)toint(x); break;
	case KPY_I32: ((int32_t *)data)[i] = (int32_t)toint(x); break;
	case KPY_I64: ((int64_t *)data)[i] = toint(x); break;
	case KPY_U8: ((uint8_t *)data)[i] = (uint8_t)toint(x); break;
	case KPY_U16: ((uint16_t *)data)[i] = (uint16_t)toint(x); break;
	case KPY_U32: ((uint32_t *)data)[i] = (uint32_t)toint(x); break;
	case KPY_U64: ((uint64_t *)data)[i] = (uint64_t)toint(x); break;
	case KPY_F16: ((uint16_t *)data)[i] = kpy_double_to_half(x); break;
	case KPY_F32: ((float *)data)[i] = (float)x; break;
	case KPY_F64: ((double *)data)[i] = x; break;
	case KPY_BF16: ((uint16_t *)data)[i] = kpy_double_to_bf16(x); break;
	}
}

void
kpy_convert(void *dst, int ddt, const void *src, int sdt, int64_t n)
{
	int64_t i;

	if (ddt == sdt) {
		memcpy(dst, src, (size_t)n * (size_t)dtsize[ddt]);
		return;
	}
	for (i = 0; i < n; i++)
		kpy_set(dst, ddt, i, kpy_get(src, sdt, i));
}

/* ---- seeded data --------------------------------------------------- */

static uint64_t
fnv(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t
kpy_stream(const char *name)
{
	return fnv(name, 0xcbf29ce484222325ULL);
}

uint64_t
kpy_stream2(const char *name, const char *field)
{
	return fnv(field, fnv(".", fnv(name, 0xcbf29ce484222325ULL)));
}

static uint64_t
splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t
draw(uint64_t seed, uint64_t stream, uint64_t i)
{
	return splitmix(splitmix(seed * 0x9e3779b97f4a7c15ULL ^ stream) + i);
}

double
kpy_uniform(uint64_t seed, uint64_t stream, uint64_t i)
{
	return (double)(draw(seed, stream, i) >> 11) * (1.0 / 9007199254740992.0);
}

void
kpy_fill(void *data, int dt, int64_t n, uint64_t seed, uint64_t stream)
{
	int64_t i;

	for (i = 0; i < n; i++) {
		uint64_t r = draw(seed, stream, (uint64_t)i);
		switch (dt) {
		case KPY_BOOL:
			((unsigned char *)data)[i] = (unsigned char)(r >> 63);
			break;
		case KPY_I8: case KPY_I16: case KPY_I32: case KPY_I64:
			kpy_set(data, dt, i, (double)(int64_t)((r >> 32) % 17) - 8.0);
			break;
		case KPY_U8: case KPY_U16: case KPY_U32: case KPY_U64:
			kpy_set(data, dt, i, (double)((r >> 32) % 9));
			break;
		default: {
			double x = 2.0 * ((double)(r >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
			/* f32 rounds through float, so that f32 data and its double
			 * widening (gradient checks) hold the same values */
			kpy_set(data, dt, i, dt == KPY_F64 ? x : (double)(float)x);
		}
		}
	}
}

/* ---- launch shapes ------------------------------------------------- */

int
kpy_parse_dims(const char *s, kpy_launch_bounds *b, char *err, size_t nerr)
{
	const char *p = s;
	int64_t size = 1;

	memset(b, 0, sizeof *b);
	while (*p) {
		char *end;
		long long v;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (end == p || errno || v < 0 || v > 0x7fffffff) {
			seterr(err, nerr, "bad launch dimensions '%s' (expected N[,M[,K[,L]]])%s", s, "");
			return -1;
		}
		if (b->ndim == KPY_MAX_DIMS) {
			seterr(err, nerr, "bad launch dimensions '%s': at most 4%s", s, "");
			return -1;
		}
		b->shape[b->ndim++] = (int32_t)v;
		size *= v;
		if (size > 0x7fffffff) {
			seterr(err, nerr, "launch '%s' too large (more than 2^31 - 1 threads)%s", s, "");
			return -1;
		}
		p = end;
		if (*p == ',' || *p == 'x')
			p++;
		else if (*p) {
			seterr(err, nerr, "bad launch dimensions '%s' (expected N[,M[,K[,L]]])%s", s, "");
			return -1;
		}
	}
	if (b->ndim == 0) {
		seterr(err, nerr, "empty launch dimensions%s%s", "", "");
		return -1;
	}
	b->size = size;
	return 0;
}

void
kpy_default_shape(const kpy_launch_bounds *b, int ndim, int32_t *shape)
{
	int d;

	for (d = 0; d < ndim; d++)
		shape[d] = d < b->ndim ? b->shape[d] : 4;
}

/* ---- summaries and comparison -------------------------------------- */

void
kpy_summary(FILE *f, const char *name, const NpyArray *a)
{
	double sum = 0, asum = 0;
	char sh[256];
	int64_t i;

	for (i = 0; i < a->count; i++) {
		double x = kpy_get(a->data, a->dtype, i);
		sum += x;
		asum += fabs(x);
	}
	npy_shapestr(a, sh, sizeof sh);
	fprintf(f, "%s %s %s sum=%.9g abs=%.9g\n", name, npy_dtype_name(a->dtype), sh, sum, asum);
}

int64_t
kpy_compare(const NpyArray *got, const NpyArray *want, double rtol, double atol, double *worst, int64_t *at,
            char *err, size_t nerr)
{
	int64_t i, bad = 0;
	int d;
	bool isflt = got->dtype >= KPY_F16;

	*worst = 0;
	*at = -1;
	/* bfloat16 has no NumPy dtype: its arrays are written, and so expected,
	 * as float32, which holds every bfloat16 value exactly */
	if (got->dtype != want->dtype && !(got->dtype == KPY_BF16 && want->dtype == KPY_F32)) {
		seterr(err, nerr, "dtype %s, expected %s", npy_dtype_name(got->dtype), npy_dtype_name(want->dtype));
		return -1;
	}
	if (got->ndim != want->ndim || got->count != want->count) {
		char a[256], b[256];
		npy_shapestr(got, a, sizeof a);
		npy_shapestr(want, b, sizeof b);
		seterr(err, nerr, "shape %s, expected %s", a, b);
		return -1;
	}
	for (d = 0; d < got->ndim; d++)
		if (got->shape[d] != want->shape[d]) {
			char a[256], b[256];
			npy_shapestr(got, a, sizeof a);
			npy_shapestr(want, b, sizeof b);
			seterr(err, nerr, "shape %s, expected %s", a, b);
			return -1;
		}
	for (i = 0; i < got->count; i++) {
		double x = kpy_get(got->data, got->dtype, i), y = kpy_get(want->data, want->dtype, i), r;
		if (!isflt) {
			bool same;
			if (got->dtype == KPY_I64)
				same = ((const int64_t *)got->data)[i] == ((const int64_t *)want->data)[i];
			else if (got->dtype == KPY_U64)
				same = ((const uint64_t *)got->data)[i] == ((const uint64_t *)want->data)[i];
			else
				same = x == y;
			r = same ? 0 : INFINITY;
		} else if (isnan(x) || isnan(y)) {
			r = isnan(x) && isnan(y) ? 0 : INFINITY;
		} else if (isinf(x) || isinf(y)) {
			r = x == y ? 0 : INFINITY;
		} else {
			double tol = atol + rtol * fabs(y);
			r = fabs(x - y) == 0 ? 0 : tol > 0 ? fabs(x - y) / tol : INFINITY;
		}
		if (r > 1)
			bad++;
		if (r > *worst || (*at < 0 && r > 0)) {
			*worst = r;
			*at = i;
		}
	}
	return bad;
}
