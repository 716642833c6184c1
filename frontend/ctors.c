/*
 * ctors.c — constructors and casts: calls of type names (wp.vec3(...),
 * wp.mat22(...), wp.quat(...), wp.transform(...), wp.spatial_vector(...),
 * struct types S()) and casts (float(x), wp.int64(x), wp.vec3d(v)), with
 * constant arguments converted at their full Python precision, and the
 * generic constructors vector, matrix, quaternion, transformation.
 */
#include <string.h>

#include "ast.h"

/* ---- constructors and casts ----------------------------------------- */

/* One scalar argument converted to scalar kind s for a constructor:
 * constants convert (Warp casts them at full precision), variables must
 * already have the type. */
static Val
ctorscalar(Ctx *c, X *x, Loc loc, int s, const char *msg)
{
	Val v;
	Type t;

	if (!(v = xvalue(c, *x, loc)))
		return 0;
	t = vty(c->f, v);
	if (t.k == T_SCALAR && t.s == s)
		return v;
	if (t.k == T_SCALAR && x->wconst) {
		if (x->lit.ok)
			return cscalar(c->m, c->f, tscalar(s), litscal(x->lit, s));
		return emitcast(c, v, tscalar(s), loc);
	}
	serr(c, loc, "%s", msg);
	return 0;
}

X
opx(Op *op)
{
	/* (only single-result and void ops come here) */
	if (!op)
		return xnone();
	if (op->nres == 1)
		return xval(op->res[0]);
	if (op->nres == 0)
		return void_x();
	return xnone();
}

X
castx(Ctx *c, Type t, Args *a, Loc loc, const char *name)
{
	X *x;
	Val v;
	Type at;

	if (!nokw(c, a, name))
		return xnone();
	if (a->n == 0) {
		X r = xval(czero(c->m, c->f, t));
		r.wconst = true;
		return r;
	}
	if (a->n != 1) {
		serr(c, loc, "%s() takes one argument", name);
		return xnone();
	}
	x = &a->pos[0];
	if (!(v = xvalue(c, *x, a->ploc[0])))
		return xnone();
	at = vty(c->f, v);
	if (at.k != T_SCALAR) {
		serr(c, loc, "Couldn't find function overload for '%s' that matched inputs with types: [%s]", name,
		     wptypename(c->m, at));
		return xnone();
	}
	if (isconst(c->f, v)) {
		/* A conversion of a constant is a constant, but not one Warp treats
		 * as compile-time (x = float(0.0) is its idiom for a variable).
		 * 64-bit types take the Python value at full precision, as Warp's
		 * "constant precision preservation" does; other types convert the
		 * 32-bit constant, as Warp's C++ does. */
		X r;
		if ((t.s == S_F64 || t.s == S_I64 || t.s == S_U64) && x->wconst && x->lit.ok)
			r = xval(cscalar(c->m, c->f, t, litscal(x->lit, t.s)));
		else
			r = xval(emitcast(c, v, t, loc));
		return r;
	}
	{
		Op *op = emitop(c, OP_CAST, &v, 1, 0, t, loc, name);
		return opx(op);
	}
}

static X
vectorx(Ctx *c, Type t, Args *a, Loc loc)
{
	Val *v;
	int i;
	char msg[160];
	Op *op;

	if (a->n == 0) {
		op = emitop(c, OP_ZERO, NULL, 0, 0, t, loc, "vector");
		return opx(op);
	}
	if (a->n == 1 && a->pos[0].k == X_VAL && vty(c->f, a->pos[0].v).k == T_VEC) {
		Type at = vty(c->f, a->pos[0].v);
		if (at.n != t.n) {
			serr(c, loc, "incompatible vector of length %d given when copy constructing a vector of length %d",
			     t.n, at.n);
			return xnone();
		}
		op = emitop(c, OP_CAST, &a->pos[0].v, 1, 0, t, loc, "vector conversion");
		return opx(op);
	}
	if (t.n == 6 && t.s == S_F32 && a->n == 2 && a->pos[0].k == X_VAL && a->pos[1].k == X_VAL &&
	    typeeq(vty(c->f, a->pos[0].v), tvec(3, t.s)) && typeeq(vty(c->f, a->pos[1].v), tvec(3, t.s))) {
		/* spatial_vector(w, v): Warp has it for float32 only */
		Val wv[2] = {a->pos[0].v, a->pos[1].v};
		op = emitop(c, OP_VEC, wv, 2, 0, t, loc, "spatial vector");
		return opx(op);
	}
	if (a->n != 1 && a->n != t.n) {
		serr(c, loc, "incompatible number of values given (%d) when constructing a vector of length %d", a->n, t.n);
		return xnone();
	}
	v = aalloc(c->tmp, (size_t)a->n * sizeof *v);
	if (a->n == 1)
		snprintf(msg, sizeof msg, "the value used to fill this vector is expected to be of the type `%s`",
		         wptypename(c->m, tcomp(t)));
	else
		snprintf(msg, sizeof msg, "all values used to initialize this vector are expected to be of the type `%s`",
		         wptypename(c->m, tcomp(t)));
	for (i = 0; i < a->n; i++)
		if (!(v[i] = ctorscalar(c, &a->pos[i], a->ploc[i], t.s, msg)))
			return xnone();
	op = emitop(c, OP_VEC, v, a->n, 0, t, loc, "vector");
	return opx(op);
}

static X
matrixx(Ctx *c, Type t, Args *a, Loc loc)
{
	Val *v;
	int i;
	char msg[160];
	Op *op;

	if (a->n == 0) {
		op = emitop(c, OP_ZERO, NULL, 0, 0, t, loc, "matrix");
		return opx(op);
	}
	if (a->n == 1 && a->pos[0].k == X_VAL && vty(c->f, a->pos[0].v).k == T_MAT) {
		Type at = vty(c->f, a->pos[0].v);
		if (at.n != t.n || at.m != t.m) {
			serr(c, loc, "incompatible matrix of shape (%d, %d) given when copy constructing a matrix of shape (%d, %d)",
			     at.n, at.m, t.n, t.m);
			return xnone();
		}
		op = emitop(c, OP_CAST, &a->pos[0].v, 1, 0, t, loc, "matrix conversion");
		return opx(op);
	}
	for (i = 0; i < a->n; i++)
		if (a->pos[i].k == X_VAL && vty(c->f, a->pos[i].v).k == T_VEC && !a->starred) {
			serr(c, loc, "Passing vectors to `wp.matrix()` isn't supported, use `wp.matrix_from_rows()` or "
			     "`wp.matrix_from_cols()` instead.");
			return xnone();
		}
	if (a->n != 1 && a->n != t.n * t.m) {
		serr(c, loc, "incompatible number of values given (%d) when constructing a matrix of shape (%d, %d)", a->n,
		     t.n, t.m);
		return xnone();
	}
	v = aalloc(c->tmp, (size_t)a->n * sizeof *v);
	snprintf(msg, sizeof msg, "all values used to initialize this matrix are expected to be of the type `%s`",
	         wptypename(c->m, tcomp(t)));
	for (i = 0; i < a->n; i++)
		if (!(v[i] = ctorscalar(c, &a->pos[i], a->ploc[i], t.s, msg)))
			return xnone();
	op = emitop(c, OP_MAT, v, a->n, 0, t, loc, "matrix");
	return opx(op);
}

static X
quatx(Ctx *c, Type t, Args *a, Loc loc)
{
	Val v[4];
	int i;
	char msg[160];
	Op *op;

	snprintf(msg, sizeof msg, "all values used to initialize this quaternion are expected to be of the type `%s`",
	         wptypename(c->m, tcomp(t)));
	if (a->n == 0) {
		op = emitop(c, OP_ZERO, NULL, 0, 0, t, loc, "quaternion");
		return opx(op);
	}
	if (a->n == 1 && a->pos[0].k == X_VAL && vty(c->f, a->pos[0].v).k == T_QUAT) {
		op = emitop(c, OP_CAST, &a->pos[0].v, 1, 0, t, loc, "quaternion conversion");
		return opx(op);
	}
	if (a->n == 2 && a->pos[0].k == X_VAL && vty(c->f, a->pos[0].v).k == T_VEC) {
		if (!typeeq(vty(c->f, a->pos[0].v), tvec(3, t.s))) {
			serr(c, loc, "%s", msg);
			return xnone();
		}
		v[0] = a->pos[0].v;
		if (!(v[1] = ctorscalar(c, &a->pos[1], a->ploc[1], t.s, msg)))
			return xnone();
		op = emitop(c, OP_QUAT, v, 2, 0, t, loc, "quaternion");
		return opx(op);
	}
	if (a->n != 4) {
		serr(c, loc, "a quaternion takes 4 components, a (vec3, real) pair, a quaternion or nothing");
		return xnone();
	}
	for (i = 0; i < 4; i++)
		if (!(v[i] = ctorscalar(c, &a->pos[i], a->ploc[i], t.s, msg)))
			return xnone();
	op = emitop(c, OP_QUAT, v, 4, 0, t, loc, "quaternion");
	return opx(op);
}

static X
transformx(Ctx *c, Type t, Args *a, Loc loc)
{
	Val v[7];
	int i;
	char msg[160];
	Op *op;
	X *p = a->n >= 1 ? &a->pos[0] : kwget(a, "p"), *q = a->n >= 2 ? &a->pos[1] : kwget(a, "q");

	snprintf(msg, sizeof msg, "all values used to initialize this transform are expected to be of the type `%s`",
	         wptypename(c->m, tcomp(t)));
	if (a->n == 0 && !p) {
		op = emitop(c, OP_ZERO, NULL, 0, 0, t, loc, "transform");
		return opx(op);
	}
	if (a->n == 1 && p->k == X_VAL && vty(c->f, p->v).k == T_XFORM) {
		if (vty(c->f, p->v).s != t.s) {
			/* Warp 1.19 copies transforms only to the same dtype */
			serr(c, loc, "copy constructing a transform requires matching source and target dtypes, got `%s` and `%s`",
			     wptypename(c->m, tcomp(vty(c->f, p->v))), wptypename(c->m, tcomp(t)));
			return xnone();
		}
		op = emitop(c, OP_CAST, &p->v, 1, 0, t, loc, "transform conversion");
		return opx(op);
	}
	if (p && p->k == X_VAL && vty(c->f, p->v).k == T_VEC && a->n <= 2) {
		if (!typeeq(vty(c->f, p->v), tvec(3, t.s))) {
			serr(c, loc, "%s", msg);
			return xnone();
		}
		v[0] = p->v;
		if (q) {
			if (!(v[1] = xvalue(c, *q, loc)))
				return xnone();
		} else {
			Op *id = emitop(c, OP_QUAT_IDENTITY, NULL, 0, 0, tquat(t.s), loc, "transform");
			if (!id)
				return xnone();
			v[1] = id->res[0];
		}
		op = emitop(c, OP_TRANSFORM, v, 2, 0, t, loc, "transform");
		return opx(op);
	}
	if (a->n != 7 && a->n != 1) {
		serr(c, loc, "a transform takes (p, q), (p), 7 components, one value to fill it with, or nothing");
		return xnone();
	}
	for (i = 0; i < 7; i++)
		if (!(v[i] = ctorscalar(c, &a->pos[a->n == 1 ? 0 : i], a->ploc[a->n == 1 ? 0 : i], t.s, msg)))
			return xnone();
	op = emitop(c, OP_TRANSFORM, v, 7, 0, t, loc, "transform");
	return opx(op);
}

/* S(...): fields by position or by name; the others are zero. */
static X
structx(Ctx *c, Type t, Args *a, Loc loc)
{
	const StructDef *sd = &c->m->structs[t.sid];
	Op *op = emitop(c, OP_ZERO, NULL, 0, 0, t, loc, "struct");
	Val v, args[2];
	int i, j;

	if (!op)
		return xnone();
	v = op->res[0];
	if ((uint32_t)a->n > sd->nfields) {
		serr(c, loc, "struct %s has %u fields, %d values given", sd->name, sd->nfields, a->n);
		return xnone();
	}
	for (i = 0; i < a->n + a->nk; i++) {
		X *x = i < a->n ? &a->pos[i] : &a->kx[i - a->n];
		Loc l = i < a->n ? a->ploc[i] : a->kloc[i - a->n];
		Type ft;
		j = i < a->n ? i : fieldindex(c->m, t.sid, kirident(c->tmp, a->kw[i - a->n]));
		if (j < 0) {
			serr(c, l, "struct %s has no field '%s'", sd->name, a->kw[i - a->n]);
			return xnone();
		}
		ft = sd->fields[j].ty;
		if (!(args[1] = xvalue(c, *x, l)))
			return xnone();
		if (!typeeq(vty(c->f, args[1]), ft)) {
			if (x->wconst && x->lit.ok && ft.k == T_SCALAR && vty(c->f, args[1]).k == T_SCALAR) {
				args[1] = cscalar(c->m, c->f, ft, litscal(x->lit, ft.s));
			} else {
				serr(c, l, "struct field `%s` is %s, not %s", sd->fields[j].name, wptypename(c->m, ft),
				     wptypename(c->m, vty(c->f, args[1])));
				return xnone();
			}
		}
		args[0] = v;
		op = emitop(c, OP_SETFIELD, args, 2, j, tvoid(), loc, "struct");
		if (!op)
			return xnone();
		v = op->res[0];
	}
	return xval(v);
}

/* An int constant x equal to n. */
static bool
xisint(Ctx *c, X x, int64_t n)
{
	return x.k == X_VAL && isconst(c->f, x.v) && vty(c->f, x.v).k == T_SCALAR && isint(vty(c->f, x.v)) &&
	       val(c->f, x.v)->c[0].i == n;
}

/* The template keywords of a concrete vector, matrix or quaternion type's
 * constructor (mat32d(c, shape=(3, 2), dtype=wp.float64)): Warp accepts
 * length=, shape= and dtype= when they are the type's own (dtype: that
 * Warp scalar type, not Python's float) and drops them; another value is
 * its "extraneous parameter" error, another keyword "unexpected". */
static bool
templatekw(Ctx *c, Type t, Args *a)
{
	static const char *const tname[] = {[T_VEC] = "vec_t", [T_MAT] = "mat_t", [T_QUAT] = "quat_t"};
	int i;

	for (i = 0; i < a->nk; i++) {
		const char *kw = a->kw[i];
		X x = a->kx[i];
		bool ok;
		if (strcmp(kw, "dtype") == 0)
			ok = x.k == X_G && x.g.kind == G_TYPE && !specgeneric(&x.g.spec) && typeeq(x.g.spec.ty, tscalar(tcomp(t).s));
		else if (strcmp(kw, "length") == 0 && t.k == T_VEC)
			ok = xisint(c, x, t.n);
		else if (strcmp(kw, "shape") == 0 && t.k == T_MAT)
			ok = x.k == X_TUPLE && x.n == 2 && xisint(c, x.elts[0], t.n) && xisint(c, x.elts[1], t.m);
		else {
			serr(c, a->kloc[i], "got an unexpected keyword argument '%s'", kw);
			return false;
		}
		if (!ok) {
			serr(c, a->kloc[i], "Remove the extraneous `%s` parameter when calling the templated version of "
			     "`wp.%s()`", kw, tname[t.k]);
			return false;
		}
	}
	a->nk = 0;
	return true;
}

/* A constructor or cast of type t (a wp.<type>, float, int, bool, S). */
X
construct(Ctx *c, Type t, Args *a, Loc loc, const char *name)
{
	switch (t.k) {
	case T_SCALAR:
		return castx(c, t, a, loc, name);
	case T_VEC:
		if (!templatekw(c, t, a))
			return xnone();
		return vectorx(c, t, a, loc);
	case T_MAT:
		if (!templatekw(c, t, a))
			return xnone();
		return matrixx(c, t, a, loc);
	case T_QUAT:
		if (!templatekw(c, t, a))
			return xnone();
		return quatx(c, t, a, loc);
	case T_XFORM:
		return transformx(c, t, a, loc);
	case T_STRUCT:
		return structx(c, t, a, loc);
	case T_ARRAY:
		serr(c, loc, "arrays cannot be created in kernels");
		return xnone();
	}
	serr(c, loc, "not a constructible type");
	return xnone();
}

/* wp.vector / wp.matrix / wp.quaternion / wp.transformation with dtype=,
 * length=, shape= */
X
factory(Ctx *c, const char *w, Args *a, Loc loc)
{
	X *dt = kwget(a, "dtype");
	Type st = tvoid(), t;
	int i;
	Args b = *a;

	if (dt && !typearg(c, dt, loc, &st))
		return xnone();
	if (dt && st.k != T_SCALAR) {
		serr(c, loc, "dtype must be a scalar type");
		return xnone();
	}
	if (st.k == T_VOID) {
		/* the dtype of the first scalar argument, else float32 */
		st = tscalar(S_F32);
		for (i = 0; i < a->n; i++)
			if (a->pos[i].k == X_VAL && !a->pos[i].wconst) {
				st = tcomp(vty(c->f, a->pos[i].v));
				break;
			}
		if (i == a->n && a->n > 0 && a->pos[0].k == X_VAL)
			st = tcomp(vty(c->f, a->pos[0].v));
	}
	/* drop the keywords the factory consumed */
	b.nk = 0;
	b.kw = aalloc(c->tmp, (size_t)(a->nk + 1) * sizeof *b.kw);
	b.kx = aalloc(c->tmp, (size_t)(a->nk + 1) * sizeof *b.kx);
	b.kloc = aalloc(c->tmp, (size_t)(a->nk + 1) * sizeof *b.kloc);
	for (i = 0; i < a->nk; i++)
		if (strcmp(a->kw[i], "dtype") != 0 && strcmp(a->kw[i], "length") != 0 && strcmp(a->kw[i], "shape") != 0) {
			b.kw[b.nk] = a->kw[i];
			b.kx[b.nk] = a->kx[i];
			b.kloc[b.nk++] = a->kloc[i];
		}
	if (strcmp(w, "vector") == 0) {
		X *ln = kwget(a, "length");
		int64_t n = a->n;
		/* by value without dtype: Warp infers it only from values of one
		 * scalar type (literals are float32 and int32) */
		for (i = 1; !dt && i < a->n; i++)
			if (a->pos[0].k == X_VAL && a->pos[i].k == X_VAL &&
			    tcomp(vty(c->f, a->pos[i].v)).s != tcomp(vty(c->f, a->pos[0].v)).s) {
				serr(c, loc, "all values given when constructing a vector must have the same type");
				return xnone();
			}
		if (a->n == 1 && a->pos[0].k == X_VAL && vty(c->f, a->pos[0].v).k == T_VEC)
			n = vty(c->f, a->pos[0].v).n;
		if (ln && !intarg(c, ln, loc, &n))
			return xnone();
		if (n < 1 || n > MAXVEC) {
			serr(c, loc, "the `length` argument must be specified when zero-initializing a vector");
			return xnone();
		}
		t = tvec((int)n, st.s);
		return construct(c, t, &b, loc, "vector");
	}
	if (strcmp(w, "matrix") == 0) {
		X *sh = kwget(a, "shape");
		int64_t r, cc;
		if (a->n == 3 && !sh && a->pos[0].k == X_VAL && vty(c->f, a->pos[0].v).k == T_VEC) {
			/* matrix(pos, rot, scale): a 4x4 transform matrix */
			Val *v = argvals(c, a);
			return v ? opx(emitop(c, OP_TRANSFORM_COMPOSE, v, 3, 0, tvoid(), loc, "matrix(pos, rot, scale)"))
			         : xnone();
		}
		if (a->n == 1 && a->pos[0].k == X_VAL && vty(c->f, a->pos[0].v).k == T_MAT && !sh) {
			Type at = vty(c->f, a->pos[0].v);
			return construct(c, tmat(at.n, at.m, st.s), &b, loc, "matrix");
		}
		if (!sh || sh->k != X_TUPLE || sh->n != 2 || !intarg(c, &sh->elts[0], loc, &r) ||
		    !intarg(c, &sh->elts[1], loc, &cc) || r < 1 || cc < 1 || r > MAXVEC || cc > MAXVEC) {
			serr(c, loc, "the `shape` argument must be specified when initializing a matrix by value");
			return xnone();
		}
		return construct(c, tmat((int)r, (int)cc, st.s), &b, loc, "matrix");
	}
	if (!scalarisfloat(st.s)) {
		serr(c, loc, "a %s needs a float dtype", w);
		return xnone();
	}
	if (strcmp(w, "quaternion") == 0)
		return construct(c, tquat(st.s), &b, loc, "quaternion");
	return construct(c, txform(st.s), &b, loc, "transformation");
}
