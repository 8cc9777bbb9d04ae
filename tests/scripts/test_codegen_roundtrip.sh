#!/usr/bin/env bash
# test_codegen_roundtrip.sh BUILD - the code generator from GPU IR as text
# (tools/codegen-roundtrip.py): for every kernel of the tests, `nereid compile --emit=ptx`
# and `nereid compile --emit=gpu-ir` read back by `nereid opt --emit=ptx` give the same PTX.
set -u
cd "$(dirname "$0")/../.."
exec "$(command -v /usr/bin/python3 || command -v python3)" tools/codegen-roundtrip.py "${1:-build}"
