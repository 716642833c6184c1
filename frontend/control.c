/*
 * control.c — structured control flow: regions, if/elif/else and loops
 * (for over range, while), with Warp's loop rule.
 *
 * if/elif/else.  Both branches are compiled into regions from a copy of
 * the environment.  Every variable bound differently by the two branches
 * and still live after the statement becomes a result of the `if`, each
 * branch yielding its version.  A variable first bound in only one branch
 * gets, from the other branch, a zero of its type (Warp leaves it
 * uninitialised there; kir has no undefined values).  When the `then`
 * branch ends in return/break/continue, the `else` branch is compiled
 * after the `if` instead (it is the only way on), so no merge is needed.
 * Conditions that are compile-time constants for Warp (literals, module
 * constants) select a branch at compile time, as in Warp.
 *
 * Loops.  `for i in range(...)` becomes `for %i = lo to hi step s`, and
 * `while` a while op with a condition region.  A variable assigned in the
 * body is carried (an `iter` argument, a loop result) when it is live at
 * the loop's head (read before being reassigned in an iteration) or live
 * after the loop; liveness is computed once per body by a backward pass
 * over the AST (lv*).  A carried variable not bound before the loop starts
 * as a zero and is undefined in the body until assigned.  break carries
 * the loop's results, continue the next iteration's values.
 *
 * Warp's loop rule.  Warp unrolls `for` loops over range() with constant
 * arguments, at most max_unroll (16) iterations and no `break`; other
 * loops are dynamic, and assigning inside a dynamic loop a variable that
 * Warp holds as a compile-time constant (x = 0.0) is an error there
 * ("Error mutating a constant x inside a dynamic loop").  kpyc emits every
 * loop as a loop (unrolling is kopt's job) but applies the same rule.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

/* ---- regions -------------------------------------------------------- */

Op *
term(Ctx *c, int code, const Val *args, int n, Loc loc)
{
	Op *op = mkop(c->m, c->f, code, args, n, NULL, 0, loc);
	regpush(c->m, c->b.r, op);
	c->dead = true;
	return op;
}

/* The current values of the innermost loop's carried variables. */
Val *
loopvals(Ctx *c, LoopCtx *lc, Loc loc)
{
	Val *v = aalloc(c->tmp, (size_t)(lc->nc + 1) * sizeof *v);
	int i;

	for (i = 0; i < lc->nc; i++) {
		Bind *b = envfind(&c->env, lc->names[i]);
		Val p = lc->op->params[lc->first + i];
		if (!b || b->poison || !b->v) {
			v[i] = p;
			continue;
		}
		if (b->zinit) {
			v[i] = b->v;
			continue;
		}
		if (vty(c->f, p).k == T_VOID)
			settype(c, p, vty(c->f, b->v));
		if (!typeeq(vty(c->f, b->v), vty(c->f, p))) {
			serr(c, loc, "Error, assigning to existing symbol %s (%s) with different type (%s)", lc->names[i],
			     wptypename(c->m, vty(c->f, p)), wptypename(c->m, vty(c->f, b->v)));
			v[i] = p;
			continue;
		}
		v[i] = b->v;
	}
	return v;
}

/* ---- if ------------------------------------------------------------- */

static bool
constcond(Ctx *c, X x, bool *truth)
{
	const Value *v;

	if (x.k != X_VAL || !x.wconst || x.hasrange || !isconst(c->f, x.v))
		return false;
	v = val(c->f, x.v);
	if (v->ty.k != T_SCALAR)
		return false;
	*truth = scalarisfloat(v->ty.s) ? v->c[0].f != 0 : v->c[0].u != 0;
	return true;
}

void
ifstmt(Ctx *c, Node *s)
{
	X cx = expr(c, s->a);
	Val cond;
	bool truth;
	Env pre, tenv, eenv;
	Region rt = {0}, re = {0}, *parent = c->b.r;
	bool edead;
	Op *op;
	const char **names;
	Val *tv, *ev;
	Type *tys;
	uint32_t i, nn = 0, cap;
	int nm = 0;

	if (constcond(c, cx, &truth)) {
		stmts(c, truth ? &s->l1 : &s->l2);
		return;
	}
	cond = cx.k == X_NONE ? 0 : condval(c, cx, s->a->loc);
	if (!cond)
		cond = cbool(c->m, c->f, true);
	pre = envcopy(c, &c->env);
	/* then */
	c->b.r = &rt;
	c->dead = false;
	stmts(c, &s->l1);
	if (c->dead) {
		op = mkop(c->m, c->f, OP_IF, &cond, 1, NULL, 0, s->loc);
		opsetregions(c->m, op, 2);
		op->regs[0] = rt;
		regpush(c->m, &op->regs[1], mkop(c->m, c->f, OP_YIELD, NULL, 0, NULL, 0, s->loc));
		regpush(c->m, parent, op);
		c->b.r = parent;
		c->dead = false;
		c->env = pre;
		stmts(c, &s->l2);
		return;
	}
	tenv = c->env;
	/* else */
	c->env = envcopy(c, &pre);
	c->b.r = &re;
	c->dead = false;
	stmts(c, &s->l2);
	edead = c->dead;
	eenv = c->env;
	c->b.r = parent;
	c->dead = false;
	/* the variables to merge */
	cap = tenv.n + eenv.n + 1;
	names = aalloc(c->tmp, cap * sizeof *names);
	for (i = 0; i < tenv.n; i++)
		names[nn++] = tenv.v[i].name;
	for (i = 0; i < eenv.n; i++)
		if (!envfind(&tenv, eenv.v[i].name))
			names[nn++] = eenv.v[i].name;
	tv = aalloc(c->tmp, cap * sizeof *tv);
	ev = aalloc(c->tmp, cap * sizeof *ev);
	tys = aalloc(c->tmp, cap * sizeof *tys);
	c->env = envcopy(c, &pre);
	{
		const char **mnames = aalloc(c->tmp, cap * sizeof *mnames);
		bool *mconst = aalloc(c->tmp, cap * sizeof *mconst);
		for (i = 0; i < nn; i++) {
			const char *x = names[i];
			Bind *bt = envfind(&tenv, x), *be = edead ? NULL : envfind(&eenv, x), *bp = envfind(&pre, x);
			if (edead ? samebind(bt, bp) : samebind(bt, be)) {
				if (bt && !samebind(bt, bp))
					envset(c, *bt); /* both branches agree on a value from before */
				continue;
			}
			if (!lvhas(c, s->live, x)) {
				/* dead after the if, so kir keeps no value; Warp still merges
				 * the two versions, which must have one type, and keeps the name */
				Type ta = bindtype(c, bt), tb = bindtype(c, be);
				if (ta.k != T_VOID && tb.k != T_VOID && !typeeq(ta, tb)) {
					serr(c, s->loc, "variable '%s' is %s after the if branch but %s after the else branch "
					     "(Warp: where() true value type must be of the same type as the false type)", x,
					     wptypename(c->m, ta), wptypename(c->m, tb));
				} else if (!bp || bp->ghost) {
					ghost(c, x, ta.k != T_VOID ? ta : tb);
				}
				continue;
			}
			if ((bt && bt->fn && bt->fn->kind == G_SLICE) || (be && be->fn && be->fn->kind == G_SLICE)) {
				serr(c, s->loc, "'%s' is bound to different array slices in the branches of this if (kpyc "
				     "keeps a slice only where it is made)", x);
				continue;
			}
			if ((bt && bt->fn && bt->fn->kind == G_VTUPLE) || (be && be->fn && be->fn->kind == G_VTUPLE)) {
				serr(c, s->loc, "'%s' is bound to different tuples in the branches of this if (kpyc keeps a "
				     "tuple only where it is made)", x);
				continue;
			}
			if (!bp && ((bt && bt->fn && bt->fn->kind != G_SLICE && !be) ||
			            (be && be->fn && be->fn->kind != G_SLICE && !bt && !edead))) {
				/* bound to a function on one path only: Warp's merge keeps
				 * that binding (codegen.py emit_If, "only assigned on the
				 * 'if' path") */
				envset(c, bt ? *bt : *be);
				continue;
			}
			if ((bt && bt->fn) || (be && be->fn)) {
				serr(c, s->loc, "'%s' is bound to different functions in the branches of this if", x);
				continue;
			}
			if ((bt && bt->poison) || (be && be->poison)) {
				Bind pb = {0};
				pb.name = x;
				pb.poison = true;
				envset(c, pb);
				continue;
			}
			if (bt && be && bt->zinit && be->zinit)
				continue;
			{
				Type t = bt ? vty(c->f, bt->v) : vty(c->f, be->v);
				Val a = bt ? bt->v : 0, b = edead ? 0 : be ? be->v : 0;
				if (bt && be && !typeeq(vty(c->f, bt->v), vty(c->f, be->v))) {
					if (vty(c->f, bt->v).k == T_VOID)
						t = vty(c->f, be->v), settype(c, bt->v, t);
					else if (vty(c->f, be->v).k == T_VOID)
						settype(c, be->v, t);
					else {
						serr(c, s->loc, "variable '%s' is %s after the if branch but %s after the else branch "
						     "(Warp: where() true value type must be of the same type as the false type)", x,
						     wptypename(c->m, vty(c->f, bt->v)), wptypename(c->m, vty(c->f, be->v)));
						Bind pb = {0};
						pb.name = x;
						pb.poison = true;
						envset(c, pb);
						continue;
					}
				}
				if (t.k == T_ARRAY && (!a || (!edead && !b))) {
					serr(c, s->loc, "array variable '%s' is assigned in only one branch; assign it before the if", x);
					continue;
				}
				if (!a) {
					Region *sv = c->b.r;
					c->b.r = &rt;
					a = zeroval(c, t, s->loc);
					c->b.r = sv;
				}
				if (!edead && !b) {
					Region *sv = c->b.r;
					c->b.r = &re;
					b = zeroval(c, t, s->loc);
					c->b.r = sv;
				}
				tv[nm] = a;
				ev[nm] = b;
				tys[nm] = t;
				mnames[nm] = x;
				mconst[nm] = false;
				nm++;
			}
		}
		op = mkop(c->m, c->f, OP_IF, &cond, 1, tys, nm, s->loc);
		opsetregions(c->m, op, 2);
		regpush(c->m, &rt, mkop(c->m, c->f, OP_YIELD, tv, nm, NULL, 0, s->loc));
		if (!edead)
			regpush(c->m, &re, mkop(c->m, c->f, OP_YIELD, ev, nm, NULL, 0, s->loc));
		op->regs[0] = rt;
		op->regs[1] = re;
		regpush(c->m, parent, op);
		for (i = 0; i < (uint32_t)nm; i++) {
			Bind b = {0};
			b.name = mnames[i];
			b.v = op->res[i];
			nameval(c, b.v, b.name);
			envset(c, b);
		}
	}
}

/* ---- loops ---------------------------------------------------------- */

/* Choose the carried variables of a loop and bind them in a fresh body
 * environment; returns their count (names, types, inits filled). */
static int
carried(Ctx *c, Node *s, Assigned *as, const char *target, const char ***names, Type **tys, Val **inits,
        bool **zinit)
{
	const uint64_t *out = s->live, *head = s->live + c->nw;
	int n = 0;
	uint32_t i;

	*names = aalloc(c->tmp, (as->n + 1) * sizeof **names);
	*tys = aalloc(c->tmp, (as->n + 1) * sizeof **tys);
	*inits = aalloc(c->tmp, (as->n + 1) * sizeof **inits);
	*zinit = aalloc(c->tmp, (as->n + 1) * sizeof **zinit);
	for (i = 0; i < as->n; i++) {
		const char *x = as->names[i];
		Bind *b = envfind(&c->env, x);
		bool bound = b && !b->poison && b->v;
		bool need = lvhas(c, out, x) || (bound && lvhas(c, head, x));
		if (!need || (b && (b->poison || b->fn)))
			continue;
		(*names)[n] = x;
		if (bound) {
			(*tys)[n] = vty(c->f, b->v);
			(*inits)[n] = b->v;
			(*zinit)[n] = b->zinit;
		} else {
			(*tys)[n] = target && strcmp(x, target) == 0 ? tscalar(S_I32) : b && b->ghost ? b->gty : tvoid();
			(*inits)[n] = 0;
			(*zinit)[n] = true;
		}
		n++;
	}
	return n;
}

/* After the body: give placeholders their zero initial values (emitted
 * before the loop) and check they got a type. */
static bool
fixinits(Ctx *c, Op *op, int first, int nc, const char **names, Loc loc)
{
	int i, off = first ? 3 : 0;
	bool ok = true;

	for (i = 0; i < nc; i++) {
		Val p = op->params[first + i];
		Type t = vty(c->f, p);
		if (op->args[off + i])
			continue;
		if (t.k == T_VOID) {
			t = tscalar(S_I32);
			settype(c, p, t);
		}
		if (t.k == T_ARRAY) {
			serr(c, loc, "array variable '%s' is first assigned inside the loop and used after it; "
			     "assign it before the loop", names[i]);
			ok = false;
			op->args[off + i] = p;
			continue;
		}
		op->args[off + i] = zeroval(c, t, loc);
	}
	return ok;
}

static void
bindcarried(Ctx *c, Op *op, int first, int nc, const char **names, bool *zinit)
{
	int i;

	for (i = 0; i < nc; i++) {
		Bind b = {0};
		b.name = names[i];
		b.v = op->params[first + i];
		b.zinit = zinit[i];
		nameval(c, b.v, names[i]);
		envset(c, b);
	}
}

/* Python's else clause of a loop. */
static void
loopelse(Ctx *c, Node *s)
{
	if (!s->l2.n)
		return;
	if (hasbreak(&s->l1)) {
		serr(c, s->oploc, "an else clause on a loop that breaks is not supported (Warp drops the else body)");
		return;
	}
	kwarn(c->k, s->oploc, "Warp ignores the else clause of a loop; kpyc runs it after the loop as Python does");
	stmts(c, &s->l2);
}

/* The loop's bounds after reversed(): range(lo, hi, st) backwards is
 * range(last, lo - sign(st), -st) with last = lo + ((hi - lo - sign) // st) * st. */
static bool
reverserange(Ctx *c, X *lo, X *hi, X *st, Loc loc)
{
	int64_t s, sg;
	Val one, t;

	if (!st->wconst || !isconst(c->f, st->v) || st->hasrange) {
		/* a step known at run time: sg = sign(st) */
		Val a = lo->v, b = hi->v, sv = st->v, sg, args[2];
		if (!(sg = emit1(c, OP_SIGN, &sv, 1, loc, "reversed range")))
			return false;
		args[0] = b;
		args[1] = a;
		t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		args[0] = t;
		args[1] = sg;
		t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		args[0] = t;
		args[1] = sv;
		t = emit1(c, OP_FLOORDIV, args, 2, loc, "reversed range");
		args[0] = t;
		args[1] = sv;
		t = emit1(c, OP_MUL, args, 2, loc, "reversed range");
		args[0] = a;
		args[1] = t;
		if (!(t = emit1(c, OP_ADD, args, 2, loc, "reversed range")))
			return false;
		args[0] = a;
		args[1] = sg;
		hi->v = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		lo->v = t;
		st->v = emit1(c, OP_NEG, &sv, 1, loc, "reversed range");
		return hi->v && st->v;
	}
	s = val(c->f, st->v)->c[0].i;
	sg = s > 0 ? 1 : -1;
	if (lo->wconst && hi->wconst && isconst(c->f, lo->v) && isconst(c->f, hi->v) && !lo->hasrange && !hi->hasrange) {
		int64_t a = val(c->f, lo->v)->c[0].i, b = val(c->f, hi->v)->c[0].i, d = b - a - sg, q, last;
		q = d / s;
		if (d % s != 0 && ((d % s < 0) != (s < 0)))
			q--;
		last = a + q * s;
		hi->v = cint(c->m, c->f, S_I32, a - sg);
		lo->v = cint(c->m, c->f, S_I32, last);
	} else {
		Val a = lo->v, b = hi->v, args[2];
		one = cint(c->m, c->f, S_I32, sg);
		if (s == sg) {
			args[0] = b;
			args[1] = one;
			t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		} else {
			args[0] = b;
			args[1] = a;
			t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
			args[0] = t;
			args[1] = one;
			t = emit1(c, OP_SUB, args, 2, loc, "reversed range");
			args[0] = t;
			args[1] = st->v;
			t = emit1(c, OP_FLOORDIV, args, 2, loc, "reversed range");
			args[0] = t;
			args[1] = st->v;
			t = emit1(c, OP_MUL, args, 2, loc, "reversed range");
			args[0] = a;
			args[1] = t;
			t = emit1(c, OP_ADD, args, 2, loc, "reversed range");
		}
		if (!t)
			return false;
		if (isconst(c->f, a)) {
			hi->v = cint(c->m, c->f, S_I32, val(c->f, a)->c[0].i - sg);
		} else {
			args[0] = a;
			args[1] = one;
			hi->v = emit1(c, OP_SUB, args, 2, loc, "reversed range");
		}
		lo->v = t;
	}
	st->v = cint(c->m, c->f, S_I32, -s);
	return true;
}

/* Largest trip count over the values the range's arguments can take. */
static int64_t
tripcount(Ctx *c, X *a, int n)
{
	int64_t lo[3], hi[3], best = -1;
	int i, m;

	for (i = 0; i < n; i++) {
		if (a[i].hasrange) {
			lo[i] = a[i].lo;
			hi[i] = a[i].hi;
		} else if (a[i].lit.ok && a[i].lit.isint) {
			lo[i] = hi[i] = (int32_t)a[i].lit.i;
		} else if (isconst(c->f, a[i].v)) {
			lo[i] = hi[i] = val(c->f, a[i].v)->c[0].i;
		} else {
			return -1;
		}
	}
	for (m = 0; m < (1 << n); m++) {
		int64_t v[3] = {0, 0, 0}, start = 0, stop, step = 1, cnt;
		for (i = 0; i < n; i++)
			v[i] = (m >> i) & 1 ? hi[i] : lo[i];
		if (n == 1)
			stop = v[0];
		else {
			start = v[0];
			stop = v[1];
			if (n == 3)
				step = v[2];
		}
		if (step == 0)
			return -2;
		if (step > 0)
			cnt = stop > start ? (stop - start + step - 1) / step : 0;
		else
			cnt = start > stop ? (start - stop - step - 1) / -step : 0;
		if (cnt > best)
			best = cnt;
	}
	return best;
}

/* After a loop: names the body bound that are not carried stay known to
 * Warp with their type (a later assignment of another type is an error). */
static void
ghostloop(Ctx *c, Assigned *as, const Env *body, const Env *pre, const char **names, int nc)
{
	uint32_t i;
	int j;

	for (i = 0; i < as->n; i++) {
		const char *x = as->names[i];
		Bind *p = envfind(pre, x), *b = envfind(body, x);
		for (j = 0; j < nc; j++)
			if (strcmp(names[j], x) == 0)
				break;
		if (j < nc || (p && !p->ghost) || !b)
			continue;
		ghost(c, x, bindtype(c, b));
	}
}

void
forstmt(Ctx *c, Node *s)
{
	Node *it = s->b, *rng;
	X a[3], lo, hi, st, iterfn;
	int na, i, nc;
	bool rev = false, dynamic = true, ok = true;
	int64_t trips = -1;
	Assigned as = {0};
	const char *target, **names;
	Type *tys, *ptys;
	Val *inits, *args;
	bool *zinit;
	Op *op;
	Env pre;
	Region *parent = c->b.r;
	LoopCtx lc;
	Bind tb = {0};

	if (s->a->kind != E_NAME) {
		serr(c, s->a->loc, "a for loop's target must be a single name");
		return;
	}
	target = s->a->s;
	if (it->kind != E_CALL) {
		serr(c, it->loc, "kernels can only iterate over range() and reversed(range())");
		return;
	}
	iterfn = expr(c, it->a);
	if (iterfn.k == X_G && iterfn.g.kind == G_PYNAME && strcmp(iterfn.g.s, "builtins.reversed") == 0 &&
	    it->l1.n == 1 && it->l2.n == 0 && it->l1.v[0]->kind == E_CALL) {
		rev = true;
		rng = it->l1.v[0];
		iterfn = expr(c, rng->a);
	} else {
		rng = it;
	}
	if (iterfn.k == X_NONE)
		return;
	if (!(iterfn.k == X_G && iterfn.g.kind == G_PYNAME && strcmp(iterfn.g.s, "builtins.range") == 0)) {
		serr(c, it->loc, "kernels can only iterate over range() and reversed(range())");
		return;
	}
	na = (int)rng->l1.n;
	if (na < 1 || na > 3 || rng->l2.n) {
		serr(c, rng->loc, "range() takes 1 to 3 positional arguments");
		return;
	}
	for (i = 0; i < na; i++) {
		if (rng->l1.v[i]->kind == E_STARRED) {
			serr(c, rng->l1.v[i]->loc, "range() arguments cannot be starred");
			return;
		}
		a[i] = expr(c, rng->l1.v[i]);
		if (a[i].k == X_NONE)
			ok = false;
		else if (!xvalue(c, a[i], rng->l1.v[i]->loc))
			ok = false;
	}
	if (!ok)
		return;
	for (i = 0; i < na; i++)
		if (isconst(c->f, a[i].v) && isbool(vty(c->f, a[i].v)) &&
		    (rng->l1.v[i]->kind == E_BOOL ||
		     (rng->l1.v[i]->kind == E_CALL && rng->l1.v[i]->a->kind == E_ATTR &&
		      strcmp(rng->l1.v[i]->a->s, "static") == 0))) {
			/* range(True), range(wp.static(True)): Warp unrolls Python
			 * values with Python's range(), where a bool is 0 or 1 (a
			 * local or wp.constant bool is a Warp bool: no overload) */
			int64_t n = val(c->f, a[i].v)->c[0].u != 0;
			a[i].v = cint(c->m, c->f, S_I32, n);
			a[i].lit = (Lit){true, true, n, (double)n};
		}
	for (i = 0; i < na; i++)
		if (!typeeq(vty(c->f, a[i].v), tscalar(S_I32))) {
			Buf b = {0};
			int j;
			for (j = 0; j < na; j++)
				bufprintf(&b, "%s%s", j ? ", " : "", wptypename(c->m, vty(c->f, a[j].v)));
			serr(c, rng->loc, "Couldn't find function overload for 'range' that matched inputs with types: [%s] "
			     "(range() takes int32 arguments)", b.s);
			buffree(&b);
			return;
		}
	/* Warp's unrolling rule decides whether the loop is dynamic */
	{
		bool allconst = true;
		for (i = 0; i < na; i++)
			if (!a[i].wconst)
				allconst = false;
		if (allconst) {
			trips = tripcount(c, a, na);
			if (trips == -2) {
				serr(c, rng->loc, "range() arg 3 must not be zero");
				return;
			}
			if (trips >= 0 && trips <= maxunroll(c) && !hasbreak(&s->l1))
				dynamic = false;
			else if (trips >= 0 && hasstatic(c, s))
				dynamic = false; /* Warp unrolls a loop with wp.static() in it whatever its length */
		}
	}
	if (na == 1) {
		lo = xval(cint(c->m, c->f, S_I32, 0));
		lo.wconst = true;
		lo.lit = (Lit){true, true, 0, 0};
		hi = a[0];
	} else {
		lo = a[0];
		hi = a[1];
	}
	if (na == 3) {
		st = a[2];
	} else {
		st = xval(cint(c->m, c->f, S_I32, 1));
		st.wconst = true;
		st.lit = (Lit){true, true, 1, 1};
	}
	if (isconst(c->f, st.v) && val(c->f, st.v)->c[0].i == 0 && !st.hasrange) {
		serr(c, rng->loc, "range() arg 3 must not be zero");
		return;
	}
	c->b.loc = s->loc;
	if (rev && !reverserange(c, &lo, &hi, &st, rng->loc))
		return;
	/* carried variables */
	scanassigned(c, &as, &s->l1);
	addassigned(c, &as, target, s->a->loc);
	if (dynamic)
		checkconstmut(c, &as, target);
	nc = carried(c, s, &as, target, &names, &tys, &inits, &zinit);
	args = aalloc(c->tmp, (size_t)(nc + 3) * sizeof *args);
	ptys = aalloc(c->tmp, (size_t)(nc + 1) * sizeof *ptys);
	args[0] = lo.v;
	args[1] = hi.v;
	args[2] = st.v;
	ptys[0] = tscalar(S_I32);
	for (i = 0; i < nc; i++) {
		args[3 + i] = inits[i];
		ptys[1 + i] = tys[i];
	}
	op = mkop(c->m, c->f, OP_FOR, args, nc + 3, tys, nc, s->loc);
	opsetparams(c->m, c->f, op, ptys, nc + 1);
	opsetregions(c->m, op, 1);
	/* the body */
	pre = envcopy(c, &c->env);
	bindcarried(c, op, 1, nc, names, zinit);
	tb.name = target;
	tb.v = op->params[0];
	if (!dynamic) {
		/* Warp unrolls: the index is a constant in each copy */
		tb.wconst = true;
		tb.hasrange = true;
		tb.lo = INT64_MAX;
		tb.hi = INT64_MIN;
		{
			int64_t l0 = lo.hasrange ? lo.lo : val(c->f, lo.v)->c[0].i;
			int64_t h0 = hi.hasrange ? hi.hi : val(c->f, hi.v)->c[0].i;
			int64_t s0 = st.hasrange ? st.lo : val(c->f, st.v)->c[0].i;
			if (s0 > 0) {
				tb.lo = l0;
				tb.hi = h0 - 1;
			} else {
				tb.lo = h0 + 1;
				tb.hi = l0;
			}
			if (lo.hasrange || hi.hasrange) {
				tb.lo = INT32_MIN;
				tb.hi = INT32_MAX;
			}
		}
	}
	nameval(c, tb.v, target);
	envset(c, tb);
	lc.up = c->loop;
	lc.op = op;
	lc.first = 1;
	lc.nc = nc;
	lc.names = names;
	lc.target = target;
	lc.unrolled = !dynamic && !rev; /* Warp unrolls range() only, never reversed() */
	c->loop = &lc;
	c->b.r = &op->regs[0];
	c->dead = false;
	stmts(c, &s->l1);
	if (!c->dead)
		term(c, OP_YIELD, loopvals(c, &lc, s->loc), nc, s->loc);
	c->loop = lc.up;
	c->b.r = parent;
	c->dead = false;
	c->b.loc = s->loc;
	fixinits(c, op, 1, nc, names, s->loc);
	regpush(c->m, parent, op);
	{
		Env body = c->env;
		c->env = pre;
		for (i = 0; i < nc; i++) {
			Bind b = {0};
			b.name = names[i];
			b.v = op->res[i];
			if (lc.unrolled && trips > 0 && !hasbreak(&s->l1) && strcmp(names[i], target) == 0 && !lo.hasrange &&
			    !st.hasrange && isconst(c->f, lo.v) && isconst(c->f, st.v)) {
				/* Python's index after the loop, which Warp holds as a constant */
				int64_t l0 = val(c->f, lo.v)->c[0].i, s0 = val(c->f, st.v)->c[0].i;
				b.ilast.ok = b.ilast.isint = true;
				b.ilast.i = l0 + (trips - 1) * s0;
				b.ilast.f = (double)b.ilast.i;
			}
			nameval(c, b.v, names[i]);
			envset(c, b);
		}
		ghostloop(c, &as, &body, &pre, names, nc);
	}
	loopelse(c, s);
}

void
whilestmt(Ctx *c, Node *s)
{
	Assigned as = {0};
	const char **names;
	Type *tys;
	Val *inits, cv;
	bool *zinit;
	int nc, i;
	Op *op;
	Env pre;
	Region *parent = c->b.r;
	LoopCtx lc;
	X cx;
	bool selfcond = false;

	scanassigned(c, &as, &s->l1);
	scanrand(c, &as, s->a);
	checkconstmut(c, &as, NULL);
	nc = carried(c, s, &as, NULL, &names, &tys, &inits, &zinit);
	op = mkop(c->m, c->f, OP_WHILE, inits, nc, tys, nc, s->loc);
	opsetparams(c->m, c->f, op, tys, nc);
	opsetregions(c->m, op, 2);
	pre = envcopy(c, &c->env);
	bindcarried(c, op, 0, nc, names, zinit);
	/* the condition; one that updates a random state is evaluated at the
	 * top of the body instead (the condition region yields true and the
	 * body breaks out when it is false), so the new state flows on */
	{
		Env body = envcopy(c, &c->env);
		int nerr = c->k->d->nerr;
		c->b.r = &op->regs[0];
		c->dead = false;
		cx = expr(c, s->a);
		cv = cx.k == X_NONE ? 0 : condval(c, cx, s->a->loc);
		if (!cv)
			cv = cbool(c->m, c->f, false);
		for (i = 0; i < (int)c->env.n; i++) {
			Bind *o = envfind(&body, c->env.v[i].name);
			if (!samebind(o, &c->env.v[i]))
				selfcond = true;
		}
		if (selfcond && nerr == c->k->d->nerr) {
			op->regs[0].n = 0;
			cv = cbool(c->m, c->f, true);
		} else {
			selfcond = false;
		}
		regpush(c->m, c->b.r, mkop(c->m, c->f, OP_YIELD, &cv, 1, NULL, 0, s->loc));
		c->env = body;
	}
	lc.up = c->loop;
	lc.op = op;
	lc.first = 0;
	lc.nc = nc;
	lc.names = names;
	lc.target = NULL;
	lc.unrolled = false;
	c->loop = &lc;
	c->b.r = &op->regs[1];
	c->dead = false;
	if (selfcond) {
		Op *ifop;
		Val nc1;
		cx = expr(c, s->a);
		if (cx.k != X_NONE && (cv = condval(c, cx, s->a->loc)) && (nc1 = emit1(c, OP_UNOT, &cv, 1, s->a->loc, "while"))) {
			Region rt = {0}, *keep = c->b.r;
			c->b.r = &rt;
			term(c, OP_BREAK, loopvals(c, &lc, s->loc), nc, s->loc);
			c->b.r = keep;
			c->dead = false;
			ifop = mkop(c->m, c->f, OP_IF, &nc1, 1, NULL, 0, s->loc);
			opsetregions(c->m, ifop, 2);
			ifop->regs[0] = rt;
			regpush(c->m, &ifop->regs[1], mkop(c->m, c->f, OP_YIELD, NULL, 0, NULL, 0, s->loc));
			regpush(c->m, c->b.r, ifop);
		}
	}
	stmts(c, &s->l1);
	if (!c->dead)
		term(c, OP_YIELD, loopvals(c, &lc, s->loc), nc, s->loc);
	c->loop = lc.up;
	c->b.r = parent;
	c->dead = false;
	c->b.loc = s->loc;
	fixinits(c, op, 0, nc, names, s->loc);
	regpush(c->m, parent, op);
	{
		Env body = c->env;
		c->env = pre;
		for (i = 0; i < nc; i++) {
			Bind b = {0};
			b.name = names[i];
			b.v = op->res[i];
			nameval(c, b.v, names[i]);
			envset(c, b);
		}
		ghostloop(c, &as, &body, &pre, names, nc);
	}
	loopelse(c, s);
}

/* Warp's max_unroll for this body: the kernel's module_options, the
 * module's options or wp.config, else kpyc's --max-unroll. */
int
maxunroll(Ctx *c)
{
	if (c->fd->max_unroll)
		return c->fd->max_unroll - 1;
	if (c->file->max_unroll)
		return c->file->max_unroll - 1;
	return c->k->o->max_unroll;
}
