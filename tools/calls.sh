#!/bin/sh
# The calls between the files of each folder of src/, read from the objects' symbols: a file
# calls another of its folder when it uses a symbol that one defines. They go one way: no
# circle, a file reaching itself through others of its folder (so that a folder's files can
# be read, and changed, from the bottom up). tools/layers.sh checks the includes between
# folders; this, the calls inside one.
# usage: sh tools/calls.sh BUILD_DIR   (prints each circle, its files; exit 1 if any)
set -eu
build=$1
if ! command -v nm >/dev/null 2>&1; then
	echo "calls: no nm here (binutils)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# meson names an object of src/FOLDER/FILE.c "src_FOLDER_FILE.c.o" (folder names have no '_')
find "$build" -path '*.p/*' -name 'src_*.c.o' >"$tmp/objects"
if [ ! -s "$tmp/objects" ]; then
	echo "calls: no objects of src/ under $build"
	exit 1
fi
while read -r o; do
	b=${o##*/}
	b=${b%.c.o}
	b=${b#src_}
	nm "$o" | awk -v folder="${b%%_*}" -v file="${b#*_}" '
		$1 == "U" { print "U", folder, file, $2 }
		NF == 3 && $2 ~ /^[TDBRC]$/ { print "D", folder, file, $3 }'
done <"$tmp/objects" | LC_ALL=C sort -u >"$tmp/symbols"
# folder caller callee, once per pair
awk '$1 == "D" { at[$2 " " $4] = $3 }
	$1 == "U" { k = $2 " " $4; if ((k in at) && at[k] != $3) print $2, $3, at[k] }' "$tmp/symbols" |
	LC_ALL=C sort -u >"$tmp/calls"
# the files of each folder that call or are called, in name order
awk '{ print $1, $2; print $1, $3 }' "$tmp/calls" | LC_ALL=C sort -u >"$tmp/nodes"
files=$(awk '$1 == "D" || $1 == "U" { print $2 "/" $3 }' "$tmp/symbols" | LC_ALL=C sort -u | wc -l | tr -d ' ')
# each folder's transitive closure; a circle is a set of files each reaching every other
awk -v files="$files" '
	FNR == NR { nodes[$1] = nodes[$1] " " $2; if (!($1 in seen)) { seen[$1] = 1; order[++folders] = $1 } next }
	{ e[$1 " " $2 " " $3] = 1 }
	END {
		circles = 0
		for (x = 1; x <= folders; x++) {
			f = order[x]
			m = split(nodes[f], v, " ")
			for (i = 1; i <= m; i++) for (j = 1; j <= m; j++) r[i, j] = (f " " v[i] " " v[j]) in e
			for (k = 1; k <= m; k++) for (i = 1; i <= m; i++) if (r[i, k]) for (j = 1; j <= m; j++) if (r[k, j]) r[i, j] = 1
			for (i = 1; i <= m; i++) done[i] = 0
			for (i = 1; i <= m; i++) {
				if (done[i] || !r[i, i]) continue
				line = ""
				for (j = 1; j <= m; j++) if (r[i, j] && r[j, i]) { done[j] = 1; line = line " " v[j] ".c" }
				print "src/" f ": a circle of calls between" line
				circles++
			}
			for (i = 1; i <= m; i++) for (j = 1; j <= m; j++) delete r[i, j]
		}
		if (circles) exit 1
		print "calls: " files " files, every call between files of a folder one way"
	}' "$tmp/nodes" "$tmp/calls"
