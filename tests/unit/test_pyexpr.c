/* test_pyexpr.c - the evaluator of decorator arguments (lang/pyexpr.h) against Python's
 * own answers: each expression's value printed as Python's repr would print it, or the
 * error it must report (with its column). The expected values were produced by CPython. */
#include <string.h>

#include "check.h"
#include "lang/pyexpr.h"

typedef struct {
    const char *expr;
    const char *want; /* the repr, or "error: ..." (a substring of the diagnostic) */
} Case;

static const Case cases[] = {
    {"1 + 2 * 3", "7"},
    {"-7 // 2, -7 % 2, 7 // -2, 7 % -2", "(-4, 1, -4, -1)"},
    {"7 / 2, 2 ** 10, 2 ** -1, -2 ** 2", "(3.5, 1024, 0.5, -4)"},
    {"1 << 4 | 3, 0xff & 0b1010, 0o17 ^ 1, ~5", "(19, 10, 14, -6)"},
    {"1_000_000 + 1.5e3", "1001500.0"},
    {"0.1 + 0.2, 1e16, 1.5e-5, 0.0001, -2.5, 1e300 * 1e10, 100.0",
     "(0.30000000000000004, 1e+16, 1.5e-05, 0.0001, -2.5, inf, 100.0)"},
    {"1 < 2 < 3, 1 < 3 < 2, 2 == 2.0, 'a' < 'b'", "(True, False, True, True)"},
    {"None is None, 1 is not None, 3 in [1, 2, 3], 'x' not in 'abc'", "(True, True, True, True)"},
    {"0 or 'b', 2 and 3, not 0, [] or None", "('b', 3, True, None)"},
    {"'yes' if 3 > 2 else 'no'", "'yes'"},
    {"[x * x for x in range(5) if x % 2 == 0]", "[0, 4, 16]"},
    {"[(a, b) for a in (1, 2) for b in (4, 8)]", "[(1, 4), (1, 8), (2, 4), (2, 8)]"},
    {"{k: v for k, v in zip('ab', [1, 2])}", "{'a': 1, 'b': 2}"},
    {"{**{'a': 1}, 'b': 2}", "{'a': 1, 'b': 2}"},
    {"[*range(3), *[7]]", "[0, 1, 2, 7]"},
    {"(lambda a, b=10, *rest, **kw: (a, b, rest, kw))(1, 2, 3, z=4)", "(1, 2, (3,), {'z': 4})"},
    {"(lambda args: args['n'] % 16 == 0)({'n': 64})", "True"},
    {"min(3, 1, 2), max([4, 9, 2]), len('abcd'), abs(-3.5), sum([1, 2, 3])", "(1, 9, 4, 3.5, 6)"},
    {"sorted([3, 1, 2], reverse=True), sorted(['bb', 'a'], key=len)", "([3, 2, 1], ['a', 'bb'])"},
    {"int(3.9), int('-12'), float(2), bool([]), str(12), round(2.5), round(3.5)",
     "(3, -12, 2.0, False, '12', 2, 4)"},
    {"list(enumerate('ab')), dict([(1, 2)]), tuple([1])", "([(0, 'a'), (1, 'b')], {1: 2}, (1,))"},
    {"any([0, 1]), all([1, 0]), [1, 2, 3][-1], [1, 2, 3, 4][1:3], 'hello'[::-1]",
     "(True, False, 3, [2, 3], 'olleh')"},
    {"triton.cdiv(10, 4), triton.next_power_of_2(100), tl.cdiv(-7, 2)", "(3, 128, -3)"},
    {"math.ceil(2.1), math.floor(-2.1), math.log2(8), math.sqrt(16)", "(3, -3, 3.0, 4.0)"},
    {"'ab' + 'c', [1] * 3, (1,) + (2,), 'a' 'b'", "('abc', [1, 1, 1], (1, 2), 'ab')"},
    {"f\"{'c'}_ptr{1 + 1}\", r'\\n', b'x'.decode() if False else 1", "('c_ptr2', '\\\\n', 1)"},
    {"{'a': 1}.get('b', 5), list({'a': 1}.items()), 'abc'.startswith('ab')",
     "(5, [('a', 1)], True)"},
    {"[c.kwargs['B'] for c in [triton.Config({'B': 4}, num_warps=2)]]", "[4]"},
    {"triton.Config({'B': 4}, num_stages=2).all_kwargs()",
     "{'B': 4, 'num_warps': 4, 'num_stages': 2}"},
    {"2 ** 62 * 2", "error: 1:9: error: integer overflow"},
    {"1 // 0", "error: 1:3: error: integer division or modulo by zero"},
    {"undefined_thing + 1", "error: 1:1: error: cannot evaluate 'undefined_thing' here"},
    {"[1, 2][5]", "error: index 5 out of range"},
    {"{'a': 1}['b']", "error: key 'b' is not in the dict"},
    {"1 < 'a'", "error: cannot order a int and a str"},
    {"(lambda x: x)()", "error: the lambda's parameter 'x' has no value"},
    {"triton.Config({'B': 1}, pre_hook=lambda a: a)", "error: a config's pre_hook cannot run here"},
    {"range(10 ** 9)", "error: evaluation takes too long"},
    {"3j", "error: complex numbers are not supported"},
    {"99999999999999999999", "error: integer literal does not fit in 64 bits"},
    {"'abc", "error: unterminated string"},
    {"(1, 2", "error: expected ')'"},
    {"[1, 2)", "error: expected ']'"},
    {"1 +", "error: expected an expression"},
    {"12abc", "error: invalid number literal"},
    {"((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
     "(((((((("
     "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
     "(((((((("
     "1",
     "error: nested too deeply"},
};

/* Evaluate one case's expression: its repr, or "error: " and the diagnostic. */
static void run_case(const Case *k, StrBuf *got) {
    Source src = {"expr.py", k->expr, strlen(k->expr)};
    Arena *a = arena_new();
    Diag diag;
    diag_init(&diag);
    jmp_buf fail;
    PyCtx c;
    memset(&c, 0, sizeof c);
    c.arena = a, c.src = &src, c.diag = &diag, c.fail = &fail, c.steps = 1000 * 1000;
    if (setjmp(fail)) {
        sb_puts(got, "error: ");
        sb_puts(got, sb_cstr(&diag.out));
    } else {
        size_t end;
        PyNode *n = py_parse_expr_at(&c, 0, &end);
        if (end != src.len) py_error(&c, (Loc){&src, 1, (int)end + 1}, "trailing text");
        py_print(got, py_eval(&c, n, NULL), true);
    }
    diag_free(&diag);
    arena_free(a);
}

int main(void) {
    CheckState st = {0, 0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        StrBuf got;
        sb_init(&got);
        run_case(&cases[i], &got);
        bool is_err = !strncmp(cases[i].want, "error: ", 7);
        bool ok = is_err ? !strncmp(sb_cstr(&got), "error: ", 7) &&
                               strstr(sb_cstr(&got), cases[i].want + 7)
                         : !strcmp(sb_cstr(&got), cases[i].want);
        CHECK_AT(&st, ok, "%s\n    want: %s\n    got:  %s", cases[i].expr, cases[i].want,
                 sb_cstr(&got));
        sb_free(&got);
    }
    return check_done("test_pyexpr", &st);
}
