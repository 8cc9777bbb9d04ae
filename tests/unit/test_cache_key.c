/* test_cache_key.c - the disk cache's key (runtime/cache_key.c), the one place that decides
 * what a cached cubin depends on: every input changes the key, no two different inputs
 * give one key however their strings are made (separators, lengths, NUL bytes in the
 * source), the same input always gives the same key, and the build part names this
 * compiler (version, build id, LLVM). */
#include <stdlib.h>

#include "check.h"
#include "driver/driver.h"
#include "nereid.h"
#include "runtime/cache_key.h"

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

enum { MAX_KEYS = 64 };
typedef struct Keys {
    char *text[MAX_KEYS];
    size_t len[MAX_KEYS];
    const char *what[MAX_KEYS];
    int n;
} Keys;

static const char source[] = "@triton.jit\ndef k(x: *fp32):\n    pass\n";
static const SemaDefine defs2[] = {{"BLOCK", "128"}, {"ACT", "relu"}};

static CacheKeyInput base(void) {
    return (CacheKeyInput){.llvm_version = {19, 1, 7},
                           .arch = "sm_90a",
                           .compute_capability = 90,
                           .driver_version = 13000,
                           .kernel = "k",
                           .variant = "d:4",
                           .num_warps = 0,
                           .only_kernel = NULL,
                           .defines = defs2,
                           .ndefines = 2,
                           .file = "k.nr",
                           .source = source,
                           .source_len = sizeof source - 1};
}

/* Make in's key, check its build part, and check it differs from every key so far. */
static void add(Keys *ks, const char *what, CacheKeyInput in) {
    StrBuf build, text, want;
    sb_init(&build), sb_init(&text), sb_init(&want);
    cache_key_make(&in, &build, &text);
    sb_printf(&want, "nereid %s build %s LLVM %u.%u.%u", NEREID_VERSION, driver_build_id,
              in.llvm_version[0], in.llvm_version[1], in.llvm_version[2]);
    CHECK(!strcmp(sb_cstr(&build), sb_cstr(&want)), "%s: build part '%s', want '%s'", what,
          sb_cstr(&build), sb_cstr(&want));
    CHECK(text.len > build.len && !memcmp(text.data, build.data, build.len),
          "%s: the text should start with the build", what);
    for (int i = 0; i < ks->n; i++)
        CHECK(ks->len[i] != text.len || memcmp(ks->text[i], text.data, text.len),
              "'%s' and '%s' give the same key", ks->what[i], what);
    if (ks->n < MAX_KEYS) {
        ks->text[ks->n] = malloc(text.len + 1);
        memcpy(ks->text[ks->n], text.data, text.len + 1);
        ks->len[ks->n] = text.len;
        ks->what[ks->n++] = what;
    }
    /* the same input, the same key */
    StrBuf b2, t2;
    sb_init(&b2), sb_init(&t2);
    cache_key_make(&in, &b2, &t2);
    CHECK(t2.len == text.len && !memcmp(t2.data, text.data, text.len), "%s: not deterministic",
          what);
    sb_free(&b2), sb_free(&t2), sb_free(&build), sb_free(&text), sb_free(&want);
}

int main(void) {
    Keys ks = {0};
    CacheKeyInput in = base();
    add(&ks, "base", in);

    /* each input on its own */
    in = base(), in.arch = "sm_80", add(&ks, "arch", in);
    in = base(), in.compute_capability = 89, add(&ks, "compute capability", in);
    in = base(), in.driver_version = 12080, add(&ks, "driver", in);
    in = base(), in.libdevice = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc:491504:1700000000",
    add(&ks, "libdevice", in);
    in = base(), in.libdevice = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc:491504:1700000001",
    add(&ks, "libdevice's time", in);
    in = base(), in.kernel = "k2", add(&ks, "kernel", in);
    in = base(), in.variant = "n:4", add(&ks, "variant facts", in);
    in = base(), in.variant = "d:8", add(&ks, "variant warps", in);
    in = base(), in.num_warps = 8, add(&ks, "num_warps option", in);
    in = base(), in.num_stages = 4, add(&ks, "num_stages option", in);
    in = base(), in.variant = "d:4:4", add(&ks, "variant stages", in);
    in = base(), in.code.maxnreg = 42, add(&ks, "maxnreg", in);
    in = base(), in.code.fp_fusion = true, add(&ks, "enable_fp_fusion", in);
    in = base(), in.code.reflect_ftz = true, add(&ks, "enable_reflect_ftz", in);
    in = base(), in.debug = 1, add(&ks, "debug on", in);
    in = base(), in.debug = -1, add(&ks, "debug off", in);
    in = base(), in.only_kernel = "k", add(&ks, "only_kernel", in);
    in = base(), in.ndefines = 1, add(&ks, "one define fewer", in);
    in = base(), in.ndefines = 0, add(&ks, "no defines", in);
    static const SemaDefine swapped[] = {{"ACT", "relu"}, {"BLOCK", "128"}};
    in = base(), in.defines = swapped, add(&ks, "defines in another order", in);
    static const SemaDefine value[] = {{"BLOCK", "256"}, {"ACT", "relu"}};
    in = base(), in.defines = value, add(&ks, "a define's value", in);
    in = base(), in.file = "other.nr", add(&ks, "file name", in);
    static const char source2[] = "@triton.jit\ndef k(x: *fp32):\n    pass \n";
    in = base(), in.source = source2, in.source_len = sizeof source2 - 1,
    add(&ks, "source text", in);

    /* strings that try to forge separators */
    static const SemaDefine one[] = {{"A", "1;-D1:B=1:2"}};
    static const SemaDefine two[] = {{"A", "1"}, {"B", "2"}};
    in = base(), in.defines = one, in.ndefines = 1, add(&ks, "a define holding '-D'", in);
    in = base(), in.defines = two, in.ndefines = 2, add(&ks, "two defines", in);
    static const SemaDefine eq1[] = {{"A=1", "2"}};
    static const SemaDefine eq2[] = {{"A", "1=2"}};
    in = base(), in.defines = eq1, in.ndefines = 1, add(&ks, "'=' in a define's name", in);
    in = base(), in.defines = eq2, in.ndefines = 1, add(&ks, "'=' in a define's value", in);
    in = base(), in.kernel = "k|variant=3:d:4", add(&ks, "a kernel name holding a field", in);
    in = base(), in.file = "k.nr|source=1:x", in.source_len = 0,
    add(&ks, "a file name holding the source field", in);
    in = base(), in.only_kernel = "*", add(&ks, "only_kernel '*'", in);

    /* the source's length, and NUL bytes in it (the key covers source_len bytes) */
    static const char nul[] = "a\0b";
    in = base(), in.source = nul, in.source_len = 1, add(&ks, "source 'a'", in);
    in = base(), in.source = nul, in.source_len = 3, add(&ks, "source 'a\\0b'", in);
    static const char nul2[] = "a\0c";
    in = base(), in.source = nul2, in.source_len = 3, add(&ks, "source 'a\\0c'", in);

    /* another LLVM is another build: its build part differs too */
    in = base(), in.llvm_version[2] = 8, add(&ks, "LLVM patch version", in);
    StrBuf b1, b2, t;
    sb_init(&b1), sb_init(&b2), sb_init(&t);
    in = base(), cache_key_make(&in, &b1, &t);
    in.llvm_version[0] = 20, cache_key_make(&in, &b2, &t);
    CHECK(strcmp(sb_cstr(&b1), sb_cstr(&b2)) != 0,
          "the build identity should change with LLVM's version");
    sb_free(&b1), sb_free(&b2), sb_free(&t);

    for (int i = 0; i < ks.n; i++) free(ks.text[i]);
    return check_done("test_cache_key", &st);
}
