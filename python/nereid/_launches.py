"""Counting kernel launches, for test harnesses: those through Nereid (the extension's
counter) and those through Triton's own JITFunction.run (counted once its class is
wrapped by count_triton(), where Triton is installed)."""


def count_triton():
    """Wrap Triton's JITFunction.run to count its launches (warmups and launches that
    raised not counted, as Nereid's counter counts only launches that ran).
    Idempotent; nothing where Triton is missing or `triton` is Nereid's stand-in."""
    try:
        import triton.runtime.jit as tj
    except ImportError:
        return
    real = getattr(tj, "_nereid_real_JITFunction", None) or getattr(tj, "JITFunction", None)
    if real is None or getattr(real, "__module__", "").startswith("nereid"):
        return
    tj._nereid_real_JITFunction = real
    run = real.run
    if getattr(run, "_nereid_counted", False):
        return

    def counted(self, *args, **kwargs):
        result = run(self, *args, **kwargs)  # a launch that raised (a compile error) is no launch
        if not kwargs.get("warmup", False):
            tj._nereid_triton_launches = getattr(tj, "_nereid_triton_launches", 0) + 1
        return result

    counted._nereid_counted = True
    real.run = counted


def launches():
    """(through Nereid, through Triton) so far in this process."""
    n = 0
    try:
        from . import _nereid
        n = _nereid.launch_count()
    except ImportError:
        pass
    t = 0
    try:
        import sys
        tj = sys.modules.get("triton.runtime.jit")
        t = getattr(tj, "_nereid_triton_launches", 0) if tj is not None else 0
    except Exception:
        pass
    return n, t
