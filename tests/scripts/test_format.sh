#!/usr/bin/env bash
# test_format.sh - the tree is formatted (tools/check-format.sh: clang-format 14 with
# .clang-format, lines of at most 100 characters), and the check fails on a file that is not.
set -u
cd "$(dirname "$0")/../.."
out=$(bash tools/check-format.sh 2>&1); rc=$?
case "$out" in SKIP*) echo "$out"; exit 0 ;; esac
fail=0
[ "$rc" = 0 ] || { echo "FAIL: the tree is not formatted:"; echo "$out" | tail -n 20; fail=1; }
# a file that is not formatted must be found: a copy of the tree's check on a made-up file
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp .clang-format "$tmp/"
printf 'int  f( int x ){return x;}\n' >"$tmp/bad.c"
CF=$(command -v clang-format-14 || command -v clang-format)
if "$CF" --dry-run --Werror "$tmp/bad.c" >/dev/null 2>&1; then echo "FAIL: an unformatted file passes"; fail=1; fi
echo "test_format: $fail failed"
[ "$fail" = 0 ]
