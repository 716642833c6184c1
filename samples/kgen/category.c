/* Categories: each one a generator with a weight, built from the shared pieces below
 * (launch shape, parameters, prologue loads, helper functions, structs, output stores).
 *
 * Parameter conventions (shared with krun): every array has the launch's ndim and shape;
 * inputs are filled with floats in [-1, 1] (componentwise for vectors, matrices,
 * quaternions and transforms) and ints in [-8, 8]; scalar parameters and the fields of
 * struct parameters likewise.  Outputs are stored once per element; accumulators only
 * receive atomics. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kgen.h"

/* ----------------------------------------------------------------- shared pieces */

static Type tf32(void) { return ty_float(PREC_F32); }
static Type tf64(void) { return ty_float(PREC_F64); }
static Type tint(void) { return ty_int(); }
static Type tvec(int n, int prec) { return ty_make(TY_VEC, prec, n); }
static Type tmat(int n) { return ty_make(TY_MAT, PREC_F32, n); }
static Type tquat(void) { return ty_make(TY_QUAT, PREC_F32, 4); }
static Type txf(void) { return ty_make(TY_XFORM, PREC_F32, 7); }

static void
pal_add(Gen *g, Type t, int w)
{
	int i;

	for (i = 0; i < g->pal.n; i++)
		if (ty_eq(g->pal.t[i], t)) {
			g->pal.w[i] += w;
			return;
		}
	if (g->pal.n >= PAL_MAX)
		die("palette full");
	g->pal.t[g->pal.n] = t;
	g->pal.w[g->pal.n++] = w;
}

void
set_launch(Gen *g, int ndim)
{
	static const int n1[] = { 16, 32, 64, 100, 128, 256, 50, 1000 };
	Kernel *k = g->k;
	int d;

	k->ndim = ndim;
	if (ndim == 1) {
		k->dims[0] = n1[rng_below(&g->rng, 8)];
	} else {
		for (d = 0; d < ndim; d++)
			k->dims[d] = ndim == 2 ? rng_range(&g->rng, 6, 32) : rng_range(&g->rng, 3, 10);
	}
}

void
add_param(Gen *g, Var *v)
{
	if (g->k->nparams >= MAX_PARAMS)
		die("too many parameters");
	g->k->params[g->k->nparams++] = v;
}

typedef struct NamePair {
	const char *arr, *local;
} NamePair;

static const NamePair in_float[] = {
	{ "x", "xi" }, { "a", "ai" }, { "b", "bi" }, { "mass", "mi" }, { "temp", "tv" }, { "density", "rho" },
	{ "src", "sv" }, { "weights", "wt" }, { "u", "ui" }, { "pressure", "pr" }, { "phi", "ph" }, { "height", "hv" },
	{ "field", "fv" }, { "values", "val" }, { "signal", "sg" }, { "rate", "rt" }, { "charge", "qi" },
};
static const NamePair in_int[] = {
	{ "ids", "id" }, { "labels", "lab" }, { "counts", "cnt" }, { "steps", "ns" }, { "flags", "fl" }, { "keys", "key" },
	{ "modes", "mode" }, { "levels", "lvl" },
};
static const NamePair in_vec[] = {
	{ "pos", "p" }, { "vel", "v" }, { "force", "f" }, { "normals", "nrm" }, { "dirs", "d" }, { "points", "pt" },
	{ "colors", "col" }, { "offsets", "off" }, { "targets", "tgt" },
};
static const NamePair in_mat[] = {
	{ "rot", "R" }, { "jac", "J" }, { "stress", "S" }, { "basis", "B" }, { "inertia", "I_b" }, { "mats", "M" },
};
static const NamePair in_quat[] = { { "orient", "q" }, { "rotations", "rq" }, { "spins", "sq" }, { "attitude", "att" } };
static const NamePair in_xf[] = { { "poses", "pose" }, { "frames", "fr" }, { "xforms", "X" }, { "bodies", "body" } };

#define NPAIRS(a) ((int)(sizeof a / sizeof a[0]))

static const NamePair *
pair_for(Gen *g, Type t)
{
	const NamePair *v = in_float;
	int n = NPAIRS(in_float), at, i;

	switch (t.kind) {
	case TY_INT:
		v = in_int, n = NPAIRS(in_int);
		break;
	case TY_VEC:
		v = in_vec, n = NPAIRS(in_vec);
		break;
	case TY_MAT:
		v = in_mat, n = NPAIRS(in_mat);
		break;
	case TY_QUAT:
		v = in_quat, n = NPAIRS(in_quat);
		break;
	case TY_XFORM:
		v = in_xf, n = NPAIRS(in_xf);
		break;
	default:
		break;
	}
	at = rng_below(&g->rng, n);
	for (i = 0; i < n - 1 && name_taken(g, v[at].arr); i++)
		at = (at + 1) % n; /* another input rather than a numbered copy */
	return &v[at];
}

Var *
add_array(Gen *g, const char *base, Type elem, int io)
{
	Var *v = new_var(g, base, ty_make(TY_ARRAY, elem.prec, 0), V_ARRAY);

	v->elem = elem;
	v->ndim = (unsigned char)g->k->ndim;
	v->io = (unsigned char)io;
	add_param(g, v);
	return v;
}

static Var *
add_input(Gen *g, Type elem)
{
	const NamePair *np = pair_for(g, elem);

	return add_array(g, np->arr, elem, IO_IN);
}

static Var *
add_output(Gen *g, Type elem)
{
	static const char *const fl[] = { "energy", "potential", "response", "intensity", "residual", "score",
					  "cost", "flux", "activation", "brightness" };
	static const char *const ve[] = { "velocity", "displacement", "normal", "direction", "impulse", "gradient",
					  "accel" };
	static const char *const ma[] = { "deformation", "covariance", "strain", "frame" };
	static const char *const qu[] = { "orientation", "rotation" };
	static const char *const xf[] = { "world_pose", "local_pose" };
	static const char *const in[] = { "cell_id", "bucket", "label", "class_id", "code" };
	const char *const *v = fl;
	int n = NPAIRS(fl), at, t;

	if (elem.kind == TY_VEC)
		v = ve, n = NPAIRS(ve);
	else if (elem.kind == TY_MAT)
		v = ma, n = NPAIRS(ma);
	else if (elem.kind == TY_QUAT)
		v = qu, n = NPAIRS(qu);
	else if (elem.kind == TY_XFORM)
		v = xf, n = NPAIRS(xf);
	else if (elem.kind == TY_INT)
		v = in, n = NPAIRS(in);
	at = rng_below(&g->rng, n);
	for (t = 0; t < n - 1 && name_taken(g, v[at]); t++)
		at = (at + 1) % n; /* another word rather than a numbered copy */
	return add_array(g, v[at], elem, IO_OUT);
}

static Var *
add_acc(Gen *g, Type elem)
{
	static const char *const fl[] = { "total", "acc_sum", "hist", "lo", "hi", "bins", "sums", "extrema" };
	static const char *const in[] = { "counter", "hist", "bins", "votes", "tally" };

	return add_array(g, elem.kind == TY_INT ? in[rng_below(&g->rng, 5)] : fl[rng_below(&g->rng, 8)], elem, IO_ACC);
}

static Var *
add_scalar(Gen *g, Type t)
{
	static const char *const fl[] = { "scale", "offset", "dt", "alpha", "gain", "bias", "stiffness", "damping", "eps",
					  "radius", "freq" };
	static const char *const in[] = { "n", "steps", "mode", "iters", "shift", "count", "level" };
	Var *v = new_var(g, t.kind == TY_INT ? in[rng_below(&g->rng, 7)] : fl[rng_below(&g->rng, 11)], t, V_SCALAR);

	v->bound = v->base = t.kind == TY_INT ? 8.0 : 1.0;
	add_param(g, v);
	scope_push_var(g, v);
	return v;
}

/* i = wp.tid() / i, j = wp.tid() / i, j, k = wp.tid() */
void
emit_tid(Gen *g, Block *b)
{
	static const char *const nm[3] = { "i", "j", "k" };
	Stmt *s = st_new(g->A, S_UNPACK);
	int d;

	s->e = ex_call(g->A, "wp.tid", tint(), 0, 0);
	s->nvars = g->k->ndim;
	s->vars = aalloc(g->A, sizeof(Var *) * 3);
	for (d = 0; d < g->k->ndim; d++) {
		Var *v = new_var(g, nm[d], tint(), V_TID);

		v->bound = v->base = 2147483647.0;
		v->nonneg = true;
		s->vars[d] = v;
		g->tid[d] = v;
		scope_push_var(g, v);
	}
	block_push(g->A, b, s);
}

Expr *
load_tid(Gen *g, Var *arr)
{
	Expr *idx[3];
	int d;

	for (d = 0; d < arr->ndim; d++)
		idx[d] = use_var(g, g->tid[d]);
	return ex_load(g->A, arr, arr->ndim, idx);
}

static Expr *
quat_lit(Gen *g, const char *text)
{
	Expr *e = ex_new(g->A, E_CALL, tquat(), 0);

	e->s = text;
	e->bound = 2.0;
	e->flags = EF_CONST;
	return e;
}

/* The local that holds an input's element: xi for x, p for pos (by the array's base
 * name, before any numeric suffix fresh_name added). */
const char *
local_name_for(const Var *a)
{
	static const struct { const NamePair *p; int n; } all[] = {
		{ in_float, NPAIRS(in_float) }, { in_int, NPAIRS(in_int) }, { in_vec, NPAIRS(in_vec) },
		{ in_mat, NPAIRS(in_mat) }, { in_quat, NPAIRS(in_quat) }, { in_xf, NPAIRS(in_xf) },
	};
	size_t t;
	int j;

	for (t = 0; t < sizeof all / sizeof all[0]; t++)
		for (j = 0; j < all[t].n; j++) {
			const NamePair *p = &all[t].p[j];
			size_t n = strlen(p->arr);

			if (!strncmp(a->name, p->arr, n) && (a->name[n] == 0 || (a->name[n] >= '0' && a->name[n] <= '9')))
				return p->local;
		}
	return "val";
}

/* Local copies of the inputs: x = a[i]; quaternions and transform rotations are
 * normalised (shifted away from zero first, so the norm is >= 1 before normalising). */
static void
prologue_loads(Gen *g, Block *b, int pct)
{
	Kernel *k = g->k;
	int i;

	for (i = 0; i < k->nparams; i++) {
		Var *a = k->params[i];
		const char *local;

		if (a->role != V_ARRAY || a->io != IO_IN)
			continue;
		local = local_name_for(a);
		if (a->elem.kind == TY_QUAT) {
			Expr *e = load_tid(g, a);

			if (rng_pct(&g->rng, 70))
				e = ex_bin(g->A, OP_ADD, e, quat_lit(g, "wp.quat(0.0, 0.0, 0.0, 2.0)"), tquat(), 3.0);
			def_local(g, b, local, ex_call(g->A, "wp.normalize", tquat(), 1.0, 1, e));
		} else if (a->elem.kind == TY_XFORM) {
			Var *raw = def_local(g, b, aprintf(g->A, "%s_raw", local), load_tid(g, a));
			Expr *p, *q;

			raw->mutable_ = false;
			raw->hidden = true; /* its rotation is not normalised */
			raw->uses_gen += 2;
			p = rng_pct(&g->rng, 50) ? ex_attr(g->A, ex_var(g->A, raw), "p", tvec(3, PREC_F32), 1.0)
						 : ex_call(g->A, "wp.transform_get_translation", tvec(3, PREC_F32), 1.0, 1, ex_var(g->A, raw));
			q = rng_pct(&g->rng, 50) ? ex_attr(g->A, ex_var(g->A, raw), "q", tquat(), 2.0)
						 : ex_call(g->A, "wp.transform_get_rotation", tquat(), 2.0, 1, ex_var(g->A, raw));
			q = ex_bin(g->A, OP_ADD, q, quat_lit(g, "wp.quat(0.0, 0.0, 0.0, 2.0)"), tquat(), 3.0);
			def_local(g, b, local, ex_call(g->A, "wp.transform", txf(), 1.0, 2, p, ex_call(g->A, "wp.normalize", tquat(), 1.0, 1, q)));
		} else if (rng_pct(&g->rng, pct)) {
			Var *v = def_local(g, b, local, load_tid(g, a));

			v->mutable_ = false; /* the input's element: tidy_loads reuses it */
		}
	}
}

static void
mark_reads(const Expr *e)
{
	int i;

	if (e->kind == E_VAR)
		e->var->reads++;
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		mark_reads(e->a[i]);
}

static void
store_outputs(Gen *g, Block *b)
{
	Kernel *k = g->k;
	int i, d;

	recount_reads(b);
	for (i = 0; i < k->nparams; i++) {
		Var *a = k->params[i];
		Stmt *s;

		if (a->role != V_ARRAY || a->io != IO_OUT)
			continue;
		s = st_new(g->A, S_STORE);
		s->var = a;
		s->nidx = a->ndim;
		s->idx = aalloc(g->A, sizeof(Expr *) * 3);
		for (d = 0; d < a->ndim; d++)
			s->idx[d] = use_var(g, g->tid[d]);
		s->e = gx_sized(g, a->elem, g->depth, a->elem.kind == TY_INT ? 1024.0 : 64.0, true);
		/* fold in partial results nothing has used yet (they would be dead code) */
		if (a->elem.kind == TY_FLOAT || a->elem.kind == TY_VEC || a->elem.kind == TY_INT) {
			int j, folded = 0;

			mark_reads(s->e);

			for (j = g->nscope - 1; j >= 0 && folded < 2; j--) {
				Var *v = g->scope[j];
				Expr *t;

				if (v->role != V_LOCAL || v->reads || v->hidden || !ty_eq(v->ty, a->elem) ||
				    (v->literal_init && !v->mutated) || !rng_pct(&g->rng, 75))
					continue;
				t = tame(g, use_var(g, v), a->elem.kind == TY_INT ? 256.0 : 16.0);
				v->reads++;
				s->e = ex_bin(g->A, rng_pct(&g->rng, 70) ? OP_ADD : OP_SUB, s->e, t, a->elem, s->e->bound + t->bound);
				folded++;
			}
		}
		block_push(g->A, b, s);
	}
}

static int
nstmts(Gen *g)
{
	int hi = g->o->stmts, lo = hi / 2;

	if (lo < 2)
		lo = 2;
	if (hi < lo)
		hi = lo;
	return rng_range(&g->rng, lo, hi);
}

/* The common shape: tid, loads, n random statements, output stores. */
static Var *add_output(Gen *g, Type elem);

static void
standard_body(Gen *g, int loadpct)
{
	Block *b = &g->k->body;
	int i, nout = 0;

	for (i = 0; i < g->k->nparams; i++)
		nout += g->k->params[i]->role == V_ARRAY && g->k->params[i]->io != IO_IN;
	if (!nout)
		add_output(g, ty_float(PREC_F32));

	emit_tid(g, b);
	prologue_loads(g, b, loadpct);
	gen_stmts(g, b, nstmts(g));
}

static int
pick_n(Gen *g)
{
	static const int w[3] = { 2, 6, 2 };

	return 2 + rng_weighted(&g->rng, w, 3);
}

/* ----------------------------------------------------------------- helper functions */

/* The base name of a module-level definition (helper, struct): with
 * --unique-names it carries the kernel index, so that a concatenation of
 * modules is one valid module too. */
const char *
global_name(Gen *g, const char *base)
{
	if (!g->o->unique)
		return base;
	return aprintf(g->A, "%s_%06llu", base, (unsigned long long)g->k->index);
}

static const char *const fnames[] = { "blend", "smooth", "falloff", "weight_fn", "clampf", "spring", "wave", "mix",
				      "shade", "decay", "score", "reflect", "warp_pt", "project", "response", "kernel_w",
				      "potential", "limiter" };

/* A @wp.func of 1-3 parameters from the palette (or struct sid >= 0 as first), with
 * nrets results.  Generated in a fresh function scope. */
static Func *
make_func(Gen *g, int nrets, int sid)
{
	Kernel *k = g->k;
	Func *f = aalloc(g->A, sizeof *f);
	Var *saved_scope[MAX_SCOPE];
	const char *saved_names[512];
	int saved_nscope = g->nscope, saved_nnames = g->nnames, i, np;
	unsigned saved_feat = g->feat;
	Var *saved_tid[3], *saved_rs = g->rstate;
	int saved_nf = g->nfields_of;
	Var *saved_fo[4];
	Stmt *ret;

	if (k->nfuncs >= MAX_FUNCS)
		return NULL;
	f->name = fresh_name(g, global_name(g, fnames[rng_below(&g->rng, NPAIRS(fnames))]));
	memcpy(saved_scope, g->scope, sizeof(Var *) * (size_t)g->nscope);
	memcpy(saved_names, g->names, sizeof(const char *) * (size_t)g->nnames);
	memcpy(saved_tid, g->tid, sizeof saved_tid);
	memcpy(saved_fo, g->fields_of, sizeof saved_fo);
	g->nscope = 0;
	g->nnames = 0;
	g->nfields_of = 0;
	memset(g->tid, 0, sizeof g->tid);
	g->rstate = NULL;
	g->feat &= ~(unsigned)(F_ATOMIC | F_GATHER | F_RAND | F_LOOP | F_WHILE | F_NEST);
	if (rng_pct(&g->rng, 30))
		g->feat |= F_LOOP;

	k->funcs[k->nfuncs++] = f;
	g->fn = f;
	np = rng_range(&g->rng, 1, 3);
	if (sid >= 0) {
		Type st = ty_make(TY_STRUCT, 0, 0);
		Var *p;

		st.sid = (signed char)sid;
		p = new_var(g, rng_pct(&g->rng, 50) ? "s" : "b", st, V_SCALAR);
		f->params[f->nparams++] = p;
		scope_push_var(g, p);
		g->fields_of[g->nfields_of++] = p;
		np = rng_range(&g->rng, 0, 1);
	}
	for (i = 0; i < np; i++) {
		static const char *const pn[] = { "x", "y", "a", "b", "t", "s", "v", "w", "k", "h", "r" };
		Type t = pal_pick(g);
		Var *p;

		if (t.kind == TY_XFORM && rng_pct(&g->rng, 50))
			t = tf32();
		p = new_var(g, pn[rng_below(&g->rng, NPAIRS(pn))], t, V_SCALAR);
		p->bound = p->base = t.kind == TY_INT ? 8.0 : (t.kind == TY_QUAT ? 1.0 : 2.0);
		f->params[f->nparams++] = p;
		scope_push_var(g, p);
	}
	gen_stmts(g, &f->body, rng_range(&g->rng, 1, 3));
	ret = st_new(g->A, S_RETURN);
	ret->nidx = nrets;
	ret->idx = aalloc(g->A, sizeof(Expr *) * (size_t)nrets);
	f->nrets = nrets;
	for (i = 0; i < nrets; i++) {
		Type t = pal_pick(g);

		if (t.kind == TY_BOOL)
			t = tf32();
		ret->idx[i] = gx(g, t, g->depth, 16.0);
		f->rets[i] = t;
		f->retbound[i] = ret->idx[i]->bound;
	}
	func_retdirs(g, f, ret->idx);
	block_push(g->A, &f->body, ret);
	finish_func(g, &f->body);

	g->fn = NULL;
	g->feat = saved_feat;
	memcpy(g->scope, saved_scope, sizeof(Var *) * (size_t)saved_nscope);
	g->nscope = saved_nscope;
	memcpy(g->names, saved_names, sizeof(const char *) * (size_t)saved_nnames);
	g->nnames = saved_nnames;
	memcpy(g->tid, saved_tid, sizeof saved_tid);
	memcpy(g->fields_of, saved_fo, sizeof saved_fo);
	g->nfields_of = saved_nf;
	g->rstate = saved_rs;
	return f;
}

/* ----------------------------------------------------------------- calls and pruning */

static bool
expr_calls(const Expr *e, const char *name)
{
	int i;

	if (!e)
		return false;
	if (e->kind == E_CALL && e->s == name)
		return true;
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		if (expr_calls(e->a[i], name))
			return true;
	return false;
}

static bool
block_calls(const Block *b, const char *name)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if (expr_calls(s->e, name))
			return true;
		for (j = 0; j < s->nidx; j++)
			if (expr_calls(s->idx[j], name))
				return true;
		if (block_calls(&s->body, name) || block_calls(&s->orelse, name))
			return true;
	}
	return false;
}

/* Drop helper functions nothing calls any more (after dead-code removal). */
static void
prune_funcs(Kernel *k)
{
	int i, j, n;
	bool keep[MAX_FUNCS];

	for (i = k->nfuncs - 1; i >= 0; i--) {
		keep[i] = block_calls(&k->body, k->funcs[i]->name);
		for (j = i + 1; j < k->nfuncs && !keep[i]; j++)
			keep[i] = keep[j] && block_calls(&k->funcs[j]->body, k->funcs[i]->name);
	}
	for (i = n = 0; i < k->nfuncs; i++)
		if (keep[i])
			k->funcs[n++] = k->funcs[i];
	k->nfuncs = n;
}

static bool
type_used_block(const Block *b, int sid);

static bool
type_used_expr(const Expr *e, int sid)
{
	int i;

	if (!e)
		return false;
	if (e->ty.kind == TY_STRUCT && e->ty.sid == sid)
		return true;
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		if (type_used_expr(e->a[i], sid))
			return true;
	return false;
}

static bool
type_used_block(const Block *b, int sid)
{
	int i;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		if (type_used_expr(s->e, sid) || (s->var && s->var->ty.kind == TY_STRUCT && s->var->ty.sid == sid))
			return true;
		if (type_used_block(&s->body, sid) || type_used_block(&s->orelse, sid))
			return true;
	}
	return false;
}

/* ----------------------------------------------------------------- structs */

/* A struct of 2-4 fields: scalars and vectors (ints too when asked). */
static int
make_struct(Gen *g, bool param, bool ints)
{
	static const char *const sn[] = { "Particle", "Body", "Sample", "Material", "State", "Probe", "Cell" };
	static const char *const pn[] = { "SimParams", "Config", "Uniforms", "Settings", "Coeffs" };
	static const char *const ff[] = { "mass", "radius", "charge", "energy", "temp", "weight", "stiffness", "damping",
					  "scale" };
	static const char *const fv[] = { "pos", "vel", "force", "normal", "color", "axis", "offset" };
	static const char *const fi[] = { "tag", "count", "kind", "level" };
	Kernel *k = g->k;
	StructDef *sd;
	int sid = k->nstructs, n, i, j;

	if (sid >= MAX_STRUCTS)
		die("too many structs");
	sd = &k->structs[k->nstructs++];
	sd->name = fresh_name(g, global_name(g, param ? pn[rng_below(&g->rng, 5)] : sn[rng_below(&g->rng, 7)]));
	sd->param = param;
	n = rng_range(&g->rng, 2, 4);
	for (i = 0; i < n; i++) {
		const char *nm;
		Type t;
		int kind = rng_below(&g->rng, ints ? 10 : 8);

		if (kind < 4) {
			t = tf32();
			nm = ff[rng_below(&g->rng, 9)];
		} else if (kind < 8) {
			t = tvec(rng_pct(&g->rng, 80) ? 3 : 2, PREC_F32);
			nm = fv[rng_below(&g->rng, 7)];
		} else {
			t = tint();
			nm = fi[rng_below(&g->rng, 4)];
		}
		for (j = 0; j < sd->nfields && nm; j++)
			if (!strcmp(sd->fname[j], nm))
				nm = NULL;
		if (!nm)
			continue;
		sd->fname[sd->nfields] = nm;
		sd->fty[sd->nfields] = t;
		/* parameters: runner ranges; locals: what the kernel stores (<= 2, ints <= 8) */
		sd->fbound[sd->nfields] = t.kind == TY_INT ? 8.0 : (param ? 1.0 : 2.0);
		sd->nfields++;
	}
	if (sd->nfields == 0) {
		sd->fname[0] = "mass";
		sd->fty[0] = tf32();
		sd->fbound[0] = param ? 1.0 : 2.0;
		sd->nfields = 1;
	}
	return sid;
}

static Type
struct_type(int sid)
{
	Type t = ty_make(TY_STRUCT, 0, 0);

	t.sid = (signed char)sid;
	return t;
}

/* b = Particle(); b.pos = ...; b.mass = ... */
static Var *
build_struct_local(Gen *g, Block *b, int sid)
{
	StructDef *sd = &g->k->structs[sid];
	Type st = struct_type(sid);
	Expr *ctor = ex_new(g->A, E_CALL, st, 0);
	Var *v;
	int f;

	ctor->s = aprintf(g->A, "%s()", sd->name);
	v = def_local(g, b, rng_pct(&g->rng, 50) ? "s" : "b", ctor);
	v->mutable_ = false;
	/* not passed to a helper before its fields are set: Warp's backward would see the
	 * fields' final values in that call (struct fields are assigned in place) */
	v->hidden = true;
	for (f = 0; f < sd->nfields; f++) {
		Stmt *s = st_new(g->A, S_SETATTR);

		s->var = v;
		s->s = sd->fname[f];
		s->e = gx(g, sd->fty[f], g->depth, sd->fbound[f]);
		v->fdef[f] = s->e;
		block_push(g->A, b, s);
	}
	v->hidden = false;
	if (g->nfields_of < 4)
		g->fields_of[g->nfields_of++] = v;
	return v;
}

/* ----------------------------------------------------------------- categories */

/* Features are drawn one statement at a time (g->feat |= ...): C leaves the order of
 * operands of | unspecified, and output must not depend on the compiler. */

/* An output of one of three types, drawn uniformly (one draw, then add_output's). */
static void
add_output_of3(Gen *g, Type a, Type b, Type c)
{
	const Type t[3] = { a, b, c };

	add_output(g, t[rng_below(&g->rng, 3)]);
}

static void
cat_arithmetic(Gen *g)
{
	int n, i;

	set_launch(g, rng_pct(&g->rng, 80) ? 1 : 2);
	g->feat = F_INT;
	g->feat |= rng_pct(&g->rng, 40) ? F_BITS : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_CMP : 0;
	pal_add(g, tf32(), 6);
	n = rng_range(&g->rng, 1, 3);
	for (i = 0; i < n; i++)
		add_input(g, tf32());
	if (rng_pct(&g->rng, 50)) {
		add_input(g, tint());
		pal_add(g, tint(), 3);
	}
	add_output(g, tf32());
	if (rng_pct(&g->rng, 20))
		add_output(g, tint());
	standard_body(g, 85);
	store_outputs(g, &g->k->body);
}

static void
cat_math(Gen *g)
{
	int n, i;

	set_launch(g, rng_pct(&g->rng, 85) ? 1 : 2);
	g->feat = F_MATH;
	g->feat |= rng_pct(&g->rng, 30) ? F_CMP : 0;
	pal_add(g, tf32(), 6);
	n = rng_range(&g->rng, 1, 3);
	for (i = 0; i < n; i++)
		add_input(g, tf32());
	add_output(g, tf32());
	if (rng_pct(&g->rng, 20))
		add_output(g, tf32());
	standard_body(g, 85);
	store_outputs(g, &g->k->body);
}

static void
cat_vector(Gen *g)
{
	int n = pick_n(g), i, ni;
	Type vt = tvec(n, PREC_F32);

	set_launch(g, rng_pct(&g->rng, 85) ? 1 : 2);
	g->feat = F_VEC;
	g->feat |= rng_pct(&g->rng, 40) ? F_MATH : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_CMP : 0;
	pal_add(g, vt, 6);
	pal_add(g, tf32(), 3);
	if (rng_pct(&g->rng, 20))
		pal_add(g, tvec(n == 3 ? 2 : 3, PREC_F32), 2);
	ni = rng_range(&g->rng, 1, 3);
	for (i = 0; i < ni; i++)
		add_input(g, vt);
	if (rng_pct(&g->rng, 50))
		add_input(g, tf32());
	if (rng_pct(&g->rng, 60))
		add_output(g, vt);
	if (rng_pct(&g->rng, 60) || g->k->nparams == ni)
		add_output(g, tf32());
	standard_body(g, 90);
	store_outputs(g, &g->k->body);
}

static void
cat_matrix(Gen *g)
{
	int n = pick_n(g);
	Type mt = tmat(n), vt = tvec(n, PREC_F32);

	set_launch(g, 1);
	g->feat = F_MAT | F_VEC;
	g->feat |= rng_pct(&g->rng, 25) ? F_MATH : 0;
	pal_add(g, mt, 5);
	pal_add(g, vt, 3);
	pal_add(g, tf32(), 2);
	if (rng_pct(&g->rng, 70))
		add_input(g, mt);
	if (rng_pct(&g->rng, 70))
		add_input(g, vt);
	if (rng_pct(&g->rng, 30) || g->k->nparams == 0)
		add_input(g, tf32());
	add_output_of3(g, mt, vt, tf32());
	if (rng_pct(&g->rng, 25))
		add_output(g, tf32());
	standard_body(g, 90);
	store_outputs(g, &g->k->body);
}

static void
cat_quaternion(Gen *g)
{
	Type v3 = tvec(3, PREC_F32);

	set_launch(g, 1);
	g->feat = F_QUAT | F_VEC;
	g->feat |= rng_pct(&g->rng, 50) ? F_MATH : 0;
	g->feat |= rng_pct(&g->rng, 20) ? F_MAT : 0;
	pal_add(g, tquat(), 5);
	pal_add(g, v3, 4);
	pal_add(g, tf32(), 2);
	if (rng_pct(&g->rng, 65))
		add_input(g, tquat());
	if (rng_pct(&g->rng, 70))
		add_input(g, v3);
	if (rng_pct(&g->rng, 35) || g->k->nparams == 0)
		add_input(g, tf32());
	add_output_of3(g, tquat(), v3, tf32());
	if (rng_pct(&g->rng, 30))
		add_output(g, v3);
	standard_body(g, 90);
	store_outputs(g, &g->k->body);
}

static void
cat_transform(Gen *g)
{
	Type v3 = tvec(3, PREC_F32);

	set_launch(g, 1);
	g->feat = F_XFORM | F_QUAT | F_VEC;
	g->feat |= rng_pct(&g->rng, 30) ? F_MATH : 0;
	pal_add(g, txf(), 5);
	pal_add(g, v3, 4);
	pal_add(g, tquat(), 1);
	pal_add(g, tf32(), 1);
	if (rng_pct(&g->rng, 65))
		add_input(g, txf());
	if (rng_pct(&g->rng, 75))
		add_input(g, v3);
	if (rng_pct(&g->rng, 30))
		add_input(g, tquat());
	if (g->k->nparams == 0)
		add_input(g, tf32());
	add_output_of3(g, txf(), v3, tf32());
	if (rng_pct(&g->rng, 30))
		add_output(g, v3);
	standard_body(g, 90);
	store_outputs(g, &g->k->body);
}

static void
cat_control_flow(Gen *g)
{
	int n = rng_range(&g->rng, 1, 3), i;

	set_launch(g, rng_pct(&g->rng, 80) ? 1 : 2);
	g->feat = F_IF | F_CMP | F_INT;
	g->feat |= rng_pct(&g->rng, 30) ? F_MATH : 0;
	pal_add(g, tf32(), 6);
	pal_add(g, tint(), 2);
	pal_add(g, ty_bool(), 1);
	for (i = 0; i < n; i++)
		add_input(g, tf32());
	if (rng_pct(&g->rng, 60))
		add_input(g, tint());
	add_output(g, tf32());
	if (rng_pct(&g->rng, 20))
		add_output(g, tint());
	standard_body(g, 90);
	gen_if(g, &g->k->body);
	store_outputs(g, &g->k->body);
}

static void
cat_loop(Gen *g)
{
	int n = rng_range(&g->rng, 1, 2), i;

	set_launch(g, 1);
	g->feat = F_LOOP | F_INT;
	g->feat |= rng_pct(&g->rng, 50) ? F_WHILE : 0;
	g->feat |= rng_pct(&g->rng, 50) ? F_BREAK | F_IF | F_CMP : 0;
	g->feat |= rng_pct(&g->rng, 35) ? F_MATH : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_GATHER : 0;
	pal_add(g, tf32(), 6);
	pal_add(g, tint(), 2);
	if (rng_pct(&g->rng, 25))
		pal_add(g, tvec(3, PREC_F32), 2), g->feat |= F_VEC;
	for (i = 0; i < n; i++)
		add_input(g, tf32());
	if (rng_pct(&g->rng, 70))
		add_input(g, tint());
	add_output(g, tf32());
	standard_body(g, 90);
	if (g->loops_made == 0 || rng_pct(&g->rng, 40)) {
		if ((g->feat & F_WHILE) && rng_pct(&g->rng, 40))
			gen_while(g, &g->k->body);
		else
			gen_for(g, &g->k->body);
	}
	store_outputs(g, &g->k->body);
}

static void
cat_nested_loop(Gen *g)
{
	int n = rng_range(&g->rng, 1, 2), i;

	set_launch(g, rng_pct(&g->rng, 80) ? 1 : 2);
	g->feat = F_LOOP | F_NEST | F_INT;
	g->feat |= rng_pct(&g->rng, 40) ? F_WHILE : 0;
	g->feat |= rng_pct(&g->rng, 35) ? F_BREAK | F_IF | F_CMP : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_MATH : 0;
	g->feat |= rng_pct(&g->rng, 35) ? F_GATHER : 0;
	pal_add(g, tf32(), 6);
	pal_add(g, tint(), 2);
	for (i = 0; i < n; i++)
		add_input(g, tf32());
	if (rng_pct(&g->rng, 60))
		add_input(g, tint());
	add_output(g, tf32());
	emit_tid(g, &g->k->body);
	prologue_loads(g, &g->k->body, 90);
	gen_stmts(g, &g->k->body, nstmts(g) / 2);
	g->force_nest = true;
	gen_for(g, &g->k->body);
	gen_stmts(g, &g->k->body, rng_range(&g->rng, 0, 2));
	store_outputs(g, &g->k->body);
}

static void
cat_multi_conditional(Gen *g)
{
	int n = rng_range(&g->rng, 1, 3), i, nif;

	set_launch(g, rng_pct(&g->rng, 85) ? 1 : 2);
	g->feat = F_IF | F_MANYIF | F_CMP | F_INT;
	g->feat |= rng_pct(&g->rng, 30) ? F_MATH : 0;
	pal_add(g, tf32(), 6);
	pal_add(g, tint(), 2);
	pal_add(g, ty_bool(), 2);
	for (i = 0; i < n; i++)
		add_input(g, tf32());
	if (rng_pct(&g->rng, 70))
		add_input(g, tint());
	add_output(g, tf32());
	emit_tid(g, &g->k->body);
	prologue_loads(g, &g->k->body, 90);
	gen_stmts(g, &g->k->body, nstmts(g) / 2);
	nif = rng_range(&g->rng, 1, 2);
	for (i = 0; i < nif; i++)
		gen_if(g, &g->k->body);
	store_outputs(g, &g->k->body);
}

static void
cat_atomic(Gen *g)
{
	int n = rng_range(&g->rng, 1, 2), i, na;

	set_launch(g, rng_pct(&g->rng, 80) ? 1 : 2);
	g->feat = F_ATOMIC | F_INT;
	g->feat |= rng_pct(&g->rng, 40) ? F_IF | F_CMP : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_LOOP : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_MATH : 0;
	pal_add(g, tf32(), 6);
	pal_add(g, tint(), 2);
	for (i = 0; i < n; i++)
		add_input(g, tf32());
	if (rng_pct(&g->rng, 60))
		add_input(g, tint());
	na = rng_range(&g->rng, 1, 2);
	for (i = 0; i < na; i++)
		add_acc(g, rng_pct(&g->rng, 70) ? tf32() : tint());
	if (rng_pct(&g->rng, 30))
		add_output(g, tf32());
	standard_body(g, 90);
	/* at least one top-level atomic per accumulator */
	for (i = 0; i < na; i++)
		gen_atomic(g, &g->k->body);
	store_outputs(g, &g->k->body);
}

static void
cat_scalar_param(Gen *g)
{
	int np = rng_range(&g->rng, 1, 3), i;

	set_launch(g, rng_pct(&g->rng, 85) ? 1 : 2);
	g->feat = F_CMP | F_INT;
	g->feat |= rng_pct(&g->rng, 50) ? F_IF : 0;
	g->feat |= rng_pct(&g->rng, 40) ? F_LOOP : 0;
	g->feat |= rng_pct(&g->rng, 40) ? F_MATH : 0;
	pal_add(g, tf32(), 6);
	pal_add(g, tint(), 1);
	for (i = 0; i < np; i++) {
		int r = rng_below(&g->rng, 10);

		if (r < 6) {
			add_scalar(g, tf32());
		} else if (r < 9) {
			add_scalar(g, tint());
		} else {
			add_scalar(g, tf64());
			pal_add(g, tf64(), 2);
			g->feat |= F_F64;
		}
	}
	np = rng_range(&g->rng, 1, 2);
	for (i = 0; i < np; i++)
		add_input(g, tf32());
	if (rng_pct(&g->rng, 30))
		add_input(g, tint());
	add_output(g, tf32());
	standard_body(g, 90);
	store_outputs(g, &g->k->body);
}

static void
cat_random(Gen *g)
{
	Block *b = &g->k->body;
	Var *seed = NULL, *st;
	Expr *init;
	int n = rng_range(&g->rng, 1, 2), i;

	set_launch(g, 1);
	g->feat = F_RAND;
	g->feat |= rng_pct(&g->rng, 40) ? F_LOOP : 0;
	g->feat |= rng_pct(&g->rng, 35) ? F_IF | F_CMP : 0;
	g->feat |= rng_pct(&g->rng, 35) ? F_MATH : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_GATHER : 0;
	g->feat |= rng_pct(&g->rng, 20) ? F_INT : 0;
	pal_add(g, tf32(), 6);
	if (rng_pct(&g->rng, 30))
		pal_add(g, tvec(3, PREC_F32), 2), g->feat |= F_VEC;
	if (g->feat & F_INT)
		pal_add(g, tint(), 1);
	if (rng_pct(&g->rng, 65)) {
		seed = new_var(g, rng_pct(&g->rng, 50) ? "seed" : "rng_seed", tint(), V_SCALAR);
		seed->bound = seed->base = 8.0;
		add_param(g, seed);
	}
	for (i = 0; i < n; i++)
		add_input(g, tf32());
	add_output(g, tf32());
	if (rng_pct(&g->rng, 20))
		add_output(g, tf32());
	emit_tid(g, b);
	{
		Expr *sd = seed ? use_var(g, seed) : ex_lit_int(g->A, rng_range(&g->rng, 1, 9999));

		if (rng_pct(&g->rng, 80))
			init = ex_call(g->A, "wp.rand_init", ty_make(TY_UINT, 0, 1), 0, 2, sd, use_var(g, g->tid[0]));
		else
			init = ex_call(g->A, "wp.rand_init", ty_make(TY_UINT, 0, 1), 0, 1,
				       ex_bin(g->A, OP_ADD, ex_bin(g->A, OP_MUL, sd, ex_lit_int(g->A, 1000), tint(), 8000), use_var(g, g->tid[0]),
					      tint(), 2147483647.0));
	}
	st = def_local(g, b, rng_pct(&g->rng, 50) ? "state" : "rstate", init);
	st->mutable_ = false;
	g->rstate = st;
	prologue_loads(g, b, 85);
	gen_stmts(g, b, nstmts(g));
	store_outputs(g, b);
}

static void
cat_struct(Gen *g)
{
	Block *b = &g->k->body;
	int variant = rng_below(&g->rng, 100), sid_l = -1;
	Var *pv = NULL;

	set_launch(g, 1);
	g->feat = F_STRUCT | F_VEC;
	g->feat |= rng_pct(&g->rng, 40) ? F_MATH : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_CMP : 0;
	pal_add(g, tf32(), 5);
	pal_add(g, tvec(3, PREC_F32), 3);
	if (variant >= 60) {
		int sid = make_struct(g, true, true);

		pv = new_var(g, rng_pct(&g->rng, 50) ? "params" : "cfg", struct_type(sid), V_SCALAR);
		add_param(g, pv);
		scope_push_var(g, pv);
		g->fields_of[g->nfields_of++] = pv;
		if (rng_pct(&g->rng, 50))
			pal_add(g, tint(), 1), g->feat |= F_INT;
	}
	if (variant < 60 || variant >= 85) {
		sid_l = make_struct(g, false, rng_pct(&g->rng, 30));
		if (rng_pct(&g->rng, 60)) {
			g->feat |= F_FUNC;
			make_func(g, 1, sid_l);
		}
	}
	add_input(g, tvec(3, PREC_F32));
	if (rng_pct(&g->rng, 60))
		add_input(g, tf32());
	if (rng_pct(&g->rng, 30))
		add_input(g, tvec(3, PREC_F32));
	add_output(g, rng_pct(&g->rng, 60) ? tf32() : tvec(3, PREC_F32));
	emit_tid(g, b);
	prologue_loads(g, b, 90);
	if (sid_l >= 0)
		build_struct_local(g, b, sid_l);
	gen_stmts(g, b, nstmts(g));
	store_outputs(g, b);
}

static void
cat_func(Gen *g)
{
	int nf = rng_range(&g->rng, 1, 3), i, n;

	set_launch(g, rng_pct(&g->rng, 85) ? 1 : 2);
	g->feat = F_FUNC;
	g->feat |= rng_pct(&g->rng, 50) ? F_MATH : 0;
	g->feat |= rng_pct(&g->rng, 40) ? F_CMP | F_IF : 0;
	pal_add(g, tf32(), 6);
	if (rng_pct(&g->rng, 50))
		pal_add(g, tvec(3, PREC_F32), 3), g->feat |= F_VEC;
	if (rng_pct(&g->rng, 20))
		pal_add(g, tint(), 1), g->feat |= F_INT;
	for (i = 0; i < nf; i++)
		make_func(g, rng_pct(&g->rng, 70) ? 1 : rng_range(&g->rng, 2, 3), -1);
	n = rng_range(&g->rng, 1, 2);
	for (i = 0; i < n; i++)
		add_input(g, tf32());
	if (rng_pct(&g->rng, 50))
		add_input(g, tvec(3, PREC_F32));
	add_output(g, tf32());
	if (rng_pct(&g->rng, 25))
		add_output(g, tvec(3, PREC_F32));
	standard_body(g, 90);
	store_outputs(g, &g->k->body);
}

/* Neighbour index along dimension d shifted by off, clamped into the array. */
static Expr *
clamped(Gen *g, Var *arr, int d, int off)
{
	Arena *A = g->A;
	Type it = tint();
	Expr *t = use_var(g, g->tid[d]);

	if (off < 0)
		return ex_call(A, "wp.max", it, 2147483647.0, 2, ex_bin(A, OP_SUB, t, ex_lit_int(A, -off), it, 2147483647.0),
			       ex_lit_int(A, 0));
	return ex_call(A, "wp.min", it, 2147483647.0, 2, ex_bin(A, OP_ADD, t, ex_lit_int(A, off), it, 2147483647.0),
		       ex_bin(A, OP_SUB, ex_shape(A, arr, d), ex_lit_int(A, 1), it, 2147483647.0));
}

static Expr *
load_shift(Gen *g, Var *arr, int d, Expr *id)
{
	Expr *idx[3];
	int e;

	for (e = 0; e < arr->ndim; e++)
		idx[e] = e == d ? id : use_var(g, g->tid[e]);
	return ex_load(g->A, arr, arr->ndim, idx);
}

static void
stencil_form(Gen *g, Block *b, Var *arr)
{
	Arena *A = g->A;
	Type ft = arr->elem;
	int nd = arr->ndim, d;

	switch (rng_below(&g->rng, 3)) {
	case 0: { /* clamped Laplacian */
		Expr *sum = NULL;
		double bd = 0;

		for (d = 0; d < nd; d++) {
			Expr *l = load_shift(g, arr, d, clamped(g, arr, d, -1));
			Expr *r = load_shift(g, arr, d, clamped(g, arr, d, 1));
			Expr *pair = ex_bin(A, OP_ADD, l, r, ft, 2);

			sum = sum ? ex_bin(A, OP_ADD, sum, pair, ft, bd + 2) : pair;
			bd += 2;
		}
		sum = ex_bin(A, OP_SUB, sum,
			     ex_bin(A, OP_MUL, ex_lit_float(A, ft.prec, 2.0 * nd), load_shift(g, arr, 0, use_var(g, g->tid[0])), ft, 2.0 * nd),
			     ft, bd + 2.0 * nd);
		def_local(g, b, rng_pct(&g->rng, 50) ? "lap" : "laplace", sum);
		break;
	}
	case 1: { /* guarded neighbour sum */
		Var *nb = def_local(g, b, rng_pct(&g->rng, 50) ? "nb" : "neigh", ex_lit_float(A, ft.prec, 0.0));
		int adds = 0;

		for (d = 0; d < nd; d++) {
			Stmt *s;
			Expr *t = use_var(g, g->tid[d]);

			if (rng_pct(&g->rng, 80)) {
				s = st_new(A, S_IF);
				s->e = ex_cmp(A, OP_GT, t, ex_lit_int(A, 0));
				{
					Stmt *a = st_new(A, S_AUG);

					a->var = nb;
					a->op = OP_ADD;
					a->e = load_shift(g, arr, d, ex_bin(A, OP_SUB, use_var(g, g->tid[d]), ex_lit_int(A, 1), tint(), 2147483647.0));
					block_push(A, &s->body, a);
					var_assigned(g, nb, a->e);
				}
				block_push(A, b, s);
				adds++;
			}
			if (rng_pct(&g->rng, 80) || adds == 0) {
				Expr *ip = ex_bin(A, OP_ADD, use_var(g, g->tid[d]), ex_lit_int(A, 1), tint(), 2147483647.0);
				Stmt *a = st_new(A, S_AUG);

				s = st_new(A, S_IF);
				s->e = ex_cmp(A, OP_LT, ip, ex_shape(A, arr, d));
				a->var = nb;
				a->op = OP_ADD;
				a->e = load_shift(g, arr, d, ex_bin(A, OP_ADD, use_var(g, g->tid[d]), ex_lit_int(A, 1), tint(), 2147483647.0));
				block_push(A, &s->body, a);
				block_push(A, b, s);
				var_assigned(g, nb, a->e);
				adds++;
			}
		}
		nb->used = adds;
		nb->bound = nb->base + nb->used;
		break;
	}
	default: { /* window loop along one dimension: for di in range(-r, r + 1) */
		Var *acc = def_local(g, b, rng_pct(&g->rng, 50) ? "win" : "box", ex_lit_float(A, ft.prec, 0.0));
		Stmt *s = st_new(A, S_FOR);
		Var *di;
		int r = rng_range(&g->rng, 1, 2), mark = g->nscope;
		Expr *w, *idx;
		Stmt *a;

		d = rng_below(&g->rng, nd);
		s->idx = aalloc(A, sizeof(Expr *) * 3);
		s->idx[0] = ex_lit_int(A, -r);
		s->idx[1] = ex_lit_int(A, r + 1);
		s->nidx = 2;
		s->trips = 2 * r + 1;
		di = new_var(g, nd == 1 ? "di" : (d == 0 ? "di" : (d == 1 ? "dj" : "dk")), tint(), V_LOOP);
		di->bound = di->base = r;
		s->var = di;
		block_push(A, b, s);
		scope_push_var(g, di);
		idx = ex_call(A, "wp.clamp", tint(), 2147483647.0, 3,
			      ex_bin(A, OP_ADD, use_var(g, g->tid[d]), use_var(g, di), tint(), 2147483647.0), ex_lit_int(A, 0),
			      ex_bin(A, OP_SUB, ex_shape(A, arr, d), ex_lit_int(A, 1), tint(), 2147483647.0));
		if (rng_pct(&g->rng, 50)) {
			Var *ii = new_var(g, nd == 1 ? "ii" : (d == 0 ? "ii" : (d == 1 ? "jj" : "kk")), tint(), V_LOCAL);
			Stmt *def = st_new(A, S_ASSIGN);

			ii->bound = ii->base = 2147483647.0;
			ii->nonneg = true;
			def->is_def = true;
			def->var = ii;
			def->e = idx;
			block_push(A, &s->body, def);
			scope_push_var(g, ii);
			idx = use_var(g, ii);
		}
		w = rng_pct(&g->rng, 50) ? ex_lit_float(A, ft.prec, nice_value(g, 1.0)) : NULL;
		a = st_new(A, S_AUG);
		a->var = acc;
		a->op = OP_ADD;
		a->e = load_shift(g, arr, d, idx);
		if (w)
			a->e = ex_bin(A, OP_MUL, a->e, w, ft, w->bound);
		block_push(A, &s->body, a);
		var_assigned(g, acc, a->e);
		acc->used = (2 * r + 1) * a->e->bound;
		acc->bound = acc->base + acc->used;
		g->nscope = mark;
		break;
	}
	}
}

static void
cat_stencil(Gen *g)
{
	Block *b = &g->k->body;
	int r = rng_below(&g->rng, 100), i, nf, nsrc;
	Var *src[3];

	set_launch(g, r < 55 ? 2 : (r < 80 ? 3 : 1));
	g->feat = F_GATHER;
	g->feat |= rng_pct(&g->rng, 40) ? F_LOOP : 0;
	g->feat |= rng_pct(&g->rng, 35) ? F_MATH : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_IF | F_CMP : 0;
	pal_add(g, tf32(), 6);
	nsrc = rng_range(&g->rng, 1, 2);
	for (i = 0; i < nsrc; i++)
		src[i] = add_input(g, tf32());
	if (rng_pct(&g->rng, 15)) {
		add_input(g, tvec(3, PREC_F32));
		pal_add(g, tvec(3, PREC_F32), 2);
		g->feat |= F_VEC;
	}
	add_output(g, tf32());
	emit_tid(g, b);
	prologue_loads(g, b, 70);
	nf = rng_range(&g->rng, 1, 2);
	for (i = 0; i < nf; i++)
		stencil_form(g, b, src[rng_below(&g->rng, nsrc)]);
	gen_stmts(g, b, nstmts(g) / 2 + 1);
	store_outputs(g, b);
}

static void
cat_float64(Gen *g)
{
	int n = rng_range(&g->rng, 1, 2), i;

	set_launch(g, rng_pct(&g->rng, 85) ? 1 : 2);
	g->feat = F_F64;
	g->feat |= rng_pct(&g->rng, 60) ? F_MATH : 0;
	g->feat |= rng_pct(&g->rng, 30) ? F_CMP : 0;
	g->feat |= rng_pct(&g->rng, 25) ? F_LOOP : 0;
	pal_add(g, tf64(), 6);
	for (i = 0; i < n; i++)
		add_input(g, tf64());
	if (rng_pct(&g->rng, 35)) {
		add_input(g, tvec(3, PREC_F64));
		pal_add(g, tvec(3, PREC_F64), 3);
		g->feat |= F_VEC;
	}
	if (rng_pct(&g->rng, 35)) {
		add_input(g, tf32());
		pal_add(g, tf32(), 1);
	}
	if (rng_pct(&g->rng, 15))
		add_scalar(g, tf64());
	add_output(g, tf64());
	if (rng_pct(&g->rng, 20))
		add_output(g, rng_pct(&g->rng, 50) ? tvec(3, PREC_F64) : tf32());
	standard_body(g, 90);
	store_outputs(g, &g->k->body);
}

static void
cat_combined(Gen *g)
{
	Block *b = &g->k->body;
	unsigned f = F_INT;
	int i, n;

	set_launch(g, rng_pct(&g->rng, 80) ? 1 : 2);
	pal_add(g, tf32(), 6);
	f |= rng_pct(&g->rng, 60) ? F_MATH : 0;
	f |= rng_pct(&g->rng, 60) ? F_CMP : 0;
	f |= rng_pct(&g->rng, 50) ? F_IF : 0;
	f |= rng_pct(&g->rng, 50) ? F_LOOP : 0;
	f |= rng_pct(&g->rng, 20) ? F_WHILE : 0;
	f |= rng_pct(&g->rng, 20) ? F_NEST : 0;
	f |= rng_pct(&g->rng, 20) ? F_BREAK : 0;
	f |= rng_pct(&g->rng, 25) ? F_GATHER : 0;
	f |= rng_pct(&g->rng, 15) ? F_BITS : 0;
	g->feat = f;
	if (rng_pct(&g->rng, 50))
		pal_add(g, tvec(3, PREC_F32), 3), g->feat |= F_VEC;
	if (rng_pct(&g->rng, 40))
		pal_add(g, tint(), 2);
	if (rng_pct(&g->rng, 20))
		pal_add(g, tmat(3), 2), g->feat |= F_MAT | F_VEC;
	if (rng_pct(&g->rng, 20))
		pal_add(g, tquat(), 2), g->feat |= F_QUAT | F_VEC;
	if (rng_pct(&g->rng, 15))
		pal_add(g, tf64(), 2), g->feat |= F_F64;
	if (rng_pct(&g->rng, 30)) {
		g->feat |= F_FUNC;
		n = rng_range(&g->rng, 1, 2);
		for (i = 0; i < n; i++)
			make_func(g, rng_pct(&g->rng, 75) ? 1 : 2, -1);
	}
	for (i = 0; i < g->pal.n; i++) {
		Type t = g->pal.t[i];

		if (t.kind != TY_BOOL && rng_pct(&g->rng, t.kind == TY_FLOAT && t.prec == PREC_F32 ? 100 : 60))
			add_input(g, t);
	}
	if (rng_pct(&g->rng, 25)) {
		g->feat |= F_ATOMIC;
		add_acc(g, rng_pct(&g->rng, 70) ? tf32() : tint());
	}
	add_output(g, tf32());
	if (rng_pct(&g->rng, 30))
		add_output(g, pal_pick(g));
	emit_tid(g, b);
	if (g->k->ndim == 1 && rng_pct(&g->rng, 15)) {
		Expr *init = ex_call(g->A, "wp.rand_init", ty_make(TY_UINT, 0, 1), 0, 2, ex_lit_int(g->A, rng_range(&g->rng, 1, 999)),
				     use_var(g, g->tid[0]));
		Var *st = def_local(g, b, "state", init);

		st->mutable_ = false;
		g->rstate = st;
		g->feat |= F_RAND;
	}
	prologue_loads(g, b, 85);
	gen_stmts(g, b, nstmts(g));
	store_outputs(g, b);
}

/* ----------------------------------------------------------------- table */

const Category categories[] = {
	{ "arithmetic", 6, "+ - * / // % on float32 and int32, guarded division, min/max/abs/clamp", cat_arithmetic },
	{ "math", 6, "transcendental builtins: sin cos tanh exp log sqrt pow atan2 acos ... on safe domains", cat_math },
	{ "vector", 7, "wp.vec2/3/4: construction, dot, cross, length, normalize, components, cw ops", cat_vector },
	{ "matrix", 5, "wp.mat22/33/44: products, transpose, determinant, inverse of diagonally dominant matrices", cat_matrix },
	{ "quaternion", 4, "quat_from_axis_angle, quat_rpy, products, inverse, quat_rotate of unit quaternions", cat_quaternion },
	{ "transform", 4, "wp.transform: transform_point/vector, multiply, inverse, translation and rotation parts", cat_transform },
	{ "control_flow", 6, "if/elif/else, ternaries, where(), and/or/not on float and int conditions", cat_control_flow },
	{ "loop", 6, "for over constant and data-dependent ranges, while with bounded counters, break/continue", cat_loop },
	{ "nested_loop", 4, "loops inside loops, with carried accumulators", cat_nested_loop },
	{ "multi_conditional", 4, "long elif chains, nested branches, compound boolean conditions", cat_multi_conditional },
	{ "atomic", 5, "atomic_add/sub/min/max and a[idx] += v reductions into accumulator arrays (float and int)", cat_atomic },
	{ "scalar_param", 4, "scalar kernel parameters (float, int, float64) mixed into array math", cat_scalar_param },
	{ "random", 4, "wp.rand_init per thread, randf/randi/randn draws, random gathers", cat_random },
	{ "struct", 4, "@wp.struct values built in the kernel or passed as parameters, struct-taking helpers", cat_struct },
	{ "func", 5, "@wp.func helpers returning scalars, vectors or several values", cat_func },
	{ "stencil", 6, "2-D/3-D launches with clamped or guarded neighbour reads, window loops", cat_stencil },
	{ "float64", 4, "wp.float64 arrays and math, float64 literals, float32 <-> float64 conversions", cat_float64 },
	{ "combined", 8, "random mixes of the features above", cat_combined },
	/* recipes (recipe.c): purposeful kernels in the style of Warp's examples */
	{ "particle_step", 5, "recipe: semi-implicit Euler step of particles, gravity, drag, ground collision", rec_particles },
	{ "mass_spring", 4, "recipe: Hooke spring forces to partner particles, scattered with atomics", rec_springs },
	{ "diffusion", 4, "recipe: explicit diffusion step on a 2-D grid, clamped neighbours, gradient", rec_heat },
	{ "binning", 4, "recipe: binning with floor/int/clamp, atomic counts, sum and peak", rec_histogram },
	{ "optimizer", 4, "recipe: SGD-with-momentum and Adam updates, weight decay, clipping", rec_optimizer },
	{ "distance_field", 4, "recipe: signed distances to spheres and boxes via helpers, normals, closest points", rec_sdf },
	{ "box_outcode", 3, "recipe: Cohen-Sutherland outcodes of points against a box, bit-or flags, elif", rec_outcode },
	{ "monte_carlo", 3, "recipe: per-thread RNG, unit sphere/disk/cube samplers, jitter, MC sums", rec_sampling },
	{ "rigid_pose", 4, "recipe: pose integration, slerp blends, relative transforms, quat_to_matrix", rec_rigid },
	{ "training_loss", 4, "recipe: squared-error, Huber and logistic losses summed atomically, gradients", rec_loss },
	{ "image_filter", 3, "recipe: box or Gaussian blur and unsharp mask, nested window loops, clamped reads", rec_filter },
	{ "spatial_motion", 3, "recipe: spatial twists and wrenches of rigid bodies, point velocities, power, adjoints", rec_twist },
	{ "deformation", 3, "recipe: deformation gradients, polar SVD, eig3/qr3, Green strain, St. Venant-Kirchhoff energy", rec_strain },
	{ "noise_field", 3, "recipe: fractal noise heights, periodic and animated noise textures, curl-noise turbulence", rec_noise },
	{ "cell_state", 2, "recipe: per-cell state swaps with atomic_exch and visited marks with atomic_cas 0 -> 1", rec_cells },
};
const int ncategories = (int)(sizeof categories / sizeof categories[0]);

int
category_find(const char *name)
{
	int i;

	for (i = 0; i < ncategories; i++)
		if (!strcmp(categories[i].name, name))
			return i;
	return -1;
}

/* ----------------------------------------------------------------- requirements */

enum {
	O_RAND = 1 << 0, O_ATOMIC = 1 << 1, O_CALL = 1 << 2, O_STRUCT = 1 << 3, O_LOOP = 1 << 4, O_NEST = 1 << 5,
	O_IF = 1 << 6, O_ELIF = 1 << 7, O_GATHER = 1 << 8, O_F64 = 1 << 9, O_VEC = 1 << 10, O_MAT = 1 << 11,
	O_QUAT = 1 << 12, O_XFORM = 1 << 13, O_SCALAR = 1 << 14, O_SELECT = 1 << 15, O_IF2 = 1 << 16,
};

typedef struct Obs {
	unsigned bits;
	int nif;
} Obs;

static void
obs_type(Obs *o, Type t)
{
	if (t.kind == TY_VEC)
		o->bits |= O_VEC;
	if (t.kind == TY_MAT)
		o->bits |= O_MAT;
	if (t.kind == TY_QUAT)
		o->bits |= O_QUAT;
	if (t.kind == TY_XFORM)
		o->bits |= O_XFORM;
	if (t.kind == TY_STRUCT)
		o->bits |= O_STRUCT;
	if ((t.kind == TY_FLOAT || t.kind == TY_VEC) && t.prec == PREC_F64)
		o->bits |= O_F64;
}

static void
obs_expr(Obs *o, const Kernel *k, const Expr *e)
{
	int i;

	if (!e)
		return;
	obs_type(o, e->ty);
	if (e->kind == E_CALL && !strncmp(e->s, "wp.rand", 7))
		o->bits |= O_RAND;
	if (e->kind == E_IFEXP || (e->kind == E_CALL && !strcmp(e->s, "wp.where")))
		o->bits |= O_SELECT;
	if (e->kind == E_CALL)
		for (i = 0; i < k->nfuncs; i++)
			if (e->s == k->funcs[i]->name)
				o->bits |= O_CALL;
	if (e->kind == E_VAR && e->var->role == V_SCALAR)
		o->bits |= O_SCALAR;
	if (e->kind == E_LOAD)
		for (i = 0; i < e->n; i++)
			if (e->a[i]->kind != E_VAR || e->a[i]->var->role != V_TID)
				o->bits |= O_GATHER;
	for (i = 0; i < e->n && e->kind != E_SHAPE; i++)
		obs_expr(o, k, e->a[i]);
}

static void
obs_block(Obs *o, const Kernel *k, const Block *b, int loops)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];

		obs_expr(o, k, s->e);
		for (j = 0; j < s->nidx; j++)
			obs_expr(o, k, s->idx[j]);
		if (s->var && s->var->role != V_ARRAY)
			obs_type(o, s->var->ty);
		if (s->kind == S_ATOMIC)
			o->bits |= O_ATOMIC;
		if (s->kind == S_IF) {
			o->nif++;
			if (s->orelse.n == 1 && s->orelse.v[0]->elif)
				o->bits |= O_ELIF;
		}
		if (s->kind == S_FOR || s->kind == S_WHILE) {
			o->bits |= O_LOOP;
			if (loops > 0)
				o->bits |= O_NEST;
		}
		obs_block(o, k, &s->body, loops + (s->kind == S_FOR || s->kind == S_WHILE));
		obs_block(o, k, &s->orelse, loops);
	}
}

/* Does the finished kernel show what its category is about? */
static bool
meets_category(const Kernel *k, const char *cat)
{
	/* the observation that shows each category; the others always pass */
	static const struct {
		const char *cat;
		unsigned bits;
	} shows[] = {
		{ "vector", O_VEC },
		{ "matrix", O_MAT },
		{ "quaternion", O_QUAT },
		{ "transform", O_XFORM },
		{ "control_flow", O_IF },
		{ "loop", O_LOOP },
		{ "nested_loop", O_NEST },
		{ "multi_conditional", O_IF2 | O_ELIF },
		{ "atomic", O_ATOMIC },
		{ "scalar_param", O_SCALAR },
		{ "random", O_RAND },
		{ "struct", O_STRUCT },
		{ "func", O_CALL },
		{ "stencil", O_GATHER },
		{ "float64", O_F64 },
	};
	Obs o = { 0, 0 };
	int i;

	obs_block(&o, k, &k->body, 0);
	for (i = 0; i < k->nparams; i++)
		if (k->params[i]->role == V_SCALAR && k->params[i]->ty.kind == TY_STRUCT)
			o.bits |= O_STRUCT;
	if (o.nif > 0)
		o.bits |= O_IF;
	if (o.nif > 1)
		o.bits |= O_IF2;
	for (i = 0; i < (int)countof(shows); i++)
		if (!strcmp(cat, shows[i].cat))
			return (o.bits & shows[i].bits) != 0;
	return true;
}

/* ----------------------------------------------------------------- one kernel */

static int
pick_category(Rng *r, unsigned long long mask)
{
	int w[64], i;

	for (i = 0; i < ncategories; i++)
		w[i] = (mask >> i) & 1 ? categories[i].weight : 0;
	return rng_weighted(r, w, ncategories);
}

/* ----------------------------------------------------------------- names */

/* Verbs a person would use for what each category's kernels do. */
static const struct {
	const char *cat;
	const char *verbs[6];
} vocab[] = {
	{ "arithmetic", { "compute", "update", "combine", "rescale", "offset", NULL } },
	{ "math", { "evaluate", "shape", "remap", "attenuate", "saturate", NULL } },
	{ "vector", { "blend", "project", "integrate", "steer", "reflect", NULL } },
	{ "matrix", { "multiply", "assemble", "rotate", "deform", NULL } },
	{ "quaternion", { "rotate", "spin", "orient", "compose", NULL } },
	{ "transform", { "apply", "compose", "place", "pose", NULL } },
	{ "control_flow", { "select", "classify", "threshold", "limit", NULL } },
	{ "loop", { "iterate", "relax", "refine", "sum", NULL } },
	{ "nested_loop", { "convolve", "sweep", "refine", NULL } },
	{ "multi_conditional", { "classify", "partition", "grade", "route", NULL } },
	{ "atomic", { "accumulate", "tally", "reduce", "scatter", "bin", NULL } },
	{ "scalar_param", { "scale", "advance", "step", "apply", NULL } },
	{ "random", { "sample", "jitter", "perturb", "draw", NULL } },
	{ "struct", { "update", "step", "simulate", "advance", NULL } },
	{ "func", { "evaluate", "apply", "filter", "compute", NULL } },
	{ "stencil", { "diffuse", "smooth", "blur", "relax", NULL } },
	{ "float64", { "refine", "integrate", "accumulate", "compute", NULL } },
	{ "combined", { "compute", "update", "process", "evaluate", NULL } },
};

/* An accumulator's name from the one class of atomics it receives. */
static void
name_accumulators(Gen *g)
{
	static const char *const add_f[] = { "total", "sums", "energy_sum", "hist", "bins" };
	static const char *const add_i[] = { "counts", "votes", "tally", "hist", "bins" };
	static const char *const mins[] = { "lowest", "min_value", "min_dist" };
	static const char *const maxs[] = { "peak", "max_value", "highest" };
	Kernel *k = g->k;
	int p, t;

	for (p = 0; p < k->nparams; p++) {
		Var *v = k->params[p];
		const char *const *w = v->elem.kind == TY_INT ? add_i : add_f;
		int n = 5, at;

		if (v->role != V_ARRAY || v->io != IO_ACC)
			continue;
		if (v->acc == ACC_MIN)
			w = mins, n = 3;
		else if (v->acc == ACC_MAX)
			w = maxs, n = 3;
		at = rng_below(&g->rng, n);
		for (t = 0; t < n && name_taken(g, w[at]); t++)
			at = (at + 1) % n;
		if (t < n)
			v->name = w[at];
		reserve_name(g, v->name);
	}
}

/* verb_noun from the category's verbs and what the kernel writes. */
static void
name_kernel(Gen *g, int cat)
{
	Kernel *k = g->k;
	const char *const *verbs = vocab[0].verbs, *noun = NULL, *name;
	int i, n;
	size_t len;

	if (k->verb && k->noun) { /* a recipe named it */
		name = aprintf(g->A, "%s_%s", k->verb, k->noun);
		if (name_taken(g, name))
			name = aprintf(g->A, "%s_kernel", name);
		k->name = global_name(g, name);
		return;
	}
	for (i = 0; i < (int)(sizeof vocab / sizeof vocab[0]); i++)
		if (!strcmp(vocab[i].cat, categories[cat].name))
			verbs = vocab[i].verbs;
	for (n = 0; verbs[n]; n++)
		;
	name_accumulators(g);
	for (i = 0; i < k->nparams && !noun; i++)
		if (k->params[i]->role == V_ARRAY && k->params[i]->io == IO_OUT)
			noun = k->params[i]->name;
	for (i = 0; i < k->nparams && !noun; i++)
		if (k->params[i]->role == V_ARRAY && k->params[i]->io == IO_ACC)
			noun = k->params[i]->name;
	if (!noun)
		noun = "values";
	len = strlen(noun);
	while (len > 1 && noun[len - 1] >= '0' && noun[len - 1] <= '9')
		len--;
	k->noun = aprintf(g->A, "%.*s", (int)len, noun);
	k->verb = verbs[rng_below(&g->rng, n)];
	name = aprintf(g->A, "%s_%s", k->verb, k->noun);
	for (i = 0; i < n && name_taken(g, name); i++) {
		k->verb = verbs[(i + 1) % n];
		name = aprintf(g->A, "%s_%s", k->verb, k->noun);
	}
	if (name_taken(g, name))
		name = aprintf(g->A, "%s_kernel", name);
	k->name = global_name(g, name);
}

/* Kernel `index` of the run: a pure function of (seed, index, options). */
Kernel *
gen_kernel(Arena *A, const Options *o, uint64_t index)
{
	Rng r;
	int cat, attempt, bestbad = 1 << 30;
	Kernel *k = NULL, *best = NULL;

	rng_for_kernel(&r, o->seed, index);
	cat = pick_category(&r, o->catmask);
	for (attempt = 0; attempt < 32; attempt++) {
		Gen *g = aalloc(A, sizeof *g);
		int i;

		g->rng = r;
		rng_next(&r); /* next attempt: a different stream */
		g->A = A;
		g->o = o;
		k = aalloc(A, sizeof *k);
		g->k = k;
		k->category = categories[cat].name;
		k->seed = o->seed;
		k->index = index;
		g->depth = rng_range(&g->rng, o->depth > 1 ? o->depth - 1 : 1, o->depth > 0 ? o->depth : 1);
		if (!strncmp(categories[cat].desc, "recipe:", 7)) {
			/* a share of every recipe family is the short kernel people write most */
			if (!rec_short(g, categories[cat].name))
				categories[cat].build(g);
			recipe_vary(g);
		} else {
			categories[cat].build(g);
		}
		tidy_loads(g);
		tidy_units(&k->body);
		for (i = 0; i < k->nfuncs; i++)
			tidy_units(&k->funcs[i]->body);
		tidy_copies(&k->body);
		/* copies whose variable stops changing once dead stores go propagate too */
		for (i = 0; i < k->nfuncs; i++)
			do {
				tidy_copies(&k->funcs[i]->body);
				finish_func(g, &k->funcs[i]->body);
			} while (tidy_dead_stores(&k->funcs[i]->body));
		do {
			tidy_copies(&k->body);
			finish_func(g, &k->body);
		} while (tidy_dead_stores(&k->body));
		prune_funcs(k);
		while (tidy_func_params(g)) {
			int f;

			/* a dropped argument may have been the last read of a local */
			for (f = 0; f < k->nfuncs; f++)
				do {
					tidy_copies(&k->funcs[f]->body);
					finish_func(g, &k->funcs[f]->body);
				} while (tidy_dead_stores(&k->funcs[f]->body));
			do {
				tidy_copies(&k->body);
				finish_func(g, &k->body);
			} while (tidy_dead_stores(&k->body));
			prune_funcs(k);
		}
		tidy_branches(g, &k->body);
		for (i = 0; i < k->nfuncs; i++)
			tidy_branches(g, &k->funcs[i]->body);
		tidy_kernel_params(g);
		for (i = 0; i < k->nstructs; i++)
			if (!k->structs[i].param && !type_used_block(&k->body, i)) {
				bool in_funcs = false;
				int j;

				for (j = 0; j < k->nfuncs; j++)
					in_funcs |= k->funcs[j]->params[0] && k->funcs[j]->params[0]->ty.kind == TY_STRUCT &&
						    k->funcs[j]->params[0]->ty.sid == i;
				if (!in_funcs)
					k->structs[i].name = NULL; /* unused: not emitted */
			}
		k->np_seed = (uint32_t)(rng_next(&g->rng) >> 32);
		name_kernel(g, cat);
		/* redraw until the kernel shows its category (12 tries) and carries no dead
		 * weight; when none is clean, the attempt with the least dead weight */
		if (meets_category(k, k->category) || attempt >= 12) {
			Buf err = { 0 };
			int bad = check_deadweight(k, &err);

			buffree(&err);
			if (bad < bestbad) {
				best = k;
				bestbad = bad;
			}
			if (!bad)
				break;
		}
	}
	if (best)
		k = best;
	{
		Rng d; /* a stream of its own: the wording never changes the kernel */

		rng_for_kernel(&d, o->seed ^ 0x6b67656e64657363ull, index);
		k->description = describe_kernel(A, k, &d);
	}
	return k;
}
