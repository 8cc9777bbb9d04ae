"""jit_regs.py PTXDIR - registers and spill bytes per thread (cuFuncGetAttribute) and load
time of each PTX file in PTXDIR, compiled four ways on this machine's GPU: the driver's
linker (cuLinkCreate/AddData/Complete: relocatable code, the runtime's path until session
27), cuModuleLoadDataEx of the PTX (the whole program: the runtime's path since), the
linker with CU_JIT_OPTIMIZATION_LEVEL 4, and ptxas (where the toolkit is installed) with the
cubin loaded. The driver's JIT cache serves repeats (a 0-1 ms load: the same PTX seen
before). PTXDIR from `python3 bench/corpus.py compile-only --save-ptx PTXDIR`."""
import ctypes as C, os, sys, glob, time, subprocess, shutil, re
cu = C.CDLL("libcuda.so.1")
def ck(r, w):
    if r: raise RuntimeError(f"{w}: {r}")
ck(cu.cuInit(0), "init"); dev = C.c_int(); ck(cu.cuDeviceGet(C.byref(dev), 0), "dev")
ctx = C.c_void_p(); ck(cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "ctx"); ck(cu.cuCtxSetCurrent(ctx), "set")
def regs_of(mod, name):
    f = C.c_void_p(); ck(cu.cuModuleGetFunction(C.byref(f), mod, name.encode()), "getfn")
    r = C.c_int(); l = C.c_int()
    cu.cuFuncGetAttribute(C.byref(r), 4, f); cu.cuFuncGetAttribute(C.byref(l), 3, f)
    return r.value, l.value
def via_link(ptx, name, opts=()):
    ls = C.c_void_p()
    n = len(opts)
    o = (C.c_int * max(n,1))(*[k for k, _ in opts]); v = (C.c_void_p * max(n,1))(*[x for _, x in opts])
    ck(cu.cuLinkCreate_v2(n, o, v, C.byref(ls)), "linkcreate")
    b = ptx.encode() + b"\0"
    ck(cu.cuLinkAddData_v2(ls, 1, b, len(b), b"k.ptx", 0, None, None), "adddata")
    cub = C.c_void_p(); sz = C.c_size_t()
    ck(cu.cuLinkComplete(ls, C.byref(cub), C.byref(sz)), "complete")
    img = C.string_at(cub, sz.value); cu.cuLinkDestroy(ls)
    mod = C.c_void_p(); ck(cu.cuModuleLoadData(C.byref(mod), img), "load")
    return regs_of(mod, name)
def via_load(ptx, name):
    mod = C.c_void_p(); b = ptx.encode() + b"\0"
    ck(cu.cuModuleLoadDataEx(C.byref(mod), b, 0, None, None), "loadex")
    return regs_of(mod, name)
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
def via_ptxas(path, name):
    if not os.path.exists(ptxas): return None
    out = path + ".cubin"
    subprocess.run([ptxas, "--gpu-name", "sm_90a", path, "-o", out], check=True, capture_output=True)
    mod = C.c_void_p(); ck(cu.cuModuleLoadData(C.byref(mod), open(out, "rb").read()), "load")
    return regs_of(mod, name)
def t(fn, *a):
    t0 = time.perf_counter(); r = fn(*a); return r, (time.perf_counter() - t0) * 1e3
print(f"{'kernel':60s} {'link':>12s} {'loadEx':>12s} {'link O4':>12s} {'ptxas':>12s}")
for p in sorted(glob.glob(sys.argv[1] + "/*.ptx")):
    ptx = open(p).read(); name = re.search(r"\.entry\s+(\w+)", ptx).group(1)
    try:
        a, ta = t(via_link, ptx, name); b, tb = t(via_load, ptx, name)
        c, tc = t(via_link, ptx, name, ((7, 4),))  # CU_JIT_OPTIMIZATION_LEVEL
        d, td = t(via_ptxas, p, name)
        f = lambda x, tt: f"{x[0]}/{x[1]} {tt:.0f}ms" if x else "-"
        print(f"{os.path.basename(p)[:60]:60s} {f(a,ta):>12s} {f(b,tb):>12s} {f(c,tc):>12s} {f(d,td):>12s}", flush=True)
    except Exception as e:
        print(os.path.basename(p), "ERR", e, flush=True)
