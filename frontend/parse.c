/*
 * parse.c — parsing a top-level statement: a range of the token array
 * through the Bison parser, and the text of a token.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "py.tab.h"

/* Parse tokens [from, to) as statements; NULL on a syntax error. */
NodeList *
parse(Kpyc *k, FileCtx *f, uint32_t from, uint32_t to, bool quiet)
{
	PState ps;
	NodeList *l;

	memset(&ps, 0, sizeof ps);
	ps.a = k->a;
	ps.src = f->src;
	ps.file = (uint32_t)f->index;
	ps.toks = &f->toks;
	ps.d = k->d;
	ps.quiet = quiet;
	ps.report = syntaxerr;
	ps.ctx = k;
	if (pyparse_unit(&ps, from, to) != 0 && quiet)
		return NULL;
	l = aalloc(k->a, sizeof *l);
	*l = ps.result;
	return l;
}

char *
toktext(Kpyc *k, FileCtx *f, const Token *t)
{
	return astrndup(k->a, f->src->text + t->off, t->len);
}
