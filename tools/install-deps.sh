#!/bin/sh
# Installs, with apt-get, whatever of smdmx's build and test dependencies is missing.
# Usage: tools/install-deps.sh [extra-package ...]
# The compiler comes with the C library's headers and start files (libc6-dev): apt-get's
# --no-install-recommends would leave them out, and gcc cannot link a program without them.
# That is the part of build-essential a C11 build needs (its g++, make and dpkg-dev are not).
set -eu
. "$(dirname "$0")/lib.sh"
packages="gcc libc6-dev meson ninja-build pkg-config libcglm-dev libcmocka-dev libstb-dev bash-completion groff-base $*"
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps.sh: not a Debian system (no dpkg-query or apt-get): install these or their equivalents yourself:" >&2
	echo "  $packages" >&2
	exit 0
fi
need=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
[ -z "$need" ] && exit 0
echo "installing:$need"
sudo=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "install-deps.sh: installing needs root (or sudo):$need" >&2; exit 1; }
	sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
quietly $sudo apt-get update
# shellcheck disable=SC2086
quietly $sudo apt-get install -y --no-install-recommends $need
