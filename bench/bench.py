#!/usr/bin/env python3
"""bench.py - Nereid against Triton and PyTorch on the same tensors, in one run.

    python3 bench/bench.py [--quick] [--small] [--only SUBSTRING] [--lib build-gpu/libnereid.so]
    python3 bench/bench.py --selftest-cpu        (no GPU: checks the ctypes binding only)

Nereid is driven through ctypes on build-gpu/libnereid.so and its C API
(include/nereid.h). Its CUDA context is the device's primary context, the one PyTorch
uses, so torch tensors' data_ptr() are passed as pointer arguments and the kernels run on
PyTorch's current stream. Triton runs the tutorial kernels, written below with
@triton.jit; PyTorch its own ops; a device-to-device copy of the same number of bytes is
the ceiling. Every time is the median of triton.testing.do_bench (which flushes L2 before
each run). Bandwidth = (bytes the work must read + write) / time:

    vector add fp32 2^26                   x, y read, z written            12 bytes/element
    dropout fp32 2^26, p = 0.5, int32 mask x and the mask read, y written  12 bytes/element
    seeded dropout (tl.rand)               x read, y written                8 bytes/element
    seeded dropout, 4 Philox words a call  x read, y written                8 bytes/element
    softmax fp32 4096 x N                  x read, y written                8 bytes/element

and, in a second table, matmuls in TFLOP/s (2*M*N*K / time) against Triton's tutorial
kernel (made dtype-generic) and cuBLAS (torch.matmul; torch._scaled_mm for fp8,
torch._int_mm for int8), the ceiling: fp16 and bf16 at 4096^3 and 8192^3, fp8 e4m3 at
4096^3 and 8192^3, tf32 and int8 at 4096^3, and fp16 at a ragged 4000^3. Nereid runs
examples/matmul.nr as the seed writes it, with only its pointer types changed; both get
the same configuration list (Triton's tutorial's for 16-bit inputs, its fp8 list for
8-bit ones, and for tf32 a list of tiles with 32 K elements that fit shared memory).
Each side's best configuration is found by timing its list; the row then times the three
winners (Nereid, Triton, cuBLAS) again, interleaved, in MM_ROUNDS rounds, and reports each
one's median over the rounds. (Under load the GPU's clock moves with its power cap: on the
H100 of 2026-11-26 it fell from 1980 to 1560 MHz during the 8192^3 rows. Timed one after
the other, the three saw different clocks; interleaved, they share them.)

Nereid's kernels: examples/vector_add.nr, examples/dropout.nr (_dropout, _seeded_dropout),
bench/dropout4x.nr, examples/softmax.nr, examples/matmul.nr; each is timed in a few configurations (block
size, num_warps) and the best is reported, with every configuration in the JSON. The
first call of each Nereid and Triton kernel (compile + load + launch + synchronize, with
empty caches: NEREID_CACHE_DIR and TRITON_CACHE_DIR point at fresh temporary directories,
CUDA_CACHE_DISABLE=1) is recorded too. Outputs are cross-checked (Nereid against Triton
and PyTorch: the dropout masks bit for bit, since both compute Triton's Philox).

Prints a table (work, Nereid GB/s, Triton GB/s, PyTorch GB/s, copy GB/s, Nereid/copy,
Nereid/Triton) and writes JSON to $OUT/bench.json if OUT is set, else ./bench.json. A
kernel that fails to compile or run is reported as "n/a"; the script does not stop.
"""
import argparse
import ctypes
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback

# before CUDA is initialised: cold caches for the first-call times
os.environ.setdefault("CUDA_CACHE_DISABLE", "1")
_NEREID_CACHE = tempfile.mkdtemp(prefix="nereid-bench-cache-")
_TRITON_CACHE = tempfile.mkdtemp(prefix="triton-bench-cache-")
os.environ["NEREID_CACHE_DIR"] = _NEREID_CACHE
os.environ.setdefault("TRITON_CACHE_DIR", _TRITON_CACHE)


def _cleanup():
    shutil.rmtree(_NEREID_CACHE, ignore_errors=True)
    shutil.rmtree(_TRITON_CACHE, ignore_errors=True)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---------------------------------------------------------------------------------------
# The C API through ctypes (include/nereid.h)
# ---------------------------------------------------------------------------------------

NR_DEVICE_CPU, NR_DEVICE_CUDA = 0, 1
(NR_TYPE_PTR, NR_TYPE_I1, NR_TYPE_I8, NR_TYPE_I16, NR_TYPE_I32, NR_TYPE_I64, NR_TYPE_U8, NR_TYPE_U16,
 NR_TYPE_U32, NR_TYPE_U64, NR_TYPE_FP16, NR_TYPE_BF16, NR_TYPE_FP32, NR_TYPE_FP64) = range(14)


class _NrArgValue(ctypes.Union):
    _fields_ = [("i", ctypes.c_int64), ("u", ctypes.c_uint64), ("f", ctypes.c_double)]


class NrArg(ctypes.Structure):
    """nr_arg: {nr_type type; union {int64_t i; uint64_t u; double f;} v;} (16 bytes)"""
    _fields_ = [("type", ctypes.c_int), ("v", _NrArgValue)]


class NrDefine(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class NrCompileOptions(ctypes.Structure):
    _fields_ = [("defines", ctypes.POINTER(NrDefine)), ("num_defines", ctypes.c_int),
                ("kernel", ctypes.c_char_p), ("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int),
                ("maxnreg", ctypes.c_int), ("enable_fp_fusion", ctypes.c_int), ("enable_reflect_ftz", ctypes.c_int),
                ("constexpr_call", ctypes.c_void_p), ("constexpr_user", ctypes.c_void_p), ("debug", ctypes.c_int)]


class NrLaunchOptions(ctypes.Structure):
    _fields_ = [("num_warps", ctypes.c_int), ("stream", ctypes.c_void_p), ("num_stages", ctypes.c_int),
                ("maxnreg", ctypes.c_int), ("enable_fp_fusion", ctypes.c_int), ("enable_reflect_ftz", ctypes.c_int)]


assert ctypes.sizeof(NrArg) == 16


def ptr(p):
    return (NR_TYPE_PTR, int(p))


def i32(x):
    return (NR_TYPE_I32, int(x))


def f32(x):
    return (NR_TYPE_FP32, float(x))


class NereidError(RuntimeError):
    pass


class Nereid:
    """A context of the Nereid C API on one device."""

    def __init__(self, lib_path, device=NR_DEVICE_CUDA):
        self.lib = lib = ctypes.CDLL(lib_path)
        vp, c_int, c_char_p = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
        sigs = {
            "nr_context_create_ex": (c_int, [c_int, c_int, ctypes.POINTER(vp), c_char_p, ctypes.c_size_t]),
            "nr_context_destroy": (None, [vp]),
            "nr_last_error": (c_char_p, [vp]),
            "nr_status_string": (c_char_p, [c_int]),
            "nr_compile_file": (c_int, [vp, c_char_p, ctypes.POINTER(NrCompileOptions), ctypes.POINTER(vp)]),
            "nr_compile_source": (c_int, [vp, c_char_p, ctypes.c_size_t, c_char_p, ctypes.POINTER(NrCompileOptions),
                                          ctypes.POINTER(vp)]),
            "nr_module_destroy": (None, [vp]),
            "nr_module_get_kernel": (c_int, [vp, c_char_p, ctypes.POINTER(vp)]),
            "nr_launch": (c_int, [vp, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(NrArg), c_int,
                                  ctypes.POINTER(NrLaunchOptions)]),
            "nr_synchronize": (c_int, [vp]),
            "nr_malloc": (c_int, [vp, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64)]),
            "nr_free": (c_int, [vp, ctypes.c_uint64]),
            "nr_memcpy_htod": (c_int, [vp, ctypes.c_uint64, vp, ctypes.c_size_t]),
            "nr_memcpy_dtoh": (c_int, [vp, vp, ctypes.c_uint64, ctypes.c_size_t]),
        }
        for name, (res, args) in sigs.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        self.ctx = vp()
        err = ctypes.create_string_buffer(2048)
        s = lib.nr_context_create_ex(device, 0, ctypes.byref(self.ctx), err, len(err))
        if s:
            raise NereidError("nr_context_create_ex: %s: %s" % (self._status(s), err.value.decode(errors="replace")))
        self._keep = []

    def _status(self, s):
        return self.lib.nr_status_string(s).decode()

    def check(self, s, what):
        if s:
            msg = self.lib.nr_last_error(self.ctx)
            raise NereidError("%s: %s: %s" % (what, self._status(s), msg.decode(errors="replace") if msg else ""))

    def kernel(self, path, name, defines, num_warps=0, num_stages=0, source=None):
        """Compile path (relative to the repository root) with constexpr defines; the kernel.
        With source, that text is compiled instead (path names it in diagnostics)."""
        items = [NrDefine(k.encode(), str(v).encode()) for k, v in defines.items()]
        defs = (NrDefine * max(1, len(items)))(*items)
        opts = NrCompileOptions(defs, len(items), name.encode(), num_warps, num_stages)
        mod, k = ctypes.c_void_p(), ctypes.c_void_p()
        if source is None:
            s = self.lib.nr_compile_file(self.ctx, os.path.join(ROOT, path).encode(), ctypes.byref(opts),
                                         ctypes.byref(mod))
        else:
            src = source.encode()
            s = self.lib.nr_compile_source(self.ctx, src, len(src), path.encode(), ctypes.byref(opts),
                                           ctypes.byref(mod))
        self.check(s, "compiling %s" % path)
        self.check(self.lib.nr_module_get_kernel(mod, name.encode(), ctypes.byref(k)), "kernel %s" % name)
        self._keep.append((defs, mod))
        return k

    def launcher(self, kernel, grid, args, num_warps=0, stream=0):
        """A function of no arguments that launches kernel on grid with args ((type, value)
        pairs) on the given CUstream (0: the default stream)."""
        n = len(args)
        arr = (NrArg * max(1, n))()
        for i, (t, v) in enumerate(args):
            arr[i].type = t
            if t in (NR_TYPE_FP16, NR_TYPE_BF16, NR_TYPE_FP32, NR_TYPE_FP64):
                arr[i].v.f = v
            elif t == NR_TYPE_PTR or t >= NR_TYPE_U8:
                arr[i].v.u = v
            else:
                arr[i].v.i = v
        g = (ctypes.c_uint * 3)(*(list(grid) + [1, 1, 1])[:3])
        opts = NrLaunchOptions(num_warps, ctypes.c_void_p(stream or None), 0)
        launch, check = self.lib.nr_launch, self.check
        ref_opts = ctypes.byref(opts)

        def run():
            s = launch(kernel, g, arr, n, ref_opts)
            if s:
                check(s, "nr_launch")
        run._keep = (arr, g, opts)
        return run

    def synchronize(self):
        self.check(self.lib.nr_synchronize(self.ctx), "nr_synchronize")


def default_lib():
    return os.environ.get("NEREID_LIB") or os.path.join(ROOT, "build-gpu", "libnereid.so")


def selftest_cpu(lib_path):
    """Without a GPU: the ctypes binding on the CPU interpreter (vector add of 1000 floats)."""
    import array
    nr = Nereid(lib_path, NR_DEVICE_CPU)
    n = 1000
    x = array.array("f", [i * 0.5 for i in range(n)])
    y = array.array("f", [1000.0 - i for i in range(n)])
    bufs = []
    for host in (x, y, None):
        d = ctypes.c_uint64()
        nr.check(nr.lib.nr_malloc(nr.ctx, 4 * n, ctypes.byref(d)), "nr_malloc")
        if host is not None:
            addr, _ = host.buffer_info()
            nr.check(nr.lib.nr_memcpy_htod(nr.ctx, d.value, addr, 4 * n), "htod")
        bufs.append(d.value)
    k = nr.kernel("examples/vector_add.nr", "add_kernel", {"BLOCK_SIZE": 256})
    nr.launcher(k, (4,), [ptr(bufs[0]), ptr(bufs[1]), ptr(bufs[2]), i32(n)])()
    nr.synchronize()
    z = array.array("f", [0.0] * n)
    nr.check(nr.lib.nr_memcpy_dtoh(nr.ctx, z.buffer_info()[0], bufs[2], 4 * n), "dtoh")
    bad = sum(1 for i in range(n) if z[i] != x[i] + y[i])
    k2 = nr.kernel("examples/dropout.nr", "_dropout", {"BLOCK_SIZE": 256})
    try:  # a wrong argument type must be refused with a message
        nr.launcher(k2, (4,), [ptr(bufs[0]), ptr(bufs[1]), ptr(bufs[2]), i32(n), i32(1)])()
        refused = False
    except NereidError as e:
        refused = "fp32" in str(e)
    print("selftest-cpu: vector add of %d floats on the CPU interpreter: %s; a wrong argument type %s"
          % (n, "ok" if bad == 0 else "%d WRONG" % bad, "refused" if refused else "NOT refused"))
    return 0 if bad == 0 and refused else 1


# ---------------------------------------------------------------------------------------
# Triton's tutorial kernels (defined only when Triton imports)
# ---------------------------------------------------------------------------------------

def define_triton_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        block_start = pid * BLOCK_SIZE
        offsets = block_start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        output = x + y
        tl.store(output_ptr + offsets, output, mask=mask)

    @triton.jit
    def _dropout(x_ptr, x_keep_ptr, output_ptr, n_elements, p, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        block_start = pid * BLOCK_SIZE
        offsets = block_start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        x_keep = tl.load(x_keep_ptr + offsets, mask=mask)
        output = tl.where(x_keep, x / (1 - p), 0.0)
        tl.store(output_ptr + offsets, output, mask=mask)

    @triton.jit
    def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        block_start = pid * BLOCK_SIZE
        offsets = block_start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        random = tl.rand(seed, offsets)
        x_keep = random > p
        output = tl.where(x_keep, x / (1 - p), 0.0)
        tl.store(output_ptr + offsets, output, mask=mask)

    @triton.jit
    def _seeded_dropout4x(x_ptr, output_ptr, n_elements, p, seed, BLOCK: tl.constexpr):
        # the same algorithm as bench/dropout4x.nr
        pid = tl.program_id(axis=0)
        r0, r1, r2, r3 = tl.rand4x(seed, pid * BLOCK + tl.arange(0, BLOCK))
        block_start = pid * (4 * BLOCK)
        o0 = block_start + tl.arange(0, BLOCK)
        o1 = o0 + BLOCK
        o2 = o1 + BLOCK
        o3 = o2 + BLOCK
        m0 = o0 < n_elements
        m1 = o1 < n_elements
        m2 = o2 < n_elements
        m3 = o3 < n_elements
        x0 = tl.load(x_ptr + o0, mask=m0)
        x1 = tl.load(x_ptr + o1, mask=m1)
        x2 = tl.load(x_ptr + o2, mask=m2)
        x3 = tl.load(x_ptr + o3, mask=m3)
        tl.store(output_ptr + o0, tl.where(r0 > p, x0 / (1 - p), 0.0), mask=m0)
        tl.store(output_ptr + o1, tl.where(r1 > p, x1 / (1 - p), 0.0), mask=m1)
        tl.store(output_ptr + o2, tl.where(r2 > p, x2 / (1 - p), 0.0), mask=m2)
        tl.store(output_ptr + o3, tl.where(r3 > p, x3 / (1 - p), 0.0), mask=m3)

    @triton.jit
    def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                       BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
        row_start = tl.program_id(0)
        row_step = tl.num_programs(0)
        for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
            row_start_ptr = input_ptr + row_idx * input_row_stride
            col_offsets = tl.arange(0, BLOCK_SIZE)
            input_ptrs = row_start_ptr + col_offsets
            mask = col_offsets < n_cols
            row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
            row_minus_max = row - tl.max(row, axis=0)
            numerator = tl.exp(row_minus_max)
            denominator = tl.sum(numerator, axis=0)
            softmax_output = numerator / denominator
            output_row_start_ptr = output_ptr + row_idx * output_row_stride
            output_ptrs = output_row_start_ptr + col_offsets
            tl.store(output_ptrs, softmax_output, mask=mask)

    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                      GROUP_SIZE_M: tl.constexpr, ACC: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
        num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=ACC)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator, out_dtype=ACC)
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk
        c = accumulator.to(c_ptr.dtype.element_ty)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)

    return {"add": add_kernel, "dropout": _dropout, "seeded": _seeded_dropout, "seeded4x": _seeded_dropout4x,
            "softmax": softmax_kernel, "matmul": matmul_kernel}


# ---------------------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------------------

def fmt(x, spec="%.0f"):
    return "n/a" if x is None else spec % x


class Bench:
    def __init__(self, args):
        import torch
        self.torch, self.args = torch, args
        try:
            import triton
            import triton.testing
            self.triton = triton
        except Exception as e:  # no Triton: our own timer, every Triton column n/a
            print("triton: cannot import it (%s): Triton columns are n/a" % e)
            self.triton = None
        self.dev = torch.device("cuda", 0)
        torch.cuda.init()
        torch.empty(1, device=self.dev)  # the primary context exists and is current
        self.nr = Nereid(args.lib, NR_DEVICE_CUDA)
        self.tk = {}
        if self.triton:
            try:
                self.tk = define_triton_kernels()
            except Exception as e:  # Triton unusable: every Triton column is n/a
                print("triton: cannot define the kernels: %s" % e)
        self.rows = []
        self.mm_rows = []
        self.first_call = {}
        self.log2n = 16 if args.small else 26        # elements of the elementwise works
        self.n_rows = 64 if args.small else 4096     # rows of the softmax works

    def stream(self):
        return self.torch.cuda.current_stream().cuda_stream

    def _own_bench(self, fn, reps=50):
        """do_bench's method without Triton: L2 flushed before each run, CUDA events."""
        torch = self.torch
        cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device=self.dev)
        times = []
        for i in range(reps + 5):
            cache.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            if i >= 5:
                times.append(start.elapsed_time(end))
        times.sort()
        return times[len(times) // 2]

    def time(self, fn):
        """Median ms of fn over do_bench, or None if it raised."""
        try:
            if self.triton is None:
                return self._own_bench(fn)
            return self.triton.testing.do_bench(fn, return_mode="median")
        except Exception as e:
            print("  (timing failed: %s)" % str(e).splitlines()[0][:200])
            return None

    def first(self, key, fn):
        """Run fn once (compiling it) and record the time with a synchronize; True if it ran."""
        t0 = time.perf_counter()
        try:
            fn()
            self.torch.cuda.synchronize()
        except Exception as e:
            msg = str(e)
            print("  %s: FAILED: %s" % (key, msg[:2000]))
            return False
        self.first_call[key] = (time.perf_counter() - t0) * 1e3
        return True

    def gbps(self, nbytes, ms):
        return None if ms is None or ms <= 0 else nbytes / (ms * 1e-3) / 1e9

    def copy_ceiling(self, nbytes):
        """A device-to-device copy moving nbytes in all (nbytes / 2 read, nbytes / 2 written)."""
        torch = self.torch
        n = nbytes // 2 // 4
        src = torch.empty(n, dtype=torch.float32, device=self.dev).normal_()
        dst = torch.empty_like(src)
        ms = self.time(lambda: dst.copy_(src))
        del src, dst
        return self.gbps(nbytes, ms)

    def nereid_best(self, name, configs, make):
        """configs: list of dicts; make(cfg) -> launcher. Times each; returns (best ms, best
        cfg, all results, the best launcher)."""
        results, fns = [], []
        for cfg in configs:
            key = "nereid %s %s" % (name, " ".join("%s=%s" % kv for kv in cfg.items()))
            t0 = time.perf_counter()
            try:
                fn = make(cfg)
            except Exception as e:
                print("  %s: FAILED: %s" % (key, str(e)[:2000]))
                continue
            if not self.first(key, fn):
                continue
            self.first_call[key] = (time.perf_counter() - t0) * 1e3  # front end + GPU compile + JIT + run
            ms = self.time(fn)
            if ms is not None:
                results.append({"config": cfg, "ms": ms})
                fns.append(fn)
        if not results:
            return None, None, results, None
        i = min(range(len(results)), key=lambda j: results[j]["ms"])
        return results[i]["ms"], results[i]["config"], results, fns[i]

    MM_ROUNDS = 5

    def interleaved(self, fns):
        """Median ms of each fn (None: skipped) over MM_ROUNDS rounds that time them in turn."""
        times = [[] for _ in fns]
        for _ in range(self.MM_ROUNDS):
            for i, fn in enumerate(fns):
                t = self.time(fn) if fn is not None else None
                if t is not None:
                    times[i].append(t)
        return [sorted(t)[len(t) // 2] if t else None for t in times]

    def triton_run(self, key, fn):
        if not self.tk:
            return None
        if not self.first("triton " + key, fn):
            return None
        return self.time(fn)

    def add_row(self, work, nbytes, nereid_ms, nereid_cfg, nereid_all, triton_ms, torch_ms, check, extra=None):
        copy = self.copy_ceiling(nbytes)
        row = {
            "work": work, "bytes": nbytes,
            "nereid_ms": nereid_ms, "nereid_gbps": self.gbps(nbytes, nereid_ms), "nereid_config": nereid_cfg,
            "nereid_configs": [dict(r, gbps=self.gbps(nbytes, r["ms"])) for r in nereid_all],
            "triton_ms": triton_ms, "triton_gbps": self.gbps(nbytes, triton_ms),
            "torch_ms": torch_ms, "torch_gbps": self.gbps(nbytes, torch_ms),
            "copy_gbps": copy, "check": check,
        }
        if extra:
            row.update(extra)
        self.rows.append(row)
        print("  %-44s nereid %s GB/s (%s), triton %s, torch %s, copy %s, check: %s"
              % (work, fmt(row["nereid_gbps"]), nereid_cfg, fmt(row["triton_gbps"]), fmt(row["torch_gbps"]),
                 fmt(copy), check))

    def vs(self, out, ref, name):
        """How a dropout output compares with another's: the keep masks bit for bit, then
        the values (fp32 `/` is div.full.f32 on the GPU in Nereid and Triton: 2 ulp)."""
        torch = self.torch
        if not torch.equal(out != 0, ref != 0):
            return "MASK differs from %s's" % name
        if torch.equal(out, ref):
            return "=%s (bit-exact)" % name
        err = ((out - ref).abs() / ref.abs().clamp_min(1e-30)).max().item()
        return "mask =%s, values within %.1e%s" % (name, err, "" if err <= 2.4e-7 else " (MORE than 2 ulp)")

    def vs_triton(self, out, tout):
        return self.vs(out, tout, "triton")

    def want(self, work):
        return not self.args.only or self.args.only in work

    # ---- the works ----

    def vector_add(self):
        torch, nr = self.torch, self.nr
        work = "vector add fp32 2^%d" % self.log2n
        if not self.want(work):
            return
        n = 1 << self.log2n
        x = torch.rand(n, device=self.dev)
        y = torch.rand(n, device=self.dev)
        z = torch.empty_like(x)
        configs = [{"BLOCK_SIZE": 1024, "num_warps": 4}] if self.args.quick else [
            {"BLOCK_SIZE": 1024, "num_warps": 4}, {"BLOCK_SIZE": 2048, "num_warps": 4},
            {"BLOCK_SIZE": 4096, "num_warps": 8}, {"BLOCK_SIZE": 2048, "num_warps": 8}]

        def make(cfg):
            k = nr.kernel("examples/vector_add.nr", "add_kernel", {"BLOCK_SIZE": cfg["BLOCK_SIZE"]}, cfg["num_warps"])
            return nr.launcher(k, ((n + cfg["BLOCK_SIZE"] - 1) // cfg["BLOCK_SIZE"],),
                               [ptr(x.data_ptr()), ptr(y.data_ptr()), ptr(z.data_ptr()), i32(n)],
                               stream=self.stream())
        ms, cfg, allr, best = self.nereid_best("add_kernel", configs, make)
        check = "n/a"
        if ms is not None:
            best()
            check = "ok" if torch.equal(z, x + y) else "MISMATCH vs x + y"
        tz = torch.empty_like(x)
        tms = None
        if self.tk:
            tms = self.triton_run("add_kernel", lambda: self.tk["add"][(triton_cdiv(n, 1024),)](
                x, y, tz, n, BLOCK_SIZE=1024))
        out = torch.empty_like(x)
        pms = self.time(lambda: torch.add(x, y, out=out))
        self.add_row(work, 12 * n, ms, cfg, allr, tms, pms, check)

    def dropout(self):
        torch, nr = self.torch, self.nr
        work = "dropout fp32 2^%d p=0.5, int32 mask" % self.log2n
        if not self.want(work):
            return
        n, p = 1 << self.log2n, 0.5
        x = torch.randn(n, device=self.dev)
        keep = (torch.rand(n, device=self.dev) > p).to(torch.int32)
        out = torch.empty_like(x)
        configs = [{"BLOCK_SIZE": 1024, "num_warps": 4}] if self.args.quick else [
            {"BLOCK_SIZE": 1024, "num_warps": 4}, {"BLOCK_SIZE": 2048, "num_warps": 4},
            {"BLOCK_SIZE": 4096, "num_warps": 8}]

        def make(cfg):
            k = nr.kernel("examples/dropout.nr", "_dropout", {"BLOCK_SIZE": cfg["BLOCK_SIZE"]}, cfg["num_warps"])
            return nr.launcher(k, ((n + cfg["BLOCK_SIZE"] - 1) // cfg["BLOCK_SIZE"],),
                               [ptr(x.data_ptr()), ptr(keep.data_ptr()), ptr(out.data_ptr()), i32(n), f32(p)],
                               stream=self.stream())
        ms, cfg, allr, best = self.nereid_best("_dropout", configs, make)
        tout = torch.empty_like(x)
        tms = None
        if self.tk:
            tms = self.triton_run("_dropout", lambda: self.tk["dropout"][(triton_cdiv(n, 1024),)](
                x, keep, tout, n, p, BLOCK_SIZE=1024))
        pms = self.time(lambda: x * keep / (1 - p))
        check = "n/a"
        if ms is not None:
            best()
            ref = torch.where(keep != 0, x / (1 - p), torch.zeros_like(x))
            check = self.vs(out, ref, "torch")
            if tms is not None:
                check += ", " + self.vs_triton(out, tout)
        self.add_row(work, 12 * n, ms, cfg, allr, tms, pms, check)

    def seeded_dropout(self):
        torch, nr = self.torch, self.nr
        work = "seeded dropout fp32 2^%d p=0.5 (tl.rand)" % self.log2n
        if not self.want(work):
            return
        n, p, seed = 1 << self.log2n, 0.5, 123
        x = torch.randn(n, device=self.dev)
        out = torch.empty_like(x)
        configs = [{"BLOCK_SIZE": 1024, "num_warps": 4}] if self.args.quick else [
            {"BLOCK_SIZE": 1024, "num_warps": 4}, {"BLOCK_SIZE": 512, "num_warps": 4},
            {"BLOCK_SIZE": 1024, "num_warps": 8}, {"BLOCK_SIZE": 2048, "num_warps": 8}]

        def make(cfg):
            k = nr.kernel("examples/dropout.nr", "_seeded_dropout", {"BLOCK_SIZE": cfg["BLOCK_SIZE"]},
                          cfg["num_warps"])
            return nr.launcher(k, ((n + cfg["BLOCK_SIZE"] - 1) // cfg["BLOCK_SIZE"],),
                               [ptr(x.data_ptr()), ptr(out.data_ptr()), i32(n), f32(p), i32(seed)],
                               stream=self.stream())
        ms, cfg, allr, best = self.nereid_best("_seeded_dropout", configs, make)
        tout = torch.empty_like(x)
        tms = None
        if self.tk:
            tms = self.triton_run("_seeded_dropout", lambda: self.tk["seeded"][(triton_cdiv(n, 1024),)](
                x, tout, n, p, seed, BLOCK_SIZE=1024))
        pms = self.time(lambda: torch.nn.functional.dropout(x, p=p, training=True))
        check = "n/a"
        if ms is not None:
            best()
            kept = (out != 0).float().mean().item()
            check = "keep rate %.4f" % kept
            if tms is not None:
                check += ", " + self.vs_triton(out, tout)
        self.add_row(work, 8 * n, ms, cfg, allr, tms, pms, check)

    def seeded_dropout4x(self):
        torch, nr = self.torch, self.nr
        work = "seeded dropout fp32 2^%d p=0.5 (4 words/call)" % self.log2n
        if not self.want(work):
            return
        n, p, seed = 1 << self.log2n, 0.5, 123
        x = torch.randn(n, device=self.dev)
        out = torch.empty_like(x)
        configs = [{"BLOCK": 256, "num_warps": 4}] if self.args.quick else [
            {"BLOCK": 256, "num_warps": 4}, {"BLOCK": 512, "num_warps": 4}, {"BLOCK": 1024, "num_warps": 4},
            {"BLOCK": 1024, "num_warps": 8}, {"BLOCK": 128, "num_warps": 4}]

        def make(cfg):
            k = nr.kernel("bench/dropout4x.nr", "_seeded_dropout4x", {"BLOCK": cfg["BLOCK"]}, cfg["num_warps"])
            return nr.launcher(k, ((n + 4 * cfg["BLOCK"] - 1) // (4 * cfg["BLOCK"]),),
                               [ptr(x.data_ptr()), ptr(out.data_ptr()), i32(n), f32(p), i32(seed)],
                               stream=self.stream())
        ms, cfg, allr, best = self.nereid_best("_seeded_dropout4x", configs, make)
        tout = torch.empty_like(x)
        tms = None
        tblock = cfg["BLOCK"] if cfg else 256
        if self.tk:
            tms = self.triton_run("_seeded_dropout4x", lambda: self.tk["seeded4x"][(triton_cdiv(n, 4 * tblock),)](
                x, tout, n, p, seed, BLOCK=tblock))
        pms = self.time(lambda: torch.nn.functional.dropout(x, p=p, training=True))
        check = "n/a"
        if ms is not None:
            best()
            kept = (out != 0).float().mean().item()
            check = "keep rate %.4f" % kept
            if tms is not None:
                check += ", " + self.vs_triton(out, tout).replace("triton", "triton 4x")
        self.add_row(work, 8 * n, ms, cfg, allr, tms, pms, check,
                     {"note": "Triton column: the same 4-words-per-call kernel in Triton; "
                              "PyTorch column: torch.nn.functional.dropout"})

    def softmax(self, n_cols):
        torch, nr, triton = self.torch, self.nr, self.triton
        n_rows = self.n_rows
        work = "softmax fp32 %dx%d" % (n_rows, n_cols)
        if not self.want(work):
            return
        x = torch.randn(n_rows, n_cols, device=self.dev)
        y = torch.empty_like(x)
        block = 1 << (n_cols - 1).bit_length()
        warps = [4, 8, 16] + ([32] if n_cols >= 8192 else [])
        if self.args.quick:
            warps = [4 if n_cols < 2048 else 8 if n_cols < 16384 else 16]
        configs = [{"BLOCK_SIZE": block, "num_warps": w, "grid": n_rows} for w in warps]

        def make(cfg):
            k = nr.kernel("examples/softmax.nr", "softmax_kernel", {"BLOCK_SIZE": cfg["BLOCK_SIZE"], "num_stages": 1},
                          cfg["num_warps"])
            return nr.launcher(k, (cfg["grid"],), [ptr(y.data_ptr()), ptr(x.data_ptr()), i32(x.stride(0)),
                                                   i32(y.stride(0)), i32(n_rows), i32(n_cols)],
                               stream=self.stream())
        ms, cfg, allr, best = self.nereid_best("softmax_kernel", configs, make)
        ty = torch.empty_like(x)
        tms, tinfo = None, None
        if self.tk:
            try:
                launch, tinfo = self.triton_softmax_launcher(x, ty)
                tms = self.triton_run("softmax_kernel %d" % n_cols, launch)
            except Exception as e:
                print("  triton softmax: FAILED: %s" % str(e)[:2000])
        pms = self.time(lambda: torch.softmax(x, dim=-1))
        check = "n/a"
        if ms is not None:
            best()
            ref = torch.softmax(x, dim=-1)
            err = (y - ref).abs().max().item()
            check = ("ok" if err <= 1e-6 else "MISMATCH") + " (max |err| vs torch %.1e)" % err
        self.add_row(work, 2 * 4 * n_rows * n_cols, ms, cfg, allr, tms, pms, check, {"triton_config": tinfo})

    def triton_softmax_launcher(self, x, y):
        """The tutorial's host code: a persistent grid sized by occupancy (from the compiled
        kernel's registers and shared memory); the plain one-row-per-program grid if that
        API is not there."""
        triton, k = self.triton, self.tk["softmax"]
        n_rows, n_cols = x.shape
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        num_warps = 8
        try:
            from triton.runtime import driver
            props = driver.active.utils.get_device_properties(x.device.index)
            NUM_SM, NUM_REGS = props["multiprocessor_count"], props["max_num_regs"]
            SIZE_SMEM, WARP_SIZE = props["max_shared_mem"], props["warpSize"]
            num_stages = 4 if SIZE_SMEM > 200000 else 2
            kernel = k.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                              num_stages=num_stages, num_warps=num_warps, grid=(1,))
            kernel._init_handles()
            n_regs, size_smem = kernel.n_regs, kernel.metadata.shared
            occupancy = NUM_REGS // max(1, n_regs * WARP_SIZE * num_warps)
            if size_smem:
                occupancy = min(occupancy, SIZE_SMEM // size_smem)
            num_programs = min(max(1, NUM_SM * occupancy), n_rows)
            args = (y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages)

            def launch():
                kernel[(num_programs, 1, 1)](*args)
            return launch, {"grid": num_programs, "num_warps": num_warps, "num_stages": num_stages,
                            "BLOCK_SIZE": BLOCK_SIZE, "persistent": True}
        except Exception as e:
            print("  triton softmax: tutorial host code failed (%s); one row per program instead" % str(e)[:200])

            def launch():
                k[(n_rows,)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE, num_stages=2,
                             num_warps=num_warps)
            return launch, {"grid": n_rows, "num_warps": num_warps, "BLOCK_SIZE": BLOCK_SIZE, "persistent": False}

    # The matmul rows: (label, Nereid's input pointer type, output type, torch input dtype,
    # size M = N = K). Nereid runs examples/matmul.nr as the seed writes it, with only its
    # pointer types (and for int8 the accumulator's and other's types) changed; Triton runs
    # its tutorial kernel, made dtype-generic the same way; both get the same configs.
    MM_ROWS = (("fp16", "fp16", "fp16", 4096), ("fp16", "fp16", "fp16", 8192),
               ("bf16", "bf16", "bf16", 4096), ("bf16", "bf16", "bf16", 8192),
               ("fp8e4nv", "fp8e4nv", "fp16", 4096), ("fp8e4nv", "fp8e4nv", "fp16", 8192),
               ("tf32", "fp32", "fp32", 4096), ("int8", "i8", "i32", 4096),
               ("fp16", "fp16", "fp16", 4000))
    # Triton's matmul tutorial's CUDA configs (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages) for
    # 16-bit inputs, and its list for 8-bit inputs (fp8; int8 takes it too)
    MM_TILES16 = ((128, 256, 64, 8, 3), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                  (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 2, 5), (128, 128, 64, 8, 3),
                  (128, 128, 64, 4, 4))
    # the one the 16-bit rows pick, for Nereid and Triton alike (bench/RESULTS.md): the
    # configuration matmul_power.py, matmul_ragged.py and matmul_profile.py run
    MM_PICK16 = MM_TILES16[0]
    # for fp32 inputs (tf32) the 16-bit list's tiles mostly overflow shared memory: tiles
    # with 32 K elements (128-byte rows) and 3-4 stages, the same list for Triton
    MM_TILES32 = ((128, 256, 32, 8, 3), (256, 128, 32, 8, 3), (128, 128, 32, 8, 3), (128, 128, 32, 4, 4),
                  (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 128, 16, 8, 4))
    MM_TILES8 = ((128, 256, 128, 8, 3), (256, 128, 128, 8, 3), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
                 (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 4))

    @staticmethod
    def matmul_source(tin, tout):
        """examples/matmul.nr with its pointer types set to tin (A, B) and tout (C)."""
        with open(os.path.join(ROOT, "examples", "matmul.nr")) as f:
            src = f.read()
        subs = [("a_ptr: *fp16, b_ptr: *fp16, c_ptr: *fp16", "a_ptr: *%s, b_ptr: *%s, c_ptr: *%s" % (tin, tin, tout)),
                ("c = accumulator.to(tl.float16)", "c = accumulator.to(tl.%s)" % {
                    "fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "i32": "int32"}[tout])]
        if tin == "i8":
            subs += [("dtype=tl.float32)", "dtype=tl.int32)"), ("other=0.0)", "other=0)")]
        for old, new in subs:
            assert old in src, "examples/matmul.nr changed shape: %r not found" % old
            src = src.replace(old, new)
        return src

    def matmul(self, label, tin, tout, n):
        torch, nr = self.torch, self.nr
        if self.args.small:
            n = 512 if n % 512 == 0 else 500
        work = "matmul %s %d^3" % (label, n)
        if not self.want(work):
            return
        torch.manual_seed(n)
        gen = lambda: torch.randn(n, n, device=self.dev, dtype=torch.float32)
        ref_fn, check_tol, b_t = None, 1e-2, False
        if label in ("fp16", "bf16"):
            dt = torch.float16 if label == "fp16" else torch.bfloat16
            a, b = gen().to(dt), gen().to(dt)
            c = torch.empty(n, n, device=self.dev, dtype=dt)
            ref_fn = lambda: torch.matmul(a, b)
        elif label == "tf32":
            torch.backends.cuda.matmul.allow_tf32 = True
            a, b = gen(), gen()
            c = torch.empty(n, n, device=self.dev, dtype=torch.float32)
            ref_fn = lambda: torch.matmul(a, b)
        elif label == "int8":
            a = torch.randint(-128, 128, (n, n), device=self.dev, dtype=torch.int8)
            # B column-major (K contiguous), as torch._int_mm and the 8-bit tensor cores want it
            b = torch.randint(-128, 128, (n, n), device=self.dev, dtype=torch.int8).t().contiguous().t()
            c = torch.empty(n, n, device=self.dev, dtype=torch.int32)
            ref_fn, check_tol = (lambda: torch._int_mm(a, b)), 0.0
        else:  # fp8 e4m3: B column-major, as torch._scaled_mm and wgmma's 8-bit operands want it
            a = gen().to(torch.float8_e4m3fn)
            b = gen().to(torch.float8_e4m3fn).t().contiguous().t()
            c = torch.empty(n, n, device=self.dev, dtype=torch.float16)
            one = torch.ones((), device=self.dev, dtype=torch.float32)
            ref_fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)
        flop = 2.0 * n * n * n
        tiles = self.MM_TILES8 if tin in ("fp8e4nv", "i8") else self.MM_TILES32 if tin == "fp32" else self.MM_TILES16
        configs = [{"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "num_warps": w, "num_stages": st}
                   for bm, bn, bk, w, st in tiles]
        if self.args.quick:
            configs = configs[:1]
        src = self.matmul_source(tin, tout)
        strides = [a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)]

        def make(cfg):
            d = {k: v for k, v in cfg.items() if k not in ("num_warps", "num_stages")}
            d.update({"GROUP_SIZE_M": 8, "ACTIVATION": ""})
            k = nr.kernel("examples/matmul.nr", "matmul_kernel", d, cfg["num_warps"], cfg["num_stages"], source=src)
            grid = triton_cdiv(n, cfg["BLOCK_SIZE_M"]) * triton_cdiv(n, cfg["BLOCK_SIZE_N"])
            return nr.launcher(k, (grid,), [ptr(a.data_ptr()), ptr(b.data_ptr()), ptr(c.data_ptr()), i32(n), i32(n),
                                            i32(n)] + [i32(x) for x in strides], stream=self.stream())
        ms, cfg, allr, best = self.nereid_best("matmul_kernel " + label, configs, make)
        ref = ref_fn()

        def err_of(out):
            if check_tol == 0.0:
                return (out != ref).sum().item()
            return ((out.float() - ref.float()).norm() / ref.float().norm()).item()

        def verdict(e):
            if check_tol == 0.0:
                return ("ok" if e == 0 else "MISMATCH") + " (%d elements differ from torch)" % e
            return ("ok" if e <= check_tol else "MISMATCH") + " (|c - torch| / |torch| = %.1e)" % e
        check = "n/a"
        if ms is not None:
            c.fill_(0)
            best()
            torch.cuda.synchronize()
            check = verdict(err_of(c))
        tms, tcfg, tcheck, tbest = None, None, "n/a", None
        if self.tk:
            tc = torch.empty_like(c)
            acc = self.triton.language.int32 if tin == "i8" else self.triton.language.float32
            for bm, bn, bk, w, st in tiles:
                def launch(bm=bm, bn=bn, bk=bk, w=w, st=st):
                    grid = (triton_cdiv(n, bm) * triton_cdiv(n, bn),)
                    self.tk["matmul"][grid](a, b, tc, n, n, n, *strides, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                            BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, ACC=acc, num_warps=w, num_stages=st)
                t = self.triton_run("matmul_kernel %s %dx%dx%d w%d s%d" % (label, bm, bn, bk, w, st), launch)
                if t is not None and (tms is None or t < tms):
                    tms, tcfg, tbest = t, {"BLOCK": [bm, bn, bk], "num_warps": w, "num_stages": st}, launch
            if tms is not None:
                tcheck = verdict(err_of(tc))
        search = {"nereid_ms": ms, "triton_ms": tms}
        ms, tms, pms = self.interleaved([best if ms is not None else None, tbest, ref_fn])
        tf = lambda t: None if t is None or t <= 0 else flop / (t * 1e-3) / 1e12
        row = {"work": work, "flop": flop, "nereid_ms": ms, "nereid_tflops": tf(ms), "nereid_config": cfg,
               "search_ms": search, "rounds": self.MM_ROUNDS,
               "nereid_configs": [dict(r, tflops=tf(r["ms"])) for r in allr],
               "triton_ms": tms, "triton_tflops": tf(tms), "triton_config": tcfg, "triton_check": tcheck,
               "cublas_ms": pms, "cublas_tflops": tf(pms), "check": check,
               "cublas_op": {"fp8e4nv": "torch._scaled_mm", "int8": "torch._int_mm"}.get(label, "torch.matmul")}
        self.mm_rows.append(row)
        print("  %-44s nereid %s TFLOP/s (%s), triton %s (%s), cuBLAS %s, check: %s"
              % (work, fmt(row["nereid_tflops"], "%.1f"), cfg, fmt(row["triton_tflops"], "%.1f"), tcfg,
                 fmt(row["cublas_tflops"], "%.1f"), check))
        del a, b, c
        torch.cuda.empty_cache()

    def run(self):
        t0 = time.time()
        self.vector_add()
        self.dropout()
        self.seeded_dropout()
        self.seeded_dropout4x()
        for n_cols in (1024, 4096, 16384):
            self.softmax(n_cols)
        for label, tin, tout, n in self.MM_ROWS:
            self.matmul(label, tin, tout, n)
        return time.time() - t0


def triton_cdiv(a, b):
    return (a + b - 1) // b


def print_table(rows):
    hdr = ("work", "Nereid GB/s", "Triton GB/s", "PyTorch GB/s", "copy GB/s", "Nereid/copy", "Nereid/Triton")
    print("\n%-46s %11s %11s %12s %10s %11s %13s" % hdr)
    for r in rows:
        nc = r["nereid_gbps"] / r["copy_gbps"] if r["nereid_gbps"] and r["copy_gbps"] else None
        nt = r["nereid_gbps"] / r["triton_gbps"] if r["nereid_gbps"] and r["triton_gbps"] else None
        print("%-46s %11s %11s %12s %10s %11s %13s" % (
            r["work"], fmt(r["nereid_gbps"]), fmt(r["triton_gbps"]), fmt(r["torch_gbps"]), fmt(r["copy_gbps"]),
            fmt(nc, "%.2f"), fmt(nt, "%.2f")))


def print_mm_table(rows):
    if not rows:
        return
    hdr = ("work", "Nereid TFLOP/s", "Triton TFLOP/s", "cuBLAS TFLOP/s", "Nereid/cuBLAS", "Nereid/Triton")
    print("\n%-46s %14s %14s %14s %13s %13s" % hdr)
    for r in rows:
        nc = r["nereid_tflops"] / r["cublas_tflops"] if r["nereid_tflops"] and r["cublas_tflops"] else None
        nt = r["nereid_tflops"] / r["triton_tflops"] if r["nereid_tflops"] and r["triton_tflops"] else None
        print("%-46s %14s %14s %14s %13s %13s" % (
            r["work"], fmt(r["nereid_tflops"], "%.1f"), fmt(r["triton_tflops"], "%.1f"),
            fmt(r["cublas_tflops"], "%.1f"), fmt(nc, "%.3f"), fmt(nt, "%.3f")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", default=default_lib(), help="libnereid.so (default: build-gpu/libnereid.so)")
    ap.add_argument("--quick", action="store_true", help="one Nereid configuration per work")
    ap.add_argument("--only", default=None, help="only the works whose name contains this")
    ap.add_argument("--small", action="store_true", help="2^16 elements and 64 softmax rows: a quick sanity run")
    ap.add_argument("--selftest-cpu", action="store_true", help="check the ctypes binding on the CPU interpreter")
    args = ap.parse_args()
    if args.selftest_cpu:
        return selftest_cpu(args.lib)
    try:
        import torch
    except Exception as e:
        print("bench.py: PyTorch is needed (%s)" % e)
        return 1
    if not torch.cuda.is_available():
        print("SKIP: bench.py: no CUDA device")
        return 0
    b = Bench(args)
    info = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__, "triton": getattr(b.triton, "__version__", "?"),
        "python": platform.python_version(), "lib": args.lib,
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
    }
    print("bench.py: %s, torch %s, triton %s, %s" % (info["gpu"], info["torch"], info["triton"], info["date"]))
    elapsed = b.run()
    print_table(b.rows)
    print_mm_table(b.mm_rows)
    print("\nfirst call (compile + load + launch + synchronize, empty caches), ms:")
    for k, v in sorted(b.first_call.items()):
        print("  %-70s %9.1f" % (k, v))
    print("(elapsed %.1f s)" % elapsed)
    out_dir = os.environ.get("OUT")
    path = os.path.join(out_dir, "bench.json") if out_dir else "bench.json"
    with open(path, "w") as f:
        json.dump({"info": info, "rows": b.rows, "matmul_rows": b.mm_rows, "first_call_ms": b.first_call,
                   "elapsed_s": elapsed}, f, indent=2)
    print("wrote %s" % path)
    import plot  # bench/plot.py: the tables as a PNG next to the JSON
    plot.plot_file(path)
    return 0


if __name__ == "__main__":
    import atexit
    atexit.register(_cleanup)
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except Exception:
        traceback.print_exc()
        sys.exit(1)
