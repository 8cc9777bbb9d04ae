/* _tune.c - nereid._nereid.Tuner: the C API's tuner (nr_tuner_*, the rules every tuned
 * kernel follows) driven by Python callables, for nereid.autotune (_autotune.py).
 *
 *   Tuner(context, kernel, configs, identity, warmup_ms, rep_ms, top_k, top_k_fraction)
 *   tuner.choose(key, buffers, launch, before=None, after=None, bench=None, prune=None,
 *                estimate=None) -> (chosen, times)
 *
 * configs: each config's text; identity: what a choice depends on besides the key and the
 * device (None: not kept on disk); buffers: (pointer, bytes, restore) per reset_to_zero
 * and restore_value buffer. The callables take a config's index: launch(i), before(i),
 * after(i) return True, or False when the config cannot run (it counts as infinitely
 * slow); bench(i) returns milliseconds (None: it cannot run); prune(indices) returns the
 * indices kept; estimate(i) a number. An exception raised by any of them stops the tuning
 * and comes out of choose(). times: per config, milliseconds or inf. */
#include "_nereid.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    PyObject_HEAD PyObject *context; /* keeps the nr_context alive */
    nr_tuner *tuner;
    int nconfigs;
} TunerObject;

/* The Python side of one choose() call. */
typedef struct Calls {
    PyObject *launch, *before, *after, *bench, *prune, *estimate, *compile;
    bool raised; /* a callable raised: its exception is set, the tuning stops */
} Calls;

/* A callable's result: True -> NR_OK, False -> the config cannot run, an exception ->
 * stop (the exception stays set). */
static nr_status verdict(Calls *c, PyObject *r) {
    if (!r) {
        c->raised = true;
        return NR_ERR_DEVICE;
    }
    int ok = PyObject_IsTrue(r);
    Py_DECREF(r);
    if (ok < 0) {
        c->raised = true;
        return NR_ERR_DEVICE;
    }
    return ok ? NR_OK : NR_ERR_LAUNCH;
}

static nr_status call_index(Calls *c, PyObject *fn, int config) {
    if (c->raised) return NR_ERR_DEVICE;
    return verdict(c, PyObject_CallFunction(fn, "i", config));
}

static nr_status on_launch(void *user, int config) {
    return call_index(user, ((Calls *)user)->launch, config);
}
static nr_status on_before(void *user, int config) {
    return call_index(user, ((Calls *)user)->before, config);
}
static nr_status on_after(void *user, int config) {
    return call_index(user, ((Calls *)user)->after, config);
}

static nr_status on_bench(void *user, int config, double *ms) {
    Calls *c = user;
    if (c->raised) return NR_ERR_DEVICE;
    PyObject *r = PyObject_CallFunction(c->bench, "i", config);
    if (!r) return c->raised = true, NR_ERR_DEVICE;
    if (r == Py_None) return Py_DECREF(r), NR_ERR_LAUNCH;
    *ms = PyFloat_AsDouble(r);
    Py_DECREF(r);
    if (*ms == -1.0 && PyErr_Occurred()) return c->raised = true, NR_ERR_DEVICE;
    return NR_OK;
}

static nr_status on_prune(void *user, int *configs, int *n) {
    Calls *c = user;
    PyObject *in = PyList_New(*n);
    if (!in) return c->raised = true, NR_ERR_DEVICE;
    for (int i = 0; i < *n; i++) PyList_SetItem(in, i, PyLong_FromLong(configs[i]));
    PyObject *r = PyObject_CallFunctionObjArgs(c->prune, in, NULL);
    Py_DECREF(in);
    PyObject *seq = r ? PySequence_List(r) : NULL;
    Py_XDECREF(r);
    if (!seq) return c->raised = true, NR_ERR_DEVICE;
    Py_ssize_t m = PyList_Size(seq);
    if (m > *n) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "prune returned more configs than it was given");
        return c->raised = true, NR_ERR_DEVICE;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        long v = PyLong_AsLong(PyList_GetItem(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return c->raised = true, NR_ERR_DEVICE;
        }
        configs[i] = (int)v;
    }
    *n = (int)m;
    Py_DECREF(seq);
    return NR_OK;
}

static nr_status on_estimate(void *user, int config, double *est) {
    Calls *c = user;
    PyObject *r = PyObject_CallFunction(c->estimate, "i", config);
    if (!r) return c->raised = true, NR_ERR_DEVICE;
    *est = PyFloat_AsDouble(r);
    Py_DECREF(r);
    if (*est == -1.0 && PyErr_Occurred()) return c->raised = true, NR_ERR_DEVICE;
    return NR_OK;
}

/* compile(indices): the candidates compiled before timing (nereid.autotune compiles them
 * at once); its result is not looked at, an exception stops the tuning */
static nr_status on_compile(void *user, const int *configs, int n) {
    Calls *c = user;
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) PyList_SetItem(list, i, PyLong_FromLong(configs[i]));
    PyObject *r = list ? PyObject_CallFunctionObjArgs(c->compile, list, NULL) : NULL;
    Py_XDECREF(list);
    if (!r) return c->raised = true, NR_ERR_DEVICE;
    Py_DECREF(r);
    return NR_OK;
}

static PyObject *tuner_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"context", "kernel", "configs",        "identity", "warmup_ms",
                             "rep_ms",  "top_k",  "top_k_fraction", NULL};
    PyObject *context, *configs, *identity;
    const char *kernel;
    double warmup = 0, rep = 0, top_k = 0;
    int fraction = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OsOO|dddp", kwlist, &context, &kernel, &configs,
                                     &identity, &warmup, &rep, &top_k, &fraction))
        return NULL;
    PyObject *module = PyType_GetModule(type);
    State *st = nrpy_state(module);
    if (!PyObject_TypeCheck(context, (PyTypeObject *)st->ContextType))
        return PyErr_Format(PyExc_TypeError, "Tuner: context must be a nereid Context");
    PyObject *seq = PySequence_List(configs);
    if (!seq) return NULL;
    Py_ssize_t n = PyList_Size(seq);
    const char **texts = calloc((size_t)(n ? n : 1), sizeof *texts);
    if (!texts) return Py_DECREF(seq), PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++)
        if (!(texts[i] = PyUnicode_AsUTF8AndSize(PyList_GetItem(seq, i), NULL))) {
            free(texts);
            Py_DECREF(seq);
            return NULL;
        }
    const char *id = identity == Py_None ? NULL : PyUnicode_AsUTF8AndSize(identity, NULL);
    if (identity != Py_None && !id) return free(texts), Py_DECREF(seq), NULL;
    ContextObject *ctx = (ContextObject *)context;
    nr_tune_options o = {kernel, (int)n, texts, id, warmup, rep, top_k, fraction};
    nr_tuner *t = NULL;
    nr_status s = nr_tuner_create(ctx->ctx, &o, &t);
    free(texts);
    Py_DECREF(seq);
    if (s)
        return PyErr_Format(st->Error ? st->Error : PyExc_RuntimeError, "%s",
                            nr_last_error(ctx->ctx));
    TunerObject *self = (TunerObject *)PyType_GenericAlloc(type, 0);
    if (!self) return nr_tuner_destroy(t), NULL;
    self->context = Py_NewRef(context);
    self->tuner = t;
    self->nconfigs = (int)n;
    return (PyObject *)self;
}

static void tuner_dealloc(PyObject *o) {
    TunerObject *self = (TunerObject *)o;
    PyTypeObject *tp = Py_TYPE(o);
    nr_tuner_destroy(self->tuner);
    Py_XDECREF(self->context);
    freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    tp_free(o);
    Py_DECREF(tp);
}

/* (pointer, bytes, restore) tuples into bufs (at most 64) */
static int read_buffers(PyObject *list, nr_tune_buffer *bufs, int *n) {
    PyObject *seq = PySequence_List(list);
    if (!seq) return -1;
    Py_ssize_t m = PyList_Size(seq);
    if (m > 64) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "too many buffers to reset or restore (at most 64)");
        return -1;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        unsigned long long p, b;
        int restore;
        if (!PyArg_ParseTuple(PyList_GetItem(seq, i), "KKp", &p, &b, &restore))
            return Py_DECREF(seq), -1;
        bufs[i] = (nr_tune_buffer){(nr_devptr)p, (size_t)b, restore};
    }
    *n = (int)m;
    Py_DECREF(seq);
    return 0;
}

static PyObject *none_or(PyObject *o) { return o == Py_None ? NULL : o; }

static PyObject *tuner_choose(PyObject *o, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"key",   "buffers", "launch",   "before",  "after",
                             "bench", "prune",   "estimate", "compile", NULL};
    TunerObject *self = (TunerObject *)o;
    const char *key;
    PyObject *buffers;
    Calls c = {NULL, Py_None, Py_None, Py_None, Py_None, Py_None, Py_None, false};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sOO|OOOOOO", kwlist, &key, &buffers, &c.launch,
                                     &c.before, &c.after, &c.bench, &c.prune, &c.estimate,
                                     &c.compile))
        return NULL;
    nr_tune_buffer bufs[64];
    int nbufs = 0;
    if (read_buffers(buffers, bufs, &nbufs)) return NULL;
    c.before = none_or(c.before), c.after = none_or(c.after), c.bench = none_or(c.bench);
    c.prune = none_or(c.prune), c.estimate = none_or(c.estimate), c.compile = none_or(c.compile);
    nr_tune_calls calls = {&c,
                           on_launch,
                           c.before ? on_before : NULL,
                           c.after ? on_after : NULL,
                           c.bench ? on_bench : NULL,
                           c.prune ? on_prune : NULL,
                           c.estimate ? on_estimate : NULL,
                           NULL,
                           c.compile ? on_compile : NULL};
    double *times = calloc((size_t)self->nconfigs, sizeof *times);
    if (!times) return PyErr_NoMemory();
    int chosen = -1;
    nr_status s = nr_tuner_choose(self->tuner, key, bufs, nbufs, &calls, &chosen, times);
    PyObject *r = NULL;
    if (c.raised) { /* the callable's exception, as it was raised */
    } else if (s) {
        State *st = nrpy_state(PyType_GetModule(Py_TYPE(o)));
        PyErr_Format(st->Error ? st->Error : PyExc_RuntimeError, "%s",
                     nr_last_error(((ContextObject *)self->context)->ctx));
    } else {
        PyObject *t = PyList_New(self->nconfigs);
        for (int i = 0; t && i < self->nconfigs; i++)
            PyList_SetItem(t, i, PyFloat_FromDouble(times[i]));
        r = t ? Py_BuildValue("(iN)", chosen, t) : NULL;
    }
    free(times);
    return r;
}

static PyMethodDef tuner_methods[] = {
    {"choose", (PyCFunction)(void (*)(void))tuner_choose, METH_VARARGS | METH_KEYWORDS,
     "choose(key, buffers, launch, before=None, after=None, bench=None, prune=None, estimate=None) "
     "-> (chosen, times)"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot tuner_slots[] = {
    {Py_tp_new, tuner_new},
    {Py_tp_dealloc, tuner_dealloc},
    {Py_tp_methods, tuner_methods},
    {Py_tp_doc, "Tuner(context, kernel, configs, identity, warmup_ms=0, rep_ms=0, top_k=0, "
                "top_k_fraction=False): "
                "the C API's tuner (nr_tuner_create) over Python callables"},
    {0, NULL},
};

static PyType_Spec tuner_spec = {"nereid._nereid.Tuner", sizeof(TunerObject), 0, Py_TPFLAGS_DEFAULT,
                                 tuner_slots};

/* option_info(name) -> (default, min, max, power_of_two): nr_option_info */
static PyObject *option_info(PyObject *module, PyObject *arg) {
    (void)module;
    const char *name = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!name) return NULL;
    int def, lo, hi, pow2;
    if (nr_option_info(name, &def, &lo, &hi, &pow2))
        return PyErr_Format(PyExc_KeyError, "no option '%s'", name);
    return Py_BuildValue("(iiiO)", def, lo, hi, pow2 ? Py_True : Py_False);
}

static PyMethodDef tune_functions[] = {
    {"option_info", option_info, METH_O,
     "option_info(name) -> (default, min, max, power_of_two) of a compile or "
     "launch option (nr_option_info)"},
    {NULL, NULL, 0, NULL},
};

int nrpy_tune_init(PyObject *module, State *st) {
    st->TunerType = PyType_FromModuleAndSpec(module, &tuner_spec, NULL);
    if (!st->TunerType || PyModule_AddObjectRef(module, "Tuner", st->TunerType)) return -1;
    return PyModule_AddFunctions(module, tune_functions);
}
