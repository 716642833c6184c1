/* One sentence of what a kernel computes, from what the generator built: its verb
 * and category, its outputs and accumulators (and the atomics they receive), its
 * inputs and parameters, the launch shape, the builtins it uses most, loops,
 * branches, helpers and random draws.  The sentence's structure is drawn from
 * several, so two kernels differ in more than their names. */
#include <string.h>

#include "kgen.h"

typedef struct Seen {
	const char *phrase[24]; /* notable operations, by first use */
	int count[24];
	int nphrase;
	int loops, ifs, calls, rand, gather;
} Seen;

static const struct {
	const char *fn, *phrase;
} phrases[] = {
	{ "wp.sin", "trigonometric terms" }, { "wp.cos", "trigonometric terms" },
	{ "wp.exp", "exponentials" }, { "wp.log", "logarithms" }, { "wp.log2", "logarithms" },
	{ "wp.log10", "logarithms" }, { "wp.sqrt", "square roots" }, { "wp.pow", "powers" },
	{ "wp.tanh", "tanh squashing" }, { "wp.atan2", "atan2 angles" }, { "wp.atan", "arctangents" },
	{ "wp.acos", "inverse cosines" }, { "wp.asin", "inverse sines" }, { "wp.erf", "the error function" },
	{ "wp.normalize", "normalization" }, { "wp.cross", "cross products" }, { "wp.dot", "dot products" },
	{ "wp.length", "vector lengths" }, { "wp.length_sq", "squared lengths" }, { "wp.lerp", "linear interpolation" },
	{ "wp.smoothstep", "smoothstep ramps" }, { "wp.clamp", "clamping" }, { "wp.where", "branch-free selects" },
	{ "wp.quat_rotate", "quaternion rotation" }, { "wp.quat_from_axis_angle", "axis-angle rotations" },
	{ "wp.quat_rpy", "roll-pitch-yaw rotations" }, { "wp.transform_point", "rigid transforms of points" },
	{ "wp.transform_vector", "rigid transforms of vectors" }, { "wp.transform_multiply", "composed transforms" },
	{ "wp.inverse", "matrix inverses" }, { "wp.determinant", "determinants" }, { "wp.transpose", "transposes" },
	{ "wp.outer", "outer products" }, { "wp.diag", "diagonal matrices" }, { "wp.cw_mul", "componentwise products" },
	{ "wp.mul", "matrix products" },
};

static void
see_phrase(Seen *s, const char *p)
{
	int i;

	for (i = 0; i < s->nphrase; i++)
		if (s->phrase[i] == p) {
			s->count[i]++;
			return;
		}
	if (s->nphrase < 24) {
		s->phrase[s->nphrase] = p;
		s->count[s->nphrase++] = 1;
	}
}

static void
see_expr(Seen *s, const Kernel *k, const Expr *e)
{
	size_t i;
	int j;

	if (!e)
		return;
	if (e->kind == E_CALL) {
		if (!strncmp(e->s, "wp.rand", 7))
			s->rand++;
		for (j = 0; j < k->nfuncs; j++)
			if (!strcmp(e->s, k->funcs[j]->name))
				s->calls++;
		for (i = 0; i < sizeof phrases / sizeof phrases[0]; i++)
			if (!strcmp(e->s, phrases[i].fn))
				see_phrase(s, phrases[i].phrase);
	}
	if (e->kind == E_LOAD)
		for (j = 0; j < e->n; j++)
			if (e->a[j]->kind != E_VAR || e->a[j]->var->role != V_TID)
				s->gather = 1;
	for (j = 0; j < e->n && e->kind != E_SHAPE; j++)
		see_expr(s, k, e->a[j]);
}

static void
see_block(Seen *s, const Kernel *k, const Block *b)
{
	int i, j;

	for (i = 0; i < b->n; i++) {
		const Stmt *st = b->v[i];

		see_expr(s, k, st->e);
		for (j = 0; j < st->nidx; j++)
			see_expr(s, k, st->idx[j]);
		s->loops += st->kind == S_FOR || st->kind == S_WHILE;
		s->ifs += st->kind == S_IF;
		see_block(s, k, &st->body);
		see_block(s, k, &st->orelse);
	}
}

/* "a", "a and b", "a, b and c" of the names (underscores as spaces) */
static void
list(Buf *b, const char *const *v, int n)
{
	int i;
	const char *p;

	for (i = 0; i < n; i++) {
		if (i)
			bufputs(b, i + 1 == n ? " and " : ", ");
		for (p = v[i]; *p; p++)
			bufprintf(b, "%c", *p == '_' ? ' ' : *p);
	}
}

static const char *
third_person(Arena *A, const char *verb)
{
	size_t n = strlen(verb);

	if (n > 1 && verb[n - 1] == 'y' && !strchr("aeiou", verb[n - 2]))
		return aprintf(A, "%.*sies", (int)(n - 1), verb);
	if (verb[n - 1] == 's' || verb[n - 1] == 'x' || verb[n - 1] == 'z' || (n > 1 && verb[n - 1] == 'h' && strchr("cs", verb[n - 2])))
		return aprintf(A, "%ses", verb);
	return aprintf(A, "%ss", verb);
}

const char *
describe_kernel(Arena *A, const Kernel *k, Rng *r)
{
	static const char *const where1[] = { "for every element", "per element", "element by element" };
	static const char *const where2[] = { "on a 2-D grid", "over a 2-D field", "cell by cell on a 2-D grid" };
	static const char *const where3[] = { "over a 3-D volume", "on a 3-D grid", "voxel by voxel" };
	Seen s;
	Buf b = { 0 }, outs = { 0 }, ins = { 0 }, ops = { 0 }, extra = { 0 };
	const char *on[MAX_PARAMS], *in[MAX_PARAMS], *sc[MAX_PARAMS], *where, *verb3, *text;
	int non = 0, nin = 0, nsc = 0, i, best[2] = { -1, -1 }, nops = 0, t;

	if (k->ngist) /* a recipe's own words */
		return k->gist[rng_below(r, k->ngist)];
	memset(&s, 0, sizeof s);
	see_block(&s, k, &k->body);
	for (i = 0; i < k->nfuncs; i++)
		see_block(&s, k, &k->funcs[i]->body);
	for (i = 0; i < k->nparams; i++) {
		const Var *p = k->params[i];

		if (p->role == V_ARRAY && p->io == IO_OUT)
			on[non++] = p->name;
		else if (p->role == V_ARRAY && p->io == IO_IN)
			in[nin++] = p->name;
		else if (p->role != V_ARRAY)
			sc[nsc++] = p->name;
	}
	/* the two operations used most */
	for (i = 0; i < s.nphrase; i++) {
		if (best[0] < 0 || s.count[i] > s.count[best[0]]) {
			best[1] = best[0];
			best[0] = i;
		} else if (best[1] < 0 || s.count[i] > s.count[best[1]])
			best[1] = i;
	}
	for (i = 0; i < 2; i++)
		if (best[i] >= 0) {
			bufprintf(&ops, "%s%s", nops ? " and " : "", s.phrase[best[i]]);
			nops++;
		}
	list(&outs, on, non);
	if (nin)
		list(&ins, in, nin);
	else
		bufputs(&ins, "the thread index");
	if (nsc) {
		bufputs(&ins, nsc > 1 ? " with the parameters " : " with the parameter ");
		list(&ins, sc, nsc);
	}
	/* accumulators, loops, branches, helpers, draws: at most two remarks */
	t = 0;
	for (i = 0; i < k->nparams && t < 2; i++) {
		const Var *p = k->params[i];
		static const char *const addw[] = { "atomically adds into %s", "accumulates into %s with atomic adds",
						    "sums into %s atomically" };

		if (p->role != V_ARRAY || p->io != IO_ACC)
			continue;
		bufputs(&extra, t++ ? " and " : ", ");
		if (p->acc == ACC_MIN)
			bufprintf(&extra, rng_pct(r, 50) ? "keeps the minimum in %s" : "tracks the smallest value in %s", p->name);
		else if (p->acc == ACC_MAX)
			bufprintf(&extra, rng_pct(r, 50) ? "keeps the maximum in %s" : "tracks the largest value in %s", p->name);
		else if (p->acc == ACC_OR)
			bufprintf(&extra, rng_pct(r, 50) ? "ors the bits into %s" : "sets the flags it finds in %s", p->name);
		else if (p->acc == ACC_XOR)
			bufprintf(&extra, "xors the bits into %s", p->name);
		else if (p->acc == ACC_EXCH)
			bufprintf(&extra, rng_pct(r, 50) ? "swaps a new value into its own slot of %s" : "exchanges its element of %s", p->name);
		else if (p->acc == ACC_CAS)
			bufprintf(&extra, rng_pct(r, 50) ? "claims its own flag in %s with a compare-and-swap" : "compare-and-swaps its element of %s", p->name);
		else if (p->acc == ACC_AND)
			bufprintf(&extra, rng_pct(r, 50) ? "ands the bits into %s" : "keeps in %s the bits every thread has", p->name);
		else
			bufprintf(&extra, addw[rng_below(r, 3)], p->name);
	}
	if (t < 2 && s.loops) {
		bufputs(&extra, t++ ? " and " : ", ");
		bufputs(&extra, s.loops > 1 ? "iterating in several loops" : (rng_pct(r, 50) ? "iterating in a loop" : "refining it in a loop"));
	}
	if (t < 2 && s.gather) {
		bufputs(&extra, t++ ? " and " : ", ");
		bufputs(&extra, k->ndim > 1 ? "reading clamped neighbours" : "gathering from other elements");
	}
	if (t < 2 && s.rand) {
		bufputs(&extra, t++ ? " and " : ", ");
		bufputs(&extra, rng_pct(r, 50) ? "drawing per-thread random numbers" : "with random draws seeded per thread");
	}
	if (t < 2 && s.calls) {
		bufputs(&extra, t++ ? " and " : ", ");
		bufprintf(&extra, k->nfuncs > 1 ? "through %d helper functions" : "through a helper function", k->nfuncs);
	}
	if (t < 2 && s.ifs) {
		bufputs(&extra, t++ ? " and " : ", ");
		bufputs(&extra, s.ifs > 2 ? "with several branches" : (rng_pct(r, 50) ? "with a data-dependent branch" : "branching on the inputs"));
	}
	where = k->ndim == 1 ? where1[rng_below(r, 3)] : k->ndim == 2 ? where2[rng_below(r, 3)] : where3[rng_below(r, 3)];
	verb3 = third_person(A, k->verb);
	switch (non ? rng_below(r, 5) : 5) {
	case 0:
		bufprintf(&b, "%c%s %s %s from %s", verb3[0] - 'a' + 'A', verb3 + 1, outs.s, where, ins.s);
		if (nops)
			bufprintf(&b, " using %s", ops.s);
		break;
	case 1:
		bufprintf(&b, "Computes %s %s from %s", outs.s, where, ins.s);
		if (nops)
			bufprintf(&b, " with %s", ops.s);
		break;
	case 2:
		bufprintf(&b, "Reads %s and writes %s %s", ins.s, outs.s, where);
		if (nops)
			bufprintf(&b, ", combining them through %s", ops.s);
		break;
	case 3:
		bufprintf(&b, "A %d-D kernel that %s %s from %s", k->ndim, verb3, outs.s, ins.s);
		if (nops)
			bufprintf(&b, " by way of %s", ops.s);
		break;
	case 4:
		bufprintf(&b, "Each thread %s its %s from %s", verb3, outs.s, ins.s);
		if (nops)
			bufprintf(&b, ", using %s", ops.s);
		break;
	default: /* only accumulators */
		bufprintf(&b, "%c%s %s", verb3[0] - 'a' + 'A', verb3 + 1, ins.s);
		if (nops)
			bufprintf(&b, " through %s", ops.s);
		break;
	}
	if (extra.s)
		bufputs(&b, extra.s);
	if (b.n && b.s[b.n - 1] >= '0' && b.s[b.n - 1] <= '9')
		bufputs(&b, " as given"); /* the sentence ends in a word, not a name's digit */
	bufputs(&b, ".");
	text = astrdup(A, b.s);
	buffree(&b);
	buffree(&outs);
	buffree(&ins);
	buffree(&ops);
	buffree(&extra);
	return text;
}
