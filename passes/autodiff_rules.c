/*
 * autodiff_rules.c — the derivative-rule language of ops.def's `deriv`
 * column: parser and instantiator (the grammar is in ops.def's header).
 *
 * A rule is read each time it is applied (rules are short, and this keeps
 * no state between calls).  Applying a rule emits ordinary kir ops through
 * the builder it is given: the contributions to the operands' adjoints.
 * Expansion items (`y = expr`) define a result by an expression of the
 * operands; the expression is built forward and differentiated through the
 * rules of its own ops (reverse order over the expression's DAG, so a `let`
 * shared by several uses is differentiated once).
 *
 * Known-zero adjoints are propagated while building (0*x, 0+x, linear ops
 * of 0, ...), so unused results and constant operands cost nothing.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "autodiff.h"

enum { N_OP, N_HELP, N_X, N_Y, N_G, N_FNUM, N_INUM };
enum { H_ZERO, H_COFACTOR, H_BLOCK, NHELP };
static const char *const helpname[NHELP] = {"zero", "cofactor", "block"};

enum { MAXKIDS = 24, MAXNODES = 2048, MAXITEMS = 48, MAXLETS = 48 };

/* Type words usable as <...> arguments: the rule's float component kind. */
static const struct { const char *name; int k, n, m; } tyword[] = {
	{"scalar", T_SCALAR, 0, 0}, {"vec2", T_VEC, 2, 0}, {"vec3", T_VEC, 3, 0},
	{"vec4", T_VEC, 4, 0},      {"vec6", T_VEC, 6, 0}, {"mat22", T_MAT, 2, 2},
	{"mat33", T_MAT, 3, 3},     {"mat44", T_MAT, 4, 4}, {"mat66", T_MAT, 6, 6},
	{"quat", T_QUAT, 0, 0},     {"transform", T_XFORM, 0, 0},
};

typedef struct Node {
	int kind;                 /* N_* */
	int code;                 /* N_OP: OP_*; N_HELP: H_* */
	int idx;                  /* N_X, N_Y, N_G: operand or result number */
	double num;               /* N_FNUM, N_INUM */
	int tyw;                  /* type word + 1, or 0 */
	struct Node *targ;        /* <expr> type argument, or NULL */
	struct Node *kid[MAXKIDS];
	int nk;
	/* instantiation */
	Val val;                  /* forward value (0: not built yet) */
	Val adj;                  /* accumulated adjoint (expansions) */
	int order;                /* position in build order, for the reverse sweep */
} Node;

typedef struct Item {
	int kind;                 /* 'a' contribution, 'y' definition */
	int idx;                  /* operand or result number */
	Node *e;
} Item;

typedef struct Let {
	char name[32];
	Node *e;
} Let;

typedef struct RP {
	const char *s;            /* cursor in the rule text */
	const char *end;          /* end of the current alternative */
	const char *err;          /* first error, or NULL */
	Node *pool;
	int npool;
	Let lets[MAXLETS];
	int nlets;
	Item items[MAXITEMS];
	int nitems;
} RP;

/* ------------------------------------------------------------------ */
/* parsing                                                             */

static void
skipws(RP *p)
{
	while (p->s < p->end && isspace((unsigned char)*p->s))
		p->s++;
}

static bool
eat(RP *p, char c)
{
	skipws(p);
	if (p->s < p->end && *p->s == c) {
		p->s++;
		return true;
	}
	return false;
}

static void
perr(RP *p, const char *msg)
{
	if (!p->err)
		p->err = msg;
	p->s = p->end;
}

static size_t
ident(RP *p, const char **start)
{
	skipws(p);
	*start = p->s;
	while (p->s < p->end && (isalnum((unsigned char)*p->s) || *p->s == '_'))
		p->s++;
	return (size_t)(p->s - *start);
}

static Node *
newnode(RP *p, int kind)
{
	Node *n;

	if (p->npool == MAXNODES) {
		perr(p, "rule too long");
		n = &p->pool[0];
		return n;
	}
	n = &p->pool[p->npool++];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	return n;
}

static bool
sameword(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(s, w, n) == 0;
}

static Node *expr(RP *p);

static Node *
expr(RP *p)
{
	const char *s;
	size_t n;
	Node *e;
	int i;

	skipws(p);
	if (p->s < p->end && (isdigit((unsigned char)*p->s) || *p->s == '-')) {
		char *q;
		double v = strtod(p->s, &q);
		bool isf = false;
		const char *c;
		if (q == p->s || q > p->end) {
			perr(p, "bad number");
			return newnode(p, N_FNUM);
		}
		for (c = p->s; c < q; c++)
			if (*c == '.' || *c == 'e' || *c == 'E')
				isf = true;
		e = newnode(p, isf ? N_FNUM : N_INUM);
		e->num = v;
		p->s = q;
		return e;
	}
	n = ident(p, &s);
	if (n == 0) {
		perr(p, "expected an expression");
		return newnode(p, N_FNUM);
	}
	skipws(p);
	if (p->s < p->end && (*p->s == '(' || *p->s == '<')) {
		int code = -1, h = -1;
		for (i = 0; i < NHELP; i++)
			if (sameword(s, n, helpname[i]))
				h = i;
		if (h == H_ZERO && *p->s == '<')
			h = -1; /* zero<T>(): the op */
		if (h < 0 && (code = oplookup(s, n)) < 0) {
			perr(p, "unknown op in rule");
			return newnode(p, N_FNUM);
		}
		e = newnode(p, h >= 0 ? N_HELP : N_OP);
		e->code = h >= 0 ? h : code;
		if (eat(p, '<')) {
			const char *w;
			size_t wn;
			const char *save = p->s;
			wn = ident(p, &w);
			for (i = 0; i < (int)countof(tyword); i++)
				if (sameword(w, wn, tyword[i].name))
					e->tyw = i + 1;
			if (!e->tyw) {
				p->s = save;
				e->targ = expr(p);
			}
			if (!eat(p, '>'))
				perr(p, "expected '>'");
		}
		if (!eat(p, '('))
			perr(p, "expected '('");
		if (!eat(p, ')')) {
			do {
				if (e->nk == MAXKIDS) {
					perr(p, "too many operands");
					break;
				}
				e->kid[e->nk++] = expr(p);
			} while (eat(p, ','));
			if (!eat(p, ')'))
				perr(p, "expected ')'");
		}
		return e;
	}
	if ((s[0] == 'x' || s[0] == 'y' || s[0] == 'g') && (n == 1 || (n == 2 && isdigit((unsigned char)s[1])))) {
		if (s[0] == 'x' && n == 1) {
			perr(p, "x needs an operand number");
			return newnode(p, N_FNUM);
		}
		e = newnode(p, s[0] == 'x' ? N_X : s[0] == 'y' ? N_Y : N_G);
		e->idx = n == 2 ? s[1] - '0' : 0;
		return e;
	}
	for (i = p->nlets; i-- > 0;)
		if (sameword(s, n, p->lets[i].name))
			return p->lets[i].e;
	perr(p, "unknown name in rule");
	return newnode(p, N_FNUM);
}

/* Parse the items of the alternative [p->s, p->end). */
static void
items(RP *p)
{
	do {
		const char *s;
		size_t n;
		skipws(p);
		if (p->s >= p->end)
			break;
		n = ident(p, &s);
		if (sameword(s, n, "let")) {
			const char *w;
			size_t wn = ident(p, &w);
			if (wn == 0 || wn >= sizeof p->lets[0].name || p->nlets == MAXLETS) {
				perr(p, "bad let");
				return;
			}
			if (!eat(p, '=')) {
				perr(p, "expected '=' after let NAME");
				return;
			}
			memcpy(p->lets[p->nlets].name, w, wn);
			p->lets[p->nlets].name[wn] = 0;
			p->lets[p->nlets].e = expr(p);
			p->nlets++;
		} else if ((n == 2 && s[0] == 'a' && isdigit((unsigned char)s[1])) ||
		           ((n == 1 || (n == 2 && isdigit((unsigned char)s[1]))) && s[0] == 'y')) {
			Item *it;
			if (p->nitems == MAXITEMS) {
				perr(p, "too many items");
				return;
			}
			it = &p->items[p->nitems++];
			it->e = NULL;
			it->kind = s[0];
			it->idx = n == 2 ? s[1] - '0' : 0;
			if (!eat(p, s[0] == 'a' ? ':' : '=')) {
				perr(p, s[0] == 'a' ? "expected ':' after aN" : "expected '=' after y");
				return;
			}
			it->e = expr(p);
		} else {
			perr(p, "expected an item (aN: expr, y = expr or let NAME = expr)");
			return;
		}
	} while (eat(p, ';'));
	skipws(p);
	if (p->s < p->end)
		perr(p, "junk after the items");
}

/* ------------------------------------------------------------------ */
/* instantiation                                                       */

typedef struct IC {
	RuleApp *ra;
	Builder *b;
	int fs;            /* float scalar kind of the rule's numbers */
	const char *err;
	Node **built;      /* nodes in build order (expansions) */
	int nbuilt;
} IC;

static Type
ty(IC *c, Val v)
{
	return vty(c->b->f, v);
}

bool
addiff(const Module *m, Type t)
{
	uint32_t i;

	if (t.k == T_SCALAR || iscomposite(t))
		return scalarisfloat(t.s);
	if (t.k == T_STRUCT && t.sid < m->nstructs) {
		for (i = 0; i < m->structs[t.sid].nfields; i++)
			if (addiff(m, m->structs[t.sid].fields[i].ty))
				return true;
	}
	return false;
}

Val
adzero(Builder *b, Type t)
{
	if (t.k == T_SCALAR || iscomposite(t))
		return czero(b->m, b->f, t);
	return bop(b, OP_ZERO, NULL, 0, &t, 1)->res[0];
}

bool
adiszero(Builder *b, Val v)
{
	const Value *x;
	int i, n;

	if (!v)
		return true;
	x = &b->f->vals[v];
	if (x->kind == V_CONST) {
		if (x->ty.k == T_STR)
			return false;
		n = ncomp(x->ty);
		for (i = 0; i < n; i++)
			if (scalarisfloat(x->ty.s) ? x->c[i].f != 0.0 : x->c[i].i != 0)
				return false;
		return n > 0;
	}
	return x->kind == V_RES && x->def && x->def->code == OP_ZERO;
}

/* Emit op code on args with declared result type *decl (or inferred). */
static Val
emit(IC *c, int code, const Val *args, int n, const Type *decl, int attr)
{
	Type in[MAXKIDS + 2], out[8];
	Buf e = {0};
	int i, r;
	Op *op;

	for (i = 0; i < n; i++)
		in[i] = ty(c, args[i]);
	if (decl)
		out[0] = *decl;
	r = typeop(c->b->m, code, in, n, attr, out, &e);
	if (r != 1) {
		if (!c->err)
			c->err = astrdup(c->b->m->arena, e.s ? e.s : "rule op does not yield one value");
		buffree(&e);
		return 0;
	}
	buffree(&e);
	op = bop(c->b, code, args, n, out, 1);
	op->attr = attr;
	return op->res[0];
}

/* Result type of code on args (no op emitted); false on a typing error. */
static bool
restype(IC *c, int code, const Val *args, int n, const Type *decl, Type *t)
{
	Type in[MAXKIDS + 2], out[8];
	int i;

	for (i = 0; i < n; i++)
		in[i] = ty(c, args[i]);
	if (decl)
		out[0] = *decl;
	if (typeop(c->b->m, code, in, n, 0, out, NULL) != 1)
		return false;
	*t = out[0];
	return true;
}

/* Build op code on args, simplifying known zeros. */
static Val
mk(IC *c, int code, Val *args, int n, const Type *decl, int attr)
{
	Builder *b = c->b;
	int i, nz = 0, nf = 0;
	uint32_t fl = opinfo[code].flags;
	Type t;

	if (code == OP_ZERO && decl && (decl->k == T_SCALAR || iscomposite(*decl)))
		return czero(b->m, b->f, *decl);
	for (i = 0; i < n; i++) {
		if (!args[i])
			return 0;
		if (isfloatcomp(ty(c, args[i])) || ty(c, args[i]).k == T_STRUCT) {
			nf++;
			if (adiszero(b, args[i]))
				nz++;
		}
	}
	if (code == OP_ADD && n == 2) {
		if (adiszero(b, args[0]) && typeeq(ty(c, args[0]), ty(c, args[1])))
			return args[1];
		if (adiszero(b, args[1]) && typeeq(ty(c, args[0]), ty(c, args[1])))
			return args[0];
	}
	if (code == OP_SUB && n == 2 && adiszero(b, args[1]) && typeeq(ty(c, args[0]), ty(c, args[1])))
		return args[0];
	if (code == OP_SUB && n == 2 && adiszero(b, args[0]) && typeeq(ty(c, args[0]), ty(c, args[1])))
		return mk(c, OP_NEG, &args[1], 1, NULL, 0);
	if (nf > 0 && (((fl & F_LINEAR) && nz == nf) || ((fl & F_MULTILIN) && nz > 0) ||
	               ((code == OP_DIV || code == OP_CW_DIV) && adiszero(b, args[0])) ||
	               (code == OP_EXTRACT && adiszero(b, args[0])) ||
	               (code == OP_INSERT && adiszero(b, args[0]) && adiszero(b, args[n - 1])) ||
	               (code == OP_WHERE && adiszero(b, args[1]) && adiszero(b, args[2]))) &&
	    restype(c, code, args, n, decl, &t) && (isfloatcomp(t) || t.k == T_STRUCT))
		return adzero(b, t);
	return emit(c, code, args, n, decl, attr);
}

static Type
wordtype(IC *c, int w)
{
	int k = tyword[w].k, s = c->fs;

	switch (k) {
	case T_SCALAR: return tscalar(s);
	case T_VEC: return tvec(tyword[w].n, s);
	case T_MAT: return tmat(tyword[w].n, tyword[w].m, s);
	case T_QUAT: return tquat(s);
	default: return txform(s);
	}
}

static Val build(IC *c, Node *e);

/* Cofactor matrix of the square matrix v. */
static Val
cofactor(IC *c, Val v)
{
	Type t = ty(c, v), mt;
	int n = t.n, i, j, r, q, k;
	Val el[16], minor[9], idx[2];

	if (t.k != T_MAT || t.n != t.m || n < 2 || n > 4) {
		c->err = "cofactor of a matrix that is not 2x2, 3x3 or 4x4";
		return 0;
	}
	mt = tmat(n - 1, n - 1, t.s);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			Val d;
			if (n == 2) {
				idx[0] = cint(c->b->m, c->b->f, S_I32, 1 - i);
				idx[1] = cint(c->b->m, c->b->f, S_I32, 1 - j);
				d = mk(c, OP_EXTRACT, (Val[]){v, idx[0], idx[1]}, 3, NULL, 0);
			} else {
				k = 0;
				for (r = 0; r < n; r++)
					for (q = 0; q < n; q++)
						if (r != i && q != j)
							minor[k++] = mk(c, OP_EXTRACT,
							                (Val[]){v, cint(c->b->m, c->b->f, S_I32, r),
							                        cint(c->b->m, c->b->f, S_I32, q)}, 3, NULL, 0);
				d = mk(c, OP_MAT, minor, k, &mt, 0);
				d = mk(c, OP_DETERMINANT, &d, 1, NULL, 0);
			}
			if ((i + j) & 1)
				d = mk(c, OP_NEG, &d, 1, NULL, 0);
			el[i * n + j] = d;
		}
	return mk(c, OP_MAT, el, n * n, &t, 0);
}

/* The R x C block of matrix v at (r0, c0), R x C from type t. */
static Val
block(IC *c, Type t, Val v, Val r0, Val c0)
{
	Val el[64];
	int i, j, a, bb;
	Module *m = c->b->m;

	if (t.k != T_MAT || !isconst(c->b->f, r0) || !isconst(c->b->f, c0) || t.n * t.m > 64) {
		c->err = "block<matrix type>(m, row, col) with constant row and col";
		return 0;
	}
	a = (int)c->b->f->vals[r0].c[0].i;
	bb = (int)c->b->f->vals[c0].c[0].i;
	for (i = 0; i < t.n; i++)
		for (j = 0; j < t.m; j++)
			el[i * t.m + j] = mk(c, OP_EXTRACT,
			                     (Val[]){v, cint(m, c->b->f, S_I32, a + i), cint(m, c->b->f, S_I32, bb + j)}, 3,
			                     NULL, 0);
	return mk(c, OP_MAT, el, t.n * t.m, &t, 0);
}

static Val
build(IC *c, Node *e)
{
	RuleApp *ra = c->ra;
	Val args[MAXKIDS];
	Type decl, *dp = NULL;
	int i;

	if (e->val)
		return e->val;
	switch (e->kind) {
	case N_X:
		if (e->idx >= ra->nx) {
			c->err = "rule names a missing operand";
			return 0;
		}
		return ra->x[e->idx];
	case N_Y:
		if (e->idx >= ra->ny) {
			c->err = "rule names a missing result";
			return 0;
		}
		return ra->y[e->idx];
	case N_G:
		if (e->idx >= ra->ny) {
			c->err = "rule names a missing result";
			return 0;
		}
		return ra->g[e->idx] ? ra->g[e->idx] : adzero(c->b, ty(c, ra->y[e->idx]));
	case N_FNUM:
		return cfloat(c->b->m, c->b->f, c->fs, e->num);
	case N_INUM:
		return cint(c->b->m, c->b->f, S_I32, (int64_t)e->num);
	}
	for (i = 0; i < e->nk; i++)
		if (!(args[i] = build(c, e->kid[i])))
			return 0;
	if (e->tyw) {
		decl = wordtype(c, e->tyw - 1);
		dp = &decl;
	} else if (e->targ) {
		Val tv = build(c, e->targ);
		if (!tv)
			return 0;
		decl = ty(c, tv);
		dp = &decl;
	}
	if (e->kind == N_HELP) {
		switch (e->code) {
		case H_ZERO:
			if (e->nk != 1) {
				c->err = "zero(expr)";
				return 0;
			}
			e->val = adzero(c->b, ty(c, args[0]));
			break;
		case H_COFACTOR:
			if (e->nk != 1) {
				c->err = "cofactor(matrix)";
				return 0;
			}
			e->val = cofactor(c, args[0]);
			break;
		case H_BLOCK:
			if (e->nk != 3 || !dp) {
				c->err = "block<matrix type>(m, row, col)";
				return 0;
			}
			e->val = block(c, decl, args[0], args[1], args[2]);
			break;
		}
	} else {
		if ((opinfo[e->code].flags & F_CAST) && !dp) {
			c->err = "a constructor or cast in a rule needs a <type>";
			return 0;
		}
		e->val = mk(c, e->code, args, e->nk, dp, 0);
	}
	if (e->val && c->built) {
		e->order = c->nbuilt;
		c->built[c->nbuilt++] = e;
	}
	return e->val;
}

/* ------------------------------------------------------------------ */
/* rules                                                               */

static bool
patmatch(char p, Type t)
{
	switch (p) {
	case '_': return true;
	case 's': return t.k == T_SCALAR;
	case 'v': return t.k == T_VEC;
	case 'm': return t.k == T_MAT;
	case 'q': return t.k == T_QUAT;
	case 't': return t.k == T_XFORM;
	}
	return false;
}

/* Float component kind of the rule's numbers: the first float operand's,
 * else the first float result's, else f32. */
static int
floatkind(const RuleApp *ra)
{
	int i;
	const Func *f = ra->b->f;

	for (i = 0; i < ra->nx; i++)
		if (scalarisfloat(vty(f, ra->x[i]).s) && vty(f, ra->x[i]).k != T_ARRAY && vty(f, ra->x[i]).k != T_STRUCT)
			return vty(f, ra->x[i]).s;
	for (i = 0; i < ra->ny; i++)
		if (scalarisfloat(vty(f, ra->y[i]).s) && vty(f, ra->y[i]).k != T_STRUCT)
			return vty(f, ra->y[i]).s;
	return S_F32;
}

static int builtin(RuleApp *ra, const char *name, size_t n, Val *contrib, const char **err);

static void
addcontrib(RuleApp *ra, Val *contrib, int k, Val v)
{
	Builder *b = ra->b;

	if (!v || k >= ra->nx || adiszero(b, v))
		return;
	if (!addiff(b->m, vty(b->f, ra->x[k])) || isconst(b->f, ra->x[k]))
		return;
	contrib[k] = adadd(b, contrib[k], v);
}

/* Expansion items: build the definitions forward, then sweep their DAG in
 * reverse, applying each op's own rule. */
static int
expansion(RuleApp *ra, RP *p, IC *c, Val *contrib, const char **err)
{
	Node **built = xmalloc(MAXNODES * sizeof *built);
	int i, r = 0;

	c->built = built;
	c->nbuilt = 0;
	for (i = 0; i < p->nitems; i++) {
		Item *it = &p->items[i];
		if (it->kind != 'y')
			continue;
		if (it->idx >= ra->ny) {
			*err = "rule defines a missing result";
			r = -1;
			goto done;
		}
		build(c, it->e);
		if (c->err) {
			*err = c->err;
			r = -1;
			goto done;
		}
	}
	for (i = 0; i < p->nitems; i++) {
		Item *it = &p->items[i];
		Val g;
		if (it->kind != 'y' || !(g = ra->g[it->idx]))
			continue;
		if (it->e->kind == N_X)
			addcontrib(ra, contrib, it->e->idx, g);
		else
			it->e->adj = adadd(ra->b, it->e->adj, g);
	}
	for (i = c->nbuilt; i-- > 0;) {
		Node *e = built[i];
		RuleApp sub;
		Val kx[MAXKIDS], kc[MAXKIDS];
		int k;
		if (!e->adj || adiszero(ra->b, e->adj) || e->kind != N_OP)
			continue;
		for (k = 0; k < e->nk; k++)
			kx[k] = e->kid[k]->val ? e->kid[k]->val : build(c, e->kid[k]);
		memset(kc, 0, sizeof kc);
		sub.b = ra->b;
		sub.code = e->code;
		sub.attr = 0;
		sub.x = kx;
		sub.nx = e->nk;
		sub.y = &e->val;
		sub.ny = 1;
		sub.g = &e->adj;
		if (adrule(&sub, kc, err) < 0) {
			r = -1;
			goto done;
		}
		for (k = 0; k < e->nk; k++) {
			Node *kid = e->kid[k];
			if (!kc[k])
				continue;
			if (kid->kind == N_X)
				addcontrib(ra, contrib, kid->idx, kc[k]);
			else if (kid->kind == N_OP)
				kid->adj = adadd(ra->b, kid->adj, kc[k]);
		}
	}
done:
	c->built = NULL;
	free(built);
	return r;
}

/* Apply the items of an alternative (already parsed into p). */
static int
apply(RuleApp *ra, RP *p, Val *contrib, const char **err)
{
	IC c = {0};
	int i;
	bool expand = false;

	c.ra = ra;
	c.b = ra->b;
	c.fs = floatkind(ra);
	for (i = 0; i < p->nitems; i++)
		if (p->items[i].kind == 'y')
			expand = true;
	if (expand && expansion(ra, p, &c, contrib, err) < 0)
		return -1;
	c.built = NULL;
	/* direct contributions */
	for (i = 0; i < p->nitems; i++) {
		Item *it = &p->items[i];
		Val v;
		if (it->kind != 'a')
			continue;
		if (it->idx >= ra->nx) {
			*err = "rule item for a missing operand";
			return -1;
		}
		if (!addiff(ra->b->m, vty(ra->b->f, ra->x[it->idx])) || isconst(ra->b->f, ra->x[it->idx]))
			continue;
		v = build(&c, it->e);
		if (c.err) {
			*err = c.err;
			return -1;
		}
		addcontrib(ra, contrib, it->idx, v);
	}
	return 0;
}

/* Split the rule into alternatives; find the one whose patterns match
 * (with `comp` set, composite operands are read as scalars). */
static int
pick(const char *rule, const RuleApp *ra, bool comp, const char **as, const char **ae)
{
	const char *s = rule, *e;

	for (;;) {
		const char *q;
		e = strchr(s, '|');
		if (!e)
			e = s + strlen(s);
		q = s;
		while (q < e && isspace((unsigned char)*q))
			q++;
		if (q < e && *q == '[') {
			int n = 0;
			bool ok = true;
			q++;
			for (;;) {
				while (q < e && isspace((unsigned char)*q))
					q++;
				if (q >= e || *q == ']')
					break;
				if (n >= ra->nx)
					ok = false;
				else {
					Type t = vty(ra->b->f, ra->x[n]);
					if (comp && (t.k == T_VEC || t.k == T_QUAT || t.k == T_MAT || t.k == T_XFORM))
						t = tcomp(t);
					if (!patmatch(*q, t))
						ok = false;
				}
				n++;
				q++;
				while (q < e && isspace((unsigned char)*q))
					q++;
				if (q < e && *q == ',')
					q++;
			}
			if (q < e)
				q++;
			if (ok && n == ra->nx) {
				*as = q;
				*ae = e;
				return 0;
			}
		} else if (!comp) {
			*as = q;
			*ae = e;
			return 0;
		}
		if (!*e)
			return -1;
		s = e + 1;
	}
}

/* A copy of parsed alternative t with nodes of its own (apply writes its
 * state into the nodes); the pointers between nodes are moved along. */
static void
rpcopyto(RP *p, Node *pool, const RP *t)
{
	int i, k;

#define MOVED(n) ((n) ? p->pool + ((n) - t->pool) : NULL)
	p->s = t->s;
	p->end = t->end;
	p->err = NULL;
	p->npool = t->npool;
	p->pool = pool;
	memcpy(p->pool, t->pool, (size_t)t->npool * sizeof *p->pool);
	for (i = 0; i < p->npool; i++) {
		Node *n = &p->pool[i];
		n->targ = MOVED(n->targ);
		for (k = 0; k < n->nk; k++)
			n->kid[k] = MOVED(n->kid[k]);
	}
	p->nlets = 0; /* names are only needed while parsing */
	p->nitems = t->nitems;
	for (i = 0; i < t->nitems; i++) {
		p->items[i] = t->items[i];
		p->items[i].e = MOVED(t->items[i].e);
	}
#undef MOVED
}

static RP *
rpcopy(const RP *t)
{
	RP *p = xmalloc(sizeof *p);

	rpcopyto(p, xmalloc((size_t)(t->npool ? t->npool : 1) * sizeof *p->pool), t);
	return p;
}

static void
rpfree(RP *p)
{
	if (p) {
		free(p->pool);
		free(p);
	}
}

/* Parsed alternatives by their text (in the static op table, so its
 * address names it): parsing a rule costs more than copying it. */
enum { RPCACHE = 256 };
static _Thread_local struct {
	const char *as, *ae;
	RP *tpl;
} rpcache[RPCACHE];

void
adrulesdone(void)
{
	int i;

	for (i = 0; i < RPCACHE; i++) {
		rpfree(rpcache[i].tpl);
		rpcache[i].tpl = NULL;
		rpcache[i].as = rpcache[i].ae = NULL;
	}
}

static int
applyalt(RuleApp *ra, const char *as, const char *ae, Val *contrib, const char **err)
{
	RP *p;
	const char *q = as;
	unsigned slot = (unsigned)(((uintptr_t)as >> 2) * 2654435761u) % RPCACHE;
	int r;

	if (rpcache[slot].tpl && rpcache[slot].as == as && rpcache[slot].ae == ae) {
		/* a rule of a few nodes (most): its copy on the stack */
		if (rpcache[slot].tpl->npool <= 32) {
			RP cp;
			Node pool[32];
			rpcopyto(&cp, pool, rpcache[slot].tpl);
			return apply(ra, &cp, contrib, err);
		}
		p = rpcopy(rpcache[slot].tpl);
		r = apply(ra, p, contrib, err);
		rpfree(p);
		return r;
	}
	p = xmalloc(sizeof *p); /* the lets and items are written as counted */
	while (q < ae && isspace((unsigned char)*q))
		q++;
	if (q < ae && *q == '@') {
		const char *n = ++q;
		while (q < ae && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		free(p);
		return builtin(ra, n, (size_t)(q - n), contrib, err);
	}
	p->pool = xmalloc(MAXNODES * sizeof *p->pool); /* newnode clears each node */
	p->npool = p->nlets = p->nitems = 0;
	p->err = NULL;
	p->s = as;
	p->end = ae;
	items(p);
	if (p->err) {
		*err = aprintf(ra->b->m->arena, "bad derivative rule of %s: %s", opinfo[ra->code].name, p->err);
		r = -1;
	} else {
		rpfree(rpcache[slot].tpl);
		rpcache[slot].tpl = rpcopy(p);
		rpcache[slot].as = as;
		rpcache[slot].ae = ae;
		r = apply(ra, p, contrib, err);
	}
	rpfree(p);
	return r;
}

/* Componentwise: apply the scalar alternative to every component of the
 * composite operands (all of one shape); scalar operands are shared. */
static int
componentwise(RuleApp *ra, const char *as, const char *ae, Val *contrib, const char **err)
{
	Builder *b = ra->b;
	Module *m = b->m;
	Type shape = {0};
	int i, k, n, nx = ra->nx;
	Val cx[MAXKIDS], cy[8], cg[8], cc[MAXKIDS];
	Val *parts[MAXKIDS];

	for (i = 0; i < nx; i++) {
		Type t = vty(b->f, ra->x[i]);
		if (iscomposite(t)) {
			if (shape.k && !(shape.k == t.k && shape.n == t.n && shape.m == t.m)) {
				*err = "componentwise rule on composites of different shapes";
				return -1;
			}
			shape = t;
		}
	}
	if (!shape.k || ra->ny != 1) {
		*err = "componentwise rule needs a composite operand and one result";
		return -1;
	}
	n = ncomp(shape);
	for (i = 0; i < nx; i++)
		parts[i] = xcalloc((size_t)n + 1, sizeof(Val));
	for (k = 0; k < n; k++) {
		RuleApp sub = *ra;
		Val idx[2] = {0, 0};
		int ni;
		if (shape.k == T_MAT) {
			idx[0] = cint(m, b->f, S_I32, k / shape.m);
			idx[1] = cint(m, b->f, S_I32, k % shape.m);
			ni = 2;
		} else {
			idx[0] = cint(m, b->f, S_I32, k);
			ni = 1;
		}
		for (i = 0; i < nx; i++) {
			Type t = vty(b->f, ra->x[i]);
			if (iscomposite(t)) {
				Val a[3] = {ra->x[i], idx[0], idx[1]};
				cx[i] = b1(b, OP_EXTRACT, a, 1 + ni, NULL);
			} else {
				cx[i] = ra->x[i];
			}
		}
		{
			Val a[3] = {ra->y[0], idx[0], idx[1]};
			cy[0] = b1(b, OP_EXTRACT, a, 1 + ni, NULL);
			if (ra->g[0] && !adiszero(b, ra->g[0])) {
				a[0] = ra->g[0];
				cg[0] = b1(b, OP_EXTRACT, a, 1 + ni, NULL);
			} else {
				cg[0] = 0;
			}
		}
		if (!cg[0])
			continue;
		sub.x = cx;
		sub.y = cy;
		sub.g = cg;
		memset(cc, 0, sizeof cc);
		if (applyalt(&sub, as, ae, cc, err) < 0) {
			for (i = 0; i < nx; i++)
				free(parts[i]);
			return -1;
		}
		for (i = 0; i < nx; i++) {
			if (!cc[i])
				continue;
			if (iscomposite(vty(b->f, ra->x[i])))
				parts[i][k] = cc[i];
			else
				addcontrib(ra, contrib, i, cc[i]);
		}
	}
	for (i = 0; i < nx; i++) {
		Type t = vty(b->f, ra->x[i]);
		bool any = false;
		if (iscomposite(t)) {
			for (k = 0; k < n; k++)
				if (parts[i][k])
					any = true;
				else
					parts[i][k] = czero(m, b->f, tcomp(t));
			if (any) {
				int code = t.k == T_VEC ? OP_VEC : t.k == T_MAT ? OP_MAT : t.k == T_QUAT ? OP_QUAT : OP_TRANSFORM;
				Op *op = bop(b, code, parts[i], n, &t, 1);
				addcontrib(ra, contrib, i, op->res[0]);
			}
		}
		free(parts[i]);
	}
	return 0;
}

int
adrule(RuleApp *ra, Val *contrib, const char **err)
{
	const char *rule = opinfo[ra->code].deriv, *as, *ae;
	int i;
	bool anyg = false;

	for (i = 0; i < ra->ny; i++)
		if (ra->g[i] && !adiszero(ra->b, ra->g[i]))
			anyg = true;
	if (!anyg)
		return 0;
	if (opinfo[ra->code].flags & F_NOAD)
		return 0;
	if (!*rule) {
		*err = aprintf(ra->b->m->arena, "no derivative for op %s", opinfo[ra->code].name);
		return -1;
	}
	if (pick(rule, ra, false, &as, &ae) == 0)
		return applyalt(ra, as, ae, contrib, err);
	if (pick(rule, ra, true, &as, &ae) == 0)
		return componentwise(ra, as, ae, contrib, err);
	{
		Buf b = {0};
		bufprintf(&b, "no derivative rule of op %s applies to operands of types (", opinfo[ra->code].name);
		for (i = 0; i < ra->nx; i++)
			bufprintf(&b, "%s%s", i ? ", " : "", typestr(ra->b->m, vty(ra->b->f, ra->x[i])));
		bufputc(&b, ')');
		*err = astrdup(ra->b->m->arena, b.s);
		buffree(&b);
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* built-in rules                                                      */

static Val
ext(Builder *b, Val v, int i)
{
	Val a[2] = {v, cint(b->m, b->f, S_I32, i)};
	return b1(b, OP_EXTRACT, a, 2, NULL);
}

static Val
ext2(Builder *b, Val v, int i, int j)
{
	Val a[3] = {v, cint(b->m, b->f, S_I32, i), cint(b->m, b->f, S_I32, j)};
	return b1(b, OP_EXTRACT, a, 3, NULL);
}

static int
ctor(RuleApp *ra, Val *contrib)
{
	Builder *b = ra->b;
	Val g = ra->g[0];
	Type t = vty(b->f, ra->y[0]);
	int n = ra->nx, i;

	if (n == 0)
		return 0;
	switch (ra->code) {
	case OP_MATRIX_FROM_ROWS:
		for (i = 0; i < n; i++)
			addcontrib(ra, contrib, i, ext(b, g, i));
		return 0;
	case OP_MATRIX_FROM_COLS: {
		Val gt = bun(b, OP_TRANSPOSE, g);
		for (i = 0; i < n; i++)
			addcontrib(ra, contrib, i, ext(b, gt, i));
		return 0;
	}
	}
	if (n == ncomp(t) && vty(b->f, ra->x[0]).k == T_SCALAR) {
		for (i = 0; i < n; i++)
			addcontrib(ra, contrib, i,
			           t.k == T_MAT ? ext2(b, g, i / t.m, i % t.m) : ext(b, g, i));
		return 0;
	}
	if (n == 1 && vty(b->f, ra->x[0]).k == T_SCALAR) {
		/* broadcast: the sum of the components */
		Val s = 0;
		int k, nc = ncomp(t);
		for (k = 0; k < nc; k++) {
			Val c = t.k == T_MAT ? ext2(b, g, k / t.m, k % t.m) : ext(b, g, k);
			s = s ? b2(b, OP_ADD, s, c) : c;
		}
		addcontrib(ra, contrib, 0, s);
		return 0;
	}
	if (t.k == T_MAT && n == t.n) {
		for (i = 0; i < n; i++)
			addcontrib(ra, contrib, i, ext(b, g, i));
		return 0;
	}
	if (t.k == T_VEC) {
		/* concatenation, e.g. spatial_vector(w, v): each operand's
		 * components of the adjoint */
		int off = 0, k;
		for (i = 0; i < n; i++)
			off += ncomp(vty(b->f, ra->x[i]));
		if (off != t.n)
			return -1;
		for (i = off = 0; i < n; i++) {
			Type xt = vty(b->f, ra->x[i]);
			int nc = ncomp(xt);
			if (xt.k == T_SCALAR) {
				addcontrib(ra, contrib, i, ext(b, g, off));
			} else if (xt.k == T_VEC) {
				Val c[MAXVEC];
				for (k = 0; k < nc; k++)
					c[k] = ext(b, g, off + k);
				addcontrib(ra, contrib, i, bop(b, OP_VEC, c, nc, &xt, 1)->res[0]);
			} else {
				return -1;
			}
			off += nc;
		}
		return 0;
	}
	if (t.k == T_QUAT && n == 2) {
		Type v3 = tvec(3, t.s);
		Val c[3] = {ext(b, g, 0), ext(b, g, 1), ext(b, g, 2)};
		addcontrib(ra, contrib, 0, bop(b, OP_VEC, c, 3, &v3, 1)->res[0]);
		addcontrib(ra, contrib, 1, ext(b, g, 3));
		return 0;
	}
	if (t.k == T_XFORM && n == 2) {
		addcontrib(ra, contrib, 0, bun(b, OP_TRANSFORM_GET_TRANSLATION, g));
		addcontrib(ra, contrib, 1, bun(b, OP_TRANSFORM_GET_ROTATION, g));
		return 0;
	}
	return -1;
}

static int
builtin(RuleApp *ra, const char *name, size_t n, Val *contrib, const char **err)
{
	Builder *b = ra->b;
	Module *m = b->m;

	if (sameword(name, n, "ctor")) {
		if (ctor(ra, contrib) < 0) {
			*err = aprintf(m->arena, "no derivative rule of %s for these operands", opinfo[ra->code].name);
			return -1;
		}
		return 0;
	}
	if (sameword(name, n, "cast")) {
		Type from = vty(b->f, ra->x[0]);
		if (addiff(m, from) && addiff(m, vty(b->f, ra->y[0])))
			addcontrib(ra, contrib, 0, bop(b, OP_CAST, ra->g, 1, &from, 1)->res[0]);
		return 0;
	}
	if (sameword(name, n, "field")) {
		Type st = vty(b->f, ra->x[0]);
		Val a[2];
		Op *op;
		a[0] = adzero(b, st);
		a[1] = ra->g[0];
		op = bop(b, OP_SETFIELD, a, 2, &st, 1);
		op->attr = ra->attr;
		addcontrib(ra, contrib, 0, op->res[0]);
		return 0;
	}
	if (sameword(name, n, "setfield")) {
		Type st = vty(b->f, ra->x[0]), ft = vty(b->f, ra->x[1]);
		Val a[2];
		Op *op;
		a[0] = ra->g[0];
		a[1] = adzero(b, ft);
		op = bop(b, OP_SETFIELD, a, 2, &st, 1);
		op->attr = ra->attr;
		addcontrib(ra, contrib, 0, op->res[0]);
		if (addiff(m, ft)) {
			op = bop(b, OP_FIELD, ra->g, 1, &ft, 1);
			op->attr = ra->attr;
			addcontrib(ra, contrib, 1, op->res[0]);
		}
		return 0;
	}
	*err = aprintf(m->arena, "op %s is differentiated by autodiff itself, not by a rule", opinfo[ra->code].name);
	return -1;
}

/* ------------------------------------------------------------------ */
/* adjoint arithmetic                                                  */

Val
adadd(Builder *b, Val a, Val c)
{
	Type t;
	uint32_t i;

	if (!a || adiszero(b, a))
		return c ? c : a;
	if (!c || adiszero(b, c))
		return a;
	t = vty(b->f, a);
	if (t.k != T_STRUCT)
		return b2(b, OP_ADD, a, c);
	for (i = 0; i < b->m->structs[t.sid].nfields; i++) {
		Type ft = b->m->structs[t.sid].fields[i].ty;
		Op *fa, *fc, *s;
		Val sum, args[2];
		if (!addiff(b->m, ft))
			continue;
		fa = bop(b, OP_FIELD, &a, 1, &ft, 1);
		fa->attr = (int32_t)i;
		fc = bop(b, OP_FIELD, &c, 1, &ft, 1);
		fc->attr = (int32_t)i;
		sum = adadd(b, fa->res[0], fc->res[0]);
		args[0] = a;
		args[1] = sum;
		s = bop(b, OP_SETFIELD, args, 2, &t, 1);
		s->attr = (int32_t)i;
		a = s->res[0];
	}
	return a;
}

/* ------------------------------------------------------------------ */
/* checking the table                                                  */

int
adrulecheck(FILE *out)
{
	int code, nbad = 0;

	for (code = 0; code < NOPS; code++) {
		const char *rule = opinfo[code].deriv, *s = rule, *e;
		if (!*rule)
			continue;
		for (;;) {
			const char *q;
			e = strchr(s, '|');
			if (!e)
				e = s + strlen(s);
			q = s;
			while (q < e && isspace((unsigned char)*q))
				q++;
			if (q < e && *q == '[') {
				while (q < e && *q != ']')
					q++;
				q++;
			}
			while (q < e && isspace((unsigned char)*q))
				q++;
			if (q < e && *q != '@') {
				RP *p = xcalloc(1, sizeof *p);
				p->pool = xmalloc(MAXNODES * sizeof *p->pool);
				p->s = q;
				p->end = e;
				items(p);
				if (p->err) {
					fprintf(out, "%s: %s near '%.20s'\n", opinfo[code].name, p->err, p->s);
					nbad++;
				}
				free(p->pool);
				free(p);
			}
			if (!*e)
				break;
			s = e + 1;
		}
	}
	return nbad;
}
