#!/bin/sh
# tools/calls.sh on the build's objects (every call between files of a folder one way), and
# on two objects made here that call each other, whose circle it must find.
# usage: sh tests/calls.sh SOURCE_ROOT BUILD_ROOT
set -u
root=$1
build=$2
. "$root/tests/check.sh"
out=$(sh "$root/tools/calls.sh" "$build")
rc=$?
[ "$rc" = 77 ] && { echo "SKIP: $out"; exit 77; }
check "the build's calls" "0 calls:" "$rc $(echo "$out" | cut -c1-6)"
cc=${CC:-cc}
if ! command -v "$cc" >/dev/null 2>&1; then
	finish calls
	exit $?
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/x.p"
printf 'int b(int);\nint a(int n) { return n ? b(n - 1) : 0; }\n' >"$tmp/a.c"
printf 'int a(int);\nint b(int n) { return n ? a(n - 1) : 1; }\nint c(int n) { return b(n); }\n' >"$tmp/b.c"
printf 'int c(int);\nint d(int n) { return c(n); }\n' >"$tmp/d.c"
for f in a b d; do "$cc" -c "$tmp/$f.c" -o "$tmp/x.p/src_demo_$f.c.o"; done
out=$(sh "$root/tools/calls.sh" "$tmp")
check "a circle of two files found, the file calling into it not in it" "1 src/demo: a circle of calls between a.c b.c" "$? $out"
finish calls
