/* cli.c - the `nereid` command: `nereid compile` runs the pipeline on a kernel file and
 * prints the requested stage; `nereid opt` runs passes on textual IR (for tests).
 * Exit status: 0 success, 1 compile error, 2 usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "driver.h"
#include "nereid.h"
#include "passes/passes.h"

static const char usage_text[] =
    "usage: nereid compile FILE.nr [-k KERNEL] [-D NAME=VALUE]... [--emit=ast|ir|ir-opt]\n"
    "                      [-o OUT] [--print-after-all] [--num-warps=N]\n"
    "       nereid opt FILE.nrir [--passes=inline,canonicalize,cse,dce] [--print-after-all]\n"
    "       nereid --help | --version\n"
    "\n"
    "compile: parse, check and lower every kernel of FILE.nr (or only KERNEL) to IR and\n"
    "optimise it. -D gives a constexpr parameter its value (ints, floats, True/False;\n"
    "anything else is a string). --emit prints a stage: the syntax tree, the IR as\n"
    "lowered, or the IR after the passes (to OUT, or standard output). Diagnostics go to\n"
    "standard error.\n";

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "nereid: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return 2;
}

typedef struct CliArgs {
    const char *file, *out, *kernel;
    SemaDefine defines[256];
    int ndefines;
    NrCompileOptions o;
} CliArgs;

static int parse_emit(CliArgs *a, const char *v) {
    a->o.emit = true;
    if (!strcmp(v, "ast")) a->o.stop_after = NR_STAGE_AST;
    else if (!strcmp(v, "ir")) a->o.stop_after = NR_STAGE_IR;
    else if (!strcmp(v, "ir-opt")) a->o.stop_after = NR_STAGE_IR_OPT;
    else return usage_error("unknown --emit value '%s' (ast, ir, ir-opt)", v);
    return 0;
}

static int add_define(CliArgs *a, char *def) {
    char *eq = strchr(def, '=');
    if (!eq || eq == def) return usage_error("-D takes NAME=VALUE, got '%s'", def);
    if (a->ndefines == 256) return usage_error("too many -D options%s", "");
    *eq = 0;
    a->defines[a->ndefines++] = (SemaDefine){def, eq + 1};
    return 0;
}

static int parse_args(int argc, char **argv, CliArgs *a) {
    a->o.stop_after = NR_STAGE_IR_OPT;
    for (int i = 2; i < argc; i++) {
        char *s = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0;
        if (!strcmp(s, "-k") || !strcmp(s, "-o") || !strcmp(s, "-D")) {
            if (!next) return usage_error("%s needs a value", s);
            if (s[1] == 'k') a->kernel = next;
            else if (s[1] == 'o') a->out = next;
            else rc = add_define(a, argv[i + 1]);
            i++;
        } else if (!strncmp(s, "-D", 2)) rc = add_define(a, s + 2);
        else if (!strncmp(s, "--emit=", 7)) rc = parse_emit(a, s + 7);
        else if (!strcmp(s, "--print-after-all")) a->o.print_after_all = true;
        else if (!strncmp(s, "--num-warps=", 12)) {
            a->o.num_warps = atoi(s + 12);
            if (a->o.num_warps <= 0 || a->o.num_warps > 32 || (a->o.num_warps & (a->o.num_warps - 1)))
                return usage_error("--num-warps must be a power of two from 1 to 32, got '%s'", s + 12);
        } else if (s[0] == '-' && s[1]) return usage_error("unknown option '%s'", s);
        else if (a->file) return usage_error("more than one input file ('%s')", s);
        else a->file = s;
        if (rc) return rc;
    }
    if (!a->file) return usage_error("no input file%s", "");
    if (a->out && !a->o.emit) a->o.emit = true; /* -o alone writes the optimised IR */
    a->o.defines = a->defines;
    a->o.ndefines = a->ndefines;
    a->o.only_kernel = a->kernel;
    return 0;
}

static int write_output(const char *path, StrBuf *text) {
    if (!path || !strcmp(path, "-")) {
        fwrite(sb_cstr(text), 1, text->len, stdout);
        return 0;
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(sb_cstr(text), 1, text->len, f) != text->len || fclose(f)) {
        if (f) fclose(f);
        fprintf(stderr, "nereid: cannot write '%s'\n", path);
        return 1;
    }
    return 0;
}

static int cmd_compile(int argc, char **argv) {
    CliArgs a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    size_t len;
    char *text = read_file(a.file, &len);
    if (!text) {
        fprintf(stderr, "nereid: cannot read '%s'\n", a.file);
        return 1;
    }
    Source src = {a.file, text, len};
    Diag diag;
    diag_init(&diag);
    StrBuf dump;
    sb_init(&dump);
    NrProgram prog;
    bool ok = nr_compile_program(&src, &a.o, &diag, &dump, &prog);
    fputs(sb_cstr(&diag.out), stderr);
    rc = ok ? 0 : 1;
    if (ok) {
        if (a.o.emit || a.o.print_after_all) rc = write_output(a.out, &dump);
        nr_program_free(&prog);
    }
    sb_free(&dump);
    diag_free(&diag);
    free(text);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage_error("no command%s", "");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        unsigned major, minor, patch;
        LLVMGetVersion(&major, &minor, &patch); /* the LLVM the back end is built with */
        printf("nereid %s (LLVM %u.%u.%u)\n", NEREID_VERSION, major, minor, patch);
        return 0;
    }
    if (!strcmp(cmd, "compile")) return cmd_compile(argc, argv);
    if (!strcmp(cmd, "opt")) return nr_opt_main(argc - 1, argv + 1);
    return usage_error("unknown command '%s' (compile, opt)", cmd);
}
