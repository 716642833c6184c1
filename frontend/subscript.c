/*
 * subscript.c — reading subscripts and attributes: array elements and
 * views, vector and matrix components and slices, struct fields and the
 * attributes of arrays and types.
 */
#include <string.h>

#include "ast.h"

/* ---- subscripts and attributes -------------------------------------- */

/* An integer index value. */
Val
indexval(Ctx *c, Node *n)
{
	X x;
	Val v;

	if (n->kind == E_SLICE) {
		serr(c, n->loc, "slices are not supported here");
		return 0;
	}
	if (n->kind == E_STARRED) {
		serr(c, n->loc, "starred indices are not supported");
		return 0;
	}
	x = expr(c, n);
	if (x.k == X_NONE)
		return 0;
	if (!(v = xvalue(c, x, n->loc)))
		return 0;
	if (!isint(vty(c->f, v))) {
		serr(c, n->loc, "indices must be integers, not %s", wptypename(c->m, vty(c->f, v)));
		return 0;
	}
	return v;
}

/* A component index into a composite of n components: constant negative
 * indices count from the end, as in Python and Warp. */
Val
compindex(Ctx *c, Val i, int n, Loc loc)
{
	const Value *v = val(c->f, i);

	if (isconst(c->f, i)) {
		int64_t k = scalarissigned(v->ty.s) ? v->c[0].i : (int64_t)v->c[0].u;
		if (k < -n || k >= n) {
			serr(c, loc, "index %lld is out of range for %d components", (long long)k, n);
			return 0;
		}
		if (k < 0)
			return cint(c->m, c->f, S_I32, k + n);
	}
	return i;
}

/* A subscript not yet turned into a value: a sub-array (fewer indices
 * than dimensions, so a[i][j] is one load) or a matrix row (so m[i][j]
 * is one extract). */
typedef struct Pend {
	Val arr;             /* array with n indices so far */
	Val idx[MAXDIM];
	int n;
	Val mat, row;        /* row `row` of matrix `mat` */
} Pend;

static Val
materialize(Ctx *c, Pend *p, Loc loc)
{
	Val a[MAXDIM + 1];

	if (p->arr) {
		Op *op;
		a[0] = p->arr;
		memcpy(a + 1, p->idx, (size_t)p->n * sizeof *a);
		op = emitop(c, OP_VIEW, a, p->n + 1, 0, tvoid(), loc, "array view");
		return op ? op->res[0] : 0;
	}
	a[0] = p->mat;
	a[1] = p->row;
	return emit1(c, OP_EXTRACT, a, 2, loc, "row");
}

static X
pending(void)
{
	X x = xnone();
	x.k = X_VAL;
	x.v = 0;
	return x;
}

static X
addindices(Ctx *c, Node *e, Pend *p)
{
	int nd = vty(c->f, p->arr).nd;
	uint32_t i;
	Val a[MAXDIM + 1];
	Op *op;

	for (i = 0; i < e->l1.n; i++) {
		Node *ix = e->l1.v[i];
		Val v;
		if (ix->kind == E_SLICE) {
			serr(c, ix->loc, "array slices are not supported by kpyc");
			return xnone();
		}
		if (!(v = indexval(c, ix)))
			return xnone();
		if (p->n >= nd) {
			serr(c, ix->loc, "too many indices for a %d-dimensional array", nd);
			return xnone();
		}
		p->idx[p->n++] = v;
	}
	if (p->n < nd)
		return pending();
	a[0] = p->arr;
	memcpy(a + 1, p->idx, (size_t)p->n * sizeof *a);
	op = emitop(c, OP_LOAD, a, p->n + 1, 0, tvoid(), e->loc, "array index");
	p->arr = 0;
	return op ? xval(op->res[0]) : xnone();
}

/* The components a constant slice ix selects of len, in order, as
 * Python's slice.indices: false (reported) if a bound is not a constant
 * integer, the step is zero or nothing is selected (Warp's zero-length
 * vectors are not compiled). */
static bool
slicebounds(Ctx *c, Node *ix, int len, int *idx, int *n)
{
	int64_t bnd[3] = {0, len, 1};
	Node *pp[3] = {ix->a, ix->b, ix->c};
	int k;

	for (k = 0; k < 3; k++) {
		X bx;
		if (!pp[k])
			continue;
		bx = expr(c, pp[k]);
		if (bx.k == X_NONE)
			return false;
		if (bx.k != X_VAL || !bx.wconst || bx.hasrange || !isconst(c->f, bx.v) || !isint(vty(c->f, bx.v))) {
			serr(c, pp[k]->loc, "Slice component must be a compile-time constant.");
			return false;
		}
		bnd[k] = val(c->f, bx.v)->c[0].i;
	}
	if (bnd[2] == 0) {
		serr(c, ix->loc, "slice step cannot be zero");
		return false;
	}
	if (!pp[0])
		bnd[0] = bnd[2] < 0 ? len - 1 : 0;
	else if (bnd[0] < 0)
		bnd[0] += len;
	if (!pp[1])
		bnd[1] = bnd[2] < 0 ? -1 : len;
	else if (bnd[1] < 0)
		bnd[1] += len;
	for (k = 0; k < 2; k++) {
		if (bnd[k] < -1)
			bnd[k] = -1;
		if (bnd[k] > len)
			bnd[k] = len;
	}
	*n = 0;
	for (k = (int)bnd[0]; bnd[2] > 0 ? k < bnd[1] : k > bnd[1]; k += (int)bnd[2])
		if (k >= 0 && k < len)
			idx[(*n)++] = k;
	if (*n == 0) {
		serr(c, ix->loc, "the slice is empty");
		return false;
	}
	return true;
}

/* m[a:b], m[a:b, c:d], m[i, a:b], m[a:b, j] with constant bounds and
 * indices: the selected rows and columns, a matrix where both are
 * slices (one row slice alone keeps every column), else a vector. */
static X
matslice(Ctx *c, Node *e, Val base, Type t)
{
	int idx[2][MAXVEC], cnt[2], ax, i, j, n = 0;
	bool sl[2] = {true, true};
	Val *comps = aalloc(c->tmp, (size_t)(t.n * t.m + 1) * sizeof *comps), a[3];
	Op *op;

	for (ax = 0; ax < 2; ax++) {
		int len = ax ? t.m : t.n;
		Node *ix = ax < (int)e->l1.n ? e->l1.v[ax] : NULL;
		if (!ix) {
			for (i = 0; i < len; i++)
				idx[ax][i] = i;
			cnt[ax] = len;
		} else if (ix->kind == E_SLICE) {
			if (!slicebounds(c, ix, len, idx[ax], &cnt[ax]))
				return xnone();
		} else {
			X x = expr(c, ix);
			int64_t v;
			if (x.k == X_NONE)
				return xnone();
			if (x.k != X_VAL || !x.wconst || !isconst(c->f, x.v) || !isint(vty(c->f, x.v))) {
				serr(c, ix->loc, "kpyc slices a matrix with constant indices only");
				return xnone();
			}
			v = val(c->f, x.v)->c[0].i;
			if (v < 0)
				v += len;
			if (v < 0 || v >= len) {
				serr(c, ix->loc, "matrix index %lld is out of range", (long long)val(c->f, x.v)->c[0].i);
				return xnone();
			}
			idx[ax][0] = (int)v;
			cnt[ax] = 1;
			sl[ax] = false;
		}
	}
	for (i = 0; i < cnt[0]; i++)
		for (j = 0; j < cnt[1]; j++) {
			a[0] = base;
			a[1] = cint(c->m, c->f, S_I32, idx[0][i]);
			a[2] = cint(c->m, c->f, S_I32, idx[1][j]);
			if (!(comps[n++] = emit1(c, OP_EXTRACT, a, 3, e->loc, "component")))
				return xnone();
		}
	if (sl[0] && sl[1])
		op = emitop(c, OP_MAT, comps, n, 0, tmat(cnt[0], cnt[1], t.s), e->loc, "slice");
	else
		op = emitop(c, OP_VEC, comps, n, 0, tvec(n, t.s), e->loc, "slice");
	return op ? xval(op->res[0]) : xnone();
}

static X compsub(Ctx *c, Node *e, Val base);


/* ---- array slices ----------------------------------------------------- */

static Val
i32op(Ctx *c, int code, Val a, Val b, Loc loc)
{
	Val args[2];

	if (!a || !b)
		return 0;
	args[0] = a;
	args[1] = b;
	return emit1(c, code, args, 2, loc, "slice");
}

static Val
i32where(Ctx *c, Val cond, Val a, Val b, Loc loc)
{
	Val args[3];

	if (!cond || !a || !b)
		return 0;
	args[0] = cond;
	args[1] = a;
	args[2] = b;
	return emit1(c, OP_WHERE, args, 3, loc, "slice");
}

/* An int32 index or slice bound. */
static Val
sliceint(Ctx *c, Node *n)
{
	Val v = indexval(c, n);

	if (v && vty(c->f, v).s != S_I32) {
		serr(c, n->loc, "array slice bounds and indices must be int32, not %s", wptypename(c->m, vty(c->f, v)));
		return 0;
	}
	return v;
}

/* Warp's slice_adjust_indices and slice_get_length (native/builtin.h)
 * for bounds b[0..2] (NULL: omitted) against a dimension of length len:
 * the first index and the length of the selection, the step in *step. */
static bool
sliceadjust(Ctx *c, Node *ix, Val len, Val *first, Val *n, Val *step)
{
	Node *pp[3] = {ix->a, ix->b, ix->c};
	Val b[3] = {0, 0, 0}, zero = cint(c->m, c->f, S_I32, 0), one = cint(c->m, c->f, S_I32, 1);
	Val neg, pos, ends[2], absstep, d, up, down;
	Loc loc = ix->loc;
	int k;

	for (k = 0; k < 3; k++)
		if (pp[k] && !(b[k] = sliceint(c, pp[k])))
			return false;
	*step = b[2] ? b[2] : one;
	if (isconst(c->f, *step) && val(c->f, *step)->c[0].i == 0) {
		serr(c, pp[2]->loc, "Slice step cannot be zero.");
		return false;
	}
	neg = i32op(c, OP_LT, *step, zero, loc);
	pos = i32op(c, OP_GT, *step, zero, loc);
	for (k = 0; k < 2; k++) {
		if (!b[k]) {
			/* start: step < 0 ? len - 1 : 0; stop: step < 0 ? -1 : len */
			ends[k] = k == 0 ? i32where(c, neg, i32op(c, OP_SUB, len, one, loc), zero, loc)
			                 : i32where(c, neg, cint(c->m, c->f, S_I32, -1), len, loc);
		} else {
			Val t = i32op(c, OP_MIN, i32op(c, OP_MAX, b[k], i32op(c, OP_SUB, zero, len, loc), loc), len, loc);
			ends[k] = i32where(c, i32op(c, OP_LT, t, zero, loc), i32op(c, OP_ADD, t, len, loc), t, loc);
		}
	}
	absstep = i32where(c, neg, i32op(c, OP_SUB, zero, *step, loc), *step, loc);
	d = i32op(c, OP_MAX, absstep, one, loc);
	/* 1 + (stop - start - 1) / step, or 1 + (start - stop - 1) / -step, or 0 */
	up = i32op(c, OP_ADD, one, i32op(c, OP_DIV, i32op(c, OP_SUB, i32op(c, OP_SUB, ends[1], ends[0], loc), one, loc), d,
	                                 loc), loc);
	down = i32op(c, OP_ADD, one, i32op(c, OP_DIV, i32op(c, OP_SUB, i32op(c, OP_SUB, ends[0], ends[1], loc), one, loc),
	                                   d, loc), loc);
	up = i32where(c, i32op(c, OP_AND, pos, i32op(c, OP_LT, ends[0], ends[1], loc), loc), up, zero, loc);
	*n = i32where(c, i32op(c, OP_AND, neg, i32op(c, OP_GT, ends[0], ends[1], loc), loc), down, up, loc);
	*first = ends[0];
	return *n != 0;
}

/* The view of array arr before any index: every dimension whole. */
ASlice *
wholeview(Ctx *c, Val arr, Loc loc)
{
	ASlice *s = aalloc(c->tmp, sizeof *s);
	int d;

	memset(s, 0, sizeof *s);
	s->base = arr;
	s->nbase = s->nd = vty(c->f, arr).nd;
	for (d = 0; d < s->nd; d++) {
		Op *op = emitop(c, OP_SHAPE, &arr, 1, d, tvoid(), loc, "shape");
		if (!op)
			return NULL;
		s->first[d] = cint(c->m, c->f, S_I32, 0);
		s->step[d] = cint(c->m, c->f, S_I32, 1);
		s->len[d] = op->res[0];
		s->dim[d] = d;
	}
	return s;
}

bool
hasslice(Node *e)
{
	uint32_t i;

	for (i = 0; i < e->l1.n; i++)
		if (e->l1.v[i]->kind == E_SLICE)
			return true;
	return false;
}

/* The base indices of element e->l1 (integers, one per view dimension)
 * of view s: first + k * step in each base dimension.  As in Warp, an
 * element's indices are not wrapped when negative. */
static bool
sliceelem(Ctx *c, Node *e, const ASlice *s, Val *idx)
{
	int b, d;
	Val k[MAXDIM];

	if ((int)e->l1.n != s->nd || hasslice(e)) {
		serr(c, e->loc, "index a %d-dimensional array slice with %d integers", s->nd, s->nd);
		return false;
	}
	for (d = 0; d < s->nd; d++)
		if (!(k[d] = sliceint(c, e->l1.v[d])))
			return false;
	for (b = 0; b < s->nbase; b++)
		idx[b] = s->first[b];
	for (d = 0; d < s->nd; d++) {
		b = s->dim[d];
		idx[b] = i32op(c, OP_ADD, s->first[b], i32op(c, OP_MUL, k[d], s->step[b], e->loc), e->loc);
		if (!idx[b])
			return false;
	}
	return true;
}

/* e (its indices: integers and slices) applied to view s: an element
 * (a load) when it gives an integer for every dimension, else a new view.
 * As in Warp's view(), integer indices of a view are wrapped when
 * negative; slice dimensions come first, then the dimensions not indexed. */
static X
sliceview(Ctx *c, Node *e, const ASlice *s, Val *elemidx)
{
	ASlice *r;
	X x = xnone();
	int d, nd = 0;

	if (!hasslice(e) && (int)e->l1.n == s->nd) {
		Val a[MAXDIM + 1];
		Op *op;
		if (elemidx) {
			/* the element's place, for a store */
			if (!sliceelem(c, e, s, elemidx))
				return xnone();
			return pending();
		}
		if (!sliceelem(c, e, s, a + 1))
			return xnone();
		a[0] = s->base;
		op = emitop(c, OP_LOAD, a, s->nbase + 1, 0, tvoid(), e->loc, "array index");
		return op ? xval(op->res[0]) : xnone();
	}
	if ((int)e->l1.n > s->nd) {
		serr(c, e->loc, "too many indices for a %d-dimensional array", s->nd);
		return xnone();
	}
	r = aalloc(c->tmp, sizeof *r);
	*r = *s;
	for (d = 0; d < (int)e->l1.n; d++) {
		Node *ix = e->l1.v[d];
		int b = s->dim[d];
		Val first, n, step;
		if (ix->kind == E_SLICE) {
			if (!sliceadjust(c, ix, s->len[d], &first, &n, &step))
				return xnone();
			r->len[nd] = n;
			r->dim[nd++] = b;
		} else {
			if (!(first = sliceint(c, ix)))
				return xnone();
			first = i32where(c, i32op(c, OP_LT, first, cint(c->m, c->f, S_I32, 0), ix->loc),
			                 i32op(c, OP_ADD, first, s->len[d], ix->loc), first, ix->loc);
			step = cint(c->m, c->f, S_I32, 0);
		}
		r->first[b] = i32op(c, OP_ADD, s->first[b], i32op(c, OP_MUL, first, s->step[b], ix->loc), ix->loc);
		r->step[b] = ix->kind == E_SLICE ? i32op(c, OP_MUL, s->step[b], step, ix->loc) : step;
		if (!r->first[b] || !r->step[b])
			return xnone();
	}
	for (; d < s->nd; d++) {
		r->len[nd] = s->len[d];
		r->dim[nd++] = s->dim[d];
	}
	r->nd = nd;
	x.k = X_G;
	x.g.kind = G_SLICE;
	x.g.sl = r;
	x.loc = e->loc;
	return x;
}

/* The index groups g[0..n) as one subscript (a[1:3][i] is a[1:3, i]). */
static Node *
joined(Ctx *c, Node **g, int n)
{
	Node *j;
	int k, i = 0;
	uint32_t total = 0;

	if (n == 1)
		return g[0];
	for (k = 0; k < n; k++)
		total += g[k]->l1.n;
	j = aalloc(c->tmp, sizeof *j);
	*j = *g[n - 1];
	j->l1.v = aalloc(c->tmp, (total + 1) * sizeof *j->l1.v);
	j->l1.n = j->l1.cap = total;
	for (k = 0; k < n; k++) {
		uint32_t q;
		for (q = 0; q < g[k]->l1.n; q++)
			j->l1.v[i++] = g[k]->l1.v[q];
	}
	j->tcomma = true;
	return j;
}

/* Chained subscripts g[0..m) (innermost first) of view s, grouped as
 * Warp's recurse_subscript (codegen.py) does: while more indices remain
 * than the view has dimensions, its first ndim indices (which must end a
 * group) index it; the rest index the result together, so a2d[1:3][0] is
 * a2d[1:3, 0].  Stops at an element (a value, or with elemidx its base
 * indices: pending()); *used: the groups consumed. */
X
viewgroups(Ctx *c, const ASlice *s, Node **g, int m, int *used, Val *elemidx)
{
	int k = 0;
	X x = xnone();

	while (k < m) {
		int total = 0, acc = 0, h;
		for (h = k; h < m; h++)
			total += (int)g[h]->l1.n;
		h = m;
		if (total > s->nd) {
			for (h = k; h < m; h++) {
				acc += (int)g[h]->l1.n;
				if (acc >= s->nd)
					break;
			}
			if (acc > s->nd) {
				serr(c, g[h]->loc, "Incorrect number of indices specified for array indexing, got %d indices "
				     "for a %d dimensional array.", acc, s->nd);
				return xnone();
			}
			h++;
		}
		x = sliceview(c, joined(c, g + k, h - k), s, elemidx);
		k = h;
		if (x.k != X_G)
			break;
		s = x.g.sl;
	}
	*used = k;
	return x;
}

/* e, a chain of subscripts over an array or array view with a slice in
 * it, or over a local bound to a view: its value (true); false when it is
 * not one (a vector's slice), compiled as usual. */
static bool
slicechain(Ctx *c, Node *e, X *out)
{
	Node *g[64], *root = e;
	int m = 0, k, used;
	bool sl = false, isview;
	Bind *bd;
	ASlice *s;
	X b, x;

	while (root->kind == E_SUBSCRIPT && m < 64) {
		sl = sl || hasslice(root);
		g[m++] = root;
		root = root->a;
	}
	bd = root->kind == E_NAME ? envfind(&c->env, root->s) : NULL;
	isview = bd && bd->fn && bd->fn->kind == G_SLICE;
	if ((!sl && !isview) || (root->kind != E_NAME && root->kind != E_ATTR))
		return false;
	b = expr(c, root); /* a name or a field: evaluating it again is harmless */
	if (b.k == X_NONE) {
		*out = xnone();
		return true;
	}
	if (b.k == X_G && b.g.kind == G_SLICE && b.g.n == 0)
		s = b.g.sl;
	else if (b.k == X_VAL && vty(c->f, b.v).k == T_ARRAY)
		s = wholeview(c, b.v, root->loc);
	else
		return false;
	if (!s) {
		*out = xnone();
		return true;
	}
	for (k = 0; k < m / 2; k++) {
		Node *t = g[k];
		g[k] = g[m - 1 - k];
		g[m - 1 - k] = t;
	}
	x = viewgroups(c, s, g, m, &used, NULL);
	if (x.k == X_VAL && used < m)
		x = compsub(c, joined(c, g + used, m - used), x.v);
	*out = x;
	return true;
}

/* A constant integer slice component (Warp's eval_const_slice_component). */
static bool
sliceconst(Ctx *c, Node *n, int64_t *v)
{
	X x = expr(c, n);

	if (x.k == X_NONE)
		return false;
	if (x.k != X_VAL || !x.wconst || x.hasrange || !isconst(c->f, x.v)) {
		serr(c, n->loc, "Slice component must be a compile-time constant.");
		return false;
	}
	if (!isint(vty(c->f, x.v))) {
		serr(c, n->loc, "Slice component must be an integer.");
		return false;
	}
	*v = val(c->f, x.v)->c[0].i;
	return true;
}

int
starredslice(Ctx *c, Node *n, X *out, int max)
{
	Node *ix;
	X b;
	Type t;
	int64_t bnd[3] = {0, 0, 1}, k;
	int cnt = 0;

	if (n->kind != E_SUBSCRIPT || n->l1.n != 1 || n->tcomma || n->l1.v[0]->kind != E_SLICE)
		return 0;
	ix = n->l1.v[0];
	if (n->a->kind != E_NAME && n->a->kind != E_ATTR)
		return 0;
	b = expr(c, n->a); /* a name or a field: evaluating it again is harmless */
	if (b.k != X_VAL || vty(c->f, b.v).k != T_ARRAY)
		return 0;
	t = vty(c->f, b.v);
	if (t.nd != 1) {
		serr(c, n->loc, "Starred expressions with slices are only supported for 1D arrays, got %dD array.", t.nd);
		return -1;
	}
	if ((ix->c && !sliceconst(c, ix->c, &bnd[2])) || (ix->a && !sliceconst(c, ix->a, &bnd[0])) ||
	    (ix->b && !sliceconst(c, ix->b, &bnd[1])))
		return -1;
	if (bnd[2] == 0) {
		serr(c, ix->loc, "Slice step cannot be zero.");
		return -1;
	}
	if (bnd[2] < 0 && (!ix->a || !ix->b)) {
		serr(c, ix->loc, "Reverse slices require explicit start and stop bounds when the sequence length is not "
		     "known at compile time (e.g. slicing an array).");
		return -1;
	}
	if (!ix->b) {
		serr(c, ix->loc, "Starred expression on arrays requires explicit upper bound (e.g., *array[0:3], not "
		     "*array[0:]).");
		return -1;
	}
	if (bnd[0] < 0 || bnd[1] < 0) {
		serr(c, ix->loc, "Starred expression slice bounds cannot be negative for arrays.");
		return -1;
	}
	if (bnd[2] < 0) {
		serr(c, ix->loc, "Starred expression slice step cannot be negative for arrays.");
		return -1;
	}
	for (k = bnd[0]; k < bnd[1]; k += bnd[2]) {
		Val a[2];
		Op *op;
		if (cnt == max) {
			serr(c, n->loc, "kpyc unpacks at most %d elements of an array", max);
			return -1;
		}
		a[0] = b.v;
		a[1] = cint(c->m, c->f, S_I32, k);
		if (!(op = emitop(c, OP_LOAD, a, 2, 0, tvoid(), n->loc, "array index")))
			return -1;
		out[cnt++] = xval(op->res[0]);
	}
	if (!cnt) {
		serr(c, n->loc, "Starred expression results in empty sequence.");
		return -1;
	}
	return cnt;
}

/* Extent k of an array (arr) or of a view (s, arr 0). */
static Val
extent(Ctx *c, Val arr, const ASlice *s, int k, Loc loc)
{
	Op *op;

	if (s)
		return s->len[k];
	op = emitop(c, OP_SHAPE, &arr, 1, k, tvoid(), loc, "shape");
	return op ? op->res[0] : 0;
}

/* a.shape[d] (arr) or view.shape[d] (s), e the subscript.  Warp's shape has
 * four entries, 0 past the array's dimensions.  A constant d picks one; a
 * negative constant counts from the end of an array's dimensions (Python's
 * reading: Warp reads outside its shape there); any other int d selects
 * among the four (0 where d is out of range, where Warp reads outside). */
static X
shapesub(Ctx *c, Node *e, Val arr, const ASlice *s)
{
	int nd = s ? s->nd : vty(c->f, arr).nd;
	Val r, dim, k;
	int64_t d;
	X ix;

	if (e->l1.n != 1 || e->l1.v[0]->kind == E_SLICE) {
		serr(c, e->loc, "index a shape with one integer: a.shape[0]");
		return xnone();
	}
	ix = expr(c, e->l1.v[0]);
	if (ix.k == X_NONE)
		return xnone();
	if (ix.k != X_VAL) {
		serr(c, e->l1.v[0]->loc, "a shape index must be an int32 value");
		return xnone();
	}
	if (vty(c->f, ix.v).k != T_SCALAR || vty(c->f, ix.v).s != S_I32) {
		serr(c, e->l1.v[0]->loc, "a shape index must be an int32, not %s", wptypename(c->m, vty(c->f, ix.v)));
		return xnone();
	}
	if (isconst(c->f, ix.v) && !ix.hasrange) {
		d = val(c->f, ix.v)->c[0].i;
		if (d < 0 && !s)
			d += nd;
		if (d < 0 || d >= MAXDIM) {
			serr(c, e->l1.v[0]->loc, "shape index %lld out of range (a shape has %d entries)",
			     (long long)val(c->f, ix.v)->c[0].i, MAXDIM);
			return xnone();
		}
		r = d < nd ? extent(c, arr, s, (int)d, e->loc) : cint(c->m, c->f, S_I32, 0);
		return r ? xval(r) : xnone();
	}
	r = cint(c->m, c->f, S_I32, 0);
	for (int i = nd - 1; i >= 0 && r; i--) {
		dim = extent(c, arr, s, i, e->loc);
		k = cint(c->m, c->f, S_I32, i);
		r = i32where(c, i32op(c, OP_EQ, ix.v, k, e->loc), dim, r, e->loc);
	}
	return r ? xval(r) : xnone();
}

static X
subeval(Ctx *c, Node *e, Pend *p)
{
	X b;
	Pend in;

	memset(p, 0, sizeof *p);
	if (slicechain(c, e, &b))
		return b;
	if (e->a->kind == E_SUBSCRIPT) {
		b = subeval(c, e->a, &in);
		if (b.k == X_NONE)
			return b;
		if (b.k == X_VAL && !b.v && in.arr) {
			*p = in;
			return addindices(c, e, p);
		}
		if (b.k == X_VAL && !b.v && in.mat) {
			if (e->l1.n == 1 && e->l1.v[0]->kind != E_SLICE && !e->tcomma) {
				Type t = vty(c->f, in.mat);
				Val a[3];
				Val r;
				if (!(a[2] = indexval(c, e->l1.v[0])) || !(a[2] = compindex(c, a[2], t.m, e->l1.v[0]->loc)))
					return xnone();
				a[0] = in.mat;
				a[1] = in.row;
				r = emit1(c, OP_EXTRACT, a, 3, e->loc, "component");
				return r ? xval(r) : xnone();
			}
			b = xval(materialize(c, &in, e->a->loc));
			if (!b.v)
				return xnone();
		}
	} else {
		b = expr(c, e->a);
	}
	if (b.k == X_NONE)
		return xnone();
	if (b.k == X_SHAPE)
		return shapesub(c, e, b.v, 0);
	if (b.k == X_G && b.g.kind == G_SLICE && b.g.n == 1)
		return shapesub(c, e, 0, b.g.sl);
	if (b.k == X_G) {
		serr(c, e->loc, "%s cannot be subscripted in a kernel", gdesc(&b.g));
		return xnone();
	}
	if (b.k == X_TUPLE)
		return tupleindex(c, e, b);
	if (vty(c->f, b.v).k == T_ARRAY) {
		p->arr = b.v;
		p->n = 0;
		return addindices(c, e, p);
	}
	if (vty(c->f, b.v).k == T_MAT && e->l1.n == 1 && e->l1.v[0]->kind != E_SLICE && !e->tcomma) {
		Type t = vty(c->f, b.v);
		Val r;
		if (!(r = indexval(c, e->l1.v[0])) || !(r = compindex(c, r, t.n, e->l1.v[0]->loc)))
			return xnone();
		p->mat = b.v;
		p->row = r;
		return pending();
	}
	return compsub(c, e, b.v);
}

X
subscript(Ctx *c, Node *e)
{
	Pend p;
	X x = subeval(c, e, &p);

	if (x.k == X_VAL && !x.v) {
		x.v = materialize(c, &p, e->loc);
		if (!x.v)
			return xnone();
	}
	return x;
}

static X
compsub(Ctx *c, Node *e, Val base)
{
	Type t = vty(c->f, base);
	Val a[3];
	Val r;

	if (t.k == T_VEC || t.k == T_QUAT || t.k == T_XFORM) {
		Node *ix = e->l1.v[0];
		if (e->l1.n != 1 || e->tcomma) {
			serr(c, e->loc, "a %s takes one index", wptypename(c->m, t));
			return xnone();
		}
		if (ix->kind == E_SLICE && (t.k == T_VEC || t.k == T_QUAT || t.k == T_XFORM)) {
			/* v[a:b:s] with constant bounds: a vector of those components
			 * (of a quaternion or transform too, as Warp) */
			int idx[MAXVEC], k, n;
			Val comps[MAXVEC];
			Op *op;
			if (!slicebounds(c, ix, ncomp(t), idx, &n))
				return xnone();
			for (k = 0; k < n; k++) {
				a[0] = base;
				a[1] = cint(c->m, c->f, S_I32, idx[k]);
				if (!(comps[k] = emit1(c, OP_EXTRACT, a, 2, e->loc, "component")))
					return xnone();
			}
			op = emitop(c, OP_VEC, comps, n, 0, tvec(n, t.s), e->loc, "slice");
			return op ? xval(op->res[0]) : xnone();
		}
		if (!(a[1] = indexval(c, ix)))
			return xnone();
		if (!(a[1] = compindex(c, a[1], ncomp(t), ix->loc)))
			return xnone();
		a[0] = base;
		r = emit1(c, OP_EXTRACT, a, 2, e->loc, "component");
		return r ? xval(r) : xnone();
	}
	if (t.k == T_MAT) {
		if (e->l1.n <= 2 && !e->tcomma && (e->l1.v[0]->kind == E_SLICE || (e->l1.n == 2 && e->l1.v[1]->kind == E_SLICE)))
			return matslice(c, e, base, t);
		if (e->l1.n == 2) {
			if (!(a[1] = indexval(c, e->l1.v[0])) || !(a[2] = indexval(c, e->l1.v[1])))
				return xnone();
			if (!(a[1] = compindex(c, a[1], t.n, e->l1.v[0]->loc)) || !(a[2] = compindex(c, a[2], t.m, e->l1.v[1]->loc)))
				return xnone();
			a[0] = base;
			r = emit1(c, OP_EXTRACT, a, 3, e->loc, "component");
			return r ? xval(r) : xnone();
		}
		serr(c, e->loc, "a matrix takes one or two indices");
		return xnone();
	}
	serr(c, e->loc, "'%s' object is not subscriptable", wptypename(c->m, t));
	return xnone();
}

/* Is e the function of the call being compiled, or an attribute path
 * that leads to it (NS.warp in NS.warp.tid())? */
static bool
oncalleepath(Ctx *c, Node *e)
{
	Node *p;

	for (p = c->calleepath; p; p = p->kind == E_ATTR ? p->a : NULL)
		if (p == e)
			return true;
	return false;
}

X
attribute(Ctx *c, Node *e)
{
	X b;
	Type t;
	Val a[2];
	Val r;

	if (e->a->kind == E_ATTR && e->a->a->kind == E_NAME && !envfind(&c->env, e->a->a->s)) {
		/* ENUM.MEMBER.value (a module name, not a local) */
		const Global *g = gfind(c->file, e->a->a->s);
		if (g && g->v.kind == G_ENUM && g->v.n != 2) {
			GVal v = geval(c->k, c->file, e, true);
			if (v.kind == G_CONST)
				return gvalx(c, v, e->loc, e->s);
		}
	}
	b = expr(c, e->a);
	if (b.k == X_NONE)
		return xnone();
	if (b.k == X_G) {
		GVal g = b.g, v;
		memset(&v, 0, sizeof v);
		if (g.kind == G_WARP) {
			if (strcmp(e->s, "types") == 0 || strcmp(e->s, "_src") == 0) {
				v.kind = G_WARP;
				v.s = e->s;
				return xg(v, e->loc);
			}
			v = wpname(c->k, e->s);
			return gvalx(c, v, e->loc, e->s);
		}
		if (g.kind == G_MODULE) {
			if (strcmp(g.s, "math") == 0 && (strcmp(e->s, "pi") == 0 || strcmp(e->s, "e") == 0 ||
			                                 strcmp(e->s, "tau") == 0 || strcmp(e->s, "inf") == 0)) {
				Node tmp = *e;
				v = geval(c->k, c->file, &tmp, true);
				return gvalx(c, v, e->loc, e->s);
			}
			v.kind = G_PYNAME;
			v.s = aprintf(c->k->a, "%s.%s", g.s, e->s);
			return xg(v, e->loc);
		}
		if (g.kind == G_TYPE && !specgeneric(&g.spec) && strcmp(e->s, "dtype") == 0 && g.spec.ty.k != T_STRUCT &&
		    g.spec.ty.k != T_SCALAR) {
			/* type(a).dtype, a.dtype.dtype: the element type of an array
			 * type, the scalar type of a vector or matrix type */
			memset(&v, 0, sizeof v);
			v.kind = G_TYPE;
			v.spec.ty = g.spec.ty.k == T_ARRAY ? telem(g.spec.ty) : tcomp(g.spec.ty);
			return xg(v, e->loc);
		}
		if (g.kind == G_TYPE && !g.spec.any && !g.spec.gen) {
			Node tmp = *e;
			v = geval(c->k, c->file, &tmp, true);
			if (v.kind != G_NONE)
				return gvalx(c, v, e->loc, e->s);
		}
		if (g.kind == G_SLICE && g.n == 0 && strcmp(e->s, "shape") == 0) {
			b.g.n = 1;
			return b;
		}
		if (g.kind == G_SLICE && g.n == 0 && strcmp(e->s, "ndim") == 0) {
			X x = xval(cint(c->m, c->f, S_I32, g.sl->nd));
			x.wconst = true;
			x.lit.ok = x.lit.isint = true;
			x.lit.i = g.sl->nd;
			x.lit.f = g.sl->nd;
			return x;
		}
		if (g.kind == G_SLICE) {
			serr(c, e->loc, "'%s': kpyc reads an array slice's shape and ndim only", e->s);
			return xnone();
		}
		if (g.kind == G_ENUM && g.n == 2 && !oncalleepath(c, e)) {
			serr(c, e->a->loc, "Invalid external reference type: <class 'types.SimpleNamespace'> (Warp reads "
			     "a namespace's attributes only in the function of a call)");
			return xnone();
		}
		if (g.kind == G_ENUM) {
			const Global *m = gfind(c->file, aprintf(c->tmp, "%s.%s", g.s, e->s));
			if (m)
				return gvalx(c, m->v, e->loc, e->s);
			if (g.n)
				serr(c, e->loc, "'%s.%s' is not a constant kpyc evaluates (kpyc reads the constant attributes of "
				     "a class only)", g.s, e->s);
			else
				serr(c, e->loc, "type object '%s' has no attribute '%s'", g.s, e->s);
			return xnone();
		}
		serr(c, e->loc, "'%s' is not an attribute kpyc knows of %s", e->s, gdesc(&g));
		return xnone();
	}
	if (b.k != X_VAL) {
		serr(c, e->loc, "'%s' is not an attribute of this expression", e->s);
		return xnone();
	}
	t = vty(c->f, b.v);
	if ((t.k == T_VEC && t.n <= 4) || t.k == T_QUAT) {
		const char *sw = "xyzw", *p;
		if (strlen(e->s) == 1 && (p = strchr(sw, e->s[0])) && p - sw < ncomp(t)) {
			a[0] = b.v;
			a[1] = cint(c->m, c->f, S_I32, p - sw);
			r = emit1(c, OP_EXTRACT, a, 2, e->loc, "component");
			return r ? xval(r) : xnone();
		}
	}
	if (t.k == T_XFORM && (strcmp(e->s, "p") == 0 || strcmp(e->s, "q") == 0)) {
		r = emit1(c, e->s[0] == 'p' ? OP_TRANSFORM_GET_TRANSLATION : OP_TRANSFORM_GET_ROTATION, &b.v, 1, e->loc,
		          "transform");
		return r ? xval(r) : xnone();
	}
	if (t.k == T_STRUCT) {
		int fi = fieldindex(c->m, t.sid, kirident(c->tmp, e->s));
		Op *op;
		if (fi < 0) {
			serr(c, e->oploc, "struct %s has no field '%s'", c->m->structs[t.sid].name, e->s);
			return xnone();
		}
		op = emitop(c, OP_FIELD, &b.v, 1, fi, tvoid(), e->loc, "field");
		return op ? xval(op->res[0]) : xnone();
	}
	if (t.k == T_ARRAY) {
		if (strcmp(e->s, "shape") == 0) {
			X x = xnone();
			x.k = X_SHAPE;
			x.v = b.v;
			return x;
		}
		if (strcmp(e->s, "dtype") == 0) {
			/* a.dtype(x): the element type */
			X x = xnone();
			x.k = X_G;
			x.g.kind = G_TYPE;
			x.g.spec.ty = telem(t);
			x.loc = e->loc;
			return x;
		}
		if (strcmp(e->s, "ndim") == 0) {
			X x = xval(cint(c->m, c->f, S_I32, t.nd));
			x.wconst = true;
			x.lit.ok = x.lit.isint = true;
			x.lit.i = t.nd;
			x.lit.f = t.nd;
			return x;
		}
		serr(c, e->oploc, "array attribute '%s' is not supported in kernels (only a.shape[i], a.ndim, a.dtype)",
		     e->s);
		return xnone();
	}
	if ((t.k == T_VEC || t.k == T_MAT || t.k == T_QUAT || t.k == T_XFORM || t.k == T_SCALAR) &&
	    (strcmp(e->s, "length") == 0 || strcmp(e->s, "dtype") == 0)) {
		/* Warp's resolve_type_attribute on a value's type: v.length is
		 * its component count (a matrix's rows * cols), v.dtype its
		 * scalar type */
		X x = xnone();
		if (e->s[0] == 'd') {
			x.k = X_G;
			x.g.kind = G_TYPE;
			x.g.spec.ty = tcomp(t);
			x.loc = e->loc;
			return x;
		}
		x = xval(cint(c->m, c->f, S_I32, ncomp(t)));
		x.wconst = true;
		x.lit.ok = x.lit.isint = true;
		x.lit.i = ncomp(t);
		x.lit.f = ncomp(t);
		return x;
	}
	serr(c, e->oploc, "Error, `%s` is not an attribute of '%s' (%s)", e->s,
	     e->a->kind == E_NAME ? e->a->s : "expression", wptypename(c->m, t));
	return xnone();
}
