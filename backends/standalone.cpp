/*
 * standalone.cpp — the host program of kcuda --standalone.  kcuda carries
 * this file as text and appends it, after runtime/npy.c and runtime/data.c,
 * to the generated .cu; the generated code then defines the kernel's
 * parameter table, a launch shim and main() calling kpy_sa_main().
 *
 *   PROG [--dim N[,M..]] [--seed S] [--in NAME=FILE.npy]... [--set NAME=V]...
 *        [--out DIR] [--expect DIR [--rtol R] [--atol A]] [--block N]
 *
 * Inputs are made exactly as krun makes them (same seed, same data); every
 * array is copied back after the launch, summarized on standard output
 * ("NAME DTYPE (SHAPE) sum=S abs=A", the checksum lines), written to
 * DIR/NAME.npy with --out, and compared with DIR/NAME.npy with --expect.
 * Exit 0, 1 on a mismatch or a CUDA error, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef void (*kpy_sa_launch_fn)(const kpy_launch_bounds *bounds, void **args, unsigned blocks, unsigned threads);

typedef struct kpy_sa_kernel {
	const char *name;               /* kir name */
	int32_t nparams;
	const kpy_param_info *params;
	const kpy_struct_info *structs;
	kpy_sa_launch_fn launch;
	const char *dim;                /* default launch */
	int seed;                       /* default seed */
	int tid_dims;                   /* widest wp.tid() */
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
kpy_sa_usage(const char *prog, const kpy_sa_kernel *k, int rc)
{
	fprintf(rc ? stderr : stdout,
	        "usage: %s [--dim N[,M..]] [--seed S] [--in NAME=FILE.npy]... [--set NAME=V]...\n"
	        "       [--out DIR] [--expect DIR [--rtol R] [--atol A]] [--block N]\n"
	        "Run kernel %s on the GPU (default --dim %s --seed %d).\n",
	        prog, k->name, k->dim, k->seed);
	return rc;
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

int
kpy_sa_main(int argc, char **argv, const kpy_sa_kernel *k)
{
	const char *dim = k->dim, *out = NULL, *expect = NULL;
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
			return kpy_sa_usage(argv[0], k, 0);
		if (!v)
			return kpy_sa_usage(argv[0], k, 2);
		if (strcmp(a, "--dim") == 0)
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
			return kpy_sa_usage(argv[0], k, 2);
		i++;
	}
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
		spec.setval = kpy_sa_find(sets, nset, p->name);
		if (kpy_arg_make(&args[i], p, k->structs, &b, seed, &spec, 4, err, sizeof err) < 0) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
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
	if (b.size > 0) {
		long long blocks = (b.size + block - 1) / block;
		if (blocks > 0x7fffffff)
			blocks = 0x7fffffff;
		k->launch(&b, argp, (unsigned)blocks, (unsigned)block);
		KPY_CK(cudaGetLastError());
		KPY_CK(cudaDeviceSynchronize());
	}
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
			void *d = j < 0 ? dev[i] : args[i].subs[j].dev;
			KPY_CK(cudaMemcpy(a->data, d, n, cudaMemcpyDeviceToHost));
			KPY_CK(cudaFree(d));
			kpy_summary(stdout, name, a);
			if (out) {
				snprintf(path, sizeof path, "%s/%s.npy", out, name);
				if (npy_write(path, a, err, sizeof err) < 0) {
					fprintf(stderr, "error: %s\n", err);
					status = 1;
				}
			}
			if (expect) {
				NpyArray want;
				double worst;
				int64_t at, bad;
				snprintf(path, sizeof path, "%s/%s.npy", expect, name);
				if (npy_read(path, &want, err, sizeof err) < 0) {
					fprintf(stderr, "error: %s: %s\n", path, err);
					status = 1;
					continue;
				}
				bad = kpy_compare(a, &want, rtol, atol, &worst, &at, err, sizeof err);
				if (bad < 0) {
					printf("FAIL %s: %s\n", name, err);
					status = 1;
				} else if (bad > 0) {
					printf("FAIL %s: %lld of %lld elements differ (worst %.3g x tolerance at %lld: %.9g, expected %.9g)\n",
					       name, (long long)bad, (long long)a->count, worst, (long long)at,
					       kpy_get(a->data, a->dtype, at), kpy_get(want.data, want.dtype, at));
					status = 1;
				} else {
					printf("ok %s\n", name);
				}
				npy_free(&want);
			}
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
