#!/usr/bin/env python3
"""tl_parity.py - the builtins of issue 13 through Triton and through Nereid, same kernels,
same tensors, on the GPU; or through Nereid's CPU interpreter against NumPy.

    python3 tests/gpu/tl_parity.py [--lib build-gpu/libnereid.so] [--quick] [--filter TEXT]
    python3 tests/gpu/tl_parity.py --cpu-only [--filter TEXT]      (no GPU, Triton or torch needed)

The kernels are tests/gpu/tl_parity_kernels.py: plain Triton (`import triton`,
`@triton.jit`), each a small real-world kernel using one or more of tl.cumsum,
tl.cumprod, tl.associative_scan, tl.reduce with a combine function, tl.xor_sum, tl.sort,
tl.flip, tl.topk, tl.clamp (propagate_nan), tl.join/split/interleave, tl.gather,
tl.histogram, libdevice math, tl.inline_asm_elementwise, tl.make_block_ptr/tl.advance
with boundary_check, tl.make_tensor_descriptor, host-made tensor descriptors
(triton.tools.tensor_descriptor.TensorDescriptor arguments, the same objects given to
both compilers), the fp8 formats (e4m3, e5m2, e4b15; e4b8 and e5b16, which Triton has on
AMD GPUs only) and tl.debug_barrier. The
file is loaded twice: once as it is (Triton's jit), once with `triton.jit` bound to
`nereid.jit` (Nereid's drop-in: the same function source, the same @triton.jit helpers
such as combine functions, compiled by Nereid). Each case launches both on copies of
the same torch CUDA tensors (odd sizes, 1 to 8 warps, 2-D cases along each axis) and
compares every output: bit for bit where the operation is exact (integers, scans of
integers, sort, gather, histogram, flip, join/split, copies, fp8 conversions), within a
tolerance stated and justified at the case where it is float math (summation order,
libdevice ulps). Each case is also compared with a NumPy reference, which says which
side is off when the two differ.

Prints one line per case and a summary line last:
    tl_parity: N of M cases match Triton[, R rejected by Triton][, T where Triton differs
               from the reference and Nereid does not][, F FAILED]
A case Triton itself rejects (a builtin or an argument this Triton version does not
have, or one of Nereid's documented extensions such as tl.sort along dim 0) is reported
as REJECTED with Triton's message, and Nereid's result is checked against the NumPy
reference instead: it is not a match, and not a failure unless Nereid is wrong too. A
case where the two differ, Nereid's result matches the reference and Triton's does not,
is reported as TRITON-OFF with both comparisons (seen with Triton 3.6 on an H200: a
tensor-descriptor store writing the padding past the descriptor's shape, and the bytes of
an fp16 -> fp8 conversion read back through a uint8 bitcast that disagree with the
converted values): not a match, and not a failure.
Exit status 1 on any mismatch or Nereid error, 0 otherwise (and 0 with a SKIP line
where there is no GPU, PyTorch or Triton, unless NEREID_REQUIRE_GPU=1).

--cpu-only runs every kernel through @nereid.jit on the CPU interpreter with NumPy arrays
and compares it with the NumPy reference (make test runs it through
python/tests/test_tl_parity.py): the summary line is then
    tl_parity (cpu): N of M cases match the NumPy reference[, S skipped]
Cases the interpreter cannot run are skipped with the reason (inline assembly: the
launch must be refused with the documented message, which is checked; fp8 tensors as
arguments: NumPy has no fp8 dtype). Host descriptors are nereid.TensorDescriptor objects
over the NumPy arrays there (Triton's class wants tensors).

Options: --lib PATH (libnereid.so; its folder's python/ is put first on sys.path, so
build-gpu/libnereid.so gives build-gpu/python's package), --quick (one warp count per
case), --filter TEXT (cases whose name contains TEXT; a comma separates alternatives),
--list (the case names), -v (every case's errors in full), --dump DIR (every kernel
variant, typed as @nereid.jit types it on the GPU, into DIR with a compile.sh that runs
`nereid compile` on each: tools/run-tests.sh compiles them for sm_80 and sm_90a; the
kernels with host descriptor parameters only with DUMP_HOST_DESC below).
"""
import argparse
import importlib.util
import math
import os
import sys
import traceback
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "tl_parity_kernels.py")
U24 = 2.0 ** -24  # fp32's unit roundoff


# ---------------------------------------------------------------------------------------
# comparisons
# ---------------------------------------------------------------------------------------

def _uint_view(a):
    a = np.ascontiguousarray(a)
    return a.view(np.dtype("u%d" % a.dtype.itemsize)) if a.dtype.itemsize in (1, 2, 4, 8) else a


class Exact:
    """Bit for bit (NaN payloads and signs of zero included)."""
    what = "bit-exact"

    def bad(self, got, want):
        want = np.asarray(want).astype(got.dtype) if np.asarray(want).dtype != got.dtype else want
        return _uint_view(got) != _uint_view(want), None


class SameNaN:
    """Bit for bit, except that any NaN matches any NaN: NaN payloads are not part of the
    contract (Triton's max.NaN and cvt instructions give the canonical NaN, a select or a
    shift keeps the operand's)."""
    what = "bit-exact (NaN payloads aside)"

    def bad(self, got, want):
        want = np.asarray(want).astype(got.dtype) if np.asarray(want).dtype != got.dtype else want
        b = _uint_view(got) != _uint_view(want)
        if got.dtype.kind == "f":
            b &= ~(np.isnan(got) & np.isnan(want.astype(got.dtype)))
        return b, None


def _ulp(x, dtype):
    """The ulp of dtype at |x|'s magnitude (x in float64)."""
    fi = np.finfo(dtype)
    ax = np.abs(np.asarray(x, dtype=np.float64))
    e = np.floor(np.log2(np.maximum(ax, float(fi.tiny))))
    return np.exp2(np.maximum(e, math.log2(float(fi.tiny))) - fi.nmant)


class Ulps:
    """|got - want| <= n ulps of the output dtype at want's magnitude; NaNs in the same
    places; infinities equal."""

    def __init__(self, n, why=""):
        self.n, self.why = n, why
        self.what = "within %g ulp" % n

    def bad(self, got, want):
        g = got.astype(np.float64)
        w = np.asarray(want).astype(np.float64)
        ng, nw = np.isnan(g), np.isnan(w)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(g - w) / _ulp(w, got.dtype)
        inf = np.isinf(g) | np.isinf(w)
        b = (ng != nw) | (inf & ~ng & ~nw & (g != w)) | (~inf & ~ng & ~nw & (err > self.n))
        err = np.where(~inf & ~ng & ~nw, err, 0.0)
        return b, ("max %.3g ulp" % float(err.max())) if err.size else None


class Abs:
    """|got - want| <= tol elementwise (tol: a number or an array of the output's shape,
    computed from the inputs: a bound on the rounding error); NaNs in the same places."""

    def __init__(self, tol, why=""):
        self.tol, self.why = tol, why
        self.what = "within a bound"

    def bad(self, got, want):
        g = got.astype(np.float64)
        w = np.asarray(want).astype(np.float64)
        ng, nw = np.isnan(g), np.isnan(w)
        with np.errstate(invalid="ignore"):
            d = np.abs(g - w)
            tol = np.broadcast_to(np.asarray(self.tol, dtype=np.float64), d.shape)
            ratio = np.where(tol > 0, d / np.where(tol > 0, tol, 1), np.where(d > 0, np.inf, 0))
        b = (ng != nw) | (~ng & ~nw & ~(d <= tol))
        ratio = np.where(~ng & ~nw, ratio, 0)
        return b, ("max %.2g of the bound" % float(ratio.max())) if ratio.size else None


def compare(check, got, want):
    """(ok, text): text says how well they agree, or where they differ."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return False, "shape %s, expected %s" % (got.shape, want.shape)
    bad, how = check.bad(got, want)
    nbad = int(np.count_nonzero(bad))
    if nbad == 0:
        return True, how if how else check.what
    i = np.unravel_index(int(np.flatnonzero(bad)[0]), bad.shape)
    def show(a, v):
        if a.dtype.kind != "f":
            return repr(int(v))
        if a.dtype == got.dtype:  # the bits too
            return "%r (0x%x)" % (float(v), int(_uint_view(np.array([v], dtype=a.dtype))[0]))
        return repr(float(v))
    return False, "%d of %d differ (%s), first at %s: %s vs %s" % (
        nbad, bad.size, how or "expected " + check.what, tuple(int(x) for x in i), show(got, got[i]), show(want, want[i]))


# ---------------------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------------------

class In:
    """An input array (copied to the device for each run). view: applied to the device
    array (e.g. lambda t: t.T, a transposed view); fp8: the torch dtype ('float8_e4m3fn',
    'float8_e5m2') that the bytes are viewed as on the GPU."""

    def __init__(self, a, view=None, fp8=None):
        self.a, self.view, self.fp8 = a, view, fp8


class Out(In):
    """An output: its initial contents (a sentinel, so that unwritten elements show), the
    reference, the check against the other compiler (parity) and against the reference
    (ref_check, default: the same)."""

    def __init__(self, name, init, ref, check, ref_check=None, view=None, fp8=None):
        super().__init__(init, view, fp8)
        self.name, self.ref, self.check = name, ref, check
        self.ref_check = ref_check or check


class Desc:
    """A host tensor descriptor over an input or output (arg: an In or Out), with this
    block shape and padding, and over its first `cols` columns when cols is given (a row
    stride larger than the width; the columns past it show what is written outside the
    descriptor). Made on the device's array as a Triton user makes it:
    TensorDescriptor.from_tensor(array, block_shape, padding), with Triton's class on the
    GPU (the same object goes to Triton and to Nereid, which reads it by its attributes)
    and nereid.TensorDescriptor on the CPU interpreter."""

    def __init__(self, arg, block_shape, padding="zero", cols=None):
        self.arg, self.block_shape, self.padding, self.cols = arg, list(block_shape), padding, cols


class Case:
    def __init__(self, name, kernel, grid, args, constexprs=None, warps=(4,), gpu_only=None, cpu_refused=None,
                 triton_may_reject=None):
        self.name, self.kernel, self.grid, self.args = name, kernel, grid, args
        self.constexprs = constexprs or {}
        self.warps = warps
        self.gpu_only = gpu_only  # why the CPU mode cannot run it
        self.cpu_refused = cpu_refused  # the error text the CPU interpreter must give
        self.triton_may_reject = triton_may_reject  # why Triton may refuse it (a Nereid extension)

    def outputs(self):
        args = [a.arg if isinstance(a, Desc) else a for a in self.args]
        return [(i, a) for i, a in enumerate(args) if isinstance(a, Out)]


def _rng(name):
    """A generator seeded from the name: the same inputs on every run."""
    return np.random.default_rng([ord(c) for c in name])


def f32(a):
    return np.asarray(a, dtype=np.float32)


def pad2(x, shape, value):
    out = np.full(shape, value, dtype=x.dtype)
    out[:x.shape[0], :x.shape[1]] = x
    return out


SENT_F = np.float32(-12345.0)  # output sentinels
SENT_I = -77


def sent(shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.full(shape, SENT_F, dtype=dtype)
    if dtype.kind == "u":
        return np.full(shape, 0xA5, dtype=dtype)
    return np.full(shape, SENT_I, dtype=dtype)


# ---- fp8 reference (compiler/support/fp8.h's rules, written again): round to nearest from the
# exact value, ties to even (e4b15: away from zero, as Triton's conversion rounds);
# magnitudes above sat (the largest finite value; e4b15: 1.75, where Triton clamps) and
# infinities saturate, but the FNUZ formats (e4b8, e5b16) turn infinities into their NaN
# 0x80 and have no -0; a NaN gives nan. nans: which bytes are NaN ("7f": 0x7F and 0xFF;
# "ieee": exponent all ones and a fraction, beside the infinities; "80": 0x80; "none") --
FP8 = {"e4m3": dict(mbits=3, bias=7, sat=448.0, satcode=0x7E, nans="7f", away=False, nan=0x7F),
       "e5m2": dict(mbits=2, bias=15, sat=57344.0, satcode=0x7B, nans="ieee", away=False, nan=0x7F),
       "e4b15": dict(mbits=3, bias=15, sat=1.75, satcode=0x7E, nans="none", away=True, nan=0x7E),
       "e4b8": dict(mbits=3, bias=8, sat=240.0, satcode=0x7F, nans="80", away=False, nan=0x80),
       "e5b16": dict(mbits=2, bias=16, sat=57344.0, satcode=0x7F, nans="80", away=False, nan=0x80)}
# Triton's spellings; Triton has e4b8 and e5b16 (AMD's FNUZ formats) on AMD GPUs only
FP8_DTYPE = {"e4m3": "float8e4nv", "e5m2": "float8e5", "e4b15": "float8e4b15", "e4b8": "float8e4b8",
             "e5b16": "float8e5b16"}
FP8_AMD_ONLY = "Triton has fp8e4b8 and fp8e5b16 (AMD's FNUZ formats) on AMD GPUs only"


def fp8_encode(x, fmt):
    f = FP8[fmt]
    emin = 1 - f["bias"]
    out = np.zeros(np.shape(x), dtype=np.uint8)
    flat = np.asarray(x, dtype=np.float64).ravel()
    res = out.ravel()
    for k, v in enumerate(flat):
        if math.isnan(v) or (math.isinf(v) and f["nans"] == "80"):
            res[k] = f["nan"]
            continue
        s = 0x80 if math.copysign(1.0, v) < 0 else 0
        a = abs(v)
        if a >= f["sat"]:
            res[k] = s | f["satcode"]
            continue
        e = math.frexp(a)[1] - 1 if a else emin
        q = 2.0 ** (max(e, emin) - f["mbits"])
        # a / q is exact (a power of two) and below 2^(mbits + 2): so is a / q + 0.5
        r = (math.floor(a / q + 0.5) if f["away"] else float(np.rint(a / q))) * q
        if r == 0:
            res[k] = 0 if f["nans"] == "80" else s
            continue
        e = math.frexp(r)[1] - 1
        if e < emin:  # subnormal
            code = int(r / 2.0 ** (emin - f["mbits"]))
        else:
            code = ((e + f["bias"]) << f["mbits"]) | int(round((r / 2.0 ** e - 1) * (1 << f["mbits"])))
        res[k] = s | code
    return out


def fp8_decode(b, fmt):
    f = FP8[fmt]
    b = np.asarray(b, dtype=np.uint8)
    out = np.zeros(b.shape, dtype=np.float64)
    flat, res = b.ravel(), out.ravel()
    m = f["mbits"]
    for k, byte in enumerate(flat):
        byte = int(byte)
        s = -1.0 if byte & 0x80 else 1.0
        e = (byte >> m) & ((1 << (7 - m)) - 1)
        frac = byte & ((1 << m) - 1)
        emax_field = (1 << (7 - m)) - 1
        if f["nans"] == "7f" and e == emax_field and frac == (1 << m) - 1:
            res[k] = math.nan
        elif f["nans"] == "80" and byte == 0x80:
            res[k] = math.nan
        elif f["nans"] == "ieee" and e == emax_field:
            res[k] = s * math.inf if frac == 0 else math.nan
        elif e == 0:
            res[k] = s * frac * 2.0 ** (1 - f["bias"] - m)
        else:
            res[k] = s * (1 + frac / (1 << m)) * 2.0 ** (e - f["bias"])
    return out


# ---- the cases ----------------------------------------------------------------------------

# CUDA's documented maximum fp32 errors (CUDA C++ Programming Guide, "Mathematical
# Functions": ulps from the correctly rounded result, full range). Triton calls these
# libdevice functions; Nereid calls the same ones when it finds libdevice.10.bc (then the
# two agree bit for bit), else its own routines, correctly rounded by measurement and
# within 1 ulp by design (docs/language.md section 13). So the two differ by at most
# CUDA's bound + 1 ulp: that is the parity tolerance. Against the float64 NumPy reference
# the CPU interpreter is within 0.5 ulp (+ double rounding): 1 ulp.
CUDA_ULP = {"erf": 2, "erfc": 4, "tanh": 2, "sinh": 3, "cosh": 2, "tan": 4, "asin": 2, "acos": 2, "atan": 2,
            "asinh": 3, "acosh": 4, "atanh": 3, "log10": 2, "log1p": 1, "expm1": 1, "exp10": 2, "cbrt": 1,
            "pow": 4, "atan2": 3, "hypot": 3, "tl.erf": 2}
# libdevice.exp/log/sin/cos are tl.exp/log/sin/cos in Nereid (the fast GPU versions of
# docs/language.md section 13: exp within 3 + 1.25 |x| ulp, log/sin/cos within 2), where
# Triton calls __nv_expf (2 ulp), __nv_logf (1), __nv_sinf, __nv_cosf (2): the sum of the
# two bounds, at |x| <= 10 for exp.
MAPPED_ULP = {"exp": 3 + 1.25 * 10 + 2, "log": 2 + 1, "sin": 2 + 2, "cos": 2 + 2}


def _erf(x):
    return np.array([math.erf(v) for v in np.ravel(x)]).reshape(np.shape(x))


def _erfc(x):
    return np.array([math.erfc(v) for v in np.ravel(x)]).reshape(np.shape(x))


UNARY = {  # FN: (input range, float64 reference)
    "erf": ((-4, 4), _erf), "tl.erf": ((-4, 4), _erf), "erfc": ((-2, 6), _erfc), "tanh": ((-6, 6), np.tanh),
    "sinh": ((-8, 8), np.sinh), "cosh": ((-8, 8), np.cosh), "tan": ((-1.5, 1.5), np.tan),
    "asin": ((-1, 1), np.arcsin), "acos": ((-1, 1), np.arccos), "atan": ((-20, 20), np.arctan),
    "asinh": ((-20, 20), np.arcsinh), "acosh": ((1, 20), np.arccosh), "atanh": ((-0.99, 0.99), np.arctanh),
    "log10": ((1e-3, 1e3), np.log10), "log1p": ((-0.9, 10), np.log1p), "expm1": ((-5, 5), np.expm1),
    "exp10": ((-10, 10), lambda x: np.power(10.0, x)), "cbrt": ((-100, 100), np.cbrt),
    "exp": ((-10, 10), np.exp), "log": ((1e-3, 1e3), np.log), "sin": ((-10, 10), np.sin), "cos": ((-10, 10), np.cos),
}
ROUNDING = {"trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint,
            "round": lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x)}  # round: half away from zero


def libdevice_cases():
    cases = []
    n, B = 1000, 256
    grid = (math.ceil(n / B),)
    for fn, ((lo, hi), ref) in UNARY.items():
        rng = _rng("ld" + fn)
        if fn in ("log10", "log"):
            x = f32(np.exp(rng.uniform(np.log(lo), np.log(hi), n)))
        else:
            x = f32(rng.uniform(lo, hi, n))
        want = ref(x.astype(np.float64))
        parity = Ulps(MAPPED_ULP[fn]) if fn in MAPPED_ULP else Ulps(CUDA_ULP[fn] + 1)
        cases.append(Case("libdevice.%s fp32 [%d]" % (fn, n), "libdevice_unary", grid,
                          [In(x), Out("y", sent(n, np.float32), want, parity, Ulps(1)), n],
                          dict(FN=fn, BLOCK=B), warps=(4, 1, 8) if fn == "erf" else (4,)))
    # fp64: libdevice's double functions on both sides (Nereid on the GPU needs
    # libdevice.10.bc for them: run_gpu points NEREID_LIBDEVICE at Triton's copy when
    # CUDA's is not found); CUDA's fp64 bounds are 2 ulp or less for these: 4 between the
    # two. On the CPU Nereid calls the C library's double function: within glibc's stated
    # bounds (its manual's table of errors: erf 1, tanh 2, log1p 1, cbrt 4 ulp on x86-64)
    # of the exact value, plus 1 for the NumPy reference's own error.
    for fn, glibc in (("erf", 1), ("tanh", 2), ("log1p", 1), ("cbrt", 4)):
        (lo, hi), ref = UNARY[fn]
        x = _rng("ld64" + fn).uniform(lo, hi, n)
        cases.append(Case("libdevice.%s fp64 [%d]" % (fn, n), "libdevice_unary", grid,
                          [In(x), Out("y", np.full(n, -1.0), ref(x), Ulps(4), Ulps(glibc + 1)), n],
                          dict(FN=fn, BLOCK=B)))
    # rounding to integers is exact everywhere; halves and integers included
    for fn, ref in ROUNDING.items():
        rng = _rng("ldr" + fn)
        x = f32(np.concatenate([rng.uniform(-20, 20, n - 200), np.arange(-50, 50) + 0.5, np.arange(-50, 50),
                                ]))[:n]
        x[:4] = [0.49999997, -0.49999997, 2.5, -2.5]
        cases.append(Case("libdevice.%s fp32 [%d]" % (fn, n), "libdevice_unary", grid,
                          [In(x), Out("y", sent(n, np.float32), f32(ref(x.astype(np.float64))), Exact()), n],
                          dict(FN=fn, BLOCK=B)))
    # two operands
    rng = _rng("ldbin")
    binary = {
        "pow": (f32(rng.uniform(0.01, 10, n)), f32(rng.uniform(-4, 4, n)), np.power),
        "atan2": (f32(rng.uniform(-5, 5, n)), f32(rng.uniform(-5, 5, n)), np.arctan2),
        "hypot": (f32(rng.uniform(-1e3, 1e3, n)), f32(rng.uniform(-1e3, 1e3, n)), np.hypot),
        "copysign": (f32(rng.uniform(-9, 9, n)), f32(rng.uniform(-9, 9, n)), np.copysign),
    }
    for fn, (x, z, ref) in binary.items():
        want = ref(x.astype(np.float64), z.astype(np.float64))
        chk = Exact() if fn == "copysign" else Ulps(CUDA_ULP[fn] + 1)
        cases.append(Case("libdevice.%s fp32 [%d]" % (fn, n), "libdevice_binary", grid,
                          [In(x), In(z), Out("y", sent(n, np.float32), f32(want) if fn == "copysign" else want, chk,
                                             None if fn == "copysign" else Ulps(1)), n],
                          dict(FN=fn, BLOCK=B)))
    # pow of a negative base to integer exponents (C99: a real result)
    x = f32(rng.uniform(-3, 3, n))
    z = f32(rng.integers(-3, 4, n))
    cases.append(Case("libdevice.pow fp32 negative base, integer exponents [%d]" % n, "libdevice_binary", grid,
                      [In(x), In(z), Out("y", sent(n, np.float32), np.power(x.astype(np.float64), z.astype(np.float64)),
                                         Ulps(CUDA_ULP["pow"] + 1), Ulps(1)), n], dict(FN="pow", BLOCK=B)))
    return cases


def _bits_inputs(dt, n):
    """x: specials, subnormals, halves and values over the whole exponent range; z: a second
    operand with zeros, infinities and NaNs; k: exponents that overflow and underflow."""
    rng = _rng("ldbits" + np.dtype(dt).name)
    fi = np.finfo(dt)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, fi.tiny, -fi.tiny, fi.tiny * fi.eps, -fi.tiny * fi.eps,
                fi.max, -fi.max, 1.0, -1.0, 2.5, -2.5, 0.5, -0.5, 1.5, 3.5, -3.5]
    x = (rng.standard_normal(n) * np.exp(rng.uniform(-80, 80, n))).astype(dt)
    x[:len(specials)] = specials
    x[100:140] = (rng.standard_normal(40) * fi.tiny * rng.uniform(0, 1, 40)).astype(dt)  # subnormals
    x[140:200] = np.round(rng.uniform(-50, 50, 60)) + 0.5  # ties for the roundings
    zs = [1.0, -1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, np.inf, 0.0, 1.0, -np.inf, 2.5, 0.0, np.nan, 3.0, -0.0]
    z = (rng.standard_normal(n) * 7).astype(dt)
    z[:len(zs)] = zs
    lim = 300 if dt == np.float32 else 2200
    k = rng.integers(-lim, lim, n).astype(np.int32)
    k[:16] = [0, 5, 3, -3, 1, 100, -100, 30, -30, -1, 1, 127, -150, 200, -200, -1]
    return x, z, k


def libdevice_bits_cases():
    """libdevice's bit-level functions (Nereid writes them in the language,
    lang/stdlib/libdevice.nr; Triton calls libdevice's): results bit for bit alike, NaNs
    anywhere alike, against NumPy. Triton flushes fp32 subnormals in ilogb, ldexp,
    nextafter and fmod (libdevice under its default enable_reflect_ftz); Nereid does not,
    so those four differ from Triton's and match NumPy's (TRITON-OFF)."""
    cases = []
    n, B = 1000, 256
    grid = (math.ceil(n / B),)
    for dt in (np.float32, np.float64):
        x, z, k = _bits_inputs(dt, n)
        small = np.where(np.abs(x) < 1e9, x, 0).astype(dt)  # llrint/llround: in int64's range
        with np.errstate(all="ignore"):
            fin = np.isfinite(x) & (x != 0)
            ilogb = np.where(fin, np.frexp(x)[1] - 1, np.where(np.isinf(x), 2**31 - 1, -2**31)).astype(np.int32)
            ints = {"isinf": (x, np.isinf(x)), "isnan": (x, np.isnan(x)), "signbit": (x, np.signbit(x)),
                    "ilogb": (x, ilogb)}
            s64 = small.astype(np.float64)  # exact: the half added below must not round
            longs = {"llrint": (small, np.rint(s64)),
                     "llround": (small, np.copysign(np.floor(np.abs(s64) + 0.5), s64))}
            floats = {"ldexp": np.ldexp(x, k), "nextafter": np.nextafter(x, z), "fmod": np.fmod(x, z),
                      "fdim": np.where(np.isnan(x) | np.isnan(z), np.nan, np.where(x > z, x - z, 0)).astype(dt)}
        name = "fp32" if dt == np.float32 else "fp64"
        for fn, (xin, want) in ints.items():
            cases.append(Case("libdevice.%s %s [%d]" % (fn, name, n), "libdevice_bits", grid,
                              [In(xin), In(z), In(k), Out("y", sent(n, np.int32), want.astype(np.int32), Exact()), n],
                              dict(FN=fn, BLOCK=B)))
        for fn, (xin, want) in longs.items():
            cases.append(Case("libdevice.%s %s [%d]" % (fn, name, n), "libdevice_bits", grid,
                              [In(xin), In(z), In(k), Out("y", sent(n, np.int64), want.astype(np.int64), Exact()), n],
                              dict(FN=fn, BLOCK=B)))
        # NaN payloads are the implementation's (NumPy's and libdevice's differ): Ulps(0) is
        # equality with NaNs in the same places
        for fn, want in floats.items():
            cases.append(Case("libdevice.%s %s [%d]" % (fn, name, n), "libdevice_bits", grid,
                              [In(x), In(z), In(k), Out("y", sent(n, dt), want.astype(dt), Ulps(0)), n],
                              dict(FN=fn, BLOCK=B)))
    return cases


def _dot_bound(a, b):
    # gt_dot_bound of tests/gpu/gpu_test.h: any summation order of the K exact products
    # (fp16 inputs) in fp32 is within 2 K u sum|a b| of the exact sum (the tensor cores
    # truncate: within 2 units of u per add, Fasi et al. 2021), two orders within twice that
    K = a.shape[1]
    return 4.0 * K * U24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))


def gelu_cases():
    cases = []
    M, N, K = 61, 45, 70
    rng = _rng("gelu")
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    bias = f32(rng.uniform(-1, 1, N))
    x = a.astype(np.float64) @ b.astype(np.float64) + bias
    D = _dot_bound(a, b)
    for approx in ("erf", "tanh"):
        if approx == "tanh":
            y = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
        else:
            y = 0.5 * x * (1 + _erf(x / math.sqrt(2)))
        # the dot's summation bound D, carried through GELU (|gelu'| <= 1.13), plus the
        # epilogue: about ten fp32 roundings and the erf/tanh error (2 ulp), each at most
        # u times magnitudes below (1 + |x|)^2 (the tanh form's x^3 term): 64 u (1 + |x|)^2
        tol = 2.5 * D + 64 * U24 * (1 + np.abs(x)) ** 2
        cases.append(Case("matmul+bias+GELU(%s) fp16->fp32 [%dx%dx%d]" % (approx, M, N, K), "matmul_bias_gelu",
                          (2, 2), [In(a), In(b), In(bias), Out("c", sent((M, N), np.float32), y, Abs(tol)),
                                   M, N, K, K, 1, N, 1, N, 1],
                          dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, APPROX=approx), warps=(4, 1, 8)))
    return cases


def _scan_ref(x, axis, reverse, op):
    f = np.cumprod if op == "cumprod" else np.cumsum
    if reverse:
        return np.flip(f(np.flip(x, axis), axis=axis), axis)
    return f(x, axis=axis)


def scan_cases():
    cases = []
    Bt, M, N = 3, 37, 50
    BM = BN = 64
    grid = (Bt,)
    rng = _rng("scan")
    xi = rng.integers(-1000, 1000, (Bt, M, N)).astype(np.int32)
    xf = f32(rng.uniform(-1, 1, (Bt, M, N)))
    xp = f32(rng.uniform(0.9, 1.1, (Bt, M, N)))
    x8 = rng.integers(-128, 128, (Bt, M, N)).astype(np.int8)
    xo = (2 * rng.integers(-4, 4, (Bt, M, N)) + 1).astype(np.int32)  # odd: products never vanish mod 2^32

    def add(label, x, out_dtype, op, axis, rev, check, ref_check=None, warps=(4,)):
        with np.errstate(over="ignore"):
            want = _scan_ref(x.astype(out_dtype) if x.dtype.kind != "f" else x.astype(np.float64), axis + 1, rev, op)
        if out_dtype != np.float32:
            want = want.astype(out_dtype)
        cases.append(Case("%s %s axis=%d reverse=%d [%dx%dx%d]" % (op, label, axis, rev, Bt, M, N), "scan_tile", grid,
                          [In(x), Out("y", sent((Bt, M, N), out_dtype), want, check, ref_check), M, N, M * N, N],
                          dict(OP=op, AXIS=axis, REVERSE=rev, BLOCK_M=BM, BLOCK_N=BN), warps=warps))

    for axis in (0, 1):
        for rev in (0, 1):
            add("i32", xi, np.int32, "cumsum", axis, rev, Exact(), warps=(4, 1, 8) if rev == 0 else (4,))
    add("i8 (sums in i32)", x8, np.int32, "cumsum", 1, 0, Exact())
    # float sums: any order of the L <= 64 additions is within (L - 1) u sum|x_j| of the
    # exact prefix sum (Higham, Accuracy and Stability, 4.2), two orders within twice that
    for axis in (0, 1):
        L = (M, N)[axis]
        tol = 2 * L * U24 * _scan_ref(np.abs(xf.astype(np.float64)), axis + 1, 0, "cumsum")
        add("fp32", xf, np.float32, "cumsum", axis, 0, Abs(tol), warps=(4, 8))
    # float products of L factors: each order within L u |p| relatively; two within twice
    for axis in (0, 1):
        L = (M, N)[axis]
        tol = 2 * L * U24 * np.abs(_scan_ref(xp.astype(np.float64), axis + 1, 0, "cumprod"))
        add("fp32", xp, np.float32, "cumprod", axis, 0, Abs(tol))
    add("i32 (wraps)", xo, np.int32, "cumprod", 1, 0, Exact())
    add("i32 (wraps)", xo, np.int32, "cumprod", 0, 1, Exact())
    # a row per program (cumulative probabilities): L = 1000
    R, L, B = 19, 1000, 1024
    p = f32(rng.uniform(0, 1, (R, L)))
    p /= p.sum(axis=1, keepdims=True)
    want = np.cumsum(p.astype(np.float64), axis=1)
    cases.append(Case("cumsum rows fp32 [%dx%d]" % (R, L), "cumsum_rows", (R,),
                      [In(p), Out("y", sent((R, L), np.float32), want, Abs(2 * L * U24 * want)), L, L],
                      dict(BLOCK=B), warps=(4, 1, 8)))
    return cases


def _recurrence_ref(a, b, axis, rev, dtype):
    a = np.moveaxis(a, axis, 0)
    b = np.moveaxis(b, axis, 0)
    h = np.zeros_like(b)
    cur = np.zeros(b.shape[1:], dtype=dtype)
    order = range(a.shape[0] - 1, -1, -1) if rev else range(a.shape[0])
    with np.errstate(over="ignore"):
        for t in order:
            cur = (a[t] * cur + b[t]).astype(dtype)
            h[t] = cur
    return np.moveaxis(h, 0, axis)


def recurrence_cases():
    cases = []
    M, N = 37, 50
    rng = _rng("recurrence")
    af = f32(rng.uniform(0.5, 1.0, (M, N)))
    bf = f32(rng.uniform(-1, 1, (M, N)))
    ai = rng.integers(-2 ** 31, 2 ** 31, (M, N)).astype(np.int32)
    bi = rng.integers(-2 ** 31, 2 ** 31, (M, N)).astype(np.int32)
    for axis in (0, 1):
        for rev in (0, 1):
            L = (M, N)[axis]
            want = _recurrence_ref(af.astype(np.float64), bf.astype(np.float64), axis, rev, np.float64)
            g = _recurrence_ref(np.abs(af.astype(np.float64)), np.abs(bf.astype(np.float64)), axis, rev, np.float64)
            # each order's error is within about 2 L u times the recurrence run on the
            # absolute values (every product and sum rounded once per level); two orders
            # within twice that
            tol = 4 * L * U24 * g
            cases.append(Case("associative_scan linear recurrence fp32 axis=%d reverse=%d [%dx%d]" % (axis, rev, M, N),
                              "linear_recurrence", (1,),
                              [In(af), In(bf), Out("h", sent((M, N), np.float32), want, Abs(tol)), M, N, N],
                              dict(AXIS=axis, REVERSE=rev, BLOCK_M=64, BLOCK_N=64),
                              warps=(4, 1, 8) if (axis, rev) == (0, 0) else (4,)))
            # in wrapping i32 the composition of affine maps is exactly associative
            want = _recurrence_ref(ai, bi, axis, rev, np.int32)
            cases.append(Case("associative_scan linear recurrence i32 axis=%d reverse=%d [%dx%d]" % (axis, rev, M, N),
                              "linear_recurrence", (1,),
                              [In(ai), In(bi), Out("h", sent((M, N), np.int32), want, Exact()), M, N, N],
                              dict(AXIS=axis, REVERSE=rev, BLOCK_M=64, BLOCK_N=64)))
    return cases


def reduce_cases():
    cases = []
    M, N = 37, 50
    rng = _rng("reduce")
    x = f32(rng.integers(0, 10, (M, N)))  # many ties: the first index must win
    for axis in (0, 1):
        want_v = x.max(axis=axis)
        want_i = x.argmax(axis=axis).astype(np.int32)
        L = (N, M)[axis]
        cases.append(Case("reduce argmax combine fp32 axis=%d [%dx%d]" % (axis, M, N), "argmax_reduce", (1,),
                          [In(x), Out("value", sent(L, np.float32), want_v, Exact()),
                           Out("index", sent(L, np.int32), want_i, Exact()), M, N, N],
                          dict(AXIS=axis, BLOCK_M=64, BLOCK_N=64), warps=(4, 1, 8) if axis == 1 else (4, 2)))
    xi = rng.integers(-2 ** 31, 2 ** 31, (M, N)).astype(np.int32)
    for axis in (0, 1, 2):
        if axis == 2:
            want = np.array([np.bitwise_xor.reduce(xi.ravel())], dtype=np.int32)
        else:
            want = np.bitwise_xor.reduce(xi, axis=axis).astype(np.int32)
        cases.append(Case("xor_sum i32 axis=%s [%dx%d]" % ("None" if axis == 2 else axis, M, N), "xor_checksum", (1,),
                          [In(xi), Out("x", sent(want.shape, np.int32), want, Exact()), M, N, N],
                          dict(AXIS=axis, BLOCK_M=64, BLOCK_N=64), warps=(4, 1, 8) if axis == 0 else (4,)))
    xu = rng.integers(0, 256, (M, N)).astype(np.uint8)
    cases.append(Case("xor_sum u8 axis=1 [%dx%d]" % (M, N), "xor_checksum", (1,),
                      [In(xu), Out("x", sent(M, np.uint8), np.bitwise_xor.reduce(xu, axis=1), Exact()), M, N, N],
                      dict(AXIS=1, BLOCK_M=64, BLOCK_N=64)))
    return cases


def sort_cases():
    cases = []
    M, N = 37, 50
    rng = _rng("sort")
    data = {
        # no NaNs and no zeros of both signs: Triton leaves their order open
        "fp32": (f32(rng.normal(0, 100, (M, N))), float("inf"), float("-inf")),
        "fp16": (rng.normal(0, 100, (M, N)).astype(np.float16), float("inf"), float("-inf")),
        "i32": (rng.integers(-50, 50, (M, N)).astype(np.int32), 2 ** 31 - 1, -2 ** 31),  # duplicates
        "u8": (rng.integers(0, 256, (M, N)).astype(np.uint8), 255, 0),
    }
    for label, (x, hi, lo) in data.items():
        for dim, desc in ((1, 0), (1, 1), (0, 0), (0, 1)):
            if label in ("fp16", "u8") and dim == 0:
                continue
            pad = lo if desc else hi
            xp = pad2(x, (64, 64), pad)
            s = np.sort(xp, axis=dim, kind="stable")
            if desc:
                s = np.flip(s, axis=dim)
            want = s[:M, :N]
            cases.append(Case("sort %s dim=%d descending=%d [%dx%d]" % (label, dim, desc, M, N), "sort_tile", (1,),
                              [In(x), Out("y", sent((M, N), x.dtype), want, Exact()), M, N, N],
                              dict(PAD=pad, DIM=dim, DESCENDING=desc, BLOCK_M=64, BLOCK_N=64),
                              warps=(4, 1, 8) if (label, dim, desc) == ("fp32", 1, 0) else (4,),
                              triton_may_reject="Triton sorts along the last dim only (a Nereid extension)"
                              if dim == 0 else None))
    for label, x in (("i32", data["i32"][0]), ("fp16", data["fp16"][0])):
        for dim in (1, 0):
            want = np.flip(pad2(x, (64, 64), 0), axis=dim)[:M, :N]
            cases.append(Case("flip %s dim=%d [%dx%d]" % (label, dim, M, N), "flip_tile", (1,),
                              [In(x), Out("y", sent((M, N), x.dtype), want, Exact()), M, N, N],
                              dict(DIM=dim, BLOCK_M=64, BLOCK_N=64),
                              warps=(4, 1, 8) if (label, dim) == ("i32", 1) else (4,),
                              triton_may_reject="older Tritons flip along the last dim only" if dim == 0 else None))
    x = data["fp32"][0]
    for K in (8, 2):
        want = -np.sort(-pad2(x, (64, 64), -np.inf), axis=1)[:M, :K]
        cases.append(Case("topk fp32 k=%d [%dx%d]" % (K, M, N), "topk_rows", (1,),
                          [In(x), Out("y", sent((M, K), np.float32), f32(want), Exact()), M, N, N],
                          dict(K=K, BLOCK_M=64, BLOCK_N=64), warps=(4, 1, 8) if K == 8 else (4,)))
    return cases


def clamp_cases():
    cases = []
    n, B = 1000, 256
    rng = _rng("clamp")
    x = rng.uniform(-4, 4, n)
    x[::17] = np.nan
    x[5::97] = np.inf
    x[7::97] = -np.inf
    x[11::50] = 0.0
    lo = rng.uniform(-2, -0.1, n)
    hi = rng.uniform(0.1, 2, n)
    for dt in (np.float32, np.float16):
        xs, los, his = x.astype(dt), lo.astype(dt), hi.astype(dt)
        for prop in (0, 1):
            with np.errstate(invalid="ignore"):
                want = np.minimum(np.maximum(np.where(np.isnan(xs), los, xs), los), his)
                if prop:
                    want = np.where(np.isnan(xs), np.nan, want)
            cases.append(Case("clamp %s propagate_nan=%s [%d]" % (np.dtype(dt).name, "ALL" if prop else "NONE", n),
                              "clamp_kernel", (math.ceil(n / B),),
                              [In(xs), In(los), In(his), Out("y", sent(n, dt), want.astype(dt), SameNaN()), n],
                              dict(PROPAGATE=prop, BLOCK=B), warps=(4, 1, 8) if (dt, prop) == (np.float32, 1) else (4,)))
    xs = x.astype(np.float32)
    want = np.minimum(np.maximum(np.where(np.isnan(xs), -1.5, xs), -1.5), 2.25).astype(np.float32)
    cases.append(Case("clamp fp32 constant bounds [%d]" % n, "clamp_const", (math.ceil(n / B),),
                      [In(xs), Out("y", sent(n, np.float32), want, SameNaN()), n], dict(BLOCK=B)))
    return cases


def quant_cases():
    cases = []
    rng = _rng("quant")
    R, N, B = 19, 1000, 1024
    x = f32(rng.normal(0, 3, (R, N)))
    absmax = np.maximum(np.abs(x).max(axis=1), np.float32(1e-8))
    scale = f32(absmax.astype(np.float64) / 127.0)  # fp32(a / b) through float64 is correctly rounded
    q = np.rint(f32(x.astype(np.float64) / scale[:, None].astype(np.float64))).astype(np.int8)
    cases.append(Case("quantise int8 per row (div_rn, rint) [%dx%d]" % (R, N), "quant_rowwise_int8", (R,),
                      [In(x), Out("q", sent((R, N), np.int8), q, Exact()),
                       Out("scale", sent(R, np.float32), scale, Exact()), N, N],
                      dict(BLOCK=B), warps=(4, 1, 8)))
    M, C = 37, 25
    qv = rng.integers(-8, 8, (M, 2 * C)).astype(np.int8)
    lo, hi = qv[:, 0::2].astype(np.int32), qv[:, 1::2].astype(np.int32)
    packed = ((lo & 0xF) | (hi << 4)).astype(np.uint32).astype(np.uint8).view(np.int8)
    grid = (math.ceil(M / 16),)
    cases.append(Case("pack int4 (split) [%dx%d]" % (M, 2 * C), "pack_int4", grid,
                      [In(qv), Out("p", sent((M, C), np.int8), packed, Exact()), M, C],
                      dict(BLOCK_M=16, BLOCK_C=32), warps=(4, 1, 8)))
    sc = f32(rng.uniform(0.01, 1, M))
    want = f32(qv.astype(np.float32) * sc[:, None])
    cases.append(Case("unpack int4 + dequantise (interleave) [%dx%d]" % (M, 2 * C), "unpack_int4_dequant", grid,
                      [In(packed), In(sc), Out("y", sent((M, 2 * C), np.float32), want, Exact()), M, C],
                      dict(BLOCK_M=16, BLOCK_C=32), warps=(4, 1, 8)))
    n, B = 1000, 256
    z = f32(rng.uniform(-2, 2, (n, 2)))
    w = f32(rng.uniform(-2, 2, (n, 2)))
    z64, w64 = z.astype(np.float64), w.astype(np.float64)
    re = z64[:, 0] * w64[:, 0] - z64[:, 1] * w64[:, 1]
    im = z64[:, 0] * w64[:, 1] + z64[:, 1] * w64[:, 0]
    # a*b - c*d: two products and a difference, or an FMA where the compiler contracts
    # (Triton does by default, Nereid does not): either within 2 u (|ab| + |cd|) of the
    # exact value, the two within twice that
    tre = 4 * U24 * (np.abs(z64[:, 0] * w64[:, 0]) + np.abs(z64[:, 1] * w64[:, 1]))
    tim = 4 * U24 * (np.abs(z64[:, 0] * w64[:, 1]) + np.abs(z64[:, 1] * w64[:, 0]))
    cases.append(Case("complex multiply, interleaved storage (split, join) [%d]" % n, "complex_mul_interleaved",
                      (math.ceil(n / B),),
                      [In(z), In(w), Out("re", sent(n, np.float32), re, Abs(tre)),
                       Out("im", sent(n, np.float32), im, Abs(tim)),
                       Out("out", sent((n, 2), np.float32), np.stack([re, im], axis=1), Abs(np.stack([tre, tim], axis=1))),
                       n], dict(BLOCK=B), warps=(4, 1, 8)))
    return cases


def gather_cases():
    cases = []
    M, N = 37, 50
    rng = _rng("gather")
    srci = rng.integers(-10 ** 6, 10 ** 6, (M, N)).astype(np.int32)
    srcf = f32(rng.normal(0, 1, (M, N)))
    K = 20
    idx1 = rng.integers(0, N, (M, K)).astype(np.int32)
    for label, src in (("i32", srci), ("fp32", srcf)):
        want = np.take_along_axis(src, idx1, axis=1)
        cases.append(Case("gather %s axis=1 [%dx%d] index [%dx%d]" % (label, M, N, M, K), "gather_tile", (1,),
                          [In(src), In(idx1), Out("out", sent((M, K), src.dtype), want, Exact()), M, N, K],
                          dict(AXIS=1, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32),
                          warps=(4, 1, 8) if label == "i32" else (4,)))
    K = 24
    idx0 = rng.integers(0, M, (K, N)).astype(np.int32)
    want = np.take_along_axis(srci, idx0, axis=0)
    cases.append(Case("gather i32 axis=0 [%dx%d] index [%dx%d]" % (M, N, K, N), "gather_tile", (1,),
                      [In(srci), In(idx0), Out("out", sent((K, N), np.int32), want, Exact()), M, N, K],
                      dict(AXIS=0, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32), warps=(4, 1, 8)))
    return cases


def histogram_cases():
    cases = []
    rng = _rng("hist")
    for n, bins, B, mask in ((5000, 64, 1024, 1), (4096, 128, 1024, 0)):
        x = rng.integers(0, bins, n).astype(np.int32)
        want = np.bincount(x, minlength=bins).astype(np.int32)
        cases.append(Case("histogram %d bins%s [%d]" % (bins, ", mask" if mask else "", n), "histogram_kernel",
                          (math.ceil(n / B),),
                          [In(x), Out("hist", np.zeros(bins, np.int32), want, Exact()), n],
                          dict(NUM_BINS=bins, BLOCK=B, USE_MASK=mask), warps=(4, 1, 8)))
    return cases


ASM_REFUSED = "tl.inline_asm_elementwise runs GPU assembly, which the CPU interpreter cannot run"


def asm_cases():
    cases = []
    rng = _rng("asm")
    n, B = 1000, 256
    grid = (math.ceil(n / B),)
    x = rng.integers(-2 ** 31, 2 ** 31, n).astype(np.int32)
    y = rng.integers(-2 ** 31, 2 ** 31, n).astype(np.int32)
    s = rng.integers(0, 40, n).astype(np.int32)
    sh = s.astype(np.int64) & 31
    wide = (y.astype(np.int64).astype(np.uint64) & 0xFFFFFFFF) << np.uint64(32) | (x.astype(np.int64).astype(np.uint64) & 0xFFFFFFFF)
    want = ((wide << sh.astype(np.uint64)) >> np.uint64(32)) & np.uint64(0xFFFFFFFF)
    want = want.astype(np.uint32).view(np.int32)
    cases.append(Case("inline_asm shf.l.wrap pack=1 [%d]" % n, "asm_funnel_shift", grid,
                      [In(x), In(y), In(s), Out("z", sent(n, np.int32), want, Exact()), n], dict(BLOCK=B),
                      warps=(4, 1, 8), cpu_refused=ASM_REFUSED))
    nb, Bb = 3000, 1024
    xb = rng.integers(0, 256, nb).astype(np.uint8)
    cases.append(Case("inline_asm bytes pack=4 [%d]" % nb, "asm_packed_bytes", (math.ceil(nb / Bb),),
                      [In(xb), Out("y", sent(nb, np.uint8), ((xb & 0x1F) << 3).astype(np.uint8), Exact()), nb],
                      dict(BLOCK=Bb), warps=(4, 1, 8), cpu_refused=ASM_REFUSED))
    # pack=4 on a 2-D uint8 block, as loaded and transposed (triton_kernels' mxfp4 unpacking
    # transposes before its packed assembly): each thread's registers run along the loaded
    # rows in runs of at least 4 (16-byte loads), so a group is 4 consecutive bytes of a
    # row of x, before and after the transposition
    R, C = 32, 64
    xg = rng.integers(0, 256, (R, C)).astype(np.uint8)
    first = xg[:, (np.arange(C) // 4) * 4]
    for trans in (False, True):
        want = np.ascontiguousarray(first.T) if trans else first
        cases.append(Case("inline_asm pack=4 groups, %s [%dx%d]" % ("transposed" if trans else "as loaded", R, C),
                          "asm_group_first_byte", (1,),
                          [In(xg), Out("y", sent(want.shape, np.uint8), want, Exact()), R, C],
                          dict(TRANS=trans, BR=R, BC=C), warps=(4, 1, 8), cpu_refused=ASM_REFUSED))
    xf = f32(np.concatenate([rng.uniform(-1000, 1000, n - 100), np.arange(-50, 50) + 0.5]))
    cases.append(Case("inline_asm cvt.rni.s32.f32 pack=1 [%d]" % n, "asm_cvt_rni", grid,
                      [In(xf), Out("y", sent(n, np.int32), np.rint(xf).astype(np.int32), Exact()), n], dict(BLOCK=B),
                      cpu_refused=ASM_REFUSED))
    with np.errstate(over="ignore"):
        cases.append(Case("inline_asm two results pack=1 [%d]" % n, "asm_two_results", grid,
                          [In(x), In(y), Out("sum", sent(n, np.int32), x + y, Exact()),
                           Out("diff", sent(n, np.int32), x - y, Exact()), n], dict(BLOCK=B),
                          cpu_refused=ASM_REFUSED))
    return cases


def block_ptr_cases():
    cases = []
    rng = _rng("blockptr")
    M, N, BM, BN = 37, 50, 16, 32
    gm, gn = math.ceil(M / BM), math.ceil(N / BN)
    x = f32(rng.normal(0, 1, (M, N)))
    xt_base = np.ascontiguousarray(x.T)  # [N, M]: x is its transposed view, strides (1, M)
    ys = N + 6  # y's row stride: the columns N..N+5 must keep the sentinel
    for padding, pad in (("zero", 0.0), ("nan", np.nan)):
        for layout in ("row-major", "transposed"):
            tiles = np.full((gm * BM, gn * BN), pad, dtype=np.float32)
            tiles[:M, :N] = x
            y = sent((M, ys), np.float32)
            y[:, :N] = x
            if layout == "row-major":
                xin, strides = In(x), (N, 1)
            else:
                xin, strides = In(xt_base, view=lambda t: t.T), (1, M)
            cases.append(Case("block_ptr copy boundary_check padding=%s %s [%dx%d]" % (padding, layout, M, N),
                              "block_ptr_copy", (gm, gn),
                              [xin, Out("tiles", sent(tiles.shape, np.float32), tiles, SameNaN()),
                               Out("y", sent((M, ys), np.float32), y, Exact()), M, N, strides[0], strides[1], ys],
                              dict(PADDING=int(padding == "nan"), BLOCK_M=BM, BLOCK_N=BN),
                              warps=(4, 1, 8) if (padding, layout) == ("zero", "row-major") else (4,)))
    N2 = 150
    xi = rng.integers(-1000, 1000, (M, N2)).astype(np.int32)
    cases.append(Case("block_ptr advance row sums i32 [%dx%d]" % (M, N2), "block_ptr_row_sums", (gm,),
                      [In(xi), Out("sums", sent(M, np.int32), xi.sum(axis=1).astype(np.int32), Exact()), M, N2, N2],
                      dict(BLOCK_M=BM, BLOCK_N=BN), warps=(4, 1, 8)))
    Mm, Nm, Km = 61, 45, 70
    a = rng.uniform(-1, 1, (Mm, Km)).astype(np.float16)
    b = rng.uniform(-1, 1, (Km, Nm)).astype(np.float16)
    bt_base = np.ascontiguousarray(b.T)  # b as the transposed view of [N, K]
    c = a.astype(np.float64) @ b.astype(np.float64)
    tol = _dot_bound(a, b)
    for layout in ("row-major", "B transposed"):
        if layout == "row-major":
            bin_, bs = In(b), (Nm, 1)
        else:
            bin_, bs = In(bt_base, view=lambda t: t.T), (1, Km)
        cases.append(Case("block_ptr matmul fp16 %s boundary_check [%dx%dx%d]" % (layout, Mm, Nm, Km),
                          "block_ptr_matmul", (math.ceil(Mm / 32), math.ceil(Nm / 32)),
                          [In(a), bin_, Out("c", sent((Mm, Nm), np.float32), c, Abs(tol)), Mm, Nm, Km, Km, 1,
                           bs[0], bs[1], Nm],
                          dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32), warps=(4, 1, 8) if layout == "row-major" else (4,)))
    return cases


def _affine_desc_data(rng):
    """The data of the affine descriptor cases: x (M x S, small integers: every sum is exact
    in any order) read as M x N through a descriptor whose row stride S = 52 is 208 bytes (a
    multiple of 16, as TMA needs; columns 50 and 51 lie outside the shape); y = 2 x + 1
    there and sentinels elsewhere; each column tile's row sums."""
    M, N, BM, BN, S = 37, 50, 16, 32, 52
    gm, gn = math.ceil(M / BM), math.ceil(N / BN)
    x = f32(rng.integers(-100, 100, (M, S)))
    y = sent((M, S), np.float32)
    y[:, :N] = 2 * x[:, :N] + 1
    rs = np.zeros((gn, M), dtype=np.float32)
    for j in range(gn):
        rs[j] = x[:, j * BN:min(N, (j + 1) * BN)].sum(axis=1)
    return M, N, BM, BN, S, gm, gn, x, y, rs


def tensor_desc_cases():
    cases = []
    M, N, BM, BN, S, gm, gn, x, y, rs = _affine_desc_data(_rng("tensordesc"))
    cases.append(Case("tensor descriptor load/store [%dx%d] stride %d" % (M, N, S), "tensor_desc_affine", (gm, gn),
                      [In(x), Out("y", sent((M, S), np.float32), y, Exact()),
                       Out("rowsum", sent((gn, M), np.float32), rs, Exact()), M, N, S, S],
                      dict(BLOCK_M=BM, BLOCK_N=BN), warps=(4, 1, 8)))
    return cases


def host_desc_cases():
    """tensor_desc_cases' kernel with descriptors the host made, every tile as loaded with
    zero and NaN padding, and a matmul through three descriptors. Sizes keep Triton's
    TensorDescriptor requirements (16-byte aligned bases and row strides)."""
    cases = []
    rng = _rng("host tensordesc")
    M, N, BM, BN, S, gm, gn, x, y, rs = _affine_desc_data(rng)
    cases.append(Case("host TensorDescriptor load/store [%dx%d] stride %d" % (M, N, S), "tensor_desc_host_affine",
                      (gm, gn), [Desc(In(x), (BM, BN), cols=N), Desc(Out("y", sent((M, S), np.float32), y, Exact()),
                                                                     (BM, BN), cols=N),
                                 Out("rowsum", sent((gn, M), np.float32), rs, Exact()), M],
                      dict(BLOCK_M=BM, BLOCK_N=BN), warps=(4, 1, 8)))
    for padding in ("zero", "nan"):
        # NaN payloads of the padding are not part of the contract (TMA fills the canonical NaN)
        tiles = np.full((gm * BM, gn * BN), np.nan if padding == "nan" else 0, dtype=np.float32)
        tiles[:M, :N] = x[:, :N]
        tiles = tiles.reshape(gm, BM, gn, BN).transpose(0, 2, 1, 3).ravel()
        cases.append(Case("host TensorDescriptor tiles, %s padding [%dx%d]" % (padding, M, N), "tensor_desc_host_tiles",
                          (gm, gn), [Desc(In(x), (BM, BN), padding, cols=N),
                                     Out("tiles", sent(tiles.size, np.float32), tiles, SameNaN())],
                          dict(BLOCK_M=BM, BLOCK_N=BN)))
    Mm, Nm, Km, Sc = 100, 72, 88, 80  # c's row stride 80: columns 72..79 must stay untouched
    a = rng.uniform(-1, 1, (Mm, Km)).astype(np.float16)
    b = rng.uniform(-1, 1, (Km, Nm)).astype(np.float16)
    c = sent((Mm, Sc), np.float32)
    c[:, :Nm] = a.astype(np.float64) @ b.astype(np.float64)
    tol = np.zeros((Mm, Sc))
    tol[:, :Nm] = _dot_bound(a, b)
    cases.append(Case("host TensorDescriptor matmul fp16 [%dx%dx%d]" % (Mm, Nm, Km), "tensor_desc_host_matmul",
                      (math.ceil(Mm / 64), math.ceil(Nm / 64)),
                      [Desc(In(a), (64, 32)), Desc(In(b), (32, 64)),
                       Desc(Out("c", sent((Mm, Sc), np.float32), c, Abs(tol)), (64, 64), cols=Nm), Km],
                      dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32), warps=(4, 8)))
    return cases


def fp8_cases():
    cases = []
    rng = _rng("fp8")
    n, B = 5000, 1024
    grid = (math.ceil(n / B),)
    mag = np.exp2(rng.uniform(-12, 10, n)) * rng.choice([-1, 1], n)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e6, -1e6, 448.0, 464.0, 480.0, 57344.0, 61440.0,
                         2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -11, 2.0 ** -16, 2.0 ** -17, 3 * 2.0 ** -18,
                         1.0625, 1.1875, 1.125 + 2 ** -4, 0.0009765625, 65504.0,
                         # e4b15 (ties away, clamped at 1.75) and the FNUZ formats (240, -0)
                         1.5625, -1.5625, 1.6875, 1.75, 1.8125, 1.875, 2.0, 2.0 ** -18, 5 * 2.0 ** -18, -2.0 ** -19,
                         240.0, 244.0, 248.0, -2.0 ** -11, 3 * 2.0 ** -11, 2.0 ** -15, -2.0 ** -18, 232.0])
    amd = {"e4b8": FP8_AMD_ONLY, "e5b16": FP8_AMD_ONLY}
    for src in (np.float32, np.float16):
        for label, vals in (("", mag), (" specials", np.resize(specials, 256))):
            with np.errstate(over="ignore"):  # 1e6 and 65520 and up are infinities in fp16
                x = np.asarray(vals).astype(src)
            m = x.size
            for fmt in FP8:
                if fmt == "e4b15" and label == "":
                    xs = x * src(2.0 ** -8)  # into e4b15's range (fp8e4nv's / 256)
                else:
                    xs = x
                q = fp8_encode(xs.astype(np.float64), fmt)
                yv = f32(fp8_decode(q, fmt))
                cases.append(Case("fp8 %s <- %s%s [%d]" % (fmt, np.dtype(src).name, label, m), "fp8_roundtrip",
                                  (math.ceil(m / B),),
                                  [In(xs), Out("q", sent(m, np.uint8), q, Exact()),
                                   Out("y", sent(m, np.float32), yv, SameNaN()), m],
                                  dict(FMT=fmt, BLOCK=B), warps=(4, 1, 8) if (src, label, fmt) == (np.float32, "", "e4m3")
                                  else (4,), triton_may_reject=amd.get(fmt)))
    allb = np.arange(256, dtype=np.uint8)
    for fmt in FP8:
        cases.append(Case("fp8 %s -> fp32, all 256 bytes" % fmt, "fp8_decode", (1,),
                          [In(allb), Out("y", sent(256, np.float32), f32(fp8_decode(allb, fmt)), SameNaN()), 256],
                          dict(FMT=fmt, BLOCK=256), triton_may_reject=amd.get(fmt)))
    x = f32(mag)
    cases.append(Case("fp8 e4m3 store through tl.pointer_type cast [%d]" % n, "fp8_store_through_cast_ptr", grid,
                      [In(x), Out("q", sent(n, np.uint8), fp8_encode(x, "e4m3"), Exact()), n], dict(BLOCK=B)))
    tq = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "e4b8": "float8_e4m3fnuz", "e5b16": "float8_e5m2fnuz"}
    for qf, yf in (("e4m3", "e5m2"), ("e5m2", "e4m3"), ("e4b8", "e5b16"), ("e5b16", "e4b8")):
        scale = 0.5
        q = fp8_encode(f32(x.astype(np.float32) * np.float32(scale)), qf)
        yq = fp8_encode(fp8_decode(q, qf), yf)
        cases.append(Case("fp8 tensors: %s -> %s [%d]" % (qf, yf, n), "fp8_scaled_cast", grid,
                          [In(x), Out("q", sent(n, np.uint8), q, Exact(), fp8=tq[qf]),
                           Out("y", sent(n, np.uint8), yq, Exact(), fp8=tq[yf]), n, scale], dict(BLOCK=B),
                          gpu_only="fp8 tensors as arguments: NumPy has no fp8 dtype", triton_may_reject=amd.get(qf)))
    # tl.dot of fp8e4b15 and FNUZ blocks (bytes bitcast in the kernel): no tensor core takes
    # them, so Triton (and Nereid) widen both operands to fp16 (exactly) for the dot: the
    # products are exact in fp32 and only the summation order differs (_dot_bound)
    M, N, K = 70, 45, 96
    for fmt in ("e4b15", "e4b8", "e5b16"):
        r = _rng("fp8 dot " + fmt)
        a, b = (r.integers(0, 256, shape).astype(np.uint8) for shape in ((M, K), (K, N)))
        if FP8[fmt]["nans"] == "80":
            a[a == 0x80], b[b == 0x80] = 0, 0  # no NaN operands
        av, bv = fp8_decode(a, fmt), fp8_decode(b, fmt)
        c = av @ bv
        cases.append(Case("fp8 %s dot (widened to fp16) [%dx%dx%d]" % (fmt, M, N, K), "fp8_dot", (3, 2),
                          [In(a), In(b), Out("c", sent((M, N), np.float32), c, Abs(_dot_bound(av, bv))), M, N, K],
                          dict(FMT=fmt, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32), warps=(4, 1),
                          triton_may_reject=amd.get(fmt)))
    return cases


def barrier_cases():
    rng = _rng("barrier")
    n, B = 1000, 256
    x = rng.integers(-10 ** 6, 10 ** 6, n).astype(np.int32)
    want = np.empty(n, np.int32)
    for i in range(n):
        p = i // B
        r = p * B + (B - 1 - i % B)
        want[i] = 3 * x[r] if r < n else -1
    return [Case("debug_barrier exchange through global memory [%d]" % n, "barrier_exchange", (math.ceil(n / B),),
                 [In(x), Out("scratch", np.zeros(n, np.int32), 3 * x, Exact()),
                  Out("y", sent(n, np.int32), want, Exact()), n], dict(BLOCK=B), warps=(4, 1, 8))]


def all_cases():
    out = []
    for f in (gelu_cases, libdevice_cases, libdevice_bits_cases, scan_cases, recurrence_cases, reduce_cases, sort_cases, clamp_cases,
              quant_cases, gather_cases, histogram_cases, asm_cases, block_ptr_cases, tensor_desc_cases, host_desc_cases,
              fp8_cases, barrier_cases):
        out += f()
    return out


# ---------------------------------------------------------------------------------------
# loading the kernels for each compiler
# ---------------------------------------------------------------------------------------

def load_kernels_triton():
    spec = importlib.util.spec_from_file_location("tl_parity_kernels_triton", KERNELS)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def load_kernels_nereid(nereid, device):
    """The kernel file with `triton.jit` bound to nereid.jit and triton.language to
    nereid.language, only while it loads (the real Triton, if any, stays in place)."""
    shim = types.ModuleType("triton")
    shim.jit = lambda fn=None, **kw: nereid.jit(fn, device=device, **kw) if fn is not None else \
        (lambda f: nereid.jit(f, device=device, **kw))
    shim.language = nereid.language
    shim.cdiv, shim.next_power_of_2 = nereid.cdiv, nereid.next_power_of_2
    extra = types.ModuleType("triton.language.extra")
    libdevice = types.ModuleType("triton.language.extra.libdevice")  # kernel bodies only: never called
    extra.libdevice = libdevice
    names = {"triton": shim, "triton.language": nereid.language, "triton.language.extra": extra,
             "triton.language.extra.libdevice": libdevice}
    saved = {k: sys.modules.get(k) for k in names}
    sys.modules.update(names)
    try:
        spec = importlib.util.spec_from_file_location("tl_parity_kernels_nereid", KERNELS)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return mod


# ---------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------

class NumpyDevice:
    TD = None  # nereid.TensorDescriptor, set by the runner

    def put(self, arg):
        a = np.array(arg.a, copy=True)
        return arg.view(a) if arg.view else a

    def get(self, arr, arg):
        return np.array(arr.base if arg.view and arr.base is not None else arr)

    def sync(self):
        pass


class TorchDevice:
    def __init__(self, torch, TD=None):
        self.torch = torch
        self.TD = TD  # the host descriptors' class: Triton's

    def put(self, arg):
        t = self.torch.from_numpy(np.array(arg.a, copy=True)).to("cuda")
        if arg.fp8:
            t = t.view(getattr(self.torch, arg.fp8))
        return arg.view(t) if arg.view else t

    def get(self, t, arg):
        torch = self.torch
        if arg.fp8:
            t = t.view(torch.uint8)
        return t.cpu().numpy()

    def sync(self):
        self.torch.cuda.synchronize()


def launch(dev, kernels, case, warps):
    """Runs the case's kernel on fresh copies of its arrays: the outputs, as NumPy arrays."""
    vals = []
    keep = []
    for a in case.args:
        if isinstance(a, Desc):
            t = dev.put(a.arg)
            view = t[:, :a.cols] if a.cols is not None else t
            vals.append(dev.TD.from_tensor(view, a.block_shape, padding=a.padding))
            keep.append((a.arg, t))
        elif isinstance(a, In):
            t = dev.put(a)
            vals.append(t)
            keep.append((a, t))
        else:
            vals.append(a)
    k = getattr(kernels, case.kernel)
    k[case.grid](*vals, num_warps=warps, **case.constexprs)
    dev.sync()
    outs = []
    for a, t in keep:
        if isinstance(a, Out):
            if a.view is not None:
                raise ValueError("outputs are not views")
            outs.append(dev.get(t, a))
    return outs


def first_line(e):
    """An exception in one line: Nereid's diagnostics start with the location and message;
    Triton's CompilationError has the location first, then the source, the message last."""
    lines = [l.strip() for l in ("%s: %s" % (type(e).__name__, e)).splitlines() if l.strip()]
    if not lines:
        return type(e).__name__
    if len(lines) > 1 and type(e).__name__ != "CompileError":
        return (lines[0][:80] + " ... " + lines[-1])[:400]
    return lines[0][:400]


def outputs_agree(case, outs, other, against_ref):
    """(ok, text) for every output of the case: outs against other (a list of arrays) or
    against the references."""
    ok, parts = True, []
    for (i, o), got, k in zip(case.outputs(), outs, range(len(outs))):
        want = o.ref if against_ref else other[k]
        chk = o.ref_check if against_ref else o.check
        good, text = compare(chk, got, want)
        ok &= good
        parts.append("%s %s" % (o.name, text))
    return ok, "; ".join(parts)


def run_case_cpu(nereid, kernels, case, warps):
    """One case on the CPU interpreter against its reference: (status, text), status one of
    "ok", "diff", "error" (Nereid failed), "skip" (the case cannot run there; for inline
    assembly: refused with the documented message, which is checked)."""
    if case.gpu_only:
        return "skip", case.gpu_only
    dev = NumpyDevice()
    dev.TD = nereid.TensorDescriptor
    if case.cpu_refused:
        try:
            launch(dev, kernels, case, warps)
        except nereid.LaunchError as e:
            if case.cpu_refused in str(e):
                return "skip", "refused by the CPU interpreter, as documented"
            return "error", "%s (expected the refusal %r)" % (first_line(e), case.cpu_refused)
        except Exception as e:  # noqa: BLE001
            return "error", first_line(e)
        return "error", "the interpreter ran it; expected the refusal %r" % case.cpu_refused
    try:
        outs = launch(dev, kernels, case, warps)
    except Exception as e:  # noqa: BLE001
        return "error", "nereid: " + first_line(e)
    good, text = outputs_agree(case, outs, None, True)
    return ("ok" if good else "diff"), text


def run_cpu(cases, args, nereid):
    kernels = load_kernels_nereid(nereid, "cpu")
    total = ok = skipped = 0
    label = {"ok": "ok   ", "diff": "DIFF ", "error": "ERROR", "skip": "SKIP "}
    for case in cases:
        w = case.warps[0]  # the interpreter runs a program as one: the warp count changes nothing
        status, text = run_case_cpu(nereid, kernels, case, w)
        print("%s %s w=%d: %s" % (label[status], case.name, w, text))
        if status == "skip":
            skipped += 1
        else:
            total += 1
            ok += status == "ok"
    summary = "tl_parity (cpu): %d of %d cases match the NumPy reference" % (ok, total)
    if skipped:
        summary += ", %d skipped" % skipped
    print(summary + ("" if ok == total else ": FAILED"))
    return 0 if ok == total else 1


def find_libdevice(triton):
    """NEREID_LIBDEVICE, else CUDA's (the places the runtime looks), else Triton's own copy."""
    if os.environ.get("NEREID_LIBDEVICE"):
        return os.environ["NEREID_LIBDEVICE"], "NEREID_LIBDEVICE"
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            p = os.path.join(os.environ[var], "nvvm", "libdevice", "libdevice.10.bc")
            if os.path.exists(p):
                return p, var
    p = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
    if os.path.exists(p):
        return p, "CUDA"
    for rel in (("backends", "nvidia", "lib", "libdevice.10.bc"), ("third_party", "cuda", "lib", "libdevice.10.bc")):
        p = os.path.join(os.path.dirname(triton.__file__), *rel)
        if os.path.exists(p):
            os.environ["NEREID_LIBDEVICE"] = p
            return p, "Triton's copy"
    return None, "none found: Nereid uses its own routines and refuses fp64 math"


def run_gpu(cases, args, nereid, torch, triton, nereid_device="cuda"):
    libdevice, where = find_libdevice(triton)
    if hasattr(triton, "set_allocator"):  # device-side tensor descriptors need scratch memory
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    tk = load_kernels_triton()
    nk = load_kernels_nereid(nereid, nereid_device)
    try:  # host descriptors: Triton's own objects, given to both (older Triton: Nereid's, which it rejects)
        from triton.tools.tensor_descriptor import TensorDescriptor
    except ImportError:
        TensorDescriptor = nereid.TensorDescriptor
    dev = TorchDevice(torch, TensorDescriptor)
    print("GPU: %s; torch %s; triton %s; nereid %s (%s); libdevice: %s (%s)" % (
        torch.cuda.get_device_name(), torch.__version__, getattr(triton, "__version__", "?"),
        nereid.__version__, os.path.dirname(nereid.__file__), libdevice, where))
    total = match = rejected = failed = triton_off = 0
    for case in cases:
        for w in (case.warps[:1] if args.quick else case.warps):
            name = "%s w=%d" % (case.name, w)
            total += 1
            try:
                t_outs, t_err = launch(dev, tk, case, w), None
            except Exception as e:  # noqa: BLE001
                t_outs, t_err = None, e
                try:
                    torch.cuda.synchronize()
                except Exception:  # noqa: BLE001
                    pass
            try:
                n_outs, n_err = launch(dev, nk, case, w), None
            except Exception as e:  # noqa: BLE001
                n_outs, n_err = None, e
            if n_err is not None:
                failed += 1
                print("ERROR %s: nereid: %s%s" % (name, first_line(n_err),
                                                  "" if t_err else " (Triton ran it)"))
                if args.verbose:
                    print("".join(traceback.format_exception(n_err)))
                continue
            n_ref_ok, n_ref = outputs_agree(case, n_outs, None, True)
            if t_err is not None:
                rejected += 1
                why = " (expected: %s)" % case.triton_may_reject if case.triton_may_reject else ""
                print("REJECTED %s: Triton: %s%s; nereid vs reference: %s" % (name, first_line(t_err), why, n_ref))
                if args.verbose:
                    print("".join(traceback.format_exception(t_err)))
                if not n_ref_ok:
                    failed += 1
                    print("    FAIL: nereid differs from the reference")
                continue
            good, text = outputs_agree(case, n_outs, t_outs, False)
            if good:
                match += 1
                print("ok    %s: %s" % (name, text))
            else:
                t_ref_ok, t_ref = outputs_agree(case, t_outs, None, True)
                if n_ref_ok and not t_ref_ok:
                    # Triton is the one off the reference (the operation's documented
                    # meaning): reported, not held against Nereid
                    triton_off += 1
                    print("TRITON-OFF %s: nereid vs triton: %s" % (name, text))
                else:
                    failed += 1
                    print("DIFF  %s: nereid vs triton: %s" % (name, text))
                print("      nereid vs reference: %s" % n_ref)
                print("      triton vs reference: %s" % t_ref)
    summary = "tl_parity: %d of %d cases match Triton" % (match, total)
    if rejected:
        summary += ", %d rejected by Triton" % rejected
    if triton_off:
        summary += ", %d where Triton differs from the reference and Nereid does not" % triton_off
    if failed:
        summary += ", %d FAILED" % failed
    print(summary)
    return 1 if failed else 0


_NP_SIG = {"float16": "fp16", "float32": "fp32", "float64": "fp64", "int8": "i8", "int16": "i16", "int32": "i32",
           "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "i1"}
_FP8_SIG = {"float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5", "float8_e4m3fnuz": "fp8e4b8",
            "float8_e5m2fnuz": "fp8e5b16"}


# Kernels with host descriptor parameters ("tensordesc<fp32[16, 32]>") go into --dump too
# (the GPU back end lowers them: TMA on sm_90a, ordinary loads on sm_80).
DUMP_HOST_DESC = True


def arg_type(a):
    """The signature type @nereid.jit gives this argument on the GPU (as _launch.c does)."""
    if isinstance(a, Desc):
        return "tensordesc<%s[%s]>" % (_NP_SIG[np.asarray(a.arg.a).dtype.name], ", ".join(map(str, a.block_shape)))
    if isinstance(a, In):
        return "*" + (_FP8_SIG[a.fp8] if a.fp8 else _NP_SIG[np.asarray(a.a).dtype.name])
    if isinstance(a, bool):
        return "i1"
    if isinstance(a, int):
        return "i32" if -2 ** 31 <= a < 2 ** 31 else "i64"
    return "fp32"


def dump(cases, nereid, out_dir):
    """Every case's kernel as @nereid.jit compiles it for the GPU (its source with the
    parameters typed from the arguments), one file per distinct variant, and compile.sh
    running `nereid compile` on each with its constexprs and warp count (the format of
    test_gpu_vs_cpu's --dump: EMIT and STRICT as there). tools/run-tests.sh compiles them
    for sm_80 and sm_90a, so the GPU back end sees every kernel where there is no GPU."""
    from nereid import _jit, _runtime
    kernels = load_kernels_nereid(nereid, "cpu")
    os.makedirs(out_dir, exist_ok=True)
    seen, lines, left_out = set(), [], 0
    for case in cases:
        if not DUMP_HOST_DESC and any(isinstance(a, Desc) for a in case.args):
            left_out += 1
            continue
        k = getattr(kernels, case.kernel)
        annotate = {n: arg_type(a) for n, kind, a in zip(k.arg_names, k.kinds, case.args) if kind == _jit._INFER}
        text, _ = k.source(annotate)
        defines = " ".join("-D '%s=%s'" % (n, _runtime.define_text(n, v)) for n, v in case.constexprs.items())
        for w in case.warps:
            key = (text, defines, w)
            if key in seen:
                continue
            seen.add(key)
            path = os.path.join(os.path.abspath(out_dir), "%03d_%s.nr" % (len(seen), case.kernel))
            with open(path, "w") as f:
                f.write(text)
            lines.append("\"$N\" compile '%s' -k %s %s --num-warps=%d $STRICT $EMIT || { echo 'FAILED: %s w=%d'; "
                         "fail=$((fail+1)); }\n" % (path, case.kernel, defines, w, case.name.replace("'", ""), w))
    with open(os.path.join(out_dir, "compile.sh"), "w") as f:
        f.write("#!/bin/sh\n# compile every kernel of tests/gpu/tl_parity.py for the GPU: sh compile.sh [NEREID_BINARY]\n"
                "# (EMIT replaces the output options, e.g. EMIT='--emit=cubin --arch=sm_80 -o k.cubin';\n"
                "# STRICT=--strict-ptxas makes ptxas's performance advisories errors)\n"
                "N=${1:-build/nereid}\nEMIT=${EMIT:---emit=ptx -o /dev/null}\nfail=0\n")
        f.writelines(lines)
        f.write("echo \"$fail of %d kernels failed to compile\"\nexit $fail\n" % len(lines))
    print("tl_parity: %d kernel variants written to %s (compile.sh)%s" % (
        len(lines), out_dir, "; %d cases with host descriptors left out (DUMP_HOST_DESC)" % left_out if left_out else ""))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", default=os.environ.get("NEREID_LIB"),
                    help="libnereid.so; the Python package next to it (DIR/python) is used")
    ap.add_argument("--quick", action="store_true", help="one warp count per case")
    ap.add_argument("--filter", default="", help="only cases whose name contains this (comma: alternatives)")
    ap.add_argument("--cpu-only", action="store_true", help="Nereid's CPU interpreter against NumPy")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--dump", metavar="DIR", help="write every kernel variant as Nereid compiles it for the GPU, "
                    "with DIR/compile.sh (no GPU needed)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.lib:
        pkg = os.path.join(os.path.dirname(os.path.abspath(args.lib)), "python")
        if os.path.isdir(os.path.join(pkg, "nereid")):
            sys.path.insert(0, pkg)
    cases = all_cases()
    if args.filter:
        pats = [p for p in args.filter.split(",") if p]
        cases = [c for c in cases if any(p in c.name for p in pats)]
    if args.list:
        for c in cases:
            print("%s  (warps %s)" % (c.name, ",".join(map(str, c.warps))))
        return 0
    if args.dump:
        import nereid
        return dump(cases, nereid, args.dump)
    if args.cpu_only:
        import nereid
        return run_cpu(cases, args, nereid)
    require = os.environ.get("NEREID_REQUIRE_GPU") == "1"
    try:
        import torch
        import triton
        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device")
    except Exception as e:  # noqa: BLE001
        print("%s: tl_parity needs a GPU, PyTorch and Triton (%s); --cpu-only runs Nereid's half"
              % ("FAIL" if require else "SKIP", e))
        return 1 if require else 0
    import nereid
    return run_gpu(cases, args, nereid, torch, triton)


if __name__ == "__main__":
    sys.exit(main())
