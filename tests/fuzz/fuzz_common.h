/* fuzz_common.h - what the two libFuzzer harnesses share: reading `nereid` options out of
 * the input's lit-style "RUN:" lines, and turning a broken promise (a failure with no
 * error, an internal error reported as a diagnostic) into a crash libFuzzer records.
 *
 * Options in RUN lines. A seed taken from tests/lit carries the flags its test runs it
 * with ("// RUN: %nereid opt --passes=canonicalize %s", "# RUN: ... -D BLOCK_SIZE=1024");
 * the harnesses read the same flags from every line that contains "RUN:", so each seed is
 * compiled the way its test compiles it, and the fuzzer can mutate the flags too. Every
 * other line is ignored for this purpose. The harnesses print the equivalent `nereid`
 * command line when NEREID_FUZZ_VERBOSE is set, to reproduce a finding with the CLI. */
#ifndef NEREID_FUZZ_COMMON_H
#define NEREID_FUZZ_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/support/support.h"

/* One whitespace-separated word of a RUN line: [start, start + len). */
typedef struct FuzzWord {
    const char *start;
    size_t len;
} FuzzWord;

/* Calls fn(word, next_word_or_empty, ctx) for every word of every line containing "RUN:";
 * at most max_words words in all (a mutated input may hold thousands). */
static inline void fuzz_for_each_run_word(const char *text, size_t len, int max_words,
                                          void (*fn)(FuzzWord w, FuzzWord next, void *ctx),
                                          void *ctx) {
    const char *end = text + len;
    int seen = 0;
    for (const char *line = text; line < end && seen < max_words;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol) eol = end;
        bool is_run = false;
        for (const char *p = line; p + 4 <= eol; p++)
            if (!memcmp(p, "RUN:", 4)) {
                is_run = true;
                break;
            }
        if (is_run) {
            FuzzWord words[64];
            int n = 0;
            for (const char *p = line; p < eol && n < 64;) {
                while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
                const char *s = p;
                while (p < eol && *p != ' ' && *p != '\t' && *p != '\r') p++;
                if (p > s) words[n++] = (FuzzWord){s, (size_t)(p - s)};
            }
            for (int i = 0; i < n && seen < max_words; i++, seen++)
                fn(words[i], i + 1 < n ? words[i + 1] : (FuzzWord){"", 0}, ctx);
        }
        line = eol + 1;
    }
}

static inline bool fuzz_word_prefix(FuzzWord w, const char *prefix) {
    size_t n = strlen(prefix);
    return w.len >= n && !memcmp(w.start, prefix, n);
}

static inline bool fuzz_word_is(FuzzWord w, const char *s) {
    return w.len == strlen(s) && !memcmp(w.start, s, w.len);
}

/* A NUL-terminated arena copy of w without its first skip bytes. */
static inline char *fuzz_word_str(Arena *a, FuzzWord w, size_t skip) {
    return arena_strndup(a, w.start + skip, w.len - skip);
}

static inline bool fuzz_env_flag(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* Byte comparison kept out of the fuzzer's sight: with the comparison instrumented,
 * libFuzzer learns "error: internal error" from it and writes it into a source line,
 * which the diagnostic then quotes. (Only clang knows the attribute; other compilers
 * build the harnesses for replaying inputs only.) */
#if defined(__clang__)
#define FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define FUZZ_NO_COVERAGE
#endif

FUZZ_NO_COVERAGE static inline bool fuzz_starts_with(const char *p, const char *end,
                                                     const char *s) {
    for (; *s; p++, s++)
        if (p >= end || *p != *s) return false;
    return true;
}

/* True if a diagnostic header line of d (not a quoted source line: those start with
 * neither "nereid: " nor the file name followed by ":LINE:COL: ") reports an internal
 * error. With unlocated set, true instead if an error has no location ("nereid: error:")
 * and is not about a command-line option (-D, -k), which have no place in the source. */
FUZZ_NO_COVERAGE static inline bool fuzz_has_internal_error(const Diag *d, const char *src_name,
                                                            bool unlocated) {
    const char *text = d->out.data ? d->out.data : "", *end = text + d->out.len;
    for (const char *line = text; line < end;) {
        const char *eol = line;
        while (eol < end && *eol != '\n') eol++;
        const char *p = NULL; /* the text after the location, on a header line */
        bool no_loc = false;
        if (fuzz_starts_with(line, eol, "nereid: ")) {
            p = line + 8;
            no_loc = true;
        } else if (fuzz_starts_with(line, eol, src_name)) {
            p = line + strlen(src_name);
            for (int k = 0; k < 2 && p; k++) { /* :LINE:COL */
                if (p < eol && *p == ':' && p + 1 < eol && p[1] >= '0' && p[1] <= '9') {
                    p++;
                    while (p < eol && *p >= '0' && *p <= '9') p++;
                } else {
                    p = NULL;
                }
            }
            if (p && fuzz_starts_with(p, eol, ": ")) p += 2;
            else p = NULL;
        }
        if (unlocated) {
            if (no_loc && fuzz_starts_with(p, eol, "error: ") &&
                !fuzz_starts_with(p, eol, "error: -D ") &&
                !fuzz_starts_with(p, eol, "error: no kernel named "))
                return true;
        } else if (p && fuzz_starts_with(p, eol, "error: internal error")) {
            return true;
        }
        line = eol + 1;
    }
    return false;
}

/* The promise: a failure comes with at least one error, no error is an internal one (a
 * verifier failure after a pass, invalid LLVM IR, ...: those are compiler bugs), and
 * every error has a source location (except those about -D and -k options). */
static inline void fuzz_check_diag(const Diag *d, bool ok, const char *stage,
                                   const char *src_name) {
    const char *text = d->out.data ? d->out.data : "";
    if (!ok && d->nerrors == 0) {
        fprintf(stderr, "==fuzz== %s failed without reporting an error; diagnostics:\n%s\n", stage,
                text);
        abort();
    }
    if (fuzz_has_internal_error(d, src_name, false) &&
        !fuzz_env_flag("NEREID_FUZZ_ALLOW_INTERNAL")) {
        fprintf(stderr, "==fuzz== internal error reported by %s:\n%s\n", stage, text);
        abort();
    }
    if (fuzz_has_internal_error(d, src_name, true) &&
        !fuzz_env_flag("NEREID_FUZZ_ALLOW_UNLOCATED")) {
        fprintf(stderr, "==fuzz== error without a source location reported by %s:\n%s\n", stage,
                text);
        abort();
    }
}

#endif
