/* Recipes: purposeful kernels in the style of Warp's examples (particle steps,
 * spring forces, grid stencils, signed distances, histograms, losses, optimiser
 * updates).  Each recipe picks its sizes, vector width, constants and optional
 * terms from the kernel's stream, names what it builds as a person would, and
 * leaves sentences of what it built for the description (Kernel.gist).
 *
 * Race-freedom as everywhere in kgen: outputs are stored once per element at the
 * thread's own index; accumulators receive atomics of one class (adds and subs,
 * or mins, or maxes).  Gathered indices are reduced modulo arr.shape[0] or
 * clamped into [0, shape - 1], so every launch size is in bounds (krun fills int
 * inputs with values in [-8, 8]). */
#include <math.h>
#include <string.h>

#include "kgen.h"

#define BIG 2147483647.0

static Type F(void) { return ty_float(PREC_F32); }
static Type I(void) { return ty_int(); }
static Type V(int n) { return ty_make(TY_VEC, PREC_F32, n); }

static int
pick(Gen *g, int n)
{
	return rng_below(&g->rng, n);
}

static const char *
one(Gen *g, const char *const *v, int n)
{
	return v[pick(g, n)];
}
#define ONE(v) one(g, v, (int)(sizeof v / sizeof v[0]))

static Expr *
lit(Gen *g, double v)
{
	return ex_lit_float(g->A, PREC_F32, v);
}

static Expr *
ilit(Gen *g, int v)
{
	return ex_lit_int(g->A, v);
}

static Expr *
use(Gen *g, Var *v)
{
	return use_var(g, v);
}

/* Float sums and products with a scalar factor come in either operand order, as
 * people write them (`dt * v`, `v * dt`); integer ones keep theirs (index idioms
 * such as `i + 1` are matched by kgen's check and tests). */
static bool
swap_operands(Gen *g, const Expr *a, const Expr *b)
{
	return a->ty.kind != TY_INT && a->ty.kind != TY_BOOL && b->ty.kind != TY_INT && rng_pct(&g->rng, 30);
}

static Expr *
add(Gen *g, Expr *a, Expr *b)
{
	if (swap_operands(g, a, b)) {
		Expr *t = a;

		a = b;
		b = t;
	}
	return ex_bin(g->A, OP_ADD, a, b, a->ty, a->bound + b->bound);
}

static Expr *
sub(Gen *g, Expr *a, Expr *b)
{
	return ex_bin(g->A, OP_SUB, a, b, a->ty, a->bound + b->bound);
}

static Expr *
mul(Gen *g, Expr *a, Expr *b)
{
	Type t = a->ty.kind == TY_FLOAT || a->ty.kind == TY_INT ? b->ty : a->ty;

	if ((a->ty.kind == TY_FLOAT || b->ty.kind == TY_FLOAT) && swap_operands(g, a, b)) {
		Expr *s = a;

		a = b;
		b = s;
	}
	return ex_bin(g->A, OP_MUL, a, b, t, a->bound * b->bound);
}

/* a / b with b positive by construction; bound given by the caller */
static Expr *
dvd(Gen *g, Expr *a, Expr *b, double bound)
{
	return ex_bin(g->A, OP_DIV, a, b, a->ty, bound);
}

static Expr *
call1(Gen *g, const char *fn, Type t, double bound, Expr *a)
{
	return ex_call(g->A, fn, t, bound, 1, a);
}

static Expr *
call2(Gen *g, const char *fn, Type t, double bound, Expr *a, Expr *b)
{
	return ex_call(g->A, fn, t, bound, 2, a, b);
}

static Expr *
vlit(Gen *g, int n, const double *c)
{
	Expr *e = ex_new(g->A, E_CALL, V(n), n);
	double m = 0;
	int i;

	e->s = n == 2 ? "wp.vec2" : "wp.vec3";
	for (i = 0; i < n; i++) {
		e->a[i] = lit(g, c[i]);
		m = fmax(m, fabs(c[i]));
	}
	e->bound = m;
	e->flags = EF_CONST;
	return e;
}

/* A local that is never reassigned. */
static Var *
let(Gen *g, Block *b, const char *name, Expr *e)
{
	Var *v = def_local(g, b, name, e);

	v->mutable_ = false;
	v->bound = v->base = e->bound;
	return v;
}

/* A local that a later statement reassigns. */
static Var *
let_mut(Gen *g, Block *b, const char *name, Expr *e, double bound)
{
	Var *v = def_local(g, b, name, e);

	v->bound = v->base = bound;
	return v;
}

static void
assign(Gen *g, Block *b, Var *v, Expr *e)
{
	Stmt *s = st_new(g->A, S_ASSIGN);

	s->var = v;
	s->e = e;
	v->mutated = true;
	v->reassigned = true;
	var_assigned(g, v, e);
	block_push(g->A, b, s);
}

static Stmt *
if_stmt(Gen *g, Block *b, Expr *cond)
{
	Stmt *s = st_new(g->A, S_IF);

	s->e = cond;
	block_push(g->A, b, s);
	return s;
}

static Var *
scalar(Gen *g, const char *name, Type t)
{
	Var *v = new_var(g, name, t, V_SCALAR);

	v->bound = v->base = t.kind == TY_INT ? 8.0 : 1.0;
	add_param(g, v);
	scope_push_var(g, v);
	return v;
}

static Var *
arr(Gen *g, const char *name, Type elem, int io)
{
	return add_array(g, name, elem, io);
}

static void
store(Gen *g, Block *b, Var *a, Expr *e)
{
	Stmt *s = st_new(g->A, S_STORE);
	int d;

	s->var = a;
	s->nidx = a->ndim;
	s->idx = aalloc(g->A, sizeof(Expr *) * 3);
	for (d = 0; d < a->ndim; d++)
		s->idx[d] = use(g, g->tid[d]);
	s->e = e;
	block_push(g->A, b, s);
}

/* fn(a, idx, e) into a 1-D accumulator; fn NULL: a[idx] += e */
static void
atomic(Gen *g, Block *b, const char *fn, Var *a, Expr *idx, Expr *e)
{
	Stmt *s = st_new(g->A, S_ATOMIC);

	s->var = a;
	s->s = fn;
	s->op = OP_ADD;
	s->nidx = 1;
	s->idx = aalloc(g->A, sizeof(Expr *) * 3);
	s->idx[0] = idx;
	s->e = e;
	a->acc = (unsigned char)acc_class(s);
	block_push(g->A, b, s);
}

static Expr *
load(Gen *g, Var *a, Expr *i)
{
	Expr *idx[1];

	idx[0] = i;
	return ex_load(g->A, a, 1, idx);
}

/* Optional terms the recipe added ("with linear drag"), then up to three
 * wordings of its main sentence: the kernel's gists are each wording followed by
 * the terms. */
static const char *clauses[4];
static int nclauses;

static void
clause(Gen *g, const char *s)
{
	(void)g;
	if (nclauses < 4)
		clauses[nclauses++] = s;
}

static void
heads(Gen *g, const char *h0, const char *h1, const char *h2)
{
	const char *h[3] = { h0, h1, h2 };
	int i, c;

	for (i = 0; i < 3; i++) {
		Buf b = { 0 };

		if (!h[i])
			continue;
		bufputs(&b, h[i]);
		for (c = 0; c < nclauses; c++)
			bufprintf(&b, "%s%s", c == 0 ? ", " : (c + 1 == nclauses ? " and " : ", "), clauses[c]);
		bufputs(&b, ".");
		g->k->gist[g->k->ngist++] = astrdup(g->A, b.s);
		buffree(&b);
	}
	nclauses = 0;
}

static void
name(Gen *g, const char *verb, const char *noun)
{
	g->k->verb = verb;
	g->k->noun = noun;
}

/* ----------------------------------------------------------------- helpers */

typedef struct FnSave {
	Var *scope[MAX_SCOPE];
	int nscope;
	const char *names[512];
	int nnames;
	Var *tid[3];
} FnSave;

/* Start @wp.func `base` returning one value of type ret (parameters via fparam). */
static Func *
func_begin(Gen *g, FnSave *sv, const char *base, Type ret)
{
	Func *f = aalloc(g->A, sizeof *f);

	f->name = fresh_name(g, global_name(g, base));
	memcpy(sv->scope, g->scope, sizeof(Var *) * (size_t)g->nscope);
	sv->nscope = g->nscope;
	memcpy(sv->names, g->names, sizeof(const char *) * (size_t)g->nnames);
	sv->nnames = g->nnames;
	memcpy(sv->tid, g->tid, sizeof sv->tid);
	g->nscope = 0;
	g->nnames = 0;
	memset(g->tid, 0, sizeof g->tid);
	g->k->funcs[g->k->nfuncs++] = f;
	g->fn = f;
	f->nrets = 1;
	f->rets[0] = ret;
	return f;
}

static Var *
fparam(Gen *g, Func *f, const char *name, Type t, double bound)
{
	Var *p = new_var(g, name, t, V_SCALAR);

	p->bound = p->base = bound;
	f->params[f->nparams++] = p;
	scope_push_var(g, p);
	return p;
}

static void
func_end(Gen *g, FnSave *sv, Func *f, Expr *ret)
{
	Stmt *s = st_new(g->A, S_RETURN);

	s->nidx = 1;
	s->idx = aalloc(g->A, sizeof(Expr *));
	s->idx[0] = ret;
	f->retbound[0] = ret->bound;
	func_retdirs(g, f, s->idx);
	block_push(g->A, &f->body, s);
	finish_func(g, &f->body);
	g->fn = NULL;
	memcpy(g->scope, sv->scope, sizeof(Var *) * (size_t)sv->nscope);
	g->nscope = sv->nscope;
	memcpy(g->names, sv->names, sizeof(const char *) * (size_t)sv->nnames);
	g->nnames = sv->nnames;
	memcpy(g->tid, sv->tid, sizeof sv->tid);
}

/* A vector's component, v[c] */
static Expr *
comp(Gen *g, Expr *v, int c)
{
	return ex_index(g->A, v, F(), v->bound, 1, ilit(g, c));
}

/* v[k] = e on a mutable local vector */
static void
setcomp(Gen *g, Block *b, Var *v, int k, Expr *e)
{
	Stmt *s = st_new(g->A, S_SETATTR);

	s->var = v;
	s->s = aprintf(g->A, "[%d]", k);
	s->e = e;
	v->mutated = true;
	v->reassigned = true;
	block_push(g->A, b, s);
}

/* ----------------------------------------------------------------- particles */

/* Semi-implicit Euler step of particles under gravity (and optional forces), with
 * optional drag and a ground plane that reflects the velocity. */
void
rec_particles(Gen *g)
{
	Block *b = &g->k->body;
	int n = rng_pct(&g->rng, 70) ? 3 : 2, up = 1;
	bool forces = rng_pct(&g->rng, 50), drag = rng_pct(&g->rng, 50), ground = rng_pct(&g->rng, 60);
	bool gparam = rng_pct(&g->rng, 40), inv_mass = forces && rng_pct(&g->rng, 60), obstacle = rng_pct(&g->rng, 35);
	bool setc = rng_pct(&g->rng, 50); /* the bounce by component stores x1[1] = ..., not new vectors */
	static const char *const xs[] = { "x", "pos", "positions", "particle_x" };
	static const char *const vs[] = { "v", "vel", "velocities", "particle_v" };
	Var *x, *v, *f = NULL, *w = NULL, *floor_y, *grav, *dt, *damp = NULL, *xo, *vo, *acc, *v1, *x1;
	Expr *a;
	double gv[3] = { 0.0, -9.8, 0.0 };
	int at = pick(g, 4);

	set_launch(g, 1);
	if (n == 2)
		gv[1] = -nice_value(g, 10.0) - 1.0;
	x = arr(g, xs[at], V(n), IO_IN);
	v = arr(g, vs[at], V(n), IO_IN);
	if (forces)
		f = arr(g, at == 3 ? "particle_f" : "forces", V(n), IO_IN);
	if (inv_mass)
		w = arr(g, at == 3 ? "particle_inv_mass" : "inv_mass", F(), IO_IN);
	grav = gparam ? scalar(g, "gravity", V(n)) : NULL;
	dt = scalar(g, "dt", F());
	if (drag)
		damp = scalar(g, rng_pct(&g->rng, 50) ? "damping" : "drag", F());
	floor_y = ground && rng_pct(&g->rng, 50) ? scalar(g, "ground", F()) : NULL;
	xo = arr(g, rng_pct(&g->rng, 50) ? "x_new" : "x_out", V(n), IO_OUT);
	vo = arr(g, xo->name[2] == 'n' ? "v_new" : "v_out", V(n), IO_OUT);
	emit_tid(g, b);
	a = grav ? use(g, grav) : vlit(g, n, gv);
	if (f) {
		Expr *fe = load_tid(g, f);

		a = add(g, a, w ? mul(g, fe, load_tid(g, w)) : fe);
	}
	acc = let(g, b, rng_pct(&g->rng, 50) ? "a" : "accel", a);
	v1 = let_mut(g, b, "v1", add(g, load_tid(g, v), mul(g, use(g, acc), use(g, dt))), 24.0);
	if (damp) {
		Expr *dd = mul(g, use(g, damp), use(g, dt)), *s;

		if (rng_pct(&g->rng, 50))
			s = call1(g, "wp.exp", F(), 3.0, ex_un(g->A, OP_NEG, dd));
		else
			s = sub(g, lit(g, 1.0), dd);
		assign(g, b, v1, mul(g, use(g, v1), s));
		clause(g, "with linear drag");
	}
	x1 = let_mut(g, b, "x1", add(g, load_tid(g, x), mul(g, use(g, v1), use(g, dt))), 48.0);
	if (ground) {
		Expr *gy = floor_y ? use(g, floor_y) : lit(g, 0.0);
		Stmt *s = if_stmt(g, b, ex_cmp(g->A, OP_LT, comp(g, use(g, x1), up), gy));
		double e = nice_value(g, 1.0);
		Expr *nx, *nv;

		if (e < 0.1)
			e = 0.5;
		gy = floor_y ? use(g, floor_y) : lit(g, 0.0);
		if (setc) {
			setcomp(g, &s->body, x1, up, gy);
			setcomp(g, &s->body, v1, up, mul(g, lit(g, -e), comp(g, use(g, v1), up)));
		} else if (n == 3) {
			nx = ex_call(g->A, "wp.vec3", V(3), 48.0, 3, comp(g, use(g, x1), 0), gy, comp(g, use(g, x1), 2));
			nv = ex_call(g->A, "wp.vec3", V(3), 24.0, 3, comp(g, use(g, v1), 0),
				     mul(g, lit(g, -e), comp(g, use(g, v1), 1)), comp(g, use(g, v1), 2));
		} else {
			nx = ex_call(g->A, "wp.vec2", V(2), 48.0, 2, comp(g, use(g, x1), 0), gy);
			nv = ex_call(g->A, "wp.vec2", V(2), 24.0, 2, comp(g, use(g, v1), 0), mul(g, lit(g, -e), comp(g, use(g, v1), 1)));
		}
		if (!setc) {
			assign(g, &s->body, x1, nx);
			assign(g, &s->body, v1, nv);
		}
		clause(g, "bouncing off a ground plane");
	}
	if (obstacle) {
		double cc[3] = { 0.0, 0.0, 0.0 }, r = 0.25 * (1 + pick(g, 3));
		Var *rel, *dist;
		Stmt *s;

		cc[0] = 0.25 * pick(g, 3) - 0.25;
		cc[1] = 0.5 * (1 + pick(g, 2));
		rel = let(g, b, rng_pct(&g->rng, 50) ? "rel" : "offset", sub(g, use(g, x1), vlit(g, n, cc)));
		dist = let(g, b, "dist", call1(g, "wp.length", F(), 100.0, use(g, rel)));
		s = if_stmt(g, b, ex_cmp(g->A, OP_LT, use(g, dist), lit(g, r)));
		assign(g, &s->body, x1, add(g, vlit(g, n, cc), mul(g, use(g, rel), dvd(g, lit(g, r), call2(g, "wp.max", F(), 100.0, use(g, dist), lit(g, 1.0e-6)), 1.0))));
		clause(g, "pushing particles out of a spherical obstacle");
	}
	store(g, b, xo, use(g, x1));
	store(g, b, vo, use(g, v1));
	name(g, ONE(((const char *const[]){ "integrate", "advance", "step" })), "particles");
	heads(g, aprintf(g->A, "Advances %s particles by one semi-implicit Euler step under gravity%s", n == 3 ? "3-D" : "2-D",
			      forces ? " and per-particle forces" : ""),
	      aprintf(g->A, "Integrates particle velocities and then positions over a time step dt%s",
			   forces ? ", adding external forces to gravity" : ""),
	      "Moves each particle one explicit step forward in time");
}

/* ----------------------------------------------------------------- springs */

/* Hooke springs (optionally damped) between each particle and a partner drawn from
 * an index array; the forces are scattered to both ends with atomic adds. */
void
rec_springs(Gen *g)
{
	Block *b = &g->k->body;
	int n = rng_pct(&g->rng, 70) ? 3 : 2;
	bool damped = rng_pct(&g->rng, 50), energy = rng_pct(&g->rng, 50), normfn = rng_pct(&g->rng, 50), chain = rng_pct(&g->rng, 30);
	Var *x, *v = NULL, *nbr, *rest, *ke, *kd = NULL, *f, *en = NULL, *i, *j, *d, *l, *dir, *c, *fs;
	Expr *fe;

	nclauses = 0;
	set_launch(g, 1);
	x = arr(g, rng_pct(&g->rng, 50) ? "x" : "particle_x", V(n), IO_IN);
	if (damped)
		v = arr(g, x->name[0] == 'p' ? "particle_v" : "v", V(n), IO_IN);
	nbr = chain ? NULL : arr(g, rng_pct(&g->rng, 50) ? "spring_indices" : "partner", I(), IO_IN);
	rest = rng_pct(&g->rng, 60) ? arr(g, rng_pct(&g->rng, 50) ? "rest_length" : "spring_rest", F(), IO_IN)
				    : scalar(g, rng_pct(&g->rng, 50) ? "rest" : "rest_len", F());
	ke = scalar(g, rng_pct(&g->rng, 50) ? "ke" : "stiffness", F());
	if (damped)
		kd = scalar(g, ke->name[0] == 'k' ? "kd" : "damping", F());
	f = arr(g, rng_pct(&g->rng, 50) ? "f" : "forces", V(n), IO_ACC);
	if (energy)
		en = arr(g, "energy", F(), IO_ACC);
	emit_tid(g, b);
	i = g->tid[0];
	j = let(g, b, "j",
		ex_bin(g->A, OP_MOD,
		       chain ? add(g, use(g, i), ilit(g, 1)) : add(g, add(g, use(g, i), call1(g, "wp.abs", I(), 8.0, load_tid(g, nbr))), ilit(g, 1)),
		       ex_shape(g->A, x, 0), I(), BIG));
	j->nonneg = true;
	d = let(g, b, "d", sub(g, load_tid(g, x), load(g, x, use(g, j))));
	l = let(g, b, "l", call1(g, "wp.length", F(), 4.0, use(g, d)));
	if (normfn)
		dir = let(g, b, "direction", call1(g, rng_pct(&g->rng, 30) ? "wp.smooth_normalize" : "wp.normalize", V(n), 1.0, use(g, d)));
	else
		dir = let(g, b, "direction", dvd(g, use(g, d), call2(g, "wp.max", F(), 4.0, use(g, l), lit(g, 1.0e-6)), 1.0));
	c = let(g, b, "c", sub(g, use(g, l), rest->role == V_ARRAY ? load_tid(g, rest) : use(g, rest)));
	if (chain)
		clause(g, "linking each particle to the next in a closed chain");
	fe = mul(g, use(g, ke), use(g, c));
	if (damped) {
		Var *vrel = let(g, b, "vrel", sub(g, load_tid(g, v), load(g, v, use(g, j))));

		fe = add(g, fe, mul(g, use(g, kd), call2(g, "wp.dot", F(), 12.0, use(g, dir), use(g, vrel))));
		clause(g, "with damping along the spring");
	}
	fs = let(g, b, rng_pct(&g->rng, 50) ? "fs" : "force", mul(g, use(g, dir), fe));
	atomic(g, b, rng_pct(&g->rng, 50) ? "wp.atomic_sub" : NULL, f, use(g, i), use(g, fs));
	if (!b->v[b->n - 1]->s)
		b->v[b->n - 1]->op = OP_SUB;
	atomic(g, b, rng_pct(&g->rng, 50) ? "wp.atomic_add" : NULL, f, use(g, j), use(g, fs));
	if (en) {
		atomic(g, b, "wp.atomic_add", en, ilit(g, 0), mul(g, mul(g, mul(g, lit(g, 0.5), use(g, ke)), use(g, c)), use(g, c)));
		clause(g, "summing the elastic energy");
	}
	name(g, ONE(((const char *const[]){ "eval", "accumulate", "compute" })),
	     ONE(((const char *const[]){ "spring_forces", "springs" })));
	heads(g, "Evaluates Hooke spring forces between particles and their partners and scatters them to both ends atomically",
	      "Accumulates spring forces into both endpoints of each spring with atomic adds",
	      aprintf(g->A, "Computes %s spring forces from the stretch of each spring beyond its rest length", damped ? "damped" : "elastic"));
}

/* ----------------------------------------------------------------- grid stencils */

/* One explicit diffusion step of a 2-D field with clamped neighbours, optional
 * source term and an optional central-difference gradient output. */
void
rec_heat(Gen *g)
{
	Block *b = &g->k->body;
	bool src = rng_pct(&g->rng, 40), grad = rng_pct(&g->rng, 50), clampv = rng_pct(&g->rng, 30);
	Var *decay;
	static const char *const fields[] = { "u", "temp", "density", "heat", "phi" };
	Var *u, *s = NULL, *alpha, *dt, *out, *go = NULL, *im, *ip, *jm, *jp, *uc, *ue, *uw, *un, *us, *lap;
	Expr *e, *idx[2];
	const char *fld = ONE(fields);

	nclauses = 0;
	set_launch(g, 2);
	u = arr(g, fld, F(), IO_IN);
	if (src)
		s = arr(g, rng_pct(&g->rng, 50) ? "source" : "sources", F(), IO_IN);
	alpha = scalar(g, rng_pct(&g->rng, 50) ? "alpha" : "diffusivity", F());
	dt = scalar(g, "dt", F());
	decay = rng_pct(&g->rng, 30) ? scalar(g, rng_pct(&g->rng, 50) ? "decay" : "k_decay", F()) : NULL;
	out = arr(g, aprintf(g->A, "%s_new", fld), F(), IO_OUT);
	if (grad)
		go = arr(g, "grad", V(2), IO_OUT);
	emit_tid(g, b);
	im = let(g, b, "im", call2(g, "wp.max", I(), BIG, sub(g, use(g, g->tid[0]), ilit(g, 1)), ilit(g, 0)));
	ip = let(g, b, "ip", call2(g, "wp.min", I(), BIG, add(g, use(g, g->tid[0]), ilit(g, 1)), sub(g, ex_shape(g->A, u, 0), ilit(g, 1))));
	jm = let(g, b, "jm", call2(g, "wp.max", I(), BIG, sub(g, use(g, g->tid[1]), ilit(g, 1)), ilit(g, 0)));
	jp = let(g, b, "jp", call2(g, "wp.min", I(), BIG, add(g, use(g, g->tid[1]), ilit(g, 1)), sub(g, ex_shape(g->A, u, 1), ilit(g, 1))));
	im->nonneg = ip->nonneg = jm->nonneg = jp->nonneg = true;
	uc = let(g, b, "c", load_tid(g, u));
	idx[0] = use(g, im), idx[1] = use(g, g->tid[1]);
	uw = let(g, b, "w", ex_load(g->A, u, 2, idx));
	idx[0] = use(g, ip), idx[1] = use(g, g->tid[1]);
	ue = let(g, b, "e", ex_load(g->A, u, 2, idx));
	idx[0] = use(g, g->tid[0]), idx[1] = use(g, jm);
	us = let(g, b, "s", ex_load(g->A, u, 2, idx));
	idx[0] = use(g, g->tid[0]), idx[1] = use(g, jp);
	un = let(g, b, "n", ex_load(g->A, u, 2, idx));
	lap = let(g, b, "lap", sub(g, add(g, add(g, use(g, uw), use(g, ue)), add(g, use(g, us), use(g, un))), mul(g, lit(g, 4.0), use(g, uc))));
	e = add(g, use(g, uc), mul(g, mul(g, use(g, alpha), use(g, dt)), use(g, lap)));
	if (s) {
		e = add(g, e, mul(g, use(g, dt), load_tid(g, s)));
		clause(g, "adding a source term");
	}
	if (decay) {
		e = sub(g, e, mul(g, mul(g, use(g, dt), use(g, decay)), use(g, uc)));
		clause(g, "with first-order decay");
	}
	if (clampv) {
		e = ex_call(g->A, "wp.clamp", F(), 1.0, 3, e, lit(g, 0.0), lit(g, 1.0));
		clause(g, "keeping the result between zero and one");
	}
	store(g, b, out, e);
	if (go) {
		store(g, b, go, mul(g, ex_call(g->A, "wp.vec2", V(2), 2.0, 2, sub(g, use(g, ue), use(g, uw)), sub(g, use(g, un), use(g, us))), lit(g, 0.5)));
		clause(g, "writing its central-difference gradient too");
	}
	name(g, ONE(((const char *const[]){ "diffuse", "step", "relax" })), fld);
	heads(g, aprintf(g->A, "Takes one explicit diffusion step of the 2-D field %s with a five-point Laplacian and clamped borders", fld),
	      aprintf(g->A, "Diffuses %s on a grid, reading the four neighbours of each cell clamped at the edges", fld),
	      NULL);
}

/* ----------------------------------------------------------------- histograms */

/* k clamped into [0, a.shape[0] - 1], by wp.clamp or by wp.min of wp.max */
static Expr *
clamp_index(Gen *g, bool minmax, Expr *k, Var *a)
{
	Expr *hi = sub(g, ex_shape(g->A, a, 0), ilit(g, 1));

	if (minmax)
		return call2(g, "wp.min", I(), BIG, call2(g, "wp.max", I(), BIG, k, ilit(g, 0)), hi);
	return ex_call(g->A, "wp.clamp", I(), BIG, 3, k, ilit(g, 0), hi);
}

/* Bins values into a histogram with atomic counts; optionally the sum and the
 * largest magnitude into single-element accumulators. */
void
rec_histogram(Gen *g)
{
	Block *b = &g->k->body;
	bool two = rng_pct(&g->rng, 25), weighted = rng_pct(&g->rng, 40), sum = rng_pct(&g->rng, 50), peak = rng_pct(&g->rng, 45);
	bool low = rng_pct(&g->rng, 30), usefloor = rng_pct(&g->rng, 50), ranged = !two && rng_pct(&g->rng, 35), gate = rng_pct(&g->rng, 25);
	int nbins = two ? 4 << pick(g, 2) : 4 << pick(g, 3), xf = two || ranged ? 0 : pick(g, 3); /* x, |x|, tanh(x) */
	bool minmax = rng_pct(&g->rng, 40); /* wp.min(wp.max(k, 0), n - 1), not wp.clamp(k, 0, n - 1) */
	Var *x, *w = NULL, *hist, *tot = NULL, *pk = NULL, *lw = NULL, *xv, *bin, *org = NULL, *inv = NULL, *val;
	Block *at = b;
	Expr *t;

	nclauses = 0;
	set_launch(g, 1);
	x = arr(g, two ? ONE(((const char *const[]){ "points", "coords", "uv" })) : ONE(((const char *const[]){ "values", "samples", "data" })),
		two ? V(2) : F(), IO_IN);
	if (weighted)
		w = arr(g, "weights", F(), IO_IN);
	if (ranged) {
		org = scalar(g, rng_pct(&g->rng, 50) ? "lo" : "origin", F());
		inv = scalar(g, rng_pct(&g->rng, 50) ? "inv_width" : "inv_bin_width", F());
	}
	hist = arr(g, rng_pct(&g->rng, 50) ? "hist" : "bins", weighted ? F() : I(), IO_ACC);
	if (sum)
		tot = arr(g, "total", F(), IO_ACC);
	if (peak)
		pk = arr(g, rng_pct(&g->rng, 50) ? "peak" : "max_abs", F(), IO_ACC);
	if (low)
		lw = arr(g, rng_pct(&g->rng, 50) ? "lowest" : "min_value", F(), IO_ACC);
	emit_tid(g, b);
	xv = let(g, b, two ? "p" : "xv", load_tid(g, x));
	if (xf == 1)
		val = let(g, b, "mag", call1(g, "wp.abs", F(), 1.0, use(g, xv)));
	else if (xf == 2)
		val = let(g, b, "s", call1(g, "wp.tanh", F(), 1.0, use(g, xv)));
	else
		val = two ? let(g, b, "r", call1(g, "wp.length", F(), 2.0, use(g, xv))) : xv;
	if (gate) {
		Stmt *s = if_stmt(g, b, ex_cmp(g->A, OP_GT, use(g, val), lit(g, two ? 0.25 : -0.5)));

		at = &s->body;
		clause(g, "skipping the values below a cutoff");
	}
	if (two) {
		Var *c[2];
		int d;

		for (d = 0; d < 2; d++) {
			Expr *u = mul(g, add(g, comp(g, use(g, xv), d), lit(g, 1.0)), lit(g, 0.5 * nbins));

			if (usefloor)
				u = call1(g, "wp.floor", F(), u->bound, u);
			c[d] = let(g, at, d ? "by" : "bx", ex_call(g->A, "wp.clamp", I(), nbins, 3, call1(g, "int", I(), u->bound, u), ilit(g, 0), ilit(g, nbins - 1)));
			c[d]->nonneg = true;
		}
		bin = let(g, at, rng_pct(&g->rng, 50) ? "cell" : "bin_index",
			  clamp_index(g, minmax, add(g, mul(g, use(g, c[1]), ilit(g, nbins)), use(g, c[0])), hist));
		clause(g, aprintf(g->A, "on a %dx%d grid of cells", nbins, nbins));
	} else {
		/* x in [-1, 1] -> [0, nbins), |x| in [0, 1] -> [0, nbins) */
		if (ranged)
			t = mul(g, sub(g, use(g, xv), use(g, org)), use(g, inv));
		else if (xf == 1)
			t = mul(g, use(g, val), lit(g, nbins));
		else
			t = mul(g, add(g, use(g, val), lit(g, 1.0)), lit(g, 0.5 * nbins));
		if (usefloor)
			t = call1(g, "wp.floor", F(), t->bound, t);
		bin = let(g, at, rng_pct(&g->rng, 50) ? "k" : "raw", call1(g, "int", I(), t->bound, t));
		bin = let(g, at, rng_pct(&g->rng, 50) ? "slot" : "bin_index", clamp_index(g, minmax, use(g, bin), hist));
		if (ranged)
			clause(g, "over a range given by its origin and inverse bin width");
	}
	bin->nonneg = true;
	atomic(g, at, rng_pct(&g->rng, 50) ? "wp.atomic_add" : NULL, hist, use(g, bin), w ? load_tid(g, w) : ilit(g, 1));
	if (tot) {
		atomic(g, at, "wp.atomic_add", tot, ilit(g, 0), use(g, val));
		clause(g, "summing the values");
	}
	if (pk) {
		atomic(g, at, "wp.atomic_max", pk, ilit(g, 0), xf || two ? use(g, val) : call1(g, "wp.abs", F(), 1.0, use(g, val)));
		clause(g, "tracking the largest magnitude");
	}
	if (lw) {
		atomic(g, at, "wp.atomic_min", lw, ilit(g, 0), use(g, val));
		clause(g, "tracking the smallest value");
	}
	name(g, ONE(((const char *const[]){ "bin", "histogram", "count" })), x->name);
	heads(g, aprintf(g->A, "Builds a %d-bin %shistogram of %s%s with atomic adds", two ? nbins * nbins : nbins, w ? "weighted " : "", x->name,
			      ranged ? "" : xf == 1 ? " by magnitude" : xf == 2 ? " squashed by tanh" : " over [-1, 1]"),
	      aprintf(g->A, "Counts %s into %d uniform bins, clamping out-of-range samples to the end bins", x->name, two ? nbins * nbins : nbins), NULL);
}

/* ----------------------------------------------------------------- optimisers */

/* An SGD-with-momentum or Adam update of a parameter array from its gradient. */
void
rec_optimizer(Gen *g)
{
	Block *b = &g->k->body;
	bool adam = rng_pct(&g->rng, 60), decay = rng_pct(&g->rng, 40), clip = rng_pct(&g->rng, 40);
	Var *p, *gr, *m, *v = NULL, *lr, *wd = NULL, *po, *mo, *vo = NULL, *gv, *m1, *v1 = NULL;
	Expr *ge, *upd;
	static const double b1s[] = { 0.5, 0.8, 0.9, 0.95 }, epss[] = { 1.0e-8, 1.0e-6, 1.0e-4 };
	double b1 = adam ? 0.9 : b1s[pick(g, 4)], b2 = 0.999, eps = epss[pick(g, 3)];

	nclauses = 0;
	set_launch(g, 1);
	p = arr(g, rng_pct(&g->rng, 50) ? "params" : "weights", F(), IO_IN);
	gr = arr(g, rng_pct(&g->rng, 50) ? "grads" : "gradients", F(), IO_IN);
	m = arr(g, adam ? "m" : "velocity", F(), IO_IN);
	if (adam)
		v = arr(g, "v", F(), IO_IN);
	lr = scalar(g, rng_pct(&g->rng, 50) ? "lr" : "learning_rate", F());
	if (decay)
		wd = scalar(g, "weight_decay", F());
	po = arr(g, aprintf(g->A, "%s_out", p->name), F(), IO_OUT);
	mo = arr(g, adam ? "m_out" : "velocity_out", F(), IO_OUT);
	if (adam)
		vo = arr(g, "v_out", F(), IO_OUT);
	emit_tid(g, b);
	ge = load_tid(g, gr);
	if (decay) {
		ge = add(g, ge, mul(g, use(g, wd), load_tid(g, p)));
		clause(g, "with L2 weight decay");
	}
	if (clip) {
		double c = 0.5 * (1 + pick(g, 4));

		ge = ex_call(g->A, "wp.clamp", F(), c, 3, ge, lit(g, -c), lit(g, c));
		clause(g, "clipping the gradient");
	}
	if (rng_pct(&g->rng, 45)) { /* a non-finite gradient contributes nothing */
		Expr *c;

		gv = let_mut(g, b, "g", ge, ge->bound);
		if (rng_pct(&g->rng, 50))
			c = ex_un(g->A, OP_NOT, ex_call(g->A, "wp.isfinite", ty_bool(), 1.0, 1, use(g, gv)));
		else
			c = ex_bool(g->A, OP_OR, ex_call(g->A, "wp.isnan", ty_bool(), 1.0, 1, use(g, gv)),
				    ex_call(g->A, "wp.isinf", ty_bool(), 1.0, 1, use(g, gv)));
		assign(g, &if_stmt(g, b, c)->body, gv, lit(g, 0.0));
		clause(g, "zeroing non-finite gradients");
	} else
		gv = let(g, b, "g", ge);
	m1 = let(g, b, "m1", add(g, mul(g, lit(g, b1), load_tid(g, m)), (adam ? mul(g, lit(g, 0.1), use(g, gv)) : use(g, gv))));
	if (adam) {
		Expr *den;

		v1 = let(g, b, "v1", add(g, mul(g, lit(g, b2), load_tid(g, v)), mul(g, mul(g, lit(g, 0.001), use(g, gv)), use(g, gv))));
		den = call1(g, "wp.sqrt", F(), 2.0, add(g, call2(g, "wp.max", F(), 2.0, use(g, v1), lit(g, 0.0)), lit(g, eps)));
		upd = dvd(g, mul(g, use(g, lr), use(g, m1)), den, 2.0 / sqrt(eps));
	} else
		upd = mul(g, use(g, lr), use(g, m1));
	store(g, b, po, sub(g, load_tid(g, p), upd));
	store(g, b, mo, use(g, m1));
	if (adam)
		store(g, b, vo, use(g, v1));
	name(g, adam ? "adam" : ONE(((const char *const[]){ "sgd", "momentum" })), "step");
	heads(g, adam ? "Applies one Adam update to a parameter array, refreshing its first and second moment estimates"
		      : "Applies one SGD-with-momentum update to a parameter array and its velocity",
	      aprintf(g->A, "Takes an optimiser step on %s from %s%s", p->name, gr->name, adam ? " with Adam moments" : " with heavy-ball momentum"),
	      NULL);
}

/* ----------------------------------------------------------------- signed distances */

static Func *
sdf_sphere_fn(Gen *g)
{
	FnSave sv;
	Func *f = func_begin(g, &sv, "sdf_sphere", F());
	Var *p = fparam(g, f, "p", V(3), 48.0), *r = fparam(g, f, "r", F(), 1.0);

	func_end(g, &sv, f, sub(g, call1(g, "wp.length", F(), 84.0, use(g, p)), use(g, r)));
	return f;
}

static Func *
sdf_box_fn(Gen *g)
{
	FnSave sv;
	Func *f = func_begin(g, &sv, "sdf_box", F());
	Var *p = fparam(g, f, "p", V(3), 48.0), *h = fparam(g, f, "h", V(3), 1.0), *q;
	Expr *out, *in;
	double z[3] = { 0, 0, 0 };

	q = let(g, &f->body, "q", sub(g, call1(g, "wp.abs", V(3), 48.0, use(g, p)), use(g, h)));
	out = call1(g, "wp.length", F(), 86.0, call2(g, "wp.max", V(3), 49.0, use(g, q), vlit(g, 3, z)));
	in = call2(g, "wp.min", F(), 49.0,
		   call2(g, "wp.max", F(), 49.0, comp(g, use(g, q), 0), call2(g, "wp.max", F(), 49.0, comp(g, use(g, q), 1), comp(g, use(g, q), 2))),
		   lit(g, 0.0));
	func_end(g, &sv, f, add(g, out, in));
	return f;
}

static Func *
sdf_capsule_fn(Gen *g)
{
	FnSave sv;
	Func *f = func_begin(g, &sv, "sdf_capsule", F());
	Var *p = fparam(g, f, "p", V(3), 48.0), *r = fparam(g, f, "r", F(), 1.0), *h = fparam(g, f, "half_height", F(), 1.0), *q;

	q = let(g, &f->body, "q", ex_call(g->A, "wp.vec3", V(3), 50.0, 3, comp(g, use(g, p), 0),
					  sub(g, comp(g, use(g, p), 1), ex_call(g->A, "wp.clamp", F(), 1.0, 3, comp(g, use(g, p), 1), ex_un(g->A, OP_NEG, use(g, h)), use(g, h))),
					  comp(g, use(g, p), 2)));
	func_end(g, &sv, f, sub(g, call1(g, "wp.length", F(), 87.0, use(g, q)), use(g, r)));
	return f;
}

/* A bound of an ellipsoid's distance: |p / radii| - 1 scaled by the smallest radius
 * (radii: a literal, so positive). */
static Func *
sdf_ellipsoid_fn(Gen *g, const double *rad)
{
	FnSave sv;
	Func *f = func_begin(g, &sv, "sdf_ellipsoid", F());
	Var *p = fparam(g, f, "p", V(3), 48.0);
	Expr *k;

	k = call1(g, "wp.length", F(), 340.0, ex_call(g->A, "wp.cw_div", V(3), 200.0, 2, use(g, p), vlit(g, 3, rad)));
	func_end(g, &sv, f, mul(g, sub(g, k, lit(g, 1.0)), lit(g, fmin(rad[0], fmin(rad[1], rad[2])))));
	return f;
}

/* Distance of points to one or two primitives (sphere, box, capsule, ellipsoid; a
 * helper each) combined by union, intersection or subtraction, the surface normal
 * (analytic or by finite differences), the closest surface point, and a count of
 * points inside. */
typedef struct Sdf {
	int kind[2], nk, op; /* primitives; op: 0 union, 1 intersection, 2 subtraction */
	Func *fn[2];
	Var *a1[2], *a2[2];   /* their extra arguments (radius, half extents, half height) */
} Sdf;

static Expr *
sdf_prim(Gen *g, Sdf *sd, int w, Expr *q)
{
	static const double bnd[4] = { 84.0, 135.0, 90.0, 340.0 };
	Func *f = sd->fn[w];

	f->used = true;
	switch (sd->kind[w]) {
	case 0:
	case 1:
		return ex_call(g->A, f->name, F(), bnd[sd->kind[w]], 2, q, use(g, sd->a1[w]));
	case 2:
		return ex_call(g->A, f->name, F(), bnd[2], 3, q, use(g, sd->a1[w]), use(g, sd->a2[w]));
	default:
		return ex_call(g->A, f->name, F(), bnd[3], 1, q);
	}
}

/* The combined distance at q (a variable when two primitives read it). */
static Expr *
sdf_eval(Gen *g, Sdf *sd, Var *q)
{
	Expr *a = sdf_prim(g, sd, 0, use(g, q)), *b;

	if (sd->nk == 1)
		return a;
	b = sdf_prim(g, sd, 1, use(g, q));
	if (sd->op == 0)
		return call2(g, "wp.min", F(), 340.0, a, b);
	if (sd->op == 1)
		return call2(g, "wp.max", F(), 340.0, a, b);
	return call2(g, "wp.max", F(), 340.0, a, ex_un(g->A, OP_NEG, b));
}

void
rec_sdf(Gen *g)
{
	Block *b = &g->k->body;
	static const char *const pname[4] = { "sphere", "box", "capsule", "ellipsoid" };
	static const char *const opname[3] = { "union", "intersection", "difference" };
	Sdf sd;
	bool want_n = rng_pct(&g->rng, 70), want_cp = want_n && rng_pct(&g->rng, 50), count = rng_pct(&g->rng, 40);
	int post = rng_pct(&g->rng, 40) ? 1 + pick(g, 2) : 0; /* rounded by a margin, or an onion shell */
	Var *margin = NULL, *base = NULL, *pts, *center, *dist, *nrm = NULL, *cp = NULL, *inside = NULL, *pt, *p, *d, *n = NULL;
	double rad[3];
	int w, c;
	const char *shape;

	nclauses = 0;
	set_launch(g, 1);
	memset(&sd, 0, sizeof sd);
	sd.nk = rng_pct(&g->rng, 45) ? 2 : 1;
	sd.kind[0] = pick(g, 4);
	sd.kind[1] = (sd.kind[0] + 1 + pick(g, 3)) % 4;
	sd.op = pick(g, 3);
	for (c = 0; c < 3; c++)
		rad[c] = 0.25 * (1 + pick(g, 4));
	for (w = 0; w < sd.nk; w++) {
		switch (sd.kind[w]) {
		case 0: sd.fn[w] = sdf_sphere_fn(g); break;
		case 1: sd.fn[w] = sdf_box_fn(g); break;
		case 2: sd.fn[w] = sdf_capsule_fn(g); break;
		default: sd.fn[w] = sdf_ellipsoid_fn(g, rad); break;
		}
	}
	pts = arr(g, rng_pct(&g->rng, 50) ? "points" : "query_points", V(3), IO_IN);
	center = scalar(g, rng_pct(&g->rng, 50) ? "center" : "origin", V(3));
	for (w = 0; w < sd.nk; w++) {
		switch (sd.kind[w]) {
		case 0: sd.a1[w] = scalar(g, "radius", F()); break;
		case 1: sd.a1[w] = scalar(g, rng_pct(&g->rng, 50) ? "half_extents" : "half_size", V(3)); break;
		case 2:
			sd.a1[w] = scalar(g, sd.nk == 2 && sd.kind[0] == 0 ? "capsule_radius" : "radius", F());
			sd.a2[w] = scalar(g, "half_height", F());
			break;
		}
	}
	if (post)
		margin = scalar(g, post == 1 ? "margin" : "thickness", F());
	dist = arr(g, rng_pct(&g->rng, 50) ? "dist" : "sdf", F(), IO_OUT);
	if (want_n)
		nrm = arr(g, rng_pct(&g->rng, 50) ? "normals" : "gradient", V(3), IO_OUT);
	if (want_cp)
		cp = arr(g, rng_pct(&g->rng, 50) ? "closest" : "surface_points", V(3), IO_OUT);
	if (count)
		inside = arr(g, rng_pct(&g->rng, 50) ? "num_inside" : "inside_count", I(), IO_ACC);
	emit_tid(g, b);
	pt = let(g, b, "x", load_tid(g, pts));
	p = let(g, b, "p", sub(g, use(g, pt), use(g, center)));
	if (post) { /* the finite differences below are taken of base, whose gradient d's is */
		base = let(g, b, "d0", sdf_eval(g, &sd, p));
		if (post == 2)
			base = let(g, b, "a0", call1(g, "wp.abs", F(), 340.0, use(g, base)));
		d = let(g, b, "d", sub(g, use(g, base), use(g, margin)));
		clause(g, post == 1 ? "rounding the surface by a margin" : "as a shell of some thickness around the surface");
	} else
		d = let(g, b, "d", sdf_eval(g, &sd, p));
	if (want_n) {
		if (sd.nk == 1 && sd.kind[0] == 0 && rng_pct(&g->rng, 60)) {
			n = let(g, b, "n", call1(g, "wp.normalize", V(3), 1.0, use(g, p)));
		} else { /* forward differences of the distance */
			static const double ex[3] = { 1.0e-3, 0.0, 0.0 }, ey[3] = { 0.0, 1.0e-3, 0.0 }, ez[3] = { 0.0, 0.0, 1.0e-3 };
			const double *e3[3] = { ex, ey, ez };
			Expr *cc[3];
			int a;

			for (a = 0; a < 3; a++) {
				static const char *const qn[3] = { "px", "py", "pz" }, *const dn[3] = { "dx", "dy", "dz" };
				Var *q = let(g, b, qn[a], add(g, use(g, p), vlit(g, 3, e3[a])));

				Expr *e = sdf_eval(g, &sd, q);

				if (post == 2)
					e = call1(g, "wp.abs", F(), 340.0, e);
				cc[a] = use(g, let(g, b, dn[a], sub(g, e, use(g, base ? base : d))));
			}
			n = let(g, b, "n", call1(g, "wp.normalize", V(3), 1.0, ex_call(g->A, "wp.vec3", V(3), 1020.0, 3, cc[0], cc[1], cc[2])));
			clause(g, "taking the normal from finite differences");
		}
		store(g, b, nrm, use(g, n));
	}
	store(g, b, dist, use(g, d));
	if (cp) {
		store(g, b, cp, sub(g, use(g, pt), mul(g, use(g, n), use(g, d))));
		clause(g, "projecting each point onto the surface");
	}
	if (inside) {
		Stmt *s = if_stmt(g, b, ex_cmp(g->A, OP_LT, use(g, d), lit(g, 0.0)));

		atomic(g, &s->body, "wp.atomic_add", inside, ilit(g, 0), ilit(g, 1));
		clause(g, "counting the points inside");
	}
	if (sd.nk == 1)
		shape = pname[sd.kind[0]];
	else
		shape = aprintf(g->A, "%s-%s %s", pname[sd.kind[0]], pname[sd.kind[1]], opname[sd.op]);
	name(g, ONE(((const char *const[]){ "eval", "query", "compute" })),
	     sd.nk == 1 ? aprintf(g->A, "%s_sdf", pname[sd.kind[0]]) : sd.op == 0 ? "sdf" : sd.op == 1 ? "intersection_sdf" : "difference_sdf");
	heads(g, aprintf(g->A, "Evaluates the signed distance from points to %s%s", sd.nk == 1 && sd.kind[0] != 1 ? "a " : sd.nk == 1 ? "an axis-aligned " : "the ", shape),
	      aprintf(g->A, "Queries a %s signed distance field at each point", shape), NULL);
}

/* ----------------------------------------------------------------- outcodes */

/* Cohen-Sutherland outcodes of points against an axis-aligned box: one bit per
 * face, or-ed in by if/elif per axis; optionally a count of points outside. */
void
rec_outcode(Gen *g)
{
	Block *b = &g->k->body;
	int n = rng_pct(&g->rng, 50) ? 3 : 2, a, box = pick(g, 3); /* literal, lower/upper, centre/half */
	int masks = rng_pct(&g->rng, 45) ? pick(g, 4) : -1;   /* union (or), common (and), both, parity (xor) */
	bool count = rng_pct(&g->rng, 50), aug = rng_pct(&g->rng, 50), open = rng_pct(&g->rng, 30), incl = rng_pct(&g->rng, 40);
	int axis = rng_pct(&g->rng, 40) ? pick(g, 2) : -1; /* the axis of the largest (argmax) or smallest (argmin) |p| */
	Var *ax = NULL;
	Var *pts, *lo = NULL, *hi = NULL, *ctr = NULL, *half = NULL, *codes, *faces, *outside = NULL, *p, *code;
	Var *any = NULL, *all = NULL, *par = NULL, *free_ = NULL;
	double ext = 0.25 * (1 + pick(g, 3));

	nclauses = 0;
	set_launch(g, 1);
	pts = arr(g, rng_pct(&g->rng, 50) ? "points" : "positions", V(n), IO_IN);
	if (box == 1) {
		lo = scalar(g, rng_pct(&g->rng, 50) ? "lower" : "box_min", V(n));
		hi = scalar(g, lo->name[0] == 'l' ? "upper" : "box_max", V(n));
	} else if (box == 2) {
		ctr = scalar(g, rng_pct(&g->rng, 50) ? "center" : "box_center", V(n));
		half = scalar(g, rng_pct(&g->rng, 50) ? "half_extents" : "half_size", V(n));
	}
	codes = arr(g, rng_pct(&g->rng, 50) ? "codes" : "outcodes", I(), IO_OUT);
	faces = rng_pct(&g->rng, 35) ? arr(g, rng_pct(&g->rng, 50) ? "num_faces" : "face_count", I(), IO_OUT) : NULL;
	if (open)
		free_ = arr(g, rng_pct(&g->rng, 50) ? "open_faces" : "inside_bits", I(), IO_OUT);
	if (axis >= 0)
		ax = arr(g, axis ? "minor_axis" : "major_axis", I(), IO_OUT);
	if (count)
		outside = arr(g, rng_pct(&g->rng, 50) ? "num_outside" : "outside", I(), IO_ACC);
	if (masks == 0 || masks == 2)
		any = arr(g, rng_pct(&g->rng, 50) ? "union_code" : "any_code", I(), IO_ACC);
	if (masks == 1 || masks == 2)
		all = arr(g, rng_pct(&g->rng, 50) ? "common_code" : "all_code", I(), IO_ACC);
	if (masks == 3)
		par = arr(g, rng_pct(&g->rng, 50) ? "parity" : "code_parity", I(), IO_ACC);
	emit_tid(g, b);
	p = let(g, b, "p", ctr ? sub(g, load_tid(g, pts), use(g, ctr)) : load_tid(g, pts));
	code = let_mut(g, b, "code", ilit(g, 0), 63.0);
	code->nonneg = true;
	for (a = 0; a < n; a++) {
		Expr *l = lo ? comp(g, use(g, lo), a) : half ? ex_un(g->A, OP_NEG, comp(g, use(g, half), a)) : lit(g, -ext);
		Expr *h = hi ? comp(g, use(g, hi), a) : half ? comp(g, use(g, half), a) : lit(g, ext);
		Stmt *s = if_stmt(g, b, ex_cmp(g->A, incl ? OP_LE : OP_LT, comp(g, use(g, p), a), l));
		Stmt *e = st_new(g->A, S_IF);
		int bit;

		e->elif = true;
		e->e = ex_cmp(g->A, incl ? OP_GE : OP_GT, comp(g, use(g, p), a), h);
		block_push(g->A, &s->orelse, e);
		for (bit = 0; bit < 2; bit++) {
			Block *into = bit ? &e->body : &s->body;
			Expr *m = ilit(g, 1 << (2 * a + bit));

			if (aug) {
				Stmt *u = st_new(g->A, S_AUG);

				u->var = code;
				u->op = OP_BITOR;
				u->e = m;
				code->mutated = true;
				block_push(g->A, into, u);
			} else
				assign(g, into, code, ex_bin(g->A, OP_BITOR, use(g, code), m, I(), 63.0));
		}
	}
	store(g, b, codes, use(g, code));
	if (faces) {
		store(g, b, faces, call1(g, "wp.bit_count", I(), 6.0, use(g, code)));
		clause(g, "with the number of faces crossed");
	}
	if (free_) {
		store(g, b, free_, ex_bin(g->A, OP_BITAND, ex_un(g->A, OP_INVERT, use(g, code)), ilit(g, (1 << (2 * n)) - 1), I(), 63.0));
		clause(g, "with the complement of the code over the box's faces");
	}
	if (ax) {
		store(g, b, ax, call1(g, "int", I(), 3.0, call1(g, axis ? "wp.argmin" : "wp.argmax", ty_make(TY_UINT, 0, 1), 3.0,
								 call1(g, "wp.abs", V(n), 1.0, use(g, p)))));
		clause(g, axis ? "with the axis the point is closest to the centre along" : "with the axis of its largest coordinate");
	}
	if (outside) {
		Stmt *s = if_stmt(g, b, ex_cmp(g->A, OP_NE, use(g, code), ilit(g, 0)));

		atomic(g, &s->body, rng_pct(&g->rng, 50) ? "wp.atomic_add" : NULL, outside, ilit(g, 0), ilit(g, 1));
		clause(g, "counting the points outside");
	}
	if (any) {
		atomic(g, b, "wp.atomic_or", any, ilit(g, 0), use(g, code));
		clause(g, "or-ing every code into one mask");
	}
	if (all) {
		atomic(g, b, "wp.atomic_and", all, ilit(g, 0), use(g, code));
		clause(g, "and-ing the codes for a trivial reject of the whole set");
	}
	if (par) {
		atomic(g, b, "wp.atomic_xor", par, ilit(g, 0), use(g, code));
		clause(g, "xor-ing the codes into a parity mask");
	}
	name(g, ONE(((const char *const[]){ "classify", "clip", "flag" })), pts->name);
	heads(g, aprintf(g->A, "Computes Cohen-Sutherland outcodes of %d-D points against an axis-aligned box, one bit per face", n),
	      aprintf(g->A, "Flags which faces of a%s box each point lies beyond, as bits of an integer code",
			   box == 0 ? " fixed" : box == 2 ? " centred" : ""),
	      NULL);
}

/* ----------------------------------------------------------------- sampling */

/* Random directions and points: per-thread RNG, a sampler (sphere, hemisphere,
 * disk, square, cube), optionally jittered points around centres and a Monte Carlo
 * sum. */
void
rec_sampling(Gen *g)
{
	Block *b = &g->k->body;
	static const struct { const char *fn, *what; int n; } smp[] = {
		{ "wp.sample_unit_sphere_surface", "uniform directions on the unit sphere", 3 },
		{ "wp.sample_unit_hemisphere_surface", "directions on the unit hemisphere", 3 },
		{ "wp.sample_unit_sphere", "points inside the unit ball", 3 },
		{ "wp.sample_unit_cube", "points in the unit cube", 3 },
		{ "wp.sample_unit_disk", "points in the unit disk", 2 },
		{ "wp.sample_unit_square", "points in the unit square", 2 },
		{ "wp.sample_unit_ring", "points on the unit ring", 2 },
		{ "wp.sample_triangle", "uniform barycentric coordinates on a triangle", 2 },
		{ "wp.sample_unit_hemisphere", "points inside the unit half-ball", 3 },
	};
	int s = pick(g, 9), n = smp[s].n, nsamp = rng_pct(&g->rng, 30) ? 2 << pick(g, 3) : 1, integrand = pick(g, 3);
	bool jitter = rng_pct(&g->rng, 50), mc = rng_pct(&g->rng, 40), radii = jitter && rng_pct(&g->rng, 40);
	bool counts = rng_pct(&g->rng, 25), offset = rng_pct(&g->rng, 30), gauss = rng_pct(&g->rng, 25), choose = rng_pct(&g->rng, 20), flip = n == 3 && s != 1 && s != 8 && rng_pct(&g->rng, 30);
	Var *seed, *centers = NULL, *radius = NULL, *out, *est = NULL, *st, *d, *cnt = NULL, *gz = NULL, *ch = NULL;
	Expr *f, *init;

	nclauses = 0;
	set_launch(g, 1);
	seed = scalar(g, "seed", I());
	if (jitter) {
		centers = arr(g, rng_pct(&g->rng, 50) ? "centers" : "anchors", V(n), IO_IN);
		radius = radii ? arr(g, "radii", F(), IO_IN) : scalar(g, "radius", F());
	}
	out = arr(g, jitter ? "samples" : nsamp > 1 ? "means" : (n == 3 ? "dirs" : "points"), V(n), IO_OUT);
	if (counts)
		cnt = arr(g, rng_pct(&g->rng, 50) ? "counts" : "events", I(), IO_OUT);
	if (gauss)
		gz = arr(g, rng_pct(&g->rng, 50) ? "normal" : "z", F(), IO_OUT);
	if (choose)
		ch = arr(g, rng_pct(&g->rng, 50) ? "choice" : "picks", I(), IO_OUT);
	if (mc)
		est = arr(g, rng_pct(&g->rng, 50) ? "estimate" : "integral", F(), IO_ACC);
	emit_tid(g, b);
	/* the per-thread stream: (seed, thread) or an offset seed, as in Warp's examples */
	init = offset ? ex_call(g->A, "wp.rand_init", ty_make(TY_UINT, 0, 1), 0, 1,
				add(g, mul(g, use(g, seed), ilit(g, 7919)), use(g, g->tid[0])))
		      : ex_call(g->A, "wp.rand_init", ty_make(TY_UINT, 0, 1), 0, 2, use(g, seed), use(g, g->tid[0]));
	st = let(g, b, rng_pct(&g->rng, 50) ? "state" : "rng", init);
	if (nsamp > 1) {
		Stmt *fl = st_new(g->A, S_FOR);
		Var *sv, *acc;
		double z[3] = { 0, 0, 0 };
		Stmt *a;
		Expr *e;

		acc = def_local(g, b, "acc", vlit(g, n, z));
		fl->idx = aalloc(g->A, sizeof(Expr *) * 3);
		fl->idx[0] = ilit(g, nsamp);
		fl->nidx = 1;
		fl->trips = nsamp;
		sv = new_var(g, "s", I(), V_LOOP);
		sv->bound = sv->base = nsamp;
		fl->var = sv;
		block_push(g->A, b, fl);
		e = ex_call(g->A, smp[s].fn, V(n), 1.0, 1, use(g, st));
		a = st_new(g->A, S_AUG);
		a->var = acc;
		a->op = OP_ADD;
		a->e = e;
		acc->mutated = true;
		var_assigned(g, acc, e);
		block_push(g->A, &fl->body, a);
		acc->bound = acc->base = nsamp;
		d = let(g, b, "mean", mul(g, use(g, acc), lit(g, 1.0 / nsamp)));
		clause(g, aprintf(g->A, "averaging %d draws per thread", nsamp));
	} else
		d = let(g, b, n == 3 ? "d" : "s", ex_call(g->A, smp[s].fn, V(n), 1.0, 1, use(g, st)));
	if (flip) { /* mirrored into the upper half space */
		Var *h = let(g, b, "h", ex_call(g->A, "wp.where", V(3), 1.0, 3, ex_cmp(g->A, OP_LT, comp(g, use(g, d), 2), lit(g, 0.0)),
						ex_un(g->A, OP_NEG, use(g, d)), use(g, d)));

		d = h;
		clause(g, "mirrored into the upper half space");
	}
	if (jitter) {
		store(g, b, out, add(g, load_tid(g, centers), mul(g, use(g, d), radii ? load_tid(g, radius) : use(g, radius))));
		clause(g, radii ? "scattered around per-thread centres by per-thread radii" : "scattered around per-thread centres");
	} else
		store(g, b, out, use(g, d));
	if (cnt) {
		double lam = 0.5 * (1 + pick(g, 8));

		store(g, b, cnt, call1(g, "int", I(), 40.0, ex_call(g->A, "wp.poisson", ty_make(TY_UINT, 0, 1), 40.0, 2, use(g, st), lit(g, lam))));
		clause(g, aprintf(g->A, "drawing a Poisson count of mean %g per thread", lam));
	}
	if (ch) { /* one of k options, uniformly: randu over [0, k) as uint32 */
		int k = 2 + pick(g, 7);
		Expr *lo = call1(g, "wp.uint32", ty_make(TY_UINT, 0, 1), 0.0, ilit(g, 0)), *hi = call1(g, "wp.uint32", ty_make(TY_UINT, 0, 1), k, ilit(g, k));

		store(g, b, ch, call1(g, "int", I(), k, ex_call(g->A, "wp.randu", ty_make(TY_UINT, 0, 1), k, 3, use(g, st), lo, hi)));
		clause(g, aprintf(g->A, "picking one of %d options at random", k));
	}
	if (gz) { /* a standard normal by inverting its CDF: sqrt(2) erfinv(2u - 1) = -sqrt(2) erfcinv(2u) */
		Var *u = let(g, b, "u", ex_call(g->A, "wp.randf", F(), 1.0, 3, use(g, st), lit(g, 0.001), lit(g, 0.999)));

		if (rng_pct(&g->rng, 50))
			store(g, b, gz, mul(g, lit(g, -1.41421356), call1(g, "wp.erfcinv", F(), 3.0, mul(g, lit(g, 2.0), use(g, u)))));
		else
			store(g, b, gz, mul(g, lit(g, 1.41421356), call1(g, "wp.erfinv", F(), 3.0, sub(g, mul(g, lit(g, 2.0), use(g, u)), lit(g, 1.0)))));
		clause(g, "with a normal variate by the inverse CDF");
	}
	if (est) {
		if (integrand == 0)
			f = n == 3 ? call1(g, "wp.abs", F(), 1.0, comp(g, use(g, d), 2)) : call2(g, "wp.dot", F(), 2.0, use(g, d), use(g, d));
		else if (integrand == 1)
			f = call1(g, "wp.exp", F(), 1.0, ex_un(g->A, OP_NEG, call1(g, "wp.length_sq", F(), 3.0, use(g, d))));
		else
			f = call1(g, "wp.cos", F(), 1.0, comp(g, use(g, d), 0));
		atomic(g, b, "wp.atomic_add", est, ilit(g, 0), mul(g, f, lit(g, 1.0 / 64.0)));
		clause(g, "accumulating a Monte Carlo estimate");
	}
	name(g, ONE(((const char *const[]){ "sample", "draw", "generate" })), out->name);
	heads(g, aprintf(g->A, "Draws %s with a per-thread random state", smp[s].what),
	      aprintf(g->A, "Samples %s, one per thread", smp[s].what), NULL);
}

/* ----------------------------------------------------------------- rigid bodies */

static Type Q(void) { return ty_make(TY_QUAT, PREC_F32, 4); }
static Type X(void) { return ty_make(TY_XFORM, PREC_F32, 7); }

static Type M(int n) { return ty_make(TY_MAT, PREC_F32, n); }

/* name1, name2[, name3] = fn(a): an unpack of a builtin returning a tuple */
static void
unpack(Gen *g, Block *b, Expr *call, int n, Var **v, const char *const *names, const Type *t)
{
	Stmt *u = st_new(g->A, S_UNPACK);
	int i;

	u->e = call;
	u->nvars = n;
	u->vars = aalloc(g->A, sizeof(Var *) * (size_t)n);
	for (i = 0; i < n; i++) {
		v[i] = new_var(g, names[i], t[i], V_LOCAL);
		v[i]->bound = v[i]->base = 4.0;
		u->vars[i] = v[i];
	}
	block_push(g->A, b, u);
	for (i = 0; i < n; i++)
		scope_push_var(g, v[i]);
}

/* The optional extra output of rec_rigid: 0 a 3x3 rotation, 1 roll-pitch-yaw, 2 a
 * 4x4 matrix, 3 ZYX Euler angles, 4 the rotation vector (axis times angle). */
static Var *
rigid_extra(Gen *g, int mk)
{
	switch (mk) {
	case 0: return arr(g, "rotation", ty_make(TY_MAT, PREC_F32, 3), IO_OUT);
	case 1: return arr(g, "rpy", V(3), IO_OUT);
	case 2: return arr(g, rng_pct(&g->rng, 50) ? "world_matrix" : "pose_matrix", ty_make(TY_MAT, PREC_F32, 4), IO_OUT);
	case 3: return arr(g, "euler", V(3), IO_OUT);
	default: return arr(g, rng_pct(&g->rng, 50) ? "rot_vec" : "axis_angle", V(3), IO_OUT);
	}
}

/* The pose X1 of translation p and rotation q: wp.transform(p, q), or
 * built in place from the identity with the two setters. */
static Var *
pose_of(Gen *g, Block *b, Var *p, Var *q)
{
	Var *x;
	Stmt *s;
	int k;

	if (!rng_pct(&g->rng, 30))
		return let(g, b, "X1", ex_call(g->A, "wp.transform", X(), 4.0, 2, use(g, p), use(g, q)));
	x = let_mut(g, b, "X1", ex_call(g->A, "wp.transform_identity", X(), 0.0, 0), 4.0);
	for (k = 0; k < 2; k++) {
		s = st_new(g->A, S_SETATTR);
		s->var = x;
		s->s = k ? "wp.transform_set_rotation" : "wp.transform_set_translation";
		s->e = use(g, k ? q : p);
		block_push(g->A, b, s);
	}
	x->mutated = true;
	x->reassigned = true;
	return x;
}

/* Rigid-body poses: integrate a pose from its velocities, blend two poses (slerp
 * and lerp), or express one pose relative to another; optionally the rotation
 * matrix of the result. */
void
rec_rigid(Gen *g)
{
	Block *b = &g->k->body;
	int mode = pick(g, 3), mk = pick(g, 5); /* the extra output: see rigid_extra */
	bool mat = rng_pct(&g->rng, 60), aa = rng_pct(&g->rng, 45), body = rng_pct(&g->rng, 35), tarr = rng_pct(&g->rng, 35);
	bool split = rng_pct(&g->rng, 40), ease = rng_pct(&g->rng, 35), compose = rng_pct(&g->rng, 50);
	bool eul = rng_pct(&g->rng, 40), hinge = rng_pct(&g->rng, 55);
	int viam = mode == 2 && rng_pct(&g->rng, 40) ? 1 + pick(g, 2) : 0; /* through 4x4 matrices: from_matrix, decompose */
	Var *so = NULL;
	int tw = pick(g, 3), hax = pick(g, 3);
	Var *scl = NULL, *jo = NULL;
	Var *pa, *pout, *p, *q, *p1, *q1, *mo = NULL, *lpts = NULL, *local = NULL;

	nclauses = 0;
	set_launch(g, 1);
	pa = arr(g, mode == 2 ? "parent_pose" : ONE(((const char *const[]){ "body_q", "poses", "body_pose" })), X(), IO_IN);
	if (rng_pct(&g->rng, 35))
		lpts = arr(g, rng_pct(&g->rng, 50) ? "local_points" : "body_com", V(3), IO_IN);
	if (mode == 0) {
		Var *w = arr(g, rng_pct(&g->rng, 50) ? "omega" : "ang_vel", V(3), IO_IN), *v = arr(g, rng_pct(&g->rng, 50) ? "lin_vel" : "body_v", V(3), IO_IN);
		Var *dt = scalar(g, "dt", F()), *wv, *spin;

		pout = arr(g, rng_pct(&g->rng, 50) ? "body_q_new" : "poses_out", X(), IO_OUT);
		if (mat)
			mo = rigid_extra(g, mk);
		if (lpts)
			local = arr(g, "world_points", V(3), IO_OUT);
		emit_tid(g, b);
		{
			Var *xf = let(g, b, "X", load_tid(g, pa));

			p = let(g, b, "p", call1(g, "wp.transform_get_translation", V(3), 1.0, use(g, xf)));
			q = let(g, b, "q", call1(g, "wp.normalize", Q(), 1.0, call1(g, "wp.transform_get_rotation", Q(), 1.0, use(g, xf))));
		}
		wv = let(g, b, "w", load_tid(g, w));
		if (body) { /* the linear velocity is given in the body frame */
			p1 = let(g, b, "p1", add(g, use(g, p), mul(g, call2(g, "wp.quat_rotate", V(3), 1.0, use(g, q), load_tid(g, v)), use(g, dt))));
			clause(g, "rotating the body-frame velocity into the world");
		} else
			p1 = let(g, b, "p1", add(g, use(g, p), mul(g, load_tid(g, v), use(g, dt))));
		if (aa) { /* rotate by |w| dt about w */
			Var *ang = let(g, b, rng_pct(&g->rng, 50) ? "angle" : "theta", mul(g, call1(g, "wp.length", F(), 2.0, use(g, wv)), use(g, dt)));
			Var *dq = let(g, b, "dq", ex_call(g->A, "wp.quat_from_axis_angle", Q(), 1.0, 2, call1(g, "wp.normalize", V(3), 1.0, use(g, wv)), use(g, ang)));

			q1 = let(g, b, "q1", call1(g, "wp.normalize", Q(), 1.0, ex_bin(g->A, OP_MUL, use(g, dq), use(g, q), Q(), 1.0)));
			clause(g, "turning each body by its angular speed about the spin axis");
		} else {
			spin = let(g, b, "spin", ex_call(g->A, "wp.quat", Q(), 1.0, 4, comp(g, use(g, wv), 0), comp(g, use(g, wv), 1), comp(g, use(g, wv), 2), lit(g, 0.0)));
			q1 = let(g, b, "q1", call1(g, "wp.normalize", Q(), 1.0,
						   add(g, use(g, q), mul(g, ex_bin(g->A, OP_MUL, use(g, spin), use(g, q), Q(), 1.0), mul(g, lit(g, 0.5), use(g, dt))))));
		}
		name(g, ONE(((const char *const[]){ "integrate", "advance" })), "bodies");
		heads(g, "Integrates rigid-body poses from linear and angular velocity, renormalising the orientation quaternion",
		      "Advances each body's position and orientation by one time step dt", NULL);
	} else if (mode == 1) {
		Var *pb = eul ? NULL : arr(g, rng_pct(&g->rng, 50) ? "target_pose" : "next_pose", X(), IO_IN);
		Var *tp = eul ? arr(g, "target_pos", V(3), IO_IN) : NULL, *te = eul ? arr(g, "target_euler", V(3), IO_IN) : NULL;
		Var *alpha = tarr ? arr(g, rng_pct(&g->rng, 50) ? "weights" : "blend", F(), IO_IN) : scalar(g, rng_pct(&g->rng, 50) ? "alpha" : "t", F());
		Var *al;
		Var *xa, *xb;

		pout = arr(g, "blended", X(), IO_OUT);
		if (mat)
			mo = rigid_extra(g, mk);
		if (lpts)
			local = arr(g, "world_points", V(3), IO_OUT);
		emit_tid(g, b);
		xa = let(g, b, "Xa", load_tid(g, pa));
		xb = pb ? let(g, b, "Xb", load_tid(g, pb)) : NULL;
		al = tarr ? let(g, b, "a", load_tid(g, alpha)) : alpha;
		if (tarr)
			clause(g, "with a blend weight per body");
		if (ease) {
			al = let(g, b, "s", ex_call(g->A, "wp.smoothstep", F(), 1.0, 3, lit(g, 0.0), lit(g, 1.0), use(g, al)));
			clause(g, "easing the fraction with a smoothstep");
		}
		p1 = let(g, b, "p", ex_call(g->A, "wp.lerp", V(3), 2.0, 3, call1(g, "wp.transform_get_translation", V(3), 1.0, use(g, xa)),
					     xb ? call1(g, "wp.transform_get_translation", V(3), 1.0, use(g, xb)) : load_tid(g, tp), use(g, al)));
		{
			Expr *a3[3];

			a3[0] = call1(g, "wp.normalize", Q(), 1.0, call1(g, "wp.transform_get_rotation", Q(), 1.0, use(g, xa)));
			if (xb)
				a3[1] = call1(g, "wp.normalize", Q(), 1.0, call1(g, "wp.transform_get_rotation", Q(), 1.0, use(g, xb)));
			else { /* the target's orientation as Euler angles */
				a3[1] = ex_call(g->A, "wp.quat_from_euler", Q(), 1.0, 4, load_tid(g, te), ilit(g, 0), ilit(g, 1), ilit(g, 2));
				clause(g, "the target given by a position and XYZ Euler angles");
			}
			a3[2] = use(g, al);
			q1 = let(g, b, "q", ex_calln(g->A, "wp.quat_slerp", Q(), 1.0, 3, a3));
		}
		name(g, ONE(((const char *const[]){ "blend", "interpolate" })), "poses");
		heads(g, "Interpolates between two rigid poses, lerping the translations and slerping the rotations",
		      "Blends each pose toward a target pose by a fraction alpha", NULL);
	} else {
		Var *pc = arr(g, rng_pct(&g->rng, 50) ? "child_pose" : "body_pose", X(), IO_IN), *xa, *xr;

		pout = arr(g, rng_pct(&g->rng, 50) ? "relative" : "local_pose", X(), IO_OUT);
		if (mat)
			mo = rigid_extra(g, mk);
		if (lpts)
			local = arr(g, "world_points", V(3), IO_OUT);
		emit_tid(g, b);
		xa = let(g, b, "X_p", load_tid(g, pa));
		if (aa) { /* by parts: the parent's inverse rotation applied to the offset and to the child's rotation */
			Var *xc = let(g, b, "X_c", load_tid(g, pc));
			Var *qa = let(g, b, "q_p", call1(g, "wp.normalize", Q(), 1.0, call1(g, "wp.transform_get_rotation", Q(), 1.0, use(g, xa))));

			p1 = let(g, b, "p", call2(g, "wp.quat_rotate_inv", V(3), 4.0, use(g, qa),
						  sub(g, call1(g, "wp.transform_get_translation", V(3), 1.0, use(g, xc)),
						      call1(g, "wp.transform_get_translation", V(3), 1.0, use(g, xa)))));
			q1 = let(g, b, "q", call1(g, "wp.normalize", Q(), 1.0,
						  ex_bin(g->A, OP_MUL, call1(g, "wp.quat_inverse", Q(), 1.0, use(g, qa)),
							 call1(g, "wp.transform_get_rotation", Q(), 1.0, use(g, xc)), Q(), 1.0)));
			clause(g, "splitting the product into a rotated offset and a relative rotation");
		} else if (viam) { /* as a product of 4x4 matrices, converted back */
			Var *m = let(g, b, "M", ex_bin(g->A, OP_MATMUL,
						      call1(g, "wp.transform_to_matrix", M(4), 4.0, call1(g, "wp.transform_inverse", X(), 2.0, use(g, xa))),
						      call1(g, "wp.transform_to_matrix", M(4), 4.0, load_tid(g, pc)), M(4), 16.0));

			if (viam == 1) {
				xr = let(g, b, "X_rel", call1(g, "wp.transform_from_matrix", X(), 16.0, use(g, m)));
				p1 = let(g, b, "p", call1(g, "wp.transform_get_translation", V(3), 16.0, use(g, xr)));
				q1 = let(g, b, "q", call1(g, "wp.normalize", Q(), 1.0, call1(g, "wp.transform_get_rotation", Q(), 1.0, use(g, xr))));
			} else {
				Var *pqs[3];
				static const char *const nm[3] = { "p", "q", "s" };
				Type ty[3];

				ty[0] = V(3), ty[1] = Q(), ty[2] = V(3);
				unpack(g, b, call1(g, "wp.transform_decompose", V(3), 16.0, use(g, m)), 3, pqs, nm, ty);
				p1 = pqs[0];
				q1 = pqs[1];
				so = arr(g, rng_pct(&g->rng, 50) ? "scales" : "scale_out", V(3), IO_OUT);
				store(g, b, so, use(g, pqs[2]));
			}
			clause(g, "through the product of their 4x4 matrices");
		} else {
			Expr *inv = call1(g, "wp.transform_inverse", X(), 2.0, use(g, xa));

			xr = let(g, b, "X_rel", ex_call(g->A, "wp.transform_multiply", X(), 4.0, 2, inv, load_tid(g, pc)));
			p1 = let(g, b, "p", call1(g, "wp.transform_get_translation", V(3), 4.0, use(g, xr)));
			q1 = let(g, b, "q", call1(g, "wp.normalize", Q(), 1.0, call1(g, "wp.transform_get_rotation", Q(), 1.0, use(g, xr))));
		}
		name(g, ONE(((const char *const[]){ "compute", "express" })), "relative_poses");
		heads(g, "Expresses each child pose in its parent's frame with an inverse and a transform product",
		      "Computes the pose of one frame relative to another, re-normalising the rotation", NULL);
	}
	if (local || (mo && mo->elem.kind == TY_MAT && mo->elem.n == 4)) {
		Var *x1 = pose_of(g, b, p1, q1);

		if (!local) {
			store(g, b, pout, use(g, x1));
			if (compose) {
				scl = scalar(g, "scale", V(3));
				store(g, b, mo, ex_call(g->A, "wp.transform_compose", ty_make(TY_MAT, PREC_F32, 4), 4.0, 3, use(g, p1), use(g, q1), use(g, scl)));
				clause(g, "also writing a scaled 4x4 matrix of the pose");
			} else {
				store(g, b, mo, call1(g, "wp.transform_to_matrix", ty_make(TY_MAT, PREC_F32, 4), 4.0, use(g, x1)));
				clause(g, "also writing the pose as a 4x4 matrix");
			}
			mo = NULL;
		} else {
		store(g, b, pout, use(g, x1));
		store(g, b, local, ex_call(g->A, rng_pct(&g->rng, 60) ? "wp.transform_point" : "wp.transform_vector", V(3), 12.0, 2,
					 use(g, x1), load_tid(g, lpts)));
		clause(g, "mapping body-frame points into the world");
		if (mo && mo->elem.kind == TY_MAT && mo->elem.n == 4) {
			if (compose) {
				scl = scalar(g, "scale", V(3));
				store(g, b, mo, ex_call(g->A, "wp.transform_compose", ty_make(TY_MAT, PREC_F32, 4), 4.0, 3, use(g, p1), use(g, q1), use(g, scl)));
				clause(g, "also writing a scaled 4x4 matrix of the pose");
			} else {
				store(g, b, mo, call1(g, "wp.transform_to_matrix", ty_make(TY_MAT, PREC_F32, 4), 4.0, use(g, x1)));
				clause(g, "also writing the pose as a 4x4 matrix");
			}
			mo = NULL;
		}
		}
	} else if (split) { /* positions and rotations in arrays of their own */
		static const char *const pn[3] = { "new_positions", "blended_p", "rel_pos" }, *const qn[3] = { "new_rotations", "blended_q", "rel_rot" };
		Var *ro = arr(g, qn[mode], Q(), IO_OUT);

		pout->elem = V(3);
		pout->name = pn[mode];
		store(g, b, pout, use(g, p1));
		store(g, b, ro, use(g, q1));
		clause(g, "writing positions and rotations to separate arrays");
	} else
		store(g, b, pout, ex_call(g->A, "wp.transform", X(), 4.0, 2, use(g, p1), use(g, q1)));
	if (mo && mo->elem.kind == TY_MAT) {
		store(g, b, mo, call1(g, "wp.quat_to_matrix", ty_make(TY_MAT, PREC_F32, 3), 1.0, use(g, q1)));
		clause(g, "also writing the rotation as a 3x3 matrix");
	} else if (mo && mk == 3) {
		store(g, b, mo, ex_call(g->A, "wp.quat_to_euler", V(3), 4.0, 4, use(g, q1), ilit(g, 2), ilit(g, 1), ilit(g, 0)));
		clause(g, "also writing ZYX Euler angles");
	} else if (mo && mk == 4) { /* the rotation vector, axis times angle */
		Stmt *u = st_new(g->A, S_UNPACK);
		Var *ax = new_var(g, "axis", V(3), V_LOCAL), *an = new_var(g, "angle", F(), V_LOCAL);

		ax->bound = ax->base = 1.0;
		an->bound = an->base = 4.0;
		u->e = call1(g, "wp.quat_to_axis_angle", V(3), 1.0, use(g, q1));
		u->nvars = 2;
		u->vars = aalloc(g->A, sizeof(Var *) * 2);
		u->vars[0] = ax;
		u->vars[1] = an;
		block_push(g->A, b, u);
		scope_push_var(g, ax);
		scope_push_var(g, an);
		store(g, b, mo, mul(g, use(g, ax), use(g, an)));
		clause(g, "also writing the rotation vector");
	} else if (mo) {
		store(g, b, mo, call1(g, "wp.quat_to_rpy", V(3), 4.0, use(g, q1)));
		clause(g, "also writing roll, pitch and yaw angles");
	}
	if (mode == 2 && hinge) { /* swing-twist about a joint axis */
		double e[3] = { 0, 0, 0 };
		static const char *const fn[3] = { "wp.quat_twist", "wp.quat_twist_angle", "wp.quat_twist_angle_signed" };
		Expr *te;

		e[hax] = 1.0;
		jo = arr(g, tw == 0 ? "twist" : "joint_angle", tw == 0 ? Q() : F(), IO_OUT);
		te = call2(g, fn[tw], tw == 0 ? Q() : F(), 4.0, vlit(g, 3, e), use(g, q1));
		store(g, b, jo, te);
		clause(g, tw == 0 ? "with the twist of the relative rotation about a joint axis" : "with the joint angle about a hinge axis");
	}
}

/* ----------------------------------------------------------------- losses */

/* A per-element loss summed into one accumulator with its gradient per element:
 * squared error (float or vector), Huber, or logistic loss of a score. */
void
rec_loss(Gen *g)
{
	Block *b = &g->k->body;
	int kind = pick(g, 7); /* mse, mse of vectors, huber, logistic, L1, log-cosh, hinge */
	bool weighted = rng_pct(&g->rng, 35), scaled = rng_pct(&g->rng, 50), per = rng_pct(&g->rng, 30);
	bool clipg = kind != 1 && rng_pct(&g->rng, 30), masked = !weighted && rng_pct(&g->rng, 30);
	Var *mask = NULL;
	Type t = kind == 1 ? V(rng_pct(&g->rng, 60) ? 3 : 2) : F();
	Var *pred, *tgt, *w = NULL, *sc = NULL, *loss, *grad, *diff, *l, *gr, *pl = NULL;
	static const char *const lname[] = { "mse_loss", "mse_loss", "huber_loss", "logistic_loss", "mae_loss", "log_cosh_loss", "hinge_loss" };
	static const char *const what[] = { "squared-error loss", "squared-error loss", "Huber loss", "logistic loss",
					    "mean absolute error", "log-cosh loss", "hinge loss" };

	nclauses = 0;
	set_launch(g, 1);
	pred = arr(g, kind == 3 || kind == 6 ? "scores" : (rng_pct(&g->rng, 50) ? "pred" : "predictions"), t, IO_IN);
	tgt = arr(g, kind == 3 || kind == 6 ? "labels" : (rng_pct(&g->rng, 50) ? "target" : "targets"), t, IO_IN);
	if (weighted)
		w = arr(g, rng_pct(&g->rng, 50) ? "weights" : "sample_weight", F(), IO_IN);
	if (masked)
		mask = arr(g, rng_pct(&g->rng, 50) ? "mask" : "valid", I(), IO_IN);
	if (scaled)
		sc = scalar(g, rng_pct(&g->rng, 50) ? "inv_n" : "scale", F());
	loss = arr(g, "loss", F(), IO_ACC);
	grad = arr(g, rng_pct(&g->rng, 50) ? "dpred" : "dloss", t, IO_OUT);
	if (per)
		pl = arr(g, rng_pct(&g->rng, 50) ? "losses" : "per_sample", F(), IO_OUT);
	emit_tid(g, b);
	if (kind == 6) { /* max(0, 1 - y z) and its subgradient */
		Var *y = let(g, b, "y", load_tid(g, tgt));
		Var *m = let(g, b, "margin", sub(g, lit(g, 1.0), mul(g, use(g, y), load_tid(g, pred))));

		l = let(g, b, "l", call2(g, "wp.max", F(), 2.0, use(g, m), lit(g, 0.0)));
		gr = let(g, b, "dl", ex_call(g->A, "wp.where", F(), 1.0, 3, ex_cmp(g->A, OP_GT, use(g, m), lit(g, 0.0)),
					     ex_un(g->A, OP_NEG, use(g, y)), lit(g, 0.0)));
	} else if (kind == 3) { /* labels in [-1, 1] act as signed targets: loss = log(1 + exp(-y z)) */
		Var *y = let(g, b, "y", load_tid(g, tgt));
		Var *m = let(g, b, "margin", mul(g, use(g, y), load_tid(g, pred)));
		Var *e = let(g, b, "e", call1(g, "wp.exp", F(), 3.0, ex_un(g->A, OP_NEG, use(g, m))));

		Var *den = let(g, b, rng_pct(&g->rng, 50) ? "denom" : "one_plus_e", add(g, lit(g, 1.0), use(g, e)));

		l = let(g, b, "l", call1(g, "wp.log", F(), 2.0, use(g, den)));
		gr = let(g, b, "dl", dvd(g, mul(g, ex_un(g->A, OP_NEG, use(g, y)), use(g, e)), use(g, den), 3.0));
	} else {
		diff = let(g, b, rng_pct(&g->rng, 50) ? "diff" : "r", sub(g, load_tid(g, pred), load_tid(g, tgt)));
		if (kind == 2) {
			double delta = 0.25 * (1 + pick(g, 4));
			Var *a = let(g, b, "a", call1(g, "wp.abs", F(), 2.0, use(g, diff)));
			Stmt *s;

			l = let_mut(g, b, "l", mul(g, mul(g, lit(g, 0.5), use(g, diff)), use(g, diff)), 2.0);
			gr = let_mut(g, b, "dl", use(g, diff), 2.0);
			s = if_stmt(g, b, ex_cmp(g->A, OP_GT, use(g, a), lit(g, delta)));
			assign(g, &s->body, l, mul(g, lit(g, delta), sub(g, use(g, a), lit(g, 0.5 * delta))));
			assign(g, &s->body, gr, mul(g, lit(g, delta), call1(g, "wp.sign", F(), 1.0, use(g, diff))));
			clause(g, aprintf(g->A, "with a threshold of %g for the linear branch", delta));
		} else if (kind == 4) {
			l = let(g, b, "l", call1(g, "wp.abs", F(), 2.0, use(g, diff)));
			gr = let(g, b, "dl", call1(g, "wp.sign", F(), 1.0, use(g, diff)));
		} else if (kind == 5) {
			l = let(g, b, "l", call1(g, "wp.log", F(), 2.0, call1(g, "wp.cosh", F(), 4.0, use(g, diff))));
			gr = let(g, b, "dl", call1(g, "wp.tanh", F(), 1.0, use(g, diff)));
		} else {
			l = let(g, b, "l", kind == 1 ? call2(g, "wp.dot", F(), 8.0, use(g, diff), use(g, diff)) : mul(g, use(g, diff), use(g, diff)));
			gr = let(g, b, "dl", mul(g, lit(g, 2.0), use(g, diff)));
		}
	}
	{
		Expr *le = use(g, l), *ge = use(g, gr);

		if (w) {
			Var *wi = let(g, b, "wi", load_tid(g, w));

			le = mul(g, use(g, wi), le);
			ge = mul(g, use(g, wi), ge);
			clause(g, "weighting each sample");
		}
		if (mask) {
			Var *keep = let(g, b, "keep", ex_call(g->A, "wp.where", F(), 1.0, 3, ex_cmp(g->A, OP_GT, load_tid(g, mask), ilit(g, 0)),
							     lit(g, 1.0), lit(g, 0.0)));

			le = mul(g, use(g, keep), le);
			ge = mul(g, use(g, keep), ge);
			clause(g, "ignoring masked-out samples");
		}
		if (clipg) {
			ge = ex_call(g->A, "wp.clamp", F(), 1.0, 3, ge, lit(g, -1.0), lit(g, 1.0));
			clause(g, "clipping the gradient to unit magnitude");
		}
		if (sc) {
			le = mul(g, le, use(g, sc));
			ge = mul(g, ge, use(g, sc));
		}
		if (pl) {
			Var *lv = let(g, b, "li", le);

			le = use(g, lv);
			store(g, b, pl, use(g, lv));
			clause(g, "keeping each sample's loss");
		}
		atomic(g, b, "wp.atomic_add", loss, ilit(g, 0), le);
		store(g, b, grad, ge);
	}
	name(g, ONE(((const char *const[]){ "compute", "eval", "accumulate" })), lname[kind]);
	heads(g, aprintf(g->A, "Sums a %s over all elements into one value with an atomic add and writes its gradient per element", what[kind]),
	      aprintf(g->A, "Evaluates the %s of each prediction and its derivative", what[kind]), NULL);
}

/* ----------------------------------------------------------------- image filters */

/* A window loop, `for name in range(2 * r + 1)` (offs) or `range(-r, r + 1)`, not yet
 * placed; its variable is the loop's var. */
static Stmt *
window_for(Gen *g, bool offs, int r, const char *name)
{
	Arena *A = g->A;
	Stmt *f = st_new(A, S_FOR);
	Var *v;

	f->idx = aalloc(A, sizeof(Expr *) * 3);
	if (offs) {
		f->idx[0] = ilit(g, 2 * r + 1);
		f->nidx = 1;
	} else {
		f->idx[0] = ilit(g, -r);
		f->idx[1] = ilit(g, r + 1);
		f->nidx = 2;
	}
	f->trips = 2 * r + 1;
	v = new_var(g, name, I(), V_LOOP);
	v->bound = v->base = 2 * r;
	f->var = v;
	return f;
}

/* A (2r+1)^2 window over a 2-D image with clamped borders: box or Gaussian
 * weights (normalised by a constant kgen sums), on a grey or colour image;
 * optionally an unsharp mask instead of the blur. */
void
rec_filter(Gen *g)
{
	Block *b = &g->k->body;
	Arena *A = g->A;
	int r = rng_pct(&g->rng, 60) ? 1 : 2, di, dj;
	bool gauss = rng_pct(&g->rng, 50), colour = rng_pct(&g->rng, 40), sharpen = rng_pct(&g->rng, 30);
	bool sep = rng_pct(&g->rng, 40); /* one pass of a separable filter along axis ax */
	bool offs = rng_pct(&g->rng, 40);  /* range(2 * r + 1) and an offset di - r, not range(-r, r + 1) */
	bool wsum = rng_pct(&g->rng, 35);  /* normalised by the weights' running sum, not by a literal */
	bool rgba = colour && rng_pct(&g->rng, 35), clamp01 = !colour && !sharpen && rng_pct(&g->rng, 30);
	int ax = pick(g, 2);
	static const double ks[] = { 0.25, 0.5, 1.0 };
	double k = ks[pick(g, 3)], total = 0;
	Type t = colour ? V(rgba ? 4 : 3) : F();
	Var *img, *out, *amount = NULL, *acc, *vi, *vj, *ii, *jj, *w = NULL, *ws = NULL, *oi, *oj;
	Stmt *fi, *fj, *a;
	Expr *e, *idx[2];

	nclauses = 0;
	set_launch(g, 2);
	img = arr(g, colour ? (rgba ? "rgba" : rng_pct(&g->rng, 50) ? "rgb" : "color") : (rng_pct(&g->rng, 50) ? "img" : "image"), t, IO_IN);
	if (sharpen)
		amount = scalar(g, rng_pct(&g->rng, 50) ? "amount" : "strength", F());
	out = arr(g, sharpen ? "sharpened" : (rng_pct(&g->rng, 50) ? "blurred" : "out"), t, IO_OUT);
	emit_tid(g, b);
	acc = def_local(g, b, rng_pct(&g->rng, 50) ? "acc" : "total",
			colour ? ex_call(A, rgba ? "wp.vec4" : "wp.vec3", t, 0.0, 1, lit(g, 0.0)) : lit(g, 0.0));
	if (colour)
		acc->def->flags = EF_CONST;
	if (wsum) {
		ws = def_local(g, b, rng_pct(&g->rng, 50) ? "wsum" : "norm", lit(g, 0.0));
		ws->bound = ws->base = 25.0;
	}
	fi = window_for(g, offs, r, offs ? (sep && ax == 1 ? "v" : "u") : "di");
	vi = fi->var;
	block_push(A, b, fi);
	scope_push_var(g, vi);
	oi = offs ? let(g, &fi->body, sep && ax == 1 ? "dj" : "di", sub(g, use(g, vi), ilit(g, r))) : vi;
	oi->bound = oi->base = r;
	if (sep) {
		Var *tv = ax == 0 ? vi : NULL;
		Expr *id;

		if (!tv && !offs) /* the loop runs along axis 1 */
			vi->name = "dj";
		id = ex_call(A, "wp.clamp", I(), BIG, 3, add(g, use(g, g->tid[ax]), use(g, oi)), ilit(g, 0),
			     sub(g, ex_shape(A, img, ax), ilit(g, 1)));
		ii = let(g, &fi->body, ax == 0 ? "ii" : "jj", id);
		ii->nonneg = true;
		idx[ax] = use(g, ii), idx[1 - ax] = use(g, g->tid[1 - ax]);
		e = ex_load(A, img, 2, idx);
		fj = fi;
		vj = NULL;
		jj = NULL;
	} else {
		fj = window_for(g, offs, r, offs ? "v" : "dj");
		vj = fj->var;
		block_push(A, &fi->body, fj);
		scope_push_var(g, vj);
		oj = offs ? let(g, &fj->body, "dj", sub(g, use(g, vj), ilit(g, r))) : vj;
		oj->bound = oj->base = r;
		ii = let(g, &fj->body, "ii", ex_call(A, "wp.clamp", I(), BIG, 3, add(g, use(g, g->tid[0]), use(g, oi)), ilit(g, 0),
						    sub(g, ex_shape(A, img, 0), ilit(g, 1))));
		jj = let(g, &fj->body, "jj", ex_call(A, "wp.clamp", I(), BIG, 3, add(g, use(g, g->tid[1]), use(g, oj)), ilit(g, 0),
						    sub(g, ex_shape(A, img, 1), ilit(g, 1))));
		ii->nonneg = jj->nonneg = true;
		idx[0] = use(g, ii), idx[1] = use(g, jj);
		e = ex_load(A, img, 2, idx);
	}
	if (gauss) {
		Expr *d2 = vj ? add(g, mul(g, use(g, oi), use(g, oi)), mul(g, use(g, oj), use(g, oj))) : mul(g, use(g, oi), use(g, oi));

		w = let(g, &fj->body, "w", call1(g, "wp.exp", F(), 1.0, mul(g, ex_un(A, OP_NEG, call1(g, "float", F(), d2->bound, d2)), lit(g, k))));
		e = mul(g, use(g, w), e);
		for (di = -r; di <= r; di++)
			for (dj = sep ? 0 : -r; dj <= (sep ? 0 : r); dj++)
				total += exp(-(double)(di * di + dj * dj) * k);
	} else
		total = sep ? 2 * r + 1 : (2 * r + 1) * (2 * r + 1);
	a = st_new(A, S_AUG);
	a->var = acc;
	a->op = OP_ADD;
	a->e = e;
	acc->mutated = true;
	var_assigned(g, acc, e);
	block_push(A, &fj->body, a);
	acc->bound = acc->base + (2 * r + 1) * (2 * r + 1);
	if (ws) {
		Expr *we = w ? use(g, w) : lit(g, 1.0);

		a = st_new(A, S_AUG);
		a->var = ws;
		a->op = OP_ADD;
		a->e = we;
		ws->mutated = true;
		var_assigned(g, ws, we);
		block_push(A, &fj->body, a);
		ws->bound = ws->base = 25.0;
	}
	g->nscope -= sep ? 2 : 4; /* di, (dj,) ii, (jj,) and w when present */
	if (w)
		g->nscope--;
	if (offs)
		g->nscope -= sep ? 1 : 2;
	if (ws) {
		Expr *blur = dvd(g, use(g, acc), call2(g, "wp.max", F(), 25.0, use(g, ws), lit(g, 1.0e-6)), acc->bound);

		if (sharpen) {
			Var *c = let(g, b, "c", load_tid(g, img));
			Var *bl = let(g, b, "blur", blur);

			store(g, b, out, add(g, use(g, c), mul(g, sub(g, use(g, c), use(g, bl)), use(g, amount))));
		} else
			store(g, b, out, clamp01 ? ex_call(A, "wp.clamp", F(), 1.0, 3, blur, lit(g, 0.0), lit(g, 1.0)) : blur);
		clause(g, "dividing by the sum of the weights");
	} else {
		/* the weights' sum to 4 digits, so the literal is what Python prints */
		double inv = floor(1.0e4 / total + 0.5) / 1.0e4;
		Expr *blur = mul(g, use(g, acc), lit(g, inv));

		if (sharpen) {
			Var *c = let(g, b, "c", load_tid(g, img));
			Var *bl = let(g, b, "blur", blur);

			store(g, b, out, add(g, use(g, c), mul(g, sub(g, use(g, c), use(g, bl)), use(g, amount))));
		} else
			store(g, b, out, clamp01 ? ex_call(A, "wp.clamp", F(), 1.0, 3, blur, lit(g, 0.0), lit(g, 1.0)) : blur);
	}
	if (clamp01)
		clause(g, "clamping the result between zero and one");
	name(g, sharpen ? "sharpen" : ONE(((const char *const[]){ "blur", "smooth", "filter" })), img->name);
	if (sep)
		clause(g, aprintf(g->A, "as one %s pass of a separable filter", ax == 0 ? "vertical" : "horizontal"));
	heads(g, aprintf(g->A, "%s a %s image with a %dx%d %s window, clamping reads at the borders", sharpen ? "Sharpens" : "Blurs",
			      colour ? "colour" : "greyscale", sep && ax == 1 ? 1 : 2 * r + 1, sep && ax == 0 ? 1 : 2 * r + 1,
			      gauss ? "Gaussian" : "box"),
	      aprintf(g->A, "%s each pixel %s over a window of %d cells%s",
			   sharpen ? "Applies an unsharp mask to" : "Averages", gauss ? "with Gaussian weights" : "uniformly",
			   sep ? 2 * r + 1 : (2 * r + 1) * (2 * r + 1), sep ? " in one loop" : " in two nested loops"),
	      NULL);
}

/* ----------------------------------------------------------------- style */

/* What a person varies without thinking, applied to every recipe's kernel: the
 * order of the output arrays among the parameters and the order of the stores
 * that end the body (outputs are never read, so any order computes the same). */
void
recipe_vary(Gen *g)
{
	Kernel *k = g->k;
	Block *b = &k->body;
	int slot[MAX_PARAMS], n = 0, i, first;

	for (i = 0; i < k->nparams; i++)
		if (k->params[i]->role == V_ARRAY && k->params[i]->io == IO_OUT)
			slot[n++] = i;
	for (i = n - 1; i > 0; i--) {
		int j = rng_below(&g->rng, i + 1);
		Var *t = k->params[slot[i]];

		k->params[slot[i]] = k->params[slot[j]];
		k->params[slot[j]] = t;
	}
	for (first = b->n; first > 0 && b->v[first - 1]->kind == S_STORE; first--)
		;
	for (i = b->n - 1; i > first; i--) {
		int j = first + rng_below(&g->rng, i - first + 1);
		Stmt *t = b->v[i];

		b->v[i] = b->v[j];
		b->v[j] = t;
	}
}

/* ----------------------------------------------------------------- spatial velocities */

static Type SV(void) { return ty_make(TY_VEC, PREC_F32, 6); }

/* Rigid-body twists and wrenches as Warp's spatial vectors (angular part on top,
 * linear below): velocities of body points, twists and wrenches moved into the
 * world frame, power, velocity-product terms, the pose's spatial adjoint. */
void
rec_twist(Gen *g)
{
	Block *b = &g->k->body;
	bool pts = rng_pct(&g->rng, 50), world = rng_pct(&g->rng, 45), wrench = rng_pct(&g->rng, 45), bias = rng_pct(&g->rng, 40);
	bool energy = rng_pct(&g->rng, 35), adj = rng_pct(&g->rng, 25), vap = rng_pct(&g->rng, 50), dual = rng_pct(&g->rng, 50);
	bool psum = rng_pct(&g->rng, 50);
	Var *bq = NULL, *bqd, *bf = NULL, *r = NULL, *mass = NULL, *pv = NULL, *qw = NULL, *fw = NULL, *pw = NULL, *bo = NULL, *ke = NULL, *ao = NULL;
	Var *jq = NULL, *xf = NULL, *qd, *w = NULL, *v = NULL, *f = NULL;
	int nout;

	nclauses = 0;
	set_launch(g, 1);
	if (!pts && !world && !wrench && !bias && !energy && !adj)
		pts = true;
	if (pts && world && wrench && bias && energy) /* 13 arrays with the adjoint: MAX_PARAMS is 12 */
		adj = false;
	if (world || wrench || adj || (pts && !vap))
		bq = arr(g, rng_pct(&g->rng, 50) ? "body_q" : "body_pose", X(), IO_IN);
	bqd = arr(g, rng_pct(&g->rng, 50) ? "body_qd" : "body_twist", SV(), IO_IN);
	if (wrench || (bias && dual))
		bf = arr(g, rng_pct(&g->rng, 50) ? "body_f" : "body_wrench", SV(), IO_IN);
	if (bias && !dual)
		jq = arr(g, rng_pct(&g->rng, 50) ? "joint_qd" : "joint_twist", SV(), IO_IN);
	if (pts)
		r = arr(g, rng_pct(&g->rng, 50) ? "offsets" : "local_points", V(3), IO_IN);
	if (energy)
		mass = arr(g, rng_pct(&g->rng, 50) ? "body_mass" : "mass", F(), IO_IN);
	if (pts)
		pv = arr(g, rng_pct(&g->rng, 50) ? "point_vel" : "point_velocities", V(3), IO_OUT);
	if (world)
		qw = arr(g, rng_pct(&g->rng, 50) ? "twist_world" : "body_qd_world", SV(), IO_OUT);
	if (wrench)
		fw = arr(g, rng_pct(&g->rng, 50) ? "wrench_world" : "body_f_world", SV(), IO_OUT);
	if (wrench && rng_pct(&g->rng, 60))
		pw = psum ? arr(g, rng_pct(&g->rng, 50) ? "total_power" : "power", F(), IO_ACC) : arr(g, "power", F(), IO_OUT);
	if (bias)
		bo = arr(g, rng_pct(&g->rng, 50) ? "bias" : "coriolis", SV(), IO_OUT);
	if (energy)
		ke = psum ? arr(g, rng_pct(&g->rng, 50) ? "kinetic_energy" : "energy", F(), IO_ACC) : arr(g, "energy", F(), IO_OUT);
	if (adj)
		ao = arr(g, rng_pct(&g->rng, 50) ? "adjoint" : "X_adj", ty_make(TY_MAT, PREC_F32, 6), IO_OUT);
	emit_tid(g, b);
	qd = let(g, b, "qd", load_tid(g, bqd));
	if (bq)
		xf = let(g, b, "X", load_tid(g, bq));
	if (energy || (pts && !vap)) {
		w = let(g, b, "w", call1(g, "wp.spatial_top", V(3), 1.0, use(g, qd)));
		v = let(g, b, "v", call1(g, "wp.spatial_bottom", V(3), 1.0, use(g, qd)));
	}
	if (bf)
		f = let(g, b, "f", load_tid(g, bf));
	nout = 0;
	if (pts) {
		if (vap) {
			store(g, b, pv, call2(g, "wp.velocity_at_point", V(3), 2.0, use(g, qd), load_tid(g, r)));
		} else { /* the offset rotated into the world, then v + w x r */
			Var *rw = let(g, b, "r_world", call2(g, "wp.transform_vector", V(3), 2.0, use(g, xf), load_tid(g, r)));

			store(g, b, pv, add(g, use(g, v), call2(g, "wp.cross", V(3), 2.0, use(g, w), use(g, rw))));
		}
		clause(g, "with the velocity of a point fixed to each body");
		nout++;
	}
	if (qw) {
		store(g, b, qw, call2(g, "wp.transform_twist", SV(), 4.0, use(g, xf), use(g, qd)));
		clause(g, "moving the twist into the world frame");
		nout++;
	}
	if (fw) {
		store(g, b, fw, call2(g, "wp.transform_wrench", SV(), 4.0, use(g, xf), use(g, f)));
		if (pw) {
			Expr *pe = call2(g, "wp.spatial_dot", F(), 8.0, use(g, qd), use(g, f));

			if (pw->io == IO_ACC)
				atomic(g, b, "wp.atomic_add", pw, ilit(g, 0), pe);
			else
				store(g, b, pw, pe);
			clause(g, "and the power the wrench delivers");
		}
		nout++;
	}
	if (bo) {
		store(g, b, bo, dual ? call2(g, "wp.spatial_cross_dual", SV(), 2.0, use(g, qd), use(g, f))
				     : call2(g, "wp.spatial_cross", SV(), 2.0, use(g, qd), load_tid(g, jq)));
		clause(g, dual ? "with the force cross product of the twist and the wrench" : "with the velocity-product term of the twist");
		nout++;
	}
	if (ke) {
		Expr *e = mul(g, mul(g, lit(g, 0.5), load_tid(g, mass)),
			      add(g, call2(g, "wp.dot", F(), 3.0, use(g, v), use(g, v)), call2(g, "wp.dot", F(), 3.0, use(g, w), use(g, w))));

		if (ke->io == IO_ACC)
			atomic(g, b, "wp.atomic_add", ke, ilit(g, 0), e);
		else
			store(g, b, ke, e);
		clause(g, "with the kinetic energy of a unit-inertia body");
		nout++;
	}
	if (ao) { /* [R 0; [p]x R  R] */
		Var *R = let(g, b, "R", call1(g, "wp.quat_to_matrix", ty_make(TY_MAT, PREC_F32, 3), 1.0,
					      call1(g, "wp.normalize", Q(), 1.0, call1(g, "wp.transform_get_rotation", Q(), 1.0, use(g, xf)))));
		Var *S = let(g, b, "S", ex_bin(g->A, OP_MATMUL, call1(g, "wp.skew", ty_make(TY_MAT, PREC_F32, 3), 1.0,
								  call1(g, "wp.transform_get_translation", V(3), 1.0, use(g, xf))),
					       use(g, R), ty_make(TY_MAT, PREC_F32, 3), 3.0));

		store(g, b, ao, call2(g, "wp.spatial_adjoint", ty_make(TY_MAT, PREC_F32, 6), 3.0, use(g, R), use(g, S)));
		clause(g, "with the pose's 6x6 spatial adjoint");
	}
	name(g, ONE(((const char *const[]){ "eval", "compute", "transform" })), pts && !nout ? "point_velocities" : qw ? "body_twists" : "body_velocities");
	heads(g, "Works with rigid-body twists stored as spatial vectors, angular part first",
	      "Evaluates rigid-body motion quantities from each body's spatial velocity", NULL);
}

/* ----------------------------------------------------------------- deformation */


/* Continuum mechanics per element: a deformation gradient F = I + H (H read
 * from an array and scaled, so F is well conditioned), the polar rotation and
 * principal stretches by svd3/svd2, principal strains by eig3 of C = F^T F, a QR
 * factorisation, the Green strain and a St. Venant-Kirchhoff energy. */
void
rec_strain(Gen *g)
{
	Block *b = &g->k->body;
	int n = rng_pct(&g->rng, 25) ? 2 : 3, what = pick(g, n == 3 ? 4 : 2); /* svd, energy only, eig3, qr3 */
	bool energy = what == 1 || rng_pct(&g->rng, 40), strain_out = rng_pct(&g->rng, 35), psum = rng_pct(&g->rng, 50);
	bool qrot = what == 0 && n == 3 && rng_pct(&g->rng, 50); /* the polar rotation as a quaternion */
	Var *H, *mu = NULL, *lam = NULL, *rot = NULL, *str = NULL, *en = NULL, *eo = NULL, *qo = NULL, *ro = NULL, *Fm, *C = NULL, *E = NULL;
	double sc = 0.1 * (1 + pick(g, 2));
	Expr *id = ex_new(g->A, E_CALL, M(n), 0);

	nclauses = 0;
	set_launch(g, 1);
	id->s = aprintf(g->A, "wp.identity(n=%d, dtype=float)", n);
	id->bound = 1.0;
	id->flags = EF_CONST;
	H = arr(g, rng_pct(&g->rng, 50) ? "displacement_grad" : "grad_u", M(n), IO_IN);
	if (energy) {
		mu = scalar(g, rng_pct(&g->rng, 50) ? "mu" : "k_mu", F());
		lam = scalar(g, rng_pct(&g->rng, 50) ? "lam" : "k_lambda", F());
	}
	if (what == 0) {
		rot = qrot ? arr(g, rng_pct(&g->rng, 50) ? "orientation" : "q_out", Q(), IO_OUT)
			   : arr(g, rng_pct(&g->rng, 50) ? "rotation" : "R_out", M(n), IO_OUT);
		str = arr(g, rng_pct(&g->rng, 50) ? "stretches" : "sigma_out", V(n), IO_OUT);
	} else if (what == 2) {
		str = arr(g, rng_pct(&g->rng, 50) ? "principal" : "eigenvalues", V(3), IO_OUT);
		rot = arr(g, rng_pct(&g->rng, 50) ? "directions" : "axes", M(3), IO_OUT);
	} else if (what == 3) {
		qo = arr(g, "Q_out", M(3), IO_OUT);
		ro = arr(g, "R_out", M(3), IO_OUT);
	}
	if (strain_out || what == 1)
		eo = arr(g, rng_pct(&g->rng, 50) ? "strain" : "green_strain", M(n), IO_OUT);
	if (energy)
		en = psum ? arr(g, rng_pct(&g->rng, 50) ? "total_energy" : "energy", F(), IO_ACC) : arr(g, "energy_density", F(), IO_OUT);
	emit_tid(g, b);
	if (eo || energy) { /* I is used twice: named once */
		Var *iv = let(g, b, "I", id);

		id = use(g, iv);
	}
	Fm = let(g, b, "F", add(g, id, mul(g, lit(g, sc), load_tid(g, H))));
	if (what == 0) {
		Var *usv[3];
		static const char *const nm[3] = { "U", "sigma", "V" };
		Type ty[3];

		ty[0] = M(n), ty[1] = V(n), ty[2] = M(n);
		unpack(g, b, call1(g, n == 3 ? "wp.svd3" : "wp.svd2", M(n), 4.0, use(g, Fm)), 3, usv, nm, ty);
		if (qrot) { /* U V^T is a rotation: det F > 0 for F = I + s H with s <= 0.2 */
			Var *R = let(g, b, "R", ex_bin(g->A, OP_MATMUL, use(g, usv[0]), call1(g, "wp.transpose", M(n), 1.0, use(g, usv[2])), M(n), 1.0));

			store(g, b, rot, call1(g, "wp.quat_from_matrix", Q(), 1.0, use(g, R)));
		} else
			store(g, b, rot, ex_bin(g->A, OP_MATMUL, use(g, usv[0]), call1(g, "wp.transpose", M(n), 1.0, use(g, usv[2])), M(n), 1.0));
		store(g, b, str, use(g, usv[1]));
		clause(g, "with the polar rotation U V^T and the principal stretches of an SVD");
	}
	if (what == 2 || energy || eo) {
		C = let(g, b, "C", ex_bin(g->A, OP_MATMUL, call1(g, "wp.transpose", M(n), 2.0, use(g, Fm)), use(g, Fm), M(n), 4.0));
		if (eo || energy)
			E = let(g, b, "E", mul(g, lit(g, 0.5), sub(g, use(g, C), use(g, id->var))));
	}
	if (what == 2) {
		Var *qd[2];
		static const char *const nm[2] = { "Q", "d" };
		Type ty[2];

		ty[0] = M(3), ty[1] = V(3);
		unpack(g, b, call1(g, "wp.eig3", M(3), 4.0, use(g, C)), 2, qd, nm, ty);
		store(g, b, str, use(g, qd[1]));
		if (rot)
			store(g, b, rot, use(g, qd[0]));
		clause(g, "with the eigen-decomposition of the right Cauchy-Green tensor");
	} else if (what == 3) {
		Var *qr[2];
		static const char *const nm[2] = { "Q", "R" };
		Type ty[2];

		ty[0] = M(3), ty[1] = M(3);
		unpack(g, b, call1(g, "wp.qr3", M(3), 4.0, use(g, Fm)), 2, qr, nm, ty);
		store(g, b, qo, use(g, qr[0]));
		store(g, b, ro, use(g, qr[1]));
		clause(g, "with a QR factorisation of F");
	}
	if (eo)
		store(g, b, eo, use(g, E));
	if (en) { /* mu E:E + lambda / 2 tr(E)^2 */
		Var *tr = let(g, b, "tr", call1(g, "wp.trace", F(), 4.0, use(g, E)));
		Expr *psi = add(g, mul(g, use(g, mu), call2(g, "wp.ddot", F(), 16.0, use(g, E), use(g, E))),
				mul(g, mul(g, lit(g, 0.5), use(g, lam)), mul(g, use(g, tr), use(g, tr))));

		if (en->io == IO_ACC)
			atomic(g, b, "wp.atomic_add", en, ilit(g, 0), psi);
		else
			store(g, b, en, psi);
		clause(g, "with the St. Venant-Kirchhoff energy density");
	}
	name(g, ONE(((const char *const[]){ "compute", "eval", "analyze" })), what == 0 ? "polar_decomposition" : what == 2 ? "principal_strains" : what == 3 ? "qr_factors" : "strain_energy");
	heads(g, aprintf(g->A, "Forms the %dx%d deformation gradient of each element from its displacement gradient", n, n),
	      "Evaluates strain measures of each element's deformation gradient F = I + grad u", NULL);
}

/* ----------------------------------------------------------------- noise */

static Type U(void) { return ty_make(TY_UINT, 0, 1); }

/* var op= e on a mutable local */
static void
aug(Gen *g, Block *b, Var *v, int op, Expr *e)
{
	Stmt *s = st_new(g->A, S_AUG);

	s->var = v;
	s->op = (unsigned char)op;
	s->e = e;
	v->mutated = true;
	var_assigned(g, v, e);
	block_push(g->A, b, s);
}

/* the noise state: wp.rand_init(seed) (one field for every thread) */
static Var *
noise_state(Gen *g, Block *b, Var *seed)
{
	return let(g, b, rng_pct(&g->rng, 50) ? "state" : "noise_state", ex_call(g->A, "wp.rand_init", U(), 0, 1, use(g, seed)));
}

/* Fractal (fBm) heights of points: octaves of Perlin noise at doubling frequency
 * and halving amplitude, as in Warp's examples; optionally tileable (pnoise with
 * integer periods) and added to a base height. */
static void
noise_heights(Gen *g)
{
	Block *b = &g->k->body;
	int n = 1 + pick(g, 3), oct = 2 + pick(g, 4), per = 2 + pick(g, 6);
	bool periodic = n >= 2 && rng_pct(&g->rng, 35), base = rng_pct(&g->rng, 50), ampp = rng_pct(&g->rng, 50);
	Var *pts, *seed, *freq, *amp = NULL, *hb = NULL, *out, *st, *h, *f, *a, *o;
	Expr *p, *nz;
	Stmt *fl;
	static const char *const pn[] = { "points", "samples", "coords" };

	nclauses = 0;
	set_launch(g, 1);
	pts = arr(g, n == 1 ? (rng_pct(&g->rng, 50) ? "t" : "xs") : ONE(pn), n == 1 ? F() : V(n), IO_IN);
	if (base)
		hb = arr(g, rng_pct(&g->rng, 50) ? "base" : "ground", F(), IO_IN);
	seed = scalar(g, "seed", I());
	freq = scalar(g, rng_pct(&g->rng, 50) ? "frequency" : "scale", F());
	if (ampp)
		amp = scalar(g, "amplitude", F());
	out = arr(g, n == 1 ? "signal" : (rng_pct(&g->rng, 50) ? "heights" : "elevation"), F(), IO_OUT);
	emit_tid(g, b);
	st = noise_state(g, b, seed);
	h = let_mut(g, b, "h", lit(g, 0.0), 2.0);
	f = let_mut(g, b, "freq", use(g, freq), 64.0);
	a = let_mut(g, b, "amp", ampp ? use(g, amp) : lit(g, 1.0), 1.0);
	fl = st_new(g->A, S_FOR);
	fl->idx = aalloc(g->A, sizeof(Expr *) * 3);
	fl->idx[0] = ilit(g, oct);
	fl->nidx = 1;
	fl->trips = oct;
	o = new_var(g, "octave", I(), V_LOOP);
	o->bound = o->base = oct;
	fl->var = o;
	block_push(g->A, b, fl);
	scope_push_var(g, o);
	p = mul(g, load_tid(g, pts), use(g, f));
	if (periodic) {
		Expr *args[6];
		int k;

		args[0] = use(g, st);
		args[1] = p;
		for (k = 0; k < n; k++)
			args[2 + k] = ilit(g, per);
		nz = ex_calln(g->A, "wp.pnoise", F(), 1.0, 2 + n, args);
		clause(g, aprintf(g->A, "tileable with period %d on every axis", per));
	} else
		nz = ex_call(g->A, "wp.noise", F(), 1.0, 2, use(g, st), p);
	aug(g, &fl->body, h, OP_ADD, mul(g, use(g, a), nz));
	aug(g, &fl->body, f, OP_MUL, lit(g, 2.0));
	aug(g, &fl->body, a, OP_MUL, lit(g, 0.5));
	store(g, b, out, hb ? add(g, load_tid(g, hb), use(g, h)) : use(g, h));
	if (hb)
		clause(g, "on top of a base height");
	name(g, ONE(((const char *const[]){ "fbm", "sample", "eval" })), out->name);
	heads(g, aprintf(g->A, "Sums %d octaves of %d-D Perlin noise at each point as fractal Brownian motion", oct, n),
	      aprintf(g->A, "Evaluates fractal %d-D noise with %d octaves, doubling the frequency and halving the amplitude each time", n, oct),
	      NULL);
}

/* A noise texture on a 2-D grid: the cell centre, scaled and displaced by a warp
 * field, through noise or periodic noise; or an animated 3-D density through 4-D
 * noise with time as the fourth coordinate. */
static void
noise_grid(Gen *g)
{
	Block *b = &g->k->body;
	bool anim = rng_pct(&g->rng, 40), periodic = !anim && rng_pct(&g->rng, 50), thr = rng_pct(&g->rng, 35);
	bool jitter = !anim && rng_pct(&g->rng, 40);
	int px = 2 + pick(g, 7), py = 2 + pick(g, 7);
	double cell = 0.05 * (1 + pick(g, 6));
	Var *wf, *seed, *time = NULL, *out, *st, *q, *d;
	Expr *c;

	nclauses = 0;
	set_launch(g, 2);
	wf = arr(g, anim ? (rng_pct(&g->rng, 50) ? "positions" : "centers") : (rng_pct(&g->rng, 50) ? "displacement" : "offset"),
		 anim ? V(3) : V(2), IO_IN);
	seed = scalar(g, "seed", I());
	if (anim)
		time = scalar(g, rng_pct(&g->rng, 50) ? "time" : "t", F());
	out = arr(g, anim ? "density" : (rng_pct(&g->rng, 50) ? "texture" : "field"), F(), IO_OUT);
	emit_tid(g, b);
	st = noise_state(g, b, seed);
	if (anim) {
		Var *pp = let(g, b, "p", load_tid(g, wf));

		q = let(g, b, "q", ex_call(g->A, "wp.vec4", V(4), 2.0, 4, comp(g, use(g, pp), 0), comp(g, use(g, pp), 1),
					  comp(g, use(g, pp), 2), use(g, time)));
		c = ex_call(g->A, "wp.noise", F(), 1.0, 2, use(g, st), use(g, q));
		clause(g, "with time as the fourth coordinate");
	} else {
		Expr *uv = ex_call(g->A, "wp.vec2", V(2), 64.0, 2, call1(g, "float", F(), 64.0, use(g, g->tid[0])),
				   call1(g, "float", F(), 64.0, use(g, g->tid[1])));

		q = let_mut(g, b, "uv", add(g, mul(g, uv, lit(g, cell)), load_tid(g, wf)), 64.0);
		if (jitter) { /* stratified: a random point of the cell, from the cell's own stream */
			Var *js = let(g, b, "jitter_rng", ex_call(g->A, "wp.rand_init", U(), 0, 2, use(g, seed),
								   add(g, mul(g, use(g, g->tid[0]), ex_shape(g->A, wf, 1)), use(g, g->tid[1]))));
			Expr *jv = ex_call(g->A, "wp.sample_unit_square", V(2), 0.5, 1, use(g, js));

			aug(g, b, q, OP_ADD, mul(g, jv, lit(g, cell)));
			clause(g, "jittered inside each cell");
		}
		if (periodic) {
			c = ex_call(g->A, "wp.pnoise", F(), 1.0, 4, use(g, st), use(g, q), ilit(g, px), ilit(g, py));
			clause(g, aprintf(g->A, "repeating every %d by %d cells of the noise lattice", px, py));
		} else
			c = ex_call(g->A, "wp.noise", F(), 1.0, 2, use(g, st), use(g, q));
	}
	d = let(g, b, "n", c);
	if (thr) { /* a soft threshold into [0, 1] */
		store(g, b, out, ex_call(g->A, "wp.smoothstep", F(), 1.0, 3, lit(g, -0.2), lit(g, 0.2), use(g, d)));
		clause(g, "thresholded smoothly into the unit range");
	} else
		store(g, b, out, mul(g, lit(g, 0.5), add(g, use(g, d), lit(g, 1.0))));
	name(g, ONE(((const char *const[]){ "make", "fill", "generate" })), out->name);
	heads(g, anim ? "Fills a grid of points with an animated Perlin-noise density" :
			"Generates a 2-D noise texture over a grid, the lookup displaced by a per-cell warp",
	      anim ? "Evaluates 4-D noise at each grid point's position and the current time" :
		     "Computes a Perlin-noise value per cell from its scaled index and a domain-warp offset",
	      NULL);
}

/* Curl-noise turbulence advecting particles (a divergence-free velocity field):
 * 2-D or 3-D curl noise of the position, or 4-D with time, with octaves. */
static void
noise_turbulence(Gen *g)
{
	Block *b = &g->k->body;
	int n = rng_pct(&g->rng, 30) ? 2 : 3, oct = 1 + pick(g, 3);
	bool timed = n == 3 && rng_pct(&g->rng, 40), full = rng_pct(&g->rng, 50), vel = rng_pct(&g->rng, 50);
	double lac = 1.5 + 0.25 * pick(g, 4), gain = 0.25 * (1 + pick(g, 3));
	Var *x, *v = NULL, *seed, *scale, *strength, *dt, *time = NULL, *xo, *vo = NULL, *st, *p, *u, *v1;
	Expr *q, *call;

	nclauses = 0;
	set_launch(g, 1);
	x = arr(g, rng_pct(&g->rng, 50) ? "x" : "positions", V(n), IO_IN);
	if (vel)
		v = arr(g, x->name[0] == 'x' ? "v" : "velocities", V(n), IO_IN);
	seed = scalar(g, "seed", I());
	scale = scalar(g, rng_pct(&g->rng, 50) ? "scale" : "frequency", F());
	strength = scalar(g, rng_pct(&g->rng, 50) ? "strength" : "intensity", F());
	dt = scalar(g, "dt", F());
	if (timed)
		time = scalar(g, "time", F());
	xo = arr(g, x->name[0] == 'x' ? "x_new" : "positions_out", V(n), IO_OUT);
	if (vel)
		vo = arr(g, x->name[0] == 'x' ? "v_new" : "velocities_out", V(n), IO_OUT);
	emit_tid(g, b);
	st = noise_state(g, b, seed);
	p = let(g, b, "p", mul(g, load_tid(g, x), use(g, scale)));
	q = use(g, p);
	if (timed) {
		q = ex_call(g->A, "wp.vec4", V(4), 2.0, 4, comp(g, use(g, p), 0), comp(g, use(g, p), 1), comp(g, use(g, p), 2), use(g, time));
		clause(g, "evolving with time");
	}
	if (full || oct > 1) {
		call = ex_call(g->A, "wp.curlnoise", V(n), 6.0, 5, use(g, st), q,
			       call1(g, "wp.uint32", U(), oct, ilit(g, oct)), lit(g, lac), lit(g, gain));
		if (oct > 1)
			clause(g, aprintf(g->A, "summing %d octaves with lacunarity %g and gain %g per octave", oct, lac, gain));
	} else
		call = ex_call(g->A, "wp.curlnoise", V(n), 6.0, 2, use(g, st), q);
	u = let(g, b, rng_pct(&g->rng, 50) ? "curl" : "turb", call);
	if (vel) {
		v1 = let(g, b, "v1", add(g, load_tid(g, v), mul(g, mul(g, use(g, u), use(g, strength)), use(g, dt))));
		store(g, b, xo, add(g, load_tid(g, x), mul(g, use(g, v1), use(g, dt))));
		store(g, b, vo, use(g, v1));
		clause(g, "adding the turbulence to the velocity before moving");
	} else
		store(g, b, xo, add(g, load_tid(g, x), mul(g, use(g, u), mul(g, use(g, strength), use(g, dt)))));
	name(g, ONE(((const char *const[]){ "advect", "perturb", "stir" })), "particles");
	heads(g, aprintf(g->A, "Displaces %d-D particles along a divergence-free curl-noise field", n),
	      aprintf(g->A, "Applies curl-noise turbulence of %d-D points to particles over a time step", timed ? 4 : n),
	      NULL);
}

/* Procedural noise: fractal heights of points, grid textures and animated densities,
 * and curl-noise turbulence of particles. */
void
rec_noise(Gen *g)
{
	int w[3] = { 4, 3, 3 };

	switch (rng_weighted(&g->rng, w, 3)) {
	case 0: noise_heights(g); break;
	case 1: noise_grid(g); break;
	default: noise_turbulence(g); break;
	}
}

/* ----------------------------------------------------------------- cell state */

/* old = fn(a, tid..., args...): an atomic exchange or compare-and-swap at the
 * thread's own element, whose old value the kernel keeps.  Race-free: no other
 * thread touches the element (check.c), so the order of the threads does not
 * matter.  Flagged EF_RAND: an effect tidy neither moves nor merges. */
static Var *
own_atomic(Gen *g, Block *b, const char *vname, const char *fn, Var *a, Expr *cmp, Expr *val)
{
	Expr *args[6];
	int n = 0, d;
	Expr *e;

	args[n++] = use(g, a);
	for (d = 0; d < a->ndim; d++)
		args[n++] = use(g, g->tid[d]);
	if (cmp)
		args[n++] = cmp;
	args[n++] = val;
	e = ex_calln(g->A, fn, a->elem, 8.0, n, args);
	e->flags |= EF_RAND;
	a->acc = (unsigned char)(cmp ? ACC_CAS : ACC_EXCH);
	return let(g, b, vname, e);
}


/* Per-cell state updates: a particle's cell index swapped into its slot with
 * atomic_exch, keeping the previous one to flag moves; or a cell marked visited
 * with atomic_cas 0 -> 1, the old flag telling whether this is the first visit.
 * Only int outputs read the old values: kopt's backward kernel (like Warp's)
 * replays the atomic on the array as the forward kernel left it, so a float
 * output that depended on an old value would get the wrong gradient. */
void
rec_cells(Gen *g)
{
	Block *b = &g->k->body;
	int kind = pick(g, 3), nd = kind == 1 && rng_pct(&g->rng, 50) ? 2 : 1;
	bool exch = kind != 1, cas = kind != 0;
	Var *x = NULL, *cellof = NULL, *inv_h = NULL, *moved = NULL, *frac = NULL, *vis = NULL, *tprev = NULL, *now = NULL;
	Var *first = NULL, *arrival = NULL, *c = NULL, *s = NULL, *prev, *was, *fresh;
	int ncell = 4 + pick(g, 13);

	nclauses = 0;
	set_launch(g, nd);
	if (exch) {
		x = arr(g, rng_pct(&g->rng, 50) ? "x" : "positions", F(), IO_IN);
		cellof = arr(g, rng_pct(&g->rng, 50) ? "cell_of" : "bin_id", I(), IO_ACC);
		inv_h = scalar(g, rng_pct(&g->rng, 50) ? "inv_cell_size" : "inv_h", F());
	}
	if (cas) {
		vis = arr(g, rng_pct(&g->rng, 50) ? "visited" : "claimed", I(), IO_ACC);
		tprev = arr(g, rng_pct(&g->rng, 50) ? "arrival_in" : "t_prev", F(), IO_IN);
		now = scalar(g, rng_pct(&g->rng, 50) ? "time" : "t_now", F());
	}
	if (exch) {
		moved = arr(g, rng_pct(&g->rng, 50) ? "moved" : "changed", I(), IO_OUT);
		frac = arr(g, rng_pct(&g->rng, 50) ? "local_x" : "cell_offset", F(), IO_OUT);
	}
	if (cas) {
		first = arr(g, rng_pct(&g->rng, 50) ? "first_visit" : "is_new", I(), IO_OUT);
		arrival = arr(g, rng_pct(&g->rng, 50) ? "arrival" : "t_first", F(), IO_OUT);
	}
	emit_tid(g, b);
	if (exch) {
		/* the cell of x, clamped into [0, ncell - 1] */
		s = let(g, b, "s", mul(g, load_tid(g, x), use(g, inv_h)));
		c = let(g, b, "cell", ex_call(g->A, "wp.clamp", I(), ncell, 3, call1(g, "int", I(), 8.0, call1(g, "wp.floor", F(), 9.0, use(g, s))),
					     ilit(g, 0), ilit(g, ncell - 1)));
		c->nonneg = true;
		prev = own_atomic(g, b, rng_pct(&g->rng, 50) ? "prev" : "old_cell", "wp.atomic_exch", cellof, NULL, use(g, c));
		store(g, b, moved, ex_call(g->A, "wp.where", I(), 1.0, 3, ex_cmp(g->A, OP_NE, use(g, prev), use(g, c)), ilit(g, 1), ilit(g, 0)));
		store(g, b, frac, sub(g, use(g, s), call1(g, "float", F(), ncell, use(g, c))));
		clause(g, aprintf(g->A, "into one of %d cells", ncell));
	}
	if (cas) {
		was = own_atomic(g, b, rng_pct(&g->rng, 50) ? "was" : "old", "wp.atomic_cas", vis, ilit(g, 0), ilit(g, 1));
		fresh = let(g, b, "fresh", ex_cmp(g->A, OP_EQ, use(g, was), ilit(g, 0)));
		store(g, b, first, ex_call(g->A, "wp.where", I(), 1.0, 3, use(g, fresh), ilit(g, 1), ilit(g, 0)));
		/* the float output does not read the old flag: the backward kernel replays
		 * the compare-and-swap on the array as the forward left it (as Warp's does) */
		store(g, b, arrival, call2(g, "wp.min", F(), 1.0, load_tid(g, tprev), use(g, now)));
		clause(g, "keeping the earliest arrival time");
	}
	if (exch && cas) {
		name(g, "update", "cells");
		heads(g, "Swaps each particle's cell index into its slot with an atomic exchange and marks its own cell visited with a compare-and-swap",
		      "Updates per-thread cell state: the new cell replaces the old one, and a 0 -> 1 compare-and-swap claims the first visit", NULL);
	} else if (exch) {
		name(g, ONE(((const char *const[]){ "rebin", "assign", "relabel" })), cellof->name);
		heads(g, "Computes each particle's cell and swaps it into its own slot with wp.atomic_exch, flagging particles that moved",
		      "Replaces every particle's cell index with an atomic exchange, keeping the old index to detect moves", NULL);
	} else {
		name(g, ONE(((const char *const[]){ "mark", "visit", "claim" })), nd == 2 ? "cells" : "nodes");
		heads(g, aprintf(g->A, "Marks each %s visited with a compare-and-swap from 0 to 1, telling first visits apart", nd == 2 ? "grid cell" : "node"),
		      "Claims the thread's own flag with wp.atomic_cas(flag, 0, 1) and keeps the old value", NULL);
	}
}


/* ----------------------------------------------------------------- short forms */

/* The short kernels people write most: a copy with a scale, an axpy, a clamp, a
 * normalise, a one-line update, a gather through an index computed from the
 * thread index, a reduction of one value, a 2-D stencil of a few taps.  Each
 * recipe family has its own one-line forms; a short kernel holds one or two of
 * them (several related outputs), sharing inputs and locals, so the median
 * kernel is as short as the median of Warp's examples.  Inputs are made when a
 * form first needs them: an unused one is never declared. */

typedef struct Short {
	int n;              /* width of the family's vectors */
	int nd;             /* launch dimensions */
	int axis;           /* grids: the axis of the taps */
	bool prev;          /* chains: the neighbour's index is j, not nxt */
	Var *in[10];        /* inputs and shared locals, by slot of the family */
	const char *ph[2];  /* what each form does, a phrase ("advances ...") */
	int nph;
	const char *verb, *noun;
	int nbias;          /* per-element offsets made by sstore */
} Short;

static Var *
need(Gen *g, Var **slot, const char *nm, Type t, int io)
{
	if (!*slot)
		*slot = arr(g, nm, t, io);
	return *slot;
}

static Var *
need_scalar(Gen *g, Var **slot, const char *nm, Type t)
{
	if (!*slot)
		*slot = scalar(g, nm, t);
	return *slot;
}

/* A factor: a kernel parameter (made once), or a literal constant a person
 * would have typed in */
static Expr *
factor(Gen *g, Var **slot, const char *nm, double v)
{
	if (*slot || rng_pct(&g->rng, 60))
		return use(g, need_scalar(g, slot, nm, F()));
	return lit(g, v);
}

static void
phrase(Short *S, const char *verb, const char *noun, const char *ph)
{
	if (!S->nph) {
		S->verb = verb;
		S->noun = noun;
	}
	S->ph[S->nph++] = ph;
}

/* particles: x, v, dt, gravity, damping, mass, forces, inv_mass */
/* out[i] = e, optionally weighted per element (e * w[i]) or offset per element
 * (e + bias[i]): what people add to a one-liner to mask or shift it */
static void
sstore(Gen *g, Block *b, Short *S, Var *o, Expr *e)
{
	int k = e->ty.kind, m = pick(g, 5);

	if (k != TY_FLOAT && k != TY_VEC && k != TY_MAT)
		m = 0;
	if (m == 1)
		e = mul(g, e, load_tid(g, need(g, &S->in[8], rng_pct(&g->rng, 50) ? "weights" : "mask", F(), IO_IN)));
	else if (m == 2 && S->nbias < 2) {
		Var *bv = arr(g, S->nbias ? "offset" : "bias", e->ty, IO_IN);

		S->nbias++;
		e = add(g, e, load_tid(g, bv));
	}
	store(g, b, o, e);
}

static void
sf_particles(Gen *g, Block *b, Short *S, int f)
{
	Type T = V(S->n);
	Var *o;
	Expr *e, *s;

	switch (f) {
	case 0: /* x + v * dt */
		need(g, &S->in[0], "x", T, IO_IN);
		need(g, &S->in[1], "v", T, IO_IN);
		need_scalar(g, &S->in[2], "dt", F());
		e = mul(g, load_tid(g, S->in[1]), use(g, S->in[2]));
		e = add(g, load_tid(g, S->in[0]), e);
		o = arr(g, "x_new", T, IO_OUT);
		sstore(g, b, S, o, e);
		phrase(S, "advect", "particles", "advances each position by its velocity times dt");
		break;
	case 1: /* v + g * dt, or (v + g * dt) * damping */
		if (rng_pct(&g->rng, 50)) {
			s = use(g, need_scalar(g, &S->in[3], "gravity", T));
		} else {
			double gv[3] = { 0.0, -9.8, 0.0 };

			s = vlit(g, S->n, gv);
		}
		need_scalar(g, &S->in[2], "dt", F());
		e = add(g, load_tid(g, need(g, &S->in[1], "v", T, IO_IN)), mul(g, s, use(g, S->in[2])));
		if (rng_pct(&g->rng, 40)) {
			s = factor(g, &S->in[4], "damping", 0.99);
			e = mul(g, e, s);
		}
		o = arr(g, "v_new", T, IO_OUT);
		sstore(g, b, S, o, e);
		phrase(S, "apply", "gravity", "adds gravity times dt to each velocity");
		break;
	case 2: /* |v| */
		{
			bool sq = rng_pct(&g->rng, 35);

			o = arr(g, sq ? "speed_sq" : "speed", F(), IO_OUT);
			sstore(g, b, S, o, call1(g, sq ? "wp.length_sq" : "wp.length", F(), sq ? 4.0 : 2.0, load_tid(g, need(g, &S->in[1], "v", T, IO_IN))));
		}
		phrase(S, "measure", "speeds", "writes each particle's speed");
		break;
	case 3: { /* 0.5 m |v|^2, m per particle or one mass */
		Var *v = need(g, &S->in[1], "v", T, IO_IN);
		Expr *m;

		o = arr(g, rng_pct(&g->rng, 50) ? "kinetic" : "energy", F(), IO_OUT);
		if (rng_pct(&g->rng, 50))
			m = load_tid(g, need(g, &S->in[5], "mass", F(), IO_IN));
		else
			m = use(g, need_scalar(g, &S->in[9], "particle_mass", F()));
		e = mul(g, lit(g, 0.5), m);
		sstore(g, b, S, o, mul(g, e, call2(g, "wp.dot", F(), 8.0, load_tid(g, v), load_tid(g, v))));
		phrase(S, "compute", "kinetic_energy", "computes each particle's kinetic energy");
		break;
	}
	default: /* f * w */
		need(g, &S->in[6], rng_pct(&g->rng, 50) ? "f" : "forces", T, IO_IN);
		need(g, &S->in[7], "inv_mass", F(), IO_IN);
		e = mul(g, load_tid(g, S->in[6]), load_tid(g, S->in[7]));
		o = arr(g, "accel", T, IO_OUT);
		sstore(g, b, S, o, e);
		phrase(S, "compute", "accelerations", "turns forces into accelerations by the inverse masses");
		break;
	}
}

/* chains: x, the neighbour index, d = x[j] - x[i], stiffness */
static Var *
chain_delta(Gen *g, Block *b, Short *S)
{
	Var *x = need(g, &S->in[0], "x", V(S->n), IO_IN);

	if (!S->in[1]) {
		Expr *sh = ex_shape(g->A, x, 0), *k;

		k = add(g, use(g, g->tid[0]), ilit(g, 1));
		S->in[1] = let(g, b, S->prev ? "j" : "nxt", ex_bin(g->A, OP_MOD, k, sh, I(), BIG));
		S->in[1]->nonneg = true;
	}
	if (!S->in[2])
		S->in[2] = let(g, b, rng_pct(&g->rng, 50) ? "d" : "delta",
			       sub(g, ex_load(g->A, x, 1, (Expr *[]){ use(g, S->in[1]) }), load_tid(g, x)));
	return S->in[2];
}

static void
sf_springs(Gen *g, Block *b, Short *S, int f)
{
	Var *d = chain_delta(g, b, S), *o;
	Expr *k;

	switch (f) {
	case 0:
		o = arr(g, "rest_length", F(), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.length", F(), 4.0, use(g, d)));
		phrase(S, "measure", "rest_lengths", "measures the spring to the neighbouring particle of a closed chain");
		break;
	case 1:
		k = factor(g, &S->in[3], "stiffness", 100.0);
		o = arr(g, "f_spring", V(S->n), IO_OUT);
		sstore(g, b, S, o, mul(g, k, use(g, d)));
		phrase(S, "pull", "chain", "pulls each particle toward its neighbour with a zero-length spring");
		break;
	case 2:
		o = arr(g, rng_pct(&g->rng, 50) ? "dirs" : "tangent", V(S->n), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.normalize", V(S->n), 1.0, use(g, d)));
		phrase(S, "compute", "tangents", "writes the unit direction to the neighbour");
		break;
	default:
		o = arr(g, "stretch", F(), IO_OUT);
		sstore(g, b, S, o, call2(g, "wp.dot", F(), 4.0, use(g, d), use(g, d)));
		phrase(S, "measure", "stretch", "writes the squared distance to the neighbour");
		break;
	}
}

/* u at the thread's cell moved by o along axis ax, clamped into the grid */
static Expr *
tap(Gen *g, Var *u, int ax, int o)
{
	Expr *idx[3];
	int d;

	for (d = 0; d < u->ndim; d++) {
		Expr *t = use(g, g->tid[d]);

		if (d == ax && o < 0)
			t = call2(g, "wp.max", I(), BIG, sub(g, t, ilit(g, -o)), ilit(g, 0));
		else if (d == ax && o > 0)
			t = call2(g, "wp.min", I(), BIG, add(g, t, ilit(g, o)), sub(g, ex_shape(g->A, u, d), ilit(g, 1)));
		idx[d] = t;
	}
	return ex_load(g->A, u, u->ndim, idx);
}

/* grids: u, its two clamped neighbours along one axis, a gain */
static void
grid_taps(Gen *g, Block *b, Short *S, Var *u)
{
	static const char *const lo[3] = { "left", "down", "back" }, *const hi[3] = { "right", "up", "front" };

	if (S->in[1])
		return;
	S->in[1] = let(g, b, lo[S->axis], tap(g, u, S->axis, -1));
	S->in[2] = let(g, b, hi[S->axis], tap(g, u, S->axis, 1));
}

static void
sf_grid(Gen *g, Block *b, Short *S, int f, bool image)
{
	Var *u = S->in[0], *o;
	Expr *e;

	switch (f) {
	case 0:
		e = mul(g, load_tid(g, u), factor(g, &S->in[3], image ? "gain" : "scale", 0.5));
		if (image)
			e = ex_call(g->A, "wp.clamp", F(), 1.0, 3, e, lit(g, 0.0), lit(g, 1.0));
		o = arr(g, image ? "dst" : "scaled", F(), IO_OUT);
		sstore(g, b, S, o, e);
		phrase(S, image ? "adjust" : "scale", u->name, image ? "applies a gain and clamps to the unit range" : "scales every cell by a factor");
		break;
	case 1: {
		Expr *c, *side;

		grid_taps(g, b, S, u);
		c = mul(g, lit(g, 0.5), load_tid(g, u));
		side = mul(g, lit(g, 0.25), add(g, use(g, S->in[1]), use(g, S->in[2])));
		o = arr(g, image ? "blurred" : "smoothed", F(), IO_OUT);
		sstore(g, b, S, o, add(g, c, side));
		phrase(S, image ? "blur" : "smooth", u->name, aprintf(g->A, "smooths along axis %d with a three-tap filter", S->axis));
		break;
	}
	case 2:
		grid_taps(g, b, S, u);
		o = arr(g, S->axis == 0 ? "dx" : S->axis == 1 ? "dy" : "dz", F(), IO_OUT);
		sstore(g, b, S, o, mul(g, lit(g, 0.5), sub(g, use(g, S->in[2]), use(g, S->in[1]))));
		phrase(S, "differentiate", u->name, "takes a central difference clamped at the borders");
		break;
	default: {
		bool below = rng_pct(&g->rng, 40), flag = rng_pct(&g->rng, 40);
		Expr *c;

		need_scalar(g, &S->in[4], "threshold", F());
		c = ex_cmp(g->A, below ? OP_LT : OP_GT, load_tid(g, u), use(g, S->in[4]));
		o = arr(g, image ? "binary" : below ? "below" : "above", flag ? I() : F(), IO_OUT);
		sstore(g, b, S, o, flag ? ex_call(g->A, "wp.where", I(), 1.0, 3, c, ilit(g, 1), ilit(g, 0))
					: ex_call(g->A, "wp.where", F(), 1.0, 3, c, lit(g, 1.0), lit(g, 0.0)));
		phrase(S, "threshold", u->name, below ? "marks the cells below a threshold" : "marks the cells above a threshold");
		break;
	}
	}
}

static void
sf_histogram(Gen *g, Block *b, Short *S, int f)
{
	Var *x = S->in[0], *acc;

	switch (f) {
	case 0: {
		const char *fn = rng_pct(&g->rng, 50) ? "wp.atomic_add" : NULL;
		bool mag = rng_pct(&g->rng, 35); /* x or |x| (sums of squares are the optimiser's) */
		Expr *e = load_tid(g, x);

		if (mag)
			e = call1(g, "wp.abs", F(), 1.0, e);

		if (rng_pct(&g->rng, 40))
			e = mul(g, load_tid(g, need(g, &S->in[1], "weights", F(), IO_IN)), e);
		acc = arr(g, "total", F(), IO_ACC);
		atomic(g, b, fn, acc, ilit(g, 0), e);
		phrase(S, "sum", x->name, "sums the values with an atomic add");
		break;
	}
	case 1: {
		bool mag = rng_pct(&g->rng, 60);

		acc = arr(g, "peak", F(), IO_ACC);
		atomic(g, b, "wp.atomic_max", acc, ilit(g, 0), mag ? call1(g, "wp.abs", F(), 1.0, load_tid(g, x)) : load_tid(g, x));
		phrase(S, "find", "peak", mag ? "finds the largest magnitude with an atomic max" : "finds the largest value with an atomic max");
		break;
	}
	case 2:
		acc = arr(g, "lowest", F(), IO_ACC);
		if (rng_pct(&g->rng, 60)) {
			atomic(g, b, "wp.atomic_min", acc, ilit(g, 0), load_tid(g, x));
			phrase(S, "find", "minimum", "finds the smallest value with an atomic min");
		} else {
			atomic(g, b, "wp.atomic_min", acc, ilit(g, 0), call1(g, "wp.abs", F(), 1.0, load_tid(g, x)));
			phrase(S, "find", "minimum", "finds the smallest magnitude with an atomic min");
		}
		break;
	default: {
		int nb = 4 << pick(g, 3);
		const char *kn = rng_pct(&g->rng, 50) ? "k" : "bin";
		bool minmax = rng_pct(&g->rng, 40), wt = rng_pct(&g->rng, 35);
		Expr *t = mul(g, add(g, load_tid(g, x), lit(g, 1.0)), lit(g, 0.5 * nb));
		Var *k;

		acc = arr(g, rng_pct(&g->rng, 50) ? "counts" : "hist", wt ? F() : I(), IO_ACC);
		if (rng_pct(&g->rng, 40))
			t = call1(g, "wp.floor", F(), t->bound, t);
		k = let(g, b, kn, clamp_index(g, minmax, call1(g, "int", I(), nb + 1, t), acc));
		k->nonneg = true;
		atomic(g, b, rng_pct(&g->rng, 50) ? "wp.atomic_add" : NULL, acc, use(g, k),
		       wt ? load_tid(g, need(g, &S->in[1], "weights", F(), IO_IN)) : ilit(g, 1));
		phrase(S, "count", x->name, aprintf(g->A, "counts the values from -1 to 1 into %d bins", nb));
		break;
	}
	}
}

static void
sf_optimizer(Gen *g, Block *b, Short *S, int f)
{
	Var *gr = S->in[0], *o;
	Expr *e;

	switch (f) {
	case 0: /* w - lr * g, or w - lr * (g + wd * w) */
		e = load_tid(g, gr);
		if (rng_pct(&g->rng, 35))
		{
			Expr *wd = factor(g, &S->in[3], "weight_decay", 0.01);

			e = add(g, e, mul(g, wd, load_tid(g, need(g, &S->in[1], "params", F(), IO_IN))));
		}
		e = mul(g, factor(g, &S->in[2], "lr", 0.01), e);
		o = arr(g, "params_new", F(), IO_OUT);
		sstore(g, b, S, o, sub(g, load_tid(g, need(g, &S->in[1], "params", F(), IO_IN)), e));
		phrase(S, "sgd", "step", "takes a gradient-descent step on the parameters");
		break;
	case 1: /* momentum */
		e = factor(g, &S->in[4], "momentum", 0.9);
		e = mul(g, e, load_tid(g, need(g, &S->in[5], "velocity", F(), IO_IN)));
		o = arr(g, "velocity_new", F(), IO_OUT);
		sstore(g, b, S, o, add(g, e, load_tid(g, gr)));
		phrase(S, "update", "momentum", "updates the momentum buffer with the gradient");
		break;
	case 2: {
		Expr *lo, *hi;

		if (rng_pct(&g->rng, 60)) {
			Var *lim = let(g, b, "c", call1(g, "wp.abs", F(), 1.0, use(g, need_scalar(g, &S->in[6], "max_grad", F()))));

			lo = ex_un(g->A, OP_NEG, use(g, lim));
			hi = use(g, lim);
		} else {
			lo = lit(g, -1.0);
			hi = lit(g, 1.0);
		}
		o = arr(g, "grad_clipped", F(), IO_OUT);
		sstore(g, b, S, o, ex_call(g->A, "wp.clamp", F(), 1.0, 3, load_tid(g, gr), lo, hi));
		phrase(S, "clip", "gradients", "clamps every gradient to a symmetric limit");
		break;
	}
	default:
		o = arr(g, "grad_norm_sq", F(), IO_ACC);
		atomic(g, b, "wp.atomic_add", o, ilit(g, 0), mul(g, load_tid(g, gr), load_tid(g, gr)));
		phrase(S, "accumulate", "grad_norm", "sums the squared gradients for a global norm");
		break;
	}
}

static void
sf_sdf(Gen *g, Block *b, Short *S, int f)
{
	Var *p = S->in[0], *o;
	Type T = V(S->n);

	switch (f) {
	case 0:
		o = arr(g, rng_pct(&g->rng, 50) ? "dist" : "sdf", F(), IO_OUT);
		need_scalar(g, &S->in[1], "center", T);
		if (S->n == 3 && rng_pct(&g->rng, 40)) { /* through a helper that does only that */
			Func *f = sdf_sphere_fn(g);
			Expr *q = sub(g, load_tid(g, p), use(g, S->in[1]));

			f->used = true;
			sstore(g, b, S, o, ex_call(g->A, f->name, F(), 84.0, 2, q, factor(g, &S->in[2], "radius", 0.5)));
		} else {
			sstore(g, b, S, o, sub(g, call1(g, "wp.length", F(), 2.0, sub(g, load_tid(g, p), use(g, S->in[1]))), factor(g, &S->in[2], "radius", 0.5)));
		}
		phrase(S, "sphere", "distance", "evaluates the signed distance to a sphere");
		break;
	case 1:
		o = arr(g, "normals", T, IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.normalize", T, 1.0, load_tid(g, p)));
		phrase(S, "normalize", "points", "projects the points onto the unit sphere");
		break;
	case 2:
		o = arr(g, rng_pct(&g->rng, 50) ? "closest" : "clamped", T, IO_OUT);
		need_scalar(g, &S->in[3], "lower", T);
		need_scalar(g, &S->in[4], "upper", T);
		sstore(g, b, S, o, call2(g, "wp.min", T, 1.0, call2(g, "wp.max", T, 1.0, load_tid(g, p), use(g, S->in[3])), use(g, S->in[4])));
		phrase(S, "clamp", "points", "finds the closest point of an axis-aligned box");
		break;
	case 3:
		o = arr(g, "height", F(), IO_OUT);
		need_scalar(g, &S->in[5], "normal", T);
		sstore(g, b, S, o, sub(g, call2(g, "wp.dot", F(), 2.0, load_tid(g, p), use(g, S->in[5])), factor(g, &S->in[6], "offset", 0.25)));
		phrase(S, "plane", "distance", "measures the signed height above a plane");
		break;
	case 6: { /* the distance to a box, by a helper (3-D) */
		Func *f = sdf_box_fn(g);
		Var *h = need_scalar(g, &S->in[7], "half_extents", V(3));

		f->used = true;
		o = arr(g, rng_pct(&g->rng, 50) ? "dist" : "box_sdf", F(), IO_OUT);
		sstore(g, b, S, o, ex_call(g->A, f->name, F(), 135.0, 2, load_tid(g, p), use(g, h)));
		phrase(S, "box", "distance", "evaluates the signed distance to a box centred at the origin");
		break;
	}
	case 5: { /* the box by center and half extents */
		Var *c = need_scalar(g, &S->in[1], "center", T), *h = need_scalar(g, &S->in[7], "half_extents", T);
		Expr *q = sub(g, load_tid(g, p), use(g, c));

		q = call2(g, "wp.min", T, 1.0, call2(g, "wp.max", T, 1.0, q, ex_un(g->A, OP_NEG, use(g, h))), use(g, h));
		o = arr(g, "closest", T, IO_OUT);
		sstore(g, b, S, o, add(g, use(g, c), q));
		phrase(S, "clamp", "points", "finds the closest point of a box given by its center and half extents");
		break;
	}
	default:
		o = arr(g, "inside", I(), IO_OUT);
		sstore(g, b, S, o, ex_call(g->A, "wp.where", I(), 1.0, 3, ex_cmp(g->A, OP_LT, call1(g, "wp.length", F(), 2.0, load_tid(g, p)),
			use(g, need_scalar(g, &S->in[2], "radius", F()))), ilit(g, 1), ilit(g, 0)));
		phrase(S, "flag", "inside", "flags the points inside a ball");
		break;
	}
}

static void
sf_sampling(Gen *g, Block *b, Short *S, int f)
{
	Var *st = S->in[0], *o;

	switch (f) {
	case 0: {
		static const char *const fn[] = { "wp.sample_unit_sphere_surface", "wp.sample_unit_sphere", "wp.sample_unit_hemisphere_surface", "wp.sample_unit_cube" };
		static const char *const ph[] = { "draws a uniform direction", "draws a point of the unit ball", "draws a direction of the upper hemisphere",
						  "draws a point of the unit cube" };
		int w = pick(g, 4);

		o = arr(g, w == 0 || w == 2 ? "dirs" : "points", V(3), IO_OUT);
		sstore(g, b, S, o, call1(g, fn[w], V(3), 1.0, use(g, st)));
		phrase(S, "sample", o->name, ph[w]);
		break;
	}
	case 1: {
		static const char *const fn[] = { "wp.sample_unit_disk", "wp.sample_unit_square", "wp.sample_unit_ring" };
		static const char *const ph[] = { "draws a point of the unit disk", "draws a point of the unit square", "draws a point of the unit circle" };
		int w = pick(g, 3);

		o = arr(g, rng_pct(&g->rng, 50) ? "uv" : "offsets", V(2), IO_OUT);
		sstore(g, b, S, o, call1(g, fn[w], V(2), 1.0, use(g, st)));
		phrase(S, "sample", o->name, ph[w]);
		break;
	}
	case 2: {
		Expr *z = mul(g, factor(g, &S->in[2], "sigma", 0.1), call1(g, "wp.randn", F(), 6.0, use(g, st)));

		o = arr(g, "noisy", F(), IO_OUT);
		sstore(g, b, S, o, add(g, load_tid(g, need(g, &S->in[1], "signal", F(), IO_IN)), z));
		phrase(S, "add", "noise", "adds Gaussian noise to a signal");
		break;
	}
	default:
		o = arr(g, "u", F(), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.randf", F(), 1.0, use(g, st)));
		phrase(S, "draw", "uniform", "draws a uniform number between zero and one");
		break;
	}
}

static void
sf_noise(Gen *g, Block *b, Short *S, int f)
{
	Var *st = S->in[0], *p = S->in[1], *o;
	Expr *q, *e;

	if (!S->in[4]) /* the scaled point, shared by the forms */
		S->in[4] = let(g, b, "q", mul(g, load_tid(g, p), factor(g, &S->in[2], "frequency", 4.0)));
	q = use(g, S->in[4]);

	switch (f) {
	case 0:
		e = ex_call(g->A, "wp.noise", F(), 1.0, 2, use(g, st), q);
		if (rng_pct(&g->rng, 40))
			e = mul(g, use(g, need_scalar(g, &S->in[3], "amplitude", F())), e);
		o = arr(g, rng_pct(&g->rng, 50) ? "heights" : "values", F(), IO_OUT);
		sstore(g, b, S, o, e);
		phrase(S, "evaluate", "noise", "evaluates Perlin noise at scaled points");
		break;
	default:
		o = arr(g, "density", F(), IO_OUT);
		sstore(g, b, S, o, call2(g, "wp.max", F(), 1.0, ex_call(g->A, "wp.noise", F(), 1.0, 2, use(g, st), q), lit(g, 0.0)));
		phrase(S, "threshold", "noise", "keeps the positive part of a noise field");
		break;
	}
}

static void
sf_rigid(Gen *g, Block *b, Short *S, int f)
{
	Var *X0 = S->in[0], *o;

	switch (f) {
	case 0:
		o = arr(g, "x_world", V(3), IO_OUT);
		sstore(g, b, S, o, ex_call(g->A, "wp.transform_point", V(3), 12.0, 2, load_tid(g, X0), load_tid(g, need(g, &S->in[1], "x_local", V(3), IO_IN))));
		phrase(S, "transform", "points", "maps body-frame points to world space");
		break;
	case 1:
		o = arr(g, "n_world", V(3), IO_OUT);
		sstore(g, b, S, o, ex_call(g->A, "wp.transform_vector", V(3), 12.0, 2, load_tid(g, X0), load_tid(g, need(g, &S->in[2], "n_local", V(3), IO_IN))));
		phrase(S, "rotate", "normals", "rotates body-frame directions into world space");
		break;
	case 2:
		o = arr(g, "origins", V(3), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.transform_get_translation", V(3), 1.0, load_tid(g, X0)));
		phrase(S, "extract", "origins", "copies out each pose's translation");
		break;
	case 3:
		o = arr(g, "rotations", Q(), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.transform_get_rotation", Q(), 1.0, load_tid(g, X0)));
		phrase(S, "extract", "rotations", "copies out each pose's rotation");
		break;
	case 4:
		if (rng_pct(&g->rng, 60)) {
			o = arr(g, "world_pose", X(), IO_OUT);
			sstore(g, b, S, o, ex_call(g->A, "wp.transform_multiply", X(), 12.0, 2, load_tid(g, X0), load_tid(g, need(g, &S->in[3], "local_pose", X(), IO_IN))));
			phrase(S, "compose", "poses", "composes each pose with a local offset pose");
		} else {
			Expr *inv = call1(g, "wp.transform_inverse", X(), 12.0, load_tid(g, need(g, &S->in[3], "parent_pose", X(), IO_IN)));

			o = arr(g, "relative", X(), IO_OUT);
			sstore(g, b, S, o, ex_call(g->A, "wp.transform_multiply", X(), 12.0, 2, inv, load_tid(g, X0)));
			phrase(S, "relative", "poses", "expresses each pose relative to its parent's");
		}
		break;
	case 6: { /* the angle of the rotation about a hinge axis (swing-twist) */
		double e[3] = { 0, 0, 0 };
		bool sg = rng_pct(&g->rng, 40);
		Expr *q;

		e[pick(g, 3)] = 1.0;
		q = call1(g, "wp.transform_get_rotation", Q(), 1.0, load_tid(g, X0));
		o = arr(g, "joint_angle", F(), IO_OUT);
		sstore(g, b, S, o, call2(g, sg ? "wp.quat_twist_angle_signed" : "wp.quat_twist_angle", F(), 4.0, vlit(g, 3, e), q));
		phrase(S, "measure", "joint_angles", "measures the twist angle of each rotation about a hinge axis");
		break;
	}
	default:
		o = arr(g, "inv_pose", X(), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.transform_inverse", X(), 12.0, load_tid(g, X0)));
		phrase(S, "invert", "poses", "inverts every pose");
		break;
	}
}

static void
sf_loss(Gen *g, Block *b, Short *S, int f)
{
	Var *o;

	if (!S->in[2])
		S->in[2] = let(g, b, rng_pct(&g->rng, 50) ? "r" : "diff", sub(g, load_tid(g, S->in[0]), load_tid(g, S->in[1])));
	switch (f) {
	case 0:
		o = arr(g, "residual", F(), IO_OUT);
		sstore(g, b, S, o, use(g, S->in[2]));
		phrase(S, "compute", "residuals", "writes each residual");
		break;
	case 1: {
		Expr *e = mul(g, use(g, S->in[2]), use(g, S->in[2]));

		if (rng_pct(&g->rng, 40))
			e = mul(g, load_tid(g, need(g, &S->in[4], "weights", F(), IO_IN)), e);
		o = arr(g, "loss", F(), IO_ACC);
		atomic(g, b, "wp.atomic_add", o, ilit(g, 0), e);
		phrase(S, "squared", "error", "sums the squared error with an atomic add");
		break;
	}
	case 2:
		{
			Expr *e = call1(g, "wp.abs", F(), 2.0, use(g, S->in[2]));

			if (rng_pct(&g->rng, 40))
				e = mul(g, load_tid(g, need(g, &S->in[4], "weights", F(), IO_IN)), e);
			o = arr(g, "l1", F(), IO_ACC);
			atomic(g, b, "wp.atomic_add", o, ilit(g, 0), e);
		}
		phrase(S, "absolute", "error", "sums the absolute error with an atomic add");
		break;
	default:
		o = arr(g, "grad", F(), IO_OUT);
		sstore(g, b, S, o, mul(g, factor(g, &S->in[3], "scale", 2.0), use(g, S->in[2])));
		phrase(S, "compute", "loss_grad", "writes the gradient of the squared error");
		break;
	}
}

static void
sf_twist(Gen *g, Block *b, Short *S, int f)
{
	Var *qd = S->in[0], *o;

	switch (f) {
	case 0:
		o = arr(g, "omega", F(), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.length", F(), 2.0, call1(g, "wp.spatial_top", V(3), 1.0, load_tid(g, qd))));
		phrase(S, "compute", "angular_speed", "computes each body's angular speed");
		break;
	case 1:
		o = arr(g, "v_com", V(3), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.spatial_bottom", V(3), 1.0, load_tid(g, qd)));
		phrase(S, "extract", "linear_velocity", "extracts the linear part of each twist");
		break;
	case 3: {
		Var *qd_i = let(g, b, "t", load_tid(g, qd));
		Expr *w = call1(g, "wp.spatial_top", V(3), 1.0, use(g, qd_i)), *v = call1(g, "wp.spatial_bottom", V(3), 1.0, use(g, qd_i));

		o = arr(g, "v_point", V(3), IO_OUT);
		sstore(g, b, S, o, add(g, v, call2(g, "wp.cross", V(3), 2.0, w, load_tid(g, need(g, &S->in[2], "r", V(3), IO_IN)))));
		phrase(S, "compute", "point_velocity", "computes the velocity of a point on each body");
		break;
	}
	default:
		o = arr(g, "qd_scaled", SV(), IO_OUT);
		sstore(g, b, S, o, mul(g, load_tid(g, qd), factor(g, &S->in[1], "dt", 0.01)));
		phrase(S, "scale", "twists", "scales every twist by a time step");
		break;
	}
}

static void
sf_strain(Gen *g, Block *b, Short *S, int f)
{
	Var *o;

	if (!S->in[1]) {
		Expr *id = ex_new(g->A, E_CALL, M(3), 0);

		id->s = "wp.identity(n=3, dtype=float)";
		id->bound = 1.0;
		id->flags = EF_CONST;
		S->in[1] = let(g, b, "F", add(g, id, load_tid(g, S->in[0])));
	}
	switch (f) {
	case 0:
		o = arr(g, "J", F(), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.determinant", F(), 64.0, use(g, S->in[1])));
		phrase(S, "compute", "volume_ratio", "computes the volume ratio det(I + H) of the deformation");
		break;
	case 1:
		o = arr(g, "tr", F(), IO_OUT);
		sstore(g, b, S, o, call1(g, "wp.trace", F(), 8.0, use(g, S->in[1])));
		phrase(S, "compute", "trace", "computes the trace of the deformation gradient");
		break;
	case 2:
		o = arr(g, "F_out", M(3), IO_OUT);
		sstore(g, b, S, o, use(g, S->in[1]));
		phrase(S, "assemble", "def_grad", "assembles F = I + H from the displacement gradient");
		break;
	case 3:
		o = arr(g, "C", M(3), IO_OUT);
		sstore(g, b, S, o, ex_bin(g->A, OP_MATMUL, call1(g, "wp.transpose", M(3), 2.0, use(g, S->in[1])), use(g, S->in[1]), M(3), 12.0));
		phrase(S, "compute", "cauchy_green", "computes the right Cauchy-Green tensor of the deformation");
		break;
	default: {
		Expr *e = sub(g, call2(g, "wp.ddot", F(), 36.0, use(g, S->in[1]), use(g, S->in[1])), lit(g, 3.0));

		o = arr(g, "psi", F(), IO_OUT);
		sstore(g, b, S, o, mul(g, factor(g, &S->in[2], "mu", 0.5), e));
		phrase(S, "compute", "strain_energy", "evaluates a neo-Hookean style energy density of the deformation");
		break;
	}
	}
}

static void
sf_cells(Gen *g, Block *b, Short *S, int f)
{
	Var *o;

	switch (f) {
	case 0:
		o = arr(g, "timers_out", I(), IO_OUT);
		sstore(g, b, S, o, call2(g, "wp.max", I(), 8.0, sub(g, load_tid(g, need(g, &S->in[0], "timers", I(), IO_IN)), ilit(g, 1)), ilit(g, 0)));
		phrase(S, "tick", "timers", "counts each timer down to zero");
		break;
	case 1:
		need(g, &S->in[3], "age", F(), IO_IN);
		need_scalar(g, &S->in[4], "dt", F());
		o = arr(g, "age_out", F(), IO_OUT);
		sstore(g, b, S, o, add(g, load_tid(g, S->in[3]), use(g, S->in[4])));
		phrase(S, "age", "cells", "ages every cell by the time step");
		break;
	default:
		o = arr(g, "occupied", I(), IO_OUT);
		need(g, &S->in[1], "density", F(), IO_IN);
		need_scalar(g, &S->in[2], "threshold", F());
		sstore(g, b, S, o, ex_call(g->A, "wp.where", I(), 1.0, 3, ex_cmp(g->A, OP_GT, load_tid(g, S->in[1]), use(g, S->in[2])), ilit(g, 1), ilit(g, 0)));
		phrase(S, "mark", "occupied", "marks the cells whose density exceeds a threshold");
		break;
	}
}

/* A short kernel of the recipe family `cat` (one of its forms, or two), for the
 * family's share of short kernels; false for the others: the caller builds the
 * recipe's full kernel. */
bool
rec_short(Gen *g, const char *cat)
{
	/* forms, the most launch dimensions (elementwise forms run on grids too),
	 * and the share of the family's kernels that are short (percent): less
	 * where only the long form reaches some operations (quat_twist_angle,
	 * svd2, qr3), so that a default run still uses every one */
	static const struct { const char *cat; int nf, ndim, pct; } fam[] = {
		{ "particle_step", 5, 1, 60 }, { "mass_spring", 4, 1, 60 }, { "diffusion", 4, 3, 60 }, { "image_filter", 4, 2, 60 },
		{ "binning", 4, 1, 60 }, { "optimizer", 4, 2, 60 }, { "distance_field", 5, 1, 60 }, { "box_outcode", 7, 1, 60 },
		{ "monte_carlo", 4, 1, 60 }, { "noise_field", 2, 1, 60 }, { "rigid_pose", 7, 1, 40 }, { "training_loss", 4, 2, 60 },
		{ "spatial_motion", 4, 1, 60 }, { "deformation", 5, 1, 35 }, { "cell_state", 3, 2, 60 },
	};
	Block *b = &g->k->body;
	Short S;
	int fi, nf, form[2], n, i;
	Buf h = { 0 };

	for (fi = 0; fi < (int)(sizeof fam / sizeof fam[0]) && strcmp(fam[fi].cat, cat); fi++)
		;
	if (fi == (int)(sizeof fam / sizeof fam[0]) || !rng_pct(&g->rng, fam[fi].pct))
		return false;
	memset(&S, 0, sizeof S);
	nclauses = 0;
	nf = fam[fi].nf;
	n = nf > 1 && rng_pct(&g->rng, 50) ? 2 : 1;
	form[0] = pick(g, nf);
	form[1] = (form[0] + 1 + pick(g, nf - 1 > 0 ? nf - 1 : 1)) % nf;
	if (!strcmp(cat, "box_outcode")) { /* the box is what the family is about */
		form[0] = 2 + 3 * pick(g, 3); /* 2, 5, 8 -> 6 below */
		if (form[0] == 8)
			form[0] = 6;
		if (form[1] == 2 || form[1] == 5 || form[1] == 6 || form[1] == form[0])
			n = 1;
	}
	S.n = rng_pct(&g->rng, 70) ? 3 : 2;
	if (form[0] == 6 && S.n == 2) /* the box helper is 3-D */
		form[0] = 5;
	S.prev = rng_pct(&g->rng, 30);
	/* grids of 2 or 3 dimensions; other elementwise forms on 1 or 2, but
	 * accumulators (single elements, one index) only in 1-D launches */
	S.nd = fam[fi].ndim == 3 ? 2 + pick(g, 2) : fam[fi].ndim == 2 && rng_pct(&g->rng, 35) ? 2 : 1;
	if (fi == 3)
		S.nd = 2;
	for (i = 0; i < n; i++)
		if ((fi == 5 && form[i] == 3) || (fi == 11 && (form[i] == 1 || form[i] == 2)))
			S.nd = 1;
	S.axis = pick(g, S.nd);
	set_launch(g, S.nd);
	/* the input every form of the family reads */
	switch (fi) {
	case 2:
	case 3: S.in[0] = arr(g, fi == 3 ? ONE(((const char *const[]){ "img", "image", "src" })) : ONE(((const char *const[]){ "u", "temp", "density", "phi" })), F(), IO_IN); break;
	case 4: S.in[0] = arr(g, ONE(((const char *const[]){ "values", "samples", "data" })), F(), IO_IN); break;
	case 5: S.in[0] = arr(g, rng_pct(&g->rng, 50) ? "gradient" : "grads", F(), IO_IN); break;
	case 6:
	case 7: S.in[0] = arr(g, ONE(((const char *const[]){ "points", "p", "queries" })), V(S.n), IO_IN); break;
	case 8:
	case 9: S.in[9] = scalar(g, "seed", I()); break;
	case 10: S.in[0] = arr(g, ONE(((const char *const[]){ "body_q", "poses", "xforms" })), X(), IO_IN); break;
	case 11:
		S.in[0] = arr(g, rng_pct(&g->rng, 50) ? "pred" : "y_pred", F(), IO_IN);
		S.in[1] = arr(g, rng_pct(&g->rng, 50) ? "target" : "y_true", F(), IO_IN);
		break;
	case 12: S.in[0] = arr(g, rng_pct(&g->rng, 50) ? "body_qd" : "twists", SV(), IO_IN); break;
	case 13: S.in[0] = arr(g, rng_pct(&g->rng, 50) ? "grad_u" : "displacement_grad", M(3), IO_IN); break;
	}
	if (fi == 9) {
		const char *pn = rng_pct(&g->rng, 50) ? "points" : "coords";

		S.in[1] = arr(g, pn, S.n == 3 && rng_pct(&g->rng, 30) ? F() : V(S.n), IO_IN);
	}
	emit_tid(g, b);
	if (fi == 8)
		S.in[0] = let(g, b, rng_pct(&g->rng, 50) ? "state" : "rng", ex_call(g->A, "wp.rand_init", U(), 0, 2, use(g, S.in[9]), use(g, g->tid[0])));
	else if (fi == 9)
		S.in[0] = let(g, b, "state", ex_call(g->A, "wp.rand_init", U(), 0, 1, use(g, S.in[9])));
	/* the early exit of inactive elements, as simulation code skips them */
	if (rng_pct(&g->rng, 20)) {
		Var *fl = arr(g, ONE(((const char *const[]){ "active", "flags", "enabled" })), I(), IO_IN);
		Stmt *s = if_stmt(g, b, ex_cmp(g->A, OP_EQ, load_tid(g, fl), ilit(g, 0)));

		block_push(g->A, &s->body, st_new(g->A, S_RETURN));
	}
	for (i = 0; i < n; i++) {
		switch (fi) {
		case 0: sf_particles(g, b, &S, form[i]); break;
		case 1: sf_springs(g, b, &S, form[i]); break;
		case 2:
		case 3: sf_grid(g, b, &S, form[i], fi == 3); break;
		case 4: sf_histogram(g, b, &S, form[i]); break;
		case 5: sf_optimizer(g, b, &S, form[i]); break;
		case 6:
		case 7: sf_sdf(g, b, &S, form[i]); break;
		case 8: sf_sampling(g, b, &S, form[i]); break;
		case 9: sf_noise(g, b, &S, form[i]); break;
		case 10: sf_rigid(g, b, &S, form[i]); break;
		case 11: sf_loss(g, b, &S, form[i]); break;
		case 12: sf_twist(g, b, &S, form[i]); break;
		case 13: sf_strain(g, b, &S, form[i]); break;
		default: sf_cells(g, b, &S, form[i]); break;
		}
	}
	/* now and then the check of a careful writer that an output and an input
	 * agree in size (true by the runner convention: every array has the
	 * launch's shape); only where no other line reads a shape (a repeat) */
	if (S.nd == 1 && fi != 1 && fi != 4 && rng_pct(&g->rng, 15)) {
		Var *in = NULL, *out = NULL;
		int p;

		for (p = 0; p < g->k->nparams; p++) {
			Var *v = g->k->params[p];

			if (v->role == V_ARRAY && v->io == IO_IN && !in && v->elem.kind != TY_INT)
				in = v;
			if (v->role == V_ARRAY && v->io == IO_OUT && !out)
				out = v;
		}
		if (in && out) {
			Stmt *a = st_new(g->A, S_ASSERT);

			a->e = ex_cmp(g->A, OP_EQ, ex_shape(g->A, out, 0), ex_shape(g->A, in, 0));
			block_insert(g->A, b, 1, a);
		}
	}
	/* inputs first, then what the kernel writes, each in the order made */
	{
		Kernel *k = g->k;
		Var *ps[MAX_PARAMS];
		int np = 0, pass, p;

		for (pass = 0; pass < 2; pass++)
			for (p = 0; p < k->nparams; p++)
				if ((k->params[p]->role == V_ARRAY && k->params[p]->io != IO_IN) == (pass == 1))
					ps[np++] = k->params[p];
		memcpy(k->params, ps, sizeof(Var *) * (size_t)np);
	}
	name(g, S.verb, S.noun);
	bufprintf(&h, "%c%s", S.ph[0][0] - 'a' + 'A', S.ph[0] + 1);
	if (S.nph > 1)
		bufprintf(&h, " and %s", S.ph[1]);
	bufputs(&h, ".");
	g->k->gist[g->k->ngist++] = astrdup(g->A, h.s);
	buffree(&h);
	bufprintf(&h, "This kernel %s", S.ph[0]);
	if (S.nph > 1)
		bufprintf(&h, ", then %s", S.ph[1]);
	bufputs(&h, ".");
	g->k->gist[g->k->ngist++] = astrdup(g->A, h.s);
	buffree(&h);
	return true;
}
