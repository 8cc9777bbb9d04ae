#!/usr/bin/env python3
"""attention_tilings.py - bench/attention_bench.py with a wider search of the forward's
tilings (128x64 tiles with 4 and 8 warps and 2 to 4 stages, 128x128, 64x64) and the
quick run's backward: which forward tiling is fastest at each head dim (the first of
attention_bench.py's lists is examples/attention.py's default).

    PYTHONPATH=build-gpu/python python3 bench/attention_tilings.py [--only SUBSTRING]

Takes attention_bench.py's options and prints its table (each row the best tiling; every
time in $OUT/attention_bench.json)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention_bench  # noqa: E402

_quick = attention_bench.tilings


def tilings(D, quick, dropout=False):
    from attention import Blocks  # on the path once attention_bench imported nereid
    _, bwd = _quick(D, True, dropout)
    if D <= 64:
        fwd = [Blocks(128, 64, 8, 3), Blocks(128, 64, 8, 4), Blocks(128, 64, 4, 3), Blocks(128, 128, 8, 3),
               Blocks(64, 64, 4, 3)]
    else:
        fwd = [Blocks(128, 64, 8, 2), Blocks(128, 64, 8, 3), Blocks(128, 64, 4, 2), Blocks(128, 64, 4, 3),
               Blocks(128, 128, 8, 2), Blocks(64, 64, 4, 3)]
    return fwd, bwd


attention_bench.tilings = tilings

if __name__ == "__main__":
    sys.exit(attention_bench.main())
