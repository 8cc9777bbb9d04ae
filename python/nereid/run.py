"""python -m nereid.run SCRIPT.py [ARGS...] | -m MODULE [ARGS...]: run a program with
nereid.dropin installed first, so that its `@triton.jit` kernels (and those of the
processes it starts) compile with Nereid."""
import runpy
import sys

from . import dropin


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    dropin.install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print("python -m nereid.run -m MODULE [ARGS...]", file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
