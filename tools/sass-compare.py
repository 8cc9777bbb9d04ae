#!/usr/bin/env python3
"""sass-compare.py BEFORE AFTER - what ptxas makes of two PTX snapshots (tools/ptx-snapshot.py),
kernel by kernel: registers, spills and the machine code's instruction counts, in all and
inside loops. For showing that a change of the code generator (LLVM's pipeline, the IR it
is given) costs the GPU nothing, without a GPU:

    python3 tools/ptx-snapshot.py build /tmp/before     # on the old tree
    python3 tools/ptx-snapshot.py build /tmp/after      # on the new tree
    python3 tools/sass-compare.py /tmp/before /tmp/after

Each PTX file is assembled by `ptxas -v --gpu-name ARCH` (the architecture the snapshot
compiled it for, from commands.txt; PTXAS or /usr/local/cuda/bin/ptxas); a file identical
in both snapshots is assembled once. ptxas -v gives the registers, the spill stores and
loads and the stack frame. The instructions are read from the cubin's .text.KERNEL
sections without a disassembler (the toolkit's cuobjdump and nvdisasm need not be
installed): from sm_70 on, every instruction is 16 bytes, the low 12 bits the opcode, NOP
0x918 (the padding after the last instruction, not counted), BRA 0x947 with a signed
offset in 4-byte units in bits 16-23 and 34-81, from the next instruction. A backward
branch closes a loop (its target to itself); "loop" counts the instructions inside any
loop, "inner" those inside innermost loops, which is where a kernel's time goes (a
matmul's or attention's K loop); "r2ur" counts the R2UR instructions inside loops (0x2ca on
sm_90: a value moved from a vector register to a uniform one, which a wgmma's descriptor
or a TMA copy's operands must be in: where ptxas loses track of a value's uniformity, e.g.
one derived from a warp index live across the loop, each use inside the loop pays one;
counted against cuobjdump -sass on ptxas 13.0's sm_90a cubins).

Printed: every kernel whose counts differ, a line per kernel and architecture with the
before and after values, the ones that rose marked; then totals. Exit status 1 if any
kernel's registers, spills, or loop instructions rose (a rise of the total outside loops
alone is reported, not failed), or if ptxas fails on a file of AFTER that BEFORE
assembled. --all prints every kernel; --jobs N runs N ptxas at once (default: the CPUs);
--cache DIR keeps each PTX file's results under its content's hash (default
$TMPDIR/sass-compare-cache)."""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

NOP, BRA, R2UR = 0x918, 0x947, 0x2CA
FIELDS = ("regs", "spill_st", "spill_ld", "stack", "total", "loop", "inner", "r2ur")


def text_sections(path):
    """{kernel: [(lo, hi) 64-bit halves of each instruction]} from an ELF64 cubin."""
    d = open(path, "rb").read()
    shoff = struct.unpack_from("<Q", d, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    secs = [struct.unpack_from("<IIQQQQ", d, shoff + i * shentsize) for i in range(shnum)]
    stroff = secs[shstrndx][4]
    out = {}
    for name, _typ, _flags, _addr, off, size in secs:
        n = d[stroff + name:d.index(b"\0", stroff + name)].decode()
        if n.startswith(".text."):
            out[n[6:]] = [struct.unpack_from("<QQ", d, off + j) for j in range(0, size, 16)]
    return out


def branch_target(i, lo, hi, arch):
    """The index of the instruction a BRA at index i goes to (None: not one)."""
    if arch.startswith("sm_8"):  # sm_80-sm_89: bytes, bits 32-81
        v = (lo >> 32) | ((hi & 0x3FFFF) << 32)
        if v & (1 << 49):
            v -= 1 << 50
        t = (i + 1) * 16 + v
    else:  # sm_90: 4-byte units, bits 16-23 then 34-81
        v = ((lo >> 16) & 0xFF) | (((lo >> 34) | ((hi & 0x3FFFF) << 30)) << 8)
        if v & (1 << 55):
            v -= 1 << 56
        t = (i + 1) * 16 + v * 4
    return t // 16 if t % 16 == 0 else None


def code_stats(ins, arch):
    """total, loop and inner instruction counts of one kernel's instructions, and its R2URs
    inside loops."""
    n = len(ins)
    while n and ins[n - 1][0] & 0xFFF == NOP:
        n -= 1
    # the last instruction is ptxas's branch to itself after the final EXIT: no loop
    if n and ins[n - 1][0] & 0xFFF == BRA and branch_target(n - 1, *ins[n - 1], arch) == n - 1:
        n -= 1
    loops = []
    for i in range(n):
        lo, hi = ins[i]
        if lo & 0xFFF == BRA:
            t = branch_target(i, lo, hi, arch)
            if t is None or not 0 <= t < len(ins):
                raise ValueError("a branch this script cannot decode at instruction %d" % i)
            if t <= i:
                loops.append((t, i))
    in_loop = [False] * n
    for t, i in loops:
        for j in range(t, i + 1):
            in_loop[j] = True
    inner = [False] * n
    for t, i in loops:
        if not any((a, b) != (t, i) and t <= a and b <= i for a, b in loops):
            for j in range(t, i + 1):
                inner[j] = True
    r2ur = sum(1 for j in range(n) if in_loop[j] and ins[j][0] & 0xFFF == R2UR) if arch.startswith("sm_9") else 0
    return {"total": n, "loop": sum(in_loop), "inner": sum(inner), "r2ur": r2ur}


def assemble(ptxas, path, arch):
    """{kernel: stats} for one PTX file, or {"error": text}."""
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        r = subprocess.run([ptxas, "-v", "--gpu-name", arch, "-o", cubin, path], capture_output=True,
                           text=True)
        if r.returncode:
            return {"error": (r.stderr or r.stdout)[-2000:]}
        out, cur = {}, None
        for line in (r.stdout + r.stderr).splitlines():
            m = re.search(r"Function properties for (\S+)", line)
            if m:
                cur = out.setdefault(m.group(1), {})
            m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m and cur is not None:
                cur.update(stack=int(m.group(1)), spill_st=int(m.group(2)), spill_ld=int(m.group(3)))
            m = re.search(r"Used (\d+) registers", line)
            if m and cur is not None:
                cur["regs"] = int(m.group(1))
        try:
            for k, ins in text_sections(cubin).items():
                out.setdefault(k, {}).update(code_stats(ins, arch))
        except (ValueError, struct.error) as e:
            return {"error": "cannot read the cubin's code: %s" % e}
        return out


def snapshot(d):
    """{name: arch} of the PTX files of a snapshot."""
    arch = {}
    for line in open(os.path.join(d, "commands.txt")):
        name, key = line.split(" ", 1)
        if os.path.exists(os.path.join(d, name + ".ptx")):
            arch[name] = key.rsplit("@", 1)[1].strip()
    return arch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", help="a snapshot; with --stats, a PTX file")
    ap.add_argument("after", help="a snapshot; with --stats, the architecture (sm_80, sm_90a)")
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "sass-compare-cache"))
    a = ap.parse_args()
    ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
    if not os.access(ptxas, os.X_OK):
        sys.exit("sass-compare.py: no ptxas at %s (set PTXAS)" % ptxas)
    if a.stats:
        print(json.dumps(assemble(ptxas, a.before, a.after), indent=1, sort_keys=True))
        return 0
    os.makedirs(a.cache, exist_ok=True)
    before, after = snapshot(a.before), snapshot(a.after)
    names = sorted(set(before) & set(after))

    # each distinct (content, architecture) is assembled once, however many files hold it
    items = [(d, n) for n in names for d in (a.before, a.after)]
    digest = {}
    for d, n in items:
        with open(os.path.join(d, n + ".ptx"), "rb") as f:
            # the fields' names in the key: results cached by a version that counted fewer
            # are made again, not compared as zeros
            digest[(d, n)] = hashlib.sha256(f.read() + before[n].encode() +
                                            ",".join(FIELDS).encode()).hexdigest()[:24]
    unique = {}
    for it in items:
        unique.setdefault(digest[it], it)

    def job(h):
        d, name = unique[h]
        cpath = os.path.join(a.cache, h + ".json")
        if os.path.exists(cpath):
            with open(cpath) as f:
                return h, json.load(f)
        res = assemble(ptxas, os.path.join(d, name + ".ptx"), before[name])
        fd, tmp = tempfile.mkstemp(dir=a.cache, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(res, f)
        os.replace(tmp, cpath)
        return h, res

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        by_hash = dict(ex.map(job, sorted(unique)))
    res = {it: by_hash[digest[it]] for it in items}
    keys = {}
    for line in open(os.path.join(a.after, "commands.txt")):
        name, key = line.split(" ", 1)
        keys[name] = key.strip()
    sums = {"before": dict.fromkeys(FIELDS, 0), "after": dict.fromkeys(FIELDS, 0)}
    rose, fell, same, bad, skipped = [], [], 0, 0, 0
    for n in names:
        b, f = res[(a.before, n)], res[(a.after, n)]
        if "error" in f and "error" not in b:
            print("ptxas FAILED on AFTER only: %s\n%s" % (keys[n], f["error"]))
            bad += 1
            continue
        if "error" in b:
            skipped += 1
            continue
        for k in sorted(set(b) | set(f)):
            vb, vf = b.get(k, {}), f.get(k, {})
            for fld in FIELDS:
                sums["before"][fld] += vb.get(fld, 0)
                sums["after"][fld] += vf.get(fld, 0)
            up = [fld for fld in FIELDS if vf.get(fld, 0) > vb.get(fld, 0)]
            down = [fld for fld in FIELDS if vf.get(fld, 0) < vb.get(fld, 0)]
            if not up and not down:
                same += 1
                if not a.all:
                    continue
            hot = [fld for fld in up if fld != "total"]
            (rose if hot else fell if down or up else []).append(n)
            cols = " ".join("%s %s->%s%s" % (fld, vb.get(fld, "-"), vf.get(fld, "-"), "!" if fld in up else "")
                            for fld in FIELDS if vb.get(fld) != vf.get(fld) or a.all)
            print("%s%s [%s] %s" % ("RISE " if hot else "", k, keys[n], cols))
    print("kernels: %d the same, %d with a rise of registers, spills or loop instructions, %d otherwise changed"
          % (same, len(rose), len(fell)))
    if skipped:
        print("%d files not compared: ptxas failed on them in BEFORE" % skipped)
    for fld in FIELDS:
        print("  %-8s before %9d after %9d" % (fld, sums["before"][fld], sums["after"][fld]))
    return 1 if rose or bad else 0


if __name__ == "__main__":
    sys.exit(main())
