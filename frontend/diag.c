/*
 * diag.c — kpyc's diagnostics: errors, warnings and notes are formatted as
 * libkir's diag.c does, kept, sorted by position and flushed at the end
 * (the parser's syntax errors included); serr() for function bodies.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* ---- diagnostics ---------------------------------------------------- */

/* Format a diagnostic as diag.c does and keep it. */
static void
collect(Kpyc *k, Loc loc, const char *kind, const char *fmt, va_list ap)
{
	Diagnostic dg;
	Diag tmp;
	FileCtx *f = k->file;
	char *text = NULL;
	size_t len = 0;
	FILE *ms;

	memset(&dg, 0, sizeof dg);
	if (strcmp(kind, "error") == 0 && k->d->maxerr && k->d->nerr >= k->d->maxerr) {
		/* past the errors flushdiags prints: counted, not formatted (a
		 * file of garbage makes one per line, and formatting one scans
		 * the source up to its line) */
		dg.file = loc.line && loc.file < (uint32_t)k->nfiles ? (int)loc.file : 0;
		dg.loc = loc;
		dg.seq = k->ndiags;
		dg.error = true;
		k->d->nerr++;
		APUSH(k->a, k->diags, k->ndiags, k->capdiags, dg);
		return;
	}
	if (!(ms = open_memstream(&text, &len)))
		fatal("open_memstream:");
	diaginit(&tmp);
	tmp.out = ms;
	tmp.maxerr = 0;
	/* a location names its file; the current file is a fallback for none */
	if (loc.line && loc.file < (uint32_t)k->nfiles)
		f = &k->files[loc.file];
	diagv(&tmp, f ? f->src : NULL, loc, kind, fmt, ap);
	fclose(ms);
	bufwrite(&dg.text, text, len);
	free(text);
	dg.file = f ? f->index : 0;
	dg.loc = loc;
	dg.seq = k->ndiags;
	dg.error = strcmp(kind, "error") == 0;
	if (strcmp(kind, "note") == 0 && k->ndiags) {
		/* a note follows its diagnostic (none if that was not formatted) */
		if (k->diags[k->ndiags - 1].text.n)
			bufwrite(&k->diags[k->ndiags - 1].text, dg.text.s, dg.text.n);
		buffree(&dg.text);
		return;
	}
	if (dg.error)
		k->d->nerr++;
	else
		k->d->nwarn++;
	APUSH(k->a, k->diags, k->ndiags, k->capdiags, dg);
}

void
kerr(Kpyc *k, Loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (k->lenient) {
		collect(k, loc, "warning", fmt, ap);
		k->nlenient++;
	} else {
		collect(k, loc, "error", fmt, ap);
	}
	va_end(ap);
}

void
kwarn(Kpyc *k, Loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	collect(k, loc, "warning", fmt, ap);
	va_end(ap);
}

void
knote(Kpyc *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	collect(k, (Loc){0}, "note", fmt, ap);
	va_end(ap);
}

void
syntaxerr(void *ctx, Loc loc, const char *msg)
{
	kerr(ctx, loc, "%s", msg);
}

static int
cmpdiag(const void *a, const void *b)
{
	const Diagnostic *p = a, *q = b;

	if (p->file != q->file)
		return p->file - q->file;
	if (p->loc.line != q->loc.line)
		return p->loc.line < q->loc.line ? -1 : 1;
	if (p->loc.col != q->loc.col)
		return p->loc.col < q->loc.col ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* Print the collected diagnostics in source order (Diag.maxerr errors at most). */
void
flushdiags(Kpyc *k)
{
	uint32_t i;
	int nerr = 0;

	if (k->ndiags > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(k->diags, k->ndiags, sizeof *k->diags, cmpdiag);
	for (i = 0; i < k->ndiags; i++) {
		Diagnostic *dg = &k->diags[i];
		if (dg->error && k->d->maxerr && ++nerr > k->d->maxerr) {
			fprintf(k->d->out, "%s: too many errors; stopping the list\n", k->files[dg->file].src->name);
			break;
		}
		if (dg->text.n)
			fwrite(dg->text.s, 1, dg->text.n, k->d->out);
	}
	for (i = 0; i < k->ndiags; i++)
		buffree(&k->diags[i].text);
}

void
serr(Ctx *c, Loc loc, const char *fmt, ...)
{
	va_list ap;
	Buf b = {0};

	va_start(ap, fmt);
	bufvprintf(&b, fmt, ap);
	va_end(ap);
	kerr(c->k, loc, "%s", b.s);
	buffree(&b);
}
