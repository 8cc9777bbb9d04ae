"""cross_entropy.py - cross-entropy of logits against class indices in two fused kernels,
written in Triton's language and compiled by Nereid (`@nereid.jit`): what a language
model's last layer needs without the float32 copy of its logits, a separate softmax
and its backward.

    import sys; sys.path.insert(0, "examples")
    import cross_entropy
    loss = cross_entropy.cross_entropy(logits, targets)       # differentiable, torch tensors
    loss = cross_entropy.cross_entropy(logits, targets, ignore_index=-100, reduction="sum")

logits: (N, V) float32, float16 or bfloat16, rows of any stride (elements contiguous, or
copied so); targets: (N,) integers of any width and stride, a class in [0, V) or
ignore_index. The result is torch's
F.cross_entropy(logits.float(), targets, ignore_index=..., reduction=...): "mean" (over
the rows not ignored), "sum" or "none"; the gradient has the logits' dtype.

- _ce_forward: one program per row. It streams the row once, BLOCK columns at a time,
  keeping the running maximum and the sum of exponentials (in base 2, rescaled when the
  maximum grows), and stores lse = log(sum exp(logits)) and the row's loss lse -
  logits[target] (0 for an ignored row). A target outside [0, V) that is not ignore_index
  is a wrong input: the row's loss is NaN (torch raises), never a read out of the row.
- _ce_backward: one program per row again, the gradient
  (softmax(logits) - onehot(target)) * g, where g is the upstream gradient of the row's
  loss (divided by the count of rows not ignored for "mean"), read from device memory so
  the host never waits for it; an ignored row's gradient is zero.

Both are memory-bound: the forward reads the logits once, the backward reads them again
and writes the gradient. Needs the nereid package (PYTHONPATH=build-gpu/python on the GPU
machine, build/python here); torch for the autograd function. The kernels also run on
NumPy arrays on the interpreter (python/tests/test_python.py checks them there).
"""
import nereid
import nereid.language as tl

LOG2E: tl.constexpr = 1.4426950408889634
LN2: tl.constexpr = 0.6931471805599453


@nereid.jit
def _ce_forward(logits_ptr, stride_row, targets_ptr, loss_ptr, lse_ptr, n_cols, ignore_index,
                BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = logits_ptr + row * stride_row
    cols = tl.arange(0, BLOCK)
    m = float("-inf")  # running maximum, base-2 units
    s = 0.0  # sum of 2^(y - m) over the columns seen
    for start in range(0, n_cols, BLOCK):
        y = tl.load(base + start + cols, mask=start + cols < n_cols, other=float("-inf")).to(tl.float32) * LOG2E
        m_new = tl.maximum(m, tl.max(y, axis=0))
        # while every value seen is -inf the sum stays 0 (and no -inf - -inf is formed)
        alpha = tl.where(m_new == float("-inf"), 1.0, tl.exp2(m - m_new))
        e = tl.where(y == float("-inf"), 0.0, tl.exp2(y - m_new))
        s = s * alpha + tl.sum(e, axis=0)
        m = m_new
    lse2 = m + tl.log2(s)
    t = tl.load(targets_ptr + row).to(tl.int64)
    ignored = t == ignore_index
    valid = (t >= 0) & (t < n_cols)
    y_t = tl.load(base + t, mask=valid & (t != ignore_index), other=0.0).to(tl.float32) * LOG2E
    loss = tl.where(ignored, 0.0, tl.where(valid, (lse2 - y_t) * LN2, float("nan")))
    tl.store(loss_ptr + row, loss)
    tl.store(lse_ptr + row, lse2 * LN2)


@nereid.jit
def _ce_backward(logits_ptr, stride_row, grad_ptr, stride_grad_row, targets_ptr, lse_ptr, g_ptr, g_stride,
                 n_cols, ignore_index, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = logits_ptr + row * stride_row
    out = grad_ptr + row * stride_grad_row
    cols = tl.arange(0, BLOCK)
    t = tl.load(targets_ptr + row).to(tl.int64)
    g = tl.load(g_ptr + row * g_stride).to(tl.float32)
    g = tl.where(t == ignore_index, 0.0, g)
    lse2 = tl.load(lse_ptr + row) * LOG2E
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        y = tl.load(base + c, mask=c < n_cols, other=0.0).to(tl.float32)
        p = tl.exp2(y * LOG2E - lse2)
        d = tl.where(c == t, p - 1.0, p) * g
        tl.store(out + c, d.to(grad_ptr.dtype.element_ty), mask=c < n_cols)


def _block(n_cols):
    """Columns a program takes at a time: the row's length rounded up to a power of two,
    from 256 to 4096 (8 warps stream 4096 columns with 16 elements a thread)."""
    b = 256
    while b < n_cols and b < 4096:
        b *= 2
    return b


def forward(logits, targets, ignore_index=-100):
    """Per-row losses (float32, (N,)) and lse (float32, (N,)) of logits (N, V)."""
    import torch
    if logits.dim() != 2 or targets.shape != logits.shape[:1]:
        raise ValueError(f"logits must be (N, V) and targets (N,), got {tuple(logits.shape)} and "
                         f"{tuple(targets.shape)}")
    if logits.stride(1) != 1:
        logits = logits.contiguous()
    targets = targets.contiguous()  # the kernels read targets[row] at targets_ptr + row
    N, V = logits.shape
    loss = torch.empty(N, device=logits.device, dtype=torch.float32)
    lse = torch.empty(N, device=logits.device, dtype=torch.float32)
    if N:
        _ce_forward[(N,)](logits, logits.stride(0), targets, loss, lse, V, ignore_index, BLOCK=_block(V),
                          num_warps=8)
    return loss, lse


def backward(logits, targets, lse, g, ignore_index=-100):
    """The gradient of sum(loss_i * g_i) with respect to logits: g is a float32 tensor of
    one element (every row's factor) or of N."""
    import torch
    if logits.stride(1) != 1:
        logits = logits.contiguous()
    targets = targets.contiguous()
    N, V = logits.shape
    grad = torch.empty_like(logits, memory_format=torch.contiguous_format)
    if N:
        g = g.to(torch.float32).contiguous()
        _ce_backward[(N,)](logits, logits.stride(0), grad, grad.stride(0), targets, lse, g,
                           0 if g.numel() == 1 else 1, V, ignore_index, BLOCK=_block(V), num_warps=8)
    return grad


def _function():
    import torch

    class CrossEntropyFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, logits, targets, ignore_index, reduction):
            targets = targets.contiguous()
            loss, lse = forward(logits, targets, ignore_index)
            ctx.save_for_backward(logits, targets, lse)
            ctx.ignore_index, ctx.reduction = ignore_index, reduction
            if reduction == "none":
                return loss
            if reduction == "sum":
                return loss.sum()
            ctx.count = (targets != ignore_index).sum()  # stays on the device
            return loss.sum() / ctx.count

        @staticmethod
        def backward(ctx, grad_out):
            logits, targets, lse = ctx.saved_tensors
            g = grad_out.float().reshape(-1)
            if ctx.reduction == "mean":
                g = g / ctx.count
            return backward(logits, targets, lse, g, ctx.ignore_index), None, None, None

    return CrossEntropyFunction


_FUNCTION = []


def cross_entropy(logits, targets, ignore_index=-100, reduction="mean"):
    """torch.nn.functional.cross_entropy(logits.float(), targets, ...) through the two
    kernels above, differentiable with respect to logits."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if not _FUNCTION:
        _FUNCTION.append(_function())
    return _FUNCTION[0].apply(logits, targets, int(ignore_index), reduction)
