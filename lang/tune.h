/* tune.h - what @triton.autotune and @triton.heuristics say about a kernel: its configs
 * (constexpr values, warps, stages), the parameters whose values key a tuning, the
 * buffers to zero or restore around timed runs, config pruning, and the heuristics that
 * compute constexprs from the launch arguments. Read from the decorators' arguments in
 * the source with pyexpr.h; the runtime (runtime/autotune.c) applies it. */
#ifndef NEREID_TUNE_H
#define NEREID_TUNE_H

#include "ast.h"
#include "pyexpr.h"
#include "sema.h"

typedef struct TuneConfig {
    int n; /* constexpr values it sets */
    const char **names;
    const char **texts; /* each as -D takes it: "128", "leaky_relu", "True" */
    int num_warps, num_stages;
    PyVal val; /* the triton.Config itself, for prune functions */
} TuneConfig;

typedef struct TuneHeuristic {
    const char *name; /* the constexpr it computes */
    PyVal fn;         /* lambda args: ... */
    Loc loc;
} TuneHeuristic;

typedef struct TuneDesc {
    const char *kernel;
    bool autotune; /* false: heuristics alone (one implicit config, nothing timed) */
    TuneConfig *configs;
    int nconfigs;
    const char **key; /* parameter names */
    int nkey;
    const char **reset_to_zero, **restore_value;
    int nreset, nrestore;
    PyVal early_prune, perf_model; /* PV_NONE when absent */
    double top_k; /* perf_model keeps this many (a fraction of the configs when a float <= 1) */
    bool top_k_is_float; /* written as a float (Triton: a fraction when <= 1.0) */
    int warmup_ms, rep_ms;
    TuneHeuristic *heur;
    int nheur;
    Loc loc;   /* the @triton.autotune (or first @triton.heuristics) */
    PyCtx *py; /* the evaluator the values live in: its arena, source, diag */
} TuneDesc;

/* Does fn carry @autotune or @heuristics (under any module prefix)? */
bool tune_func_is_tuned(const Func *fn);

/* Read the tuning decorators of kernel fn of module m into *out (allocated in arena,
 * which must outlive every later evaluation with the description). Diagnostics go to
 * diag, which the description keeps for launch-time evaluation errors. false on an
 * error. */
bool tune_read(Arena *arena, Diag *diag, const Module *m, const Func *fn, TuneDesc **out);

/* The tuned kernel fn's signature, as a function without a body in sigs: its runtime
 * parameters typed by their annotations (a type named by a constexpr takes the compile's
 * define; a descriptor's block dims may be tuned, so its signature holds 1s there and
 * each config's kernel checks them). Also refuses a define that sets what the configs or
 * heuristics set. false with a diagnostic. */
bool tune_signature(const TuneDesc *d, const Func *fn, const SemaDefine *defines, int ndefines,
                    IrModule *sigs, IrFunc **out, Diag *diag);

/* A value as -D NAME=TEXT takes it; false if it is not an int, float, bool, str or None. */
bool tune_value_text(PyVal v, StrBuf *out);

#endif
