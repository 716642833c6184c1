/*
 * lex.re — the Python tokenizer of kpyc (re2c).
 *
 * The whole file is scanned at once (a NUL-terminated buffer, no refill)
 * into a token array.  Python's layout rules are applied here:
 *  - at the start of a logical line outside brackets, the indentation
 *    (tabs to the next multiple of 8) is compared with a stack and turned
 *    into INDENT / DEDENT tokens; blank and comment-only lines are ignored;
 *  - NEWLINE ends a logical line; inside (), [] and {} newlines are
 *    ignored (implicit joining) and a backslash before a newline joins
 *    lines explicitly;
 *  - at the end: NEWLINE if needed, a DEDENT per open level, END.
 * Strings of every form (prefixes r, b, u, f and their combinations,
 * single, double and triple quotes) are scanned by hand so that f-strings
 * may nest quotes inside their braces.  Nothing here fails: malformed
 * input becomes a BADTOK token carrying a message.  Layout errors Python's
 * tokenizer raises (IndentationError, TabError) are found here too: an
 * indentation that matches no outer level or mixes tabs and spaces
 * inconsistently (compared with tabs to 8 and to 1 column, as CPython does)
 * is a BADTOK; an INDENT after a line that does not end with ':' carries
 * the message "unexpected indent", and the first token of a line that
 * should have been indented (after a line ending with ':') carries
 * "expected an indented block".  The parser reports the messages of the
 * tokens it reads; kpyc reports those of every other token (host code is
 * not parsed, but a file Python rejects is rejected).
 */
#include <string.h>

#include "ast.h"
#include "py.tab.h"

enum { MAXINDENT = 100, MAXPAREN = 200 }; /* Python's limits */

typedef struct L {
	Arena *a;
	TokArray *out;
	const char *base;      /* start of the text */
	const char *lim;       /* the terminating NUL */
	const char *cur;       /* next byte */
	const char *linestart; /* first byte of the current physical line */
	uint32_t line;
	int depth;             /* open brackets */
	const char *open[64];  /* where the outermost open brackets are */
	Loc openloc[64];
	int ind[MAXINDENT];    /* indentation stack; ind[0] == 0 */
	int altind[MAXINDENT]; /* the same with tabs to 1 column */
	int nind;
	int lastkind;          /* the last token of the current logical line */
	uint32_t lastline;     /* the line where that logical line started */
	uint32_t lineline;     /* the line of the first token of this logical line */
	int linekind;          /* and its kind */
	int lastfirst;         /* the first token's kind of the last logical line */
	const char *pending;   /* a message for the next token (a missing block) */
	Loc lastend;           /* just after the last token */
	bool atbol;            /* at the beginning of a logical line */
	bool hastok;           /* the current logical line has a token */
	bool toodeep;          /* the indentation limit was reported */
} L;

static void
emit(L *l, int kind, const char *start, const char *end, const char *msg)
{
	Token t;

	t.kind = kind;
	t.off = (uint32_t)(start - l->base);
	t.len = (uint32_t)(end - start);
	t.loc.line = l->line;
	t.loc.col = (uint32_t)(start - l->linestart) + 1;
	t.msg = msg;
	t.parsed = false;
	if (l->pending && kind != T_NEWLINE) {
		if (!msg)
			t.msg = l->pending;
		l->pending = NULL;
	}
	if (l->out->n == l->out->cap) {
		uint32_t ncap = l->out->cap ? 2 * l->out->cap : 1024;
		Token *nv = xrealloc(l->out->v, ncap * sizeof *nv);
		l->out->v = nv;
		l->out->cap = ncap;
	}
	l->out->v[l->out->n++] = t;
	if (kind == T_NEWLINE) {
		l->lastline = l->lineline;
		l->lastfirst = l->linekind;
	}
	if (kind != T_NEWLINE && kind != T_INDENT && kind != T_DEDENT) {
		if (!l->hastok) {
			l->lineline = t.loc.line;
			l->linekind = kind;
		}
		l->hastok = true;
		l->lastkind = kind;
		l->lastend = t.loc;
		l->lastend.col += t.len;
	}
}

/* Move over [cur, to) counting lines. */
static void
advance(L *l, const char *to)
{
	const char *p;

	for (p = l->cur; p < to; p++)
		if (*p == '\n') {
			l->line++;
			l->linestart = p + 1;
		}
	l->cur = to;
}

/* Scan a string literal whose opening quote is at q; returns the byte after
 * it, or NULL (and *msg) if it is not terminated.  f-strings: braces may
 * hold expressions with their own strings and brackets. */
static const char *
scanstr(L *l, const char *q, bool fstr, const char **msg)
{
	char quote = *q;
	bool triple = q[1] == quote && q[2] == quote;
	const char *p = q + (triple ? 3 : 1);

	for (;;) {
		char c = *p;
		if (p >= l->lim) {
			*msg = triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
			return NULL;
		}
		if (c == '\\') {
			if (p + 1 >= l->lim) {
				*msg = "unterminated string literal";
				return NULL;
			}
			p += 2;
			continue;
		}
		if (c == '\n' && !triple) {
			*msg = "unterminated string literal";
			return NULL;
		}
		if (c == quote) {
			if (!triple)
				return p + 1;
			if (p[1] == quote && p[2] == quote)
				return p + 3;
		}
		if (fstr && c == '{') {
			if (p[1] == '{') {
				p += 2;
				continue;
			}
			/* an expression: skip to the matching '}' */
			int depth = 0;
			p++;
			while (p < l->lim) {
				c = *p;
				if (c == '{' || c == '(' || c == '[')
					depth++;
				else if ((c == '}' || c == ')' || c == ']') && depth > 0)
					depth--;
				else if (c == '}')
					break;
				else if (c == '\n' && !triple) {
					*msg = "unterminated string literal";
					return NULL;
				} else if (c == '\'' || c == '"') {
					const char *e;
					bool f = p > l->base && (p[-1] == 'f' || p[-1] == 'F');
					if (!(e = scanstr(l, p, f, msg)))
						return NULL;
					p = e;
					continue;
				}
				p++;
			}
			if (p >= l->lim) {
				*msg = "unterminated f-string expression";
				return NULL;
			}
			p++;
			continue;
		}
		p++;
	}
}

/* Inside brackets at a newline: does the next line start a definition
 * at column 0 (def, class, a decorator followed by one)?  Then a bracket
 * was left open.  (A line `@name...` alone may be a matrix product.) */
static bool
unclosed(L *l, const char *nl)
{
	int n;

	for (n = 0; n < 8; n++) { /* a few decorator lines (bounded: linear time) */
		const char *e;
		if (strncmp(nl, "def ", 4) == 0 || strncmp(nl, "class ", 6) == 0 || strncmp(nl, "async def ", 10) == 0)
			return true;
		if (!(nl[0] == '@' && ((nl[1] >= 'a' && nl[1] <= 'z') || (nl[1] >= 'A' && nl[1] <= 'Z') || nl[1] == '_')))
			return false;
		if (!(e = memchr(nl, '\n', (size_t)(l->lim - nl))))
			return false;
		nl = e + 1;
	}
	return false;
}

static int
keyword(const char *s, size_t n)
{
	static const struct { const char *w; uint8_t n; int k; } kw[] = {
		{"False", 5, T_FALSE}, {"None", 4, T_NONE}, {"True", 4, T_TRUE}, {"and", 3, T_AND},
		{"as", 2, T_AS}, {"assert", 6, T_ASSERT}, {"async", 5, T_ASYNC}, {"await", 5, T_AWAIT},
		{"break", 5, T_BREAK}, {"class", 5, T_CLASS}, {"continue", 8, T_CONTINUE}, {"def", 3, T_DEF},
		{"del", 3, T_DEL}, {"elif", 4, T_ELIF}, {"else", 4, T_ELSE}, {"except", 6, T_EXCEPT},
		{"finally", 7, T_FINALLY}, {"for", 3, T_FOR}, {"from", 4, T_FROM}, {"global", 6, T_GLOBAL},
		{"if", 2, T_IF}, {"import", 6, T_IMPORT}, {"in", 2, T_IN}, {"is", 2, T_IS},
		{"lambda", 6, T_LAMBDA}, {"nonlocal", 8, T_NONLOCAL}, {"not", 3, T_NOT}, {"or", 2, T_OR},
		{"pass", 4, T_PASS}, {"raise", 5, T_RAISE}, {"return", 6, T_RETURN}, {"try", 3, T_TRY},
		{"while", 5, T_WHILE}, {"with", 4, T_WITH}, {"yield", 5, T_YIELD},
	};
	size_t i;

	if (n < 2 || n > 8)
		return T_NAME;
	for (i = 0; i < countof(kw); i++)
		if (kw[i].n == n && kw[i].w[0] == s[0] && memcmp(kw[i].w, s, n) == 0)
			return kw[i].k;
	return T_NAME;
}

/* The message for a missing block after the logical line that ended
 * last, as CPython words it. */
static const char *
noblock(L *l)
{
	const char *what;

	switch (l->lastfirst) {
	case T_DEF: case T_ASYNC: what = "function definition"; break;
	case T_CLASS: what = "class definition"; break;
	case T_IF: what = "'if' statement"; break;
	case T_ELIF: what = "'elif' statement"; break;
	case T_ELSE: what = "'else' statement"; break;
	case T_FOR: what = "'for' statement"; break;
	case T_WHILE: what = "'while' statement"; break;
	case T_WITH: what = "'with' statement"; break;
	case T_TRY: what = "'try' statement"; break;
	case T_EXCEPT: what = "'except' statement"; break;
	case T_FINALLY: what = "'finally' statement"; break;
	default: return aprintf(l->a, "expected an indented block after line %u", l->lastline);
	}
	return aprintf(l->a, "expected an indented block after %s on line %u", what, l->lastline);
}

/* At the beginning of a logical line: skip blank lines, produce INDENT or
 * DEDENTs.  Returns false at the end of the text. */
static bool
indentation(L *l)
{
	for (;;) {
		const char *p = l->cur;
		int col = 0, alt = 0;
		bool block;

		for (;; p++) {
			if (*p == ' ') {
				col++;
				alt++;
			} else if (*p == '\t') {
				col = (col / 8 + 1) * 8;
				alt++;
			} else if (*p == '\f') {
				col = alt = 0;
			} else {
				break;
			}
		}
		if (p >= l->lim) {
			advance(l, p);
			return false;
		}
		if (*p == '#') {
			while (p < l->lim && *p != '\n')
				p++;
		}
		if (*p == '\r' && p[1] == '\n')
			p++;
		if (*p == '\n') {
			advance(l, p + 1);
			continue;
		}
		if (p >= l->lim) {
			advance(l, p);
			return false;
		}
		if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
			/* a line that is only a continuation: keep going with it */
			advance(l, p);
			l->atbol = false;
			return true;
		}
		advance(l, p);
		l->atbol = false;
		/* the previous logical line opened a block (ended with ':') */
		block = l->lastkind == ':';
		l->lastkind = 0;
		if (col > l->ind[l->nind - 1]) {
			if (l->nind == MAXINDENT) {
				if (!l->toodeep)
					emit(l, T_BADTOK, p, p + 1, "too many levels of indentation");
				l->toodeep = true;
				return true;
			}
			if (alt <= l->altind[l->nind - 1]) {
				emit(l, T_BADTOK, p, p + 1, "inconsistent use of tabs and spaces in indentation");
				return true;
			}
			l->ind[l->nind] = col;
			l->altind[l->nind++] = alt;
			emit(l, T_INDENT, p, p, block ? NULL : "unexpected indent");
			return true;
		}
		if (block)
			l->pending = noblock(l);
		if (col < l->ind[l->nind - 1]) {
			while (l->nind > 1 && col < l->ind[l->nind - 1]) {
				l->nind--;
				emit(l, T_DEDENT, p, p, NULL);
			}
			if (col != l->ind[l->nind - 1]) {
				emit(l, T_BADTOK, p, p + 1, "unindent does not match any outer indentation level");
				return true;
			}
		}
		if (alt != l->altind[l->nind - 1])
			emit(l, T_BADTOK, p, p + 1, "inconsistent use of tabs and spaces in indentation");
		return true;
	}
}

/* Scan one token (or skip whitespace); returns false at the end. */
static bool
scan(L *l)
{
	const char *YYCURSOR = l->cur, *YYMARKER = NULL, *YYLIMIT = l->lim, *start = YYCURSOR;
	const char *msg = NULL, *e;
	int k;

	/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:yyfill:enable = 0;
	re2c:eof = 0;

	dig = [0-9];
	digpart = dig ("_"? dig)*;
	nzint = [1-9] ("_"? dig)* | "0" ("_"? "0")*;
	hexint = "0" [xX] ("_"? [0-9a-fA-F])+;
	octint = "0" [oO] ("_"? [0-7])+;
	binint = "0" [bB] ("_"? [01])+;
	exponent = [eE] [+-]? digpart;
	pointfloat = digpart? "." digpart | digpart ".";
	expfloat = (digpart | pointfloat) exponent;
	idstart = [A-Za-z_] | [\x80-\xff];
	idchar = [A-Za-z0-9_] | [\x80-\xff];
	strprefix = [rRuUbBfF] | [rR][bBfF] | [bBfF][rR];

	$ { return false; }
	[ \t\f]+ { advance(l, YYCURSOR); return true; }
	"#" [^\n\x00]* { advance(l, YYCURSOR); return true; }
	"\\" "\r"? "\n" { advance(l, YYCURSOR); return true; }
	"\r"? "\n" {
		if (l->depth > 0 && unclosed(l, YYCURSOR)) {
			/* a definition at column 0 inside brackets: the bracket was
			 * never closed; report it and start over at the definition */
			const char *o = l->open[0];
			Token t;
			t.kind = T_BADTOK;
			t.off = (uint32_t)(o - l->base);
			t.len = 1;
			t.loc = l->openloc[0];
			t.msg = *o == '(' ? "'(' was never closed" : *o == '[' ? "'[' was never closed" : "'{' was never closed";
			emit(l, T_NEWLINE, start, start, NULL);
			l->out->v[l->out->n - 1] = t;
			l->depth = 0;
		}
		if (l->depth == 0) {
			if (l->hastok)
				emit(l, T_NEWLINE, start, start, NULL);
			l->hastok = false;
			l->atbol = true;
		}
		advance(l, YYCURSOR);
		return true;
	}
	"\r" { advance(l, YYCURSOR); return true; }

	(nzint | hexint | octint | binint) { k = T_NUMBER; goto tok; }
	(pointfloat | expfloat) { k = T_NUMBER; goto tok; }
	(digpart | pointfloat | expfloat) [jJ] { k = T_NUMBER; goto tok; }
	dig+ { emit(l, T_BADTOK, start, YYCURSOR, "leading zeros in decimal integer literals are not permitted"); advance(l, YYCURSOR); return true; }

	strprefix? ["'] {
		const char *q = YYCURSOR - 1, *p;
		bool f = false, bytes = false;
		for (p = start; p < q; p++) {
			if (*p == 'f' || *p == 'F') f = true;
			if (*p == 'b' || *p == 'B') bytes = true;
		}
		(void)bytes;
		if (!(e = scanstr(l, q, f, &msg))) {
			e = q + 1;
			while (e < l->lim && *e != '\n')
				e++;
			emit(l, T_BADTOK, start, e, msg);
			advance(l, e);
			return true;
		}
		emit(l, f ? T_FSTRING : T_STRING, start, e, NULL);
		advance(l, e);
		return true;
	}

	idstart idchar* { k = keyword(start, (size_t)(YYCURSOR - start)); goto tok; }

	"(" | "[" | "{" {
		if (l->depth == MAXPAREN) {
			/* Python's limit; the bracket still counts for the layout */
			l->depth++;
			emit(l, T_BADTOK, start, YYCURSOR, "too many nested parentheses");
			advance(l, YYCURSOR);
			return true;
		}
		if (l->depth < 64) {
			l->open[l->depth] = start;
			l->openloc[l->depth].line = l->line;
			l->openloc[l->depth].col = (uint32_t)(start - l->linestart) + 1;
		}
		l->depth++;
		k = (unsigned char)*start;
		goto tok;
	}
	")" | "]" | "}" { if (l->depth > 0) l->depth--; k = (unsigned char)*start; goto tok; }
	[,:.;=+\-*/%@&|^~<>] { k = (unsigned char)*start; goto tok; }
	"->" { k = T_ARROW; goto tok; }
	"**" { k = T_POW; goto tok; }
	"//" { k = T_FLOORDIV; goto tok; }
	"<<" { k = T_LSHIFT; goto tok; }
	">>" { k = T_RSHIFT; goto tok; }
	"<=" { k = T_LE; goto tok; }
	">=" { k = T_GE; goto tok; }
	"==" { k = T_EQ; goto tok; }
	"!=" { k = T_NE; goto tok; }
	":=" { k = T_WALRUS; goto tok; }
	"..." { k = T_ELLIPSIS; goto tok; }
	"+=" | "-=" | "*=" | "/=" | "//=" | "%=" | "@=" | "&=" | "|=" | "^=" | ">>=" | "<<=" | "**=" {
		k = T_AUGASSIGN; goto tok;
	}
	* { emit(l, T_BADTOK, start, YYCURSOR, "invalid character"); advance(l, YYCURSOR); return true; }
	*/
tok:
	emit(l, k, start, YYCURSOR, NULL);
	advance(l, YYCURSOR);
	return true;
}

void
pytokenize(Arena *a, const Src *src, TokArray *out)
{
	L l;

	memset(&l, 0, sizeof l);
	l.a = a;
	l.out = out;
	l.base = src->text;
	l.lim = src->text + src->len;
	l.cur = src->text;
	l.linestart = src->text;
	l.line = 1;
	l.nind = 1;
	l.atbol = true;
	out->n = 0;
	for (;;) {
		if (l.atbol && l.depth == 0) {
			if (!indentation(&l))
				break;
		}
		if (l.cur >= l.lim || !scan(&l))
			break;
	}
	if (l.depth > 0) {
		/* the end inside brackets */
		const char *o = l.open[0];
		emit(&l, T_BADTOK, o, o + 1, *o == '(' ? "'(' was never closed" : *o == '[' ? "'[' was never closed" :
		     "'{' was never closed");
		l.out->v[l.out->n - 1].loc = l.openloc[0];
	}
	if (l.hastok)
		emit(&l, T_NEWLINE, l.cur, l.cur, NULL);
	if (l.lastkind == ':') {
		/* the end where a block should start: the error is after the ':' */
		uint32_t n = out->n;
		Loc at = l.lastend;
		l.pending = noblock(&l);
		while (l.nind > 1) {
			l.nind--;
			emit(&l, T_DEDENT, l.cur, l.cur, NULL);
		}
		emit(&l, T_END, l.cur, l.cur, NULL);
		out->v[n].loc = at;
		return;
	}
	while (l.nind > 1) {
		l.nind--;
		emit(&l, T_DEDENT, l.cur, l.cur, NULL);
	}
	emit(&l, T_END, l.cur, l.cur, NULL);
}
