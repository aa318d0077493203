#!/bin/sh
# The Windows build writes what the Linux build writes, byte for byte: every SMD, VTA and DMX
# of testdata/ and of the corpus, converted by both builds with every target and encoding
# (and to glTF, GLB and JSON),
# gives the same files and the same exit codes; every model drawn by smdmx preview gives the
# same PNG bytes; every DMX through dmx2smd --qc and every QC through smd2dmx --qc, the QC
# projects and the corpus's QC libraries through smdmx qc both ways, the same files.
# usage: same_outputs.sh LINUX_BUILD_DIR WINDOWS_RUN_DIR SOURCE_ROOT
# (WINDOWS_RUN_DIR holds the scripts that run the Windows programs, build-win/run)
set -u
linux=$(cd "$1" && pwd)
windows=$(cd "$2" && pwd)
root=$(cd "$3" && pwd)
corpus=$root/../shared/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

inputs="$root/testdata"
if [ -d "$corpus" ]; then
	inputs="$inputs $corpus"
else
	[ "${SMDMX_REQUIRE_CORPUS:-0}" != 0 ] && { echo "FAIL: the corpus $corpus is missing"; exit 1; }
	echo "note: no corpus at $corpus: testdata/ only"
fi

# compare_trees NAME WHAT: the two builds' trees for NAME alike, byte for byte (then removed)
compare_trees() {
	if diff -r "$tmp/linux/$1" "$tmp/windows/$1" >"$tmp/diff.$1" 2>&1; then
		pass=$((pass + 1))
	else
		echo "FAIL: $1: the builds differ"
		head -n 20 "$tmp/diff.$1"
		fail=$((fail + 1))
	fi
	[ -n "${SMDMX_VERBOSE:-}" ] && echo "$1: $(find "$tmp/linux/$1" -type f ! -name status | wc -l) $2 identical"
	rm -rf "$tmp/linux/$1" "$tmp/windows/$1"
}

# same NAME ARGS...: both builds' smdmx convert over every input folder into their own tree
same() {
	name=$1
	shift
	for side in linux windows; do
		if [ $side = linux ]; then prog=$linux; else prog=$windows; fi
		out="$tmp/$side/$name"
		mkdir -p "$out"
		n=0
		for dir in $inputs; do
			n=$((n + 1))
			"$prog/smdmx" convert -r -k -q "$dir" -d "$out/$n" "$@" >/dev/null 2>"$out/stderr.$n"
			echo "$?" >>"$out/status"
		done
		rm -f "$out"/stderr.*
	done
	compare_trees "$name" files
}

# Pictures: every model file of testdata/ and the corpus drawn by both builds (smdmx preview),
# as views with the skeleton, as UV layouts and as sheets of shapes. Many files to one start
# (under Wine a start costs more than most pictures): into one folder a batch draws no two of
# one name (preview refuses that), so a name's second file goes to a second batch; at most 100
# files a batch, to stay within a Windows command line. A file that is not drawn has no
# picture on either side, and each batch's exit code is compared.
pictures() {
	name=$1
	shift
	for side in linux windows; do
		if [ $side = linux ]; then prog=$linux; else prog=$windows; fi
		out="$tmp/$side/$name"
		mkdir -p "$out"
		for list in "$tmp"/batch.*; do
			b=${list##*/batch.}
			# shellcheck disable=SC2046 # (one word a line: the paths have no spaces, checked below)
			"$prog/smdmx" preview $(cat "$list") -d "$out/$b" -q "$@" >/dev/null 2>/dev/null
			echo "$b $?" >>"$out/status"
		done
	done
	compare_trees "$name" pictures
}

# QC projects, both ways
projects() {
	for qc in "$root"/testdata/qc/*/*.qc "$corpus"/qc/sdk_humans/male_sdk/male_06_sdk.qc; do
		[ -f "$qc" ] || continue
		name=qc-$(basename "$qc" .qc)
		for side in linux windows; do
			if [ $side = linux ]; then prog=$linux; else prog=$windows; fi
			mkdir -p "$tmp/$side/$name" # a project that writes nothing (a file missing) compares too
			"$prog/smdmx" qc "$qc" --to dmx -d "$tmp/$side/$name/dmx" -q >/dev/null 2>&1
			echo "$?" >"$tmp/$side/$name.status"
			top=$([ -d "$tmp/$side/$name/dmx" ] && find "$tmp/$side/$name/dmx" -name "$(basename "$qc")" | head -n 1)
			[ -n "$top" ] && "$prog/smdmx" qc "$top" --to smd -d "$tmp/$side/$name/smd" -q >/dev/null 2>&1
			echo "$?" >>"$tmp/$side/$name.status"
		done
		if diff -r "$tmp/linux/$name" "$tmp/windows/$name" >"$tmp/diff.$name" 2>&1 && cmp -s "$tmp/linux/$name.status" "$tmp/windows/$name.status"; then
			pass=$((pass + 1))
			[ -n "${SMDMX_VERBOSE:-}" ] && echo "$name: $(find "$tmp/linux/$name" -type f | wc -l) files identical"
		else
			echo "FAIL: $name: the builds differ"
			head -n 20 "$tmp/diff.$name"
			fail=$((fail + 1))
		fi
	done
}

# dmx2smd --qc: every DMX to an SMD and the QC of what SMD cannot hold (its rig, and its
# attachments, whose rotations are printed from computed values); smd2dmx --qc: every QC's
# first $model into one DMX
qc_runs() {
	for side in linux windows; do
		if [ $side = linux ]; then prog=$linux; else prog=$windows; fi
		out="$tmp/$side/dmx2smd-qc"
		mkdir -p "$out"
		n=0
		for f in $(find $inputs -type f -iname '*.dmx' | LC_ALL=C sort); do
			n=$((n + 1))
			"$prog/dmx2smd" "$f" -o "$out/$n/m.smd" --qc "$out/$n/m.qc" -q >/dev/null 2>&1
			echo "$n $?" >>"$out/status"
		done
		out="$tmp/$side/smd2dmx-qc"
		mkdir -p "$out"
		n=0
		for f in $(find $inputs -type f -iname '*.qc' | LC_ALL=C sort); do
			n=$((n + 1))
			"$prog/smd2dmx" --qc "$f" -o "$out/$n/m.dmx" -q >/dev/null 2>&1
			echo "$n $?" >>"$out/status"
		done
	done
	compare_trees dmx2smd-qc files
	compare_trees smd2dmx-qc files
}

# Whole QC libraries (smdmx qc -r), to DMX and that back to SMD: every file, QC and
# .smdmx-written record alike
qc_libraries() {
	for lib in "$corpus/library/hl2_modelsrc" "$corpus/library/l4d2_modelsrc" "$corpus/qc"; do
		[ -d "$lib" ] || continue
		name=qc-r-$(basename "$lib")
		for side in linux windows; do
			if [ $side = linux ]; then prog=$linux; else prog=$windows; fi
			out="$tmp/$side/$name"
			mkdir -p "$out"
			"$prog/smdmx" qc -r -k -q "$lib" --to dmx -d "$out/dmx" >/dev/null 2>&1
			echo "$?" >>"$out/status"
			"$prog/smdmx" qc -r -k -q "$out/dmx" --to smd -d "$out/smd" >/dev/null 2>&1
			echo "$?" >>"$out/status"
		done
		compare_trees "$name" files
	done
}

# The comparisons run in two groups at once, one on each core (a Windows start is mostly Wine's
# own work, on one core; the whole was 106 s of CI's stage 0 one at a time): the conversions
# with their targets and the QC libraries in one; the pictures, the QC projects and the
# per-file --qc runs in the other. Each group prints into its own log and counts its own; the
# logs are printed in order at the end.
group_a() {
	same to-dmx --to dmx
	same to-dmx-binary --to dmx --encoding binary
	for t in sdk2013 l4d2 sfm source2; do same "to-dmx-$t" --to dmx --target "$t"; done
	same to-dmx-flat --to dmx --encoding keyvalues2_flat
	same to-smd --to smd
	same to-smd-lf --to smd --lf
	same to-smd-goldsrc --to smd --goldsrc
	same to-glb --to glb
	same to-gltf-8 --to gltf --links 8
	qc_libraries
}

group_b() {
	find $inputs -type f \( -iname '*.smd' -o -iname '*.dmx' -o -iname '*.qc' \) | LC_ALL=C sort |
		awk '{ n = $0; sub(/.*\//, "", n); sub(/\.[^.]*$/, "", n); g = seen[tolower(n)]++; k = count[g]++;
		       print > (dir "/batch." g "." int(k / 100)) }' dir="$tmp"
	if grep -q ' ' "$tmp"/batch.*; then
		echo "FAIL: a model's path has a space: the batches of pictures cannot name it"
		fail=$((fail + 1))
	fi
	pictures preview-views --views all --skeleton --size 128
	pictures preview-uv --uv --size 128
	pictures preview-shapes --shapes --size 64
	projects
	qc_runs
}

( group_a; echo "$pass $fail" >"$tmp/count.a" ) >"$tmp/log.a" 2>&1 &
( group_b; echo "$pass $fail" >"$tmp/count.b" ) >"$tmp/log.b" 2>&1
wait
cat "$tmp/log.a" "$tmp/log.b"
for g in a b; do
	[ -s "$tmp/count.$g" ] || { echo "FAIL: the comparisons' group $g did not finish"; fail=$((fail + 1)); continue; }
	read -r p f <"$tmp/count.$g"
	pass=$((pass + p)) fail=$((fail + f))
done
echo "same outputs: $pass passed, $fail failed"
[ "$fail" = 0 ]
