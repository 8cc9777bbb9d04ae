/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison implementation for Yacc-like parsers in C

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

/* C LALR(1) parser skeleton written by Richard Stallman, by
   simplifying the original so-called "semantic" parser.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

/* All symbols defined below should begin with yy or YY, to avoid
   infringing on user name space.  This should be done even for local
   variables, as they might otherwise be expanded by user macros.
   There are some unavoidable exceptions within include files to
   define necessary library symbols; they are noted "INFRINGES ON
   USER NAME SPACE" below.  */

/* Identify Bison output, and Bison version.  */
#define YYBISON 30802

/* Bison version string.  */
#define YYBISON_VERSION "3.8.2"

/* Skeleton name.  */
#define YYSKELETON_NAME "yacc.c"

/* Pure parsers.  */
#define YYPURE 2

/* Push parsers.  */
#define YYPUSH 0

/* Pull parsers.  */
#define YYPULL 1

/* Substitute the type names.  */
#define YYSTYPE         NRSTYPE
#define YYLTYPE         NRLTYPE
/* Substitute the variable and function names.  */
#define yyparse         nrparse
#define yylex           nrlex
#define yyerror         nrerror
#define yydebug         nrdebug
#define yynerrs         nrnerrs


# ifndef YY_CAST
#  ifdef __cplusplus
#   define YY_CAST(Type, Val) static_cast<Type> (Val)
#   define YY_REINTERPRET_CAST(Type, Val) reinterpret_cast<Type> (Val)
#  else
#   define YY_CAST(Type, Val) ((Type) (Val))
#   define YY_REINTERPRET_CAST(Type, Val) ((Type) (Val))
#  endif
# endif
# ifndef YY_NULLPTR
#  if defined __cplusplus
#   if 201103L <= __cplusplus
#    define YY_NULLPTR nullptr
#   else
#    define YY_NULLPTR 0
#   endif
#  else
#   define YY_NULLPTR ((void*)0)
#  endif
# endif

#include "parser.h"
/* Symbol kind.  */
enum yysymbol_kind_t
{
  YYSYMBOL_YYEMPTY = -2,
  YYSYMBOL_YYEOF = 0,                      /* "end of file"  */
  YYSYMBOL_YYerror = 1,                    /* error  */
  YYSYMBOL_YYUNDEF = 2,                    /* "invalid token"  */
  YYSYMBOL_NAME = 3,                       /* "name"  */
  YYSYMBOL_INT = 4,                        /* "integer literal"  */
  YYSYMBOL_FLOAT = 5,                      /* "float literal"  */
  YYSYMBOL_STRING = 6,                     /* "string literal"  */
  YYSYMBOL_NEWLINE = 7,                    /* "end of line"  */
  YYSYMBOL_INDENT = 8,                     /* "indent"  */
  YYSYMBOL_DEDENT = 9,                     /* "dedent"  */
  YYSYMBOL_AUGASSIGN = 10,                 /* "augmented assignment"  */
  YYSYMBOL_POW = 11,                       /* "'**'"  */
  YYSYMBOL_FLOORDIV = 12,                  /* "'//'"  */
  YYSYMBOL_LSHIFT = 13,                    /* "'<<'"  */
  YYSYMBOL_RSHIFT = 14,                    /* "'>>'"  */
  YYSYMBOL_LE = 15,                        /* "'<='"  */
  YYSYMBOL_GE = 16,                        /* "'>='"  */
  YYSYMBOL_EQ = 17,                        /* "'=='"  */
  YYSYMBOL_NE = 18,                        /* "'!='"  */
  YYSYMBOL_ARROW = 19,                     /* "'->'"  */
  YYSYMBOL_DEF = 20,                       /* "'def'"  */
  YYSYMBOL_RETURN = 21,                    /* "'return'"  */
  YYSYMBOL_IF = 22,                        /* "'if'"  */
  YYSYMBOL_ELIF = 23,                      /* "'elif'"  */
  YYSYMBOL_ELSE = 24,                      /* "'else'"  */
  YYSYMBOL_FOR = 25,                       /* "'for'"  */
  YYSYMBOL_IN = 26,                        /* "'in'"  */
  YYSYMBOL_WHILE = 27,                     /* "'while'"  */
  YYSYMBOL_BREAK = 28,                     /* "'break'"  */
  YYSYMBOL_CONTINUE = 29,                  /* "'continue'"  */
  YYSYMBOL_PASS = 30,                      /* "'pass'"  */
  YYSYMBOL_AND = 31,                       /* "'and'"  */
  YYSYMBOL_OR = 32,                        /* "'or'"  */
  YYSYMBOL_NOT = 33,                       /* "'not'"  */
  YYSYMBOL_IS = 34,                        /* "'is'"  */
  YYSYMBOL_TRUE = 35,                      /* "'True'"  */
  YYSYMBOL_FALSE = 36,                     /* "'False'"  */
  YYSYMBOL_NONE = 37,                      /* "'None'"  */
  YYSYMBOL_IMPORT = 38,                    /* "'import'"  */
  YYSYMBOL_FROM = 39,                      /* "'from'"  */
  YYSYMBOL_AS = 40,                        /* "'as'"  */
  YYSYMBOL_ASSERT = 41,                    /* "'assert'"  */
  YYSYMBOL_GLOBAL = 42,                    /* "'global'"  */
  YYSYMBOL_NONLOCAL = 43,                  /* "'nonlocal'"  */
  YYSYMBOL_WITH = 44,                      /* "'with'"  */
  YYSYMBOL_45_ = 45,                       /* ';'  */
  YYSYMBOL_46_ = 46,                       /* ':'  */
  YYSYMBOL_47_ = 47,                       /* '='  */
  YYSYMBOL_48_ = 48,                       /* ','  */
  YYSYMBOL_49_ = 49,                       /* '*'  */
  YYSYMBOL_50_ = 50,                       /* '('  */
  YYSYMBOL_51_ = 51,                       /* ')'  */
  YYSYMBOL_52_ = 52,                       /* '.'  */
  YYSYMBOL_53_ = 53,                       /* '@'  */
  YYSYMBOL_54_ = 54,                       /* '<'  */
  YYSYMBOL_55_ = 55,                       /* '>'  */
  YYSYMBOL_56_ = 56,                       /* '|'  */
  YYSYMBOL_57_ = 57,                       /* '^'  */
  YYSYMBOL_58_ = 58,                       /* '&'  */
  YYSYMBOL_59_ = 59,                       /* '+'  */
  YYSYMBOL_60_ = 60,                       /* '-'  */
  YYSYMBOL_61_ = 61,                       /* '/'  */
  YYSYMBOL_62_ = 62,                       /* '%'  */
  YYSYMBOL_63_ = 63,                       /* '~'  */
  YYSYMBOL_64_ = 64,                       /* '['  */
  YYSYMBOL_65_ = 65,                       /* ']'  */
  YYSYMBOL_YYACCEPT = 66,                  /* $accept  */
  YYSYMBOL_file = 67,                      /* file  */
  YYSYMBOL_stmt = 68,                      /* stmt  */
  YYSYMBOL_stmts = 69,                     /* stmts  */
  YYSYMBOL_simple_stmt = 70,               /* simple_stmt  */
  YYSYMBOL_small_stmts = 71,               /* small_stmts  */
  YYSYMBOL_small_stmt = 72,                /* small_stmt  */
  YYSYMBOL_expr_stmt = 73,                 /* expr_stmt  */
  YYSYMBOL_assign_chain = 74,              /* assign_chain  */
  YYSYMBOL_return_stmt = 75,               /* return_stmt  */
  YYSYMBOL_import_stmt = 76,               /* import_stmt  */
  YYSYMBOL_import_names = 77,              /* import_names  */
  YYSYMBOL_import_name = 78,               /* import_name  */
  YYSYMBOL_import_list = 79,               /* import_list  */
  YYSYMBOL_import_items = 80,              /* import_items  */
  YYSYMBOL_import_item = 81,               /* import_item  */
  YYSYMBOL_global_stmt = 82,               /* global_stmt  */
  YYSYMBOL_name_list = 83,                 /* name_list  */
  YYSYMBOL_assert_stmt = 84,               /* assert_stmt  */
  YYSYMBOL_dotted = 85,                    /* dotted  */
  YYSYMBOL_annotation = 86,                /* annotation  */
  YYSYMBOL_compound_stmt = 87,             /* compound_stmt  */
  YYSYMBOL_suite = 88,                     /* suite  */
  YYSYMBOL_if_stmt = 89,                   /* if_stmt  */
  YYSYMBOL_elifs = 90,                     /* elifs  */
  YYSYMBOL_else_part = 91,                 /* else_part  */
  YYSYMBOL_while_stmt = 92,                /* while_stmt  */
  YYSYMBOL_for_stmt = 93,                  /* for_stmt  */
  YYSYMBOL_for_targets = 94,               /* for_targets  */
  YYSYMBOL_for_list = 95,                  /* for_list  */
  YYSYMBOL_for_item = 96,                  /* for_item  */
  YYSYMBOL_with_stmt = 97,                 /* with_stmt  */
  YYSYMBOL_decorated = 98,                 /* decorated  */
  YYSYMBOL_decorators = 99,                /* decorators  */
  YYSYMBOL_decorator = 100,                /* decorator  */
  YYSYMBOL_funcdef = 101,                  /* funcdef  */
  YYSYMBOL_ret_ann = 102,                  /* ret_ann  */
  YYSYMBOL_params = 103,                   /* params  */
  YYSYMBOL_param_list = 104,               /* param_list  */
  YYSYMBOL_param = 105,                    /* param  */
  YYSYMBOL_testlist_star = 106,            /* testlist_star  */
  YYSYMBOL_exprlist = 107,                 /* exprlist  */
  YYSYMBOL_star_or_test = 108,             /* star_or_test  */
  YYSYMBOL_test = 109,                     /* test  */
  YYSYMBOL_or_test = 110,                  /* or_test  */
  YYSYMBOL_or_chain = 111,                 /* or_chain  */
  YYSYMBOL_and_test = 112,                 /* and_test  */
  YYSYMBOL_and_chain = 113,                /* and_chain  */
  YYSYMBOL_not_test = 114,                 /* not_test  */
  YYSYMBOL_comparison = 115,               /* comparison  */
  YYSYMBOL_cmp_chain = 116,                /* cmp_chain  */
  YYSYMBOL_cmp_op = 117,                   /* cmp_op  */
  YYSYMBOL_bitor = 118,                    /* bitor  */
  YYSYMBOL_bitxor = 119,                   /* bitxor  */
  YYSYMBOL_bitand = 120,                   /* bitand  */
  YYSYMBOL_shift = 121,                    /* shift  */
  YYSYMBOL_arith = 122,                    /* arith  */
  YYSYMBOL_term = 123,                     /* term  */
  YYSYMBOL_factor = 124,                   /* factor  */
  YYSYMBOL_power = 125,                    /* power  */
  YYSYMBOL_primary = 126,                  /* primary  */
  YYSYMBOL_atom = 127,                     /* atom  */
  YYSYMBOL_arglist = 128,                  /* arglist  */
  YYSYMBOL_arg = 129,                      /* arg  */
  YYSYMBOL_subscripts = 130,               /* subscripts  */
  YYSYMBOL_subscript = 131,                /* subscript  */
  YYSYMBOL_slice = 132,                    /* slice  */
  YYSYMBOL_opt_test = 133                  /* opt_test  */
};
typedef enum yysymbol_kind_t yysymbol_kind_t;



/* Unqualified %code blocks.  */
#line 45 "lang/parser.y"

/* A valid program is far shallower than this (blocks 100, brackets 200, expression
 * height 1000, a few stack entries each); a hostile one ends in "memory exhausted",
 * which nrerror turns into a nesting error, instead of exhausting memory. */
#define YYMAXDEPTH 20000
/* A rule's location is its first token's (empty rules: the preceding symbol's). */
#define YYLLOC_DEFAULT(Cur, Rhs, N) ((Cur) = (N) ? YYRHSLOC(Rhs, 1) : YYRHSLOC(Rhs, 0))

#line 253 "build-dbg/gen/parser.c"

#ifdef short
# undef short
#endif

/* On compilers that do not define __PTRDIFF_MAX__ etc., make sure
   <limits.h> and (if available) <stdint.h> are included
   so that the code can choose integer types of a good width.  */

#ifndef __PTRDIFF_MAX__
# include <limits.h> /* INFRINGES ON USER NAME SPACE */
# if defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stdint.h> /* INFRINGES ON USER NAME SPACE */
#  define YY_STDINT_H
# endif
#endif

/* Narrow types that promote to a signed type and that can represent a
   signed or unsigned integer of at least N bits.  In tables they can
   save space and decrease cache pressure.  Promoting to a signed type
   helps avoid bugs in integer arithmetic.  */

#ifdef __INT_LEAST8_MAX__
typedef __INT_LEAST8_TYPE__ yytype_int8;
#elif defined YY_STDINT_H
typedef int_least8_t yytype_int8;
#else
typedef signed char yytype_int8;
#endif

#ifdef __INT_LEAST16_MAX__
typedef __INT_LEAST16_TYPE__ yytype_int16;
#elif defined YY_STDINT_H
typedef int_least16_t yytype_int16;
#else
typedef short yytype_int16;
#endif

/* Work around bug in HP-UX 11.23, which defines these macros
   incorrectly for preprocessor constants.  This workaround can likely
   be removed in 2023, as HPE has promised support for HP-UX 11.23
   (aka HP-UX 11i v2) only through the end of 2022; see Table 2 of
   <https://h20195.www2.hpe.com/V2/getpdf.aspx/4AA4-7673ENW.pdf>.  */
#ifdef __hpux
# undef UINT_LEAST8_MAX
# undef UINT_LEAST16_MAX
# define UINT_LEAST8_MAX 255
# define UINT_LEAST16_MAX 65535
#endif

#if defined __UINT_LEAST8_MAX__ && __UINT_LEAST8_MAX__ <= __INT_MAX__
typedef __UINT_LEAST8_TYPE__ yytype_uint8;
#elif (!defined __UINT_LEAST8_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST8_MAX <= INT_MAX)
typedef uint_least8_t yytype_uint8;
#elif !defined __UINT_LEAST8_MAX__ && UCHAR_MAX <= INT_MAX
typedef unsigned char yytype_uint8;
#else
typedef short yytype_uint8;
#endif

#if defined __UINT_LEAST16_MAX__ && __UINT_LEAST16_MAX__ <= __INT_MAX__
typedef __UINT_LEAST16_TYPE__ yytype_uint16;
#elif (!defined __UINT_LEAST16_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST16_MAX <= INT_MAX)
typedef uint_least16_t yytype_uint16;
#elif !defined __UINT_LEAST16_MAX__ && USHRT_MAX <= INT_MAX
typedef unsigned short yytype_uint16;
#else
typedef int yytype_uint16;
#endif

#ifndef YYPTRDIFF_T
# if defined __PTRDIFF_TYPE__ && defined __PTRDIFF_MAX__
#  define YYPTRDIFF_T __PTRDIFF_TYPE__
#  define YYPTRDIFF_MAXIMUM __PTRDIFF_MAX__
# elif defined PTRDIFF_MAX
#  ifndef ptrdiff_t
#   include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  endif
#  define YYPTRDIFF_T ptrdiff_t
#  define YYPTRDIFF_MAXIMUM PTRDIFF_MAX
# else
#  define YYPTRDIFF_T long
#  define YYPTRDIFF_MAXIMUM LONG_MAX
# endif
#endif

#ifndef YYSIZE_T
# ifdef __SIZE_TYPE__
#  define YYSIZE_T __SIZE_TYPE__
# elif defined size_t
#  define YYSIZE_T size_t
# elif defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  define YYSIZE_T size_t
# else
#  define YYSIZE_T unsigned
# endif
#endif

#define YYSIZE_MAXIMUM                                  \
  YY_CAST (YYPTRDIFF_T,                                 \
           (YYPTRDIFF_MAXIMUM < YY_CAST (YYSIZE_T, -1)  \
            ? YYPTRDIFF_MAXIMUM                         \
            : YY_CAST (YYSIZE_T, -1)))

#define YYSIZEOF(X) YY_CAST (YYPTRDIFF_T, sizeof (X))


/* Stored state numbers (used for stacks). */
typedef yytype_int16 yy_state_t;

/* State numbers in computations.  */
typedef int yy_state_fast_t;

#ifndef YY_
# if defined YYENABLE_NLS && YYENABLE_NLS
#  if ENABLE_NLS
#   include <libintl.h> /* INFRINGES ON USER NAME SPACE */
#   define YY_(Msgid) dgettext ("bison-runtime", Msgid)
#  endif
# endif
# ifndef YY_
#  define YY_(Msgid) Msgid
# endif
#endif


#ifndef YY_ATTRIBUTE_PURE
# if defined __GNUC__ && 2 < __GNUC__ + (96 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_PURE __attribute__ ((__pure__))
# else
#  define YY_ATTRIBUTE_PURE
# endif
#endif

#ifndef YY_ATTRIBUTE_UNUSED
# if defined __GNUC__ && 2 < __GNUC__ + (7 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_UNUSED __attribute__ ((__unused__))
# else
#  define YY_ATTRIBUTE_UNUSED
# endif
#endif

/* Suppress unused-variable warnings by "using" E.  */
#if ! defined lint || defined __GNUC__
# define YY_USE(E) ((void) (E))
#else
# define YY_USE(E) /* empty */
#endif

/* Suppress an incorrect diagnostic about yylval being uninitialized.  */
#if defined __GNUC__ && ! defined __ICC && 406 <= __GNUC__ * 100 + __GNUC_MINOR__
# if __GNUC__ * 100 + __GNUC_MINOR__ < 407
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")
# else
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")              \
    _Pragma ("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
# endif
# define YY_IGNORE_MAYBE_UNINITIALIZED_END      \
    _Pragma ("GCC diagnostic pop")
#else
# define YY_INITIAL_VALUE(Value) Value
#endif
#ifndef YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_END
#endif
#ifndef YY_INITIAL_VALUE
# define YY_INITIAL_VALUE(Value) /* Nothing. */
#endif

#if defined __cplusplus && defined __GNUC__ && ! defined __ICC && 6 <= __GNUC__
# define YY_IGNORE_USELESS_CAST_BEGIN                          \
    _Pragma ("GCC diagnostic push")                            \
    _Pragma ("GCC diagnostic ignored \"-Wuseless-cast\"")
# define YY_IGNORE_USELESS_CAST_END            \
    _Pragma ("GCC diagnostic pop")
#endif
#ifndef YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_END
#endif


#define YY_ASSERT(E) ((void) (0 && (E)))

#if 1

/* The parser invokes alloca or malloc; define the necessary symbols.  */

# ifdef YYSTACK_ALLOC
   /* Pacify GCC's 'empty if-body' warning.  */
#  define YYSTACK_FREE(Ptr) do { /* empty */; } while (0)
#  ifndef YYSTACK_ALLOC_MAXIMUM
    /* The OS might guarantee only one guard page at the bottom of the stack,
       and a page size can be as small as 4096 bytes.  So we cannot safely
       invoke alloca (N) if N exceeds 4096.  Use a slightly smaller number
       to allow for a few compiler-allocated temporary stack slots.  */
#   define YYSTACK_ALLOC_MAXIMUM 4032 /* reasonable circa 2006 */
#  endif
# else
#  define YYSTACK_ALLOC YYMALLOC
#  define YYSTACK_FREE YYFREE
#  ifndef YYSTACK_ALLOC_MAXIMUM
#   define YYSTACK_ALLOC_MAXIMUM YYSIZE_MAXIMUM
#  endif
#  if (defined __cplusplus && ! defined EXIT_SUCCESS \
       && ! ((defined YYMALLOC || defined malloc) \
             && (defined YYFREE || defined free)))
#   include <stdlib.h> /* INFRINGES ON USER NAME SPACE */
#   ifndef EXIT_SUCCESS
#    define EXIT_SUCCESS 0
#   endif
#  endif
#  ifndef YYMALLOC
#   define YYMALLOC malloc
#   if ! defined malloc && ! defined EXIT_SUCCESS
void *malloc (YYSIZE_T); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
#  ifndef YYFREE
#   define YYFREE free
#   if ! defined free && ! defined EXIT_SUCCESS
void free (void *); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
# endif
# define YYCOPY_NEEDED 1
#endif /* 1 */

#if (! defined yyoverflow \
     && (! defined __cplusplus \
         || (defined NRLTYPE_IS_TRIVIAL && NRLTYPE_IS_TRIVIAL \
             && defined NRSTYPE_IS_TRIVIAL && NRSTYPE_IS_TRIVIAL)))

/* A type that is properly aligned for any stack member.  */
union yyalloc
{
  yy_state_t yyss_alloc;
  YYSTYPE yyvs_alloc;
  YYLTYPE yyls_alloc;
};

/* The size of the maximum gap between one aligned stack and the next.  */
# define YYSTACK_GAP_MAXIMUM (YYSIZEOF (union yyalloc) - 1)

/* The size of an array large to enough to hold all stacks, each with
   N elements.  */
# define YYSTACK_BYTES(N) \
     ((N) * (YYSIZEOF (yy_state_t) + YYSIZEOF (YYSTYPE) \
             + YYSIZEOF (YYLTYPE)) \
      + 2 * YYSTACK_GAP_MAXIMUM)

# define YYCOPY_NEEDED 1

/* Relocate STACK from its old location to the new one.  The
   local variables YYSIZE and YYSTACKSIZE give the old and new number of
   elements in the stack, and YYPTR gives the new location of the
   stack.  Advance YYPTR to a properly aligned location for the next
   stack.  */
# define YYSTACK_RELOCATE(Stack_alloc, Stack)                           \
    do                                                                  \
      {                                                                 \
        YYPTRDIFF_T yynewbytes;                                         \
        YYCOPY (&yyptr->Stack_alloc, Stack, yysize);                    \
        Stack = &yyptr->Stack_alloc;                                    \
        yynewbytes = yystacksize * YYSIZEOF (*Stack) + YYSTACK_GAP_MAXIMUM; \
        yyptr += yynewbytes / YYSIZEOF (*yyptr);                        \
      }                                                                 \
    while (0)

#endif

#if defined YYCOPY_NEEDED && YYCOPY_NEEDED
/* Copy COUNT objects from SRC to DST.  The source and destination do
   not overlap.  */
# ifndef YYCOPY
#  if defined __GNUC__ && 1 < __GNUC__
#   define YYCOPY(Dst, Src, Count) \
      __builtin_memcpy (Dst, Src, YY_CAST (YYSIZE_T, (Count)) * sizeof (*(Src)))
#  else
#   define YYCOPY(Dst, Src, Count)              \
      do                                        \
        {                                       \
          YYPTRDIFF_T yyi;                      \
          for (yyi = 0; yyi < (Count); yyi++)   \
            (Dst)[yyi] = (Src)[yyi];            \
        }                                       \
      while (0)
#  endif
# endif
#endif /* !YYCOPY_NEEDED */

/* YYFINAL -- State number of the termination state.  */
#define YYFINAL  2
/* YYLAST -- Last index in YYTABLE.  */
#define YYLAST   626

/* YYNTOKENS -- Number of terminals.  */
#define YYNTOKENS  66
/* YYNNTS -- Number of nonterminals.  */
#define YYNNTS  68
/* YYNRULES -- Number of rules.  */
#define YYNRULES  181
/* YYNSTATES -- Number of states.  */
#define YYNSTATES  293

/* YYMAXUTOK -- Last valid token kind.  */
#define YYMAXUTOK   299


/* YYTRANSLATE(TOKEN-NUM) -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex, with out-of-bounds checking.  */
#define YYTRANSLATE(YYX)                                \
  (0 <= (YYX) && (YYX) <= YYMAXUTOK                     \
   ? YY_CAST (yysymbol_kind_t, yytranslate[YYX])        \
   : YYSYMBOL_YYUNDEF)

/* YYTRANSLATE[TOKEN-NUM] -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex.  */
static const yytype_int8 yytranslate[] =
{
       0,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,    62,    58,     2,
      50,    51,    49,    59,    48,    60,    52,    61,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,    46,    45,
      54,    47,    55,     2,    53,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,    64,     2,    65,    57,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,    56,     2,    63,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     1,     2,     3,     4,
       5,     6,     7,     8,     9,    10,    11,    12,    13,    14,
      15,    16,    17,    18,    19,    20,    21,    22,    23,    24,
      25,    26,    27,    28,    29,    30,    31,    32,    33,    34,
      35,    36,    37,    38,    39,    40,    41,    42,    43,    44
};

#if NRDEBUG
/* YYRLINE[YYN] -- Source line where rule number YYN was defined.  */
static const yytype_int16 yyrline[] =
{
       0,    89,    89,    90,    94,    95,    99,   100,   104,   105,
     109,   110,   114,   115,   116,   117,   118,   119,   120,   121,
     125,   126,   127,   128,   129,   133,   134,   138,   139,   143,
     144,   148,   149,   153,   154,   158,   159,   160,   161,   165,
     166,   170,   171,   175,   176,   180,   181,   185,   186,   190,
     191,   195,   196,   197,   201,   202,   203,   204,   205,   206,
     210,   211,   215,   219,   220,   224,   225,   229,   233,   237,
     238,   242,   243,   247,   248,   252,   253,   257,   261,   262,
     266,   270,   275,   276,   280,   281,   282,   286,   287,   291,
     292,   293,   294,   300,   301,   305,   306,   310,   311,   315,
     316,   320,   321,   325,   326,   330,   331,   335,   336,   340,
     341,   345,   346,   350,   351,   355,   356,   357,   358,   359,
     360,   361,   362,   363,   364,   368,   369,   373,   374,   378,
     379,   383,   384,   385,   389,   390,   391,   395,   396,   397,
     398,   399,   400,   404,   405,   406,   407,   411,   412,   416,
     417,   418,   419,   420,   421,   422,   426,   427,   428,   429,
     430,   431,   432,   433,   434,   435,   436,   437,   438,   442,
     443,   447,   448,   449,   453,   454,   458,   459,   463,   464,
     468,   469
};
#endif

/** Accessing symbol of state STATE.  */
#define YY_ACCESSING_SYMBOL(State) YY_CAST (yysymbol_kind_t, yystos[State])

#if 1
/* The user-facing name of the symbol whose (internal) number is
   YYSYMBOL.  No bounds checking.  */
static const char *yysymbol_name (yysymbol_kind_t yysymbol) YY_ATTRIBUTE_UNUSED;

static const char *
yysymbol_name (yysymbol_kind_t yysymbol)
{
  static const char *const yy_sname[] =
  {
  "end of file", "error", "invalid token", "name", "integer literal",
  "float literal", "string literal", "end of line", "indent", "dedent",
  "augmented assignment", "'**'", "'//'", "'<<'", "'>>'", "'<='", "'>='",
  "'=='", "'!='", "'->'", "'def'", "'return'", "'if'", "'elif'", "'else'",
  "'for'", "'in'", "'while'", "'break'", "'continue'", "'pass'", "'and'",
  "'or'", "'not'", "'is'", "'True'", "'False'", "'None'", "'import'",
  "'from'", "'as'", "'assert'", "'global'", "'nonlocal'", "'with'", "';'",
  "':'", "'='", "','", "'*'", "'('", "')'", "'.'", "'@'", "'<'", "'>'",
  "'|'", "'^'", "'&'", "'+'", "'-'", "'/'", "'%'", "'~'", "'['", "']'",
  "$accept", "file", "stmt", "stmts", "simple_stmt", "small_stmts",
  "small_stmt", "expr_stmt", "assign_chain", "return_stmt", "import_stmt",
  "import_names", "import_name", "import_list", "import_items",
  "import_item", "global_stmt", "name_list", "assert_stmt", "dotted",
  "annotation", "compound_stmt", "suite", "if_stmt", "elifs", "else_part",
  "while_stmt", "for_stmt", "for_targets", "for_list", "for_item",
  "with_stmt", "decorated", "decorators", "decorator", "funcdef",
  "ret_ann", "params", "param_list", "param", "testlist_star", "exprlist",
  "star_or_test", "test", "or_test", "or_chain", "and_test", "and_chain",
  "not_test", "comparison", "cmp_chain", "cmp_op", "bitor", "bitxor",
  "bitand", "shift", "arith", "term", "factor", "power", "primary", "atom",
  "arglist", "arg", "subscripts", "subscript", "slice", "opt_test", YY_NULLPTR
  };
  return yy_sname[yysymbol];
}
#endif

#define YYPACT_NINF (-227)

#define yypact_value_is_default(Yyn) \
  ((Yyn) == YYPACT_NINF)

#define YYTABLE_NINF (-182)

#define yytable_value_is_error(Yyn) \
  0

/* YYPACT[STATE-NUM] -- Index in YYTABLE of the portion describing
   STATE-NUM.  */
static const yytype_int16 yypact[] =
{
    -227,    21,  -227,  -227,  -227,  -227,  -227,    13,   494,   514,
     535,   514,  -227,  -227,  -227,   514,  -227,  -227,  -227,    28,
      28,   514,    50,    50,   514,   330,   216,   514,   330,   330,
     330,   123,  -227,  -227,    22,  -227,  -227,    61,  -227,  -227,
    -227,  -227,  -227,  -227,  -227,  -227,  -227,  -227,     8,  -227,
    -227,    -7,    75,  -227,  -227,   103,   107,   110,   118,   122,
    -227,   571,   182,   100,   106,    24,    78,    33,  -227,  -227,
      25,  -227,   120,  -227,   125,   330,   148,   127,  -227,   121,
     132,  -227,  -227,   128,  -227,    -5,    49,   133,  -227,   136,
     136,    57,   121,  -227,    42,   184,  -227,  -227,  -227,  -227,
     -31,  -227,   370,   494,  -227,  -227,   494,    27,   494,   494,
     514,   514,   514,   514,   514,  -227,  -227,  -227,  -227,  -227,
     166,   163,  -227,  -227,   330,   330,   330,   330,   330,   330,
     330,   330,   330,   330,   330,   330,   330,   330,   330,   432,
     202,   514,   203,   411,   121,   494,   535,   411,    28,   204,
     206,    29,   514,   207,   535,   411,   452,  -227,  -227,   130,
    -227,  -227,  -227,  -227,  -227,  -227,    28,   159,   165,  -227,
    -227,   189,  -227,  -227,  -227,  -227,  -227,  -227,   121,   100,
     121,   106,    24,    78,    78,    33,    33,  -227,  -227,  -227,
    -227,  -227,  -227,   167,   514,  -227,  -227,    58,  -227,  -227,
     171,    35,  -227,  -227,   172,    99,   178,   191,  -227,   232,
    -227,  -227,   195,  -227,   218,  -227,  -227,  -227,   205,  -227,
     240,  -227,   199,  -227,  -227,  -227,   200,  -227,  -227,  -227,
     159,   494,   514,   514,  -227,   473,  -227,   198,  -227,   514,
      27,   514,   231,   203,   319,   124,   411,   208,  -227,   253,
      62,   240,   411,  -227,  -227,  -227,  -227,  -227,  -227,  -227,
    -227,   213,   217,  -227,   514,   235,  -227,  -227,   268,   514,
    -227,   218,   411,  -227,     4,  -227,  -227,  -227,   514,   514,
    -227,   411,  -227,  -227,   236,  -227,  -227,  -227,  -227,  -227,
    -227,   411,  -227
};

/* YYDEFACT[STATE-NUM] -- Default reduction number in state STATE-NUM.
   Performed when YYTABLE does not specify something else to do.  Zero
   means the default is an error.  */
static const yytype_uint8 yydefact[] =
{
       2,     0,     1,   156,   157,   158,   159,     0,    27,     0,
       0,     0,    14,    15,    13,     0,   160,   161,   162,     0,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     3,     4,     0,    10,    12,    24,    16,    17,
      18,    19,     5,    54,    55,    56,    57,    59,     0,    78,
      58,    20,    93,    95,    97,    99,   102,   101,   106,   105,
     110,   112,   111,   125,   127,   129,   131,   134,   137,   146,
     147,   149,     0,    28,     0,     0,     0,    69,    71,    73,
       0,   109,    49,    29,    31,    33,     0,    47,    45,    43,
      44,     0,    98,   163,     0,     0,   143,   144,   145,   166,
       0,     8,     0,     0,    79,    77,     0,     0,     0,    94,
       0,     0,     0,     0,     0,   119,   120,   117,   118,   121,
       0,   123,   115,   116,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,   180,    84,     0,    74,     0,    70,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,   164,    80,     0,
     167,     9,    11,    26,    21,    53,     0,    52,    22,    25,
      96,     0,   104,   103,   108,   107,   122,   124,   114,   126,
     113,   128,   130,   132,   133,   135,   136,   140,   138,   142,
     139,   141,   148,   156,     0,   151,   171,     0,   169,   150,
     176,     0,   174,   177,     0,    89,     0,    85,    87,     0,
      60,    63,     0,    72,    65,    32,    34,    50,    41,    35,
       0,    30,    36,    39,    48,    46,     0,    75,   165,   168,
      51,     0,     0,     0,   172,     0,   152,   180,   154,   180,
       0,     0,    82,    86,     0,    65,     0,     0,    67,     0,
       0,     0,     0,    23,   100,   173,   153,   170,   155,   175,
     181,   178,    91,    90,     0,     0,    88,     6,     0,     0,
      62,    65,     0,    42,     0,    37,    40,    76,   180,     0,
      83,     0,    61,     7,     0,    68,    66,    38,   179,    92,
      81,     0,    64
};

/* YYPGOTO[NTERM-NUM].  */
static const yytype_int16 yypgoto[] =
{
    -227,  -227,  -224,  -227,     0,  -227,   176,  -227,  -227,  -227,
    -227,  -227,   135,  -227,    64,  -183,  -227,   262,  -227,   -15,
      46,  -227,  -141,  -227,  -227,  -173,  -227,  -227,  -227,  -227,
     -58,  -227,  -227,  -227,   239,   243,  -227,  -227,  -227,    51,
      -4,    81,   -90,    -9,   190,  -227,    43,  -227,     7,  -227,
    -227,   230,    -2,   174,   175,   180,    32,    37,   -19,  -227,
    -227,  -227,  -227,    79,  -227,    76,  -227,  -226
};

/* YYDEFGOTO[NTERM-NUM].  */
static const yytype_int16 yydefgoto[] =
{
       0,     1,    32,   268,   210,    34,    35,    36,    37,    38,
      39,    83,    84,   221,   222,   223,    40,    89,    41,    85,
     168,    42,   211,    43,   245,   248,    44,    45,    76,    77,
      78,    46,    47,    48,    49,    50,   265,   206,   207,   208,
      51,    52,    53,    54,    55,    56,    57,    58,    59,    60,
      61,   124,    62,    63,    64,    65,    66,    67,    68,    69,
      70,    71,   197,   198,   201,   202,   203,   204
};

/* YYTABLE[YYPACT[STATE-NUM]] -- What to do in state STATE-NUM.  If
   positive, shift that token.  If negative, reduce the rule whose
   number is the opposite.  If YYTABLE_NINF, syntax error.  */
static const yytype_int16 yytable[] =
{
      74,    33,    80,   106,    73,    86,   214,   218,    79,    96,
      97,    98,    87,   261,   227,    91,    72,   159,    95,   170,
     267,     2,    81,    92,     3,     4,     5,     6,     7,   101,
      82,    82,   218,   165,   160,   149,   138,   129,   130,   107,
     108,     7,     8,     9,   283,   133,    10,   150,    11,    12,
      13,    14,   288,    88,    15,   287,    16,    17,    18,    19,
      20,    27,    21,    22,    23,    24,   170,   102,   276,   170,
      25,    26,   270,   144,    27,   139,   166,   140,   219,   220,
      28,    29,   134,   237,    30,    31,   135,   151,   213,   141,
     156,   276,   167,   157,   136,   137,   226,   154,   285,   163,
     238,   150,   164,   155,   169,   271,   235,    94,   103,   236,
     274,   277,   100,   275,   187,   188,   189,   190,   191,   192,
     174,   175,   178,   109,   180,   110,     3,     4,     5,     6,
     196,   286,   200,     3,     4,     5,     6,   131,   132,   111,
     290,   212,   112,   224,    79,   240,   241,   269,   247,   113,
     292,   230,    79,   114,   172,   173,    15,   127,    16,    17,
      18,   183,   184,    15,   128,    16,    17,    18,   185,   186,
     142,   143,    25,    26,   145,   146,   148,   125,   147,    25,
      26,   152,    28,    29,   153,   234,    30,    31,    99,    28,
      29,   158,   176,    30,    31,   229,   177,   115,   116,   117,
     118,     3,     4,     5,     6,   199,   205,   216,   119,   217,
     225,   150,   231,   232,   233,   120,   121,  -181,   239,     3,
       4,     5,     6,   254,   255,   167,   196,   253,   200,   242,
     260,    15,   263,    16,    17,    18,   122,   123,   125,   243,
     244,   246,   247,   218,    33,   249,   252,   251,    26,    15,
     264,    16,    17,    18,   272,   280,   273,    28,    29,   278,
     284,    30,    31,   258,   279,    25,    26,    93,    33,   260,
     289,     3,     4,     5,     6,    28,    29,   282,   162,    30,
      31,   281,   291,   215,   250,    90,   262,   104,     7,     8,
       9,   105,   126,    10,   266,    11,    12,    13,    14,   179,
     171,    15,   181,    16,    17,    18,    19,    20,   182,    21,
      22,    23,    24,   259,   257,     0,     0,    25,    26,     0,
       0,    27,     3,     4,     5,     6,     0,    28,    29,     0,
       0,    30,    31,     3,     4,     5,     6,     0,     0,     7,
       8,     9,     0,     0,    10,     0,    11,    12,    13,    14,
       0,     0,    15,     0,    16,    17,    18,    19,    20,     0,
      21,    22,    23,    24,     0,    16,    17,    18,    25,    26,
       0,     0,    27,     3,     4,     5,     6,   161,    28,    29,
      26,     0,    30,    31,     0,     0,     0,     0,     0,    28,
      29,     8,     0,    30,    31,     0,     0,     0,    12,    13,
      14,     0,     0,    15,     0,    16,    17,    18,    19,    20,
       0,    21,    22,    23,     3,     4,     5,     6,   209,    25,
      26,     0,     0,     0,     0,     0,     0,     0,     0,    28,
      29,     0,     8,    30,    31,   193,     4,     5,     6,    12,
      13,    14,     0,     0,    15,     0,    16,    17,    18,    19,
      20,     0,    21,    22,    23,     3,     4,     5,     6,     0,
      25,    26,     0,     0,     0,    15,     0,    16,    17,    18,
      28,    29,     0,     0,    30,    31,   193,     4,     5,     6,
       0,   194,    26,   195,     0,    15,     0,    16,    17,    18,
       0,    28,    29,     0,     0,    30,    31,     3,     4,     5,
       6,    25,    26,   228,     0,     0,    15,     0,    16,    17,
      18,    28,    29,     0,     0,    30,    31,     3,     4,     5,
       6,     0,   194,    26,   256,     0,     0,    15,     0,    16,
      17,    18,    28,    29,     0,     0,    30,    31,     3,     4,
       5,     6,     0,    25,    26,     0,     0,    15,     0,    16,
      17,    18,     0,    28,    29,     0,     0,    30,    31,     0,
       0,     0,     0,     0,    26,     0,     0,     0,     0,     0,
      16,    17,    18,    28,    29,     0,     0,    30,    31,     0,
       0,     0,     0,     0,    75,    26,   115,   116,   117,   118,
       0,     0,     0,     0,    28,    29,     0,   119,    30,    31,
       0,     0,     0,     0,   120,   121,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,     0,   122,   123
};

static const yytype_int16 yycheck[] =
{
       9,     1,    11,    10,     8,    20,   147,     3,    10,    28,
      29,    30,    21,   239,   155,    24,     3,    48,    27,   109,
     244,     0,    15,    25,     3,     4,     5,     6,    20,     7,
       3,     3,     3,     6,    65,    40,    11,    13,    14,    46,
      47,    20,    21,    22,   268,    12,    25,    52,    27,    28,
      29,    30,   278,     3,    33,    51,    35,    36,    37,    38,
      39,    53,    41,    42,    43,    44,   156,    45,   251,   159,
      49,    50,   245,    75,    53,    50,    49,    52,    49,    50,
      59,    60,    49,    48,    63,    64,    53,    38,   146,    64,
      48,   274,   107,    51,    61,    62,   154,    40,   271,   103,
      65,    52,   106,    46,   108,   246,    48,    26,    47,    51,
      48,   252,    31,    51,   133,   134,   135,   136,   137,   138,
     113,   114,   124,    48,   126,    22,     3,     4,     5,     6,
     139,   272,   141,     3,     4,     5,     6,    59,    60,    32,
     281,   145,    32,   152,   146,    46,    47,    23,    24,    31,
     291,   166,   154,    31,   111,   112,    33,    57,    35,    36,
      37,   129,   130,    33,    58,    35,    36,    37,   131,   132,
      50,    46,    49,    50,    26,    48,    48,    56,    46,    49,
      50,    48,    59,    60,    48,   194,    63,    64,    65,    59,
      60,     7,    26,    63,    64,    65,    33,    15,    16,    17,
      18,     3,     4,     5,     6,     3,     3,     3,    26,     3,
       3,    52,    47,    24,    47,    33,    34,    46,    46,     3,
       4,     5,     6,   232,   233,   240,   235,   231,   237,    51,
     239,    33,   241,    35,    36,    37,    54,    55,    56,    48,
       8,    46,    24,     3,   244,    40,    46,    48,    50,    33,
      19,    35,    36,    37,    46,   264,     3,    59,    60,    46,
     269,    63,    64,    65,    47,    49,    50,    51,   268,   278,
     279,     3,     4,     5,     6,    59,    60,     9,   102,    63,
      64,    46,    46,   148,   220,    23,   240,    48,    20,    21,
      22,    48,    62,    25,   243,    27,    28,    29,    30,   125,
     110,    33,   127,    35,    36,    37,    38,    39,   128,    41,
      42,    43,    44,   237,   235,    -1,    -1,    49,    50,    -1,
      -1,    53,     3,     4,     5,     6,    -1,    59,    60,    -1,
      -1,    63,    64,     3,     4,     5,     6,    -1,    -1,    20,
      21,    22,    -1,    -1,    25,    -1,    27,    28,    29,    30,
      -1,    -1,    33,    -1,    35,    36,    37,    38,    39,    -1,
      41,    42,    43,    44,    -1,    35,    36,    37,    49,    50,
      -1,    -1,    53,     3,     4,     5,     6,     7,    59,    60,
      50,    -1,    63,    64,    -1,    -1,    -1,    -1,    -1,    59,
      60,    21,    -1,    63,    64,    -1,    -1,    -1,    28,    29,
      30,    -1,    -1,    33,    -1,    35,    36,    37,    38,    39,
      -1,    41,    42,    43,     3,     4,     5,     6,     7,    49,
      50,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    59,
      60,    -1,    21,    63,    64,     3,     4,     5,     6,    28,
      29,    30,    -1,    -1,    33,    -1,    35,    36,    37,    38,
      39,    -1,    41,    42,    43,     3,     4,     5,     6,    -1,
      49,    50,    -1,    -1,    -1,    33,    -1,    35,    36,    37,
      59,    60,    -1,    -1,    63,    64,     3,     4,     5,     6,
      -1,    49,    50,    51,    -1,    33,    -1,    35,    36,    37,
      -1,    59,    60,    -1,    -1,    63,    64,     3,     4,     5,
       6,    49,    50,    51,    -1,    -1,    33,    -1,    35,    36,
      37,    59,    60,    -1,    -1,    63,    64,     3,     4,     5,
       6,    -1,    49,    50,    51,    -1,    -1,    33,    -1,    35,
      36,    37,    59,    60,    -1,    -1,    63,    64,     3,     4,
       5,     6,    -1,    49,    50,    -1,    -1,    33,    -1,    35,
      36,    37,    -1,    59,    60,    -1,    -1,    63,    64,    -1,
      -1,    -1,    -1,    -1,    50,    -1,    -1,    -1,    -1,    -1,
      35,    36,    37,    59,    60,    -1,    -1,    63,    64,    -1,
      -1,    -1,    -1,    -1,    49,    50,    15,    16,    17,    18,
      -1,    -1,    -1,    -1,    59,    60,    -1,    26,    63,    64,
      -1,    -1,    -1,    -1,    33,    34,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    -1,    -1,    54,    55
};

/* YYSTOS[STATE-NUM] -- The symbol kind of the accessing symbol of
   state STATE-NUM.  */
static const yytype_uint8 yystos[] =
{
       0,    67,     0,     3,     4,     5,     6,    20,    21,    22,
      25,    27,    28,    29,    30,    33,    35,    36,    37,    38,
      39,    41,    42,    43,    44,    49,    50,    53,    59,    60,
      63,    64,    68,    70,    71,    72,    73,    74,    75,    76,
      82,    84,    87,    89,    92,    93,    97,    98,    99,   100,
     101,   106,   107,   108,   109,   110,   111,   112,   113,   114,
     115,   116,   118,   119,   120,   121,   122,   123,   124,   125,
     126,   127,     3,   106,   109,    49,    94,    95,    96,   118,
     109,   114,     3,    77,    78,    85,    85,   109,     3,    83,
      83,   109,   118,    51,   107,   109,   124,   124,   124,    65,
     107,     7,    45,    47,   100,   101,    10,    46,    47,    48,
      22,    32,    32,    31,    31,    15,    16,    17,    18,    26,
      33,    34,    54,    55,   117,    56,   117,    57,    58,    13,
      14,    59,    60,    12,    49,    53,    61,    62,    11,    50,
      52,    64,    50,    46,   118,    26,    48,    46,    48,    40,
      52,    38,    48,    48,    40,    46,    48,    51,     7,    48,
      65,     7,    72,   106,   106,     6,    49,    85,    86,   106,
     108,   110,   112,   112,   114,   114,    26,    33,   118,   119,
     118,   120,   121,   122,   122,   123,   123,   124,   124,   124,
     124,   124,   124,     3,    49,    51,   109,   128,   129,     3,
     109,   130,   131,   132,   133,     3,   103,   104,   105,     7,
      70,    88,   106,    96,    88,    78,     3,     3,     3,    49,
      50,    79,    80,    81,   109,     3,    96,    88,    51,    65,
      85,    47,    24,    47,   109,    48,    51,    48,    65,    46,
      46,    47,    51,    48,     8,    90,    46,    24,    91,    40,
      80,    48,    46,   106,   109,   109,    51,   129,    65,   131,
     109,   133,    86,   109,    19,   102,   105,    68,    69,    23,
      91,    88,    46,     3,    48,    51,    81,    88,    46,    47,
     109,    46,     9,    68,   109,    91,    88,    51,   133,   109,
      88,    46,    88
};

/* YYR1[RULE-NUM] -- Symbol kind of the left-hand side of rule RULE-NUM.  */
static const yytype_uint8 yyr1[] =
{
       0,    66,    67,    67,    68,    68,    69,    69,    70,    70,
      71,    71,    72,    72,    72,    72,    72,    72,    72,    72,
      73,    73,    73,    73,    73,    74,    74,    75,    75,    76,
      76,    77,    77,    78,    78,    79,    79,    79,    79,    80,
      80,    81,    81,    82,    82,    83,    83,    84,    84,    85,
      85,    86,    86,    86,    87,    87,    87,    87,    87,    87,
      88,    88,    89,    90,    90,    91,    91,    92,    93,    94,
      94,    95,    95,    96,    96,    97,    97,    98,    99,    99,
     100,   101,   102,   102,   103,   103,   103,   104,   104,   105,
     105,   105,   105,   106,   106,   107,   107,   108,   108,   109,
     109,   110,   110,   111,   111,   112,   112,   113,   113,   114,
     114,   115,   115,   116,   116,   117,   117,   117,   117,   117,
     117,   117,   117,   117,   117,   118,   118,   119,   119,   120,
     120,   121,   121,   121,   122,   122,   122,   123,   123,   123,
     123,   123,   123,   124,   124,   124,   124,   125,   125,   126,
     126,   126,   126,   126,   126,   126,   127,   127,   127,   127,
     127,   127,   127,   127,   127,   127,   127,   127,   127,   128,
     128,   129,   129,   129,   130,   130,   131,   131,   132,   132,
     133,   133
};

/* YYR2[RULE-NUM] -- Number of symbols on the right-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr2[] =
{
       0,     2,     0,     2,     1,     1,     1,     2,     2,     3,
       1,     3,     1,     1,     1,     1,     1,     1,     1,     1,
       1,     3,     3,     5,     1,     3,     3,     1,     2,     2,
       4,     1,     3,     1,     3,     1,     1,     3,     4,     1,
       3,     1,     3,     2,     2,     1,     3,     2,     4,     1,
       3,     2,     1,     1,     1,     1,     1,     1,     1,     1,
       1,     4,     6,     0,     5,     0,     3,     5,     7,     1,
       2,     1,     3,     1,     2,     4,     6,     2,     1,     2,
       3,     8,     0,     2,     0,     1,     2,     1,     3,     1,
       3,     3,     5,     1,     2,     1,     3,     1,     2,     1,
       5,     1,     1,     3,     3,     1,     1,     3,     3,     2,
       1,     1,     1,     3,     3,     1,     1,     1,     1,     1,
       1,     1,     2,     1,     2,     1,     3,     1,     3,     1,
       3,     1,     3,     3,     1,     3,     3,     1,     3,     3,
       3,     3,     3,     2,     2,     2,     1,     1,     3,     1,
       3,     3,     4,     5,     4,     5,     1,     1,     1,     1,
       1,     1,     1,     2,     3,     4,     2,     3,     4,     1,
       3,     1,     2,     3,     1,     3,     1,     1,     3,     5,
       0,     1
};


enum { YYENOMEM = -2 };

#define yyerrok         (yyerrstatus = 0)
#define yyclearin       (yychar = NREMPTY)

#define YYACCEPT        goto yyacceptlab
#define YYABORT         goto yyabortlab
#define YYERROR         goto yyerrorlab
#define YYNOMEM         goto yyexhaustedlab


#define YYRECOVERING()  (!!yyerrstatus)

#define YYBACKUP(Token, Value)                                    \
  do                                                              \
    if (yychar == NREMPTY)                                        \
      {                                                           \
        yychar = (Token);                                         \
        yylval = (Value);                                         \
        YYPOPSTACK (yylen);                                       \
        yystate = *yyssp;                                         \
        YY_LAC_DISCARD ("YYBACKUP");                              \
        goto yybackup;                                            \
      }                                                           \
    else                                                          \
      {                                                           \
        yyerror (&yylloc, ctx, YY_("syntax error: cannot back up")); \
        YYERROR;                                                  \
      }                                                           \
  while (0)

/* Backward compatibility with an undocumented macro.
   Use NRerror or NRUNDEF. */
#define YYERRCODE NRUNDEF

/* YYLLOC_DEFAULT -- Set CURRENT to span from RHS[1] to RHS[N].
   If N is 0, then set CURRENT to the empty location which ends
   the previous symbol: RHS[0] (always defined).  */

#ifndef YYLLOC_DEFAULT
# define YYLLOC_DEFAULT(Current, Rhs, N)                                \
    do                                                                  \
      if (N)                                                            \
        {                                                               \
          (Current).first_line   = YYRHSLOC (Rhs, 1).first_line;        \
          (Current).first_column = YYRHSLOC (Rhs, 1).first_column;      \
          (Current).last_line    = YYRHSLOC (Rhs, N).last_line;         \
          (Current).last_column  = YYRHSLOC (Rhs, N).last_column;       \
        }                                                               \
      else                                                              \
        {                                                               \
          (Current).first_line   = (Current).last_line   =              \
            YYRHSLOC (Rhs, 0).last_line;                                \
          (Current).first_column = (Current).last_column =              \
            YYRHSLOC (Rhs, 0).last_column;                              \
        }                                                               \
    while (0)
#endif

#define YYRHSLOC(Rhs, K) ((Rhs)[K])


/* Enable debugging if requested.  */
#if NRDEBUG

# ifndef YYFPRINTF
#  include <stdio.h> /* INFRINGES ON USER NAME SPACE */
#  define YYFPRINTF fprintf
# endif

# define YYDPRINTF(Args)                        \
do {                                            \
  if (yydebug)                                  \
    YYFPRINTF Args;                             \
} while (0)


/* YYLOCATION_PRINT -- Print the location on the stream.
   This macro was not mandated originally: define only if we know
   we won't break user code: when these are the locations we know.  */

# ifndef YYLOCATION_PRINT

#  if defined YY_LOCATION_PRINT

   /* Temporary convenience wrapper in case some people defined the
      undocumented and private YY_LOCATION_PRINT macros.  */
#   define YYLOCATION_PRINT(File, Loc)  YY_LOCATION_PRINT(File, *(Loc))

#  elif defined NRLTYPE_IS_TRIVIAL && NRLTYPE_IS_TRIVIAL

/* Print *YYLOCP on YYO.  Private, do not rely on its existence. */

YY_ATTRIBUTE_UNUSED
static int
yy_location_print_ (FILE *yyo, YYLTYPE const * const yylocp)
{
  int res = 0;
  int end_col = 0 != yylocp->last_column ? yylocp->last_column - 1 : 0;
  if (0 <= yylocp->first_line)
    {
      res += YYFPRINTF (yyo, "%d", yylocp->first_line);
      if (0 <= yylocp->first_column)
        res += YYFPRINTF (yyo, ".%d", yylocp->first_column);
    }
  if (0 <= yylocp->last_line)
    {
      if (yylocp->first_line < yylocp->last_line)
        {
          res += YYFPRINTF (yyo, "-%d", yylocp->last_line);
          if (0 <= end_col)
            res += YYFPRINTF (yyo, ".%d", end_col);
        }
      else if (0 <= end_col && yylocp->first_column < end_col)
        res += YYFPRINTF (yyo, "-%d", end_col);
    }
  return res;
}

#   define YYLOCATION_PRINT  yy_location_print_

    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT(File, Loc)  YYLOCATION_PRINT(File, &(Loc))

#  else

#   define YYLOCATION_PRINT(File, Loc) ((void) 0)
    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT  YYLOCATION_PRINT

#  endif
# endif /* !defined YYLOCATION_PRINT */


# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)                    \
do {                                                                      \
  if (yydebug)                                                            \
    {                                                                     \
      YYFPRINTF (stderr, "%s ", Title);                                   \
      yy_symbol_print (stderr,                                            \
                  Kind, Value, Location, ctx); \
      YYFPRINTF (stderr, "\n");                                           \
    }                                                                     \
} while (0)


/*-----------------------------------.
| Print this symbol's value on YYO.  |
`-----------------------------------*/

static void
yy_symbol_value_print (FILE *yyo,
                       yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, ParseCtx *ctx)
{
  FILE *yyoutput = yyo;
  YY_USE (yyoutput);
  YY_USE (yylocationp);
  YY_USE (ctx);
  if (!yyvaluep)
    return;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}


/*---------------------------.
| Print this symbol on YYO.  |
`---------------------------*/

static void
yy_symbol_print (FILE *yyo,
                 yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, ParseCtx *ctx)
{
  YYFPRINTF (yyo, "%s %s (",
             yykind < YYNTOKENS ? "token" : "nterm", yysymbol_name (yykind));

  YYLOCATION_PRINT (yyo, yylocationp);
  YYFPRINTF (yyo, ": ");
  yy_symbol_value_print (yyo, yykind, yyvaluep, yylocationp, ctx);
  YYFPRINTF (yyo, ")");
}

/*------------------------------------------------------------------.
| yy_stack_print -- Print the state stack from its BOTTOM up to its |
| TOP (included).                                                   |
`------------------------------------------------------------------*/

static void
yy_stack_print (yy_state_t *yybottom, yy_state_t *yytop)
{
  YYFPRINTF (stderr, "Stack now");
  for (; yybottom <= yytop; yybottom++)
    {
      int yybot = *yybottom;
      YYFPRINTF (stderr, " %d", yybot);
    }
  YYFPRINTF (stderr, "\n");
}

# define YY_STACK_PRINT(Bottom, Top)                            \
do {                                                            \
  if (yydebug)                                                  \
    yy_stack_print ((Bottom), (Top));                           \
} while (0)


/*------------------------------------------------.
| Report that the YYRULE is going to be reduced.  |
`------------------------------------------------*/

static void
yy_reduce_print (yy_state_t *yyssp, YYSTYPE *yyvsp, YYLTYPE *yylsp,
                 int yyrule, ParseCtx *ctx)
{
  int yylno = yyrline[yyrule];
  int yynrhs = yyr2[yyrule];
  int yyi;
  YYFPRINTF (stderr, "Reducing stack by rule %d (line %d):\n",
             yyrule - 1, yylno);
  /* The symbols being reduced.  */
  for (yyi = 0; yyi < yynrhs; yyi++)
    {
      YYFPRINTF (stderr, "   $%d = ", yyi + 1);
      yy_symbol_print (stderr,
                       YY_ACCESSING_SYMBOL (+yyssp[yyi + 1 - yynrhs]),
                       &yyvsp[(yyi + 1) - (yynrhs)],
                       &(yylsp[(yyi + 1) - (yynrhs)]), ctx);
      YYFPRINTF (stderr, "\n");
    }
}

# define YY_REDUCE_PRINT(Rule)          \
do {                                    \
  if (yydebug)                          \
    yy_reduce_print (yyssp, yyvsp, yylsp, Rule, ctx); \
} while (0)

/* Nonzero means print parse trace.  It is left uninitialized so that
   multiple parsers can coexist.  */
int yydebug;
#else /* !NRDEBUG */
# define YYDPRINTF(Args) ((void) 0)
# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)
# define YY_STACK_PRINT(Bottom, Top)
# define YY_REDUCE_PRINT(Rule)
#endif /* !NRDEBUG */


/* YYINITDEPTH -- initial size of the parser's stacks.  */
#ifndef YYINITDEPTH
# define YYINITDEPTH 200
#endif

/* YYMAXDEPTH -- maximum size the stacks can grow to (effective only
   if the built-in stack extension method is used).

   Do not make this value too large; the results are undefined if
   YYSTACK_ALLOC_MAXIMUM < YYSTACK_BYTES (YYMAXDEPTH)
   evaluated with infinite-precision integer arithmetic.  */

#ifndef YYMAXDEPTH
# define YYMAXDEPTH 10000
#endif


/* Given a state stack such that *YYBOTTOM is its bottom, such that
   *YYTOP is either its top or is YYTOP_EMPTY to indicate an empty
   stack, and such that *YYCAPACITY is the maximum number of elements it
   can hold without a reallocation, make sure there is enough room to
   store YYADD more elements.  If not, allocate a new stack using
   YYSTACK_ALLOC, copy the existing elements, and adjust *YYBOTTOM,
   *YYTOP, and *YYCAPACITY to reflect the new capacity and memory
   location.  If *YYBOTTOM != YYBOTTOM_NO_FREE, then free the old stack
   using YYSTACK_FREE.  Return 0 if successful or if no reallocation is
   required.  Return YYENOMEM if memory is exhausted.  */
static int
yy_lac_stack_realloc (YYPTRDIFF_T *yycapacity, YYPTRDIFF_T yyadd,
#if NRDEBUG
                      char const *yydebug_prefix,
                      char const *yydebug_suffix,
#endif
                      yy_state_t **yybottom,
                      yy_state_t *yybottom_no_free,
                      yy_state_t **yytop, yy_state_t *yytop_empty)
{
  YYPTRDIFF_T yysize_old =
    *yytop == yytop_empty ? 0 : *yytop - *yybottom + 1;
  YYPTRDIFF_T yysize_new = yysize_old + yyadd;
  if (*yycapacity < yysize_new)
    {
      YYPTRDIFF_T yyalloc = 2 * yysize_new;
      yy_state_t *yybottom_new;
      /* Use YYMAXDEPTH for maximum stack size given that the stack
         should never need to grow larger than the main state stack
         needs to grow without LAC.  */
      if (YYMAXDEPTH < yysize_new)
        {
          YYDPRINTF ((stderr, "%smax size exceeded%s", yydebug_prefix,
                      yydebug_suffix));
          return YYENOMEM;
        }
      if (YYMAXDEPTH < yyalloc)
        yyalloc = YYMAXDEPTH;
      yybottom_new =
        YY_CAST (yy_state_t *,
                 YYSTACK_ALLOC (YY_CAST (YYSIZE_T,
                                         yyalloc * YYSIZEOF (*yybottom_new))));
      if (!yybottom_new)
        {
          YYDPRINTF ((stderr, "%srealloc failed%s", yydebug_prefix,
                      yydebug_suffix));
          return YYENOMEM;
        }
      if (*yytop != yytop_empty)
        {
          YYCOPY (yybottom_new, *yybottom, yysize_old);
          *yytop = yybottom_new + (yysize_old - 1);
        }
      if (*yybottom != yybottom_no_free)
        YYSTACK_FREE (*yybottom);
      *yybottom = yybottom_new;
      *yycapacity = yyalloc;
    }
  return 0;
}

/* Establish the initial context for the current lookahead if no initial
   context is currently established.

   We define a context as a snapshot of the parser stacks.  We define
   the initial context for a lookahead as the context in which the
   parser initially examines that lookahead in order to select a
   syntactic action.  Thus, if the lookahead eventually proves
   syntactically unacceptable (possibly in a later context reached via a
   series of reductions), the initial context can be used to determine
   the exact set of tokens that would be syntactically acceptable in the
   lookahead's place.  Moreover, it is the context after which any
   further semantic actions would be erroneous because they would be
   determined by a syntactically unacceptable token.

   YY_LAC_ESTABLISH should be invoked when a reduction is about to be
   performed in an inconsistent state (which, for the purposes of LAC,
   includes consistent states that don't know they're consistent because
   their default reductions have been disabled).  Iff there is a
   lookahead token, it should also be invoked before reporting a syntax
   error.  This latter case is for the sake of the debugging output.

   For parse.lac=full, the implementation of YY_LAC_ESTABLISH is as
   follows.  If no initial context is currently established for the
   current lookahead, then check if that lookahead can eventually be
   shifted if syntactic actions continue from the current context.
   Report a syntax error if it cannot.  */
#define YY_LAC_ESTABLISH                                                \
do {                                                                    \
  if (!yy_lac_established)                                              \
    {                                                                   \
      YYDPRINTF ((stderr,                                               \
                  "LAC: initial context established for %s\n",          \
                  yysymbol_name (yytoken)));                            \
      yy_lac_established = 1;                                           \
      switch (yy_lac (yyesa, &yyes, &yyes_capacity, yyssp, yytoken))    \
        {                                                               \
        case YYENOMEM:                                                  \
          YYNOMEM;                                                      \
        case 1:                                                         \
          goto yyerrlab;                                                \
        }                                                               \
    }                                                                   \
} while (0)

/* Discard any previous initial lookahead context because of Event,
   which may be a lookahead change or an invalidation of the currently
   established initial context for the current lookahead.

   The most common example of a lookahead change is a shift.  An example
   of both cases is syntax error recovery.  That is, a syntax error
   occurs when the lookahead is syntactically erroneous for the
   currently established initial context, so error recovery manipulates
   the parser stacks to try to find a new initial context in which the
   current lookahead is syntactically acceptable.  If it fails to find
   such a context, it discards the lookahead.  */
#if NRDEBUG
# define YY_LAC_DISCARD(Event)                                           \
do {                                                                     \
  if (yy_lac_established)                                                \
    {                                                                    \
      YYDPRINTF ((stderr, "LAC: initial context discarded due to "       \
                  Event "\n"));                                          \
      yy_lac_established = 0;                                            \
    }                                                                    \
} while (0)
#else
# define YY_LAC_DISCARD(Event) yy_lac_established = 0
#endif

/* Given the stack whose top is *YYSSP, return 0 iff YYTOKEN can
   eventually (after perhaps some reductions) be shifted, return 1 if
   not, or return YYENOMEM if memory is exhausted.  As preconditions and
   postconditions: *YYES_CAPACITY is the allocated size of the array to
   which *YYES points, and either *YYES = YYESA or *YYES points to an
   array allocated with YYSTACK_ALLOC.  yy_lac may overwrite the
   contents of either array, alter *YYES and *YYES_CAPACITY, and free
   any old *YYES other than YYESA.  */
static int
yy_lac (yy_state_t *yyesa, yy_state_t **yyes,
        YYPTRDIFF_T *yyes_capacity, yy_state_t *yyssp, yysymbol_kind_t yytoken)
{
  yy_state_t *yyes_prev = yyssp;
  yy_state_t *yyesp = yyes_prev;
  /* Reduce until we encounter a shift and thereby accept the token.  */
  YYDPRINTF ((stderr, "LAC: checking lookahead %s:", yysymbol_name (yytoken)));
  if (yytoken == YYSYMBOL_YYUNDEF)
    {
      YYDPRINTF ((stderr, " Always Err\n"));
      return 1;
    }
  while (1)
    {
      int yyrule = yypact[+*yyesp];
      if (yypact_value_is_default (yyrule)
          || (yyrule += yytoken) < 0 || YYLAST < yyrule
          || yycheck[yyrule] != yytoken)
        {
          /* Use the default action.  */
          yyrule = yydefact[+*yyesp];
          if (yyrule == 0)
            {
              YYDPRINTF ((stderr, " Err\n"));
              return 1;
            }
        }
      else
        {
          /* Use the action from yytable.  */
          yyrule = yytable[yyrule];
          if (yytable_value_is_error (yyrule))
            {
              YYDPRINTF ((stderr, " Err\n"));
              return 1;
            }
          if (0 < yyrule)
            {
              YYDPRINTF ((stderr, " S%d\n", yyrule));
              return 0;
            }
          yyrule = -yyrule;
        }
      /* By now we know we have to simulate a reduce.  */
      YYDPRINTF ((stderr, " R%d", yyrule - 1));
      {
        /* Pop the corresponding number of values from the stack.  */
        YYPTRDIFF_T yylen = yyr2[yyrule];
        /* First pop from the LAC stack as many tokens as possible.  */
        if (yyesp != yyes_prev)
          {
            YYPTRDIFF_T yysize = yyesp - *yyes + 1;
            if (yylen < yysize)
              {
                yyesp -= yylen;
                yylen = 0;
              }
            else
              {
                yyesp = yyes_prev;
                yylen -= yysize;
              }
          }
        /* Only afterwards look at the main stack.  */
        if (yylen)
          yyesp = yyes_prev -= yylen;
      }
      /* Push the resulting state of the reduction.  */
      {
        yy_state_fast_t yystate;
        {
          const int yylhs = yyr1[yyrule] - YYNTOKENS;
          const int yyi = yypgoto[yylhs] + *yyesp;
          yystate = (0 <= yyi && yyi <= YYLAST && yycheck[yyi] == *yyesp
                     ? yytable[yyi]
                     : yydefgoto[yylhs]);
        }
        if (yyesp == yyes_prev)
          {
            yyesp = *yyes;
            YY_IGNORE_USELESS_CAST_BEGIN
            *yyesp = YY_CAST (yy_state_t, yystate);
            YY_IGNORE_USELESS_CAST_END
          }
        else
          {
            if (yy_lac_stack_realloc (yyes_capacity, 1,
#if NRDEBUG
                                      " (", ")",
#endif
                                      yyes, yyesa, &yyesp, yyes_prev))
              {
                YYDPRINTF ((stderr, "\n"));
                return YYENOMEM;
              }
            YY_IGNORE_USELESS_CAST_BEGIN
            *++yyesp = YY_CAST (yy_state_t, yystate);
            YY_IGNORE_USELESS_CAST_END
          }
        YYDPRINTF ((stderr, " G%d", yystate));
      }
    }
}

/* Context of a parse error.  */
typedef struct
{
  yy_state_t *yyssp;
  yy_state_t *yyesa;
  yy_state_t **yyes;
  YYPTRDIFF_T *yyes_capacity;
  yysymbol_kind_t yytoken;
  YYLTYPE *yylloc;
} yypcontext_t;

/* Put in YYARG at most YYARGN of the expected tokens given the
   current YYCTX, and return the number of tokens stored in YYARG.  If
   YYARG is null, return the number of expected tokens (guaranteed to
   be less than YYNTOKENS).  Return YYENOMEM on memory exhaustion.
   Return 0 if there are more than YYARGN expected tokens, yet fill
   YYARG up to YYARGN. */
static int
yypcontext_expected_tokens (const yypcontext_t *yyctx,
                            yysymbol_kind_t yyarg[], int yyargn)
{
  /* Actual size of YYARG. */
  int yycount = 0;

  int yyx;
  for (yyx = 0; yyx < YYNTOKENS; ++yyx)
    {
      yysymbol_kind_t yysym = YY_CAST (yysymbol_kind_t, yyx);
      if (yysym != YYSYMBOL_YYerror && yysym != YYSYMBOL_YYUNDEF)
        switch (yy_lac (yyctx->yyesa, yyctx->yyes, yyctx->yyes_capacity, yyctx->yyssp, yysym))
          {
          case YYENOMEM:
            return YYENOMEM;
          case 1:
            continue;
          default:
            if (!yyarg)
              ++yycount;
            else if (yycount == yyargn)
              return 0;
            else
              yyarg[yycount++] = yysym;
          }
    }
  if (yyarg && yycount == 0 && 0 < yyargn)
    yyarg[0] = YYSYMBOL_YYEMPTY;
  return yycount;
}




/* The kind of the lookahead of this context.  */
static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx)
{
  return yyctx->yytoken;
}

/* The location of the lookahead of this context.  */
static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx)
{
  return yyctx->yylloc;
}

/* User defined function to report a syntax error.  */
static int
yyreport_syntax_error (const yypcontext_t *yyctx, ParseCtx *ctx);

/*-----------------------------------------------.
| Release the memory associated to this symbol.  |
`-----------------------------------------------*/

static void
yydestruct (const char *yymsg,
            yysymbol_kind_t yykind, YYSTYPE *yyvaluep, YYLTYPE *yylocationp, ParseCtx *ctx)
{
  YY_USE (yyvaluep);
  YY_USE (yylocationp);
  YY_USE (ctx);
  if (!yymsg)
    yymsg = "Deleting";
  YY_SYMBOL_PRINT (yymsg, yykind, yyvaluep, yylocationp);

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}






/*----------.
| yyparse.  |
`----------*/

int
yyparse (ParseCtx *ctx)
{
/* Lookahead token kind.  */
int yychar;


/* The semantic value of the lookahead symbol.  */
/* Default value used for initialization, for pacifying older GCCs
   or non-GCC compilers.  */
YY_INITIAL_VALUE (static YYSTYPE yyval_default;)
YYSTYPE yylval YY_INITIAL_VALUE (= yyval_default);

/* Location data for the lookahead symbol.  */
static YYLTYPE yyloc_default
# if defined NRLTYPE_IS_TRIVIAL && NRLTYPE_IS_TRIVIAL
  = { 1, 1, 1, 1 }
# endif
;
YYLTYPE yylloc = yyloc_default;

    /* Number of syntax errors so far.  */
    int yynerrs = 0;

    yy_state_fast_t yystate = 0;
    /* Number of tokens to shift before error messages enabled.  */
    int yyerrstatus = 0;

    /* Refer to the stacks through separate pointers, to allow yyoverflow
       to reallocate them elsewhere.  */

    /* Their size.  */
    YYPTRDIFF_T yystacksize = YYINITDEPTH;

    /* The state stack: array, bottom, top.  */
    yy_state_t yyssa[YYINITDEPTH];
    yy_state_t *yyss = yyssa;
    yy_state_t *yyssp = yyss;

    /* The semantic value stack: array, bottom, top.  */
    YYSTYPE yyvsa[YYINITDEPTH];
    YYSTYPE *yyvs = yyvsa;
    YYSTYPE *yyvsp = yyvs;

    /* The location stack: array, bottom, top.  */
    YYLTYPE yylsa[YYINITDEPTH];
    YYLTYPE *yyls = yylsa;
    YYLTYPE *yylsp = yyls;

    yy_state_t yyesa[20];
    yy_state_t *yyes = yyesa;
    YYPTRDIFF_T yyes_capacity = 20 < YYMAXDEPTH ? 20 : YYMAXDEPTH;

  /* Whether LAC context is established.  A Boolean.  */
  int yy_lac_established = 0;
  int yyn;
  /* The return value of yyparse.  */
  int yyresult;
  /* Lookahead symbol kind.  */
  yysymbol_kind_t yytoken = YYSYMBOL_YYEMPTY;
  /* The variables used to return semantic value and location from the
     action routines.  */
  YYSTYPE yyval;
  YYLTYPE yyloc;

  /* The locations where the error started and ended.  */
  YYLTYPE yyerror_range[3];



#define YYPOPSTACK(N)   (yyvsp -= (N), yyssp -= (N), yylsp -= (N))

  /* The number of symbols on the RHS of the reduced rule.
     Keep to zero when no symbol should be popped.  */
  int yylen = 0;

  YYDPRINTF ((stderr, "Starting parse\n"));

  yychar = NREMPTY; /* Cause a token to be read.  */

  yylsp[0] = yylloc;
  goto yysetstate;


/*------------------------------------------------------------.
| yynewstate -- push a new state, which is found in yystate.  |
`------------------------------------------------------------*/
yynewstate:
  /* In all cases, when you get here, the value and location stacks
     have just been pushed.  So pushing a state here evens the stacks.  */
  yyssp++;


/*--------------------------------------------------------------------.
| yysetstate -- set current state (the top of the stack) to yystate.  |
`--------------------------------------------------------------------*/
yysetstate:
  YYDPRINTF ((stderr, "Entering state %d\n", yystate));
  YY_ASSERT (0 <= yystate && yystate < YYNSTATES);
  YY_IGNORE_USELESS_CAST_BEGIN
  *yyssp = YY_CAST (yy_state_t, yystate);
  YY_IGNORE_USELESS_CAST_END
  YY_STACK_PRINT (yyss, yyssp);

  if (yyss + yystacksize - 1 <= yyssp)
#if !defined yyoverflow && !defined YYSTACK_RELOCATE
    YYNOMEM;
#else
    {
      /* Get the current used size of the three stacks, in elements.  */
      YYPTRDIFF_T yysize = yyssp - yyss + 1;

# if defined yyoverflow
      {
        /* Give user a chance to reallocate the stack.  Use copies of
           these so that the &'s don't force the real ones into
           memory.  */
        yy_state_t *yyss1 = yyss;
        YYSTYPE *yyvs1 = yyvs;
        YYLTYPE *yyls1 = yyls;

        /* Each stack pointer address is followed by the size of the
           data in use in that stack, in bytes.  This used to be a
           conditional around just the two extra args, but that might
           be undefined if yyoverflow is a macro.  */
        yyoverflow (YY_("memory exhausted"),
                    &yyss1, yysize * YYSIZEOF (*yyssp),
                    &yyvs1, yysize * YYSIZEOF (*yyvsp),
                    &yyls1, yysize * YYSIZEOF (*yylsp),
                    &yystacksize);
        yyss = yyss1;
        yyvs = yyvs1;
        yyls = yyls1;
      }
# else /* defined YYSTACK_RELOCATE */
      /* Extend the stack our own way.  */
      if (YYMAXDEPTH <= yystacksize)
        YYNOMEM;
      yystacksize *= 2;
      if (YYMAXDEPTH < yystacksize)
        yystacksize = YYMAXDEPTH;

      {
        yy_state_t *yyss1 = yyss;
        union yyalloc *yyptr =
          YY_CAST (union yyalloc *,
                   YYSTACK_ALLOC (YY_CAST (YYSIZE_T, YYSTACK_BYTES (yystacksize))));
        if (! yyptr)
          YYNOMEM;
        YYSTACK_RELOCATE (yyss_alloc, yyss);
        YYSTACK_RELOCATE (yyvs_alloc, yyvs);
        YYSTACK_RELOCATE (yyls_alloc, yyls);
#  undef YYSTACK_RELOCATE
        if (yyss1 != yyssa)
          YYSTACK_FREE (yyss1);
      }
# endif

      yyssp = yyss + yysize - 1;
      yyvsp = yyvs + yysize - 1;
      yylsp = yyls + yysize - 1;

      YY_IGNORE_USELESS_CAST_BEGIN
      YYDPRINTF ((stderr, "Stack size increased to %ld\n",
                  YY_CAST (long, yystacksize)));
      YY_IGNORE_USELESS_CAST_END

      if (yyss + yystacksize - 1 <= yyssp)
        YYABORT;
    }
#endif /* !defined yyoverflow && !defined YYSTACK_RELOCATE */


  if (yystate == YYFINAL)
    YYACCEPT;

  goto yybackup;


/*-----------.
| yybackup.  |
`-----------*/
yybackup:
  /* Do appropriate processing given the current state.  Read a
     lookahead token if we need one and don't already have one.  */

  /* First try to decide what to do without reference to lookahead token.  */
  yyn = yypact[yystate];
  if (yypact_value_is_default (yyn))
    goto yydefault;

  /* Not known => get a lookahead token if don't already have one.  */

  /* YYCHAR is either empty, or end-of-input, or a valid lookahead.  */
  if (yychar == NREMPTY)
    {
      YYDPRINTF ((stderr, "Reading a token\n"));
      yychar = yylex (&yylval, &yylloc, ctx);
    }

  if (yychar <= NREOF)
    {
      yychar = NREOF;
      yytoken = YYSYMBOL_YYEOF;
      YYDPRINTF ((stderr, "Now at end of input.\n"));
    }
  else if (yychar == NRerror)
    {
      /* The scanner already issued an error message, process directly
         to error recovery.  But do not keep the error token as
         lookahead, it is too special and may lead us to an endless
         loop in error recovery. */
      yychar = NRUNDEF;
      yytoken = YYSYMBOL_YYerror;
      yyerror_range[1] = yylloc;
      goto yyerrlab1;
    }
  else
    {
      yytoken = YYTRANSLATE (yychar);
      YY_SYMBOL_PRINT ("Next token is", yytoken, &yylval, &yylloc);
    }

  /* If the proper action on seeing token YYTOKEN is to reduce or to
     detect an error, take that action.  */
  yyn += yytoken;
  if (yyn < 0 || YYLAST < yyn || yycheck[yyn] != yytoken)
    {
      YY_LAC_ESTABLISH;
      goto yydefault;
    }
  yyn = yytable[yyn];
  if (yyn <= 0)
    {
      if (yytable_value_is_error (yyn))
        goto yyerrlab;
      yyn = -yyn;
      YY_LAC_ESTABLISH;
      goto yyreduce;
    }

  /* Count tokens shifted since error; after three, turn off error
     status.  */
  if (yyerrstatus)
    yyerrstatus--;

  /* Shift the lookahead token.  */
  YY_SYMBOL_PRINT ("Shifting", yytoken, &yylval, &yylloc);
  yystate = yyn;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END
  *++yylsp = yylloc;

  /* Discard the shifted token.  */
  yychar = NREMPTY;
  YY_LAC_DISCARD ("shift");
  goto yynewstate;


/*-----------------------------------------------------------.
| yydefault -- do the default action for the current state.  |
`-----------------------------------------------------------*/
yydefault:
  yyn = yydefact[yystate];
  if (yyn == 0)
    goto yyerrlab;
  goto yyreduce;


/*-----------------------------.
| yyreduce -- do a reduction.  |
`-----------------------------*/
yyreduce:
  /* yyn is the number of a rule to reduce with.  */
  yylen = yyr2[yyn];

  /* If YYLEN is nonzero, implement the default value of the action:
     '$$ = $1'.

     Otherwise, the following line sets YYVAL to garbage.
     This behavior is undocumented and Bison
     users should not rely upon it.  Assigning to YYVAL
     unconditionally makes the parser a bit smaller, and it avoids a
     GCC warning that YYVAL may be used uninitialized.  */
  yyval = yyvsp[1-yylen];

  /* Default location. */
  YYLLOC_DEFAULT (yyloc, (yylsp - yylen), yylen);
  yyerror_range[1] = yyloc;
  YY_REDUCE_PRINT (yyn);
  {
    int yychar_backup = yychar;
    switch (yyn)
      {
  case 3: /* file: file stmt  */
#line 90 "lang/parser.y"
                                                { ast_module_add(ctx, (yyvsp[0].stmts)); }
#line 1922 "build-dbg/gen/parser.c"
    break;

  case 5: /* stmt: compound_stmt  */
#line 95 "lang/parser.y"
                                                { (yyval.stmts) = sv_push(ctx, NULL, (yyvsp[0].stmt)); }
#line 1928 "build-dbg/gen/parser.c"
    break;

  case 7: /* stmts: stmts stmt  */
#line 100 "lang/parser.y"
                                                { (yyval.stmts) = sv_concat(ctx, (yyvsp[-1].stmts), (yyvsp[0].stmts)); }
#line 1934 "build-dbg/gen/parser.c"
    break;

  case 10: /* small_stmts: small_stmt  */
#line 109 "lang/parser.y"
                                                { (yyval.stmts) = sv_push(ctx, NULL, (yyvsp[0].stmt)); }
#line 1940 "build-dbg/gen/parser.c"
    break;

  case 11: /* small_stmts: small_stmts ';' small_stmt  */
#line 110 "lang/parser.y"
                                                { (yyval.stmts) = sv_push(ctx, (yyvsp[-2].stmts), (yyvsp[0].stmt)); }
#line 1946 "build-dbg/gen/parser.c"
    break;

  case 13: /* small_stmt: "'pass'"  */
#line 115 "lang/parser.y"
                                                { (yyval.stmt) = st_simple(ctx, (yylsp[0]), ST_PASS); }
#line 1952 "build-dbg/gen/parser.c"
    break;

  case 14: /* small_stmt: "'break'"  */
#line 116 "lang/parser.y"
                                                { (yyval.stmt) = st_simple(ctx, (yylsp[0]), ST_BREAK); }
#line 1958 "build-dbg/gen/parser.c"
    break;

  case 15: /* small_stmt: "'continue'"  */
#line 117 "lang/parser.y"
                                                { (yyval.stmt) = st_simple(ctx, (yylsp[0]), ST_CONTINUE); }
#line 1964 "build-dbg/gen/parser.c"
    break;

  case 20: /* expr_stmt: testlist_star  */
#line 125 "lang/parser.y"
                                                { (yyval.stmt) = st_expr(ctx, (yylsp[0]), (yyvsp[0].expr)); }
#line 1970 "build-dbg/gen/parser.c"
    break;

  case 21: /* expr_stmt: testlist_star "augmented assignment" testlist_star  */
#line 126 "lang/parser.y"
                                                { (yyval.stmt) = st_augassign(ctx, (yylsp[-2]), (yyvsp[-2].expr), (yyvsp[-1].op), (yyvsp[0].expr)); }
#line 1976 "build-dbg/gen/parser.c"
    break;

  case 22: /* expr_stmt: testlist_star ':' annotation  */
#line 127 "lang/parser.y"
                                                { (yyval.stmt) = st_annassign(ctx, (yylsp[-2]), (yyvsp[-2].expr), (yyvsp[0].ann), NULL); }
#line 1982 "build-dbg/gen/parser.c"
    break;

  case 23: /* expr_stmt: testlist_star ':' annotation '=' testlist_star  */
#line 128 "lang/parser.y"
                                                     { (yyval.stmt) = st_annassign(ctx, (yylsp[-4]), (yyvsp[-4].expr), (yyvsp[-2].ann), (yyvsp[0].expr)); }
#line 1988 "build-dbg/gen/parser.c"
    break;

  case 24: /* expr_stmt: assign_chain  */
#line 129 "lang/parser.y"
                                                { (yyval.stmt) = st_assign(ctx, (yylsp[0]), (yyvsp[0].exprs)); }
#line 1994 "build-dbg/gen/parser.c"
    break;

  case 25: /* assign_chain: testlist_star '=' testlist_star  */
#line 133 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, ev_push(ctx, NULL, (yyvsp[-2].expr)), (yyvsp[0].expr)); }
#line 2000 "build-dbg/gen/parser.c"
    break;

  case 26: /* assign_chain: assign_chain '=' testlist_star  */
#line 134 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, (yyvsp[-2].exprs), (yyvsp[0].expr)); }
#line 2006 "build-dbg/gen/parser.c"
    break;

  case 27: /* return_stmt: "'return'"  */
#line 138 "lang/parser.y"
                                                { (yyval.stmt) = st_return(ctx, (yylsp[0]), NULL); }
#line 2012 "build-dbg/gen/parser.c"
    break;

  case 28: /* return_stmt: "'return'" testlist_star  */
#line 139 "lang/parser.y"
                                                { (yyval.stmt) = st_return(ctx, (yylsp[-1]), (yyvsp[0].expr)); }
#line 2018 "build-dbg/gen/parser.c"
    break;

  case 29: /* import_stmt: "'import'" import_names  */
#line 143 "lang/parser.y"
                                                { (yyval.stmt) = st_import(ctx, (yylsp[-1]), NULL, (yyvsp[0].exprs)); }
#line 2024 "build-dbg/gen/parser.c"
    break;

  case 30: /* import_stmt: "'from'" dotted "'import'" import_list  */
#line 144 "lang/parser.y"
                                                { (yyval.stmt) = st_import(ctx, (yylsp[-3]), (yyvsp[-2].names), (yyvsp[0].exprs)); }
#line 2030 "build-dbg/gen/parser.c"
    break;

  case 31: /* import_names: import_name  */
#line 148 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, NULL, (yyvsp[0].expr)); }
#line 2036 "build-dbg/gen/parser.c"
    break;

  case 32: /* import_names: import_names ',' import_name  */
#line 149 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, (yyvsp[-2].exprs), (yyvsp[0].expr)); }
#line 2042 "build-dbg/gen/parser.c"
    break;

  case 33: /* import_name: dotted  */
#line 153 "lang/parser.y"
                                                { (yyval.expr) = ex_import_name(ctx, (yylsp[0]), (yyvsp[0].names), NULL); }
#line 2048 "build-dbg/gen/parser.c"
    break;

  case 34: /* import_name: dotted "'as'" "name"  */
#line 154 "lang/parser.y"
                                                { (yyval.expr) = ex_import_name(ctx, (yylsp[-2]), (yyvsp[-2].names), (yyvsp[0].str)); }
#line 2054 "build-dbg/gen/parser.c"
    break;

  case 35: /* import_list: '*'  */
#line 158 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, NULL, ex_name(ctx, (yylsp[0]), "*")); }
#line 2060 "build-dbg/gen/parser.c"
    break;

  case 37: /* import_list: '(' import_items ')'  */
#line 160 "lang/parser.y"
                                                { (yyval.exprs) = (yyvsp[-1].exprs); }
#line 2066 "build-dbg/gen/parser.c"
    break;

  case 38: /* import_list: '(' import_items ',' ')'  */
#line 161 "lang/parser.y"
                                                { (yyval.exprs) = (yyvsp[-2].exprs); }
#line 2072 "build-dbg/gen/parser.c"
    break;

  case 39: /* import_items: import_item  */
#line 165 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, NULL, (yyvsp[0].expr)); }
#line 2078 "build-dbg/gen/parser.c"
    break;

  case 40: /* import_items: import_items ',' import_item  */
#line 166 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, (yyvsp[-2].exprs), (yyvsp[0].expr)); }
#line 2084 "build-dbg/gen/parser.c"
    break;

  case 41: /* import_item: "name"  */
#line 170 "lang/parser.y"
                                                { (yyval.expr) = ex_import_name(ctx, (yylsp[0]), nv_push(ctx, NULL, (yyvsp[0].str)), NULL); }
#line 2090 "build-dbg/gen/parser.c"
    break;

  case 42: /* import_item: "name" "'as'" "name"  */
#line 171 "lang/parser.y"
                                                { (yyval.expr) = ex_import_name(ctx, (yylsp[-2]), nv_push(ctx, NULL, (yyvsp[-2].str)), (yyvsp[0].str)); }
#line 2096 "build-dbg/gen/parser.c"
    break;

  case 43: /* global_stmt: "'global'" name_list  */
#line 175 "lang/parser.y"
                                                { (yyval.stmt) = st_global(ctx, (yylsp[-1]), false, (yyvsp[0].exprs)); }
#line 2102 "build-dbg/gen/parser.c"
    break;

  case 44: /* global_stmt: "'nonlocal'" name_list  */
#line 176 "lang/parser.y"
                                                { (yyval.stmt) = st_global(ctx, (yylsp[-1]), true, (yyvsp[0].exprs)); }
#line 2108 "build-dbg/gen/parser.c"
    break;

  case 45: /* name_list: "name"  */
#line 180 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, NULL, ex_name(ctx, (yylsp[0]), (yyvsp[0].str))); }
#line 2114 "build-dbg/gen/parser.c"
    break;

  case 46: /* name_list: name_list ',' "name"  */
#line 181 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, (yyvsp[-2].exprs), ex_name(ctx, (yylsp[0]), (yyvsp[0].str))); }
#line 2120 "build-dbg/gen/parser.c"
    break;

  case 47: /* assert_stmt: "'assert'" test  */
#line 185 "lang/parser.y"
                                                { (yyval.stmt) = st_assert(ctx, (yylsp[-1]), (yyvsp[0].expr), NULL); }
#line 2126 "build-dbg/gen/parser.c"
    break;

  case 48: /* assert_stmt: "'assert'" test ',' test  */
#line 186 "lang/parser.y"
                                                { (yyval.stmt) = st_assert(ctx, (yylsp[-3]), (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2132 "build-dbg/gen/parser.c"
    break;

  case 49: /* dotted: "name"  */
#line 190 "lang/parser.y"
                                                { (yyval.names) = nv_push(ctx, NULL, (yyvsp[0].str)); }
#line 2138 "build-dbg/gen/parser.c"
    break;

  case 50: /* dotted: dotted '.' "name"  */
#line 191 "lang/parser.y"
                                                { (yyval.names) = nv_push(ctx, (yyvsp[-2].names), (yyvsp[0].str)); }
#line 2144 "build-dbg/gen/parser.c"
    break;

  case 51: /* annotation: '*' dotted  */
#line 195 "lang/parser.y"
                                                { (yyval.ann) = ast_ann_star(ctx, (yylsp[-1]), (yyvsp[0].names)); }
#line 2150 "build-dbg/gen/parser.c"
    break;

  case 52: /* annotation: dotted  */
#line 196 "lang/parser.y"
                                                { (yyval.ann) = ast_ann_dotted(ctx, (yylsp[0]), (yyvsp[0].names)); }
#line 2156 "build-dbg/gen/parser.c"
    break;

  case 53: /* annotation: "string literal"  */
#line 197 "lang/parser.y"
                                                { (yyval.ann) = ast_ann_string(ctx, (yylsp[0]), (yyvsp[0].expr)); }
#line 2162 "build-dbg/gen/parser.c"
    break;

  case 58: /* compound_stmt: funcdef  */
#line 205 "lang/parser.y"
                                                { (yyval.stmt) = st_def(ctx, (yyvsp[0].func)); }
#line 2168 "build-dbg/gen/parser.c"
    break;

  case 59: /* compound_stmt: decorated  */
#line 206 "lang/parser.y"
                                                { (yyval.stmt) = st_def(ctx, (yyvsp[0].func)); }
#line 2174 "build-dbg/gen/parser.c"
    break;

  case 61: /* suite: "end of line" "indent" stmts "dedent"  */
#line 211 "lang/parser.y"
                                                { (yyval.stmts) = (yyvsp[-1].stmts); }
#line 2180 "build-dbg/gen/parser.c"
    break;

  case 62: /* if_stmt: "'if'" test ':' suite elifs else_part  */
#line 215 "lang/parser.y"
                                                { (yyval.stmt) = st_if(ctx, (yylsp[-5]), (yyvsp[-4].expr), (yyvsp[-2].stmts), (yyvsp[-1].elifs), (yyvsp[0].stmts)); }
#line 2186 "build-dbg/gen/parser.c"
    break;

  case 63: /* elifs: %empty  */
#line 219 "lang/parser.y"
                                                { (yyval.elifs) = NULL; }
#line 2192 "build-dbg/gen/parser.c"
    break;

  case 64: /* elifs: elifs "'elif'" test ':' suite  */
#line 220 "lang/parser.y"
                                                { (yyval.elifs) = elif_push(ctx, (yyvsp[-4].elifs), (yylsp[-3]), (yyvsp[-2].expr), (yyvsp[0].stmts)); }
#line 2198 "build-dbg/gen/parser.c"
    break;

  case 65: /* else_part: %empty  */
#line 224 "lang/parser.y"
                                                { (yyval.stmts) = NULL; }
#line 2204 "build-dbg/gen/parser.c"
    break;

  case 66: /* else_part: "'else'" ':' suite  */
#line 225 "lang/parser.y"
                                                { (yyval.stmts) = sv_else(ctx, (yylsp[-2]), (yyvsp[0].stmts)); }
#line 2210 "build-dbg/gen/parser.c"
    break;

  case 67: /* while_stmt: "'while'" test ':' suite else_part  */
#line 229 "lang/parser.y"
                                                { (yyval.stmt) = st_while(ctx, (yylsp[-4]), (yyvsp[-3].expr), (yyvsp[-1].stmts), (yyvsp[0].stmts)); }
#line 2216 "build-dbg/gen/parser.c"
    break;

  case 68: /* for_stmt: "'for'" for_targets "'in'" testlist_star ':' suite else_part  */
#line 233 "lang/parser.y"
                                                           { (yyval.stmt) = st_for(ctx, (yylsp[-6]), (yyvsp[-5].expr), (yyvsp[-3].expr), (yyvsp[-1].stmts), (yyvsp[0].stmts)); }
#line 2222 "build-dbg/gen/parser.c"
    break;

  case 69: /* for_targets: for_list  */
#line 237 "lang/parser.y"
                                                { (yyval.expr) = ex_seq(ctx, (yylsp[0]), (yyvsp[0].exprs), false); }
#line 2228 "build-dbg/gen/parser.c"
    break;

  case 70: /* for_targets: for_list ','  */
#line 238 "lang/parser.y"
                                                { (yyval.expr) = ex_seq(ctx, (yylsp[-1]), (yyvsp[-1].exprs), true); }
#line 2234 "build-dbg/gen/parser.c"
    break;

  case 71: /* for_list: for_item  */
#line 242 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, NULL, (yyvsp[0].expr)); }
#line 2240 "build-dbg/gen/parser.c"
    break;

  case 72: /* for_list: for_list ',' for_item  */
#line 243 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, (yyvsp[-2].exprs), (yyvsp[0].expr)); }
#line 2246 "build-dbg/gen/parser.c"
    break;

  case 74: /* for_item: '*' bitor  */
#line 248 "lang/parser.y"
                                                { (yyval.expr) = ex_star(ctx, (yylsp[-1]), (yyvsp[0].expr)); }
#line 2252 "build-dbg/gen/parser.c"
    break;

  case 75: /* with_stmt: "'with'" test ':' suite  */
#line 252 "lang/parser.y"
                                                { (yyval.stmt) = st_with(ctx, (yylsp[-3]), (yyvsp[-2].expr), NULL, (yyvsp[0].stmts)); }
#line 2258 "build-dbg/gen/parser.c"
    break;

  case 76: /* with_stmt: "'with'" test "'as'" for_item ':' suite  */
#line 253 "lang/parser.y"
                                                { (yyval.stmt) = st_with(ctx, (yylsp[-5]), (yyvsp[-4].expr), (yyvsp[-2].expr), (yyvsp[0].stmts)); }
#line 2264 "build-dbg/gen/parser.c"
    break;

  case 77: /* decorated: decorators funcdef  */
#line 257 "lang/parser.y"
                                                { (yyval.func) = ast_func_decorate(ctx, (yyvsp[0].func), (yyvsp[-1].exprs)); }
#line 2270 "build-dbg/gen/parser.c"
    break;

  case 78: /* decorators: decorator  */
#line 261 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, NULL, (yyvsp[0].expr)); }
#line 2276 "build-dbg/gen/parser.c"
    break;

  case 79: /* decorators: decorators decorator  */
#line 262 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, (yyvsp[-1].exprs), (yyvsp[0].expr)); }
#line 2282 "build-dbg/gen/parser.c"
    break;

  case 80: /* decorator: '@' test "end of line"  */
#line 266 "lang/parser.y"
                                                { (yyval.expr) = (yyvsp[-1].expr); }
#line 2288 "build-dbg/gen/parser.c"
    break;

  case 81: /* funcdef: "'def'" "name" '(' params ')' ret_ann ':' suite  */
#line 270 "lang/parser.y"
                                                { (yyval.func) = ast_func(ctx, (yylsp[-7]), (yyvsp[-6].str), (yyvsp[-4].params), (yyvsp[0].stmts)); }
#line 2294 "build-dbg/gen/parser.c"
    break;

  case 84: /* params: %empty  */
#line 280 "lang/parser.y"
                                                { (yyval.params) = NULL; }
#line 2300 "build-dbg/gen/parser.c"
    break;

  case 87: /* param_list: param  */
#line 286 "lang/parser.y"
                                                { (yyval.params) = pv_push(ctx, NULL, (yyvsp[0].param)); }
#line 2306 "build-dbg/gen/parser.c"
    break;

  case 88: /* param_list: param_list ',' param  */
#line 287 "lang/parser.y"
                                                { (yyval.params) = pv_push(ctx, (yyvsp[-2].params), (yyvsp[0].param)); }
#line 2312 "build-dbg/gen/parser.c"
    break;

  case 89: /* param: "name"  */
#line 291 "lang/parser.y"
                                                { (yyval.param) = ast_param((yylsp[0]), (yyvsp[0].str), NULL, NULL); }
#line 2318 "build-dbg/gen/parser.c"
    break;

  case 90: /* param: "name" '=' test  */
#line 292 "lang/parser.y"
                                                { (yyval.param) = ast_param((yylsp[-2]), (yyvsp[-2].str), NULL, (yyvsp[0].expr)); }
#line 2324 "build-dbg/gen/parser.c"
    break;

  case 91: /* param: "name" ':' annotation  */
#line 293 "lang/parser.y"
                                                { (yyval.param) = ast_param((yylsp[-2]), (yyvsp[-2].str), &(yyvsp[0].ann), NULL); }
#line 2330 "build-dbg/gen/parser.c"
    break;

  case 92: /* param: "name" ':' annotation '=' test  */
#line 294 "lang/parser.y"
                                                { (yyval.param) = ast_param((yylsp[-4]), (yyvsp[-4].str), &(yyvsp[-2].ann), (yyvsp[0].expr)); }
#line 2336 "build-dbg/gen/parser.c"
    break;

  case 93: /* testlist_star: exprlist  */
#line 300 "lang/parser.y"
                                                { (yyval.expr) = ex_seq(ctx, (yylsp[0]), (yyvsp[0].exprs), false); }
#line 2342 "build-dbg/gen/parser.c"
    break;

  case 94: /* testlist_star: exprlist ','  */
#line 301 "lang/parser.y"
                                                { (yyval.expr) = ex_seq(ctx, (yylsp[-1]), (yyvsp[-1].exprs), true); }
#line 2348 "build-dbg/gen/parser.c"
    break;

  case 95: /* exprlist: star_or_test  */
#line 305 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, NULL, (yyvsp[0].expr)); }
#line 2354 "build-dbg/gen/parser.c"
    break;

  case 96: /* exprlist: exprlist ',' star_or_test  */
#line 306 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, (yyvsp[-2].exprs), (yyvsp[0].expr)); }
#line 2360 "build-dbg/gen/parser.c"
    break;

  case 98: /* star_or_test: '*' bitor  */
#line 311 "lang/parser.y"
                                                { (yyval.expr) = ex_star(ctx, (yylsp[-1]), (yyvsp[0].expr)); }
#line 2366 "build-dbg/gen/parser.c"
    break;

  case 100: /* test: or_test "'if'" or_test "'else'" test  */
#line 316 "lang/parser.y"
                                                { (yyval.expr) = ex_ifexp(ctx, (yylsp[-3]), (yyvsp[-4].expr), (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2372 "build-dbg/gen/parser.c"
    break;

  case 103: /* or_chain: and_test "'or'" and_test  */
#line 325 "lang/parser.y"
                                                { (yyval.expr) = ex_bool(ctx, (yylsp[-1]), BOOL_OR, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2378 "build-dbg/gen/parser.c"
    break;

  case 104: /* or_chain: or_chain "'or'" and_test  */
#line 326 "lang/parser.y"
                                                { (yyval.expr) = ex_bool_push(ctx, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2384 "build-dbg/gen/parser.c"
    break;

  case 107: /* and_chain: not_test "'and'" not_test  */
#line 335 "lang/parser.y"
                                                { (yyval.expr) = ex_bool(ctx, (yylsp[-1]), BOOL_AND, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2390 "build-dbg/gen/parser.c"
    break;

  case 108: /* and_chain: and_chain "'and'" not_test  */
#line 336 "lang/parser.y"
                                                { (yyval.expr) = ex_bool_push(ctx, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2396 "build-dbg/gen/parser.c"
    break;

  case 109: /* not_test: "'not'" not_test  */
#line 340 "lang/parser.y"
                                                { (yyval.expr) = ex_unop(ctx, (yylsp[-1]), UN_NOT, (yyvsp[0].expr)); }
#line 2402 "build-dbg/gen/parser.c"
    break;

  case 113: /* cmp_chain: bitor cmp_op bitor  */
#line 350 "lang/parser.y"
                                                { (yyval.expr) = ex_cmp(ctx, (yylsp[-1]), (yyvsp[-2].expr), (yyvsp[-1].op), (yyvsp[0].expr)); }
#line 2408 "build-dbg/gen/parser.c"
    break;

  case 114: /* cmp_chain: cmp_chain cmp_op bitor  */
#line 351 "lang/parser.y"
                                                { (yyval.expr) = ex_cmp_push(ctx, (yyvsp[-2].expr), (yyvsp[-1].op), (yyvsp[0].expr)); }
#line 2414 "build-dbg/gen/parser.c"
    break;

  case 115: /* cmp_op: '<'  */
#line 355 "lang/parser.y"
                                                { (yyval.op) = CMP_LT; }
#line 2420 "build-dbg/gen/parser.c"
    break;

  case 116: /* cmp_op: '>'  */
#line 356 "lang/parser.y"
                                                { (yyval.op) = CMP_GT; }
#line 2426 "build-dbg/gen/parser.c"
    break;

  case 117: /* cmp_op: "'=='"  */
#line 357 "lang/parser.y"
                                                { (yyval.op) = CMP_EQ; }
#line 2432 "build-dbg/gen/parser.c"
    break;

  case 118: /* cmp_op: "'!='"  */
#line 358 "lang/parser.y"
                                                { (yyval.op) = CMP_NE; }
#line 2438 "build-dbg/gen/parser.c"
    break;

  case 119: /* cmp_op: "'<='"  */
#line 359 "lang/parser.y"
                                                { (yyval.op) = CMP_LE; }
#line 2444 "build-dbg/gen/parser.c"
    break;

  case 120: /* cmp_op: "'>='"  */
#line 360 "lang/parser.y"
                                                { (yyval.op) = CMP_GE; }
#line 2450 "build-dbg/gen/parser.c"
    break;

  case 121: /* cmp_op: "'in'"  */
#line 361 "lang/parser.y"
                                                { (yyval.op) = CMP_IN; }
#line 2456 "build-dbg/gen/parser.c"
    break;

  case 122: /* cmp_op: "'not'" "'in'"  */
#line 362 "lang/parser.y"
                                                { (yyval.op) = CMP_NOTIN; }
#line 2462 "build-dbg/gen/parser.c"
    break;

  case 123: /* cmp_op: "'is'"  */
#line 363 "lang/parser.y"
                                                { (yyval.op) = CMP_IS; }
#line 2468 "build-dbg/gen/parser.c"
    break;

  case 124: /* cmp_op: "'is'" "'not'"  */
#line 364 "lang/parser.y"
                                                { (yyval.op) = CMP_ISNOT; }
#line 2474 "build-dbg/gen/parser.c"
    break;

  case 126: /* bitor: bitor '|' bitxor  */
#line 369 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_OR, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2480 "build-dbg/gen/parser.c"
    break;

  case 128: /* bitxor: bitxor '^' bitand  */
#line 374 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_XOR, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2486 "build-dbg/gen/parser.c"
    break;

  case 130: /* bitand: bitand '&' shift  */
#line 379 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_AND, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2492 "build-dbg/gen/parser.c"
    break;

  case 132: /* shift: shift "'<<'" arith  */
#line 384 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_LSHIFT, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2498 "build-dbg/gen/parser.c"
    break;

  case 133: /* shift: shift "'>>'" arith  */
#line 385 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_RSHIFT, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2504 "build-dbg/gen/parser.c"
    break;

  case 135: /* arith: arith '+' term  */
#line 390 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_ADD, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2510 "build-dbg/gen/parser.c"
    break;

  case 136: /* arith: arith '-' term  */
#line 391 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_SUB, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2516 "build-dbg/gen/parser.c"
    break;

  case 138: /* term: term '*' factor  */
#line 396 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_MUL, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2522 "build-dbg/gen/parser.c"
    break;

  case 139: /* term: term '/' factor  */
#line 397 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_DIV, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2528 "build-dbg/gen/parser.c"
    break;

  case 140: /* term: term "'//'" factor  */
#line 398 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_FLOORDIV, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2534 "build-dbg/gen/parser.c"
    break;

  case 141: /* term: term '%' factor  */
#line 399 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_MOD, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2540 "build-dbg/gen/parser.c"
    break;

  case 142: /* term: term '@' factor  */
#line 400 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_MATMUL, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2546 "build-dbg/gen/parser.c"
    break;

  case 143: /* factor: '+' factor  */
#line 404 "lang/parser.y"
                                                { (yyval.expr) = ex_unop(ctx, (yylsp[-1]), UN_POS, (yyvsp[0].expr)); }
#line 2552 "build-dbg/gen/parser.c"
    break;

  case 144: /* factor: '-' factor  */
#line 405 "lang/parser.y"
                                                { (yyval.expr) = ex_unop(ctx, (yylsp[-1]), UN_NEG, (yyvsp[0].expr)); }
#line 2558 "build-dbg/gen/parser.c"
    break;

  case 145: /* factor: '~' factor  */
#line 406 "lang/parser.y"
                                                { (yyval.expr) = ex_unop(ctx, (yylsp[-1]), UN_INVERT, (yyvsp[0].expr)); }
#line 2564 "build-dbg/gen/parser.c"
    break;

  case 148: /* power: primary "'**'" factor  */
#line 412 "lang/parser.y"
                                                { (yyval.expr) = ex_binop(ctx, (yylsp[-1]), BIN_POW, (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2570 "build-dbg/gen/parser.c"
    break;

  case 150: /* primary: primary '.' "name"  */
#line 417 "lang/parser.y"
                                                { (yyval.expr) = ex_attr(ctx, (yylsp[0]), (yyvsp[-2].expr), (yyvsp[0].str)); }
#line 2576 "build-dbg/gen/parser.c"
    break;

  case 151: /* primary: primary '(' ')'  */
#line 418 "lang/parser.y"
                                                { (yyval.expr) = ex_call(ctx, (yylsp[-2]), (yyvsp[-2].expr), NULL); }
#line 2582 "build-dbg/gen/parser.c"
    break;

  case 152: /* primary: primary '(' arglist ')'  */
#line 419 "lang/parser.y"
                                                { (yyval.expr) = ex_call(ctx, (yylsp[-3]), (yyvsp[-3].expr), (yyvsp[-1].args)); }
#line 2588 "build-dbg/gen/parser.c"
    break;

  case 153: /* primary: primary '(' arglist ',' ')'  */
#line 420 "lang/parser.y"
                                                { (yyval.expr) = ex_call(ctx, (yylsp[-4]), (yyvsp[-4].expr), (yyvsp[-2].args)); }
#line 2594 "build-dbg/gen/parser.c"
    break;

  case 154: /* primary: primary '[' subscripts ']'  */
#line 421 "lang/parser.y"
                                                { (yyval.expr) = ex_subscript(ctx, (yylsp[-2]), (yyvsp[-3].expr), (yyvsp[-1].exprs)); }
#line 2600 "build-dbg/gen/parser.c"
    break;

  case 155: /* primary: primary '[' subscripts ',' ']'  */
#line 422 "lang/parser.y"
                                                { (yyval.expr) = ex_subscript(ctx, (yylsp[-3]), (yyvsp[-4].expr), (yyvsp[-2].exprs)); }
#line 2606 "build-dbg/gen/parser.c"
    break;

  case 156: /* atom: "name"  */
#line 426 "lang/parser.y"
                                                { (yyval.expr) = ex_name(ctx, (yylsp[0]), (yyvsp[0].str)); }
#line 2612 "build-dbg/gen/parser.c"
    break;

  case 160: /* atom: "'True'"  */
#line 430 "lang/parser.y"
                                                { (yyval.expr) = ex_const(ctx, (yylsp[0]), EX_TRUE); }
#line 2618 "build-dbg/gen/parser.c"
    break;

  case 161: /* atom: "'False'"  */
#line 431 "lang/parser.y"
                                                { (yyval.expr) = ex_const(ctx, (yylsp[0]), EX_FALSE); }
#line 2624 "build-dbg/gen/parser.c"
    break;

  case 162: /* atom: "'None'"  */
#line 432 "lang/parser.y"
                                                { (yyval.expr) = ex_const(ctx, (yylsp[0]), EX_NONE); }
#line 2630 "build-dbg/gen/parser.c"
    break;

  case 163: /* atom: '(' ')'  */
#line 433 "lang/parser.y"
                                                { (yyval.expr) = ex_tuple(ctx, (yylsp[-1]), NULL); }
#line 2636 "build-dbg/gen/parser.c"
    break;

  case 164: /* atom: '(' exprlist ')'  */
#line 434 "lang/parser.y"
                                                { (yyval.expr) = ex_seq(ctx, (yylsp[-2]), (yyvsp[-1].exprs), false); }
#line 2642 "build-dbg/gen/parser.c"
    break;

  case 165: /* atom: '(' exprlist ',' ')'  */
#line 435 "lang/parser.y"
                                                { (yyval.expr) = ex_tuple(ctx, (yylsp[-3]), (yyvsp[-2].exprs)); }
#line 2648 "build-dbg/gen/parser.c"
    break;

  case 166: /* atom: '[' ']'  */
#line 436 "lang/parser.y"
                                                { (yyval.expr) = ex_list(ctx, (yylsp[-1]), NULL); }
#line 2654 "build-dbg/gen/parser.c"
    break;

  case 167: /* atom: '[' exprlist ']'  */
#line 437 "lang/parser.y"
                                                { (yyval.expr) = ex_list(ctx, (yylsp[-2]), (yyvsp[-1].exprs)); }
#line 2660 "build-dbg/gen/parser.c"
    break;

  case 168: /* atom: '[' exprlist ',' ']'  */
#line 438 "lang/parser.y"
                                                { (yyval.expr) = ex_list(ctx, (yylsp[-3]), (yyvsp[-2].exprs)); }
#line 2666 "build-dbg/gen/parser.c"
    break;

  case 169: /* arglist: arg  */
#line 442 "lang/parser.y"
                                                { (yyval.args) = ast_args_push(ctx, NULL, (yyvsp[0].arg)); }
#line 2672 "build-dbg/gen/parser.c"
    break;

  case 170: /* arglist: arglist ',' arg  */
#line 443 "lang/parser.y"
                                                { (yyval.args) = ast_args_push(ctx, (yyvsp[-2].args), (yyvsp[0].arg)); }
#line 2678 "build-dbg/gen/parser.c"
    break;

  case 171: /* arg: test  */
#line 447 "lang/parser.y"
                                                { (yyval.arg) = ast_arg_pos((yylsp[0]), (yyvsp[0].expr)); }
#line 2684 "build-dbg/gen/parser.c"
    break;

  case 172: /* arg: '*' test  */
#line 448 "lang/parser.y"
                                                { (yyval.arg) = ast_arg_pos((yylsp[-1]), ex_star(ctx, (yylsp[-1]), (yyvsp[0].expr))); }
#line 2690 "build-dbg/gen/parser.c"
    break;

  case 173: /* arg: "name" '=' test  */
#line 449 "lang/parser.y"
                                                { (yyval.arg) = ast_arg_kw((yylsp[-2]), (yyvsp[-2].str), (yyvsp[0].expr)); }
#line 2696 "build-dbg/gen/parser.c"
    break;

  case 174: /* subscripts: subscript  */
#line 453 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, NULL, (yyvsp[0].expr)); }
#line 2702 "build-dbg/gen/parser.c"
    break;

  case 175: /* subscripts: subscripts ',' subscript  */
#line 454 "lang/parser.y"
                                                { (yyval.exprs) = ev_push(ctx, (yyvsp[-2].exprs), (yyvsp[0].expr)); }
#line 2708 "build-dbg/gen/parser.c"
    break;

  case 178: /* slice: opt_test ':' opt_test  */
#line 463 "lang/parser.y"
                                                { (yyval.expr) = ex_slice(ctx, (yylsp[-1]), (yyvsp[-2].expr), (yyvsp[0].expr), NULL); }
#line 2714 "build-dbg/gen/parser.c"
    break;

  case 179: /* slice: opt_test ':' opt_test ':' opt_test  */
#line 464 "lang/parser.y"
                                                { (yyval.expr) = ex_slice(ctx, (yylsp[-3]), (yyvsp[-4].expr), (yyvsp[-2].expr), (yyvsp[0].expr)); }
#line 2720 "build-dbg/gen/parser.c"
    break;

  case 180: /* opt_test: %empty  */
#line 468 "lang/parser.y"
                                                { (yyval.expr) = NULL; }
#line 2726 "build-dbg/gen/parser.c"
    break;


#line 2730 "build-dbg/gen/parser.c"

        default: break;
      }
    if (yychar_backup != yychar)
      YY_LAC_DISCARD ("yychar change");
  }
  /* User semantic actions sometimes alter yychar, and that requires
     that yytoken be updated with the new translation.  We take the
     approach of translating immediately before every use of yytoken.
     One alternative is translating here after every semantic action,
     but that translation would be missed if the semantic action invokes
     YYABORT, YYACCEPT, or YYERROR immediately after altering yychar or
     if it invokes YYBACKUP.  In the case of YYABORT or YYACCEPT, an
     incorrect destructor might then be invoked immediately.  In the
     case of YYERROR or YYBACKUP, subsequent parser actions might lead
     to an incorrect destructor call or verbose syntax error message
     before the lookahead is translated.  */
  YY_SYMBOL_PRINT ("-> $$ =", YY_CAST (yysymbol_kind_t, yyr1[yyn]), &yyval, &yyloc);

  YYPOPSTACK (yylen);
  yylen = 0;

  *++yyvsp = yyval;
  *++yylsp = yyloc;

  /* Now 'shift' the result of the reduction.  Determine what state
     that goes to, based on the state we popped back to and the rule
     number reduced by.  */
  {
    const int yylhs = yyr1[yyn] - YYNTOKENS;
    const int yyi = yypgoto[yylhs] + *yyssp;
    yystate = (0 <= yyi && yyi <= YYLAST && yycheck[yyi] == *yyssp
               ? yytable[yyi]
               : yydefgoto[yylhs]);
  }

  goto yynewstate;


/*--------------------------------------.
| yyerrlab -- here on detecting error.  |
`--------------------------------------*/
yyerrlab:
  /* Make sure we have latest lookahead translation.  See comments at
     user semantic actions for why this is necessary.  */
  yytoken = yychar == NREMPTY ? YYSYMBOL_YYEMPTY : YYTRANSLATE (yychar);
  /* If not already recovering from an error, report this error.  */
  if (!yyerrstatus)
    {
      ++yynerrs;
      {
        yypcontext_t yyctx
          = {yyssp, yyesa, &yyes, &yyes_capacity, yytoken, &yylloc};
        if (yychar != NREMPTY)
          YY_LAC_ESTABLISH;
        if (yyreport_syntax_error (&yyctx, ctx) == 2)
          YYNOMEM;
      }
    }

  yyerror_range[1] = yylloc;
  if (yyerrstatus == 3)
    {
      /* If just tried and failed to reuse lookahead token after an
         error, discard it.  */

      if (yychar <= NREOF)
        {
          /* Return failure if at end of input.  */
          if (yychar == NREOF)
            YYABORT;
        }
      else
        {
          yydestruct ("Error: discarding",
                      yytoken, &yylval, &yylloc, ctx);
          yychar = NREMPTY;
        }
    }

  /* Else will try to reuse lookahead token after shifting the error
     token.  */
  goto yyerrlab1;


/*---------------------------------------------------.
| yyerrorlab -- error raised explicitly by YYERROR.  |
`---------------------------------------------------*/
yyerrorlab:
  /* Pacify compilers when the user code never invokes YYERROR and the
     label yyerrorlab therefore never appears in user code.  */
  if (0)
    YYERROR;
  ++yynerrs;

  /* Do not reclaim the symbols of the rule whose action triggered
     this YYERROR.  */
  YYPOPSTACK (yylen);
  yylen = 0;
  YY_STACK_PRINT (yyss, yyssp);
  yystate = *yyssp;
  goto yyerrlab1;


/*-------------------------------------------------------------.
| yyerrlab1 -- common code for both syntax error and YYERROR.  |
`-------------------------------------------------------------*/
yyerrlab1:
  yyerrstatus = 3;      /* Each real token shifted decrements this.  */

  /* Pop stack until we find a state that shifts the error token.  */
  for (;;)
    {
      yyn = yypact[yystate];
      if (!yypact_value_is_default (yyn))
        {
          yyn += YYSYMBOL_YYerror;
          if (0 <= yyn && yyn <= YYLAST && yycheck[yyn] == YYSYMBOL_YYerror)
            {
              yyn = yytable[yyn];
              if (0 < yyn)
                break;
            }
        }

      /* Pop the current state because it cannot handle the error token.  */
      if (yyssp == yyss)
        YYABORT;

      yyerror_range[1] = *yylsp;
      yydestruct ("Error: popping",
                  YY_ACCESSING_SYMBOL (yystate), yyvsp, yylsp, ctx);
      YYPOPSTACK (1);
      yystate = *yyssp;
      YY_STACK_PRINT (yyss, yyssp);
    }

  /* If the stack popping above didn't lose the initial context for the
     current lookahead token, the shift below will for sure.  */
  YY_LAC_DISCARD ("error recovery");

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END

  yyerror_range[2] = yylloc;
  ++yylsp;
  YYLLOC_DEFAULT (*yylsp, yyerror_range, 2);

  /* Shift the error token.  */
  YY_SYMBOL_PRINT ("Shifting", YY_ACCESSING_SYMBOL (yyn), yyvsp, yylsp);

  yystate = yyn;
  goto yynewstate;


/*-------------------------------------.
| yyacceptlab -- YYACCEPT comes here.  |
`-------------------------------------*/
yyacceptlab:
  yyresult = 0;
  goto yyreturnlab;


/*-----------------------------------.
| yyabortlab -- YYABORT comes here.  |
`-----------------------------------*/
yyabortlab:
  yyresult = 1;
  goto yyreturnlab;


/*-----------------------------------------------------------.
| yyexhaustedlab -- YYNOMEM (memory exhaustion) comes here.  |
`-----------------------------------------------------------*/
yyexhaustedlab:
  yyerror (&yylloc, ctx, YY_("memory exhausted"));
  yyresult = 2;
  goto yyreturnlab;


/*----------------------------------------------------------.
| yyreturnlab -- parsing is finished, clean up and return.  |
`----------------------------------------------------------*/
yyreturnlab:
  if (yychar != NREMPTY)
    {
      /* Make sure we have latest lookahead translation.  See comments at
         user semantic actions for why this is necessary.  */
      yytoken = YYTRANSLATE (yychar);
      yydestruct ("Cleanup: discarding lookahead",
                  yytoken, &yylval, &yylloc, ctx);
    }
  /* Do not reclaim the symbols of the rule whose action triggered
     this YYABORT or YYACCEPT.  */
  YYPOPSTACK (yylen);
  YY_STACK_PRINT (yyss, yyssp);
  while (yyssp != yyss)
    {
      yydestruct ("Cleanup: popping",
                  YY_ACCESSING_SYMBOL (+*yyssp), yyvsp, yylsp, ctx);
      YYPOPSTACK (1);
    }
#ifndef yyoverflow
  if (yyss != yyssa)
    YYSTACK_FREE (yyss);
#endif
  if (yyes != yyesa)
    YYSTACK_FREE (yyes);

  return yyresult;
}

#line 472 "lang/parser.y"


/* Bison's symbol names are the aliases above ("'if'", "name"); parse.c words the
 * message. Custom reporting is how we get at the expected tokens. */
static int yyreport_syntax_error(const yypcontext_t *yc, ParseCtx *ctx) {
    yysymbol_kind_t kinds[YYNTOKENS];
    const char *names[YYNTOKENS];
    int n = yypcontext_expected_tokens(yc, kinds, YYNTOKENS);
    if (n < 0) n = 0;
    for (int i = 0; i < n; i++) names[i] = yysymbol_name(kinds[i]);
    nr_syntax_error(ctx, *yypcontext_location(yc), yysymbol_name(yypcontext_token(yc)), names, n);
    return 0;
}
