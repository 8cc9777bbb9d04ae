"""sitecustomize for processes started under nereid.dropin (NEREID_TRITON=1): install the
drop-in before any user module imports triton, then run the sitecustomize this one hides,
if there is one further along sys.path."""
import importlib.util
import os
import sys


def _chain():
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == here:
            continue
        path = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("_nereid_chained_sitecustomize", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


if os.environ.get("NEREID_TRITON") == "1":
    try:
        import nereid.dropin
        nereid.dropin.install()
    except Exception as e:  # never stop a process from starting
        print(f"nereid.dropin: not installed in this process: {e}", file=sys.stderr)
_chain()
