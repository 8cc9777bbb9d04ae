"""The exceptions nereid raises: compile errors carry the located diagnostics."""
import re

_DIAG = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|note): (?P<message>.*)$")


class Error(RuntimeError):
    """Base class of nereid's own errors."""


class _Cause(Exception):
    """A compile error's message, as a CompileError's __cause__."""


class CompileError(Error):
    """The source has errors. `diagnostics` is the compiler's text (clang's format: file,
    line, column, message, the source line and a caret); `errors` lists the diagnostics
    as (file, line, column, severity, message) tuples; `error_message` is the first error's
    message (None if none parsed), also the text of `__cause__`, as Triton's errors carry it.
    One whose first error is a failed tl.static_assert is made a CompileTimeAssertionFailure
    (Triton's class of that name catches it too where the drop-in has made it one)."""

    def __new__(cls, diagnostics="", *rest):
        static = _STATIC.get(cls)
        if static is not None and _first_error(diagnostics).startswith("static_assert failed"):
            cls = static
        return super().__new__(cls, diagnostics, *rest)

    def __init__(self, diagnostics):
        super().__init__(diagnostics)
        self.diagnostics = diagnostics
        self.errors = []
        for line in diagnostics.splitlines():
            m = _DIAG.match(line)
            if m:
                self.errors.append((m["file"], int(m["line"]), int(m["col"]), m["severity"], m["message"]))
        # as Triton's CompilationError: `error_message` is the first error's message, and
        # `__cause__` the front end's own exception (tests read the message there)
        first = next((e[4] for e in self.errors if e[3] == "error"), None)
        self.error_message = first
        self.__cause__ = _Cause(first if first is not None else diagnostics)


def _first_error(diagnostics):
    for line in str(diagnostics).splitlines():
        m = _DIAG.match(line)
        if m and m["severity"] == "error":
            return m["message"]
    return ""


class CompileTimeAssertionFailure(CompileError):
    """A tl.static_assert failed (Triton's triton.compiler.errors.CompileTimeAssertionFailure)."""


# the CompileError class a raise names -> the subclass a static_assert's failure becomes
_STATIC = {CompileError: CompileTimeAssertionFailure}


class CompileWarning(UserWarning):
    """A warning of a compile that went on (its text: the located diagnostic, the source
    line and a caret)."""


class OptionError(ValueError, AssertionError):
    """A launch option out of its range (num_warps=3): a ValueError, and an AssertionError
    as Triton raises it."""


class LaunchError(Error):
    """A kernel failed while running: an out-of-bounds access on the CPU device, a failed
    device_assert, a fault reported by the CUDA driver."""


class DeviceError(Error):
    """The device is missing or failed (no driver, no GPU, a driver error)."""
