/*
 * standalone.cpp — the host program of kcuda --standalone.  kcuda carries
 * this file as text and appends it, after runtime/npy.c and runtime/data.c,
 * to the generated .cu; the generated code then defines every kernel's
 * parameter table and launch shim, the table kpy_sa_kernels[] and main()
 * calling kpy_sa_main().
 *
 *   PROG [--kernel NAME] [--dim N[,M..]] [--seed S] [--in NAME=FILE.npy]...
 *        [--set NAME=V]... [--out DIR] [--expect DIR [--rtol R] [--atol A]]
 *        [--block N] [--time REPS] [--inputs DIR] [--check-inputs DIR]
 *        [--ptx FILE.ptx]
 *
 * Inputs are made exactly as krun makes them (same seed, same data; in a
 * backward kernel the adjoints of arrays the forward kernel only reads are
 * zero, the others seeded); every array is copied back after the launch,
 * summarized on standard output ("NAME DTYPE (SHAPE) sum=S abs=A", the
 * checksum lines), written to DIR/NAME.npy with --out (the data pointers
 * of array fields in structs as 0), and compared with
 * DIR/NAME.npy with --expect ("ok NAME maxerr=E worst=W", W the worst
 * error in units of the tolerance atol + rtol * |expected|; arrays of
 * structs field by field, pointer fields skipped).  --inputs writes the
 * inputs as DIR/NAME.npy and exits before any CUDA call; --check-inputs
 * compares them with DIR/NAME.npy as --expect compares the outputs (no CUDA
 * call either).  --time REPS
 * launches the kernel REPS more times and prints its mean time and the
 * GB/s of its arrays' bytes (read + written once) next to a device-to-device
 * copy of as many bytes.  --ptx (a program compiled with -DKPY_SA_PTX and
 * linked with -lcuda) launches the kernel's entry in FILE.ptx (kptx's, same
 * parameter layout) through the CUDA driver API instead of kcuda's kernel.
 * Exit 0, 1 on a mismatch or a CUDA error, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef KPY_SA_PTX
#include <cuda.h>
#endif

typedef void (*kpy_sa_launch_fn)(const kpy_launch_bounds *bounds, void **args, unsigned blocks, unsigned threads);

typedef struct kpy_sa_kernel {
	const char *name;               /* kir name */
	const char *cname;              /* the C++ (and PTX entry) name */
	int32_t nparams;
	const kpy_param_info *params;
	const kpy_struct_info *structs;
	kpy_sa_launch_fn launch;
	const char *dim;                /* default launch */
	int seed;                       /* default seed */
	int tid_dims;                   /* widest wp.tid() */
	int forward;                    /* backward kernel: index of its forward kernel; -1 otherwise */
} kpy_sa_kernel;

static void
kpy_sa_check(cudaError_t e, const char *what, int line)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "error: %s (line %d): %s\n", what, line, cudaGetErrorString(e));
		exit(1);
	}
}
#define KPY_CK(call) kpy_sa_check((call), #call, __LINE__)

static int
kpy_sa_usage(const char *prog, const kpy_sa_kernel *ks, int nk, int def, int rc)
{
	int i;

	fprintf(rc ? stderr : stdout,
	        "usage: %s [--kernel NAME] [--dim N[,M..]] [--seed S] [--in NAME=FILE.npy]...\n"
	        "       [--set NAME=V]... [--out DIR] [--expect DIR [--rtol R] [--atol A]]\n"
	        "       [--block N] [--time REPS] [--inputs DIR] [--check-inputs DIR] [--ptx FILE.ptx]\n"
	        "Run kernel %s (or --kernel) on the GPU (default --dim %s --seed %d).\nKernels:",
	        prog, ks[def].name, ks[def].dim, ks[def].seed);
	for (i = 0; i < nk; i++)
		fprintf(rc ? stderr : stdout, " %s", ks[i].name);
	fputc('\n', rc ? stderr : stdout);
	return rc;
}

/* Compare n components of dtype dt at g with those of dtype wdt at w
 * (expected; float32 for a bfloat16 array, which NumPy lacks): elements beyond
 * the tolerance; *worst, *maxerr and *at (component index) updated. */
static int64_t
kpy_sa_cmpcomps(const void *g, const void *w, int dt, int wdt, int64_t n, double rtol, double atol, double *worst,
                double *maxerr, int64_t base, int64_t *at)
{
	int64_t i, bad = 0;

	for (i = 0; i < n; i++) {
		double x = kpy_get(g, dt, i), y = kpy_get(w, wdt, i), r, d = 0;
		if (dt < KPY_F16) {
			bool same;
			if (dt == KPY_I64)
				same = ((const int64_t *)g)[i] == ((const int64_t *)w)[i];
			else if (dt == KPY_U64)
				same = ((const uint64_t *)g)[i] == ((const uint64_t *)w)[i];
			else
				same = x == y;
			r = same ? 0 : INFINITY;
			d = same ? 0 : fabs(x - y);
		} else if (isnan(x) || isnan(y)) {
			r = isnan(x) && isnan(y) ? 0 : INFINITY;
			d = r;
		} else if (isinf(x) || isinf(y)) {
			r = x == y ? 0 : INFINITY;
			d = r;
		} else {
			double tol = atol + rtol * fabs(y);
			d = fabs(x - y);
			r = d == 0 ? 0 : tol > 0 ? d / tol : INFINITY;
		}
		if (r > 1)
			bad++;
		if (d > *maxerr)
			*maxerr = d;
		if (r > *worst || (*at < 0 && r > 0)) {
			*worst = r;
			*at = base + i;
		}
	}
	return bad;
}

/* Compare one struct value field by field (array fields, pointers, skipped). */
static int64_t
kpy_sa_cmpstruct(const unsigned char *g, const unsigned char *w, int sid, const kpy_struct_info *structs,
                 double rtol, double atol, double *worst, double *maxerr, int64_t base, int64_t *at)
{
	const kpy_struct_info *si = &structs[sid];
	int64_t bad = 0;
	int f;

	for (f = 0; f < si->nfields; f++) {
		const kpy_type_info *t = &si->fields[f].type;
		int64_t off = si->fields[f].offset;
		if (t->kind == KPY_ARRAY)
			continue;
		if (t->kind == KPY_STRUCT)
			bad += kpy_sa_cmpstruct(g + off, w + off, t->sid, structs, rtol, atol, worst, maxerr, base + off, at);
		else
			bad += kpy_sa_cmpcomps(g + off, w + off, t->dtype, t->dtype, kpy_elem_count(t), rtol, atol, worst, maxerr,
			                       base + off, at);
	}
	return bad;
}

/* Zero the data pointers of the array fields of one struct value (they
 * hold device addresses, which differ from run to run): what --out writes
 * and the checksum lines then depend on the values alone. */
static void
kpy_sa_zeroptrs(unsigned char *v, int sid, const kpy_struct_info *structs)
{
	const kpy_struct_info *si = &structs[sid];
	int f;

	for (f = 0; f < si->nfields; f++) {
		const kpy_type_info *t = &si->fields[f].type;
		if (t->kind == KPY_ARRAY)
			memset(v + si->fields[f].offset, 0, sizeof(void *));
		else if (t->kind == KPY_STRUCT)
			kpy_sa_zeroptrs(v + si->fields[f].offset, t->sid, structs);
	}
}

/* The same for every element of a, the array of parameter p, if it holds
 * structs. */
static void
kpy_sa_zeroarr(const kpy_param_info *p, const kpy_struct_info *structs, NpyArray *a)
{
	if (p->type.elem != KPY_STRUCT || p->type.size <= 0)
		return;
	for (int64_t e = 0; e < a->count / p->type.size; e++)
		kpy_sa_zeroptrs((unsigned char *)a->data + e * p->type.size, p->type.sid, structs);
}

/* Compare array a (of parameter p) with want; -1 with a message on a shape
 * or type mismatch.  Arrays of structs: field by field; *at is then a byte
 * offset. */
static int64_t
kpy_sa_compare(const NpyArray *a, const NpyArray *want, const kpy_type_info *t, const kpy_struct_info *structs,
               double rtol, double atol, double *worst, double *maxerr, int64_t *at, char *err, size_t nerr)
{
	double w0;
	int64_t at0, bad, e, n;

	*maxerr = 0;
	bad = kpy_compare(a, want, 0, 0, &w0, &at0, err, nerr); /* shapes, types */
	if (bad < 0)
		return -1;
	*worst = 0;
	*at = -1;
	if (!t || t->elem != KPY_STRUCT)
		return kpy_sa_cmpcomps(a->data, want->data, a->dtype, want->dtype, a->count, rtol, atol, worst, maxerr, 0, at);
	n = t->size ? a->count / t->size : 0;
	bad = 0;
	for (e = 0; e < n; e++)
		bad += kpy_sa_cmpstruct((const unsigned char *)a->data + e * t->size,
		                        (const unsigned char *)want->data + e * t->size, t->sid, structs, rtol, atol, worst,
		                        maxerr, e * t->size, at);
	return bad;
}

/* Value of NAME=VALUE options for parameter `name`, or NULL. */
static const char *
kpy_sa_find(const char *const *opts, int n, const char *name)
{
	size_t l = strlen(name);
	int i;

	for (i = n - 1; i >= 0; i--)
		if (strncmp(opts[i], name, l) == 0 && opts[i][l] == '=')
			return opts[i] + l + 1;
	return NULL;
}

#ifdef KPY_SA_PTX
static const char *kpy_sa_ptxmod;      /* the PTX text */
static void **kpy_sa_ptxargs;          /* cuLaunchKernel's kernelParams */
static unsigned char *kpy_sa_ptxarrs;  /* the array_t values they point to */

static int
kpy_sa_cuck(CUresult r, const char *what)
{
	const char *s = NULL;
	if (r == CUDA_SUCCESS)
		return 0;
	cuGetErrorString(r, &s);
	fprintf(stderr, "error: %s: %s\n", what, s ? s : "unknown CUDA driver error");
	return -1;
}
#endif

/* Launch k: kcuda's kernel, or with ptx the entry of the loaded PTX. */
static int
kpy_sa_launch(const kpy_sa_kernel *k, const char *ptx, const kpy_launch_bounds *b, void **argp, unsigned blocks,
              unsigned threads)
{
#ifdef KPY_SA_PTX
	static CUfunction fn;
	if (ptx) {
		if (!fn) {
			CUmodule mod;
			char log[4096] = "";
			CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
			void *val[] = {log, (void *)(size_t)sizeof log};
			if (kpy_sa_cuck(cuModuleLoadDataEx(&mod, kpy_sa_ptxmod, 2, opt, val), "cuModuleLoadData") < 0) {
				fprintf(stderr, "%s\n", log);
				return -1;
			}
			if (kpy_sa_cuck(cuModuleGetFunction(&fn, mod, k->cname), k->cname) < 0)
				return -1;
		}
		(void)b;
		(void)argp;
		return kpy_sa_cuck(cuLaunchKernel(fn, blocks, 1, 1, threads, 1, 1, 0, 0, kpy_sa_ptxargs, NULL),
		                   "cuLaunchKernel");
	}
#else
	(void)ptx;
#endif
	k->launch(b, argp, blocks, threads);
	return 0;
}

/* Compare array a (name; argument arg, sub array j or the array itself
 * when j < 0) of kernel k with DIR/NAME.npy; print an ok, skip or FAIL
 * line.  0, or 1 on a mismatch. */
static int
kpy_sa_expect(const kpy_sa_kernel *k, const KpyArg *arg, int j, const NpyArray *a, const char *name,
              const char *dir, double rtol, double atol)
{
	const kpy_type_info *t = j < 0 ? &arg->p->type : NULL;
	NpyArray want;
	double worst, maxerr;
	int64_t at, bad;
	char path[4096], err[512];

	snprintf(path, sizeof path, "%s/%s.npy", dir, name);
	if (!(arg->p->access & KPY_WRITE) && j < 0 && arg->p->type.elem != KPY_STRUCT && access(path, F_OK) != 0) {
		/* an array the kernel does not write: its input is its output */
		printf("skip %s: the kernel does not write it and %s has no %s.npy\n", name, dir, name);
		return 0;
	}
	if (npy_read(path, &want, err, sizeof err) < 0) {
		fprintf(stderr, "error: %s: %s\n", path, err);
		return 1;
	}
	bad = kpy_sa_compare(a, &want, t, k->structs, rtol, atol, &worst, &maxerr, &at, err, sizeof err);
	if (bad < 0) {
		printf("FAIL %s: %s\n", name, err);
	} else if (bad > 0 && t && t->elem == KPY_STRUCT) {
		printf("FAIL %s: %lld components of its structs' fields differ (maxerr=%.3g worst %.3g x tolerance at byte %lld)\n",
		       name, (long long)bad, maxerr, worst, (long long)at);
	} else if (bad > 0) {
		printf("FAIL %s: %lld of %lld elements differ (maxerr=%.3g worst %.3g x tolerance at %lld: %.9g, expected %.9g)\n",
		       name, (long long)bad, (long long)a->count, maxerr, worst, (long long)at, kpy_get(a->data, a->dtype, at),
		       kpy_get(want.data, want.dtype, at));
	}
	npy_free(&want);
	if (bad != 0)
		return 1;
	printf("ok %s maxerr=%.3g worst=%.3g\n", name, maxerr, worst);
	return 0;
}

int
kpy_sa_main(int argc, char **argv, const kpy_sa_kernel *ks, int nk, int def)
{
	const kpy_sa_kernel *k = &ks[def], *fw;
	const char *dim = NULL, *out = NULL, *expect = NULL, *kname = NULL, *inputs = NULL, *ptx = NULL;
	const char *checkin = NULL;
	int reps = 0;
	const char **ins = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	const char **sets = (const char **)calloc((size_t)argc + 1, sizeof(char *));
	int nin = 0, nset = 0, i, j, status = 0, block = 256;
	unsigned long long seed = (unsigned long long)k->seed;
	double rtol = 1e-5, atol = 1e-6;
	kpy_launch_bounds b;
	KpyArg *args;
	kpy_array *abi;
	void **argp, **dev;
	char err[512];

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return kpy_sa_usage(argv[0], ks, nk, def, 0);
		if (!v)
			return kpy_sa_usage(argv[0], ks, nk, def, 2);
		if (strcmp(a, "--kernel") == 0)
			kname = v;
		else if (strcmp(a, "--inputs") == 0)
			inputs = v;
		else if (strcmp(a, "--check-inputs") == 0)
			checkin = v;
		else if (strcmp(a, "--ptx") == 0)
			ptx = v;
		else if (strcmp(a, "--time") == 0)
			reps = atoi(v);
		else if (strcmp(a, "--dim") == 0)
			dim = v;
		else if (strcmp(a, "--seed") == 0)
			seed = strtoull(v, NULL, 0);
		else if (strcmp(a, "--in") == 0)
			ins[nin++] = v;
		else if (strcmp(a, "--set") == 0)
			sets[nset++] = v;
		else if (strcmp(a, "--out") == 0)
			out = v;
		else if (strcmp(a, "--expect") == 0)
			expect = v;
		else if (strcmp(a, "--rtol") == 0)
			rtol = strtod(v, NULL);
		else if (strcmp(a, "--atol") == 0)
			atol = strtod(v, NULL);
		else if (strcmp(a, "--block") == 0)
			block = atoi(v);
		else
			return kpy_sa_usage(argv[0], ks, nk, def, 2);
		i++;
	}
	if (kname) {
		for (i = 0; i < nk && strcmp(ks[i].name, kname) != 0 && strcmp(ks[i].cname, kname) != 0; i++)
			;
		if (i == nk) {
			fprintf(stderr, "error: no kernel '%s'\n", kname);
			return kpy_sa_usage(argv[0], ks, nk, def, 2);
		}
		k = &ks[i];
	}
	fw = k->forward >= 0 ? &ks[k->forward] : NULL;
	if (!dim)
		dim = k->dim;
#ifndef KPY_SA_PTX
	if (ptx) {
		fprintf(stderr, "error: --ptx: this program was built without -DKPY_SA_PTX\n");
		return 2;
	}
#endif
	if (block <= 0 || block > 1024) {
		fprintf(stderr, "error: --block must be 1..1024\n");
		return 2;
	}
	if (kpy_parse_dims(dim, &b, err, sizeof err) < 0) {
		fprintf(stderr, "error: %s\n", err);
		return 2;
	}
	if (k->tid_dims > 1 && k->tid_dims != b.ndim) {
		fprintf(stderr, "error: kernel %s unpacks a %d-dimensional wp.tid(); launch it with %d extents (--dim)\n",
		        k->name, k->tid_dims, k->tid_dims);
		return 2;
	}
	args = (KpyArg *)calloc((size_t)k->nparams + 1, sizeof(KpyArg));
	abi = (kpy_array *)calloc((size_t)k->nparams + 1, sizeof(kpy_array));
	argp = (void **)calloc((size_t)k->nparams + 1, sizeof(void *));
	dev = (void **)calloc((size_t)k->nparams + 1, sizeof(void *));
	for (i = 0; i < k->nparams; i++) {
		const kpy_param_info *p = &k->params[i];
		KpyArgSpec spec;
		memset(&spec, 0, sizeof spec);
		spec.inpath = kpy_sa_find(ins, nin, p->name);
		if (p->adjoint_of >= 0 && fw) {
			/* as krun: adjoints of outputs are seeded, of inputs zero */
			spec.zero = !(fw->params[p->adjoint_of].access & KPY_WRITE);
		} else {
			spec.setval = kpy_sa_find(sets, nset, p->name);
		}
		if (kpy_arg_make(&args[i], p, k->structs, &b, seed, &spec, 4, err, sizeof err) < 0) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
	}
	if (checkin) {
		/* the comparison of --expect, on the inputs: no CUDA call */
		for (i = 0; i < k->nparams; i++)
			for (j = args[i].isarray ? -1 : 0; j < args[i].nsubs; j++)
				if (kpy_sa_expect(k, &args[i], j, j < 0 ? &args[i].a : &args[i].subs[j].a,
				                  j < 0 ? k->params[i].name : args[i].subs[j].name, checkin, rtol, atol) != 0)
					status = 1;
		return status;
	}
	if (inputs) {
		if (mkdir(inputs, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "error: cannot create %s: %s\n", inputs, strerror(errno));
			return 1;
		}
		for (i = 0; i < k->nparams; i++)
			for (j = args[i].isarray ? -1 : 0; j < args[i].nsubs; j++) {
				char path[4096];
				snprintf(path, sizeof path, "%s/%s.npy", inputs, j < 0 ? k->params[i].name : args[i].subs[j].name);
				if (j < 0)
					kpy_sa_zeroarr(&k->params[i], k->structs, &args[i].a); /* it exits next */
				if (npy_write(path, j < 0 ? &args[i].a : &args[i].subs[j].a, err, sizeof err) < 0) {
					fprintf(stderr, "error: %s\n", err);
					return 1;
				}
			}
		return 0;
	}
	for (i = 0; i < k->nparams; i++) {
		/* arrays inside structs first: their device pointers go into the structs */
		for (j = 0; j < args[i].nsubs; j++) {
			KpySub *s = &args[i].subs[j];
			size_t n = (size_t)s->a.count * (size_t)npy_dtype_size(s->a.dtype);
			void *d;
			KPY_CK(cudaMalloc(&d, n ? n : 1));
			KPY_CK(cudaMemcpy(d, s->a.data, n, cudaMemcpyHostToDevice));
			kpy_arg_bindsub(&args[i], s, d);
		}
		if (args[i].isarray) {
			size_t n = (size_t)args[i].a.count * (size_t)npy_dtype_size(args[i].a.dtype);
			KPY_CK(cudaMalloc(&dev[i], n ? n : 1));
			KPY_CK(cudaMemcpy(dev[i], args[i].a.data, n, cudaMemcpyHostToDevice));
			kpy_arg_abi(&args[i].a, args[i].ndim, args[i].esize, dev[i], &abi[i]);
			argp[i] = &abi[i];
		} else {
			argp[i] = args[i].bytes;
		}
	}
#ifdef KPY_SA_PTX
	if (ptx) {
		FILE *pf = fopen(ptx, "rb");
		long len;
		char *text;
		KPY_CK(cudaFree(0)); /* the runtime's primary context, current */
		if (!pf || fseek(pf, 0, SEEK_END) != 0 || (len = ftell(pf)) < 0 || fseek(pf, 0, SEEK_SET) != 0) {
			fprintf(stderr, "error: cannot read %s: %s\n", ptx, strerror(errno));
			return 1;
		}
		text = (char *)calloc((size_t)len + 1, 1);
		if (fread(text, 1, (size_t)len, pf) != (size_t)len) {
			fprintf(stderr, "error: cannot read %s\n", ptx);
			return 1;
		}
		fclose(pf);
		kpy_sa_ptxmod = text;
		kpy_sa_ptxargs = (void **)calloc((size_t)k->nparams + 2, sizeof(void *));
		kpy_sa_ptxarrs = (unsigned char *)calloc((size_t)k->nparams + 1, 64);
		kpy_sa_ptxargs[0] = &b;
		for (i = 0; i < k->nparams; i++) {
			if (args[i].isarray) {
				/* kpy::array_t<T, ND> { T *data; i32 shape[ND]; i64 strides[ND]; } by value */
				kpy_put_array_t(kpy_sa_ptxarrs + 64 * i, 0, &abi[i]);
				kpy_sa_ptxargs[i + 1] = kpy_sa_ptxarrs + 64 * i;
			} else {
				kpy_sa_ptxargs[i + 1] = argp[i];
			}
		}
	}
#endif
	if (b.size > 0) {
		long long blocks = (b.size + block - 1) / block;
		if (blocks > 0x7fffffff)
			blocks = 0x7fffffff;
		if (kpy_sa_launch(k, ptx, &b, argp, (unsigned)blocks, (unsigned)block) != 0)
			return 1;
		KPY_CK(cudaGetLastError());
		KPY_CK(cudaDeviceSynchronize());
	}
	/* every array back to the host */
	for (i = 0; i < k->nparams; i++)
		for (j = args[i].isarray ? -1 : 0; j < args[i].nsubs; j++) {
			NpyArray *a = j < 0 ? &args[i].a : &args[i].subs[j].a;
			size_t n = (size_t)a->count * (size_t)npy_dtype_size(a->dtype);
			KPY_CK(cudaMemcpy(a->data, j < 0 ? dev[i] : args[i].subs[j].dev, n, cudaMemcpyDeviceToHost));
		}
	if (reps > 0 && b.size > 0) {
		/* mean time of REPS launches; bytes: every array once (read and written once if written) */
		long long blocks = (b.size + block - 1) / block;
		double bytes = 0;
		float ms = 0, msc = 0;
		cudaEvent_t e0, e1;
		void *c0, *c1;
		for (i = 0; i < k->nparams; i++)
			if (args[i].isarray) {
				double n = (double)args[i].a.count * npy_dtype_size(args[i].a.dtype);
				bytes += k->params[i].access & KPY_WRITE ? ((k->params[i].access & KPY_READ) ? 2 * n : n) : n;
			}
		if (blocks > 0x7fffffff)
			blocks = 0x7fffffff;
		KPY_CK(cudaEventCreate(&e0));
		KPY_CK(cudaEventCreate(&e1));
		KPY_CK(cudaEventRecord(e0));
		for (j = 0; j < reps; j++)
			if (kpy_sa_launch(k, ptx, &b, argp, (unsigned)blocks, (unsigned)block) != 0)
				return 1;
		KPY_CK(cudaEventRecord(e1));
		KPY_CK(cudaEventSynchronize(e1));
		KPY_CK(cudaGetLastError());
		KPY_CK(cudaEventElapsedTime(&ms, e0, e1));
		KPY_CK(cudaMalloc(&c0, (size_t)bytes / 2 + 1));
		KPY_CK(cudaMalloc(&c1, (size_t)bytes / 2 + 1));
		KPY_CK(cudaEventRecord(e0));
		for (j = 0; j < reps; j++)
			KPY_CK(cudaMemcpyAsync(c1, c0, (size_t)bytes / 2 + 1, cudaMemcpyDeviceToDevice));
		KPY_CK(cudaEventRecord(e1));
		KPY_CK(cudaEventSynchronize(e1));
		KPY_CK(cudaEventElapsedTime(&msc, e0, e1));
		KPY_CK(cudaFree(c0));
		KPY_CK(cudaFree(c1));
		printf("time %.6f ms %.2f GB/s copy %.6f ms %.2f GB/s\n", ms / reps, bytes / (ms / reps * 1e6), msc / reps,
		       bytes / (msc / reps * 1e6));
	}
	for (i = 0; i < k->nparams; i++)
		for (j = args[i].isarray ? -1 : 0; j < args[i].nsubs; j++)
			KPY_CK(cudaFree(j < 0 ? dev[i] : args[i].subs[j].dev));
	if (out && mkdir(out, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "error: cannot create %s: %s\n", out, strerror(errno));
		return 1;
	}
	for (i = 0; i < k->nparams; i++) {
		for (j = args[i].isarray ? -1 : 0; j < args[i].nsubs; j++) {
			NpyArray *a = j < 0 ? &args[i].a : &args[i].subs[j].a;
			const char *name = j < 0 ? k->params[i].name : args[i].subs[j].name;
			size_t n = (size_t)a->count * (size_t)npy_dtype_size(a->dtype);
			char path[4096];
			(void)n;
			if (j < 0)
				kpy_sa_zeroarr(&k->params[i], k->structs, a);
			kpy_summary(stdout, name, a);
			if (out) {
				snprintf(path, sizeof path, "%s/%s.npy", out, name);
				if (npy_write(path, a, err, sizeof err) < 0) {
					fprintf(stderr, "error: %s\n", err);
					status = 1;
				}
			}
			if (expect && kpy_sa_expect(k, &args[i], j, a, name, expect, rtol, atol) != 0)
				status = 1;
		}
		kpy_arg_free(&args[i]);
	}
	free(args);
	free(abi);
	free(argp);
	free(dev);
	free(ins);
	free(sets);
	return status;
}
