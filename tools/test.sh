#!/bin/sh
# Quick start 2: installs what is missing, builds smdmx with warnings as errors, and runs
# the whole test suite (unit tests, bad inputs, truncation, allocation failure, the corpus
# in ../shared/corpus, the command line). Without ../shared/corpus beside the clone, the
# tests that read it are skipped and say so. Setup and build are quiet unless they fail.
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
sh tools/install-deps.sh
configure build -Dwerror=true
quietly meson compile -C build
corpus=../shared/corpus
if [ ! -d "$corpus" ]; then
	echo "note: no corpus at $corpus (it is kept beside the clone, as ../shared/corpus): the tests that read it are skipped"
fi
meson test -C build --print-errorlogs
