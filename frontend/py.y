/*
 * py.y — the Python grammar of kpyc (Bison, LALR(1), no conflicts).
 *
 * It covers the statements and expressions of Python 3 that can appear in
 * Warp code, plus enough of the rest (lambda, comprehensions, displays,
 * try, with, raise, async, yield ...) to parse them and name them in an
 * error: kpyc reports "Construct `ast.Lambda` not supported" like Warp does,
 * not a syntax error.  Precedence follows Python's grammar by layering
 * (test > or_test > and_test > not_test > comparison > expr > factor ...),
 * but for expr's binary operators (| ^ & << >> + - * / // % @): precedence
 * declarations, and the conflicts they resolve are those of expr's rules
 * alone (py.output lists them).
 *
 * Tokens come from the array lex.re made (yylex hands them out one by one,
 * between ps->pos and ps->end).  Every node is allocated in the arena.
 * Error recovery is at statement boundaries: a statement that does not
 * parse becomes S_ERROR and parsing resumes at the next line (skipping an
 * indented block that follows it).
 */
%define api.pure full
%define api.prefix {py}
%define api.token.prefix {T_}
%define parse.error detailed
%locations
%expect 0
%param {PState *ps}

%code requires {
#include "ast.h"
}

%code provides {
int pylex(PYSTYPE *lval, PYLTYPE *lloc, PState *ps);
void pyerror(PYLTYPE *lloc, PState *ps, const char *msg);
}

%code {
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define L(x) ((Loc){(uint32_t)(x).first_line, (uint32_t)(x).first_column, ps->file})
#define LEND(x) ((Loc){(uint32_t)(x).last_line, (uint32_t)(x).last_column, ps->file})

static Node *leaf(PState *ps, int kind, PYLTYPE loc);
static Node *mkbinop(PState *ps, int op, Node *a, Node *b, PYLTYPE at, PYLTYPE opat);
static Node *unsup(PState *ps, const char *what, PYLTYPE loc);
static Node *stmt(PState *ps, int kind, PYLTYPE loc);
static NodeList one(PState *ps, Node *n);
static NodeList push(PState *ps, NodeList l, Node *n);
static Node *tuple_or_single(PState *ps, NodeList l, bool comma, PYLTYPE loc);
static Node *strjoin(PState *ps, Node *a, Node *b);
static Node *mkcompare(PState *ps, Node *a, int op, Node *b, PYLTYPE opat);
}

%union {
	Node *n;
	NodeList l;
	int i;
	struct { NodeList l; bool comma; } tl;
}

%token END 0 "end of file"
%token <n> NAME "identifier"
%token <n> NUMBER "number"
%token <n> STRING "string"
%token <n> FSTRING "f-string"
%token NEWLINE "end of line" INDENT "indent" DEDENT "dedent"
%token <i> AUGASSIGN "augmented assignment"
%token FALSE "False" NONE "None" TRUE "True" AND "and" AS "as" ASSERT "assert"
%token ASYNC "async" AWAIT "await" BREAK "break" CLASS "class" CONTINUE "continue"
%token DEF "def" DEL "del" ELIF "elif" ELSE "else" EXCEPT "except" FINALLY "finally"
%token FOR "for" FROM "from" GLOBAL "global" IF "if" IMPORT "import" IN "in" IS "is"
%token LAMBDA "lambda" NONLOCAL "nonlocal" NOT "not" OR "or" PASS "pass" RAISE "raise"
%token RETURN "return" TRY "try" WHILE "while" WITH "with" YIELD "yield"
%token ARROW "->" POW "**" FLOORDIV "//" LSHIFT "<<" RSHIFT ">>" LE "<=" GE ">="
%token EQ "==" NE "!=" WALRUS ":=" ELLIPSIS "..."
%token BADTOK "invalid token"

%type <n> stmt_simple small_stmt compound_stmt expr_stmt if_stmt while_stmt for_stmt
%type <n> funcdef classdef decorated try_stmt with_stmt return_stmt import_stmt
%type <n> test or_test and_test not_test comparison expr
%type <n> factor power primary atom test_or_star star_expr
%type <n> namedexpr_test lambdef subscript opt_test sliceop param argument
%type <n> from_path dotted_name import_as_name dotted_as_name yield_expr rhs decorator
%type <n> except_clause strings target_list comp_for comp_iter with_item
%type <n> if_tail opt_else annot_opt default_opt ret_annot display_body dict_item
%type <l> param_list stmts stmt_line small_stmts suite subscripts params arglist opt_args
%type <l> import_as_names dotted_as_names decorators except_clauses name_list
%type <l> with_items exprlist_items dict_items set_items opt_bases lambda_params
%type <tl> tlse_items testlist_items
%type <i> comp_op dots

/* The character tokens in the order the grammar first used them (their
 * numbers order the expected tokens of a syntax error), then expr's binary
 * operators, loosest first (Python's layers expr, xor_expr, and_expr,
 * shift_expr, arith_expr and term: a unit reduction less per layer and
 * operand), all left-associative. */
%token ';' ',' ':' '=' '(' ')' '*' '.' '@' '/' '<' '>' '|' '^' '&' '+' '-' '%' '~' '[' ']' '{' '}'
%left '|'
%left '^'
%left '&'
%left LSHIFT RSHIFT
%left '+' '-'
%left '*' '/' FLOORDIV '%' '@'

%%

unit
	: stmts { ps->result = $1; }
	;

stmts
	: %empty { $$ = (NodeList){0}; }
	| stmts stmt_line {
		uint32_t i;
		$$ = $1;
		for (i = 0; i < $2.n; i++)
			$$ = push(ps, $$, $2.v[i]);
	}
	;

/* One line: simple statements separated by ';', or one compound statement. */
stmt_line
	: small_stmts NEWLINE { $$ = $1; ps->lasterr = false; }
	| small_stmts ';' NEWLINE { $$ = $1; ps->lasterr = false; }
	| compound_stmt { $$ = one(ps, $1); ps->lasterr = false; }
	| INDENT { $<i>$ = ps->lasterr; } stmts DEDENT {
		/* an indented block where no block may start (after a line that did
		 * not parse, it is that line's block: no second error) */
		if (!$<i>2)
			pyerror(&@1, ps, "unexpected indent");
		$$ = one(ps, stmt(ps, S_ERROR, @1));
		ps->lasterr = false;
	}
	| error NEWLINE { $$ = one(ps, stmt(ps, S_ERROR, @1)); ps->lasterr = true; yyerrok; }
	;

small_stmts
	: stmt_simple { $$ = one(ps, $1); }
	| small_stmts ';' stmt_simple { $$ = push(ps, $1, $3); }
	;

stmt_simple
	: small_stmt { $$ = $1; $$->end = LEND(@1); }
	;

small_stmt
	: expr_stmt
	| PASS { $$ = stmt(ps, S_PASS, @1); }
	| BREAK { $$ = stmt(ps, S_BREAK, @1); }
	| CONTINUE { $$ = stmt(ps, S_CONTINUE, @1); }
	| return_stmt
	| RAISE { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Raise"; }
	| RAISE test { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Raise"; }
	| RAISE test FROM test { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Raise"; }
	| GLOBAL name_list { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Global"; }
	| NONLOCAL name_list { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Nonlocal"; }
	| DEL exprlist_items { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Delete"; }
	| DEL exprlist_items ',' { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Delete"; }
	| ASSERT test { $$ = stmt(ps, S_ASSERT, @1); $$->a = $2; }
	| ASSERT test ',' test { $$ = stmt(ps, S_ASSERT, @1); $$->a = $2; $$->b = $4; }
	| import_stmt
	| yield_expr { $$ = stmt(ps, S_EXPR, @1); $$->a = $1; }
	;

name_list
	: NAME { $$ = one(ps, $1); }
	| name_list ',' NAME { $$ = push(ps, $1, $3); }
	;

exprlist_items
	: expr { $$ = one(ps, $1); }
	| star_expr { $$ = one(ps, $1); }
	| exprlist_items ',' expr { $$ = push(ps, $1, $3); }
	| exprlist_items ',' star_expr { $$ = push(ps, $1, $3); }
	;

return_stmt
	: RETURN { $$ = stmt(ps, S_RETURN, @1); }
	| RETURN tlse_items {
		$$ = stmt(ps, S_RETURN, @1);
		$$->a = tuple_or_single(ps, $2.l, $2.comma, @2);
	}
	;

/* expression statements and assignments */
expr_stmt
	: tlse_items {
		$$ = stmt(ps, S_EXPR, @1);
		$$->a = tuple_or_single(ps, $1.l, $1.comma, @1);
	}
	| tlse_items AUGASSIGN rhs {
		$$ = stmt(ps, S_AUGASSIGN, @1);
		$$->a = tuple_or_single(ps, $1.l, $1.comma, @1);
		$$->op = (uint16_t)$2;
		$$->oploc = L(@2);
		$$->b = $3;
	}
	| tlse_items ':' test {
		$$ = stmt(ps, S_ANNASSIGN, @1);
		$$->a = tuple_or_single(ps, $1.l, $1.comma, @1);
		$$->b = $3;
	}
	| tlse_items ':' test '=' rhs {
		$$ = stmt(ps, S_ANNASSIGN, @1);
		$$->a = tuple_or_single(ps, $1.l, $1.comma, @1);
		$$->b = $3;
		$$->c = $5;
	}
	| target_list rhs {
		$$ = $1;
		$$->a = $2;
	}
	;

/* t1 = t2 = ... = (the value follows) */
target_list
	: tlse_items '=' {
		$$ = stmt(ps, S_ASSIGN, @1);
		$$->l1 = one(ps, tuple_or_single(ps, $1.l, $1.comma, @1));
		$$->oploc = L(@2);
	}
	| target_list tlse_items '=' {
		$$ = $1;
		$$->l1 = push(ps, $$->l1, tuple_or_single(ps, $2.l, $2.comma, @2));
	}
	;

rhs
	: tlse_items { $$ = tuple_or_single(ps, $1.l, $1.comma, @1); }
	| yield_expr
	;

tlse_items
	: test_or_star { $$.l = one(ps, $1); $$.comma = false; }
	| tlse_items ',' { $$ = $1; $$.comma = true; }
	| tlse_items ',' test_or_star { $$.l = push(ps, $1.l, $3); $$.comma = true; }
	;

test_or_star
	: test
	| star_expr
	;

yield_expr
	: YIELD { $$ = unsup(ps, "ast.Yield", @1); }
	| YIELD tlse_items { $$ = unsup(ps, "ast.Yield", @1); }
	| YIELD FROM test { $$ = unsup(ps, "ast.YieldFrom", @1); }
	;

/* imports */
import_stmt
	: IMPORT dotted_as_names { $$ = stmt(ps, S_IMPORT, @1); $$->l1 = $2; }
	| FROM from_path IMPORT import_as_names { $$ = $2; $$->loc = L(@1); $$->l1 = $4; }
	| FROM from_path IMPORT '(' import_as_names opt_comma ')' { $$ = $2; $$->loc = L(@1); $$->l1 = $5; }
	| FROM from_path IMPORT '*' {
		$$ = $2; $$->loc = L(@1);
		$$->l1 = one(ps, mknode(ps->a, E_ALIAS, L(@4)));
		$$->l1.v[0]->s = "*";
	}
	;

from_path
	: dotted_name { $$ = stmt(ps, S_FROM, @1); $$->s = $1->s; }
	| dots dotted_name { $$ = stmt(ps, S_FROM, @1); $$->s = $2->s; $$->u = (uint64_t)$1; }
	| dots { $$ = stmt(ps, S_FROM, @1); $$->s = ""; $$->u = (uint64_t)$1; }
	;

dots
	: '.' { $$ = 1; }
	| ELLIPSIS { $$ = 3; }
	| dots '.' { $$ = $1 + 1; }
	| dots ELLIPSIS { $$ = $1 + 3; }
	;

opt_comma
	: %empty
	| ','
	;

dotted_name
	: NAME { $$ = $1; }
	| dotted_name '.' NAME {
		$$ = mknode(ps->a, E_NAME, $1->loc);
		$$->s = aprintf(ps->a, "%s.%s", $1->s, $3->s);
	}
	;

dotted_as_name
	: dotted_name { $$ = mknode(ps->a, E_ALIAS, $1->loc); $$->s = $1->s; }
	| dotted_name AS NAME { $$ = mknode(ps->a, E_ALIAS, $1->loc); $$->s = $1->s; $$->s2 = $3->s; }
	;

dotted_as_names
	: dotted_as_name { $$ = one(ps, $1); }
	| dotted_as_names ',' dotted_as_name { $$ = push(ps, $1, $3); }
	;

import_as_name
	: NAME { $$ = mknode(ps->a, E_ALIAS, $1->loc); $$->s = $1->s; }
	| NAME AS NAME { $$ = mknode(ps->a, E_ALIAS, $1->loc); $$->s = $1->s; $$->s2 = $3->s; }
	;

import_as_names
	: import_as_name { $$ = one(ps, $1); }
	| import_as_names ',' import_as_name { $$ = push(ps, $1, $3); }
	;

/* compound statements */
compound_stmt
	: if_stmt
	| while_stmt
	| for_stmt
	| try_stmt
	| with_stmt
	| funcdef
	| classdef
	| decorated
	| ASYNC funcdef { $$ = $2; $$->kind = S_UNSUP; $$->s = "ast.AsyncFunctionDef"; $$->loc = L(@1); }
	| ASYNC for_stmt { $$ = $2; $$->kind = S_UNSUP; $$->s = "ast.AsyncFor"; $$->loc = L(@1); }
	| ASYNC with_stmt { $$ = $2; $$->s = "ast.AsyncWith"; $$->loc = L(@1); }
	;

if_stmt
	: IF namedexpr_test ':' suite if_tail {
		$$ = stmt(ps, S_IF, @1); $$->a = $2; $$->l1 = $4;
		if ($5) $$->l2 = $5->kind == S_IF ? one(ps, $5) : $5->l1;
		$$->end = LEND(@$);
	}
	;

/* elif becomes an S_IF alone in the else list; else is a holder in l1 */
if_tail
	: %empty { $$ = NULL; }
	| ELSE ':' suite { $$ = stmt(ps, S_PASS, @1); $$->l1 = $3; }
	| ELIF namedexpr_test ':' suite if_tail {
		$$ = stmt(ps, S_IF, @1); $$->a = $2; $$->l1 = $4;
		if ($5) $$->l2 = $5->kind == S_IF ? one(ps, $5) : $5->l1;
		$$->end = LEND(@$);
	}
	;

opt_else
	: %empty { $$ = NULL; }
	| ELSE ':' suite { $$ = stmt(ps, S_PASS, @1); $$->l1 = $3; }
	;

while_stmt
	: WHILE namedexpr_test ':' suite opt_else {
		$$ = stmt(ps, S_WHILE, @1); $$->a = $2; $$->l1 = $4;
		if ($5) { $$->l2 = $5->l1; $$->oploc = $5->loc; }
		$$->end = LEND(@$);
	}
	;

for_stmt
	: FOR exprlist_items IN tlse_items ':' suite opt_else {
		$$ = stmt(ps, S_FOR, @1);
		$$->a = tuple_or_single(ps, $2, $2.n > 1, @2);
		$$->b = tuple_or_single(ps, $4.l, $4.comma, @4);
		$$->l1 = $6;
		if ($7) { $$->l2 = $7->l1; $$->oploc = $7->loc; }
		$$->end = LEND(@$);
	}
	| FOR exprlist_items ',' IN tlse_items ':' suite opt_else {
		$$ = stmt(ps, S_FOR, @1);
		$$->a = tuple_or_single(ps, $2, true, @2);
		$$->b = tuple_or_single(ps, $5.l, $5.comma, @5);
		$$->l1 = $7;
		if ($8) { $$->l2 = $8->l1; $$->oploc = $8->loc; }
		$$->end = LEND(@$);
	}
	;

try_stmt
	: TRY ':' suite except_clauses opt_else { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Try"; }
	| TRY ':' suite except_clauses opt_else FINALLY ':' suite { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Try"; }
	| TRY ':' suite FINALLY ':' suite { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.Try"; }
	;

except_clauses
	: except_clause ':' suite { $$ = one(ps, $1); }
	| except_clauses except_clause ':' suite { $$ = push(ps, $1, $2); }
	;

except_clause
	: EXCEPT { $$ = NULL; }
	| EXCEPT test { $$ = $2; }
	| EXCEPT test AS NAME { $$ = $2; }
	| EXCEPT '*' test { $$ = $3; }
	| EXCEPT '*' test AS NAME { $$ = $3; }
	;

with_stmt
	: WITH with_items ':' suite { $$ = stmt(ps, S_UNSUP, @1); $$->s = "ast.With"; }
	;

with_items
	: with_item { $$ = one(ps, $1); }
	| with_items ',' with_item { $$ = push(ps, $1, $3); }
	;

with_item
	: test { $$ = $1; }
	| test AS expr { $$ = $1; }
	;

suite
	: small_stmts NEWLINE { $$ = $1; }
	| small_stmts ';' NEWLINE { $$ = $1; }
	| NEWLINE INDENT stmts DEDENT { $$ = $3; }
	;

/* definitions */
decorated
	: decorators funcdef { $$ = $2; $$->l3 = $1; }
	| decorators classdef { $$ = $2; $$->l3 = $1; }
	| decorators ASYNC funcdef { $$ = $3; $$->kind = S_UNSUP; $$->s = "ast.AsyncFunctionDef"; }
	;

decorators
	: decorator { $$ = one(ps, $1); }
	| decorators decorator { $$ = push(ps, $1, $2); }
	;

decorator
	: '@' namedexpr_test NEWLINE { $$ = $2; }
	;

funcdef
	: DEF NAME '(' params ')' ret_annot ':' suite {
		$$ = stmt(ps, S_DEF, @1);
		$$->s = $2->s;
		$$->oploc = $2->loc;
		$$->l2 = $4;
		$$->a = $6;
		$$->l1 = $8;
		$$->end = LEND(@$);
	}
	;

ret_annot
	: %empty { $$ = NULL; }
	| ARROW test { $$ = $2; }
	;

params
	: %empty { $$ = (NodeList){0}; }
	| param_list { $$ = $1; }
	| param_list ',' { $$ = $1; }
	;

param_list
	: param { $$ = one(ps, $1); }
	| param_list ',' param { $$ = push(ps, $1, $3); }
	;

param
	: NAME annot_opt default_opt { $$ = mknode(ps->a, P_PARAM, $1->loc); $$->s = $1->s; $$->a = $2; $$->b = $3; }
	| '*' NAME annot_opt { $$ = mknode(ps->a, P_PARAM, L(@1)); $$->s = $2->s; $$->a = $3; $$->op = '*'; }
	| '*' { $$ = mknode(ps->a, P_PARAM, L(@1)); $$->s = "*"; $$->op = '*'; }
	| POW NAME annot_opt { $$ = mknode(ps->a, P_PARAM, L(@1)); $$->s = $2->s; $$->a = $3; $$->op = 'k'; }
	| '/' { $$ = mknode(ps->a, P_PARAM, L(@1)); $$->s = "/"; $$->op = '/'; }
	;

annot_opt
	: %empty { $$ = NULL; }
	| ':' test { $$ = $2; }
	;

default_opt
	: %empty { $$ = NULL; }
	| '=' test { $$ = $2; }
	;

classdef
	: CLASS NAME opt_bases ':' suite {
		$$ = stmt(ps, S_CLASS, @1);
		$$->s = $2->s;
		$$->oploc = $2->loc;
		$$->l2 = $3;
		$$->l1 = $5;
		$$->end = LEND(@$);
	}
	;

opt_bases
	: %empty { $$ = (NodeList){0}; }
	| '(' opt_args ')' { $$ = $2; }
	;

/* expressions */
namedexpr_test
	: test
	| test WALRUS test { $$ = unsup(ps, "ast.NamedExpr", @1); }
	;

test
	: or_test
	| or_test IF or_test ELSE test {
		$$ = mknode(ps->a, E_IFEXP, L(@1));
		$$->a = $1; $$->b = $3; $$->c = $5;
		$$->oploc = L(@2);
	}
	| lambdef
	;

lambdef
	: LAMBDA ':' test { $$ = unsup(ps, "ast.Lambda", @1); }
	| LAMBDA lambda_params ':' test { $$ = unsup(ps, "ast.Lambda", @1); }
	;

lambda_params
	: NAME default_opt { $$ = one(ps, $1); }
	| '*' NAME { $$ = one(ps, $2); }
	| '*' { $$ = (NodeList){0}; }
	| POW NAME { $$ = one(ps, $2); }
	| '/' { $$ = (NodeList){0}; }
	| lambda_params ',' NAME default_opt { $$ = push(ps, $1, $3); }
	| lambda_params ',' '*' NAME { $$ = push(ps, $1, $4); }
	| lambda_params ',' '*' { $$ = $1; }
	| lambda_params ',' POW NAME { $$ = push(ps, $1, $4); }
	| lambda_params ',' '/' { $$ = $1; }
	;

or_test
	: and_test
	| or_test OR and_test {
		if ($1->kind == E_BOOLOP && $1->op == BO_OR && !$1->b) {
			$$ = $1;
		} else {
			$$ = mknode(ps->a, E_BOOLOP, L(@1));
			$$->op = BO_OR;
			$$->oploc = L(@2);
			$$->l1 = one(ps, $1);
		}
		$$->l1 = push(ps, $$->l1, $3);
	}
	;

and_test
	: not_test
	| and_test AND not_test {
		if ($1->kind == E_BOOLOP && $1->op == BO_AND && !$1->b) {
			$$ = $1;
		} else {
			$$ = mknode(ps->a, E_BOOLOP, L(@1));
			$$->op = BO_AND;
			$$->oploc = L(@2);
			$$->l1 = one(ps, $1);
		}
		$$->l1 = push(ps, $$->l1, $3);
	}
	;

not_test
	: comparison
	| NOT not_test { $$ = mknode(ps->a, E_UNARY, L(@1)); $$->op = U_NOT; $$->a = $2; $$->oploc = L(@1); }
	;

comparison
	: expr
	| comparison comp_op expr { $$ = mkcompare(ps, $1, $2, $3, @2); }
	;

comp_op
	: '<' { $$ = C_LT; }
	| '>' { $$ = C_GT; }
	| EQ { $$ = C_EQ; }
	| GE { $$ = C_GE; }
	| LE { $$ = C_LE; }
	| NE { $$ = C_NE; }
	| IN { $$ = C_IN; }
	| NOT IN { $$ = C_NOTIN; }
	| IS { $$ = C_IS; }
	| IS NOT { $$ = C_ISNOT; }
	;

star_expr
	: '*' expr { $$ = mknode(ps->a, E_STARRED, L(@1)); $$->a = $2; }
	;

expr
	: factor
	| expr '|' expr { $$ = mkbinop(ps, B_BITOR, $1, $3, @1, @2); }
	| expr '^' expr { $$ = mkbinop(ps, B_BITXOR, $1, $3, @1, @2); }
	| expr '&' expr { $$ = mkbinop(ps, B_BITAND, $1, $3, @1, @2); }
	| expr LSHIFT expr { $$ = mkbinop(ps, B_LSHIFT, $1, $3, @1, @2); }
	| expr RSHIFT expr { $$ = mkbinop(ps, B_RSHIFT, $1, $3, @1, @2); }
	| expr '+' expr { $$ = mkbinop(ps, B_ADD, $1, $3, @1, @2); }
	| expr '-' expr { $$ = mkbinop(ps, B_SUB, $1, $3, @1, @2); }
	| expr '*' expr { $$ = mkbinop(ps, B_MUL, $1, $3, @1, @2); }
	| expr '/' expr { $$ = mkbinop(ps, B_DIV, $1, $3, @1, @2); }
	| expr FLOORDIV expr { $$ = mkbinop(ps, B_FLOORDIV, $1, $3, @1, @2); }
	| expr '%' expr { $$ = mkbinop(ps, B_MOD, $1, $3, @1, @2); }
	| expr '@' expr { $$ = mkbinop(ps, B_MATMUL, $1, $3, @1, @2); }
	;

factor
	: power
	| '-' factor { $$ = mknode(ps->a, E_UNARY, L(@1)); $$->op = U_NEG; $$->a = $2; $$->oploc = L(@1); }
	| '+' factor { $$ = mknode(ps->a, E_UNARY, L(@1)); $$->op = U_POS; $$->a = $2; $$->oploc = L(@1); }
	| '~' factor { $$ = mknode(ps->a, E_UNARY, L(@1)); $$->op = U_INVERT; $$->a = $2; $$->oploc = L(@1); }
	;

power
	: primary
	| primary POW factor { $$ = mkbinop(ps, B_POW, $1, $3, @1, @2); }
	| AWAIT primary { $$ = unsup(ps, "ast.Await", @1); }
	| AWAIT primary POW factor { $$ = unsup(ps, "ast.Await", @1); }
	;

primary
	: atom
	| primary '(' opt_args ')' {
		uint32_t i;
		$$ = mknode(ps->a, E_CALL, $1->loc);
		$$->a = $1;
		$$->oploc = L(@2);
		for (i = 0; i < $3.n; i++) {
			Node *x = $3.v[i];
			if (x->kind == E_KEYWORD)
				nlpush(ps->a, &$$->l2, x);
			else
				nlpush(ps->a, &$$->l1, x);
		}
	}
	| primary '[' subscripts ']' {
		$$ = mknode(ps->a, E_SUBSCRIPT, $1->loc);
		$$->a = $1;
		$$->l1 = $3;
		$$->oploc = L(@2);
	}
	| primary '.' NAME {
		$$ = mknode(ps->a, E_ATTR, $1->loc);
		$$->a = $1;
		$$->s = $3->s;
		$$->oploc = $3->loc;
	}
	;

opt_args
	: %empty { $$ = (NodeList){0}; }
	| arglist { $$ = $1; }
	| arglist ',' { $$ = $1; }
	;

arglist
	: argument { $$ = one(ps, $1); }
	| arglist ',' argument { $$ = push(ps, $1, $3); }
	;

argument
	: test
	| test comp_for { $$ = unsup(ps, "ast.GeneratorExp", @1); }
	| NAME '=' test { $$ = mknode(ps->a, E_KEYWORD, $1->loc); $$->s = $1->s; $$->a = $3; }
	| NAME WALRUS test { $$ = unsup(ps, "ast.NamedExpr", @1); }
	| '*' test { $$ = mknode(ps->a, E_STARRED, L(@1)); $$->a = $2; }
	| POW test { $$ = mknode(ps->a, E_KEYWORD, L(@1)); $$->s = NULL; $$->a = $2; }
	;

subscripts
	: subscript { $$ = one(ps, $1); }
	| subscripts ',' { $$ = $1; $$.v[0]->tcomma = true; /* a trailing comma: a tuple index */ }
	| subscripts ',' subscript { $$ = push(ps, $1, $3); }
	;

subscript
	: test
	| star_expr
	| opt_test ':' opt_test sliceop {
		$$ = mknode(ps->a, E_SLICE, $1 ? $1->loc : L(@2));
		$$->a = $1; $$->b = $3; $$->c = $4;
	}
	;

opt_test
	: %empty { $$ = NULL; }
	| test
	;

sliceop
	: %empty { $$ = NULL; }
	| ':' opt_test { $$ = $2; }
	;

atom
	: NAME
	| NUMBER
	| strings
	| ELLIPSIS { $$ = leaf(ps, E_ELLIPSIS, @1); }
	| NONE { $$ = leaf(ps, E_NONE, @1); }
	| TRUE { $$ = leaf(ps, E_BOOL, @1); $$->u = 1; }
	| FALSE { $$ = leaf(ps, E_BOOL, @1); $$->u = 0; }
	| '(' ')' { $$ = leaf(ps, E_TUPLE, @1); }
	| '(' yield_expr ')' { $$ = $2; }
	| '(' test WALRUS test ')' { $$ = unsup(ps, "ast.NamedExpr", @2); }
	| '(' testlist_items ')' {
		$$ = tuple_or_single(ps, $2.l, $2.comma, @1);
		$$->paren = true;
	}
	| '(' test comp_for ')' { $$ = unsup(ps, "ast.GeneratorExp", @1); }
	| '[' ']' { $$ = leaf(ps, E_LIST, @1); }
	| '[' testlist_items ']' { $$ = leaf(ps, E_LIST, @1); $$->l1 = $2.l; }
	| '[' test comp_for ']' { $$ = unsup(ps, "ast.ListComp", @1); }
	| '{' '}' { $$ = unsup(ps, "ast.Dict", @1); }
	| '{' display_body '}' { $$ = $2; $$->loc = L(@1); }
	;

testlist_items
	: test_or_star { $$.l = one(ps, $1); $$.comma = false; }
	| testlist_items ',' { $$ = $1; $$.comma = true; }
	| testlist_items ',' test_or_star { $$.l = push(ps, $1.l, $3); $$.comma = true; }
	;

display_body
	: dict_items opt_comma { $$ = unsup(ps, "ast.Dict", @1); $$->l1 = $1; }
	| set_items opt_comma { $$ = unsup(ps, "ast.Set", @1); $$->l1 = $1; }
	| test ':' test comp_for { $$ = unsup(ps, "ast.DictComp", @1); }
	| test comp_for { $$ = unsup(ps, "ast.SetComp", @1); }
	;

dict_items
	: dict_item { $$ = one(ps, $1); }
	| dict_items ',' dict_item { $$ = push(ps, $1, $3); }
	;

dict_item
	: test ':' test { $$ = leaf(ps, E_KEYWORD, @1); $$->b = $1; $$->a = $3; }
	| POW expr { $$ = leaf(ps, E_KEYWORD, @1); $$->a = $2; }
	;

set_items
	: test_or_star { $$ = one(ps, $1); }
	| set_items ',' test_or_star { $$ = push(ps, $1, $3); }
	;

comp_for
	: FOR exprlist_items IN or_test comp_iter { $$ = $4; }
	| ASYNC FOR exprlist_items IN or_test comp_iter { $$ = $5; }
	;

comp_iter
	: %empty { $$ = NULL; }
	| comp_for
	| IF or_test comp_iter { $$ = $2; }
	;

strings
	: STRING
	| FSTRING
	| strings STRING { $$ = strjoin(ps, $1, $2); }
	| strings FSTRING { $$ = strjoin(ps, $1, $2); }
	;

%%

Node *
mknode(Arena *a, int kind, Loc loc)
{
	Node *n = aalloc(a, sizeof *n);

	n->kind = (uint16_t)kind;
	n->loc = loc;
	n->end = loc;
	return n;
}

void
nlpush(Arena *a, NodeList *l, Node *n)
{
	APUSH(a, l->v, l->n, l->cap, n);
}

static NodeList
one(PState *ps, Node *n)
{
	NodeList l = {0};
	nlpush(ps->a, &l, n);
	return l;
}

static NodeList
push(PState *ps, NodeList l, Node *n)
{
	nlpush(ps->a, &l, n);
	return l;
}

static Node *
leaf(PState *ps, int kind, PYLTYPE loc)
{
	return mknode(ps->a, kind, L(loc));
}

static Node *
stmt(PState *ps, int kind, PYLTYPE loc)
{
	Node *n = mknode(ps->a, kind, L(loc));
	n->end = LEND(loc);
	return n;
}

static Node *
unsup(PState *ps, const char *what, PYLTYPE loc)
{
	Node *n = mknode(ps->a, E_UNSUP, L(loc));
	n->s = what;
	return n;
}

static Node *
mkbinop(PState *ps, int op, Node *a, Node *b, PYLTYPE at, PYLTYPE opat)
{
	Node *n = mknode(ps->a, E_BINOP, L(at));
	n->op = (uint16_t)op;
	n->a = a;
	n->b = b;
	n->oploc = L(opat);
	return n;
}

static Node *
tuple_or_single(PState *ps, NodeList l, bool comma, PYLTYPE loc)
{
	Node *n;

	if (l.n == 1 && !comma)
		return l.v[0];
	n = mknode(ps->a, E_TUPLE, L(loc));
	n->l1 = l;
	return n;
}

static Node *
mkcompare(PState *ps, Node *a, int op, Node *b, PYLTYPE opat)
{
	Node *n;
	uint8_t *ops;

	if (a->kind == E_COMPARE && !a->paren) {
		n = a;
	} else {
		n = mknode(ps->a, E_COMPARE, a->loc);
		n->a = a;
		n->oploc = L(opat);
	}
	ops = aalloc(ps->a, n->l1.n + 1);
	if (n->l1.n)
		memcpy(ops, n->cmpops, n->l1.n);
	ops[n->l1.n] = (uint8_t)op;
	n->cmpops = ops;
	nlpush(ps->a, &n->l1, b);
	return n;
}

static Node *
strjoin(PState *ps, Node *a, Node *b)
{
	Node *n;

	if (a->kind == E_UNSUP || b->kind == E_UNSUP)
		return a->kind == E_UNSUP ? a : b;
	n = mknode(ps->a, E_STR, a->loc);
	n->u = a->u + b->u;
	n->s = aalloc(ps->a, n->u + 1);
	memcpy((char *)n->s, a->s, a->u);
	memcpy((char *)n->s + a->u, b->s, b->u);
	return n;
}

/* ---- leaves made from tokens --------------------------------------- */

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append the UTF-8 encoding of code point c. */
static void
pututf8(Buf *b, uint32_t c)
{
	if (c < 0x80) {
		bufputc(b, (int)c);
	} else if (c < 0x800) {
		bufputc(b, (int)(0xc0 | (c >> 6)));
		bufputc(b, (int)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		bufputc(b, (int)(0xe0 | (c >> 12)));
		bufputc(b, (int)(0x80 | ((c >> 6) & 0x3f)));
		bufputc(b, (int)(0x80 | (c & 0x3f)));
	} else {
		bufputc(b, (int)(0xf0 | (c >> 18)));
		bufputc(b, (int)(0x80 | ((c >> 12) & 0x3f)));
		bufputc(b, (int)(0x80 | ((c >> 6) & 0x3f)));
		bufputc(b, (int)(0x80 | (c & 0x3f)));
	}
}

/* Decode a string literal token (prefix, quotes, escapes). */
static Node *
strleaf(PState *ps, const Token *t, Loc loc)
{
	const char *s = ps->src->text + t->off, *e = s + t->len, *p;
	bool raw = false, bytes = false;
	size_t q;
	Buf b = {0};
	Node *n;

	for (p = s; *p != '"' && *p != '\''; p++) {
		if (*p == 'r' || *p == 'R')
			raw = true;
		if (*p == 'b' || *p == 'B')
			bytes = true;
	}
	q = (p[1] == *p && p[2] == *p && e - p >= 6) ? 3 : 1;
	p += q;
	e -= q;
	bufputs(&b, "");
	while (p < e) {
		int c = (unsigned char)*p++, h;
		uint32_t v;
		int i, nd;
		if (c != '\\' || raw) {
			bufputc(&b, c);
			if (c == '\\' && p < e)
				bufputc(&b, (unsigned char)*p++);
			continue;
		}
		c = (unsigned char)*p++;
		switch (c) {
		case '\n': break;
		case '\r': if (p < e && *p == '\n') p++; break;
		case '\\': bufputc(&b, '\\'); break;
		case '\'': bufputc(&b, '\''); break;
		case '"': bufputc(&b, '"'); break;
		case 'n': bufputc(&b, '\n'); break;
		case 't': bufputc(&b, '\t'); break;
		case 'r': bufputc(&b, '\r'); break;
		case 'a': bufputc(&b, '\a'); break;
		case 'b': bufputc(&b, '\b'); break;
		case 'f': bufputc(&b, '\f'); break;
		case 'v': bufputc(&b, '\v'); break;
		case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
			v = (uint32_t)(c - '0');
			for (i = 0; i < 2 && p < e && *p >= '0' && *p <= '7'; i++)
				v = v * 8 + (uint32_t)(*p++ - '0');
			if (bytes) bufputc(&b, (int)(v & 0xff)); else pututf8(&b, v);
			break;
		case 'x': case 'u': case 'U':
			nd = c == 'x' ? 2 : c == 'u' ? 4 : 8;
			if (bytes && c != 'x') {
				bufputc(&b, '\\');
				bufputc(&b, c);
				break;
			}
			v = 0;
			for (i = 0; i < nd && p < e && (h = hexval((unsigned char)*p)) >= 0; i++, p++)
				v = v * 16 + (uint32_t)h;
			if (bytes) bufputc(&b, (int)(v & 0xff)); else pututf8(&b, v > 0x10ffff ? 0xfffd : v);
			break;
		case 'N': /* \N{NAME}: kept as written */
			bufputs(&b, "\\N");
			break;
		default:
			bufputc(&b, '\\');
			bufputc(&b, c);
		}
	}
	n = mknode(ps->a, E_STR, loc);
	n->s = astrndup(ps->a, b.s, b.n);
	n->u = b.n;
	n->op = bytes ? 'b' : 0;
	buffree(&b);
	return n;
}

static Node *
numleaf(PState *ps, const Token *t, Loc loc)
{
	const char *s = ps->src->text + t->off;
	char tmp[512];
	size_t i, k = 0;
	Node *n;
	bool isfloat = false;
	int base = 10;

	for (i = 0; i < t->len && k + 1 < sizeof tmp; i++)
		if (s[i] != '_')
			tmp[k++] = s[i];
	tmp[k] = 0;
	if (k && (tmp[k - 1] == 'j' || tmp[k - 1] == 'J')) {
		n = mknode(ps->a, E_UNSUP, loc);
		n->s = "complex numbers";
		return n;
	}
	if (k > 1 && tmp[0] == '0' && (tmp[1] == 'x' || tmp[1] == 'X'))
		base = 16;
	else if (k > 1 && tmp[0] == '0' && (tmp[1] == 'o' || tmp[1] == 'O'))
		base = 8;
	else if (k > 1 && tmp[0] == '0' && (tmp[1] == 'b' || tmp[1] == 'B'))
		base = 2;
	else
		for (i = 0; i < k; i++)
			if (tmp[i] == '.' || tmp[i] == 'e' || tmp[i] == 'E')
				isfloat = true;
	if (isfloat) {
		n = mknode(ps->a, E_FLOAT, loc);
		n->f = strtod(tmp, NULL);
		return n;
	}
	n = mknode(ps->a, E_INT, loc);
	errno = 0;
	n->u = strtoull(base == 10 ? tmp : tmp + 2, NULL, base);
	if (errno == ERANGE)
		n->big = true;
	return n;
}

int
pylex(PYSTYPE *lval, PYLTYPE *lloc, PState *ps)
{
	const Token *t;
	Loc loc;

	if (ps->pos >= ps->end) {
		/* the end of the unit: its last line ends here */
		t = &ps->toks->v[ps->end > 0 ? ps->end - 1 : 0];
		lloc->first_line = lloc->last_line = (int)t->loc.line;
		lloc->first_column = lloc->last_column = (int)(t->loc.col + t->len);
		return T_END;
	}
	t = &ps->toks->v[ps->pos++];
	/* the parser reports a bad token or an unexpected indent it reads (or
	 * skips it after an error on the line); a message on another token is
	 * reported where the parser fails on the token (pyerror), else by kpyc */
	if (!ps->quiet && (t->kind == T_BADTOK || t->kind == T_INDENT))
		ps->toks->v[ps->pos - 1].parsed = true;
	loc = t->loc;
	lloc->first_line = (int)loc.line;
	lloc->first_column = (int)loc.col;
	lloc->last_line = (int)loc.line;
	lloc->last_column = (int)(loc.col + (t->len ? t->len - 1 : 0));
	switch (t->kind) {
	case T_NAME:
		lval->n = mknode(ps->a, E_NAME, loc);
		lval->n->s = astrndup(ps->a, ps->src->text + t->off, t->len);
		break;
	case T_NUMBER:
		lval->n = numleaf(ps, t, loc);
		break;
	case T_STRING:
		lval->n = strleaf(ps, t, loc);
		break;
	case T_FSTRING:
		lval->n = mknode(ps->a, E_UNSUP, loc);
		lval->n->s = "ast.JoinedStr";
		break;
	case T_AUGASSIGN: {
		const char *s = ps->src->text + t->off;
		static const struct { const char *s; int op; } aug[] = {
			{"+=", B_ADD}, {"-=", B_SUB}, {"*=", B_MUL}, {"/=", B_DIV}, {"//=", B_FLOORDIV},
			{"%=", B_MOD}, {"@=", B_MATMUL}, {"&=", B_BITAND}, {"|=", B_BITOR}, {"^=", B_BITXOR},
			{">>=", B_RSHIFT}, {"<<=", B_LSHIFT}, {"**=", B_POW},
		};
		size_t i;
		lval->i = B_ADD;
		for (i = 0; i < countof(aug); i++)
			if (strlen(aug[i].s) == t->len && memcmp(aug[i].s, s, t->len) == 0)
				lval->i = aug[i].op;
		break;
	}
	default:
		break;
	}
	return t->kind;
}

void
pyerror(PYLTYPE *lloc, PState *ps, const char *msg)
{
	const Token *t = ps->pos > 0 ? &ps->toks->v[ps->pos - 1] : NULL;
	Loc loc = {(uint32_t)lloc->first_line, (uint32_t)lloc->first_column, ps->file};

	ps->nerr++;
	if (ps->quiet)
		return;
	if (t && t->msg) {
		/* a token the tokenizer found wrong: its message says why */
		loc = t->loc;
		msg = t->msg;
		ps->toks->v[ps->pos - 1].parsed = true;
	} else if (t && t->kind == T_INDENT) {
		msg = "unexpected indent";
	} else if (strcmp(msg, "memory exhausted") == 0) {
		/* Bison's stack (YYMAXDEPTH) is full */
		msg = "too deeply nested for the parser";
	}
	if (ps->report)
		ps->report(ps->ctx, loc, msg);
	else
		diagerr(ps->d, ps->src, loc, "%s", msg);
}

/* Expressions nest at most MAXNEST deep (a chain a + b + c ... nests as
 * deep as it is long): everything after the parser walks the AST
 * recursively.  CPython's own compiler stops near 3,000; Warp's code
 * generator (Python recursion) well before 1,000. */
enum { MAXNEST = 1000 };

typedef struct NestItem {
	Node *n;
	Node *stmt;   /* the innermost statement holding n */
	uint32_t d;   /* expressions above n */
} NestItem;

static bool
isstmt(const Node *n)
{
	return n->kind >= S_EXPR && n->kind != E_ALIAS && n->kind != P_PARAM;
}

/* Report expressions nested deeper than MAXNEST, and make each statement
 * holding one an S_ERROR (already reported) so that nothing walks it.
 * Iterative: the tree may be arbitrarily deep. */
static void
checknest(PState *ps, NodeList *l)
{
	NestItem *st = NULL, it;
	size_t n = 0, cap = 0;
	uint32_t i;

#define NESTPUSH(N, S, D) do { \
		if ((N)) { \
			if (n == cap) { \
				cap = cap ? 2 * cap : 64; \
				st = xrealloc(st, cap * sizeof *st); \
			} \
			st[n].n = (N); st[n].stmt = (S); st[n].d = (D); n++; \
		} \
	} while (0)
	for (i = 0; i < l->n; i++)
		NESTPUSH(l->v[i], NULL, 0);
	while (n) {
		Node *x, *s;
		uint32_t d;
		it = st[--n];
		x = it.n;
		s = isstmt(x) ? x : it.stmt;
		if (s && s->kind == S_ERROR)
			continue;
		d = it.d + (x->kind < S_EXPR); /* an expression */
		if (d > MAXNEST) {
			Loc loc = x->loc;
			ps->nerr++;
			if (!ps->quiet) {
				char msg[96];
				snprintf(msg, sizeof msg, "expression nested too deeply (more than %d levels)", MAXNEST);
				if (ps->report)
					ps->report(ps->ctx, loc, msg);
				else
					diagerr(ps->d, ps->src, loc, "%s", msg);
			}
			if (s) {
				s->kind = S_ERROR;
				continue;
			}
			break;
		}
		NESTPUSH(x->a, s, d);
		NESTPUSH(x->b, s, d);
		NESTPUSH(x->c, s, d);
		for (i = 0; i < x->l1.n; i++)
			NESTPUSH(x->l1.v[i], s, d);
		for (i = 0; i < x->l2.n; i++)
			NESTPUSH(x->l2.v[i], s, d);
		for (i = 0; i < x->l3.n; i++)
			NESTPUSH(x->l3.v[i], s, d);
	}
#undef NESTPUSH
	free(st);
}

int
pyparse_unit(PState *ps, uint32_t from, uint32_t to)
{
	ps->pos = from;
	ps->end = to;
	ps->nerr = 0;
	ps->result = (NodeList){0};
	if (pyparse(ps) != 0 && ps->nerr == 0)
		ps->nerr = 1;
	checknest(ps, &ps->result);
	return ps->nerr;
}

const char *
nodename(const Node *n)
{
	switch (n->kind) {
	case E_UNSUP:
	case S_UNSUP:
		return n->s;
	case E_LIST: return "ast.List";
	case E_STARRED: return "ast.Starred";
	case E_SLICE: return "ast.Slice";
	case E_NONE: return "ast.Constant";
	case S_ANNASSIGN: return "ast.AnnAssign";
	case S_DEF: return "ast.FunctionDef";
	case S_CLASS: return "ast.ClassDef";
	case S_IMPORT: return "ast.Import";
	case S_FROM: return "ast.ImportFrom";
	default: return "?";
	}
}
