/* api.c - the C API's entry points that join the runtime's parts (include/nereid.h): a
 * compile registers its module with the context and sets up its tuned kernels; a launch
 * goes to the tuner for a tuned kernel, else straight to the device; destroying a module
 * or a context takes everything they own with them. The parts: contexts and streams
 * (context.c), memory (memory.c), modules (module.c), arguments (args.c), the devices
 * (launch_cpu.c, launch_cuda.c), faults (fault.c), tuning (autotune.c, tuner.c), copies
 * between contexts (peer.c). No global state: everything hangs off the context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "autotune.h"
#include "compiler/support/options.h"
#include "compiler/support/parallel.h"
#include "context.h"
#include "fault.h"
#include "launch.h"
#include "launch_cuda.h"
#include "module.h"
#include "status.h"

/* ---- compiling ---- */

static nr_status register_module(nr_context *ctx, nr_module *m) {
    if (ctx->nmods == ctx->capmods) {
        int cap = ctx->capmods ? ctx->capmods * 2 : 8;
        nr_module **mods = realloc(ctx->mods, sizeof *mods * (size_t)cap);
        if (!mods) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
        ctx->mods = mods, ctx->capmods = cap;
    }
    ctx->mods[ctx->nmods++] = m;
    return NR_OK;
}

/* text is taken over (freed with the module, or now on failure) */
static nr_status compile_text(nr_context *ctx, char *text, size_t len, const char *filename,
                              const nr_compile_options *opts, nr_module **out) {
    nr_module *m;
    nr_status s = module_compile(ctx, text, len, filename, opts, &m);
    if (s) return s;
    Diag diag;
    diag_init(&diag);
    if ((s = tune_module_attach(m, &diag))) api_fail(ctx, s, "%s", sb_cstr(&diag.out));
    diag_free(&diag);
    if (!s) s = register_module(ctx, m);
    if (s) {
        tune_module_free(m);
        module_free(m);
        return s;
    }
    *out = m;
    return NR_OK;
}

nr_status nr_compile_source(nr_context *ctx, const char *source, size_t length,
                            const char *filename, const nr_compile_options *opts, nr_module **out) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (!source || !out)
        return api_fail(ctx, NR_ERR_INVALID_ARG, "source and out must not be NULL");
    *out = NULL;
    FAULT_GUARD(ctx);
    char *text = malloc(length + 1);
    if (!text) return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(text, source, length);
    text[length] = 0;
    return compile_text(ctx, text, length, filename, opts, out);
}

nr_status nr_compile_file(nr_context *ctx, const char *path, const nr_compile_options *opts,
                          nr_module **out) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (!path || !out) return api_fail(ctx, NR_ERR_INVALID_ARG, "path and out must not be NULL");
    *out = NULL;
    FAULT_GUARD(ctx);
    size_t len;
    char *text = file_read(path, &len);
    if (!text)
        return api_fail(ctx, errno == ENOENT ? NR_ERR_NOT_FOUND : NR_ERR_INVALID_ARG,
                        "cannot read '%s': %s", path, strerror(errno));
    if (lang_is_python_path(path)) { /* a Python file: its kernels, the rest blanked */
        Arena *a = arena_new();
        Source src = {path, text, len};
        memcpy(text, lang_py_kernels(a, &src).text, len);
        arena_free(a);
    }
    return compile_text(ctx, text, len, path, opts, out);
}

typedef struct CompileMany {
    nr_context *ctx;
    nr_compile_job *jobs;
    char **texts; /* each job's copy of its source, taken over by module_build */
    StrBuf *errs;
} CompileMany;

static void compile_one(void *user, int i) {
    CompileMany *cm = user;
    nr_compile_job *j = &cm->jobs[i];
    if (j->status) return;
    j->status = module_build(cm->ctx, cm->texts[i], j->length, j->filename, j->opts, &cm->errs[i],
                             &j->module);
    cm->texts[i] = NULL;
}

nr_status nr_compile_many(nr_context *ctx, nr_compile_job *jobs, int num_jobs) {
    if (!ctx) return NR_ERR_INVALID_ARG;
    api_clear_error(ctx);
    if (num_jobs < 0 || (num_jobs && !jobs))
        return api_fail(ctx, NR_ERR_INVALID_ARG, "nr_compile_many: %d jobs at %p", num_jobs,
                        (void *)jobs);
    FAULT_GUARD(ctx);
    if (!num_jobs) return NR_OK;
    CompileMany cm = {ctx, jobs, calloc((size_t)num_jobs, sizeof(char *)),
                      calloc((size_t)num_jobs, sizeof(StrBuf))};
    if (!cm.texts || !cm.errs) {
        free(cm.texts), free(cm.errs);
        return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int todo = 0;
    for (int i = 0; i < num_jobs; i++) {
        nr_compile_job *j = &jobs[i];
        j->module = NULL, j->status = NR_OK;
        sb_init(&cm.errs[i]);
        if (!j->source) {
            j->status = NR_ERR_INVALID_ARG;
            sb_printf(&cm.errs[i], "nr_compile_many: job %d has no source", i);
        } else if (!(cm.texts[i] = malloc(j->length + 1))) {
            j->status = NR_ERR_OUT_OF_MEMORY;
            sb_puts(&cm.errs[i], "out of memory");
        } else {
            memcpy(cm.texts[i], j->source, j->length);
            cm.texts[i][j->length] = 0;
            todo++;
        }
    }
    context_stdlib(ctx); /* before the threads: they only read it */
    parallel_for(num_jobs, todo > 1 ? option_compile_threads(todo) : 1, compile_one, &cm);
    nr_status first = NR_OK;
    StrBuf msg;
    sb_init(&msg);
    for (int i = 0; i < num_jobs; i++) { /* tuned kernels and the context's list, in order */
        nr_compile_job *j = &jobs[i];
        if (!j->status) {
            Diag diag;
            diag_init(&diag);
            if ((j->status = tune_module_attach(j->module, &diag)))
                sb_puts(&cm.errs[i], sb_cstr(&diag.out));
            diag_free(&diag);
            if (!j->status && (j->status = register_module(ctx, j->module)))
                sb_puts(&cm.errs[i], nr_last_error(ctx));
            if (j->status) {
                tune_module_free(j->module);
                module_free(j->module);
                j->module = NULL;
            }
        }
        if (j->status && !first) first = j->status, sb_puts(&msg, sb_cstr(&cm.errs[i]));
        sb_free(&cm.errs[i]);
    }
    if (first) api_fail(ctx, first, "%s", sb_cstr(&msg));
    else api_clear_error(ctx);
    sb_free(&msg);
    free(cm.texts), free(cm.errs);
    return first;
}

void nr_module_destroy(nr_module *m) {
    if (!m) return;
    for (int i = 0; m->ctx && i < m->ctx->nmods; i++) /* the context no longer owns it */
        if (m->ctx->mods[i] == m) {
            m->ctx->mods[i] = m->ctx->mods[--m->ctx->nmods];
            break;
        }
    tune_module_free(m); /* its tuned kernels' modules first */
    module_free(m);
}

void nr_context_destroy(nr_context *ctx) {
    if (!ctx) return;
    context_release_streams(ctx); /* first: a stream's work may use the modules */
    while (ctx->nmods) nr_module_destroy(ctx->mods[ctx->nmods - 1]); /* they need the device */
    context_free(ctx);
}

/* ---- launching ---- */

nr_status nr_launch(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                    const nr_launch_options *opts) {
    if (!k) return NR_ERR_INVALID_ARG;
    api_clear_error(k->mod->ctx);
    if (k->tuned) return tune_launch(k, grid, NULL, NULL, args, num_args, NULL, opts);
    return launch_plain(k, grid, args, num_args, opts);
}

nr_status nr_launch_cooperative(nr_kernel *k, const unsigned grid[3], const nr_arg *args,
                                int num_args, const nr_launch_options *opts) {
    if (!k) return NR_ERR_INVALID_ARG;
    api_clear_error(k->mod->ctx);
    if (k->tuned)
        return api_fail(k->mod->ctx, NR_ERR_INVALID_ARG,
                        "kernel '%s': a tuned kernel cannot be launched cooperatively", k->f->name);
    return launch_plain_ex(k, grid, args, num_args, opts, true);
}

nr_status nr_launch_grid(nr_kernel *k, nr_grid_fn grid, void *user, const nr_arg *args,
                         int num_args, const size_t *arg_bytes, const nr_launch_options *opts) {
    if (!k) return NR_ERR_INVALID_ARG;
    nr_context *ctx = k->mod->ctx;
    api_clear_error(ctx);
    if (!grid)
        return api_fail(ctx, NR_ERR_INVALID_ARG,
                        "nr_launch_grid: the grid function must not be NULL");
    if (k->tuned) return tune_launch(k, NULL, grid, user, args, num_args, arg_bytes, opts);
    nr_config none = {0, NULL, NULL,
                      opts && opts->num_warps ? opts->num_warps : k->mod->prog.num_warps,
                      opts && opts->num_stages ? opts->num_stages : k->mod->prog.num_stages};
    unsigned g[3] = {1, 1, 1};
    nr_status s = grid(&none, g, user);
    if (s)
        return api_fail(ctx, s, "kernel '%s': the grid function failed (%s)", k->f->name,
                        nr_status_string(s));
    return launch_plain(k, g, args, num_args, opts);
}

/* ---- what a launch ran ---- */

nr_status nr_prepare(nr_kernel *k, const nr_arg *args, int num_args,
                     const nr_launch_options *opts) {
    if (!k) return NR_ERR_INVALID_ARG;
    api_clear_error(k->mod->ctx);
    if (k->tuned) return NR_OK;
    return launch_prepare(k, args, num_args, opts);
}

nr_status nr_prepare_many(nr_prepare_job *jobs, int num_jobs) {
    if (num_jobs < 0 || (num_jobs && !jobs)) return NR_ERR_INVALID_ARG;
    if (!num_jobs) return NR_OK;
    for (int i = 0; i < num_jobs; i++)
        if (!jobs[i].kernel) return NR_ERR_INVALID_ARG;
    nr_context *ctx = jobs[0].kernel->mod->ctx;
    api_clear_error(ctx);
    for (int i = 0; i < num_jobs; i++)
        if (jobs[i].kernel->mod->ctx != ctx)
            return api_fail(ctx, NR_ERR_INVALID_ARG,
                            "nr_prepare_many: job %d's kernel is of another context", i);
    PrepareJob *pj = calloc((size_t)num_jobs, sizeof *pj);
    int *of = calloc((size_t)num_jobs, sizeof *of);
    if (!pj || !of) {
        free(pj), free(of);
        return api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int np = 0;
    nr_status first = NR_OK;
    StrBuf msg;
    sb_init(&msg);
    for (int i = 0; i < num_jobs; i++) { /* tuned kernels one by one, each at once */
        nr_prepare_job *j = &jobs[i];
        of[i] = -1;
        if (!j->kernel->tuned) {
            pj[of[i] = np++] = (PrepareJob){j->kernel, j->args, j->num_args,
                                            j->opts ? *j->opts : (nr_launch_options){0}, NR_OK};
            continue;
        }
        j->status = tune_prepare_all(j->kernel, j->args, j->num_args, j->opts);
        if (j->status && !first) first = j->status, sb_puts(&msg, nr_last_error(ctx));
    }
    if (np) { /* the others at once */
        nr_status s = launch_prepare_many(pj, np);
        for (int i = 0; i < num_jobs; i++)
            if (of[i] >= 0) jobs[i].status = pj[of[i]].status;
        if (s && !first) first = s, sb_puts(&msg, nr_last_error(ctx));
    }
    if (first) api_fail(ctx, first, "%s", sb_cstr(&msg));
    sb_free(&msg);
    free(pj), free(of);
    return first;
}

nr_status nr_kernel_last_info(nr_kernel *k, nr_kernel_info *out) {
    if (!k || !out) return NR_ERR_INVALID_ARG;
    k = k->tuned ? tune_last_kernel(k) : k;
    if (!k) return NR_ERR_NOT_FOUND;
    if (k->mod->ctx->kind == NR_DEVICE_CUDA) return cuda_variant_info(k, out);
    if (!k->launched)
        return api_fail(k->mod->ctx, NR_ERR_NOT_FOUND, "kernel '%s' has not been launched",
                        k->f->name);
    *out = (nr_kernel_info){k->f->name, "cpu", k->num_warps, k->num_stages, 0, 0, 0};
    return NR_OK;
}

nr_status nr_kernel_code(nr_kernel *k, const char *what, char **out, size_t *len) {
    if (!k || !what || !out) return NR_ERR_INVALID_ARG;
    *out = NULL;
    k = k->tuned ? tune_last_kernel(k) : k;
    if (!k) return NR_ERR_NOT_FOUND;
    nr_context *ctx = k->mod->ctx;
    StrBuf b;
    sb_init(&b);
    nr_status s = NR_OK;
    if (!strcmp(what, "ir")) {
        if (!k->launched)
            s = api_fail(ctx, NR_ERR_NOT_FOUND, "kernel '%s' has not been launched", k->f->name);
        else ir_print_func(&b, k->f);
    } else if (ctx->kind == NR_DEVICE_CUDA) {
        s = cuda_variant_code(k, what, &b);
    } else {
        s = api_fail(ctx, NR_ERR_NOT_FOUND, "no code named '%s' on the CPU device (ir)", what);
    }
    if (s) return sb_free(&b), s;
    if (len) *len = b.len;
    *out = malloc(b.len + 1);
    if (!*out) return sb_free(&b), api_fail(ctx, NR_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(*out, b.data ? b.data : "", b.len);
    (*out)[b.len] = 0;
    sb_free(&b);
    return NR_OK;
}
