/*
 * launch.c — one launch of a kernel on host arrays (launch.h), as krun
 * and keval's python target run it.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "launch.h"

kpy_bounds_fault run_fault;
jmp_buf run_faultjmp;

void
run_onbounds(const kpy_bounds_fault *f)
{
	run_fault = *f;
	longjmp(run_faultjmp, 1);
}

void
run_init(Run *r, const kpy_kernel_info *k)
{
	memset(r, 0, sizeof *r);
	r->k = k;
	r->args = xcalloc((size_t)k->nparams + 1, sizeof(KpyArg));
	r->abi = xcalloc((size_t)k->nparams + 1, sizeof(kpy_array));
	r->argp = xcalloc((size_t)k->nparams + 1, sizeof(void *));
}

void
run_free(Run *r)
{
	int i;

	if (r->guards)
		for (i = 0; i < r->k->nparams; i++)
			if (r->guards[i].base) {
				r->args[i].a.data = r->guards[i].orig;
				munmap(r->guards[i].base, r->guards[i].len);
			}
	free(r->guards);
	if (r->args)
		for (i = 0; i < r->k->nparams; i++)
			kpy_arg_free(&r->args[i]);
	free(r->args);
	free(r->abi);
	free(r->argp);
	memset(r, 0, sizeof *r);
}

void
run_bind(Run *r)
{
	int i, j;

	for (i = 0; i < r->k->nparams; i++) {
		KpyArg *a = &r->args[i];
		for (j = 0; j < a->nsubs; j++)
			kpy_arg_bindsub(a, &a->subs[j], a->subs[j].a.data);
		if (a->isarray) {
			kpy_arg_abi(&a->a, a->ndim, a->esize, a->a.data, &r->abi[i]);
			r->argp[i] = &r->abi[i];
		} else {
			r->argp[i] = a->bytes;
		}
	}
}

/* For untrusted code that may index its arrays' data pointers directly,
 * past the bounds checks (krun --sandbox, keval's candidates): a read or
 * write past an array's last element faults (SIGSEGV) instead of touching
 * other memory. */
int
run_guard(Run *r)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int i;

	r->guards = xcalloc((size_t)r->k->nparams + 1, sizeof(Guard));
	for (i = 0; i < r->k->nparams; i++) {
		KpyArg *a = &r->args[i];
		size_t n, len;
		char *m;
		if (!a->isarray)
			continue;
		n = (size_t)a->a.count * (size_t)npy_dtype_size(a->a.dtype);
		len = (n + pg - 1) / pg * pg + pg;
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return -1;
		if (mprotect(m + len - pg, pg, PROT_NONE) < 0) {
			munmap(m, len);
			return -1;
		}
		if (n)
			memcpy(m + len - pg - n, a->a.data, n);
		r->guards[i].base = m;
		r->guards[i].len = len;
		r->guards[i].orig = a->a.data;
		a->a.data = m + len - pg - n;
	}
	run_bind(r);
	return 0;
}

int64_t *
run_permutation(int64_t n, uint64_t seed)
{
	int64_t *perm = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *perm), t;

	for (t = 0; t < n; t++)
		perm[t] = t;
	for (t = n - 1; t > 0; t--) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
		int64_t j, tmp;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		j = (int64_t)(z % (uint64_t)(t + 1));
		tmp = perm[t];
		perm[t] = perm[j];
		perm[j] = tmp;
	}
	return perm;
}

void
run_threads(const Run *r, const kpy_launch_bounds *b, int order, const int64_t *perm)
{
	int64_t t;

	if (order == ORDER_FORWARD) {
		r->k->launch(b, 0, b->size, r->argp);
	} else if (order == ORDER_REVERSE) {
		for (t = b->size - 1; t >= 0; t--)
			r->k->launch(b, t, t + 1, r->argp);
	} else {
		for (t = 0; t < b->size; t++)
			r->k->launch(b, perm[t], perm[t] + 1, r->argp);
	}
}

static void
indexstr(Buf *b, const int32_t *v, int n)
{
	int d;

	bufputs(b, "(");
	for (d = 0; d < n; d++)
		bufprintf(b, "%s%d", d ? ", " : "", (int)v[d]);
	bufputs(b, n == 1 ? ",)" : ")");
}

const char *
run_faultline(const Run *r, const char *file, Buf *m)
{
	static const char *const verb[] = {"accesses", "reads", "writes", "updates (atomically)", "takes the address of",
	                                   "takes a view of"};
	const kpy_bounds_fault *f = &run_fault;
	const char *name = NULL;
	bool isview = false;
	int i, j;

	for (i = 0; i < r->k->nparams && !name; i++) {
		const KpyArg *a = &r->args[i];
		for (j = a->isarray ? -1 : 0; j < a->nsubs && !name; j++) {
			const NpyArray *x = j < 0 ? &a->a : &a->subs[j].a;
			const char *base = x->data;
			size_t bytes = (size_t)x->count * (size_t)npy_dtype_size(x->dtype);
			int nd = j < 0 ? a->ndim : a->subs[j].ndim;
			if (!base || (const char *)f->data < base || (const char *)f->data >= base + (bytes ? bytes : 1))
				continue;
			name = j < 0 ? a->p->name : a->subs[j].name;
			isview = (const char *)f->data != base || f->ndim != nd;
		}
	}
	if (file && f->line > 0)
		bufprintf(m, "%s:%d: ", file, (int)f->line);
	bufprintf(m, "error: kernel %s %s ", r->k->name,
	          verb[f->access >= 1 && f->access <= KPY_ACCESS_VIEW ? f->access : 0]);
	if (name)
		bufprintf(m, "%s'%s' ", isview ? "a view of array " : "array ", name);
	else
		bufputs(m, "an array ");
	bufputs(m, "at index ");
	indexstr(m, f->index, f->nidx);
	bufprintf(m, ", outside its %sshape ", isview ? "view's " : "");
	indexstr(m, f->shape, f->ndim);
	return name;
}

const NpyArray *
run_output(const KpyArg *a, int j, bool dbl, int f32size, NpyArray *tmp)
{
	const NpyArray *w;
	KpyArg t2;

	tmp->data = NULL;
	if (dbl)
		return j < 0 ? &a->a : &a->subs[j].a;
	if (j < 0)
		return kpy_arg_output(a, f32size, tmp);
	memset(&t2, 0, sizeof t2);
	t2.p = a->p;
	t2.a = a->subs[j].a;
	w = kpy_arg_output(&t2, f32size, tmp);
	return w == &t2.a ? &a->subs[j].a : w;
}
