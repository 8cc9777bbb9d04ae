#!/usr/bin/env python3
"""check-layers.py [--graph] [ROOT] - check that the source folders are layers: every
`#include "..."` of a library file names a header in its own folder, in a folder below it
(the Makefile's LAYERS, bottom first), or in include/. The Python extension
(python/nereid) sits above the library and sees only include/. Exit 1, listing each
include that points up or sideways-up and every cycle between folders, else 0.

    python3 tools/check-layers.py            # check this tree
    python3 tools/check-layers.py --graph    # print the folder include graph too
    python3 tools/check-layers.py --calls build   # also: no call cycle among runtime's files

The order comes from `make -s print-layers` in ROOT (one owner: the Makefile), or from
ROOT/LAYERS when there is no Makefile (the script's own test builds such trees). A folder
holding C sources that is not a listed layer is an error too, so a new folder cannot
escape the check.

--calls BUILD reads the object files of BUILD/obj (nm) and checks that no two files of
runtime/ or driver/ call each other, directly or through others, except the files of one
module that shares an internal header (interp.c and interp_*.c, with interp_impl.h):
each file there is a layer of its own too."""
import os
import re
import subprocess
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = (".c", ".h", ".def", ".y", ".l")
TOP = "python/nereid"  # the extension: above the library, sees include/ only


def layers_of(root):
    if os.path.exists(os.path.join(root, "Makefile")):
        r = subprocess.run(["make", "-s", "--no-print-directory", "-C", root, "print-layers"], capture_output=True,
                           text=True)
        if r.returncode == 0 and r.stdout.split():
            return r.stdout.split()
    with open(os.path.join(root, "LAYERS")) as f:
        return f.read().split()


def resolve(root, src, inc):
    """The folder (relative to root) of the file an include names, or None (a generated or
    system header)."""
    for base in (os.path.dirname(src), "", "include"):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, p)):
            return os.path.dirname(p) or "."
    return None


CALL_CHECKED = ("runtime", "driver")


def call_cycles(root, build):
    """Cycles of calls between the files of CALL_CHECKED's folders (from the symbols their
    objects define and use), but within one module that has an internal header."""
    errors = []
    for d in CALL_CHECKED:
        od = os.path.join(build, "obj", d)
        if not os.path.isdir(od):
            errors.append(f"{od}: no object files (build first)")
            continue
        defs, uses = {}, {}
        for f in sorted(os.listdir(od)):
            stem = f[:-2]
            if not f.endswith(".o") or not os.path.exists(os.path.join(root, d, stem + ".c")):
                continue
            out = subprocess.run(["nm", os.path.join(od, f)], capture_output=True, text=True).stdout
            for line in out.splitlines():
                p = line.split()
                if len(p) == 3 and p[1] in "TDRB":
                    defs[p[2]] = stem
                elif len(p) == 2 and p[0] == "U":
                    uses.setdefault(stem, set()).add(p[1])
        succ = {n: {defs[u] for u in us if u in defs and defs[u] != n} for n, us in uses.items()}
        index, low, stack, on, comps = {}, {}, [], set(), []

        def strong(v):  # Tarjan's strongly connected components
            index[v] = low[v] = len(index)
            stack.append(v)
            on.add(v)
            for w in sorted(succ.get(v, ())):
                if w not in index:
                    strong(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))

        for v in sorted(succ):
            if v not in index:
                strong(v)
        for comp in comps:
            mod = comp[0].split("_")[0]
            internal = any(os.path.exists(os.path.join(root, d, f"{mod}_{h}.h")) for h in ("impl", "internal"))
            if not (internal and all(c == mod or c.startswith(mod + "_") for c in comp)):
                errors.append(f"{d}/: these files call each other in a circle: " + ", ".join(c + ".c" for c in comp))
    return errors


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    graph = "--graph" in sys.argv
    build = None
    if "--calls" in sys.argv:
        i = sys.argv.index("--calls")
        build = sys.argv[i + 1] if i + 1 < len(sys.argv) else "build"
        args = [a for a in args if a != build]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    layers = layers_of(root)
    rank = {"include": -1}
    for i, d in enumerate(layers):
        rank[d] = i
    rank[TOP] = len(layers)
    errors, edges = [], {}
    # every folder holding library sources must be a layer
    for top in sorted({d.split("/")[0] for d in layers} | {"python"}):
        for dp, dns, fns in os.walk(os.path.join(root, top)):
            dns[:] = [d for d in dns if d not in ("tests", "__pycache__", "stdlib")]
            rel = os.path.relpath(dp, root)
            if any(f.endswith(".c") for f in fns) and rel not in rank:
                errors.append(f"{rel}: holds C sources but is not a layer (add it to the Makefile's LAYERS)")
    for d in list(rank):
        if d == "include":
            continue
        full = os.path.join(root, d)
        if not os.path.isdir(full):
            continue
        for f in sorted(os.listdir(full)):
            if not f.endswith(SOURCES):
                continue
            src = os.path.join(d, f)
            with open(os.path.join(root, src), errors="replace") as fh:
                text = fh.read()
            for m in INCLUDE_RE.finditer(text):
                tgt = resolve(root, src, m.group(1))
                if tgt is None or tgt == d:
                    continue
                line = text.count("\n", 0, m.start()) + 1
                edges.setdefault((d, tgt), []).append(f"{src}:{line}")
                if tgt not in rank:
                    errors.append(f"{src}:{line}: includes \"{m.group(1)}\" from {tgt}/, which is no layer")
                elif rank[tgt] > rank[d]:
                    errors.append(f"{src}:{line}: includes \"{m.group(1)}\": {d}/ may not include {tgt}/, "
                                  f"a layer above it")
    # cycles among folders (a consequence of the errors above, named for the reader)
    succ = {}
    for (a, b) in edges:
        succ.setdefault(a, set()).add(b)
    state, stack, cycles = {}, [], []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(succ.get(n, ())):
            if state.get(m) == 1:
                cycles.append(stack[stack.index(m):] + [m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(succ):
        if n not in state:
            visit(n)
    for c in cycles:
        errors.append("include cycle between folders: " + " -> ".join(c))
    if build:
        errors += call_cycles(root, os.path.abspath(build))
    if graph:
        print("folder include graph (an edge: some file of the first includes a header of the second):")
        for (a, b) in sorted(edges, key=lambda e: (rank.get(e[0], 99), rank.get(e[1], 99))):
            print(f"  {a} -> {b}  ({len(edges[(a, b)])})")
    for e in errors:
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} problem(s); the layers, bottom first: include " + " ".join(layers) +
              f" {TOP}")
        return 1
    print(f"check-layers: {len(layers)} layers, {sum(len(v) for v in edges.values())} includes across folders, "
          "all pointing down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
