#!/bin/sh
# Units a reader can hold: the library's and programs' functions over 150 lines and files over
# 1,000 lines, longest first. A function is a body from a '{' at the start of a line to the
# next '}' there (the house style), named by the line before it that starts its signature.
# usage: sh tools/sizes.sh [SOURCE_ROOT]   (exit 1 when one is over; tests/sizes.sh runs it)
set -eu
root=${1:-$(dirname "$0")/..}
over=$(
	for f in "$root"/src/*/*.c "$root"/src/*/*.h; do
		[ -f "$f" ] || continue
		n=$(wc -l <"$f")
		[ "$n" -gt 1000 ] && echo "$n file $f"
		awk -v file="$f" '
			/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { sig = $0; sigline = FNR }
			/^\{/ { start = FNR; name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n] }
			/^\}/ && start { len = FNR - start - 1; if (len > 150) printf "%d function %s:%d %s\n", len, file, sigline, name; start = 0 }
		' "$f"
	done | sort -rn
)
if [ -n "$over" ]; then
	echo "$over"
	exit 1
fi
echo "sizes: no function over 150 lines, no file over 1,000"
