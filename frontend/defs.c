/*
 * defs.c — the top-level statements kpyc keeps: parsing them, decorated
 * definitions (@wp.kernel, @wp.func, @wp.struct), function factories
 * (NAME = FACTORY(...)), module-level assignments and the module and
 * decorator options.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* ---- definitions ---------------------------------------------------- */



/* Is def decorated @wp.func (alone), or a class @wp.struct? */
static bool
funcdecorated(Kpyc *k, FileCtx *f, Node *def)
{
	GVal g;

	if ((def->kind != S_DEF && def->kind != S_CLASS) || def->l3.n != 1)
		return false;
	g = geval(k, f, def->l3.v[0], true);
	return g.kind == G_WPNAME && strcmp(g.s, def->kind == S_DEF ? "func" : "struct") == 0;
}


/* The @wp.func definitions of a factory's body l that Python runs, into
 * defs (at most max): definitions, and the branch an `if` whose condition
 * geval values (the closure: the factory's arguments) takes; *ret: the
 * name of the final `return NAME`.  False on any other statement. */
static bool
factorybody(Kpyc *k, FileCtx *f, NodeList *l, Node **defs, int *n, int max, const char **ret, bool top)
{
	uint32_t j;

	for (j = 0; j < l->n; j++) {
		Node *b = l->v[j];
		if (top && j == 0 && b->kind == S_EXPR && b->a->kind == E_STR)
			continue;
		if (b->kind == S_PASS)
			continue;
		if (funcdecorated(k, f, b)) {
			if (*n == max)
				return false;
			defs[(*n)++] = b;
			continue;
		}
		if (b->kind == S_IF) {
			GVal c = geval(k, f, b->a, true);
			Lit lt;
			if (c.kind != G_CONST || c.spec.ty.k != T_SCALAR || !c.lit.ok)
				return false;
			lt = c.lit;
			if (!factorybody(k, f, (lt.isint ? lt.i != 0 : lt.f != 0) ? &b->l1 : &b->l2, defs, n, max, ret, false))
				return false;
			continue;
		}
		if (top && j + 1 == l->n && b->kind == S_RETURN && b->a && b->a->kind == E_NAME) {
			*ret = b->a->s;
			continue;
		}
		return false;
	}
	return true;
}

/* NAME = FACTORY(args) at the top level, FACTORY a top-level def without
 * decorators whose body is @wp.func definitions of one name (overloads,
 * in ifs on the arguments too) and its return (an optional docstring
 * aside): Warp's function factory, which makes new functions at each
 * call, reading the factory's parameters from its closure.  kpyc declares
 * the functions once per call (FACTORY__f, their kir names numbered), the
 * parameters bound to the call's arguments when kpyc evaluates them
 * (constants, strings, types, functions; the others and the names the
 * body rebinds are closure names without a value), the function's name
 * to the overloads themselves, and binds NAME to them.  False if s is not
 * such a call (host code). */
bool
factorycall(Kpyc *k, FileCtx *f, Node *s)
{
	Node *t, *call, *def, *fdefs[8];
	NodeList *l;
	NameMap *m;
	GVal *vals, v;
	const Global *g;
	const NameMap *saved;
	const char *ret = NULL;
	bool *set, ok;
	uint32_t hi, j, np, self;
	int nf = 0, q;
	FuncDecl *head = NULL, **tail = &head;

	if (s->kind != S_ASSIGN || s->l1.n != 1 || (t = s->l1.v[0])->kind != E_NAME)
		return false;
	call = s->a;
	if (call->kind != E_CALL || call->a->kind != E_NAME ||
	    (hi = nmget(&f->hdmap, call->a->s)) == UINT32_MAX ||
	    !(g = gfind(f, call->a->s)) || g->v.kind != G_HOST)
		return false;
	l = parse(k, f, f->hdefs[hi].from, f->hdefs[hi].to, true);
	if (!l || l->n != 1 || (def = l->v[0])->kind != S_DEF || def->l3.n)
		return false;
	/* the call's arguments, as Python binds them */
	np = def->l2.n;
	vals = aalloc(k->a, (np + 1) * sizeof *vals);
	set = aalloc(k->a, (np + 1) * sizeof *set);
	memset(set, 0, (np + 1) * sizeof *set);
	for (j = 0; j < np; j++)
		if (def->l2.v[j]->op != 0)
			return false; /* *args, **kwargs, / */
	if (call->l1.n > np)
		return false;
	for (j = 0; j < call->l1.n; j++) {
		if (call->l1.v[j]->kind == E_STARRED)
			return false;
		vals[j] = geval(k, f, call->l1.v[j], true);
		set[j] = true;
	}
	for (j = 0; j < call->l2.n; j++) {
		Node *kw = call->l2.v[j];
		uint32_t p;
		if (!kw->s)
			return false;
		for (p = 0; p < np && strcmp(def->l2.v[p]->s, kw->s) != 0; p++)
			;
		if (p == np || set[p])
			return false;
		vals[p] = geval(k, f, kw->a, true);
		set[p] = true;
	}
	for (j = 0; j < np; j++) {
		if (!set[j]) {
			if (!def->l2.v[j]->b)
				return false;
			vals[j] = geval(k, f, def->l2.v[j]->b, true);
		}
	}
	m = closurenames(k, f, f->hdefs[hi].from, f->hdefs[hi].to, false);
	for (j = 0; j < np; j++) {
		const char *pn = def->l2.v[j]->s;
		int kd = vals[j].kind;
		if (nmget(m, pn) != UINT32_MAX)
			continue; /* rebound in the body */
		if (kd == G_CONST || kd == G_STR || kd == G_TYPE || kd == G_WPNAME || kd == G_FUNC ||
		    (kd == G_PYNAME && (strcmp(vals[j].s, "builtins.int") == 0 || strcmp(vals[j].s, "builtins.float") == 0 ||
		                        strcmp(vals[j].s, "builtins.bool") == 0))) {
			ClosureConst cc;
			memset(&cc, 0, sizeof cc);
			cc.f = f;
			cc.state = 2;
			cc.v = vals[j];
			APUSH(k->a, k->cconsts, k->ncconsts, k->capcconsts, cc);
			nmput(k->a, m, pn, k->ncconsts + 1);
		} else {
			nmput(k->a, m, pn, 1);
		}
	}
	saved = k->closure;
	k->closure = m;
	ok = factorybody(k, f, &def->l1, fdefs, &nf, (int)countof(fdefs), &ret, true);
	k->closure = saved;
	if (!ok || !nf || !ret)
		return false;
	for (q = 0; q < nf; q++)
		if (strcmp(fdefs[q]->s, ret) != 0 || fdefs[q]->kind != fdefs[0]->kind)
			return false;
	if (fdefs[0]->kind == S_CLASS) {
		/* a struct factory: a new struct type per call, bound to NAME only */
		const Global *pg;
		GVal prev, sv;
		if (nf != 1)
			return false;
		pg = gfind(f, ret);
		prev = pg ? pg->v : gkind(G_HOST, NULL);
		f->hdefs[hi].used = true;
		k->closure = m;
		declstruct(k, f, fdefs[0]);
		k->closure = saved;
		sv = gfind(f, ret)->v;
		gbind(k, f, ret, prev, fdefs[0]->oploc);
		gbind(k, f, t->s, sv, t->loc);
		return true;
	}
	{
		/* the function's own name in its closure: its overloads (filled in below) */
		ClosureConst cc;
		memset(&cc, 0, sizeof cc);
		cc.f = f;
		cc.state = 2;
		APUSH(k->a, k->cconsts, k->ncconsts, k->capcconsts, cc);
		self = k->ncconsts - 1;
		nmput(k->a, m, ret, self + 2);
	}
	f->hdefs[hi].used = true;
	for (q = 0; q < nf; q++) {
		FuncDecl *fd = declfunc(k, f, fdefs[q], 'f', def->s, m);
		*tail = fd;
		tail = &fd->next;
	}
	v = gnone();
	v.kind = G_FUNC;
	v.fd = head;
	k->cconsts[self].v = v;
	gbind(k, f, t->s, v, t->loc);
	return true;
}

/* NAME = types.SimpleNamespace(a=..., b=...): Warp resolves NAME.a in a
 * kernel by getattr on the object, so each keyword whose value kpyc
 * evaluates (a constant, a string, a type, a builtin or @wp.func, the warp
 * module) becomes the module name "NAME.a" and NAME is bound as G_ENUM
 * with n 2; the others stay host code, reported where read.  Warp reads
 * the namespace in a call's function only (NS.f(x), NS.warp.tid()):
 * elsewhere (NS.a + 1) it is Warp's "Invalid external reference type".
 * False if val is not such a call. */
static bool
namespaceassign(Kpyc *k, FileCtx *f, Node *t, Node *val)
{
	GVal fn, v;
	uint32_t i;

	if (val->kind != E_CALL || val->l1.n)
		return false;
	fn = geval(k, f, val->a, true);
	if (fn.kind != G_PYNAME || strcmp(fn.s, "types.SimpleNamespace") != 0)
		return false;
	for (i = 0; i < val->l2.n; i++) {
		Node *kw = val->l2.v[i];
		if (!kw->s)
			return false; /* **mapping */
	}
	for (i = 0; i < val->l2.n; i++) {
		Node *kw = val->l2.v[i];
		v = geval(k, f, kw->a, true);
		if (v.kind != G_CONST && v.kind != G_STR && v.kind != G_TYPE && v.kind != G_WPNAME && v.kind != G_FUNC &&
		    v.kind != G_WARP && v.kind != G_ENUM)
			v = gkind(G_HOST, NULL);
		gbind(k, f, aprintf(k->a, "%s.%s", t->s, kw->s), v, kw->loc);
	}
	v = gkind(G_ENUM, t->s);
	v.n = 2;
	gbind(k, f, t->s, v, t->loc);
	return true;
}
/* Is every token of the file that spells name either a statement
 * NAME = ... or the argument of a call static(NAME)?  Then nothing
 * changes the struct instance NAME is bound to, nor passes it on. */
static bool
onlystatic(const FileCtx *f, const char *name)
{
	const TokArray *t = &f->toks;
	size_t n = strlen(name);
	uint32_t i;

	for (i = 0; i < t->n; i++) {
		const Token *tk = &t->v[i];
		int pk = i ? t->v[i - 1].kind : T_NEWLINE;
		if (tk->kind != T_NAME || tk->len != n || memcmp(f->src->text + tk->off, name, n) != 0)
			continue;
		if (i + 1 < t->n && t->v[i + 1].kind == '=' && (pk == T_NEWLINE || pk == T_INDENT || pk == T_DEDENT))
			continue;
		if (i >= 2 && i + 1 < t->n && pk == '(' && t->v[i + 1].kind == ')' && t->v[i - 2].kind == T_NAME &&
		    t->v[i - 2].len == 6 && memcmp(f->src->text + t->v[i - 2].off, "static", 6) == 0)
			continue;
		return false;
	}
	return true;
}


void
doassign(Kpyc *k, FileCtx *f, Node *s)
{
	Node *t;
	Node *val;
	GVal v;
	uint32_t i;

	if (s->kind == S_ANNASSIGN) {
		t = s->a;
		val = s->c;
		if (!val)
			return;
	} else {
		val = s->a;
		if (s->l1.n != 1) {
			for (i = 0; i < s->l1.n; i++)
				if (s->l1.v[i]->kind == E_NAME)
					gbind(k, f, s->l1.v[i]->s, gkind(G_HOST, NULL), s->l1.v[i]->loc);
			return;
		}
		t = s->l1.v[0];
	}
	if (t->kind == E_TUPLE) {
		for (i = 0; i < t->l1.n; i++)
			if (t->l1.v[i]->kind == E_NAME)
				gbind(k, f, t->l1.v[i]->s, gkind(G_HOST, NULL), t->l1.v[i]->loc);
		return;
	}
	if (t->kind != E_NAME)
		return;
	if (namespaceassign(k, f, t, val))
		return;
	v = geval(k, f, val, true);
	if (v.kind == G_HOST && v.s && strcmp(v.s, "struct0") == 0 && !onlystatic(f, t->s))
		v = gkind(G_HOST, "struct"); /* the module may change it */
	if (v.kind == G_TUPLE) {
		/* host data, but len() of it is known */
		v.kind = G_HOST;
	} else if (v.kind == G_NONE) {
		v = gkind(G_HOST, NULL);
	}
	gbind(k, f, t->s, v, t->loc);
}

/* Is token t the string "key" (either quote)? */
static bool
tokkey(const FileCtx *f, const Token *t, const char *key)
{
	size_t n = strlen(key);

	return t->kind == T_STRING && t->len == n + 2 && memcmp(f->src->text + t->off + 1, key, n) == 0 &&
	       (f->src->text[t->off] == '"' || f->src->text[t->off] == '\'');
}

bool
tokis(const FileCtx *f, const Token *t, const char *name)
{
	size_t n = strlen(name);

	return t->len == n && memcmp(f->src->text + t->off, name, n) == 0;
}

/* Where the module options read go: a file's (set_module_options,
 * wp.config) or a kernel's (module_options, kernel: its name). */
typedef struct OptSink {
	bool *nobackward;
	bool *det;
	int *max_unroll; /* the option's value + 1 (0: not set) */
	const char *kernel;
} OptSink;

/* Warp 1.19's module options (Module.options): the keys a kernel's
 * module_options may name. */
static const char *const modopts[] = {
	"block_dim", "compile_time_trace", "cpu_compiler_flags", "cuda_output", "default_grid_stride",
	"deterministic", "deterministic_max_records", "enable_backward", "enable_mathdx_fft", "enable_mathdx_gemm",
	"enable_mathdx_solver", "extra_build_options", "fast_math", "fuse_fp", "lineinfo", "max_unroll", "mode",
	"optimization_level", "strip_hash",
};

/* The value of the module option opt (tokens [v, ve), its name at loc):
 * "enable_backward" sets *nobackward; "deterministic" sets *det (Warp's
 * deterministic mode: the same results on the CPU, where Warp runs the
 * threads in order; sema.c rejects, located, the kernels whose atomics
 * kpyc cannot vouch Warp accepts in that mode); "max_unroll" (an integer
 * literal) sets *max_unroll, for Warp's dynamic-loop rule; a negative
 * "deterministic_max_records" is an error, and "fast_math" or "fuse_fp"
 * (flags of Warp's C++ compilers, which kpy does not apply) a warning,
 * rather than ignored. */
static void
optvalue(Kpyc *k, FileCtx *f, Loc loc, const char *opt, uint32_t v, uint32_t ve, const OptSink *o)
{
	const TokArray *t = &f->toks;

	if (strcmp(opt, "enable_backward") == 0) {
		if (ve == v + 1 && t->v[v].kind == T_FALSE)
			*o->nobackward = true;
		else if (ve == v + 1 && t->v[v].kind == T_TRUE)
			*o->nobackward = false;
	} else if (strcmp(opt, "deterministic") == 0) {
		/* Warp takes a DeterministicMode only (False is a ValueError there) */
		bool mode = ve > v + 1 && t->v[ve - 1].kind == T_NAME && t->v[ve - 2].kind == '.';
		if (mode && tokis(f, &t->v[ve - 1], "NOT_GUARANTEED"))
			*o->det = false;
		else if (mode && (tokis(f, &t->v[ve - 1], "RUN_TO_RUN") || tokis(f, &t->v[ve - 1], "GPU_TO_GPU")))
			*o->det = true;
		else
			kerr(k, loc, "deterministic must be a warp.DeterministicMode value (wp.DeterministicMode.NOT_GUARANTEED, "
			     "RUN_TO_RUN or GPU_TO_GPU)");
	} else if (strcmp(opt, "deterministic_max_records") == 0) {
		/* a capacity of Warp's CUDA scatter buffers: nothing on the CPU */
		if (t->v[v].kind == '-' || t->v[v].kind == T_TRUE || t->v[v].kind == T_FALSE)
			kerr(k, loc, "deterministic_max_records must be a non-negative integer");
	} else if (strcmp(opt, "fast_math") == 0 || strcmp(opt, "fuse_fp") == 0) {
		bool dflt = ve == v + 1 && t->v[v].kind == (opt[1] == 'a' ? T_FALSE : T_TRUE);
		if (!dflt)
			kwarn(k, loc, "kpy does not apply the module option \"%s\" (a flag of Warp's C++ compilers): "
			      "results may differ from Warp's in rounding", opt);
	} else if (strcmp(opt, "max_unroll") == 0) {
		char buf[16];
		const Token *n = &t->v[v];
		if (ve == v + 1 && n->kind == T_NUMBER && n->len < 10) {
			memcpy(buf, f->src->text + n->off, n->len);
			buf[n->len] = 0;
			if (strspn(buf, "0123456789") == n->len) {
				*o->max_unroll = atoi(buf) + 1;
				return;
			}
		}
		kerr(k, loc, "kpyc reads the module option \"max_unroll\" as an integer literal only");
	}
}

/* The module options of a dict display in tokens [i, e) (a dict is host
 * syntax kpyc does not parse), each as optvalue reads it; a kernel's
 * module_options may name Warp's options only. */
static void
optdict(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, const OptSink *o)
{
	const TokArray *t = &f->toks;
	uint32_t j;
	size_t m;

	for (j = i; j + 2 < e; j++) {
		const Token *key = &t->v[j];
		uint32_t v = j + 2, ve;
		int depth = 0;
		if (key->kind != T_STRING || t->v[j + 1].kind != ':')
			continue;
		/* the value: to the next ',' or '}' outside brackets */
		for (ve = v; ve < e; ve++) {
			int kd = t->v[ve].kind;
			if (kd == '(' || kd == '[' || kd == '{')
				depth++;
			else if ((kd == ')' || kd == ']' || kd == '}') && depth-- == 0)
				break;
			else if (kd == ',' && depth == 0)
				break;
		}
		if (ve == v)
			continue;
		for (m = 0; m < countof(modopts) && !tokkey(f, key, modopts[m]); m++)
			;
		if (m == countof(modopts)) {
			if (o->kernel)
				kerr(k, key->loc, "@wp.kernel for '%s': unknown module_options: %.*s", o->kernel, (int)key->len,
				     f->src->text + key->off);
		} else {
			optvalue(k, f, key->loc, modopts[m], v, ve, o);
		}
		j = ve - 1;
	}
}

/* WARP.set_module_options({...}) at the top level: recognized by its
 * tokens. */
void
moduleoptions(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e)
{
	const TokArray *t = &f->toks;
	const char *text = f->src->text;

	if (e - i < 6 || t->v[i + 1].kind != '.' || t->v[i + 2].kind != T_NAME ||
	    t->v[i + 2].len != 18 || memcmp(text + t->v[i + 2].off, "set_module_options", 18) != 0)
		return;
	{
		char *name = toktext(k, f, &t->v[i]);
		const Global *g = gfind(f, name);
		if (!g || g->v.kind != G_WARP)
			return;
	}
	{
		OptSink o = {&f->nobackward, &f->det, &f->max_unroll, NULL};
		optdict(k, f, i + 3, e, &o);
	}
}

/* WARP.config.NAME = VALUE at the top level (tokens [i, e)): Warp's
 * global defaults of the same options. */
void
configassign(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e)
{
	const TokArray *t = &f->toks;
	OptSink o = {&f->nobackward, &f->det, &f->max_unroll, NULL};
	uint32_t ve = e;
	size_t j;

	if (e - i < 7 || t->v[i + 1].kind != '.' || t->v[i + 2].kind != T_NAME || !tokis(f, &t->v[i + 2], "config") ||
	    t->v[i + 3].kind != '.' || t->v[i + 4].kind != T_NAME || t->v[i + 5].kind != '=')
		return;
	{
		const Global *g = gfind(f, toktext(k, f, &t->v[i]));
		if (!g || g->v.kind != G_WARP)
			return;
	}
	while (ve > i + 6 && (t->v[ve - 1].kind == T_NEWLINE || t->v[ve - 1].kind == T_DEDENT))
		ve--;
	if (ve == i + 6)
		return;
	for (j = 0; j < countof(modopts); j++)
		if (tokis(f, &t->v[i + 4], modopts[j]))
			optvalue(k, f, t->v[i + 4].loc, modopts[j], i + 6, ve, &o);
}

/* @wp.kernel(module_options={...}) in the decorator tokens [i, e).  As
 * Warp 1.19: the options are a dict (or None), for a module="unique". */
void
decoptions(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, FuncDecl *fd)
{
	const TokArray *t = &f->toks;
	uint32_t j, m;
	bool unique = false;

	for (m = i; m + 2 < e; m++)
		if (t->v[m].kind == T_NAME && tokis(f, &t->v[m], "module") && t->v[m + 1].kind == '=' &&
		    (tokis(f, &t->v[m + 2], "\"unique\"") || tokis(f, &t->v[m + 2], "'unique'")))
			unique = true;
	for (j = i; j + 2 < e; j++)
		if (t->v[j].kind == T_NAME && tokis(f, &t->v[j], "module_options") && t->v[j + 1].kind == '=') {
			if (tokis(f, &t->v[j + 2], "None"))
				continue;
			if (t->v[j + 2].kind != '{')
				kerr(k, t->v[j + 2].loc, "module_options must be a dict");
			else if (!unique)
				kerr(k, t->v[j].loc, "module_options requires module=\"unique\"; use wp.set_module_options() "
				     "to set module-level options for a shared module");
			else
			{
				OptSink o = {&fd->nobackward, &fd->det, &fd->max_unroll, fd->def->s};
				optdict(k, f, j + 2, e, &o);
			}
		}
}

/* Bind a name in a closure map: val (2 + a ClosureConst) the first time,
 * 1 (bound, value unknown) after. */
static void
closurebind(Kpyc *k, NameMap *m, const char *name, uint32_t val)
{
	nmput(k->a, m, name, nmget(m, name) == UINT32_MAX ? val : 1);
}

/* The names the function whose tokens are [i, e) binds (a superset): its
 * parameters, assignment and for targets, `as`, import, def and class
 * names, walrus targets.  A kernel nested in it must not read them as
 * module names (Warp reads the function's). */
NameMap *
closurenames(Kpyc *k, FileCtx *f, uint32_t i, uint32_t e, bool params)
{
	const TokArray *t = &f->toks;
	NameMap *m = aalloc(k->a, sizeof *m);
	uint32_t j, x;
	int depth = 0, level = 0;

#define ADDNAME(ix) closurebind(k, m, toktext(k, f, &t->v[ix]), 1)
	for (j = i; j < e && t->v[j].kind != T_DEF; j++)
		;
	for (j += 2; j < e; j++) {
		int kd = t->v[j].kind;
		if (kd == '(' || kd == '[' || kd == '{') {
			depth++;
		} else if (kd == ')' || kd == ']' || kd == '}') {
			if (--depth <= 0)
				break;
		} else if (kd == T_NAME && depth == 1 && params) {
			int pk = t->v[j - 1].kind;
			if (pk == '(' || pk == ',' || pk == '*' || pk == T_POW)
				ADDNAME(j);
		}
	}
	for (; j < e; j++) {
		int kd = t->v[j].kind, pk = t->v[j - 1].kind;
		if (kd == T_INDENT)
			level++;
		else if (kd == T_DEDENT)
			level--;
		if (level == 1 && (pk == T_NEWLINE || pk == T_INDENT || pk == T_DEDENT) && kd == T_NAME &&
		    j + 2 < e && t->v[j + 1].kind == '=') {
			/* NAME = EXPR directly in the body: a constant if the only binding */
			int d = 0;
			bool one = true;
			for (x = j + 2; x < e && t->v[x].kind != T_NEWLINE; x++) {
				int xk = t->v[x].kind;
				if (xk == '(' || xk == '[' || xk == '{')
					d++;
				else if (xk == ')' || xk == ']' || xk == '}')
					d--;
				else if (d == 0 && (xk == '=' || xk == ','))
					one = false;
			}
			if (one && x < e) {
				ClosureConst cc;
				memset(&cc, 0, sizeof cc);
				cc.f = f;
				cc.from = j;
				cc.to = x + 1;
				APUSH(k->a, k->cconsts, k->ncconsts, k->capcconsts, cc);
				closurebind(k, m, toktext(k, f, &t->v[j]), k->ncconsts + 1);
				continue;
			}
		}
		if ((kd == T_AS || kd == T_DEF || kd == T_CLASS) && j + 1 < e && t->v[j + 1].kind == T_NAME) {
			ADDNAME(j + 1);
		} else if (kd == T_FOR) {
			for (x = j + 1; x < e && t->v[x].kind != T_IN && t->v[x].kind != T_NEWLINE; x++)
				if (t->v[x].kind == T_NAME)
					ADDNAME(x);
		} else if (kd == T_IMPORT || kd == T_GLOBAL || kd == T_NONLOCAL) {
			for (x = j + 1; x < e && t->v[x].kind != T_NEWLINE; x++)
				if (t->v[x].kind == T_NAME && t->v[x - 1].kind != '.')
					ADDNAME(x);
		} else if (kd == T_WALRUS && t->v[j - 1].kind == T_NAME) {
			ADDNAME(j - 1);
		} else if ((pk == T_NEWLINE || pk == T_INDENT || pk == T_DEDENT) &&
		           (kd == T_NAME || kd == '(' || kd == '[' || kd == '*')) {
			/* a statement: the names before its first =, op= or : at depth 0 */
			int d = 0;
			for (x = j; x < e && t->v[x].kind != T_NEWLINE; x++) {
				int xk = t->v[x].kind;
				if (xk == '(' || xk == '[' || xk == '{')
					d++;
				else if (xk == ')' || xk == ']' || xk == '}')
					d--;
				else if (d == 0 && (xk == '=' || xk == T_AUGASSIGN || xk == ':'))
					break;
			}
			if (x < e && t->v[x].kind != T_NEWLINE) {
				uint32_t y;
				for (y = j; y < x; y++) {
					int nk = y + 1 < e ? t->v[y + 1].kind : 0;
					if (t->v[y].kind == T_NAME && t->v[y - 1].kind != '.' && nk != '.' && nk != '(' && nk != '[')
						ADDNAME(y);
				}
			}
		}
	}
#undef ADDNAME
	return m;
}
