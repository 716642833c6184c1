/*
 * store.c — stores to subscripts and attributes: a[i] = v, v.x = s,
 * m[i, j] += s and their chains through structs, vectors and matrices,
 * with Warp's atomic updates of arrays.
 */
#include <string.h>

#include "ast.h"

/* ---- stores to subscripts and attributes ---------------------------- */

/* One step of a store path below its base: a component index, a struct
 * field or a transform's p/q. */
typedef struct Step {
	int kind;        /* 'i' index, 'f' field, 'p' or 'q' transform part */
	Val idx[2];
	int nidx;
	int field;
	Val container;   /* the value the step reads from */
	Loc loc;
} Step;

/* Warp's element types whose in-place + and - are not atomic. */
static bool
nonatomic(Type t)
{
	int s = t.s;
	return s == S_I8 || s == S_U8 || s == S_I16 || s == S_U16; /* Warp's types.non_atomic_types */
}

/* Read the leaf of a path and apply op with rhs (an augmented assignment). */
static Val
augvalue(Ctx *c, Val cur, int op, Node *rhs, Loc loc)
{
	X r = expr(c, rhs);
	X v;

	if (r.k == X_NONE)
		return 0;
	v = binop(c, op, xval(cur), r, loc, loc);
	if (v.k != X_VAL)
		return 0;
	if (!typeeq(vty(c->f, v.v), vty(c->f, cur))) {
		serr(c, loc, "augmented assignment produces a %s where a %s is stored", wptypename(c->m, vty(c->f, v.v)),
		     wptypename(c->m, vty(c->f, cur)));
		return 0;
	}
	return v.v;
}

static Val
readstep(Ctx *c, Step *s)
{
	Val a[3];
	Op *op;

	a[0] = s->container;
	switch (s->kind) {
	case 'i':
		a[1] = s->idx[0];
		a[2] = s->idx[1];
		return emit1(c, OP_EXTRACT, a, s->nidx + 1, s->loc, "component");
	case 'f':
		op = emitop(c, OP_FIELD, a, 1, s->field, tvoid(), s->loc, "field");
		return op ? op->res[0] : 0;
	case 'p':
		return emit1(c, OP_TRANSFORM_GET_TRANSLATION, a, 1, s->loc, "transform");
	default:
		return emit1(c, OP_TRANSFORM_GET_ROTATION, a, 1, s->loc, "transform");
	}
}

static Val
writestep(Ctx *c, Step *s, Val v)
{
	Val a[4];
	Op *op;
	Type ct = vty(c->f, s->container), vt = vty(c->f, v);

	a[0] = s->container;
	switch (s->kind) {
	case 'i': {
		Type want = ct.k == T_MAT && s->nidx == 1 ? tvec(ct.m, ct.s) : tcomp(ct);
		if (!typeeq(want, vt)) {
			serr(c, s->loc, "cannot assign a %s to a component of a %s (expected %s)", wptypename(c->m, vt),
			     wptypename(c->m, ct), wptypename(c->m, want));
			return 0;
		}
		a[1] = s->idx[0];
		a[2] = s->idx[1];
		a[s->nidx + 1] = v;
		return emit1(c, OP_INSERT, a, s->nidx + 2, s->loc, "component assignment");
	}
	case 'f': {
		Type ft = c->m->structs[ct.sid].fields[s->field].ty;
		if (!typeeq(ft, vt)) {
			serr(c, s->loc, "Error, assigning to struct field `%s` (%s) with different type (%s)",
			     c->m->structs[ct.sid].fields[s->field].name, wptypename(c->m, ft), wptypename(c->m, vt));
			return 0;
		}
		a[1] = v;
		op = emitop(c, OP_SETFIELD, a, 2, s->field, tvoid(), s->loc, "field assignment");
		return op ? op->res[0] : 0;
	}
	default:
		a[1] = v;
		return emit1(c, s->kind == 'p' ? OP_TRANSFORM_SET_TRANSLATION : OP_TRANSFORM_SET_ROTATION, a, 2, s->loc,
		             "transform assignment");
	}
}

/* The step an attribute or subscript node takes from a value of type t. */
static bool
mkstep(Ctx *c, Node *n, Type t, Step *s)
{
	memset(s, 0, sizeof *s);
	s->loc = n->loc;
	if (n->kind == E_ATTR) {
		if ((t.k == T_VEC && t.n <= 4) || t.k == T_QUAT) {
			const char *sw = "xyzw", *p;
			if (strlen(n->s) == 1 && (p = strchr(sw, n->s[0])) && p - sw < ncomp(t)) {
				s->kind = 'i';
				s->nidx = 1;
				s->idx[0] = cint(c->m, c->f, S_I32, p - sw);
				return true;
			}
		}
		if (t.k == T_XFORM && (strcmp(n->s, "p") == 0 || strcmp(n->s, "q") == 0)) {
			s->kind = n->s[0];
			return true;
		}
		if (t.k == T_STRUCT) {
			int fi = fieldindex(c->m, t.sid, kirident(c->tmp, n->s));
			if (fi < 0) {
				serr(c, n->oploc, "struct %s has no field '%s'", c->m->structs[t.sid].name, n->s);
				return false;
			}
			s->kind = 'f';
			s->field = fi;
			return true;
		}
		serr(c, n->oploc, "Error, `%s` is not an attribute of %s", n->s, wptypename(c->m, t));
		return false;
	}
	/* a subscript of a composite */
	if (!iscomposite(t)) {
		serr(c, n->loc, "'%s' object does not support item assignment", wptypename(c->m, t));
		return false;
	}
	if (n->l1.n < 1 || n->l1.n > (t.k == T_MAT ? 2u : 1u)) {
		serr(c, n->loc, "wrong number of indices for a %s", wptypename(c->m, t));
		return false;
	}
	s->kind = 'i';
	s->nidx = (int)n->l1.n;
	if (!(s->idx[0] = indexval(c, n->l1.v[0])))
		return false;
	if (!(s->idx[0] = compindex(c, s->idx[0], t.k == T_MAT ? t.n : ncomp(t), n->l1.v[0]->loc)))
		return false;
	if (s->nidx == 2) {
		if (!(s->idx[1] = indexval(c, n->l1.v[1])))
			return false;
		if (!(s->idx[1] = compindex(c, s->idx[1], t.m, n->l1.v[1]->loc)))
			return false;
	}
	return true;
}

static Type
steptype(Ctx *c, Type t, const Step *s)
{
	switch (s->kind) {
	case 'i': return t.k == T_MAT && s->nidx == 1 ? tvec(t.m, t.s) : tcomp(t);
	case 'f': return c->m->structs[t.sid].fields[s->field].ty;
	case 'p': return tvec(3, t.s);
	default: return tquat(t.s);
	}
}

/* The state of a store path: a base (a local variable's value, or an
 * array element loaded only if needed) and steps below it, whose
 * containers are read on demand. */
typedef struct Path {
	Val base;            /* the base value (0: the element is not loaded yet) */
	Val arr;             /* the base is element idx of arr */
	Val idx[MAXDIM];
	int nidx;
	Step steps[64];
	int n;
	Loc loc;
} Path;

static Val
container(Ctx *c, Path *p, int k)
{
	Val a[MAXDIM + 1];

	if (p->steps[k].container)
		return p->steps[k].container;
	if (k == 0) {
		if (!p->base) {
			a[0] = p->arr;
			memcpy(a + 1, p->idx, (size_t)p->nidx * sizeof *a);
			p->base = emit1(c, OP_LOAD, a, p->nidx + 1, p->loc, "array index");
		}
		return p->steps[0].container = p->base;
	}
	if (!container(c, p, k - 1))
		return 0;
	return p->steps[k].container = readstep(c, &p->steps[k - 1]);
}

/* The current value at the end of the path. */
static Val
pathval(Ctx *c, Path *p)
{
	if (p->n == 0)
		return container(c, p, 0) ? p->base : 0; /* (n == 0 only with an element base) */
	if (!container(c, p, p->n - 1))
		return 0;
	return readstep(c, &p->steps[p->n - 1]);
}

void
storeto(Ctx *c, Node *target, X val, int augop, Node *rhs)
{
	Node *nodes[64];
	int np = 0, i;
	Node *root = target;
	Path p;
	const char *local = NULL;
	Type t;
	Val v;
	Loc loc = target->loc;
	X b;
	const ASlice *sv = NULL; /* the array view walked through */

	memset(&p, 0, sizeof p);
	p.loc = loc;
	while ((root->kind == E_SUBSCRIPT || root->kind == E_ATTR) && np < 64) {
		nodes[np++] = root;
		root = root->a;
	}
	/* the base */
	if (root->kind == E_NAME && !envfind(&c->env, root->s) && gfind(c->file, root->s)) {
		serr(c, root->loc, "cannot assign to '%s', a module-level name", root->s);
		return;
	}
	b = expr(c, root);
	if (b.k == X_G && b.g.kind == G_SLICE && b.g.n == 0) {
		sv = b.g.sl; /* view[i] = v */
		t = tvoid();
	} else {
		if (b.k == X_NONE || !(p.base = xvalue(c, b, root->loc)))
			return;
		t = vty(c->f, p.base);
		if (root->kind == E_NAME && t.k != T_ARRAY)
			local = root->s;
	}
	/* walk from the base to the target */
	for (i = np - 1; i >= 0; i--) {
		Node *n = nodes[i];
		if (sv || (t.k == T_ARRAY && n->kind == E_SUBSCRIPT && hasslice(n))) {
			/* through an array view (view[i] = v, a[1:3][i].x = v): the
			 * consecutive subscripts grouped as Warp does; an element of
			 * the view is its base's element */
			Node *g[64];
			int m = 0, used;
			X x;
			if (!sv) {
				Val arr = p.n ? pathval(c, &p) : p.base;
				if (!arr || !(sv = wholeview(c, arr, n->loc)))
					return;
			}
			while (i - m >= 0 && nodes[i - m]->kind == E_SUBSCRIPT)
				g[m] = nodes[i - m], m++;
			if (m == 0) {
				serr(c, n->oploc, "cannot assign to an array attribute");
				return;
			}
			x = viewgroups(c, sv, g, m, &used, p.idx);
			if (x.k == X_NONE)
				return;
			local = NULL;
			i -= used - 1;
			if (x.k == X_G) {
				sv = x.g.sl;
				continue;
			}
			p.arr = sv->base;
			p.nidx = sv->nbase;
			p.base = 0;
			p.n = 0;
			t = telem(vty(c->f, sv->base));
			sv = NULL;
			continue;
		}
		if (t.k == T_ARRAY) {
			uint32_t j;
			Val arr;
			if (n->kind != E_SUBSCRIPT) {
				serr(c, n->oploc, "cannot assign to an array attribute");
				return;
			}
			arr = p.n ? pathval(c, &p) : p.base;
			if (!arr)
				return;
			p.arr = arr;
			p.nidx = 0;
			for (;;) {
				for (j = 0; j < n->l1.n; j++) {
					if (n->l1.v[j]->kind == E_SLICE) {
						serr(c, n->l1.v[j]->loc, "array slices are not supported by kpyc");
						return;
					}
					if (p.nidx >= t.nd) {
						serr(c, n->l1.v[j]->loc, "too many indices for a %d-dimensional array", t.nd);
						return;
					}
					if (!(p.idx[p.nidx++] = indexval(c, n->l1.v[j])))
						return;
				}
				if (p.nidx == t.nd || i == 0)
					break;
				n = nodes[--i]; /* a[i][j]: the indices go on */
				if (n->kind != E_SUBSCRIPT) {
					serr(c, n->oploc, "a sub-array has no attribute '%s'", n->s);
					return;
				}
			}
			if (p.nidx < t.nd) {
				serr(c, n->loc, "cannot assign to a sub-array (%d of %d indices)", p.nidx, t.nd);
				return;
			}
			/* the element is the new base, written back with a store */
			p.base = 0;
			p.n = 0;
			local = NULL;
			t = telem(t);
			continue;
		}
		if (p.n == 64) {
			serr(c, n->loc, "the assignment target is too deep");
			return;
		}
		if (!mkstep(c, n, t, &p.steps[p.n]))
			return;
		t = steptype(c, t, &p.steps[p.n]);
		p.n++;
	}
	if (sv) {
		serr(c, loc, "cannot assign to an array slice; assign to its elements");
		return;
	}
	if (p.n == 0 && !p.arr) {
		serr(c, loc, "cannot assign to this expression");
		return;
	}
	/* a[i] = v, a[i] op= v */
	if (p.n == 0) {
		Val a[MAXDIM + 2];
		Type et = t;
		int code;
		a[0] = p.arr;
		memcpy(a + 1, p.idx, (size_t)p.nidx * sizeof *a);
		if (augop < 0) {
			if (!(v = xvalue(c, val, loc)))
				return;
			if (!typeeq(vty(c->f, v), et)) {
				serr(c, loc, "array_store() value argument type (%s) must be of the same type as the array (%s)",
				     wptypename(c->m, vty(c->f, v)), wptypename(c->m, et));
				return;
			}
			a[p.nidx + 1] = v;
			emitop(c, OP_STORE, a, p.nidx + 2, 0, tvoid(), loc, "array store");
			return;
		}
		/* Warp's in-place operators on array elements: + - & | ^ are
		 * atomic, except on its non-atomic types; the rest load, compute
		 * and store */
		code = augop == B_ADD ? OP_ATOMIC_ADD : augop == B_SUB ? OP_ATOMIC_SUB
		     : augop == B_BITAND ? OP_ATOMIC_AND : augop == B_BITOR ? OP_ATOMIC_OR
		     : augop == B_BITXOR ? OP_ATOMIC_XOR : -1;
		if (code >= 0 && !nonatomic(et)) {
			X r = expr(c, rhs);
			if (r.k == X_NONE || !(v = xvalue(c, r, rhs->loc)))
				return;
			if (!typeeq(vty(c->f, v), et)) {
				serr(c, loc, "%s() value argument type (%s) must be of the same type as the array (%s)",
				     opinfo[code].name, wptypename(c->m, vty(c->f, v)), wptypename(c->m, et));
				return;
			}
			a[p.nidx + 1] = v;
			emitop(c, code, a, p.nidx + 2, 0, tvoid(), loc, "augmented assignment");
			return;
		}
		if (!(v = pathval(c, &p)) || !(v = augvalue(c, v, augop, rhs, loc)))
			return;
		a[p.nidx + 1] = v;
		emitop(c, OP_STORE, a, p.nidx + 2, 0, tvoid(), loc, "array store");
		return;
	}
	/* a[i].x op= v (a component of an array element, Warp's "slot"):
	 * + and - (and & | ^ on 32/64-bit integers) are one atomic operation
	 * on a composite holding v at that component and, elsewhere, the
	 * operation's identity (0, or all ones for &) */
	if (p.arr && !p.base && augop >= 0) {
		Type et = telem(vty(c->f, p.arr));
		int leaf = tcomp(t).s, k;
		bool bits = augop == B_BITAND || augop == B_BITOR || augop == B_BITXOR;
		bool composite = true, supported;
		for (k = 0; k < p.n; k++)
			if (p.steps[k].kind == 'f')
				composite = false;
		supported = (augop == B_ADD || augop == B_SUB)
		          ? (scalarisfloat(leaf) || leaf == S_I32 || leaf == S_U32 || leaf == S_I64 || leaf == S_U64)
		          : bits && (leaf == S_I32 || leaf == S_U32 || leaf == S_I64 || leaf == S_U64);
		if (composite && supported) {
			X r = expr(c, rhs);
			Val a[MAXDIM + 2];
			Type lt = et;
			int code = augop == B_ADD ? OP_ATOMIC_ADD : augop == B_SUB ? OP_ATOMIC_SUB
			         : augop == B_BITAND ? OP_ATOMIC_AND : augop == B_BITOR ? OP_ATOMIC_OR : OP_ATOMIC_XOR;
			Type *lv = aalloc(c->tmp, (size_t)(p.n + 1) * sizeof *lv);
			if (r.k == X_NONE || !(v = xvalue(c, r, rhs->loc)))
				return;
			if (!typeeq(vty(c->f, v), t)) {
				serr(c, loc, "invalid operand types for '%s': %s and %s", opsym(augop), wptypename(c->m, t),
				     wptypename(c->m, vty(c->f, v)));
				return;
			}
			for (k = 0; k < p.n; k++) {
				lv[k] = lt;
				lt = steptype(c, lt, &p.steps[k]);
			}
			for (k = p.n - 1; k >= 0; k--) {
				Scal fill[MAXVEC * MAXVEC];
				int q;
				memset(fill, 0, sizeof fill);
				if (augop == B_BITAND)
					for (q = 0; q < ncomp(lv[k]); q++)
						fill[q].i = -1;
				p.steps[k].container = cconst(c->m, c->f, lv[k], fill);
				if (!(v = writestep(c, &p.steps[k], v)))
					return;
			}
			a[0] = p.arr;
			memcpy(a + 1, p.idx, (size_t)p.nidx * sizeof *a);
			a[p.nidx + 1] = v;
			emitop(c, code, a, p.nidx + 2, 0, tvoid(), loc, "augmented assignment");
			return;
		}
		/* otherwise load, compute, store; Warp's backward pass cannot
		 * differentiate that for float values */
		/* (through struct fields kir has no atomic: Warp's atomic slot
		 * update becomes load, compute, store) */
		if (!supported && (isfloatcomp(t) || t.k == T_STRUCT) && !c->fd->nobackward && !c->file->nobackward) {
			serr(c, target->oploc.line ? loc : loc,
			     "Differentiable composite slot augmented assignments with this operator are not supported with "
			     "backward code generation enabled. Write the result to a separate array, or use "
			     "enable_backward=False for forward-only code.");
			return;
		}
	}
	if (augop < 0) {
		if (!(v = xvalue(c, val, loc)))
			return;
	} else if (!(v = pathval(c, &p)) || !(v = augvalue(c, v, augop, rhs, loc))) {
		return;
	}
	for (i = p.n - 1; i >= 0; i--) {
		if (!container(c, &p, i))
			return;
		if (!(v = writestep(c, &p.steps[i], v)))
			return;
	}
	if (p.arr) {
		Val a[MAXDIM + 2];
		a[0] = p.arr;
		memcpy(a + 1, p.idx, (size_t)p.nidx * sizeof *a);
		a[p.nidx + 1] = v;
		emitop(c, OP_STORE, a, p.nidx + 2, 0, tvoid(), loc, "array store");
		return;
	}
	if (local) {
		assignname(c, local, xval(v), root->loc, false);
		return;
	}
	serr(c, loc, "cannot assign to a component of a temporary value");
}
