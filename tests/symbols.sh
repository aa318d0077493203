#!/bin/sh
# The shared library exports the public API and nothing else: every symbol it defines is a
# function the installed headers declare with SMDMX_API, and every such function is there.
# (Its internal functions are hidden: an embedder cannot come to rely on them.) And it leaves
# its host alone: it imports none of the calls by which a program handles signals, ends
# itself, tunes its allocator or asks about its terminal (those are the programs',
# src/platform/os_program.h).
# usage: sh tests/symbols.sh SOURCE_ROOT SHARED_LIBRARY
set -u
root=$1
lib=$2
. "$root/tests/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v nm >/dev/null 2>&1; then
	echo "SKIP: no nm here (binutils)"
	exit 77
fi
case $lib in
*.dll) echo "SKIP: a DLL's exports are listed by its import library, not nm"; exit 77 ;;
esac
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRW]$/ { print $3 }' | sed 's/@.*//' | LC_ALL=C sort -u >"$tmp/exported"
grep -hv '^#' "$root"/include/smdmx/*.h | tr '\n' ' ' | grep -o 'SMDMX_API [^(;]*(' | sed 's/($//; s/.*[ *]//' | LC_ALL=C sort -u >"$tmp/declared"
check "the library exports functions" yes "$([ "$(wc -l <"$tmp/exported")" -ge 50 ] && echo yes)"
check "nothing exported the headers do not declare" "" "$(LC_ALL=C comm -23 "$tmp/exported" "$tmp/declared" | tr '\n' ' ')"
check "every declared function exported" "" "$(LC_ALL=C comm -13 "$tmp/exported" "$tmp/declared" | tr '\n' ' ')"
nm -D --undefined-only "$lib" | awk '{ print $2 }' | sed 's/@.*//' | LC_ALL=C sort -u >"$tmp/imported"
check "the library imports some of the C library" yes "$(grep -qx malloc "$tmp/imported" && echo yes)"
check "nothing a program alone may call imported" "" "$(grep -xE 'mallopt|signal|sigaction|raise|_exit|_Exit|exit|abort|isatty|ioctl|tcgetattr|tcsetattr|setlocale|atexit|kill' "$tmp/imported" | tr '\n' ' ')"
finish symbols
