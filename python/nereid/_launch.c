/* _launch.c - the launch path of the Python extension: `kernel[grid](*args, **kwargs)`.
 *
 * A Dispatcher stands for one kernel as Python sees it: its parameters in order (typed
 * runtime parameters, untyped ones whose type the arguments decide, constexprs), their
 * defaults, and a cache of compiled specialisations keyed by what the arguments decide
 * (inferred types, constexpr values). nereid/__init__.py subclasses it (JITFunction,
 * CompiledKernel) and supplies two methods called only on the slow path: _resolve()
 * (the Context to run on, at the first launch) and _compile(key) (a Kernel for a new key).
 *
 * Subscripting gives a Launcher holding the grid; calling it binds the arguments to the
 * parameters (positional, then keywords, then defaults), turns each runtime argument into
 * an nr_arg, looks the key up, evaluates the grid (a tuple, or a callable of the bound
 * arguments as Triton's grids are) and launches: on the CPU device, arrays are lent to
 * the interpreter through the buffer protocol (nr_host_register) for the launch's
 * duration, so results land in them; on CUDA, torch tensors (data_ptr()) and objects
 * with __cuda_array_interface__ are passed by address, on torch's current stream (of the
 * kernel's device) when torch is loaded; tensor descriptors (nereid.TensorDescriptor, and
 * Triton's TensorDescriptor read by its attribute names) become an nr_tensor_desc each,
 * their base read as a pointer argument is (desc_arg). A dispatcher that follows its
 * arguments' device (`_per_device`: @nereid.jit without a device index) runs each launch
 * on the device of its first tensor argument (get_device(); a descriptor's base counts),
 * or without one on torch's current device,
 * with a context and a cache of compiled kernels per device. This is the path whose cost
 * the launch-overhead benchmarks measure (bench/launch_overhead.py on a GPU,
 * bench/launch_overhead_mock.py on the stand-in driver). A launch like the last one
 * (fast_launch: arguments of the same kinds, the same constexprs, a fixed grid, the same
 * device) is bound, read and launched in one pass with the last launch's kernel: it
 * allocates nothing of its own, looks nothing up by name and builds no key; it reads each
 * tensor through descriptors cached per type (is_cuda, dtype, data_ptr()) and calls back
 * into Python only for those three reads, torch's current stream and, for a kernel that
 * follows its tensors, the first tensor's get_device() (or torch's current device). Any
 * other launch takes the general path (launch), which also keeps what the fast path
 * compares against; so do all launches with a descriptor argument. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "_nereid.h"

enum { P_TYPED, P_INFER, P_CONSTEXPR };
enum {
    OPT_NONE,
    OPT_WARPS,
    OPT_STAGES
}; /* keywords that are launch options: num_warps=, num_stages= */
/* Key codes, what an inferred parameter's argument decides: its nr_type (a scalar),
 * CODE_PTR + pointee (an array or tensor), CODE_NONE (None), CODE_CONSTEXPR (a value
 * Triton makes a constexpr whatever the annotation: a @jit function, a tl.constexpr(...)
 * object, a dtype, and a Python int equal to 1 unless the parameter is in the kernel's
 * do_not_specialize, as Triton 3.x's launcher specialises it, a tuple's items always; the
 * key then holds (CODE_CONSTEXPR, its type, it)), or for a tensor descriptor
 * CODE_DESC | pointee | rank << 6 | log2(block_shape[d]) << (9 + 5 d): the element type
 * and the block shape (powers of two of at most 2^20 elements), as Triton specialises on
 * "tensordesc<fp16[64, 64]>" (nereid/_jit.py's _type_text reads them back). */
/* CODE_TUPLE: a tuple (namedtuples and torch.Size too) given an inferred parameter, which
 * Triton's launcher flattens: its leaves (depth first) are the kernel's run-time
 * arguments, each typed as a bare parameter's argument is; the key holds (CODE_TUPLE, its
 * type, the items' key entries), the slots one entry per tuple and per leaf. */
enum {
    MAX_PARAMS = 256, /* the runtime's (NR_MAX_LAUNCH_ARGS) */
    MAX_SLOTS = 256,  /* run-time arguments, tuples' leaves included */
    MAX_TUPLE_DEPTH = 32,
    CODE_TUPLE = -4,
    CODE_CONSTEXPR = -3,
    CODE_NONE = -2,
    CODE_PTR = 100
};
#define CODE_DESC (1LL << 40)
/* an inferred parameter's argument that the kernel takes at run time (not None, not a
 * constexpr value, not a tuple: its leaves are) */
static inline bool code_passed(long long code) {
    return code != CODE_NONE && code != CODE_CONSTEXPR && code != CODE_TUPLE;
}
enum {
    DESC_RANK = NR_TENSOR_DESC_MAX_RANK,
    DESC_MAX_NUMEL = 1 << 20
}; /* nr_tensor_desc's dims; Triton's largest block */

/* One parameter, what a launch reads of it together. */
typedef struct {
    int kind;              /* P_* */
    nr_type type, pointee; /* P_TYPED: its type (NR_TYPE_PTR and the pointee for a pointer) */
    int option;            /* OPT_WARPS, OPT_STAGES: its name is a launch option's too */
    bool one;              /* P_INFER: an int argument equal to 1 is a constexpr (Triton's
                              specialisation; false for do_not_specialize parameters) */
    long long last_code;   /* P_INFER: the key code of the last launch's argument (see
                              last_kernel) */
    PyObject *last_value;  /* P_CONSTEXPR, and P_INFER given a constexpr value (CODE_CONSTEXPR):
                              the last launch's value (a strong reference) */
    /* the tensor type of the last launch's argument here, or NULL (an entry of the module
     * state's arg_types, which lives as long as the module): an argument of that type
     * again is read at once */
    struct ArgType *hint;
    PyObject *name; /* an item of `names` */
} Param;

typedef struct {
    PyObject_HEAD PyObject *module; /* the extension module: its state */
    State *st;                      /* the module's state (alive as long as `module`) */
    PyObject *context;              /* ContextObject, from _resolve() at the first launch */
    PyObject *name;                 /* the kernel's name, for messages */
    PyObject *names;                /* tuple of str: every parameter in order */
    int nparams;
    Param p[MAX_PARAMS];
    PyObject *defaults;  /* dict: parameter name -> default value */
    int extra_kw;        /* unknown keywords are constexpr values (compiled modules) */
    PyObject *meta;      /* dict or NULL: what a callable grid's meta holds besides the
                            arguments (a compiled module's constexprs, given at compile time) */
    PyObject *cache;     /* dict: key -> Kernel, the kernels compiled for `context` */
    PyObject *stream_fn; /* torch._C._cuda_getCurrentRawStream, once torch is loaded */
    /* per-device dispatch: `follow` (launches on CUDA run on their arguments' device), the
     * device index -> (Context, cache dict) of every device launched on, and torch's
     * current device query (torch._C._cuda_getDevice) once torch is loaded; `context` and
     * `cache` are then the last launch's device's */
    bool follow;
    PyObject *devices;
    PyObject *device_fn;
    PyObject *last; /* the last Launcher made: `k[grid]` with the same grid object reuses it */
    /* The last launch's kernel (a strong reference; NULL before the first launch or after
     * the context changed) and what chose it: each inferred parameter's key code and each
     * constexpr's value (strong references). A launch whose codes are the same and whose
     * constexprs are the same objects (with no extra keywords) has the same key, so it
     * takes the kernel without building the key and looking it up in `cache`. */
    PyObject *last_kernel;
    bool last_tuned;  /* last_kernel is tuned (its launches need the arguments' extents) */
    bool fast;        /* the last launch's arguments were all of kinds fast_launch reads */
    bool launcher;    /* a compiled kernel's kernel[grid] (KernelLauncher): runs its switches */
    int launch_warps; /* the launch being bound's num_warps= (0: none), for _compile: the
                         front end evaluates tl.extra.cuda.num_warps() with it */
    int launch_debug; /* its debug= and sanitize_overflow= (DEBUG_*): make_key keys them */
    int last_debug;   /* last_kernel's launch's debug= */
} DispatcherObject;

/* The grid of a launch, as `k[grid]` gives it: a tuple of ints (or an int) is read once
 * (GRID_FIXED: dims, empty); a callable is called at each launch (GRID_CALL); anything
 * else (a list, which may change) is read at each launch (GRID_READ). */
enum { GRID_READ, GRID_FIXED, GRID_CALL };
typedef struct {
    PyObject *g;
    int kind;
    unsigned dims[3];
    bool empty;
} Grid;

typedef struct {
    PyObject_HEAD PyObject *dispatcher;
    PyObject *grid;
    Grid info; /* info.g is grid */
} LauncherObject;

/* One runtime argument on its way to nr_launch. */
typedef struct {
    nr_arg a;
    long long code; /* the key code (P_INFER) */
    Py_buffer view; /* CPU: the array lent for the launch */
    bool has_view;
    void *reg; /* CPU: the extent to register with nr_host_register */
    size_t reg_bytes;
    void *copy;    /* CPU: a private copy of a read-only array */
    PyObject *obj; /* the argument (borrowed), for its extent when a tuner needs it */
    /* a tensor descriptor (a.type NR_TYPE_TENSOR_DESC, a.v.desc = &desc): its block shape
     * (checked against the compiled kernel's parameter), its parameter, and its base (a
     * strong reference, NULL for other arguments: released after the launch; on the CPU
     * the base's memory is lent through view/reg/copy as a pointer argument's) */
    nr_tensor_desc desc;
    int64_t block[DESC_RANK];
    int param;
    PyObject *base;
} Slot;

static const char *param_name(DispatcherObject *d, int i) {
    PyObject *n = PyTuple_GetItem(d->names, i);
    const char *s = n ? PyUnicode_AsUTF8AndSize(n, NULL) : NULL;
    if (!s) PyErr_Clear();
    return s ? s : "?";
}

static const char *kname(DispatcherObject *d) {
    const char *s = d->name ? PyUnicode_AsUTF8AndSize(d->name, NULL) : NULL;
    if (!s) PyErr_Clear();
    return s ? s : "kernel";
}

/* ---- Dispatcher ---- */

/* The extension module of the first class in type's MRO that was made from our specs. */
static PyObject *find_module(PyTypeObject *type) {
    PyObject *mro = PyObject_GetAttrString((PyObject *)type, "__mro__");
    if (!mro) return NULL;
    PyObject *found = NULL;
    for (Py_ssize_t i = 0; !found && i < PyTuple_Size(mro); i++) {
        PyObject *cls = PyTuple_GetItem(mro, i);
        found = PyType_Check(cls) ? PyType_GetModule((PyTypeObject *)cls) : NULL;
        if (!found) PyErr_Clear();
    }
    Py_DECREF(mro);
    if (!found) PyErr_SetString(PyExc_TypeError, "not a nereid Dispatcher type");
    return found;
}

static PyObject *dispatcher_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    (void)args, (void)kwds;
    PyObject *module = find_module(type);
    if (!module) return NULL;
    DispatcherObject *d = (DispatcherObject *)PyType_GenericAlloc(type, 0);
    if (!d) return NULL;
    d->module = Py_NewRef(module);
    d->st = nrpy_state(module);
    d->cache = PyDict_New();
    d->devices = PyDict_New();
    d->defaults = PyDict_New();
    d->names = PyTuple_New(0);
    d->name = PyUnicode_FromString("kernel");
    if (!d->cache || !d->devices || !d->defaults || !d->names || !d->name) {
        Py_DECREF(d);
        return NULL;
    }
    return (PyObject *)d;
}

static int dispatcher_traverse(PyObject *o, visitproc visit, void *arg) {
    DispatcherObject *d = (DispatcherObject *)o;
    Py_VISIT(Py_TYPE(o));
    Py_VISIT(d->context);
    Py_VISIT(d->defaults);
    Py_VISIT(d->cache);
    Py_VISIT(d->devices);
    Py_VISIT(d->meta);
    Py_VISIT(d->stream_fn);
    Py_VISIT(d->device_fn);
    Py_VISIT(d->last);
    Py_VISIT(d->last_kernel);
    for (int i = 0; i < d->nparams; i++) Py_VISIT(d->p[i].last_value);
    return 0;
}

/* Forget the last launch's kernel (the context changed, or the dispatcher goes). */
static void forget_last_kernel(DispatcherObject *d) {
    PyObject *k = d->last_kernel, *vals[MAX_PARAMS];
    int n = d->nparams;
    for (int i = 0; i < n; i++) vals[i] = d->p[i].last_value, d->p[i].last_value = NULL;
    d->last_kernel = NULL;
    for (int i = 0; i < n; i++) Py_XDECREF(vals[i]); /* after: a finalizer may launch */
    Py_XDECREF(k);
}

static int dispatcher_clear(PyObject *o) {
    DispatcherObject *d = (DispatcherObject *)o;
    forget_last_kernel(d);
    Py_CLEAR(d->last);
    Py_CLEAR(d->context);
    Py_CLEAR(d->defaults);
    Py_CLEAR(d->cache);
    Py_CLEAR(d->devices);
    Py_CLEAR(d->meta);
    Py_CLEAR(d->stream_fn);
    Py_CLEAR(d->device_fn);
    Py_CLEAR(d->names);
    Py_CLEAR(d->name);
    Py_CLEAR(d->module);
    return 0;
}

static void dispatcher_dealloc(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    /* a Python subclass's instance dict and weak references are the subclass's */
    dispatcher_clear(o);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(o);
    Py_DECREF(tp);
}

/* The element type of a descriptor type "tensordesc<fp16[64, 64]>" (the block dims may
 * name constexprs: the compiled kernel's parameter has them); NR_TYPE_INVALID if ts is
 * not one. */
static nr_type desc_pointee(const char *ts) {
    if (strncmp(ts, "tensordesc<", 11)) return NR_TYPE_INVALID;
    ts += 11;
    while (*ts == ' ') ts++;
    char name[32];
    size_t n = strcspn(ts, "[ ");
    if (n == 0 || n >= sizeof name) return NR_TYPE_INVALID;
    memcpy(name, ts, n);
    name[n] = 0;
    nr_type t = nrpy_dtype_from_name(name);
    return t == NR_TYPE_I1 ? NR_TYPE_INVALID : t;
}

/* _setup(name, names, kinds, types, defaults, extra_kw[, keep]): the signature.
 * kinds: per parameter 0 typed, 1 inferred, 2 constexpr; types: per parameter a type
 * ("*fp32", "i32", "tensordesc<fp16[64, 64]>") for typed ones, else None; defaults: dict
 * name -> value; keep: per parameter true where an int argument equal to 1 stays a
 * run-time value (Triton's do_not_specialize; by default none). */
static PyObject *dispatcher_setup(PyObject *o, PyObject *args) {
    DispatcherObject *d = (DispatcherObject *)o;
    PyObject *name, *names, *kinds, *types, *defaults, *keep = NULL;
    int extra_kw;
    if (!PyArg_ParseTuple(args, "UO!OOO!p|O", &name, &PyTuple_Type, &names, &kinds, &types,
                          &PyDict_Type, &defaults, &extra_kw, &keep))
        return NULL;
    Py_ssize_t n = PyTuple_Size(names);
    if (n > MAX_PARAMS)
        return PyErr_Format(PyExc_TypeError, "a kernel takes at most %d parameters", MAX_PARAMS);
    if (PySequence_Size(kinds) != n || PySequence_Size(types) != n ||
        (keep && keep != Py_None && PySequence_Size(keep) != n)) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError,
                         "_setup: kinds, types and keep must have one entry per parameter");
        return NULL;
    }
    Param ps[MAX_PARAMS]; /* the new signature, taken once whole */
    memset(ps, 0, sizeof ps);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pname = PyTuple_GetItem(names, i);
        if (!PyUnicode_Check(pname))
            return PyErr_Format(PyExc_TypeError, "_setup: parameter names must be strings");
        ps[i].name = pname;
        ps[i].option = !PyUnicode_Compare(pname, d->st->s_num_warps)    ? OPT_WARPS
                       : !PyUnicode_Compare(pname, d->st->s_num_stages) ? OPT_STAGES
                                                                        : OPT_NONE;
        PyObject *k = PySequence_GetItem(kinds, i), *t = PySequence_GetItem(types, i);
        long kind = k ? PyLong_AsLong(k) : -1;
        const char *ts = t && t != Py_None ? PyUnicode_AsUTF8AndSize(t, NULL) : NULL;
        Py_XDECREF(k);
        if (kind < 0 || kind > 2 || (kind == P_TYPED && !ts)) {
            Py_XDECREF(t);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_setup: bad kind or type");
            return NULL;
        }
        ps[i].kind = (int)kind;
        ps[i].type = ps[i].pointee = NR_TYPE_INVALID;
        ps[i].one = kind == P_INFER;
        if (keep && keep != Py_None) {
            PyObject *kp = PySequence_GetItem(keep, i);
            int yes = kp ? PyObject_IsTrue(kp) : -1;
            Py_XDECREF(kp);
            if (yes < 0) {
                Py_XDECREF(t);
                return NULL;
            }
            ps[i].one &= !yes;
        }
        if (kind == P_TYPED && !strncmp(ts, "tensordesc<", 11)) {
            ps[i].type = NR_TYPE_TENSOR_DESC;
            ps[i].pointee = desc_pointee(ts);
            if (ps[i].pointee == NR_TYPE_INVALID) {
                PyErr_Format(PyExc_ValueError, "_setup: unknown type '%s'", ts);
                Py_XDECREF(t);
                return NULL;
            }
        } else if (kind == P_TYPED) {
            bool ptr = ts[0] == '*';
            nr_type dt = nrpy_dtype_from_name(ptr ? ts + 1 : ts);
            if (dt == NR_TYPE_INVALID) {
                PyErr_Format(PyExc_ValueError, "_setup: unknown type '%s'", ts);
                Py_XDECREF(t);
                return NULL;
            }
            ps[i].type = ptr ? NR_TYPE_PTR : dt;
            ps[i].pointee = ptr ? dt : NR_TYPE_INVALID;
        }
        Py_XDECREF(t);
    }
    forget_last_kernel(d); /* its entries follow the old signature */
    memcpy(d->p, ps, sizeof ps);
    NRPY_SETREF(d->name, Py_NewRef(name));
    NRPY_SETREF(d->names, Py_NewRef(names));
    NRPY_SETREF(d->defaults, Py_NewRef(defaults));
    d->nparams = (int)n;
    d->extra_kw = extra_kw;
    Py_RETURN_NONE;
}

static int read_dims(DispatcherObject *d, PyObject *g, unsigned grid[3], bool *empty);

/* What kind of grid g is; a fixed one's dimensions read (errors are left for the launch
 * to raise, as for a grid read there). */
static void grid_info(DispatcherObject *d, PyObject *g, Grid *info) {
    info->g = g;
    info->empty = false;
    info->kind = PyCallable_Check(g) ? GRID_CALL : GRID_READ;
    if (info->kind == GRID_READ && (PyLong_CheckExact(g) || PyTuple_CheckExact(g))) {
        bool exact = true; /* ints, whose values cannot change */
        for (Py_ssize_t i = 0; PyTuple_CheckExact(g) && i < PyTuple_Size(g); i++)
            exact &= PyLong_CheckExact(PyTuple_GetItem(g, i));
        if (exact && !read_dims(d, g, info->dims, &info->empty)) info->kind = GRID_FIXED;
        PyErr_Clear();
    }
}

static PyObject *launcher_make(DispatcherObject *d, PyObject *grid) {
    LauncherObject *l =
        (LauncherObject *)PyType_GenericAlloc((PyTypeObject *)d->st->LauncherType, 0);
    if (!l) return NULL;
    l->dispatcher = Py_NewRef((PyObject *)d);
    l->grid = Py_NewRef(grid);
    grid_info(d, grid, &l->info);
    return (PyObject *)l;
}

static PyObject *dispatcher_subscript(PyObject *o, PyObject *grid) {
    DispatcherObject *d = (DispatcherObject *)o;
    if (d->last && ((LauncherObject *)d->last)->grid == grid) return Py_NewRef(d->last);
    PyObject *l = launcher_make(d, grid);
    if (l) NRPY_SETREF(d->last, Py_NewRef(l));
    return l;
}

static PyObject *dispatcher_get_cache(PyObject *o, void *unused) {
    (void)unused;
    return Py_NewRef(((DispatcherObject *)o)->cache);
}

static PyObject *dispatcher_get_context(PyObject *o, void *unused) {
    (void)unused;
    DispatcherObject *d = (DispatcherObject *)o;
    return Py_NewRef(d->context ? d->context : Py_None);
}

static int dispatcher_set_context(PyObject *o, PyObject *v, void *unused) {
    (void)unused;
    DispatcherObject *d = (DispatcherObject *)o;
    State *st = d->st;
    if (v && v != Py_None && !PyObject_TypeCheck(v, (PyTypeObject *)st->ContextType)) {
        PyErr_SetString(PyExc_TypeError, "_context must be a Context");
        return -1;
    }
    NRPY_SETREF(d->context, v && v != Py_None ? Py_NewRef(v) : NULL);
    forget_last_kernel(d); /* compiled for the other context */
    ContextObject *c = (ContextObject *)d->context;
    if (c && d->follow && c->kind == NR_DEVICE_CUDA) { /* the cache is this device's */
        PyObject *entry = PyTuple_Pack(2, (PyObject *)c, d->cache);
        int rc = entry ? PyDict_SetItem(d->devices, c->index_obj, entry) : -1;
        Py_XDECREF(entry);
        return rc;
    }
    return 0;
}

static PyObject *dispatcher_get_per_device(PyObject *o, void *unused) {
    (void)unused;
    return PyBool_FromLong(((DispatcherObject *)o)->follow);
}

static int dispatcher_set_per_device(PyObject *o, PyObject *v, void *unused) {
    (void)unused;
    int on = v ? PyObject_IsTrue(v) : 0;
    if (on < 0) return -1;
    ((DispatcherObject *)o)->follow = on;
    return 0;
}

static PyObject *dispatcher_get_meta(PyObject *o, void *unused) {
    (void)unused;
    DispatcherObject *d = (DispatcherObject *)o;
    return d->meta ? Py_NewRef(d->meta) : Py_NewRef(Py_None);
}

static int dispatcher_set_meta(PyObject *o, PyObject *v, void *unused) {
    (void)unused;
    DispatcherObject *d = (DispatcherObject *)o;
    if (v && v != Py_None && !PyDict_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "_meta must be a dict or None");
        return -1;
    }
    NRPY_SETREF(d->meta, v && v != Py_None ? Py_NewRef(v) : NULL);
    return 0;
}

static PyObject *dispatcher_get_devices(PyObject *o, void *unused) {
    (void)unused;
    return PyDict_Copy(((DispatcherObject *)o)->devices);
}

/* ---- binding ---- */

/* The parameter a keyword names (-1: none, -2: an error is set), and in *opt the launch
 * option it names (OPT_*). */
static int find_param(DispatcherObject *d, PyObject *key, int *opt) {
    for (int i = 0; i < d->nparams; i++)
        if (d->p[i].name == key) return *opt = d->p[i].option, i; /* interned: the usual case */
    State *st = d->st;
    *opt = key == st->s_num_warps ? OPT_WARPS : key == st->s_num_stages ? OPT_STAGES : OPT_NONE;
    if (*opt == OPT_NONE) {
        if (!PyUnicode_Check(key)) return -1;
        *opt = !PyUnicode_Compare(key, st->s_num_warps)    ? OPT_WARPS
               : !PyUnicode_Compare(key, st->s_num_stages) ? OPT_STAGES
                                                           : OPT_NONE;
    }
    for (int i = 0; i < d->nparams; i++) {
        int eq = PyObject_RichCompareBool(d->p[i].name, key, Py_EQ);
        if (eq < 0) return -2;
        if (eq) return i;
    }
    return -1;
}

/* num_warps=, num_stages=: a value the option takes (its range is the library's,
 * nr_option_info); out of it, nereid.OptionError (a ValueError, and an AssertionError as
 * Triton raises: "num_warps must be a power of 2") */
static int read_option(State *st, PyObject *v, const char *what, int *out) {
    if (!PyLong_Check(v) || PyBool_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, got %R", what, (PyObject *)Py_TYPE(v));
        return -1;
    }
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    int lo = 1, hi = 1, pow2 = 0;
    nr_option_info(what, NULL, &lo, &hi, &pow2);
    if (x < lo || x > hi || (pow2 && (x & (x - 1)))) {
        PyErr_Format(st->OptionError ? st->OptionError : PyExc_ValueError,
                     "%s must be %sfrom %d to %d, got %ld", what, pow2 ? "a power of 2 " : "", lo,
                     hi, x);
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* A launch's debug= and sanitize_overflow=, compile options of Triton's: the specialisation's
 * key carries them (make_key), and the JIT reads them back from it (_debug_option). */
enum { DEBUG_ON = 1, DEBUG_OFF = 2, DEBUG_NO_OVERFLOW = 4 };

/* What a launch's keywords ask besides the arguments. */
typedef struct {
    int warps, stages; /* num_warps=, num_stages= (0: the kernel's) */
    int num_ctas;      /* num_ctas= (Triton's cluster size: each program runs as one CTA) */
    bool coop;         /* launch_cooperative_grid=True */
    int maxnreg;       /* maxnreg= (0: as compiled), nr_launch_options' */
    int fp_fusion, reflect_ftz; /* enable_fp_fusion=, enable_reflect_ftz=: 1 on, -1 off, 0 as
                                   compiled */
    int debug; /* DEBUG_* flags: debug=True / False given, sanitize_overflow=False given */
} LaunchOpts;

/* A keyword that is one of Triton's launch or compile options (and no parameter): 1 when it
 * is accepted, 0 when it is no option, -1 (an exception set) when Nereid cannot do what it
 * asks. num_ctas (a positive int: results are those of one CTA per program, the cluster
 * split is not made; pre-Hopper GPUs refuse it at the launch, as Triton does) and
 * launch_cooperative_grid are read into o; maxnreg=None and the options that change
 * nothing a program can observe here are accepted (docs/python.md lists each and why). */
static int triton_option(DispatcherObject *d, PyObject *key, PyObject *value, LaunchOpts *o) {
    const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, NULL) : NULL;
    if (!k) return PyErr_Clear(), 0;
    static const char *const harmless[] = {"launch_pdl",
                                           "num_buffers_warp_spec",
                                           "num_consumer_groups",
                                           "reg_dec_producer",
                                           "reg_inc_consumer",
                                           "instrumentation_mode",
                                           "arch"}; /* arch: the launch's device's, always */
    for (size_t i = 0; i < sizeof harmless / sizeof *harmless; i++)
        if (!strcmp(k, harmless[i])) return 1;
    if (!strcmp(k, "num_ctas")) {
        if (!PyLong_Check(value) || PyBool_Check(value)) {
            PyErr_Format(PyExc_TypeError, "%s(): num_ctas must be an int, got %R", kname(d),
                         (PyObject *)Py_TYPE(value));
            return -1;
        }
        long v = PyLong_AsLong(value);
        if (v >= 1 && v <= 16) return o->num_ctas = (int)v, 1;
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "%s(): num_ctas must be from 1 to 16, got %ld", kname(d),
                         v);
        return -1;
    }
    if (!strcmp(k, "maxnreg")) { /* None: no cap; else the PTX's .maxnreg */
        if (value == Py_None) return 1;
        int lo = 16, hi = 255;
        nr_option_info("maxnreg", NULL, &lo, &hi, NULL);
        long v = PyLong_Check(value) && !PyBool_Check(value) ? PyLong_AsLong(value) : -1;
        if (v >= lo && v <= hi) return o->maxnreg = (int)v, 1;
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s(): maxnreg must be None or an int from %d to %d, got %R",
                     kname(d), lo, hi, value);
        return -1;
    }
    if (!strcmp(k, "enable_fp_fusion") || !strcmp(k, "enable_reflect_ftz")) {
        if (value == Py_None) return 1;
        int t = PyObject_IsTrue(value);
        if (t < 0) return -1;
        if (!strcmp(k, "enable_fp_fusion")) o->fp_fusion = t ? 1 : -1;
        else o->reflect_ftz = t ? 1 : -1;
        return 1;
    }
    if (!strcmp(k, "debug") || !strcmp(k, "sanitize_overflow")) { /* compile options */
        if (value == Py_None) return 1;
        int t = PyObject_IsTrue(value);
        if (t < 0) return -1;
        if (k[0] == 'd') o->debug = (o->debug & DEBUG_NO_OVERFLOW) | (t ? DEBUG_ON : DEBUG_OFF);
        else o->debug = (o->debug & ~DEBUG_NO_OVERFLOW) | (t ? 0 : DEBUG_NO_OVERFLOW);
        return 1;
    }
    if (!strcmp(k, "launch_cooperative_grid")) {
        int t = PyObject_IsTrue(value);
        if (t < 0) return -1;
        o->coop = t;
        return 1;
    }
    return 0;
}

/* vals[i]: the argument of parameter i (borrowed). extra: a new dict of unknown keywords
 * when the dispatcher takes them, else NULL. */
/* The two code-generation switches a launch leaves unset take Triton's defaults here, not
 * the C API's (which keep a GPU's results equal to the interpreter's): Triton 3.6 compiles
 * with enable_fp_fusion and enable_reflect_ftz on, the former read from
 * triton.knobs.language.default_fp_fusion when Triton is loaded (when a launch compiles, as
 * Triton reads it). Nothing is imported: without Triton in sys.modules both are on. */
static void triton_defaults(LaunchOpts *o) {
    if (!o->reflect_ftz) o->reflect_ftz = 1;
    if (o->fp_fusion) return;
    int on = 1;
    PyObject *tm = PyDict_GetItemString(PyImport_GetModuleDict(), "triton"); /* borrowed */
    PyObject *knobs = tm ? PyObject_GetAttrString(tm, "knobs") : NULL;
    PyObject *lang = knobs ? PyObject_GetAttrString(knobs, "language") : NULL;
    PyObject *v = lang ? PyObject_GetAttrString(lang, "default_fp_fusion") : NULL;
    if (v) {
        int t = PyObject_IsTrue(v);
        if (t >= 0) on = t;
    }
    PyErr_Clear(); /* no Triton, or one without the knob: its default */
    Py_XDECREF(v);
    Py_XDECREF(lang);
    Py_XDECREF(knobs);
    o->fp_fusion = on ? 1 : -1;
}

static int bind(DispatcherObject *d, PyObject *args, PyObject *kwargs, PyObject **vals,
                PyObject **extra, LaunchOpts *o) {
    Py_ssize_t n = PyTuple_Size(args);
    *extra = NULL;
    if (n > d->nparams) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d argument%s but %zd were given", kname(d),
                     d->nparams, d->nparams == 1 ? "" : "s", n);
        return -1;
    }
    for (int i = 0; i < n; i++) vals[i] = PyTuple_GetItem(args, i);
    for (int i = (int)n; i < d->nparams; i++) vals[i] = NULL;
    if (kwargs) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(kwargs, &pos, &key, &value)) {
            int opt, i = find_param(d, key, &opt);
            if (i == -2) return -1;
            if (opt == OPT_WARPS) {
                if (read_option(d->st, value, "num_warps", &o->warps)) return -1;
            } else if (opt == OPT_STAGES) {
                if (read_option(d->st, value, "num_stages", &o->stages)) return -1;
            }
            if (i >= 0) {
                if (vals[i]) {
                    PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'",
                                 kname(d), param_name(d, i));
                    return -1;
                }
                vals[i] = value;
            } else if (opt == OPT_NONE) {
                int t = triton_option(d, key, value, o);
                if (t < 0) return -1;
                if (t) continue;
                if (!d->extra_kw) {
                    PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                                 kname(d), key);
                    return -1;
                }
                if (!*extra && !(*extra = PyDict_New())) return -1;
                if (PyDict_SetItem(*extra, key, value)) return -1;
            }
        }
    }
    for (int i = kwargs ? 0 : (int)n; i < d->nparams; i++) { /* the defaults */
        if (vals[i]) continue;
        vals[i] = PyDict_GetItemWithError(d->defaults, d->p[i].name);
        if (!vals[i]) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "%s() missing argument '%s'", kname(d),
                             param_name(d, i));
            return -1;
        }
    }
    return 0;
}

/* ---- arguments ---- */

/* The nr_type of a dtype object (torch.float32, numpy.dtype('float32'), ...). */
static nr_type dtype_code(State *st, PyObject *dtype) {
    PyObject *c = PyDict_GetItemWithError(st->dtype_codes, dtype);
    if (c) return (nr_type)PyLong_AsLong(c);
    if (PyErr_Occurred()) PyErr_Clear(); /* an unhashable dtype: looked up by name each time */
    PyObject *s = PyObject_Str(dtype);
    const char *name = s ? PyUnicode_AsUTF8AndSize(s, NULL) : NULL;
    nr_type t = name ? nrpy_dtype_from_name(name) : NR_TYPE_INVALID;
    Py_XDECREF(s);
    PyErr_Clear();
    PyObject *code = PyLong_FromLong(t);
    if (code && PyDict_SetItem(st->dtype_codes, dtype, code)) PyErr_Clear();
    Py_XDECREF(code);
    return t;
}

/* Buffer-protocol formats ("f", "<i8", "?") as pointees. */
static nr_type format_code(const char *fmt, Py_ssize_t itemsize) {
    if (!fmt) return NR_TYPE_U8; /* plain bytes */
    if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++;
    else if (*fmt == '>' || *fmt == '!') return NR_TYPE_INVALID; /* big-endian */
    if (fmt[0] == 0 || fmt[1] != 0) return NR_TYPE_INVALID;
    switch (fmt[0]) {
    case 'e': return NR_TYPE_FP16;
    case 'f': return NR_TYPE_FP32;
    case 'd': return NR_TYPE_FP64;
    case '?': return NR_TYPE_I1;
    case 'b': return NR_TYPE_I8;
    case 'B':
    case 'c': return NR_TYPE_U8;
    case 'h':
    case 'i':
    case 'l':
    case 'q':
    case 'n':
        return itemsize == 2   ? NR_TYPE_I16
               : itemsize == 4 ? NR_TYPE_I32
               : itemsize == 8 ? NR_TYPE_I64
                               : NR_TYPE_INVALID;
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
    case 'N':
        return itemsize == 2   ? NR_TYPE_U16
               : itemsize == 4 ? NR_TYPE_U32
               : itemsize == 8 ? NR_TYPE_U64
                               : NR_TYPE_INVALID;
    }
    return NR_TYPE_INVALID;
}

static int ptr_type_error(DispatcherObject *d, int i, PyObject *obj, const char *why) {
    PyObject *tn = PyType_GetName(Py_TYPE(obj));
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' %s, got %U", kname(d), param_name(d, i), why,
                 tn);
    Py_XDECREF(tn);
    return -1;
}

/* A tensor on the other device than the kernel's: 0 when it may go anyway (page-locked
 * host memory, which a GPU reads through the unified address space, as Triton allows),
 * else -1 with a ValueError (Triton's exception for it). */
static int device_mismatch(DispatcherObject *d, int i, PyObject *obj, int cuda) {
    if (cuda) {
        PyObject *r = PyObject_CallMethod(obj, "is_pinned", NULL);
        int pinned = r ? PyObject_IsTrue(r) : 0;
        Py_XDECREF(r);
        if (!r) PyErr_Clear();
        if (pinned > 0) return 0;
    }
    PyObject *tn = PyType_GetName(Py_TYPE(obj));
    PyErr_Format(PyExc_ValueError, "%s(): argument '%s' %s, got %U", kname(d), param_name(d, i),
                 cuda
                     ? "must be on the GPU or in page-locked host memory (this kernel runs on cuda)"
                     : "must be in host memory (this kernel runs on the CPU device)",
                 tn);
    Py_XDECREF(tn);
    return -1;
}

/* A CPU array through the buffer protocol: lent for the launch (a private copy when it
 * is read-only, since kernels may store through any pointer). */
static int cpu_buffer(DispatcherObject *d, int i, PyObject *obj, Slot *s, nr_type *pointee) {
    if (PyObject_GetBuffer(obj, &s->view, PyBUF_RECORDS)) {
        PyErr_Clear();
        if (PyObject_GetBuffer(obj, &s->view, PyBUF_RECORDS_RO)) return -1;
    }
    s->has_view = true;
    *pointee = format_code(s->view.format, s->view.itemsize);
    if (*pointee == NR_TYPE_INVALID) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument '%s': arrays of format '%s' are not supported", kname(d),
                     param_name(d, i), s->view.format ? s->view.format : "?");
        return -1;
    }
    /* the extent of every element, whatever the strides' signs */
    char *lo = s->view.buf, *hi = (char *)s->view.buf + s->view.itemsize;
    bool empty = false;
    for (int k = 0; k < s->view.ndim; k++) {
        Py_ssize_t len = s->view.shape ? s->view.shape[k] : 0;
        Py_ssize_t stride = s->view.strides ? s->view.strides[k] : 0;
        if (len == 0) empty = true;
        else if (stride < 0) lo += (len - 1) * stride;
        else hi += (len - 1) * stride;
    }
    if (s->view.ndim == 0 || !s->view.shape)
        hi = (char *)s->view.buf + (s->view.len ? s->view.len : s->view.itemsize);
    s->a = nr_arg_ptr((nr_devptr)(uintptr_t)s->view.buf);
    if (empty || !s->view.buf) return 0;
    s->reg = lo;
    s->reg_bytes = (size_t)(hi - lo);
    if (s->view.readonly) {
        s->copy = PyMem_Malloc(s->reg_bytes);
        if (!s->copy) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(s->copy, lo, s->reg_bytes);
        s->reg = s->copy;
        s->a = nr_arg_ptr((nr_devptr)(uintptr_t)((char *)s->copy + ((char *)s->view.buf - lo)));
    }
    return 0;
}

/* An int as 64 bits, unsigned: PyLong_AsUnsignedLong where it is 64 bits wide (it reads
 * the digits; PyLong_AsUnsignedLongLong goes through a byte array, several times slower). */
static uint64_t as_u64(PyObject *v) {
#if ULONG_MAX == UINT64_MAX
    return PyLong_AsUnsignedLong(v);
#else
    return PyLong_AsUnsignedLongLong(v);
#endif
}

static int call_u64(PyObject *obj, PyObject *method, uint64_t *out) {
    PyObject *r = PyObject_CallMethodObjArgs(obj, method, NULL);
    if (!r) return -1;
    *out = as_u64(r);
    Py_DECREF(r);
    return *out == (uint64_t)-1 && PyErr_Occurred() ? -1 : 0;
}

/* A tensor's storage (a new reference): untyped_storage(), or storage() in a torch before
 * 2.0 (its TypedStorage has data_ptr() and nbytes() as well). */
static PyObject *tensor_storage(State *st, PyObject *obj) {
    return PyObject_CallMethodObjArgs(
        obj, PyObject_HasAttr(obj, st->s_untyped_storage) ? st->s_untyped_storage : st->s_storage,
        NULL);
}

/* A torch tensor in host memory on the CPU device: its storage is lent. */
static int cpu_tensor(State *st, PyObject *obj, Slot *s) {
    uint64_t p, base, bytes;
    if (call_u64(obj, st->s_data_ptr, &p)) return -1;
    PyObject *storage = tensor_storage(st, obj);
    if (!storage) return -1;
    int rc = call_u64(storage, st->s_data_ptr, &base) || call_u64(storage, st->s_nbytes, &bytes);
    Py_DECREF(storage);
    if (rc) return -1;
    s->a = nr_arg_ptr(p);
    if (bytes) s->reg = (void *)(uintptr_t)base, s->reg_bytes = bytes;
    return 0;
}

/* __cuda_array_interface__: {'data': (ptr, readonly), 'typestr': '<f4', ...} */
static int cuda_array_interface(State *st, PyObject *cai, Slot *s, nr_type *pointee) {
    if (!PyDict_Check(cai))
        return PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ is not a dict"), -1;
    PyObject *data = PyDict_GetItemWithError(cai, st->s_data),
             *ts = PyDict_GetItemWithError(cai, st->s_typestr);
    PyObject *p = data && PyTuple_Check(data) ? PyTuple_GetItem(data, 0) : NULL;
    const char *t = ts && PyUnicode_Check(ts) ? PyUnicode_AsUTF8AndSize(ts, NULL) : NULL;
    if (!p || !t || strlen(t) < 3) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "malformed __cuda_array_interface__");
        return -1;
    }
    uint64_t addr = as_u64(p);
    if (addr == (uint64_t)-1 && PyErr_Occurred()) return -1;
    int size = atoi(t + 2);
    char kind = t[1];
    *pointee = t[0] == '>'                ? NR_TYPE_INVALID
               : kind == 'f'              ? (size == 2   ? NR_TYPE_FP16
                                             : size == 4 ? NR_TYPE_FP32
                                             : size == 8 ? NR_TYPE_FP64
                                                         : NR_TYPE_INVALID)
               : kind == 'i'              ? (size == 1   ? NR_TYPE_I8
                                             : size == 2 ? NR_TYPE_I16
                                             : size == 4 ? NR_TYPE_I32
                                             : size == 8 ? NR_TYPE_I64
                                                         : NR_TYPE_INVALID)
               : kind == 'u'              ? (size == 1   ? NR_TYPE_U8
                                             : size == 2 ? NR_TYPE_U16
                                             : size == 4 ? NR_TYPE_U32
                                             : size == 8 ? NR_TYPE_U64
                                                         : NR_TYPE_INVALID)
               : kind == 'b' && size == 1 ? NR_TYPE_I1
                                          : NR_TYPE_INVALID;
    s->a = nr_arg_ptr(addr);
    return 0;
}

/* The cache entry of obj's type (see State.arg_types): found on the first argument of
 * each type, up to eight types (NULL past them: such arguments take the general path).
 * A tensor type is one whose is_cuda and dtype are descriptors with getters and whose
 * data_ptr is callable. */
static struct ArgType *find_arg_type(State *st, PyObject *obj) {
    for (int i = 0; i < st->narg_types; i++)
        if (st->arg_types[i].type == (PyObject *)Py_TYPE(obj)) return &st->arg_types[i];
    return NULL;
}

static struct ArgType *arg_type(State *st, PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    struct ArgType *found = find_arg_type(st, obj);
    if (found) return found;
    if (st->narg_types == (int)(sizeof st->arg_types / sizeof st->arg_types[0])) return NULL;
    struct ArgType t = {(PyObject *)tp, false, NULL, NULL, NULL,
                        NULL,           NULL,  NULL, NULL, NR_TYPE_INVALID};
    /* looked up without raising where the attribute is missing (a failed lookup's exception is
     * costly) */
    t.is_cuda = PyObject_HasAttr((PyObject *)tp, st->s_is_cuda)
                    ? PyObject_GetAttr((PyObject *)tp, st->s_is_cuda)
                    : NULL;
    t.dtype = t.is_cuda && PyObject_HasAttr((PyObject *)tp, st->s_dtype)
                  ? PyObject_GetAttr((PyObject *)tp, st->s_dtype)
                  : NULL;
    t.data_ptr = t.dtype && PyObject_HasAttr((PyObject *)tp, st->s_data_ptr)
                     ? PyObject_GetAttr((PyObject *)tp, st->s_data_ptr)
                     : NULL;
    PyErr_Clear();
    if (t.data_ptr) {
        t.is_cuda_get = (descrgetfunc)PyType_GetSlot(Py_TYPE(t.is_cuda), Py_tp_descr_get);
        t.dtype_get = (descrgetfunc)PyType_GetSlot(Py_TYPE(t.dtype), Py_tp_descr_get);
    }
    t.tensor = t.is_cuda_get && t.dtype_get && PyCallable_Check(t.data_ptr);
    if (!t.tensor) {
        Py_CLEAR(t.is_cuda);
        Py_CLEAR(t.dtype);
        Py_CLEAR(t.data_ptr);
        t.is_cuda_get = t.dtype_get = NULL;
    } else if (PyObject_HasAttr((PyObject *)tp, st->s_get_device)) { /* torch's: the device index */
        t.get_device = PyObject_GetAttr((PyObject *)tp, st->s_get_device);
        if (!t.get_device || !PyCallable_Check(t.get_device)) Py_CLEAR(t.get_device);
        PyErr_Clear();
    }
    /* the lookups may have run Python code: the table is read again */
    for (int i = 0; i < st->narg_types; i++)
        if (st->arg_types[i].type == (PyObject *)tp) {
            Py_XDECREF(t.is_cuda), Py_XDECREF(t.dtype), Py_XDECREF(t.data_ptr),
                Py_XDECREF(t.get_device);
            return &st->arg_types[i];
        }
    if (st->narg_types == (int)(sizeof st->arg_types / sizeof st->arg_types[0])) {
        Py_XDECREF(t.is_cuda), Py_XDECREF(t.dtype), Py_XDECREF(t.data_ptr),
            Py_XDECREF(t.get_device);
        return NULL;
    }
    Py_INCREF((PyObject *)tp);
    st->arg_types[st->narg_types] = t;
    return &st->arg_types[st->narg_types++];
}

/* A tensor of a cached tensor type: no attribute lookups, and the dtype's code found by
 * identity when it is the type's last. */
static inline int fast_tensor(DispatcherObject *d, State *st, struct ArgType *t, int cuda, int i,
                              PyObject *obj, Slot *s, nr_type *pointee) {
    PyObject *is_cuda = t->is_cuda_get(t->is_cuda, obj, t->type);
    if (!is_cuda) return -1;
    int on_gpu = is_cuda == Py_True ? 1 : is_cuda == Py_False ? 0 : PyObject_IsTrue(is_cuda);
    Py_DECREF(is_cuda);
    if (on_gpu < 0) return -1;
    if (on_gpu != cuda && device_mismatch(d, i, obj, cuda)) return -1;
    PyObject *dtype = t->dtype_get(t->dtype, obj, t->type);
    if (!dtype) return -1;
    if (dtype == t->last_dtype) {
        *pointee = t->last_code;
        Py_DECREF(dtype);
    } else {
        nr_type code = dtype_code(st, dtype);
        PyObject *old = t->last_dtype; /* both fields set before anything can run */
        t->last_dtype = dtype;         /* the reference the getter gave */
        t->last_code = code;
        Py_XDECREF(old);
        *pointee = code;
    }
    if (!cuda) return cpu_tensor(st, obj, s);
    PyObject *r = PyObject_CallFunctionObjArgs(t->data_ptr, obj, NULL);
    if (!r) return -1;
    uint64_t p = as_u64(r);
    Py_DECREF(r);
    if (p == (uint64_t)-1 && PyErr_Occurred()) return -1;
    s->a = nr_arg_ptr(p);
    return 0;
}

/* A pointer argument: its address (and on the CPU, the memory lent) and element type. */
static int pointer_arg(DispatcherObject *d, int cuda, int i, PyObject *obj, Slot *s,
                       nr_type *pointee) {
    State *st = d->st;
    *pointee = NR_TYPE_INVALID;
    s->obj = obj;
    if (!cuda && PyObject_CheckBuffer(obj)) return cpu_buffer(d, i, obj, s, pointee);
    struct ArgType *t = arg_type(st, obj);
    if (t && t->tensor) return fast_tensor(d, st, t, cuda, i, obj, s, pointee);
    PyObject *is_cuda = NULL;
    int has_ptr = PyObject_HasAttr(obj, st->s_data_ptr);
    if (has_ptr) {
        is_cuda =
            PyObject_HasAttr(obj, st->s_is_cuda) ? PyObject_GetAttr(obj, st->s_is_cuda) : NULL;
        if (!is_cuda) PyErr_Clear();
        int on_gpu = is_cuda ? PyObject_IsTrue(is_cuda) : cuda;
        Py_XDECREF(is_cuda);
        if (on_gpu < 0) return -1;
        if (on_gpu != cuda && device_mismatch(d, i, obj, cuda)) return -1;
        PyObject *dtype = PyObject_GetAttr(obj, st->s_dtype);
        if (!dtype) return -1;
        *pointee = dtype_code(st, dtype);
        Py_DECREF(dtype);
        if (!cuda) return cpu_tensor(st, obj, s);
        uint64_t p;
        if (call_u64(obj, st->s_data_ptr, &p)) return -1;
        s->a = nr_arg_ptr(p);
        return 0;
    }
    if (cuda) {
        PyObject *cai = PyObject_GetAttr(obj, st->s_cai);
        if (cai) {
            int rc = cuda_array_interface(st, cai, s, pointee);
            Py_DECREF(cai);
            return rc;
        }
        PyErr_Clear();
        if (PyObject_CheckBuffer(obj))
            return ptr_type_error(
                d, i, obj, "must be on the GPU: a host array cannot be passed to a kernel on cuda");
        return ptr_type_error(
            d, i, obj, "must be a tensor (torch, or any object with __cuda_array_interface__)");
    }
    return ptr_type_error(d, i, obj,
                          "must be an array (NumPy, or any object with the buffer protocol)");
}

/* ---- tensor descriptors ----
 * A descriptor argument is any object with Triton's TensorDescriptor attributes: base (a
 * tensor or array, read as a pointer argument is: its address, and on the CPU its memory
 * lent), shape, strides (elements; the last must be 1), block_shape (powers of two) and
 * padding ("zero" or "nan"). nereid.TensorDescriptor is one, and so is Triton's own,
 * which is never imported. It becomes an nr_tensor_desc in the slot, read by nr_launch
 * only; the block shape decides an inferred parameter's type (its key code) and is
 * checked against a typed one's once the kernel is known (check_block). These arguments
 * take the general path, never fast_launch. */

/* Raise cls: "KERNEL(): argument 'NAME' (a tensor descriptor): " and the message. */
static int desc_error(DispatcherObject *d, int i, PyObject *cls, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int desc_error(DispatcherObject *d, int i, PyObject *cls, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyErr_Format(cls, "%s(): argument '%s' (a tensor descriptor): %s", kname(d), param_name(d, i),
                 msg);
    return -1;
}

/* desc.NAME, a sequence of ints, into out (its first DESC_RANK items): its length, or -1
 * with an exception set. */
static Py_ssize_t desc_ints(DispatcherObject *d, int i, PyObject *desc, PyObject *name,
                            int64_t out[DESC_RANK]) {
    PyObject *seq = PyObject_GetAttr(desc, name);
    const char *what = PyUnicode_AsUTF8AndSize(name, NULL);
    if (!seq) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            desc_error(d, i, PyExc_TypeError, "it has no %s", what);
        }
        return -1;
    }
    Py_ssize_t n = PySequence_Check(seq) && !PyUnicode_Check(seq) ? PySequence_Size(seq) : -1;
    if (n < 0) {
        PyErr_Clear();
        PyObject *tn = PyType_GetName(Py_TYPE(seq));
        const char *tname = tn ? PyUnicode_AsUTF8AndSize(tn, NULL) : NULL;
        desc_error(d, i, PyExc_TypeError, "its %s must be a sequence of ints, got %s", what,
                   tname ? tname : "?");
        Py_XDECREF(tn);
    }
    for (Py_ssize_t k = 0; k < n && k < DESC_RANK; k++) {
        PyObject *item = PySequence_GetItem(seq, k);
        PyObject *v = item ? PyNumber_Index(item) : NULL;
        long long x = v ? PyLong_AsLongLong(v) : -1;
        Py_XDECREF(item);
        Py_XDECREF(v);
        if (x == -1 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                desc_error(d, i, PyExc_TypeError, "%s[%zd] is not an int", what, k);
            }
            n = -1;
            break;
        }
        out[k] = x;
    }
    Py_DECREF(seq);
    return n;
}

/* desc.padding: NR_PAD_ZERO for "zero" (and where there is no such attribute), NR_PAD_NAN
 * for "nan"; -1 with an exception set otherwise. */
static int desc_padding(DispatcherObject *d, int i, PyObject *desc) {
    PyObject *p = PyObject_GetAttr(desc, d->st->s_padding);
    if (!p) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        PyErr_Clear();
        return NR_PAD_ZERO;
    }
    int pad = !PyUnicode_Check(p)                            ? -1
              : !PyUnicode_CompareWithASCIIString(p, "zero") ? NR_PAD_ZERO
              : !PyUnicode_CompareWithASCIIString(p, "nan")  ? NR_PAD_NAN
                                                             : -1;
    if (pad < 0)
        PyErr_Format(PyExc_ValueError,
                     "%s(): argument '%s' (a tensor descriptor): padding must be \"zero\" or "
                     "\"nan\", got %R",
                     kname(d), param_name(d, i), p);
    Py_DECREF(p);
    return pad;
}

/* The key code of a descriptor of pointee's elements and this block shape (see CODE_DESC). */
static long long desc_code(nr_type pointee, int rank, const int64_t *block) {
    long long code = CODE_DESC | (long long)pointee | (long long)rank << 6;
    for (int k = 0; k < rank; k++) {
        long long log = 0;
        while ((INT64_C(1) << log) < block[k]) log++;
        code |= log << (9 + 5 * k);
    }
    return code;
}

/* A descriptor argument into s (s->a, s->desc, s->block, s->base, s->code). want: the
 * element type of a typed parameter, NR_TYPE_INVALID for an inferred one. */
static int desc_arg(DispatcherObject *d, int cuda, int i, PyObject *obj, Slot *s, nr_type want) {
    State *st = d->st;
    s->param = i;
    /* block_shape first: what tells a descriptor (arrays have base, shape and strides too) */
    if (!PyObject_HasAttr(obj, st->s_block_shape))
        return ptr_type_error(d, i, obj,
                              "is a tensor descriptor (nereid.TensorDescriptor, or Triton's)");
    int64_t shape[DESC_RANK], strides[DESC_RANK];
    Py_ssize_t nb = desc_ints(d, i, obj, st->s_block_shape, s->block);
    Py_ssize_t rank = nb < 0 ? -1 : desc_ints(d, i, obj, st->s_shape, shape);
    Py_ssize_t ns = rank < 0 ? -1 : desc_ints(d, i, obj, st->s_strides, strides);
    int pad = ns < 0 ? -1 : desc_padding(d, i, obj);
    if (pad < 0) return -1;
    if (!(s->base = PyObject_GetAttr(obj, st->s_base))) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            desc_error(d, i, PyExc_TypeError, "it has no base");
        }
        return -1;
    }
    if (rank < 1 || rank > DESC_RANK)
        return desc_error(d, i, PyExc_ValueError,
                          "its rank is %zd (Nereid's descriptors have 1 to %d dims)", rank,
                          DESC_RANK);
    if (ns != rank || nb != rank)
        return desc_error(
            d, i, PyExc_ValueError,
            "rank mismatch: its shape has %zd dims, its strides %zd, its block_shape %zd", rank, ns,
            nb);
    if (strides[rank - 1] != 1)
        return desc_error(
            d, i, PyExc_ValueError,
            "the last stride must be 1 (the last dim contiguous, as in Triton), got %lld",
            (long long)strides[rank - 1]);
    int64_t numel = 1;
    for (int k = 0; k < rank; k++) {
        if (s->block[k] <= 0 || (s->block[k] & (s->block[k] - 1)))
            return desc_error(d, i, PyExc_ValueError,
                              "the block_shape's dims must be powers of two, got %lld",
                              (long long)s->block[k]);
        if ((numel *= s->block[k]) > DESC_MAX_NUMEL)
            return desc_error(d, i, PyExc_ValueError,
                              "the block_shape has more than 2^20 elements (%lld)",
                              (long long)numel);
    }
    nr_type pointee;
    if (pointer_arg(d, cuda, i, s->base, s, &pointee)) return -1;
    /* NumPy has no fp8: on the CPU an array of bytes holds them (as for a pointer) */
    if ((want == NR_TYPE_FP8E4NV || want == NR_TYPE_FP8E5) && !cuda && s->has_view &&
        pointee == NR_TYPE_U8)
        pointee = want;
    if (pointee == NR_TYPE_INVALID || pointee == NR_TYPE_I1)
        return desc_error(d, i, PyExc_TypeError,
                          "its base's dtype (%s) is not one a descriptor takes",
                          pointee == NR_TYPE_I1 ? "bool" : "unsupported");
    if (want != NR_TYPE_INVALID && pointee != want) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument '%s' is a tensor descriptor of %s, got one of %s", kname(d),
                     param_name(d, i), nrpy_type_name(want), nrpy_type_name(pointee));
        return -1;
    }
    s->desc.base = s->a.v.u;
    s->desc.rank = (int)rank;
    s->desc.padding = pad;
    for (int k = 0; k < DESC_RANK; k++) {
        s->desc.shape[k] = k < rank ? shape[k] : 0;
        s->desc.strides[k] = k < rank ? strides[k] : 0;
    }
    s->a = nr_arg_tensor_desc(&s->desc);
    s->code = desc_code(pointee, (int)rank, s->block);
    return 0;
}

/* A descriptor argument's block shape against the compiled kernel's parameter pi (its
 * annotation's, with this launch's constexprs): a TypeError where they differ. */
static int check_block(DispatcherObject *d, KernelObject *k, int pi, const Slot *s) {
    int64_t want[DESC_RANK];
    int rank = nr_kernel_param_block_shape(k->k, pi, want);
    bool same = rank == s->desc.rank;
    for (int r = 0; same && r < rank; r++) same = want[r] == s->block[r];
    if (same) return 0;
    char wt[96], got[96];
    nr_type pointee = nr_kernel_param_pointee(k->k, pi);
    nrpy_desc_type_text(pointee, rank, want, wt, sizeof wt);
    nrpy_desc_type_text(pointee, s->desc.rank, s->block, got, sizeof got);
    PyErr_Format(PyExc_TypeError,
                 "%s(): argument '%s' is %s, got %s (its block_shape must be the parameter's)",
                 kname(d), param_name(d, s->param), wt, got);
    return -1;
}

static bool int_in_range(nr_type t, PyObject *v, nr_arg *out) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return false;
    if (overflow) { /* beyond int64: only u64 takes it */
        if (t != NR_TYPE_U64 || overflow < 0) return false;
        unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) return PyErr_Clear(), false;
        out->type = t, out->v.u = u;
        return true;
    }
    static const long long lo[] = {[NR_TYPE_I1] = 0,
                                   [NR_TYPE_I8] = -128,
                                   [NR_TYPE_I16] = -32768,
                                   [NR_TYPE_I32] = -2147483648LL,
                                   [NR_TYPE_I64] = INT64_MIN};
    static const long long hi[] = {[NR_TYPE_I1] = 1,
                                   [NR_TYPE_I8] = 127,
                                   [NR_TYPE_I16] = 32767,
                                   [NR_TYPE_I32] = 2147483647LL,
                                   [NR_TYPE_I64] = INT64_MAX};
    static const unsigned long long uhi[] = {[NR_TYPE_U8] = 255,
                                             [NR_TYPE_U16] = 65535,
                                             [NR_TYPE_U32] = 4294967295ULL,
                                             [NR_TYPE_U64] = UINT64_MAX};
    if (t <= NR_TYPE_I64) {
        if (x < lo[t] || x > hi[t]) return false;
        out->type = t, out->v.i = x;
    } else {
        if (x < 0 || (unsigned long long)x > uhi[t]) return false;
        out->type = t, out->v.u = (uint64_t)x;
    }
    return true;
}

/* A scalar argument for a parameter of type t. */
static int scalar_arg(DispatcherObject *d, int i, nr_type t, PyObject *obj, Slot *s) {
    if (t >= NR_TYPE_I1 && t <= NR_TYPE_U64) {
        if (PyLong_CheckExact(obj) && int_in_range(t, obj, &s->a)) return 0; /* the usual case */
        if (PyErr_Occurred()) return -1;
        if (PyFloat_Check(obj) || !PyIndex_Check(obj)) {
            PyObject *tn = PyType_GetName(Py_TYPE(obj));
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' is %s (an integer), got %U",
                         kname(d), param_name(d, i), nrpy_type_name(t), tn);
            Py_XDECREF(tn);
            return -1;
        }
        PyObject *v = PyNumber_Index(obj);
        if (!v) return -1;
        bool ok = int_in_range(t, v, &s->a);
        if (!ok && !PyErr_Occurred())
            PyErr_Format(PyExc_OverflowError, "%s(): argument '%s' (%s) out of range: %S", kname(d),
                         param_name(d, i), nrpy_type_name(t), v);
        Py_DECREF(v);
        return ok ? 0 : -1;
    }
    if (!PyFloat_Check(obj) && !PyLong_Check(obj) &&
        PyObject_HasAttrString(obj, "__float__") == 0) {
        PyObject *tn = PyType_GetName(Py_TYPE(obj));
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' is %s (a float), got %U", kname(d),
                     param_name(d, i), nrpy_type_name(t), tn);
        Py_XDECREF(tn);
        return -1;
    }
    double x = PyFloat_AsDouble(obj);
    if (x == -1.0 && PyErr_Occurred()) return -1;
    s->a.type = t;
    s->a.v.f = x;
    return 0;
}

/* A value Triton's launcher makes a constexpr whatever the parameter's annotation (Triton
 * 3.x's specialisation: JITFunction objects, tl.constexpr(...) objects and dtypes): a
 * @nereid.jit function (a Dispatcher) or Triton's, an object of a class named constexpr
 * with a value, a dtype or pointer dtype (Nereid's or Triton's), or a function of
 * nereid.language or triton.language (tl.sigmoid, which Triton's language defines with
 * @jit). 1 yes, 0 no, -1 an error. */
static int constexpr_value(State *st, PyObject *obj) {
    if (PyObject_TypeCheck(obj, (PyTypeObject *)st->DispatcherType)) return 1;
    PyObject *tn = PyType_GetName(Py_TYPE(obj));
    if (!tn) return -1;
    int yes = !PyUnicode_CompareWithASCIIString(tn, "JITFunction") ||
              !PyUnicode_CompareWithASCIIString(tn, "dtype") ||
              !PyUnicode_CompareWithASCIIString(tn, "pointer_type") ||
              (!PyUnicode_CompareWithASCIIString(tn, "constexpr") &&
               PyObject_HasAttrString(obj, "value"));
    Py_DECREF(tn);
    if (yes || !PyCallable_Check(obj) || PyType_Check(obj)) return yes;
    PyObject *mod = PyObject_GetAttrString(obj, "__module__");
    if (!mod) {
        PyErr_Clear();
        return 0;
    }
    const char *m = PyUnicode_Check(mod) ? PyUnicode_AsUTF8AndSize(mod, NULL) : NULL;
    if (!m) PyErr_Clear();
    yes = m && (!strncmp(m, "nereid.language", 15) || !strncmp(m, "triton.language", 15));
    Py_DECREF(mod);
    return yes;
}

/* Whether v, a Python int (not a bool), is 1: Triton's launcher makes such an argument a
 * constexpr (its specialize_impl: `int` and its subclasses, not bool, not NumPy's ints,
 * which Triton does not take). */
static bool int_is_one(PyObject *v) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) PyErr_Clear();
    return x == 1 && !overflow;
}

/* A runtime argument whose type the value decides, as Triton types them: bool i1, int i32
 * (i64, u64 when it does not fit), float fp32, an array or tensor a pointer to its dtype,
 * None a constexpr (CODE_NONE), a value Triton makes a constexpr one (CODE_CONSTEXPR; with
 * `one`, a Python int equal to 1 too). */
static int infer_arg(DispatcherObject *d, int cuda, int i, PyObject *obj, Slot *s, bool one) {
    const struct ArgType *t = find_arg_type(d->st, obj);
    if (t && t->tensor) goto pointer; /* the usual case first */
    if (obj == Py_None) {
        s->code = CODE_NONE;
        return 0;
    }
    if (!PyLong_Check(obj) && !PyFloat_Check(obj)) {
        int c = constexpr_value(d->st, obj);
        if (c < 0) return -1;
        if (c) {
            s->code = CODE_CONSTEXPR;
            return 0;
        }
    }
    if (PyBool_Check(obj)) {
        s->code = NR_TYPE_I1;
        s->a = nr_arg_i1(obj == Py_True);
        return 0;
    }
    if (one && PyLong_Check(obj) && int_is_one(obj)) {
        s->code = CODE_CONSTEXPR;
        return 0;
    }
    /* an int; not a tensor (torch tensors have __index__, for their one-element case) */
    if (PyLong_Check(obj) ||
        (!PyFloat_Check(obj) && PyIndex_Check(obj) && !PyObject_CheckBuffer(obj) &&
         !PyObject_HasAttr(obj, d->st->s_data_ptr))) {
        PyObject *v = PyNumber_Index(obj);
        if (!v) return -1;
        nr_type order[] = {NR_TYPE_I32, NR_TYPE_I64, NR_TYPE_U64};
        bool ok = false;
        for (int k = 0; k < 3 && !ok; k++) ok = int_in_range(s->code = order[k], v, &s->a);
        if (!ok && !PyErr_Occurred())
            PyErr_Format(PyExc_OverflowError, "%s(): argument '%s' does not fit in 64 bits: %S",
                         kname(d), param_name(d, i), v);
        Py_DECREF(v);
        return ok ? 0 : -1;
    }
    if (PyFloat_Check(obj)) {
        s->code = NR_TYPE_FP32;
        s->a = nr_arg_f32((float)PyFloat_AsDouble(obj));
        s->a.v.f = PyFloat_AsDouble(obj);
        return 0;
    }
    if (!PyObject_CheckBuffer(obj) && PyObject_HasAttr(obj, d->st->s_block_shape))
        return desc_arg(d, cuda, i, obj, s, NR_TYPE_INVALID); /* a tensor descriptor */
pointer:;
    nr_type pointee;
    if (pointer_arg(d, cuda, i, obj, s, &pointee)) return -1;
    if (pointee == NR_TYPE_INVALID) return ptr_type_error(d, i, obj, "has an unsupported dtype");
    s->code = CODE_PTR + pointee;
    return 0;
}

static int typed_arg(DispatcherObject *d, int cuda, int i, PyObject *obj, Slot *s) {
    if (d->p[i].type == NR_TYPE_TENSOR_DESC) return desc_arg(d, cuda, i, obj, s, d->p[i].pointee);
    if (d->p[i].type != NR_TYPE_PTR) return scalar_arg(d, i, d->p[i].type, obj, s);
    nr_type pointee;
    if (pointer_arg(d, cuda, i, obj, s, &pointee)) return -1;
    /* NumPy has no fp8: an array of bytes (uint8, through the buffer protocol) holds them */
    bool fp8 = d->p[i].pointee >= NR_TYPE_FP8E4NV && d->p[i].pointee <= NR_TYPE_FP8E5B16;
    if (fp8 && !cuda && s->has_view && pointee == NR_TYPE_U8) pointee = d->p[i].pointee;
    if (pointee != d->p[i].pointee) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' is *%s, got an array of %s", kname(d),
                     param_name(d, i), nrpy_type_name(d->p[i].pointee),
                     pointee == NR_TYPE_INVALID ? "an unsupported dtype" : nrpy_type_name(pointee));
        return -1;
    }
    return 0;
}

/* A slot made ready for an argument (what release_slots reads is set). */
static void init_slot(Slot *s, PyObject *obj, int cuda) {
    s->code = 0, s->reg = NULL, s->obj = obj, s->base = NULL;
    if (!cuda) s->has_view = false, s->reg_bytes = 0, s->copy = NULL;
}

/* A tuple given parameter i: one slot for it (CODE_TUPLE), then its items', depth first: a
 * nested tuple the same way, any other item read as a bare parameter's argument
 * (infer_arg). *n counts the slots used (those to release, even on an error). */
static int too_many(DispatcherObject *d, int i) {
    PyErr_Format(PyExc_ValueError,
                 "%s(): argument '%s': too many run-time arguments (at most %d, tuples' items "
                 "counted) or tuples nested deeper than %d",
                 kname(d), param_name(d, i), MAX_SLOTS, MAX_TUPLE_DEPTH);
    return -1;
}

static int tuple_arg(DispatcherObject *d, int cuda, int i, PyObject *obj, Slot *slots, int *n,
                     int *ndesc, int depth) {
    if (*n >= MAX_SLOTS || depth > MAX_TUPLE_DEPTH) return too_many(d, i);
    init_slot(&slots[*n], obj, cuda);
    slots[(*n)++].code = CODE_TUPLE;
    for (Py_ssize_t k = 0; k < PyTuple_Size(obj); k++) {
        PyObject *item = PyTuple_GetItem(obj, k);
        if (PyTuple_Check(item)) {
            if (tuple_arg(d, cuda, i, item, slots, n, ndesc, depth + 1)) return -1;
            continue;
        }
        if (*n >= MAX_SLOTS) return too_many(d, i);
        Slot *s = &slots[(*n)++];
        init_slot(s, item, cuda);
        int rc = infer_arg(d, cuda, i, item, s, true); /* Triton specialises items always */
        *ndesc += s->base != NULL;
        if (rc) return -1;
    }
    return 0;
}

/* What the slots hold for the launch: on the CPU the arrays lent (cpu), and descriptors'
 * bases. */
static void release_slots(Slot *slots, int n, bool cpu) {
    for (int i = 0; i < n; i++) {
        if (cpu && slots[i].has_view) PyBuffer_Release(&slots[i].view);
        if (cpu) PyMem_Free(slots[i].copy);
        Py_XDECREF(slots[i].base);
    }
}

/* ---- the key and the kernel ---- */

/* The key entry of the argument obj read into slots[*at] (and, for a tuple, those after
 * it): its code, (CODE_CONSTEXPR, type, value), or (CODE_TUPLE, type, (items' entries)).
 * A new reference. */
static PyObject *key_entry(PyObject *obj, const Slot *slots, int *at) {
    const Slot *s = &slots[(*at)++];
    if (s->code == CODE_CONSTEXPR)
        return Py_BuildValue("(iOO)", CODE_CONSTEXPR, (PyObject *)Py_TYPE(obj), obj);
    if (s->code != CODE_TUPLE) return PyLong_FromLongLong(s->code);
    Py_ssize_t n = PyTuple_Size(obj);
    PyObject *items = PyTuple_New(n);
    for (Py_ssize_t k = 0; items && k < n; k++) {
        PyObject *e = key_entry(PyTuple_GetItem(obj, k), slots, at);
        if (!e) Py_CLEAR(items);
        else PyTuple_SetItem(items, k, e);
    }
    return items ? Py_BuildValue("(iON)", CODE_TUPLE, (PyObject *)Py_TYPE(obj), items) : NULL;
}

/* (codes of inferred parameters, (type, value) of constexprs, sorted (name, type, value)
 * of extra keywords) */
static PyObject *make_key(DispatcherObject *d, PyObject **vals, const Slot *slots,
                          const int *slot_of, PyObject *extra) {
    int n = 0;
    for (int i = 0; i < d->nparams; i++)
        n += d->p[i].kind == P_INFER ? 1 : d->p[i].kind == P_CONSTEXPR ? 2 : 0;
    PyObject *items = NULL;
    if (extra) {
        items = PyDict_Items(extra);
        if (!items || PyList_Sort(items)) {
            Py_XDECREF(items);
            return NULL;
        }
        n += 3 * (int)PyList_Size(items);
    }
    if (d->launch_debug) n++;
    PyObject *key = PyTuple_New(n);
    if (!key) {
        Py_XDECREF(items);
        return NULL;
    }
    int k = 0;
    if (d->launch_debug) { /* last: (_DEBUG_KEY, the DEBUG_* flags) */
        PyObject *flags = PyLong_FromLong(d->launch_debug);
        PyObject *e = flags ? PyTuple_Pack(2, d->st->debug_key, flags) : NULL;
        Py_XDECREF(flags);
        if (!e) {
            Py_DECREF(key);
            Py_XDECREF(items);
            return NULL;
        }
        PyTuple_SetItem(key, n - 1, e);
    }
    for (int i = 0; i < d->nparams; i++) {
        if (d->p[i].kind == P_INFER) {
            int at = slot_of[i];
            PyObject *e = key_entry(vals[i], slots, &at);
            if (!e) {
                Py_DECREF(key);
                Py_XDECREF(items);
                return NULL;
            }
            PyTuple_SetItem(key, k++, e);
        } else if (d->p[i].kind == P_CONSTEXPR) {
            PyTuple_SetItem(key, k++, Py_NewRef((PyObject *)Py_TYPE(vals[i])));
            PyTuple_SetItem(key, k++, Py_NewRef(vals[i]));
        }
    }
    for (Py_ssize_t j = 0; items && j < PyList_Size(items); j++) {
        PyObject *kv = PyList_GetItem(items, j);
        PyObject *v = PyTuple_GetItem(kv, 1);
        PyTuple_SetItem(key, k++, Py_NewRef(PyTuple_GetItem(kv, 0)));
        PyTuple_SetItem(key, k++, Py_NewRef((PyObject *)Py_TYPE(v)));
        PyTuple_SetItem(key, k++, Py_NewRef(v));
    }
    Py_XDECREF(items);
    return key;
}

/* The Context a compiled kernel belongs to (its Module's). */
static inline ContextObject *kernel_context(PyObject *k) {
    return (ContextObject *)((ModuleObject *)((KernelObject *)k)->owner)->context;
}

/* The compiled kernel for key in `cache` (the cache of context c): from the cache, or
 * from self._compile(key, c). Borrowed. */
static KernelObject *kernel_for(DispatcherObject *d, ContextObject *c, PyObject *cache,
                                PyObject *key) {
    State *st = d->st;
    PyObject *k = PyDict_GetItemWithError(cache, key);
    if (k) return (KernelObject *)k;
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "%s(): constexpr arguments must be hashable (ints, floats, strings, ...)",
                     kname(d));
        return NULL;
    }
    k = PyObject_CallMethodObjArgs((PyObject *)d, st->s_compile, key, (PyObject *)c, NULL);
    if (!k) return NULL;
    if (!PyObject_TypeCheck(k, (PyTypeObject *)st->KernelType) || kernel_context(k) != c) {
        Py_DECREF(k);
        PyErr_SetString(PyExc_TypeError,
                        "_compile(key, context) must return a Kernel of that context");
        return NULL;
    }
    int rc = PyDict_SetItem(cache, key, k);
    Py_DECREF(k); /* the cache holds it */
    return rc ? NULL : (KernelObject *)k;
}

/* The kernel of this launch's key on context c (a new reference): the last launch's when
 * its key and context are the same (see DispatcherObject.last_kernel), else from c's
 * cache or _compile, which then becomes the last. */
static KernelObject *launch_kernel(DispatcherObject *d, ContextObject *c, PyObject *cache,
                                   PyObject **vals, const Slot *slots, const int *slot_of,
                                   PyObject *extra) {
    if (d->last_kernel && !extra && kernel_context(d->last_kernel) == c) {
        bool same = d->launch_debug == d->last_debug;
        for (int i = 0; i < d->nparams && same; i++)
            if (d->p[i].kind == P_INFER)
                same = slots[slot_of[i]].code == d->p[i].last_code &&
                       d->p[i].last_code != CODE_TUPLE && /* the key says whether the same */
                       (d->p[i].last_code != CODE_CONSTEXPR || vals[i] == d->p[i].last_value);
            else if (d->p[i].kind == P_CONSTEXPR) same = vals[i] == d->p[i].last_value;
        if (same) return (KernelObject *)Py_NewRef(d->last_kernel);
    }
    PyObject *key = make_key(d, vals, slots, slot_of, extra);
    if (!key) return NULL;
    KernelObject *k = kernel_for(d, c, cache, key); /* borrowed from the cache */
    if (k) Py_INCREF((PyObject *)k);
    Py_DECREF(key);
    if (!k || extra) return k;
    PyObject *old_kernel = d->last_kernel, *old[MAX_PARAMS];
    int n = d->nparams;
    for (int i = 0; i < n; i++) {
        old[i] = d->p[i].last_value;
        bool keep = d->p[i].kind == P_CONSTEXPR ||
                    (d->p[i].kind == P_INFER && slots[slot_of[i]].code == CODE_CONSTEXPR);
        d->p[i].last_value = keep ? Py_NewRef(vals[i]) : NULL;
        d->p[i].last_code = d->p[i].kind == P_INFER ? slots[slot_of[i]].code : 0;
    }
    d->last_kernel = Py_NewRef((PyObject *)k);
    d->last_debug = d->launch_debug;
    d->last_tuned = nr_kernel_num_configs(k->k) > 0;
    for (int i = 0; i < n; i++) Py_XDECREF(old[i]); /* once the new entry is whole */
    Py_XDECREF(old_kernel);
    return k;
}

static ContextObject *context_of(DispatcherObject *d) {
    if (d->context) return (ContextObject *)d->context;
    State *st = d->st;
    PyObject *c = PyObject_CallMethodObjArgs((PyObject *)d, st->s_resolve, NULL);
    if (!c) return NULL;
    int rc = dispatcher_set_context((PyObject *)d, c, NULL);
    Py_DECREF(c);
    return rc ? NULL : (ContextObject *)d->context;
}

/* torch._C.NAME, once torch is loaded, into *slot (a new reference kept there): 0 with
 * *slot NULL while torch is not loaded (asked again next time), None when it has no such
 * function (a torch without CUDA: not asked again). */
static int torch_fn(State *st, PyObject *name, PyObject **slot) {
    if (*slot) return 0;
    PyObject *torch = PyImport_GetModule(st->s_torch);
    if (!torch) return PyErr_Occurred() ? -1 : 0;
    PyObject *C = PyObject_GetAttr(torch, st->s_torch_C);
    Py_DECREF(torch);
    *slot = C ? PyObject_GetAttr(C, name) : NULL;
    Py_XDECREF(C);
    if (!*slot) PyErr_Clear(), *slot = Py_NewRef(Py_None);
    return 0;
}

/* torch's current stream on the context's device, when torch is loaded; else NULL
 * (the default stream). */
static int current_stream(DispatcherObject *d, ContextObject *c, void **out) {
    *out = NULL;
    if (torch_fn(d->st, d->st->s_get_stream, &d->stream_fn)) return -1;
    if (!d->stream_fn || d->stream_fn == Py_None) return 0;
    PyObject *r = PyObject_CallFunctionObjArgs(d->stream_fn, c->index_obj, NULL);
    if (!r) return -1;
    uint64_t s = as_u64(r);
    Py_DECREF(r);
    if (s == (uint64_t)-1 && PyErr_Occurred()) return -1;
    *out = (void *)(uintptr_t)s;
    return 0;
}

/* The device a launch of a per-device dispatcher runs on: that of `tensor` (its first
 * tensor argument, of type entry t; NULL: none), read with the type's get_device; else
 * torch's current device (torch._C._cuda_getDevice); else `fallback`. -1 with an
 * exception set on an error. */
static long launch_device(DispatcherObject *d, PyObject *tensor, const struct ArgType *t,
                          long fallback) {
    PyObject *r = NULL;
    if (tensor && t && t->get_device) {
        r = PyObject_CallFunctionObjArgs(t->get_device, tensor, NULL);
    } else {
        if (torch_fn(d->st, d->st->s_get_cur_device, &d->device_fn)) return -1;
        if (!d->device_fn || d->device_fn == Py_None) return fallback;
        r = PyObject_CallNoArgs(d->device_fn);
    }
    if (!r) return -1;
    long i = PyLong_AsLong(r);
    Py_DECREF(r);
    if (i == -1 && PyErr_Occurred()) return -1;
    return i < 0 ? fallback : i; /* a CPU tensor: the launch says what is wrong with it */
}

/* The Context and kernel cache of device `index` for a per-device dispatcher (new
 * references), made the dispatcher's current ones (`context`, `cache`, which _cache
 * shows); a device not seen before gets its Context from self._resolve_device(index)
 * and an empty cache. */
static int use_device(DispatcherObject *d, long index, ContextObject **c, PyObject **cache) {
    *c = NULL, *cache = NULL;
    PyObject *key = PyLong_FromLong(index);
    if (!key) return -1;
    PyObject *entry = PyDict_GetItemWithError(d->devices, key);
    if (entry) Py_INCREF(entry);
    else if (!PyErr_Occurred()) {
        PyObject *ctx =
            PyObject_CallMethodObjArgs((PyObject *)d, d->st->s_resolve_device, key, NULL);
        PyObject *fresh = ctx ? PyDict_New() : NULL;
        if (ctx && !PyObject_TypeCheck(ctx, (PyTypeObject *)d->st->ContextType))
            PyErr_SetString(PyExc_TypeError, "_resolve_device must return a Context");
        else if (fresh) {
            /* the call ran Python code: another launch may have made the entry meanwhile */
            entry = PyDict_GetItemWithError(d->devices, key);
            if (entry) Py_INCREF(entry);
            else if (!PyErr_Occurred() && (entry = PyTuple_Pack(2, ctx, fresh)) &&
                     PyDict_SetItem(d->devices, key, entry))
                Py_CLEAR(entry);
        }
        Py_XDECREF(ctx);
        Py_XDECREF(fresh);
    }
    Py_DECREF(key);
    if (!entry) return -1;
    *c = (ContextObject *)Py_NewRef(PyTuple_GetItem(entry, 0));
    *cache = Py_NewRef(PyTuple_GetItem(entry, 1));
    Py_DECREF(entry);
    if (d->context != (PyObject *)*c) { /* the last launch's kernel stays: it knows its context */
        NRPY_SETREF(d->context, Py_NewRef((PyObject *)*c));
        NRPY_SETREF(d->cache, Py_NewRef(*cache));
    }
    return 0;
}

/* ---- the grid ---- */

static int read_dims(DispatcherObject *d, PyObject *g, unsigned grid[3], bool *empty) {
    grid[0] = grid[1] = grid[2] = 1;
    *empty = false;
    PyObject *seq = PyLong_Check(g)                         ? PyTuple_Pack(1, g)
                    : (PyTuple_Check(g) || PyList_Check(g)) ? PySequence_Tuple(g)
                                                            : NULL;
    if (!seq) {
        if (!PyErr_Occurred())
            PyErr_Format(
                PyExc_TypeError,
                "%s[grid]: the grid must be a tuple of 1 to 3 ints or a callable returning one",
                kname(d));
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(seq);
    int rc = 0;
    if (n < 1 || n > 3) {
        PyErr_Format(PyExc_ValueError, "%s[grid]: the grid has %zd dimensions (1 to 3)", kname(d),
                     n);
        rc = -1;
    }
    for (Py_ssize_t i = 0; !rc && i < n; i++) {
        PyObject *item = PyTuple_GetItem(seq, i);
        long long v = PyIndex_Check(item) ? PyLong_AsLongLong(item) : -2;
        if (v == -1 && PyErr_Occurred()) rc = -1;
        else if (v < 0 || v > 0x7fffffffLL) {
            PyErr_Format(PyExc_ValueError,
                         "%s[grid]: grid dimension %zd is %R (must be an int from 0 to 2**31-1)",
                         kname(d), i, item);
            rc = -1;
        } else {
            grid[i] = (unsigned)v;
            if (v == 0) *empty = true;
        }
    }
    Py_DECREF(seq);
    return rc;
}

/* ---- grids of tuned kernels: computed from the config the tuner chose ---- */

/* A config value's text as Python reads it (the rules of -D): int, float, bool, None, str. */
static PyObject *text_value(const char *text) {
    if (!strcmp(text, "True")) Py_RETURN_TRUE;
    if (!strcmp(text, "False")) Py_RETURN_FALSE;
    if (!strcmp(text, "None")) Py_RETURN_NONE;
    char *end;
    long long i = strtoll(text, &end, 0);
    if (*text && !*end) return PyLong_FromLongLong(i);
    double f = strtod(text, &end);
    if (*text && !*end) return PyFloat_FromDouble(f);
    return PyUnicode_FromString(text);
}

typedef struct GridCall {
    DispatcherObject *d;
    PyObject *g, **vals, *extra;
    bool empty, failed; /* failed: a Python exception is set */
} GridCall;

static nr_status grid_callback(const nr_config *c, unsigned grid[3], void *user) {
    GridCall *gc = user;
    DispatcherObject *d = gc->d;
    if (gc->failed || gc->empty)
        return NR_ERR_INVALID_ARG; /* a Python exception is pending: call no more Python */
    PyObject *meta = d->meta ? PyDict_Copy(d->meta) : PyDict_New();
    bool ok = meta != NULL && (!gc->extra || !PyDict_Update(meta, gc->extra));
    for (int i = 0; ok && i < d->nparams; i++)
        ok = !PyDict_SetItem(meta, d->p[i].name, gc->vals[i]);
    for (int i = 0; ok && i < nr_config_num_values(c); i++) {
        PyObject *v = text_value(nr_config_value(c, i));
        ok = v && !PyDict_SetItemString(meta, nr_config_name(c, i), v);
        Py_XDECREF(v);
    }
    PyObject *r = ok ? PyObject_CallFunctionObjArgs(gc->g, meta, NULL) : NULL;
    Py_XDECREF(meta);
    if (r) {
        bool empty;
        ok = !read_dims(d, r, grid, &empty);
        Py_DECREF(r);
        if (ok && empty) gc->empty = true, ok = false;
    } else ok = false;
    if (!ok && !gc->empty) gc->failed = true;
    return ok ? NR_OK : NR_ERR_INVALID_ARG;
}

/* The bytes a pointer argument reaches (for a tuner's reset_to_zero / restore_value): the
 * lent extent on the CPU, the rest of a torch tensor's storage on CUDA; 0 if unknown. */
static size_t extent_of(State *st, const Slot *s) {
    uint64_t p = s->a.v.u;
    if (s->reg) return (size_t)((uintptr_t)s->reg + s->reg_bytes - p);
    if (!s->obj || !(PyObject_HasAttr(s->obj, st->s_untyped_storage) ||
                     PyObject_HasAttr(s->obj, st->s_storage)))
        return 0;
    PyObject *storage = tensor_storage(st, s->obj);
    uint64_t base = 0, bytes = 0;
    int rc = !storage || call_u64(storage, st->s_data_ptr, &base) ||
             call_u64(storage, st->s_nbytes, &bytes);
    Py_XDECREF(storage);
    if (rc) {
        PyErr_Clear();
        return 0;
    }
    return p >= base && p - base < bytes ? (size_t)(bytes - (p - base)) : 0;
}

/* ---- the launch ---- */

/* ---- the fast path: a launch like the last one ---- */

enum { FAST_NO, FAST_DONE, FAST_ERROR };

/* The smallest of i32, i64, u64 that holds v (as infer_arg types an int), or
 * NR_TYPE_INVALID; *out the argument. */
static nr_type infer_int(PyObject *v, nr_arg *out) {
    if (int_in_range(NR_TYPE_I32, v, out)) return NR_TYPE_I32;
    if (int_in_range(NR_TYPE_I64, v, out)) return NR_TYPE_I64;
    if (int_in_range(NR_TYPE_U64, v, out)) return NR_TYPE_U64;
    return NR_TYPE_INVALID;
}

/* A launch on CUDA whose arguments are of the kinds the last launch's were (a tensor of the
 * type last seen at each pointer parameter, an int or float where one was, the same
 * constexpr objects), on a fixed grid and with no launch options: bound, read and
 * launched in one pass, with the last launch's kernel, no slot or key built. FAST_NO
 * when the general path must do it (another kind of argument, another dtype or width,
 * any error the general path reports: it reads the arguments again then, and raises);
 * FAST_ERROR with an exception set (one of a tensor's own reads failed, or nr_launch). */
static int fast_launch(DispatcherObject *d, const Grid *gi, PyObject *args, PyObject *kwargs,
                       PyObject **launched) {
    if (!d->fast || !d->last_kernel || d->last_tuned || gi->kind != GRID_FIXED || gi->empty)
        return FAST_NO;
    ContextObject *c = kernel_context(d->last_kernel); /* the device the last launch ran on */
    if (c->kind != NR_DEVICE_CUDA) return FAST_NO;
    int np = d->nparams;
    Py_ssize_t n = PyTuple_Size(args);
    if (n > np) return FAST_NO;
    PyObject *vals[MAX_PARAMS];
    for (int i = 0; i < n; i++) vals[i] = PyTuple_GetItem(args, i);
    for (int i = (int)n; i < np; i++) vals[i] = NULL;
    if (kwargs) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(kwargs, &pos, &key, &value)) {
            int i = 0;
            while (i < np && d->p[i].name != key) i++; /* interned names: identity */
            if (i == np || vals[i] || d->p[i].option != OPT_NONE) return FAST_NO;
            vals[i] = value;
        }
    }
    /* every argument of the kind the last launch had here (no Python code runs yet); what
     * the reads below compare with is taken now, with the kernel, since they may run Python
     * code that launches this kernel again */
    struct ArgType *hint[MAX_PARAMS];
    long long code[MAX_PARAMS];
    for (int i = 0; i < np; i++) {
        const Param *p = &d->p[i];
        PyObject *v = vals[i];
        hint[i] = p->hint;
        code[i] = p->kind == P_TYPED ? (p->type == NR_TYPE_PTR ? CODE_PTR + p->pointee : p->type)
                                     : p->last_code;
        if (!v && !(v = vals[i] = PyDict_GetItemWithError(d->defaults, p->name))) {
            PyErr_Clear();
            return FAST_NO;
        }
        bool ok;
        if (p->kind == P_CONSTEXPR) ok = v == p->last_value;
        else if (hint[i] && Py_TYPE(v) == (PyTypeObject *)hint[i]->type) ok = true;
        else if (p->kind == P_INFER && code[i] == CODE_CONSTEXPR && PyLong_CheckExact(v))
            /* the last launch's constexpr 1 (an int, to a parameter that makes it one): 1 again */
            ok = p->one && (v == p->last_value || (PyLong_CheckExact(p->last_value) &&
                                                   int_is_one(p->last_value) && int_is_one(v)));
        else {
            nr_type t = (nr_type)code[i];
            ok = PyLong_CheckExact(v) ? t >= NR_TYPE_I1 && t <= NR_TYPE_U64 &&
                                            (p->kind == P_TYPED || t != NR_TYPE_I1)
                 : PyBool_Check(v) ? t >= NR_TYPE_I1 && t <= NR_TYPE_U64 &&
                                         (p->kind == P_TYPED || t == NR_TYPE_I1)
                 : PyFloat_CheckExact(v)
                     ? t >= NR_TYPE_FP16 && t <= NR_TYPE_FP64
                     : p->kind == P_INFER && ((v == Py_None && code[i] == CODE_NONE) ||
                                              (code[i] == CODE_CONSTEXPR && v == p->last_value));
        }
        if (!ok) return FAST_NO;
    }
    State *st = d->st;
    PyObject *kobj = Py_NewRef(d->last_kernel),
             *cobj = Py_NewRef((PyObject *)c); /* the reads may run Python */
    int rc = FAST_NO;
    bool device_known = !d->follow; /* a per-device launch must be on the last one's device */
    nr_arg a[MAX_PARAMS];
    int na = 0;
    for (int i = 0; i < np; i++) {
        const Param *p = &d->p[i];
        PyObject *v = vals[i];
        if (p->kind == P_CONSTEXPR || v == Py_None ||
            (p->kind == P_INFER && code[i] == CODE_CONSTEXPR))
            continue;
        struct ArgType *t = hint[i];
        if (t && Py_TYPE(v) == (PyTypeObject *)t->type) {
            PyObject *is_cuda = t->is_cuda_get(t->is_cuda, v, t->type);
            if (!is_cuda) goto error;
            bool on_gpu = is_cuda == Py_True;
            Py_DECREF(is_cuda);
            if (!on_gpu) goto out; /* the general path says what is wrong */
            PyObject *dtype = t->dtype_get(t->dtype, v, t->type);
            if (!dtype) goto error;
            nr_type pointee;
            if (dtype == t->last_dtype) {
                pointee = t->last_code;
                Py_DECREF(dtype);
            } else {
                pointee = dtype_code(st, dtype);
                PyObject *old = t->last_dtype; /* both fields set before anything can run */
                t->last_dtype = dtype;
                t->last_code = pointee;
                Py_XDECREF(old);
            }
            if (pointee == NR_TYPE_INVALID || CODE_PTR + (int)pointee != code[i]) goto out;
            if (!device_known) { /* the first tensor's device */
                device_known = true;
                long dev = launch_device(d, v, t, c->index);
                if (dev < 0) goto error;
                if (dev != c->index) goto out; /* another device: the general path switches */
            }
            PyObject *r = PyObject_CallFunctionObjArgs(t->data_ptr, v, NULL);
            if (!r) goto error;
            uint64_t ptr = as_u64(r);
            Py_DECREF(r);
            if (ptr == (uint64_t)-1 && PyErr_Occurred()) goto error;
            a[na++] = nr_arg_ptr(ptr);
        } else if (PyBool_Check(v) && p->kind == P_INFER) { /* i1 */
            a[na++] = nr_arg_i1(v == Py_True);
        } else if (PyLong_Check(v)) { /* an int, or a bool for an integer parameter */
            nr_type ty = p->kind == P_TYPED ? (nr_type)code[i] : infer_int(v, &a[na]);
            if (p->kind == P_TYPED ? !int_in_range(ty, v, &a[na]) : (int)ty != code[i]) {
                if (PyErr_Occurred()) goto error;
                goto out;
            }
            if (p->kind == P_INFER && p->one && a[na].v.i == 1)
                goto out; /* a constexpr 1 where the last launch had a run-time int */
            na++;
        } else {                           /* a float */
            a[na].type = (nr_type)code[i]; /* a typed parameter's, or fp32 */
            a[na++].v.f = PyFloat_AsDouble(v);
        }
    }
    if (na != ((KernelObject *)kobj)->nparams) goto out;
    if (!device_known) { /* no tensor argument: torch's current device */
        long dev = launch_device(d, NULL, NULL, c->index);
        if (dev < 0) goto error;
        if (dev != c->index) goto out;
    }
    nr_launch_options lo = {0};
    if (current_stream(d, c, &lo.stream)) goto error;
    LaunchOpts dflt = {0}; /* a call without options: the switches resolved as a slow launch does */
    if (d->launcher) {
        dflt.fp_fusion = ((KernelObject *)kobj)->fp_fusion;
        dflt.reflect_ftz = ((KernelObject *)kobj)->reflect_ftz;
    } else {
        triton_defaults(&dflt);
    }
    lo.enable_fp_fusion = dflt.fp_fusion, lo.enable_reflect_ftz = dflt.reflect_ftz;
    ((KernelObject *)kobj)->fp_fusion = dflt.fp_fusion;
    ((KernelObject *)kobj)->reflect_ftz = dflt.reflect_ftz;
    nr_status s = nr_launch(((KernelObject *)kobj)->k, gi->dims, a, na, &lo);
    if (s) {
        nrpy_raise(st, c->ctx, s, NULL);
        goto error;
    }
    st->launches++;
    *launched = Py_NewRef(kobj); /* the compiled kernel, as Triton's launch returns it */
    rc = FAST_DONE;
    goto out;
error:
    rc = FAST_ERROR;
out:
    Py_DECREF(kobj);
    Py_DECREF(cobj);
    return rc;
}

/* What a launch that runs nothing gives back (_key, _prepare_many): the key and context
 * of a launch, without compiling (COLLECT_KEY); or the launch itself, its kernel compiled
 * by the front end but not prepared, kept for nr_prepare_many (COLLECT_PREPARE: the
 * arguments, a descriptor's struct, the options, the Kernel held in `kernels`). */
enum { COLLECT_KEY = 1, COLLECT_PREPARE };
typedef struct Collect {
    int mode;
    int n; /* jobs kept */
    nr_prepare_job *jobs;
    nr_arg (*args)[MAX_PARAMS];
    nr_tensor_desc (*descs)[MAX_PARAMS];
    nr_launch_options *opts;
    PyObject *kernels; /* a list: the jobs' Kernels, alive while they are prepared */
} Collect;

static PyObject *launch_or_collect(DispatcherObject *d, const Grid *gi, PyObject *args,
                                   PyObject *kwargs, Collect *col);

/* num_ctas > 1 on CUDA: Triton refuses it before Hopper ("num_ctas > 1 requires NVIDIA SM90+
 * (Hopper)"), and so does this launch, reading the target the kernel is compiled for
 * (compiled and loaded by nr_prepare, as the launch would). */
static int check_clusters(DispatcherObject *d, ContextObject *c, KernelObject *k, const nr_arg *a,
                          int na, const nr_launch_options *lo) {
    nr_status ps = nr_prepare(k->k, a, na, lo);
    if (ps) return nrpy_raise(d->st, c->ctx, ps, NULL), -1;
    nr_kernel_info in;
    if (nr_kernel_last_info(k->k, &in) == NR_OK && !strncmp(in.target, "sm_", 3) &&
        atoi(in.target + 3) < 90) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): num_ctas > 1 requires NVIDIA SM90+ (Hopper); this GPU is %s", kname(d),
                     in.target);
        return -1;
    }
    return 0;
}

static PyObject *launch(DispatcherObject *d, const Grid *gi, PyObject *args, PyObject *kwargs) {
    return launch_or_collect(d, gi, args, kwargs, NULL);
}

static PyObject *launch_or_collect(DispatcherObject *d, const Grid *gi, PyObject *args,
                                   PyObject *kwargs, Collect *col) {
    PyObject *launched = NULL;
    int fast = col ? FAST_NO : fast_launch(d, gi, args, kwargs, &launched);
    if (fast != FAST_NO) return fast == FAST_DONE ? launched : NULL;
    State *st = d->st;
    PyObject *vals[MAX_PARAMS], *extra = NULL, *result = NULL;
    KernelObject *k = NULL;
    Slot slots[MAX_SLOTS];
    int slot_of[MAX_PARAMS], nslots = 0, cuda = 0, ndesc = 0;
    LaunchOpts lop = {.num_ctas = 1};
    bool fast_kinds = true; /* every argument of a kind fast_launch reads */
    d->fast = false;
    ContextObject *c = NULL;
    PyObject *cache =
        NULL; /* c's kernels; both held for the launch (Python code may change the dispatcher's) */
    if (bind(d, args, kwargs, vals, &extra, &lop)) goto out;
    d->launch_warps = lop.warps;
    d->launch_debug = lop.debug;
    /* a compiled kernel's launcher (kernel[grid]) runs what was compiled: the switches
     * its last launch resolved, not the defaults */
    d->launcher = st->grid_view && PyType_Check(st->grid_view) &&
                  PyObject_TypeCheck((PyObject *)d, (PyTypeObject *)st->grid_view);
    if (!d->launcher) triton_defaults(&lop);
    if (!(c = context_of(d))) goto out;
    Py_INCREF((PyObject *)c);
    cache = Py_NewRef(d->cache);
    cuda = c->kind == NR_DEVICE_CUDA; /* nothing is lent there: the CPU's fields stay unset */
    for (int i = 0; i < d->nparams; i++) {
        slot_of[i] = -1;
        if (d->p[i].kind == P_CONSTEXPR) continue;
        Slot *s = &slots[nslots];
        PyObject *v = vals[i];
        slot_of[i] = nslots;
        if (d->p[i].kind == P_INFER && PyTuple_Check(v)) { /* flattened: its leaves are passed */
            d->p[i].hint = NULL;
            fast_kinds = false;
            if (tuple_arg(d, cuda, i, v, slots, &nslots, &ndesc, 0)) goto out;
            continue;
        }
        if (nslots >= MAX_SLOTS) {
            too_many(d, i);
            goto out;
        }
        init_slot(s, v, cuda);
        nslots++;
        struct ArgType *t = d->p[i].hint;
        if (cuda && t &&
            Py_TYPE(v) ==
                (PyTypeObject *)t->type) { /* a tensor of the type the last launch had here */
            nr_type pointee = NR_TYPE_INVALID;
            if (fast_tensor(d, st, t, cuda, i, v, s, &pointee)) goto out;
            if (d->p[i].kind == P_INFER && pointee != NR_TYPE_INVALID) {
                s->code = CODE_PTR + pointee;
                continue;
            }
            if (d->p[i].kind == P_TYPED && pointee == d->p[i].pointee) continue;
        } else if (cuda && PyLong_CheckExact(v) && d->p[i].kind == P_TYPED &&
                   d->p[i].type >= NR_TYPE_I1 &&
                   d->p[i].type <= NR_TYPE_U64) { /* an int for an integer parameter */
            if (int_in_range(d->p[i].type, v, &s->a)) continue;
            if (PyErr_Occurred()) goto out;
        } else if (cuda && PyLong_CheckExact(v) &&
                   d->p[i].kind == P_INFER) { /* i32, else i64, else u64; 1 a constexpr */
            if ((int_in_range(s->code = NR_TYPE_I32, v, &s->a) ||
                 int_in_range(s->code = NR_TYPE_I64, v, &s->a)) &&
                !(d->p[i].one && s->a.v.i == 1))
                continue;
            if (PyErr_Occurred()) goto out;
        }
        /* anything else, and the errors of the above (the general path says what is wrong) */
        int rc = d->p[i].kind == P_TYPED ? typed_arg(d, cuda, i, v, s)
                                         : infer_arg(d, cuda, i, v, s, d->p[i].one);
        ndesc += s->base != NULL;
        if (rc) goto out;
        t = cuda ? find_arg_type(st, v) : NULL;
        d->p[i].hint = t && t->tensor ? t : NULL;
        fast_kinds &= d->p[i].hint || PyLong_CheckExact(v) || PyBool_Check(v) ||
                      PyFloat_CheckExact(v) || v == Py_None || s->code == CODE_CONSTEXPR;
    }
    if (cuda &&
        d->follow) { /* the device of the first tensor argument, else torch's current device */
        PyObject *first = NULL;
        struct ArgType *first_t = NULL;
        for (int j = 0; j < nslots && !first; j++) {                    /* tuples' leaves too */
            PyObject *v = slots[j].base ? slots[j].base : slots[j].obj; /* a descriptor's base */
            struct ArgType *t = slots[j].code != CODE_TUPLE ? find_arg_type(st, v) : NULL;
            if (t && t->tensor) first = v, first_t = t;
        }
        long dev = launch_device(d, first, first_t, c->index);
        if (dev < 0) goto out;
        if (dev != c->index) {
            ContextObject *nc;
            PyObject *ncache;
            if (use_device(d, dev, &nc, &ncache)) goto out;
            NRPY_SETREF(c, nc);
            NRPY_SETREF(cache, ncache);
        }
    }
    if (col && col->mode == COLLECT_KEY) {
        PyObject *key = make_key(d, vals, slots, slot_of, extra);
        if (key) result = Py_BuildValue("(NO)", key, (PyObject *)c);
        goto out;
    }
    if (!(k = launch_kernel(d, c, cache, vals, slots, slot_of, extra))) goto out;
    if (d->launcher) {
        if (!lop.fp_fusion) lop.fp_fusion = k->fp_fusion;
        if (!lop.reflect_ftz) lop.reflect_ftz = k->reflect_ftz;
    }
    k->fp_fusion = lop.fp_fusion, k->reflect_ftz = lop.reflect_ftz;
    nr_arg a[MAX_SLOTS];
    int na = 0;
    bool tuned = nr_kernel_num_configs(k->k) > 0;
    for (int i = 0; i < nslots; i++)
        if (code_passed(slots[i].code)) {
            /* a kernel the runtime tunes takes each config's block shape */
            if (slots[i].base && !tuned && na < k->nparams && check_block(d, k, na, &slots[i]))
                goto out;
            a[na++] = slots[i].a;
        }
    if (na != k->nparams) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s(): the compiled kernel takes %d runtime arguments, the call gives %d",
                     kname(d), k->nparams, na);
        goto out;
    }
    unsigned grid[3] = {gi->dims[0], gi->dims[1], gi->dims[2]};
    bool empty = gi->empty, callable = gi->kind == GRID_CALL;
    if (gi->kind == GRID_READ && read_dims(d, gi->g, grid, &empty)) goto out;
    nr_launch_options lo = {.num_warps = lop.warps,
                            .num_stages = lop.stages,
                            .maxnreg = lop.maxnreg,
                            .enable_fp_fusion = lop.fp_fusion,
                            .enable_reflect_ftz = lop.reflect_ftz};
    if (!col && lop.num_ctas > 1 && cuda && check_clusters(d, c, k, a, na, &lo)) goto out;
    k->num_ctas = lop.num_ctas;
    if (col && c->kind == NR_DEVICE_CUDA) { /* kept for nr_prepare_many */
        int j = col->n;
        if (PyList_Append(col->kernels, (PyObject *)k)) goto out;
        for (int i = 0; i < na; i++) {
            col->args[j][i] = a[i];
            if (a[i].type == NR_TYPE_TENSOR_DESC) { /* its struct lives in `slots` */
                col->descs[j][i] = *a[i].v.desc;
                col->args[j][i].v.desc = &col->descs[j][i];
            }
        }
        col->opts[j] = lo;
        col->jobs[j] = (nr_prepare_job){k->k, col->args[j], na, &col->opts[j], NR_OK};
        col->n++;
        result = Py_NewRef(Py_None);
        goto out;
    }
    if (col) { /* the CPU device: the front end was the compile */
        result = Py_NewRef(Py_None);
        goto out;
    }
    if (empty) { /* nothing to run, as in Triton: compiled (warmup), not launched */
        nr_status ps = nr_prepare(k->k, a, na, &lo);
        if (ps) nrpy_raise(st, c->ctx, ps, NULL);
        else result = Py_NewRef((PyObject *)k);
        goto out;
    }
    if (cuda && current_stream(d, c, &lo.stream)) goto out;
    size_t bytes[MAX_SLOTS];
    if (tuned) {
        int b = 0;
        for (int i = 0; i < nslots; i++)
            if (code_passed(slots[i].code))
                bytes[b++] = slots[i].a.type == NR_TYPE_PTR ? extent_of(st, &slots[i]) : 0;
    }
    int registered = 0;
    nr_status s = NR_OK;
    for (int i = 0; i < nslots && !s && !cuda; i++)
        if (slots[i].reg) {
            s = nr_host_register(c->ctx, slots[i].reg, slots[i].reg_bytes);
            registered += !s;
        }
    GridCall gc = {d, gi->g, vals, extra, false, false};
    if (!s && lop.coop) { /* a callable grid evaluated here: the kernel is not tuned */
        if (callable && grid_callback(NULL, grid, &gc)) s = NR_ERR_INVALID_ARG;
        if (!s) s = nr_launch_cooperative(k->k, grid, a, na, &lo);
    } else if (!s)
        s = callable ? nr_launch_grid(k->k, grid_callback, &gc, a, na, tuned ? bytes : NULL, &lo)
                     : nr_launch(k->k, grid, a, na, &lo);
    if (gc.empty) s = NR_OK; /* the grid had a zero dimension: nothing ran */
    if (s && !gc.failed) nrpy_raise(st, c->ctx, s, NULL);
    for (int i = 0; i < nslots && registered; i++)
        if (slots[i].reg) nr_host_unregister(c->ctx, slots[i].reg), registered--;
    if (!s) result = Py_NewRef((PyObject *)k), st->launches += !gc.empty;
    d->fast = !s && cuda && fast_kinds && lop.num_ctas == 1 && !lop.coop;
out:
    if (!cuda || ndesc) release_slots(slots, nslots, !cuda);
    Py_XDECREF((PyObject *)k);
    Py_XDECREF(extra);
    Py_XDECREF(cache);
    Py_XDECREF((PyObject *)c);
    return result;
}

static PyObject *dispatcher_launch(PyObject *o, PyObject *args, PyObject *kwargs) {
    /* launch(grid, *args, **kwargs): the same as self[grid](*args, **kwargs) */
    Py_ssize_t n = PyTuple_Size(args);
    if (n < 1) return PyErr_Format(PyExc_TypeError, "launch(grid, *args, **kwargs) needs a grid");
    PyObject *rest = PyTuple_GetSlice(args, 1, n);
    if (!rest) return NULL;
    Grid gi;
    grid_info((DispatcherObject *)o, PyTuple_GetItem(args, 0), &gi);
    PyObject *r = launch((DispatcherObject *)o, &gi, rest, kwargs);
    Py_DECREF(rest);
    return r;
}

/* _key(*args, **kwargs) -> (key, context): what a launch with these arguments would look
 * its kernel up by in the context's cache (self._cache), and the context, without
 * compiling anything (nereid.autotune's parallel compile fills the cache first) */
static PyObject *dispatcher_key(PyObject *o, PyObject *args, PyObject *kwargs) {
    Grid gi = {Py_None, GRID_FIXED, {1, 1, 1}, false};
    Collect col = {COLLECT_KEY, 0, NULL, NULL, NULL, NULL, NULL};
    return launch_or_collect((DispatcherObject *)o, &gi, args, kwargs, &col);
}

/* Each call of `list` ((args, kwargs) of dispatcher `d`, or (dispatcher, args, kwargs) when
 * d is NULL) as a warmup launch would take it (its kernel from the cache, or compiled),
 * then on CUDA all of them prepared at once with nr_prepare_many, the GIL released
 * meanwhile. A launch that fails raises before anything is prepared; a variant that fails
 * to compile does not raise (its launch reports it). The dispatchers' kernels must all
 * belong to one context (nr_prepare_many's rule). */
static PyObject *prepare_calls(DispatcherObject *d, PyObject *list, PyTypeObject *dtype) {
    Py_ssize_t n = PyList_Size(list);
    Collect col = {COLLECT_PREPARE,
                   0,
                   PyMem_Calloc((size_t)n + 1, sizeof *col.jobs),
                   PyMem_Calloc((size_t)n + 1, sizeof *col.args),
                   PyMem_Calloc((size_t)n + 1, sizeof *col.descs),
                   PyMem_Calloc((size_t)n + 1, sizeof *col.opts),
                   PyList_New(0)};
    PyObject *result = NULL;
    if (!col.jobs || !col.args || !col.descs || !col.opts) PyErr_NoMemory();
    for (Py_ssize_t i = 0; col.kernels && !PyErr_Occurred() && i < n; i++) {
        PyObject *call = PyList_GetItem(list, i), *a = NULL, *kw = NULL, *disp = NULL;
        if (d ? !PyArg_ParseTuple(call, "OO", &a, &kw)
              : !PyArg_ParseTuple(call, "OOO", &disp, &a, &kw))
            break;
        if (!d && !PyObject_TypeCheck(disp, dtype)) {
            PyErr_SetString(PyExc_TypeError,
                            "prepare_many: calls are (kernel, args tuple, kwargs dict)");
            break;
        }
        if (!PyTuple_Check(a) || (kw != Py_None && !PyDict_Check(kw))) {
            PyErr_SetString(PyExc_TypeError, "_prepare_many: calls are (args tuple, kwargs dict)");
            break;
        }
        Grid gi = {Py_None, GRID_FIXED, {0, 1, 1}, true};
        PyObject *r = launch_or_collect(d ? d : (DispatcherObject *)disp, &gi, a,
                                        kw == Py_None ? NULL : kw, &col);
        Py_XDECREF(r);
    }
    if (col.kernels && !PyErr_Occurred()) {
        if (col.n) {
            Py_BEGIN_ALLOW_THREADS nr_prepare_many(col.jobs, col.n);
            Py_END_ALLOW_THREADS
        }
        result = Py_NewRef(Py_None);
    }
    Py_XDECREF(col.kernels);
    PyMem_Free(col.jobs), PyMem_Free(col.args), PyMem_Free(col.descs), PyMem_Free(col.opts);
    return result;
}

/* _prepare_many(calls): prepare_calls of this dispatcher's (args, kwargs) calls. */
static PyObject *dispatcher_prepare_many(PyObject *o, PyObject *calls) {
    PyObject *list = PySequence_List(calls);
    if (!list) return NULL;
    PyObject *r = prepare_calls((DispatcherObject *)o, list, NULL);
    Py_DECREF(list);
    return r;
}

/* prepare_many(calls): prepare_calls of (dispatcher, args, kwargs) calls of several kernels
 * (nereid.inductor: every kernel a compiled graph holds, their GPU code made at once). */
static PyObject *module_prepare_many(PyObject *module, PyObject *calls) {
    State *st = PyModule_GetState(module);
    PyObject *list = PySequence_List(calls);
    if (!list) return NULL;
    PyObject *r = prepare_calls(NULL, list, (PyTypeObject *)st->DispatcherType);
    Py_DECREF(list);
    return r;
}

static PyMethodDef launch_functions[] = {
    {"prepare_many", module_prepare_many, METH_O,
     "prepare_many([(kernel, args, kwargs), ...]): warmups of several kernels of one context, "
     "their GPU code made at once (nr_prepare_many)"},
    {NULL, NULL, 0, NULL}};

/* _forget(): drop every compiled kernel (the source changed) and the fast path's memory */
static PyObject *dispatcher_forget(PyObject *o, PyObject *unused) {
    (void)unused;
    DispatcherObject *d = (DispatcherObject *)o;
    if (d->cache) PyDict_Clear(d->cache);
    if (d->devices) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(d->devices, &pos, &key, &value)) {
            PyObject *cache =
                PyTuple_Check(value) && PyTuple_Size(value) == 2 ? PyTuple_GetItem(value, 1) : NULL;
            if (cache && PyDict_Check(cache)) PyDict_Clear(cache);
        }
    }
    Py_CLEAR(d->last_kernel);
    d->fast = false;
    Py_RETURN_NONE;
}

static PyMethodDef dispatcher_methods[] = {
    {"_forget", dispatcher_forget, METH_NOARGS,
     "drop the compiled kernels (the kernel's source changed)"},
    {"_setup", dispatcher_setup, METH_VARARGS,
     "_setup(name, names, kinds, types, defaults, extra_kw)"},
    {"launch", (PyCFunction)(void (*)(void))dispatcher_launch, METH_VARARGS | METH_KEYWORDS,
     "launch(grid, *args, **kwargs): the same as self[grid](*args, **kwargs)"},
    {"_key", (PyCFunction)(void (*)(void))dispatcher_key, METH_VARARGS | METH_KEYWORDS,
     "_key(*args, **kwargs) -> (key, context): a launch's cache key, nothing compiled"},
    {"_prepare_many", dispatcher_prepare_many, METH_O,
     "_prepare_many([(args, kwargs), ...]): warmups, prepared at once (nr_prepare_many)"},
    {NULL, NULL, 0, NULL},
};

static PyObject *dispatcher_get_launch_warps(PyObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(((DispatcherObject *)self)->launch_warps);
}

static PyGetSetDef dispatcher_getset[] = {
    {"_launch_num_warps", dispatcher_get_launch_warps, NULL,
     "the num_warps= of the launch that is compiling (0: none given): a kernel that reads "
     "tl.extra.cuda.num_warps() is compiled for it",
     NULL},
    {"_cache", dispatcher_get_cache, NULL, "compiled specialisations: key -> Kernel", NULL},
    {"_meta", dispatcher_get_meta, dispatcher_set_meta,
     "what a callable grid's meta holds besides the arguments (a dict, or None)", NULL},
    {"_context", dispatcher_get_context, dispatcher_set_context,
     "the Context launches run on (the last launch's)", NULL},
    {"_per_device", dispatcher_get_per_device, dispatcher_set_per_device,
     "whether launches on CUDA run on their first tensor argument's device (else torch's current "
     "device)",
     NULL},
    {"_devices", dispatcher_get_devices, NULL,
     "per-device dispatch: {device index: (Context, cache)}", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot dispatcher_slots[] = {
    {Py_tp_new, dispatcher_new},
    {Py_tp_dealloc, dispatcher_dealloc},
    {Py_tp_traverse, dispatcher_traverse},
    {Py_tp_clear, dispatcher_clear},
    {Py_mp_subscript, dispatcher_subscript},
    {Py_tp_methods, dispatcher_methods},
    {Py_tp_getset, dispatcher_getset},
    {Py_tp_doc,
     "a kernel as Python launches it: kernel[grid](*args, **kwargs) (subclassed by nereid)"},
    {0, NULL},
};

static PyType_Spec dispatcher_spec = {"nereid._nereid.Dispatcher", sizeof(DispatcherObject), 0,
                                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                                      dispatcher_slots};

/* ---- Launcher ---- */

static PyObject *launcher_call(PyObject *o, PyObject *args, PyObject *kwargs) {
    LauncherObject *l = (LauncherObject *)o;
    if (!l->dispatcher) return PyErr_Format(PyExc_RuntimeError, "this launcher's kernel is gone");
    return launch((DispatcherObject *)l->dispatcher, &l->info, args, kwargs);
}

static int launcher_traverse(PyObject *o, visitproc visit, void *arg) {
    LauncherObject *l = (LauncherObject *)o;
    Py_VISIT(Py_TYPE(o));
    Py_VISIT(l->dispatcher);
    Py_VISIT(l->grid);
    return 0;
}

static int launcher_clear(PyObject *o) {
    LauncherObject *l = (LauncherObject *)o;
    Py_CLEAR(l->dispatcher);
    Py_CLEAR(l->grid);
    return 0;
}

static void launcher_dealloc(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    launcher_clear(o);
    PyObject_GC_Del(o);
    Py_DECREF(tp);
}

static PyType_Slot launcher_slots[] = {
    {Py_tp_call, launcher_call},
    {Py_tp_dealloc, launcher_dealloc},
    {Py_tp_traverse, launcher_traverse},
    {Py_tp_clear, launcher_clear},
    {Py_tp_doc, "kernel[grid]: call it with the kernel's arguments to launch"},
    {0, NULL},
};

static PyType_Spec launcher_spec = {"nereid._nereid.Launcher", sizeof(LauncherObject), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, launcher_slots};

int nrpy_launch_init(PyObject *module, State *st) {
    st->DispatcherType = PyType_FromModuleAndSpec(module, &dispatcher_spec, NULL);
    if (!st->DispatcherType || PyModule_AddObjectRef(module, "Dispatcher", st->DispatcherType))
        return -1;
    st->LauncherType = PyType_FromModuleAndSpec(module, &launcher_spec, NULL);
    if (!st->LauncherType || PyModule_AddObjectRef(module, "Launcher", st->LauncherType)) return -1;
    return PyModule_AddFunctions(module, launch_functions);
}
