/* Value facts: what an expression's value is, by construction, relative to others.
 *
 * The generators use them to stay away from numerically degenerate kernels, whose
 * outputs are rounding noise (useless as training data, and different from one
 * compiler to the next):
 *   - wp.cross of parallel vectors (off * 0.3 and wp.normalize(off), off and
 *     offsets[i] once off = offsets[i]) is zero up to rounding;
 *   - x - x, x * 0.3 - 0.3 * x, and a ± b whose known multiples cancel, are zero;
 *   - wp.dot of perpendicular vectors (dot(cross(a, b), a)) is zero up to rounding;
 *   - wp.normalize of a vector of fixed direction (wp.vec3(t), wp.vec3(e, e, t) with
 *     e = 0.05 * t) is a constant times a sign;
 *   - wp.determinant of a singular matrix (outer products, parallel rows) is zero up
 *     to rounding.
 * Facts are computed bottom-up and memoised in each node (Expr.f) and variable (Var.f);
 * see struct Facts in kgen.h.  They are conservative where it matters: a fresh id means
 * "no known relation", so only relations that hold for every input are claimed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgen.h"

static unsigned
fresh(Gen *g)
{
	if (g->next_id < 16)
		g->next_id = 16;
	if (g->next_id + 1 >= DIR_DERIVED)
		die("out of value ids");
	return ++g->next_id;
}

/* A deterministic id for part k of the value with id base (component, field, row). */
static unsigned
derived(unsigned base, unsigned k)
{
	uint64_t h = ((uint64_t)base << 8) ^ (k + 1) ^ 0x9e3779b97f4a7c15ull;

	h = splitmix64(&h);
	return DIR_DERIVED | (unsigned)(h & 0x3fffffffu);
}

/* The id of the fixed direction of u (n components); DIR_ZERO when u = 0.  Opposite
 * directions are one direction (parallel either way). */
static unsigned
const_dir(const double *u, int n)
{
	double m = 0, sgn = 0;
	uint64_t h = 0x51ed270b27u;
	int i;

	for (i = 0; i < n; i++) {
		m += u[i] * u[i];
		if (sgn == 0 && u[i] != 0)
			sgn = u[i] < 0 ? -1 : 1;
	}
	if (m == 0)
		return DIR_ZERO;
	m = sqrt(m);
	for (i = 0; i < n; i++) {
		long long q = llround(sgn * u[i] / m * 1e4);
		uint64_t x = h ^ (uint64_t)q ^ ((uint64_t)i << 40);

		h = splitmix64(&x);
	}
	h &= 0x7fffffffu;
	return DIR_CONST | (unsigned)(h ? h : 1);
}

static bool
known(double c)
{
	return !isnan(c);
}

static bool
is_tid_load(const Gen *g, const Expr *e)
{
	int d;

	for (d = 0; d < e->n; d++)
		if (e->a[d]->kind != E_VAR || d >= 3 || e->a[d]->var != g->tid[d])
			return false;
	return true;
}

static int
comp_index(const Expr *e)
{
	static const char *const names[] = { "x", "y", "z", "w" };
	int k;

	if (e->kind == E_ATTR) {
		for (k = 0; k < 4; k++)
			if (!strcmp(e->s, names[k]))
				return k;
		return -1;
	}
	if (e->kind == E_INDEX && e->n == 2 && e->a[1]->kind == E_LIT)
		return atoi(e->a[1]->s);
	return -1;
}

/* Locals keep their definition as their value until something mutates them; a draw
 * from the random state is one value only through its variable. */
static const Expr *
resolve(const Expr *e)
{
	while (e->kind == E_VAR && e->var->role == V_LOCAL && e->var->def && !e->var->reassigned &&
	       !(e->var->def->flags & EF_RAND))
		e = e->var->def;
	return e;
}

static void
set_general(Gen *g, Facts *f, Type t)
{
	memset(f, 0, sizeof *f);
	f->coef = NAN;
	f->mag = NAN;
	if (t.kind == TY_VEC || t.kind == TY_MAT || t.kind == TY_XFORM || t.kind == TY_QUAT || t.kind == TY_STRUCT)
		f->dir = fresh(g);
}

/* A value that is its own base: value = 1 * itself. */
static void
set_base(Gen *g, Facts *f, Type t, unsigned id)
{
	memset(f, 0, sizeof *f);
	f->mag = NAN;
	f->dir = id ? id : fresh(g);
	f->coef = (t.kind == TY_FLOAT || t.kind == TY_VEC) ? 1.0 : NAN;
}

static bool
perp_has(const Facts *f, unsigned d)
{
	return d && (f->perp[0] == d || f->perp[1] == d);
}

/* r's span: the union of a's and b's, when it has at most two directions. */
static void
span_union(Facts *r, const Facts *a, const Facts *b)
{
	unsigned u[4];
	int n = 0, i, j;

	for (i = 0; i < 4; i++) {
		unsigned d = i < 2 ? a->span[i] : b->span[i - 2];

		for (j = 0; j < n && u[j] != d; j++)
			;
		if (d && j == n)
			u[n++] = d;
	}
	r->span[0] = r->span[1] = 0;
	if (n >= 1 && n <= 2 && a->span[0] && b->span[0]) {
		r->span[0] = u[0];
		r->span[1] = n == 2 ? u[1] : 0;
	}
}

static void join1(Gen *g, Facts *r, const Facts *a, const Facts *b, Type t);

/* Facts of a value that is one of a or b (where, join of a variable's values). */
static void
join(Gen *g, Facts *r, const Facts *a, const Facts *b, Type t)
{
	int i;

	join1(g, r, a, b, t);
	r->zero = a->zero & b->zero;
	(void)i;
}

static void
join1(Gen *g, Facts *r, const Facts *a, const Facts *b, Type t)
{
	int i;

	if (t.kind == TY_MAT) {
		set_general(g, r, t);
		if (a->rank && b->rank)
			r->rank = a->rank > b->rank ? a->rank : b->rank;
		if (a->rank == 1 && b->rank == 1 && a->rowdir == b->rowdir)
			r->rowdir = a->rowdir;
		return;
	}
	if (t.kind != TY_FLOAT && t.kind != TY_VEC) {
		set_general(g, r, t);
		return;
	}
	if (a->dir && a->dir == b->dir) {
		*r = *a;
		if (!(known(a->coef) && a->coef == b->coef))
			r->coef = NAN;
		if (!(known(a->mag) && a->mag == b->mag))
			r->mag = NAN;
	} else if (t.kind == TY_VEC && a->dir == DIR_ZERO) {
		*r = *b;
		r->coef = r->mag = NAN;
	} else if (t.kind == TY_VEC && b->dir == DIR_ZERO) {
		*r = *a;
		r->coef = r->mag = NAN;
	} else {
		set_general(g, r, t);
		if (t.kind == TY_VEC && known(a->mag) && a->mag == b->mag)
			r->mag = a->mag;
		if (t.kind == TY_VEC)
			span_union(r, a, b);
		return;
	}
	for (i = 0; i < 2; i++)
		if (!perp_has(b, r->perp[i]))
			r->perp[i] = 0;
}

static void compute(Gen *g, Expr *e, Facts *f);
static unsigned zeros(Gen *g, Expr *e, const Facts *f);

static unsigned
full_mask(Type t)
{
	unsigned m = 0;
	int r, c;

	if (t.kind == TY_VEC)
		return (1u << t.n) - 1;
	if (t.kind == TY_MAT) {
		for (r = 0; r < t.n; r++)
			for (c = 0; c < t.n; c++)
				m |= 1u << (4 * r + c);
		return m;
	}
	return t.kind == TY_FLOAT ? 1u : 0u;
}

/* What structural zeros imply: a zero vector, an axis (a fixed direction), a zero
 * float, a matrix with a zero row or column (singular). */
static void
apply_zeros(Facts *f, Type t)
{
	unsigned full = full_mask(t), z = f->zero & full;
	int k, nz = 0, r, c;

	f->zero = z;
	if (!z)
		return;
	if (t.kind == TY_FLOAT) {
		f->dir = DIR_ONE;
		f->coef = 0;
	} else if (t.kind == TY_VEC) {
		for (k = 0; k < t.n; k++)
			nz += !(z >> k & 1);
		if (nz == 0) {
			memset(f->perp, 0, sizeof f->perp);
			memset(f->span, 0, sizeof f->span);
			f->dir = DIR_ZERO;
			f->coef = f->mag = 0;
		} else if (nz == 1 && !(f->dir & DIR_CONST)) {
			double u[4] = { 0, 0, 0, 0 };

			for (k = 0; k < t.n; k++)
				u[k] = !(z >> k & 1);
			f->dir = const_dir(u, t.n);
			f->coef = f->mag = NAN;
			f->span[0] = f->dir;
			f->span[1] = 0;
		}
	} else if (t.kind == TY_MAT) {
		bool sing = false;

		for (r = 0; r < t.n; r++) {
			unsigned row = 0, col = 0;

			for (c = 0; c < t.n; c++) {
				row += z >> (4 * r + c) & 1;
				col += z >> (4 * c + r) & 1;
			}
			sing |= (int)row == t.n || (int)col == t.n;
		}
		if (sing && (!f->rank || f->rank > t.n - 1))
			f->rank = t.n - 1;
	}
}

/* A vector of no known span is in the span of its own direction. */
static void
default_span(Facts *f, Type t)
{
	if (t.kind == TY_VEC && !f->span[0] && f->dir != DIR_ZERO) {
		f->span[0] = f->dir;
		f->span[1] = 0;
	}
}

const Facts *
facts(Gen *g, Expr *e)
{
	if (!e->fx) {
		Facts f;

		compute(g, e, &f);
		f.zero = zeros(g, e, &f);
		apply_zeros(&f, e->ty);
		default_span(&f, e->ty);
		e->f = f;
		e->fx = true;
	}
	return &e->f;
}

const Facts *
var_facts(Gen *g, Var *v)
{
	if (!v->fx) {
		Facts f;

		if (v->role == V_LOCAL && v->def && !v->reassigned) {
			f = *facts(g, v->def);
			/* a float of no known base is a base of its own once named */
			if (v->ty.kind == TY_FLOAT && (f.dir == 0 || !known(f.coef)))
				set_base(g, &f, v->ty, 0);
		} else {
			set_base(g, &f, v->ty, 0);
		}
		default_span(&f, v->ty);
		v->f = f;
		v->fx = true;
	}
	return &v->f;
}

/* v (a local) is assigned value.  Outside branches, and in the loop body where v is
 * defined, later reads see value; otherwise value or what v held before. */
void
var_assigned(Gen *g, Var *v, Expr *value)
{
	Facts old = *var_facts(g, v), r;

	if (g->branch_depth == 0 && g->loop_depth == v->loop_depth)
		r = *facts(g, value);
	else
		join(g, &r, &old, facts(g, value), v->ty), apply_zeros(&r, v->ty);
	if (v->ty.kind == TY_FLOAT && (r.dir == 0 || !known(r.coef)))
		set_base(g, &r, v->ty, 0);
	default_span(&r, v->ty);
	v->f = r;
	v->fx = true;
	v->reassigned = true;
}

/* Scalar facts of component k of vector facts vf. */
static void
component(Gen *g, Facts *f, const Facts *vf, int k)
{
	memset(f, 0, sizeof *f);
	f->coef = NAN;
	f->mag = NAN;
	if (vf->dir == DIR_ZERO) {
		f->dir = DIR_ONE;
		f->coef = 0;
	} else if (vf->dir && !(vf->dir & DIR_CONST) && known(vf->coef)) {
		f->dir = derived(vf->dir, (unsigned)k);
		f->coef = vf->coef;
	}
	(void)g;
}

/* wp.vecN(...): a fixed direction when every component is a known multiple of one
 * base (or zero). */
static void
vector_ctor(Gen *g, Expr *e, Facts *f)
{
	double u[4] = { 0, 0, 0, 0 };
	unsigned base = 0;
	int i, n = e->ty.n;

	set_general(g, f, e->ty);
	if (e->n == 0) {
		/* literal text: wp.vec3(1.0, 0.0, 0.0) */
		const char *p = strchr(e->s, '(');

		for (i = 0; i < n && p; i++) {
			u[i] = strtod(p + 1, NULL);
			p = strchr(p + 1, ',');
		}
		if (i == n) {
			f->dir = const_dir(u, n);
			f->mag = 0;
			for (i = 0; i < n; i++)
				f->mag += u[i] * u[i];
			f->mag = sqrt(f->mag);
		}
		return;
	}
	if (e->n == 1) {
		const Facts *a = facts(g, e->a[0]);

		for (i = 0; i < n; i++)
			u[i] = 1.0;
		if (a->dir == DIR_ONE && known(a->coef) && a->coef == 0)
			f->dir = DIR_ZERO, f->coef = 0, f->mag = 0;
		else
			f->dir = const_dir(u, n);
		if (a->dir == DIR_ONE && known(a->coef))
			f->mag = fabs(a->coef) * sqrt((double)n);
		return;
	}
	for (i = 1; i < e->n && fx_same(e->a[0], e->a[i]); i++)
		;
	if (i == e->n) {
		/* wp.vec3(t, t, t) */
		for (i = 0; i < n; i++)
			u[i] = 1.0;
		f->dir = const_dir(u, n);
		return;
	}
	for (i = 0; i < e->n && i < 4; i++) {
		const Facts *a = facts(g, e->a[i]);

		if (!a->dir || !known(a->coef))
			return;
		if (a->coef == 0) {
			u[i] = 0;
			continue;
		}
		if (base && a->dir != base)
			return;
		base = a->dir;
		u[i] = a->coef;
	}
	f->dir = const_dir(u, n);
	f->coef = NAN;
	if (base == DIR_ONE || base == 0) {
		f->mag = 0;
		for (i = 0; i < e->n && i < 4; i++)
			f->mag += u[i] * u[i];
		f->mag = sqrt(f->mag);
	}
}

/* Rank bound of wp.matrix_from_rows/cols(args): parallel arguments lose rank. */
static void
rows_ctor(Gen *g, Expr *e, Facts *f, bool rows)
{
	int i, j, par = 0;
	bool all = true;

	set_general(g, f, e->ty);
	for (i = 0; i < e->n; i++)
		for (j = i + 1; j < e->n; j++) {
			if (fx_parallel(g, e->a[i], e->a[j]))
				par = 1;
			else
				all = false;
		}
	if (all) {
		f->rank = 1;
		if (rows)
			f->rowdir = facts(g, e->a[0])->dir;
	} else if (par) {
		f->rank = e->ty.n - 1;
	}
}

static void
compute(Gen *g, Expr *e, Facts *f)
{
	Type t = e->ty;
	const Facts *a, *b;
	int k;

	set_general(g, f, t);
	switch (e->kind) {
	case E_LIT:
		if (t.kind == TY_FLOAT) {
			f->dir = DIR_ONE;
			f->coef = lit_value(e);
		}
		return;
	case E_VAR:
		*f = *var_facts(g, e->var);
		return;
	case E_LOAD:
		if (is_tid_load(g, e)) {
			/* the array's element at the thread: one base per array */
			*f = *var_facts(g, e->var);
			f->coef = (t.kind == TY_FLOAT || t.kind == TY_VEC) ? 1.0 : NAN;
		} else if (t.kind == TY_FLOAT || t.kind == TY_VEC) {
			set_base(g, f, t, 0);
		}
		return;
	case E_ATTR:
		if (e->a[0]->ty.kind == TY_STRUCT) {
			const StructDef *sd = &g->k->structs[e->a[0]->ty.sid];
			const Expr *base = e->a[0];

			for (k = 0; k < sd->nfields; k++)
				if (!strcmp(sd->fname[k], e->s))
					break;
			if (base->kind == E_VAR && k < sd->nfields && base->var->fdef[k]) {
				*f = *facts(g, base->var->fdef[k]);
				return;
			}
			if (t.kind == TY_FLOAT || t.kind == TY_VEC)
				set_base(g, f, t, derived(facts(g, e->a[0])->dir, 100u + (unsigned)k));
			return;
		}
		if (e->a[0]->ty.kind == TY_XFORM) {
			if (!strcmp(e->s, "p"))
				set_base(g, f, t, derived(facts(g, e->a[0])->dir, 200u));
			return;
		}
		k = comp_index(e);
		if (k >= 0 && t.kind == TY_FLOAT)
			component(g, f, facts(g, e->a[0]), k);
		return;
	case E_INDEX:
		if (e->a[0]->ty.kind == TY_MAT) {
			const Expr *base = resolve(e->a[0]);

			a = facts(g, e->a[0]);
			if (e->n == 2 && e->a[1]->kind == E_LIT) {
				int r = atoi(e->a[1]->s);

				if (base->kind == E_CALL && !strcmp(base->s, "wp.matrix_from_rows") && r < base->n) {
					*f = *facts(g, base->a[r]);
					return;
				}
				if (a->rank == 1 && a->rowdir) {
					f->dir = a->rowdir;
					return;
				}
				set_base(g, f, t, derived(a->dir, 300u + (unsigned)r));
			} else if (e->n == 3 && e->a[1]->kind == E_LIT && e->a[2]->kind == E_LIT) {
				set_base(g, f, t, derived(a->dir, 400u + (unsigned)(atoi(e->a[1]->s) * 8 + atoi(e->a[2]->s))));
			}
			return;
		}
		k = comp_index(e);
		if (k >= 0 && t.kind == TY_FLOAT)
			component(g, f, facts(g, e->a[0]), k);
		return;
	case E_UN:
		if (e->op == OP_NEG) {
			*f = *facts(g, e->a[0]);
			if (known(f->coef))
				f->coef = -f->coef;
		}
		return;
	case E_BIN:
		a = facts(g, e->a[0]);
		b = facts(g, e->a[1]);
		if (t.kind == TY_MAT) {
			if (e->op == OP_MUL) {
				/* scalar * matrix */
				const Facts *m = e->a[0]->ty.kind == TY_MAT ? a : b;

				f->rank = m->rank;
				f->rowdir = m->rowdir;
			} else if (e->op == OP_ADD || e->op == OP_SUB) {
				if (a->rank && b->rank && a->rank + b->rank < t.n)
					f->rank = a->rank + b->rank;
				if (a->rank == 1 && b->rank == 1 && a->rowdir && a->rowdir == b->rowdir)
					f->rank = 1, f->rowdir = a->rowdir;
			} else if (e->op == OP_MATMUL) {
				if (a->rank || b->rank)
					f->rank = !a->rank ? b->rank : (!b->rank ? a->rank : (a->rank < b->rank ? a->rank : b->rank));
				if (b->rank == 1)
					f->rowdir = b->rowdir;
			}
			return;
		}
		if (t.kind == TY_VEC && (e->op == OP_MUL || e->op == OP_DIV) && e->a[0]->ty.kind != TY_MAT &&
		    e->a[1]->ty.kind != TY_MAT) {
			/* vector times or over a scalar */
			const Facts *v = e->a[0]->ty.kind == TY_VEC ? a : b, *s = e->a[0]->ty.kind == TY_VEC ? b : a;

			*f = *v;
			if (!(s->dir == DIR_ONE && known(s->coef) && known(v->coef) && s->coef != 0))
				f->coef = NAN;
			else
				f->coef = e->op == OP_MUL ? v->coef * s->coef : v->coef / s->coef;
			if (!(s->dir == DIR_ONE && known(s->coef) && known(v->mag) && s->coef != 0))
				f->mag = NAN;
			else
				f->mag = e->op == OP_MUL ? v->mag * fabs(s->coef) : v->mag / fabs(s->coef);
			return;
		}
		if (t.kind == TY_FLOAT && (e->op == OP_MUL || e->op == OP_DIV)) {
			if (b->dir == DIR_ONE && known(b->coef) && b->coef != 0 && a->dir) {
				*f = *a;
				f->coef = known(a->coef) ? (e->op == OP_MUL ? a->coef * b->coef : a->coef / b->coef) : NAN;
			} else if (e->op == OP_MUL && a->dir == DIR_ONE && known(a->coef) && b->dir) {
				*f = *b;
				f->coef = known(b->coef) ? a->coef * b->coef : NAN;
			}
			if (!known(f->coef))
				f->dir = 0;
			return;
		}
		if ((t.kind == TY_FLOAT || t.kind == TY_VEC) && (e->op == OP_ADD || e->op == OP_SUB)) {
			double s = e->op == OP_ADD ? 1.0 : -1.0;

			if (a->dir && a->dir == b->dir) {
				*f = *a;
				f->mag = NAN;
				f->coef = known(a->coef) && known(b->coef) ? a->coef + s * b->coef : NAN;
				if (t.kind == TY_VEC && known(f->coef) && f->coef == 0)
					f->dir = DIR_ZERO;
				else if (t.kind == TY_FLOAT && known(f->coef) && f->coef == 0)
					f->dir = DIR_ONE;
				for (k = 0; k < 2; k++)
					if (!perp_has(b, f->perp[k]))
						f->perp[k] = 0;
				if (t.kind == TY_FLOAT && !known(f->coef))
					f->dir = 0;
			} else if (t.kind == TY_VEC && (a->dir == DIR_ZERO || b->dir == DIR_ZERO)) {
				*f = a->dir == DIR_ZERO ? *b : *a;
				if (a->dir == DIR_ZERO && known(f->coef))
					f->coef *= s;
			} else if (t.kind == TY_VEC) {
				/* perpendicular to what both operands are perpendicular to, in
				 * the span of both */
				for (k = 0; k < 2; k++)
					if (perp_has(a, b->perp[k]))
						f->perp[k] = b->perp[k];
				span_union(f, a, b);
			}
			return;
		}
		return;
	case E_IFEXP:
		join(g, f, facts(g, e->a[1]), facts(g, e->a[2]), t);
		return;
	case E_CALL:
		break;
	default:
		return;
	}

	/* calls */
	if (t.kind == TY_VEC && !strncmp(e->s, "wp.vec", 6)) {
		vector_ctor(g, e, f);
		return;
	}
	if (!strcmp(e->s, "wp.where")) {
		join(g, f, facts(g, e->a[1]), facts(g, e->a[2]), t);
		return;
	}
	if (t.kind == TY_FLOAT && (!strcmp(e->s, "wp.float64") || !strcmp(e->s, "wp.float32") || !strcmp(e->s, "float")) &&
	    e->a[0]->ty.kind == TY_FLOAT) {
		*f = *facts(g, e->a[0]);
		return;
	}
	if (t.kind == TY_VEC) {
		if (!strcmp(e->s, "wp.normalize")) {
			*f = *facts(g, e->a[0]);
			f->coef = NAN;
			f->mag = f->dir == DIR_ZERO ? 0 : 1;
		} else if (!strcmp(e->s, "wp.cross")) {
			f->perp[0] = facts(g, e->a[0])->dir;
			f->perp[1] = facts(g, e->a[1])->dir;
		} else if (!strcmp(e->s, "wp.lerp")) {
			join(g, f, facts(g, e->a[0]), facts(g, e->a[1]), t);
			f->coef = NAN;
		} else if ((!strcmp(e->s, "wp.quat_rotate") || !strcmp(e->s, "wp.quat_rotate_inv")) &&
			   e->a[0]->kind == E_CALL && !strcmp(e->a[0]->s, "wp.quat_identity()")) {
			*f = *facts(g, e->a[1]);
		} else if (!strcmp(e->s, "wp.quat_rotate") || !strcmp(e->s, "wp.quat_rotate_inv") ||
			   !strcmp(e->s, "wp.transform_vector")) {
			/* rotations by unit quaternions keep lengths */
			f->mag = facts(g, e->a[1])->mag;
		} else if (!strcmp(e->s, "wp.cw_mul") || !strcmp(e->s, "wp.min") || !strcmp(e->s, "wp.max")) {
			/* with wp.vec3(t): cw_mul(vec3(t), b) = t * b; min/max of two such
			 * vectors is one */
			double u[4] = { 1, 1, 1, 1 };
			unsigned diag = const_dir(u, t.n);

			a = facts(g, e->a[0]);
			b = facts(g, e->a[1]);
			if (a->dir == diag && b->dir == diag)
				f->dir = diag;
			else if (!strcmp(e->s, "wp.cw_mul") && (a->dir == diag || b->dir == diag))
				f->dir = a->dir == diag ? b->dir : a->dir;
		} else if (!strcmp(e->s, "wp.transform_get_translation")) {
			set_base(g, f, t, derived(facts(g, e->a[0])->dir, 200u));
		} else {
			int i;

			for (i = 0; i < g->k->nfuncs; i++) {
				Func *fn = g->k->funcs[i];
				unsigned rd = fn->retdir[0];

				if (e->s != fn->name)
					continue;
				if (rd & DIR_CONST)
					f->dir = rd;
				else if (rd && (int)rd <= e->n)
					f->dir = facts(g, e->a[rd - 1])->dir;
			}
		}
		return;
	}
	if (t.kind == TY_MAT) {
		if (!strcmp(e->s, "wp.outer")) {
			f->rank = 1;
			f->rowdir = facts(g, e->a[1])->dir;
		} else if (!strcmp(e->s, "wp.matrix_from_rows")) {
			rows_ctor(g, e, f, true);
		} else if (!strcmp(e->s, "wp.matrix_from_cols")) {
			rows_ctor(g, e, f, false);
		} else if (!strcmp(e->s, "wp.transpose")) {
			f->rank = facts(g, e->a[0])->rank;
		} else if (!strcmp(e->s, "wp.mul") && e->n == 2 && e->a[0]->ty.kind == TY_MAT && e->a[1]->ty.kind == TY_MAT) {
			a = facts(g, e->a[0]);
			b = facts(g, e->a[1]);
			if (a->rank || b->rank)
				f->rank = !a->rank ? b->rank : (!b->rank ? a->rank : (a->rank < b->rank ? a->rank : b->rank));
			if (b->rank == 1)
				f->rowdir = b->rowdir;
		}
		return;
	}
}

/* ----------------------------------------------------------------- functions */

/* Which returned vectors are parallel to a parameter (or of a fixed direction). */
void
func_retdirs(Gen *g, Func *f, Expr **rets)
{
	int i, p;

	for (i = 0; i < f->nrets; i++) {
		const Facts *r;

		f->retdir[i] = 0;
		if (f->rets[i].kind != TY_VEC)
			continue;
		r = facts(g, rets[i]);
		if (r->dir & DIR_CONST) {
			f->retdir[i] = r->dir;
			continue;
		}
		for (p = 0; p < f->nparams; p++)
			if (f->params[p]->fx && f->params[p]->f.dir == r->dir)
				f->retdir[i] = (unsigned)p + 1;
	}
}

/* The variables of a, b = f(args) get what f's returns are known to be. */
void
unpack_facts(Gen *g, Func *f, Expr **args, Var **vars)
{
	int i;

	for (i = 0; i < f->nrets; i++) {
		unsigned rd = f->retdir[i];

		set_base(g, &vars[i]->f, vars[i]->ty, 0);
		vars[i]->fx = true;
		if (rd & DIR_CONST)
			vars[i]->f.dir = rd, vars[i]->f.coef = NAN;
		else if (rd && (int)rd <= f->nparams)
			vars[i]->f.dir = facts(g, args[rd - 1])->dir, vars[i]->f.coef = NAN;
		default_span(&vars[i]->f, vars[i]->ty);
	}
}

/* ----------------------------------------------------------------- relations */

static bool
commutes(const Expr *e)
{
	if (e->kind == E_BIN)
		return e->op == OP_ADD || (e->op == OP_MUL && e->ty.kind != TY_QUAT && e->a[0]->ty.kind != TY_MAT &&
					   e->a[1]->ty.kind != TY_MAT);
	return e->kind == E_CALL && e->n == 2 &&
	       (!strcmp(e->s, "wp.min") || !strcmp(e->s, "wp.max") || !strcmp(e->s, "wp.dot") || !strcmp(e->s, "wp.cw_mul"));
}

/* Same value by construction: equal trees once locals are replaced by their
 * definitions, up to commutativity and v.x == v[0].  Random draws are never equal. */
bool
fx_same(const Expr *a, const Expr *b)
{
	int i;

	a = resolve(a);
	b = resolve(b);
	if (a == b)
		return !(a->flags & EF_RAND) || a->kind == E_VAR;
	if (!ty_eq(a->ty, b->ty) || (((a->flags | b->flags) & EF_RAND) && (a->kind != E_VAR || b->kind != E_VAR)))
		return false;
	if ((a->kind == E_ATTR || a->kind == E_INDEX) && (b->kind == E_ATTR || b->kind == E_INDEX) &&
	    a->a[0]->ty.kind != TY_STRUCT && a->a[0]->ty.kind != TY_MAT && a->a[0]->ty.kind != TY_XFORM &&
	    b->a[0]->ty.kind != TY_STRUCT && b->a[0]->ty.kind != TY_MAT && b->a[0]->ty.kind != TY_XFORM) {
		int ka = comp_index(a), kb = comp_index(b);

		return ka >= 0 && ka == kb && fx_same(a->a[0], b->a[0]);
	}
	if (a->kind != b->kind || a->n != b->n || a->var != b->var || a->op != b->op)
		return false;
	if ((a->s || b->s) && (!a->s || !b->s || strcmp(a->s, b->s)))
		return false;
	if (a->kind == E_VAR || a->kind == E_SHAPE)
		return true;
	for (i = 0; i < a->n; i++)
		if (!fx_same(a->a[i], b->a[i]))
			break;
	if (i == a->n)
		return true;
	return commutes(a) && fx_same(a->a[0], b->a[1]) && fx_same(a->a[1], b->a[0]);
}

/* Parallel by construction (the zero vector is parallel to everything). */
/* e less scalar factors and signs: c * v, v * c, v / c, -v */
static Expr *
unscaled(Expr *e)
{
	for (;;) {
		if (e->kind == E_UN && e->op == OP_NEG)
			e = e->a[0];
		else if (e->kind == E_BIN && (e->op == OP_MUL || e->op == OP_DIV) && e->ty.kind == TY_VEC && e->a[1]->ty.kind == TY_FLOAT)
			e = e->a[0];
		else if (e->kind == E_BIN && e->op == OP_MUL && e->ty.kind == TY_VEC && e->a[0]->ty.kind == TY_FLOAT)
			e = e->a[1];
		else
			return e;
	}
}

bool
fx_parallel(Gen *g, Expr *a, Expr *b)
{
	const Facts *fa = facts(g, a), *fb = facts(g, b);
	Expr *u[2];
	int s, k;

	if (fa->dir == fb->dir || fa->dir == DIR_ZERO || fb->dir == DIR_ZERO)
		return true;
	if (fx_same(a, b))
		return true;
	/* a componentwise min or max equals one of its arguments wherever that one
	 * is the smaller (larger) in every component: a region of inputs, where a
	 * cross product with a vector parallel to that argument is zero */
	u[0] = unscaled(a), u[1] = unscaled(b);
	for (s = 0; s < 2; s++)
		if (u[s]->kind == E_CALL && u[s]->n == 2 && u[s]->ty.kind == TY_VEC &&
		    (!strcmp(u[s]->s, "wp.min") || !strcmp(u[s]->s, "wp.max")))
			for (k = 0; k < 2; k++)
				if (u[s]->a[k]->ty.kind == TY_VEC && fx_parallel(g, s ? a : b, u[s]->a[k]))
					return true;
	return false;
}

bool
fx_perp(Gen *g, Expr *a, Expr *b)
{
	const Facts *fa = facts(g, a), *fb = facts(g, b);

	return perp_has(fa, fb->dir) || perp_has(fb, fa->dir) ||
	       (fb->span[0] && perp_has(fa, fb->span[0]) && (!fb->span[1] || perp_has(fa, fb->span[1]))) ||
	       (fa->span[0] && perp_has(fb, fa->span[0]) && (!fa->span[1] || perp_has(fb, fa->span[1])));
}

/* a + b (op OP_ADD) or a - b (OP_SUB) is zero for every input. */
bool
fx_cancels(Gen *g, Expr *a, Expr *b, int op)
{
	const Facts *fa, *fb;
	double r;

	if (op == OP_SUB && fx_same(a, b))
		return true;
	if (a->ty.kind != TY_FLOAT && a->ty.kind != TY_VEC)
		return false;
	fa = facts(g, a);
	fb = facts(g, b);
	if (!fa->dir || fa->dir != fb->dir || !known(fa->coef) || !known(fb->coef))
		return false;
	if (fa->dir == DIR_ONE)
		return false; /* constants: deconst's business */
	r = op == OP_ADD ? fa->coef + fb->coef : fa->coef - fb->coef;
	return fabs(r) <= 1e-9 * fmax(fabs(fa->coef), fabs(fb->coef));
}

/* normalize(e) would be a constant (up to sign) or of the zero vector. */
bool
fx_fixed_dir(Gen *g, Expr *e)
{
	return e->ty.kind == TY_VEC && (facts(g, e)->dir & DIR_CONST);
}

bool
fx_fixed_len(Gen *g, Expr *e)
{
	return e->ty.kind == TY_VEC && known(facts(g, e)->mag);
}

/* ----------------------------------------------------------------- structural zeros */

static unsigned
bit(unsigned z, int k)
{
	return z >> k & 1;
}

/* m @ v: component r is zero when every m[r][c] or v[c] is */
static unsigned
zmatvec(unsigned zm, unsigned zv, int n, bool vec_left)
{
	unsigned z = 0;
	int r, c;

	for (r = 0; r < n; r++) {
		bool zero = true;

		for (c = 0; c < n; c++)
			zero &= vec_left ? (bit(zv, c) || bit(zm, 4 * c + r)) : (bit(zm, 4 * r + c) || bit(zv, c));
		z |= (unsigned)zero << r;
	}
	return z;
}

static unsigned
zmatmat(unsigned za, unsigned zb, int n)
{
	unsigned z = 0;
	int r, c, k;

	for (r = 0; r < n; r++)
		for (c = 0; c < n; c++) {
			bool zero = true;

			for (k = 0; k < n; k++)
				zero &= bit(za, 4 * r + k) || bit(zb, 4 * k + c);
			z |= (unsigned)zero << (4 * r + c);
		}
	return z;
}

static unsigned
offdiag(int n)
{
	unsigned z = 0;
	int r, c;

	for (r = 0; r < n; r++)
		for (c = 0; c < n; c++)
			if (r != c)
				z |= 1u << (4 * r + c);
	return z;
}

static unsigned
zarg(Gen *g, Expr *e)
{
	return facts(g, e)->zero;
}

/* Structural zeros of e, from its operands' (f: what compute() found, for the forms
 * that copy their source's facts: variables, struct fields). */
static unsigned
zeros(Gen *g, Expr *e, const Facts *f)
{
	Type t = e->ty;
	unsigned za, zb, z = 0;
	int n = t.n, k, r, c;

	if (t.kind != TY_FLOAT && t.kind != TY_VEC && t.kind != TY_MAT)
		return 0;
	switch (e->kind) {
	case E_LIT:
		return lit_value(e) == 0 ? 1u : 0u;
	case E_VAR:
		return f->zero;
	case E_ATTR:
		if (e->a[0]->ty.kind == TY_STRUCT)
			return f->zero;
		if (e->a[0]->ty.kind == TY_VEC && (k = comp_index(e)) >= 0)
			return bit(zarg(g, e->a[0]), k);
		return 0;
	case E_INDEX:
		if (e->a[1]->kind != E_LIT)
			return 0;
		k = atoi(e->a[1]->s);
		if (e->a[0]->ty.kind == TY_VEC)
			return bit(zarg(g, e->a[0]), k);
		if (e->a[0]->ty.kind != TY_MAT)
			return 0;
		za = zarg(g, e->a[0]);
		if (e->n == 3)
			return e->a[2]->kind == E_LIT ? bit(za, 4 * k + atoi(e->a[2]->s)) : 0;
		return za >> (4 * k) & 0xfu;
	case E_UN:
		return e->op == OP_NEG ? zarg(g, e->a[0]) : 0;
	case E_IFEXP:
		return zarg(g, e->a[1]) & zarg(g, e->a[2]);
	case E_BIN:
		za = zarg(g, e->a[0]);
		zb = zarg(g, e->a[1]);
		switch (e->op) {
		case OP_ADD:
		case OP_SUB:
			return za & zb;
		case OP_DIV:
			return e->a[0]->ty.kind == t.kind ? za : 0;
		case OP_MUL:
		case OP_MATMUL:
			if (e->a[0]->ty.kind == TY_MAT && e->a[1]->ty.kind == TY_MAT)
				return zmatmat(za, zb, n);
			if (e->a[0]->ty.kind == TY_MAT && e->a[1]->ty.kind == TY_VEC)
				return zmatvec(za, zb, n, false);
			if (e->a[0]->ty.kind == TY_VEC && e->a[1]->ty.kind == TY_MAT)
				return zmatvec(zb, za, n, true);
			/* scalar times a vector, matrix or scalar */
			if (e->a[0]->ty.kind == TY_FLOAT && (za & 1))
				return full_mask(t);
			if (e->a[1]->ty.kind == TY_FLOAT && (zb & 1))
				return full_mask(t);
			return (e->a[0]->ty.kind == t.kind ? za : 0) | (e->a[1]->ty.kind == t.kind ? zb : 0);
		default:
			return 0;
		}
	case E_CALL:
		break;
	default:
		return 0;
	}
	if (t.kind == TY_VEC && !strncmp(e->s, "wp.vec", 6)) {
		if (e->n == 0) {
			const char *p = strchr(e->s, '(');

			for (k = 0; k < n && p; k++) {
				z |= (unsigned)(strtod(p + 1, NULL) == 0) << k;
				p = strchr(p + 1, ',');
			}
			return z;
		}
		if (e->n == 1)
			return zarg(g, e->a[0]) & 1 ? full_mask(t) : 0;
		for (k = 0; k < e->n && k < 4; k++)
			z |= (zarg(g, e->a[k]) & 1) << k;
		return z;
	}
	if (t.kind == TY_MAT && !strncmp(e->s, "wp.mat", 6) && e->n == n * n) {
		for (k = 0; k < e->n; k++)
			z |= (zarg(g, e->a[k]) & 1) << (4 * (k / n) + k % n);
		return z;
	}
	if (t.kind == TY_MAT && !strncmp(e->s, "wp.identity", 11))
		return offdiag(n);
	if (!strcmp(e->s, "wp.diag")) {
		za = zarg(g, e->a[0]);
		z = offdiag(n);
		for (k = 0; k < n; k++)
			z |= bit(za, k) << (4 * k + k);
		return z;
	}
	if (!strcmp(e->s, "wp.outer")) {
		za = zarg(g, e->a[0]);
		zb = zarg(g, e->a[1]);
		for (r = 0; r < n; r++)
			for (c = 0; c < n; c++)
				z |= (bit(za, r) | bit(zb, c)) << (4 * r + c);
		return z;
	}
	if (!strcmp(e->s, "wp.matrix_from_rows") || !strcmp(e->s, "wp.matrix_from_cols")) {
		bool rows = !strcmp(e->s, "wp.matrix_from_rows");

		for (r = 0; r < n && r < e->n; r++) {
			za = zarg(g, e->a[r]);
			for (c = 0; c < n; c++)
				z |= bit(za, c) << (rows ? 4 * r + c : 4 * c + r);
		}
		return z;
	}
	if (!strcmp(e->s, "wp.transpose")) {
		za = zarg(g, e->a[0]);
		for (r = 0; r < n; r++)
			for (c = 0; c < n; c++)
				z |= bit(za, 4 * c + r) << (4 * r + c);
		return z;
	}
	if (!strcmp(e->s, "wp.mul") && e->n == 2) {
		za = zarg(g, e->a[0]);
		zb = zarg(g, e->a[1]);
		if (e->a[1]->ty.kind == TY_MAT)
			return zmatmat(za, zb, n);
		return zmatvec(za, zb, n, false);
	}
	if (!strcmp(e->s, "wp.inverse")) {
		za = zarg(g, e->a[0]);
		return (za & offdiag(n)) == offdiag(n) ? offdiag(n) : 0;
	}
	if (!strcmp(e->s, "wp.normalize") || !strcmp(e->s, "wp.abs") || !strcmp(e->s, "wp.sin") ||
	    !strcmp(e->s, "wp.tanh") || !strcmp(e->s, "wp.atan") || !strcmp(e->s, "wp.erf") || !strcmp(e->s, "wp.float64") ||
	    !strcmp(e->s, "wp.float32") || (!strcmp(e->s, "float") && e->a[0]->ty.kind == TY_FLOAT))
		return e->n == 1 ? zarg(g, e->a[0]) : 0;
	if (!strcmp(e->s, "wp.cw_mul"))
		return zarg(g, e->a[0]) | zarg(g, e->a[1]);
	if (!strcmp(e->s, "wp.min") || !strcmp(e->s, "wp.max") || !strcmp(e->s, "wp.lerp"))
		return e->n >= 2 ? zarg(g, e->a[0]) & zarg(g, e->a[1]) : 0;
	if (!strcmp(e->s, "wp.where"))
		return zarg(g, e->a[1]) & zarg(g, e->a[2]);
	if (!strcmp(e->s, "wp.cross")) {
		za = zarg(g, e->a[0]);
		zb = zarg(g, e->a[1]);
		for (k = 0; k < 3; k++) {
			int i1 = (k + 1) % 3, i2 = (k + 2) % 3;

			z |= ((bit(za, i1) | bit(zb, i2)) & (bit(za, i2) | bit(zb, i1))) << k;
		}
		return z;
	}
	if (t.kind == TY_FLOAT && (!strcmp(e->s, "wp.dot") || !strcmp(e->s, "wp.length") || !strcmp(e->s, "wp.length_sq"))) {
		Type vt = e->a[0]->ty;
		unsigned full;

		if (vt.kind != TY_VEC)
			return 0;
		full = full_mask(vt);
		za = zarg(g, e->a[0]);
		zb = e->n == 2 ? zarg(g, e->a[1]) : za;
		return ((za | zb) & full) == full ? 1u : 0u;
	}
	return 0;
}

bool
fx_zero(Gen *g, Expr *e)
{
	const Facts *f = facts(g, e);
	unsigned full = full_mask(e->ty);

	return full && (f->zero & full) == full;
}

bool
fx_singular(Gen *g, Expr *m)
{
	const Facts *f = facts(g, m);

	return f->rank > 0 && f->rank < m->ty.n;
}
