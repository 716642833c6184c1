/*
 * emit_stmt.c — the C++ emitter's statements: declarations, parallel
 * assignments of carried slots, if/for/while, terminators and the ops
 * written as statements.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit_impl.h"

/* ------------------------------------------------------------------ */
/* Statements                                                          */

static void
indent(Buf *b, int d)
{
	int i;

	for (i = 0; i < d; i++)
		bufputs(b, "    ");
}

/* The Python location of a statement: its op's, else the first line among
 * the expressions written into it. */
static Loc
stmtloc(const FState *s, const Op *op, int depth)
{
	Loc best = op->loc, l;
	int j;

	if (best.line || depth > 32)
		return best;
	for (j = 0; j < op->nargs; j++) {
		Val v = op->args[j];
		const Value *x = &s->f->vals[v];
		if (s->inl[v] && x->kind == V_RES && x->def && (l = stmtloc(s, x->def, depth + 1)).line &&
		    (!best.line || l.line < best.line))
			best = l;
	}
	return best;
}

static void
linedir(FState *s, Buf *b, const Op *op)
{
	Loc loc;

	if (!s->linedir || !(loc = stmtloc(s, op, 0)).line ||
	    (loc.line == s->lastline && loc.file == s->lastfile))
		return;
	s->lastline = loc.line;
	s->lastfile = loc.file;
	bufprintf(b, "#line %u ", loc.line);
	emitcstring(b, locsrc(s->m, loc));
	bufputc(b, '\n');
}

/* `T name` for the variable of v. */
void
declvar(FState *s, Buf *b, Val v)
{
	ctype1(s->e, b, s->f->vals[v].ty);
	bufprintf(b, " %s", vname(s, v));
}

/* `T name{};` (or `T name;` for composites, which construct to zero). */
static void
declzero(FState *s, Buf *b, Val v, int d)
{
	Type t = s->f->vals[v].ty;

	indent(b, d);
	declvar(s, b, v);
	bufputs(b, iscomposite(t) ? ";\n" : "{};\n");
}

static void
declinit(FState *s, Buf *b, Val v, Val init, int d)
{
	indent(b, d);
	declvar(s, b, v);
	bufputs(b, " = ");
	exprtop(s, b, init, LIT_BARE);
	bufputs(b, ";\n");
}

/* Assign srcs[k] to the variables of dsts[k] as one parallel assignment,
 * in order: a source that reads a destination assigned before it is
 * computed into a temporary first. */
static void
passign(FState *s, Buf *b, const Val *dsts, const Val *srcs, int n, int d)
{
	char **tmp = xcalloc(n + 1, sizeof(char *));
	Val *rd = NULL, *done;
	int i, k, nr, cap = 0;
	uint32_t hcap = 16, h;

	/* the destinations assigned so far (their roots): open addressing,
	 * 0 empty, so the whole assignment is linear in what it reads */
	while (hcap < 2u * (uint32_t)n + 2)
		hcap *= 2;
	done = xcalloc(hcap, sizeof *done);
	for (i = 0; i < n; i++) {
		bool clash = false;
		Val dr = root(s, dsts[i]);
		if (root(s, srcs[i]) == dr)
			continue;
		nr = 0;
		reads(s, srcs[i], &rd, &nr, &cap);
		for (k = 0; k < nr && !clash; k++)
			for (h = (rd[k] * 2654435761u) & (hcap - 1); done[h]; h = (h + 1) & (hcap - 1))
				if (done[h] == rd[k]) {
					clash = true;
					break;
				}
		for (h = (dr * 2654435761u) & (hcap - 1); done[h] && done[h] != dr; h = (h + 1) & (hcap - 1))
			;
		done[h] = dr;
		if (clash) {
			char base[300];
			snprintf(base, sizeof base, "%s_next", vname(s, dsts[i]));
			tmp[i] = uniqname(&s->names, base, NULL, 0);
			nsadd(&s->names, tmp[i]);
			indent(b, d);
			ctype1(s->e, b, s->f->vals[dsts[i]].ty);
			bufprintf(b, " %s = ", tmp[i]);
			exprtop(s, b, srcs[i], LIT_BARE);
			bufputs(b, ";\n");
		}
	}
	for (i = 0; i < n; i++) {
		if (root(s, srcs[i]) == root(s, dsts[i]))
			continue;
		indent(b, d);
		bufprintf(b, "%s = ", vname(s, dsts[i]));
		if (tmp[i])
			bufputs(b, tmp[i]);
		else
			exprtop(s, b, srcs[i], LIT_BARE);
		bufputs(b, ";\n");
		free(tmp[i]);
	}
	free(tmp);
	free(rd);
	free(done);
}

/* Assign the carried slots of loop from args (a yield, break or continue). */
static void
slotassign(FState *s, Buf *b, const Op *loop, const Op *term, int d)
{
	Val *dst = xcalloc(2u * term->nargs + 2, sizeof(Val)), *src = dst + term->nargs + 1;
	int n = 0, k;

	for (k = 0; k < term->nargs && k < nslots(loop); k++)
		if (slotneeded(s, loop, k)) {
			dst[n] = slotparam(loop, k);
			src[n++] = term->args[k];
		}
	passign(s, b, dst, src, n, d);
	free(dst);
}

static void
terminator(FState *s, Buf *b, const Op *op, int d, Ctx c, bool last)
{
	const Func *f = s->f;
	int k;

	switch (op->code) {
	case OP_YIELD:
		if (!c.owner)
			return;
		if (c.owner->code == OP_IF) {
			Val *dst = xcalloc(2u * op->nargs + 2, sizeof(Val)), *src = dst + op->nargs + 1;
			int n = 0;
			for (k = 0; k < op->nargs && k < c.owner->nres; k++)
				if (s->need[c.owner->res[k]]) {
					dst[n] = c.owner->res[k];
					src[n++] = op->args[k];
				}
			passign(s, b, dst, src, n, d);
			free(dst);
		} else if (c.owner->code == OP_WHILE && c.regno == 0) {
			/* the condition: written by the while itself */
		} else {
			slotassign(s, b, c.owner, op, d);
		}
		return;
	case OP_BREAK:
	case OP_CONTINUE:
		linedir(s, b, op);
		if (c.loop)
			slotassign(s, b, c.loop, op, d);
		indent(b, d);
		bufputs(b, op->code == OP_BREAK ? "break;\n" : "continue;\n");
		return;
	case OP_RET:
		linedir(s, b, op);
		if (f->kernel || f->nrets == 0) {
			if (!last) {
				indent(b, d);
				bufputs(b, "return;\n");
			}
		} else if (f->nrets == 1) {
			indent(b, d);
			bufputs(b, "return ");
			exprtop(s, b, op->args[0], LIT_BARE);
			bufputs(b, ";\n");
		} else {
			for (k = 0; k < op->nargs; k++) {
				indent(b, d);
				bufprintf(b, "%s = ", s->retname[k]);
				exprtop(s, b, op->args[k], LIT_BARE);
				bufputs(b, ";\n");
			}
			if (!last) {
				indent(b, d);
				bufputs(b, "return;\n");
			}
		}
		return;
	}
}

/* Does region r write nothing but its terminator's yield (all its ops
 * inlined or dead)? */
static bool
exprregion(const FState *s, const Region *r)
{
	uint32_t i;

	for (i = 0; i + 1 < r->n; i++) {
		const Op *op = r->ops[i];
		if (!oplive(s, op))
			continue;
		if (op->nres == 1 && s->inl[op->res[0]])
			continue;
		return false;
	}
	return r->n > 0 && r->ops[r->n - 1]->code == OP_YIELD;
}

/* The elif shape: the else region is (inlined ops,) one if X, and a
 * yield of X's results in order.  Returns X or NULL. */
static const Op *
elifop(const FState *s, const Op *op)
{
	const Region *r = &op->regs[1];
	const Op *x = NULL, *y;
	uint32_t i;
	int k;

	if (r->n < 2)
		return NULL;
	y = r->ops[r->n - 1];
	for (i = 0; i + 1 < r->n; i++) {
		const Op *o = r->ops[i];
		if (!oplive(s, o) || (o->nres == 1 && s->inl[o->res[0]]))
			continue;
		if (o->code != OP_IF || x)
			return NULL;
		x = o;
	}
	if (!x || y->code != OP_YIELD || x->nres != op->nres || y->nargs != op->nres)
		return NULL;
	for (k = 0; k < op->nres; k++)
		if (y->args[k] != x->res[k] || s->uses[x->res[k]] > 1)
			return NULL;
	return x;
}

static void emitif(FState *s, Buf *b, const Op *op, int d, Ctx c, bool chained);

static void
condexpr(FState *s, Buf *b, Val v, bool negate)
{
	if (!negate) {
		exprtop(s, b, v, LIT_TYPED);
		return;
	}
	Buf t = {0};
	valexpr(s, &t, v, LIT_TYPED);
	bufputc(b, '!');
	bufputs(b, t.s ? t.s : "");
	buffree(&t);
}

static void
emitif(FState *s, Buf *b, const Op *op, int d, Ctx c, bool chained)
{
	Buf tb = {0}, eb = {0};
	Ctx in = {op, 0, c.loop};
	const Op *elif;
	int k, nneed = 0;

	for (k = 0; k < op->nres; k++)
		if (s->need[op->res[k]])
			nneed++;
	/* r = c ? a : b when both branches are single expressions */
	if (!chained && nneed == 1 && op->nres == 1 && exprregion(s, &op->regs[0]) && exprregion(s, &op->regs[1]) &&
	    op->regs[0].ops[op->regs[0].n - 1]->nargs == 1 && op->regs[1].ops[op->regs[1].n - 1]->nargs == 1) {
		Val a = op->regs[0].ops[op->regs[0].n - 1]->args[0];
		Val e2 = op->regs[1].ops[op->regs[1].n - 1]->args[0];
		indent(b, d);
		declvar(s, b, op->res[0]);
		bufputs(b, " = ");
		valexpr(s, b, op->args[0], LIT_TYPED);
		bufputs(b, " ? ");
		valexpr(s, b, a, LIT_BARE);
		bufputs(b, " : ");
		valexpr(s, b, e2, LIT_BARE);
		bufputs(b, ";\n");
		return;
	}
	if (!chained)
		for (k = 0; k < op->nres; k++)
			if (s->need[op->res[k]] && root(s, op->res[k]) == op->res[k])
				declzero(s, b, op->res[k], d);
	region(s, &tb, &op->regs[0], d + 1, in);
	in.regno = 1;
	if ((elif = elifop(s, op)) != NULL) {
		Buf xb = {0};
		for (k = 0; k < op->nres; k++)
			s->alias[elif->res[k]] = op->res[k];
		emitif(s, &xb, elif, d, in, true);
		if (xb.n) {
			indent(&eb, d);
			bufputs(&eb, "} else ");
			bufwrite(&eb, xb.s, xb.n);
		}
		buffree(&xb);
	} else {
		Buf rb = {0};
		region(s, &rb, &op->regs[1], d + 1, in);
		if (rb.n) {
			indent(&eb, d);
			bufputs(&eb, "} else {\n");
			bufwrite(&eb, rb.s, rb.n);
			indent(&eb, d);
			bufputs(&eb, "}\n");
		}
		buffree(&rb);
	}
	if (!tb.n && !eb.n)
		goto done;
	if (!chained)
		indent(b, d);
	if (!tb.n && eb.n && !elif) {
		/* only an else: negate the condition */
		const char *body = eb.s;
		/* skip the "} else {\n" line */
		body = strchr(body, '\n') + 1;
		bufputs(b, "if (");
		condexpr(s, b, op->args[0], true);
		bufputs(b, ") {\n");
		bufputs(b, body);
		goto done;
	}
	bufputs(b, "if (");
	condexpr(s, b, op->args[0], false);
	bufputs(b, ") {\n");
	if (tb.n)
		bufwrite(b, tb.s, tb.n);
	if (eb.n) {
		bufwrite(b, eb.s, eb.n);
	} else {
		indent(b, d);
		bufputs(b, "}\n");
	}
done:
	buffree(&tb);
	buffree(&eb);
}

/* Declare the carried slots of a loop before it. */
static void
slotdecls(FState *s, Buf *b, const Op *op, int d)
{
	int k;

	for (k = 0; k < nslots(op); k++) {
		Val p = slotparam(op, k);
		if (!slotneeded(s, op, k) || root(s, p) != p)
			continue;
		/* a nameless parameter takes its result's name */
		if (!s->f->vals[p].name && k < op->nres && s->f->vals[op->res[k]].name && !s->name[p]) {
			char *bn = sanitize(s->f->vals[op->res[k]].name, true);
			s->name[p] = uniqname(&s->names, bn, NULL, 0);
			nsadd(&s->names, s->name[p]);
			free(bn);
		}
		declinit(s, b, p, slotinit(op, k), d);
	}
}

static void
emitfor(FState *s, Buf *b, const Op *op, int d, Ctx c)
{
	const Func *f = s->f;
	Val iv = op->params[0], lo = op->args[0], hi = op->args[1], st = op->args[2];
	const char *i;
	Ctx in = {op, 0, op};

	(void)c;
	slotdecls(s, b, op, d);
	i = vname(s, iv);
	indent(b, d);
	bufputs(b, "for (");
	ctype1(s->e, b, f->vals[iv].ty);
	bufprintf(b, " %s = ", i);
	exprtop(s, b, lo, LIT_BARE);
	bufprintf(b, "; ");
	if (isconst(f, st)) {
		const Value *sv = &f->vals[st];
		bool neg = scalarissigned(sv->ty.s) && sv->c[0].i < 0;
		bufprintf(b, "%s %s ", i, neg ? ">" : "<");
		valexpr(s, b, hi, LIT_BARE);
		if (!neg && sv->c[0].u == 1)
			bufprintf(b, "; ++%s", i);
		else if (neg && sv->c[0].i == -1)
			bufprintf(b, "; --%s", i);
		else if (neg && sv->c[0].i > INT32_MIN) {
			Scal a;
			a.i = -sv->c[0].i;
			bufprintf(b, "; %s -= ", i);
			lit1(b, sv->ty.s, a, LIT_BARE);
		} else {
			bufprintf(b, "; %s += ", i);
			valexpr(s, b, st, LIT_BARE);
		}
	} else {
		bufputc(b, '(');
		valexpr(s, b, st, LIT_TYPED);
		bufprintf(b, " > 0 ? %s < ", i);
		valexpr(s, b, hi, LIT_BARE);
		bufprintf(b, " : %s > ", i);
		valexpr(s, b, hi, LIT_BARE);
		bufprintf(b, "); %s += ", i);
		valexpr(s, b, st, LIT_BARE);
	}
	bufputs(b, ") {\n");
	region(s, b, &op->regs[0], d + 1, in);
	indent(b, d);
	bufputs(b, "}\n");
}

static void
emitwhile(FState *s, Buf *b, const Op *op, int d, Ctx c)
{
	const Region *cr = &op->regs[0];
	const Op *cy = cr->n ? cr->ops[cr->n - 1] : NULL;
	Ctx in = {op, 0, op};

	(void)c;
	slotdecls(s, b, op, d);
	indent(b, d);
	if (cy && cy->code == OP_YIELD && cy->nargs == 1 && exprregion(s, cr)) {
		bufputs(b, "while (");
		exprtop(s, b, cy->args[0], LIT_TYPED);
		bufputs(b, ") {\n");
	} else {
		bufputs(b, "while (true) {\n");
		region(s, b, cr, d + 1, in);
		if (cy && cy->code == OP_YIELD && cy->nargs == 1) {
			indent(b, d + 1);
			bufputs(b, "if (");
			condexpr(s, b, cy->args[0], true);
			bufputs(b, ")\n");
			indent(b, d + 2);
			bufputs(b, "break;\n");
		}
	}
	in.regno = 1;
	region(s, b, &op->regs[1], d + 1, in);
	indent(b, d);
	bufputs(b, "}\n");
}

/* Declarations for the results of a multi-result op (or a call), then
 * the statement that fills them. */
static void
multires(FState *s, Buf *b, const Op *op, int d, const char *fn, int first, int nres)
{
	int k;

	for (k = 0; k < nres; k++)
		if (root(s, op->res[k]) == op->res[k])
			declzero(s, b, op->res[k], d);
	indent(b, d);
	bufprintf(b, "%s(", fn);
	callargs(s, b, op, first);
	for (k = 0; k < nres; k++)
		bufprintf(b, "%s%s", op->nargs > first || k ? ", " : "", vname(s, op->res[k]));
	bufputs(b, ");\n");
}

static void
randop(FState *s, Buf *b, const Op *op, int d)
{
	Val st = op->res[op->nres - 1], val = op->nres > 1 ? op->res[0] : 0;
	int k;

	if (root(s, st) != root(s, op->args[0])) {
		/* the old state is read again later: copy it */
		declinit(s, b, st, op->args[0], d);
	}
	indent(b, d);
	if (val && s->need[val]) {
		declvar(s, b, val);
		bufputs(b, " = ");
	}
	bufprintf(b, "kpy::%s(%s", opinfo[op->code].name, vname(s, st));
	for (k = 1; k < op->nargs; k++) {
		bufputs(b, ", ");
		exprtop(s, b, op->args[k], LIT_TYPED);
	}
	bufputs(b, ");\n");
}

static void
statement(FState *s, Buf *b, const Op *op, int d, Ctx c, bool last)
{
	const Func *f = s->f;
	Val v = op->nres ? op->res[0] : 0;
	int k;

	if (!oplive(s, op))
		return;
	if (op->nres == 1 && s->inl[v])
		return;
	if (opinfo[op->code].flags & F_TERM) {
		terminator(s, b, op, d, c, last);
		return;
	}
	linedir(s, b, op);
	switch (op->code) {
	case OP_IF:
		emitif(s, b, op, d, c, false);
		return;
	case OP_FOR:
		emitfor(s, b, op, d, c);
		return;
	case OP_WHILE:
		emitwhile(s, b, op, d, c);
		return;
	case OP_TID: {
		/* kcuda: the launch index and extents are non-negative, so the
		 * unravelling is unsigned (no signed 64-bit division), and each
		 * coordinate is a non-negative i32 (Warp limits every extent to
		 * 2^31 - 1): __builtin_assume tells nvcc, so that indexing by it
		 * needs no wrap-around of negative indices (kptx tells LLVM the
		 * same).  kcpu's text is unchanged. */
		bool cu = s->e->o.cuda;
		const char *task = cu ? "(uint64_t)task" : "task", *ext = cu ? "(uint64_t)(uint32_t)" : "(int64_t)";
		for (k = 0; k < op->nres; k++) {
			if (!s->need[op->res[k]])
				continue;
			indent(b, d);
			declvar(s, b, op->res[k]);
			if (op->nres == 1)
				bufputs(b, " = kpy::i32(task);\n");
			else if (k == 0) {
				int j;
				bufprintf(b, " = kpy::i32(%s / (", task);
				for (j = 1; j < op->nres; j++)
					bufprintf(b, "%s%sbounds.shape[%d]", j > 1 ? " * " : "", ext, j);
				bufputs(b, "));\n");
			} else if (k == op->nres - 1) {
				bufprintf(b, " = kpy::i32(%s %% %sbounds.shape[%d]);\n", task, cu ? "(uint32_t)" : "", k);
			} else {
				int j;
				bufprintf(b, " = kpy::i32(%s / (", task);
				for (j = k + 1; j < op->nres; j++)
					bufprintf(b, "%s%sbounds.shape[%d]", j > k + 1 ? " * " : "", ext, j);
				bufprintf(b, ") %% %sbounds.shape[%d]);\n", cu ? "(uint32_t)" : "", k);
			}
			if (cu) {
				indent(b, d);
				bufprintf(b, "__builtin_assume(%s >= 0);\n", vname(s, op->res[k]));
			}
		}
		return;
	}
	case OP_CALL: {
		const char *fn = s->e->fname[op->attr];
		if (op->nres > 1) {
			multires(s, b, op, d, fn, 0, op->nres);
			return;
		}
		indent(b, d);
		if (op->nres == 1 && s->need[v]) {
			declvar(s, b, v);
			bufputs(b, " = ");
		}
		opexpr(s, b, op);
		bufputs(b, ";\n");
		return;
	}
	case OP_QUAT_TO_AXIS_ANGLE:
		multires(s, b, op, d, "kpy::quat_to_axis_angle", 0, op->nres);
		return;
	case OP_TRANSFORM_DECOMPOSE:
	case OP_SVD3: case OP_SVD2: case OP_QR3: case OP_EIG3: {
		/* results through out-parameters: kpy::NAME(x, r0&, r1&...) */
		char fn[64];
		snprintf(fn, sizeof fn, "kpy::%s", opinfo[op->code].name);
		multires(s, b, op, d, fn, 0, op->nres);
		return;
	}
	case OP_STORE:
		indent(b, d);
		bufputs(b, "kpy::store(");
		for (k = 0; k < op->nargs; k++) {
			if (k)
				bufputs(b, ", ");
			exprtop(s, b, op->args[k], LIT_TYPED);
		}
		bufputs(b, ");\n");
		return;
	case OP_ATOMIC_ADD: case OP_ATOMIC_SUB: case OP_ATOMIC_MIN: case OP_ATOMIC_MAX:
	case OP_ATOMIC_AND: case OP_ATOMIC_OR: case OP_ATOMIC_XOR: case OP_ATOMIC_EXCH:
	case OP_ATOMIC_CAS:
		indent(b, d);
		if (op->nres == 1 && s->need[v]) {
			declvar(s, b, v);
			bufputs(b, " = ");
		}
		bufprintf(b, "kpy::%s(", opinfo[op->code].name);
		callargs(s, b, op, 0);
		bufputs(b, ");\n");
		return;
	case OP_PRINT:
		indent(b, d);
		bufputs(b, "kpy::print(");
		exprtop(s, b, op->args[0], LIT_TYPED);
		bufputs(b, ");\n");
		return;
	case OP_PRINTF:
		indent(b, d);
		bufputs(b, "printf(");
		for (k = 0; k < op->nargs; k++) {
			Type t = f->vals[op->args[k]].ty;
			if (k)
				bufputs(b, ", ");
			/* varargs: f16, bf16 and f32 (float or double) travel as double */
			if (t.k == T_SCALAR && (t.s == S_F16 || t.s == S_BF16 || t.s == S_F32)) {
				bufputs(b, "double(");
				exprtop(s, b, op->args[k], LIT_TYPED);
				bufputc(b, ')');
			} else {
				exprtop(s, b, op->args[k], LIT_TYPED);
			}
		}
		bufputs(b, ");\n");
		return;
	case OP_ASSERT:
		indent(b, d);
		bufputs(b, "KPY_ASSERT(");
		exprtop(s, b, op->args[0], LIT_TYPED);
		bufputs(b, ");\n");
		return;
	case OP_INSERT:
		if (root(s, v) == root(s, op->args[0])) {
			Type t = f->vals[v].ty;
			indent(b, d);
			if (t.k == T_VEC || t.k == T_MAT || t.k == T_QUAT || t.k == T_XFORM) {
				bufputs(b, vname(s, v));
				for (k = 1; k + 1 < op->nargs; k++) {
					bufputc(b, '[');
					exprtop(s, b, op->args[k], LIT_TYPED);
					bufputc(b, ']');
				}
				bufputs(b, " = ");
				exprtop(s, b, op->args[op->nargs - 1], LIT_BARE);
				bufputs(b, ";\n");
			}
			return;
		}
		break;
	case OP_SETFIELD:
		if (root(s, v) != root(s, op->args[0]))
			declinit(s, b, v, op->args[0], d);
		indent(b, d);
		bufprintf(b, "%s.%s = ", vname(s, v), s->e->field[f->vals[op->args[0]].ty.sid][op->attr]);
		exprtop(s, b, op->args[1], LIT_BARE);
		bufputs(b, ";\n");
		return;
	default:
		if (opinfo[op->code].flags & F_RAND) {
			randop(s, b, op, d);
			return;
		}
		break;
	}
	if (op->nres != 1)
		die("no C++ for %s with %d results", opinfo[op->code].name, op->nres);
	indent(b, d);
	declvar(s, b, v);
	bufputs(b, " = ");
	{
		Buf t = {0};
		opexpr(s, &t, op);
		if (t.s && wrapped(t.s, t.n))
			bufwrite(b, t.s + 1, t.n - 2);
		else if (t.s)
			bufwrite(b, t.s, t.n);
		buffree(&t);
	}
	bufputs(b, ";\n");
}

void
region(FState *s, Buf *b, const Region *r, int d, Ctx c)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		statement(s, b, r->ops[i], d, c, d == 1 && !c.owner && i + 1 == r->n);
}
