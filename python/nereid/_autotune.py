"""@nereid.autotune and @nereid.heuristics for kernels written in Python (@nereid.jit),
and nereid.Config. They take Triton's arguments and follow its rules, which the C API's
tuner implements once for every tuned kernel (nr_tuner_*, through _nereid.Tuner): at the
first launch for each value of the key (the key arguments' values and the arrays'
dtypes) the configs are pruned (early_config_prune, then perf_model keeping top_k), each
survivor is compiled (all of them at once, on several threads: _precompile) and timed on
the real arguments (reset_to_zero and restore_value
buffers zeroed and restored around each timed launch), and the fastest is used from then
on; the choice is kept in the cache directory ($NEREID_CACHE_DIR, or ~/.cache/nereid)
under the device, the compiler build, the kernel's source, the configs and the key, so a
later process takes it without timing. NEREID_PRINT_AUTOTUNING=1 prints what was timed and
chosen. What is Python by nature stays here: the configs as objects, the hooks, the
heuristics and pruning callables, do_bench, and the key's values.

Kernel files compiled with nereid.compile carry their @triton.autotune decorators in the
source; the C runtime tunes those (runtime/autotune.c) through the same tuner.
"""
import inspect
import math
import time

from . import _nereid, _runtime
from ._errors import Error
from ._jit import _COMPILE_ONLY

_DEFAULTS = {name: _nereid.option_info(name)[0] for name in ("num_warps", "num_stages")}


class Config:
    """One configuration: constexpr values (kwargs) and launch options."""

    def __init__(self, kwargs, num_warps=None, num_stages=None, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = dict(kwargs)
        self.num_warps = _DEFAULTS["num_warps"] if num_warps is None else num_warps
        self.num_stages = _DEFAULTS["num_stages"] if num_stages is None else num_stages
        self.num_ctas = num_ctas
        self.maxnreg, self.pre_hook, self.ir_override = maxnreg, pre_hook, ir_override

    def all_kwargs(self):
        return {**self.kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages}

    def __str__(self):
        return ", ".join([f"{k}={v}" for k, v in self.kwargs.items()] +
                         [f"num_warps={self.num_warps}", f"num_stages={self.num_stages}"])

    __repr__ = __str__

    def _id(self):
        return (tuple(sorted(self.all_kwargs().items(), key=lambda kv: kv[0])), self.pre_hook)

    def __eq__(self, other):
        return isinstance(other, Config) and self._id() == other._id()

    def __hash__(self):
        return hash(self._id())


def _base_jit(fn):
    while not hasattr(fn, "source") and hasattr(fn, "fn"):
        fn = fn.fn
    return fn


def _extent(x):
    """(pointer, bytes) of a contiguous torch tensor or NumPy array, else None."""
    if hasattr(x, "data_ptr") and hasattr(x, "is_contiguous"):
        return (x.data_ptr(), x.numel() * x.element_size()) if x.is_contiguous() else None
    flags = getattr(x, "flags", None)
    if flags is not None and flags["C_CONTIGUOUS"] and hasattr(x, "ctypes"):
        return x.ctypes.data, x.nbytes
    return None


def _zero(x):
    if hasattr(x, "zero_"):
        x.zero_()
    else:
        x[...] = 0


def _clone(x):
    return x.clone() if hasattr(x, "clone") else x.copy()


def _restore(dst, src):
    if hasattr(dst, "copy_"):
        dst.copy_(src)
    else:
        dst[...] = src


# a failure that means the config cannot run (it counts as infinitely slow); any other
# exception stops the tuning
_CANNOT_RUN = (Error, ValueError, TypeError, OverflowError)


def _base_fn(fn):
    """The Python function under any stack of autotune/heuristics/jit wrappers (Triton's
    Autotuner.base_fn and Heuristics.base_fn)."""
    while not inspect.isfunction(fn) and hasattr(fn, "fn"):
        fn = fn.fn
    return fn


class Heuristics:
    """@nereid.heuristics(values={'NAME': lambda args: ...}): constexprs computed from the
    launch arguments (args holds every argument by name, and the config's values)."""

    @property
    def base_fn(self):
        return _base_fn(self.fn)

    def __init__(self, fn, values):
        self.fn = fn
        self.values = dict(values)
        self.arg_names = fn.arg_names
        self.__name__ = getattr(fn, "__name__", "kernel")

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **self._values(args, kwargs))

    def _values(self, args, kwargs):
        """kwargs with the heuristics' values added, as run passes them on."""
        kwargs = dict(kwargs)
        for name, f in self.values.items():
            kwargs[name] = f({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)


class Autotuner:
    """@nereid.autotune(configs=[...], key=[...], ...)."""

    @property
    def base_fn(self):
        return _base_fn(self.fn)

    def __init__(self, fn, configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, warmup=25, rep=100, use_cuda_graph=False, do_bench=None, cache_results=True):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.configs = list(configs) or [Config({})]
        self.keys = list(key)
        # a key that names no parameter is left out of the key, as Triton leaves it
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        prune = prune_configs_by or {}
        self.perf_model = prune.get("perf_model")
        self.top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.warmup_ms = warmup if warmup is not None else 25
        self.rep_ms = rep if rep is not None else 100
        self.do_bench = do_bench
        self.cache_results = cache_results
        self.cache = {}
        self.best_config = None
        self.configs_timings = None
        self._tuners = {}  # per context: the C API's tuner, which keeps the choices too

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    # ---- tuning: the rules are the C API's tuner's (nr_tuner_*) ----

    def prune_configs(self, nargs, kwargs):
        """The configs early_config_prune and perf_model leave, as the tuner prunes them."""
        configs = self.configs
        if self.early_config_prune:
            configs = list(self.early_config_prune(configs, nargs, **kwargs))
            if not configs:
                raise Error("early_config_prune left no config: it must return at least one")
        if self.perf_model:
            top_k = self.top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            if len(configs) > top_k:
                est = [(self.perf_model(**nargs, **kwargs, **c.all_kwargs()), i) for i, c in enumerate(configs)]
                configs = [configs[i] for _, i in sorted(est)[:top_k]]
        return configs

    def _tuner(self, context):
        t = self._tuners.get(context)
        if t is None:
            jit = _base_jit(self.fn)
            src = jit.source()[0] if hasattr(jit, "source") else None
            disk = self.cache_results and src is not None and not any(c.pre_hook for c in self.configs)
            identity = "\0".join(["python"] + [src or ""] + [str(c) for c in self.configs]) if disk else None
            top_k = self.top_k if self.perf_model else 0
            t = self._tuners[context] = _nereid.Tuner(context, self.__name__, [str(c) for c in self.configs], identity,
                                                      self.warmup_ms, self.rep_ms, float(top_k),
                                                      isinstance(top_k, float) and top_k <= 1.0)
        return t

    # ---- compiling the configs at once ----

    def _calls(self, indices, args, kwargs):
        """The @jit function under this tuner and, per config, the (args, kwargs) its
        launch reaches it with (heuristics applied); (None, None) for a kernel of another
        kind (its configs compile one by one, at their launches)."""
        calls, jit = [], None
        for i in indices:
            fn, kw = self.fn, {**kwargs, **self.configs[i].all_kwargs()}
            while isinstance(fn, Heuristics):
                fn, kw = fn.fn, fn._values(args, kw)
            if not (hasattr(fn, "_compile_request") and hasattr(fn, "_key")) or (jit is not None and fn is not jit):
                return None, None
            jit = fn
            calls.append((tuple(args), {k: v for k, v in kw.items() if k not in _COMPILE_ONLY or k in fn.arg_names}))
        return jit, calls

    def _precompile(self, indices, args, kwargs):
        """Configs `indices` compiled for these arguments, all at once: the front ends of
        the specialisations not compiled yet (Context.compile_many), then on CUDA their GPU
        code (the dispatcher's _prepare_many), on several threads with the GIL released
        (NEREID_COMPILE_THREADS). Nothing is raised for a config that fails: its launch
        compiles it again and reports the error."""
        jit, calls = self._calls(indices, args, kwargs)
        if jit is None or len(calls) < 2:
            return
        todo, context = {}, None
        for a, kw in calls:
            try:
                key, ctx = jit._key(*a, **kw)
            except Exception:
                continue  # its launch says what is wrong
            context = ctx
            if key not in jit._cache and key not in todo:
                todo[key] = jit._compile_request(key)
        if context is None:
            return
        if todo:
            jobs = [(source, filename, [(k, _runtime.define_text(k, v)) for k, v in defines.items()], jit.__name__,
                     jit.num_warps or 0, jit.num_stages or 0, jit._constexpr_functions or None, jit._debug_option(key))
                    for key, (source, filename, defines) in todo.items()]
            cache = jit._cache
            for key, mod in zip(todo, context.compile_many(jobs)):
                if mod is not None:
                    _runtime.report_diagnostics(mod)
                    cache[key] = jit._kernel_of(mod)
        if context.kind == "cuda":
            jit._prepare_many(calls)

    def precompile(self, *args, **kwargs):
        """Compile every config (those prune_configs_by keeps) for these arguments, at once
        on several threads, without launching: a later tuning finds them compiled. The
        tuning itself does this for its candidates before timing them."""
        nargs = dict(zip(self.arg_names, args))
        kept = self.prune_configs(nargs, kwargs)
        self._precompile([i for i, c in enumerate(self.configs) if c in kept], args, kwargs)

    def _tune(self, key, args, kwargs, grid, nargs):
        everything = {**nargs, **kwargs}
        for c in self.configs:
            conflicts = set(kwargs) & set(c.kwargs)
            if conflicts:
                raise ValueError(f"conflicting meta-parameters: {', '.join(sorted(conflicts))} are given at the launch "
                                 "and set by the autotune configs")
        buffers, by_hand = [], []  # the tuner zeroes and restores contiguous buffers; the others are done here
        if not self.user_pre_hook:
            for name, restore in [(n, False) for n in self.reset_to_zero] + [(n, True) for n in self.restore_value]:
                x = everything.get(name)
                ext = _extent(x) if x is not None else None
                if ext:
                    buffers.append((ext[0], ext[1], restore))
                elif x is not None:
                    by_hand.append((name, restore))
        saved = {name: _clone(everything[name]) for name, restore in by_hand if restore}
        failures = []

        def full(i):
            return {**nargs, **kwargs, **self.configs[i].all_kwargs()}

        def before(i):
            f = full(i)
            if self.configs[i].pre_hook:
                self.configs[i].pre_hook(f)
            if self.user_pre_hook:
                self.user_pre_hook(f)
            for name, restore in by_hand:
                if not restore:
                    _zero(f[name])
            return True

        def after(i):
            f = full(i)
            if self.user_post_hook:
                self.user_post_hook(f, exception=None)
            for name, value in saved.items():
                _restore(f[name], value)
            return True

        def launch(i):
            try:
                self.fn.run(*args, grid=grid, **kwargs, **self.configs[i].all_kwargs())
                return True
            except _CANNOT_RUN as e:
                failures.append(f"{self.configs[i]}: {e}")
                return False

        def bench(i):
            def call():
                before(i)
                try:
                    if not launch(i):
                        raise _Failed()
                finally:
                    after(i)
            try:
                r = self.do_bench(call, quantiles=(0.5, 0.2, 0.8))
            except _Failed:
                return None
            return r[0] if isinstance(r, (list, tuple)) else r

        def prune(indices):
            configs = [self.configs[i] for i in indices]
            kept = list(self.early_config_prune(configs, nargs, **kwargs))
            return [next(i for i in indices if self.configs[i] is c or self.configs[i] == c) for c in kept]

        def estimate(i):
            return self.perf_model(**nargs, **kwargs, **self.configs[i].all_kwargs())

        def compile_all(indices):
            try:
                self._precompile(indices, args, kwargs)
            except Exception:
                pass  # the launches compile what is missing, one by one, and report failures

        hooks = bool(by_hand) or self.user_pre_hook or self.user_post_hook or any(c.pre_hook for c in self.configs)
        start = time.time()
        try:
            chosen, times = self._tuner(_base_jit(self.fn)._resolve()).choose(
                repr(key), buffers, launch, before=before if hooks else None, after=after if hooks else None,
                bench=bench if self.do_bench else None, prune=prune if self.early_config_prune else None,
                estimate=estimate if self.perf_model else None, compile=compile_all)
        except Error as e:
            if failures and "no config could run" in str(e):
                raise Error(f"autotuning {self.__name__}: no config could run; the first failure: {failures[0]}") from e
            raise
        self.bench_time = time.time() - start
        timed = {self.configs[i]: t for i, t in enumerate(times) if not math.isinf(t)}
        if timed:
            self.configs_timings = timed
        for name, restore in by_hand:  # zeroed again for the real launch
            if not restore:
                _zero(everything[name])
        return self.configs[chosen]

    def run(self, *args, grid, warmup=False, **kwargs):
        nargs = dict(zip(self.arg_names, args))
        if len(self.configs) > 1:
            everything = {**nargs, **kwargs}
            key = tuple(everything[k] for k in self.keys if k in everything)
            key += tuple(str(v.dtype) for k, v in everything.items() if k in self.arg_names and hasattr(v, "dtype"))
            key += tuple(str(getattr(v.base, "dtype", None)) for k, v in everything.items()  # descriptors' elements
                         if k in self.arg_names and hasattr(v, "block_shape") and hasattr(v, "base"))
            config = self.cache.get(key)
            if config is None:
                config = self.cache[key] = self._tune(key, args, kwargs, grid, nargs)
        else:
            config = self.configs[0]
        self.best_config = config
        if config.pre_hook:
            config.pre_hook({**nargs, **kwargs, **config.all_kwargs()})
        return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs, **config.all_kwargs())

    def warmup(self, *args, grid=None, **kwargs):
        nargs = dict(zip(self.arg_names, args))
        try:
            self.precompile(*args, **kwargs)  # at once; the runs below find them compiled
        except Exception:
            pass
        return [self.fn.run(*args, grid=grid, warmup=True, **kwargs, **c.all_kwargs())
                for c in self.prune_configs(nargs, kwargs)]


class _Failed(Exception):
    """A config that cannot run, inside the user's do_bench."""


class TritonAutotuner(Autotuner):
    """triton.runtime.autotuner.Autotuner where Triton is not installed: Nereid's autotuner
    made with Triton's constructor, (fn, arg_names, configs, key, reset_to_zero,
    restore_value, pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None,
    rep=None, use_cuda_graph=False, do_bench=None, cache_results=False), for libraries that
    subclass Triton's (flash-linear-attention's cached autotuner calls super().__init__
    so and super().run). Triton's hook attributes are set as Triton sets them
    (user_defined_pre_hook, pre_hook, ...); the tuning itself zeroes and restores the
    reset_to_zero and restore_value arguments (None ones skipped) and calls the user's
    hooks, not pre_hook and post_hook replaced after construction."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
                 cache_results=False):
        super().__init__(fn, configs, key, prune_configs_by, reset_to_zero, restore_value, pre_hook, post_hook,
                         warmup, rep, use_cuda_graph, do_bench, cache_results)
        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        self.pre_hook = pre_hook or (lambda kwargs, reset_only=False: None)
        self.post_hook = post_hook or (lambda kwargs, exception: None)
        self.restore_copies = {}


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=True):
    """Decorator: tune a @nereid.jit kernel over configs (see the module's text)."""
    def decorator(fn):
        return Autotuner(fn, configs, key, prune_configs_by, reset_to_zero, restore_value, pre_hook, post_hook, warmup,
                         rep, use_cuda_graph, do_bench, cache_results)
    return decorator


def heuristics(values):
    """Decorator: constexprs computed from the launch arguments by the lambdas in values."""
    def decorator(fn):
        return Heuristics(fn, values)
    return decorator
