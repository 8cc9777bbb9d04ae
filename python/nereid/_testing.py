"""triton.testing's benchmark decorator where Triton is not installed (nereid.dropin's
stand-in): `@triton.testing.perf_report(triton.testing.Benchmark(...))` over a function of
the x and line arguments, and the decorated object's `run(print_data=, save_path=, ...)`,
as Triton's tutorials and libraries' benchmark scripts write them. It calls the function
for every x value and line value, as Triton's Mark.run does, and prints (print_data) or
saves (save_path: NAME.csv) the table; it draws no plot (show_plots is accepted and
ignored: Triton's draws with matplotlib)."""
import csv
import os


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
