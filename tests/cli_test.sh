#!/bin/sh
# The command line: exit codes, diagnostics in the compiler format, and no partial output.
# usage: cli_test.sh SMDMX SOURCE_ROOT GEN_SMD
set -u
smdmx=$1
root=$2
gen=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

check() { # name expected-exit actual-exit
	if [ "$2" = "$3" ]; then pass=$((pass + 1)); else echo "FAIL: $1: exit $3, want $2"; fail=$((fail + 1)); fi
}
check_text() { # name want got
	if [ "$2" = "$3" ]; then pass=$((pass + 1)); else echo "FAIL: $1: got '$3', want '$2'"; fail=$((fail + 1)); fi
}

"$smdmx" convert "$root/testdata/ok/features.smd" -o "$tmp/out.smd" 2>"$tmp/err"
check "convert ok" 0 $?
check_text "output written" "version 1" "$(head -n 1 "$tmp/out.smd" | tr -d '\r')"
check_text "warning format" "$root/testdata/ok/features.smd:18:19: warning: weights sum below 1; the remainder went to the parent bone (2 times)" "$(cat "$tmp/err")"

"$smdmx" convert "$root/testdata/bad/bad_number.smd" -o "$tmp/bad.smd" 2>"$tmp/err"
check "bad input exit" 1 $?
check_text "error format" "$root/testdata/bad/bad_number.smd:7:5: error: expected position y" "$(cat "$tmp/err")"
check_text "no partial output" "" "$(ls "$tmp" | grep bad)"

"$smdmx" convert "$root/testdata/ok/features.smd" -o "$tmp/nodir/x.smd" 2>"$tmp/err"
check "io error exit" 3 $?
"$smdmx" convert "$tmp/missing.smd" -o "$tmp/x.smd" 2>"$tmp/err"
check "missing input exit" 3 $?
"$smdmx" convert "$root/testdata/ok/features.smd" 2>/dev/null
check "usage exit" 2 $?
"$smdmx" frobnicate 2>/dev/null
check "unknown command exit" 2 $?
"$smdmx" convert "$root/testdata/ok/features.smd" -o "$tmp/out.obj" 2>/dev/null
check "unknown output extension" 2 $?

"$smdmx" convert "$root/testdata/ok/shapes.vta" -o "$tmp/s.VTA" --lf 2>/dev/null
check "vta convert" 0 $?
check_text "vta written" "time 1 # smile" "$(sed -n 7p "$tmp/s.VTA")"

"$smdmx" convert "$root/testdata/sample/arm.smd" -o "$tmp/arm.PHYS" 2>/dev/null
check "phys extension" 0 $?
"$smdmx" convert "$tmp/arm.PHYS" -o "$tmp/arm.sma" 2>/dev/null
check "sma extension" 0 $?
cmp -s "$tmp/arm.PHYS" "$tmp/arm.sma"
check "second generation identical" 0 $?

# The benchmark's generator: its files read, through the chunked path (over 1 MiB).
"$gen" reference 20000 "$tmp/grid.smd" && "$smdmx" convert "$tmp/grid.smd" -o "$tmp/grid2.smd" 2>/dev/null
check "generated reference" 0 $?
"$gen" animation 2000 "$tmp/anim.smd" && "$smdmx" convert "$tmp/anim.smd" -o "$tmp/anim2.smd" 2>/dev/null
check "generated animation" 0 $?
check_text "animation frames" "2000" "$(grep -c '^time' "$tmp/anim2.smd")"

"$smdmx" convert - -o - --lf < "$root/testdata/ok/anim_hold.smd" > "$tmp/pipe.smd"
check "stdin to stdout" 0 $?
check_text "pipe output" "time 10" "$(sed -n 7p "$tmp/pipe.smd")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
