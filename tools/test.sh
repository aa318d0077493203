#!/bin/sh
# Quick start 2: installs what is missing, builds smdmx with warnings as errors, and runs
# the whole test suite (unit tests, bad inputs, truncation, allocation failure, the corpus
# in ../shared/corpus, the command line).
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build -Dwerror=true >/dev/null
meson compile -C build >/dev/null
meson test -C build --print-errorlogs
