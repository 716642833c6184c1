/* kirlex.h — tokens of the kir lexer (lex.re), private to libkir's parser. */
#ifndef KPY_KIRLEX_H
#define KPY_KIRLEX_H

enum {
	TEOF = 0,
	/* single characters stand for themselves: ( ) { } [ ] , : = < > - */
	TVAL = 256, /* %name */
	TSYM,       /* @name */
	TIDENT,     /* identifier, keyword, op or type name */
	TINT,       /* integer literal, optional leading '-' */
	TFLOAT,     /* float literal, optional leading '-' */
	TSTR,       /* "string" with C escapes */
	TARROW,     /* -> */
	TLOC,       /* ; loc [SOURCE:]LINE:COL (value in loc2) */
	TBAD,       /* anything else */
};

typedef struct Tok {
	int kind;
	const char *start; /* first byte */
	size_t len;        /* bytes */
	Loc loc;           /* where the token starts */
	Loc loc2;          /* TLOC: the location it names */
} Tok;

typedef struct Lexer {
	const Src *src;
	const char *cur;       /* next byte to scan */
	const char *lim;       /* end of text (a NUL is there) */
	const char *linestart; /* first byte of the current line */
	uint32_t line;
} Lexer;

void lexinit(Lexer *lx, const Src *src);
int lexnext(Lexer *lx, Tok *t);

#endif
