/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison interface for Yacc-like parsers in C

   Copyright (C) 1984, 1989-1990, 2000-2015, 2018-2021 Free Software Foundation,
   Inc.

   This program is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

/* As a special exception, you may create a larger work that contains
   part or all of the Bison parser skeleton and distribute that work
   under terms of your choice, so long as that work isn't itself a
   parser generator using the skeleton or a modified version thereof
   as a parser skeleton.  Alternatively, if you modify or redistribute
   the parser skeleton itself, you may (at your option) remove this
   special exception, which will cause the skeleton and the resulting
   Bison output files to be licensed under the GNU General Public
   License without this special exception.

   This special exception was added by the Free Software Foundation in
   version 2.2 of Bison.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

#ifndef YY_NR_BUILD_DBG_GEN_PARSER_H_INCLUDED
# define YY_NR_BUILD_DBG_GEN_PARSER_H_INCLUDED
/* Debug traces.  */
#ifndef NRDEBUG
# if defined YYDEBUG
#if YYDEBUG
#   define NRDEBUG 1
#  else
#   define NRDEBUG 0
#  endif
# else /* ! defined YYDEBUG */
#  define NRDEBUG 0
# endif /* ! defined YYDEBUG */
#endif  /* ! defined NRDEBUG */
#if NRDEBUG
extern int nrdebug;
#endif
/* "%code requires" blocks.  */
#line 36 "lang/parser.y"

#include "lang/parse_ctx.h"

#line 61 "build-dbg/gen/parser.h"

/* Token kinds.  */
#ifndef NRTOKENTYPE
# define NRTOKENTYPE
  enum nrtokentype
  {
    NREMPTY = -2,
    NREOF = 0,                     /* "end of file"  */
    NRerror = 256,                 /* error  */
    NRUNDEF = 257,                 /* "invalid token"  */
    NAME = 258,                    /* "name"  */
    INT = 259,                     /* "integer literal"  */
    FLOAT = 260,                   /* "float literal"  */
    STRING = 261,                  /* "string literal"  */
    NEWLINE = 262,                 /* "end of line"  */
    INDENT = 263,                  /* "indent"  */
    DEDENT = 264,                  /* "dedent"  */
    AUGASSIGN = 265,               /* "augmented assignment"  */
    POW = 266,                     /* "'**'"  */
    FLOORDIV = 267,                /* "'//'"  */
    LSHIFT = 268,                  /* "'<<'"  */
    RSHIFT = 269,                  /* "'>>'"  */
    LE = 270,                      /* "'<='"  */
    GE = 271,                      /* "'>='"  */
    EQ = 272,                      /* "'=='"  */
    NE = 273,                      /* "'!='"  */
    ARROW = 274,                   /* "'->'"  */
    DEF = 275,                     /* "'def'"  */
    RETURN = 276,                  /* "'return'"  */
    IF = 277,                      /* "'if'"  */
    ELIF = 278,                    /* "'elif'"  */
    ELSE = 279,                    /* "'else'"  */
    FOR = 280,                     /* "'for'"  */
    IN = 281,                      /* "'in'"  */
    WHILE = 282,                   /* "'while'"  */
    BREAK = 283,                   /* "'break'"  */
    CONTINUE = 284,                /* "'continue'"  */
    PASS = 285,                    /* "'pass'"  */
    AND = 286,                     /* "'and'"  */
    OR = 287,                      /* "'or'"  */
    NOT = 288,                     /* "'not'"  */
    IS = 289,                      /* "'is'"  */
    TRUE = 290,                    /* "'True'"  */
    FALSE = 291,                   /* "'False'"  */
    NONE = 292,                    /* "'None'"  */
    IMPORT = 293,                  /* "'import'"  */
    FROM = 294,                    /* "'from'"  */
    AS = 295,                      /* "'as'"  */
    ASSERT = 296,                  /* "'assert'"  */
    GLOBAL = 297,                  /* "'global'"  */
    NONLOCAL = 298,                /* "'nonlocal'"  */
    WITH = 299                     /* "'with'"  */
  };
  typedef enum nrtokentype nrtoken_kind_t;
#endif

/* Value type.  */
#if ! defined NRSTYPE && ! defined NRSTYPE_IS_DECLARED
typedef SemVal NRSTYPE;
# define NRSTYPE_IS_TRIVIAL 1
# define NRSTYPE_IS_DECLARED 1
#endif

/* Location type.  */
typedef Loc NRLTYPE;




int nrparse (ParseCtx *ctx);

/* "%code provides" blocks.  */
#line 40 "lang/parser.y"

int nrlex(SemVal *lval, Loc *lloc, ParseCtx *ctx);
void nrerror(Loc *lloc, ParseCtx *ctx, const char *msg);

#line 139 "build-dbg/gen/parser.h"

#endif /* !YY_NR_BUILD_DBG_GEN_PARSER_H_INCLUDED  */
