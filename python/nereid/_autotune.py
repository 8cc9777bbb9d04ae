"""@nereid.autotune and @nereid.heuristics for kernels written in Python (@nereid.jit),
and nereid.Config. They take Triton's arguments and follow its rules: at the first launch
for each value of the key (the key arguments' values and the arrays' dtypes) every config
(after pruning) is compiled and timed on the real arguments, and the fastest is used from
then on; the choice is kept in the cache directory ($NEREID_CACHE_DIR, or ~/.cache/nereid)
under the device, the compiler build, the kernel's source, the configs and the key, so a
later process takes it without timing. NEREID_PRINT_AUTOTUNING=1 prints what was timed and
chosen.

Kernel files compiled with nereid.compile carry their @triton.autotune decorators in the
source; the C runtime tunes those (runtime/autotune.c) with the same rules.
"""
import hashlib
import json
import math
import os
import sys
import time

from . import _nereid
from ._errors import Error


class Config:
    """One configuration: constexpr values (kwargs) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None, ir_override=None):
        self.kwargs = dict(kwargs)
        self.num_warps, self.num_stages, self.num_ctas = num_warps, num_stages, num_ctas
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


def _print_wanted():
    return os.environ.get("NEREID_PRINT_AUTOTUNING") == "1"


def _cache_dir():
    d = os.environ.get("NEREID_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "nereid")
    try:
        os.makedirs(d, exist_ok=True)
        return d
    except OSError:
        return None


def _base_jit(fn):
    while not hasattr(fn, "source") and hasattr(fn, "fn"):
        fn = fn.fn
    return fn


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


class _Timer:
    """Times a callable on the kernel's device: CUDA events when torch drives the GPU, the
    host clock around a synchronisation otherwise."""

    def __init__(self, jit, args):
        self.ctx = _base_jit(jit)._resolve()
        self.torch = None
        args = [getattr(a, "base", a) if hasattr(a, "block_shape") else a for a in args]  # descriptors: their bases
        if self.ctx.kind == "cuda" and any(hasattr(a, "data_ptr") and getattr(a, "is_cuda", False) for a in args):
            self.torch = sys.modules.get("torch")

    def sync(self):
        if self.torch is not None:
            self.torch.cuda.synchronize()
        else:
            self.ctx.synchronize()

    def once(self, fn):
        """Milliseconds of one call of fn."""
        if self.torch is not None:
            start, end = self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end)
        self.sync()
        t0 = time.perf_counter()
        fn()
        self.sync()
        return (time.perf_counter() - t0) * 1e3

    def bench(self, fn, warmup_ms, rep_ms):
        """The median time of fn after warming up, as do_bench measures."""
        est = min(self.once(fn) for _ in range(2))
        est = max(est, 1e-3)
        n_warm = max(1, min(1000, int(warmup_ms / est)))
        n_rep = max(3, min(1000, int(rep_ms / est)))
        if self.ctx.kind == "cpu" and est * n_rep > 4 * rep_ms:
            n_rep = 1  # the interpreter: few, slow launches
        for _ in range(n_warm):
            fn()
        self.sync()
        times = sorted(self.once(fn) for _ in range(n_rep))
        return times[len(times) // 2]


class Heuristics:
    """@nereid.heuristics(values={'NAME': lambda args: ...}): constexprs computed from the
    launch arguments (args holds every argument by name, and the config's values)."""

    def __init__(self, fn, values):
        self.fn = fn
        self.values = dict(values)
        self.arg_names = fn.arg_names
        self.__name__ = getattr(fn, "__name__", "kernel")

    def run(self, *args, **kwargs):
        for name, f in self.values.items():
            kwargs[name] = f({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)


class Autotuner:
    """@nereid.autotune(configs=[...], key=[...], ...)."""

    def __init__(self, fn, configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, warmup=25, rep=100, use_cuda_graph=False, do_bench=None, cache_results=True):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.configs = list(configs) or [Config({})]
        self.keys = list(key)
        unknown = [k for k in self.keys if k not in self.arg_names]
        if unknown:
            raise TypeError(f"autotune key names {unknown}, which are not parameters of {self.__name__}")
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

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    # ---- tuning ----

    def prune_configs(self, nargs, kwargs):
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

    def _pre(self, full):
        if self.user_pre_hook:
            self.user_pre_hook(full)
            return {}
        for name in self.reset_to_zero:
            if full.get(name) is not None:
                _zero(full[name])
        return {name: _clone(full[name]) for name in self.restore_value if full.get(name) is not None}

    def _post(self, full, saved):
        if self.user_post_hook:
            self.user_post_hook(full, exception=None)
        for name, value in saved.items():
            _restore(full[name], value)

    def _bench(self, timer, args, kwargs, grid, config, nargs):
        conflicts = set(kwargs) & set(config.kwargs)
        if conflicts:
            raise ValueError(f"conflicting meta-parameters: {', '.join(sorted(conflicts))} are given at the launch and "
                             "set by the autotune configs")
        full = {**nargs, **kwargs, **config.all_kwargs()}

        def call():
            if config.pre_hook:
                config.pre_hook(full)
            saved = self._pre(full)
            try:
                self.fn.run(*args, grid=grid, **kwargs, **config.all_kwargs())
            finally:
                self._post(full, saved)

        try:
            if self.do_bench is not None:
                r = self.do_bench(call, quantiles=(0.5, 0.2, 0.8))
                return r[0] if isinstance(r, (list, tuple)) else r
            return timer.bench(call, self.warmup_ms, self.rep_ms)
        except (Error, ValueError, TypeError, OverflowError) as e:
            if _print_wanted():
                print(f"  {config}: failed: {e}", flush=True)
            return math.inf

    def _disk_key(self, key, configs, timer):
        jit = _base_jit(self.fn)
        src = jit.source()[0] if hasattr(jit, "source") else ""
        parts = ["nereid python autotune 1", _nereid.version(), _nereid.build_id(), timer.ctx.kind, timer.ctx.device_name,
                 self.__name__, src, repr(key)] + [str(c) for c in configs]
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()

    def _tune(self, key, args, kwargs, grid, nargs):
        configs = self.prune_configs(nargs, kwargs)
        if len(configs) == 1:
            return configs[0]
        timer = _Timer(self.fn, list(nargs.values()) + list(kwargs.values()))
        path = None
        d = _cache_dir() if self.cache_results and not any(c.pre_hook for c in configs) else None
        if d:
            path = os.path.join(d, f"autotune-{self._disk_key(key, configs, timer)[:40]}.json")
            try:
                with open(path) as f:
                    index = json.load(f)["config"]
                chosen = configs[index]
                if _print_wanted():
                    print(f"nereid autotune: kernel {self.__name__}, key {key}: {chosen} (chosen earlier, from the cache)",
                          flush=True)
                return chosen
            except (OSError, ValueError, KeyError, IndexError, TypeError):
                pass
        if _print_wanted():
            print(f"nereid autotune: kernel {self.__name__}, key {key}: timing {len(configs)} of {len(self.configs)} "
                  "configs", flush=True)
        start = time.time()
        timings = {}
        for c in configs:
            timings[c] = self._bench(timer, args, kwargs, grid, c, nargs)
            if _print_wanted() and not math.isinf(timings[c]):
                print(f"  {c}: {timings[c]:.4f} ms", flush=True)
        chosen = min(configs, key=lambda c: timings[c])
        if math.isinf(timings[chosen]):
            raise Error(f"autotuning {self.__name__}: no config could run")
        self.configs_timings = timings
        self.bench_time = time.time() - start
        full = {**nargs, **kwargs, **chosen.all_kwargs()}
        if not self.user_pre_hook:
            for name in self.reset_to_zero:  # zeroed again for the real launch
                if full.get(name) is not None:
                    _zero(full[name])
        if _print_wanted():
            print(f"nereid autotune: kernel {self.__name__}, key {key}: chose {chosen} ({timings[chosen]:.4f} ms) "
                  f"after {self.bench_time:.2f} s", flush=True)
        if path:
            tmp = f"{path}.{os.getpid()}.tmp"
            try:
                with open(tmp, "w") as f:
                    json.dump({"config": configs.index(chosen), "configs": [str(c) for c in configs],
                               "timings_ms": [timings[c] for c in configs], "key": repr(key)}, f)
                os.replace(tmp, path)
            except OSError:
                pass
        return chosen

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
        return [self.fn.run(*args, grid=grid, warmup=True, **kwargs, **c.all_kwargs())
                for c in self.prune_configs(nargs, kwargs)]


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
