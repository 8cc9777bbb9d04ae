/* nereid.h - the Nereid JIT's C API.
 *
 * Create a context on a device, compile kernel source (a string or a file) with
 * constexpr values, look kernels up by name and launch them on a 1-3D grid with
 * arguments checked against the kernel's signature. Every call returns a status; the
 * context keeps the message of the last failure (diagnostics for compile errors).
 *
 * Thread safety: there is no global mutable state (the one process-wide effect, an
 * option of LLVM's NVPTX back end, is described in docs/api.md). Distinct contexts may be
 * used from distinct threads at once (contexts on different GPUs too, one thread per
 * GPU); one context (and what it created) is used by one thread at a time. On CUDA every
 * call makes its context's CUDA context current for the call only: the calling thread's
 * current CUDA context (PyTorch's, say) is the same after the call as before.
 *
 * Device memory: nr_malloc gives an address on the context's device. On the CPU device
 * it is host memory that the interpreter knows the extent of, so an out-of-bounds
 * access is reported (NR_ERR_LAUNCH) instead of corrupting memory. */
#ifndef NEREID_H
#define NEREID_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NEREID_VERSION "0.1.0"

/* Marks the API's functions: libnereid.so is built with hidden visibility and exports
 * these, and only these, symbols (tests/scripts/test_symbols.sh checks it). */
#ifndef NR_API
#if defined(__GNUC__) || defined(__clang__)
#define NR_API __attribute__((visibility("default")))
#else
#define NR_API
#endif
#endif

typedef enum nr_status {
    NR_OK = 0,
    NR_ERR_COMPILE,     /* the source has errors: nr_last_error has the diagnostics */
    NR_ERR_INVALID_ARG, /* a bad argument: NULL, wrong count or type, bad grid */
    NR_ERR_NOT_FOUND,   /* no kernel of that name, or no such file */
    NR_ERR_LAUNCH,      /* the kernel failed while running: out-of-bounds access,
                           device_assert, ... */
    NR_ERR_DEVICE,      /* the device is missing or failed */
    NR_ERR_OUT_OF_MEMORY,
    NR_ERR_UNSUPPORTED,
} nr_status;

typedef enum nr_device_kind {
    NR_DEVICE_CPU = 0,  /* the IR interpreter: the reference semantics */
    NR_DEVICE_CUDA = 1, /* an NVIDIA GPU through the CUDA driver */
} nr_device_kind;

typedef struct nr_context nr_context;
typedef struct nr_module nr_module;
typedef struct nr_kernel nr_kernel;
typedef uint64_t nr_devptr;

/* Scalar types of kernel parameters, as in Triton signatures. */
typedef enum nr_type {
    NR_TYPE_INVALID = -1, /* nr_kernel_param_type of a parameter that does not exist */
    NR_TYPE_PTR = 0,      /* any *dtype parameter */
    NR_TYPE_I1,
    NR_TYPE_I8,
    NR_TYPE_I16,
    NR_TYPE_I32,
    NR_TYPE_I64,
    NR_TYPE_U8,
    NR_TYPE_U16,
    NR_TYPE_U32,
    NR_TYPE_U64,
    NR_TYPE_FP16,
    NR_TYPE_BF16,
    NR_TYPE_FP32,
    NR_TYPE_FP64,
    /* fp8: only as pointees (nr_kernel_param_pointee); kernels take no fp8 scalars, and
     * launching with an argument of these types is an error. OCP FP8 E4M3FN and E5M2;
     * then (appended, so the earlier values keep their numbers) Triton's E4M3 with bias
     * 15, AMD's E4M3 FNUZ (torch.float8_e4m3fnuz) and E5M2 FNUZ (torch.float8_e5m2fnuz) */
    NR_TYPE_FP8E4NV,
    NR_TYPE_FP8E5,
    NR_TYPE_FP8E4B15,
    NR_TYPE_FP8E4B8,
    NR_TYPE_FP8E5B16,
    /* a tensor descriptor parameter ("tensordesc<fp16[64, 64]>"): pass nr_arg_tensor_desc */
    NR_TYPE_TENSOR_DESC = 64,
} nr_type;

/* A tensor descriptor argument, Triton's host-side TensorDescriptor: an array of `rank`
 * dims (1 to NR_TENSOR_DESC_MAX_RANK = 5, as Triton's, the parameter's rank) at `base` with `shape`
 * and `strides` in elements (the last stride must be 1), read and written in tiles of the
 * parameter's block shape; loads past its bounds give 0, or NaN with padding = NR_PAD_NAN (float
 * types only). On an sm_90 GPU, when base is 16-byte aligned and every stride but the last is a
 * multiple of 16 bytes, its tiles move by TMA (a tensor map made at the launch); otherwise by
 * ordinary loads and stores. The struct is read during nr_launch only. */
enum { NR_PAD_ZERO = 0, NR_PAD_NAN = 1, NR_TENSOR_DESC_MAX_RANK = 5 };
typedef struct nr_tensor_desc {
    nr_devptr base;
    int rank;
    int padding;
    int64_t shape[NR_TENSOR_DESC_MAX_RANK];
    int64_t strides[NR_TENSOR_DESC_MAX_RANK];
} nr_tensor_desc;

/* One launch argument: its type tag and value. Use the nr_arg_* constructors. */
typedef struct nr_arg {
    nr_type type;
    union {
        int64_t i;                  /* I1..I64 */
        uint64_t u;                 /* U8..U64, PTR */
        double f;                   /* FP16..FP64 (rounded to the parameter's type) */
        const nr_tensor_desc *desc; /* TENSOR_DESC */
    } v;
} nr_arg;

static inline nr_arg nr_arg_ptr(nr_devptr p) {
    nr_arg a;
    a.type = NR_TYPE_PTR;
    a.v.u = p;
    return a;
}
static inline nr_arg nr_arg_i1(int x) {
    nr_arg a;
    a.type = NR_TYPE_I1;
    a.v.i = x != 0;
    return a;
}
static inline nr_arg nr_arg_i8(int8_t x) {
    nr_arg a;
    a.type = NR_TYPE_I8;
    a.v.i = x;
    return a;
}
static inline nr_arg nr_arg_i16(int16_t x) {
    nr_arg a;
    a.type = NR_TYPE_I16;
    a.v.i = x;
    return a;
}
static inline nr_arg nr_arg_i32(int32_t x) {
    nr_arg a;
    a.type = NR_TYPE_I32;
    a.v.i = x;
    return a;
}
static inline nr_arg nr_arg_i64(int64_t x) {
    nr_arg a;
    a.type = NR_TYPE_I64;
    a.v.i = x;
    return a;
}
static inline nr_arg nr_arg_u8(uint8_t x) {
    nr_arg a;
    a.type = NR_TYPE_U8;
    a.v.u = x;
    return a;
}
static inline nr_arg nr_arg_u16(uint16_t x) {
    nr_arg a;
    a.type = NR_TYPE_U16;
    a.v.u = x;
    return a;
}
static inline nr_arg nr_arg_u32(uint32_t x) {
    nr_arg a;
    a.type = NR_TYPE_U32;
    a.v.u = x;
    return a;
}
static inline nr_arg nr_arg_u64(uint64_t x) {
    nr_arg a;
    a.type = NR_TYPE_U64;
    a.v.u = x;
    return a;
}
/* fp16 / bf16 arguments are given as a float and rounded to the parameter's type */
static inline nr_arg nr_arg_f16(float x) {
    nr_arg a;
    a.type = NR_TYPE_FP16;
    a.v.f = x;
    return a;
}
static inline nr_arg nr_arg_bf16(float x) {
    nr_arg a;
    a.type = NR_TYPE_BF16;
    a.v.f = x;
    return a;
}
static inline nr_arg nr_arg_f32(float x) {
    nr_arg a;
    a.type = NR_TYPE_FP32;
    a.v.f = x;
    return a;
}
static inline nr_arg nr_arg_f64(double x) {
    nr_arg a;
    a.type = NR_TYPE_FP64;
    a.v.f = x;
    return a;
}
static inline nr_arg nr_arg_tensor_desc(const nr_tensor_desc *d) {
    nr_arg a;
    a.type = NR_TYPE_TENSOR_DESC;
    a.v.desc = d;
    return a;
}

/* A constexpr value given at compile time, as text: "128", "0.5", "True", "leaky_relu".
 * Integers, floats, booleans, None, quoted strings and constant expressions ("(4, 8)",
 * "tl.float16") are recognised; anything else is a string (docs/language.md, section 4). */
typedef struct nr_define {
    const char *name;
    const char *value;
} nr_define;

/* A constexpr function the host evaluates (nr_compile_options.constexpr_call): Triton runs
 * a function decorated @triton.constexpr_function (or @constexpr_function) in Python when
 * a kernel calls it, and so can an embedding that has the function. The compiler calls
 * this for such a call whose arguments are all compile-time values (numbers, booleans,
 * None, strings, dtypes and tuples of these), with the function's name and the arguments
 * (positional, every parameter bound, defaults included) as the text of a Python argument
 * list: "16, 'fp16', tl.float16, (4, 8), float('inf')". It writes the result, as an
 * nr_define value's text ("32", "tl.bfloat16", "(1, 2)", "'e4m3'"), NUL-terminated into
 * result (result_size bytes) and returns 0; returns 1 to decline (the function's body is
 * then compiled with the kernel, as without a callback); returns -1 on an error (the
 * function raised), with its message in result: the call is a compile error. nr_compile_many
 * may call it from several threads at once (one per job); a module's own compiles call it
 * on the calling thread (a tuned kernel's configs are then compiled one at a time, at
 * compile and at launch), so `user` must live as long as the module. */
typedef int (*nr_constexpr_call)(void *user, const char *function, const char *args, char *result,
                                 size_t result_size);

typedef struct nr_compile_options {
    const nr_define *defines;
    int num_defines;
    const char *kernel; /* compile only this kernel; NULL: every kernel in the source */
    int num_warps;      /* 0: the default (4); else a power of two from 1 to 32 */
    int num_stages;     /* software-pipelining depth of loops feeding tl.dot (as Triton's
                           num_stages): 0: the default (3); else 1 (no pipelining) to 8 */
    /* The GPU code generator's options, Triton's of the same names (the CPU interpreter
     * ignores them); a launch may override each (nr_launch_options). */
    int maxnreg;            /* the most registers a thread may use (PTX .maxnreg): 0: no
                               limit (ptxas chooses); else 16 to 255 */
    int enable_fp_fusion;   /* a float multiply and the add of its result may become one fma
                               (rounded once): 0: the default (off: every op rounded, as the
                               interpreter does); 1: on (Triton's default); -1: off */
    int enable_reflect_ftz; /* tl.exp2 and CUDA libdevice's functions flush denormals to
                               zero (libdevice's __CUDA_FTZ): 0: the default (off); 1: on;
                               -1: off */
    nr_constexpr_call constexpr_call; /* NULL: constexpr functions' bodies are compiled */
    void *constexpr_user;             /* constexpr_call's first argument */
    /* Run-time checks, as Triton's debug option: 0 (the default): tl.device_assert and
     * assert statements are compiled, nothing else; 1 (Triton's debug=True): those and a
     * check of every signed or unsigned integer +, - and * narrower than 64 bits (the
     * operators, unary minus and tl.add/sub/mul without sanitize_overflow=False) that fails
     * as a device_assert where the exact result does not fit the type; -1 (Triton without
     * debug): asserts are left out (an assert whose condition is a compile-time False
     * too). tl.static_assert is checked at compile time in every mode. */
    int debug;
} nr_compile_options;

typedef struct nr_launch_options {
    int num_warps;  /* 0: the value compiled with */
    void *stream;   /* CUDA stream (CUstream); NULL: the default stream */
    int num_stages; /* 0: the value compiled with; else 1 to 8 */
    /* as in nr_compile_options, 0 meaning the value compiled with: */
    int maxnreg;            /* -1: no limit; else 16 to 255 */
    int enable_fp_fusion;   /* 1: on; -1: off */
    int enable_reflect_ftz; /* 1: on; -1: off */
} nr_launch_options;

/* ---- contexts ---- */
NR_API nr_status nr_context_create(nr_device_kind kind, int device_index, nr_context **out);
/* The same, with the reason for a failure (no driver, no device, ...) written into
 * errbuf (may be NULL). */
NR_API nr_status nr_context_create_ex(nr_device_kind kind, int device_index, nr_context **out,
                                      char *errbuf, size_t errsize);
NR_API void nr_context_destroy(nr_context *ctx);
/* Message of the context's last failure ("" if none); valid until the next call on it. */
NR_API const char *nr_last_error(const nr_context *ctx);
NR_API const char *nr_status_string(nr_status s);
NR_API nr_device_kind nr_context_device(const nr_context *ctx); /* NULL: NR_DEVICE_CPU */
/* The device's name ("NVIDIA H200"; "cpu" for the interpreter). */
NR_API const char *nr_context_device_name(const nr_context *ctx);
/* A hash of the compiler's sources: what caches of compiled code and of tuning choices key on. */
NR_API const char *nr_compiler_build(void);

/* ---- several devices ----
 * One context per device: nr_context_create(NR_DEVICE_CUDA, i, ...) for each device i
 * (each retains device i's primary context, the one PyTorch uses). A module belongs to
 * the context it was compiled in and its kernels run on that context's device. The disk
 * cache is shared by every device of the same compute capability and every process: a
 * kernel variant compiled once is loaded by the others (docs/api.md). */
/* How many devices of a kind there are: 1 for the CPU; for CUDA the driver's count (0,
 * NR_OK, when the driver has no device); NR_ERR_DEVICE with the reason in errbuf when
 * there is no usable driver. */
NR_API nr_status nr_device_count(nr_device_kind kind, int *count, char *errbuf, size_t errsize);
/* The context's device index (as given to nr_context_create); -1 for NULL. */
NR_API int nr_context_device_index(const nr_context *ctx);

/* ---- compiling ---- */
NR_API nr_status nr_compile_source(nr_context *ctx, const char *source, size_t length,
                                   const char *filename, const nr_compile_options *opts,
                                   nr_module **out);
NR_API nr_status nr_compile_file(nr_context *ctx, const char *path, const nr_compile_options *opts,
                                 nr_module **out);
NR_API void nr_module_destroy(nr_module *mod);
NR_API int nr_module_num_kernels(const nr_module *mod);
NR_API const char *nr_module_kernel_name(const nr_module *mod, int i);
/* The warnings and notes of the module's compile that did not stop it (tl.static_print's
 * values, a warning's location and source line), as nereid compile prints them; "" if none.
 * Owned by the module. */
NR_API const char *nr_module_diagnostics(const nr_module *mod);
NR_API nr_status nr_module_get_kernel(nr_module *mod, const char *name, nr_kernel **out);

/* The kernel's runtime parameters (constexpr parameters are compiled in, not passed). */
NR_API int nr_kernel_num_params(const nr_kernel *k);
NR_API const char *nr_kernel_param_name(const nr_kernel *k, int i);
NR_API nr_type nr_kernel_param_type(const nr_kernel *k, int i);
/* The element type of pointer or tensor-descriptor parameter i (NR_TYPE_FP32 for *fp32);
 * NR_TYPE_INVALID if parameter i is neither or does not exist. */
NR_API nr_type nr_kernel_param_pointee(const nr_kernel *k, int i);
/* A tensor-descriptor parameter's block shape into shape (room for NR_TENSOR_DESC_MAX_RANK
 * dims); its rank (0 if parameter i is not a descriptor). */
NR_API int nr_kernel_param_block_shape(const nr_kernel *k, int i,
                                       int64_t shape[NR_TENSOR_DESC_MAX_RANK]);

/* ---- launching ---- */
/* grid: 1-3 dims (missing dims are 1). args: one per runtime parameter, in order; the
 * count and each type tag must match the signature (an integer literal argument may be
 * given for any integer parameter of a width it fits). */
NR_API nr_status nr_launch(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int num_args,
                           const nr_launch_options *opts);
/* A cooperative launch (Triton's launch_cooperative_grid), otherwise as nr_launch: every
 * program is resident at once, so programs may wait for one another (a grid barrier built
 * from atomics). On CUDA through cuLaunchCooperativeKernel, after checking that the grid
 * fits the device at once (NR_ERR_LAUNCH saying how many programs fit otherwise). The CPU
 * interpreter runs programs one after another: in a launch of several programs, a while
 * loop past 2^20 iterations fails the launch (NR_ERR_LAUNCH: a program waiting for one that
 * has not run) instead of spinning for ever. A kernel the runtime tunes: NR_ERR_INVALID_ARG. */
NR_API nr_status nr_launch_cooperative(nr_kernel *k, const unsigned grid[3], const nr_arg *args,
                                       int num_args, const nr_launch_options *opts);
NR_API nr_status nr_synchronize(nr_context *ctx);

/* ---- streams ----
 * A stream orders the launches given it (nr_launch_options.stream); launches on
 * different streams may run at once. On CUDA a stream is a CUstream, created blocking
 * with respect to the default stream, so nr_memcpy_* (which run on the default stream)
 * still see the results of every earlier launch; a CUstream made elsewhere (PyTorch's
 * current stream, say) may be passed to nr_launch as well. On the CPU device launches
 * run to completion inside nr_launch: a stream there is only a handle. The context owns
 * its streams: those not destroyed go with it. */
NR_API nr_status nr_stream_create(nr_context *ctx, void **out);
NR_API nr_status nr_stream_destroy(nr_context *ctx, void *stream); /* waits for its work first */
NR_API nr_status nr_stream_synchronize(nr_context *ctx,
                                       void *stream); /* NULL: the default stream */

/* ---- autotuning: @triton.autotune and @triton.heuristics ----
 * A kernel whose source carries @triton.autotune(configs=[triton.Config({...},
 * num_warps=..., num_stages=...), ...], key=[...], ...) and/or @triton.heuristics(values=
 * {'NAME': lambda args: ...}) is tuned: its constexprs come from the configs (and the
 * heuristics, evaluated over the launch arguments) instead of nr_compile_options. At the
 * first launch for each value of the key parameters every config is compiled and timed on
 * the real arguments; the fastest is used from then on and kept in the cache directory
 * (per device and compiler build), so later processes skip the timing. prune_configs_by,
 * reset_to_zero, restore_value, warmup and rep work as in Triton; NEREID_PRINT_AUTOTUNING=1
 * prints what was tried and chosen. Launch one with nr_launch (a fixed grid) or
 * nr_launch_grid (a grid computed from the config, as Triton's grid lambdas are). */
typedef struct nr_config nr_config; /* one configuration: constexpr values, warps, stages */

/* The grid for config (its values: the config's constexprs and the heuristics'). */
typedef nr_status (*nr_grid_fn)(const nr_config *config, unsigned grid[3], void *user);

/* Launch k with the grid grid(config, grid, user) gives for the config chosen. arg_bytes
 * (may be NULL): per argument, the bytes a pointer argument may reach, for reset_to_zero
 * and restore_value; without it those buffers must come from nr_malloc (or
 * nr_host_register). On a kernel that is not tuned, the config holds no values. */
NR_API nr_status nr_launch_grid(nr_kernel *k, nr_grid_fn grid, void *user, const nr_arg *args,
                                int num_args, const size_t *arg_bytes,
                                const nr_launch_options *opts);
NR_API int nr_kernel_num_configs(const nr_kernel *k);                /* 0: not tuned */
NR_API const nr_config *nr_kernel_config(const nr_kernel *k, int i); /* as written in @autotune */
/* the config of the last launch (with the heuristics' values); NULL before one */
NR_API const nr_config *nr_kernel_last_config(const nr_kernel *k);
NR_API int nr_config_num_values(const nr_config *c);
NR_API const char *nr_config_name(const nr_config *c, int i);
NR_API const char *nr_config_value(const nr_config *c, int i); /* as -D takes it: "128", "True" */
NR_API nr_status nr_config_int(const nr_config *c, const char *name,
                               int64_t *out);       /* NR_ERR_NOT_FOUND */
NR_API int nr_config_num_warps(const nr_config *c); /* 0: the module's */
NR_API int nr_config_num_stages(const nr_config *c);

/* ---- what a launch ran: the variant, its resources and its code (tools, bindings) ---- */
/* Compile (on CUDA: and load) the variant a launch of k with these arguments and options
 * would run, without running it, and make it the last launch's for the calls below: the
 * arguments are checked as nr_launch checks them. A tuned kernel is not prepared (its
 * config comes from timing): NR_OK, nothing done. */
NR_API nr_status nr_prepare(nr_kernel *k, const nr_arg *args, int num_args,
                            const nr_launch_options *opts);
/* Many compiles at once: an autotuned kernel's cold start costs about one compile, not
 * one per config. The work runs on a pool of threads made for the call (the compiler is
 * re-entrant: each compile has its own arenas, diagnostics, LLVM context and target
 * machine); the call returns when all of it is done, and the context is used by the
 * calling thread only, as for any call. The threads: NEREID_COMPILE_THREADS when set (a
 * positive integer; 1 compiles one after another on the calling thread), else the online
 * CPUs, never more than there are compiles.
 *
 * nr_prepare_many: nr_prepare of each job, whose kernels all belong to one context: on
 * CUDA the variants' GPU back end (LLVM, PTX), ptxas (a process each; else the driver's
 * JIT) and the modules' loads run at once, and the calling thread adds them to the
 * kernels; on the CPU device the arguments are checked
 * (the front end, which compiled with the module, was the compile). A job whose kernel is
 * tuned (@autotune, @heuristics) prepares every config of it for its arguments: the
 * heuristics' values, the configs' front end and their GPU code, all at once (a config
 * that fails is not an error here: its launch reports it). Each job's status comes back
 * in it; the call returns NR_OK, or the first failing job's status with its message in
 * nr_last_error. */
typedef struct nr_prepare_job {
    nr_kernel *kernel;
    const nr_arg *args;
    int num_args;
    const nr_launch_options *opts; /* may be NULL */
    nr_status status;              /* out */
} nr_prepare_job;
NR_API nr_status nr_prepare_many(nr_prepare_job *jobs, int num_jobs);

/* nr_compile_many: nr_compile_source of each job on ctx, the front ends at once. Each
 * job's module (NULL on failure) and status come back in it; the call returns NR_OK, or
 * the first failing job's status with its diagnostics in nr_last_error (the others'
 * messages are not kept: compile one alone to see them). */
typedef struct nr_compile_job {
    const char *source;
    size_t length;
    const char *filename;           /* may be NULL */
    const nr_compile_options *opts; /* may be NULL */
    nr_module *module;              /* out */
    nr_status status;               /* out */
} nr_compile_job;
NR_API nr_status nr_compile_many(nr_context *ctx, nr_compile_job *jobs, int num_jobs);

typedef struct nr_kernel_info {
    const char *name;          /* the kernel's */
    const char *target;        /* "sm_80", "sm_90a", ...; "cpu" on the CPU device */
    int num_warps, num_stages; /* the variant's */
    unsigned shared_bytes;     /* shared memory per program */
    int registers;             /* per thread, as the driver reports them (0: the CPU) */
    int spill_bytes;           /* local memory per thread: spilled registers (0: the CPU) */
} nr_kernel_info;
/* The variant k's last successful launch ran (for a tuned kernel: the chosen config's);
 * NR_ERR_NOT_FOUND before one. The strings live as long as the module. */
NR_API nr_status nr_kernel_last_info(nr_kernel *k, nr_kernel_info *out);
/* That variant's code as text into *out (malloc'd, NUL-terminated; the caller frees) and
 * its length: "ptx", "llvm" (the optimised LLVM IR), "gpu-ir" (the IR after the GPU
 * passes) on a CUDA context, and "ir" (the kernel after the front end's passes) on
 * either. Compiled again when asked, with what the launch was compiled with: the same
 * code. NR_ERR_NOT_FOUND before a launch or for another name. */
NR_API nr_status nr_kernel_code(nr_kernel *k, const char *what, char **out, size_t *len);

/* ---- the autotuner's rules, for bindings (docs/api.md#the-tuner) ----
 * What a tuned launch does to choose its config, over callbacks, so that a binding whose
 * kernels and hooks live elsewhere (the Python package's nereid.autotune) follows the
 * same rules as the kernels above: the choice for a key comes from memory, else from the
 * cache directory, else from timing. Timing prunes the configs (the binding's
 * early_config_prune, then a performance model's estimates keeping top_k), takes a single
 * survivor untimed, times each other after a warm-up (failed configs count as infinitely
 * slow; with buffers to zero or restore, or hooks, each launch alone between them, untimed),
 * takes the fastest, zeroes the reset_to_zero buffers once more for the real launch, and
 * keeps the choice in memory and on disk. */
typedef struct nr_tuner nr_tuner;

typedef struct nr_tune_options {
    const char *kernel; /* the kernel's name, for messages */
    int num_configs;
    const char *const *config_text; /* each config as text ("BLOCK=64, num_warps=4"): messages */
    const char *identity;           /* what a choice depends on besides the key and the device
                                       (the source, the configs, the options); NULL: choices
                                       are not kept on disk */
    double warmup_ms, rep_ms;       /* 0: Triton's 25 and 100 */
    double top_k;                   /* how many configs a performance model keeps (0: Triton's
                                       default, all of them: 1.0 as a fraction) */
    int top_k_is_fraction;          /* top_k is a fraction of the configs (Triton: a float top_k
                                       <= 1.0) */
} nr_tune_options;

typedef struct nr_tune_buffer {
    nr_devptr ptr; /* device memory of the context (host memory on the CPU device) */
    size_t bytes;
    int restore; /* 0: zeroed before each timed launch (reset_to_zero); 1: saved before
                    timing and written back after each timed launch (restore_value) */
} nr_tune_buffer;

/* The binding's side of a choice. launch is required; the others may be NULL. A status
 * from launch or bench other than NR_OK and NR_ERR_DEVICE means the config cannot run (it
 * counts as infinitely slow); NR_ERR_DEVICE stops the tuning and is returned. */
typedef struct nr_tune_calls {
    void *user;
    nr_status (*launch)(void *user, int config); /* one launch, not waited for */
    nr_status (*before)(void *user, int config); /* before each timed launch, untimed */
    nr_status (*after)(void *user, int config);  /* after each timed launch, untimed */
    nr_status (*bench)(void *user, int config,
                       double *ms); /* the binding's own timing (do_bench) */
    nr_status (*prune)(void *user, int *configs,
                       int *num_configs); /* early_config_prune: keeps some */
    nr_status (*estimate)(void *user, int config,
                          double *estimate); /* perf_model: lower is faster */
    void *stream;                            /* what timing waits on (NULL: the context) */
    /* compile (and load) these configs, the candidates left by pruning, before any is
     * timed: the binding's chance to compile them all at once, on several threads
     * (nr_compile_many, nr_prepare_many). Called once per timing, with 2 or more configs;
     * NR_ERR_DEVICE stops the tuning, any other status is ignored (a config that failed
     * to compile fails again at its launch). Appended last: callers that fill the struct
     * by position and stop before it leave it NULL. */
    nr_status (*compile)(void *user, const int *configs, int num_configs);
} nr_tune_calls;

NR_API nr_status nr_tuner_create(nr_context *ctx, const nr_tune_options *opts, nr_tuner **out);
NR_API void nr_tuner_destroy(nr_tuner *t);
/* The config for key (any text naming the key's values): *chosen, and per config the
 * milliseconds it took (INFINITY: failed or not timed) in times_ms when not NULL
 * (num_configs entries). bufs: the launch's reset_to_zero and restore_value buffers. */
NR_API nr_status nr_tuner_choose(nr_tuner *t, const char *key, const nr_tune_buffer *bufs,
                                 int num_bufs, const nr_tune_calls *calls, int *chosen,
                                 double *times_ms);

/* The default and the range of a compile or launch option by name ("num_warps",
 * "num_stages"); each output may be NULL. NR_ERR_NOT_FOUND for an unknown name. */
NR_API nr_status nr_option_info(const char *name, int *default_value, int *min, int *max,
                                int *power_of_two);

/* ---- what the context has done, for people tuning start-up ---- */
typedef struct nr_stats {
    uint64_t gpu_compiles;    /* kernel variants compiled to PTX (the whole back end ran) */
    uint64_t jit_compiles;    /* PTX compiled to machine code (ptxas, else the driver) */
    uint64_t disk_cache_hits; /* variants loaded from the disk cache: nothing compiled */
    uint64_t guard_checks;    /* grids whose speculated indices the host checked: a kernel's
                                 guard run by the interpreter over a new grid and arguments
                                 (docs/api.md, "On CUDA") */
} nr_stats;
NR_API nr_status nr_context_stats(const nr_context *ctx, nr_stats *out);

/* ---- device memory ---- */
NR_API nr_status nr_malloc(nr_context *ctx, size_t bytes, nr_devptr *out);
NR_API nr_status nr_free(nr_context *ctx, nr_devptr p);
NR_API nr_status nr_memcpy_htod(nr_context *ctx, nr_devptr dst, const void *src, size_t bytes);
NR_API nr_status nr_memcpy_dtoh(nr_context *ctx, void *dst, nr_devptr src, size_t bytes);
NR_API nr_status nr_memset(nr_context *ctx, nr_devptr dst, int byte, size_t bytes);

/* ---- copies between contexts (devices) ----
 * bytes from src (memory of src_ctx: nr_malloc's, the whole range inside one allocation)
 * to dst (memory of dst_ctx, likewise); the two ranges must not overlap. The way depends
 * on the two devices (nr_memcpy_peer_path says which):
 *   NR_COPY_HOST    a CPU context on either side (or both): its memory is host memory,
 *                   so the copy is a host copy (cuMemcpyHtoD / cuMemcpyDtoH, memcpy)
 *   NR_COPY_DEVICE  both on one CUDA device (one context, or two on one device):
 *                   cuMemcpyDtoD
 *   NR_COPY_PEER    two CUDA devices with peer access (cuDeviceCanAccessPeer both ways;
 *                   enabled with cuCtxEnablePeerAccess the first time): cuMemcpyPeer,
 *                   GPU to GPU (NVLink or PCIe)
 *   NR_COPY_STAGED  two CUDA devices without it (or NEREID_PEER_ACCESS=0): through host
 *                   memory, in chunks (device to host, then host to device)
 * nr_memcpy_peer returns when the data is at dst, after the earlier work of both devices'
 * default streams (and of nr_stream_create's streams, which are ordered with them).
 * nr_memcpy_peer_async queues it on stream (a stream of dst_ctx's device, or for a copy
 * with a CPU side, of the CUDA context's; NULL: the default stream) and returns: it is
 * ordered after the stream's earlier work only (finish the writes to src on the source
 * device first); a staged or NR_COPY_HOST copy synchronises the stream and is done when it
 * returns. On failure the message is in nr_last_error of both contexts; a kernel fault
 * either device met is reported as nr_launch would (NR_ERR_LAUNCH). They use both
 * contexts: no other thread may be using either meanwhile. */
typedef enum nr_copy_path {
    NR_COPY_HOST = 0,
    NR_COPY_DEVICE = 1,
    NR_COPY_PEER = 2,
    NR_COPY_STAGED = 3,
} nr_copy_path;
NR_API nr_status nr_memcpy_peer(nr_context *dst_ctx, nr_devptr dst, nr_context *src_ctx,
                                nr_devptr src, size_t bytes);
NR_API nr_status nr_memcpy_peer_async(nr_context *dst_ctx, nr_devptr dst, nr_context *src_ctx,
                                      nr_devptr src, size_t bytes, void *stream);
/* How copies from src_ctx to dst_ctx go (enabling peer access between the two devices
 * when the driver allows it and it is not yet). */
NR_API nr_status nr_memcpy_peer_path(nr_context *dst_ctx, nr_context *src_ctx, nr_copy_path *out);

/* ---- host memory on the CPU device ----
 * Let kernels on the CPU device use host memory the caller owns (a NumPy array, say):
 * after nr_host_register, pointers into [ptr, ptr+bytes) may be passed as pointer
 * arguments, and accesses are checked against that extent as for nr_malloc's memory.
 * The memory stays the caller's: nr_host_unregister (or nr_context_destroy) forgets it
 * without freeing it. Extents may overlap. On a CUDA context: NR_ERR_UNSUPPORTED. */
NR_API nr_status nr_host_register(nr_context *ctx, void *ptr, size_t bytes);
NR_API nr_status nr_host_unregister(nr_context *ctx, void *ptr); /* ptr as registered */

#ifdef __cplusplus
}
#endif
#endif
