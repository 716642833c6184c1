/*
 * scalarize_rand.c — the expansions of scalarize for the random numbers
 * (Warp's PCG hash in integer ops, kpy/rand.h) and for poisson, noise,
 * pnoise and curlnoise, which become calls of helper functions in low kir
 * added to the module once (see scalarize.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scalarize.h"

/* ------------------------------------------------------------------ */
/* Random numbers (kpy/rand.h, Warp's rand.h)                           */

static uint32_t
pcghost(uint32_t state)
{
	uint32_t b = state * 747796405u + 2891336453u;
	uint32_t c = ((b >> ((b >> 28u) + 4u)) ^ b) * 277803737u;
	return (c >> 22u) ^ c;
}

static Val
U32(S *s, uint32_t v)
{
	return KI(s, S_U32, v);
}

static Val
pcg(S *s, Val x)
{
	Val b = add(s, mul(s, x, U32(s, 747796405u)), U32(s, 2891336453u));
	Val sh = add(s, op2(s, OP_RSHIFT, b, U32(s, 28)), U32(s, 4));
	Val c = mul(s, op2(s, OP_BIT_XOR, op2(s, OP_RSHIFT, b, sh), b), U32(s, 277803737u));
	return op2(s, OP_BIT_XOR, op2(s, OP_RSHIFT, c, U32(s, 22)), c);
}

/* randf32: advances *st; uniform in [0, 1) from the top 24 bits. */
static Val
randf32(S *s, Val *st)
{
	*st = pcg(s, *st);
	return mul(s, cast(s, op2(s, OP_RSHIFT, *st, U32(s, 8)), S_F32), K(s, S_F32, 1.0 / 16777216.0));
}

static Val
randf32r(S *s, Val *st, Val lo, Val hi)
{
	return add(s, mul(s, sub(s, hi, lo), randf32(s, st)), lo);
}

static Val F(S *s, double v) { return K(s, S_F32, v); }

/* The float kind of noise's arithmetic: f32, or f64 once the module was
 * widened (krun --double), as kpy/noise.h computes in the position's type
 * T; FT is a constant of that kind. */
static int fk(const S *s) { return s->m->widened ? S_F64 : S_F32; }
static Val FT(S *s, double v) { return K(s, fk(s), v); }

/* A helper's parameter and result kinds; FW: the module's float kind, for
 * noise's helpers */
enum { U = S_U32, I = S_I32, FL = S_F32, FW = -1 };
static int hkind(const S *s, int k) { return k == FW ? fk(s) : k; }

#define TWOPI_F 6.28318530717958647692 /* 2.0f * KPY_PI_F, exact in float */

static Val callhelper(S *s, const char *name, const Val *args, int nargs, Val *res, int nres);

void
xrand(S *s, const Op *op, const L *in, L *out)
{
	Val st = in[0].v[0], v[3], x, r, th, phi;
	int code = op->code;

	switch (code) {
	case OP_RAND_INIT:
		if (op->nargs == 1)
			out[0].v[0] = pcg(s, cast(s, in[0].v[0], S_U32));
		else
			out[0].v[0] = pcg(s, add(s, cast(s, in[0].v[0], S_U32), pcg(s, cast(s, in[1].v[0], S_U32))));
		return;
	case OP_RANDI:
	case OP_RANDU:
		st = pcg(s, st);
		if (op->nargs == 1) {
			x = st;
		} else {
			Val lo = cast(s, in[1].v[0], S_U32), hi = cast(s, in[2].v[0], S_U32);
			x = add(s, op2(s, OP_MOD, st, sub(s, hi, lo)), lo);
		}
		out[0].v[0] = cast(s, x, code == OP_RANDI ? S_I32 : S_U32);
		break;
	case OP_RANDF:
		out[0].v[0] = op->nargs == 1 ? randf32(s, &st) : randf32r(s, &st, in[1].v[0], in[2].v[0]);
		break;
	case OP_RANDN: {
		Val u1 = randf32(s, &st), u2 = randf32(s, &st);
		x = sqr(s, mul(s, F(s, -2), op1(s, OP_LOG, add(s, u1, F(s, 5.96e-8)))));
		out[0].v[0] = mul(s, x, op1(s, OP_COS, mul(s, F(s, TWOPI_F), u2)));
		break;
	}
	case OP_SAMPLE_TRIANGLE:
		r = sqr(s, randf32(s, &st));
		out[0].v[0] = sub(s, F(s, 1), r);
		out[0].v[1] = mul(s, randf32(s, &st), r);
		break;
	case OP_SAMPLE_UNIT_RING:
		th = randf32r(s, &st, F(s, 0), F(s, TWOPI_F));
		out[0].v[0] = op1(s, OP_COS, th);
		out[0].v[1] = op1(s, OP_SIN, th);
		break;
	case OP_SAMPLE_UNIT_DISK:
		r = sqr(s, randf32(s, &st));
		th = randf32r(s, &st, F(s, 0), F(s, TWOPI_F));
		out[0].v[0] = mul(s, r, op1(s, OP_COS, th));
		out[0].v[1] = mul(s, r, op1(s, OP_SIN, th));
		break;
	case OP_SAMPLE_UNIT_SPHERE_SURFACE:
	case OP_SAMPLE_UNIT_SPHERE:
	case OP_SAMPLE_UNIT_HEMISPHERE_SURFACE:
	case OP_SAMPLE_UNIT_HEMISPHERE: {
		bool hemi = code == OP_SAMPLE_UNIT_HEMISPHERE_SURFACE || code == OP_SAMPLE_UNIT_HEMISPHERE;
		bool ball = code == OP_SAMPLE_UNIT_SPHERE || code == OP_SAMPLE_UNIT_HEMISPHERE;
		Val u = randf32(s, &st), sp;
		phi = op1(s, OP_ACOS, sub(s, F(s, 1), hemi ? u : mul(s, F(s, 2), u)));
		th = randf32r(s, &st, F(s, 0), F(s, TWOPI_F));
		sp = op1(s, OP_SIN, phi);
		if (ball) {
			r = op2(s, OP_POW, randf32(s, &st), F(s, 1.0 / 3.0));
			out[0].v[0] = mul(s, mul(s, r, op1(s, OP_COS, th)), sp);
			out[0].v[1] = mul(s, mul(s, r, op1(s, OP_SIN, th)), sp);
			out[0].v[2] = mul(s, r, op1(s, OP_COS, phi));
		} else {
			out[0].v[0] = mul(s, op1(s, OP_COS, th), sp);
			out[0].v[1] = mul(s, op1(s, OP_SIN, th), sp);
			out[0].v[2] = op1(s, OP_COS, phi);
		}
		break;
	}
	case OP_SAMPLE_UNIT_SQUARE:
	case OP_SAMPLE_UNIT_CUBE: {
		int k, n = code == OP_SAMPLE_UNIT_SQUARE ? 2 : 3;
		for (k = 0; k < n; k++)
			out[0].v[k] = sub(s, randf32(s, &st), F(s, 0.5));
		break;
	}
	case OP_POISSON:
		v[0] = st;
		v[1] = in[1].v[0];
		callhelper(s, "kpy_poisson", v, 2, v, 2);
		out[0].v[0] = v[0];
		st = v[1];
		break;
	default:
		die("scalarize: random op %s", opinfo[code].name);
	}
	out[op->nres - 1].v[0] = st;
}

/* ------------------------------------------------------------------ */
/* Helper functions (poisson, noise), built once per module in low kir  */

/* Build an `if` with two regions; fills then/else through callbacks. */
typedef struct Helper {
	const char *name;
	int nparams, nrets;
	int ptys[11], rtys[16];  /* scalar kinds */
	void (*build)(S *s, const Val *p, Val *r);
} Helper;

static const Helper *findhelper(const char *name);

/* Emit a `while` loop whose body is produced by fn; see poisson. */

/* log(Gamma(x)) (kpy/rand.h loggam) */
static Val
loggam(S *s, Val x)
{
	static const double a[10] = {8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04,
		-5.952380952380952e-04, 8.417508417508418e-04, -1.917526917526918e-03, 6.410256410256410e-03,
		-2.955065359477124e-02, 1.796443723688307e-01, -1.39243221690590e+00};
	Val small = lt(s, x, F(s, 7)), n, x0, x2, gl0, gl, t, one = F(s, 1);
	Region *save = s->r;
	Op *loop;
	Val init[3];
	Type tys[2];
	int i;

	n = sel(s, small, cast(s, sub(s, F(s, 7), x), S_U32), U32(s, 0));
	x0 = add(s, x, cast(s, n, S_F32));
	x2 = mul(s, dvd(s, one, x0), dvd(s, one, x0));
	gl0 = F(s, a[9]);
	for (i = 8; i >= 0; i--)
		gl0 = add(s, mul(s, gl0, x2), F(s, a[i]));
	gl = sub(s, add(s, add(s, dvd(s, gl0, x0), mul(s, F(s, 0.5), F(s, 1.8378770664093453))),
	                mul(s, sub(s, x0, F(s, 0.5)), op1(s, OP_LOG, x0))), x0);
	/* for k = 1 .. n: gl -= log(x0 - 1); x0 -= 1 (n is 0 unless x < 7) */
	init[0] = U32(s, 1);
	init[1] = add(s, n, U32(s, 1));
	init[2] = U32(s, 1);
	{
		Val args[5] = {init[0], init[1], init[2], gl, x0};
		tys[0] = tscalar(S_F32);
		tys[1] = tscalar(S_F32);
		loop = emit(s, OP_FOR, args, 5, tys, 2);
	}
	{
		Type pt[3] = {tscalar(S_U32), tscalar(S_F32), tscalar(S_F32)};
		opsetparams(s->m, s->f, loop, pt, 3);
	}
	opsetregions(s->m, loop, 1);
	s->r = &loop->regs[0];
	{
		Val g = loop->params[1], xx = loop->params[2], y[2];
		t = sub(s, xx, one);
		y[0] = sub(s, g, op1(s, OP_LOG, t));
		y[1] = t;
		emit(s, OP_YIELD, y, 2, NULL, 0);
	}
	s->r = save;
	return sel(s, lor(s, eq(s, x, one), eq(s, x, F(s, 2))), F(s, 0), loop->res[0]);
}

/* A `while true` loop: body(s, carried, next) fills the loop body, ending
 * it with a yield or a break of its own; returns the results. */
static Op *
loopforever(S *s, const Val *init, const Type *tys, int n, void (*body)(S *s, const Val *c, void *ctx), void *ctx)
{
	Region *save = s->r;
	Op *op = emit(s, OP_WHILE, init, n, tys, n);
	Val t = cbool(s->m, s->f, true);

	opsetparams(s->m, s->f, op, tys, n);
	opsetregions(s->m, op, 2);
	s->r = &op->regs[0];
	emit(s, OP_YIELD, &t, 1, NULL, 0);
	s->r = &op->regs[1];
	body(s, op->params, ctx);
	s->r = save;
	return op;
}

/* `if c { then: yield/break a } else { yield/break b }`; tys of n results. */
Op *
ifelse(S *s, Val c, int tcode, const Val *a, int na, int ecode, const Val *b, int nb, const Type *tys, int n)
{
	Region *save = s->r;
	Op *op = emit(s, OP_IF, &c, 1, tys, n);

	opsetregions(s->m, op, 2);
	s->r = &op->regs[0];
	emit(s, tcode, a, na, NULL, 0);
	s->r = &op->regs[1];
	emit(s, ecode, b, nb, NULL, 0);
	s->r = save;
	return op;
}

typedef struct PCtx {
	Val lam, enlam;                      /* mult */
	Val slam, loglam, a, b, invalpha, vr; /* ptrs */
} PCtx;

/* carried: x (u32), prod (f32), state (u32) */
static void
multbody(S *s, const Val *c, void *ctx)
{
	PCtx *p = ctx;
	Val st = c[2], prod = mul(s, c[1], randf32(s, &st)), y[3], bk[3];
	Type tys[3] = {tscalar(S_U32), tscalar(S_F32), tscalar(S_U32)};
	Op *op;

	y[0] = add(s, c[0], U32(s, 1));
	y[1] = prod;
	y[2] = st;
	bk[0] = c[0];
	bk[1] = prod;
	bk[2] = st;
	op = ifelse(s, gt(s, prod, p->enlam), OP_YIELD, y, 3, OP_BREAK, bk, 3, tys, 3);
	emit(s, OP_YIELD, op->res, 3, NULL, 0);
}

/* carried: k (u32 result), state (u32).  Accept, reject (next draw) or
 * test against log Gamma, which is evaluated only in the last case. */
static void
ptrsbody(S *s, const Val *c, void *ctx)
{
	PCtx *p = ctx;
	Val st = c[1], u = sub(s, randf32(s, &st), F(s, 0.5)), v = randf32(s, &st);
	Val us = sub(s, F(s, 0.5), op1(s, OP_ABS, u)), k, ku, acc, rej, lhs, rhs, res[2], cont[2];
	Type tys[2] = {tscalar(S_U32), tscalar(S_U32)};
	Region *save = s->r;
	Op *o1, *o2, *o3;

	k = op1(s, OP_FLOOR, add(s, add(s, mul(s, add(s, dvd(s, mul(s, F(s, 2), p->a), us), p->b), u), p->lam),
	                         F(s, 0.43)));
	ku = cast(s, k, S_U32);
	acc = land(s, ge(s, us, F(s, 0.07)), op2(s, OP_LE, v, p->vr));
	res[0] = ku;
	res[1] = st;
	cont[0] = c[0];
	cont[1] = st;
	o1 = emit(s, OP_IF, &acc, 1, tys, 2);
	opsetregions(s->m, o1, 2);
	s->r = &o1->regs[0];
	emit(s, OP_BREAK, res, 2, NULL, 0);
	s->r = &o1->regs[1];
	rej = lor(s, lt(s, k, F(s, 0)), land(s, lt(s, us, F(s, 0.013)), gt(s, v, us)));
	o2 = emit(s, OP_IF, &rej, 1, tys, 2);
	opsetregions(s->m, o2, 2);
	s->r = &o2->regs[0];
	emit(s, OP_YIELD, cont, 2, NULL, 0);
	s->r = &o2->regs[1];
	lhs = sub(s, add(s, op1(s, OP_LOG, v), op1(s, OP_LOG, p->invalpha)),
	          op1(s, OP_LOG, add(s, dvd(s, p->a, mul(s, us, us)), p->b)));
	rhs = sub(s, add(s, neg(s, p->lam), mul(s, k, p->loglam)), loggam(s, add(s, k, F(s, 1))));
	o3 = ifelse(s, op2(s, OP_LE, lhs, rhs), OP_BREAK, res, 2, OP_YIELD, cont, 2, tys, 2);
	emit(s, OP_YIELD, o3->res, 2, NULL, 0);
	s->r = &o1->regs[1];
	emit(s, OP_YIELD, o2->res, 2, NULL, 0);
	s->r = save;
	emit(s, OP_YIELD, o1->res, 2, NULL, 0);
}

static void
hpoisson(S *s, const Val *p, Val *r)
{
	Val st = p[0], lam = p[1], res[2];
	Type tys[3] = {tscalar(S_U32), tscalar(S_F32), tscalar(S_U32)};
	PCtx c = {0};
	Op *big, *small, *op;
	Region *save = s->r;
	Val init[3];

	c.lam = lam;
	/* lam >= 10: PTRS */
	big = emit(s, OP_IF, (Val[]){ge(s, lam, F(s, 10))}, 1, (Type[]){tscalar(S_U32), tscalar(S_U32)}, 2);
	opsetregions(s->m, big, 2);
	s->r = &big->regs[0];
	c.slam = sqr(s, lam);
	c.loglam = op1(s, OP_LOG, lam);
	c.b = add(s, F(s, 0.931), mul(s, F(s, 2.53), c.slam));
	c.a = add(s, F(s, -0.059), mul(s, F(s, 0.02483), c.b));
	c.invalpha = add(s, F(s, 1.1239), dvd(s, F(s, 1.1328), sub(s, c.b, F(s, 3.4))));
	c.vr = sub(s, F(s, 0.9277), dvd(s, F(s, 3.6224), sub(s, c.b, F(s, 2))));
	init[0] = U32(s, 0);
	init[1] = st;
	op = loopforever(s, init, (Type[]){tscalar(S_U32), tscalar(S_U32)}, 2, ptrsbody, &c);
	emit(s, OP_YIELD, op->res, 2, NULL, 0);
	s->r = &big->regs[1];
	/* lam == 0: 0; else multiplication method */
	small = emit(s, OP_IF, (Val[]){eq(s, lam, F(s, 0))}, 1, (Type[]){tscalar(S_U32), tscalar(S_U32)}, 2);
	opsetregions(s->m, small, 2);
	s->r = &small->regs[0];
	res[0] = U32(s, 0);
	res[1] = st;
	emit(s, OP_YIELD, res, 2, NULL, 0);
	s->r = &small->regs[1];
	c.enlam = op1(s, OP_EXP, neg(s, lam));
	init[0] = U32(s, 0);
	init[1] = F(s, 1);
	init[2] = st;
	op = loopforever(s, init, tys, 3, multbody, &c);
	res[0] = op->res[0];
	res[1] = op->res[2];
	emit(s, OP_YIELD, res, 2, NULL, 0);
	s->r = &big->regs[1];
	emit(s, OP_YIELD, small->res, 2, NULL, 0);
	s->r = save;
	r[0] = big->res[0];
	r[1] = big->res[1];
}

/* ---- noise (kpy/noise.h) ---- */

static const uint32_t noiseprime[4] = {73856093u, 19349663u, 53471161u, 10000019u};

/* The lattice gradient of dimension n at integer corner ix[] (i32). */
static void
gradient(S *s, Val state, int n, const Val *ix, Val *g)
{
	Val idx = 0, t[4];
	int k;

	for (k = 0; k < n; k++) {
		Val h = mul(s, cast(s, ix[k], S_U32), U32(s, noiseprime[k]));
		if (k == n - 1)
			h = add(s, h, state);
		idx = k == 0 ? h : op2(s, OP_BIT_XOR, idx, h);
	}
	if (n == 1) {
		g[0] = randf32r(s, &idx, F(s, -1), F(s, 1));
	} else {
		for (k = 0; k < n; k++)
			t[k] = sub(s, randf32(s, &idx), F(s, 0.5));
		vnormalize(s, t, n, g);
	}
	if (fk(s) != S_F32) /* drawn in float, as the runtime's, then widened */
		for (k = 0; k < n; k++)
			g[k] = cast(s, g[k], fk(s));
}

static Val
smoother(S *s, Val t)
{
	/* t*t*t*(t*(t*6 - 15) + 10) */
	return mul(s, mul(s, mul(s, t, t), t), add(s, mul(s, t, sub(s, mul(s, t, FT(s, 6)), FT(s, 15))), FT(s, 10)));
}

static Val
smoothergrad(S *s, Val t)
{
	/* 30*t*t*(t*(t - 2) + 1) */
	return mul(s, mul(s, mul(s, FT(s, 30), t), t), add(s, mul(s, t, sub(s, t, FT(s, 2))), FT(s, 1)));
}

static Val
interp(S *s, Val a0, Val a1, Val t)
{
	return add(s, mul(s, sub(s, a1, a0), smoother(s, t)), a0);
}

/* (d_a1 - d_a0)*ss(t) + (a1 - a0)*sg(t)*d_t + d_a0, n components */
static void
interpgrad(S *s, Val a0, Val a1, Val t, const Val *da0, const Val *da1, const Val *dt, int n, Val *r)
{
	Val ss = smoother(s, t), w = mul(s, sub(s, a1, a0), smoothergrad(s, t));
	int k;

	for (k = 0; k < n; k++)
		r[k] = add(s, add(s, mul(s, sub(s, da1[k], da0[k]), ss), mul(s, dt[k], w)), da0[k]);
}

/* The cell of x[0..n): corners i0, i1 and offsets d, with periods p (or
 * none). */
static void
cell(S *s, int n, const Val *x, const Val *p, Val *i0, Val *i1, Val *d)
{
	int k;

	for (k = 0; k < n; k++) {
		Val f = op1(s, OP_FLOOR, x[k]);
		d[k] = sub(s, x[k], f);
		i0[k] = cast(s, f, S_I32);
		if (p) {
			i0[k] = op2(s, OP_MOD, i0[k], p[k]);
			i1[k] = op2(s, OP_MOD, add(s, i0[k], KI(s, S_I32, 1)), p[k]);
		} else {
			i1[k] = add(s, i0[k], KI(s, S_I32, 1));
		}
	}
}

/* Noise value of dimension n in a cell, interpolating x first. */
static Val
noisecell(S *s, Val state, int n, const Val *i0, const Val *i1, const Val *d)
{
	Val v[16], dd[4], ix[4], g[4];
	int c, k, m, half;

	for (c = 0; c < (1 << n); c++) {
		for (k = 0; k < n; k++) {
			int hi = (c >> k) & 1;
			ix[k] = hi ? i1[k] : i0[k];
			dd[k] = hi ? sub(s, d[k], FT(s, 1)) : d[k];
		}
		gradient(s, state, n, ix, g);
		if (n == 1) {
			v[c] = mul(s, dd[0], g[0]);
		} else {
			v[c] = mul(s, dd[0], g[0]);
			for (k = 1; k < n; k++)
				v[c] = add(s, v[c], mul(s, dd[k], g[k]));
		}
	}
	/* interpolate along x, then y, ... (corner bit k is axis k) */
	for (k = 0, m = 1 << n; k < n; k++, m = half) {
		half = m / 2;
		for (c = 0; c < half; c++)
			v[c] = interp(s, v[2 * c], v[2 * c + 1], d[k]);
	}
	return v[0];
}

/* Gradient of the noise in a cell (noise2/3/4_gradient). */
static void
noisegrad(S *s, Val state, int n, const Val *i0, const Val *i1, const Val *d, Val *out)
{
	Val v[16], g[16][4], dd[4], ix[4], e[4][4];
	int c, k, j, m, half;

	for (c = 0; c < (1 << n); c++) {
		for (k = 0; k < n; k++) {
			int hi = (c >> k) & 1;
			ix[k] = hi ? i1[k] : i0[k];
			dd[k] = hi ? sub(s, d[k], FT(s, 1)) : d[k];
		}
		gradient(s, state, n, ix, g[c]);
		v[c] = vdot(s, dd, g[c], n);
	}
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			e[k][j] = FT(s, k == j);
	for (k = 0, m = 1 << n; k < n; k++, m = half) {
		half = m / 2;
		for (c = 0; c < half; c++) {
			Val gv[4];
			interpgrad(s, v[2 * c], v[2 * c + 1], d[k], g[2 * c], g[2 * c + 1], e[k], n, gv);
			v[c] = interp(s, v[2 * c], v[2 * c + 1], d[k]);
			memcpy(g[c], gv, sizeof gv);
		}
	}
	memcpy(out, g[0], (size_t)n * sizeof(Val));
}

/* noise/pnoise of dimension n: params state, x[n] (, period[n]). */
static void
hnoise(S *s, const Val *p, Val *r, int n, bool periodic)
{
	Val i0[4], i1[4], d[4];

	cell(s, n, p + 1, periodic ? p + 1 + n : NULL, i0, i1, d);
	r[0] = noisecell(s, p[0], n, i0, i1, d);
}

static void hnoise1(S *s, const Val *p, Val *r) { hnoise(s, p, r, 1, false); }
static void hnoise2(S *s, const Val *p, Val *r) { hnoise(s, p, r, 2, false); }
static void hnoise3(S *s, const Val *p, Val *r) { hnoise(s, p, r, 3, false); }
static void hnoise4(S *s, const Val *p, Val *r) { hnoise(s, p, r, 4, false); }
static void hpnoise1(S *s, const Val *p, Val *r) { hnoise(s, p, r, 1, true); }
static void hpnoise2(S *s, const Val *p, Val *r) { hnoise(s, p, r, 2, true); }
static void hpnoise3(S *s, const Val *p, Val *r) { hnoise(s, p, r, 3, true); }
static void hpnoise4(S *s, const Val *p, Val *r) { hnoise(s, p, r, 4, true); }

/* noise gradient of dimension n: params state, x[n] (, period[n]);
 * results g[n]. */
static void
hgrad(S *s, const Val *p, Val *r, int n, bool periodic)
{
	Val i0[4], i1[4], d[4];

	cell(s, n, p + 1, periodic ? p + 1 + n : NULL, i0, i1, d);
	noisegrad(s, p[0], n, i0, i1, d, r);
}

static void hgrad1(S *s, const Val *p, Val *r) { hgrad(s, p, r, 1, false); }
static void hgrad2(S *s, const Val *p, Val *r) { hgrad(s, p, r, 2, false); }
static void hgrad3(S *s, const Val *p, Val *r) { hgrad(s, p, r, 3, false); }
static void hgrad4(S *s, const Val *p, Val *r) { hgrad(s, p, r, 4, false); }
static void hpgrad1(S *s, const Val *p, Val *r) { hgrad(s, p, r, 1, true); }
static void hpgrad2(S *s, const Val *p, Val *r) { hgrad(s, p, r, 2, true); }
static void hpgrad3(S *s, const Val *p, Val *r) { hgrad(s, p, r, 3, true); }
static void hpgrad4(S *s, const Val *p, Val *r) { hgrad(s, p, r, 4, true); }

/* 60*t*(t*(t*2 - 3) + 1), the second derivative of smootherstep */
static Val
smootherhess(S *s, Val t)
{
	return mul(s, mul(s, FT(s, 60), t), add(s, mul(s, t, sub(s, mul(s, t, FT(s, 2)), FT(s, 3))), FT(s, 1)));
}

/* One blend level of the noise with its gradient and Hessian (kpy/noise.h,
 * detail::level_compose): F = A + (B - A) S(d_k), in the runtime's order. */
typedef struct Lev {
	Val val, grad[4], hess[4][4];
} Lev;

static void
levcompose(S *s, Lev *f, const Lev *a, const Lev *b, int n, int k, Val sm, Val s1, Val s2)
{
	Val dv = sub(s, b->val, a->val), dg[4];
	int i, j;

	f->val = add(s, a->val, mul(s, dv, sm));
	for (i = 0; i < n; i++)
		dg[i] = sub(s, b->grad[i], a->grad[i]);
	for (i = 0; i < n; i++)
		f->grad[i] = add(s, a->grad[i], mul(s, dg[i], sm));
	f->grad[k] = add(s, f->grad[k], mul(s, dv, s1));
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			f->hess[i][j] = add(s, a->hess[i][j], mul(s, sub(s, b->hess[i][j], a->hess[i][j]), sm));
	for (i = 0; i < n; i++) {
		f->hess[i][k] = add(s, f->hess[i][k], mul(s, dg[i], s1));
		f->hess[k][i] = add(s, f->hess[k][i], mul(s, dg[i], s1));
	}
	f->hess[k][k] = add(s, f->hess[k][k], mul(s, dv, s2));
}

/* Hessian of the noise of dimension n (n >= 2): params state, x[n];
 * results H[i][j], row by row (detail::noise_hessian). */
static void
hhess(S *s, const Val *p, Val *r, int n)
{
	Val i0[4], i1[4], d[4], ix[4], dd[4], g[4];
	Lev lv[16];
	int c, k, i, j, m;

	cell(s, n, p + 1, NULL, i0, i1, d);
	for (c = 0; c < (1 << n); c++) {
		for (k = 0; k < n; k++) {
			int hi = (c >> k) & 1;
			ix[k] = hi ? i1[k] : i0[k];
			dd[k] = hi ? sub(s, d[k], FT(s, 1)) : d[k];
		}
		gradient(s, p[0], n, ix, g);
		lv[c].val = mul(s, dd[0], g[0]);
		for (k = 1; k < n; k++)
			lv[c].val = add(s, lv[c].val, mul(s, dd[k], g[k]));
		for (i = 0; i < n; i++) {
			lv[c].grad[i] = g[i];
			for (j = 0; j < n; j++)
				lv[c].hess[i][j] = FT(s, 0);
		}
	}
	for (k = 0, m = 1 << n; k < n; k++, m /= 2) {
		Val sm = smoother(s, d[k]), s1 = smoothergrad(s, d[k]), s2 = smootherhess(s, d[k]);
		for (c = 0; c < m / 2; c++) {
			Lev f;
			levcompose(s, &f, &lv[2 * c], &lv[2 * c + 1], n, k, sm, s1, s2);
			lv[c] = f;
		}
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			r[i * n + j] = lv[0].hess[i][j];
}

static void hhess2(S *s, const Val *p, Val *r) { hhess(s, p, r, 2); }
static void hhess3(S *s, const Val *p, Val *r) { hhess(s, p, r, 3); }
static void hhess4(S *s, const Val *p, Val *r) { hhess(s, p, r, 4); }

/* The octave loop of curlnoise and of its adjoint (kpy/noise.h): octaves
 * iterations carrying nsum float sums (from 0), freq and amp (from 1) and
 * the state.  Leaves s->r in the loop's body, *c at the carried values. */
static Op *
octaveloop(S *s, Val octaves, Val state, int nsum, const Val **c)
{
	Val init[3 + 12 + 3];
	Type tys[12 + 3], pt[1 + 12 + 3];
	int k, ncar = nsum + 3;
	Op *loop;

	init[0] = KI(s, S_I32, 0);
	init[1] = cast(s, octaves, S_I32);
	init[2] = KI(s, S_I32, 1);
	for (k = 0; k < nsum; k++) {
		init[3 + k] = FT(s, 0);
		tys[k] = tscalar(fk(s));
	}
	init[3 + nsum] = FT(s, 1); /* freq */
	init[4 + nsum] = FT(s, 1); /* amp */
	init[5 + nsum] = state;
	tys[nsum] = tscalar(fk(s));
	tys[nsum + 1] = tscalar(fk(s));
	tys[nsum + 2] = tscalar(S_U32);
	loop = emit(s, OP_FOR, init, 3 + ncar, tys, ncar);
	pt[0] = tscalar(S_I32);
	memcpy(pt + 1, tys, (size_t)ncar * sizeof(Type));
	opsetparams(s->m, s->f, loop, pt, ncar + 1);
	opsetregions(s->m, loop, 1);
	s->r = &loop->regs[0];
	*c = loop->params + 1;
	return loop;
}

/* One octave's end: the sums y[0..nsum-1], freq * lacunarity, amp * gain
 * and the state st carried to the next. */
static void
octaveend(S *s, Val *y, int nsum, const Val *c, Val lacunarity, Val gain, Val st)
{
	y[nsum] = mul(s, c[nsum], lacunarity);
	y[nsum + 1] = mul(s, c[nsum + 1], gain);
	y[nsum + 2] = st;
	emit(s, OP_YIELD, y, nsum + 3, NULL, 0);
}

/* The nf noise fields of a curl at pt[0..n-1]: helper name (the field's
 * gradient or Hessian, nres values) into out[fi], each field's state drawn
 * from the previous one as curlnoise's; returns the last state. */
static Val
curlfields(S *s, Val st, const Val *pt, int n, int nf, const char *name, int nres, Val *const out[])
{
	Val a[5];
	int fi, k;

	for (fi = 0; fi < nf; fi++) {
		if (fi == 1)
			st = pcg(s, add(s, st, U32(s, pcghost(10019689u))));
		if (fi == 2)
			st = pcg(s, add(s, st, U32(s, pcghost(13112221u))));
		a[0] = st;
		for (k = 0; k < n; k++)
			a[1 + k] = pt[k];
		callhelper(s, name, a, 1 + n, out[fi], nres);
	}
	return st;
}

/* curlnoise_adj: params state, x[n], g[2 or 3], octaves (u32), lacunarity,
 * gain; results the adjoint of x (curlnoise_adj of kpy/noise.h). */
static void
hcurladj(S *s, const Val *p, Val *r, int n)
{
	Region *save = s->r;
	int ng = n == 2 ? 2 : 3, nf = n == 2 ? 1 : 3, k, j;
	const Val *x = p + 1, *g = p + 1 + n, *c;
	Val y[4 + 3], pt[4], H[3][16], st, kk;
	Val *const out[3] = { H[0], H[1], H[2] };
	Op *loop;
	char name[32];

	loop = octaveloop(s, p[1 + n + ng], p[0], n, &c);
	{
		Val freq = c[n], amp = c[n + 1];
		for (k = 0; k < n; k++)
			pt[k] = mul(s, freq, x[k]);
		snprintf(name, sizeof name, "kpy_noise%d_hess", n);
		st = curlfields(s, c[n + 2], pt, n, nf, name, n * n, out);
		kk = mul(s, amp, freq);
		for (j = 0; j < n; j++) {
			Val t;
			if (n == 2) { /* ret = (-grad.y, grad.x): -H[1][j] g0 + H[0][j] g1 */
				t = add(s, mul(s, neg(s, H[0][2 + j]), g[0]), mul(s, H[0][j], g[1]));
			} else {
				const Val *H1 = H[0], *H2 = H[1], *H3 = H[2];
				t = add(s, add(s, mul(s, g[0], sub(s, H3[1 * n + j], H2[2 * n + j])),
				                  mul(s, g[1], sub(s, H1[2 * n + j], H3[0 * n + j]))),
				        mul(s, g[2], sub(s, H2[0 * n + j], H1[1 * n + j])));
			}
			y[j] = add(s, c[j], mul(s, kk, t));
		}
		octaveend(s, y, n, c, p[2 + n + ng], p[3 + n + ng], st);
	}
	s->r = save;
	for (k = 0; k < n; k++)
		r[k] = loop->res[k];
}

static void hcurladj2(S *s, const Val *p, Val *r) { hcurladj(s, p, r, 2); }
static void hcurladj3(S *s, const Val *p, Val *r) { hcurladj(s, p, r, 3); }
static void hcurladj4(S *s, const Val *p, Val *r) { hcurladj(s, p, r, 4); }

/* curlnoise: params state, x[n], octaves (u32), lacunarity, gain. */
static void
hcurl(S *s, const Val *p, Val *r, int n)
{
	Region *save = s->r;
	Val st, g[3][4], y[20], pt[4], res[4];
	Val *const out[3] = { g[0], g[1], g[2] };
	int nc = n == 2 ? 1 : 3, k, j, fi;
	const Val *c;
	Op *loop;
	char name[32];

	/* carried: the sums (nc fields of n components), freq, amp, state */
	loop = octaveloop(s, p[1 + n], p[0], nc * n, &c);
	{
		Val freq = c[nc * n], amp = c[nc * n + 1];
		for (k = 0; k < n; k++)
			pt[k] = mul(s, p[1 + k], freq);
		snprintf(name, sizeof name, "kpy_noise%d_grad", n);
		st = curlfields(s, c[nc * n + 2], pt, n, nc, name, n, out);
		for (fi = 0; fi < nc; fi++)
			for (k = 0; k < n; k++)
				y[fi * n + k] = add(s, c[fi * n + k], mul(s, g[fi][k], amp));
		octaveend(s, y, nc * n, c, p[2 + n], p[3 + n], st);
	}
	s->r = save;
	for (j = 0; j < nc * n; j++)
		y[j] = loop->res[j];
	if (n == 2) {
		res[0] = neg(s, y[1]);
		res[1] = y[0];
	} else { /* (s3.y - s2.z, s1.z - s3.x, s2.x - s1.y) */
		Val *s1 = y, *s2 = y + n, *s3 = y + 2 * n;
		res[0] = sub(s, s3[1], s2[2]);
		res[1] = sub(s, s1[2], s3[0]);
		res[2] = sub(s, s2[0], s1[1]);
	}
	memcpy(r, res, (size_t)(n == 2 ? 2 : 3) * sizeof(Val));
}

static void hcurl2(S *s, const Val *p, Val *r) { hcurl(s, p, r, 2); }
static void hcurl3(S *s, const Val *p, Val *r) { hcurl(s, p, r, 3); }
static void hcurl4(S *s, const Val *p, Val *r) { hcurl(s, p, r, 4); }


static const Helper helpers[] = {
	{"kpy_poisson", 2, 2, {U, FL}, {U, U}, hpoisson},
	{"kpy_noise1", 2, 1, {U, FW}, {FW}, hnoise1},
	{"kpy_noise2", 3, 1, {U, FW, FW}, {FW}, hnoise2},
	{"kpy_noise3", 4, 1, {U, FW, FW, FW}, {FW}, hnoise3},
	{"kpy_noise4", 5, 1, {U, FW, FW, FW, FW}, {FW}, hnoise4},
	{"kpy_pnoise1", 3, 1, {U, FW, I}, {FW}, hpnoise1},
	{"kpy_pnoise2", 5, 1, {U, FW, FW, I, I}, {FW}, hpnoise2},
	{"kpy_pnoise3", 7, 1, {U, FW, FW, FW, I, I, I}, {FW}, hpnoise3},
	{"kpy_pnoise4", 9, 1, {U, FW, FW, FW, FW, I, I, I, I}, {FW}, hpnoise4},
	{"kpy_noise1_grad", 2, 1, {U, FW}, {FW}, hgrad1},
	{"kpy_noise2_grad", 3, 2, {U, FW, FW}, {FW, FW}, hgrad2},
	{"kpy_noise3_grad", 4, 3, {U, FW, FW, FW}, {FW, FW, FW}, hgrad3},
	{"kpy_noise4_grad", 5, 4, {U, FW, FW, FW, FW}, {FW, FW, FW, FW}, hgrad4},
	{"kpy_pnoise1_grad", 3, 1, {U, FW, I}, {FW}, hpgrad1},
	{"kpy_pnoise2_grad", 5, 2, {U, FW, FW, I, I}, {FW, FW}, hpgrad2},
	{"kpy_pnoise3_grad", 7, 3, {U, FW, FW, FW, I, I, I}, {FW, FW, FW}, hpgrad3},
	{"kpy_pnoise4_grad", 9, 4, {U, FW, FW, FW, FW, I, I, I, I}, {FW, FW, FW, FW}, hpgrad4},
	{"kpy_noise2_hess", 3, 4, {U, FW, FW}, {FW, FW, FW, FW}, hhess2},
	{"kpy_noise3_hess", 4, 9, {U, FW, FW, FW}, {FW, FW, FW, FW, FW, FW, FW, FW, FW}, hhess3},
	{"kpy_noise4_hess", 5, 16, {U, FW, FW, FW, FW},
	 {FW, FW, FW, FW, FW, FW, FW, FW, FW, FW, FW, FW, FW, FW, FW, FW}, hhess4},
	{"kpy_curlnoise2_adj", 8, 2, {U, FW, FW, FW, FW, U, FW, FW}, {FW, FW}, hcurladj2},
	{"kpy_curlnoise3_adj", 10, 3, {U, FW, FW, FW, FW, FW, FW, U, FW, FW}, {FW, FW, FW}, hcurladj3},
	{"kpy_curlnoise4_adj", 11, 4, {U, FW, FW, FW, FW, FW, FW, FW, U, FW, FW}, {FW, FW, FW, FW}, hcurladj4},
	{"kpy_curlnoise2", 6, 2, {U, FW, FW, U, FW, FW}, {FW, FW}, hcurl2},
	{"kpy_curlnoise3", 7, 3, {U, FW, FW, FW, U, FW, FW}, {FW, FW, FW}, hcurl3},
	{"kpy_curlnoise4", 8, 3, {U, FW, FW, FW, FW, U, FW, FW}, {FW, FW, FW}, hcurl4},
};

static const Helper *
findhelper(const char *name)
{
	size_t i;

	for (i = 0; i < countof(helpers); i++)
		if (strcmp(helpers[i].name, name) == 0)
			return &helpers[i];
	die("scalarize: no helper %s", name);
}

/* Call helper `name` (adding it to the module the first time). */
static Val
callhelper(S *s, const char *name, const Val *args, int nargs, Val *res, int nres)
{
	const Helper *h = findhelper(name);
	int fi = findfunc(s->m, name), i;
	Type rt[16];
	Op *op;

	if (fi < 0) {
		S save = *s;
		Func *f = addfunc(s->m, name, false, (Loc){0});
		Val p[11], r[16];
		fi = (int)s->m->nfuncs - 1;
		for (i = 0; i < h->nparams; i++)
			p[i] = addparam(s->m, f, NULL, tscalar(hkind(s, h->ptys[i])), (Loc){0});
		for (i = 0; i < h->nrets; i++)
			addret(s->m, f, tscalar(hkind(s, h->rtys[i])));
		s->f = f;
		s->r = &f->body;
		s->loc = (Loc){0};
		s->kloc = (Loc){0};
		s->map = NULL;
		s->nmap = 0;
		h->build(s, p, r);
		emit(s, OP_RET, r, h->nrets, NULL, 0);
		save.nerr = s->nerr;
		*s = save;
	}
	if (nargs != h->nparams || nres != h->nrets)
		die("scalarize: helper %s called with %d arguments", name, nargs);
	for (i = 0; i < h->nrets; i++)
		rt[i] = tscalar(hkind(s, h->rtys[i]));
	op = emit(s, OP_CALL, args, nargs, rt, nres);
	op->attr = fi;
	for (i = 0; i < nres; i++)
		res[i] = op->res[i];
	return res[0];
}

void
xnoise(S *s, const Op *op, const L *in, L *out)
{
	Val a[12];
	int n = AT(1).k == T_VEC ? AT(1).n : 1, k, na = 0;
	char name[32];

	a[na++] = in[0].v[0];
	for (k = 0; k < n; k++)
		a[na++] = in[1].v[k];
	if (op->code == OP_PNOISE) /* one i32 period per axis */
		for (k = 0; k < n; k++)
			a[na++] = in[2 + k].v[0];
	if (op->code == OP_CURLNOISE_ADJ) { /* state, x, g[, octaves, lacunarity, gain] */
		for (k = 0; k < in[2].n; k++)
			a[na++] = in[2].v[k];
		a[na++] = op->nargs > 3 ? in[3].v[0] : U32(s, 1);
		a[na++] = op->nargs > 4 ? in[4].v[0] : FT(s, 2);
		a[na++] = op->nargs > 5 ? in[5].v[0] : FT(s, 0.5);
		snprintf(name, sizeof name, "kpy_curlnoise%d_adj", n);
		callhelper(s, name, a, na, out[0].v, out[0].n);
		return;
	}
	if (op->code == OP_NOISE_GRAD) { /* state, x[, periods] */
		bool periodic = op->nargs > 2;
		if (periodic)
			for (k = 0; k < n; k++)
				a[na++] = in[2 + k].v[0];
		snprintf(name, sizeof name, "kpy_%snoise%d_grad", periodic ? "p" : "", n);
		callhelper(s, name, a, na, out[0].v, n);
		return;
	}
	if (op->code == OP_CURLNOISE) {
		a[na++] = op->nargs > 2 ? in[2].v[0] : U32(s, 1);
		a[na++] = op->nargs > 3 ? in[3].v[0] : FT(s, 2);
		a[na++] = op->nargs > 4 ? in[4].v[0] : FT(s, 0.5);
		snprintf(name, sizeof name, "kpy_curlnoise%d", n);
		callhelper(s, name, a, na, out[0].v, out[0].n);
		return;
	}
	snprintf(name, sizeof name, "kpy_%snoise%d", op->code == OP_PNOISE ? "p" : "", n);
	callhelper(s, name, a, na, out[0].v, 1);
}
