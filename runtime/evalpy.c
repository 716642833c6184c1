/*
 * evalpy.c — keval's python target in process: what keval ran as kpyc,
 * kopt (twice) and krun processes per candidate and per trial, through the
 * same libraries (libkpyc, libpasses, krun's JIT: jit.c) and the same
 * argument rules (data.h) in the calling process.  eval.c calls these in
 * one forked, sandboxed child per candidate (the candidate's code) and in
 * keval itself once that child has exited (the reference's).
 *
 * The launch is krun's (launch.c; runtime/krun.c: makeargs, launch,
 * writeout) for a plain run of one kernel, so that an array means the same
 * here as through krun --in/--out=-.  Memory: each run frees what it made;
 * loaded modules stay loaded until the process ends (jit.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ir.h"
#include "ast.h"
#include "passes.h"
#include "data.h"
#include "jit.h"
#include "launch.h"
#include "evalpy.h"

/* ---- compiling ------------------------------------------------------- */

void
evalpy_errline(const char *s, char *dst, size_t n)
{
	const char *e = s ? strstr(s, "error") : NULL, *l = s ? s : "", *end;

	if (e) {
		while (e > s && e[-1] != '\n')
			e--;
		l = e;
	}
	end = strchr(l, '\n');
	snprintf(dst, n, "%.*s", (int)(end ? end - l : (ptrdiff_t)strlen(l)), l);
}

/* Run the passes of list on m's text (as kopt reads its file, named
 * name): the module's new text in out.  0, or -1 (diagnostics on d). */
static int
kopt(const char *list, const Buf *in, const char *name, Buf *out, Diag *d)
{
	const PassInfo *pipe[64];
	int npipe = 0, i, rc = 0;
	PassOpts po = {0};
	Src src = {0};
	Module *m;

	if (!addpasses(list, pipe, &npipe, 64))
		die("evalpy.c: bad pipeline %s", list);
	src.name = name;
	src.text = in->s;
	src.len = in->n;
	po.d = d;
	po.src = &src;
	po.max_unroll = 16;
	if (!(m = parsekir(&src, d)))
		return -1;
	if (verify(m, &src, d))
		rc = -1;
	for (i = 0; rc == 0 && i < npipe; i++)
		if (pipe[i]->fn(m, &po) || d->nerr)
			rc = -1;
	if (rc == 0)
		printmod(out, m);
	modfree(m);
	return rc;
}

int
evalpy_compile(const char *text, size_t len, const char *name, bool backward, Buf *kir, char *why, size_t n)
{
	char *msg = NULL, file[300];
	size_t mlen = 0;
	FILE *err = open_memstream(&msg, &mlen);
	KpycOpts ko = {16, false};
	Src src;
	Diag d;
	Module *m;
	Buf k = {0}, ad = {0};
	const char *tool = "kpyc";
	int rc = -1;

	if (!err) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	snprintf(file, sizeof file, "%s.py", name);
	src.name = file;
	src.text = text;
	src.len = len;
	diaginit(&d);
	d.out = err;
	if ((m = kpyc_compile(&src, 1, &d, &ko))) {
		printmod(&k, m);
		modfree(m);
		tool = "kopt";
		if (kopt("ad,O", &k, "k.kir", &ad, &d) == 0 && kopt(backward ? "backward" : "forward", &ad, "ad.kir", kir, &d) == 0)
			rc = 0;
	}
	fclose(err);
	if (rc < 0) {
		/* as keval said when these were processes */
		char line[800];
		evalpy_errline(msg, line, sizeof line);
		snprintf(why, n, "%s failed: %s", tool, line);
	}
	free(msg);
	buffree(&k);
	buffree(&ad);
	return rc;
}

/* ---- loading --------------------------------------------------------- */

int
evalpy_load(const char *name, const Buf *kir, bool dbl, PyMod *m, char *why, size_t n)
{
	const int32_t *v, *nk, *f32;
	void (**handler)(const kpy_bounds_fault *);

	memset(m, 0, sizeof *m);
	/* its diagnostics on standard error */
	if (!(m->jit = jitloadtext(name, kir->s, kir->n, dbl, true, 0))) {
		snprintf(why, n, "error: the JIT failed on %s", name);
		return -1;
	}
	v = jitsym(m->jit, "kpy_abi_version");
	nk = jitsym(m->jit, "kpy_nkernels");
	f32 = jitsym(m->jit, "kpy_f32_size");
	m->kernels = jitsym(m->jit, "kpy_kernels");
	m->structs = jitsym(m->jit, "kpy_structs");
	handler = (void (**)(const kpy_bounds_fault *))jitsym(m->jit, "kpy_bounds_handler");
	if (!v || !nk || !f32 || !m->kernels || !m->structs || !handler || *v != KPY_ABI_VERSION) {
		snprintf(why, n, "%s: the JIT's module has no kernel table or bounds checks", name);
		return -1;
	}
	*handler = run_onbounds;
	m->nkernels = *nk;
	m->f32size = *f32;
	return 0;
}

/* ---- launching (krun's rules) ---------------------------------------- */

static const kpy_param_info *
findparam(const kpy_kernel_info *k, const char *name)
{
	int i;

	for (i = 0; i < k->nparams; i++)
		if (strcmp(k->params[i].name, name) == 0)
			return &k->params[i];
	return NULL;
}

static bool
npyable(const kpy_param_info *p)
{
	return p->type.kind == KPY_ARRAY && p->type.elem != KPY_STRUCT;
}

/* krun's makeargs for --in=P=DIR/P.npy of every array P of ref (no --set,
 * --shape): adjoints after their primals. */
static int
makeargs(Run *r, const PyMod *m, const kpy_kernel_info *k, const kpy_kernel_info *ref, const kpy_launch_bounds *b,
         unsigned long long seed, const NpyArray *in, char *why, size_t n)
{
	const kpy_kernel_info *fw = k->forward >= 0 ? &m->kernels[k->forward] : NULL;
	int i, pass;

	run_init(r, k);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < k->nparams; i++) {
			const kpy_param_info *p = &k->params[i], *rp = findparam(ref, p->name);
			const NpyArray *x = rp && npyable(rp) ? &in[rp - ref->params] : NULL;
			const KpyArg *primal = NULL;
			KpyArgSpec spec;
			int32_t shape[4];
			char err[1024];
			int d, j, er;
			int64_t edims[2];
			if ((p->adjoint_of >= 0 && fw) != (pass == 1))
				continue;
			memset(&spec, 0, sizeof spec);
			if (x) {
				/* krun --in=P=FILE, from memory: the file's checks, then
				 * its data in the build's storage type */
				er = npyable(p) ? kpy_elem_shape(&p->type, edims) : -1;
				if (er < 0 || x->dtype != p->type.dtype || x->ndim != p->type.ndim + er) {
					snprintf(why, n, "error: parameter '%s' of kernel %s is not the reference's", p->name,
					         k->name);
					run_free(r);
					return -1;
				}
				for (d = 0; d < er; d++)
					if (x->shape[p->type.ndim + d] != edims[d]) {
						snprintf(why, n, "error: parameter '%s' of kernel %s is not the reference's", p->name,
						         k->name);
						run_free(r);
						return -1;
					}
				for (d = 0; d < p->type.ndim; d++)
					shape[d] = (int32_t)x->shape[d];
				spec.shape = shape;
				spec.zero = true;
			}
			if (p->adjoint_of >= 0 && fw) {
				const kpy_param_info *fp = &fw->params[p->adjoint_of];
				if (!x)
					spec.zero = !(fp->access & KPY_WRITE);
				for (j = 0; j < k->nparams; j++)
					if (k->params[j].adjoint_of < 0 && r->args[j].p &&
					    strcmp(k->params[j].name, fp->name) == 0)
						primal = &r->args[j];
				if (primal && (!primal->isarray || primal->ndim != p->type.ndim))
					primal = NULL;
				if (primal && !x) {
					for (d = 0; d < p->type.ndim; d++)
						shape[d] = (int32_t)primal->a.shape[d];
					spec.shape = shape;
				}
			}
			if (kpy_arg_make(&r->args[i], p, m->structs, b, seed, &spec, m->f32size, err, sizeof err) < 0) {
				snprintf(why, n, "%s", err);
				run_free(r);
				return -1;
			}
			if (x) {
				if (r->args[i].a.count != x->count) {
					snprintf(why, n, "error: parameter '%s' of kernel %s is not the reference's", p->name,
					         k->name);
					run_free(r);
					return -1;
				}
				kpy_convert(r->args[i].a.data, r->args[i].a.dtype, x->data, x->dtype, x->count);
			}
		}
	run_bind(r);
	return 0;
}

/* Launch r over b in order (forward, reverse, shuffle[:SEED]: krun
 * --order's words), as krun does.  0, or -1 at the first out-of-bounds
 * access (run_fault), the launch stopped there. */
static int
launch(const Run *r, const kpy_launch_bounds *b, const char *order)
{
	int64_t *volatile perm = NULL;
	volatile int ord = ORDER_FORWARD;

	if (strcmp(order, "reverse") == 0) {
		ord = ORDER_REVERSE;
	} else if (strncmp(order, "shuffle", 7) == 0) {
		ord = ORDER_SHUFFLE;
		perm = run_permutation(b->size, order[7] == ':' ? strtoull(order + 8, NULL, 10) : 1);
	}
	if (setjmp(run_faultjmp)) {
		free(perm);
		return -1;
	}
	run_threads(r, b, ord, perm);
	free(perm);
	return 0;
}

/* krun's writeout of every array of r to the --out=- stream f. */
static int
writeout(const Run *r, const PyMod *m, bool dbl, FILE *f)
{
	int i, j, rc = 0;

	for (i = 0; i < r->k->nparams && rc == 0; i++) {
		const KpyArg *a = &r->args[i];
		for (j = a->isarray ? -1 : 0; j < a->nsubs && rc == 0; j++) {
			const char *name = j < 0 ? a->p->name : a->subs[j].name;
			NpyArray tmp;
			const NpyArray *w = run_output(a, j, dbl, m->f32size, &tmp);
			char *mem = NULL;
			size_t len = 0;
			FILE *s;
			if (!w || !(s = open_memstream(&mem, &len)) || npy_fwrite(s, w) < 0 || fclose(s) != 0)
				rc = -1;
			else if (fprintf(f, "%s %zu\n", name, len) < 0 || fwrite(mem, 1, len, f) != len)
				rc = -1;
			free(mem);
			free(tmp.data);
		}
	}
	return rc;
}

int
evalpy_run(const PyMod *m, const char *kname, const kpy_kernel_info *ref, const NpyArray *in,
           const kpy_launch_bounds *b, unsigned long long seed, const char *order, bool guard, bool dbl, FILE *f,
           char *why, size_t n)
{
	const kpy_kernel_info *k = NULL;
	int rc = 0, i;
	Run r;

	for (i = 0; i < m->nkernels && !k; i++)
		if (strcmp(m->kernels[i].name, kname) == 0)
			k = &m->kernels[i];
	if (!k) {
		snprintf(why, n, "error: the module has no kernel '%s'", kname);
		return -1;
	}
	if (k->tid_dims > 1 && k->tid_dims != b->ndim) {
		snprintf(why, n, "error: kernel %s unpacks a %d-dimensional wp.tid(), launched with %d extents", k->name,
		         k->tid_dims, b->ndim);
		return -1;
	}
	for (i = 0; i < ref->nparams; i++)
		if (npyable(&ref->params[i]) && !findparam(k, ref->params[i].name)) {
			snprintf(why, n, "error: kernel %s has no parameter '%s'", k->name, ref->params[i].name);
			return -1;
		}
	if (makeargs(&r, m, k, ref, b, seed, in, why, n) < 0)
		return -1;
	if (guard && run_guard(&r) < 0) {
		snprintf(why, n, "out of memory");
		run_free(&r);
		return -1;
	}
	if (b->size > 0 && launch(&r, b, order) < 0) {
		Buf msg = {0};
		run_faultline(&r, run_fault.file, &msg);
		snprintf(why, n, "%s", msg.s);
		buffree(&msg);
		rc = -1;
	}
	if (rc == 0 && writeout(&r, m, dbl, f) < 0) {
		snprintf(why, n, "error: cannot write the arrays");
		rc = -1;
	}
	run_free(&r);
	return rc;
}
