/*
 * dot.c — a function as a Graphviz digraph (kopt --dot).
 *
 * One node per op, labelled with the op's kir line as the printer writes it
 * (the same value names); a function's parameters and a region's parameters
 * (a loop's index and iteration values) are ellipses.  Each region is a
 * cluster, nested in the cluster of the region that holds its op, and joined
 * to its op by a dotted edge.  Solid edges are dataflow: from the op (or
 * parameter) that defines a value to every op that uses it.  A yield, and a
 * return, points back at the op its values flow out of (dashed).
 *
 * Node names are fixed by walk order (n0, n1, ...), so the output is
 * deterministic; one walk numbers the ops, a second writes the edges.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct Dot {
	const Module *m;
	const Func *f;
	Names *nm;
	Buf *out;
	uint32_t nops;     /* ops numbered so far */
	uint32_t nclus;    /* clusters written so far */
	uint32_t *defnode; /* per Val: the node id defining it (op or parameter node), or 0 */
} Dot;

/* A dot string literal: quotes and backslashes escaped. */
static void
dotstr(Buf *out, const char *s)
{
	bufputc(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			bufputc(out, '\\');
		bufputc(out, *s);
	}
	bufputc(out, '"');
}

/* A function or region parameter (a loop's index or iteration value): an
 * ellipse named p<Val>, apart from the op nodes n<id>. */
static void
paramnode(Dot *d, Val v, int depth)
{
	Buf l = {0};

	bufprintf(&l, "%%%s: %s", valname(d->nm, v), typestr(d->m, vty(d->f, v)));
	bufprintf(d->out, "%*s  p%u [shape=ellipse, label=", depth * 2, "", v);
	dotstr(d->out, l.s);
	bufputs(d->out, "];\n");
	buffree(&l);
	d->defnode[v] = v | 0x80000000u; /* high bit: a parameter node */
}

static void nodename(Buf *out, uint32_t id);

/* Whether region k of op is drawn: as in the printer, an if's else that
 * only yields nothing is left out. */
static bool
shown(const Op *op, int k)
{
	const Region *r = &op->regs[k];

	return !(op->code == OP_IF && k == 1 && r->n == 1 && r->ops[0]->code == OP_YIELD && r->ops[0]->nargs == 0);
}

/* Write the nodes and clusters of region r; op node ids are assigned in
 * walk order (defnode holds id + 1, so that 0 means none). */
static void
regionnodes(Dot *d, const Region *r, int depth)
{
	uint32_t i;
	int k, j;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		uint32_t id = d->nops++;
		Buf l = {0};

		printopline(&l, d->nm, op);
		bufprintf(d->out, "%*s  n%u [label=", depth * 2, "", id);
		dotstr(d->out, l.s);
		bufputs(d->out, op->nregs ? ", style=bold];\n" : "];\n");
		buffree(&l);
		for (j = 0; j < op->nres; j++)
			d->defnode[op->res[j]] = id + 1;
		for (k = 0; k < op->nregs; k++) {
			static const char *const ifname[] = { "then", "else" };
			static const char *const whilename[] = { "cond", "body" };
			const char *lab = op->code == OP_IF && k < 2 ? ifname[k]
				: op->code == OP_WHILE && k < 2 ? whilename[k] : "body";

			if (!shown(op, k))
				continue;

			bufprintf(d->out, "%*s  subgraph cluster_%u {\n", depth * 2, "", d->nclus++);
			bufprintf(d->out, "%*s    label=\"%s\"; style=rounded;\n", depth * 2, "", lab);
			/* the op's region parameters live in its first region */
			if (k == 0)
				for (j = 0; j < op->nparams; j++)
					paramnode(d, op->params[j], depth + 1);
			regionnodes(d, &op->regs[k], depth + 1);
			bufprintf(d->out, "%*s  }\n", depth * 2, "");
		}
	}
}

static void
nodename(Buf *out, uint32_t id)
{
	if (id & 0x80000000u)
		bufprintf(out, "p%u", id & 0x7fffffffu);
	else
		bufprintf(out, "n%u", id - 1);
}

/* The edges of region r; next is the first op id of r.  owner: the node id
 * (+1) of the op holding r, 0 at the top. */
static uint32_t
regionedges(Dot *d, const Region *r, uint32_t next, uint32_t owner)
{
	uint32_t i;
	int j, k;

	for (i = 0; i < r->n; i++) {
		const Op *op = r->ops[i];
		uint32_t id = next++;

		if (i == 0 && owner) {
			bufputs(d->out, "  ");
			nodename(d->out, owner);
			bufprintf(d->out, " -> n%u [style=dotted, arrowhead=none];\n", id);
		}
		for (j = 0; j < op->nargs; j++) {
			Val v = op->args[j];

			if (!v || v >= d->f->nvals || isconst(d->f, v) || !d->defnode[v])
				continue;
			bufputs(d->out, "  ");
			nodename(d->out, d->defnode[v]);
			bufprintf(d->out, " -> n%u;\n", id);
		}
		if (owner && (opinfo[op->code].flags & F_TERM) && op->nargs && op->code != OP_RET) {
			bufprintf(d->out, "  n%u -> ", id);
			nodename(d->out, owner);
			bufputs(d->out, " [style=dashed, constraint=false];\n");
		}
		for (k = 0; k < op->nregs; k++)
			if (shown(op, k))
				next = regionedges(d, &op->regs[k], next, id + 1);
	}
	return next;
}

void
printdot(Buf *out, const Module *m, const Func *f)
{
	Dot d = {0};
	Buf title = {0};
	uint32_t i;

	d.m = m;
	d.f = f;
	d.out = out;
	d.nm = namesnew(m, f);
	d.defnode = xcalloc(f->nvals + 1, sizeof *d.defnode);
	bufprintf(&title, "%s @%s", f->kernel ? "kernel" : "func", f->name);
	bufputs(out, "digraph ");
	dotstr(out, f->name);
	bufputs(out, " {\n  label=");
	dotstr(out, title.s);
	bufputs(out, "; labelloc=t;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
	buffree(&title);
	for (i = 0; i < f->nparams; i++)
		paramnode(&d, f->params[i], 0);
	regionnodes(&d, &f->body, 0);
	regionedges(&d, &f->body, 0, 0);
	bufputs(out, "}\n");
	free(d.defnode);
	namesfree(d.nm);
}
