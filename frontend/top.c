/*
 * top.c — a Python file's top level: what kpyc keeps and what it skips.
 *
 * A Warp module is ordinary Python: imports, host code, classes,
 * `if __name__ == "__main__":` blocks.  kpyc splits the token array into
 * top-level statements by indentation alone (a statement runs to the next
 * line at column 0 that does not continue it: else/elif/except/finally or
 * a decorated definition) and parses only:
 *   - imports (to learn the names of warp, warp.types, typing, math),
 *   - definitions decorated @wp.kernel / @wp.func / @wp.struct,
 *   - `NAME = expr` assignments, evaluated as constants or type aliases
 *     when they are (N = wp.constant(3), SCALE = 2.5,
 *     vec5 = wp.types.vector(length=5, dtype=wp.float32)), else recorded
 *     as host names.
 * Everything else is skipped without being parsed, so host code may use
 * any Python syntax.  Names are processed in order, like Python executes a
 * module; function bodies see the final binding of every name.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* ---- splitting the file -------------------------------------------- */

/* The end (exclusive) of the top-level statement starting at token i:
 * its first NEWLINE at depth 0 that is not followed by an indented block,
 * a continuation keyword (else, elif, except, finally) or, after a
 * decorator line, the decorated definition. */
static uint32_t
stmtend(const TokArray *t, uint32_t i)
{
	int depth = 0;
	uint32_t line = i; /* first token of the current logical line */

	for (; i < t->n; i++) {
		int kind = t->v[i].kind, nk;
		if (kind == T_END)
			return i;
		if (kind == T_INDENT) {
			depth++;
			line = i + 1;
			continue;
		}
		if (kind == T_DEDENT) {
			depth--;
			line = i + 1;
			if (depth > 0)
				continue;
			depth = 0;
			nk = i + 1 < t->n ? t->v[i + 1].kind : T_END;
			if (nk == T_DEDENT || nk == T_ELSE || nk == T_ELIF || nk == T_EXCEPT || nk == T_FINALLY)
				continue;
			return i + 1;
		}
		if (kind != T_NEWLINE || depth > 0) {
			if (kind == T_NEWLINE)
				line = i + 1;
			continue;
		}
		nk = i + 1 < t->n ? t->v[i + 1].kind : T_END;
		if (nk == T_INDENT || t->v[line].kind == '@' ||
		    nk == T_ELSE || nk == T_ELIF || nk == T_EXCEPT || nk == T_FINALLY) {
			line = i + 1;
			continue;
		}
		return i + 1;
	}
	return i;
}

/* Is the decorator expression starting at token i (after '@') one of
 * Warp's?  Returns 'k' (kernel), 'f' (func), 's' (struct), 'g'
 * (func_grad), 'r' (func_replay), 'v' (overload), 'o' (another Warp
 * decorator: func_native, ...) or 0. */
static int
warpdecorator(Kpyc *k, FileCtx *f, uint32_t i)
{
	const TokArray *t = &f->toks;
	const char *text = f->src->text;
	GVal v = gnone();
	char name[128];
	bool first = true;

	while (i < t->n && t->v[i].kind == T_NAME) {
		const Token *tk = &t->v[i];
		if (tk->len >= sizeof name)
			return 0;
		memcpy(name, text + tk->off, tk->len);
		name[tk->len] = 0;
		if (first) {
			const Global *g = gfind(f, name);
			if (!g)
				return 0;
			v = g->v;
			first = false;
		} else if (v.kind == G_WARP) {
			if (strcmp(name, "types") == 0 || strcmp(name, "context") == 0)
				v = gkind(G_WARP, "types");
			else
				v = wpname(k, name);
		} else {
			return 0;
		}
		i++;
		if (i < t->n && t->v[i].kind == '.')
			i++;
		else
			break;
	}
	if (v.kind != G_WPNAME)
		return 0;
	if (strcmp(v.s, "kernel") == 0)
		return 'k';
	if (strcmp(v.s, "func") == 0)
		return 'f';
	if (strcmp(v.s, "struct") == 0)
		return 's';
	if (strcmp(v.s, "func_grad") == 0)
		return 'g';
	if (strcmp(v.s, "func_replay") == 0)
		return 'r';
	if (strcmp(v.s, "overload") == 0)
		return 'v';
	if (strncmp(v.s, "func_", 5) == 0)
		return 'o';
	return 0;
}

/* A decorator at token i (after '@') that names a Warp decorator through
 * a root name this file does not bind (@wp.kernel with wp from a star
 * import, or no import at all): its last name, else NULL. */
static const char *
unbounddecorator(Kpyc *k, FileCtx *f, uint32_t i)
{
	static const char *const tails[] = {"kernel", "func", "struct", "func_grad", "func_replay", "func_native",
	                                    "overload"};
	const TokArray *t = &f->toks;
	uint32_t last;
	size_t j;
	char *root;

	if (i >= t->n || t->v[i].kind != T_NAME)
		return NULL;
	root = astrndup(k->a, f->src->text + t->v[i].off, t->v[i].len);
	if (gfind(f, root))
		return NULL;
	for (last = i; last + 2 < t->n && t->v[last + 1].kind == '.' && t->v[last + 2].kind == T_NAME; last += 2)
		;
	for (j = 0; j < countof(tails); j++)
		if (t->v[last].len == strlen(tails[j]) && memcmp(f->src->text + t->v[last].off, tails[j], t->v[last].len) == 0)
			return tails[j];
	return NULL;
}


/* The end (exclusive) of the definition whose decorators start at token
 * j: after the DEDENT that closes its body; 0 for a one-line body. */
static uint32_t
nestedend(const TokArray *t, uint32_t j, uint32_t e, uint32_t *defat)
{
	int depth = 0;

	while (j < e && t->v[j].kind == '@') {
		while (j < e && t->v[j].kind != T_NEWLINE)
			j++;
		j++;
	}
	if (j >= e || t->v[j].kind != T_DEF)
		return 0;
	*defat = j;
	while (j < e && t->v[j].kind != T_NEWLINE)
		j++;
	if (j + 1 >= e || t->v[j + 1].kind != T_INDENT)
		return 0;
	for (j++; j < e; j++) {
		if (t->v[j].kind == T_INDENT)
			depth++;
		else if (t->v[j].kind == T_DEDENT && --depth == 0)
			return j + 1;
	}
	return 0;
}

/* Warp definitions nested in the host statement [i, e) (a function, a
 * class, an if block).  A @wp.kernel directly in the body of a function
 * (encl: its name) is compiled as kernel encl__NAME, leniently: its
 * errors are warnings and it is left out, and it may not read a name the
 * function binds (Warp would read the function's).  Any other nested
 * definition is skipped, with a warning. */
static void
nesteddefs(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, const char *encl)
{
	const TokArray *t = &f->toks;
	NameMap *closure = NULL;
	uint32_t j, hi;
	int depth = 0;

	for (j = i + 1; j + 1 < e; j++) {
		int pk = t->v[j - 1].kind, w;
		uint32_t end, defat = 0;
		if (t->v[j].kind == T_INDENT)
			depth++;
		else if (t->v[j].kind == T_DEDENT)
			depth--;
		if (t->v[j].kind != '@' || (pk != T_NEWLINE && pk != T_INDENT && pk != T_DEDENT))
			continue;
		w = warpdecorator(k, f, j + 1);
		if (w == 'k' && encl && depth == 1 && (end = nestedend(t, j, e, &defat)) != 0) {
			NodeList *l = parse(k, f, j, end, true);
			if (l && l->n == 1 && l->v[0]->kind == S_DEF) {
				int nl = k->nlenient;
				FuncDecl *fd;
				if (!closure)
					closure = closurenames(k, f, i, e, true);
				k->lenient++;
				fd = declfunc(k, f, l->v[0], 'k', encl, closure);
				k->lenient--;
				if (k->nlenient != nl) {
					fd->bad = true;
					knote(k, "kernel '%s' (inside function '%s') does not compile; it is left out", l->v[0]->s,
					      encl);
				} else {
					decoptions(k, f, j, defat, fd);
				}
				j = end - 1;
				continue;
			}
		}
		if ((w == 'f' || w == 's') && encl && depth >= 1 && (hi = nmget(&f->hdmap, encl)) != UINT32_MAX &&
		    f->hdefs[hi].from == i) {
			/* reported at the end of the file unless a factory call compiles it */
			if (!f->hdefs[hi].hasfunc)
				f->hdefs[hi].funcloc = t->v[j].loc;
			f->hdefs[hi].hasfunc = true;
		} else if (w == 'k' || w == 'f' || w == 's')
			kwarn(k, t->v[j].loc, "a @wp.%s inside a function, class or block is not compiled: kpyc compiles "
			      "module-level definitions only", w == 'k' ? "kernel" : w == 'f' ? "func" : "struct");
	}
}

/* ---- imports -------------------------------------------------------- */

static void
doimport(Kpyc *k, FileCtx *f, Node *s)
{
	uint32_t i;

	for (i = 0; i < s->l1.n; i++) {
		Node *al = s->l1.v[i];
		const char *mod = al->s, *bind = al->s2;
		GVal v;
		if (!bind) {
			/* import a.b binds a */
			const char *dot = strchr(mod, '.');
			bind = dot ? astrndup(k->a, mod, (size_t)(dot - mod)) : mod;
			mod = bind;
		}
		if (strcmp(mod, "warp") == 0)
			v = gkind(G_WARP, "");
		else if (strncmp(mod, "warp.", 5) == 0)
			v = gkind(G_WARP, mod + 5);
		else
			v = gkind(G_MODULE, mod);
		gbind(k, f, bind, v, al->loc);
	}
}

static void
dofrom(Kpyc *k, FileCtx *f, Node *s)
{
	uint32_t i;
	const char *mod = s->s;
	bool warp = s->u == 0 && (strcmp(mod, "warp") == 0 || strncmp(mod, "warp.", 5) == 0);

	for (i = 0; i < s->l1.n; i++) {
		Node *al = s->l1.v[i];
		const char *bind = al->s2 ? al->s2 : al->s;
		GVal v;
		if (strcmp(al->s, "*") == 0) {
			/* kpyc does not read the names a star import binds (not even
			 * warp's): a decorator that needs them is reported */
			if (!f->starmod)
				f->starmod = s->u ? "a relative module" : mod;
			continue;
		}
		if (warp) {
			if (strcmp(al->s, "types") == 0 || strcmp(al->s, "context") == 0 || strcmp(al->s, "_src") == 0)
				v = gkind(G_WARP, al->s);
			else if (strcmp(mod, "warp._src.types") == 0 &&
			         (strcmp(al->s, "Vector") == 0 || strcmp(al->s, "Matrix") == 0 ||
			          strcmp(al->s, "Quaternion") == 0 || strcmp(al->s, "Transformation") == 0))
				/* the type-hint classes (not in warp.types) */
				v = gkind(G_WPNAME, aprintf(k->a, "_src.types.%s", al->s));
			else
				v = wpname(k, al->s);
		} else if (s->u == 0) {
			v = modmember(k, mod, al->s);
		} else {
			v = gkind(G_HOST, NULL);
		}
		gbind(k, f, bind, v, al->loc);
	}
}

/* Read the top level of file f: bind names, declare definitions. */
static void
scanfile(Kpyc *k, FileCtx *f)
{
	const TokArray *t = &f->toks;
	uint32_t i = 0, e;

	while (i < t->n && t->v[i].kind != T_END) {
		const Token *tk = &t->v[i];
		e = stmtend(t, i);
		if (e <= i)
			e = i + 1;
		switch (tk->kind) {
		case T_IMPORT:
		case T_FROM: {
			NodeList *l = parse(k, f, i, e, false);
			uint32_t j;
			for (j = 0; l && j < l->n; j++) {
				if (l->v[j]->kind == S_IMPORT)
					doimport(k, f, l->v[j]);
				else if (l->v[j]->kind == S_FROM)
					dofrom(k, f, l->v[j]);
			}
			break;
		}
		case '@': {
			/* decorated: is any decorator Warp's? */
			uint32_t j = i, defat = i;
			int kind = 0;
			while (j < e && t->v[j].kind == '@') {
				int w = warpdecorator(k, f, j + 1);
				const char *tail;
				if (w && !kind)
					kind = w;
				if (!w && (tail = unbounddecorator(k, f, j + 1))) {
					char *root = toktext(k, f, &t->v[j + 1]);
					if (f->starmod)
						kerr(k, t->v[j + 1].loc, "'%s' is not defined: kpyc does not read the names of "
						     "`from %s import *`, so this definition would be skipped (use import warp as wp)",
						     root, f->starmod);
					else
						kerr(k, t->v[j + 1].loc, "'%s' is not defined, so this definition would be skipped",
						     root);
					kind = 'o';
				}
				while (j < e && t->v[j].kind != T_NEWLINE)
					j++;
				j++;
			}
			defat = j;
			if (defat < e && t->v[defat].kind == T_ASYNC)
				defat++;
			if (kind == 'v' && defat + 1 < e && t->v[defat].kind == T_DEF && t->v[defat + 1].kind == T_NAME) {
				const Global *g = gfind(f, toktext(k, f, &t->v[defat + 1]));
				NodeList *l;
				if (g && g->v.kind == G_KERNEL && (l = parse(k, f, i, e, false)) && l->n == 1 &&
				    l->v[0]->kind == S_DEF)
					overloadstub(k, f, l->v[0]);
			}
			if (kind == 'k' || kind == 'f' || kind == 's') {
				NodeList *l = parse(k, f, i, e, false);
				if (l && l->n == 1 && (l->v[0]->kind == S_DEF || l->v[0]->kind == S_CLASS)) {
					Node *d = l->v[0];
					if (kind == 's' && d->kind == S_CLASS)
						declstruct(k, f, d);
					else if (kind != 's' && d->kind == S_DEF) {
						decoptions(k, f, i, defat, declfunc(k, f, d, kind, NULL, NULL));
					}
					else
						kerr(k, d->loc, "@wp.%s decorates a %s", kind == 's' ? "struct" : kind == 'k' ? "kernel" : "func",
						     d->kind == S_DEF ? "function" : "class");
				} else if (l && l->n == 1 && l->v[0]->kind == S_UNSUP) {
					kerr(k, l->v[0]->loc, "Construct `%s` not supported in kernels.", l->v[0]->s);
				}
			} else if (defat + 1 < e && (t->v[defat].kind == T_DEF || t->v[defat].kind == T_CLASS) &&
			           t->v[defat + 1].kind == T_NAME) {
				/* host function or class (or a Warp decorator kpyc leaves to Warp: overload, func_native) */
				if ((kind == 'g' || kind == 'r') && !f->nobackward) {
					/* kopt -p ad would differentiate (replay) the function itself */
					kerr(k, t->v[i + 1].loc, "%s is not supported by kpyc: the backward kernel would %s the "
					     "function itself (set enable_backward to False in the module's options if no "
					     "gradient is wanted)", kind == 'g' ? "a custom gradient (@wp.func_grad)" :
					     "a custom replay (@wp.func_replay)", kind == 'g' ? "differentiate" : "replay");
				} else if (kind == 'g' || kind == 'r') {
					/* no backward pass: nothing to use them for */
				} else if (kind != 'o' && kind != 'v')
					gbind(k, f, toktext(k, f, &t->v[defat + 1]), gkind(G_HOST, NULL), t->v[defat + 1].loc);
			}
			if (kind != 'k' && kind != 'f' && kind != 's')
				nesteddefs(k, f, defat, e,
				           defat + 1 < e && t->v[defat].kind == T_DEF && t->v[defat + 1].kind == T_NAME ?
				           toktext(k, f, &t->v[defat + 1]) : NULL);
			break;
		}
		case T_DEF:
		case T_CLASS:
			if (tk->kind == T_CLASS && intenum(k, f, i, e))
				break;
			if (tk->kind == T_DEF && i + 1 < e && t->v[i + 1].kind == T_NAME) {
				/* a possible function factory (factorycall) */
				HostDef hd;
				memset(&hd, 0, sizeof hd);
				hd.from = i;
				hd.to = e;
				APUSH(k->a, f->hdefs, f->nhdefs, f->caphdefs, hd);
				nmput(k->a, &f->hdmap, toktext(k, f, &t->v[i + 1]), f->nhdefs - 1);
			}
			if (i + 1 < e && t->v[i + 1].kind == T_NAME)
				gbind(k, f, toktext(k, f, &t->v[i + 1]), gkind(G_HOST, NULL), t->v[i + 1].loc);
			nesteddefs(k, f, i, e, tk->kind == T_DEF && i + 1 < e && t->v[i + 1].kind == T_NAME ?
			           toktext(k, f, &t->v[i + 1]) : NULL);
			break;
		case T_NAME: {
			/* NAME = ... or NAME: T = ...: a possible constant */
			if (i + 1 < e && (t->v[i + 1].kind == '=' || t->v[i + 1].kind == ':' || t->v[i + 1].kind == ',')) {
				NodeList *l = parse(k, f, i, e, false);
				if (l && l->n >= 1 && factorycall(k, f, l->v[0]))
					;
				else if (l && l->n >= 1 && (l->v[0]->kind == S_ASSIGN || l->v[0]->kind == S_ANNASSIGN))
					doassign(k, f, l->v[0]);
				else if (t->v[i + 1].kind == '=')
					gbind(k, f, toktext(k, f, tk), gkind(G_HOST, NULL), tk->loc);
			}
			break;
		}
		case T_FOR:
			overloadloop(k, f, i, e);
			nesteddefs(k, f, i, e, NULL);
			break;
		default:
			nesteddefs(k, f, i, e, NULL); /* host code: skipped */
			break;
		}
		if (tk->kind == T_NAME) {
			overloadcall(k, f, i, e);
			moduleoptions(k, f, i, e);
			configassign(k, f, i, e);
		}
		i = e;
	}
	launches(k, f);
	for (i = 0; i < f->nhdefs; i++)
		if (f->hdefs[i].hasfunc && !f->hdefs[i].used)
			kwarn(k, f->hdefs[i].funcloc, "a @wp.func or @wp.struct inside a function is not compiled: kpyc "
			      "compiles it only for top-level calls NAME = FACTORY(...) of a function whose body is the "
			      "definition and its return");
}
/* ---- driver ---------------------------------------------------------- */

static const char *
basename_noext(Arena *a, const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 3 && strcmp(b + n - 3, ".py") == 0)
		n -= 3;
	return astrndup(a, b, n);
}

Module *
kpyc_compile_here(Src *srcs, int nsrcs, Diag *d, const KpycOpts *o)
{
	Kpyc k;
	int i;
	uint32_t j;
	int nerr0 = d->nerr;
	Module *m = modnew();

	memset(&k, 0, sizeof k);
	k.m = m;
	k.d = d;
	k.a = arena_new();
	k.o = o;
	k.nfiles = nsrcs;
	k.files = aalloc(k.a, (size_t)(nsrcs + 1) * sizeof *k.files);
	for (i = 0; i < nsrcs; i++) {
		FileCtx *f = &k.files[i];
		f->src = &srcs[i];
		srcindex(&srcs[i]); /* a file of many diagnostics: each finds its line at once */
		f->index = i;
		f->modname = basename_noext(k.a, srcs[i].name);
		APUSH(m->arena, m->srcs, m->nsrcs, m->capsrcs, astrdup(m->arena, srcs[i].name));
		k.file = f;
		pytokenize(k.a, f->src, &f->toks);
		for (j = 0; j < f->toks.n; j++)
			f->toks.v[j].loc.file = (uint32_t)i;
		scanfile(&k, f);
		/* what the tokenizer found wrong outside compiled code (host
		 * code is not parsed, but Python would reject the file) */
		for (j = 0; j < f->toks.n; j++)
			if (f->toks.v[j].msg && !f->toks.v[j].parsed)
				kerr(&k, f->toks.v[j].loc, "%s", f->toks.v[j].msg);
	}
	if (!o->parse_only)
		semamodule(&k);
	if (m->toobig)
		kerr(&k, m->toobigloc, "more than %d operands, results, loop-carried values or parameters in one "
		     "operation (kir's limit)", MAXOPVALS);
	flushdiags(&k);
	for (i = 0; i < nsrcs; i++) {
		free(k.files[i].toks.v);
		srcunindex(&srcs[i]);
	}
	for (i = 0; i < (int)countof(k.tmps); i++)
		arena_free(k.tmps[i]);
	arena_free(k.a);
	if (d->nerr != nerr0) {
		modfree(m);
		return NULL;
	}
	return m;
}
