#!/usr/bin/env python3
"""test_attention.py - examples/attention.nr on the GPU through the nereid package, against
torch: fused attention forward (o, lse) and backward (dq, dk, dv), with the dropout mask
drawn inside the kernels.

    PYTHONPATH=build-gpu/python python3 tests/gpu/test_attention.py [--quick] [-v]
    PYTHONPATH=build/python python3 tests/gpu/test_attention.py --cpu   (the CPU interpreter,
        torch CPU tensors, small shapes: checks this script where there is no GPU)

Prints a line per case and "test_attention: N passed, M failed" last; exit status 1 on a
failure. Without torch or a GPU it prints a SKIP line and exits 0.

What is checked:
- Every case (head_dim 32, 64, 128, 256; causal and not; dropout 0 and 0.3; fp16 and
  bf16; ragged sequence lengths 1 to 1000; (B, T, H, D) tensors passed as strided views):
  o and lse from the forward, dq, dk, dv from the backward, against a float32 reference
  in plain torch ops (explicit matmuls, softmax, torch.autograd for the gradients) that
  applies the mask _attn_mask writes as the kernels apply theirs: P * keep / (1 - p).
- The mask itself: for one case, element by element against the definition computed here
  in Python (Philox4x32-10 written out), independently of the kernels.
- The same seed twice gives bit-identical o, dq, dk, dv under
  torch.use_deterministic_algorithms (by default, with dropout at head_dim <= 64, the
  backward is one kernel summing dq by atomics in any order: o bit-identical, dq, dk, dv
  within 4 ulp of their largest element); another seed another mask; the share of kept elements is within 4
  standard deviations of 1 - p.

Tolerances, per element, from the magnitudes of what the kernels sum (the bound of a sum
of rounded terms), with u the unit roundoff of the input type (2^-11 fp16, 2^-8 bf16):
the kernels round P (and dS) to the input type before their second dot and round their
outputs; everything else is fp32 (relative error ~1e-7: ex2.approx, tensor-core sums).
Scores and lse carry e_i = (D + 16) * 2^-24 * (A_i + |lse_i| + 1), A_i = max_j
sm_scale * sum_d |q_id k_jd|, so P has relative error eps_i = u + 4 e_i. With Z = keep /
(1 - p), dS = P * (Z * dP - delta), dd_i = sum_d |do_id| (u |o_id| + eps_i (|PZ| |v|)_id)
(delta is computed from the rounded o):
    o   <= 2 (u |o| + eps_i (PZ |v|)_id)           lse <= 2 e_i
    dv  <= 2 (u |dv| + (PZ^T (eps |do|))_jd)
    dq  <= 2 (u |dq| + sm_scale (((u + eps_i) |dS| + P dd_i) |k|)_id)
    dk  <= 2 (u |dk| + sm_scale (((u + eps_i) |dS| + P dd_i)^T |q|)_jd)
plus 1e-6 absolute. The factor 2 is the margin. examples/attention.c uses the same
bounds against a double-precision reference on the interpreter, where mistakes (a wrong
mask, a missed block, a wrong scale) come out 10 to 10^6 times over them.
"""
import argparse
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _import_nereid():
    try:
        import nereid  # noqa: F401
    except ImportError:
        for b in ("build-gpu", "build"):
            p = os.path.join(ROOT, b, "python")
            if os.path.isdir(os.path.join(p, "nereid")):
                sys.path.insert(0, p)
                break
        import nereid  # noqa: F401
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import attention
    return attention


# ---------------------------------------------------------------------------------------
# The mask's definition, in Python (attention.nr's header): Philox4x32-10 with the key
# (seed low, seed high), counter (row * G + g, b * H + h, 0, 0); column col takes half
# k = (col // 8) % 8 of call g = (col // 64) * 8 + col % 8 (the low 16 bits of word k // 2
# for even k, the high for odd), G = cdiv(T, 64) * 8, and is kept when that half is at
# least t = floor(p * 65536 + 0.5) (fp32).
# ---------------------------------------------------------------------------------------

def philox4x32(seed, c0, c1, c2=0, c3=0):
    M = 0xFFFFFFFF
    k0, k1 = seed & M, (seed >> 32) & M
    for _ in range(10):
        pb, pa = 0xCD9E8D57 * c2, 0xD2511F53 * c0
        c0, c2 = ((pb >> 32) ^ c1 ^ k0) & M, ((pa >> 32) ^ c3 ^ k1) & M
        c1, c3 = pb & M, pa & M
        k0, k1 = (k0 + 0x9E3779B9) & M, (k1 + 0xBB67AE85) & M
    return c0, c1, c2, c3


def mask_by_definition(seed, bh, T, p):
    import numpy as np
    seed %= 1 << 64
    G = (T + 63) // 64 * 8
    keep = np.zeros((T, T), dtype=np.int8)
    t = int(np.float32(p) * np.float32(65536.0) + np.float32(0.5))
    for row in range(T):
        for g in range(G):
            col0 = g // 8 * 64 + g % 8
            if col0 >= T:
                continue
            words = philox4x32(seed, (row * G + g) & 0xFFFFFFFF, bh)
            for k in range(8):
                col = col0 + 8 * k
                if col < T:
                    w = words[k // 2]
                    keep[row, col] = ((w >> 16) if k & 1 else (w & 0xFFFF)) >= t
    return keep


# ---------------------------------------------------------------------------------------
# The reference and its bounds
# ---------------------------------------------------------------------------------------

def reference(torch, q, k, v, do, causal, sm_scale, p, keep):
    """o, lse, dq, dk, dv in float32 from plain torch ops (autograd for the gradients),
    and each element's tolerance."""
    D, T = q.shape[-1], q.shape[-2]
    u = 2.0 ** -8 if q.dtype == torch.bfloat16 else 2.0 ** -11
    qf, kf, vf, dof = (x.detach().float().requires_grad_(i < 3) for i, x in enumerate((q, k, v, do)))
    s = (qf @ kf.transpose(-1, -2)) * sm_scale
    if causal:
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    P = torch.softmax(s, dim=-1)
    Z = keep.float() / (1.0 - p) if p > 0 else torch.ones_like(P)
    o = (P * Z) @ vf
    o.backward(dof)
    with torch.no_grad():
        P, o, lse = P.detach(), o.detach(), lse.detach()
        qa, ka, va, doa = qf.detach().abs(), kf.detach().abs(), vf.abs(), dof.abs()
        A = ((qa @ ka.transpose(-1, -2)) * sm_scale).amax(dim=-1)
        e = (D + 16) * 2.0 ** -24 * (A + lse.abs() + 1.0)
        eps = (u + 4.0 * e)[..., None]
        PZ = P * Z
        mo = PZ @ va
        t_o = 2.0 * (u * o.abs() + eps * mo) + 1e-6
        t_lse = 2.0 * e + 1e-6
        delta = (dof * o).sum(-1, keepdim=True)
        dS = P * (Z * (dof @ vf.transpose(-1, -2)) - delta)
        dd = (doa * (u * o.abs() + eps * mo)).sum(-1, keepdim=True)
        W = (u + eps) * dS.abs() + P * dd
        dq, dk, dv = qf.grad, kf.grad, vf.grad
        t_dq = 2.0 * (u * dq.abs() + sm_scale * (W @ ka)) + 1e-6
        t_dk = 2.0 * (u * dk.abs() + sm_scale * (W.transpose(-1, -2) @ qa)) + 1e-6
        t_dv = 2.0 * (u * dv.abs() + PZ.transpose(-1, -2) @ (eps * doa)) + 1e-6
    return {"o": (o, t_o), "lse": (lse, t_lse), "dq": (dq, t_dq), "dk": (dk, t_dk), "dv": (dv, t_dv)}


def worst_ratio(got, want, tol):
    """max |got - want| / tol (inf where got is not finite), and the worst element's
    description."""
    import torch
    g = got.float()
    r = (g - want).abs() / tol
    r = torch.where(torch.isfinite(g), r, torch.full_like(r, float("inf")))
    i = int(r.flatten().argmax())
    return float(r.flatten()[i]), (i, float(g.flatten()[i]), float(want.flatten()[i]), float(tol.flatten()[i]))


# ---------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------

class Results:
    def __init__(self, verbose):
        self.passed = self.failed = 0
        self.verbose = verbose

    def record(self, ok, line, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(("ok     " if ok else "FAILED ") + line)
        if detail and (not ok or self.verbose):
            print("       " + detail)


def make_qkv(torch, B, H, T, D, dtype, device, bthd, gen):
    """q, k in [-2, 2) (scores spread over ~[-5, 5]), v, do in [-1, 1): (B, H, T, D)
    tensors, or (B, T, H, D) ones seen through transpose(1, 2) when bthd."""
    out = []
    for lo in (2.0, 2.0, 1.0, 1.0):
        shape = (B, T, H, D) if bthd else (B, H, T, D)
        x = ((torch.rand(shape, generator=gen, device=device) * 2 - 1) * lo).to(dtype)
        out.append(x.transpose(1, 2) if bthd else x)
    return out


def run_case(torch, A, res, c, device, gen):
    B, H, T, D, causal, p, dtype, bthd = c
    name = "B=%d H=%d T=%4d D=%3d %-6s p=%.1f %-8s %s" % (B, H, T, D, "causal" if causal else "full", p,
                                                         str(dtype).replace("torch.", ""), "bthd" if bthd else "bhtd")
    q, k, v, do = make_qkv(torch, B, H, T, D, dtype, device, bthd, gen)
    sm_scale = 1.0 / math.sqrt(D)
    seed = 0x5EED0000 + T * 7 + D
    try:
        t0 = time.time()
        o, lse = A.forward(q, k, v, causal, sm_scale, p, seed)
        dq, dk, dv = A.backward(q, k, v, o, lse, do, causal, sm_scale, p, seed)
        keep = A.dropout_mask(B, H, T, p, seed, device) if p > 0 else None
        if device != "cpu":
            torch.cuda.synchronize()
        secs = time.time() - t0
    except Exception as e:  # noqa: BLE001 - a failed compile or launch is a failed case
        res.record(False, name, "%s: %s" % (type(e).__name__, str(e)[:2000]))
        return
    ref = reference(torch, q, k, v, do, causal, sm_scale, p, keep)
    got = {"o": o, "lse": lse, "dq": dq, "dk": dk, "dv": dv}
    ratios, details = [], []
    for key in ("o", "lse", "dq", "dk", "dv"):
        r, (i, g, w, t) = worst_ratio(got[key], *ref[key])
        ratios.append(r)
        if r > 1.0:
            details.append("%s: element %d got %.7g want %.7g tolerance %.3g" % (key, i, g, w, t))
    strides_ok = o.stride() == q.stride() and dq.stride() == q.stride()
    if not strides_ok:
        details.append("outputs do not take q's strides: %s %s" % (o.stride(), q.stride()))
    ok = max(ratios) <= 1.0 and strides_ok
    line = name + "  err/tol o %.2f lse %.2f dq %.2f dk %.2f dv %.2f  (%.2fs)" % (*ratios, secs)
    res.record(ok, line, "; ".join(details))


def check_dropout_properties(torch, A, res, device, gen, T, D, dtype):
    """Same seed: identical results; another seed: another mask; keep rate near 1 - p;
    the mask element by element against the definition (Python Philox)."""
    B, H, p = 2, 3, 0.3
    q, k, v, do = make_qkv(torch, B, H, T, D, dtype, device, False, gen)
    seed = 0x123456789ABCDEF
    runs = []
    # bit for bit only where asked: at head_dim <= 64 the default backward with dropout
    # sums dq by atomics (examples/attention.py's default_config)
    was = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        for s in (seed, seed, seed + 1):
            o, lse = A.forward(q, k, v, False, None, p, s)
            runs.append((o,) + A.backward(q, k, v, o, lse, do, False, None, p, s))
    finally:
        torch.use_deterministic_algorithms(was[0], warn_only=was[1])
    same = all(torch.equal(a, b) for a, b in zip(runs[0], runs[1]))
    res.record(same, "same seed twice, deterministic algorithms: o, dq, dk, dv bit-identical (T=%d, D=%d)" % (T, D))
    o, lse = A.forward(q, k, v, False, None, p, seed)
    fast = (o,) + A.backward(q, k, v, o, lse, do, False, None, p, seed)
    ulp = 2.0 ** -8 if q.dtype == torch.bfloat16 else 2.0 ** -11
    close = all(float((a.float() - b.float()).abs().max()) <= 4 * ulp * float(b.float().abs().max())
                for a, b in zip(fast[1:], runs[0][1:]))
    res.record(torch.equal(fast[0], runs[0][0]) and close,
               "same seed, default algorithms (maybe another backward): o bit-identical, dq, dk, dv within 4 ulp "
               "of their largest element (T=%d, D=%d)" % (T, D))
    m1 = A.dropout_mask(B, H, T, p, seed, device)
    m2 = A.dropout_mask(B, H, T, p, seed + 1, device)
    differ = float((m1 != m2).float().mean())
    # independent masks differ on a share 2 p (1 - p) = 0.42 of the elements
    res.record(abs(differ - 2 * p * (1 - p)) < 0.05 and not torch.equal(runs[0][0], runs[2][0]),
               "another seed, another mask: %.3f of the elements differ (expected %.2f)" % (differ, 2 * p * (1 - p)))
    n = m1.numel()
    rate = float(m1.float().mean())
    sigma = math.sqrt(p * (1 - p) / n)
    res.record(abs(rate - (1 - p)) <= 4 * sigma,
               "keep rate %.5f over %d elements, 1 - p = %.2f, within 4 sigma (%.5f)" % (rate, n, 1 - p, 4 * sigma))
    for bh in (0, B * H - 1):
        want = mask_by_definition(seed, bh, T, p)
        got = m1.reshape(B * H, T, T)[bh].cpu().numpy()
        bad = int((got != want).sum())
        res.record(bad == 0, "mask of head %d (T=%d) against the definition in Python: %d of %d differ"
                   % (bh, T, bad, T * T))


def cases_for(torch, mode):
    f16, b16 = torch.float16, torch.bfloat16
    if mode == "cpu":  # the interpreter: small shapes
        return [(1, 2, 1, 16, False, 0.0, f16, False), (1, 2, 17, 32, True, 0.3, b16, True),
                (2, 2, 70, 16, False, 0.3, f16, False), (1, 2, 70, 32, True, 0.0, b16, True),
                (1, 3, 130, 16, True, 0.3, f16, False)]
    Ts = (1, 17, 100, 255, 513, 1000, 64, 384)
    out, i = [], 0
    for D in (32, 64, 128, 256):
        for causal in (False, True):
            for dtype, p in ((f16, 0.0), (b16, 0.3), (b16, 0.0), (f16, 0.3)):
                if mode == "quick" and (dtype, p) in ((b16, 0.0), (f16, 0.3)):
                    continue
                out.append((2, 3, Ts[i % len(Ts)], D, causal, p, dtype, i % 3 == 2))
                i += 1
    out.append((1, 4, 2048, 64, True, 0.1, b16, True))  # longer: many key blocks per program
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cpu", action="store_true", help="run on the CPU interpreter with torch CPU tensors")
    ap.add_argument("--quick", action="store_true", help="fewer cases")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("SKIP: test_attention needs torch (and a GPU, or --cpu)")
        return 0
    if not args.cpu and not torch.cuda.is_available():
        print("SKIP: test_attention: no CUDA GPU (--cpu runs it on the interpreter)")
        return 0
    A = _import_nereid()
    device = "cpu" if args.cpu else "cuda"
    if args.cpu:
        os.environ.setdefault("NEREID_DEVICE", "cpu")
    gen = torch.Generator(device=device)
    gen.manual_seed(2024)
    res = Results(args.verbose)
    print("test_attention on %s (torch %s)" % (torch.cuda.get_device_name() if device == "cuda" else "the CPU interpreter",
                                              torch.__version__))
    for c in cases_for(torch, "cpu" if args.cpu else ("quick" if args.quick else "full")):
        run_case(torch, A, res, c, device, gen)
    try:
        if args.cpu:
            check_dropout_properties(torch, A, res, device, gen, 70, 16, torch.float16)
        else:
            check_dropout_properties(torch, A, res, device, gen, 300, 64, torch.bfloat16)
    except Exception as e:  # noqa: BLE001
        res.record(False, "dropout properties", "%s: %s" % (type(e).__name__, str(e)[:2000]))
    print("test_attention: %d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
