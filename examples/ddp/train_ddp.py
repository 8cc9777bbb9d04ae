#!/usr/bin/env python3
"""train_ddp.py - data-parallel training inside PyTorch's distributed engine, with the
forward and backward passes computed by Nereid kernels through the Python package.

    torchrun --standalone --nproc-per-node=N examples/ddp/train_ddp.py [--steps 20] [--log-dir DIR]

(PYTHONPATH=build-gpu/python on the GPU machine, build/python here.) Each rank runs on its
own GPU, cuda:LOCAL_RANK (torch.cuda.set_device), with NCCL; `--device cpu` runs every rank
on the CPU, Nereid's kernels on its interpreter and gloo for the collectives (a smoke test
that needs no GPU). Run without torchrun it is one process (world size 1, no process
group).

The model: a three-layer perceptron (64 -> 128 -> 128 -> 10, ReLU) classifying synthetic
data (labels from a fixed random linear teacher), trained with SGD. Every linear layer, its
ReLU, the softmax cross-entropy and all their gradients are Nereid kernels, written below
with @nereid.jit and wrapped in torch.autograd.Function; the kernels follow their tensors'
device, so each rank's launches go to its GPU, on torch's current stream there. The
module is wrapped in DistributedDataParallel, which all-reduces (averages) the gradients
over the ranks. Every step uses one global batch (--global-batch, the same in every run):
rank r takes its r-th contiguous share, so N ranks together see what one process sees
alone, and their averaged gradient is the one process's (summed in another order). Each
rank prints, per step, the global loss (its local loss all-reduced: the same on every rank)
and its own local loss; with --log-dir it writes DIR/rank<R>.json (losses, a checksum of
the final weights, Nereid's compile and cache counts, the check below) for
tests/gpu/test_ddp.py, which runs N ranks and one process and compares them.

Before training each rank checks its kernels against torch's own ops on one batch (loss,
logits and every gradient; `torch_check` in the JSON: the largest relative difference).
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

import nereid
import nereid.language as tl

# ---- the kernels ----


@nereid.jit
def linear_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                  stride_cn, HAS_BIAS: tl.constexpr, RELU: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    """C = A @ B (+ bias) (then ReLU), fp32 in and out, any strides: one BLOCK_M x BLOCK_N
    tile of C per program."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    if HAS_BIAS:
        acc = acc + tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if RELU:
        acc = tl.maximum(acc, 0.0)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@nereid.jit
def relu_grad_kernel(dy_ptr, y_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    """dx = dy where the ReLU's output y is positive, else 0."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    dy = tl.load(dy_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.store(dx_ptr + offs, tl.where(y > 0, dy, 0.0), mask=m)


@nereid.jit
def col_sum_kernel(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """out[j] = sum over i of x[i, j] (a bias's gradient)."""
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for m0 in range(0, M, BLOCK_M):
        rm = m0 + tl.arange(0, BLOCK_M)
        x = tl.load(x_ptr + rm[:, None] * stride_m + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N), other=0.0)
        acc += tl.sum(x, axis=0)
    tl.store(out_ptr + rn, acc, mask=rn < N)


@nereid.jit
def xent_kernel(logits_ptr, labels_ptr, loss_ptr, grad_ptr, N, stride, scale, BLOCK: tl.constexpr):
    """One row: its softmax cross-entropy loss, and the loss's gradient with respect to the
    logits, (softmax - onehot(label)) * scale."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    z = tl.load(logits_ptr + row * stride + cols, mask=m, other=-float("inf"))
    zmax = tl.max(z, axis=0)
    e = tl.exp(z - zmax)
    s = tl.sum(e, axis=0)
    label = tl.load(labels_ptr + row)
    z_label = tl.sum(tl.where(cols == label, z, 0.0), axis=0)
    tl.store(loss_ptr + row, tl.log(s) + zmax - z_label)
    g = (e / s - tl.where(cols == label, 1.0, 0.0)) * scale
    tl.store(grad_ptr + row * stride + cols, g, mask=m)


BM = BN = BK = 32


def matmul(a, b, out, bias=None, relu=False):
    """out = a @ b (+ bias) (then ReLU), a (M, K) and b (K, N) of any strides."""
    M, K = a.shape
    N = b.shape[1]
    grid = (nereid.cdiv(M, BM), nereid.cdiv(N, BN))
    linear_kernel[grid](a, b, bias if bias is not None else out, out, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                        b.stride(1), out.stride(0), out.stride(1), HAS_BIAS=bias is not None, RELU=relu, BLOCK_M=BM,
                        BLOCK_N=BN, BLOCK_K=BK)
    return out


class Linear(torch.autograd.Function):
    """y = x @ w.T + b, then ReLU when relu: forward and backward in Nereid kernels."""

    @staticmethod
    def forward(ctx, x, w, b, relu):
        x = x.contiguous()
        y = matmul(x, w.t(), torch.empty(x.shape[0], w.shape[0], device=x.device, dtype=x.dtype), bias=b, relu=relu)
        ctx.save_for_backward(x, w, y)
        ctx.relu = relu
        return y

    @staticmethod
    def backward(ctx, dy):
        x, w, y = ctx.saved_tensors
        dy = dy.contiguous()
        if ctx.relu:
            dz = torch.empty_like(dy)
            relu_grad_kernel[(nereid.cdiv(dy.numel(), 1024),)](dy, y, dz, dy.numel(), BLOCK=1024)
        else:
            dz = dy
        dx = matmul(dz, w, torch.empty_like(x))                     # (B, out) @ (out, in)
        dw = matmul(dz.t(), x, torch.empty_like(w))                 # (out, B) @ (B, in)
        db = torch.empty(w.shape[0], device=w.device, dtype=w.dtype)
        col_sum_kernel[(nereid.cdiv(dz.shape[1], 32),)](dz, db, dz.shape[0], dz.shape[1], dz.stride(0), BLOCK_M=32,
                                                         BLOCK_N=32)
        return dx, dw, db, None


class CrossEntropy(torch.autograd.Function):
    """The mean softmax cross-entropy of logits (B, C) against labels (B,): the loss of
    each row and its gradient in one kernel."""

    @staticmethod
    def forward(ctx, logits, labels):
        logits = logits.contiguous()
        B, C = logits.shape
        rows = torch.empty(B, device=logits.device, dtype=logits.dtype)
        grad = torch.empty_like(logits)
        xent_kernel[(B,)](logits, labels, rows, grad, C, logits.stride(0), 1.0 / B,
                          BLOCK=max(16, nereid.next_power_of_2(C)))
        ctx.save_for_backward(grad)
        return rows.mean()

    @staticmethod
    def backward(ctx, dloss):
        (grad,) = ctx.saved_tensors
        return grad * dloss, None


class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            bound = 1.0 / math.sqrt(fan_in)
            self.weights.append(nn.Parameter(torch.empty(fan_out, fan_in).uniform_(-bound, bound)))
            self.biases.append(nn.Parameter(torch.empty(fan_out).uniform_(-bound, bound)))

    def forward(self, x):
        n = len(self.weights)
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = Linear.apply(x, w, b, i < n - 1)
        return x

    def reference(self, x):
        """The same model in torch's own ops."""
        n = len(self.weights)
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = F.linear(x, w, b)
            if i < n - 1:
                x = F.relu(x)
        return x


def dataset(n, d_in, classes, seed):
    """n samples of d_in features, labelled by a fixed random linear teacher (with noise)."""
    g = torch.Generator().manual_seed(seed + 1)
    teacher = torch.randn(d_in, classes, generator=g)  # first: the samples' count changes nothing before them
    x = torch.randn(n, d_in, generator=g)
    y = (x @ teacher + 0.5 * torch.randn(n, classes, generator=g)).argmax(dim=1)
    return x, y


def torch_check(model, x, y):
    """The largest relative difference between Nereid's and torch's loss, logits and
    gradients on one batch (the model's gradients are left as they were: zero)."""
    params = list(model.parameters())
    worst = 0.0

    def rel(a, b):
        return ((a - b).abs().max() / b.abs().max().clamp_min(1e-6)).item()

    logits = model(x)
    loss = CrossEntropy.apply(logits, y)
    grads = torch.autograd.grad(loss, params)
    ref_logits = model.reference(x)
    ref_loss = F.cross_entropy(ref_logits, y)
    ref_grads = torch.autograd.grad(ref_loss, params)
    worst = max(rel(logits.detach(), ref_logits.detach()), rel(loss.detach(), ref_loss.detach()))
    for g, r in zip(grads, ref_grads):
        worst = max(worst, rel(g, r))
    return worst


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--global-batch", type=int, default=64, help="samples per step over all ranks (default 64)")
    p.add_argument("--lr", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sizes", default="64,128,128,10", help="layer widths (default 64,128,128,10)")
    p.add_argument("--log-dir", help="write DIR/rank<R>.json")
    args = p.parse_args()

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if args.global_batch % world:
        sys.exit(f"--global-batch {args.global_batch} is not a multiple of the {world} ranks")
    if args.device == "cuda":
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        os.environ.setdefault("NEREID_DEVICE", "cpu")  # Nereid's default device: the interpreter
        device = torch.device("cpu")
    distributed = "RANK" in os.environ
    if distributed:
        dist.init_process_group("nccl" if args.device == "cuda" else "gloo")

    torch.manual_seed(args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    model = MLP(sizes).to(device)  # the same weights on every rank (DDP broadcasts rank 0's too)
    x_all, y_all = dataset(args.global_batch * args.steps, sizes[0], sizes[-1], args.seed)
    local = args.global_batch // world

    check = torch_check(model, x_all[:local].to(device), y_all[:local].to(device))
    ddp = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank] if args.device == "cuda" else None) \
        if distributed else model
    opt = torch.optim.SGD(ddp.parameters(), lr=args.lr)

    losses, local_losses = [], []
    t0 = None
    for step in range(args.steps):
        if step == 1:  # the first step compiles (or loads from the disk cache)
            if args.device == "cuda":
                torch.cuda.synchronize()
            t0 = time.perf_counter()
        start = step * args.global_batch + rank * local
        x = x_all[start:start + local].to(device)
        y = y_all[start:start + local].to(device)
        opt.zero_grad(set_to_none=True)
        loss = CrossEntropy.apply(ddp(x), y)
        loss.backward()  # DDP all-reduces the gradients (their mean over the ranks)
        opt.step()
        global_loss = loss.detach().clone()
        if distributed:
            dist.all_reduce(global_loss)
            global_loss /= world
        losses.append(global_loss.item())
        local_losses.append(loss.item())
        print(f"rank {rank}/{world} ({device}) step {step:3d}: loss {losses[-1]:.7f} (this rank's batch "
              f"{local_losses[-1]:.7f})", flush=True)
    if args.device == "cuda":
        torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3 / max(1, args.steps - 1) if t0 is not None else 0.0

    checksum = sum(float(q.detach().double().sum()) for q in model.parameters())
    ctx = nereid.context(str(device) if args.device == "cuda" else "cpu")
    stats = ctx.stats()
    print(f"rank {rank}/{world}: {ms:.2f} ms per step; final weights' sum {checksum:.9f}; kernels against torch: "
          f"{check:.2e}; Nereid on {ctx.device_name}: {stats['gpu_compiles']} compiled, "
          f"{stats['disk_cache_hits']} from the disk cache", flush=True)
    if args.log_dir:
        os.makedirs(args.log_dir, exist_ok=True)
        with open(os.path.join(args.log_dir, f"rank{rank}.json"), "w") as f:
            json.dump({"rank": rank, "world": world, "device": str(device), "device_name": ctx.device_name,
                       "losses": losses, "local_losses": local_losses, "weights_sum": checksum,
                       "torch_check": check, "ms_per_step": ms, "nereid": stats}, f, indent=1)
    if distributed:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
