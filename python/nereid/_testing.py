"""triton.testing's benchmark decorator and device figures where Triton is not installed
(nereid.dropin's stand-in): `@triton.testing.perf_report(triton.testing.Benchmark(...))`
over a function of the x and line arguments, and the decorated object's
`run(print_data=, save_path=, ...)`, as Triton's tutorials and libraries' benchmark scripts
write them. It calls the function for every x value and line value, as Triton's Mark.run
does, and prints (print_data) or saves (save_path: NAME.csv) the table; it draws no plot
(show_plots is accepted and ignored: Triton's draws with matplotlib).

get_dram_gbps, get_max_tensorcore_tflops and get_max_simd_tflops give the peak figures
libraries' matmul performance models divide by (Triton's formulas: the memory clock times
the bus width, double data rate; four sub-cores per multiprocessor times the clock times
the operations a sub-core does per cycle for the type), from driver.active's properties:
the GPU's through torch, or on the CPU interpreter the sm_90 GPU it answers as
(nereid._driver). nvsmi queries nvidia-smi, as Triton's does."""
import csv
import os
import subprocess

from . import _driver, _jit


class Benchmark:
    """Triton's triton.testing.Benchmark: what to sweep and how to name it."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None, color=None):
        self.x_names, self.x_vals = list(x_names), list(x_vals)
        self.line_arg, self.line_vals, self.line_names = line_arg, list(line_vals), list(line_names)
        self.plot_name, self.args = plot_name, dict(args)
        self.xlabel, self.ylabel, self.x_log, self.y_log = xlabel, ylabel, x_log, y_log
        self.styles, self.color = styles, color


class Mark:
    """What perf_report makes of the function: `run` sweeps its benchmarks."""

    def __init__(self, fn, benchmarks):
        self.fn, self.benchmarks = fn, benchmarks

    def _table(self, bench, **kwargs):
        header = [*bench.x_names]
        for name in bench.line_names:
            header += [name, f"{name}-min", f"{name}-max"]
        rows = []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            x_args = dict(zip(bench.x_names, xs))
            row = list(xs)
            for y in bench.line_vals:
                ret = self.fn(**x_args, **{bench.line_arg: y}, **bench.args, **kwargs)
                mid, lo, hi = (tuple(ret) + (None, None))[:3] if isinstance(ret, (list, tuple)) else (ret, None, None)
                row += [mid, lo, hi]
            rows.append(row)
        return header, rows

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        del show_plots  # no plots here
        benches = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        tables = []
        for bench in benches:
            header, rows = self._table(bench, **kwargs)
            keep = [i for i, h in enumerate(header) if not h.endswith(("-min", "-max")) or
                    any(r[i] is not None for r in rows)]
            header, rows = [header[i] for i in keep], [[r[i] for i in keep] for r in rows]
            if print_data:
                print(bench.plot_name + ":")
                print("  ".join(f"{h:>12}" for h in header))
                for r in rows:
                    print("  ".join(f"{v:>12.6g}" if isinstance(v, float) else f"{v!s:>12}" for v in r))
            if save_path:
                os.makedirs(save_path, exist_ok=True)
                with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(header)
                    w.writerows(rows)
            tables.append((header, rows))
        if return_df:
            try:
                import pandas
            except ImportError:
                return tables if len(tables) > 1 else tables[0]
            dfs = [pandas.DataFrame(rows, columns=header) for header, rows in tables]
            return dfs if len(dfs) > 1 else dfs[0]
        return None


def perf_report(benchmarks):
    """Triton's decorator: the function becomes a Mark whose run() sweeps the benchmarks."""
    return lambda fn: Mark(fn, benchmarks)


def nvsmi(attrs):
    """nvidia-smi's integer values of attrs (e.g. ["clocks.max.sm"]) for GPU 0."""
    out = subprocess.check_output(["nvidia-smi", "-i", "0", "--query-gpu=" + ",".join(attrs),
                                   "--format=csv,noheader,nounits"], text=True)
    return [int(v) for v in out.strip().split(",")]


def _device(device):
    return _driver.driver.active.get_current_device() if device is None else device


def _capability_major(device):
    torch = _driver._cuda_torch()
    return torch.cuda.get_device_capability(device)[0] if torch is not None else _driver.CPU_CAPABILITY[0]


def _type_name(dtype):
    """A torch or Triton dtype in Nereid's spelling ('fp32', 'bf16', 'i8', 'fp8e4nv', ...),
    through the JIT's table of Triton's and torch's names."""
    name = getattr(dtype, "name", None) if not type(dtype).__module__.startswith("torch") else None
    text = name or str(dtype).replace("torch.", "")
    return _jit._ALIASES.get(text, text)


def get_dram_gbps(device=None):
    """The device's DRAM bandwidth in GB/s: memory clock (kHz) x bus width (bits) x 2 / 8."""
    p = _driver.driver.active.utils.get_device_properties(_device(device))
    return p["mem_clock_rate"] * p["mem_bus_width"] * 2 / 1e6 / 8


def _peak_tflops(per_sub_core, clock_rate, device):
    sms = _driver.driver.active.utils.get_device_properties(_device(device))["multiprocessor_count"]
    return sms * 4 * clock_rate * per_sub_core * 1e-9


def get_max_tensorcore_tflops(dtype, clock_rate, device=None):
    """Peak tensor-core TFLOP/s at clock_rate (kHz): before sm_80 fp16 only (256 operations
    per sub-core and cycle), from sm_80 on 256 for 32-bit types (tf32), 512 for 16-bit ones,
    1024 for 8-bit ones (int8 and the fp8 types)."""
    t = _type_name(dtype)
    if _capability_major(_device(device)) < 8:
        if t != "fp16":
            raise RuntimeError("dtype not supported")
        ops = 256
    elif t in ("fp32", "i32"):
        ops = 256
    elif t in ("fp16", "bf16", "i16"):
        ops = 512
    elif t in ("i8", "fp8e4nv", "fp8e4b15", "fp8e5"):
        ops = 1024
    else:
        raise RuntimeError("dtype not supported")
    return _peak_tflops(ops, clock_rate, device)


def get_max_simd_tflops(dtype, clock_rate, device=None):
    """Peak CUDA-core TFLOP/s at clock_rate (kHz): 32 fp32 operations per sub-core and
    cycle, 64 for fp16 (and from sm_80 bf16)."""
    t = _type_name(dtype)
    if t == "fp32":
        ops = 32
    elif t == "fp16" or (t == "bf16" and _capability_major(_device(device)) >= 8):
        ops = 64
    else:
        raise RuntimeError("dtype not supported")
    return _peak_tflops(ops, clock_rate, device)


def _as_numpy(v):
    """A torch tensor (bf16 widened to fp32, as Triton's), a NumPy array, a list or a number
    as a NumPy array."""
    import numpy as np
    if type(v).__module__.startswith("torch"):
        if str(getattr(v, "dtype", "")) == "torch.bfloat16":
            v = v.float()
        v = v.detach().cpu().numpy()
    return np.asarray(v)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Triton's check: |x - y| <= atol + rtol * |y| elementwise, NaNs equal where both are;
    atol 1e-2 and rtol 0 by default, either a function of x's dtype too. Takes torch tensors
    (without torch: NumPy arrays, lists, numbers)."""
    import numpy as np
    dtype = getattr(x, "dtype", None)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(dtype) if callable(atol) else atol
    rtol = rtol(dtype) if callable(rtol) else rtol
    a, b = _as_numpy(x), _as_numpy(y)
    if a.size > 1 or b.size > 1:
        np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, equal_nan=True)
        return
    if not np.allclose(a, b, atol=atol, rtol=rtol):
        raise AssertionError(f"{err_msg} {a} is not close to {b} (atol={atol}, rtol={rtol})")
