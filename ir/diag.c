/*
 * diag.c — compiler-style diagnostics:
 *
 *   file:line:col: error: message
 *       source line
 *       ^
 *
 * Columns are 1-based byte offsets.  The line is found in the source's
 * line index when it has one (srcindex: a source with many diagnostics),
 * else by scanning the source when a diagnostic is printed.  A line
 * longer than SHOWMAX bytes is shown as a window of SHOWMAX bytes around
 * the caret, "..." marking each side cut (never inside a UTF-8 character);
 * the caret is placed counting characters.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

void
diaginit(Diag *d)
{
	memset(d, 0, sizeof *d);
	d->out = stderr;
	d->maxerr = 50;
}

enum { SHOWMAX = 100 };

/* The line indexes (srcindex), found by the text they index: a handful
 * at a time (kpyc's input files, the Python file of passes' messages). */
typedef struct LineIdx {
	const char *text;
	size_t len;
	size_t *start; /* where each line starts */
	uint32_t n;
} LineIdx;
static LineIdx *lineidx;
static size_t nlineidx, caplineidx;

void
srcindex(const Src *src)
{
	LineIdx x = {src->text, src->len, NULL, 1};
	const char *p, *end;
	size_t n = 1;

	if (!src->text)
		return;
	end = src->text + src->len;
	/* memchr: the newlines found a vector at a time, not a byte */
	for (p = src->text; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	if (n > UINT32_MAX)
		return; /* diagnostics scan */
	x.start = xmalloc(n * sizeof *x.start);
	x.start[0] = 0;
	for (p = src->text; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		x.start[x.n++] = (size_t)(p - src->text) + 1;
	if (nlineidx == caplineidx) {
		caplineidx = caplineidx ? 2 * caplineidx : 8;
		lineidx = xrealloc(lineidx, caplineidx * sizeof *lineidx);
	}
	lineidx[nlineidx++] = x;
}

static LineIdx *
findidx(const Src *src)
{
	size_t i;

	for (i = nlineidx; i-- > 0;)
		if (lineidx[i].text == src->text && lineidx[i].len == src->len)
			return &lineidx[i];
	return NULL;
}

void
srcunindex(const Src *src)
{
	LineIdx *x = src->text ? findidx(src) : NULL;

	if (!x)
		return;
	free(x->start);
	*x = lineidx[--nlineidx];
}

static void
showline(FILE *out, const Src *src, Loc loc)
{
	const char *p, *e, *end;
	uint32_t line = 1;
	size_t len, c, s, t, i;
	const LineIdx *x;

	if (!src || !src->text || loc.line == 0)
		return;
	p = src->text;
	end = src->text + src->len;
	if ((x = findidx(src))) {
		if (loc.line > x->n)
			return;
		p += x->start[loc.line - 1];
		line = loc.line;
	}
	while (p < end && line < loc.line) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return;
		p = nl + 1;
		line++;
	}
	if (line != loc.line || p >= end)
		return;
	e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	if (e > p && e[-1] == '\r')
		e--;
	len = (size_t)(e - p);
	c = loc.col ? loc.col - 1 : 0; /* the caret's byte */
	if (c > len)
		c = len;
	s = 0;
	t = len;
	if (len > SHOWMAX) {
		s = c > SHOWMAX / 2 ? c - SHOWMAX / 2 : 0;
		if (s > len - SHOWMAX)
			s = len - SHOWMAX;
		t = s + SHOWMAX;
		while (s > 0 && s < c && ((unsigned char)p[s] & 0xc0) == 0x80)
			s++;
		while (t < len && t > c && ((unsigned char)p[t] & 0xc0) == 0x80)
			t--;
	}
	fprintf(out, "    %s%.*s%s\n    %s", s ? "..." : "", (int)(t - s), p + s, t < len ? "..." : "",
	        s ? "   " : "");
	for (i = s; i < c; i++) /* one column per character, not per byte */
		if (((unsigned char)p[i] & 0xc0) != 0x80)
			fputc(p[i] == '\t' ? '\t' : ' ', out);
	fputs("^\n", out);
}

void
diagv(Diag *d, const Src *src, Loc loc, const char *kind, const char *fmt, va_list ap)
{
	const char *name = src && src->name ? src->name : progname;
	bool err = strcmp(kind, "error") == 0;

	if (err)
		d->nerr++;
	else if (strcmp(kind, "warning") == 0)
		d->nwarn++;
	if (err && d->maxerr && d->nerr > d->maxerr) {
		if (d->nerr == d->maxerr + 1)
			fprintf(d->out, "%s: too many errors; stopping the list\n", name);
		return;
	}
	if (loc.line)
		fprintf(d->out, "%s:%u:%u: %s: ", name, loc.line, loc.col ? loc.col : 1, kind);
	else
		fprintf(d->out, "%s: %s: ", name, kind);
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	showline(d->out, src, loc);
}

void
diagerr(Diag *d, const Src *src, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diagv(d, src, loc, "error", fmt, ap);
	va_end(ap);
}

void
diagwarn(Diag *d, const Src *src, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diagv(d, src, loc, "warning", fmt, ap);
	va_end(ap);
}

void
diagnote(Diag *d, const Src *src, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diagv(d, src, loc, "note", fmt, ap);
	va_end(ap);
}
