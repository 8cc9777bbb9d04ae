/* test_constexpr_call.c - nr_compile_options.constexpr_call: functions decorated
 * @triton.constexpr_function that the host evaluates (as Python does for Triton). A C
 * callback stands in for Python here: it records the argument text the compiler hands it
 * and answers from a table; the kernels store what the calls gave, run on the CPU. */
#include <stdio.h>

#include "lang_harness.h"

typedef struct Host {
    int calls;
    char last_fn[64], last_args[512];
    const char *reply; /* the result's text; NULL: decline */
    int rc;            /* 0, 1 or -1 */
} Host;

static int host_call(void *user, const char *function, const char *args, char *result,
                     size_t result_size) {
    Host *h = user;
    h->calls++;
    snprintf(h->last_fn, sizeof h->last_fn, "%s", function);
    snprintf(h->last_args, sizeof h->last_args, "%s", args);
    if (h->rc == -1) snprintf(result, result_size, "ValueError: no format for that dtype");
    else if (h->reply) snprintf(result, result_size, "%s", h->reply);
    return h->rc;
}

/* src compiled with the host callback and defines "A=1 ..." (none: NULL); its kernel k */
static nr_kernel *build_host(Host *h, const char *src) {
    nr_compile_options o = {.constexpr_call = host_call, .constexpr_user = h};
    nr_module *m = NULL;
    nr_status s = nr_compile_source(ctx, src, strlen(src), "test.nr", &o, &m);
    if (s != NR_OK) {
        CHECK(false, "compile: %s", nr_last_error(ctx));
        return NULL;
    }
    if (nmods < 256) mods[nmods++] = m;
    nr_kernel *k = NULL;
    nr_module_get_kernel(m, "k", &k);
    return k;
}

/* k launched once on one 4-byte output, which comes back in *out */
static void run_one(nr_kernel *k, void *out) {
    nr_devptr d = dev_from(NULL, 4);
    RUN(k, 1, 1, 1, nr_arg_ptr(d));
    dev_to(out, d, 4);
    nr_free(ctx, d);
}

static const char *K_ARGS =
    "@triton.constexpr_function\n"
    "def pick(a, b, c, d, e, f, g=(1, (2.5, None)), h=(7,)):\n"
    "    return a\n"
    "\n"
    "@triton.jit\n"
    "def k(x: *i32):\n"
    "    v: tl.constexpr = pick(16, -2.0, 'it\\'s a \\\\ \\n', True, tl.float16, "
    "tl.pointer_type(tl.int8))\n"
    "    tl.store(x, v[0] + v[1])\n";

/* the arguments' text: every parameter, defaults included, as Python literals */
static void test_arguments_and_result(void) {
    Host h = {.reply = "(40, 2)"};
    nr_kernel *k = build_host(&h, K_ARGS);
    if (!k) return;
    CHECK(h.calls == 1 && !strcmp(h.last_fn, "pick"), "one call of pick: %d, %s", h.calls,
          h.last_fn);
    const char *want = "16, -2.0, 'it\\'s a \\\\ \\x0a', True, tl.float16, "
                       "tl.pointer_type(tl.int8), (1, (2.5, None)), (7, )";
    CHECK(!strcmp(h.last_args, want), "arguments: got <%s>, want <%s>", h.last_args, want);
    int32_t x = 0;
    run_one(k, &x);
    CHECK(x == 42, "the host's (40, 2): %d", x);
    /* floats that print as integers stay floats; inf and nan */
    Host f = {.reply = "tl.bfloat16"};
    nr_kernel *k2 = build_host(&f, "@triton.constexpr_function\n"
                                   "def dt(a, b, c):\n"
                                   "    return tl.float32\n"
                                   "\n"
                                   "@triton.jit\n"
                                   "def k(x: *fp32):\n"
                                   "    D: tl.constexpr = dt(3.0, float('inf'), -float('inf'))\n"
                                   "    tl.store(x, tl.full((), 1.00390625, tl.float32).to(D).to("
                                   "tl.float32))\n");
    if (!k2) return;
    CHECK(!strcmp(f.last_args, "3.0, float('inf'), -float('inf')"), "floats: <%s>", f.last_args);
    float y = 0;
    run_one(k2, &y);
    CHECK(y == 1.0f, "the host's tl.bfloat16 (1.00390625 rounds to 1 in bf16): %g", y);
}

static const char *K_DECLINE = "@triton.constexpr_function\n"
                               "def width(n):\n"
                               "    m = 1\n"
                               "    while m < n:\n"
                               "        m = m * 2\n"
                               "    return m\n"
                               "\n"
                               "@triton.jit\n"
                               "def k(x: *i32, N: tl.constexpr):\n"
                               "    tl.store(x, width(N))\n";

/* a declined call (1) compiles the body; no callback does too; a block argument is not
 * handed to the host */
static void test_decline_and_fallback(void) {
    const char *src = "@triton.constexpr_function\n"
                      "def width(n):\n"
                      "    return n * 2\n"
                      "\n"
                      "@triton.jit\n"
                      "def k(x: *i32):\n"
                      "    tl.store(x, width(21))\n"
                      "    v = tl.load(x + tl.arange(0, 2))\n"
                      "    tl.store(x + 1 + tl.arange(0, 2), width(v))\n";
    Host h = {.rc = 1};
    nr_kernel *k = build_host(&h, src);
    if (!k) return;
    CHECK(h.calls == 1, "declined: asked once (the block argument is not the host's): %d", h.calls);
    nr_devptr dx = dev_from(NULL, 12);
    RUN(k, 1, 1, 1, nr_arg_ptr(dx));
    int32_t x[3];
    dev_to(x, dx, sizeof x);
    CHECK(x[0] == 42 && x[1] == 84, "the body compiled: %d %d", x[0], x[1]);
    nr_free(ctx, dx);
    /* without a callback, the body (whose loop the compiler runs at compile time) */
    nr_kernel *k2 = BUILD(K_DECLINE, "N=100");
    if (!k2) return;
    int32_t y = 0;
    run_one(k2, &y);
    CHECK(y == 128, "no callback: the body: %d", y);
    /* a function without the decorator is never the host's */
    Host none = {.reply = "0"};
    nr_kernel *k3 = build_host(&none, "def plain(n):\n"
                                      "    return n + 1\n"
                                      "\n"
                                      "@triton.jit\n"
                                      "def k(x: *i32):\n"
                                      "    tl.store(x, plain(41))\n");
    CHECK(k3 && none.calls == 0, "an undecorated helper: %d host calls", none.calls);
}

/* -1: the host's error is the compile error, at the call */
static void test_error(void) {
    Host h = {.rc = -1};
    nr_compile_options o = {.constexpr_call = host_call, .constexpr_user = &h};
    const char *src = "@triton.constexpr_function\n"
                      "def fmt(dt):\n"
                      "    return 'fp16'\n"
                      "\n"
                      "@triton.jit\n"
                      "def k(x: *i32):\n"
                      "    F: tl.constexpr = fmt(tl.int8)\n"
                      "    tl.store(x, len(F))\n";
    nr_module *m = NULL;
    nr_status s = nr_compile_source(ctx, src, strlen(src), "test.nr", &o, &m);
    CHECK(s == NR_ERR_COMPILE &&
              strstr(nr_last_error(ctx), "test.nr:7:23: error: constexpr function 'fmt' raised: "
                                         "ValueError: no format for that dtype"),
          "the host's error: %s: %s", nr_status_string(s), nr_last_error(ctx));
    if (s == NR_OK) nr_module_destroy(m);
}

int main(void) {
    if (nr_context_create(NR_DEVICE_CPU, 0, &ctx) != NR_OK) return 1;
    test_arguments_and_result();
    test_decline_and_fallback();
    test_error();
    for (int i = 0; i < nmods; i++) nr_module_destroy(mods[i]);
    nr_context_destroy(ctx);
    return check_done("test_constexpr_call", &st);
}
