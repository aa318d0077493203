#!/bin/sh
# Quick start 1: installs what is missing, builds smdmx, and converts the sample model in
# testdata/sample (a skinned two-bone arm, its wave animation and a flex shape) to DMX and
# back into build/sample/, saying what it read and wrote.
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build -Dwerror=true >/dev/null
ninja -C build smdmx smd2dmx dmx2smd >/dev/null
# SMD to DMX: the arm with its flex shape (arm.vta beside arm.smd), and its animation
build/smd2dmx testdata/sample/arm.smd testdata/sample/arm.vta testdata/sample/arm_wave.smd -d build/sample --force --verbose
# and back: DMX to SMD (the arm's shape goes to arm.vta beside arm.smd)
build/dmx2smd build/sample/arm.dmx build/sample/arm_wave.dmx -d build/sample --force --verbose
