#!/bin/sh
# The Windows release: build-release-win/smdmx-VERSION-windows-x86_64.zip, holding smdmx.exe,
# smd2dmx.exe and dmx2smd.exe (64-bit, statically linked: they need only DLLs every Windows
# has), README.txt (the guide for Windows users, doc/windows.txt), manual.txt (README and the
# manual pages a Windows user needs) and LICENSE.txt. Cross-built with mingw-w64 on Debian,
# then checked: the programs' import tables, and the zip unpacked into an empty folder
# converting the sample model under a Wine of its own, to the same bytes as a Linux build of
# the same source writes (made here in build-release-linux). Any check that cannot be made
# fails the script.
# usage: sh tools/release-windows.sh
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
sh tools/install-deps.sh gcc-mingw-w64-x86-64 wine64 zip unzip
b=build-release-win
configure "$b" --cross-file cross/x86_64-w64-mingw32.ini -Dbuildtype=release -Dtests=false -Dwerror=true
quietly meson compile -C "$b" smdmx:executable smd2dmx:executable dmx2smd:executable
version=$(sed -n "s/^  version : '\(.*\)',$/\1/p" meson.build)
name=smdmx-$version-windows-x86_64
stage=$b/$name
rm -rf "$stage" "$b/$name.zip"
mkdir -p "$stage"
for p in smdmx smd2dmx dmx2smd; do
	x86_64-w64-mingw32-strip -o "$stage/$p.exe" "$b/$p.exe"
done
# the text files with CRLF line ends, for Notepad
sed 's/$/\r/' doc/windows.txt >"$stage/README.txt"
# the manual: README and the pages a Windows user needs, one text
for page in README.md doc/usage.md doc/conversions.md doc/qc.md doc/conventions.md doc/other-writers.md doc/limits.md doc/windows.md; do
	cat "$page"
	echo
done | sed 's/$/\r/' >"$stage/manual.txt"
sed 's/$/\r/' LICENSE >"$stage/LICENSE.txt"
sh tests/imports.sh x86_64-w64-mingw32-objdump "$stage"/*.exe
# zip without time stamps' noise: the files' times set to the last commit's
stamp=$(git log -1 --format=%cd --date=format:%Y%m%d%H%M.%S 2>/dev/null || date +%Y%m%d%H%M.%S)
find "$stage" -exec touch -t "$stamp" {} +
(cd "$b" && quietly zip -q -X -r "$name.zip" "$name")

# The check: unpacked alone, under a new Wine prefix, it converts the sample.
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
(cd "$check" && quietly unzip -q "$OLDPWD/$b/$name.zip")
cp testdata/sample/arm.smd testdata/sample/arm.vta "$check/"
export WINEPREFIX="$check/wine" WINEDEBUG=-all
# one Wine server for the three programs, as tools/test.sh starts it (left to itself, it
# exits 3 s after a program, and one that starts as it goes can end with status 1)
mkdir -p "$WINEPREFIX"
/usr/lib/wine/wineserver -p || [ $? = 2 ]
trap '/usr/lib/wine/wineserver -k 2>/dev/null || true; rm -rf "$check"' EXIT
quietly /usr/lib/wine/wine64 wineboot --init
# (each start through tests/wine_run.sh, which runs a start Wine lost once more)
src=$PWD
start() { sh "$src/tests/wine_run.sh" /usr/lib/wine/wine64 "$@"; }
(cd "$check" && start "$name/smd2dmx.exe" arm.smd arm.vta -o arm.dmx -q &&
	start "$name/smdmx.exe" diff arm.smd arm.vta arm.dmx &&
	start "$name/dmx2smd.exe" arm.dmx -o back.smd -q && [ -f back.vta ])
# The Linux build to compare with: of this source, made here (never one left from another).
l=build-release-linux
configure "$l" -Dbuildtype=release -Dtests=false -Dwerror=true
quietly meson compile -C "$l" smd2dmx:executable
"$l/smd2dmx" testdata/sample/arm.smd testdata/sample/arm.vta -o "$check/linux.dmx" -q
if ! cmp "$check/arm.dmx" "$check/linux.dmx"; then
	echo "$(basename "$0"): the release's DMX of the sample differs from the Linux build's" >&2
	exit 1
fi
echo "the release converts the sample under Wine to the bytes the Linux build writes"
ls -l "$b/$name.zip" | awk '{ print $5, $NF }'
