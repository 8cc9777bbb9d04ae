/* _nereid.c - the Python extension module nereid._nereid over the C API (nereid.h):
 * contexts, compiling into modules, kernels and their signatures, and the module's
 * state. The launch path (binding arguments, NumPy arrays and torch tensors as pointer
 * arguments, the specialisation cache) is in _launch.c. nereid/__init__.py builds the
 * public API on top. */
#include <stdlib.h>
#include <string.h>

#include "_nereid.h"

State *nrpy_state(PyObject *module) { return (State *)PyModule_GetState(module); }

static const char *const type_names[] = {
    "pointer", "i1",   "i8",   "i16",  "i32",     "i64",   "u8",       "u16",     "u32",     "u64",
    "fp16",    "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16"};

const char *nrpy_type_name(nr_type t) {
    return t >= 0 && (size_t)t < sizeof type_names / sizeof *type_names ? type_names[t] : "?";
}

void nrpy_desc_type_text(nr_type pointee, int rank, const int64_t *block, char *buf, size_t n) {
    int at = snprintf(buf, n, "tensordesc<%s[", nrpy_type_name(pointee));
    for (int d = 0; d < rank && at >= 0 && (size_t)at < n; d++)
        at += snprintf(buf + at, n - (size_t)at, "%s%lld", d ? ", " : "", (long long)block[d]);
    if (at >= 0 && (size_t)at < n) snprintf(buf + at, n - (size_t)at, "]>");
}

/* dtype names as torch, NumPy and Triton spell them */
nr_type nrpy_dtype_from_name(const char *name) {
    static const struct {
        const char *name;
        nr_type t;
    } names[] = {
        {"float32", NR_TYPE_FP32},
        {"float", NR_TYPE_FP32},
        {"fp32", NR_TYPE_FP32},
        {"float16", NR_TYPE_FP16},
        {"half", NR_TYPE_FP16},
        {"fp16", NR_TYPE_FP16},
        {"bfloat16", NR_TYPE_BF16},
        {"bf16", NR_TYPE_BF16},
        {"float64", NR_TYPE_FP64},
        {"double", NR_TYPE_FP64},
        {"fp64", NR_TYPE_FP64},
        {"int8", NR_TYPE_I8},
        {"int16", NR_TYPE_I16},
        {"short", NR_TYPE_I16},
        {"int32", NR_TYPE_I32},
        {"int", NR_TYPE_I32},
        {"int64", NR_TYPE_I64},
        {"long", NR_TYPE_I64},
        {"uint8", NR_TYPE_U8},
        {"uint16", NR_TYPE_U16},
        {"uint32", NR_TYPE_U32},
        {"uint64", NR_TYPE_U64},
        {"bool", NR_TYPE_I1},
        {"int1", NR_TYPE_I1},
        {"i8", NR_TYPE_I8},
        {"i16", NR_TYPE_I16},
        {"i32", NR_TYPE_I32},
        {"i64", NR_TYPE_I64},
        {"i1", NR_TYPE_I1},
        {"u8", NR_TYPE_U8},
        {"u16", NR_TYPE_U16},
        {"u32", NR_TYPE_U32},
        {"u64", NR_TYPE_U64},
        {"float8_e4m3fn", NR_TYPE_FP8E4NV},
        {"float8e4nv", NR_TYPE_FP8E4NV},
        {"fp8e4nv", NR_TYPE_FP8E4NV},
        {"float8_e5m2", NR_TYPE_FP8E5},
        {"float8e5", NR_TYPE_FP8E5},
        {"fp8e5", NR_TYPE_FP8E5},
        {"float8e4b15", NR_TYPE_FP8E4B15},
        {"fp8e4b15", NR_TYPE_FP8E4B15},
        {"float8_e4m3fnuz", NR_TYPE_FP8E4B8},
        {"float8e4b8", NR_TYPE_FP8E4B8},
        {"fp8e4b8", NR_TYPE_FP8E4B8},
        {"float8_e5m2fnuz", NR_TYPE_FP8E5B16},
        {"float8e5b16", NR_TYPE_FP8E5B16},
        {"fp8e5b16", NR_TYPE_FP8E5B16},
    };
    if (!strncmp(name, "torch.", 6)) name += 6;
    else if (!strncmp(name, "tl.", 3)) name += 3;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(names[i].name, name)) return names[i].t;
    return NR_TYPE_INVALID;
}

PyObject *nrpy_raise(State *st, nr_context *ctx, nr_status s, const char *what) {
    const char *msg = ctx ? nr_last_error(ctx) : nr_status_string(s);
    PyObject *cls = st->Error ? st->Error : PyExc_RuntimeError;
    switch (s) {
    case NR_ERR_COMPILE: cls = st->CompileError ? st->CompileError : cls; break;
    case NR_ERR_LAUNCH: cls = st->LaunchError ? st->LaunchError : cls; break;
    case NR_ERR_DEVICE: cls = st->DeviceError ? st->DeviceError : cls; break;
    case NR_ERR_OUT_OF_MEMORY: cls = PyExc_MemoryError; break;
    case NR_ERR_INVALID_ARG: cls = PyExc_ValueError; break;
    case NR_ERR_NOT_FOUND: cls = PyExc_KeyError; break;
    default: break;
    }
    if (s == NR_ERR_COMPILE || !what) PyErr_SetString(cls, msg && *msg ? msg : nr_status_string(s));
    else PyErr_Format(cls, "%s: %s", what, msg && *msg ? msg : nr_status_string(s));
    return NULL;
}

/* ---- Context ---- */

static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"kind", "index", NULL};
    int kind = 0, index = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|ii", kwlist, &kind, &index)) return NULL;
    PyObject *module = PyType_GetModule(type);
    if (!module) return NULL;
    State *st = nrpy_state(module);
    if (kind != NR_DEVICE_CPU && kind != NR_DEVICE_CUDA)
        return PyErr_Format(PyExc_ValueError, "unknown device kind %d", kind);
    char why[512];
    nr_context *ctx = NULL;
    nr_status s = nr_context_create_ex((nr_device_kind)kind, index, &ctx, why, sizeof why);
    if (s) {
        PyObject *cls = s == NR_ERR_OUT_OF_MEMORY ? PyExc_MemoryError
                        : st->DeviceError         ? st->DeviceError
                                                  : PyExc_RuntimeError;
        if (s == NR_ERR_INVALID_ARG) cls = PyExc_ValueError;
        return PyErr_Format(cls, "cannot open %s device %d: %s",
                            kind == NR_DEVICE_CUDA ? "cuda" : "cpu", index,
                            why[0] ? why : nr_status_string(s));
    }
    ContextObject *self = (ContextObject *)PyType_GenericAlloc(type, 0);
    if (!self) {
        nr_context_destroy(ctx);
        return NULL;
    }
    self->module = Py_NewRef(module);
    self->ctx = ctx;
    self->kind = kind;
    self->index = index;
    if (!(self->index_obj = PyLong_FromLong(index))) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void context_dealloc(PyObject *o) {
    ContextObject *self = (ContextObject *)o;
    PyTypeObject *tp = Py_TYPE(o);
    nr_context_destroy(self->ctx); /* modules hold a reference: none is left */
    Py_XDECREF(self->index_obj);
    Py_XDECREF(self->module);
    PyObject_Free(o);
    Py_DECREF(tp);
}

/* Fill an nr_define array from a sequence of (name, value) string pairs. The strings
 * stay owned by `keep` (a list), which the caller releases after compiling. */
static int read_pairs(PyObject *seq, const char *what, nr_define **out, int *n, PyObject *keep) {
    *out = NULL;
    *n = 0;
    if (!seq || seq == Py_None) return 0;
    PyObject *fast = PySequence_List(seq);
    if (!fast) return -1;
    Py_ssize_t len = PyList_Size(fast);
    nr_define *d = PyMem_Calloc((size_t)(len ? len : 1), sizeof *d);
    if (!d) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *pair = PyList_GetItem(fast, i);
        PyObject *name = NULL, *value = NULL;
        if (PyTuple_Check(pair) && PyTuple_Size(pair) == 2)
            name = PyTuple_GetItem(pair, 0), value = PyTuple_GetItem(pair, 1);
        if (!name || !value || !PyUnicode_Check(name) || !PyUnicode_Check(value)) {
            PyErr_Format(PyExc_TypeError, "%s must be (name, value) pairs of strings", what);
            goto fail;
        }
        if (PyList_Append(keep, name) || PyList_Append(keep, value)) goto fail;
        d[i].name = PyUnicode_AsUTF8AndSize(name, NULL);
        d[i].value = PyUnicode_AsUTF8AndSize(value, NULL);
        if (!d[i].name || !d[i].value) goto fail;
    }
    Py_DECREF(fast);
    *out = d;
    *n = (int)len;
    return 0;
fail:
    Py_DECREF(fast);
    PyMem_Free(d);
    return -1;
}

static PyObject *module_wrap(State *st, PyObject *module, PyObject *context, nr_module *mod,
                             PyObject *constexpr_functions) {
    ModuleObject *m = (ModuleObject *)PyType_GenericAlloc((PyTypeObject *)st->ModuleType, 0);
    if (!m) {
        nr_module_destroy(mod);
        return NULL;
    }
    m->module = Py_NewRef(module);
    m->context = Py_NewRef(context);
    m->mod = mod;
    m->constexpr_functions = Py_XNewRef(constexpr_functions);
    return (PyObject *)m;
}

/* nr_constexpr_call for Python: user is a dict of the module's constexpr functions by
 * name; nereid._jit._host_constexpr_call(function, args) runs one and gives the result's
 * text (None: declined). Takes the GIL: nr_compile_many calls it from its threads. */
static int py_constexpr_call(void *user, const char *function, const char *args, char *result,
                             size_t result_size) {
    PyGILState_STATE gil = PyGILState_Ensure();
    int rc = 1;
    PyObject *fn = PyDict_GetItemString((PyObject *)user, function); /* borrowed */
    PyObject *jit = fn ? PyImport_ImportModule("nereid._jit") : NULL;
    PyObject *r = jit ? PyObject_CallMethod(jit, "_host_constexpr_call", "Os", fn, args) : NULL;
    if (r && PyUnicode_Check(r)) {
        Py_ssize_t n;
        const char *text = PyUnicode_AsUTF8AndSize(r, &n);
        if (text && (size_t)n < result_size) {
            memcpy(result, text, (size_t)n + 1);
            rc = 0;
        } else if (text) {
            snprintf(result, result_size, "its result's text is longer than %zu bytes",
                     result_size - 1);
            rc = -1;
        }
    }
    if (PyErr_Occurred()) { /* the function raised: its exception is the message */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *s = value ? PyObject_Str(value) : NULL;
        PyObject *tn = type ? PyObject_GetAttrString(type, "__name__") : NULL;
        const char *msg = s ? PyUnicode_AsUTF8AndSize(s, NULL) : NULL;
        const char *tname = tn && PyUnicode_Check(tn) ? PyUnicode_AsUTF8AndSize(tn, NULL) : NULL;
        PyErr_Clear(); /* a failure of the two above: the message says less */
        snprintf(result, result_size, "%s: %s", tname ? tname : "error", msg ? msg : "?");
        Py_XDECREF(tn);
        Py_XDECREF(s);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        PyErr_Clear();
        rc = -1;
    }
    Py_XDECREF(r);
    Py_XDECREF(jit);
    PyGILState_Release(gil);
    return rc;
}

/* A dict of constexpr functions (compile's constexpr_functions), or NULL for None or an
 * empty one; -1 with a TypeError for anything else. */
static int constexpr_functions_arg(PyObject *o, PyObject **out) {
    *out = NULL;
    if (!o || o == Py_None) return 0;
    if (!PyDict_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "constexpr_functions must be a dict of functions by name");
        return -1;
    }
    if (PyDict_Size(o)) *out = o;
    return 0;
}

/* compile(source, filename, defines, kernel, num_warps, num_stages, constexpr_functions)
 * -> Module */
static PyObject *context_compile(PyObject *o, PyObject *args, PyObject *kwds) {
    ContextObject *self = (ContextObject *)o;
    State *st = nrpy_state(self->module);
    static char *kwlist[] = {
        "source", "filename", "defines", "kernel", "num_warps", "num_stages", "constexpr_functions",
        "debug",  NULL};
    const char *src, *filename = "<source>", *kernel = NULL;
    Py_ssize_t srclen;
    PyObject *defines = NULL, *cfns_arg = NULL, *cfns;
    int warps = 0, stages = 0, debug = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s#|sOziiOi", kwlist, &src, &srclen, &filename,
                                     &defines, &kernel, &warps, &stages, &cfns_arg, &debug) ||
        constexpr_functions_arg(cfns_arg, &cfns))
        return NULL;
    PyObject *keep = PyList_New(0);
    if (!keep) return NULL;
    nr_define *defs;
    int ndefs;
    if (read_pairs(defines, "defines", &defs, &ndefs, keep)) {
        Py_DECREF(keep);
        return NULL;
    }
    nr_compile_options opts = {.defines = defs,
                               .num_defines = ndefs,
                               .kernel = kernel,
                               .num_warps = warps,
                               .num_stages = stages,
                               .constexpr_call = cfns ? py_constexpr_call : NULL,
                               .constexpr_user = cfns,
                               .debug = debug};
    nr_module *mod = NULL;
    nr_status s = nr_compile_source(self->ctx, src, (size_t)srclen, filename, &opts, &mod);
    PyMem_Free(defs);
    Py_DECREF(keep);
    if (s) return nrpy_raise(st, self->ctx, s, NULL);
    return module_wrap(st, self->module, o, mod, cfns);
}

/* compile_many([(source, filename, defines, kernel, num_warps, num_stages[,
 * constexpr_functions[, debug]]), ...]) ->
 * [Module or None]: nr_compile_many, the front ends at once on several threads with the
 * GIL released (no other thread may use this Context meanwhile); a job that fails gives
 * None (compile it alone to see its error) */
static PyObject *context_compile_many(PyObject *o, PyObject *jobs_in) {
    ContextObject *self = (ContextObject *)o;
    State *st = nrpy_state(self->module);
    PyObject *list = PySequence_List(jobs_in), *keep = PyList_New(0), *result = NULL;
    Py_ssize_t n = list ? PyList_Size(list) : 0;
    nr_compile_job *jobs = PyMem_Calloc((size_t)n + 1, sizeof *jobs);
    nr_compile_options *opts = PyMem_Calloc((size_t)n + 1, sizeof *opts);
    PyObject **cfns = PyMem_Calloc((size_t)n + 1, sizeof *cfns); /* borrowed from the jobs */
    if (!list || !keep || !jobs || !opts || !cfns) {
        if (list && keep) PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *src, *defines = NULL, *cfns_arg = NULL;
        const char *filename = "<source>", *kernel = NULL;
        int warps = 0, stages = 0, debug = 0;
        if (!PyArg_ParseTuple(PyList_GetItem(list, i), "U|sOziiOi", &src, &filename, &defines,
                              &kernel, &warps, &stages, &cfns_arg, &debug) ||
            constexpr_functions_arg(cfns_arg, &cfns[i]))
            goto out;
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(src, &len);
        nr_define *defs;
        int ndefs;
        if (!text || PyList_Append(keep, PyList_GetItem(list, i)) ||
            read_pairs(defines, "defines", &defs, &ndefs, keep))
            goto out;
        opts[i] = (nr_compile_options){.defines = defs,
                                       .num_defines = ndefs,
                                       .kernel = kernel,
                                       .num_warps = warps,
                                       .num_stages = stages,
                                       .constexpr_call = cfns[i] ? py_constexpr_call : NULL,
                                       .constexpr_user = cfns[i],
                                       .debug = debug};
        jobs[i] = (nr_compile_job){text, (size_t)len, filename, &opts[i], NULL, NR_OK};
    }
    Py_BEGIN_ALLOW_THREADS nr_compile_many(self->ctx, jobs, (int)n);
    Py_END_ALLOW_THREADS result = PyList_New(n);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *m = NULL;
        if (result && jobs[i].module) {
            m = module_wrap(st, self->module, o, jobs[i].module, cfns[i]);
            jobs[i].module = NULL; /* the Module's now, or destroyed */
        }
        if (result && !m && PyErr_Occurred()) Py_CLEAR(result);
        if (result) PyList_SetItem(result, i, m ? m : Py_NewRef(Py_None));
        else if (jobs[i].module) nr_module_destroy(jobs[i].module);
    }
out:
    for (Py_ssize_t i = 0; opts && i < n; i++) PyMem_Free((void *)opts[i].defines);
    PyMem_Free(cfns);
    PyMem_Free(jobs);
    PyMem_Free(opts);
    Py_XDECREF(keep);
    Py_XDECREF(list);
    return result;
}

static PyObject *context_synchronize(PyObject *o, PyObject *unused) {
    (void)unused;
    ContextObject *self = (ContextObject *)o;
    nr_status s = nr_synchronize(self->ctx);
    if (s) return nrpy_raise(nrpy_state(self->module), self->ctx, s, "synchronize");
    Py_RETURN_NONE;
}

static PyObject *context_stats(PyObject *o, PyObject *unused) {
    (void)unused;
    ContextObject *self = (ContextObject *)o;
    nr_stats s;
    nr_context_stats(self->ctx, &s);
    return Py_BuildValue("{sKsKsKsK}", "gpu_compiles", (unsigned long long)s.gpu_compiles,
                         "jit_compiles", (unsigned long long)s.jit_compiles, "disk_cache_hits",
                         (unsigned long long)s.disk_cache_hits, "guard_checks",
                         (unsigned long long)s.guard_checks);
}

static PyObject *context_get_kind(PyObject *o, void *unused) {
    (void)unused;
    return PyUnicode_FromString(((ContextObject *)o)->kind == NR_DEVICE_CUDA ? "cuda" : "cpu");
}

static PyObject *context_get_name(PyObject *o, void *unused) {
    (void)unused;
    return PyUnicode_FromString(nr_context_device_name(((ContextObject *)o)->ctx));
}

static PyObject *context_get_index(PyObject *o, void *unused) {
    (void)unused;
    return PyLong_FromLong(((ContextObject *)o)->index);
}

static PyMethodDef context_methods[] = {
    {"compile", (PyCFunction)(void (*)(void))context_compile, METH_VARARGS | METH_KEYWORDS,
     "compile(source, filename='<source>', defines=(), kernel=None, num_warps=0, num_stages=0, "
     "constexpr_functions=None) -> Module (constexpr_functions: the Python functions, by name, "
     "that calls of functions decorated @constexpr_function run)"},
    {"compile_many", context_compile_many, METH_O,
     "compile_many([(source, filename, defines, kernel, num_warps, num_stages[, "
     "constexpr_functions]), ...]) -> "
     "[Module or None]: compiled at once on several threads (NEREID_COMPILE_THREADS)"},
    {"synchronize", context_synchronize, METH_NOARGS, "wait for every launch on the device"},
    {"stats", context_stats, METH_NOARGS, "the context's compile counters (nr_context_stats)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef context_getset[] = {
    {"kind", context_get_kind, NULL, "'cpu' or 'cuda'", NULL},
    {"index", context_get_index, NULL, "the device index", NULL},
    {"device_name", context_get_name, NULL, "the device's name ('cpu' for the interpreter)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot context_slots[] = {
    {Py_tp_new, context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, context_methods},
    {Py_tp_getset, context_getset},
    {Py_tp_doc, "Context(kind=0, index=0): a Nereid context on the CPU interpreter (0) or CUDA "
                "device index (1)"},
    {0, NULL},
};

static PyType_Spec context_spec = {"nereid._nereid.Context", sizeof(ContextObject), 0,
                                   Py_TPFLAGS_DEFAULT, context_slots};

/* ---- Module ---- */

/* A module's constexpr functions reach its kernels (a function's globals hold the @jit
 * function, whose cache holds the Kernel objects, which hold the Module): the collector
 * breaks that cycle through module_clear. Only an unreachable module is cleared, so no
 * compile of it calls the functions after. */
static int module_traverse(PyObject *o, visitproc visit, void *arg) {
    ModuleObject *self = (ModuleObject *)o;
    Py_VISIT(Py_TYPE(o));
    Py_VISIT(self->module);
    Py_VISIT(self->context);
    Py_VISIT(self->constexpr_functions);
    return 0;
}

static int module_clear(PyObject *o) {
    Py_CLEAR(((ModuleObject *)o)->constexpr_functions);
    return 0;
}

static void module_dealloc(PyObject *o) {
    ModuleObject *self = (ModuleObject *)o;
    PyTypeObject *tp = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    nr_module_destroy(self->mod);
    module_clear(o);
    Py_XDECREF(self->context);
    Py_XDECREF(self->module);
    PyObject_GC_Del(o);
    Py_DECREF(tp);
}

static PyObject *module_kernel_names(PyObject *o, PyObject *unused) {
    (void)unused;
    ModuleObject *self = (ModuleObject *)o;
    int n = nr_module_num_kernels(self->mod);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *name = PyUnicode_FromString(nr_module_kernel_name(self->mod, i));
        if (!name) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SetItem(list, i, name);
    }
    return list;
}

static PyObject *module_kernel(PyObject *o, PyObject *arg) {
    ModuleObject *self = (ModuleObject *)o;
    State *st = nrpy_state(self->module);
    const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, NULL) : NULL;
    if (!name) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "kernel(name): name must be a string");
        return NULL;
    }
    nr_kernel *k;
    if (nr_module_get_kernel(self->mod, name, &k))
        return PyErr_Format(PyExc_KeyError, "no kernel named '%s'", name);
    KernelObject *ko = (KernelObject *)PyType_GenericAlloc((PyTypeObject *)st->KernelType, 0);
    if (!ko) return NULL;
    ko->module = Py_NewRef(self->module);
    ko->owner = Py_NewRef(o);
    ko->name = Py_NewRef(arg);
    ko->k = k;
    ko->nparams = nr_kernel_num_params(k);
    return (PyObject *)ko;
}

static PyObject *module_diagnostics(PyObject *o, void *unused) {
    (void)unused;
    const char *text = nr_module_diagnostics(((ModuleObject *)o)->mod);
    /* quoted source and printed strings: any bytes a string constant can make */
    return PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
}

static PyGetSetDef module_getset[] = {
    {"diagnostics", module_diagnostics, NULL,
     "the warnings and notes (tl.static_print's) of its compile, as nereid compile prints them",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef module_methods[] = {
    {"kernel_names", module_kernel_names, METH_NOARGS, "the names of the module's kernels"},
    {"kernel", module_kernel, METH_O, "kernel(name) -> Kernel"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot module_slots[] = {
    {Py_tp_dealloc, module_dealloc},
    {Py_tp_traverse, module_traverse},
    {Py_tp_clear, module_clear},
    {Py_tp_methods, module_methods},
    {Py_tp_getset, module_getset},
    {Py_tp_doc, "a compiled module (Context.compile)"},
    {0, NULL},
};

static PyType_Spec module_spec = {"nereid._nereid.Module", sizeof(ModuleObject), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, module_slots};

/* ---- Kernel ---- */

/* A kernel's launchers refer to it: the collector breaks that cycle through kernel_clear. */
static int kernel_traverse(PyObject *o, visitproc visit, void *arg) {
    KernelObject *self = (KernelObject *)o;
    Py_VISIT(Py_TYPE(o));
    Py_VISIT(self->owner);
    Py_VISIT(self->name);
    Py_VISIT(self->module);
    Py_VISIT(self->signature);
    Py_VISIT(self->launchers);
    return 0;
}

static int kernel_clear(PyObject *o) {
    KernelObject *self = (KernelObject *)o;
    Py_CLEAR(self->launchers);
    Py_CLEAR(self->signature);
    return 0;
}

static void kernel_dealloc(PyObject *o) {
    KernelObject *self = (KernelObject *)o;
    PyTypeObject *tp = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    kernel_clear(o);
    Py_XDECREF(self->owner);
    Py_XDECREF(self->name);
    Py_XDECREF(self->module);
    PyObject_GC_Del(o);
    Py_DECREF(tp);
}

/* params() -> [(name, type)], type as in signatures: "*fp32", "i32", "tensordesc<fp16[64, 64]>",
 * ... */
static PyObject *kernel_params(PyObject *o, PyObject *unused) {
    (void)unused;
    KernelObject *self = (KernelObject *)o;
    PyObject *list = PyList_New(self->nparams);
    for (int i = 0; list && i < self->nparams; i++) {
        nr_type t = nr_kernel_param_type(self->k, i);
        char ty[96];
        if (t == NR_TYPE_PTR)
            snprintf(ty, sizeof ty, "*%s", nrpy_type_name(nr_kernel_param_pointee(self->k, i)));
        else if (t == NR_TYPE_TENSOR_DESC) {
            int64_t block[NR_TENSOR_DESC_MAX_RANK];
            int rank = nr_kernel_param_block_shape(self->k, i, block);
            nrpy_desc_type_text(nr_kernel_param_pointee(self->k, i), rank, block, ty, sizeof ty);
        } else snprintf(ty, sizeof ty, "%s", nrpy_type_name(t));
        PyObject *item = Py_BuildValue("(ss)", nr_kernel_param_name(self->k, i), ty);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SetItem(list, i, item);
    }
    return list;
}

static PyObject *kernel_get_name(PyObject *o, void *unused) {
    (void)unused;
    return Py_NewRef(((KernelObject *)o)->name);
}

/* kernel.name = text: the name Triton's `repr=` option gives a compiled kernel (messages
 * use it too); nr_kernel keeps its own. */
static int kernel_set_name(PyObject *o, PyObject *v, void *unused) {
    (void)unused;
    if (!v || !PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "a kernel's name is a str");
        return -1;
    }
    KernelObject *self = (KernelObject *)o;
    int same = PyUnicode_Compare(self->name, v) == 0;
    if (!same && PyErr_Occurred()) return -1;
    if (!same) Py_CLEAR(self->launchers); /* they carry the name */
    NRPY_SETREF(self->name, Py_NewRef(v));
    return 0;
}

static PyObject *kernel_get_module(PyObject *o, void *unused) {
    (void)unused;
    return Py_NewRef(((KernelObject *)o)->owner);
}

/* _info() -> dict of what its last launch ran (nr_kernel_last_info) */
static PyObject *kernel_info(PyObject *o, PyObject *unused) {
    (void)unused;
    KernelObject *self = (KernelObject *)o;
    nr_kernel_info in;
    if (nr_kernel_last_info(self->k, &in))
        return PyErr_Format(PyExc_RuntimeError, "%s has not been launched",
                            PyUnicode_AsUTF8AndSize(self->name, NULL));
    /* n_regs: the registers the SM allocates a thread, ptxas's count rounded up to the
     * allocation unit (256 a warp, 8 a thread, since sm_50), the figure occupancy depends
     * on: Triton's tutorials divide the register file by it to size persistent grids, and
     * the exact count (registers) can put one block more per SM than fit */
    int alloc = (in.registers + 7) / 8 * 8;
    return Py_BuildValue("{s:s,s:s,s:i,s:i,s:I,s:i,s:i,s:i,s:i}", "name", in.name, "target",
                         in.target, "num_warps", in.num_warps, "num_stages", in.num_stages,
                         "shared", in.shared_bytes, "n_regs", alloc, "registers", in.registers,
                         "n_spills", in.spill_bytes, "num_ctas",
                         self->num_ctas > 0 ? self->num_ctas : 1);
}

/* _code(what) -> the last launch's variant's code: "ptx", "llvm", "gpu-ir", "ir" */
static PyObject *kernel_code(PyObject *o, PyObject *arg) {
    KernelObject *self = (KernelObject *)o;
    const char *what = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!what) return NULL;
    char *text = NULL;
    size_t len = 0;
    nr_status s = nr_kernel_code(self->k, what, &text, &len);
    if (s == NR_ERR_NOT_FOUND) return PyErr_Format(PyExc_KeyError, "%s", what);
    if (s) {
        State *st = nrpy_state(self->module);
        ModuleObject *m = (ModuleObject *)self->owner;
        nrpy_raise(st, ((ContextObject *)m->context)->ctx, s, NULL);
        return NULL;
    }
    PyObject *r = PyUnicode_FromStringAndSize(text, (Py_ssize_t)len);
    free(text);
    return r;
}

/* asm, metadata: views that Python makes (nereid/_runtime.py: _set_views) */
static PyObject *kernel_view(PyObject *o, int which) {
    State *st = nrpy_state(((KernelObject *)o)->module);
    PyObject *make = which ? st->metadata_view : st->asm_view;
    if (!make) return PyErr_Format(PyExc_AttributeError, "%s", which ? "metadata" : "asm");
    return PyObject_CallFunctionObjArgs(make, o, NULL);
}
static PyObject *kernel_get_asm(PyObject *o, void *unused) {
    return (void)unused, kernel_view(o, 0);
}
static PyObject *kernel_get_metadata(PyObject *o, void *unused) {
    return (void)unused, kernel_view(o, 1);
}

static PyObject *kernel_get_count(PyObject *o, void *which) {
    PyObject *info = kernel_info(o, NULL);
    if (!info) return NULL;
    PyObject *v = PyDict_GetItemString(info, which ? "n_spills" : "n_regs");
    Py_XINCREF(v);
    Py_DECREF(info);
    return v;
}

/* _signature: what the @jit function sets on the kernels it compiles (its parameters'
 * names and which are constexprs), for kernel[grid](*all_args) as Triton's; None if unset */
static PyObject *kernel_get_signature(PyObject *o, void *unused) {
    (void)unused;
    KernelObject *self = (KernelObject *)o;
    return Py_NewRef(self->signature ? self->signature : Py_None);
}
static int kernel_set_signature(PyObject *o, PyObject *v, void *unused) {
    (void)unused;
    KernelObject *self = (KernelObject *)o;
    Py_XINCREF(v);
    NRPY_SETREF(self->signature, v);
    Py_CLEAR(self->launchers); /* made from the old one */
    return 0;
}

static PyObject *kernel_get_context(PyObject *o, void *unused) {
    (void)unused;
    return Py_NewRef(((ModuleObject *)((KernelObject *)o)->owner)->context);
}

enum { KERNEL_LAUNCHERS = 8 }; /* grids whose launchers a kernel keeps */

/* A grid whose launcher is kept: a tuple of one to three ints (exactly ints: (4.0,) equals
 * (4,) as a key but is not a grid, and a callable would keep what it captured alive). */
static bool keyable_grid(PyObject *grid) {
    if (!PyTuple_Check(grid) || PyTuple_Size(grid) < 1 || PyTuple_Size(grid) > 3) return false;
    for (Py_ssize_t i = 0; i < PyTuple_Size(grid); i++)
        if (!PyLong_CheckExact(PyTuple_GetItem(grid, i))) return false;
    return true;
}

/* kernel[grid]: a launcher of this compiled kernel (Triton's CompiledKernel[grid]), made by
 * Python (nereid/_runtime.py: KernelLauncher) once per grid: code that compiles with
 * warmup() and launches the result on each call (Triton's softmax tutorial) makes it again
 * at every call otherwise. A launcher reads the kernel's switches when it launches, and the
 * kept ones go when what they were made from changes (_signature, the name), so a kept one
 * launches as a new one would. */
static PyObject *kernel_subscript(PyObject *o, PyObject *grid) {
    KernelObject *self = (KernelObject *)o;
    State *st = nrpy_state(self->module);
    if (!st->grid_view) return PyErr_Format(PyExc_TypeError, "a Kernel is not subscriptable");
    bool keyable = keyable_grid(grid);
    if (keyable && self->launchers) {
        PyObject *l = PyDict_GetItemWithError(self->launchers, grid);
        if (l) return Py_NewRef(l);
        if (PyErr_Occurred()) return NULL;
    }
    PyObject *l = PyObject_CallFunctionObjArgs(st->grid_view, o, grid, NULL);
    if (!l || !keyable) return l;
    if (!self->launchers && !(self->launchers = PyDict_New())) return Py_DECREF(l), NULL;
    if (PyDict_Size(self->launchers) >= KERNEL_LAUNCHERS) PyDict_Clear(self->launchers);
    if (PyDict_SetItem(self->launchers, grid, l)) return Py_DECREF(l), NULL;
    return l;
}

static PyGetSetDef kernel_getset[] = {
    {"name", kernel_get_name, kernel_set_name, "the kernel's name", NULL},
    {"asm", kernel_get_asm, NULL, "the last launch's code by name: 'ptx', 'llvm', 'gpu-ir', 'ir'",
     NULL},
    {"metadata", kernel_get_metadata, NULL,
     "the last launch's num_warps, num_stages, shared, target", NULL},
    {"n_regs", kernel_get_count, NULL, "registers per thread of the last launch's code", NULL},
    {"n_spills", kernel_get_count, NULL,
     "bytes of spilled registers per thread of the last launch's code", (void *)1},
    {"module", kernel_get_module, NULL, "the Module it belongs to", NULL},
    {"context", kernel_get_context, NULL, "the Context its Module was compiled for", NULL},
    {"_signature", kernel_get_signature, kernel_set_signature,
     "the @jit function's (names, constexpr flags), for kernel[grid]", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *kernel_init_handles(PyObject *o, PyObject *unused) {
    (void)o, (void)unused;
    Py_RETURN_NONE; /* Triton's CompiledKernel loads lazily; a launched kernel here is loaded */
}

static PyMethodDef kernel_methods[] = {
    {"params", kernel_params, METH_NOARGS, "the runtime parameters: [(name, type)]"},
    {"_info", kernel_info, METH_NOARGS, "what the last launch ran: a dict"},
    {"_code", kernel_code, METH_O,
     "_code(what): the last launch's code ('ptx', 'llvm', 'gpu-ir', 'ir')"},
    {"_init_handles", kernel_init_handles, METH_NOARGS, "Triton's: nothing to do"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot kernel_slots[] = {
    {Py_tp_dealloc, kernel_dealloc},
    {Py_tp_traverse, kernel_traverse},
    {Py_tp_clear, kernel_clear},
    {Py_tp_methods, kernel_methods},
    {Py_tp_getset, kernel_getset},
    {Py_mp_subscript, kernel_subscript},
    {Py_tp_doc, "one kernel of a Module (Module.kernel)"},
    {0, NULL},
};

static PyType_Spec kernel_spec = {"nereid._nereid.Kernel", sizeof(KernelObject), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, kernel_slots};

/* ---- the module ---- */

/* _set_errors(Error, CompileError, LaunchError, DeviceError, OptionError): the exception
 * classes */
static PyObject *set_errors(PyObject *module, PyObject *args) {
    State *st = nrpy_state(module);
    PyObject *e, *c, *l, *d, *o = NULL;
    if (!PyArg_ParseTuple(args, "OOOO|O", &e, &c, &l, &d, &o)) return NULL;
    if (o) NRPY_SETREF(st->OptionError, Py_NewRef(o));
    NRPY_SETREF(st->Error, Py_NewRef(e));
    NRPY_SETREF(st->CompileError, Py_NewRef(c));
    NRPY_SETREF(st->LaunchError, Py_NewRef(l));
    NRPY_SETREF(st->DeviceError, Py_NewRef(d));
    Py_RETURN_NONE;
}

static PyObject *version(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    return PyUnicode_FromString(NEREID_VERSION);
}

static PyObject *build_id(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    return PyUnicode_FromString(nr_compiler_build());
}

/* device_count(kind) -> the number of devices (nr_device_count); DeviceError without a driver */
static PyObject *device_count(PyObject *module, PyObject *args) {
    int kind = NR_DEVICE_CUDA;
    if (!PyArg_ParseTuple(args, "|i", &kind)) return NULL;
    if (kind != NR_DEVICE_CPU && kind != NR_DEVICE_CUDA)
        return PyErr_Format(PyExc_ValueError, "unknown device kind %d", kind);
    char why[512];
    int n = 0;
    if (nr_device_count((nr_device_kind)kind, &n, why, sizeof why)) {
        State *st = nrpy_state(module);
        return PyErr_Format(st->DeviceError ? st->DeviceError : PyExc_RuntimeError, "%s", why);
    }
    return PyLong_FromLong(n);
}

/* _set_views(asm, metadata, grid=None): the classes kernel.asm, kernel.metadata and
 * kernel[grid] make */
static PyObject *set_views(PyObject *module, PyObject *args) {
    State *st = nrpy_state(module);
    PyObject *a, *m, *g = NULL;
    if (!PyArg_ParseTuple(args, "OO|O", &a, &m, &g)) return NULL;
    NRPY_SETREF(st->asm_view, Py_NewRef(a));
    NRPY_SETREF(st->metadata_view, Py_NewRef(m));
    Py_XINCREF(g);
    NRPY_SETREF(st->grid_view, g);
    Py_RETURN_NONE;
}

/* launch_count() -> the kernels launched through the extension so far (test harnesses) */
static PyObject *launch_count(PyObject *module, PyObject *unused) {
    (void)unused;
    return PyLong_FromUnsignedLongLong(nrpy_state(module)->launches);
}

static PyMethodDef module_functions[] = {
    {"launch_count", launch_count, METH_NOARGS, "the kernels launched through nereid so far"},
    {"_set_views", set_views, METH_VARARGS, NULL},
    {"build_id", build_id, METH_NOARGS, "a hash of the compiler's sources (nr_compiler_build)"},
    {"device_count", device_count, METH_VARARGS,
     "device_count(kind=DEVICE_CUDA): how many devices (nr_device_count)"},
    {"_set_errors", set_errors, METH_VARARGS, NULL},
    {"version", version, METH_NOARGS, "the library's version"},
    {NULL, NULL, 0, NULL},
};

static int state_traverse(PyObject *m, visitproc visit, void *arg) {
    State *st = nrpy_state(m);
    if (!st) return 0;
    PyObject **fields[] = {
        &st->ContextType,  &st->ModuleType,  &st->KernelType,   &st->DispatcherType,
        &st->LauncherType, &st->TunerType,   &st->asm_view,     &st->metadata_view,
        &st->grid_view,    &st->Error,       &st->CompileError, &st->LaunchError,
        &st->DeviceError,  &st->OptionError, &st->dtype_codes,  &st->debug_key};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) Py_VISIT(*fields[i]);
    for (int i = 0; i < st->narg_types; i++) {
        Py_VISIT(st->arg_types[i].type);
        Py_VISIT(st->arg_types[i].is_cuda);
        Py_VISIT(st->arg_types[i].dtype);
        Py_VISIT(st->arg_types[i].data_ptr);
        Py_VISIT(st->arg_types[i].get_device);
        Py_VISIT(st->arg_types[i].last_dtype);
    }
    return 0;
}

static int state_clear(PyObject *m) {
    State *st = nrpy_state(m);
    if (!st) return 0;
    PyObject **fields[] = {
        &st->ContextType,  &st->ModuleType,       &st->KernelType,       &st->DispatcherType,
        &st->LauncherType, &st->TunerType,        &st->asm_view,         &st->metadata_view,
        &st->Error,        &st->CompileError,     &st->LaunchError,      &st->DeviceError,
        &st->dtype_codes,  &st->s_data_ptr,       &st->s_dtype,          &st->s_is_cuda,
        &st->s_cai,        &st->s_compile,        &st->s_resolve,        &st->s_untyped_storage,
        &st->s_nbytes,     &st->s_num_warps,      &st->s_num_stages,     &st->s_torch,
        &st->s_torch_C,    &st->s_get_stream,     &st->s_typestr,        &st->s_data,
        &st->s_get_device, &st->s_get_cur_device, &st->s_resolve_device, &st->s_storage,
        &st->s_base,       &st->s_shape,          &st->s_strides,        &st->s_block_shape,
        &st->s_padding,    &st->grid_view,        &st->OptionError,      &st->debug_key};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) Py_CLEAR(*fields[i]);
    for (int i = 0; i < st->narg_types; i++) {
        Py_CLEAR(st->arg_types[i].type);
        Py_CLEAR(st->arg_types[i].is_cuda);
        Py_CLEAR(st->arg_types[i].dtype);
        Py_CLEAR(st->arg_types[i].data_ptr);
        Py_CLEAR(st->arg_types[i].get_device);
        Py_CLEAR(st->arg_types[i].last_dtype);
    }
    st->narg_types = 0;
    return 0;
}

static void state_free(void *m) { state_clear((PyObject *)m); }

static int add_type(PyObject *module, PyType_Spec *spec, PyObject *base, PyObject **slot) {
    *slot = PyType_FromModuleAndSpec(module, spec, base);
    if (!*slot) return -1;
    const char *dot = strrchr(spec->name, '.');
    return PyModule_AddObjectRef(module, dot ? dot + 1 : spec->name, *slot);
}

static int exec_module(PyObject *module) {
    State *st = nrpy_state(module);
    struct {
        PyObject **slot;
        const char *text;
    } names[] = {
        {&st->s_data_ptr, "data_ptr"},
        {&st->s_dtype, "dtype"},
        {&st->s_is_cuda, "is_cuda"},
        {&st->s_cai, "__cuda_array_interface__"},
        {&st->s_compile, "_compile"},
        {&st->s_resolve, "_resolve"},
        {&st->s_untyped_storage, "untyped_storage"},
        {&st->s_nbytes, "nbytes"},
        {&st->s_num_warps, "num_warps"},
        {&st->s_num_stages, "num_stages"},
        {&st->s_torch, "torch"},
        {&st->s_torch_C, "_C"},
        {&st->s_get_stream, "_cuda_getCurrentRawStream"},
        {&st->s_typestr, "typestr"},
        {&st->s_data, "data"},
        {&st->s_get_device, "get_device"},
        {&st->s_get_cur_device, "_cuda_getDevice"},
        {&st->s_resolve_device, "_resolve_device"},
        {&st->s_storage, "storage"},
        {&st->s_base, "base"},
        {&st->s_shape, "shape"},
        {&st->s_strides, "strides"},
        {&st->s_block_shape, "block_shape"},
        {&st->s_padding, "padding"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        *names[i].slot = PyUnicode_InternFromString(names[i].text);
        if (!*names[i].slot) return -1;
    }
    st->dtype_codes = PyDict_New();
    if (!st->dtype_codes) return -1;
    st->debug_key = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type);
    if (!st->debug_key || PyModule_AddObjectRef(module, "_DEBUG_KEY", st->debug_key)) return -1;
    if (add_type(module, &context_spec, NULL, &st->ContextType) ||
        add_type(module, &module_spec, NULL, &st->ModuleType) ||
        add_type(module, &kernel_spec, NULL, &st->KernelType))
        return -1;
    if (nrpy_launch_init(module, st) || nrpy_tune_init(module, st)) return -1;
    return PyModule_AddIntConstant(module, "DEVICE_CPU", NR_DEVICE_CPU) ||
           PyModule_AddIntConstant(module, "DEVICE_CUDA", NR_DEVICE_CUDA);
}

static PyModuleDef_Slot module_slots_def[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef nereid_module_def = {
    PyModuleDef_HEAD_INIT,
    "nereid._nereid",
    "The Nereid C API for Python (the nereid package builds on it).",
    sizeof(State),
    module_functions,
    module_slots_def,
    state_traverse,
    state_clear,
    state_free,
};

PyMODINIT_FUNC PyInit__nereid(void) { return PyModuleDef_Init(&nereid_module_def); }
