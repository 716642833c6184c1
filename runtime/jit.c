/*
 * jit.c — krun's .kir modules: the kernel's host code through kptx's back
 * end and LLVM's ORC JIT in this process, instead of a C++ compiler.
 *
 * The file is read and verified as kopt reads it, lowered by the passes
 * of KRUN_LOWER_PIPELINE (the library kopt runs), compiled by kptxjit
 * (backends/kptx_jit.c): the same LLVM module kptx --target=host writes as
 * an object, with kcpu's kernel table, so that krun runs it through the
 * same calls as a dlopened module.  Loaded modules stay loaded until the
 * process ends (a table of them, searched linearly: a process loads a
 * handful).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "jit.h"
#include "kptx.h"
#include "passes.h"

typedef struct Loaded {
	char *file;     /* the path as given */
	bool dbl;       /* f32 as f64 */
	bool checked;   /* array accesses checked */
	int optlevel;   /* default<On> */
	KptxJit *jit;
} Loaded;

static Loaded *loaded;
static int nloaded;

/* ---- f32 as f64 (krun --double, --gradcheck) ------------------------ */

/* kcpu's output built with -DKPY_F32_DOUBLE computes and stores every f32
 * as a double (kpy/core.h), except that the random numbers are drawn in
 * float and widened (kpy/rand.h).  widen() makes the same module of kir
 * before it is lowered: every f32 type (scalar, composite component, array
 * element, struct field, constant) becomes f64, so that decompositions
 * take their f64 forms as in that build, and the ops Warp defines for
 * float32 only (quat_to_rpy, transform_twist, ...) are typed for f64 too
 * (Module.widened), and so is noise (computed in the position's type by
 * scalarize's helpers, its lattice gradients drawn in float, as kpy/noise.h
 * does); the random number ops keep their f32 operands and results, with a
 * cast on either side, and so would any op kir still typed for f32 only.
 * Constants keep their values (already rounded to f32, as kcpu's literals
 * are). */

typedef struct Widen {
	Module *m;
	Func *f;
	bool *keep;    /* per Val: stays f32 (around an op that stays f32) */
	uint32_t nkeep;
	ValMap use;    /* an f32 result of such an op -> its widened cast */
	bool *mine;    /* per Val: the result of a cast widen() made */
	uint32_t nmine;
} Widen;

static void
setflag(bool **v, uint32_t *n, Val i)
{
	if (i >= *n) {
		uint32_t k = *n ? *n : 64;
		while (k <= i)
			k *= 2;
		*v = xrealloc(*v, k * sizeof **v);
		memset(*v + *n, 0, (k - *n) * sizeof **v);
		*n = k;
	}
	(*v)[i] = true;
}

static bool
flag(const bool *v, uint32_t n, Val i)
{
	return i < n && v[i];
}

static bool
hasf32(Type t)
{
	return t.k != T_STRUCT && (t.k != T_ARRAY || t.ek != T_STRUCT) && t.s == S_F32 &&
	       (t.k == T_SCALAR || iscomposite(t) || t.k == T_ARRAY);
}

static Type
wide(Type t)
{
	if (hasf32(t))
		t.s = S_F64;
	return t;
}

static Op *
mkcast(Widen *w, Val v, Type t, Loc loc)
{
	Op *c = mkop(w->m, w->f, OP_CAST, &v, 1, &t, 1, loc);
	return c;
}

/* Whether op stays in f32: a random number op (kpy/rand.h draws in
 * float), or an op kir types for f32 only (Warp defines noise,
 * quat_to_rpy, ... for float32 alone), where the C++ build computes in
 * double but kir cannot: such an op runs in f32 here, between casts. */
static bool
keepf32(Widen *w, const Op *op)
{
	Type in[256], out[16], t;
	Buf err = {0};
	int n, i;
	bool any = false;

	if (opfamily(op->code) == OF_RAND)
		return true;
	if (op->nregs || op->code == OP_CALL || (opinfo[op->code].flags & (F_TERM | F_CAST | F_MEM)) ||
	    op->nargs > 256 || op->nres > 16)
		return false;
	for (i = 0; i < op->nargs; i++) {
		t = vty(w->f, op->args[i]);
		any |= hasf32(t);
		in[i] = wide(t);
	}
	for (i = 0; i < op->nres; i++)
		any |= hasf32(vty(w->f, op->res[i]));
	if (!any)
		return false;
	n = typeop(w->m, op->code, in, op->nargs, op->attr, out, &err);
	buffree(&err);
	if (n != op->nres)
		return true;
	for (i = 0; i < n; i++)
		if (!typeeq(out[i], wide(vty(w->f, op->res[i]))))
			return true;
	return false;
}

/* Insert the casts around the ops that stay in f32 (recursively). */
static void
widenregion(Widen *w, Region *r)
{
	Op **ops = r->ops;
	uint32_t n = r->n, i, k;
	uint16_t j;

	r->ops = NULL;
	r->n = r->cap = 0;
	for (i = 0; i < n; i++) {
		Op *op = ops[i];
		for (k = 0; k < op->nregs; k++)
			widenregion(w, &op->regs[k]);
		if (!keepf32(w, op)) {
			regpush(w->m, r, op);
			continue;
		}
		for (j = 0; j < op->nargs; j++) {
			Type t = vty(w->f, op->args[j]);
			if (hasf32(t)) { /* f64 once widened: rounded back to f32 */
				Op *c = mkcast(w, op->args[j], t, op->loc);
				setflag(&w->keep, &w->nkeep, c->res[0]);
				regpush(w->m, r, c);
				op->args[j] = c->res[0];
			}
		}
		regpush(w->m, r, op);
		for (j = 0; j < op->nres; j++) {
			Type t = vty(w->f, op->res[j]);
			if (hasf32(t)) {
				Op *c = mkcast(w, op->res[j], wide(t), op->loc);
				setflag(&w->keep, &w->nkeep, op->res[j]);
				setflag(&w->mine, &w->nmine, c->res[0]);
				vmset(&w->use, op->res[j], c->res[0]);
				regpush(w->m, r, c);
			}
		}
	}
	/* the old array stays in the module's arena */
}

/* Point the uses of the kept ops' results at their casts. */
static void
widenuses(Widen *w, Region *r)
{
	uint32_t i, k;
	uint16_t j;

	for (i = 0; i < r->n; i++) {
		Op *op = r->ops[i];
		for (k = 0; k < op->nregs; k++)
			widenuses(w, &op->regs[k]);
		if (op->code == OP_CAST && op->nres == 1 && flag(w->mine, w->nmine, op->res[0]))
			continue;
		for (j = 0; j < op->nargs; j++)
			if (vmget(&w->use, op->args[j]))
				op->args[j] = vmget(&w->use, op->args[j]);
	}
}

static void
widen(Module *m)
{
	uint32_t fi, i, j;

	m->widened = true;
	for (i = 0; i < m->nstructs; i++)
		for (j = 0; j < m->structs[i].nfields; j++)
			m->structs[i].fields[j].ty = wide(m->structs[i].fields[j].ty);
	for (fi = 0; fi < m->nfuncs; fi++) {
		Widen w = {0};
		Func *f = m->funcs[fi];
		w.m = m;
		w.f = f;
		widenregion(&w, &f->body);
		widenuses(&w, &f->body);
		for (i = 1; i < f->nvals; i++)
			if (!flag(w.keep, w.nkeep, i))
				f->vals[i].ty = wide(f->vals[i].ty);
		for (i = 0; i < f->nrets; i++)
			f->rets[i] = wide(f->rets[i]);
		free(w.keep);
		free(w.mine);
		vmfree(&w.use);
	}
}

/* ---- loading --------------------------------------------------------- */

static KptxJit *jitcompile(const char *name, const char *text, size_t len, bool dbl, bool checked, int optlevel);

void *
jitload(const char *file, bool dbl, bool checked, int optlevel)
{
	KptxJit *j;
	size_t len;
	char *text;
	int i;

	for (i = 0; i < nloaded; i++)
		if (strcmp(loaded[i].file, file) == 0 && loaded[i].dbl == dbl && loaded[i].checked == checked &&
		    loaded[i].optlevel == optlevel)
			return loaded[i].jit;
	if (!(text = readfile(file, &len))) {
		fprintf(stderr, "krun: cannot read %s: %s\n", file, strerror(errno));
		return NULL;
	}
	if ((j = jitcompile(file, text, len, dbl, checked, optlevel))) {
		loaded = xrealloc(loaded, (size_t)(nloaded + 1) * sizeof *loaded);
		loaded[nloaded].file = xstrdup(file);
		loaded[nloaded].dbl = dbl;
		loaded[nloaded].checked = checked;
		loaded[nloaded].optlevel = optlevel;
		loaded[nloaded].jit = j;
		nloaded++;
	}
	free(text);
	return j;
}

void *
jitloadtext(const char *name, const char *text, size_t len, bool dbl, bool checked, int optlevel)
{
	return jitcompile(name, text, len, dbl, checked, optlevel);
}

/* The module of text (its diagnostics name name) through the lowering
 * and kptxjit, or NULL after a message on stderr. */
static KptxJit *
jitcompile(const char *name, const char *text, size_t len, bool dbl, bool checked, int optlevel)
{
	const PassInfo *pipe[16];
	int npipe = 0, i;
	Src src = {0};
	PassOpts po = {0};
	KptxOpts ko = {0};
	Diag d;
	Module *m = NULL, *abi = NULL;
	KptxJit *j = NULL;

	if (!addpasses(KRUN_LOWER_PIPELINE, pipe, &npipe, (int)countof(pipe)))
		die("jit.c: bad pipeline " KRUN_LOWER_PIPELINE);
	src.name = name;
	src.text = text;
	src.len = len;
	diaginit(&d);
	if (!(m = parsekir(&src, &d)) || verify(m, &src, &d))
		goto done;
	po.d = &d;
	po.src = &src;
	po.max_unroll = 16;
	if (dbl) {
		/* the kernel table describes the module's own types (f32, with
		 * kpy_f32_size 8), as the -DKPY_F32_DOUBLE build's does */
		abi = parsekir(&src, &d);
		widen(m);
		if (verify(m, &src, &d))
			goto done;
	}
	for (i = 0; i < npipe; i++)
		if (pipe[i]->fn(m, &po) || d.nerr || verify(m, &src, &d))
			goto done;
	ko.target = KPTX_HOST;
	ko.emit = EMIT_OBJ;
	ko.optlevel = optlevel;
	ko.f64 = dbl;
	ko.checked = checked;
	ko.abi = abi;
	ko.verify = true;
	ko.src = &src;
	ko.d = &d;
	if (!(j = kptxjit(m, &ko)) || d.nerr) {
		kptxjitfree(j);
		j = NULL;
		goto done;
	}
done:
	if (m)
		modfree(m);
	if (abi)
		modfree(abi);
	return j;
}

void *
jitsym(void *h, const char *name)
{
	return kptxjitsym(h, name);
}
