"""@nereid.jit: a kernel written as a Python function in Triton's syntax.

The function's source is read with inspect and compiled by Nereid (Python never runs the
body). Parameters may carry types (`x_ptr: "*fp32"`, `n: tl.int32`), be constexprs
(`BLOCK: tl.constexpr`), or be left bare: a bare parameter takes its type from the launch
argument, as Triton types them (a tensor or array: a pointer to its dtype; a bool: i1; an
int: i32, or i64 when it does not fit, and a constexpr when it is 1, as Triton's launcher
specialises it, unless the parameter is in do_not_specialize; a float: fp32; None: a
constexpr; a tuple: its items so, each int equal to 1 a constexpr; a tensor
descriptor: "tensordesc<DTYPE[BLOCK_SHAPE]>", its base's dtype and its block shape; a @jit
function, a tl.constexpr(...) object or a dtype: a constexpr of that value, as Triton's
launcher makes them whatever the annotation). A
descriptor parameter may also be typed so (`x_desc: "tensordesc<fp16[BM, BK]>"`, the
dims ints or constexprs' names): its argument's block shape is then checked. Each new
combination of inferred types and constexpr values compiles once and is cached; the
cache lookup, like the whole launch, runs in C (nereid/_launch.c).

Other @nereid.jit functions the kernel calls (helpers), and int/float/bool constants of
its module, are compiled with it.

Devices: a kernel declared without a device index (`device=None`, the default, or
`device="cuda"`) runs each launch on CUDA on the device of its first tensor argument (its
get_device()), or, with no tensor argument, on torch's current device, and keeps its
compiled kernels per device (one context per device; the disk cache serves every device
of one kind, so a second GPU compiles nothing). `device="cuda:N"` pins it to device N,
`device="cpu"` to the interpreter.
"""
import ast
import hashlib
import inspect
import itertools
import keyword
import linecache
import re
import sys
import textwrap
import types

from . import _nereid, _runtime, language
from ._errors import CompileError

_TYPED, _INFER, _CONSTEXPR = 0, 1, 2
# key codes (nereid/_launch.c): an nr_type, _CODE_PTR + pointee, _CODE_NONE, for a tensor
# descriptor _CODE_DESC | pointee | rank << 6 | log2(block dim d) << (9 + 5 d); entries
# that are tuples: (_CODE_CONSTEXPR, type, value) and, for a tuple argument,
# (_CODE_TUPLE, type, (its items' entries))
_CODE_TUPLE, _CODE_NONE, _CODE_PTR, _CODE_DESC = -4, -2, 100, 1 << 40
_TYPE_NAMES = ["ptr", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32", "fp64",
               "fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16"]
_SIG_NAMES = set(_TYPE_NAMES[1:])
_DESC = re.compile(r"^tensordesc<\s*(?P<dtype>[\w.]+)\s*\[(?P<dims>[\w\s,]*)\]\s*>$")
_ALIASES = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
            "uint16": "u16", "uint32": "u32", "uint64": "u64", "float16": "fp16", "bfloat16": "bf16",
            "float32": "fp32", "float64": "fp64", "float8e4nv": "fp8e4nv", "float8e5": "fp8e5",
            "float8e4b15": "fp8e4b15", "float8e4b8": "fp8e4b8", "float8e5b16": "fp8e5b16",
            # Python's and C's names, as Triton canonicalises them (triton/_utils.py)
            "bool": "i1", "int": "i32", "float": "fp32", "half": "fp16", "double": "fp64", "u1": "i1",
            "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5", "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16"}
# Triton's compile options that only Triton's compiler reads (its target description and
# library lists), dropped by run(); its launch options go to the launch, which takes them
# or says why not (nereid/_launch.c, triton_option)
_COMPILE_ONLY = {"arch", "supported_fp8_dtypes", "deprecated_fp8_dot_operand_dtypes", "default_dot_input_precision",
                 "allowed_dot_input_precisions", "max_num_imprecise_acc_default", "extern_libs", "backend_name",
                 "ir_override"}


def _is_const_annotation(ann):
    """Triton's tl.const (a pointer the kernel only reads), Nereid's or Triton's."""
    return isinstance(ann, type) and ann.__name__ == "const" and \
        (ann.__module__ or "").split(".")[0] in ("triton", "nereid")


def _annotation_kind(ann):
    """(kind, type) of an annotation: constexpr, a signature type, or none (inferred)."""
    if ann is inspect.Parameter.empty or ann is None or _is_const_annotation(ann):
        return _INFER, None  # tl.const: typed by the argument, a pointer made read-only
    if isinstance(ann, str):
        desc = _DESC.match(ann.strip())
        if desc:  # "tensordesc<fp16[64, 64]>": the dims may name constexprs, which the compiler resolves
            base = _ALIASES.get(desc["dtype"].split(".")[-1], desc["dtype"].split(".")[-1])
            dims = [d.strip() for d in desc["dims"].split(",")]
            if base not in _SIG_NAMES or base == "i1" or not all(re.fullmatch(r"\w+", d) for d in dims):
                raise TypeError(f"unknown parameter annotation {ann!r} (a tensor descriptor is "
                                "'tensordesc<DTYPE[D0, D1, ...]>', e.g. 'tensordesc<fp16[64, BLOCK_K]>')")
            return _TYPED, f"tensordesc<{base}[{', '.join(dims)}]>"
        text = ann.replace(" ", "")
        if text.split(".")[-1] == "constexpr":
            return _CONSTEXPR, None
        ptr = text.startswith("*")
        base = text[1:] if ptr else text
        base = base.split(".")[-1]
        base = _ALIASES.get(base, base)
        if base in _SIG_NAMES:
            return _TYPED, ("*" if ptr else "") + base
        # "tl.tensor", "torch.Tensor", "Optional[int]": typed by the argument (Triton ignores
        # the annotations it does not know: test_annotations.py's test_unknown_annotation)
        return _INFER, None
    if ann is language.constexpr or getattr(ann, "__name__", None) == "constexpr" or \
            type(ann).__name__ == "constexpr":
        return _CONSTEXPR, None
    if isinstance(ann, type) and ann.__name__ in ("tensor", "dtype") and \
            ann.__module__.split(".")[0] in ("triton", "nereid"):
        return _INFER, None  # `x: tl.tensor`, `DTYPE: tl.dtype`: typed by the argument, as Triton does
    if ann in (int, float, bool):  # Python's types: Triton types the parameter i32, fp32, i1
        return _annotation_kind(ann.__name__)
    name = getattr(ann, "name", None)  # nereid's or Triton's dtypes
    if isinstance(name, str):
        return _annotation_kind(name)
    # anything else (torch.Tensor, np.ndarray, Optional[int], a class of the user's): no
    # type, as Triton ignores annotations it does not know (test_unknown_annotation)
    return _INFER, None


def _is_namedtuple_class(v):
    """A class made by collections.namedtuple or typing.NamedTuple."""
    return isinstance(v, type) and issubclass(v, tuple) and isinstance(getattr(v, "_fields", None), tuple)


def _tuple_type(entry, passed):
    """(annotation, constexprs, runtime) of a tuple argument's key entry: its type as the
    compiler reads a tuple parameter ("(*fp32,(i32,constexpr))"; a namedtuple's names its
    class and fields, "Tensor(ptr:*fp32,shape:(i32,i32))"), the tuple of its constexpr
    items' values in their places (None where the item is a run-time one) and whether any
    item is a run-time one."""
    texts, values, runtime = [], [], False
    for e in entry[2]:
        if isinstance(e, tuple) and e[0] == _CODE_TUPLE:
            text, value, r = _tuple_type(e, passed)
        elif isinstance(e, tuple):  # (code, type, value): a constexpr value
            text, value, r = "constexpr", _function_refs(e[2], passed), False
        elif e == _CODE_NONE:
            text, value, r = "constexpr", None, False
        else:
            text, value, r = _type_text(e), None, True
        texts.append(text)
        values.append(value)
        runtime |= r
    cls = entry[1]
    if _is_namedtuple_class(cls) and len(cls._fields) == len(texts) and cls.__name__.isidentifier():
        return (cls.__name__ + "(" + ",".join(f"{f}:{t}" for f, t in zip(cls._fields, texts)) + ")",
                tuple(values), runtime)
    return "(" + ",".join(texts) + ("," if len(texts) == 1 else "") + ")", tuple(values), runtime


def _type_text(code):
    if code == _CODE_NONE:
        return "constexpr"
    if code >= _CODE_DESC:  # "tensordesc<fp16[64, 64]>"
        rank = (code >> 6) & 7
        dims = ", ".join(str(1 << ((code >> (9 + 5 * d)) & 31)) for d in range(rank))
        return f"tensordesc<{_TYPE_NAMES[code & 63]}[{dims}]>"
    if code >= _CODE_PTR:
        return "*" + _TYPE_NAMES[code - _CODE_PTR]
    return _TYPE_NAMES[code]


class _Source:
    """A function's source as the compiler sees it: its own lines at their line numbers in
    its file (so diagnostics point there), decorators blanked out. `src` is the text from
    its `def` on, as Triton's JITFunction.src has it; replace() takes a new one (Triton's
    _unsafe_update_src), kept at the same line numbers."""

    def __init__(self, fn, src=None, guess=True):
        lines_guessed = False
        try:
            lines, first, self.filename, lines_guessed = _source_lines(fn, guess)
        except (OSError, TypeError) as e:
            if src is None:
                raise TypeError(f"@nereid.jit needs the source of '{fn.__name__}': {e}") from None
            lines, first, self.filename = [src], 1, "<string>"
        text = textwrap.dedent("".join(lines))
        body = text.splitlines(keepends=True)
        self.def_line = 0
        for i, line in enumerate(body):  # decorators (which may span lines) go; the def stays
            if line.startswith(("def ", "async def ")):
                body[:i] = ["\n"] * i
                self.def_line = i
                break
        if src is not None:  # a new text from the def on, at the def's line
            body = ["\n"] * self.def_line + textwrap.dedent(src).splitlines(keepends=True)
        self.first = first
        self.lines = body
        self.name = fn.__name__
        try:
            tree = ast.parse("".join(body))
            fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
        except SyntaxError:
            if not lines_guessed:
                raise
            fdef = None
        if lines_guessed and (fdef is None or fdef.name != fn.__name__):  # inspect's block, as before
            self.__init__(fn, src, guess=False)
            return
        if fdef is None:
            raise TypeError(f"kernel '{fn.__name__}': its source holds no function definition")
        if fdef.args.vararg or fdef.args.kwarg or fdef.args.kwonlyargs or fdef.args.posonlyargs:
            raise TypeError(f"kernel '{fn.__name__}': only plain parameters are allowed (no *args, **kwargs, "
                            "keyword-only or positional-only parameters)")
        self.arg_pos = [(a.arg, a.lineno - 1, a.end_col_offset, a.annotation is not None) for a in fdef.args.args]
        self.arg_start = {a.arg: (a.lineno - 1, a.col_offset) for a in fdef.args.args}
        # an annotation's span (row, first column, end column), where text() may replace it
        self.ann_span = {a.arg: (a.annotation.lineno - 1, a.annotation.col_offset, a.annotation.end_col_offset)
                         for a in fdef.args.args if a.annotation is not None and
                         a.annotation.lineno == a.annotation.end_lineno}
        # the names the text reads (a text given to _unsafe_update_src may call helpers the
        # function's own code does not name, as Triton's tests patch kernels)
        # and `name.attr` where name may be a module (helpers.fn, tl_math.exp, math.pi): the
        # span (row, first column, end column, in bytes) that _module_spelling may replace
        self.names, self.attrs, self.spans, self.stored = _names_and_attrs(fdef)
        self.def_span = (fdef.lineno - 1, fdef.col_offset + len("def "))  # where its name is
        self.def_name = fdef.name  # the text's (a library may rename the function after: cacheable)

    @property
    def src(self):
        return "".join(self.lines[self.def_line:])

    def text(self, annotate=None, modules=(), retype=(), renames=None, def_name=None):
        """The source with `: TYPE` added after the parameters named in annotate (a
        descriptor's type as a string, as Triton spells it: `: "tensordesc<fp16[64, 64]>"`),
        the annotation of those named in retype too (annotations typed by the argument:
        `n: tl.const` given an int is `n: "i32"`, or `n: "constexpr"` when it is 1), and each
        `name.attr` (or `name.sub.attr`) in modules ((name, attr) pairs: _module_refs')
        spelled `name_attr`, the name source() binds to what it is, padded to the same width
        so that every column stays where it was. renames: the names of globals this text reads
        that the compiled text calls otherwise (a helper or constant whose name another
        module's uses too), each as wide as the name; def_name: the function's own in the
        compiled text (its __name__, which a library may have changed after the def, or a
        name given it apart)."""
        lines = [l.encode() for l in self.lines]
        for base, attr, row, c0, c1 in self.attrs:
            if (base, attr) in modules:
                lines[row] = lines[row][:c0] + _module_spelling(base, attr).encode().ljust(c1 - c0) + lines[row][c1:]
        for name, row, c0, c1 in self.spans if renames else ():
            if name in renames and name not in self.stored and lines[row][c0:c1] == name.encode():
                lines[row] = lines[row][:c0] + renames[name].encode() + lines[row][c1:]
        for name, row, col, has_ann in reversed(self.arg_pos):  # right to left keeps columns valid
            if annotate and name in annotate and not has_ann:
                ty = annotate[name]
                ty = f'"{ty}"' if "<" in ty or "(" in ty else ty
                lines[row] = lines[row][:col] + f": {ty}".encode() + lines[row][col:]
            elif annotate and name in self.ann_span and (annotate.get(name, "").startswith("*k") or
                                                         (name in retype and name in annotate)):
                r, c0, c1 = self.ann_span[name]  # `p: tl.const` given a pointer: '"*kfp32"'
                lines[r] = lines[r][:c0] + f'"{annotate[name]}"'.encode() + lines[r][c1:]
        if def_name is not None and def_name != self.def_name:  # last: columns left of it unmoved
            row, c0 = self.def_span
            if lines[row][c0:c0 + len(self.def_name)] == self.def_name.encode():
                lines[row] = lines[row][:c0] + def_name.encode() + lines[row][c0 + len(self.def_name):]
        return b"".join(lines).decode()


def _source_lines(fn, guess=True):
    """(lines, first line number, file name, guessed) of fn's definition, decorators
    included, as inspect.getsourcelines gives them. inspect finds the block's end by
    tokenizing it in Python (most of a small kernel's Python-side compile time); here the
    code objects' positions give a line the block reaches (the last line any instruction
    spans), and the block runs on over the lines indented deeper than its def (statements
    without instructions: an assert under python -O, a global, code after a return),
    comments and blank lines among them; `guessed` is then True, and the caller parses the
    lines and, where they are not the whole def (a bracket alone on a line of its own, a
    string's lines at column 0), asks inspect."""
    fn = inspect.unwrap(fn) if hasattr(fn, "__wrapped__") else fn  # as inspect does
    code = getattr(fn, "__code__", None)
    filename = inspect.getsourcefile(fn)
    if guess and code is not None and filename and hasattr(code, "co_positions"):
        linecache.checkcache(filename)  # a file edited since its import is read again, as inspect does
        lines = linecache.getlines(filename, fn.__globals__)
        first, last, todo = code.co_firstlineno, 0, [code]
        while todo:
            c = todo.pop()
            for _, end, _, _ in c.co_positions():
                if end is not None and end > last:
                    last = end
            todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        if 0 < first <= last <= len(lines):
            d = first - 1  # the def's line, after the decorators
            while d < last and not lines[d].lstrip().startswith(("def ", "async def ")):
                d += 1
            depth = len(lines[d]) - len(lines[d].lstrip())
            end = last
            for i in range(last, len(lines)):
                text = lines[i].strip()
                deeper = len(lines[i]) - len(lines[i].lstrip()) > depth
                if text and not deeper and not text.startswith("#"):
                    break  # the next statement at the def's depth or above
                if text and deeper:
                    end = i + 1
            return lines[first - 1:end], first, filename, True
    lines, first = inspect.getsourcelines(fn)
    return lines, first, filename or "<unknown>", False


def _names_and_attrs(fdef):
    """The names fdef reads ([id of each ast.Name]) and its one-line `name.attr` and
    `name.sub.attr` reads ([(name, attr or "sub.attr", row, first column, end column)]), in
    ast.walk's order: one walk, without ast.walk's generators; and each name's span
    ([(id, row, first column, end column)]) and the names it binds (parameters, assignment
    and loop targets: its locals)."""
    names, attrs, spans, todo, i = [], [], [], [fdef], 0
    stored = {a.arg for a in fdef.args.args}
    Name, Attribute, AST, Store = ast.Name, ast.Attribute, ast.AST, ast.Store
    while i < len(todo):
        n = todo[i]
        i += 1
        t = type(n)
        if t is Name:
            names.append(n.id)
            spans.append((n.id, n.lineno - 1, n.col_offset, n.end_col_offset))
            if type(n.ctx) is Store:
                stored.add(n.id)
            continue
        if t is Attribute and type(n.value) is Name and n.lineno == n.end_lineno:
            attrs.append((n.value.id, n.attr, n.lineno - 1, n.col_offset, n.end_col_offset))
        elif (t is Attribute and type(n.value) is Attribute and type(n.value.value) is Name and
              n.lineno == n.end_lineno):  # `name.sub.attr`: tl.target_info.is_cuda, helpers.sub.fn
            attrs.append((n.value.value.id, n.value.attr + "." + n.attr, n.lineno - 1, n.col_offset,
                          n.end_col_offset))
        for f in t._fields:
            v = getattr(n, f, None)
            if type(v) is list:
                todo += [x for x in v if isinstance(x, AST)]
            elif isinstance(v, AST):
                todo.append(v)
    return names, attrs, spans, stored


def _take_names(obj, fn):
    """obj wraps the Python function fn (a kernel, a constexpr function): fn and its names."""
    obj.fn = fn
    obj.__name__ = fn.__name__
    obj.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
    obj.__doc__ = fn.__doc__
    obj.__module__ = fn.__module__
    obj.__wrapped__ = fn


class KernelParam:
    """A kernel parameter as Triton's JITFunction.params holds it."""

    def __init__(self, num, param, is_constexpr):
        self.num, self._param, self.is_constexpr = num, param, is_constexpr
        self.name = param.name
        ann = param.annotation
        self.annotation = "" if ann is inspect.Parameter.empty or ann is None else (
            "constexpr" if is_constexpr else (ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))))
        self.do_not_specialize = self.do_not_specialize_on_alignment = False
        self.is_const = _is_const_annotation(ann)

    @property
    def default(self):
        return self._param.default

    @property
    def has_default(self):
        return self._param.default is not inspect.Parameter.empty

    def __repr__(self):
        return f"KernelParam({self.num}, {self.name!r}{', constexpr' if self.is_constexpr else ''})"


class JITFunction(_nereid.Dispatcher):
    """A kernel written in Python: `kernel[grid](*args, **constexprs)`."""

    def __class_getitem__(cls, item):
        # Triton's JITFunction is generic (JITFunction[T]): annotations and Triton's own
        # modules that subclass JITFunction[T] (imported lazily, after the drop-in has put
        # this class in its place) subscript it
        return cls

    def __init__(self, fn, version=None, do_not_specialize=None, do_not_specialize_on_alignment=None, debug=None,
                 noinline=None, repr=None, launch_metadata=None, device=None, num_warps=None, num_stages=None,
                 **options):
        # Triton's parameters first, by their names (a library that rebuilds a kernel reads
        # them back from inspect.signature(JITFunction.__init__) and getattr, as
        # triton_kernels' specialize does), then Nereid's
        _take_names(self, fn)
        self.device = device
        self.version, self.debug, self.noinline, self.launch_metadata = version, debug, noinline, launch_metadata
        self._repr = repr  # Triton's repr=: names the compiled kernels (run, warmup)
        self.repr = (lambda _: fn.__name__) if repr is None else repr
        defaults = {name: _nereid.option_info(name)[0] for name in ("num_warps", "num_stages")}
        self.num_warps = defaults["num_warps"] if num_warps is None else num_warps
        self.num_stages = defaults["num_stages"] if num_stages is None else num_stages
        sig = inspect.signature(fn)
        self.signature = sig  # Triton's JITFunction.signature (libraries read its parameters)
        self.arg_names = list(sig.parameters)
        self.params = [KernelParam(i, p, kind == _CONSTEXPR) for i, (p, kind) in
                       enumerate(zip(sig.parameters.values(), (_annotation_kind(p.annotation)[0]
                                                               for p in sig.parameters.values())))]
        # Triton's do_not_specialize (names or positions): an int argument equal to 1 stays
        # a run-time value there; elsewhere, a bare parameter's (and any tuple item's) is a
        # constexpr, as Triton's launcher specialises it
        self.do_not_specialize = do_not_specialize or []
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment or []
        for p in self.params:
            p.do_not_specialize = p.num in self.do_not_specialize or p.name in self.do_not_specialize
            p.do_not_specialize_on_alignment = p.num in self.do_not_specialize_on_alignment or \
                p.name in self.do_not_specialize_on_alignment
        kinds, types, defaults = [], [], {}
        for p in sig.parameters.values():
            kind, ty = _annotation_kind(p.annotation)
            kinds.append(kind)
            types.append(ty)
            if p.default is not inspect.Parameter.empty:
                defaults[p.name] = p.default
        self.kinds = kinds
        self._types = types
        self._const = {p.name for p in sig.parameters.values() if _is_const_annotation(p.annotation)}
        self.constexprs = [n for n, k in zip(self.arg_names, kinds) if k == _CONSTEXPR]
        self._constexpr_fn = False  # made of a constexpr function (_as_jit, _python_helper)
        self._host_callable = None  # a constexpr function's Python callable: calls of it run it
        self._constexpr_functions = {}  # by name, the host callables source() last emitted
        self._setup(fn.__name__, tuple(self.arg_names), kinds, types, defaults, False,
                    [p.do_not_specialize for p in self.params])
        self._src = None

    @property
    def device(self):
        """The device given (None: the default); set it before the first launch."""
        return self._device

    @device.setter
    def device(self, value):
        self._device = value
        self._per_device = value is None or value == "cuda"  # else pinned to the one device

    # ---- the slow path, called from C ----

    def _resolve(self):
        return _runtime.context(self.device)

    def _resolve_device(self, index):
        """The context of CUDA device `index` (a launch of a per-device kernel there)."""
        return _runtime.context((_nereid.DEVICE_CUDA, index))

    def _compile(self, key, context):
        source, filename, defines = self._compile_request(key)
        # the launch's num_warps= where it gives one: tl.extra.cuda.num_warps() is that count
        # in the kernel (Triton's num_warps is a compile option)
        warps = self._launch_num_warps or self.num_warps
        mod = _runtime._compile_text(context, source, filename, defines, self.__name__, warps, self.num_stages,
                                     self._constexpr_functions, self._debug_option(key))
        return self._kernel_of(mod)

    def _debug_option(self, key):
        """The compile's run-time checks (nr_compile_options.debug) for the specialisation
        `key`, resolved as Triton resolves its debug option: the launch's debug= (carried
        in the key's last item, with sanitize_overflow=, where the launch gave either), else
        the jit's debug=, either one or-ed with TRITON_DEBUG (triton.knobs.runtime.debug).
        1: device_assert and integer overflow checks; 0: the asserts alone (debug with
        sanitize_overflow=False, as Inductor compiles); -1: no assert (Triton's default)."""
        last = key[-1] if type(key) is tuple and key else None
        flags = last[1] if type(last) is tuple and len(last) == 2 and last[0] is _nereid._DEBUG_KEY else 0
        on = True if flags & 1 else False if flags & 2 else bool(self.debug)
        if not (on or _debug_knob()):
            return -1
        return 0 if flags & 4 else 1

    def _compile_request(self, key):
        """(source, filename, defines) of the specialisation for key: what _compile
        compiles (nereid.autotune compiles several at once with Context.compile_many)."""
        self._check_do_not_specialize()
        annotate, defines, k, passed = {}, {}, 0, []
        for name, kind, ty in zip(self.arg_names, self.kinds, self._types):
            if kind == _TYPED:  # typed by its annotation: in the text already, or only in
                annotate[name] = ty  # __annotations__ (a decorator's), and then added there
            elif kind == _INFER:
                if isinstance(key[k], tuple) and key[k][0] == _CODE_TUPLE:  # a tuple: its leaves are passed
                    text, values, runtime = _tuple_type(key[k], passed)
                    # a namedtuple's fields are in its type: it stays typed, constexpr or not
                    annotate[name] = text if runtime or ":" in text else "constexpr"
                    if not runtime or "constexpr" in text:
                        defines[name] = values
                elif isinstance(key[k], tuple):  # (code, type, value): a constexpr value (a @jit function, ...)
                    annotate[name] = "constexpr"
                    defines[name] = _function_refs(key[k][2], passed)
                else:
                    annotate[name] = _type_text(key[k])
                    if name in self._const and annotate[name].startswith("*"):
                        annotate[name] = "*k" + annotate[name][1:]  # Triton's read-only pointer
                    if key[k] == _CODE_NONE:
                        defines[name] = None
                k += 1
            elif kind == _CONSTEXPR:
                defines[name] = _function_refs(key[k + 1], passed)
                k += 2
        source, filename = self.source(annotate, passed)
        return source, filename, defines

    def _check_do_not_specialize(self):
        """Triton's compile error for a constexpr parameter listed in do_not_specialize (or
        do_not_specialize_on_alignment), at the parameter."""
        for p in self.params:
            if p.is_constexpr and (p.do_not_specialize or p.do_not_specialize_on_alignment):
                own = self._own_source()
                row, col = own.arg_start[p.name]
                line = own.lines[row].rstrip("\n")
                raise CompileError(f"{own.filename}:{own.first + row}:{col + 1}: error: {p.name} marked "
                                   "as constexpr and listed in do_not_specialize/do_not_specialize_on_alignment. "
                                   f"Remove constexpr designation to skip specialization.\n{line}\n{' ' * col}^\n")

    def _kernel_of(self, mod):
        kernel = mod.kernel(self.__name__)
        kernel._signature = (tuple(self.arg_names), tuple(k == _CONSTEXPR for k in self.kinds))
        return kernel

    # ---- the source ----

    def _own_source(self):
        if self._src is None:
            self._src = _Source(self.fn)
        return self._src

    @property
    def src(self):
        """The kernel's source from its `def` on (Triton's JITFunction.src); read-only, as in
        Triton: _unsafe_update_src replaces it."""
        return self._own_source().src

    @src.setter
    def src(self, value):
        raise AttributeError("Cannot set attribute 'src' directly. Use '_unsafe_update_src()' (as in Triton)")

    @property
    def cache_key(self):
        """A hash of what this kernel compiles from (Triton's JITFunction.cache_key, which
        libraries use to name their tuning caches): its text with its helpers' and its
        module's constants, and Nereid's version. Read again after _unsafe_update_src."""
        try:
            text = self.source()[0]
        except Exception:  # a helper that does not resolve yet: the kernel's own text
            text = self.src
        return hashlib.sha256(f"{_nereid.version()}\0{text}".encode()).hexdigest()

    @property
    def __globals__(self):
        """The Python function's globals (Triton's JITFunction.__globals__)."""
        return self.fn.__globals__

    def get_capture_scope(self):
        """The names the kernel sees: the function's globals and the values of its closure's
        cells, as Triton's JITFunction.get_capture_scope (triton_kernels' specialize builds
        kernels from it)."""
        return self._scope()

    @property
    def raw_src(self):
        """The function's source lines, decorators included (Triton's raw_src); a library
        may set it (a kernel it rebuilt reporting the original's)."""
        if "_raw_src" not in self.__dict__:
            try:
                self._raw_src, self._starting_line = inspect.getsourcelines(self.fn)
            except (OSError, TypeError):
                self._raw_src, self._starting_line = [], 0
        return self._raw_src

    @raw_src.setter
    def raw_src(self, value):
        self._raw_src = value

    @property
    def starting_line_number(self):
        """The line of the function's first source line in its file (Triton's)."""
        if "_starting_line" not in self.__dict__:
            self.raw_src
        return self._starting_line

    @starting_line_number.setter
    def starting_line_number(self, value):
        self._starting_line = value

    def _unsafe_update_src(self, new_src):
        """Compile this kernel from new_src from now on (Triton's way to patch a kernel's
        text): the compiled specialisations are dropped."""
        self._src = _Source(self.fn, new_src)
        self._forget()

    def source(self, annotate=None, passed=()):
        """(text, filename) compiled for this kernel: the function with the parameters in
        annotate typed, the @nereid.jit helpers it calls, those passed as constexprs (and
        theirs) and its module's constants."""
        own = self._own_source()
        retype = {n for n, k in zip(self.arg_names, self.kinds) if k == _INFER}  # `n: tl.const`, `x: tl.tensor`
        helpers = self._helpers(passed)
        compiled, renames, module_lines = self._layout(helpers)
        lines = ["\n"] * (own.first - 1) + own.text(annotate, self._module_bases(), retype, renames[id(self)],
                                                      compiled[id(self)]).splitlines(keepends=True)
        tail = []
        host = {}
        for helper in helpers:
            hs = helper._own_source()
            text = hs.text(None, helper._module_bases(), renames=renames[id(helper)],
                           def_name=compiled[id(helper)]).splitlines(keepends=True)
            start = hs.first - 1
            # a constexpr function runs in Python when a kernel calls it with compile-time
            # values, as in Triton (the compiler calls back: _host_constexpr_call); the
            # decorator marks it, on its own decorator's line
            deco = "@triton.constexpr_function\n" if helper._host_callable is not None else None
            stubbed = False
            # a constexpr function's text, or that of a Python function one calls (needed only
            # where the body is compiled), that the compiler cannot read: a stub
            if helper._constexpr_fn and not _kernel_grammar_reads("".join(text)):
                stub = _stub_body(text, helper.__name__)  # Python the compiler cannot parse
                if stub is not None:
                    text, stubbed = stub, True
            if hs.filename == own.filename:  # (blank lines past the end are harmless)
                lines += ["\n"] * max(0, start + len(text) - len(lines))
            if hs.filename == own.filename and all(l.strip() == "" for l in lines[start:start + len(text)]) and (
                    deco is None or (start > 0 and lines[start - 1].strip() == "")):
                lines[start:start + len(text)] = text  # at its own line numbers
                if deco is not None:
                    lines[start - 1] = deco
            else:
                tail += [deco or "\n"] + text
            if deco is not None:
                host[compiled[id(helper)]] = _HostFunction(helper._host_callable, stubbed)
        self._constexpr_functions = host
        return "".join(lines + tail + module_lines), own.filename

    def _scope(self):
        """The names the function reads from outside itself: its module's globals and, as
        Triton's capture scope has them, the variables of the functions around it that it
        closes over (a @jit helper, or a constant, defined in the function that defines
        the kernel: Triton's tests define them so)."""
        fn = self.fn
        cells = getattr(fn, "__closure__", None)
        if not cells:
            return fn.__globals__
        scope = dict(fn.__globals__)
        for name, cell in zip(fn.__code__.co_freevars, cells):
            try:
                scope[name] = cell.cell_contents
            except ValueError:  # a cell not bound yet
                pass
        return scope

    def _globals_used(self, seen):
        g = self._scope()
        for name in dict.fromkeys(list(self.fn.__code__.co_names) + list(self.fn.__code__.co_freevars) +
                                  self._own_source().names):
            if name in g and name not in seen:
                seen.add(name)
                yield name, g[name]

    def _helpers(self, passed=()):
        out = [f for i, f in enumerate(passed) if f is not self and f not in passed[:i]]
        todo = [self] + out
        while todo:
            f = todo.pop()
            # each function's names in its own scope: another module's helper of the same
            # name is another helper (_layout names it apart)
            refs = [v for _, v in f._globals_used(set())] + [v for _, _, v in f._module_refs()]
            for v in refs:
                v = _as_jit(v) or (_python_helper(v) if f._constexpr_fn else None)
                if v is not None and v is not self and v not in out:
                    out.append(v)
                    todo.append(v)
        return out

    def _module_refs(self):
        """(name, attr, value) for each `name.attr` this function reads where name is a
        global bound to a module of the user's (not the language's) and attr a @jit
        function (Nereid's or Triton's) or a constant of it: `helpers.combine(a, b)`,
        `triton_helpers.maximum(x, y)`, `consts.LOG2E`; each `name.sub.attr` of such a module
        that is a constant, read in Python as Triton's code generator reads it
        (`tl.constexpr(torch.version.hip is not None)`, torchao's float8 kernels); and each
        `name.sub.attr` of such a module, or of the language's, that is a @jit or constexpr
        function the compiler does not know as the language's own
        (`tl.target_info.cuda_capability_geq(9, 0)`, as Triton's own kernel libraries spell
        it: run in Python, as when imported by name)."""
        g, local = self._scope(), set(self.fn.__code__.co_varnames)
        out = []
        for base, attr, *_ in self._own_source().attrs:
            m = g.get(base)
            chain = "." in attr
            if base in local or not isinstance(m, (types.ModuleType, language._Functions)) or \
                    (_is_language_module(m) and not chain):
                continue
            v = m
            try:
                for a in attr.split("."):
                    v = getattr(v, a)
            except Exception:  # no such member (a compile error names it), or one that raises
                continue
            if chain and _is_language_module(m) and (_as_jit(v) is None or _language_function(v) is not None):
                continue
            if _as_jit(v) is not None or (not _is_language_module(m) and _constant_text(v) is not None):
                out.append((base, attr, v))
        return out

    def _module_bases(self):
        return {(base, attr) for base, attr, _ in self._module_refs()}

    def _layout(self, helpers):
        """How the compiled text, one module, holds what each function's own module (or
        closure) gives it: (each function's name there by id, per function id the names its
        text reads that are spelled otherwise there, the module-level lines). A helper, a
        constant, a namedtuple class, another name for a helper or for the language's
        modules, functions and dtypes keeps its name unless a different one of another
        module has taken it (triton_kernels' two `clip`s with different parameters, a
        `BLOCK` of 64 in one module and 128 in another: under one name, one of them would be
        called or read where the other is meant); then it takes a name of the same width
        that no text uses, and the texts that mean it are spelled so (columns unmoved)."""
        funcs = [self] + helpers
        used = set(_LANGUAGE_NAMES) | set(keyword.kwlist)
        for f in funcs:
            src = f._own_source()
            used |= set(src.names) | {a[0] for a in src.attrs} | {f.__name__}
            used |= {_module_spelling(b, a) for b, a, _ in f._module_refs()}
        owner, by_key, lines = {}, {}, []
        compiled, renames = {}, {}

        def claim(name, key, line=None):
            got = by_key.get((name, key))
            if got is not None:
                return got
            n = name
            if n in owner and owner[n] != key:
                n = _same_width_name(name, used)
                if n is None:
                    raise TypeError(f"kernel '{self.__name__}': two different globals named '{name}' that no "
                                    "other name of the same width can tell apart")
            if n not in owner:
                owner[n] = key
                used.add(n)
                if line is not None:
                    lines.append(line(n))
            by_key[(name, key)] = n
            return n

        for f in funcs:
            compiled[id(f)] = claim(f.__name__, ("fn", id(f)))
        for f in funcs:
            r = {}
            g, src = f._scope(), f._own_source()
            for base, attr, v in f._module_refs():
                j = _as_jit(v)
                value = compiled.get(id(j), j.__name__) if j is not None else _constant_text(v)
                lines.append(f"{_module_spelling(base, attr)} = {value}\n")
            for name in dict.fromkeys(src.names + [a[0] for a in src.attrs]):
                # a name the function also assigns (or a parameter) is bound too, as before:
                # Triton reads the global until the assignment (`BLOCK = BLOCK * 2`); text()
                # leaves such names as they are
                if name not in g:
                    continue
                v = g[name]
                target = None
                j = _as_jit(v) or (_python_helper(v) if f._constexpr_fn else None)
                if name not in _LANGUAGE_NAMES and _is_language_module(v):
                    target = claim(name, ("tl",), lambda n: f"{n} = tl\n")
                elif j is not None and id(j) in compiled:
                    c = compiled[id(j)]
                    target = c if name == j.__name__ else claim(name, ("alias", id(j)), lambda n, c=c: f"{n} = {c}\n")
                elif name not in _LANGUAGE_NAMES and (_language_function(v) or _dtype_spelling(v)) is not None:
                    spelled = _language_function(v) or _dtype_spelling(v)  # `gather = tl.gather`, `DT = tl.float16`
                    target = claim(name, ("spelled", spelled), lambda n, sp=spelled: f"{n} = {sp}\n")
                else:
                    cv = v.value if isinstance(v, language.constexpr) or (
                        type(v).__name__ == "constexpr" and hasattr(v, "value")) else v  # tl.constexpr(...)
                    if isinstance(cv, (bool, int, float, str)) and not isinstance(cv, JITFunction):
                        target = claim(name, ("const", type(cv).__name__, repr(cv)), lambda n, cv=cv: f"{n} = {cv!r}\n")
                    elif _is_namedtuple_class(cv):  # a kernel may build one: Point(x=a, y=b)
                        target = claim(name, ("namedtuple", id(cv)), lambda n, cv=cv: _namedtuple_line(n, cv))
                if target is not None and target != name:
                    r[name] = target
            renames[id(f)] = r
        return compiled, renames, list(dict.fromkeys(lines))

    # ---- Triton's interface ----

    def run(self, *args, grid, warmup=False, **kwargs):
        """Launch as Triton's JITFunction.run does (Triton's autotuner calls it): returns the
        compiled kernel (its asm, metadata, n_regs, n_spills); warmup compiles (on a GPU:
        and loads) without launching. Triton's launch options are taken as a launch takes
        them (docs/python.md)."""
        if "arch" not in self.arg_names:
            _check_arch(self.__name__, kwargs)
        kwargs = {k: v for k, v in kwargs.items() if k not in _COMPILE_ONLY or k in self.arg_names}
        kernel = self[(0,)](*args, **kwargs) if warmup else self[grid](*args, **kwargs)
        if self._repr is not None and kernel is not None:
            kernel.name = self._repr(_Specialization(self, kernel, args, kwargs))
        return kernel

    def warmup(self, *args, grid=None, **kwargs):
        """Compile for these arguments without launching."""
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"'{self.__name__}' is a kernel: launch it with {self.__name__}[grid](...)")

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"


# names the compiler gives the language's modules itself (tl, triton, tl.math, libdevice, ...)
_LANGUAGE_NAMES = {"tl", "triton", "math", "extra", "libdevice", "core", "standard", "random", "language", "cuda"}


def _literal(v):
    """v, when the compiler reads it as a literal (None, a bool, int, float, str, or a tuple
    of such)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    return type(v) is tuple and all(_literal(x) for x in v)


def _namedtuple_line(name, cls):
    """The module line that gives the compiled text the namedtuple class cls as `name`:
    `name = namedtuple("Cls", ("f0", "f1"), defaults=(...))` (the defaults that are
    literals; a field whose default is not one must be given)."""
    fields = tuple(cls._fields)
    defaults = getattr(cls, "_field_defaults", {}) or {}
    tail = []
    for f in reversed(fields):
        if f not in defaults or not _literal(defaults[f]):
            break
        tail.insert(0, defaults[f])
    extra = f", defaults={tuple(tail)!r}" if tail else ""
    return f"{name} = namedtuple({cls.__name__!r}, {fields!r}{extra})\n"


def _same_width_name(name, used):
    """An identifier as wide as name that is not in used (nor a keyword): name with its last
    characters changed (`clip` -> `cli0`), None if there is none."""
    alphabet = "0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for k in range(1, len(name) + 1):
        for combo in itertools.product(alphabet, repeat=k):
            cand = name[:len(name) - k] + "".join(combo)
            if not cand[0].isdigit() and cand not in used and not keyword.iskeyword(cand):
                return cand
    return None


def _module_spelling(base, attr):
    """What `base.attr` (a module's member) is called in the compiled text: as wide as
    `base.attr`, so that columns do not move."""
    return f"{base}_{attr.replace('.', '_')}"


def _is_language_module(m):
    """A module of the language (Triton's triton.language and its submodules, or the
    namespaces nereid.language stands in for them with: tl.math, libdevice)."""
    if isinstance(m, language._Functions):
        return True
    name = getattr(m, "__name__", "") or "" if isinstance(m, types.ModuleType) else ""
    # `triton` itself: kernels call triton.cdiv and triton.next_power_of_2 (Triton's
    # constexpr functions, which the compiler knows by name)
    return name == "triton" or any(name == p or name.startswith(p + ".") for p in ("triton.language", "nereid.language"))


# Triton's own constexpr functions the compiler knows by name (builtins of the same name):
# they are spelled so, not run in Python (where the C API and `nereid compile` get them too)
_TRITON_CONSTEXPR_BUILTINS = {("triton", "cdiv"), ("triton", "next_power_of_2"),
                              ("triton.language.standard", "_log2"),
                              ("triton.language.standard", "_is_power_of_two")}


def _triton_own_constexpr_function(v):
    """One of Triton's own constexpr functions the compiler knows by name (triton.cdiv,
    triton.next_power_of_2, triton.language.standard's _log2 and _is_power_of_two): their
    Python bodies are not kernel code. Triton's others (triton.language.target_info's
    is_cuda, cuda_capability_geq, ...) run in Python as a user's do."""
    mod = getattr(v, "__module__", "") or ""
    return type(v).__name__ == "ConstexprFunction" and not isinstance(v, ConstexprFunction) and \
        (mod, getattr(v, "__name__", "")) in _TRITON_CONSTEXPR_BUILTINS


def _language_function(v):
    """How the compiled text names v when v is a function of the language bound to a name
    of the user's module (`exp = tl.exp`, `tanh = libdevice.tanh`, as libraries pick
    their helpers at import): `tl.exp`, `tl.extra.libdevice.tanh`; None for anything
    else. Nereid's stand-ins carry their names; Triton's functions their modules."""
    if not callable(v) or isinstance(v, type):
        return None
    if type(v).__name__ == "ConstexprFunction" and not _triton_own_constexpr_function(v):
        return None  # run in Python (_as_jit), not a builtin of the compiler
    mod = getattr(v, "__module__", "") or ""
    name = getattr(v, "__name__", "") or ""
    if mod == language.__name__ and getattr(v, "__qualname__", "") == name:
        ns, _, fn = name.rpartition(".")
        return {"": "tl.", "libdevice": "tl.extra.libdevice.", "math": "tl.math.",
                "cuda": "tl.extra.cuda."}.get(ns, "tl." + ns + ".") + fn if fn.isidentifier() else None
    if mod == "triton" and _triton_own_constexpr_function(v) and name.isidentifier():
        return "triton." + name  # `from triton import next_power_of_2`
    if not (mod == "triton.language" or mod.startswith("triton.language.")) or not name.isidentifier():
        return None
    if "libdevice" in mod:
        return "tl.extra.libdevice." + name
    return ("tl.math." if mod == "triton.language.math" else "tl.") + name


# the language's name of each dtype (tl.float16 for "fp16"), from the canonical names
_DTYPE_ATTRS = {v: k for k, v in _ALIASES.items() if k.startswith(("int", "uint", "float", "bfloat")) and
                k not in ("int", "float") and "_" not in k}


def _dtype_spelling(v):
    """`tl.float16` for a dtype (Nereid's or Triton's) bound to a global or a variable the
    kernel closes over (Triton lets kernels read those: `DTYPE = tl.float16` at module
    level, a test's `dtype` parameter); None for anything else."""
    if isinstance(v, type) or type(v).__name__ != "dtype" or \
            (type(v).__module__ or "").split(".")[0] not in ("nereid", "triton"):
        return None
    name = getattr(v, "name", None)
    attr = _DTYPE_ATTRS.get(_ALIASES.get(name, name)) if isinstance(name, str) else None
    return f"tl.{attr}" if attr else None


def _constant_text(v):
    """A module constant as the compiled text spells it, when the compiler can take it (a
    number, a bool, a string or None, or a tl.constexpr of one), else None."""
    if isinstance(v, language.constexpr) or (type(v).__name__ == "constexpr" and hasattr(v, "value")):
        v = v.value
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    return None


def _as_jit(v):
    """v as a Nereid @jit function: itself, or, for a function Triton's own @triton.jit
    decorated (a library that imported Triton before the drop-in: Inductor's
    triton_helpers, Triton's own helpers) or a constexpr function (Triton's or Nereid's),
    Nereid's JITFunction of the same Python function, made once and kept on it. None for
    anything else."""
    if isinstance(v, JITFunction):
        return v
    if _triton_own_constexpr_function(v):
        return None
    fn = getattr(v, "fn", None)  # Triton's JITFunction; its ConstexprFunction and ours
    if type(v).__name__ == "constexpr" and inspect.isfunction(getattr(v, "value", None)):
        fn = v.value  # a plain function decorated @tl.constexpr: Triton calls it at compile time
    elif type(v).__name__ not in ("JITFunction", "ConstexprFunction") or not inspect.isfunction(fn):
        return None
    constexpr_fn = type(v).__name__ != "JITFunction"
    # Triton's ConstexprFunction and ours unwrap constexprs when called; a @tl.constexpr's
    # function is called as it is
    host = (fn if type(v).__name__ == "constexpr" else v) if constexpr_fn else None
    return _kept_jit(v, fn, constexpr_fn, host)


def _kept_jit(owner, fn, constexpr_fn, host_callable):
    """Nereid's JITFunction of the Python function fn, made once and kept on owner (the
    object a module names: Triton's JITFunction, a constexpr function, fn itself)."""
    made = getattr(owner, "_nereid_jit", None)
    if made is None:
        made = JITFunction(fn)
        made._constexpr_fn, made._host_callable = constexpr_fn, host_callable
        try:
            owner._nereid_jit = made
        except AttributeError:
            pass
    return made


class _HostFunction:
    """A constexpr function as the compiler's callback runs it: the Python callable, and
    whether the compiled text holds a stub in place of its body (Python the kernel
    grammar does not read: a dict, an f-string, ...)."""

    def __init__(self, fn, stubbed):
        self.fn, self.stubbed = fn, stubbed
        self.__name__ = getattr(fn, "__name__", "constexpr_function")


def _language_of(fn):
    """The language module a constexpr function's own module works with (its dtypes are
    the ones it compares): Triton's triton.language where it imports that, Nereid's where it
    imports nereid.language; else Triton's once the drop-in is installed, else Nereid's."""
    f = getattr(fn, "fn", fn)
    found = set()
    for v in (getattr(f, "__globals__", None) or {}).values():
        if isinstance(v, types.ModuleType) and v.__name__ in ("triton.language", "nereid.language", "triton"):
            found.add("nereid" if v.__name__ == "nereid.language" else "triton")
    triton_language = sys.modules.get("triton.language")
    if found == {"nereid"} or triton_language is None:
        return language
    if found == {"triton"}:
        return triton_language
    from . import dropin
    return triton_language if dropin.installed() else language


def _host_constexpr_call(host, args):
    """A constexpr function called in a kernel, run here as Triton runs it (the compiler
    calls this through Context.compile's constexpr_functions): args is the text of the
    call's arguments, Python literals and `tl.` dtypes (Triton's language module where it
    is loaded, so that the function compares them with its own); returns the result as a
    define's text. Where the function raises or its result is no compile-time value, None
    (the compiler then compiles its body, where a `raise` the call reaches is the compile
    error, at its place), or, for a stubbed body, the exception (the compiler reports it)."""
    lang = _language_of(host.fn)
    try:
        values = eval(f"({args},)" if args else "()", {"__builtins__": {"float": float}, "tl": lang})
        result = host.fn(*values)
    except Exception:  # noqa: BLE001 - what Nereid's stand-ins lack, or the function's own error
        if host.stubbed:
            raise
        return None
    try:
        _check_ints(result)
        return _runtime.define_text(host.__name__, result)
    except TypeError as e:  # the function ran: a result the compiler cannot take is an error
        raise TypeError(f"its result {result!r} is not a compile-time value Nereid takes: {e}") from None


def _check_ints(v):
    """TypeError for an int outside 64 bits, signed (a constexpr int's range), in v."""
    if isinstance(v, (tuple, list)):
        for x in v:
            _check_ints(x)
    elif isinstance(v, int) and not isinstance(v, bool) and not -2**63 <= v < 2**63:
        raise TypeError(f"{v} does not fit in a signed 64-bit int")


# what the kernel grammar does not read (Python a constexpr function may hold)
_NOT_KERNEL_SYNTAX = tuple(getattr(ast, n) for n in (
    "Dict", "Set", "DictComp", "SetComp", "GeneratorExp", "JoinedStr", "Lambda", "Try", "TryStar", "With",
    "AsyncWith", "ClassDef", "Global", "Nonlocal", "Yield", "YieldFrom", "Await", "NamedExpr", "AsyncFunctionDef",
    "Delete", "Match", "AsyncFor") if hasattr(ast, n))


def _kernel_grammar_reads(text):
    """Whether a function's text (from its def) is free of the Python constructs Nereid's
    front end rejects: those above, a nested def, bytes literals, `else` on a loop."""
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return False
    nodes = list(ast.walk(tree))
    return sum(isinstance(n, ast.FunctionDef) for n in nodes) <= 1 and not any(
        isinstance(n, _NOT_KERNEL_SYNTAX) or (isinstance(n, ast.Constant) and isinstance(n.value, bytes)) or
        (isinstance(n, (ast.For, ast.While)) and n.orelse) for n in nodes)


def _stub_body(lines, name):
    """lines (a function's, from its def) with the body made one `raise` at the body's
    first line and blank lines after (the def keeps its lines and columns; a body on the
    def's own line keeps its column there); None where the text does not parse."""
    text = "".join(lines)
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return None
    fdef = tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
    if fdef is None:
        return None
    first = fdef.body[0].lineno - 1  # the lines' index: the text starts at the def's line
    if first < 0 or first >= len(lines):
        return None
    why = (f"constexpr function '{name}' runs in Python (its body is Python Nereid's compiler does not read), "
           "and this call could not run it there: an argument or its result is not a number, a string, a dtype, "
           "None or a tuple of these")
    # the body's hash, so that the compiled text (the caches' key) changes with the body
    stub = f"raise NotImplementedError({why!r})  # body {hashlib.sha256(text.encode()).hexdigest()[:16]}\n"
    line, dedented = lines[first], textwrap.dedent(text).splitlines()[first]
    col = (len(line) - len(line.lstrip())) - (len(dedented) - len(dedented.lstrip())) + fdef.body[0].col_offset
    return lines[:first] + [line[:col] + stub] + ["\n"] * (len(lines) - first - 1)


def _python_helper(v):
    """A plain Python function that a constexpr function calls (FlagGems' `@tl.constexpr`
    helpers call `unwrap_if_constexpr`): Triton runs a constexpr function's body as
    Python, so its callees are Python too; Nereid compiles them with the kernel as
    constexpr functions (their values must be known at compile time). None for anything
    else: a lambda, a builtin, a function of Triton, Nereid or the standard library."""
    if not inspect.isfunction(v) or v.__name__ == "<lambda>":
        return None
    mod = (getattr(v, "__module__", "") or "").split(".")[0]
    if mod in ("triton", "nereid", "torch", "numpy", "builtins") or mod in sys.stdlib_module_names:
        return None
    return _kept_jit(v, v, True, None)


class _Specialization:
    """What Triton's `repr=` function receives about a compiled kernel: `signature` (each
    parameter's type: "i32", "*fp32", ..., "constexpr") and `constants` (the constexprs'
    values, None arguments, and, as Triton's launcher specialises them, int arguments
    equal to 1 of bare parameters not in do_not_specialize), keyed by parameter name."""

    def __init__(self, fn, kernel, args, kwargs):
        bound = dict(zip(fn.arg_names, args))
        bound.update((k, v) for k, v in kwargs.items() if k in fn.arg_names)
        for p in fn.params:
            if p.name not in bound and p.has_default:
                bound[p.name] = p.default
        types = dict(kernel.params())
        self.signature, self.constants = {}, {}
        for name in fn.arg_names:
            v = bound.get(name)
            if name in types:  # a run-time parameter of the compiled kernel
                self.signature[name] = types[name]
            else:
                self.signature[name] = "constexpr"
                self.constants[name] = v.value if hasattr(v, "value") and type(v).__name__ == "constexpr" else v


def _check_arch(name, kwargs):
    """Triton's check of num_ctas against a target given as `arch=` (a compile-only option
    Nereid otherwise drops): clusters need Hopper (sm90) or later; AMD targets have none."""
    arch, num_ctas = kwargs.get("arch"), kwargs.get("num_ctas", 1)
    if arch is None or num_ctas in (None, 1) or not isinstance(arch, (str, int)):
        return
    text = str(arch)
    if text.startswith("gfx"):
        raise ValueError(f"{name}(): num_ctas > 1 not supported for AMD GPUs ({text})")
    digits = re.sub(r"\D", "", text)
    if digits and int(digits) < 90:
        raise ValueError(f"{name}(): num_ctas > 1 requires NVIDIA SM90+ (Hopper); the target is {text}")


def _function_refs(value, passed):
    """A constexpr's value with the functions in it (Triton passes @jit functions as
    constexprs: `kernel[grid](x, fn=add)`) as references the compiler resolves by name:
    @nereid.jit functions (appended to passed, compiled with the kernel) by theirs, the
    language's own (tl.sigmoid, libdevice's) as tl.NAME. A tl.constexpr(...) object is its
    value."""
    if isinstance(value, language.constexpr) or (type(value).__name__ == "constexpr" and hasattr(value, "value")):
        value = value.value
    if isinstance(value, JITFunction):
        passed.append(value)
        return _runtime.FunctionRef(value.__name__)
    if isinstance(value, (tuple, list)) and not isinstance(value, str):
        return tuple(_function_refs(v, passed) for v in value)
    module = getattr(value, "__module__", None) or ""
    name = getattr(value, "__name__", None) or getattr(getattr(value, "fn", None), "__name__", None)
    if callable(value) and not isinstance(value, type) and name and \
            module.split(".")[:2] in (["triton", "language"], ["nereid", "language"]):
        return _runtime.FunctionRef("tl." + name.split(".")[-1])
    return value


class ConstexprFunction:
    """@nereid.constexpr_function (Triton's @triton.constexpr_function): a function of
    compile-time values. From Python it is the function (constexpr arguments unwrapped);
    called in a kernel, Nereid compiles its body with the kernel and every value it
    computes must be known at compile time (its arguments constexprs): the body may use
    what a kernel's compile-time code may (arithmetic, comparisons, if/else, min/max,
    tuples, dtypes, helpers of the same kind), not arbitrary Python."""

    def __init__(self, fn):
        _take_names(self, fn)

    def __call__(self, *args, **kwargs):
        unwrap = lambda v: v.value if type(v).__name__ == "constexpr" and hasattr(v, "value") else v
        return self.fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})

    def __repr__(self):
        return f"ConstexprFunction({self.__module__}:{self.__qualname__})"


def constexpr_function(fn):
    """Decorator: a function of compile-time values, callable from kernels and from Python
    (Triton's @triton.constexpr_function)."""
    return ConstexprFunction(fn)


def _debug_knob():
    """triton.knobs.runtime.debug (TRITON_DEBUG, read when the knobs were made or
    refreshed): Triton's where Triton is loaded, else the stand-in's."""
    rt = getattr(getattr(sys.modules.get("triton"), "knobs", None), "runtime", None)
    if rt is None or not hasattr(rt, "debug"):
        from . import _knobs
        rt = _knobs.runtime
    return bool(rt.debug)


def jit(fn=None, *, device=None, num_warps=None, num_stages=None, **options):
    """Decorator: `@nereid.jit` or `@nereid.jit(device="cpu", num_warps=8)`. Triton's
    do_not_specialize (names or positions of parameters whose int arguments equal to 1 stay
    run-time values) is honoured; its other options (debug, noinline, ...) are accepted and
    ignored."""
    def wrap(f):
        return JITFunction(f, device=device, num_warps=num_warps, num_stages=num_stages, **options)
    return wrap(fn) if fn is not None else wrap
