/* _nereid.h - the Python extension's shared declarations: the module state (types,
 * exception classes, interned names), and the objects the two C files share.
 *
 * The extension is written against Python's limited API (Py_LIMITED_API = 3.11), so one
 * build (an abi3 .so) serves every CPython from 3.11 on. Types are heap types made from
 * specs and bound to the module; nothing is global: each object that needs the state
 * holds a reference to the module. */
#ifndef NEREID_PY_H
#define NEREID_PY_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdio.h>

#include "nereid.h"

/* Py_XSETREF is not in the limited API: replace *slot, releasing the old value after */
#define NRPY_SETREF(slot, value)             \
    do {                                     \
        PyObject *old_ = (PyObject *)(slot); \
        (slot) = (value);                    \
        Py_XDECREF(old_);                    \
    } while (0)

typedef struct State {
    PyObject *ContextType, *ModuleType, *KernelType, *DispatcherType, *LauncherType, *TunerType;
    /* set by nereid/__init__.py (_set_errors): Python classes, so that they carry
     * Python-level helpers (CompileError.errors) */
    PyObject *Error, *CompileError, *LaunchError, *DeviceError;
    PyObject *OptionError; /* a launch option out of its range (a ValueError and, as Triton
                              raises it, an AssertionError) */
    PyObject *asm_view, *metadata_view; /* _set_views: what kernel.asm and kernel.metadata make */
    PyObject *grid_view; /* _set_views: what kernel[grid] makes (a launcher of the kernel) */
    PyObject *debug_key; /* _DEBUG_KEY: a specialisation key's last item is (it, bool) when its
                            launch gave debug= (the JIT compiles it with that debug option) */
    /* interned attribute names */
    PyObject *s_data_ptr, *s_dtype, *s_is_cuda, *s_cai, *s_compile, *s_resolve, *s_untyped_storage,
        *s_nbytes, *s_num_warps, *s_num_stages, *s_torch, *s_torch_C, *s_get_stream, *s_typestr,
        *s_data, *s_get_device, *s_get_cur_device, *s_resolve_device, *s_storage;
    /* a tensor descriptor's attributes (nereid.TensorDescriptor, Triton's TensorDescriptor) */
    PyObject *s_base, *s_shape, *s_strides, *s_block_shape, *s_padding;
    PyObject *dtype_codes; /* dict: a dtype object (torch.float32, ...) -> its pointee nr_type */
    /* the types of pointer arguments seen, each looked up once (_launch.c): tensor types
     * (torch.Tensor, nn.Parameter, ...) with their is_cuda and dtype descriptors, their
     * data_ptr method and the dtype seen last with its code, so that a launch reads a
     * tensor without attribute lookups; and types that are not tensors (CuPy's arrays,
     * NumPy's), so that the lookups that tell are not repeated either; and get_device (a
     * tensor's device index, for kernels that follow their arguments' device) where the
     * type has it */
    struct ArgType {
        PyObject *type;
        bool tensor;
        PyObject *is_cuda, *dtype, *data_ptr, *get_device;
        descrgetfunc is_cuda_get, dtype_get;
        PyObject *last_dtype; /* a strong reference, so that its identity stands for it */
        nr_type last_code;
    } arg_types[8];
    int narg_types;
    unsigned long long launches; /* kernels launched through this module (launch_count()) */
} State;

State *nrpy_state(PyObject *module);

/* Context: one nr_context */
typedef struct {
    PyObject_HEAD PyObject *module;
    nr_context *ctx;
    int kind, index;
    PyObject *index_obj; /* index as an int (torch's stream query takes it) */
} ContextObject;

/* Module: one nr_module, keeping its Context alive */
typedef struct {
    PyObject_HEAD PyObject *module;
    PyObject *context;
    nr_module *mod;
    PyObject *constexpr_functions; /* the dict the module's compiles call (NULL: none): kept
                                      while the module lives (its later variants call it) */
} ModuleObject;

/* Kernel: one nr_kernel of a Module, with its signature */
typedef struct {
    PyObject_HEAD PyObject *module;
    PyObject *owner; /* the Module */
    PyObject *name;
    nr_kernel *k;
    int nparams;
    PyObject *signature; /* _signature: the @jit function's parameters (kernel[grid] reads it) */
    PyObject *launchers; /* kernel[grid]'s launchers by grid (a few: NULL until the first) */
    int num_ctas;        /* the last launch's num_ctas, as given (kernel.metadata.num_ctas) */
    int fp_fusion, reflect_ftz; /* the last launch's switches, as resolved (1 on, -1 off, 0
                                   the module's): what kernel[grid] launches with */
} KernelObject;

/* Raise the exception class for status s with the context's last error. */
PyObject *nrpy_raise(State *st, nr_context *ctx, nr_status s, const char *what);

/* The nr_type named by a dtype's name ("float32", "torch.float16", "bool", ...), or
 * NR_TYPE_INVALID. */
nr_type nrpy_dtype_from_name(const char *name);
const char *nrpy_type_name(nr_type t); /* "fp32", "i1", ... */
/* A descriptor parameter's type as signatures spell it ("tensordesc<fp16[64, 64]>"), into
 * buf (truncated to n bytes). */
void nrpy_desc_type_text(nr_type pointee, int rank, const int64_t *block, char *buf, size_t n);

/* _launch.c */
int nrpy_launch_init(PyObject *module, State *st);
/* _tune.c: the Tuner type and option_info */
int nrpy_tune_init(PyObject *module, State *st);

#endif
