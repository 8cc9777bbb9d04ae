"""Build and install the nereid Python package:

    pip install --no-build-isolation ./python

The extension (nereid._nereid) is built against Python's limited API, so one build
serves CPython 3.11 and later. It links the Nereid library found, in this order:
  - $NEREID_BUILD: a build folder of this tree: its libnereid.a with LLVM 19's libraries
    (build/), or its libnereid.so, which has LLVM inside (build-gpu/);
  - an installed Nereid (`make install`), through `pkg-config nereid`;
  - this tree's build/libnereid.a, made with `make` when missing, with LLVM 19's
    libraries from llvm-config.
"""
import os
import re
import shutil
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LLVM_COMPONENTS = ["core", "analysis", "passes", "target", "nvptx"]


def version():
    with open(os.path.join(ROOT, "include", "nereid.h")) as f:
        return re.search(r'#define NEREID_VERSION "([^"]+)"', f.read()).group(1)


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()


def link_options():
    """(include_dirs, extra_objects, extra_link_args) for the Nereid library."""
    build = os.environ.get("NEREID_BUILD")
    if build:
        build = os.path.abspath(build)
        if os.path.exists(os.path.join(build, "libnereid.a")):  # build/: the static library, as make python
            return in_tree(build)
        if os.path.exists(os.path.join(build, "libnereid.so")):  # build-gpu/: only the shared one
            return [os.path.join(ROOT, "include")], [], [f"-L{build}", "-lnereid", f"-Wl,-rpath,{build}"]
        return in_tree(build)
    if shutil.which("pkg-config") and subprocess.run(["pkg-config", "--exists", "nereid"]).returncode == 0:
        cflags = run(["pkg-config", "--cflags", "nereid"])
        libs = run(["pkg-config", "--libs", "nereid"])
        libdir = run(["pkg-config", "--variable=libdir", "nereid"])
        return [f[2:] for f in cflags if f.startswith("-I")], [], libs + [f"-Wl,-rpath,{d}" for d in libdir]
    return in_tree(os.path.join(ROOT, "build"))


def in_tree(build):
    lib = os.path.join(build, "libnereid.a")
    if not os.path.exists(lib):
        subprocess.run(["make", "-C", ROOT, f"BUILD={os.path.relpath(build, ROOT)}",
                        os.path.relpath(lib, ROOT)], check=True)
    llvm_config = shutil.which("llvm-config-19") or "/usr/lib/llvm-19/bin/llvm-config"
    llvm = run([llvm_config, "--ldflags"]) + run([llvm_config, "--libs"] + LLVM_COMPONENTS)
    return [os.path.join(ROOT, "include")], [lib], llvm + ["-lstdc++", "-lm", "-ldl", "-lpthread",
                                                            "-Wl,--exclude-libs,ALL"]


include_dirs, objects, link_args = link_options()
setup(
    name="nereid",
    version=version(),
    description="Compile and launch Triton-syntax kernels from Python (the Nereid compiler)",
    packages=["nereid", "nereid._site"],
    ext_modules=[Extension(
        "nereid._nereid",
        sources=["nereid/_nereid.c", "nereid/_launch.c", "nereid/_tune.c"],
        depends=["nereid/_nereid.h"],
        include_dirs=include_dirs,
        define_macros=[("Py_LIMITED_API", "0x030B0000")],
        extra_compile_args=["-std=c11", "-fvisibility=hidden"],
        extra_objects=objects,
        extra_link_args=link_args,
        py_limited_api=True,
    )],
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
    python_requires=">=3.11",
)
