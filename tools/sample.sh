#!/bin/sh
# Quick start 1: installs what is missing, builds smdmx, and converts the sample model in
# testdata/sample (a skinned two-bone arm, its wave animation and a flex shape) into
# build/sample/, saying what it read and wrote.
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build -Dwerror=true >/dev/null
ninja -C build smdmx >/dev/null
mkdir -p build/sample
for f in arm.smd arm_wave.smd arm.vta; do
	build/smdmx convert "testdata/sample/$f" -o "build/sample/$f" --verbose
done
