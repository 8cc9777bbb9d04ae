#!/usr/bin/env python3
"""inductor_cold_start.py - torch.compile's cold start with Triton compiling Inductor's
kernels and with Nereid compiling them (nereid.inductor), on GPT-2 small training and a
torchvision ResNet-50 forward and backward.

    PYTHONPATH=build-gpu/python python3 bench/inductor_cold_start.py \
        [--models gpt2,resnet50] [--backends triton,nereid] [--steps 20] [--out DIR] \
        [--dump DIR]

Each (model, backend) runs in a fresh process with empty caches (TRITON_CACHE_DIR,
TORCHINDUCTOR_CACHE_DIR and NEREID_CACHE_DIR in a new temporary folder), and, for the
kernel compile figures, with Inductor compiling in that process (compile_threads=1: the
seconds spent inside the compiler's entry point are summed by a wrapper). A second run of
stock Triton keeps Inductor's default (parallel compile workers) for the cold start users
get today. Reported per run: seconds from the first call to the first finished step,
seconds spent compiling kernels and their number, the steady-state step time (median of
--steps after two warm-up steps), and the largest difference of the first step's outputs
(loss or logits, and gradients) from eager PyTorch on the same weights and inputs,
checked with the tolerances Inductor's own accuracy checker uses for the dtype.

--dump DIR copies the Triton source of every kernel Inductor generated (one .py per
kernel, from the cache) into DIR/MODEL, and the PTX Triton made of each into
DIR/MODEL-ptx, for compiling and comparing them elsewhere.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- the models -------------------------------------------------------------------------
def gpt2_small():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Block(nn.Module):
        def __init__(self, width, heads):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
            return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self, vocab=50304, context=1024, layers=12, heads=12, width=768):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(context, width)
            self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
            self.ln = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)

        def forward(self, idx, targets):
            T = idx.shape[1]
            x = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
            for b in self.blocks:
                x = b(x)
            logits = self.head(self.ln(x))
            return F.cross_entropy(logits.view(-1, logits.shape[-1]).float(), targets.view(-1))

    torch.manual_seed(0)
    model = GPT().cuda()
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randint(0, 50304, (8, 1024), device="cuda", generator=g)
    y = torch.randint(0, 50304, (8, 1024), device="cuda", generator=g)
    return model, (x, y), (lambda out: out)


def resnet50():
    import torch
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(64, 3, 224, 224, device="cuda", generator=g).to(memory_format=torch.channels_last)
    return model, (x, ), (lambda out: out.float().square().mean())


MODELS = {"gpt2": gpt2_small, "resnet50": resnet50}


# ---- one run, in its own process --------------------------------------------------------
class CompileClock:
    """Sums the seconds spent in the compiler's entry point and counts the kernels: for
    Triton, triton.compile wherever Inductor reaches it; for Nereid, nereid.inductor's
    own counters."""

    def __init__(self, backend):
        self.seconds, self.kernels, self.backend = 0.0, 0, backend
        if backend == "triton":
            import triton
            import triton.compiler.compiler as tcc
            real = tcc.compile

            def timed(*a, **k):
                t = time.perf_counter()
                try:
                    return real(*a, **k)
                finally:
                    self.seconds += time.perf_counter() - t
                    self.kernels += 1

            for mod in (triton, sys.modules.get("triton.compiler"), tcc):
                if mod is not None and getattr(mod, "compile", None) is real:
                    mod.compile = timed
            try:
                import torch._inductor.runtime.triton_heuristics as th
                for name in dir(th):
                    if getattr(th, name) is real:
                        setattr(th, name, timed)
                tr = getattr(th, "triton", None)
                if tr is not None and getattr(tr, "compile", None) is real:
                    tr.compile = timed
            except ImportError:
                pass

    def read(self):
        if self.backend == "nereid":
            import nereid.inductor
            s = nereid.inductor.stats()
            return s["compile_seconds"], s["kernels"], s
        return self.seconds, self.kernels, {}


def one_run(args):
    import torch
    if args.serial:
        import torch._inductor.config as icfg
        icfg.compile_threads = 1
    if args.backend == "nereid":
        import nereid.inductor
        nereid.inductor.enable()
    clock = CompileClock(args.backend) if args.serial else None
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    model, inputs, reduce = MODELS[args.model]()
    amp = torch.autocast("cuda", dtype=torch.bfloat16)

    def step(m):
        with amp:
            out = reduce(m(*inputs))
        out.backward()
        return out

    # eager reference first (its own weights' gradients), then the compiled model
    ref_out = step(model).detach().float()
    ref_grads = [p.grad.detach().float().clone() for p in model.parameters() if p.grad is not None]
    model.zero_grad(set_to_none=True)
    compiled = torch.compile(model)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = step(compiled)
    torch.cuda.synchronize()
    cold = time.perf_counter() - t0
    got_out = out.detach().float()
    got_grads = [p.grad.detach().float().clone() for p in model.parameters() if p.grad is not None]
    # Inductor's accuracy checker (torch._dynamo.utils.same) for bf16 autocast: rtol/atol 1e-2
    # on the output; the gradients by their cosine similarity as its fp64 reference mode does
    out_diff = (got_out - ref_out).abs().max().item()
    out_ok = bool(torch.allclose(got_out, ref_out, rtol=1e-2, atol=1e-2))
    # all gradients as one vector: a parameter whose gradient is rounding noise (near 0) says
    # little alone
    cos = torch.nn.functional.cosine_similarity(torch.cat([a.flatten() for a in got_grads]),
                                                torch.cat([b.flatten() for b in ref_grads]), dim=0).item()
    model.zero_grad(set_to_none=True)
    for _ in range(2):
        step(compiled)
        model.zero_grad(set_to_none=True)
    times = []
    for _ in range(args.steps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        step(compiled)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
        model.zero_grad(set_to_none=True)
    times.sort()
    prof = None
    if args.profile:  # the GPU time of each kernel over 3 steps, by name
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as p:
            for _ in range(3):
                step(compiled)
                model.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
        prof = {}
        for e in p.key_averages():
            t = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
            if t:
                prof[e.key] = [e.count, t / 3.0]
    chosen = None
    if args.profile:
        try:  # Inductor's internals: informative only, never the run's failure
            chosen = chosen_configs()
        except Exception as e:  # noqa: BLE001
            chosen = {"error": repr(e)}
    res = {"model": args.model, "backend": args.backend, "serial": args.serial, "cold_start_s": cold,
           "step_ms": times[len(times) // 2] * 1e3, "out_max_diff": out_diff, "out_ok": out_ok,
           "grad_cosine": cos}
    if prof is not None:
        res["profile_us_per_step"] = prof
        res["configs"] = chosen
    try:  # where Dynamo and Inductor spent the cold start, by phase (seconds)
        from torch._dynamo.utils import compile_times
        names, values = compile_times(repr="csv", aggregate=True)
        res["phases_s"] = {n: float(v) for n, v in zip(names, values)}
    except Exception as e:  # noqa: BLE001 - informative only
        res["phases_s"] = {"error": str(e)}
    if clock is not None:
        res["compile_s"], res["kernels"], extra = clock.read()
        res.update({k: v for k, v in extra.items() if k not in ("compile_seconds", "kernels")})
    print("RESULT " + json.dumps(res), flush=True)


def chosen_configs():
    """Each generated kernel's configuration as its autotuner chose it (Inductor's
    CachingAutotuner keeps the winner as launchers[0]) and how many it chose from, by the
    kernel's name."""
    import gc
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    out = {}
    for o in gc.get_objects():
        if isinstance(o, CachingAutotuner) and getattr(o, "launchers", None):
            name = (getattr(o, "inductor_meta", None) or {}).get("kernel_name") or getattr(o.fn, "__name__", "?")
            c = o.launchers[0].config
            # configs: the candidates (None once Inductor has dropped them after choosing)
            out[name] = "%s w%d s%d (of %s)" % (",".join("%s=%s" % kv for kv in c.kwargs.items()), c.num_warps,
                                                c.num_stages, len(o.configs) if o.configs else "?")
    return out


def dump_kernels(cache, dest):
    """Every generated kernel's source (files defining an @triton.jit function)."""
    os.makedirs(dest, exist_ok=True)
    n = 0
    for root, _, files in os.walk(cache):
        for f in files:
            if not f.endswith(".py"):
                continue
            p = os.path.join(root, f)
            try:
                text = open(p, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            if "@triton.jit" in text and "async_compile" not in text:
                shutil.copy(p, os.path.join(dest, f))
                n += 1
    return n


def dump_ptx(cache, dest):
    """The PTX Triton made of each kernel (its cache holds KERNEL.ptx), to compare with
    Nereid's (tools/inductor_check.py --keep)."""
    os.makedirs(dest, exist_ok=True)
    n = 0
    for root, _, files in os.walk(cache):
        for f in files:
            if f.endswith(".ptx"):
                shutil.copy(os.path.join(root, f), os.path.join(dest, f))
                n += 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="gpt2,resnet50")
    ap.add_argument("--backends", default="triton,nereid")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--dump", default=None)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--profile", action="store_true",
                    help="also the GPU time of each kernel per step (torch.profiler) and each autotuner's pick, "
                    "into coldstart.json, and the kernels whose time differs most between the compilers")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--backend", help=argparse.SUPPRESS)
    ap.add_argument("--serial", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        return one_run(args)

    rows = []
    for model in args.models.split(","):
        runs = []
        for backend in args.backends.split(","):
            runs.append((backend, True))
            if backend == "triton":
                runs.append((backend, False))
        for backend, serial in runs:
            tmp = tempfile.mkdtemp(prefix="coldstart-")
            env = dict(os.environ)
            env.update(TRITON_CACHE_DIR=os.path.join(tmp, "triton"), TORCHINDUCTOR_CACHE_DIR=os.path.join(
                tmp, "inductor"), NEREID_CACHE_DIR=os.path.join(tmp, "nereid"))
            cmd = [sys.executable, os.path.abspath(__file__), "--one", "--model", model, "--backend", backend,
                   "--steps", str(args.steps)] + (["--serial"] if serial else []) + \
                (["--profile"] if args.profile and serial else [])
            t = time.perf_counter()
            try:
                p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
                log = p.stdout + p.stderr
            except subprocess.TimeoutExpired as e:
                log = "timed out after %d s\n%s" % (args.timeout, e.stdout or "")
            wall = time.perf_counter() - t
            tag = "%s-%s%s" % (model, backend, "" if serial else "-parallel")
            with open(os.path.join(args.out, "coldstart-%s.log" % tag), "w") as f:
                f.write(log)
            res = None
            for line in log.splitlines():
                if line.startswith("RESULT "):
                    res = json.loads(line[7:])
            if res is None:
                res = {"model": model, "backend": backend, "serial": serial, "error": log.strip().splitlines()[-1:]}
            res["process_s"] = wall
            if args.dump and backend == "triton" and serial:
                res["dumped"] = dump_kernels(os.path.join(tmp, "inductor"), os.path.join(args.dump, model))
                res["dumped_ptx"] = dump_ptx(os.path.join(tmp, "triton"), os.path.join(args.dump, model + "-ptx"))
            rows.append(res)
            print(json.dumps(res), flush=True)
            shutil.rmtree(tmp, ignore_errors=True)
    with open(os.path.join(args.out, "coldstart.json"), "w") as f:
        json.dump(rows, f, indent=1)
    for model in args.models.split(","):  # per kernel: where the step time goes apart
        by = {r["backend"]: r.get("profile_us_per_step") for r in rows if r["model"] == model and r.get("serial")}
        if by.get("triton") and by.get("nereid"):
            names = set(by["triton"]) | set(by["nereid"])
            diff = sorted(names, key=lambda n: -abs(by["nereid"].get(n, [0, 0])[1] - by["triton"].get(n, [0, 0])[1]))
            print("%s: GPU us per step, Triton vs Nereid, the 15 kernels that differ most" % model)
            cfg = {r["backend"]: r.get("configs") or {} for r in rows if r["model"] == model and r.get("serial")}
            for n in diff[:15]:
                print("  %10.1f %10.1f  %s" % (by["triton"].get(n, [0, 0])[1], by["nereid"].get(n, [0, 0])[1], n[:100]))
                if n in cfg.get("triton", {}) or n in cfg.get("nereid", {}):  # each autotuner's pick
                    print("             triton: %s; nereid: %s" % (cfg.get("triton", {}).get(n, "-"),
                                                                      cfg.get("nereid", {}).get(n, "-")))
            print("  total %10.1f %10.1f" % (sum(v[1] for v in by["triton"].values()),
                                              sum(v[1] for v in by["nereid"].values())))
    print("| model | compiler | Inductor workers | cold start s | kernel compile s | kernels | step ms | "
          "output ok (max diff) | gradients' cosine |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print("| %s | %s | %s | error: %s |" % (r["model"], r["backend"], "1" if r["serial"] else "default",
                                                   " ".join(r["error"])[:120]))
            continue
        print("| %s | %s | %s | %.1f | %s | %s | %.1f | %s (%.2g) | %.5f |" %
              (r["model"], r["backend"], "1" if r["serial"] else "default", r["cold_start_s"],
               "%.2f" % r["compile_s"] if "compile_s" in r else "-", r.get("kernels", "-"), r["step_ms"],
               "yes" if r["out_ok"] else "NO", r["out_max_diff"], r["grad_cosine"]))


if __name__ == "__main__":
    sys.exit(main())
