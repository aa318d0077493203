#!/bin/sh
# Quick start 2: installs what is missing, builds smdmx with warnings as errors, and runs
# the whole test suite (unit tests, bad inputs, truncation, allocation failure, the corpus
# in ../shared/corpus, the command line, pictures and a report opened in Chromium). Then the same for Windows: the programs and the
# tests cross-built with mingw-w64 and run under Wine, and the Windows build's outputs
# compared with the Linux build's, byte for byte. Without ../shared/corpus beside the clone,
# the tests that read it are skipped and say so. Setup and build are quiet unless they fail.
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
sh tools/install-deps.sh gcc-mingw-w64-x86-64 wine64 chromium chromium-driver python3-cffi
# glTF output is checked by the Khronos glTF validator (npm's gltf-validator). npm's registry
# is not every machine's to reach (a bare system behind a proxy whose certificate it lacks):
# then npm's own message, a note, and the glTF files are written and read but not validated;
# .ci/run's later stages require it.
if sh tools/gltf-validator.sh; then
	export SMDMX_REQUIRE_GLTF_VALIDATOR=1
else
	echo "note: the Khronos glTF validator could not be installed (npm's message above): the glTF files are not validated"
fi
# the batch report is opened in a real browser (Debian's headless Chromium): here a missing
# one is a failure, not a skip
export SMDMX_REQUIRE_BROWSER=1
configure build -Dwerror=true
quietly meson compile -C build
corpus=../shared/corpus
if [ ! -d "$corpus" ]; then
	echo "note: no corpus at $corpus (it is kept beside the clone, as ../shared/corpus): the tests that read it are skipped"
fi
suite build "on Linux"

# Windows, under Wine (a Wine of its own in the build directory; its first start takes a while)
if ! command -v x86_64-w64-mingw32-gcc >/dev/null || [ ! -x /usr/lib/wine/wine64 ]; then
	echo "note: no mingw-w64 or Wine (Debian: gcc-mingw-w64-x86-64, wine64): the Windows build is not tested"
	exit 0
fi
export WINEPREFIX="$PWD/build-win/wine" WINEDEBUG=-all
# cmocka for the Windows tests is built from Debian's source (subprojects/cmocka.wrap): taken
# from this system's Debian mirror when it can be, else meson fetches it from deb.debian.org
debian_source cmocka cmocka_1.1.5.orig.tar.xz subprojects/packagecache || true
configure build-win --cross-file cross/x86_64-w64-mingw32.ini -Dwerror=true
quietly meson compile -C build-win
# One Wine server for the whole Windows suite: left to itself it exits 3 s after its last
# program, and a program started as it goes can end with status 1 and no output at all (seen
# about once in 40 runs, in CI's busy stages). Started first, so that every Wine program
# meets it; one already running (status 2) is left as it is. The server lives in the prefix's
# folder, which must be there first: in a fresh clone it is not, and without it the server
# would not start (it did not, in every CI run, while the suite went on with a server of 3 s).
mkdir -p "$WINEPREFIX"
/usr/lib/wine/wineserver -p || [ $? = 2 ]
trap '/usr/lib/wine/wineserver -k 2>/dev/null || true' EXIT
quietly /usr/lib/wine/wine64 wineboot --init
echo "== the Windows build, under Wine"
suite build-win "under Wine" --timeout-multiplier 4
sh tests/same_outputs.sh build build-win/run .
echo "== the Windows release (tools/release-windows.sh)"
sh tools/release-windows.sh
