/*
 * kirgrad — a slow reference evaluator of kir in double precision, for the
 * autodiff tests: it checks a backward kernel (K.adj, made by kopt -p ad)
 * against central finite differences of its forward kernel K, without any
 * back end.  Test-only: krun --gradcheck is the tool users run; this one
 * exists so that the derivative rules can be checked on their own, and as a
 * second opinion on krun.
 *
 *   kirgrad [options] FILE.kir
 *     -k NAME        the kernel (default: the first kernel that has a K.adj)
 *     -d N[,M..]     launch dimensions (default 6)
 *     -s NAME=D[,D]  shape of array parameter NAME (default: the launch dims)
 *     -i NAME=V      value of scalar parameter NAME (integers default to 3)
 *     -r LO,HI       range of random float inputs (default -1,1)
 *     -x NAME        do not check the gradient of array NAME
 *     -t TOL         tolerance on the worst relative error (default 1e-6)
 *     -S SEED        random seed (default 1)
 *     --dump         run the first kernel forward and print every array
 *     --npy DIR      write the kernel's generated input arrays as DIR/NAME.npy
 *                    (for krun --in) and exit
 *     -h H           relative step of the finite differences (default 1e-6)
 *
 * All floats (f16, f32, f64) are computed as double.  The loss is a random
 * projection of every array after K; the backward kernel runs on the arrays
 * as K left them, with the adjoint arrays holding the projection's weights,
 * and must leave in them the gradient of the loss with respect to the
 * arrays before K.  The relative error of an element is
 * |ad - fd| / max(|ad|, |fd|, 1e-2).  Exit 0 if every checked array is
 * within the tolerance, 1 if not, 2 on bad usage or input.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* ------------------------------------------------------------------ */
/* values                                                              */

typedef struct Arr {
	Type elem;      /* element type */
	int nd;
	int shape[MAXDIM];
	int stride[MAXDIM]; /* in elements */
	int nc;         /* scalar components per element */
	Scal *d;        /* data (base of this view) */
} Arr;

typedef struct Box {
	Type t;
	int nc;             /* scalar/composite: number of components */
	Scal *c;
	struct Box **f;     /* struct: fields */
	Arr *a;             /* array */
} Box;

typedef struct Ex {
	Module *m;
	Arena *ar;          /* per-thread scratch */
	int tid[MAXDIM];
	int ntid;
} Ex;

enum { FL_YIELD, FL_BREAK, FL_CONT, FL_RET };

typedef struct Flow {
	int kind;
	Box **v;
	int n;
} Flow;

static KPY_NORETURN void
fail(const char *msg, const char *arg)
{
	fprintf(stderr, "kirgrad: %s%s\n", msg, arg ? arg : "");
	exit(2);
}

static Box *
newbox(Ex *x, Type t)
{
	Box *b = aalloc(x->ar, sizeof *b);
	b->t = t;
	if (t.k == T_SCALAR || iscomposite(t) || t.k == T_STR) {
		b->nc = t.k == T_STR ? 1 : ncomp(t);
		b->c = aalloc(x->ar, (size_t)(b->nc ? b->nc : 1) * sizeof(Scal));
	} else if (t.k == T_STRUCT) {
		const StructDef *s = &x->m->structs[t.sid];
		uint32_t i;
		b->f = aalloc(x->ar, (s->nfields + 1) * sizeof *b->f);
		for (i = 0; i < s->nfields; i++)
			b->f[i] = newbox(x, s->fields[i].ty);
	}
	return b;
}

static Box *
copybox(Ex *x, const Box *s)
{
	Box *b = newbox(x, s->t);
	if (s->c)
		memcpy(b->c, s->c, (size_t)b->nc * sizeof(Scal));
	if (s->t.k == T_STRUCT) {
		uint32_t i;
		for (i = 0; i < x->m->structs[s->t.sid].nfields; i++)
			b->f[i] = copybox(x, s->f[i]);
	}
	b->a = s->a;
	return b;
}

static bool isflt(Type t) { return scalarisfloat(t.s); }

/* Store an integer result of kind s, wrapping like C. */
static Scal
wrap(int s, Scal v)
{
	if (scalarisfloat(s))
		return v;
	return scalround(s, v);
}

static double
getf(const Box *b, int i)
{
	Type t = b->t;
	if (scalarisfloat(t.s))
		return b->c[i].f;
	if (t.s >= S_U8 && t.s <= S_U64)
		return (double)b->c[i].u;
	return (double)b->c[i].i;
}

static void
setf(Box *b, int i, double v)
{
	b->c[i].f = v;
}

/* ------------------------------------------------------------------ */
/* small linear algebra on double arrays                               */

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void
cross3(const double *a, const double *b, double *r)
{
	double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
	memcpy(r, t, sizeof t);
}

static void
qmul(const double *a, const double *b, double *r)
{
	double t[4] = {a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - b[1] * a[2],
	               a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - b[2] * a[0],
	               a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - b[0] * a[1],
	               a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
	memcpy(r, t, sizeof t);
}

static void
qrot(const double *q, const double *x, double *r, double sgn)
{
	double c = 2 * q[3] * q[3] - 1, d = 2 * (q[0] * x[0] + q[1] * x[1] + q[2] * x[2]);
	double t[3] = {x[0] * c + q[0] * d + sgn * (q[1] * x[2] - q[2] * x[1]) * q[3] * 2,
	               x[1] * c + q[1] * d + sgn * (q[2] * x[0] - q[0] * x[2]) * q[3] * 2,
	               x[2] * c + q[2] * d + sgn * (q[0] * x[1] - q[1] * x[0]) * q[3] * 2};
	memcpy(r, t, sizeof t);
}

static void
qnormalize(const double *q, double *r)
{
	double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	if (l > 0) {
		int i;
		for (i = 0; i < 4; i++)
			r[i] = q[i] / l;
	} else {
		r[0] = r[1] = r[2] = 0;
		r[3] = 1;
	}
}

static void
vnormalize(const double *v, int n, double *r)
{
	double l = 0;
	int i;
	for (i = 0; i < n; i++)
		l += v[i] * v[i];
	l = sqrt(l);
	for (i = 0; i < n; i++)
		r[i] = l > 0 ? v[i] / l : 0;
}

static void
qtomat(const double *q, double *m)
{
	double e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, c[3];
	int i, j;
	for (j = 0; j < 3; j++) {
		qrot(q, e[j], c, 1);
		for (i = 0; i < 3; i++)
			m[i * 3 + j] = c[i];
	}
}

/* m: row-major with `ld` columns; uses the top-left 3x3 */
static void
qfrommat(const double *m, int ld, double *q)
{
#define M(i, j) m[(i) * ld + (j)]
	double tr = M(0, 0) + M(1, 1) + M(2, 2), x = 0, y = 0, z = 0, w = 0, h;
	if (tr >= 0) {
		h = sqrt(tr + 1);
		w = 0.5 * h;
		h = 0.5 / h;
		x = (M(2, 1) - M(1, 2)) * h;
		y = (M(0, 2) - M(2, 0)) * h;
		z = (M(1, 0) - M(0, 1)) * h;
	} else {
		int md = 0;
		if (M(1, 1) > M(0, 0))
			md = 1;
		if (M(2, 2) > M(md, md))
			md = 2;
		if (md == 0) {
			h = sqrt((M(0, 0) - (M(1, 1) + M(2, 2))) + 1);
			x = 0.5 * h;
			h = 0.5 / h;
			y = (M(0, 1) + M(1, 0)) * h;
			z = (M(2, 0) + M(0, 2)) * h;
			w = (M(2, 1) - M(1, 2)) * h;
		} else if (md == 1) {
			h = sqrt((M(1, 1) - (M(2, 2) + M(0, 0))) + 1);
			y = 0.5 * h;
			h = 0.5 / h;
			z = (M(1, 2) + M(2, 1)) * h;
			x = (M(0, 1) + M(1, 0)) * h;
			w = (M(0, 2) - M(2, 0)) * h;
		} else {
			h = sqrt((M(2, 2) - (M(0, 0) + M(1, 1))) + 1);
			z = 0.5 * h;
			h = 0.5 / h;
			x = (M(2, 0) + M(0, 2)) * h;
			y = (M(1, 2) + M(2, 1)) * h;
			w = (M(1, 0) - M(0, 1)) * h;
		}
	}
#undef M
	{
		double t[4] = {x, y, z, w};
		qnormalize(t, q);
	}
}

static double
det(const double *m, int n)
{
	double s = 0, sub[16];
	int j, r, c, k;

	if (n == 1)
		return m[0];
	if (n == 2)
		return m[0] * m[3] - m[1] * m[2];
	for (j = 0; j < n; j++) {
		k = 0;
		for (r = 1; r < n; r++)
			for (c = 0; c < n; c++)
				if (c != j)
					sub[k++] = m[r * n + c];
		s += ((j & 1) ? -1 : 1) * m[j] * det(sub, n - 1);
	}
	return s;
}

static void
inverse(const double *m, int n, double *r)
{
	double d = det(m, n), sub[16];
	int i, j, a, b, k;

	if (d == 0) {
		for (i = 0; i < n * n; i++)
			r[i] = 0;
		return;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			k = 0;
			for (a = 0; a < n; a++)
				for (b = 0; b < n; b++)
					if (a != j && b != i)
						sub[k++] = m[a * n + b];
			r[i * n + j] = (((i + j) & 1) ? -1 : 1) * det(sub, n - 1) / d;
		}
}


/* Symmetric eigen decomposition (cyclic Jacobi), n <= 3: a is n x n
 * symmetric, q gets the eigenvectors as columns, w the eigenvalues. */
static void
jacobi(const double *a0, int n, double *q, double *w)
{
	double a[9];
	int i, j, k, sweep;

	memcpy(a, a0, (size_t)(n * n) * sizeof *a);
	for (i = 0; i < n * n; i++)
		q[i] = i % (n + 1) == 0 ? 1 : 0;
	for (sweep = 0; sweep < 100; sweep++) {
		double off = 0;
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				off += a[i * n + j] * a[i * n + j];
		if (off < 1e-300)
			break;
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++) {
				double apq = a[i * n + j], th, t, c, sn;
				if (apq == 0)
					continue;
				th = (a[j * n + j] - a[i * n + i]) / (2 * apq);
				t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
				c = 1 / sqrt(t * t + 1);
				sn = t * c;
				for (k = 0; k < n; k++) {
					double x = a[k * n + i], y = a[k * n + j];
					a[k * n + i] = c * x - sn * y;
					a[k * n + j] = sn * x + c * y;
				}
				for (k = 0; k < n; k++) {
					double x = a[i * n + k], y = a[j * n + k];
					a[i * n + k] = c * x - sn * y;
					a[j * n + k] = sn * x + c * y;
				}
				for (k = 0; k < n; k++) {
					double x = q[k * n + i], y = q[k * n + j];
					q[k * n + i] = c * x - sn * y;
					q[k * n + j] = sn * x + c * y;
				}
			}
	}
	for (i = 0; i < n; i++)
		w[i] = a[i * n + i];
}

/* A = U diag(s) V^T, singular values in decreasing order. */
static void
svd(const double *a, int n, double *u, double *sv, double *v)
{
	double ata[9], q[9], w[9];
	int i, j, k, ord[3] = {0, 1, 2};

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			double t = 0;
			for (k = 0; k < n; k++)
				t += a[k * n + i] * a[k * n + j];
			ata[i * n + j] = t;
		}
	jacobi(ata, n, q, w);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (w[ord[j]] > w[ord[i]]) {
				int t = ord[i];
				ord[i] = ord[j];
				ord[j] = t;
			}
	for (j = 0; j < n; j++) {
		sv[j] = sqrt(w[ord[j]] > 0 ? w[ord[j]] : 0);
		for (i = 0; i < n; i++)
			v[i * n + j] = q[i * n + ord[j]];
		for (i = 0; i < n; i++) {
			double t = 0;
			for (k = 0; k < n; k++)
				t += a[i * n + k] * v[k * n + j];
			u[i * n + j] = sv[j] > 0 ? t / sv[j] : 0;
		}
	}
}

/* A = Q R by Gram-Schmidt (R with a positive diagonal). */
static void
qr(const double *a, int n, double *q, double *r)
{
	int i, j, k;

	memset(r, 0, (size_t)(n * n) * sizeof *r);
	for (j = 0; j < n; j++) {
		double col[3], nn = 0;
		for (i = 0; i < n; i++)
			col[i] = a[i * n + j];
		for (k = 0; k < j; k++) {
			double d = 0;
			for (i = 0; i < n; i++)
				d += q[i * n + k] * a[i * n + j];
			r[k * n + j] = d;
			for (i = 0; i < n; i++)
				col[i] -= d * q[i * n + k];
		}
		for (i = 0; i < n; i++)
			nn += col[i] * col[i];
		nn = sqrt(nn);
		r[j * n + j] = nn;
		for (i = 0; i < n; i++)
			q[i * n + j] = col[i] / nn;
	}
}

/* ------------------------------------------------------------------ */
/* the interpreter                                                     */

static Flow region(Ex *x, Func *f, Box **env, const Region *r);

static Box *
fbox(Ex *x, Type t, const double *v)
{
	Box *b = newbox(x, t);
	int i;
	for (i = 0; i < b->nc; i++)
		b->c[i].f = v[i];
	return b;
}

static void
todbl(const Box *b, double *v)
{
	int i;
	for (i = 0; i < b->nc; i++)
		v[i] = getf(b, i);
}

/* Address of element idx of array a. */
static Scal *
elem(Arr *a, Box **idx)
{
	long off = 0;
	int i;
	for (i = 0; i < a->nd; i++) {
		long k = (long)idx[i]->c[0].i;
		if (idx[i]->t.s >= S_U8 && idx[i]->t.s <= S_U64)
			k = (long)idx[i]->c[0].u;
		if (k < 0 || k >= a->shape[i])
			fail("array index out of bounds", NULL);
		off += k * a->stride[i];
	}
	return a->d + off * a->nc;
}

static uint32_t
pcg(uint32_t s)
{
	uint32_t b = s * 747796405u + 2891336453u;
	uint32_t c = ((b >> ((b >> 28u) + 4u)) ^ b) * 277803737u;
	return (c >> 22u) ^ c;
}

static double
scal2(int code, int s, double a, double b)
{
	switch (code) {
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_MUL: return a * b;
	case OP_DIV: return a / b;
	case OP_MOD: return fmod(a, b);
	case OP_FLOORDIV: return floor(a / b);
	case OP_POW: return pow(a, b);
	case OP_ATAN2: return atan2(a, b);
	case OP_COPYSIGN: return copysign(a, b);
	case OP_MIN: return isnan(a) ? b : isnan(b) ? a : a < b ? a : b;
	case OP_MAX: return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
	case OP_CW_MUL: return a * b;
	case OP_CW_DIV: return a / b;
	}
	(void)s;
	fail("scal2: op ", opinfo[code].name);
}

static Scal
int2(int code, int s, Scal a, Scal b)
{
	Scal r = {0};
	bool un = s >= S_U8 && s <= S_U64;
	switch (code) {
	case OP_ADD: r.u = a.u + b.u; break;
	case OP_SUB: r.u = a.u - b.u; break;
	case OP_MUL: case OP_CW_MUL: r.u = a.u * b.u; break;
	case OP_DIV: case OP_FLOORDIV: case OP_CW_DIV:
		if (un ? b.u == 0 : b.i == 0)
			fail("integer division by zero", NULL);
		if (un)
			r.u = a.u / b.u;
		else
			r.i = a.i / b.i;
		break;
	case OP_MOD:
		if (un ? b.u == 0 : b.i == 0)
			fail("integer modulo by zero", NULL);
		if (un)
			r.u = a.u % b.u;
		else
			r.i = a.i % b.i;
		break;
	case OP_MIN: r = un ? (a.u < b.u ? a : b) : (a.i < b.i ? a : b); break;
	case OP_MAX: r = un ? (a.u > b.u ? a : b) : (a.i > b.i ? a : b); break;
	case OP_BIT_AND: r.u = a.u & b.u; break;
	case OP_BIT_OR: r.u = a.u | b.u; break;
	case OP_BIT_XOR: r.u = a.u ^ b.u; break;
	case OP_LSHIFT: r.u = a.u << (b.u & 63); break;
	case OP_RSHIFT:
		if (un)
			r.u = a.u >> (b.u & 63);
		else
			r.i = a.i >> (b.u & 63);
		break;
	default: fail("int2: op ", opinfo[code].name);
	}
	return wrap(s, r);
}

/* elementwise binary op with scalar broadcast */
static Box *
ew2(Ex *x, int code, const Box *a, const Box *b, Type rt)
{
	Box *r = newbox(x, rt);
	int i;
	for (i = 0; i < r->nc; i++) {
		int ia = a->nc == 1 ? 0 : i, ib = b->nc == 1 ? 0 : i;
		if (isflt(rt))
			r->c[i].f = scal2(code, rt.s, getf(a, ia), getf(b, ib));
		else
			r->c[i] = int2(code, rt.s, a->c[ia], b->c[ib]);
	}
	return r;
}

static double
scal1(int code, double a)
{
	switch (code) {
	case OP_NEG: return -a;
	case OP_POS: return a;
	case OP_ABS: return fabs(a);
	case OP_SIGN: return a < 0 ? -1 : 1;
	case OP_NONZERO: return a == 0 ? 0 : 1;
	case OP_STEP: return a < 0 ? 1 : 0;
	case OP_SQRT: return sqrt(a);
	case OP_CBRT: return cbrt(a);
	case OP_EXP: return exp(a);
	case OP_LOG: return log(a);
	case OP_LOG2: return log2(a);
	case OP_LOG10: return log10(a);
	case OP_SIN: return sin(a);
	case OP_COS: return cos(a);
	case OP_TAN: return tan(a);
	case OP_ASIN: return asin(a);
	case OP_ACOS: return acos(a);
	case OP_ATAN: return atan(a);
	case OP_SINH: return sinh(a);
	case OP_COSH: return cosh(a);
	case OP_TANH: return tanh(a);
	case OP_DEGREES: return a * 57.29577951308232;
	case OP_RADIANS: return a * 0.017453292519943295;
	case OP_ERF: return erf(a);
	case OP_ERFC: return erfc(a);
	case OP_FLOOR: return floor(a);
	case OP_CEIL: return ceil(a);
	case OP_TRUNC: return trunc(a);
	case OP_ROUND: return round(a);
	case OP_RINT: return rint(a);
	case OP_FRAC: return a - trunc(a);
	}
	fail("scal1: op ", opinfo[code].name);
}

static double
erfinv(double y)
{
	/* Newton on erf(x) = y from a rough start */
	double xx = 0;
	int i;
	if (y <= -1)
		return -INFINITY;
	if (y >= 1)
		return INFINITY;
	for (i = 0; i < 100; i++) {
		double e = erf(xx) - y;
		xx -= e / (1.1283791670955126 * exp(-xx * xx));
		if (fabs(e) < 1e-17)
			break;
	}
	return xx;
}

static Box *
ev(Ex *x, Func *f, Box **env, const Op *op, Box **out2)
{
	int code = op->code, n = op->nargs, i, j;
	Box *a[32] = {0}, *r;
	Type rt = op->nres ? f->vals[op->res[0]].ty : tvoid();
	double va[64], vb[64], vr[64];

	if (n > 32)
		fail("too many operands", NULL);
	for (i = 0; i < n; i++)
		a[i] = env[op->args[i]];
	switch (code) {
	case OP_TID:
		for (i = 0; i < op->nres; i++) {
			r = newbox(x, tscalar(S_I32));
			r->c[0].i = x->tid[i];
			if (i == 0)
				out2[0] = r;
			else
				out2[i] = r;
		}
		return out2[0];
	case OP_ADD: case OP_SUB: case OP_MOD: case OP_FLOORDIV: case OP_POW: case OP_ATAN2:
	case OP_COPYSIGN: case OP_CW_MUL: case OP_CW_DIV: case OP_BIT_AND: case OP_BIT_OR: case OP_BIT_XOR:
	case OP_LSHIFT: case OP_RSHIFT:
		if (rt.k == T_XFORM && (code == OP_ADD || code == OP_SUB))
			return ew2(x, code, a[0], a[1], rt);
		return ew2(x, code, a[0], a[1], rt);
	case OP_MIN: case OP_MAX:
		if (n == 1) {
			int best = 0;
			for (i = 1; i < a[0]->nc; i++)
				if (code == OP_MIN ? getf(a[0], i) < getf(a[0], best) : getf(a[0], i) > getf(a[0], best))
					best = i;
			r = newbox(x, rt);
			r->c[0] = a[0]->c[best];
			return r;
		}
		return ew2(x, code, a[0], a[1], rt);
	case OP_DIV:
		return ew2(x, code, a[0], a[1], rt);
	case OP_MUL: {
		Type ta = a[0]->t, tb = a[1]->t;
		if (ta.k == T_MAT && tb.k == T_VEC) {
			r = newbox(x, rt);
			for (i = 0; i < ta.n; i++) {
				double s = 0;
				for (j = 0; j < ta.m; j++)
					s += getf(a[0], i * ta.m + j) * getf(a[1], j);
				setf(r, i, s);
			}
			return r;
		}
		if (ta.k == T_VEC && tb.k == T_MAT) {
			r = newbox(x, rt);
			for (j = 0; j < tb.m; j++) {
				double s = 0;
				for (i = 0; i < tb.n; i++)
					s += getf(a[0], i) * getf(a[1], i * tb.m + j);
				setf(r, j, s);
			}
			return r;
		}
		if (ta.k == T_MAT && tb.k == T_MAT) {
			int k;
			r = newbox(x, rt);
			for (i = 0; i < ta.n; i++)
				for (j = 0; j < tb.m; j++) {
					double s = 0;
					for (k = 0; k < ta.m; k++)
						s += getf(a[0], i * ta.m + k) * getf(a[1], k * tb.m + j);
					setf(r, i * tb.m + j, s);
				}
			return r;
		}
		if (ta.k == T_QUAT && tb.k == T_QUAT) {
			todbl(a[0], va);
			todbl(a[1], vb);
			qmul(va, vb, vr);
			return fbox(x, rt, vr);
		}
		if (ta.k == T_XFORM && tb.k == T_XFORM) {
			todbl(a[0], va);
			todbl(a[1], vb);
			qrot(va + 3, vb, vr, 1);
			for (i = 0; i < 3; i++)
				vr[i] += va[i];
			qmul(va + 3, vb + 3, vr + 3);
			return fbox(x, rt, vr);
		}
		return ew2(x, code, a[0], a[1], rt);
	}
	case OP_NEG: case OP_POS: case OP_ABS: case OP_SIGN: case OP_NONZERO: case OP_STEP: case OP_SQRT:
	case OP_CBRT: case OP_EXP: case OP_LOG: case OP_LOG2: case OP_LOG10: case OP_SIN: case OP_COS:
	case OP_TAN: case OP_ASIN: case OP_ACOS: case OP_ATAN: case OP_SINH: case OP_COSH: case OP_TANH:
	case OP_DEGREES: case OP_RADIANS: case OP_ERF: case OP_ERFC: case OP_FLOOR: case OP_CEIL:
	case OP_TRUNC: case OP_ROUND: case OP_RINT: case OP_FRAC:
		r = newbox(x, rt);
		for (i = 0; i < r->nc; i++) {
			if (isflt(rt)) {
				r->c[i].f = scal1(code, getf(a[0], i));
			} else {
				Scal v = a[0]->c[i];
				if (code == OP_NEG)
					v.u = 0 - v.u;
				else if (code == OP_ABS && v.i < 0 && !(rt.s >= S_U8))
					v.i = -v.i;
				else if (code == OP_SIGN)
					v.i = v.i < 0 ? -1 : 1;
				r->c[i] = wrap(rt.s, v);
			}
		}
		return r;
	case OP_INVERT:
		r = newbox(x, rt);
		for (i = 0; i < r->nc; i++) {
			r->c[i].u = ~a[0]->c[i].u;
			r->c[i] = wrap(rt.s, r->c[i]);
		}
		return r;
	case OP_ERFINV:
		r = newbox(x, rt);
		r->c[0].f = erfinv(getf(a[0], 0));
		return r;
	case OP_ERFCINV:
		r = newbox(x, rt);
		r->c[0].f = erfinv(1 - getf(a[0], 0));
		return r;
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
		bool res = code != OP_NE ? true : false;
		r = newbox(x, rt);
		if (code == OP_EQ || code == OP_NE) {
			bool eq = true;
			for (i = 0; i < a[0]->nc; i++)
				if (isflt(a[0]->t) ? getf(a[0], i) != getf(a[1], i) : a[0]->c[i].u != a[1]->c[i].u)
					eq = false;
			res = code == OP_EQ ? eq : !eq;
		} else {
			bool un = a[0]->t.s >= S_U8 && a[0]->t.s <= S_U64;
			double p = getf(a[0], 0), q = getf(a[1], 0);
			int cmp;
			if (isflt(a[0]->t))
				cmp = 0;
			else if (un)
				cmp = a[0]->c[0].u < a[1]->c[0].u ? -1 : a[0]->c[0].u > a[1]->c[0].u;
			else
				cmp = a[0]->c[0].i < a[1]->c[0].i ? -1 : a[0]->c[0].i > a[1]->c[0].i;
			if (isflt(a[0]->t))
				res = code == OP_LT ? p < q : code == OP_LE ? p <= q : code == OP_GT ? p > q : p >= q;
			else
				res = code == OP_LT ? cmp < 0 : code == OP_LE ? cmp <= 0 : code == OP_GT ? cmp > 0 : cmp >= 0;
		}
		r->c[0].i = res;
		return r;
	}
	case OP_AND: case OP_OR:
		r = newbox(x, rt);
		r->c[0].i = code == OP_AND ? (a[0]->c[0].i && a[1]->c[0].i) : (a[0]->c[0].i || a[1]->c[0].i);
		return r;
	case OP_UNOT:
		r = newbox(x, rt);
		r->c[0].i = a[0]->c[0].i == 0;
		return r;
	case OP_WHERE:
		return copybox(x, a[0]->c[0].u != 0 ? a[1] : a[2]);
	case OP_CAST:
		r = newbox(x, rt);
		for (i = 0; i < r->nc; i++) {
			if (isflt(rt)) {
				r->c[i].f = getf(a[0], i);
			} else if (rt.s == S_BOOL) {
				r->c[i].i = getf(a[0], i) != 0;
			} else if (isflt(a[0]->t)) {
				double v = trunc(getf(a[0], i));
				Scal s;
				if (rt.s >= S_U8)
					s.u = (uint64_t)(int64_t)v;
				else
					s.i = (int64_t)v;
				r->c[i] = wrap(rt.s, s);
			} else {
				r->c[i] = wrap(rt.s, a[0]->c[i]);
			}
		}
		return r;
	case OP_VEC: case OP_MAT: case OP_QUAT: case OP_TRANSFORM: {
		int k = 0;
		r = newbox(x, rt);
		if (n == 0) {
			if (rt.k == T_QUAT)
				r->c[3].f = 1;
			return r;
		}
		if (n == 1 && a[0]->t.k == T_SCALAR) {
			for (i = 0; i < r->nc; i++)
				r->c[i] = a[0]->c[0];
			return r;
		}
		for (i = 0; i < n; i++)
			for (j = 0; j < a[i]->nc; j++)
				r->c[k++] = a[i]->c[j];
		return r;
	}
	case OP_MATRIX_FROM_ROWS: case OP_MATRIX_FROM_COLS:
		r = newbox(x, rt);
		for (i = 0; i < n; i++)
			for (j = 0; j < a[i]->nc; j++) {
				if (code == OP_MATRIX_FROM_ROWS)
					r->c[i * rt.m + j] = a[i]->c[j];
				else
					r->c[j * rt.m + i] = a[i]->c[j];
			}
		return r;
	case OP_ZERO:
		return newbox(x, rt);
	case OP_IDENTITY:
		r = newbox(x, rt);
		for (i = 0; i < rt.n; i++)
			r->c[i * rt.m + i].f = 1;
		return r;
	case OP_QUAT_IDENTITY:
		r = newbox(x, rt);
		r->c[3].f = 1;
		return r;
	case OP_TRANSFORM_IDENTITY:
		r = newbox(x, rt);
		r->c[6].f = 1;
		return r;
	case OP_EXTRACT: case OP_INSERT: {
		Type t = a[0]->t;
		int nidx = n - 1 - (code == OP_INSERT), k0 = (int)a[1]->c[0].i, len;
		int lim = t.k == T_MAT ? t.n : ncomp(t);
		if (k0 < 0)
			k0 += lim;
		if (k0 < 0 || k0 >= lim)
			fail("extract/insert index out of range", NULL);
		if (t.k == T_MAT && nidx == 1) {
			k0 *= t.m;
			len = t.m;
		} else if (t.k == T_MAT) {
			int k1 = (int)a[2]->c[0].i;
			if (k1 < 0)
				k1 += t.m;
			k0 = k0 * t.m + k1;
			len = 1;
		} else {
			len = 1;
		}
		if (code == OP_EXTRACT) {
			r = newbox(x, rt);
			for (i = 0; i < len; i++)
				r->c[i] = a[0]->c[k0 + i];
		} else {
			r = copybox(x, a[0]);
			for (i = 0; i < len; i++)
				r->c[k0 + i] = a[n - 1]->c[i];
		}
		return r;
	}
	case OP_FIELD:
		return copybox(x, a[0]->f[op->attr]);
	case OP_SETFIELD:
		r = copybox(x, a[0]);
		r->f[op->attr] = copybox(x, a[1]);
		return r;
	case OP_CLAMP: {
		double v = getf(a[0], 0), lo = getf(a[1], 0), hi = getf(a[2], 0), m;
		r = newbox(x, rt);
		if (isflt(rt)) {
			m = isnan(lo) ? v : isnan(v) ? lo : lo > v ? lo : v;
			r->c[0].f = isnan(m) ? hi : isnan(hi) ? m : m < hi ? m : hi;
		} else {
			int64_t vi = a[0]->c[0].i, l = a[1]->c[0].i, h = a[2]->c[0].i;
			r->c[0].i = vi < l ? l : vi > h ? h : vi;
		}
		return r;
	}
	case OP_ISFINITE: case OP_ISNAN: case OP_ISINF: {
		bool res = code == OP_ISFINITE;
		r = newbox(x, rt);
		for (i = 0; i < a[0]->nc; i++) {
			double v = getf(a[0], i);
			if (code == OP_ISFINITE && !isfinite(v))
				res = false;
			if (code == OP_ISNAN && isnan(v))
				res = true;
			if (code == OP_ISINF && isinf(v))
				res = true;
		}
		r->c[0].i = res;
		return r;
	}
	case OP_LERP: {
		double t = getf(a[2], 0);
		r = newbox(x, rt);
		for (i = 0; i < r->nc; i++)
			r->c[i].f = getf(a[0], i) * (1 - t) + getf(a[1], i) * t;
		return r;
	}
	case OP_SMOOTHSTEP: {
		double e0 = getf(a[0], 0), e1 = getf(a[1], 0), v = getf(a[2], 0), t = (v - e0) / (e1 - e0);
		t = t < 0 ? 0 : t > 1 ? 1 : t;
		r = newbox(x, rt);
		r->c[0].f = t * t * (3 - 2 * t);
		return r;
	}
	case OP_DOT: case OP_DDOT: case OP_SPATIAL_DOT: {
		r = newbox(x, rt);
		if (isflt(rt)) {
			double s = 0;
			for (i = 0; i < a[0]->nc; i++)
				s += getf(a[0], i) * getf(a[1], i);
			r->c[0].f = s;
		} else {
			Scal s = {0};
			for (i = 0; i < a[0]->nc; i++)
				s.u += a[0]->c[i].u * a[1]->c[i].u;
			r->c[0] = wrap(rt.s, s);
		}
		return r;
	}
	case OP_CROSS:
		todbl(a[0], va);
		todbl(a[1], vb);
		cross3(va, vb, vr);
		return fbox(x, rt, vr);
	case OP_LENGTH: case OP_LENGTH_SQ: case OP_NORM_L2: {
		double s = 0;
		for (i = 0; i < a[0]->nc; i++)
			s += getf(a[0], i) * getf(a[0], i);
		r = newbox(x, rt);
		r->c[0].f = code == OP_LENGTH_SQ ? s : sqrt(s);
		return r;
	}
	case OP_NORMALIZE:
		todbl(a[0], va);
		if (a[0]->t.k == T_QUAT)
			qnormalize(va, vr);
		else
			vnormalize(va, a[0]->nc, vr);
		return fbox(x, rt, vr);
	case OP_OUTER:
		r = newbox(x, rt);
		for (i = 0; i < rt.n; i++)
			for (j = 0; j < rt.m; j++)
				r->c[i * rt.m + j].f = getf(a[0], i) * getf(a[1], j);
		return r;
	case OP_TRANSPOSE:
		r = newbox(x, rt);
		for (i = 0; i < rt.n; i++)
			for (j = 0; j < rt.m; j++)
				r->c[i * rt.m + j] = a[0]->c[j * rt.n + i];
		return r;
	case OP_INVERSE:
		todbl(a[0], va);
		inverse(va, rt.n, vr);
		return fbox(x, rt, vr);
	case OP_DETERMINANT:
		todbl(a[0], va);
		vr[0] = det(va, a[0]->t.n);
		return fbox(x, rt, vr);
	case OP_TRACE: {
		double s = 0;
		for (i = 0; i < a[0]->t.n; i++)
			s += getf(a[0], i * a[0]->t.n + i);
		r = newbox(x, rt);
		r->c[0].f = s;
		return r;
	}
	case OP_DIAG:
		r = newbox(x, rt);
		for (i = 0; i < rt.n; i++)
			r->c[i * rt.n + i] = a[0]->c[i];
		return r;
	case OP_GET_DIAG:
		r = newbox(x, rt);
		for (i = 0; i < rt.n; i++)
			r->c[i] = a[0]->c[i * rt.n + i];
		return r;
	case OP_SKEW:
		todbl(a[0], va);
		{
			double m[9] = {0, -va[2], va[1], va[2], 0, -va[0], -va[1], va[0], 0};
			return fbox(x, rt, m);
		}
	case OP_ARGMIN: case OP_ARGMAX: {
		int best = 0;
		for (i = 1; i < a[0]->nc; i++)
			if (code == OP_ARGMIN ? getf(a[0], i) < getf(a[0], best) : getf(a[0], i) > getf(a[0], best))
				best = i;
		r = newbox(x, rt);
		r->c[0].u = (uint64_t)best;
		return r;
	}
	case OP_NORM_L1: {
		double s = 0;
		for (i = 0; i < a[0]->nc; i++)
			s += fabs(getf(a[0], i));
		vr[0] = s;
		return fbox(x, rt, vr);
	}
	case OP_NORM_HUBER: case OP_NORM_PSEUDO_HUBER: case OP_SMOOTH_NORMALIZE: {
		double d = n > 1 ? getf(a[1], 0) : 1.0, s = 0, ph;
		for (i = 0; i < a[0]->nc; i++)
			s += getf(a[0], i) * getf(a[0], i);
		ph = d * sqrt(1 + s / (d * d));
		if (code == OP_NORM_HUBER)
			vr[0] = s <= d * d ? 0.5 * s : d * (sqrt(s) - 0.5 * d);
		else if (code == OP_NORM_PSEUDO_HUBER)
			vr[0] = ph;
		else
			for (i = 0; i < a[0]->nc; i++)
				vr[i] = getf(a[0], i) / ph;
		return fbox(x, rt, vr);
	}
	case OP_QUAT_FROM_AXIS_ANGLE: {
		double h = getf(a[1], 0) * 0.5;
		todbl(a[0], va);
		vr[0] = va[0] * sin(h);
		vr[1] = va[1] * sin(h);
		vr[2] = va[2] * sin(h);
		vr[3] = cos(h);
		return fbox(x, rt, vr);
	}
	case OP_QUAT_ROTATE: case OP_QUAT_ROTATE_INV:
		todbl(a[0], va);
		todbl(a[1], vb);
		qrot(va, vb, vr, code == OP_QUAT_ROTATE ? 1 : -1);
		return fbox(x, rt, vr);
	case OP_QUAT_INVERSE:
		todbl(a[0], va);
		vr[0] = -va[0];
		vr[1] = -va[1];
		vr[2] = -va[2];
		vr[3] = va[3];
		return fbox(x, rt, vr);
	case OP_QUAT_TO_MATRIX:
		todbl(a[0], va);
		qtomat(va, vr);
		return fbox(x, rt, vr);
	case OP_QUAT_FROM_MATRIX:
		todbl(a[0], va);
		qfrommat(va, a[0]->t.m, vr);
		return fbox(x, rt, vr);
	case OP_QUAT_RPY: {
		double ro = getf(a[0], 0), pi = getf(a[1], 0), ya = getf(a[2], 0);
		double cy = cos(ya * 0.5), sy = sin(ya * 0.5), cr = cos(ro * 0.5), sr = sin(ro * 0.5);
		double cp = cos(pi * 0.5), sp = sin(pi * 0.5);
		vr[3] = cy * cr * cp + sy * sr * sp;
		vr[0] = cy * sr * cp - sy * cr * sp;
		vr[1] = cy * cr * sp + sy * sr * cp;
		vr[2] = sy * cr * cp - cy * sr * sp;
		return fbox(x, rt, vr);
	}
	case OP_QUAT_TO_RPY: {
		double qx, qy, qz, qw, t2;
		todbl(a[0], va);
		qx = va[0], qy = va[1], qz = va[2], qw = va[3];
		vr[0] = atan2(2 * (qw * qx + qy * qz), 1 - 2 * (qx * qx + qy * qy));
		t2 = 2 * (qw * qy - qz * qx);
		t2 = t2 < -1 ? -1 : t2 > 1 ? 1 : t2;
		vr[1] = asin(t2);
		vr[2] = atan2(2 * (qw * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz));
		return fbox(x, rt, vr);
	}
	case OP_QUAT_TO_AXIS_ANGLE: case OP_QUAT_SLERP: {
		double q[4], v[3], ax[3], ang, l;
		todbl(a[0], va);
		if (code == OP_QUAT_SLERP) {
			double inv[4] = {-va[0], -va[1], -va[2], va[3]};
			todbl(a[1], vb);
			qmul(inv, vb, q);
		} else {
			memcpy(q, va, sizeof q);
		}
		v[0] = q[0], v[1] = q[1], v[2] = q[2];
		vnormalize(v, 3, ax);
		if (q[3] < 0)
			for (i = 0; i < 3; i++)
				ax[i] = -ax[i];
		l = sqrt(dot3(v, v));
		ang = 2 * atan2(l, fabs(q[3]));
		if (code == OP_QUAT_TO_AXIS_ANGLE) {
			out2[1] = newbox(x, f->vals[op->res[1]].ty);
			out2[1]->c[0].f = ang;
			return fbox(x, rt, ax);
		} else {
			double h = getf(a[2], 0) * ang * 0.5, qa[4] = {ax[0] * sin(h), ax[1] * sin(h), ax[2] * sin(h), cos(h)};
			qmul(va, qa, vr);
			return fbox(x, rt, vr);
		}
	}
	case OP_QUAT_FROM_EULER: {
		int ix[3] = {(int)a[1]->c[0].i, (int)a[2]->c[0].i, (int)a[3]->c[0].i};
		double q[3][4];
		todbl(a[0], va);
		for (i = 0; i < 3; i++) {
			double h = 0.5 * va[ix[i]];
			q[i][0] = q[i][1] = q[i][2] = 0;
			q[i][3] = cos(h);
			q[i][ix[i]] = sin(h);
		}
		qmul(q[1], q[0], vb);
		qmul(q[2], vb, vr);
		return fbox(x, rt, vr);
	}
	case OP_QUAT_TO_EULER: {
		/* Warp's quat_to_euler (warp/_src/math.py), 1-based axes */
		int ii = (int)a[1]->c[0].i + 1, jj = (int)a[2]->c[0].i + 1, kk = (int)a[3]->c[0].i + 1;
		bool np = true;
		double q[4], e, aa, bb, cc, dd, t1 = 0, t2, t3 = 0, tp, tm, ex, ey, ez;
		todbl(a[0], va);
		q[0] = va[3], q[1] = va[0], q[2] = va[1], q[3] = va[2];
		if (ii == kk) {
			np = false;
			kk = 6 - ii - jj;
		}
		e = (double)((ii - jj) * (jj - kk) * (kk - ii)) / 2.0;
		aa = q[0];
		bb = q[ii];
		cc = q[jj];
		dd = q[kk] * e;
		if (np) {
			aa -= q[jj];
			bb += q[kk] * e;
			cc += q[0];
			dd -= q[ii];
		}
		t2 = acos(2.0 * (aa * aa + bb * bb) / (aa * aa + bb * bb + cc * cc + dd * dd) - 1.0);
		tp = atan2(bb, aa);
		tm = atan2(dd, cc);
		if (fabs(t2) < 1e-6)
			t3 = 2.0 * tp - t1;
		else if (fabs(t2 - 3.141592653589793) < 1e-6)
			t3 = 2.0 * tm + t1;
		else {
			t1 = tp - tm;
			t3 = tp + tm;
		}
		if (np) {
			t2 -= 1.5707963267948966;
			t3 *= e;
		}
		ex = t1, ey = t2, ez = t3;
		if (ii == 2) {
			ex = t2;
			ey = t1;
		} else if (ii == 3) {
			ex = t3;
			ez = t1;
		}
		if (jj == 1)
			ex = t2;
		else if (jj == 2)
			ey = t2;
		else
			ez = t2;
		if (kk == 1)
			ex = t3;
		else if (kk == 2)
			ey = t3;
		else
			ez = t3;
		vr[0] = ex, vr[1] = ey, vr[2] = ez;
		return fbox(x, rt, vr);
	}
	case OP_QUAT_TWIST: {
		double p;
		todbl(a[0], va);
		todbl(a[1], vb);
		p = va[0] * vb[0] + va[1] * vb[1] + va[2] * vb[2];
		vr[0] = p * va[0];
		vr[1] = p * va[1];
		vr[2] = p * va[2];
		vr[3] = vb[3];
		qnormalize(vr, vr);
		return fbox(x, rt, vr);
	}
	case OP_QUAT_TWIST_ANGLE: case OP_QUAT_TWIST_ANGLE_SIGNED: {
		double s;
		todbl(a[0], va);
		todbl(a[1], vb);
		s = va[0] * vb[0] + va[1] * vb[1] + va[2] * vb[2];
		if (code == OP_QUAT_TWIST_ANGLE)
			s = fabs(s);
		vr[0] = 2 * atan2(s, vb[3]);
		return fbox(x, rt, vr);
	}
	case OP_TRANSFORM_POINT: case OP_TRANSFORM_VECTOR:
		todbl(a[0], va);
		todbl(a[1], vb);
		if (a[0]->t.k == T_MAT) {
			double w = code == OP_TRANSFORM_POINT ? 1 : 0;
			for (i = 0; i < 3; i++)
				vr[i] = va[i * 4] * vb[0] + va[i * 4 + 1] * vb[1] + va[i * 4 + 2] * vb[2] + va[i * 4 + 3] * w;
		} else {
			qrot(va + 3, vb, vr, 1);
			if (code == OP_TRANSFORM_POINT)
				for (i = 0; i < 3; i++)
					vr[i] += va[i];
		}
		return fbox(x, rt, vr);
	case OP_TRANSFORM_MULTIPLY:
		todbl(a[0], va);
		todbl(a[1], vb);
		qrot(va + 3, vb, vr, 1);
		for (i = 0; i < 3; i++)
			vr[i] += va[i];
		qmul(va + 3, vb + 3, vr + 3);
		return fbox(x, rt, vr);
	case OP_TRANSFORM_INVERSE: {
		double qi[4];
		todbl(a[0], va);
		qi[0] = -va[3], qi[1] = -va[4], qi[2] = -va[5], qi[3] = va[6];
		qrot(qi, va, vr, 1);
		for (i = 0; i < 3; i++)
			vr[i] = -vr[i];
		memcpy(vr + 3, qi, sizeof qi);
		return fbox(x, rt, vr);
	}
	case OP_TRANSFORM_GET_TRANSLATION:
		todbl(a[0], va);
		return fbox(x, rt, va);
	case OP_TRANSFORM_GET_ROTATION:
		todbl(a[0], va);
		return fbox(x, rt, va + 3);
	case OP_TRANSFORM_SET_TRANSLATION: case OP_TRANSFORM_SET_ROTATION:
		todbl(a[0], va);
		todbl(a[1], vb);
		memcpy(va + (code == OP_TRANSFORM_SET_TRANSLATION ? 0 : 3), vb,
		       (code == OP_TRANSFORM_SET_TRANSLATION ? 3 : 4) * sizeof(double));
		return fbox(x, rt, va);
	case OP_TRANSFORM_TO_MATRIX: case OP_TRANSFORM_COMPOSE: {
		double rm[9], p[3], s[3] = {1, 1, 1};
		todbl(a[0], va);
		if (code == OP_TRANSFORM_TO_MATRIX) {
			qtomat(va + 3, rm);
			memcpy(p, va, sizeof p);
		} else {
			todbl(a[1], vb);
			qtomat(vb, rm);
			memcpy(p, va, sizeof p);
			todbl(a[2], s);
		}
		for (i = 0; i < 16; i++)
			vr[i] = 0;
		for (i = 0; i < 3; i++) {
			for (j = 0; j < 3; j++)
				vr[i * 4 + j] = s[j] * rm[i * 3 + j];
			vr[i * 4 + 3] = p[i];
		}
		vr[15] = 1;
		return fbox(x, rt, vr);
	}
	case OP_TRANSFORM_FROM_MATRIX:
		todbl(a[0], va);
		vr[0] = va[3], vr[1] = va[7], vr[2] = va[11];
		qfrommat(va, 4, vr + 3);
		return fbox(x, rt, vr);
	case OP_TRANSFORM_DECOMPOSE: {
		double rm[9], s[3];
		todbl(a[0], va);
		for (i = 0; i < 3; i++)
			for (j = 0; j < 3; j++)
				rm[i * 3 + j] = va[i * 4 + j];
		for (j = 0; j < 3; j++) {
			s[j] = sqrt(rm[j] * rm[j] + rm[3 + j] * rm[3 + j] + rm[6 + j] * rm[6 + j]);
			if (s[j] != 0)
				for (i = 0; i < 3; i++)
					rm[i * 3 + j] /= s[j];
		}
		vr[0] = va[3], vr[1] = va[7], vr[2] = va[11];
		qfrommat(rm, 3, vb);
		out2[1] = fbox(x, f->vals[op->res[1]].ty, vb);
		out2[2] = fbox(x, f->vals[op->res[2]].ty, s);
		return fbox(x, rt, vr);
	}
	case OP_SVD3: case OP_SVD2: case OP_QR3: case OP_EIG3: {
		int nn = code == OP_SVD2 ? 2 : 3;
		double u[9], sv[3], v[9];
		todbl(a[0], va);
		if (code == OP_QR3) {
			qr(va, nn, u, v);
			out2[1] = fbox(x, f->vals[op->res[1]].ty, v);
			return fbox(x, rt, u);
		}
		if (code == OP_EIG3) {
			/* Warp: eigenvectors of the lower triangle, d = diag(Q^T A Q) */
			double sym[9], w[3];
			int i2, j2, k2;
			for (i2 = 0; i2 < 3; i2++)
				for (j2 = 0; j2 < 3; j2++)
					sym[i2 * 3 + j2] = va[(i2 > j2 ? i2 : j2) * 3 + (i2 > j2 ? j2 : i2)];
			jacobi(sym, 3, u, w);
			for (j2 = 0; j2 < 3; j2++) {
				double d = 0;
				for (i2 = 0; i2 < 3; i2++)
					for (k2 = 0; k2 < 3; k2++)
						d += u[i2 * 3 + j2] * va[i2 * 3 + k2] * u[k2 * 3 + j2];
				sv[j2] = d;
			}
			out2[1] = fbox(x, f->vals[op->res[1]].ty, sv);
			return fbox(x, rt, u);
		}
		svd(va, nn, u, sv, v);
		out2[1] = fbox(x, f->vals[op->res[1]].ty, sv);
		out2[2] = fbox(x, f->vals[op->res[2]].ty, v);
		return fbox(x, rt, u);
	}
	case OP_SPATIAL_TOP: case OP_SPATIAL_BOTTOM:
		todbl(a[0], va);
		return fbox(x, rt, va + (code == OP_SPATIAL_TOP ? 0 : 3));
	case OP_SPATIAL_CROSS: case OP_SPATIAL_CROSS_DUAL: {
		double t1[3], t2[3];
		todbl(a[0], va);
		todbl(a[1], vb);
		if (code == OP_SPATIAL_CROSS) {
			cross3(va, vb, vr);
			cross3(va + 3, vb, t1);
			cross3(va, vb + 3, t2);
			for (i = 0; i < 3; i++)
				vr[3 + i] = t1[i] + t2[i];
		} else {
			cross3(va, vb, t1);
			cross3(va + 3, vb + 3, t2);
			for (i = 0; i < 3; i++)
				vr[i] = t1[i] + t2[i];
			cross3(va, vb + 3, vr + 3);
		}
		return fbox(x, rt, vr);
	}
	case OP_SPATIAL_ADJOINT:
		todbl(a[0], va);
		todbl(a[1], vb);
		for (i = 0; i < 36; i++)
			vr[i] = 0;
		for (i = 0; i < 3; i++)
			for (j = 0; j < 3; j++) {
				vr[i * 6 + j] = va[i * 3 + j];
				vr[(i + 3) * 6 + j + 3] = va[i * 3 + j];
				vr[(i + 3) * 6 + j] = vb[i * 3 + j];
			}
		return fbox(x, rt, vr);
	case OP_TRANSFORM_TWIST: case OP_TRANSFORM_WRENCH: {
		double w[3], v[3], c[3];
		todbl(a[0], va);
		todbl(a[1], vb);
		if (code == OP_TRANSFORM_TWIST) {
			qrot(va + 3, vb, w, 1);
			qrot(va + 3, vb + 3, v, 1);
			cross3(va, w, c);
			for (i = 0; i < 3; i++)
				v[i] += c[i];
		} else {
			qrot(va + 3, vb + 3, v, 1);
			qrot(va + 3, vb, w, 1);
			cross3(va, v, c);
			for (i = 0; i < 3; i++)
				w[i] += c[i];
		}
		memcpy(vr, w, sizeof w);
		memcpy(vr + 3, v, sizeof v);
		return fbox(x, rt, vr);
	}
	case OP_VELOCITY_AT_POINT:
		todbl(a[0], va);
		todbl(a[1], vb);
		cross3(va, vb, vr);
		for (i = 0; i < 3; i++)
			vr[i] += va[3 + i];
		return fbox(x, rt, vr);
	case OP_LOAD: {
		Arr *ar = a[0]->a;
		Scal *p = elem(ar, a + 1);
		r = newbox(x, rt);
		memcpy(r->c, p, (size_t)ar->nc * sizeof(Scal));
		return r;
	}
	case OP_VIEW: {
		Arr *ar = a[0]->a, *nv = aalloc(x->ar, sizeof *nv);
		long off = 0;
		int k = n - 1;
		for (i = 0; i < k; i++)
			off += a[1 + i]->c[0].i * ar->stride[i];
		*nv = *ar;
		nv->nd = ar->nd - k;
		for (i = 0; i < nv->nd; i++) {
			nv->shape[i] = ar->shape[k + i];
			nv->stride[i] = ar->stride[k + i];
		}
		nv->d = ar->d + off * ar->nc;
		r = newbox(x, rt);
		r->a = nv;
		return r;
	}
	case OP_STORE: case OP_ATOMIC_ADD: case OP_ATOMIC_SUB: case OP_ATOMIC_MIN: case OP_ATOMIC_MAX:
	case OP_ATOMIC_AND: case OP_ATOMIC_OR: case OP_ATOMIC_XOR: case OP_ATOMIC_EXCH: case OP_ATOMIC_CAS: {
		Arr *ar = a[0]->a;
		Scal *p = elem(ar, a + 1);
		Box *v = a[n - 1];
		Type et = ar->elem;
		r = newbox(x, et);
		memcpy(r->c, p, (size_t)ar->nc * sizeof(Scal));
		for (i = 0; i < ar->nc; i++) {
			Scal o = p[i], w = v->c[i];
			switch (code) {
			case OP_STORE: case OP_ATOMIC_EXCH: p[i] = w; break;
			case OP_ATOMIC_CAS:
				if (o.u == a[n - 2]->c[i].u)
					p[i] = w;
				break;
			case OP_ATOMIC_ADD:
				if (isflt(et))
					p[i].f = o.f + w.f;
				else
					p[i] = int2(OP_ADD, et.s, o, w);
				break;
			case OP_ATOMIC_SUB:
				if (isflt(et))
					p[i].f = o.f - w.f;
				else
					p[i] = int2(OP_SUB, et.s, o, w);
				break;
			case OP_ATOMIC_MIN: case OP_ATOMIC_MAX:
				if (isflt(et))
					p[i].f = scal2(code == OP_ATOMIC_MIN ? OP_MIN : OP_MAX, et.s, o.f, w.f);
				else
					p[i] = int2(code == OP_ATOMIC_MIN ? OP_MIN : OP_MAX, et.s, o, w);
				break;
			case OP_ATOMIC_AND: p[i] = int2(OP_BIT_AND, et.s, o, w); break;
			case OP_ATOMIC_OR: p[i] = int2(OP_BIT_OR, et.s, o, w); break;
			case OP_ATOMIC_XOR: p[i] = int2(OP_BIT_XOR, et.s, o, w); break;
			}
		}
		return r;
	}
	case OP_SHAPE:
		r = newbox(x, rt);
		r->c[0].i = a[0]->a->shape[op->attr];
		return r;
	case OP_PRINT: case OP_PRINTF: case OP_ASSERT:
		return NULL;
	case OP_RAND_INIT:
		r = newbox(x, rt);
		r->c[0].u = n == 1 ? pcg((uint32_t)a[0]->c[0].i)
		                   : pcg((uint32_t)a[0]->c[0].i + pcg((uint32_t)a[1]->c[0].i));
		return r;
	case OP_RANDI: case OP_RANDU: case OP_RANDF: case OP_RANDN: {
		uint32_t s = (uint32_t)a[0]->c[0].u;
		r = newbox(x, rt);
		s = pcg(s);
		if (code == OP_RANDF || code == OP_RANDN) {
			double u = (s >> 8) * (1.0 / 16777216.0);
			if (code == OP_RANDN) {
				double u2;
				s = pcg(s);
				u2 = (s >> 8) * (1.0 / 16777216.0);
				u = sqrt(-2.0 * log(u + 5.96e-8)) * cos(2 * 3.14159265358979323846 * u2);
			} else if (n == 3) {
				u = (getf(a[2], 0) - getf(a[1], 0)) * u + getf(a[1], 0);
			}
			r->c[0].f = u;
		} else if (n == 3) {
			Scal v;
			if (code == OP_RANDI)
				v.i = (int64_t)(s % (uint32_t)(a[2]->c[0].i - a[1]->c[0].i)) + a[1]->c[0].i;
			else
				v.u = s % (uint32_t)(a[2]->c[0].u - a[1]->c[0].u) + a[1]->c[0].u;
			r->c[0] = wrap(rt.s, v);
		} else {
			Scal v;
			v.u = s;
			r->c[0] = wrap(rt.s, v);
		}
		out2[1] = newbox(x, tscalar(S_U32));
		out2[1]->c[0].u = s;
		return r;
	}
	}
	fail("no evaluator for op ", opinfo[code].name);
}

static Flow call(Ex *x, Func *f, Box **args);

static Box **
bind(Ex *x, Func *f, Box **env, const Val *vals, int n)
{
	Box **v = aalloc(x->ar, (size_t)(n + 1) * sizeof *v);
	int i;
	for (i = 0; i < n; i++) {
		const Value *vv = &f->vals[vals[i]];
		if (vv->kind == V_CONST) {
			Box *b = newbox(x, vv->ty);
			memcpy(b->c, vv->c, (size_t)b->nc * sizeof(Scal));
			v[i] = b;
		} else {
			v[i] = env[vals[i]];
			if (!v[i])
				fail("use of a value without a definition", NULL);
		}
	}
	return v;
}

static Flow
runop(Ex *x, Func *f, Box **env, const Op *op, bool *term)
{
	Flow fl = {0};
	int i;
	Box **a;

	*term = false;
	switch (op->code) {
	case OP_YIELD: case OP_BREAK: case OP_CONTINUE: case OP_RET:
		*term = true;
		fl.kind = op->code == OP_YIELD ? FL_YIELD : op->code == OP_BREAK ? FL_BREAK
		        : op->code == OP_CONTINUE ? FL_CONT : FL_RET;
		fl.v = bind(x, f, env, op->args, op->nargs);
		fl.n = op->nargs;
		return fl;
	case OP_IF: {
		a = bind(x, f, env, op->args, 1);
		fl = region(x, f, env, &op->regs[a[0]->c[0].u ? 0 : 1]);
		if (fl.kind == FL_YIELD)
			for (i = 0; i < op->nres; i++)
				env[op->res[i]] = fl.v[i];
		else
			*term = true;
		return fl;
	}
	case OP_FOR: case OP_WHILE: {
		bool isfor = op->code == OP_FOR;
		int first = isfor, nc = op->nparams - first;
		Box **carry;
		int64_t k = 0, e = 0, st = 1;
		a = bind(x, f, env, op->args, op->nargs);
		carry = a + (isfor ? 3 : 0);
		if (isfor) {
			k = a[0]->c[0].i;
			e = a[1]->c[0].i;
			st = a[2]->c[0].i;
		}
		for (long it = 0;; it++) {
			Flow b;
			if (it > 1000000)
				fail("a loop ran more than a million iterations", NULL);
			if (isfor) {
				if (!(st > 0 ? k < e : k > e))
					break;
				env[op->params[0]] = newbox(x, f->vals[op->params[0]].ty);
				env[op->params[0]]->c[0].i = k;
			}
			for (i = 0; i < nc; i++)
				env[op->params[first + i]] = carry[i];
			if (!isfor) {
				Flow c = region(x, f, env, &op->regs[0]);
				if (c.kind != FL_YIELD) {
					*term = true;
					return c;
				}
				if (!c.v[0]->c[0].u)
					break;
			}
			b = region(x, f, env, &op->regs[isfor ? 0 : 1]);
			if (b.kind == FL_RET) {
				*term = true;
				return b;
			}
			carry = b.v;
			if (b.kind == FL_BREAK)
				break;
			k += st;
		}
		for (i = 0; i < op->nres; i++)
			env[op->res[i]] = carry[i];
		return fl;
	}
	case OP_CALL: {
		Func *g = x->m->funcs[op->attr];
		Flow c;
		a = bind(x, f, env, op->args, op->nargs);
		c = call(x, g, a);
		for (i = 0; i < op->nres; i++)
			env[op->res[i]] = c.v[i];
		return fl;
	}
	default: {
		Box *out2[8] = {0}, *r;
		r = ev(x, f, env, op, out2);
		if (op->nres)
			env[op->res[0]] = r;
		for (i = 1; i < op->nres; i++)
			env[op->res[i]] = out2[i];
		return fl;
	}
	}
}

static Flow
region(Ex *x, Func *f, Box **env, const Region *r)
{
	uint32_t i;
	Flow fl = {0};

	for (i = 0; i < r->n; i++) {
		bool term;
		fl = runop(x, f, env, r->ops[i], &term);
		if (term)
			return fl;
	}
	fail("region without a terminator", NULL);
}

static Flow
call(Ex *x, Func *f, Box **args)
{
	Box **env = aalloc(x->ar, (f->nvals + 1) * sizeof *env);
	uint32_t i;

	for (i = 0; i < f->nvals; i++)
		if (f->vals[i].kind == V_CONST && f->vals[i].ty.k != T_STR) {
			Box *b = newbox(x, f->vals[i].ty);
			memcpy(b->c, f->vals[i].c, (size_t)b->nc * sizeof(Scal));
			env[i] = b;
		}
	for (i = 0; i < f->nparams; i++)
		env[f->params[i]] = args[i];
	return region(x, f, env, &f->body);
}

/* ------------------------------------------------------------------ */
/* driver                                                              */

typedef struct Opt {
	const char *name;
	const char *val;
} Opt;

typedef struct G {
	Module *m;
	Func *k, *adj;
	int dims[MAXDIM], nd;
	Opt shapes[32], ints[32], skips[32];
	int nshapes, nints, nskips;
	double lo, hi, tol, h;
	uint64_t seed;
} G;

static uint64_t
rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

static double
urand(uint64_t *s)
{
	return (double)rnd(s) / 9007199254740992.0;
}

static const char *
lookup(const Opt *o, int n, const char *name)
{
	int i;
	for (i = 0; i < n; i++)
		if (name && strcmp(o[i].name, name) == 0)
			return o[i].val;
	return NULL;
}

static void
parsedims(const char *s, int *d, int *n)
{
	*n = 0;
	while (*s && *n < MAXDIM) {
		d[(*n)++] = (int)strtol(s, (char **)&s, 10);
		if (*s == ',')
			s++;
	}
}

/* Argument boxes for kernel k: arrays allocated with the given shapes. */
static Box **
mkargs(G *g, Arena *ar, Func *k, uint64_t *seed)
{
	Ex x = {g->m, ar, {0}, 0};
	Box **args = aalloc(ar, (k->nparams + 1) * sizeof *args);
	uint32_t i;
	int j;

	for (i = 0; i < k->nparams; i++) {
		const Value *p = &k->vals[k->params[i]];
		Type t = p->ty;
		Box *b = newbox(&x, t);
		if (t.k == T_ARRAY) {
			Arr *a = aalloc(ar, sizeof *a);
			const char *s = lookup(g->shapes, g->nshapes, p->name);
			int sh[MAXDIM], ns = 0;
			long cnt = 1;
			if (s)
				parsedims(s, sh, &ns);
			a->elem = telem(t);
			a->nd = t.nd;
			a->nc = ncomp(a->elem);
			if (a->elem.k == T_STRUCT)
				fail("arrays of structs are not supported by kirgrad", NULL);
			for (j = t.nd - 1; j >= 0; j--) {
				a->shape[j] = j < ns ? sh[j] : j < g->nd ? g->dims[j] : 4;
				a->stride[j] = (int)cnt;
				cnt *= a->shape[j];
			}
			a->d = aalloc(ar, (size_t)(cnt * a->nc + 1) * sizeof(Scal));
			for (j = 0; j < cnt * a->nc; j++) {
				if (scalarisfloat(a->elem.s)) {
					a->d[j].f = g->lo + (g->hi - g->lo) * urand(seed);
					a->d[j] = scalround(a->elem.s, a->d[j]);
				}
				else if (a->elem.s == S_BOOL)
					a->d[j].i = (int64_t)(rnd(seed) & 1);
				else
					a->d[j].i = (int64_t)(rnd(seed) % 4);
			}
			b->a = a;
		} else if (t.k == T_SCALAR) {
			const char *v = lookup(g->ints, g->nints, p->name);
			if (scalarisfloat(t.s))
				b->c[0].f = v ? strtod(v, NULL) : g->lo + (g->hi - g->lo) * urand(seed);
			else
				b->c[0].i = v ? strtoll(v, NULL, 10) : 3;
		} else if (iscomposite(t)) {
			for (j = 0; j < b->nc; j++)
				b->c[j].f = g->lo + (g->hi - g->lo) * urand(seed);
		}
		args[i] = b;
	}
	return args;
}

static long arrlen(const Arr *a);

static uint16_t
tohalf(double x)
{
	/* x is already a representable half (scalround) */
	uint16_t sgn = signbit(x) ? 0x8000 : 0;
	double ax = fabs(x);
	int e;
	if (ax == 0)
		return sgn;
	if (isinf(ax))
		return sgn | 0x7c00;
	if (isnan(ax))
		return 0x7e00;
	frexp(ax, &e); /* ax = m * 2^e, m in [0.5, 1) */
	if (e - 1 < -14) /* subnormal */
		return sgn | (uint16_t)(ax * 16777216.0);
	return sgn | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)((ax / ldexp(1.0, e - 1) - 1.0) * 1024.0 + 0.5);
}

/* Write array a (of kernel parameter `name`) as DIR/name.npy. */
static void
writenpy(const char *dir, const char *name, const Arr *a)
{
	static const char *const descr[NSCALAR] = {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2",
	                                           "<u4", "<u8", "<f2", "<f4", "<f8"};
	char path[4096], hdr[256], sh[128];
	int s = a->elem.s, i, hl, sz = scalarsize[s];
	long n = arrlen(a), j;
	size_t k = 0;
	FILE *fp;

	sh[0] = 0;
	for (i = 0; i < a->nd; i++)
		k += (size_t)snprintf(sh + k, sizeof sh - k, "%d, ", a->shape[i]);
	if (a->elem.k == T_VEC || a->elem.k == T_QUAT || a->elem.k == T_XFORM)
		k += (size_t)snprintf(sh + k, sizeof sh - k, "%d, ", a->nc);
	else if (a->elem.k == T_MAT)
		k += (size_t)snprintf(sh + k, sizeof sh - k, "%d, %d, ", a->elem.n, a->elem.m);
	if (k >= 2 && a->nd + (a->elem.k != T_SCALAR) > 1)
		sh[k - 2] = 0; /* "(6, 3)" ; a 1-tuple keeps its comma: "(6,)" */
	else if (k >= 1)
		sh[k - 1] = 0;
	hl = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr[s], sh);
	while ((10 + hl + 1) % 64)
		hdr[hl++] = ' ';
	hdr[hl++] = '\n';
	snprintf(path, sizeof path, "%s/%s.npy", dir, name);
	if (!(fp = fopen(path, "wb")))
		fail("cannot write ", path);
	fwrite("\x93NUMPY\x01\x00", 1, 8, fp);
	fputc(hl & 0xff, fp);
	fputc(hl >> 8, fp);
	fwrite(hdr, 1, (size_t)hl, fp);
	for (j = 0; j < n; j++) {
		unsigned char b[8];
		uint64_t u = 0;
		Scal c = a->d[j];
		if (s == S_F32) {
			float f = (float)c.f;
			uint32_t w;
			memcpy(&w, &f, 4);
			u = w;
		} else if (s == S_F64) {
			memcpy(&u, &c.f, 8);
		} else if (s == S_F16) {
			u = tohalf(c.f);
		} else {
			u = c.u;
		}
		for (i = 0; i < sz; i++)
			b[i] = (unsigned char)(u >> (8 * i));
		fwrite(b, 1, (size_t)sz, fp);
	}
	if (fclose(fp))
		fail("cannot write ", path);
}

static long
arrlen(const Arr *a)
{
	long n = 1;
	int i;
	for (i = 0; i < a->nd; i++)
		n *= a->shape[i];
	return n * a->nc;
}

/* Deep copy of argument boxes (array data copied). */
static Box **
cloneargs(Arena *ar, Func *k, Box **src)
{
	Box **args = aalloc(ar, (k->nparams + 1) * sizeof *args);
	uint32_t i;

	for (i = 0; i < k->nparams; i++) {
		Box *b = aalloc(ar, sizeof *b);
		*b = *src[i];
		if (src[i]->a) {
			Arr *a = aalloc(ar, sizeof *a);
			*a = *src[i]->a;
			a->d = aalloc(ar, (size_t)(arrlen(a) + 1) * sizeof(Scal));
			memcpy(a->d, src[i]->a->d, (size_t)arrlen(a) * sizeof(Scal));
			b->a = a;
		}
		args[i] = b;
	}
	return args;
}

static void
launch(G *g, Func *k, Box **args)
{
	int idx[MAXDIM] = {0}, i;
	long total = 1, t;

	for (i = 0; i < g->nd; i++)
		total *= g->dims[i];
	for (t = 0; t < total; t++) {
		Ex x = {g->m, arena_new(), {0}, g->nd};
		long r = t;
		for (i = g->nd - 1; i >= 0; i--) {
			idx[i] = (int)(r % g->dims[i]);
			r /= g->dims[i];
		}
		memcpy(x.tid, idx, sizeof idx);
		call(&x, k, args);
		arena_free(x.ar);
	}
}

static double
loss(Func *k, Box **args, Box **w)
{
	double s = 0;
	uint32_t i;
	long j;

	for (i = 0; i < k->nparams; i++)
		if (args[i]->a && scalarisfloat(args[i]->a->elem.s))
			for (j = 0; j < arrlen(args[i]->a); j++)
				s += args[i]->a->d[j].f * w[i]->a->d[j].f;
	return s;
}

int
main(int argc, char **argv)
{
	G g = {0};
	const char *path = NULL, *kname = NULL, *npydir = NULL;
	bool dump = false;
	char *text;
	Src src = {0};
	Diag d;
	Arena *ar;
	Box **in, **out, **w, **bw;
	uint64_t seed;
	int i, bad = 0;
	uint32_t p;

	progname = "kirgrad";
	g.dims[0] = 6;
	g.nd = 1;
	g.lo = -1;
	g.hi = 1;
	g.tol = 1e-6;
	g.h = 1e-6;
	g.seed = 1;
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		Opt *o = NULL;
		if (!strcmp(s, "--dump")) {
			dump = true;
			continue;
		}
		if (!strcmp(s, "--npy") && v) {
			npydir = v;
			i++;
			continue;
		}
		if (s[0] != '-' || !s[1]) {
			path = s;
			continue;
		}
		if (!v)
			fail("missing value after ", s);
		i++;
		switch (s[1]) {
		case 'k': kname = v; break;
		case 'd': parsedims(v, g.dims, &g.nd); break;
		case 'r': g.lo = strtod(v, (char **)&v); g.hi = strtod(v + 1, NULL); break;
		case 't': g.tol = strtod(v, NULL); break;
		case 'h': g.h = strtod(v, NULL); break;
		case 'S': g.seed = strtoull(v, NULL, 10); break;
		case 's': o = &g.shapes[g.nshapes++]; break;
		case 'i': o = &g.ints[g.nints++]; break;
		case 'x': g.skips[g.nskips].name = v; g.skips[g.nskips++].val = v; break;
		default: fail("unknown option ", s);
		}
		if (o) {
			char *eq = strchr(v, '=');
			if (!eq)
				fail("expected NAME=VALUE: ", v);
			*eq = 0;
			o->name = v;
			o->val = eq + 1;
		}
	}
	if (!path)
		fail("usage: kirgrad [options] FILE.kir", NULL);
	if (!(text = readfile(path, &src.len)))
		fail("cannot read ", path);
	src.name = path;
	src.text = text;
	diaginit(&d);
	if (!(g.m = parsekir(&src, &d)) || verify(g.m, &src, &d)) {
		if (g.m)
			modfree(g.m);
		free(text);
		return 2;
	}
	for (p = 0; p < g.m->nfuncs; p++) {
		Func *f = g.m->funcs[p];
		if (!f->kernel || f->adjof >= 0)
			continue;
		if (kname ? !strcmp(f->name, kname) : !g.k) {
			char buf[512];
			int a;
			snprintf(buf, sizeof buf, "%s.adj", f->name);
			a = findfunc(g.m, buf);
			if (!kname && a < 0 && !dump)
				continue;
			g.k = f;
			g.adj = a >= 0 ? g.m->funcs[a] : NULL;
		}
	}
	if (!g.k || (!dump && !g.adj))
		fail("no kernel with a backward kernel", NULL);
	ar = arena_new();
	seed = g.seed;
	in = mkargs(&g, ar, g.k, &seed);
	if (npydir) {
		for (p = 0; p < g.k->nparams; p++)
			if (in[p]->a && g.k->vals[g.k->params[p]].name)
				writenpy(npydir, g.k->vals[g.k->params[p]].name, in[p]->a);
		arena_free(ar);
		modfree(g.m);
		free(text);
		return 0;
	}
	out = cloneargs(ar, g.k, in);
	launch(&g, g.k, out);
	if (dump) {
		for (p = 0; p < g.k->nparams; p++) {
			Arr *a = out[p]->a;
			long j;
			if (!a)
				continue;
			printf("%s:", g.k->vals[g.k->params[p]].name ? g.k->vals[g.k->params[p]].name : "?");
			for (j = 0; j < arrlen(a); j++) {
				if (scalarisfloat(a->elem.s))
					printf(" %.17g", a->d[j].f);
				else
					printf(" %lld", (long long)a->d[j].i);
			}
			printf("\n");
		}
		arena_free(ar);
		modfree(g.m);
		free(text);
		return 0;
	}
	/* weights of the projection, then the backward kernel */
	w = cloneargs(ar, g.k, in);
	for (p = 0; p < g.k->nparams; p++)
		if (w[p]->a) {
			long j;
			for (j = 0; j < arrlen(w[p]->a); j++)
				w[p]->a->d[j].f = scalarisfloat(w[p]->a->elem.s) ? 2 * urand(&seed) - 1 : 0;
		}
	{
		Box **args = aalloc(ar, (g.adj->nparams + 1) * sizeof *args), **adjw = cloneargs(ar, g.k, w);
		Box **prim = cloneargs(ar, g.k, out);
		uint32_t q = g.k->nparams;
		for (p = 0; p < g.k->nparams; p++) {
			args[p] = prim[p];
			if (in[p]->a)
				args[q++] = adjw[p];
		}
		if (q != g.adj->nparams)
			fail("the backward kernel's parameters do not follow the convention", NULL);
		launch(&g, g.adj, args);
		bw = adjw;
	}
	for (p = 0; p < g.k->nparams; p++) {
		Arr *a = in[p]->a;
		const char *name = g.k->vals[g.k->params[p]].name;
		double worst = 0, wfd = 0, wad = 0;
		long j, worstj = -1, n;
		if (!a || !scalarisfloat(a->elem.s))
			continue;
		if (lookup(g.skips, g.nskips, name))
			continue;
		n = arrlen(a);
		for (j = 0; j < n; j++) {
			double x0 = a->d[j].f, h = g.h * (fabs(x0) > 1 ? fabs(x0) : 1), lp, lm, fd, ad, e, den;
			Box **t;
			a->d[j].f = x0 + h;
			t = cloneargs(ar, g.k, in);
			launch(&g, g.k, t);
			lp = loss(g.k, t, w);
			a->d[j].f = x0 - h;
			t = cloneargs(ar, g.k, in);
			launch(&g, g.k, t);
			lm = loss(g.k, t, w);
			a->d[j].f = x0;
			fd = (lp - lm) / (2 * h);
			ad = bw[p]->a->d[j].f;
			den = fabs(fd) > fabs(ad) ? fabs(fd) : fabs(ad);
			if (den < 1e-2)
				den = 1e-2;
			e = fabs(ad - fd) / den;
			if (!(e <= worst)) {
				worst = e;
				worstj = j;
				wfd = fd;
				wad = ad;
			}
		}
		printf("%s: worst relative error %.3g over %ld components", name ? name : "?", worst, n);
		if (worstj >= 0 && worst > g.tol)
			printf(" (component %ld: ad %.10g, fd %.10g)", worstj, wad, wfd);
		printf("\n");
		if (!(worst <= g.tol))
			bad = 1;
	}
	arena_free(ar);
	modfree(g.m);
	free(text);
	return bad;
}
