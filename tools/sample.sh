#!/bin/sh
# Quick start 1: installs what is missing, builds smdmx, and converts the sample model in
# testdata/sample (a skinned two-bone arm, its wave animation and a flex shape) to DMX and
# back into build/sample/, saying what it read and wrote, with a report of the first
# conversion (build/sample/report.html: each file and its DMX drawn side by side). Every
# step is quiet unless it fails; then its whole output, the failing tool's own message
# included, is shown.
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
sh tools/install-deps.sh
configure build -Dwerror=true
quietly ninja -C build smdmx smd2dmx dmx2smd
# SMD to DMX: the arm with its flex shape (arm.vta beside arm.smd), and its animation
build/smd2dmx testdata/sample/arm.smd testdata/sample/arm.vta testdata/sample/arm_wave.smd -d build/sample --force --verbose \
	--report build/sample/report.html
# and back: DMX to SMD (the arm's shape goes to arm.vta beside arm.smd)
build/dmx2smd build/sample/arm.dmx build/sample/arm_wave.dmx -d build/sample --force --verbose
