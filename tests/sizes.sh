#!/bin/sh
# tools/sizes.sh on the source tree (no function over 150 lines, no file over 1,000), and on a
# copy with one file grown past 1,000 lines and one function past 150, which it must name.
# usage: sh tests/sizes.sh SOURCE_ROOT
set -u
root=$1
. "$root/tests/check.sh"
out=$(sh "$root/tools/sizes.sh" "$root")
check "the tree's sizes" "0 sizes: no function over 150 lines, no file over 1,000" "$? $out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/support" "$tmp/src/cli"
# a file of 1,001 lines; a function whose body is 151 lines
awk 'BEGIN { for (i = 0; i < 1001; i++) print "/* line */" }' >"$tmp/src/support/long.c"
awk 'BEGIN { print "static int grown(void)"; print "{"; for (i = 0; i < 151; i++) print "\tx++;"; print "}" }' >"$tmp/src/cli/grown.c"
awk 'BEGIN { print "static int held(void)"; print "{"; for (i = 0; i < 150; i++) print "\tx++;"; print "}" }' >"$tmp/src/cli/held.c"
out=$(sh "$root/tools/sizes.sh" "$tmp")
check "a file of 1,001 lines and a function of 151, named; one of 150 not" "1 1001 file $tmp/src/support/long.c|151 function $tmp/src/cli/grown.c:1 grown" \
	"$? $(echo "$out" | sed "s|tools/\.\./||" | tr '\n' '|' | sed 's/|$//')"
finish sizes
