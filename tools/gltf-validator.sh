#!/bin/sh
# Installs what the suite checks glTF output with: the Khronos glTF validator, an npm package
# (tests/gltf/package-lock.json pins its version), into tests/gltf/node_modules; Node.js and
# npm from Debian where the machine has none (a Node.js that carries its own npm is kept).
# A step that fails shows the failing tool's own message.
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	sh tools/install-deps.sh nodejs npm
fi
[ -d tests/gltf/node_modules/gltf-validator ] && exit 0
quietly npm ci --prefix tests/gltf --no-audit --no-fund
