/*
 * lex.re — the kir lexer (re2c).  One scan function over a NUL-terminated
 * whole-file buffer, so there is no refill logic.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "kirlex.h"

static void
advance(Lexer *lx, const char *to)
{
	const char *p;

	for (p = lx->cur; p < to; p++) {
		if (*p == '\n') {
			lx->line++;
			lx->linestart = p + 1;
		}
	}
	lx->cur = to;
}

/* The digits at *pp, as strtoul reads them (ULONG_MAX past it). */
static unsigned long
decimal(const char **pp)
{
	const char *p = *pp;
	unsigned long v = 0;
	bool over = false;

	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (ULONG_MAX - d) / 10)
			over = true;
		v = v * 10 + d;
	}
	*pp = p;
	return over ? ULONG_MAX : v;
}

void
lexinit(Lexer *lx, const Src *src)
{
	memset(lx, 0, sizeof *lx);
	lx->src = src;
	lx->cur = src->text;
	lx->lim = src->text + src->len;
	lx->line = 1;
	lx->linestart = src->text;
}

int
lexnext(Lexer *lx, Tok *t)
{
	const char *YYCURSOR, *YYMARKER = NULL, *YYLIMIT = lx->lim, *start;

again:
	YYCURSOR = lx->cur;
	start = YYCURSOR;
	t->start = start;
	t->loc.line = lx->line;
	t->loc.col = (uint32_t)(start - lx->linestart) + 1;
	/* Only the whitespace rule matches a newline: the others just move
	 * the cursor. */
	/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:yyfill:enable = 0;
	re2c:eof = 0;

	digit = [0-9];
	ident = [A-Za-z_][A-Za-z0-9_]*;
	valname = [A-Za-z_][A-Za-z0-9_.]* | digit+;
	exp = [eE] [+-]? digit+;

	$ { t->len = 0; return t->kind = TEOF; }
	[ \t\r\n]+ { advance(lx, YYCURSOR); goto again; }
	";" [ \t]* "loc" [ \t]+ (digit+ ":")? digit+ ":" digit+ [ \t]* {
		const char *p = start;
		uint32_t n[3];
		int k = 0;

		while (*p < '0' || *p > '9') p++;
		while (k < 3 && *p >= '0' && *p <= '9') {
			n[k++] = (uint32_t)decimal(&p);
			if (*p == ':') p++;
		}
		t->loc2.file = k == 3 ? n[0] : 0;
		t->loc2.line = n[k - 2];
		t->loc2.col = n[k - 1];
		lx->cur = YYCURSOR;
		t->len = (size_t)(YYCURSOR - start);
		return t->kind = TLOC;
	}
	[;#] [^\n\x00]* { lx->cur = YYCURSOR; goto again; }
	"%" valname { lx->cur = YYCURSOR; t->len = (size_t)(YYCURSOR - start); return t->kind = TVAL; }
	"@" ident ("." ident)* { lx->cur = YYCURSOR; t->len = (size_t)(YYCURSOR - start); return t->kind = TSYM; }
	ident { lx->cur = YYCURSOR; t->len = (size_t)(YYCURSOR - start); return t->kind = TIDENT; }
	"-"? digit+ { lx->cur = YYCURSOR; t->len = (size_t)(YYCURSOR - start); return t->kind = TINT; }
	"-"? digit+ "." digit* exp? | "-"? digit+ exp {
		lx->cur = YYCURSOR; t->len = (size_t)(YYCURSOR - start); return t->kind = TFLOAT;
	}
	["] ([^"\\\n\x00] | "\\" [^\n\x00])* ["] {
		lx->cur = YYCURSOR; t->len = (size_t)(YYCURSOR - start); return t->kind = TSTR;
	}
	"->" { lx->cur = YYCURSOR; t->len = 2; return t->kind = TARROW; }
	[-(){}[\],:=<>] { lx->cur = YYCURSOR; t->len = 1; return t->kind = (unsigned char)*start; }
	* { lx->cur = YYCURSOR; t->len = (size_t)(YYCURSOR - start); return t->kind = TBAD; }
	*/
}
