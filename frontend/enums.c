/*
 * enums.c — plain classes at the top level as enums: their constant class
 * attributes become module names CLASS.NAME (IntEnum classes included).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* ---- enums ------------------------------------------------------------ */

/* A plain class (no base but object) at the top level: Warp reads
 * CLASS.NAME in a kernel as the class attribute's value, so each
 * attribute bound to a constant kpyc evaluates (ONE = wp.constant(1),
 * DISABLED = False) becomes the module name "CLASS.NAME"; the class is
 * bound as G_ENUM (n 1: a plain class) when it has one, else it stays
 * host code (false). */
static bool
classconsts(Kpyc *k, FileCtx *f, Node *cls)
{
	uint32_t j;
	int n = 0;
	GVal v;

	for (j = 0; j < cls->l1.n; j++) {
		Node *s = cls->l1.v[j];
		if (s->kind != S_ASSIGN || s->l1.n != 1 || s->l1.v[0]->kind != E_NAME)
			continue;
		v = geval(k, f, s->a, true);
		if (v.kind != G_CONST)
			continue;
		gbind(k, f, aprintf(k->a, "%s.%s", cls->s, s->l1.v[0]->s), v, s->l1.v[0]->loc);
		n++;
	}
	if (!n)
		return false;
	v = gkind(G_ENUM, cls->s);
	v.n = 1;
	gbind(k, f, cls->s, v, cls->oploc);
	return true;
}

/* class NAME(enum.IntEnum) or (enum.IntFlag) at the top level (tokens
 * [i, e); a class with no base goes to classconsts), whose members are
 * integer constants or enum.auto(): Warp reads
 * a member as the int it is (an int32 constant).  Binds NAME as G_ENUM
 * and each member as "NAME.MEMBER"; false (nothing bound) for any other
 * class or member kpyc cannot value, which stays host code. */
bool
intenum(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e)
{
	NodeList *l;
	Node *cls;
	GVal b, v;
	bool flag;
	int64_t last = 0, hi = 0, *vals;
	uint32_t j;
	int n = 0;

	if (i + 2 >= e || (f->toks.v[i + 2].kind != '(' && f->toks.v[i + 2].kind != ':'))
		return false;
	l = parse(k, f, i, e, true);
	if (!l || l->n != 1 || l->v[0]->kind != S_CLASS)
		return false;
	cls = l->v[0];
	if (cls->l2.n == 0 || (cls->l2.n == 1 && (b = geval(k, f, cls->l2.v[0], true)).kind == G_PYNAME &&
	                       strcmp(b.s, "builtins.object") == 0))
		return classconsts(k, f, cls);
	if (cls->l2.n != 1)
		return false;
	b = geval(k, f, cls->l2.v[0], true);
	if (b.kind != G_PYNAME || (strcmp(b.s, "enum.IntEnum") != 0 && strcmp(b.s, "enum.IntFlag") != 0))
		return false;
	flag = strcmp(b.s, "enum.IntFlag") == 0;
	/* every statement a member, a docstring or pass */
	for (j = 0; j < cls->l1.n; j++) {
		Node *s = cls->l1.v[j];
		if (s->kind == S_PASS || (s->kind == S_EXPR && s->a->kind == E_STR))
			continue;
		if (s->kind != S_ASSIGN || s->l1.n != 1 || s->l1.v[0]->kind != E_NAME)
			return false;
	}
	vals = aalloc(k->a, (cls->l1.n + 1) * sizeof *vals);
	for (j = 0; j < cls->l1.n; j++) {
		Node *s = cls->l1.v[j], *val;
		int64_t x;
		Lit lit;
		if (s->kind != S_ASSIGN)
			continue;
		val = s->a;
		if (val->kind == E_CALL && val->l1.n == 0 && val->l2.n == 0 &&
		    (v = geval(k, f, val->a, true)).kind == G_PYNAME && strcmp(v.s, "enum.auto") == 0) {
			/* enum's _generate_next_value_: IntEnum counts from 1, IntFlag
			 * takes the next power of two */
			if (!flag)
				x = n ? last + 1 : 1;
			else {
				x = 1;
				while (x <= hi && x < ((int64_t)1 << 62))
					x <<= 1;
			}
		} else {
			v = geval(k, f, val, true);
			if (v.kind != G_CONST || !numval(&v, &lit) || !lit.isint)
				return false; /* a member kpyc cannot value: host code */
			x = lit.i;
		}
		if (x < INT32_MIN || x > INT32_MAX)
			return false;
		vals[j] = last = x;
		if (x > hi)
			hi = x;
		n++;
	}
	for (j = 0; j < cls->l1.n; j++) {
		Node *s = cls->l1.v[j];
		if (s->kind != S_ASSIGN)
			continue;
		v = gscalar(k, S_I32, litint(vals[j]));
		v.s = "enum";
		gbind(k, f, aprintf(k->a, "%s.%s", cls->s, s->l1.v[0]->s), v, s->l1.v[0]->loc);
	}
	v = gkind(G_ENUM, cls->s);
	gbind(k, f, cls->s, v, cls->oploc);
	return true;
}
