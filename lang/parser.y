/* parser.y - the grammar of Nereid kernels: Python's statement and expression syntax,
 * restricted to what Triton kernels use.
 *
 * How it works. The parser is a pure LALR(1) bison parser over the token stream of
 * lexer.l, which already turned indentation into INDENT/DEDENT tokens, dropped newlines
 * inside brackets and joined adjacent string literals. The grammar follows Python's:
 * a file is a list of statements; a suite is either a simple statement on the same line
 * or NEWLINE INDENT statements DEDENT; expressions have one nonterminal per precedence
 * level, lowest first (test: conditional expression, then or, and, not, comparison, |,
 * ^, &, shifts, + -, * / // % @, unary, **, primary, atom). Every list (statements,
 * arguments, elif branches, comparison chains) is left-recursive, so bison's stack stays
 * flat however long the list; only genuine nesting (unary chains, brackets, blocks) deepens
 * it, and every nesting is bounded (MAX_* in parse_ctx.h, YYMAXDEPTH here).
 *
 * Every action is a one-line call into a builder of ast.c, which allocates in the arena,
 * keeps the tree's height, and checks what the grammar cannot (assignment targets,
 * repeated keywords, depth limits). A builder that finds an error reports it and sets
 * ctx->failed; the lexer then answers the parser's next request with the error token,
 * and bison, which has no error-recovery rules, stops. So a file yields exactly one
 * error, located, and never a cascade.
 *
 * Syntax errors are reported by yyreport_syntax_error (parse.error custom), which hands
 * the lookahead and the expected tokens (exact, thanks to LAC) to parse_syntax_error in
 * parse.c, which writes a readable message. Token aliases below are those names. */

%define api.pure full
%define api.prefix {nr}
%define api.value.type {SemVal}
%define api.location.type {Loc}
%define parse.error custom
%define parse.lac full
%locations
%param {ParseCtx *ctx}
%expect 0

%code requires {
#include "lang/parse_ctx.h"
}

%code provides {
int nrlex(SemVal *lval, Loc *lloc, ParseCtx *ctx);
void nrerror(Loc *lloc, ParseCtx *ctx, const char *msg);
}

%code {
/* A valid program is far shallower than this (blocks 100, brackets 200, expression
 * height 1000, a few stack entries each); a hostile one ends in "memory exhausted",
 * which nrerror turns into a nesting error, instead of exhausting memory. */
#define YYMAXDEPTH 20000
/* A rule's location is its first token's (empty rules: the preceding symbol's). */
#define YYLLOC_DEFAULT(Cur, Rhs, N) ((Cur) = (N) ? YYRHSLOC(Rhs, 1) : YYRHSLOC(Rhs, 0))
}

%token <str> NAME "name"
%token <expr> INT "integer literal" FLOAT "float literal" STRING "string literal"
%token NEWLINE "end of line" INDENT "indent" DEDENT "dedent"
%token <op> AUGASSIGN "augmented assignment"
%token POW "'**'" FLOORDIV "'//'" LSHIFT "'<<'" RSHIFT "'>>'"
%token LE "'<='" GE "'>='" EQ "'=='" NE "'!='" ARROW "'->'"
%token DEF "'def'" RETURN "'return'" IF "'if'" ELIF "'elif'" ELSE "'else'"
%token FOR "'for'" IN "'in'" WHILE "'while'" BREAK "'break'" CONTINUE "'continue'"
%token PASS "'pass'" AND "'and'" OR "'or'" NOT "'not'" IS "'is'"
%token TRUE "'True'" FALSE "'False'" NONE "'None'"
%token IMPORT "'import'" FROM "'from'" AS "'as'" ASSERT "'assert'"
%token GLOBAL "'global'" NONLOCAL "'nonlocal'" WITH "'with'" RAISE "'raise'"

%type <stmts> stmt simple_stmt small_stmts suite stmts else_part
%type <stmt> small_stmt expr_stmt compound_stmt if_stmt while_stmt for_stmt with_stmt
%type <stmt> return_stmt import_stmt global_stmt assert_stmt raise_stmt
%type <func> funcdef decorated
%type <exprs> assign_chain exprlist for_list comp_clauses subscripts decorators import_names
%type <exprs> import_list import_items name_list
%type <expr> testlist_star test or_test or_chain and_test and_chain not_test comparison
%type <expr> cmp_chain bitor bitxor bitand shift arith term factor power primary atom
%type <expr> star_or_test for_item for_targets subscript slice opt_test decorator
%type <expr> import_name import_item comp_for
%type <op> cmp_op
%type <elifs> elifs
%type <params> params param_list
%type <param> param
%type <ann> annotation
%type <names> dotted
%type <args> arglist
%type <arg> arg

%%

file
    : %empty
    | file stmt                                 { ast_module_add(ctx, $2); }
    ;

stmt
    : simple_stmt
    | compound_stmt                             { $$ = ast_sv_push(ctx, NULL, $1); }
    ;

stmts
    : stmt
    | stmts stmt                                { $$ = ast_sv_concat(ctx, $1, $2); }
    ;

simple_stmt
    : small_stmts NEWLINE
    | small_stmts ';' NEWLINE
    ;

small_stmts
    : small_stmt                                { $$ = ast_sv_push(ctx, NULL, $1); }
    | small_stmts ';' small_stmt                { $$ = ast_sv_push(ctx, $1, $3); }
    ;

small_stmt
    : expr_stmt
    | PASS                                      { $$ = ast_st_simple(ctx, @1, ST_PASS); }
    | BREAK                                     { $$ = ast_st_simple(ctx, @1, ST_BREAK); }
    | CONTINUE                                  { $$ = ast_st_simple(ctx, @1, ST_CONTINUE); }
    | return_stmt
    | import_stmt
    | global_stmt
    | assert_stmt
    | raise_stmt
    ;

expr_stmt
    : testlist_star                             { $$ = ast_st_expr(ctx, @1, $1); }
    | testlist_star AUGASSIGN testlist_star     { $$ = ast_st_augassign(ctx, @1, $1, $2, $3); }
    | testlist_star ':' annotation              { $$ = ast_st_annassign(ctx, @1, $1, $3, NULL); }
    | testlist_star ':' annotation '=' testlist_star { $$ = ast_st_annassign(ctx, @1, $1, $3, $5); }
    | assign_chain                              { $$ = ast_st_assign(ctx, @1, $1); }
    ;

assign_chain
    : testlist_star '=' testlist_star           { $$ = ast_ev_push(ctx, ast_ev_push(ctx, NULL, $1), $3); }
    | assign_chain '=' testlist_star            { $$ = ast_ev_push(ctx, $1, $3); }
    ;

return_stmt
    : RETURN                                    { $$ = ast_st_return(ctx, @1, NULL); }
    | RETURN testlist_star                      { $$ = ast_st_return(ctx, @1, $2); }
    ;

import_stmt
    : IMPORT import_names                       { $$ = ast_st_import(ctx, @1, NULL, $2); }
    | FROM dotted IMPORT import_list            { $$ = ast_st_import(ctx, @1, $2, $4); }
    ;

import_names
    : import_name                               { $$ = ast_ev_push(ctx, NULL, $1); }
    | import_names ',' import_name              { $$ = ast_ev_push(ctx, $1, $3); }
    ;

import_name
    : dotted                                    { $$ = ast_ex_import_name(ctx, @1, $1, NULL); }
    | dotted AS NAME                            { $$ = ast_ex_import_name(ctx, @1, $1, $3); }
    ;

import_list
    : '*'                                       { $$ = ast_ev_push(ctx, NULL, ast_ex_name(ctx, @1, "*")); }
    | import_items
    | '(' import_items ')'                      { $$ = $2; }
    | '(' import_items ',' ')'                  { $$ = $2; }
    ;

import_items
    : import_item                               { $$ = ast_ev_push(ctx, NULL, $1); }
    | import_items ',' import_item              { $$ = ast_ev_push(ctx, $1, $3); }
    ;

import_item
    : NAME                                      { $$ = ast_ex_import_name(ctx, @1, ast_nv_push(ctx, NULL, $1), NULL); }
    | NAME AS NAME                              { $$ = ast_ex_import_name(ctx, @1, ast_nv_push(ctx, NULL, $1), $3); }
    ;

global_stmt
    : GLOBAL name_list                          { $$ = ast_st_global(ctx, @1, false, $2); }
    | NONLOCAL name_list                        { $$ = ast_st_global(ctx, @1, true, $2); }
    ;

name_list
    : NAME                                      { $$ = ast_ev_push(ctx, NULL, ast_ex_name(ctx, @1, $1)); }
    | name_list ',' NAME                        { $$ = ast_ev_push(ctx, $1, ast_ex_name(ctx, @3, $3)); }
    ;

assert_stmt
    : ASSERT test                               { $$ = ast_st_assert(ctx, @1, $2, NULL); }
    | ASSERT test ',' test                      { $$ = ast_st_assert(ctx, @1, $2, $4); }
    ;

raise_stmt
    : RAISE                                     { $$ = ast_st_raise(ctx, @1, NULL, NULL); }
    | RAISE test                                { $$ = ast_st_raise(ctx, @1, $2, NULL); }
    | RAISE test FROM test                      { $$ = ast_st_raise(ctx, @1, $2, $4); }
    ;

dotted
    : NAME                                      { $$ = ast_nv_push(ctx, NULL, $1); }
    | dotted '.' NAME                           { $$ = ast_nv_push(ctx, $1, $3); }
    ;

annotation
    : '*' dotted                                { $$ = ast_ann_star(ctx, @1, $2); }
    | dotted                                    { $$ = ast_ann_dotted(ctx, @1, $1); }
    | STRING                                    { $$ = ast_ann_string(ctx, @1, $1); }
    | annotation '|' dotted                     { $$ = ast_ann_union(ctx, $1, $3); }
    | annotation '|' NONE                       { $$ = ast_ann_union(ctx, $1, ast_nv_push(ctx, NULL, "None")); }
    ;

compound_stmt
    : if_stmt
    | while_stmt
    | for_stmt
    | with_stmt
    | funcdef                                   { $$ = ast_st_def(ctx, $1); }
    | decorated                                 { $$ = ast_st_def(ctx, $1); }
    ;

suite
    : simple_stmt
    | NEWLINE INDENT stmts DEDENT               { $$ = $3; }
    ;

if_stmt
    : IF test ':' suite elifs else_part         { $$ = ast_st_if(ctx, @1, $2, $4, $5, $6); }
    ;

elifs
    : %empty                                    { $$ = NULL; }
    | elifs ELIF test ':' suite                 { $$ = ast_elif_push(ctx, $1, @2, $3, $5); }
    ;

else_part
    : %empty                                    { $$ = NULL; }
    | ELSE ':' suite                            { $$ = ast_sv_else(ctx, @1, $3); }
    ;

while_stmt
    : WHILE test ':' suite else_part            { $$ = ast_st_while(ctx, @1, $2, $4, $5); }
    ;

for_stmt
    : FOR for_targets IN testlist_star ':' suite else_part { $$ = ast_st_for(ctx, @1, $2, $4, $6, $7); }
    ;

for_targets
    : for_list                                  { $$ = ast_ex_seq(ctx, @1, $1, false); }
    | for_list ','                              { $$ = ast_ex_seq(ctx, @1, $1, true); }
    ;

for_list
    : for_item                                  { $$ = ast_ev_push(ctx, NULL, $1); }
    | for_list ',' for_item                     { $$ = ast_ev_push(ctx, $1, $3); }
    ;

for_item
    : bitor
    | '*' bitor                                 { $$ = ast_ex_star(ctx, @1, $2); }
    ;

with_stmt
    : WITH test ':' suite                       { $$ = ast_st_with(ctx, @1, $2, NULL, $4); }
    | WITH test AS for_item ':' suite           { $$ = ast_st_with(ctx, @1, $2, $4, $6); }
    ;

decorated
    : decorators funcdef                        { $$ = ast_func_decorate(ctx, $2, $1); }
    ;

decorators
    : decorator                                 { $$ = ast_ev_push(ctx, NULL, $1); }
    | decorators decorator                      { $$ = ast_ev_push(ctx, $1, $2); }
    ;

decorator
    : '@' test NEWLINE                          { $$ = $2; }
    ;

funcdef
    : DEF NAME '(' params ')' ret_ann ':' suite { $$ = ast_func(ctx, @1, $2, $4, $8); }
    ;

/* Accepted and dropped: signatures come from parameter annotations. */
ret_ann
    : %empty
    | ARROW test
    ;

params
    : %empty                                    { $$ = NULL; }
    | param_list
    | param_list ','
    ;

param_list
    : param                                     { $$ = ast_pv_push(ctx, NULL, $1); }
    | param_list ',' param                      { $$ = ast_pv_push(ctx, $1, $3); }
    ;

param
    : NAME                                      { $$ = ast_param(@1, $1, NULL, NULL); }
    | NAME '=' test                             { $$ = ast_param(@1, $1, NULL, $3); }
    | NAME ':' annotation                       { $$ = ast_param(@1, $1, &$3, NULL); }
    | NAME ':' annotation '=' test              { $$ = ast_param(@1, $1, &$3, $5); }
    ;

/* ---- expressions ---- */

testlist_star
    : exprlist                                  { $$ = ast_ex_seq(ctx, @1, $1, false); }
    | exprlist ','                              { $$ = ast_ex_seq(ctx, @1, $1, true); }
    ;

exprlist
    : star_or_test                              { $$ = ast_ev_push(ctx, NULL, $1); }
    | exprlist ',' star_or_test                 { $$ = ast_ev_push(ctx, $1, $3); }
    ;

star_or_test
    : test
    | '*' bitor                                 { $$ = ast_ex_star(ctx, @1, $2); }
    ;

test
    : or_test
    | or_test IF or_test ELSE test              { $$ = ast_ex_ifexp(ctx, @2, $1, $3, $5); }
    ;

or_test
    : and_test
    | or_chain
    ;

or_chain
    : and_test OR and_test                      { $$ = ast_ex_bool(ctx, @2, BOOL_OR, $1, $3); }
    | or_chain OR and_test                      { $$ = ast_ex_bool_push(ctx, $1, $3); }
    ;

and_test
    : not_test
    | and_chain
    ;

and_chain
    : not_test AND not_test                     { $$ = ast_ex_bool(ctx, @2, BOOL_AND, $1, $3); }
    | and_chain AND not_test                    { $$ = ast_ex_bool_push(ctx, $1, $3); }
    ;

not_test
    : NOT not_test                              { $$ = ast_ex_unop(ctx, @1, UN_NOT, $2); }
    | comparison
    ;

comparison
    : bitor
    | cmp_chain
    ;

cmp_chain
    : bitor cmp_op bitor                        { $$ = ast_ex_cmp(ctx, @2, $1, $2, $3); }
    | cmp_chain cmp_op bitor                    { $$ = ast_ex_cmp_push(ctx, $1, $2, $3); }
    ;

cmp_op
    : '<'                                       { $$ = CMP_LT; }
    | '>'                                       { $$ = CMP_GT; }
    | EQ                                        { $$ = CMP_EQ; }
    | NE                                        { $$ = CMP_NE; }
    | LE                                        { $$ = CMP_LE; }
    | GE                                        { $$ = CMP_GE; }
    | IN                                        { $$ = CMP_IN; }
    | NOT IN                                    { $$ = CMP_NOTIN; }
    | IS                                        { $$ = CMP_IS; }
    | IS NOT                                    { $$ = CMP_ISNOT; }
    ;

bitor
    : bitxor
    | bitor '|' bitxor                          { $$ = ast_ex_binop(ctx, @2, BIN_OR, $1, $3); }
    ;

bitxor
    : bitand
    | bitxor '^' bitand                         { $$ = ast_ex_binop(ctx, @2, BIN_XOR, $1, $3); }
    ;

bitand
    : shift
    | bitand '&' shift                          { $$ = ast_ex_binop(ctx, @2, BIN_AND, $1, $3); }
    ;

shift
    : arith
    | shift LSHIFT arith                        { $$ = ast_ex_binop(ctx, @2, BIN_LSHIFT, $1, $3); }
    | shift RSHIFT arith                        { $$ = ast_ex_binop(ctx, @2, BIN_RSHIFT, $1, $3); }
    ;

arith
    : term
    | arith '+' term                            { $$ = ast_ex_binop(ctx, @2, BIN_ADD, $1, $3); }
    | arith '-' term                            { $$ = ast_ex_binop(ctx, @2, BIN_SUB, $1, $3); }
    ;

term
    : factor
    | term '*' factor                           { $$ = ast_ex_binop(ctx, @2, BIN_MUL, $1, $3); }
    | term '/' factor                           { $$ = ast_ex_binop(ctx, @2, BIN_DIV, $1, $3); }
    | term FLOORDIV factor                      { $$ = ast_ex_binop(ctx, @2, BIN_FLOORDIV, $1, $3); }
    | term '%' factor                           { $$ = ast_ex_binop(ctx, @2, BIN_MOD, $1, $3); }
    | term '@' factor                           { $$ = ast_ex_binop(ctx, @2, BIN_MATMUL, $1, $3); }
    ;

factor
    : '+' factor                                { $$ = ast_ex_unop(ctx, @1, UN_POS, $2); }
    | '-' factor                                { $$ = ast_ex_unop(ctx, @1, UN_NEG, $2); }
    | '~' factor                                { $$ = ast_ex_unop(ctx, @1, UN_INVERT, $2); }
    | power
    ;

power
    : primary
    | primary POW factor                        { $$ = ast_ex_binop(ctx, @2, BIN_POW, $1, $3); }
    ;

primary
    : atom
    | primary '.' NAME                          { $$ = ast_ex_attr(ctx, @3, $1, $3); }
    | primary '(' ')'                           { $$ = ast_ex_call(ctx, @1, $1, NULL); }
    | primary '(' arglist ')'                   { $$ = ast_ex_call(ctx, @1, $1, $3); }
    | primary '(' arglist ',' ')'               { $$ = ast_ex_call(ctx, @1, $1, $3); }
    | primary '[' subscripts ']'                { $$ = ast_ex_subscript(ctx, @2, $1, $3); }
    | primary '[' subscripts ',' ']'            { $$ = ast_ex_subscript(ctx, @2, $1, $3); }
    ;

atom
    : NAME                                      { $$ = ast_ex_name(ctx, @1, $1); }
    | INT
    | FLOAT
    | STRING
    | TRUE                                      { $$ = ast_ex_const(ctx, @1, EX_TRUE); }
    | FALSE                                     { $$ = ast_ex_const(ctx, @1, EX_FALSE); }
    | NONE                                      { $$ = ast_ex_const(ctx, @1, EX_NONE); }
    | '(' ')'                                   { $$ = ast_ex_tuple(ctx, @1, NULL); }
    | '(' exprlist ')'                          { $$ = ast_ex_seq(ctx, @1, $2, false); }
    | '(' exprlist ',' ')'                      { $$ = ast_ex_tuple(ctx, @1, $2); }
    | '[' ']'                                   { $$ = ast_ex_list(ctx, @1, NULL); }
    | '[' exprlist ']'                          { $$ = ast_ex_list(ctx, @1, $2); }
    | '[' exprlist ',' ']'                      { $$ = ast_ex_list(ctx, @1, $2); }
    | '[' test comp_clauses ']'                 { $$ = ast_ex_listcomp(ctx, @1, $2, $3); }
    ;

/* a list comprehension's clauses: a 'for' first, then 'for's and 'if's */
comp_clauses
    : comp_for                                  { $$ = ast_ev_push(ctx, NULL, $1); }
    | comp_clauses comp_for                     { $$ = ast_ev_push(ctx, $1, $2); }
    | comp_clauses IF or_test                   { $$ = ast_ev_push(ctx, $1, ast_ex_compif(ctx, @2, $3)); }
    ;

comp_for
    : FOR for_targets IN or_test                { $$ = ast_ex_compfor(ctx, @1, $2, $4); }
    ;

arglist
    : arg                                       { $$ = ast_args_push(ctx, NULL, $1); }
    | arglist ',' arg                           { $$ = ast_args_push(ctx, $1, $3); }
    ;

arg
    : test                                      { $$ = ast_arg_pos(@1, $1); }
    | '*' test                                  { $$ = ast_arg_pos(@1, ast_ex_star(ctx, @1, $2)); }
    | NAME '=' test                             { $$ = ast_arg_kw(@1, $1, $3); }
    ;

subscripts
    : subscript                                 { $$ = ast_ev_push(ctx, NULL, $1); }
    | subscripts ',' subscript                  { $$ = ast_ev_push(ctx, $1, $3); }
    ;

subscript
    : test
    | slice
    ;

slice
    : opt_test ':' opt_test                     { $$ = ast_ex_slice(ctx, @2, $1, $3, NULL); }
    | opt_test ':' opt_test ':' opt_test        { $$ = ast_ex_slice(ctx, @2, $1, $3, $5); }
    ;

opt_test
    : %empty                                    { $$ = NULL; }
    | test
    ;

%%

/* Bison's symbol names are the aliases above ("'if'", "name"); parse.c words the
 * message. Custom reporting is how we get at the expected tokens. */
static int yyreport_syntax_error(const yypcontext_t *yc, ParseCtx *ctx) {
    yysymbol_kind_t kinds[YYNTOKENS];
    const char *names[YYNTOKENS];
    int n = yypcontext_expected_tokens(yc, kinds, YYNTOKENS);
    if (n < 0) n = 0;
    for (int i = 0; i < n; i++) names[i] = yysymbol_name(kinds[i]);
    parse_syntax_error(ctx, *yypcontext_location(yc), yysymbol_name(yypcontext_token(yc)), names, n);
    return 0;
}
