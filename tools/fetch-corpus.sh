#!/usr/bin/env bash
# fetch-corpus.sh - other people's Triton kernels for the corpus benchmark (bench/corpus.py),
# extracted from git mirrors into third_party/corpus/ (git-ignored; nothing of them is
# committed), each at the exact commit bench/corpus.py's SOURCES names, with
# third_party/corpus/SOURCE/MANIFEST.json recording repository, commit, date and subject.
#
#   bash tools/fetch-corpus.sh [--only triton-3.6,liger] [--mirrors DIR] [--repo OWNER/NAME=GITDIR]...
#
# Mirrors: DIR/OWNER+NAME/repo (default DIR: $CORPUS_MIRRORS, else /work/.mirror), a bare
# repository or a clone with history; --repo points one repository elsewhere, e.g.
#   git clone --bare https://github.com/linkedin/Liger-Kernel /tmp/liger.git
#   bash tools/fetch-corpus.sh --repo linkedin/Liger-Kernel=/tmp/liger.git
# On the GPU machine carry third_party/corpus (and build-gpu): bench/README.md.
set -eu
cd "$(dirname "$0")/.."
exec "${PYTHON:-python3}" bench/corpus.py fetch "$@"
