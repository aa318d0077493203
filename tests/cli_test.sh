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
check_text "warning format" "$root/testdata/ok/features.smd:18:19: warning: weights sum below 1: the rest went to the line's parent bone, as studiomdl gives it; nothing to do (2 times)" "$(cat "$tmp/err")"

"$smdmx" convert "$root/testdata/bad/bad_number.smd" -o "$tmp/bad.smd" 2>"$tmp/err"
check "bad input exit" 1 $?
check_text "error format" "$root/testdata/bad/bad_number.smd:7:5: error: expected position y" "$(cat "$tmp/err")"
check_text "no partial output" "" "$(ls "$tmp" | grep bad)"

: >"$tmp/afile"
"$smdmx" convert "$root/testdata/ok/features.smd" -o "$tmp/afile/x.smd" 2>"$tmp/err"
check "io error exit" 1 $?
"$smdmx" convert "$tmp/missing.smd" -o "$tmp/x.smd" 2>"$tmp/err"
check "missing input exit" 1 $?
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

# DMX: dump, re-encoding, and errors in the compiler format.
"$smdmx" dump "$root/testdata/kv2/ok/layout.dmx" > "$tmp/dump.txt"
check "dump" 0 $?
check_text "dump root line" 'DmElement "root" 00000000-0000-0000-0000-000000000001' "$(sed -n 2p "$tmp/dump.txt")"
"$smdmx" dump "$root/testdata/kv2/bad/duplicate_id.dmx" 2>"$tmp/err" >/dev/null
check "dump bad dmx" 1 $?
check_text "dmx error format" "$root/testdata/kv2/bad/duplicate_id.dmx:4:29: error: element id 00000000-0000-0000-0000-000000000001 is used twice" "$(cat "$tmp/err")"
# a reference to an element of another file (a stub) is a warning at its place, and kept
"$smdmx" dump "$root/testdata/kv2/ok/stub.dmx" 2>"$tmp/err" >"$tmp/dump.txt"
check "dump a stub" 0 $?
check_text "stub warning" "$root/testdata/kv2/ok/stub.dmx:3:16: warning: a reference to element 00000000-0000-0000-0000-00000000000f, which this file does not hold (an element of another file, as SFM writes them): kept by its id in a DMX written from this one, no element to a conversion; nothing to do (3 times)" "$(cat "$tmp/err")"
check_text "stub in dump" "  r: element = an element of another file, 00000000-0000-0000-0000-00000000000f" "$(sed -n 3p "$tmp/dump.txt")"
"$smdmx" convert "$root/testdata/kv2/ok/layout.dmx" -o "$tmp/flat.dmx" --encoding keyvalues2_flat --encoding-version 2
check "dmx convert" 0 $?
check_text "dmx header" "<!-- dmx encoding keyvalues2_flat 2 format model 18 -->" "$(head -n 1 "$tmp/flat.dmx")"
"$smdmx" convert "$tmp/flat.dmx" -o "$tmp/back.dmx"
check "dmx convert back" 0 $?
"$smdmx" convert "$root/testdata/kv2/ok/layout.dmx" -o "$tmp/direct.dmx"
cmp -s "$tmp/back.dmx" "$tmp/direct.dmx"
check "flat and back is identical" 0 $?
# the default version is the one that holds the file: keyvalues2 4 for uint64; no binary
# version holds both uint64 and objectid (refused, naming those that hold each); a version
# asked that cannot hold one is refused with the ones that can
"$smdmx" convert "$root/testdata/kv2/ok/types.dmx" -o "$tmp/t4.dmx" 2>"$tmp/err"
check "uint64: keyvalues2 4 by default" "0 <!-- dmx encoding keyvalues2 4 format dmx 2 -->" "$? $(head -n 1 "$tmp/t4.dmx")"
"$smdmx" convert "$root/testdata/kv2/ok/types.dmx" -o "$tmp/t1.dmx" --encoding-version 1 2>"$tmp/err"
check "uint64 in keyvalues2 1: refused" 1 $?
check_text "uint64 in keyvalues2 1: the message" "$tmp/t1.dmx: error: attribute 'u64' is uint64, which keyvalues2 1 cannot hold (4 can)" "$(cat "$tmp/err")"
check_text "no partial dmx output" "" "$(ls "$tmp" | grep t1.dmx)"
"$smdmx" convert "$root/testdata/kv2/ok/types.dmx" -o "$tmp/tb.dmx" --encoding binary 2>"$tmp/err"
check_text "uint64 and objectid in binary: refused" "1 $tmp/tb.dmx: error: attribute 'oid' is elementid, which binary 9 cannot hold (1 and 2 can)" "$? $(cat "$tmp/err")"
"$smdmx" convert "$root/testdata/kv2/ok/layout.dmx" -o "$tmp/x.dmx" --encoding xml 2>/dev/null
check "unknown encoding option" 2 $?
"$smdmx" convert "$root/testdata/kv2/ok/layout.dmx" -o "$tmp/b.dmx" --encoding binary --encoding-version 2
check "binary convert" 0 $?
check_text "binary header" "<!-- dmx encoding binary 2 format model 18 -->" "$(head -n 1 "$tmp/b.dmx")"
"$smdmx" convert "$tmp/b.dmx" -o "$tmp/b2.dmx"
check "binary detected by header" 0 $?
cmp -s "$tmp/b2.dmx" "$tmp/direct.dmx"
check "binary and back is identical" 0 $?
cp "$tmp/b.dmx" "$tmp/b.txt"
"$smdmx" dump "$tmp/b.txt" > /dev/null
check "encoding told by the header, not the name" 0 $?
# SMD <-> DMX: smd2dmx and dmx2smd are convert in one direction.
bindir=$(dirname "$smdmx")
"$bindir/smd2dmx" "$root/testdata/sample/arm.smd" -o "$tmp/arm.dmx"
check "smd2dmx" 0 $?
check_text "model dmx header" "<!-- dmx encoding keyvalues2 1 format model 18 -->" "$(head -n 1 "$tmp/arm.dmx")"
"$bindir/dmx2smd" "$tmp/arm.dmx" -o "$tmp/arm_back.smd"
check "dmx2smd" 0 $?
"$smdmx" convert "$root/testdata/sample/arm.smd" -o "$tmp/arm_direct.smd"
cmp -s "$tmp/arm_back.smd" "$tmp/arm_direct.smd"
check "smd -> dmx -> smd is identical" 0 $?
"$bindir/smd2dmx" "$root/testdata/sample/arm_wave.smd" -o "$tmp/wave.dmx" --encoding binary --model-version 1
check "smd2dmx binary model 1" 0 $?
check_text "binary model 1 header" "<!-- dmx encoding binary 5 format model 1 -->" "$(head -n 1 "$tmp/wave.dmx")"
"$bindir/smd2dmx" "$root/testdata/sample/arm.smd" --vta "$root/testdata/sample/arm.vta" -o "$tmp/armf.dmx"
check "smd2dmx --vta" 0 $?
"$bindir/dmx2smd" "$tmp/armf.dmx" -o "$tmp/armf.smd"
check "dmx2smd with shapes" 0 $?
"$smdmx" convert "$root/testdata/sample/arm.vta" -o "$tmp/arm_direct.vta"
cmp -s "$tmp/armf.vta" "$tmp/arm_direct.vta"
check "vta beside the smd, identical" 0 $?
"$bindir/smd2dmx" "$root/testdata/sample/arm.smd" -o "$tmp/tf2.dmx" --target tf2
check_text "--target tf2" "<!-- dmx encoding binary 2 format model 1 -->" "$(head -n 1 "$tmp/tf2.dmx")"
"$bindir/smd2dmx" "$root/testdata/sample/arm.smd" -o "$tmp/s2.dmx" --target source2 --encoding keyvalues2 --encoding-version 4
check_text "--target with an explicit encoding" "<!-- dmx encoding keyvalues2 4 format model 22 -->" "$(head -n 1 "$tmp/s2.dmx")"
"$bindir/smd2dmx" "$root/testdata/sample/arm.smd" -o "$tmp/x.dmx" --target quake 2>/dev/null
check "unknown target" 2 $?
cp "$root/testdata/sample/arm_wave.smd" "$tmp/wave2.smd"
"$bindir/smd2dmx" --clips "$root/testdata/sample/arm_wave.smd" "$tmp/wave2.smd" -o "$tmp/clips.dmx"
check "--clips" 0 $?
"$bindir/dmx2smd" "$tmp/clips.dmx" -o "$tmp/clip.smd"
check "one smd per clip" 0 $?
check_text "clip files" "clip_arm_wave.smd clip_wave2.smd" "$(cd "$tmp" && ls clip_*.smd | tr '\n' ' ' | sed 's/ $//')"
"$bindir/dmx2smd" "$tmp/clips.dmx" -o "$tmp/only.smd" --clip wave2
check "--clip" 0 $?
cmp -s "$tmp/only.smd" "$tmp/clip_wave2.smd"
check "--clip picks that clip" 0 $?
"$bindir/dmx2smd" "$tmp/clips.dmx" -o "$tmp/none.smd" --clip nope 2>/dev/null
check "--clip unknown" 1 $?
"$smdmx" convert "$root/testdata/sample/arm.smd" "$tmp/wave2.smd" -o "$tmp/two.smd" 2>/dev/null
check "two inputs without --clips" 2 $?
"$bindir/smd2dmx" "$root/testdata/sample/arm_wave.smd" -o "$tmp/exact.dmx" --encoding binary
"$bindir/smd2dmx" "$root/testdata/sample/arm_wave.smd" -o "$tmp/loose.dmx" --encoding binary --key-tolerance 0.01
check_text "a looser key tolerance gives a smaller file" "yes" "$([ "$(stat -c %s "$tmp/loose.dmx")" -lt "$(stat -c %s "$tmp/exact.dmx")" ] && echo yes)"
"$bindir/smd2dmx" "$root/testdata/sample/arm.smd" -o "$tmp/arm.smd" 2>/dev/null
check "smd2dmx wants .dmx" 2 $?
"$bindir/dmx2smd" "$root/testdata/kv2/ok/layout.dmx" -o "$tmp/notmodel.smd" 2>"$tmp/err"
check "dmx2smd of a non-model" 1 $?
"$smdmx" convert "$root/testdata/sample/arm.smd" -o "$tmp/arm.dmx" --model-version 7 2>/dev/null
check "bad model version" 2 $?

# Options checked before any work: a value missing or empty is a usage error (exit 2), and a
# version no writer has writes nothing.
"$bindir/smd2dmx" "$root/testdata/sample/arm.smd" --encoding binary --encoding-version 7 -o "$tmp/v7.dmx" 2>"$tmp/err"
check "encoding version 7" 2 $?
check_text "encoding version 7 said" "smd2dmx: error: --encoding binary is version 1 to 5 or 9, not 7 (try 'smd2dmx --help')" "$(cat "$tmp/err")"
check_text "encoding version 7 wrote nothing" "" "$(ls "$tmp" | grep v7)"
a=$root/testdata/sample/arm.smd
"$smdmx" diff "$a" "$a" --tolerance 2>"$tmp/err"
check "diff --tolerance without its value" 2 $?
check_text "diff --tolerance without its value said" "smdmx: error: '--tolerance' needs a value (try 'smdmx diff --help')" "$(cat "$tmp/err")"
"$smdmx" diff "$a" "$a" --tolerance "" 2>"$tmp/err"
check "diff --tolerance ''" 2 $?
check_text "diff --tolerance '' said" "smdmx: error: --tolerance wants a number >= 0, not '' (try 'smdmx diff --help')" "$(cat "$tmp/err")"
for o in --max --fps --rotation-tolerance --name; do
	"$smdmx" diff "$a" "$a" $o 2>/dev/null
	check "diff $o without its value" 2 $?
done
for o in --max --fps --rotation-tolerance; do
	"$smdmx" diff "$a" "$a" $o "" 2>/dev/null
	check "diff $o ''" 2 $?
done
"$smdmx" diff "$a" "$a" --tolerance 0.5 --max 0 --fps 30 --rotation-tolerance 1e-6
check "diff with every valued option" 0 $?
for cmd in check info diff preview; do
	"$smdmx" "$cmd" "$a" --name "" $([ $cmd = diff ] && echo "$a") $([ $cmd = preview ] && echo "-o $tmp/p.png") 2>"$tmp/err"
	check "$cmd --name ''" "2 smdmx: error: --name is the name of the model read from standard input, not a path (try 'smdmx $cmd --help')" "$? $(cat "$tmp/err")"
done
for c in "check $a --target" "check $a --name" "info $a --name" "report $tmp $tmp -o" "report $tmp $tmp -j" "preview $a -o"; do
	set -- $c
	cmd=$1
	shift
	"$smdmx" "$cmd" "$@" 2>"$tmp/err"
	check "$cmd: '$(eval echo \$$#)' without its value" "2 smdmx: error: '$(eval echo \$$#)' needs a value (try 'smdmx $cmd --help')" "$? $(cat "$tmp/err")"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
