#!/bin/sh
# Installs, with apt-get, whatever of smdmx's build and test dependencies is missing.
# Usage: tools/install-deps.sh [extra-package ...]
set -eu
need=""
for p in gcc meson ninja-build pkg-config libcglm-dev libcmocka-dev bash-completion groff-base "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
[ -z "$need" ] && exit 0
echo "installing:$need"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $need >/dev/null
