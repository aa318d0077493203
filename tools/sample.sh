#!/bin/sh
# Quick start 1: installs what is missing, builds smdmx, and converts the sample model in
# testdata/sample (a skinned two-bone arm, its wave animation and a flex shape) to DMX and
# back into build/sample/, saying what it read and wrote.
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build -Dwerror=true >/dev/null
ninja -C build smdmx smd2dmx dmx2smd >/dev/null
mkdir -p build/sample
# SMD to DMX: the arm with its flex shape, and its animation
build/smd2dmx testdata/sample/arm.smd --vta testdata/sample/arm.vta -o build/sample/arm.dmx --verbose
build/smd2dmx testdata/sample/arm_wave.smd -o build/sample/arm_wave.dmx --verbose
# and back: DMX to SMD (the arm's shape goes to arm.vta beside arm.smd)
build/dmx2smd build/sample/arm.dmx -o build/sample/arm.smd --verbose
build/dmx2smd build/sample/arm_wave.dmx -o build/sample/arm_wave.smd --verbose
