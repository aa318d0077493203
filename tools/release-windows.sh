#!/bin/sh
# The Windows release: build-release-win/smdmx-VERSION-windows-x86_64.zip, holding at its top
# (no folder of its own, so that unpacking it into C:\Tools\smdmx puts the programs there, as
# README.txt says) smdmx.exe, smd2dmx.exe and dmx2smd.exe (64-bit, statically linked: they
# need only DLLs every Windows has), README.txt (the guide for Windows users, doc/windows.txt),
# manual.txt (the manual for Windows users, plain text: doc/windows-manual.txt, every
# program's and command's --help, and the user's pages of doc/ made plain by
# tools/manual_txt.py) and LICENSE.txt. Cross-built with mingw-w64 on Debian, then checked:
# the programs' import tables; manual.txt holds every command and nothing of a Linux set-up;
# and the zip unpacked as README.txt says (into a folder standing for C:\Tools\smdmx) under
# a Wine of its own: its PATH step and the full-path fallback answer --version, and the
# sample converts to the same bytes as a Linux build of the same source writes (made here in
# build-release-linux). Any check that cannot be made fails the script.
# usage: sh tools/release-windows.sh
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
sh tools/install-deps.sh gcc-mingw-w64-x86-64 wine64 zip unzip python3
b=build-release-win
# meson's check of the cross compiler (at set-up, and when meson.build changes) runs a
# program under Wine: in a Wine prefix of the build's own, never the builder's ~/.wine
mkdir -p "$b"
export WINEPREFIX="$PWD/$b/wine" WINEDEBUG=-all WINEDLLOVERRIDES=winemenubuilder.exe=d # nor its menus in ~/.local
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
# the manual: the programs' own --help (a Linux build of this source prints the same text),
# and the pages a Windows user needs, as plain text
l=build-release-linux
configure "$l" -Dbuildtype=release -Dtests=false -Dwerror=true
quietly meson compile -C "$l" smdmx:executable smd2dmx:executable dmx2smd:executable
helps=$(mktemp -d)
n=10
for c in smd2dmx dmx2smd smdmx "smdmx convert" "smdmx info" "smdmx diff" "smdmx check" "smdmx dump" "smdmx qc" \
	"smdmx preview" "smdmx report"; do
	set -- $c
	prog=$1
	shift
	"$l/$prog" "$@" --help >"$helps/$n-$(echo "$c" | tr ' ' _).txt"
	n=$((n + 1))
done
python3 tools/manual_txt.py doc/windows-manual.txt "$helps" doc/usage.md doc/conversions.md doc/qc.md doc/gltf.md doc/conventions.md \
	doc/limits.md:Hardening | sed 's/$/\r/' >"$stage/manual.txt"
rm -rf "$helps"
# nothing of a Linux set-up, no page the zip has not (.md), no POSIX signal's name
for bad in apt-get 'sh tools/' meson '](' '![' '```' 'man smd' '../shared' '.md' SIGINT SIGTERM SIGHUP; do
	if grep -qF -- "$bad" "$stage/manual.txt"; then
		echo "$(basename "$0"): manual.txt holds '$bad', which is not for Windows users" >&2
		exit 1
	fi
done
for good in 'smdmx preview' 'smdmx report' 'smdmx qc' '--report' '--bodygroup' '--depfile' 'What each conversion carries'; do
	if ! grep -qF -- "$good" "$stage/manual.txt"; then
		echo "$(basename "$0"): manual.txt lacks '$good'" >&2
		exit 1
	fi
done
sed 's/$/\r/' LICENSE >"$stage/LICENSE.txt"
sh tests/imports.sh x86_64-w64-mingw32-objdump "$stage"/*.exe
# each program carries its icon, manifest and version (Explorer's Properties, "Details"):
# resources of types 3 and 14 (the icon), 16 (the version), 24 (the manifest), the version
# and the program's own name in the version's strings (UTF-16)
for p in smdmx smd2dmx dmx2smd; do
	x86_64-w64-mingw32-objdump -p "$stage/$p.exe" | awk '/^The .rsrc Resource Directory/ { r = 1 }
		r && /^[0-9a-f]+   Entry: ID: 0x0000(03|0e|10|18),/ { n++ } END { exit n == 4 ? 0 : 1 }' ||
		{ echo "$(basename "$0"): $p.exe lacks its icon, version or manifest resource" >&2; exit 1; }
	python3 - "$stage/$p.exe" "$p" "$version" <<-'EOF'
		import sys
		data = open(sys.argv[1], "rb").read()
		for s in ("FileVersion", sys.argv[3], sys.argv[2] + ".exe"):
		    if s.encode("utf-16le") not in data:
		        sys.exit("%s: no '%s' in its version resource" % (sys.argv[1], s))
		if b"longPathAware" not in data:
		    sys.exit("%s: no manifest" % sys.argv[1])
	EOF
done
# zip without time stamps' noise: the files' times set to the last commit's
stamp=$(git log -1 --format=%cd --date=format:%Y%m%d%H%M.%S 2>/dev/null || date +%Y%m%d%H%M.%S)
find "$stage" -exec touch -t "$stamp" {} +
(cd "$stage" && quietly zip -q -X -r "../$name.zip" .)

# The check: unpacked alone as README.txt says ("Unpack this zip to a folder that stays, say
# C:\Tools\smdmx"), under a new Wine prefix: its steps work, and it converts the sample.
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
mkdir -p "$check/Tools/smdmx"
(cd "$check/Tools/smdmx" && quietly unzip -q "$OLDPWD/$b/$name.zip")
for f in smdmx.exe smd2dmx.exe dmx2smd.exe README.txt manual.txt LICENSE.txt; do
	if [ ! -f "$check/Tools/smdmx/$f" ]; then
		echo "$(basename "$0"): unpacked into C:\Tools\smdmx, the zip puts no $f there" >&2
		exit 1
	fi
done
cp testdata/sample/arm.smd testdata/sample/arm.vta "$check/"
export WINEPREFIX="$check/wine" WINEDEBUG=-all WINEDLLOVERRIDES=winemenubuilder.exe=d
# one Wine server for the three programs, as tools/test.sh starts it (left to itself, it
# exits 3 s after a program, and one that starts as it goes can end with status 1)
mkdir -p "$WINEPREFIX"
/usr/lib/wine/wineserver -p || [ $? = 2 ]
trap '/usr/lib/wine/wineserver -k 2>/dev/null || true; rm -rf "$check"' EXIT
quietly /usr/lib/wine/wine64 wineboot --init
# (each start through tests/wine_run.sh, which runs a start Wine lost once more)
src=$PWD
start() { sh "$src/tests/wine_run.sh" /usr/lib/wine/wine64 "$@"; }
# README.txt's section 2: the folder on PATH, "smd2dmx --version" in cmd; without PATH, the
# full path. (C:\Tools\smdmx is Z:CHECK\Tools\smdmx here.)
tools=$(printf 'Z:%s\\Tools\\smdmx' "$check" | tr '/' '\\')
version_line="smd2dmx $version"
got=$(cd "$check" && WINEPATH="$tools" start cmd /c "smd2dmx --version" 2>&1 | tr -d '\r')
if [ "$got" != "$version_line" ]; then
	echo "$(basename "$0"): README.txt's PATH step: 'smd2dmx --version' in cmd said '$got', not '$version_line'" >&2
	exit 1
fi
got=$(cd "$check" && start cmd /c "$tools\\smd2dmx.exe --version" 2>&1 | tr -d '\r')
if [ "$got" != "$version_line" ]; then
	echo "$(basename "$0"): README.txt's full path '$tools\\smd2dmx.exe --version' said '$got'" >&2
	exit 1
fi
(cd "$check" && start "Tools/smdmx/smd2dmx.exe" arm.smd arm.vta -o arm.dmx -q &&
	start "Tools/smdmx/smdmx.exe" diff arm.smd arm.vta arm.dmx &&
	start "Tools/smdmx/dmx2smd.exe" arm.dmx -o back.smd -q && [ -f back.vta ])
# The Linux build to compare with: of this source, made here (never one left from another).
"$l/smd2dmx" testdata/sample/arm.smd testdata/sample/arm.vta -o "$check/linux.dmx" -q
if ! cmp "$check/arm.dmx" "$check/linux.dmx"; then
	echo "$(basename "$0"): the release's DMX of the sample differs from the Linux build's" >&2
	exit 1
fi
echo "the release unpacks as README.txt says, its PATH step works, and it converts the sample under Wine to the bytes the Linux build writes"
ls -l "$b/$name.zip" | awk '{ print $5, $NF }'
