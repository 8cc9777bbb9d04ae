#!/usr/bin/env bash
# check-format.sh [--fix] - the C sources are formatted as .clang-format says, and no line
# of them is longer than 100 characters. The formatter is Debian 12's clang-format 14
# (`make deps` installs it); another major version formats some constructs otherwise, so
# the check says SKIP then rather than fail on it. --fix formats the files in place
# (`make format`). Prints one line per unformatted file; exit 1 if any.
set -u
cd "$(dirname "$0")/.."
CF=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$CF" ]; then echo "SKIP: clang-format is not installed (make deps installs it)"; exit 0; fi
major=$("$CF" --version | sed -nE 's/.*version ([0-9]+).*/\1/p')
if [ "$major" != 14 ]; then echo "SKIP: $CF is version $major; the format is clang-format 14's"; exit 0; fi
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
if [ "${1:-}" = --fix ]; then "$CF" -i "${files[@]}"; exit 0; fi
bad=0
for f in "${files[@]}"; do
  if ! "$CF" --dry-run --Werror "$f" >/dev/null 2>&1; then echo "not formatted: $f (make format)"; bad=$((bad + 1)); fi
done
long=$(awk 'length > 100 {print FILENAME ":" FNR ": " length " characters"}' "${files[@]}")
if [ -n "$long" ]; then echo "$long"; bad=$((bad + $(echo "$long" | wc -l))); fi
echo "check-format: ${#files[@]} files, $bad problem(s)"
[ "$bad" = 0 ]
