#!/bin/sh
# The programs as build scripts use them: exit codes, message format, batches, atomic output,
# determinism, depfiles, info. One group of cases per meson test.
# usage: cli_batch.sh GROUP BUILD_DIR SOURCE_ROOT
. "$(dirname "$0")/cli_lib.sh"

case $group in
exit-codes)
	for p in smdmx smd2dmx dmx2smd; do
		"$build/$p" --help >"$tmp/out" 2>"$tmp/err"
		check "$p --help exits 0" 0 $?
		check "$p --help says exit codes" 1 "$(grep -c '^exit codes: 0 success, 1 at least one file failed, 2 a usage error$' "$tmp/out")"
		"$build/$p" --version >"$tmp/out" 2>"$tmp/err"
		check "$p --version" "$p 0.1.0" "$(cat "$tmp/out")"
		"$build/$p" >/dev/null 2>"$tmp/err"
		check "$p without arguments" 2 $?
	done
	"$smd2dmx" --frobnicate x.smd 2>"$tmp/err"
	check "unknown option" 2 $?
	check "unknown option message" "smd2dmx: error: unknown option '--frobnicate' (try 'smd2dmx --help')" "$(cat "$tmp/err")"
	mkdir "$tmp/w"
	"$smd2dmx" "$sample/arm.smd" "$sample/arm_wave.smd" -o "$tmp/w/x.dmx" 2>"$tmp/err"
	check "-o with two inputs" 2 $?
	check "-o with two inputs leaves nothing" "" "$(files "$tmp/w")"
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/x.dmx" -d "$tmp" 2>/dev/null
	check "-o and -d" 2 $?
	"$smd2dmx" "$sample" -d "$tmp/o" 2>"$tmp/err"
	check "a directory without -r" 2 $?
	check "a directory without -r: message" "smd2dmx: error: '$sample' is a directory (-r converts the files below it)" "$(cat "$tmp/err")"
	"$smd2dmx" -j 0 "$sample/arm.smd" 2>/dev/null
	check "-j 0" 2 $?
	"$smd2dmx" "$root/testdata/bad/bad_number.smd" -o "$tmp/bad.dmx" 2>"$tmp/err"
	check "bad input exits 1" 1 $?
	check "compiler format" "$root/testdata/bad/bad_number.smd:7:5: error: expected position y" "$(cat "$tmp/err")"
	"$dmx2smd" "$tmp/missing.dmx" -o "$tmp/w/m.smd" 2>"$tmp/err"
	check "missing input exits 1" 1 $?
	if [ -n "$windows" ]; then
		# Windows' own words (FormatMessageW, in the user's language; Wine has its own), not the C library's
		got=$(sed 's/cannot open: No such file or directory$/(the C library'"'"'s words)/; s/cannot open: ..*$/cannot open: (Windows'"'"' words)/' "$tmp/err")
		check "missing input message" "$tmp/missing.dmx: error: cannot open: (Windows' words)" "$got"
	else
		check "missing input message" "$tmp/missing.dmx: error: cannot open: No such file or directory" "$(cat "$tmp/err")"
	fi
	check "nothing written" "" "$(files "$tmp/w")"
	;;

batch)
	# an empty folder with -r: nothing to convert, said (its listing is empty, no names at all)
	mkdir "$tmp/none"
	"$smd2dmx" -r "$tmp/none" -d "$tmp/none_out" 2>"$tmp/err"
	check "-r on an empty folder" "2 smd2dmx: error: no input files" "$? $(cat "$tmp/err")"
	mkdir -p "$tmp/src/a/b" "$tmp/src/c"
	cp "$sample/arm.smd" "$tmp/src/a/1.smd"
	cp "$root/testdata/bad/bad_number.smd" "$tmp/src/a/2.smd"
	cp "$sample/arm_wave.smd" "$tmp/src/a/b/3.smd"
	cp "$sample/arm.smd" "$tmp/src/c/4.smd"
	cp "$sample/arm.vta" "$tmp/src/c/4.vta"
	echo "not a model" >"$tmp/src/c/notes.txt"
	"$smd2dmx" -j1 -r "$tmp/src" -d "$tmp/out" 2>"$tmp/err"
	check "a failure stops the batch" 1 $?
	check "converted before the failure, nothing after" "./a/1.dmx " "$(files "$tmp/out")"
	check "stop message" "smd2dmx: error: stopped after the first failure: 2 of 4 inputs not converted (--keep-going converts the rest)" "$(tail -n 1 "$tmp/err")"
	# Without -k the batch stops the same way at every -j: as on one worker (a big file before
	# the bad one, small ones after it that a second worker could have finished first)
	mkdir "$tmp/order"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		if [ $i = 5 ]; then cp "$root/testdata/bad/bad_number.smd" "$tmp/order/f$i.smd"
		elif [ $i = 2 ]; then "$build/tools/gen_smd" reference 40000 "$tmp/order/f$i.smd"
		else cp "$sample/arm.smd" "$tmp/order/f$i.smd"; fi
	done
	for j in 1 2 4; do
		"$smd2dmx" "$tmp/order"/f*.smd -d "$tmp/order_out$j" -j$j 2>"$tmp/order_err$j"
		check "-j$j without -k: stops at the first failure, as on one worker" "1:./f0.dmx ./f1.dmx ./f2.dmx ./f3.dmx ./f4.dmx " \
			"$?:$(files "$tmp/order_out$j")"
		check "-j$j without -k: the same messages" "$(cat "$tmp/order_err1")" "$(cat "$tmp/order_err$j")"
	done
	check "the messages: the failure, then what was not converted" "$tmp/order/f5.smd:7:5: error: expected position y|smd2dmx: error: stopped after the first failure: 4 of 10 inputs not converted (--keep-going converts the rest)" \
		"$(tr '\n' '|' <"$tmp/order_err4" | sed 's/|$//')"
	rm -rf "$tmp/out"
	"$smd2dmx" -j2 -k -r "$tmp/src" -d "$tmp/out" 2>"$tmp/err"
	check "--keep-going exits 1" 1 $?
	check "--keep-going converts the rest, mirrored; the VTA goes into 4.dmx" "./a/1.dmx ./a/b/3.dmx ./c/4.dmx " "$(files "$tmp/out")"
	check "--keep-going summary" "smd2dmx: error: 1 of 4 inputs failed" "$(tail -n 1 "$tmp/err")"
	check "the failure in the compiler format" "$tmp/src/a/2.smd:7:5: error: expected position y" "$(head -n 1 "$tmp/err")"
	check "4.dmx has the shapes" 1 "$("$smdmx" info --json "$tmp/out/c/4.dmx" | grep -c '"flex_shapes": 1')"
	"$dmx2smd" -r "$tmp/out" -d "$tmp/back" -q
	check "dmx2smd of the tree" 0 $?
	check "dmx2smd mirrors, VTA beside" "./a/1.smd ./a/b/3.smd ./c/4.smd ./c/4.vta " "$(files "$tmp/back")"
	# Outputs beside the inputs when there is neither -o nor -d.
	cp "$sample/arm.smd" "$tmp/beside.smd"
	"$smd2dmx" "$tmp/beside.smd"
	check "output beside the input" 0 $?
	check "beside: written" "yes" "$([ -f "$tmp/beside.dmx" ] && echo yes)"
	# Two inputs that would write one output fail, the others still run with -k.
	mkdir -p "$tmp/x" "$tmp/y"
	cp "$sample/arm.smd" "$tmp/x/m.smd"
	cp "$sample/arm.smd" "$tmp/y/m.smd"
	cp "$sample/arm_wave.smd" "$tmp/y/w.smd"
	"$smd2dmx" -k "$tmp/x/m.smd" "$tmp/y/m.smd" "$tmp/y/w.smd" -d "$tmp/flat" 2>"$tmp/err"
	check "colliding outputs" 1 $?
	check "colliding outputs: the rest converted" "./w.dmx " "$(files "$tmp/flat")"
	check "colliding outputs: message" "$tmp/x/m.smd: error: '$tmp/flat/m.dmx' would also be written from '$tmp/y/m.smd'" "$(head -n 1 "$tmp/err")"
	# The progress line: on a terminal only, and not with -q (script(1) gives a terminal).
	if [ -n "$windows" ] && command -v script >/dev/null 2>&1; then
		# What a console shows, read back cell by cell (tests/test_console.c --screen, on the
		# console Wine makes of a pseudo-terminal), on a console that says it takes escape codes
		# and on one that does not: the progress line shown, then cleared without an escape
		# code; a message in Cyrillic and accented Latin as a file receives it; a letter whose
		# bytes come in two writes, whole.
		wine=$(sed -n 's/^exec sh "[^"]*" "\([^"]*\)" .*/\1/p' "$build/smd2dmx")
		exe=$(sed -n 's/^exec sh "[^"]*" "[^"]*" "\([^"]*\)" .*/\1/p' "$build/smd2dmx")
		tcon="$(dirname "$exe")/tests/test_console.exe"
		mkdir -p "$tmp/pr" "$tmp/Модели"
		for i in 1 2 3; do cp "$sample/arm.smd" "$tmp/pr/$i.smd"; done
		(cd "$tmp" && "$smd2dmx" 'Модели\héros.smd' -o 'Модели\é.dmx' 2>"$tmp/said" </dev/null)
		# screen ARGS: --screen $kind ARGS on a console, what it printed ("exit N")
		screen() { (cd "$tmp" && LC_ALL=C.UTF-8 timeout 120 script -qec "sh '$root/tests/wine_run.sh' '$wine' '$tcon' --screen $kind screen.txt $*" /dev/null </dev/null 2>&1 | tr -d '\r' | grep '^exit '); }
		for kind in vt plain; do
			said=$(screen "'$exe' -j1 -r pr -d pr_$kind")
			check "a console ($kind): the batch converts" "exit 0 3" "$said $(ls "$tmp/pr_$kind" | wc -l)"
			check "a console ($kind): the progress line cleared, no escape code shown" "" "$(tr -d '\n' <"$tmp/screen.txt")"
			said=$(screen "'$exe' 'Модели\\héros.smd' -o 'Модели\\é.dmx'")
			check "a console ($kind): letters in any language, as a file has them" "exit 1 $(cat "$tmp/said")" "$said $(grep -v '^$' "$tmp/screen.txt")"
			said=$(screen --split)
			check "a console ($kind): a letter written in two pieces" "exit 0 split: héllo Пр" "$said $(grep -v '^$' "$tmp/screen.txt")"
		done
		# and the progress line was there to clear: the rows the console showed as a batch ran
		for i in $(seq 4 40); do cp "$sample/arm.smd" "$tmp/pr/$i.smd"; done
		(cd "$tmp" && LC_ALL=C.UTF-8 timeout 120 script -qec "sh '$root/tests/wine_run.sh' '$wine' '$tcon' --screen plain screen.txt '$exe' -j1 -r pr -d pr_shown" /dev/null </dev/null >"$tmp/pty.txt" 2>&1)
		check "a console: the progress line was shown" "yes exit 0" "$(grep -aq '^row: smd2dmx: \[[0-9]*/40\] pr\\[0-9]*\.smd.$' "$tmp/pty.txt" && echo yes) $(tr -d '\r' <"$tmp/pty.txt" | grep '^exit ')"
		check "the message the consoles were given" "Модели\héros.smd: error: cannot open: " "$(sed 's/open: .*/open: /' "$tmp/said")"
		# one big file: what of it is read, as it is read
		"$build/tools/gen_smd" reference 70000 "$tmp/big.smd"
		(cd "$tmp" && LC_ALL=C.UTF-8 timeout 120 script -qec "sh '$root/tests/wine_run.sh' '$wine' '$tcon' --screen plain screen.txt '$exe' big.smd" /dev/null </dev/null >"$tmp/pty.txt" 2>&1)
		check "a console: one big file, what of it is read" "yes exit 0 " \
			"$(grep -aq '^row: smd2dmx: big\.smd (read [0-9]*%).$' "$tmp/pty.txt" && echo yes) $(tr -d '\r' <"$tmp/pty.txt" | grep '^exit ') $(tr -d '\n' <"$tmp/screen.txt")"
	elif [ -z "$windows" ] && command -v script >/dev/null; then
		mkdir -p "$tmp/pr"
		for i in 1 2 3; do cp "$sample/arm.smd" "$tmp/pr/$i.smd"; done
		script -qec "'$smd2dmx' -j1 -r '$tmp/pr' -d '$tmp/pr_out'" /dev/null >"$tmp/tty.txt" 2>&1
		check "progress on a terminal" 2 "$(tr '\r' '\n' <"$tmp/tty.txt" | grep -c '^.\[Ksmd2dmx: \[[12]/3\] ')"
		script -qec "'$smd2dmx' -q -j1 -r '$tmp/pr' -d '$tmp/pr_q'" /dev/null >"$tmp/tty.txt" 2>&1
		check "no progress with -q" "" "$(cat "$tmp/tty.txt")"
		"$smd2dmx" -j1 -r "$tmp/pr" -d "$tmp/pr_pipe" 2>"$tmp/err"
		check "no progress when stderr is not a terminal" "" "$(cat "$tmp/err")"
		# one big file (8 MiB or more): what of it is read, as it is read, then cleared
		"$build/tools/gen_smd" reference 70000 "$tmp/big.smd"
		script -qec "'$smd2dmx' '$tmp/big.smd' -o '$tmp/big.dmx'" /dev/null >"$tmp/tty.txt" 2>&1
		check "one big file: what of it is read" "0 yes yes" \
			"$? $(tr '\r' '\n' <"$tmp/tty.txt" | grep -q '^.\[Ksmd2dmx: .*big\.smd (read [0-9]*%)$' && echo yes) $(tr '\r' '\n' <"$tmp/tty.txt" | grep -q '^.\[Ksmd2dmx: .*big\.smd (read; converting)$' && echo yes)"
		check "one big file: the line cleared at the end" "$(printf '\r\033[K')" "$(tail -c 4 "$tmp/tty.txt")"
		script -qec "'$dmx2smd' '$tmp/big.dmx' -o '$tmp/big2.smd'" /dev/null >"$tmp/tty.txt" 2>&1
		check "one big DMX: what of it is read" "0 yes" "$? $(tr '\r' '\n' <"$tmp/tty.txt" | grep -q '^.\[Kdmx2smd: .*big\.dmx (read [0-9]*%)$' && echo yes)"
		# a file of less: nothing shown
		script -qec "'$smd2dmx' '$sample/arm.smd' -o '$tmp/small.dmx'" /dev/null >"$tmp/tty.txt" 2>&1
		check "one small file: no progress line" "0 " "$? $(cat "$tmp/tty.txt")"
	fi
	# Standard input and output.
	"$smd2dmx" - <"$sample/arm.smd" >"$tmp/pipe.dmx"
	check "stdin to stdout" 0 $?
	check "stdout holds a DMX" "<!-- dmx encoding keyvalues2 1 format model 18 -->" "$(head -n 1 "$tmp/pipe.dmx")"
	"$dmx2smd" - -o - <"$tmp/pipe.dmx" >"$tmp/pipe.smd"
	check "dmx2smd stdin to stdout" 0 $?
	"$smdmx" convert "$sample/arm.smd" -o "$tmp/direct.smd"
	cmp -s "$tmp/pipe.smd" "$tmp/direct.smd"
	check "through pipes, the same SMD" 0 $?
	;;

diagnostics)
	# keyvalues2 as Blender Source Tools' datamodel.py writes it: read with one warning per
	# kind, counted, in the order of the file; written back strict
	"$smdmx" convert "$root/testdata/kv2/ok/bare_datamodelpy.dmx" -o "$tmp/strict.dmx" 2>"$tmp/err"
	check "datamodel.py keyvalues2 converts" 0 $?
	in=$root/testdata/kv2/ok/bare_datamodelpy.dmx
	check "datamodel.py keyvalues2: its warnings" "$in:6:10: warning: an unquoted type without a value (Blender Source Tools' datamodel.py's empty value; Valve's tools refuse it) was read as the type's empty value; nothing to do (3 times)
$in:11:24: warning: this file does not escape backslashes (as Blender Source Tools' datamodel.py writes paths): each was read as written; nothing to do (5 times)
$in:12:49: warning: an unescaped '\"' inside a string (as Blender Source Tools' datamodel.py writes strings) was read as part of the string; nothing to do (2 times)" "$(cat "$tmp/err")"
	check "written strict: nulls quoted" 1 "$(grep -c '^	"model" "element" ""$' "$tmp/strict.dmx")"
	check "written strict: no bare type word" 0 "$(grep -c '" [a-z_0-9]*$' "$tmp/strict.dmx")"
	check "written strict: quotes and backslashes escaped" 2 "$(grep -c -e '"vsDmxIO -export -filename \\"C:/My Documents/walk.dmx\\";"$' \
		-e '"\.\.\\\\\.\.\\\\Maya\\\\animation\\\\walk\.ma"$' "$tmp/strict.dmx")"
	"$smdmx" convert "$in" -o "$tmp/strict2.dmx" -W error 2>/dev/null
	check "datamodel.py keyvalues2 with -W error" "1 no" "$? $([ -e "$tmp/strict2.dmx" ] && echo yes || echo no)"
	"$smdmx" dump "$in" >/dev/null 2>"$tmp/err"
	check "dump shows the warnings" "0 3" "$? $(grep -c ': warning: ' "$tmp/err")"
	# a float of a binary file that is no number: dumped as such; the model refused, said
	nan="$root/fuzz/findings/model/diff-self-balance-not-finite"
	check "dump: a value that is no number" '            balance$0: float_array [8] = 1, 1, 0, nan, 1.0000304, 1, 0, 0' \
		"$("$smdmx" dump "$nan" --full | grep 'balance\$0:')"
	cp "$nan" "$tmp/nan.dmx"
	"$dmx2smd" "$tmp/nan.dmx" -o "$tmp/nan.smd" 2>"$tmp/err"
	check "a balance that is no number: refused" "1 $tmp/nan.dmx: error: mesh 0: balance not finite no" "$? $(cat "$tmp/err") $([ -e "$tmp/nan.smd" ] && echo yes || echo no)"
	"$smdmx" check "$in" >/dev/null 2>"$tmp/err"
	check "check shows them, then that it is no model" "1 3 1" "$? $(grep -c ': warning: ' "$tmp/err") $(grep -c ': error: not a model' "$tmp/err")"
	printf 'version 2\nnodes\n0 "root" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0 1 0 0.5\n0 1 0 0 0 0 1 0 0 1 0 0.5\n0 0 1 0 0 0 1 0 0 1 0 0.5\nend\n' >"$tmp/w.smd"
	"$smd2dmx" "$tmp/w.smd" -o "$tmp/w.dmx" 2>"$tmp/err"
	check "warnings do not fail" 0 $?
	check "two warnings" 2 "$(grep -c ': warning: ' "$tmp/err")"
	check "warning format" "$tmp/w.smd:1:9: warning:" "$(head -n 1 "$tmp/err" | cut -d' ' -f1-2)"
	"$smd2dmx" "$tmp/w.smd" -o "$tmp/w1.dmx" --max-warnings 1 2>"$tmp/err"
	check "--max-warnings 1 shows one" 1 "$(grep -c ': warning: ' "$tmp/err")"
	check "--max-warnings counts the rest" "$tmp/w.smd: note: 1 more warning not shown (--max-warnings)" "$(tail -n 1 "$tmp/err")"
	"$smd2dmx" "$tmp/w.smd" -o "$tmp/w2.dmx" -q 2>"$tmp/err"
	check "-q: no warnings" "" "$(cat "$tmp/err")"
	"$smd2dmx" "$tmp/w.smd" -o "$tmp/w3.dmx" -W error 2>"$tmp/err"
	check "-W error fails" 1 $?
	check "-W error: nothing written" "no" "$([ -e "$tmp/w3.dmx" ] && echo yes || echo no)"
	check "-W error message" "$tmp/w.smd: error: warnings are errors (-W error)" "$(tail -n 1 "$tmp/err")"
	"$smd2dmx" "$tmp/w.smd" -o "$tmp/w3.dmx" -q -W error 2>"$tmp/err"
	check "-q -W error names each warning as an error" "1 $tmp/w.smd:1:9: error: SMD version 2, which no format defines: read as version 1; nothing to do (-W error)|$tmp/w.smd:11:19: error: weights sum below 1: the rest went to the line's parent bone, as studiomdl gives it; nothing to do (3 times) (-W error)|$tmp/w.smd: error: warnings are errors (-W error)|" \
		"$? $(tr '\n' '|' <"$tmp/err")"
	"$smd2dmx" "$tmp/w.smd" -o "$tmp/w4.dmx" -Werror 2>/dev/null
	check "-Werror" 1 $?
	"$smd2dmx" "$tmp/w.smd" -o "$tmp/w5.dmx" -W nonsense 2>/dev/null
	check "-W takes only error" 2 $?
	;;

atomic)
	cp "$sample/arm.smd" "$tmp/arm.smd"
	echo "keep me" >"$tmp/arm.dmx"
	"$smd2dmx" "$tmp/arm.smd" 2>"$tmp/err"
	check "an existing output is an error" 1 $?
	check "existing output message" "$tmp/arm.dmx: error: '$tmp/arm.dmx' exists (--force overwrites it)" "$(cat "$tmp/err")"
	check "the existing output is untouched" "keep me" "$(cat "$tmp/arm.dmx")"
	"$smd2dmx" "$root/testdata/bad/bad_number.smd" -o "$tmp/arm.dmx" --force 2>/dev/null
	check "a failed conversion with --force" 1 $?
	check "a failed conversion leaves the old output" "keep me" "$(cat "$tmp/arm.dmx")"
	"$smd2dmx" "$tmp/arm.smd" --force
	check "--force overwrites" 0 $?
	check "--force: the new output" "<!-- dmx encoding keyvalues2 1 format model 18 -->" "$(head -n 1 "$tmp/arm.dmx")"
	"$smdmx" convert "$tmp/arm.smd" -o "$tmp/arm.smd" --force 2>"$tmp/err"
	check "the output is the input, even with --force" 1 $?
	check "the input is intact" "" "$(cmp "$tmp/arm.smd" "$sample/arm.smd")"
	ln -s arm.smd "$tmp/link.smd"
	"$smdmx" convert "$tmp/arm.smd" -o "$tmp/link.smd" --force 2>"$tmp/err"
	check "the output is the input through a link" 1 $?
	check "link message" "$tmp/link.smd: error: the output '$tmp/link.smd' is the input '$tmp/arm.smd'" "$(cat "$tmp/err")"
	before=$(files "$tmp")
	# A failing write: past the file size limit (SIGXFSZ is ignored, write fails with EFBIG).
	# Windows has no such limit.
	if [ -z "$windows" ]; then
		(ulimit -f 2 && "$smd2dmx" "$tmp/arm.smd" -o "$tmp/big.dmx" --encoding keyvalues2_flat 2>"$tmp/err.fsz")
		rc=$?
		check "a failing write exits 1" 1 $rc
		check "a failing write: its message" "$tmp/big.dmx: error: cannot write: File too large" "$(cat "$tmp/err.fsz")"
		rm -f "$tmp/err.fsz"
		check "a failing write leaves nothing" "$before" "$(files "$tmp")"
	fi
	# Interrupted while writing: SIGTERM once the temporary file is there; it must go. On
	# Windows, Ctrl-C (Wine makes SIGINT a console Ctrl-C event): the exit code is
	# STATUS_CONTROL_C_EXIT, 0xC000013A, of which the shell sees the low byte, 58. The
	# signal goes to the program: under Wine the child of tests/wine_run.sh, the start's $!.
	if [ -n "$windows" ]; then sig=INT want_rc=58; else sig=TERM want_rc=143; fi
	interrupt() { if [ -n "$windows" ]; then pkill -$sig -P "$1"; else kill -$sig "$1"; fi; }
	# A batch of three on two workers: however far each got, no temporary file stays.
	mkdir "$tmp/sig"
	"$build/tools/gen_smd" reference 300000 "$tmp/sig/big.smd"
	cp "$tmp/sig/big.smd" "$tmp/sig/big2.smd"
	cp "$tmp/sig/big.smd" "$tmp/sig/big3.smd"
	"$smd2dmx" -j2 "$tmp/sig/big.smd" "$tmp/sig/big2.smd" "$tmp/sig/big3.smd" &
	pid=$!
	seen=no
	i=0
	while [ $i -lt 3000 ] && kill -0 $pid 2>/dev/null; do
		if ls -A "$tmp/sig" | grep -q '^\.big[23]*\.dmx\..*\.tmp$'; then
			interrupt $pid
			seen=yes
			break
		fi
		sleep 0.01
		i=$((i + 1))
	done
	wait $pid
	rc=$?
	check "interrupted while writing" "yes $want_rc" "$seen $rc"
	check "an interrupt leaves no temporary file" "big.smd big2.smd big3.smd " "$(LC_ALL=C ls -A "$tmp/sig" | grep -v '^big[23]*\.dmx$' | tr '\n' ' ')"
	for out in "$tmp"/sig/*.dmx; do
		[ -f "$out" ] || continue
		"$smdmx" info "$out" >/dev/null 2>&1
		check "an output an interrupted batch finished is whole: $(basename "$out")" 0 $?
	done
	rm -rf "$tmp/sig"
	# A directory that cannot be made: a path through a file.
	"$smd2dmx" "$tmp/arm.smd" -o "$tmp/arm.smd/x.dmx" 2>"$tmp/err"
	check "a path through a file" 1 $?
	check "a path through a file: message" "$tmp/arm.smd/x.dmx: error: cannot write '$tmp/arm.smd/x.dmx': Not a directory" "$(cat "$tmp/err")"
	check "nothing left behind" "$before" "$(files "$tmp")"
	# An unwritable directory (as root, permissions do not bind: run as nobody when possible).
	mkdir "$tmp/ro"
	chmod 555 "$tmp/ro"
	run_as=""
	if [ -n "$windows" ]; then
		run_as="skip" # Windows grants by access lists, which Wine does not keep
	elif [ "$(id -u)" = 0 ]; then
		chmod 755 "$tmp"
		if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$smd2dmx" 2>/dev/null &&
			setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$tmp/arm.smd" 2>/dev/null; then
			run_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
		else
			run_as="skip"
		fi
	fi
	if [ "$run_as" != skip ]; then
		$run_as "$smd2dmx" "$tmp/arm.smd" -o "$tmp/ro/x.dmx" 2>"$tmp/err"
		check "an unwritable directory" 1 $?
		check "unwritable: message" "$tmp/ro/x.dmx: error: cannot write '$tmp/ro/x.dmx': Permission denied" "$(cat "$tmp/err")"
		check "unwritable: nothing inside" "" "$(ls -A "$tmp/ro")"
	else
		echo "note: the unwritable-directory case needs setpriv and a build directory readable by nobody; skipped"
	fi
	;;

determinism)
	if [ ! -d "$corpus" ]; then
		# a clone downloaded alone has no corpus; CI sets SMDMX_REQUIRE_CORPUS
		[ "${SMDMX_REQUIRE_CORPUS:-0}" != 0 ] && { echo "FAIL: corpus directory $corpus is missing"; exit 1; }
		echo "skipped: this group reads the corpus, and there is none at $corpus"
		exit 77
	fi
	# Under the sanitizers (SMDMX_CORPUS_SAMPLE) the corpus's sample, as everywhere there, and
	# the files the whole corpus fails on, so that the failures' messages are compared too
	# (the five batches of the whole corpus were 75 s of ThreadSanitizer's run).
	src=$corpus
	if [ "${SMDMX_CORPUS_SAMPLE:-1}" != 1 ]; then
		corpus_copy "$tmp/cs"
		for f in other/assimp__assimp__empty.smd vta/Artfunkel__BlenderSourceTools__Cube.vta \
			smd_anim/reepblue__SourceSDKContent__idle.smd smd_anim/reepblue__SourceSDKContent__idle.SMD; do
			mkdir -p "$(dirname "$tmp/cs/$f")" && cp "$corpus/$f" "$tmp/cs/$f" || check "the corpus's $f" there missing
		done
		src=$tmp/cs
	fi
	"$smd2dmx" -r "$src" -d "$tmp/j1" -k -j1 2>"$tmp/e1"
	check "corpus batch -j1" 1 $?
	"$smd2dmx" -r "$src" -d "$tmp/j2" -k -j2 2>"$tmp/e2"
	check "corpus batch -j2" 1 $?
	diff -r "$tmp/j1" "$tmp/j2" >/dev/null
	check "-j1 and -j2 write identical files" 0 $?
	check "-j1 and -j2 print identical diagnostics" "$(cat "$tmp/e1")" "$(sed "s|$tmp/j2|$tmp/j1|g" "$tmp/e2")"
	check "some outputs" yes "$([ "$(find "$tmp/j1" -name '*.dmx' | wc -l)" -gt 20 ] && echo yes)"
	"$smd2dmx" -r "$src" -d "$tmp/j3" -k -j2 -q 2>/dev/null
	diff -r "$tmp/j1" "$tmp/j3" >/dev/null
	check "a second -j2 run is identical" 0 $?
	"$dmx2smd" -r "$src" -d "$tmp/d1" -k -j1 -q 2>/dev/null
	"$dmx2smd" -r "$src" -d "$tmp/d2" -k -j2 -q 2>/dev/null
	diff -r "$tmp/d1" "$tmp/d2" >/dev/null
	check "dmx2smd -j1 and -j2 identical" 0 $?
	# QC libraries: every name is the plan's, so -j 1, 2 and 8 write the same files with the
	# same messages; and so when every output is already there with someone else's bytes
	# (each output then takes a name of its own, reserved before any worker runs)
	# (under the sanitizers, which sample the corpus, the corpus's QCs alone)
	libs="$corpus/library/l4d2_modelsrc $corpus/qc"
	[ -n "${SMDMX_CORPUS_SAMPLE:-}" ] && libs="$corpus/qc"
	for lib in $libs; do
		name=$(basename "$lib")
		for j in 1 2 8; do
			"$smdmx" qc -r -k "$lib" --to dmx -d "$tmp/q$j/$name" -j $j 2>"$tmp/qe$j"
			echo "exit $?" >>"$tmp/qe$j"
			sed "s|$tmp/q$j/|OUT/|g" "$tmp/qe$j" >"$tmp/qe$j.n"
		done
		check "smdmx qc -r $name: -j 1, 2 and 8 write the same files" "same" \
			"$(diff -r "$tmp/q1" "$tmp/q2" >/dev/null && diff -r "$tmp/q1" "$tmp/q8" >/dev/null && echo same)"
		check "smdmx qc -r $name: and print the same messages" "same" \
			"$(cmp -s "$tmp/qe1.n" "$tmp/qe2.n" && cmp -s "$tmp/qe1.n" "$tmp/qe8.n" && echo same)"
		# someone's file at every output: a tree of the same names, other bytes, no record
		rm -rf "$tmp/theirs"
		(cd "$tmp/q1/$name" && find . -type f ! -name .smdmx-written) | while read -r f; do
			mkdir -p "$(dirname "$tmp/theirs/$f")"
			echo "someone's" >"$tmp/theirs/$f"
		done
		for j in 1 2 8; do
			rm -rf "$tmp/r$j"
			mkdir -p "$tmp/r$j"
			cp -r "$tmp/theirs" "$tmp/r$j/$name"
			"$smdmx" qc -r -k "$lib" --to dmx -d "$tmp/r$j/$name" -j $j 2>"$tmp/re$j"
			echo "exit $?" >>"$tmp/re$j"
			sed "s|$tmp/r$j/|OUT/|g" "$tmp/re$j" >"$tmp/re$j.n"
		done
		check "smdmx qc -r $name over someone's files: outputs of their own names" "yes" \
			"$([ "$(grep -c 'a file with other bytes is there' "$tmp/re1")" -gt 2 ] && echo yes)"
		check "smdmx qc -r $name over someone's files: the same at -j 1, 2 and 8" "same" \
			"$(diff -r "$tmp/r1" "$tmp/r2" >/dev/null && diff -r "$tmp/r1" "$tmp/r8" >/dev/null && cmp -s "$tmp/re1.n" "$tmp/re2.n" && cmp -s "$tmp/re1.n" "$tmp/re8.n" && echo same)"
		rm -rf "$tmp/q1" "$tmp/q2" "$tmp/q8" "$tmp/r1" "$tmp/r2" "$tmp/r8"
	done
	;;

threads)
	# One SMD read on several threads (--threads): 12,000 triangles, about 4 MB, cut into
	# parts of 1 MiB. The output, and the message of a fault in its last part, are those
	# of one thread.
	"$build/tools/gen_smd" reference 12000 "$tmp/big.smd"
	"$smd2dmx" --threads 1 "$tmp/big.smd" -o "$tmp/t1.dmx"
	check "--threads 1" 0 $?
	for t in 2 3 4 8; do
		"$smd2dmx" --threads $t "$tmp/big.smd" -o "$tmp/t$t.dmx"
		check "--threads $t" 0 $?
		cmp -s "$tmp/t1.dmx" "$tmp/t$t.dmx"
		check "--threads $t writes what one thread writes" 0 $?
	done
	"$smd2dmx" "$tmp/big.smd" -o "$tmp/td.dmx" && cmp -s "$tmp/t1.dmx" "$tmp/td.dmx"
	check "the default writes what one thread writes" 0 $?
	"$smd2dmx" --threads 4 - -o "$tmp/ts.dmx" --name big <"$tmp/big.smd" && cmp -s "$tmp/t1.dmx" "$tmp/ts.dmx"
	check "standard input (one thread) writes the same" 0 $?
	"$smdmx" convert --threads 2 "$tmp/big.smd" -o "$tmp/t.smd" && "$smdmx" convert --threads 1 "$tmp/big.smd" -o "$tmp/t1.smd" &&
		cmp -s "$tmp/t.smd" "$tmp/t1.smd"
	check "SMD to SMD alike" 0 $?
	# a bad number on a vertex line near the end: in the last part
	lines=$(wc -l <"$tmp/big.smd")
	n=$(awk -v from=$((lines - 2000)) 'NR >= from && NF >= 9 && $1 ~ /^[0-9]+$/ { print NR; exit }' "$tmp/big.smd")
	awk -v n="$n" 'NR == n { $3 = "1.5x" } { print }' "$tmp/big.smd" >"$tmp/bad.smd"
	"$smd2dmx" --threads 1 "$tmp/bad.smd" -o "$tmp/b1.dmx" 2>"$tmp/e1"
	check "a fault, one thread" 1 $?
	"$smd2dmx" --threads 4 "$tmp/bad.smd" -o "$tmp/b4.dmx" 2>"$tmp/e4"
	check "a fault, four threads" 1 $?
	check "the fault's message" "$tmp/bad.smd:$n:$(awk -v n="$n" 'NR == n { print index($0, "1.5x") }' "$tmp/bad.smd"): error: expected position y" "$(sed "s|^$drive||" "$tmp/e4")"
	check "the same message on one thread" "$(cat "$tmp/e1")" "$(cat "$tmp/e4")"
	check "nothing written" "no no" "$([ -e "$tmp/b1.dmx" ] && echo yes || echo no) $([ -e "$tmp/b4.dmx" ] && echo yes || echo no)"
	"$smd2dmx" --threads 0 "$tmp/big.smd" -o "$tmp/z.dmx" 2>"$tmp/err"
	check "--threads 0" 2 $?
	check "--threads 0: message" "smd2dmx: error: --threads wants a number from 1 to 256, not '0' (try 'smd2dmx --help')" "$(cat "$tmp/err")"
	# keyvalues2: its number arrays in parts (70,000 triangles: arrays of 2 to 6 MB); alike
	# at any count, and a fault late in the faces array named alike
	"$build/tools/gen_smd" reference 70000 "$tmp/kv.smd"
	"$smd2dmx" --threads 1 "$tmp/kv.smd" -o "$tmp/kv.dmx"
	"$dmx2smd" --threads 1 "$tmp/kv.dmx" -o "$tmp/back1.smd"
	check "dmx2smd --threads 1" 0 $?
	for t in 2 4; do
		"$dmx2smd" --threads $t "$tmp/kv.dmx" -o "$tmp/back$t.smd" && cmp -s "$tmp/back1.smd" "$tmp/back$t.smd"
		check "dmx2smd --threads $t writes what one thread writes" 0 $?
	done
	awk 'index($0, "\"faces\" \"int_array\"") { p = int(length($0) * 0.8); i = index(substr($0, p), "\", \""); $0 = substr($0, 1, p + i + 2) "x" substr($0, p + i + 3) } { print }' "$tmp/kv.dmx" >"$tmp/bad.dmx"
	"$dmx2smd" --threads 1 "$tmp/bad.dmx" -o "$tmp/bad1.smd" 2>"$tmp/e1"
	r1=$?
	"$dmx2smd" --threads 4 "$tmp/bad.dmx" -o "$tmp/bad4.smd" 2>"$tmp/e4"
	check "a keyvalues2 fault, one and four threads" "1 1" "$r1 $?"
	check "its message, as on one thread" "$(cat "$tmp/e1")" "$(cat "$tmp/e4")"
	check "the message" "is not a valid int" "$(grep -o "is not a valid int" "$tmp/e4")"
	;;

depfile)
	mkdir "$tmp/in dir"
	cp "$sample/arm.smd" "$sample/arm.vta" "$sample/arm_wave.smd" "$tmp/in dir/"
	cd "$tmp" || exit 1
	"$smd2dmx" "in dir/arm.smd" "in dir/arm.vta" "in dir/arm_wave.smd" -d out --depfile deps.d
	check "depfile run" 0 $?
	check "depfile lines" "out/arm.dmx: in\\ dir/arm.smd in\\ dir/arm.vta|out/arm_wave.dmx: in\\ dir/arm_wave.smd|" "$(tr '\n' '|' <deps.d)"
	"$dmx2smd" out/arm.dmx -o 'back$.smd' --depfile back.d
	check "depfile with the VTA beside" 'back$$.smd back$$.vta: out/arm.dmx' "$(cat back.d)"
	"$smd2dmx" "in dir/arm.smd" -o out/arm.dmx --depfile fail.d 2>/dev/null
	check "no depfile when a file failed" "1 no" "$? $([ -e fail.d ] && echo yes || echo no)"
	;;

info)
	"$smdmx" info "$sample/arm.smd" >"$tmp/info"
	check "info exits 0" 0 $?
	check "info kind" "$sample/arm.smd: reference smd, version 1" "$(head -n 1 "$tmp/info")"
	check "info joints" "  joints 2" "$(sed -n 2p "$tmp/info")"
	check "info corner fields" "  corner fields (meshes holding them): position 1, normal 1, UV 1, weight 1, joint 1, balance 0, wrinkle 0" \
		"$(sed -n 6p "$tmp/info")"
	"$smd2dmx" "$sample/arm_wave.smd" -o "$tmp/wave.dmx" --target sfm
	"$smdmx" info --json "$tmp/wave.dmx" >"$tmp/info.json"
	check "info --json exits 0" 0 $?
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["kind"], d["encoding"], d["encoding_version"], d["format_version"], d["joints"], d["clips"][0]["name"], d["clips"][0]["frames"], d["clips"][0]["frame_rate"])' "$tmp/info.json")
	check "info --json parses, with its values" "animation dmx binary 5 18 2 arm_wave 11 30" "$got"
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["corner_fields"])' "$tmp/info.json")
	check "info --json corner fields" "{'position': 0, 'normal': 0, 'UV': 0, 'weight': 0, 'joint': 0, 'balance': 0, 'wrinkle': 0}" "$got"
	"$smdmx" info --json "$root/testdata/kv2/ok/layout.dmx" >"$tmp/other.json"
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["kind"], d["model"])' "$tmp/other.json")
	check "info --json of a DMX that is no model" "dmx None" "$got"
	"$smdmx" info "$root/testdata/bad/bad_number.smd" 2>"$tmp/err" >/dev/null
	check "info of a bad file" 1 $?
	check "info error format" "$root/testdata/bad/bad_number.smd:7:5: error: expected position y" "$(cat "$tmp/err")"
	"$smdmx" info 2>/dev/null
	check "info without a file" 2 $?
	if [ -n "$windows" ]; then
		echo "note: Windows names are UTF-16, never bytes that are not UTF-8: not tested there"
	else
	latin1=$(printf '%s/w\351"q.smd' "$tmp")
	cp "$sample/arm_wave.smd" "$latin1"
	"$smdmx" info --json "$latin1" >"$tmp/latin1.json"
	got=$(PYTHONIOENCODING=utf-8 python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); print(d["file"].endswith("w\ufffd\"q.smd"), d["clips"][0]["name"])' "$tmp/latin1.json")
	check "info --json: a name that is not UTF-8 still parses" "True $(printf 'w\357\277\275"q')" "$got"
	fi
	"$smdmx" dump 2>/dev/null
	check "dump without a file" 2 $?
	;;

diff)
	# a vertex of 70 weight links: two models that differ only in the 65th link's weight are
	# different (the comparison once kept 64 links a corner)
	many_links() { # the 65th link's weight: $1
		printf 'version 1\nnodes\n'
		i=0
		while [ $i -lt 70 ]; do printf '%d "b%d" -1\n' $i $i; i=$((i + 1)); done
		printf 'end\nskeleton\ntime 0\n'
		i=0
		while [ $i -lt 70 ]; do printf '%d 0 0 0 0 0 0\n' $i; i=$((i + 1)); done
		printf 'end\ntriangles\nm\n0 0 0 0 0 0 1 0 0 70'
		i=0
		while [ $i -lt 70 ]; do
			if [ $i -eq 64 ]; then printf ' %d %s' $i "$1"; else printf ' %d 0.01' $i; fi
			i=$((i + 1))
		done
		printf '\n0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\nend\n'
	}
	many_links 0.01 >"$tmp/links_a.smd"
	many_links 0.02 >"$tmp/links_b.smd"
	"$smdmx" diff "$tmp/links_a.smd" "$tmp/links_a.smd" -q 2>"$tmp/err"
	check "diff of a 70-link vertex with itself: equal" "0:" "$?:$(cat "$tmp/err")"
	"$smdmx" diff "$tmp/links_a.smd" "$tmp/links_b.smd" >"$tmp/out" 2>"$tmp/err"
	check "diff of two models differing in a 65th link: different, exit 1" "1:1" "$?:$(grep -c 'weight' "$tmp/out")"
	# a comparison that cannot be made is trouble (2), said, never a difference (1)
	f=$root/testdata/bad/fuzz_frame_rate_over_int32.dmx
	"$smdmx" diff "$f" "$f" >"$tmp/out" 2>"$tmp/err"
	check "diff of a clip past the comparison's limits: status 2, said, no difference counted" \
		"2::smdmx: error: clip 'Z_Axis': too many frames to compare (144057542000625537 frames of 1 joints; the limit is 2^26 bone poses)" \
		"$?:$(cat "$tmp/out"):$(cat "$tmp/err")"
	# two QCs: their models as their files hold them, as a report's row compares them; a QC
	# against a model file, refused with what to do
	parts=$root/testdata/qc/parts
	mkdir "$tmp/qa" "$tmp/qb"
	cp "$parts"/*.smd "$parts/parts.qc" "$tmp/qa/"
	cp "$parts"/*.smd "$tmp/qb/"
	sed 's/^\$scale 2$/$scale 3/' "$parts/parts.qc" >"$tmp/qb/parts.qc"
	"$smdmx" diff "$parts/parts.qc" "$tmp/qa/parts.qc" >"$tmp/out" 2>"$tmp/err"
	check "diff of a QC and its copy: equal (two meshes of one name said)" "0::$parts/parts.qc: note: 2 meshes are named 'base': they pair with the other file's of that name in their order" "$?:$(cat "$tmp/out"):$(cat "$tmp/err")"
	"$smdmx" diff "$parts/parts.qc" "$tmp/qb/parts.qc" >"$tmp/out" 2>/dev/null
	check "diff of two QCs of another \$scale: the files' numbers alike, the attachment the scale read differs" \
		"1:attachment 'tip' differs|1 difference" "$?:$(tr '\n' '|' <"$tmp/out" | sed 's/|$//')"
	printf 'version 1\nnodes\n0 "root" -1\n1 "hat" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 0 3 0 0 0\nend\ntriangles\nfelt\n1 0 0 2 0 0 1 0 0\n1 1 0 2 0 0 1 1 0\n1 0 1 2 0 0 1 0 1\nend\n' >"$tmp/qb/hat.smd"
	"$smdmx" diff "$parts/parts.qc" "$tmp/qb/parts.qc" --max 1 >"$tmp/out" 2>/dev/null
	check "diff of two QCs whose files differ: different, exit 1" "1:joint 'hat': bind position (0 0 2) vs (0 0 3)|... and 1 more differences (--max)|2 differences" \
		"$?:$(tr '\n' '|' <"$tmp/out" | sed 's/|$//')"
	"$smdmx" diff "$parts/parts.qc" "$parts/base.smd" 2>"$tmp/err"
	check "diff of a QC and a model file: refused" "2:smdmx: error: diff compares a QC with a QC (their models as their files hold them), not with the model file '$parts/base.smd': give the QC's model file, or convert the QC first (smd2dmx --qc)" \
		"$?:$(cat "$tmp/err")"
	"$smdmx" diff "$parts/parts.qc" "$tmp/nothere.qc" 2>"$tmp/err"
	check "diff of a QC that is not there: exit 2, said" "2:$tmp/nothere.qc: error: cannot open '$tmp/nothere.qc'" "$?:$(cat "$tmp/err")"
	# bones of one name pair in their order: a file equals itself, and the name is said once
	printf 'version 1\nnodes\n0 "root" -1\n1 "bone" 0\n2 "bone" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 1 0 0 0 0 0\n2 0 1 0 0 0 0\nend\ntriangles\nm\n1 0 0 0 0 0 1 0 0\n2 1 0 0 0 0 1 1 0\n1 0 1 0 0 0 1 0 1\nend\n' >"$tmp/dup.smd"
	"$smdmx" diff "$tmp/dup.smd" "$tmp/dup.smd" >"$tmp/out" 2>"$tmp/err"
	check "a file with two bones of one name equals itself, said once" "0::$tmp/dup.smd: note: 2 bones are named 'bone': they pair with the other file's of that name in their order" \
		"$?:$(cat "$tmp/out"):$(cat "$tmp/err")"
	# two clips of one name that differ (the second's lower arm 3 units up): the same
	sed 's/^1 \([^ ]*\) \([^ ]*\) [^ ]* /1 \1 \2 3 /' "$sample/arm_wave.smd" >"$tmp/run.smd"
	"$smd2dmx" --clips "$sample/arm_wave.smd" "$tmp/run.smd" -o "$tmp/wr.dmx"
	sed 's/"name" "string" "run"/"name" "string" "arm_wave"/' "$tmp/wr.dmx" >"$tmp/ww.dmx"
	"$smdmx" diff "$tmp/ww.dmx" "$tmp/ww.dmx" >"$tmp/out" 2>"$tmp/err"
	check "a file with two clips of one name equals itself, said once" "0::$tmp/ww.dmx: note: 2 clips are named 'arm_wave': they pair with the other file's of that name in their order" \
		"$?:$(cat "$tmp/out"):$(cat "$tmp/err")"
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/arm.dmx"
	"$smdmx" diff "$sample/arm.smd" "$tmp/arm.dmx" >"$tmp/out"
	check "SMD and its DMX: no difference" 0 $?
	check "no difference: no output" "" "$(cat "$tmp/out")"
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/arm2.dmx" --scale 2 --target source2
	"$smdmx" diff "$sample/arm.smd" "$tmp/arm2.dmx" --max 2 >"$tmp/out"
	check "scaled: different" 1 $?
	check "scaled: every difference counted, --max listed" "joint 'lower arm': bind position (10 0 0) vs (20 0 0)|mesh 'arm': a polygon of material 'arm_skin': the corner at (10 2 -2) differs in its position|... and 19 more differences (--max)|21 differences|" "$(tr '\n' '|' <"$tmp/out")"
	"$smdmx" diff "$sample/arm.smd" "$tmp/arm2.dmx" --strict >"$tmp/out"
	check "--strict: the ordered comparison, a mesh's first difference" "joint 'lower arm': bind position (10 0 0) vs (20 0 0)|mesh 'arm' polygon 0: positions differ|2 differences|" "$(tr '\n' '|' <"$tmp/out")"
	tr -d '\r' <"$sample/arm_wave.smd" | sed '/^time 5$/{n;n;s/^1 10.000000 0.000000 0.000000 0.000000 0.000000 .*/1 10.000000 0.000000 0.000000 0.000000 0.000000 1.000000/}' >"$tmp/wave5.smd"
	"$smd2dmx" "$sample/arm_wave.smd" -o "$tmp/wave.dmx" --encoding binary
	"$smdmx" diff "$tmp/wave.dmx" "$tmp/wave5.smd" >"$tmp/out"
	check "one frame changed" 1 $?
	check "one frame changed: where" "clip 'arm_wave' joint 'lower arm': orientations differ at frame 5 (1 of 11 frames differ)|1 difference|" "$(tr '\n' '|' <"$tmp/out")"
	"$smdmx" diff "$tmp/wave.dmx" "$tmp/wave5.smd" -q >"$tmp/out"
	check "-q: exit only" "1 " "$? $(cat "$tmp/out")"
	"$smdmx" diff "$tmp/wave.dmx" "$sample/arm_wave.smd" --rotation-tolerance 1e-5
	check "animation DMX and its SMD" 0 $?
	"$smdmx" diff "$sample/arm_wave.smd" "$sample/arm.smd" >"$tmp/out"
	check "animation vs reference" "mesh 'arm' only in the second|clip 'arm_wave' only in the first|2 differences|" "$(tr '\n' '|' <"$tmp/out")"
	# One change of each kind, and the diff names exactly that, once
	"$smd2dmx" "$sample/arm.smd" "$sample/arm.vta" -o "$tmp/af.dmx" -q
	"$smd2dmx" "$sample/arm_wave.smd" -o "$tmp/w.dmx" -q
	awk 'NR == 21 { $2 = $2 + 1 } { print }' "$sample/arm.smd" >"$tmp/moved.smd"
	check "a vertex moved" "mesh 'arm': a polygon of material 'arm_skin': the corner at (0 2 -2) differs in its position|1 difference|" \
		"$("$smdmx" diff "$tmp/af.dmx" "$tmp/moved.smd" "$sample/arm.vta" | tr '\n' '|')"
	awk 'NR == 22 { $12 = "0.600000"; $14 = "0.400000" } { print }' "$sample/arm.smd" >"$tmp/weight.smd"
	check "a weight changed" "mesh 'arm': a polygon of material 'arm_skin': the corner at (10 2 -2) differs in its weights|1 difference|" \
		"$("$smdmx" diff "$tmp/af.dmx" "$tmp/weight.smd" "$sample/arm.vta" | tr '\n' '|')"
	awk '/^time 3/ { f = 1 } f == 1 && /^1 / { $7 = $7 + 0.1; f = 0 } { print }' "$sample/arm_wave.smd" >"$tmp/key.smd"
	check "a key changed" "clip 'arm_wave' joint 'lower arm': orientations differ at frame 3 (1 of 11 frames differ)|1 difference|" \
		"$("$smdmx" diff "$tmp/w.dmx" "$tmp/key.smd" | tr '\n' '|')"
	sed 's/"upper arm"/"shoulder"/' "$sample/arm.smd" >"$tmp/renamed.smd"
	check "a bone renamed" "joint 'upper arm' renamed 'shoulder'|1 difference|" \
		"$("$smdmx" diff "$tmp/af.dmx" "$tmp/renamed.smd" "$sample/arm.vta" | tr '\n' '|')"
	awk 'NR == 73 { $3 = "-3.000000" } { print }' "$sample/arm.vta" >"$tmp/shape.vta"
	check "a shape changed" "flex shape 'bulge': 1 corners move otherwise (the first at (10 -2 -2))|1 difference|" \
		"$("$smdmx" diff "$tmp/af.dmx" "$sample/arm.smd" "$tmp/shape.vta" | tr '\n' '|')"
	# stereo balance and wrinkle, per corner (the diff once compared neither): a face whose QC
	# makes stereo pairs, and the same with a wrinkle field, each with three values changed
	"$smd2dmx" --qc "$root/testdata/qc/face/face.qc" -o "$tmp/st.dmx" --encoding keyvalues2 -q
	awk '/^\t*"balance" "float_array"/ && !d { sub(/\[ "1", "1", "1"/, "[ \"0.9\", \"0.8\", \"0.7\""); d = 1 } { print }' "$tmp/st.dmx" >"$tmp/st_b.dmx"
	check "a balance changed" "mesh 'face': a polygon of material 'face': the corner at (-2 0 1) differs in its balance|1" \
		"$("$smdmx" diff "$tmp/st.dmx" "$tmp/st_b.dmx" | head -n 1)|$("$smdmx" diff -q "$tmp/st.dmx" "$tmp/st_b.dmx"; echo $?)"
	# a wrinkle field beside the balance, the same values; then three of them changed
	awk '{ print } /^\t*"balance" "float_array"/ { w = $0; sub(/"balance"/, "\"wrinkle\"", w); print w }
		/^\t*"balanceIndices"/ { w = $0; sub(/"balanceIndices"/, "\"wrinkleIndices\"", w); print w }' "$tmp/st.dmx" |
		sed 's/"jointIndices", "balance" \]/"jointIndices", "balance", "wrinkle" ]/' >"$tmp/st_w.dmx"
	awk '/^\t*"wrinkle" "float_array"/ { sub(/\[ "1", "1", "1"/, "[ \"0.9\", \"0.8\", \"0.7\"") } { print }' "$tmp/st_w.dmx" >"$tmp/st_w2.dmx"
	check "a wrinkle changed; one side without it" "0 mesh 'face': a polygon of material 'face': the corner at (-2 0 1) differs in its wrinkle|1 1" \
		"$("$smdmx" diff -q "$tmp/st_w.dmx" "$tmp/st_w.dmx"; echo $?) $("$smdmx" diff "$tmp/st_w.dmx" "$tmp/st_w2.dmx" | head -n 1)|$("$smdmx" diff -q "$tmp/st_w.dmx" "$tmp/st_w2.dmx"; echo $?) $("$smdmx" diff -q "$tmp/st.dmx" "$tmp/st_w.dmx"; echo $?)"
	# two animations compare by their frames: a DMX animation whose bind pose is not its first
	# frame (an SMD's is) is the same animation to studiomdl, which reads no bind pose from one
	sed 's/"position" "vector3" "10 0 0"/"position" "vector3" "12 0 0"/' "$root/testdata/model/arm_wave.dmx" >"$tmp/bind.dmx"
	"$dmx2smd" "$tmp/bind.dmx" -o "$tmp/bind.smd" 2>"$tmp/err"
	"$smdmx" diff "$tmp/bind.dmx" "$tmp/bind.smd" >"$tmp/out" 2>&1
	check "an animation's bind pose: said by dmx2smd, not a difference" "0:1" "$?:$(grep -c "a joint whose bind pose is another ('lower arm')" "$tmp/err")"
	# an SMD's frame rate: --fps
	"$smd2dmx" "$sample/arm_wave.smd" --fps 24 -o "$tmp/w24.dmx" -q
	check "an animation at 24 fps: the same with --fps 24, not without" "0 1" \
		"$("$smdmx" diff -q "$tmp/w24.dmx" "$sample/arm_wave.smd" --fps 24; echo $?) $("$smdmx" diff -q "$tmp/w24.dmx" "$sample/arm_wave.smd"; echo $?)" 
	# every SMD of the corpus and the DMX smd2dmx makes of it: no difference
	if [ -d "$corpus" ]; then
		n=0 bad=""
		# (converted by one start: a start a file cost hundreds of Wine starts; a file whose
		# output another's would be, in any case, alone)
		corpus_files '*.smd' | sed "s|^$corpus/||" | awk '{ s = tolower($0); sub(/\.[^./]*$/, "", s); print (seen[s]++ ? "2 " : "1 ") $0 }' >"$tmp/smds"
		sed -n 's/^1 //p' "$tmp/smds" | while IFS= read -r f; do mkdir -p "$tmp/cs/$(dirname "$f")" && cp "$corpus/$f" "$tmp/cs/$f"; done
		"$smd2dmx" -q -k -r "$tmp/cs" -d "$tmp/cd" 2>/dev/null
		# (under Wine every 4th file is compared: a start there costs a tenth of a second and
		# more, 108 s of the group for 300; the Linux runs compare each, and the two builds'
		# outputs of every corpus file are compared byte for byte by tests/same_outputs.sh)
		every=1 k=0
		[ -n "$windows" ] && every=4
		while IFS= read -r line; do
			k=$((k + 1))
			[ "$every" -gt 1 ] && [ $((k % every)) != 1 ] && continue
			f=${line#? } out="$tmp/cd/${line#? }"
			out="${out%.*}.dmx"
			if [ "${line%% *}" = 2 ]; then
				out="$tmp/c2.dmx"
				"$smd2dmx" -q "$corpus/$f" -o "$out" -f 2>/dev/null || continue
			fi
			[ -f "$out" ] || continue
			n=$((n + 1))
			# what differs said
			"$smdmx" diff "$corpus/$f" "$out" >"$tmp/c.diff" 2>"$tmp/err" || bad="$bad $f: $(head -n 3 "$tmp/c.diff" "$tmp/err" | tr '\n' ' ')"
		done <"$tmp/smds"
		check "every corpus SMD and its DMX ($n): no difference" "" "$bad"
		[ -n "${SMDMX_VERBOSE:-}" ] && echo "corpus SMDs compared: $n"
	else
		echo "skipped the corpus SMDs: there is no corpus at $corpus"
	fi
	"$smdmx" diff "$sample/arm.smd" "$sample/arm.smd" "$sample/arm.smd" 2>/dev/null
	check "diff of three files" 2 $?
	"$smdmx" diff "$sample/arm.smd" "$root/testdata/bad/bad_number.smd" 2>"$tmp/err"
	check "diff of an unreadable file" 2 $?
	check "diff: the reading error" "$root/testdata/bad/bad_number.smd:7:5: error: expected position y" "$(cat "$tmp/err")"
	;;

check)
	"$smdmx" check "$sample/arm.smd" 2>"$tmp/err"
	check "a clean model" 0 $?
	check "a clean model: nothing said" "" "$(cat "$tmp/err")"
	# 130 bones, a 4-link vertex, weights over 1, a degenerate and a duplicated triangle.
	{
		echo "version 1"; echo "nodes"
		i=0; while [ $i -lt 130 ]; do echo "$i \"b$i\" -1"; i=$((i + 1)); done
		echo "end"; echo "skeleton"; echo "time 0"
		i=0; while [ $i -lt 130 ]; do echo "$i 0 0 0 0 0 0"; i=$((i + 1)); done
		echo "end"; echo "triangles"
		echo "m"; echo "0 0 0 0 0 0 1 0 0 4 1 0.25 2 0.25 3 0.25 4 0.25"; echo "0 1 0 0 0 0 1 0 0"; echo "0 0 1 0 0 0 1 0 0"
		echo "m"; echo "0 0 0 0 0 0 1 0 0 4 1 0.25 2 0.25 3 0.25 4 0.25"; echo "0 1 0 0 0 0 1 0 0"; echo "0 0 1 0 0 0 1 0 0"
		echo "m"; echo "0 0 0 0 0 0 1 0 0"; echo "0 0 0 0 0 0 1 0 0"; echo "0 0 1 0 0 0 1 0 0"
		echo "m"; echo "0 5 5 5 0 0 1 0 0 2 1 0.7 2 0.7"; echo "0 6 5 5 0 0 1 0 0"; echo "0 5 6 5 0 0 1 0 0"
		echo "end"
	} >"$tmp/lint.smd"
	"$smdmx" check "$tmp/lint.smd" 2>"$tmp/err"
	check "errors found" 1 $?
	check "bones over the limit, at the first past it" 1 "$(grep -c "^$tmp/lint.smd:131:1: error: 130 bones; sdk2013 takes at most 128 (the first past them here)$" "$tmp/err")"
	check "links over the limit, at the first" 1 "$(grep -c "^$tmp/lint.smd:268:1: warning: mesh 'lint': 1 vertices have more than 3 weight links (up to 4; the first here): a conversion keeps the largest 3; reduce them in the source if the others matter$" "$tmp/err")"
	check "unnormalised, at the first" 1 "$(grep -c "^$tmp/lint.smd:280:1: warning: mesh 'lint': 1 vertices have weights that do not sum to 1 (the first here): studiomdl scales them; check the weights in the source$" "$tmp/err")"
	check "degenerate, at the first" 1 "$(grep -c "^$tmp/lint.smd:276:1: warning: mesh 'lint': 1 degenerate triangles (no area; the first here): they draw nothing; remove them in the source$" "$tmp/err")"
	check "duplicate, at the repeat" 1 "$(grep -c "^$tmp/lint.smd:272:1: warning: mesh 'lint': 1 duplicate triangles (the first repeat here): each is drawn; remove the repeats in the source$" "$tmp/err")"
	# A material's finding is at the first triangle that has it
	printf 'version 1\nnodes\n0 "a" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nma"t\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n' >"$tmp/mq.smd"
	"$smdmx" check "$tmp/mq.smd" 2>"$tmp/err2"
	check "check: a material's finding at its first triangle" "1:$tmp/mq.smd:14:1: error: material 'ma\"t': a double quote in its name" "$?:$(head -n 1 "$tmp/err2")"
	# Two-sided geometry (a triangle and its reverse, normals reversed) is no duplicate; the
	# reverse with the same normals, and a rotation of the same winding, are
	head='version 1\nnodes\n0 "a" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\n'
	printf "${head}m\n0 0 0 0 0 0 -1 0 0\n0 0 1 0 0 0 -1 0 1\n0 1 0 0 0 0 -1 1 0\nend\n" >"$tmp/two.smd"
	"$smdmx" check "$tmp/two.smd" 2>"$tmp/err2"
	check "check: two-sided faces are no duplicates" "0:" "$?:$(cat "$tmp/err2")"
	printf "${head}m\n0 0 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 1\n0 1 0 0 0 0 1 1 0\nm\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\n0 0 0 0 0 0 1 0 0\nend\n" >"$tmp/dup3.smd"
	"$smdmx" check "$tmp/dup3.smd" 2>"$tmp/err2"
	check "check: a reverse with the same normals and a rotation are duplicates" "0:$tmp/dup3.smd:14:1: warning: mesh 'dup3': 2 duplicate triangles (the first repeat here): each is drawn; remove the repeats in the source" \
		"$?:$(head -n 1 "$tmp/err2")"
	check "summary" "$tmp/lint.smd: 1 error, 5 warnings" "$(tail -n 1 "$tmp/err")"
	"$smdmx" check "$tmp/lint.smd" --target csgo 2>"$tmp/err"
	check "csgo takes 256 bones" "0 0" "$? $(grep -c 'bones' "$tmp/err")"
	"$smdmx" check "$tmp/lint.smd" --target source2 2>"$tmp/err"
	check "source2 takes 130 bones and 4 links" "0 0 0" "$? $(grep -c 'bones' "$tmp/err") $(grep -c 'weight links' "$tmp/err")"
	# Names QC files cannot hold, and GoldSrc's material names.
	tr -d '\r' <"$sample/arm.vta" | sed 's/^time 1 # bulge$/time 1 # big bulge/' >"$tmp/spaced.vta"
	"$smd2dmx" "$sample/arm.smd" --vta "$tmp/spaced.vta" -o "$tmp/spaced.dmx"
	"$smdmx" check "$tmp/spaced.dmx" 2>"$tmp/err"
	check "a space in a flex name" 1 $?
	check "flex name message, at its mesh" "$tmp/spaced.dmx:52:3: error: flex shape 'big bulge': a space, quote or control character in its name (QC files cannot hold it)" "$(grep "flex shape" "$tmp/err")"
	# the encoding and model format against the target's tools
	check "a text DMX of model 18 for sdk2013, at the header" "$tmp/spaced.dmx:1:1: warning: keyvalues2: sdk2013's studiomdl may want binary 2 (not every studiomdl reads text DMX); use --target sdk2013 if it refuses the file|$tmp/spaced.dmx:1:1: warning: model format 18: sdk2013's tools expect model format 1; use --target sdk2013 to write it|" \
		"$(grep -e 'studiomdl may want' -e 'model format 18' "$tmp/err" | tr '\n' '|')"
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/s2.dmx" --target source2 -q
	"$smdmx" check "$tmp/s2.dmx" --target tf2 2>"$tmp/err"
	check "binary 9 for tf2: an error, at the header" "1 $tmp/s2.dmx:1:1: error: binary 9: tf2's tools read binary up to 2 (--target tf2 writes it)" "$? $(grep 'binary 9' "$tmp/err")"
	"$smdmx" check "$tmp/s2.dmx" --target source2 2>"$tmp/err"
	check "binary 9, model 22 for source2: nothing to say" "0 " "$? $(cat "$tmp/err")"
	# a finding's place: the node line of an SMD, the element's line in keyvalues2, its path in binary
	printf 'version 1\nnodes\n0 "root" -1\n1 "root" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 0 0 0 0 0\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\nend\n' >"$tmp/twice.smd"
	"$smdmx" check "$tmp/twice.smd" 2>"$tmp/err"
	check "SMD: a bone used twice, at its node line" 1 "$(grep -c "^$tmp/twice.smd:4:1: error: bone 'root': the name is used twice" "$tmp/err")"
	"$smd2dmx" "$tmp/twice.smd" -o "$tmp/twice.dmx" -q
	"$smdmx" check "$tmp/twice.dmx" --target sfm 2>"$tmp/err"
	check "keyvalues2: at the element's line" 1 "$(grep -c "^$tmp/twice.dmx:[0-9]*:1: error: bone 'root': the name is used twice" "$tmp/err")"
	"$smdmx" convert "$tmp/twice.dmx" -o "$tmp/twiceb.dmx" --encoding binary
	"$smdmx" check "$tmp/twiceb.dmx" --target sfm 2>"$tmp/err"
	check "binary: the element's path" "$tmp/twiceb.dmx: error: root.skeleton.jointList[1] (DmeJoint 'root'): bone 'root': the name is used twice (studiomdl matches bones by name)" \
		"$(grep "used twice" "$tmp/err")"
	long=$(printf 'm%.0s' $(seq 70))
	tr -d '\r' <"$sample/arm.smd" | sed "s/^arm_skin\$/$long/" >"$tmp/long.smd"
	"$smdmx" check "$tmp/long.smd" --target goldsrc 2>"$tmp/err"
	check "a GoldSrc material name too long" 1 $?
	"$smdmx" check "$tmp/long.smd" 2>/dev/null
	check "the same name is fine for Source" 0 $?
	# jointCount that does not fit the weights.
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/jc.dmx"
	sed 's/"jointCount" "int" "[0-9]*"/"jointCount" "int" "3"/' "$tmp/jc.dmx" >"$tmp/jc3.dmx"
	"$smdmx" check "$tmp/jc3.dmx" 2>"$tmp/err"
	check "jointCount against the weights" 1 $?
	check "jointCount message" 1 "$(grep -c "error: vertex data '.*': jointCount 3 does not fit the weights" "$tmp/err")"
	# A gap in the frames.
	tr -d '\r' <"$sample/arm_wave.smd" | sed '/^time 3$/,/^time 4$/{/^time 4$/!d}' >"$tmp/gap.smd"
	"$smdmx" check "$tmp/gap.smd" 2>"$tmp/err"
	check "missing frames: a warning" 0 $?
	check "missing frames: said" 1 "$(grep -c 'warning: .*frame' "$tmp/err")"
	# A frame listed again: read as studiomdl reads it (the later lines win), with a warning;
	# one before the first frame is refused, as studiomdl refuses it.
	tr -d '\r' <"$sample/arm_wave.smd" | sed 's/^time 4$/time 3/' >"$tmp/repeat.smd"
	"$smdmx" check "$tmp/repeat.smd" 2>"$tmp/err"
	check "a repeated frame: a warning" 0 $?
	check "a repeated frame: where" "$tmp/repeat.smd:19:6: warning: frame 3 after frame 3 in 'skeleton': read as studiomdl reads it, the bone lines of a frame listed again replacing the earlier ones (a frame in a gap starts as the frame before it); write the frames once each, in order, to be sure of what plays" "$(grep 'frame 3 after' "$tmp/err")"
	tr -d '\r' <"$sample/arm_wave.smd" | sed 's/^time 4$/time -1/' >"$tmp/before.smd"
	"$smdmx" check "$tmp/before.smd" 2>"$tmp/err"
	check "a frame before the first: an error" 1 $?
	check "a frame before the first: where" "$tmp/before.smd:19:6: error: frame -1 comes before the first frame, 0, of 'skeleton' (studiomdl refuses it too): renumber the frames from -1" "$(cat "$tmp/err")"
	"$smdmx" check "$tmp/lint.smd" --target quake 2>/dev/null
	check "check: unknown target" 2 $?
	;;

install)
	if [ -n "$windows" ]; then
		echo "skipped: manual pages and bash completion are installed on POSIX systems; Windows gets the release zip (tools/release-windows.sh)"
		exit 77
	fi
	# meson install puts the programs, the manual pages and the completions in place.
	DESTDIR="$tmp/inst" meson install -C "$build" --no-rebuild >/dev/null 2>&1
	check "meson install" 0 $?
	for p in smdmx smd2dmx dmx2smd; do
		page=$(find "$tmp/inst" -path "*/man1/$p.1" | head -n 1)
		check "$p.1 installed" yes "$([ -n "$page" ] && echo yes)"
		[ -n "$page" ] || continue
		check "$p.1 names its program" 1 "$(grep -c "^\.TH $(echo "$p" | tr a-z A-Z) 1" "$page")"
		check "$p.1 documents the exit codes" 1 "$(grep -c '^\.SH EXIT STATUS' "$page")"
		if command -v groff >/dev/null; then
			check "$p.1 renders without warnings" "" "$(groff -man -Tutf8 -ww -z "$page" 2>&1)"
		fi
		comp=$(find "$tmp/inst" -path "*/bash-completion/completions/$p" | head -n 1)
		check "completion for $p installed" yes "$([ -n "$comp" ] && echo yes)"
	done
	# The library as a program outside the tree uses it: every header of include/smdmx/ is
	# installed and compiles on its own with what pkg-config says, and a program that calls
	# the library links and runs against the installed one (not against a sanitized library,
	# whose runtime a program would have to load first: the plain build's suite does it).
	pc=$(find "$tmp/inst" -name smdmx.pc | head -n 1)
	check "smdmx.pc installed" yes "$([ -n "$pc" ] && echo yes)"
	sanitize=$(meson introspect "$build" --buildoptions 2>/dev/null | tr '{' '\n' | grep '"name": "b_sanitize"' | sed -n 's/.*"value": "\([^"]*\)".*/\1/p')
	if [ -n "$pc" ] && command -v pkg-config >/dev/null && command -v cc >/dev/null; then
		export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/inst"
		flags=$(pkg-config --cflags smdmx)
		libs=$(pkg-config --libs smdmx)
		for h in "$root"/include/smdmx/*.h; do
			name=$(basename "$h")
			check "smdmx/$name installed" yes "$([ -f "$(find "$tmp/inst" -path "*/include/smdmx/$name" | head -n 1)" ] && echo yes)"
			printf '#include <smdmx/%s>\nint main(void) { return 0; }\n' "$name" >"$tmp/h.c"
			# shellcheck disable=SC2086 # pkg-config's words are separate arguments
			cc -std=c11 -Wall -Wextra -Werror -pedantic $flags -c "$tmp/h.c" -o "$tmp/h.o" 2>"$tmp/err"
			check "smdmx/$name compiles on its own, installed" "0 " "$? $(head -n 3 "$tmp/err")"
		done
		if [ -n "$sanitize" ] && [ "$sanitize" != none ]; then
			echo "note: a build with -Db_sanitize=$sanitize: no program is linked against the installed library"
		else
			# the example of doc/library.md, as a user copies it
			awk '/^```c$/ { n++; on = n == 1; next } /^```$/ { on = 0 } on' "$root/doc/library.md" >"$tmp/p.c"
			check "doc/library.md has its example" yes "$(grep -q smdmx_smd_read_file "$tmp/p.c" && echo yes)"
			# shellcheck disable=SC2086
			cc -std=c11 -Wall -Wextra -Werror -pedantic $flags "$tmp/p.c" -o "$tmp/p" $libs 2>"$tmp/err"
			check "doc/library.md's example builds with pkg-config smdmx" "0 " "$? $(head -n 3 "$tmp/err")"
			libdir=$(dirname "$(find "$tmp/inst" -name 'libsmdmx.so*' | head -n 1)")
			out=$(LD_LIBRARY_PATH="$libdir" "$tmp/p" "$sample/arm.smd" "$tmp/p.dmx" 2>&1)
			check "and runs with the installed library" "0 2 joints, 1 meshes" "$? $out"
			check "writing a binary DMX" "<!-- dmx encoding binary 5 format model 18 -->" "$(head -n 1 "$tmp/p.dmx" | tr -d '\r')"
			LD_LIBRARY_PATH="$libdir" "$tmp/p" "$root/testdata/bad/bad_number.smd" "$tmp/q.dmx" >/dev/null 2>"$tmp/err"
			check "and says a reader's error at its place" "1 $root/testdata/bad/bad_number.smd:7:5: error: expected position y" "$? $(cat "$tmp/err")"
			# the second: a QC's model to a DMX
			awk '/^```c$/ { n++; on = n == 2; next } /^```$/ { on = 0 } on' "$root/doc/library.md" >"$tmp/q.c"
			check "doc/library.md has its QC example" yes "$(grep -q smdmx_qc_model_scene "$tmp/q.c" && echo yes)"
			# shellcheck disable=SC2086
			cc -std=c11 -Wall -Wextra -Werror -pedantic $flags "$tmp/q.c" -o "$tmp/q" $libs 2>"$tmp/err"
			check "the QC example builds" "0 " "$? $(head -n 3 "$tmp/err")"
			out=$(LD_LIBRARY_PATH="$libdir" "$tmp/q" "$root/testdata/qc/face/face.qc" "$tmp/face.dmx" 2>"$tmp/err")
			check "and converts the face's model" "0 6 shapes, 5 controllers, 2 attachments" "$? $out"
			check "saying the QC's warnings at their files" "$root/testdata/qc/face/face_flexes.qci:3: warning: flexpair 'smile' written as two shapes 'smileR' and 'smileL', the same model: beside flex rules a shape is stereo only when a controller of its name says so; nothing to do" \
				"$(head -n 1 "$tmp/err")"
			check "the DMX it wrote reads back" "0" "$("$smdmx" info "$tmp/face.dmx" >/dev/null 2>&1; echo $?)"
			printf '$model "m" "nothere.smd"\n' >"$tmp/nothere.qc"
			LD_LIBRARY_PATH="$libdir" "$tmp/q" "$tmp/nothere.qc" "$tmp/n.dmx" >/dev/null 2>"$tmp/err"
			check "and says a missing file where the QC names it" "1 $tmp/nothere.qc:1:12: error: cannot find '$tmp/nothere.smd' (the file of \$model 'm')" "$? $(cat "$tmp/err")"
			# the third: QC projects converted
			awk '/^```c$/ { n++; on = n == 3; next } /^```$/ { on = 0 } on' "$root/doc/library.md" >"$tmp/r.c"
			check "doc/library.md has its project example" yes "$(grep -q smdmx_projects_convert "$tmp/r.c" && echo yes)"
			# shellcheck disable=SC2086
			cc -std=c11 -Wall -Wextra -Werror -pedantic $flags "$tmp/r.c" -o "$tmp/r" $libs 2>"$tmp/err"
			check "the project example builds" "0 " "$? $(head -n 3 "$tmp/err")"
			out=$(LD_LIBRARY_PATH="$libdir" "$tmp/r" "$tmp/face_out" "$root/testdata/qc/face/face.qc" 2>"$tmp/err")
			check "and converts the face's project" "0 1 converted, 0 copied, 0 missing, 0 failed; 2 QC files written" "$? $out"
			check "what smdmx qc writes" "./.smdmx-written ./face.dmx ./face.qc ./face_flexes.qci " "$(files "$tmp/face_out")"
			"$smdmx" qc "$root/testdata/qc/face/face.qc" --to dmx -d "$tmp/face_qc" -q
			check "the very bytes of smdmx qc's project" "" "$(diff -r "$tmp/face_out" "$tmp/face_qc" 2>&1)"
			out=$(LD_LIBRARY_PATH="$libdir" "$tmp/r" "$tmp/lib_out" -r "$root/testdata/qc/shared/" 2>"$tmp/err")
			check "and a library's QCs below a folder (-r)" "0 3 converted, 0 copied, 0 missing, 0 failed; 5 QC files written" "$? $out"
			"$smdmx" qc -r "$root/testdata/qc/shared/" --to dmx -d "$tmp/lib_qc" -q
			check "the very bytes of smdmx qc -r's library" "" "$(diff -r "$tmp/lib_out" "$tmp/lib_qc" 2>&1)"
			LD_LIBRARY_PATH="$libdir" "$tmp/r" "$tmp/lib_out2" -r "$tmp/nowhere" >/dev/null 2>"$tmp/err"
			check "a folder that is not there: status 1, said" "1 error: cannot read the directory '$tmp/nowhere': No such file or directory" "$? $(cat "$tmp/err")"
			out=$(LD_LIBRARY_PATH="$libdir" "$tmp/r" "$root/testdata/qc/face/out" "$root/testdata/qc/face/face.qc" 2>"$tmp/err")
			check "an output folder inside the projects': status 2, said" "2 projects: error: '$root/testdata/qc/face/out' is inside the project's folder '$root/testdata/qc/face/': write the project elsewhere" \
				"$? $(cat "$tmp/err")"
			mkdir "$tmp/nq"
			cp "$tmp/nothere.qc" "$tmp/nq/"
			LD_LIBRARY_PATH="$libdir" "$tmp/r" "$tmp/nq_out" "$tmp/nq/nothere.qc" >"$tmp/out" 2>"$tmp/err"
			check "a missing model: status 1, said at the QC's line" "1 $tmp/nq/nothere.qc:1:12: error: cannot find '$tmp/nq/nothere.smd' (named by \$model): the QC keeps naming it|0 converted, 0 copied, 1 missing, 0 failed; 1 QC files written" \
				"$? $(head -n 1 "$tmp/err")|$(cat "$tmp/out")"
			# the memory contract, as an embedder meets it (tests/embed_memory.c): every byte a
			# job allocates through the caller's allocator, a limit below its need a clean
			# failure that leaves nothing
			if [ -n "$(ldd --version 2>&1 | grep -i -E 'glibc|gnu libc')" ]; then
				# shellcheck disable=SC2086
				cc -std=c11 -Wall -Wextra -Werror -pedantic $flags "$root/tests/embed_memory.c" -o "$tmp/em" $libs -ldl 2>"$tmp/err"
				check "tests/embed_memory.c builds against the installed library" "0 " "$? $(head -n 3 "$tmp/err")"
				out=$(LD_LIBRARY_PATH="$libdir" "$tmp/em" diff "$sample/arm.smd" "$root/testdata/ok/features.smd" 2>&1)
				check "a diff with the caller's allocator: every byte through it, none left" \
					"0 diff: 26 differences, 0 direct (0 bytes), 0 bytes left" \
					"$? $(printf '%s\n' "$out" | sed -n 's/^\(diff: [0-9]* differences\), .* allocations through the allocator ([0-9]* bytes at most), \(.*\)$/\1, \2/p')"
				check "and under a limit below its need: out of memory, nothing left" "failed (out of memory), 0 left" \
					"$(printf '%s\n' "$out" | sed -n 's/^diff under a limit of [0-9]* bytes: \(.*\), [0-9]* bytes at most, \(.*\)$/\1, \2/p')"
				check "nothing in the diff's contract failed" "" "$(printf '%s\n' "$out" | grep FAILED)"
				# one conversion each way a model file goes (smdmx_convert_way: 0 SMD to DMX, 2 DMX to
				# DMX, 3 DMX to SMD, 4 SMD to SMD); then of a model large enough to be read and
				# written in parts on two threads (their threads and locks the job's memory too)
				"$build/tools/gen_smd" reference 20000 "$tmp/em_big.smd"
				"$build/smd2dmx" -q "$tmp/em_big.smd" -o "$tmp/em_big.dmx" -f
				for w in "0 $sample/arm.smd em.dmx" "2 $root/testdata/model/arm.dmx em.dmx" "3 $root/testdata/model/arm_wave.dmx em.smd" "4 $sample/arm.smd em.smd" \
					"0 $tmp/em_big.smd em.dmx" "2 $tmp/em_big.dmx em.dmx" "3 $tmp/em_big.dmx em.smd" "4 $tmp/em_big.smd em.smd"; do
					way=${w%% *} rest=${w#* }
					out=$(cd "$tmp" && LD_LIBRARY_PATH="$libdir" "$tmp/em" convert "$way" "${rest%% *}" "${rest#* }" 2>&1)
					check "convert way $way of $(basename "${rest%% *}") with the caller's allocator: every byte through it, none left" \
						"0 converted, 0 direct (0 bytes), 0 bytes left" \
						"$? $(printf '%s\n' "$out" | sed -n 's/^convert: \([a-z]*\), .* allocations through the allocator ([0-9]* bytes at most), \(.*\)$/\1, \2/p')"
					check "and under a limit below its need: out of memory, said, no file, nothing left" \
						"failed (out of memory), no output|0 bytes left" \
						"$(printf '%s\n' "$out" | sed -n 's/^convert under a limit of [0-9]* bytes: \(.*\), [0-9]* bytes at most, \(.*\)$/\1, \2/p; s/^convert under the limit: //p' | paste -sd'|')"
				done
				rm -f "$tmp/em_big.smd" "$tmp/em_big.dmx"
				# a batch of a folder's models (the batch's own plan, jobs and messages too)
				for d in "$sample" "$root/testdata/model"; do
					out=$(LD_LIBRARY_PATH="$libdir" "$tmp/em" batch "$d" "$tmp/em_batch" 2>&1)
					check "a batch of $(basename "$d")/ with the caller's allocator: every byte through it, none left" \
						"0 0 failed, 0 direct (0 bytes), 0 bytes left" \
						"$? $(printf '%s\n' "$out" | sed -n 's/^batch: [0-9]* jobs, \([0-9]* failed\), .* allocations through the allocator ([0-9]* bytes at most), \(.*\)$/\1, \2/p')"
					check "and under a limit below its need: out of memory, said, nothing left" "failed, out of memory said, 0 left" \
						"$(printf '%s\n' "$out" | sed -n 's/^batch under a limit of [0-9]* bytes: \(.*\), [0-9]* bytes at most, \(.*\)$/\1, \2/p')"
					rm -rf "$tmp/em_batch"
				done
				# the walks of a folder (its model files, its QCs) and a pairing of two trees
				out=$(LD_LIBRARY_PATH="$libdir" "$tmp/em" walks "$root/testdata" "$root/testdata/model" "$sample" 2>&1)
				check "the walks and a pairing of trees with the caller's allocator: every byte through it, none left" \
					"0 0 direct (0 bytes), 0 bytes left" \
					"$? $(printf '%s\n' "$out" | sed -n 's/^walks: [0-9]* found, .* allocations through the allocator ([0-9]* bytes at most), \(.*\)$/\1/p')"
				check "and under a limit below their need: out of memory, said, nothing left" "failed, out of memory said, 0 left" \
					"$(printf '%s\n' "$out" | sed -n 's/^walks under a limit of [0-9]* bytes: \(.*\), [0-9]* bytes at most, \(.*\)$/\1, \2/p')"
				# a QC library (testdata/qc/shared: three QCs sharing an include and files) to DMX
				# on two threads, then what it wrote back to SMD
				q="$root/testdata/qc/shared"
				out=$(LD_LIBRARY_PATH="$libdir" "$tmp/em" projects "$tmp/em_qc" "$q/a.qc" "$q/b.qc" "$q/c.qc" 2>&1)
				check "a QC library with the caller's allocator, both ways: every byte through it, none left" \
					"0 to DMX, 3 QCs, converted, 0 direct (0 bytes), 0 bytes left|to SMD, 3 QCs, converted, 0 direct (0 bytes), 0 bytes left" \
					"$? $(printf '%s\n' "$out" | sed -n 's/^projects \(to [A-Z]*\): \([0-9]* QCs, [a-z]*\), .* allocations through the allocator ([0-9]* bytes at most), \(.*\)$/\1, \2, \3/p' | paste -sd'|')"
				check "and under a limit below its need: out of memory, said, nothing left" \
					"to DMX: failed, out of memory said, 0 left|to SMD: failed, out of memory said, 0 left" \
					"$(printf '%s\n' "$out" | sed -n 's/^projects \(to [A-Z]*\) under a limit of [0-9]* bytes: \(.*\), [0-9]* bytes at most, \(.*\)$/\1: \2, \3/p' | paste -sd'|')"
				check "nothing in the projects' contract failed" "" "$(printf '%s\n' "$out" | grep FAILED)"
				rm -rf "$tmp/em_qc" "$tmp/em_qc_limited" "$tmp/em_qc_back" "$tmp/em_qc_back_limited"
			else
				echo "note: not glibc: tests/embed_memory.c (which replaces malloc) is not run"
			fi
		fi
		unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
	else
		echo "note: pkg-config or cc is missing: the installed headers are not compiled"
	fi
	;;

completion)
	lib=/usr/share/bash-completion/bash_completion
	if [ ! -r "$lib" ] || ! command -v bash >/dev/null; then
		echo "note: bash-completion is not installed; the completion cases are skipped"
	else
		complete_line() { # the words of a command line, the last one being completed
			bash -c '. "$1"; . "$2"; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
				f=$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/"); $f "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
				printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | tr "\n" " "' sh "$lib" "$script" "$@"
		}
		# written at build time from the options table (doc/meson.build); under Wine $build is
		# the folder of wrappers beside it
		script=$build/doc/smdmx
		[ -r "$script" ] || script=$build/../doc/smdmx
		check "smdmx commands" "check " "$(complete_line smdmx ch)"
		check "smd2dmx options" "--target " "$(complete_line smd2dmx --tar)"
		check "smd2dmx --target values" "sdk2013 sfm source2 " "$(complete_line smd2dmx --target s)"
		check "dmx2smd -W" "error " "$(complete_line dmx2smd -W e)"
		check "smdmx check --target" "gmod goldsrc " "$(complete_line smdmx check --target g)"
		check "smdmx commands: preview, report" "preview report " "$(complete_line smdmx p; complete_line smdmx re)"
		check "smdmx preview --views" "three-quarter top " "$(complete_line smdmx preview --views t)"
		check "smdmx preview options" "--shape --shapes --size --skeleton " "$(complete_line smdmx preview --s)"
		check "smd2dmx --report" "--report " "$(complete_line smd2dmx --rep)"
		check "smdmx diff options" "--strict " "$(complete_line smdmx diff --st)"
		check "smdmx diff --name" "--name " "$(complete_line smdmx diff --na)"
		check "smdmx qc --rig" "dmx qc " "$(complete_line smdmx qc --rig '')"
		check "smdmx qc --to" "dmx smd " "$(complete_line smdmx qc --to '')"
		check "smdmx convert --to" "phys " "$(complete_line smdmx convert --to p)"
		check "dmx2smd --to has no dmx" " " "$(complete_line dmx2smd --to d)"
		check "smdmx report -j takes no file" " " "$(complete_line smdmx report -j '')"
		mkdir "$tmp/files" && touch "$tmp/files/a.smd" "$tmp/files/b.dmx" "$tmp/files/c.txt"
		check "smd2dmx completes SMD files" "$tmp/files/a.smd " "$(complete_line smd2dmx "$tmp/files/")"
		check "dmx2smd completes DMX files" "$tmp/files/b.dmx " "$(complete_line dmx2smd "$tmp/files/")"
	fi
	;;

quickstart)
	# The steps README's quick start runs (tools/lib.sh): quiet when they succeed, their whole
	# output and the failing tool's own message when they fail.
	sh -c '. "$1/tools/lib.sh"; quietly echo hidden' sh "$root" >"$tmp/out" 2>&1
	check "a step that succeeds" "0:" "$?:$(cat "$tmp/out")"
	sh -c '. "$1/tools/lib.sh"; quietly sh -c "echo its own words >&2; exit 3"' sh "$root" >"$tmp/out" 2>&1
	check "a step that fails: its status" 3 $?
	check "a step that fails: its output, then what failed" "its own words|sh: this step failed (exit status 3): sh -c echo its own words >&2; exit 3" \
		"$(tr '\n' '|' <"$tmp/out" | sed 's/|$//')"
	# A compiler that cannot link, as gcc without the C library's start files: its own
	# message reaches the screen and nothing is set up.
	mkdir "$tmp/cc"
	printf '#!/bin/sh\necho "/usr/bin/ld: cannot find crti.o: No such file or directory" >&2\necho "collect2: error: ld returned 1 exit status" >&2\nexit 1\n' >"$tmp/cc/cc"
	chmod +x "$tmp/cc/cc"
	(cd "$root" && CC="$tmp/cc/cc" sh -c '. tools/lib.sh; configure "$1" -Dwerror=true' sh "$tmp/b") >"$tmp/out" 2>&1
	check "a compiler that cannot link: the step fails" 1 $?
	check "a compiler that cannot link: its message" 2 "$(grep -c -e '^/usr/bin/ld: cannot find crti.o: No such file or directory$' \
		-e '^collect2: error: ld returned 1 exit status$' "$tmp/out")"
	check "a compiler that cannot link: named" 1 "$(grep -c "^sh: the C compiler '$tmp/cc/cc' cannot build a program; it said:$" "$tmp/out")"
	check "a compiler that cannot link: nothing set up" no "$([ -e "$tmp/b/build.ninja" ] && echo yes || echo no)"
	;;

qc)
	# QC projects: smd2dmx --qc, dmx2smd --qc, smdmx qc both ways, info and check of a QC.
	face=$root/testdata/qc/face
	"$smd2dmx" --qc "$face/face.qc" -o "$tmp/face.dmx" 2>"$tmp/err"
	check "smd2dmx --qc" 0 $?
	check "smd2dmx --qc: what the DMX holds" '"flex_shapes": 6, "flex_controllers": 5, "attachments": 2' \
		"$("$smdmx" info --json "$tmp/face.dmx" | grep -o '"flex_shapes": [0-9]*, "flex_controllers": [0-9]*, "attachments": [0-9]*')"
	check "smd2dmx --qc: what it cannot hold, said" \
		"$face/face_flexes.qci:3:1: warning: flexpair 'smile' written as two shapes 'smileR' and 'smileL', the same model: beside flex rules a shape is stereo only when a controller of its name says so; nothing to do|$face/face.qc: warning: flex controller groups (eyes, mouth, ...) left out: beside DMX flex rules studiomdl makes every controller 'default'; use --rig qc to keep them (5 times)" \
		"$(tr '\n' '|' <"$tmp/err" | sed 's/|$//')"
	"$smd2dmx" --qc "$face/face.qc" "$face/face.smd" 2>"$tmp/err"
	check "--qc with an input" "2:smd2dmx: error: --qc reads the model and its files from the QC: give no other inputs (try 'smd2dmx --help')" "$?:$(cat "$tmp/err")"
	"$smd2dmx" --qc "$face/face.qc" --scale 2 -o "$tmp/x.dmx" 2>/dev/null
	check "--qc with --scale" 2 $?
	"$smd2dmx" --model face "$face/face.smd" 2>/dev/null
	check "--model without --qc" 2 $?
	"$smd2dmx" --qc "$face/face.qc" --model nose -o "$tmp/x.dmx" 2>"$tmp/err"
	check "--model that is not there" "1:$face/face.qc: error: no \$model named 'nose' (the QC has 1)" "$?:$(cat "$tmp/err")"
	# dmx2smd --qc, and the round trip
	mkdir "$tmp/rt"
	"$dmx2smd" "$tmp/face.dmx" -o "$tmp/rt/face.smd" --qc "$tmp/rt/face.qc" 2>"$tmp/err"
	check "dmx2smd --qc" "0:" "$?:$(cat "$tmp/err")"
	check "dmx2smd --qc writes SMD, VTA and QC" "./face.qc ./face.smd ./face.vta " "$(files "$tmp/rt")"
	check "the QC names them" '$model "face" "face.smd" {|	flexfile "face.vta"|	flex smileR frame 1' "$(head -n 3 "$tmp/rt/face.qc" | tr '\n' '|' | sed 's/|$//')"
	check "the QC's attachments" '$attachment "mouth" "head" 0 -1 1 rotate 0 90 0|$attachment "eyes" "head" 0 -0.5 3.5 rigid' \
		"$(grep '^\$attachment' "$tmp/rt/face.qc" | tr '\n' '|' | sed 's/|$//')"
	"$smd2dmx" --qc "$tmp/rt/face.qc" -o "$tmp/rt/face.dmx" 2>"$tmp/err"
	check "and back" "0:" "$?:$(cat "$tmp/err")"
	"$smdmx" diff "$tmp/face.dmx" "$tmp/rt/face.dmx" >"$tmp/out"
	check "the same model, rig and attachments included" "0:" "$?:$(cat "$tmp/out")"
	"$dmx2smd" "$tmp/face.dmx" "$tmp/face.dmx" --qc "$tmp/x.qc" 2>/dev/null
	check "dmx2smd --qc with two inputs" 2 $?
	mkdir -p "$tmp/rdir" && cp "$tmp/face.dmx" "$tmp/rdir/"
	"$dmx2smd" -r "$tmp/rdir" --qc "$tmp/x.qc" -d "$tmp/rout" 2>"$tmp/err"
	check "dmx2smd --qc with -r" "2 dmx2smd: error: -r with --qc: --qc writes the QC of one DMX file, not of a tree (try 'dmx2smd --help')|no output" \
		"$? $(head -n 1 "$tmp/err")|$([ -e "$tmp/x.qc" ] || [ -e "$tmp/rout" ] && echo output || echo no output)"
	# smdmx qc, both ways
	"$smdmx" qc "$face/face.qc" --to dmx -d "$tmp/p1" 2>"$tmp/err"
	check "qc --to dmx" "0:" "$?:$(cat "$tmp/err")"
	check "qc --to dmx: the project" "./.smdmx-written ./face.dmx ./face.qc ./face_flexes.qci " "$(files "$tmp/p1")"
	check "qc --to dmx: the changed lines" '< $model "face" "face.smd" {|< 	flexfile "face.vta" {|> $model "face" "face.dmx" {|> 	{|> 	noautodmxrules|< $sequence "idle" "face.smd" fps 30|> $sequence "idle" "face.dmx" fps 30' \
		"$(diff "$face/face.qc" "$tmp/p1/face.qc" | grep '^[<>]' | tr '\n' '|' | sed 's/|$//')"
	check "qc --to dmx: the shapes went into the DMX" '// The face'"'"'s shapes: frame numbers of face.vta' "$(cat "$tmp/p1/face_flexes.qci")"
	check "qc --to dmx: the DMX keeps the stereo shapes, a control marks each" '"flex_shapes": 5, "flex_controllers": 2' \
		"$("$smdmx" info --json "$tmp/p1/face.dmx" | grep -o '"flex_shapes": [0-9]*, "flex_controllers": [0-9]*')"
	# the conversions' options, read by the same code: a --target fills in only what is not said
	"$smdmx" qc "$face/face.qc" --to dmx -d "$tmp/pt" --target tf2 2>/dev/null
	check "qc --target tf2: binary 2, model 1" "<!-- dmx encoding binary 2 format model 1 -->" "$(head -n 1 "$tmp/pt/face.dmx" | tr -d '\r')"
	"$smdmx" qc "$face/face.qc" --to dmx -d "$tmp/pkv" --target tf2 --encoding keyvalues2 2>/dev/null
	check "qc --target tf2 --encoding keyvalues2: keyvalues2's own version" "<!-- dmx encoding keyvalues2 1 format model 1 -->" \
		"$(head -n 1 "$tmp/pkv/face.dmx" | tr -d '\r')"
	"$smdmx" qc "$face/face.qc" --to dmx -d "$tmp/px" --encoding-version x 2>"$tmp/err"
	check "qc --encoding-version checked as convert checks it" "2:smdmx: error: --encoding-version wants 1 to 4 (keyvalues2) or 1 to 5 or 9 (binary), not 'x' (try 'smdmx qc --help')" "$?:$(cat "$tmp/err")"
	"$smdmx" qc "$face/face.qc" --to dmx -d "$tmp/px" --scale 2 2>"$tmp/err"
	check "qc refuses a conversion option it does not take" "2:smdmx: error: unknown option '--scale' (try 'smdmx qc --help')" "$?:$(cat "$tmp/err")"
	"$smdmx" qc "$tmp/p1/face.qc" --to smd -d "$tmp/p2" 2>"$tmp/err"
	check "qc --to smd" "0:" "$?:$(cat "$tmp/err")"
	check "qc --to smd: the project" "./.smdmx-written ./face.qc ./face.smd ./face.vta ./face_flexes.qci " "$(files "$tmp/p2")"
	check "qc --to smd: flex lines back, the QC's own rig kept" '	flexfile "face.vta"|	flexpair smile 1 frame 1|	flex blink frame 2|	flex jaw frame 3|	flexpair pucker 1 frame 4|	flex smile_jaw frame 5' \
		"$(grep -e '^	flex ' -e '^	flexpair' -e '^	flexfile' "$tmp/p2/face.qc" | tr '\n' '|' | sed 's/|$//')"
	check "qc --to smd: noautodmxrules gone" 0 "$(grep -c noautodmxrules "$tmp/p2/face.qc")"
	# studiomdl reads a rule only for a flex defined before it: the flex lines open the block
	check "qc --to smd: the flex lines before the rules that read them" "6:flexfile|21:%smileR" \
		"$(grep -n -e '^	flexfile' -e '^	%smileR' "$tmp/p2/face.qc" | sed 's/:	\([^ ]*\).*/:\1/' | tr '\n' '|' | sed 's/|$//')"
	"$smdmx" check "$tmp/p2/face.qc" >/dev/null 2>"$tmp/err"
	check "qc --to smd: the QC written reads (smdmx check)" "0:" "$?:$(cat "$tmp/err")"
	"$smdmx" diff "$face/face.smd" "$tmp/p2/face.smd" >"$tmp/out"
	check "qc both ways: the same SMD" "0:" "$?:$(cat "$tmp/out")"
	# one question, one answer: the QC and the QC written beside its DMX (its rig in the QC,
	# with noautodmxrules) build one model, rig and all, to smdmx diff as to a report's row
	for pair in "$face/face.qc $tmp/p1/face.qc" "$tmp/p1/face.qc $tmp/p2/face.qc" "$face/face.qc $tmp/p2/face.qc"; do
		"$smdmx" diff $pair >"$tmp/out" 2>&1
		check "qc both ways: $(echo "$pair" | sed "s|$tmp/||g; s|$face/||g"): the same model, rig and all" "0:" "$?:$(cat "$tmp/out")"
	done
	"$smdmx" qc "$face/face.qc" --to dmx -d "$tmp/p1r" -q --report "$tmp/p1r.html" 2>/dev/null
	check "qc --to dmx: the report's row agrees" '"k":"equal","w":0,"e":0,"d":0' "$(grep -o '"k":"[a-z]*","w":[0-9]*,"e":[0-9]*,"d":-*[0-9]*' "$tmp/p1r.html")"
	# a DMX animation of 24 fps named by a $sequence that gives fps 30, and by one that gives
	# none: studiomdl samples the DMX at its own rate and plays the frames at the line's fps
	# (30 without one), as it plays the SMD's: nothing to say, the same sequences
	mkdir "$tmp/fq"
	"$smd2dmx" "$sample/arm_wave.smd" --fps 24 -o "$tmp/fq/w24.dmx" -q
	printf '$modelname "x.mdl"\n$sequence idle "w24.dmx" fps 30\n' >"$tmp/fq/a.qc"
	printf '$modelname "x.mdl"\n$sequence still "w24.dmx"\n$sequence idle "w24.dmx" fps 30\n' >"$tmp/fq/b.qc"
	for q in a b; do
		"$smdmx" qc "$tmp/fq/$q.qc" --to smd -d "$tmp/fq_$q" 2>"$tmp/err"
		check "qc --to smd: a DMX animation of 24 fps ($q.qc), nothing said of its rate" "0:" "$?:$(cat "$tmp/err")"
		"$smdmx" diff "$tmp/fq/$q.qc" "$tmp/fq_$q/$q.qc" >"$tmp/out" 2>&1
		check "qc --to smd: the sequence the same both ways ($q.qc)" "0:" "$?:$(cat "$tmp/out")"
	done
	# the rig is compared: a rule changed in the written QC is a difference
	sed 's/^\t%blink = blink$/\t%blink = blink * 0.5/' "$tmp/p1/face.qc" >"$tmp/p1/face_edited.qc"
	"$smdmx" diff "$face/face.qc" "$tmp/p1/face_edited.qc" >"$tmp/out" 2>&1
	check "qc: a rule edited beside the DMX is a difference" "1:flex rule 'blink' differs|1 difference" "$?:$(tr '\n' '|' <"$tmp/out" | sed 's/|$//')"
	"$smdmx" qc "$face/face.qc" --to dmx --rig dmx -d "$tmp/p3" 2>/dev/null
	check "qc --rig dmx" 0 $?
	check "qc --rig dmx: the rig left the QC" 0 "$(grep -c -e flexcontroller -e '%' -e localvar -e noautodmxrules "$tmp/p3/face.qc")"
	check "qc --rig dmx: and is in the DMX" '"flex_shapes": 6, "flex_controllers": 5' \
		"$("$smdmx" info --json "$tmp/p3/face.dmx" | grep -o '"flex_shapes": [0-9]*, "flex_controllers": [0-9]*')"
	# Again over the same folder: the very bytes already there stay (smdmx's own output for
	# this input); a file there with other bytes (a user's edit) is never overwritten
	"$smdmx" qc "$face/face.qc" --to dmx -d "$tmp/p1" 2>"$tmp/err"
	check "qc again over its own output without -f: what is there stays" "0:" "$?:$(cat "$tmp/err")"
	cp "$tmp/p1/face.qc" "$tmp/p1.qc.keep"
	printf '// mine\n' >>"$tmp/p1/face.qc"
	"$smdmx" qc "$face/face.qc" --to dmx -d "$tmp/p1" 2>"$tmp/err"
	check "qc over a QC someone changed, without -f" "1 1 1" \
		"$? $(grep -c "error: '$drive$tmp/p1/face.qc' exists (--force overwrites it)" "$tmp/err") $(grep -c '^// mine' "$tmp/p1/face.qc")"
	mv "$tmp/p1.qc.keep" "$tmp/p1/face.qc"
	"$smdmx" qc "$face/face.qc" --to dmx -d "$tmp/p1" -f --depfile "$tmp/p1.d" 2>/dev/null
	check "qc -f" 0 $?
	check "qc --depfile" "$drive$tmp/p1/face.dmx $drive$tmp/p1/face.qc $drive$tmp/p1/face_flexes.qci: $face/face.qc $face/face_flexes.qci $face/face.smd $face/face.vta" "$(cat "$tmp/p1.d")"
	"$smdmx" qc "$face/face.qc" --to dmx -d "$face/out" --report "$tmp/inside.html" 2>"$tmp/err"
	check "qc into the project's folder: said, and no report of rows it did not convert" "2:smdmx: error: '$face/out' is inside the project's folder '$drive$face/': write the project elsewhere:no" \
		"$?:$(cat "$tmp/err"):$([ -e "$tmp/inside.html" ] && echo yes || echo no)"
	"$smdmx" qc "$face/face.qc" -d "$tmp/p4" 2>/dev/null
	check "qc without --to" 2 $?
	# info and check
	check "info of a QC" "$face/face.qc: QC, 2 files read" "$("$smdmx" info "$face/face.qc" | head -n 1)"
	check "info --json of a QC" '"kind": "qc"' "$("$smdmx" info --json "$face/face.qc" | grep -o '"kind": "qc"')"
	"$smdmx" check "$face/face.qc" 2>"$tmp/err"
	check "check of a QC" "0:" "$?:$(cat "$tmp/err")"
	mkdir "$tmp/m"
	printf '$model m "gone.smd"\n' >"$tmp/m/m.qc"
	"$smdmx" check "$tmp/m/m.qc" 2>"$tmp/err"
	check "check: a missing file" "1:$tmp/m/m.qc:1:10: error: cannot find '$tmp/m/gone.smd' (named by \$model)" "$?:$(cat "$tmp/err")"
	"$smdmx" qc "$tmp/m/m.qc" --to dmx -d "$tmp/m2" 2>"$tmp/err"
	check "qc: a missing file" "1:$tmp/m/m.qc:1:10: error: cannot find '$tmp/m/gone.smd' (named by \$model)|smdmx: 0 converted, 0 copied, 1 missing, 0 failed; 0 QC files written" \
		"$?:$(tr '\n' '|' <"$tmp/err" | sed 's/|$//')"
	check "qc: nothing written" "" "$(files "$tmp/m2" 2>/dev/null)"
	# -k: the project is always written; a missing file stays named as written
	"$smdmx" qc "$tmp/m/m.qc" --to dmx -d "$tmp/m3" -k 2>"$tmp/err"
	check "qc -k: a missing file" "1:$tmp/m/m.qc:1:10: error: cannot find '$tmp/m/gone.smd' (named by \$model): the QC keeps naming it|smdmx: 0 converted, 0 copied, 1 missing, 0 failed; 1 QC file written" \
		"$?:$(tr '\n' '|' <"$tmp/err" | sed 's/|$//')"
	check "qc -k: the QC written as it was" "" "$(cmp "$tmp/m/m.qc" "$tmp/m3/m.qc" 2>&1)"
	# A QC that names no model file (a division by zero once)
	mkdir "$tmp/nm"
	printf '$modelname "x.mdl"\n$cdmaterials "models"\n' >"$tmp/nm/nm.qc"
	"$smdmx" qc "$tmp/nm/nm.qc" --to dmx -d "$tmp/nm2" 2>"$tmp/err"
	check "qc: a QC that names no file" "0:" "$?:$(cat "$tmp/err")"
	check "qc: a QC that names no file, written" "" "$(cmp "$tmp/nm/nm.qc" "$tmp/nm2/nm.qc" 2>&1)"
	"$smdmx" qc "$tmp/nm/nm.qc" --to smd -d "$tmp/nm3" -k -j 3 2>"$tmp/err"
	check "qc -k -j 3: a QC that names no file" "0:" "$?:$(cat "$tmp/err")"
	# A partial project: a missing LOD and a missing include, with -k
	mkdir "$tmp/pk"
	cp "$face"/face.* "$face/face_flexes.qci" "$tmp/pk/"
	printf '$include "gone.qci"\n$lod 10 {\n\treplacemodel "face.smd" "face_lod1.smd"\n}\n' >>"$tmp/pk/face.qc"
	"$smdmx" qc "$tmp/pk/face.qc" --to dmx -d "$tmp/pk1" -k 2>"$tmp/err"
	check "qc -k: a partial project" "1:$tmp/pk/face.qc:28:10: error: cannot find '$tmp/pk/gone.qci' (included as 'gone.qci', against the folder of the main QC): the \$include is kept as written, and nothing it holds is read|$tmp/pk/face.qc:30:26: error: cannot find '$tmp/pk/face_lod1.smd' (named by replacemodel): the QC keeps naming it|smdmx: 1 converted, 0 copied, 2 missing, 0 failed; 2 QC files written" \
		"$?:$(tr '\n' '|' <"$tmp/err" | sed 's/|$//')"
	check "qc -k: the partial project's files" "./.smdmx-written ./face.dmx ./face.qc ./face_flexes.qci " "$(files "$tmp/pk1")"
	check "qc -k: the missing names kept, the converted renamed" '$model "face" "face.dmx" {|$sequence "idle" "face.dmx" fps 30|$include "gone.qci"|	replacemodel "face.smd" "face_lod1.smd"' \
		"$(grep -e '^\$model ' -e '^\$sequence' -e '^\$include' -e replacemodel "$tmp/pk1/face.qc" | tr '\n' '|' | sed 's/|$//')"
	"$smdmx" diff "$tmp/p1/face.dmx" "$tmp/pk1/face.dmx" -q
	check "qc -k: the model converted whole (as from the whole project)" 0 $?
	# A QC that spells a file otherwise than the disk does (found as Windows finds it): the QC
	# written names the output as it is written, for systems that tell case
	mkdir "$tmp/pc"
	cp "$face"/face.* "$face/face_flexes.qci" "$tmp/pc/"
	sed 's/"face.smd"/"Face.SMD"/' "$face/face.qc" >"$tmp/pc/face.qc"
	"$smdmx" qc "$tmp/pc/face.qc" --to dmx -d "$tmp/pc1" -q 2>"$tmp/err"
	check "qc: a name spelt otherwise, the output as it is written" "0:|./.smdmx-written ./face.dmx ./face.qc ./face_flexes.qci |\$model \"face\" \"face.dmx\" {|\$sequence \"idle\" \"face.dmx\" fps 30" \
		"$?:$(cat "$tmp/err")|$(files "$tmp/pc1")|$(grep -e '^\$model ' -e '^\$sequence' "$tmp/pc1/face.qc" | tr '\n' '|' | sed 's/|$//')"
	"$smdmx" qc "$tmp/pk/face.qc" --to dmx -d "$tmp/pk2" 2>/dev/null
	check "qc without -k: a partial project stops" "1:" "$?:$(files "$tmp/pk2" 2>/dev/null)"
	# A DMX with shapes beside a missing file, to SMD with -k (a crash once)
	mkdir "$tmp/dk"
	cp "$tmp/p1"/* "$tmp/dk/"
	printf '$lod 10 {\n\treplacemodel "face.dmx" "gone.dmx"\n}\n' >>"$tmp/dk/face.qc"
	"$smdmx" qc "$tmp/dk/face.qc" --to smd -d "$tmp/dk1" -k 2>"$tmp/err"
	check "qc -k --to smd: a DMX with shapes and a missing file" "1:smdmx: 1 converted, 0 copied, 1 missing, 0 failed; 2 QC files written" \
		"$?:$(tail -n 1 "$tmp/err")"
	check "qc -k --to smd: the SMD, its VTA and the QC" "./.smdmx-written ./face.qc ./face.smd ./face.vta ./face_flexes.qci " "$(files "$tmp/dk1")"
	check "qc -k --to smd: the QC names the VTA" '	flexfile "face.vta"' "$(grep flexfile "$tmp/dk1/face.qc")"
	# A library: two QCs sharing an include and an animation, and one reference SMD with two
	# rigs (one output each, the second named after its QC); -r takes the tree
	mkdir -p "$tmp/lib/a" "$tmp/lib/b" "$tmp/lib/common"
	cp "$face/face.smd" "$face/face.vta" "$tmp/lib/common/"
	cp "$sample/arm_wave.smd" "$tmp/lib/common/wave.smd"
	printf '$cdmaterials "models"\n' >"$tmp/lib/shared.qci"
	for q in a b; do
		[ $q = a ] && fl='flex "smile" frame 1' || fl='flex "blink" frame 2'
		printf '$include "../shared.qci"\n$model "%s" "../common/face.smd" {\n\tflexfile "../common/face.vta" {\n\t\t%s\n\t}\n}\n$sequence "wave" "../common/wave.smd" fps 24\n' \
			$q "$fl" >"$tmp/lib/$q/$q.qc"
	done
	"$smdmx" qc -r "$tmp/lib" --to dmx -d "$tmp/lib1" --depfile "$tmp/lib1.d" 2>"$tmp/err"
	check "qc -r: a library" "0:smdmx: 2 QC projects, 3 converted, 0 copied, 0 missing, 0 failed; 3 QC files written" "$?:$(tail -n 1 "$tmp/err")"
	check "qc -r: one tree, each shared file once" "./.smdmx-written ./a/a.qc ./b/b.qc ./common/face.dmx ./common/face_b.dmx ./common/wave.dmx ./shared.qci " "$(files "$tmp/lib1")"
	check "qc -r: the second way said" "$tmp/lib/common/face.smd: note: $tmp/lib/b/b.qc needs it made another way than a QC before it does (another VTA, rig or rate): written as '$drive$tmp/lib1/common/face_b.dmx'" \
		"$(grep 'note:' "$tmp/err")"
	check "qc -r: each QC names its own" '$model "a" "../common/face.dmx" {|$model "b" "../common/face_b.dmx" {' \
		"$(grep -h '^\$model' "$tmp/lib1/a/a.qc" "$tmp/lib1/b/b.qc" | tr '\n' '|' | sed 's/|$//')"
	check "qc -r: a flexfile block that moved into the DMX leaves no braces" '$model "a" "../common/face.dmx" {|	noautodmxrules|}' \
		"$(sed -n 2,4p "$tmp/lib1/a/a.qc" | tr '\n' '|' | sed 's/|$//')"
	check "qc -r: the two rigs" '"flex_shapes": 1|"flex_shapes": 1' \
		"$("$smdmx" info --json "$tmp/lib1/common/face.dmx" | grep -o '"flex_shapes": [0-9]*')|$("$smdmx" info --json "$tmp/lib1/common/face_b.dmx" | grep -o '"flex_shapes": [0-9]*')"
	check "qc -r: the shapes named by each QC" "smile|blink" \
		"$("$smdmx" dump "$tmp/lib1/common/face.dmx" | grep -o '"smile"' | head -n 1 | tr -d '"')|$("$smdmx" dump "$tmp/lib1/common/face_b.dmx" | grep -o '"blink"' | head -n 1 | tr -d '"')"
	check "qc -r --depfile" "$drive$tmp/lib1/common/face.dmx $drive$tmp/lib1/common/wave.dmx $drive$tmp/lib1/common/face_b.dmx $drive$tmp/lib1/a/a.qc $drive$tmp/lib1/shared.qci $drive$tmp/lib1/b/b.qc: $tmp/lib/a/a.qc $tmp/lib/shared.qci $tmp/lib/b/b.qc $tmp/lib/common/face.smd $tmp/lib/common/wave.smd $tmp/lib/common/face.vta" \
		"$(cat "$tmp/lib1.d")"
	"$smdmx" qc "$tmp/lib/b/b.qc" "$tmp/lib/a/a.qc" --to dmx -d "$tmp/lib2" -q 2>/dev/null
	check "qc with two QCs: the first given names the plain output" "./.smdmx-written ./a/a.qc ./b/b.qc ./common/face.dmx ./common/face_a.dmx ./common/wave.dmx ./shared.qci |../common/face.dmx" \
		"$(files "$tmp/lib2")|$(grep -o '\.\./common/face[^"]*' "$tmp/lib2/b/b.qc" | head -n 1)"
	"$smdmx" qc -r "$tmp/lib1" --to smd -d "$tmp/lib3" -q 2>"$tmp/err"
	check "qc -r back to SMD" "0:" "$?:$(grep -v '^smdmx: ' "$tmp/err")"
	"$smdmx" diff "$tmp/lib/common/wave.smd" "$tmp/lib3/common/wave.smd" -q
	check "qc -r both ways: the shared animation the same" 0 $?
	# -u: nothing redone, then only what changed
	"$smdmx" qc -r "$tmp/lib" --to dmx -d "$tmp/lib1" -u 2>"$tmp/err"
	check "qc -r -u: all up to date" "0:smdmx: 2 QC projects, 0 converted, 0 copied, 0 missing, 0 failed, 3 up to date; 0 QC files written" \
		"$?:$(tail -n 1 "$tmp/err")"
	"$smdmx" qc -r "$tmp/lib" --to dmx -d "$tmp/lib1" -u -v 2>"$tmp/err"
	check "qc -r -u -v: names no file it did not write" "0 0" "$? $(grep -c ' -> ' "$tmp/err")"
	touch "$tmp/lib/common/wave.smd"
	"$smdmx" qc -r "$tmp/lib" --to dmx -d "$tmp/lib1" -u 2>"$tmp/err"
	check "qc -r -u: only what changed" "0:smdmx: 2 QC projects, 1 converted, 0 copied, 0 missing, 0 failed, 2 up to date; 0 QC files written" \
		"$?:$(tail -n 1 "$tmp/err")"
	"$smdmx" qc -r "$tmp/lib" --to dmx -d "$tmp/lib1" 2>/dev/null
	check "qc -r over its own library without -f or -u" 0 $?
	# someone's edit is kept: the DMX goes to a second name, which the QC, smdmx's own output
	# as it wrote it, is rewritten to name
	printf 'x' >>"$tmp/lib1/common/wave.dmx"
	"$smdmx" qc -r "$tmp/lib" --to dmx -d "$tmp/lib1" 2>"$tmp/err"
	check "qc -r over a library with a file someone changed, without -f or -u: kept, and its QC (smdmx's own) names the new one" \
		"0 x yes ../common/wave_a.dmx" \
		"$? $(tail -c 1 "$tmp/lib1/common/wave.dmx") $([ -f "$tmp/lib1/common/wave_a.dmx" ] && echo yes) $(grep -o '\.\./common/wave[^"]*' "$tmp/lib1/a/a.qc")"
	# someone's edit of a written QC is kept too: that QC is not written, without -f
	printf '// mine\n' >>"$tmp/lib1/a/a.qc"
	"$smdmx" qc -r "$tmp/lib" --to dmx -d "$tmp/lib1" 2>"$tmp/err"
	check "qc -r over a library with a QC someone changed, without -f" "1 1 // mine" \
		"$? $(grep -c "error: '$drive$tmp/lib1/a/a.qc' exists (--force overwrites it)" "$tmp/err") $(tail -n 1 "$tmp/lib1/a/a.qc")"
	rm "$tmp/lib1/common/wave_a.dmx"
	"$smdmx" qc "$tmp/lib" --to dmx -d "$tmp/lib4" 2>"$tmp/err"
	check "qc with a directory, no -r" "2:smdmx: error: '$tmp/lib' is a directory (-r converts every QC below it) (try 'smdmx qc --help')" "$?:$(cat "$tmp/err")"
	# A model that fails to convert (a flex line names a frame the VTA lacks) is copied with
	# its VTA, and the QC keeps naming them
	mkdir "$tmp/pf"
	cp "$face"/face.* "$face/face_flexes.qci" "$tmp/pf/"
	printf 'flex "extra" frame 9\n' >>"$tmp/pf/face_flexes.qci"
	"$smdmx" qc "$tmp/pf/face.qc" --to dmx -d "$tmp/pf1" -k 2>"$tmp/err"
	check "qc -k: a model that fails" 1 $?
	check "qc -k: the failed model, said" "$tmp/pf/face.smd: note: not converted: copied unchanged as '$drive$tmp/pf1/face.smd' (with '$drive$tmp/pf1/face.vta'), and the QC names the copy|smdmx: 0 converted, 0 copied, 0 missing, 1 failed; 2 QC files written" \
		"$(tail -n 2 "$tmp/err" | tr '\n' '|' | sed 's/|$//')"
	check "qc -k: the failed model's files" "./.smdmx-written ./face.qc ./face.smd ./face.vta ./face_flexes.qci " "$(files "$tmp/pf1")"
	check "qc -k: the QC as it was" "" "$(cmp "$tmp/pf/face.qc" "$tmp/pf1/face.qc" 2>&1)"
	# a rerun with -u: the failed model's copies, its own earlier output, are no clash
	"$smdmx" qc "$tmp/pf/face.qc" --to dmx -d "$tmp/pf1" -k -u 2>"$tmp/err"
	check "qc -k -u again: the copies of the failed model are no clash" "1 0 1" \
		"$? $(grep -c 'exists' "$tmp/err") $(grep -c "^$tmp/pf/face.smd: note: not converted: copied unchanged" "$tmp/err")"
	# A line smdmx cannot read costs that line: a rule with an unclosed '(' in an include
	mkdir "$tmp/pr"
	cp "$face"/face.* "$face/face_flexes.qci" "$tmp/pr/"
	printf '%%blink = (blink\n' >"$tmp/pr/bad.qci"
	awk '{ print } /^\tlocalvar/ { print "\t$include \"bad.qci\"" }' "$face/face.qc" | sed '/^\t%blink = blink$/d' >"$tmp/pr/face.qc"
	"$smdmx" qc "$tmp/pr/face.qc" --to dmx -d "$tmp/pr1" 2>"$tmp/err"
	check "qc: a rule it cannot read stops the project" "1:$tmp/pr/bad.qci:1:10: error: a '(' that is not closed" "$?:$(head -n 1 "$tmp/err")"
	"$smdmx" qc "$tmp/pr/face.qc" --to dmx -d "$tmp/pr2" -k 2>"$tmp/err"
	check "qc -k: a rule it cannot read" "1:$tmp/pr/bad.qci:1:10: error: a '(' that is not closed: the line is kept as written, and nothing it says is converted" "$?:$(head -n 1 "$tmp/err")"
	check "qc -k: the line counted" "smdmx: 1 converted, 0 copied, 0 missing, 0 failed, 1 QC line not read; 3 QC files written" "$(tail -n 1 "$tmp/err")"
	check "qc -k: the include with the line, byte for byte" "" "$(cmp "$tmp/pr/bad.qci" "$tmp/pr2/bad.qci" 2>&1)"
	check "qc -k: the model converted" "./.smdmx-written ./bad.qci ./face.dmx ./face.qc ./face_flexes.qci " "$(files "$tmp/pr2")"
	"$smdmx" qc "$tmp/pr/face.qc" --to dmx --rig dmx -d "$tmp/pr3" -k 2>/dev/null
	check "qc -k --rig dmx: a block that lost a line keeps its rig in the QC" "1:1" "$?:$(grep -c noautodmxrules "$tmp/pr3/face.qc")"
	# A DMX model's rules checked against its shapes and controls
	printf '$model m "face.dmx" {\n\t%%nose = blink\n}\n' >"$tmp/dm.qc"
	"$smdmx" check "$tmp/dm.qc" 2>"$tmp/err"
	check "check: a rule for a flex the DMX lacks" "1:$tmp/dm.qc:2:2: error: a rule for unknown flex 'nose'" "$?:$(cat "$tmp/err")"
	if [ -d "$corpus/qc" ]; then
		humans=$corpus/qc/sdk_humans
		"$smdmx" qc "$humans/male_sdk/male_06_sdk.qc" --to dmx -d "$tmp/h1" -q
		check "the SDK character to DMX" 0 $?
		check "the SDK character: every file (and the record of them)" 83 "$(find "$tmp/h1" -type f | wc -l | tr -d ' ')"
		"$smdmx" qc "$tmp/h1/male_sdk/male_06_sdk.qc" --to smd -d "$tmp/h2" -q
		check "and back to SMD" 0 $?
		"$smdmx" diff "$humans/male_animations_sdk/walkn.smd" "$tmp/h2/male_animations_sdk/walkn.smd" >"$tmp/out"
		check "an animation both ways: the same" "0:" "$?:$(cat "$tmp/out")"
		for f in hitbox.qci ragdoll.qci; do
			check "$f: only names changed" "$(grep -c . "$humans/male_sdk/$f")" "$(grep -c . "$tmp/h2/male_sdk/$f")"
		done
		# With any one of its files gone, -k still writes the project, and the only errors
		# are about that file (every include, the model, its VTA, a LOD, the ragdoll, animations,
		# one the QCs name in two spellings: one file missing, counted once). Under the
		# sanitizers (SMDMX_CORPUS_SAMPLE=N) every Nth of them, as the corpus is sampled.
		every=${SMDMX_CORPUS_SAMPLE:-1} k=0
		for f in bodyrules_xsi.qci facerules_xsi.qci lowesthumannohelpers.qci lowesthumanskeleton.qci removehands.qci \
			standardflex_xsi.qci standardhierarchy.qci male_sdk/hitbox.qci male_sdk/ragdoll.qci male_sdk/male_06_reference.smd \
			male_sdk/male_06_expressions.vta male_sdk/male_06_lod_2.smd male_sdk/ragdoll.smd male_animations_sdk/walkn.smd \
			male_animations_sdk/crouch_runn.smd male_animations_sdk/male_shared_xsi_sdk.qci \
			male_animations_sdk/weaponanims_shared_sdk.qci male_animations_sdk/body_poses_lean.smd; do
			k=$((k + 1))
			[ "$every" -gt 1 ] && [ $((k % every)) != 1 ] && continue
			rm -rf "$tmp/hp" "$tmp/hp1"
			cp -R "$humans" "$tmp/hp"
			rm "$tmp/hp/$f"
			"$smdmx" qc "$tmp/hp/male_sdk/male_06_sdk.qc" --to dmx -d "$tmp/hp1" -k 2>"$tmp/err"
			rc=$?
			b=$(basename "$f")
			check "the SDK character without $f: written, one file missing" "1:yes:1 missing" \
				"$rc:$([ -f "$tmp/hp1/male_sdk/male_06_sdk.qc" ] && echo yes):$(tail -n 1 "$tmp/err" | grep -o '[0-9]* missing')"
			check "the SDK character without $f: the only errors are about it" "" "$(grep ' error: ' "$tmp/err" | grep -vi "'[^']*$b'")"
		done
		# Valve's HL2 SDK model sources as a library: 19 QCs sharing includes, some naming files
		# the SDK never shipped. Every QC is written, every model there converts, the missing
		# are counted, and each converted model means what its source means (at its QC's fps);
		# then back. (Under Wine every 8th model is compared, under the sanitizers every
		# SMDMX_CORPUS_SAMPLE-th: each is three program starts.)
		hl2=$corpus/library/hl2_modelsrc
		"$smdmx" qc -r "$hl2" --to dmx -d "$tmp/hl2d" -k 2>"$tmp/err"
		check "the HL2 library to DMX" "1:smdmx: 19 QC projects, 210 converted, 0 copied, 52 missing, 0 failed; 26 QC files written" \
			"$?:$(tail -n 1 "$tmp/err")"
		check "the HL2 library: every error a missing file" "" "$(grep ' error: ' "$tmp/err" | grep -v ": error: cannot find '")"
		check "the HL2 library: every QC written" 19 "$(find "$tmp/hl2d" -name '*.qc' | wc -l | tr -d ' ')"
		missing "$tmp/err" "$hl2" >"$tmp/hl2_missing"
		"$smdmx" qc -r "$tmp/hl2d" --to smd -d "$tmp/hl2s" -k 2>"$tmp/err"
		check "the HL2 library back to SMD" "1:smdmx: 19 QC projects, 210 converted, 0 copied, 52 missing, 0 failed; 26 QC files written" \
			"$?:$(tail -n 1 "$tmp/err")"
		check "the HL2 library read back: no file newly missing" "$(cat "$tmp/hl2_missing")" "$(missing "$tmp/err" "$tmp/hl2d")"
		check "the HL2 library: the files missing counted" 52 "$(wc -l <"$tmp/hl2_missing" | tr -d ' ')"
		n=0 same=0 k=0
		[ -n "$windows" ] && every=8
		for d in $(cd "$tmp/hl2d" && find . -name '*.dmx' | LC_ALL=C sort); do
			k=$((k + 1))
			[ "$every" -gt 1 ] && [ $((k % every)) != 1 ] && continue
			d=${d#./}
			src=$(find "$hl2" -ipath "$hl2/${d%.dmx}.smd" | head -n 1)
			fps=$("$smdmx" info --json "$tmp/hl2d/$d" | grep -o '"frame_rate": [0-9.]*' | head -n 1 | sed 's/.*: //')
			n=$((n + 1))
			"$smdmx" diff "$src" "$tmp/hl2d/$d" ${fps:+--fps "$fps"} -q && "$smdmx" diff "$tmp/hl2d/$d" "$tmp/hl2s/${d%.dmx}.smd" ${fps:+--fps "$fps"} -q &&
				same=$((same + 1))
		done
		check "the HL2 library: each model the same both ways ($n compared)" "$n" "$same"
		# Blender Source Tools' test QCs name files the corpus does not hold: given stand-ins,
		# they convert both ways. Scout.qc names x.dmx and x.smd: converted, one avoids the other.
		for q in Scout AllTypes_Armature VertexAnimation; do
			d=$tmp/bst_$q
			mkdir -p "$d/anims"
			cp "$corpus/qc/Artfunkel__BlenderSourceTools__$q.qc" "$d/$q.qc"
			"$smdmx" check "$d/$q.qc" 2>/dev/null
			check "$q: the files it names are missing" 1 $?
		done
		for n in scout_morphs_low anims/gesture_ITEM1_cheer AllTypes anims/ArmatureAction Dice vcaanim_Throw; do
			for q in Scout AllTypes_Armature VertexAnimation; do
				cp "$sample/arm.smd" "$tmp/bst_$q/$n.smd"
				"$smd2dmx" -q "$sample/arm.smd" -o "$tmp/bst_$q/$n.dmx" -f
			done
		done
		cp "$sample/arm.vta" "$tmp/bst_VertexAnimation/Throw.vta"
		for q in Scout AllTypes_Armature VertexAnimation; do
			"$smdmx" qc "$tmp/bst_$q/$q.qc" --to dmx -d "$tmp/bst_${q}_dmx" -q
			check "$q to DMX" 0 $?
			"$smdmx" qc "$tmp/bst_$q/$q.qc" --to smd -d "$tmp/bst_${q}_smd" -q
			check "$q to SMD" 0 $?
		done
		check "Scout to DMX: the SMD's DMX beside the DMX" \
			'./.smdmx-written ./Scout.qc ./anims/gesture_ITEM1_cheer.dmx ./anims/gesture_ITEM1_cheer_smd.dmx ./scout_morphs_low.dmx ./scout_morphs_low_smd.dmx ' \
			"$(files "$tmp/bst_Scout_dmx")"
		check "Scout to DMX: the QC names both" '	studio "scout_morphs_low.dmx"|	studio "scout_morphs_low_smd.dmx"' \
			"$(grep studio "$tmp/bst_Scout_dmx/Scout.qc" | tr '\n' '|' | sed 's/|$//')"
		check "VertexAnimation to DMX: the vcafile's VTA kept" "./.smdmx-written ./Dice.dmx ./Dice_smd.dmx ./Throw.vta ./VertexAnimation.qc ./vcaanim_Throw.dmx ./vcaanim_Throw_smd.dmx " \
			"$(files "$tmp/bst_VertexAnimation_dmx")"
	else
		echo "skipped: the SDK character and Blender Source Tools' QCs, there is no corpus at $corpus"
	fi
	;;

gltf)
	# glTF 2.0 out (doc/gltf.md): smdmx convert writes GLB or glTF by the output's name or
	# --to, for one file, a tree, standard output; what applies to glTF alone refused elsewhere,
	# what applies to no glTF input refused there
	glb_magic() { od -A n -t x1 -N 8 "$1" | tr -d ' \n'; }
	"$smdmx" convert "$sample/arm.smd" "$sample/arm.vta" -o "$tmp/arm.glb" 2>"$tmp/err"
	check "SMD and its VTA to GLB: written, nothing said" "0:" "$?:$(cat "$tmp/err")"
	check "a GLB: magic 'glTF', version 2" "676c544602000000" "$(glb_magic "$tmp/arm.glb")"
	check "its shape a morph target, named" 1 "$(grep -a -c '"extras":{"targetNames":\[' "$tmp/arm.glb")"
	"$smdmx" convert -r "$root/testdata/model" -d "$tmp/gl" --to glb -q
	check "a tree to GLB: every model file" "$(ls "$root/testdata/model" | grep -c '\.dmx$')" "$(ls "$tmp/gl" | grep -c '\.glb$')"
	"$smdmx" convert "$root/testdata/model/arm.dmx" --to gltf -o - 2>/dev/null >"$tmp/out.gltf"
	check "glTF on standard output: JSON with its buffer inside" '{"asset":{"version":"2.0",|1' \
		"$(head -c 26 "$tmp/out.gltf")|$(grep -c 'data:application/octet-stream;base64,' "$tmp/out.gltf")"
	"$smdmx" convert "$root/testdata/model/arm.dmx" --to glb -o - 2>/dev/null >"$tmp/out.glb"
	check "GLB on standard output (--to glb)" "676c544602000000" "$(glb_magic "$tmp/out.glb")"
	"$smdmx" convert "$root/testdata/model/arm.dmx" -o "$tmp/arm2.glb" 2>"$tmp/err"
	check "what glTF cannot hold said with a count" "0:$root/testdata/model/arm.dmx: warning: glTF has no flex controllers: 1 left out (their shapes are morph targets, named); keep the DMX for them" \
		"$?:$(cat "$tmp/err")"
	"$smdmx" convert "$root/testdata/model/arm.dmx" -o "$tmp/no.glb" --encoding binary 2>"$tmp/err"
	check "--encoding with glTF output: refused" "2:smdmx: error: '--encoding' does not apply to '$root/testdata/model/arm.dmx' (glTF output has no DMX encoding or model format)|no" \
		"$?:$(tr '\n' '|' <"$tmp/err")$([ -e "$tmp/no.glb" ] && echo yes || echo no)"
	"$smdmx" convert "$sample/arm.smd" -o "$tmp/no.dmx" --links 8 2>"$tmp/err"
	check "--links with DMX output: refused" "2:smdmx: error: '--links' does not apply to '$sample/arm.smd' (it shapes glTF output)" "$?:$(cat "$tmp/err")"
	"$smdmx" convert "$sample/arm.smd" -o "$tmp/no.glb" --links 5 2>"$tmp/err"
	check "--links 5: refused" "2:smdmx: error: --links is 4 or 8, not '5' (try 'smdmx convert --help')" "$?:$(cat "$tmp/err")"
	"$smdmx" convert "$root/testdata/model/arm.dmx" -o "$tmp/no.glb" --vta "$sample/arm.vta" 2>"$tmp/err"
	check "--vta with a DMX to glTF: refused, nothing written" "1:$root/testdata/model/arm.dmx: error: '--vta' does not apply to a DMX (a DMX holds its shapes itself)|no" \
		"$?:$(grep error "$tmp/err" | head -n 1)|$([ -e "$tmp/no.glb" ] && echo yes || echo no)"
	# the animation's keys as its clip holds them, at its rate: arm_wave's 11 frames at 30 fps
	"$smdmx" convert "$sample/arm_wave.smd" -o "$tmp/wave.gltf" 2>/dev/null
	check "a clip an animation of its name" 1 "$(grep -c '"animations":\[{"name":"arm_wave"' "$tmp/wave.gltf")"
	smd2dmx_out=$("$smd2dmx" "$sample/arm.smd" -o "$tmp/x.glb" 2>&1)
	check "smd2dmx writes DMX only" "2:smd2dmx: error: '$tmp/x.glb': the output must be .dmx" "$?:$smd2dmx_out"
	"$smdmx" convert "$sample/arm.vta" -o "$tmp/vta.glb" 2>"$tmp/err"
	check "a VTA alone is no model: refused, named" "1:$sample/arm.vta: error: a VTA holds the shapes of a reference, and no input is its SMD ('$sample/arm.smd'): give that beside it, or the reference with --vta" \
		"$?:$(head -n 1 "$tmp/err")"
	# the Khronos validator (tests/gltf, installed by tools/test.sh): 0 errors, 0 warnings
	if gltf_validator; then
		node "$root/tests/gltf/validate.js" "$tmp/arm.glb" "$tmp/arm2.glb" "$tmp/out.gltf" "$tmp/out.glb" "$tmp/wave.gltf" "$tmp"/gl/*.glb >"$tmp/valid"
		check "the Khronos validator: every file 0 errors, 0 warnings" "0:" "$?:$(grep -v ': 0 errors, 0 warnings$' "$tmp/valid")"
	fi
	;;

gltf-corpus)
	# Every model of the corpus (SMD with the VTA beside it, VTA, DMX) as GLB, one batch: each
	# written, or refused for a reason its file gives (a DMX that holds no model, a VTA with no
	# SMD, two names of one output, an empty file); each GLB through the Khronos validator
	if [ ! -d "$corpus" ]; then
		echo "skipped: this group reads the corpus, and there is none at $corpus"
		exit 77
	fi
	corpus_copy "$tmp/c"
	find "$tmp/c" -type f ! -iname '*.smd' ! -iname '*.vta' ! -iname '*.dmx' -exec rm {} +
	inputs=$(find "$tmp/c" -type f | wc -l)
	"$smdmx" convert -r "$tmp/c" -d "$tmp/g" --to glb -k -q -j 2 2>"$tmp/err"
	check "the corpus to GLB: exit 1 (some files are no model)" 1 $?
	glbs=$(find "$tmp/g" -name '*.glb' | wc -l)
	failed=$(sed -n "s/^smdmx: error: \([0-9]*\) of $inputs inputs failed$/\1/p" "$tmp/err")
	check "every input a GLB or a failure ($inputs inputs)" "$inputs" "$((glbs + ${failed:-0}))"
	check "a GLB for most" yes "$([ "$glbs" -gt $((inputs * 9 / 10)) ] && echo yes)"
	check "every failure one a file explains" "" \
		"$(grep ': error: ' "$tmp/err" | grep -v -e 'not a usable model: the root has neither' -e 'a VTA holds the shapes of a reference' \
			-e 'would also be written from' -e 'empty file: expected' -e "inputs failed$")"
	if gltf_validator; then
		find "$tmp/g" -name '*.glb' | LC_ALL=C sort >"$tmp/list"
		node "$root/tests/gltf/validate.js" $(cat "$tmp/list") >"$tmp/valid"
		check "the Khronos validator: every GLB 0 errors, 0 warnings ($glbs files)" "0:" "$?:$(grep -v ': 0 errors, 0 warnings$' "$tmp/valid" | head -n 20)"
	fi
	;;

option-table)
	# Every option of every command as the options table (src/cli/option_table.c) lists it,
	# through smdmx-options list: each name is taken; a value missing, empty, not among the
	# choices or not a number in range is a usage error (exit 2) said before any work.
	gen=$build/smdmx-options
	[ -x "$gen" ] || gen=$build/../smdmx-options # under Wine: the build machine's, beside the wrappers
	"$gen" list >"$tmp/list"
	check "smdmx-options lists the table" 0 $?
	check "the table holds every command" "dmx2smd smd2dmx smdmx check smdmx convert smdmx diff smdmx dump smdmx info smdmx preview smdmx qc smdmx report " \
		"$(cut -f1 "$tmp/list" | LC_ALL=C sort -u | tr '\n' ' ')"
	mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
	taken=0 refused=0 line=0 problems=""
	tab=$(printf '\t')
	while IFS=$tab read -r command name kind value; do
		line=$((line + 1))
		# under Wine each run starts a Windows process: every third option there (the parser is
		# one C file on both)
		[ -z "$windows" ] || [ $((line % 3)) -eq 0 ] || continue
		case $name in -h | --help | --version) continue ;; esac
		set -- $command
		prog=$1
		shift
		sub=$*
		# taken: whatever else goes wrong (no input), never an unknown option
		if [ "$kind" = flag ]; then "$build/$prog" $sub "$name" </dev/null >/dev/null 2>"$tmp/err"
		else "$build/$prog" $sub "$name" "$value" </dev/null >/dev/null 2>"$tmp/err"; fi
		if grep -q "unknown option\|needs a value\| wants \|, not '" "$tmp/err"; then problems="$problems|$command $name $value: $(head -n 1 "$tmp/err")"; else taken=$((taken + 1)); fi
		[ "$kind" = flag ] && continue
		"$build/$prog" $sub "$name" </dev/null >/dev/null 2>"$tmp/err"
		rc=$?
		[ $rc -eq 2 ] && grep -q "^$prog: error: '$name' needs a value (try '$command --help')" "$tmp/err" ||
			problems="$problems|$command $name (last): $rc $(head -n 1 "$tmp/err")"
		case $kind in
		choice) bad=no-such-value want="$(echo "$name" | sed 's/ .*//') is .*, not 'no-such-value'" ;;
		number) bad=x want="wants .*, not 'x'" ;;
		name) bad=a/b want="--name is the name of the model read from standard input, not a path" ;;
		*) bad= want="needs a value, not an empty one" ;;
		esac
		"$build/$prog" $sub "$name" "$bad" </dev/null >/dev/null 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 2 ] && grep -q "^$prog: error: .*$want (try '$command --help')" "$tmp/err"; then refused=$((refused + 1))
		else problems="$problems|$command $name '$bad': $rc $(head -n 1 "$tmp/err")"; fi
	done <"$tmp/list"
	cd "$tmp" || exit 1
	check "every option taken, every bad value refused" "" "$problems"
	check "options run" yes "$([ "$taken" -gt 20 ] && [ "$refused" -gt 10 ] && echo yes)"
	check "nothing written" "" "$(ls "$tmp/cwd")"
	# the library's targets are the table's: each converts (test_model counts the library's)
	if [ -z "$windows" ]; then
		targets=$("$build/smdmx" check --target nope 2>&1 | sed -n "s/.*--target is \(.*\), not 'nope'.*/\1/p" | sed 's/,//g; s/ or / /')
		check "smdmx check names nine targets" 9 "$(echo $targets | wc -w)"
		for t in $targets; do
			"$build/smdmx" check --target "$t" "$sample/arm.smd" >/dev/null 2>&1
			[ $? -ne 2 ] || problems="$problems|check --target $t"
			[ "$t" = goldsrc ] && continue
			"$build/smd2dmx" --target "$t" "$sample/arm.smd" -o "$tmp/t_$t.dmx" -q
			[ $? -eq 0 ] || problems="$problems|smd2dmx --target $t"
		done
		check "every target of the table is the library's" "" "$problems"
	fi
	# the manual pages name every option of their program
	for p in smd2dmx dmx2smd; do
		page=$build/doc/$p.1
		[ -r "$page" ] || continue
		missing=
		for name in $(awk -F"$tab" -v p=$p '$1 == p { print $2 }' "$tmp/list"); do
			[ "$name" = -Werror ] && continue # in -W's label
			grep -qF -- "$(echo "$name" | sed 's/-/\\-/g')" "$page" || missing="$missing $name"
		done
		check "$p.1 documents every option" "" "$missing"
	done
	;;

options)
	# Each option is honoured where it applies; one that applies to no input is a usage error
	# naming it and the input; in a batch where it applies to some, a warning on the others.
	"$smd2dmx" "$sample/arm.smd" "$sample/arm.vta" -o "$tmp/arm.dmx" -q
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/plain.dmx" -q
	try() { # want-rc want-stderr command...
		want_rc=$1 want_err=$2
		shift 2
		"$@" >/dev/null 2>"$tmp/err"
		check "$*" "$want_rc $want_err" "$? $(tr '\n' '|' <"$tmp/err")"
	}
	try 2 "smd2dmx: error: '--goldsrc' does not apply to '$sample/arm.smd' (it shapes SMD output)|" \
		"$smd2dmx" --goldsrc "$sample/arm.smd" -o "$tmp/g.dmx"
	# a model format the scene is not written back in (srctools' tf_movies.dmx is model 11):
	# --scale takes it through the scene, which says so (it once crashed here)
	sed '1s/format model 18/format model 11/' "$tmp/plain.dmx" >"$tmp/m11.dmx"
	try 1 "$tmp/m11.dmx: error: model format 11 (1, 15, 18 and 22 are written)|" \
		"$smdmx" convert "$tmp/m11.dmx" --to dmx -d "$tmp/m11" --scale 2
	try 0 "" "$smdmx" convert "$tmp/m11.dmx" --to dmx -d "$tmp/m11" --scale 2 --model-version 18
	try 2 "smd2dmx: error: '--lf' does not apply to '$sample/arm.smd' (it shapes SMD output)|" \
		"$smd2dmx" --lf "$sample/arm.smd" -o "$tmp/g.dmx"
	try 2 "smd2dmx: error: '--clip' does not apply to '$sample/arm.smd' (it picks a clip of an animation DMX)|" \
		"$smd2dmx" --clip run "$sample/arm.smd" -o "$tmp/g.dmx"
	try 2 "dmx2smd: error: '--fps' does not apply to '$tmp/arm.dmx' (a DMX's clips carry their frame rate)|" \
		"$dmx2smd" --fps 24 "$tmp/arm.dmx" -o "$tmp/g.smd"
	try 2 "dmx2smd: error: '--keys' does not apply to '$tmp/arm.dmx' (SMD output has every frame)|" \
		"$dmx2smd" --keys all "$tmp/arm.dmx" -o "$tmp/g.smd"
	try 2 "dmx2smd: error: '--target' does not apply to '$tmp/arm.dmx' (SMD output has no encoding or model format)|" \
		"$dmx2smd" --target sfm "$tmp/arm.dmx" -o "$tmp/g.smd"
	try 2 "dmx2smd: error: '--clips' does not apply to '$tmp/arm.dmx' (it gathers SMD animations into one DMX)|" \
		"$dmx2smd" --clips "$tmp/arm.dmx" -o "$tmp/g.smd"
	try 2 "smdmx: error: '--vta' does not apply to '$tmp/arm.dmx' (a DMX holds its shapes itself)|" \
		"$smdmx" convert --vta "$sample/arm.vta" "$tmp/arm.dmx" -o "$tmp/g.dmx"
	check "nothing written by a usage error" "" "$(ls "$tmp" | grep '^g\.')"
	# mixed: --fps applies to the SMD, not to the DMX beside it
	mkdir "$tmp/mix"
	try 0 "$tmp/arm.dmx: warning: '--fps' does not apply here (a DMX's clips carry their frame rate): ignored for this file; nothing to do|" \
		"$smdmx" convert --fps 24 "$tmp/arm.dmx" "$sample/arm_wave.smd" -d "$tmp/mix" --to dmx
	# what the file holds: --clip on a model, --vta with a model without shapes or an animation
	try 1 "$tmp/plain.dmx: error: --clip picks a clip, but the file has no animation|" \
		"$dmx2smd" --clip run "$tmp/plain.dmx" -o "$tmp/g.smd"
	try 1 "$tmp/plain.dmx: error: --vta names the VTA of the model's flex shapes, but there are none to write|" \
		"$dmx2smd" --vta "$tmp/g.vta" "$tmp/plain.dmx" -o "$tmp/g.smd"
	try 1 "$sample/arm_wave.smd: error: the file has no triangles for the shapes of a VTA|" \
		"$smd2dmx" --vta "$sample/arm.vta" "$sample/arm_wave.smd" -o "$tmp/g.dmx"
	check "nothing written by a failed file" "" "$(ls "$tmp" | grep '^g\.')"
	# dmx2smd --vta names the VTA written (and standard output can have one beside it)
	try 0 "" "$dmx2smd" --vta "$tmp/named.vta" "$tmp/arm.dmx" -o "$tmp/named.smd"
	check "--vta: the VTA under its name, none beside" "yes no" \
		"$([ -s "$tmp/named.vta" ] && echo yes || echo no) $([ -e "$tmp/named.smd.vta" ] || [ -e "$tmp/named.vta.vta" ] && echo yes || echo no)"
	"$dmx2smd" --vta "$tmp/out.vta" "$tmp/arm.dmx" -o - >"$tmp/out.smd" 2>"$tmp/err"
	check "--vta with -o -: both written" "0 yes" "$? $(cmp -s "$tmp/out.vta" "$tmp/named.vta" && echo yes || echo no)"
	try 2 "dmx2smd: error: --vta names the VTA written for one DMX, but 2 DMX files are converted to SMD|" \
		"$dmx2smd" --vta "$tmp/x.vta" "$tmp/arm.dmx" "$tmp/plain.dmx" -d "$tmp/two"
	# options about animation on a file without one: said, and -W error refuses it
	try 0 "$sample/arm.smd: warning: '--fps' does not apply here (the file has no animation): ignored; nothing to do|" \
		"$smd2dmx" --fps 24 "$sample/arm.smd" -o "$tmp/f.dmx"
	try 1 "$sample/arm.smd: error: '--keys' does not apply here (the file has no animation): ignored; nothing to do (-W error)|$sample/arm.smd: error: warnings are errors (-W error)|" \
		"$smd2dmx" --keys all -W error "$sample/arm.smd" -o "$tmp/k.dmx"
	mkdir "$tmp/b1" "$tmp/b2"
	cp "$sample/arm.smd" "$tmp/arm2.smd"
	try 0 "smd2dmx: warning: '--fps' took effect on no input: none of them has an animation; leave it out|" \
		"$smd2dmx" --fps 24 "$sample/arm.smd" "$tmp/arm2.smd" -d "$tmp/b1"
	try 0 "" "$smd2dmx" --fps 24 "$sample/arm.smd" "$sample/arm_wave.smd" -d "$tmp/b2"
	# DMX to DMX: the model options go through the scene; a plain re-encode is a copy
	"$smdmx" convert "$tmp/arm.dmx" -o "$tmp/sdk.dmx" --target sdk2013
	check "--target sdk2013 on a DMX: binary 2, model 1" "$tmp/sdk.dmx: model dmx, binary 2, format model 1, 20 elements" \
		"$("$smdmx" info "$tmp/sdk.dmx" | head -n 1)"
	"$smdmx" diff "$tmp/arm.dmx" "$tmp/sdk.dmx" >/dev/null
	check "the same model in model 1" 0 $?
	"$smdmx" convert "$tmp/arm.dmx" -o "$tmp/twice.dmx" --scale 2
	check "--scale on a DMX" "joint 'lower arm': bind position (10 0 0) vs (20 0 0)" "$("$smdmx" diff "$tmp/arm.dmx" "$tmp/twice.dmx" | head -n 1)"
	"$smdmx" convert "$sample/arm_wave.smd" -o "$tmp/wave.dmx" --keys all
	"$smdmx" convert "$tmp/wave.dmx" -o "$tmp/wave_reduced.dmx" --keys reduce
	check "--keys on a DMX: fewer keys" "yes" "$([ "$(wc -c <"$tmp/wave_reduced.dmx")" -lt "$(wc -c <"$tmp/wave.dmx")" ] && echo yes)"
	"$smdmx" convert "$tmp/arm.dmx" -o "$tmp/copy.dmx" --encoding binary
	"$smdmx" convert "$tmp/copy.dmx" -o "$tmp/copy2.dmx"
	check "a re-encode is a copy" "yes" "$(cmp -s "$tmp/arm.dmx" "$tmp/copy2.dmx" && echo yes)"
	sed 's/^	"name" "string" "arm"$/&\n	"custom" "int" "5"/' "$tmp/arm.dmx" >"$tmp/custom.dmx"
	try 0 "$tmp/custom.dmx: warning: 3 element types and attributes are not carried into the new model format (DmElement.custom, DmeMesh.custom, DmeModel.custom): left out; keep the source DMX if they matter|" \
		"$smdmx" convert "$tmp/custom.dmx" -o "$tmp/custom22.dmx" --model-version 22
	if [ -d "$corpus" ]; then
		f=$corpus/dmx_binary/TeamSpen210__srctools__binary_v5.dmx
		try 1 "$f: error: --model-version changes a model, but the file's format is 'dmx'|" \
			"$smdmx" convert "$f" -o "$tmp/g.dmx" --model-version 22
	fi
	;;

faithful)
	# Nothing lost or changed without a word: each case once converted with exit 0 and no word.
	# A VTA that pairs with no SMD among the inputs fails, named; the SMD converts.
	cp "$sample/arm.vta" "$tmp/other.vta"
	mkdir "$tmp/out"
	"$smd2dmx" "$sample/arm.smd" "$tmp/other.vta" -d "$tmp/out" -k 2>"$tmp/err"
	check "a VTA without its SMD" "1 $tmp/other.vta: error: a VTA holds the shapes of a reference, and no input is its SMD ('$tmp/other.smd'): give that beside it, or the reference with --vta|smd2dmx: error: 1 of 2 inputs failed|./arm.dmx " \
		"$? $(tr '\n' '|' <"$tmp/err")$(files "$tmp/out")"
	# Two clips of one name: --clips refuses them, naming both files; a DMX that has them
	# (other writers allow it) writes the second under a name of its own, said.
	mkdir "$tmp/a" "$tmp/b"
	cp "$sample/arm_wave.smd" "$tmp/a/walk.smd"
	cp "$sample/arm_wave.smd" "$tmp/b/walk.smd"
	cp "$sample/arm_wave.smd" "$tmp/b/run.smd"
	"$smd2dmx" --clips "$tmp/a/walk.smd" "$tmp/b/walk.smd" -o "$tmp/w.dmx" 2>"$tmp/err"
	check "--clips: two clips of one name" "1 $tmp/b/walk.smd: error: its clip is named 'walk', as the clip of '$tmp/a/walk.smd': clips are known by their names (rename a file)| no" \
		"$? $(tr '\n' '|' <"$tmp/err") $([ -e "$tmp/w.dmx" ] && echo yes || echo no)"
	"$smd2dmx" --clips "$tmp/a/walk.smd" "$tmp/b/run.smd" -o "$tmp/wr.dmx"
	sed 's/"name" "string" "run"/"name" "string" "walk"/' "$tmp/wr.dmx" >"$tmp/ww.dmx"
	mkdir "$tmp/clips"
	"$dmx2smd" "$tmp/ww.dmx" -o "$tmp/clips/x.smd" 2>"$tmp/err"
	check "a DMX with two clips of one name" "0 $tmp/ww.dmx: warning: clip 2 of the file is named 'walk' as an earlier one: written as 'walk_2'; nothing to do|./x_walk.smd ./x_walk_2.smd " \
		"$? $(tr '\n' '|' <"$tmp/err")$(files "$tmp/clips")"
	# An SMD whose triangles block is empty: a DMX that reads back, in every model format
	printf 'version 1\nnodes\n0 "root" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nend\n' >"$tmp/empty.smd"
	for v in 1 15 18 22; do
		"$smd2dmx" "$tmp/empty.smd" -o "$tmp/empty$v.dmx" --model-version $v --encoding binary -q 2>"$tmp/err" &&
			"$dmx2smd" "$tmp/empty$v.dmx" -o "$tmp/empty$v.smd" -q 2>>"$tmp/err" &&
			"$smdmx" diff "$tmp/empty.smd" "$tmp/empty$v.smd" -q >>"$tmp/err" 2>&1
		check "an empty triangles block through model $v" "0 " "$? $(tr '\n' '|' <"$tmp/err")"
	done
	# GoldSrc output: Blender's "socks.001" and "socks.002" stay two textures; what is merged
	# or left out is counted; no VTA
	"$smdmx" convert "$root/testdata/ok/goldsrc_socks.smd" -o "$tmp/gs.smd" --goldsrc 2>"$tmp/err"
	check "GoldSrc: what it merges, said" "0 $tmp/gs.smd: warning: GoldSrc has one bone per vertex: 1 vertices of several weight links put on their strongest; nothing to do (no GoldSrc SMD holds more)|$tmp/gs.smd: warning: 1 materials take the GoldSrc texture name of another ('skin.tga' and 'skin.png' are one texture); rename them in the source to keep them apart|$tmp/gs.smd: warning: GoldSrc names a texture by its image file: a material written as one ('socks.001' as 'socks.001.bmp'); nothing to do (4 times)|" \
		"$? $(tr '\n' '|' <"$tmp/err")"
	check "GoldSrc texture names" "socks.001.bmp|socks.002.bmp|skin.bmp|skin.bmp|" "$(grep -v '^[0-9 .-]*.$' "$tmp/gs.smd" | tr -d '\r' | sed -n '/^triangles$/,/^end$/p' | grep -v -e '^triangles$' -e '^end$' | tr '\n' '|')"
	"$smd2dmx" "$sample/arm.smd" "$sample/arm.vta" -o "$tmp/armf.dmx" -q
	mkdir "$tmp/gold"
	"$dmx2smd" "$tmp/armf.dmx" --goldsrc -o "$tmp/gold/arm.smd" 2>"$tmp/err"
	check "GoldSrc from a DMX with shapes: no VTA, said" "0 $tmp/gold/arm.smd: warning: GoldSrc has one bone per vertex: 4 vertices of several weight links put on their strongest; nothing to do (no GoldSrc SMD holds more)|$tmp/gold/arm.smd: warning: GoldSrc names a texture by its image file: a material written as one ('arm_skin' as 'arm_skin.bmp'); nothing to do|$tmp/gold/arm.smd: warning: GoldSrc has no flex: 1 shapes left out; nothing to do (no GoldSrc SMD holds them)|./arm.smd " \
		"$? $(tr '\n' '|' <"$tmp/err")$(files "$tmp/gold")"
	"$dmx2smd" "$tmp/armf.dmx" --goldsrc --vta "$tmp/gold/x.vta" -o "$tmp/gold/b.smd" 2>/dev/null
	check "--goldsrc with --vta" 2 $?
	# A clip starts at time 0 with its keys from its first frame, as Valve's readers and
	# Blender Source Tools' agree (studiomdl counts an SMD's frames from its first too)
	awk '/^time /{ $2 = $2 + 10 } { print }' "$sample/arm_wave.smd" >"$tmp/w10.smd"
	"$smd2dmx" "$tmp/w10.smd" -o "$tmp/w10.dmx" -q
	check "a clip from frame 10: its time frame" '"start" "time" "0.0000"|"duration" "time" "0.3333"|"offset" "time" "0.0000"|' \
		"$(grep -e '"start" "time"' -e '"duration" "time"' -e '"offset" "time"' "$tmp/w10.dmx" | tr -d '\t' | tr '\n' '|')"
	check "its first keys at 0" '"times" "time_array" [ "0.0000",' "$(grep -m 1 -o '"times" "time_array" \[ "[0-9.]*",' "$tmp/w10.dmx")"
	"$dmx2smd" "$tmp/w10.dmx" -o "$tmp/w10b.smd" -q
	check "back: frames from 0, the same animation" "time 0 0" "$(grep -m 1 '^time' "$tmp/w10b.smd" | tr -d '\r') $("$smdmx" diff "$tmp/w10.smd" "$tmp/w10b.smd" -q; echo $?)"
	# a clip of another rate: SMD cannot say it; the QC's $sequence can
	"$smd2dmx" "$tmp/w10.smd" --fps 24 -o "$tmp/w24.dmx" -q
	"$dmx2smd" "$tmp/w24.dmx" -o "$tmp/w24.smd" 2>"$tmp/err"
	check "24 fps to SMD, said" "0 $tmp/w24.smd: warning: SMD has no frame rate, and studiomdl reads 30 fps unless the QC's \$sequence says fps: 1 clips are not 30 fps ('w10' is 24); add 'fps' to their \$sequence lines (dmx2smd --qc writes it)|" \
		"$? $(tr '\n' '|' <"$tmp/err")"
	mkdir "$tmp/q"
	"$dmx2smd" "$tmp/w24.dmx" -o "$tmp/q/w24.smd" --qc "$tmp/q/w24.qc" 2>"$tmp/err"
	check "24 fps with --qc: the QC says it" '0 |$sequence "w10" "w24.smd" fps 24|' "$? $(cat "$tmp/err")|$(cat "$tmp/q/w24.qc" | tr '\n' '|')"
	# flipVCoordinates false (Source 2's exports): V turned for SMD; without the flag, as stored
	printf 'version 1\nnodes\n0 "root" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0.25\n0 1 0 0 0 0 1 1 0.5\n0 0 1 0 0 0 1 0 1\nend\n' >"$tmp/uv.smd"
	"$smd2dmx" "$tmp/uv.smd" -o "$tmp/uv.dmx" -q
	sed 's/"flipVCoordinates" "bool" "1"/"flipVCoordinates" "bool" "0"/' "$tmp/uv.dmx" >"$tmp/uv0.dmx"
	grep -v flipVCoordinates "$tmp/uv.dmx" >"$tmp/uvx.dmx"
	"$dmx2smd" "$tmp/uv0.dmx" -o "$tmp/uv0.smd" -v 2>"$tmp/err"
	check "flipVCoordinates false: V turned, said in the note" "0.750000 0.500000 0.000000 |$tmp/uv0.dmx: note: 1 joint, 1 mesh (1 polygons), 0 flex shapes, 0 clips, UV V turned (flipVCoordinates false) in 1 mesh -> $tmp/uv0.smd" \
		"$(awk '/^0 / && NF >= 9 { printf "%s ", $9 }' "$tmp/uv0.smd")|$(cat "$tmp/err")"
	"$dmx2smd" "$tmp/uvx.dmx" -o "$tmp/uvx.smd" -q
	check "no flag: V as stored" "0.250000 0.500000 1.000000 |  UV V as stored in 1 meshes without flipVCoordinates: read as Source 1 writes it" \
		"$(awk '/^0 / && NF >= 9 { printf "%s ", $9 }' "$tmp/uvx.smd")|$("$smdmx" info "$tmp/uvx.dmx" | tail -n 1)"
	# Source 2's DmeAxisSystem up axis is read; SMD cannot say it, the QC's $upaxis can
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/a22.dmx" --model-version 22 -q
	sed 's/"upAxis" "int" "3"/"upAxis" "int" "2"/' "$tmp/a22.dmx" >"$tmp/y22.dmx"
	"$dmx2smd" "$tmp/y22.dmx" -o "$tmp/y22.smd" 2>"$tmp/err"
	check "a Y-up DmeAxisSystem to SMD, said" "0 $tmp/y22.smd: warning: the model is Y up, and SMD cannot say so: written as it is; add '\$upaxis Y' to its QC (dmx2smd --qc writes it)|" \
		"$? $(tr '\n' '|' <"$tmp/err")"
	mkdir "$tmp/yq"
	"$dmx2smd" "$tmp/y22.dmx" -o "$tmp/yq/y22.smd" --qc "$tmp/yq/y22.qc" 2>"$tmp/err"
	check "with --qc: \$upaxis Y" "0 |\$upaxis Y" "$? $(cat "$tmp/err")|$(head -n 1 "$tmp/yq/y22.qc")"
	# vertex data the scene has no place for is counted and named
	sed 's/^	"jointCount" "int" "2"$/&\n	"VertexPaintTintColor$0" "vector4_array" [ "1 1 1 1" ]\n	"cloth_enable$0" "float_array" [ "1" ]/' "$tmp/a22.dmx" >"$tmp/paint.dmx"
	"$dmx2smd" "$tmp/paint.dmx" -o "$tmp/paint.smd" 2>"$tmp/err"
	check "vertex data not carried, said" "0 $tmp/paint.dmx: warning: vertex data smdmx does not carry, left out: VertexPaintTintColor\$0, cloth_enable\$0; keep the source DMX if they matter (2 times)|" \
		"$? $(tr '\n' '|' <"$tmp/err")"
	# binary before 9 has no place for prefix attributes: by default binary 9 holds them, binary
	# 5 asked for leaves them out, said
	printf '<!-- dmx encoding keyvalues2 4 format model 22 -->\n"$prefix_element$"\n{\n\t"asset" "string" "x"\n}\n"DmElement"\n{\n\t"id" "elementid" "11111111-2222-3333-4444-555555555555"\n\t"name" "string" "root"\n}\n' >"$tmp/prefix.dmx"
	"$smdmx" convert "$tmp/prefix.dmx" -o "$tmp/prefixd.dmx" --encoding binary 2>"$tmp/err"
	check "prefix attributes into binary: 9 by default, kept" "0 <!-- dmx encoding binary 9 format model 22 --> " \
		"$? $(head -c 46 "$tmp/prefixd.dmx") $(cat "$tmp/err")"
	"$smdmx" convert "$tmp/prefix.dmx" -o "$tmp/prefix5.dmx" --encoding binary --encoding-version 5 2>"$tmp/err"
	check "prefix attributes into binary 5, said" "0 $tmp/prefix.dmx: warning: 1 prefix attributes left out: binary version 5 has no place for them; use --encoding-version 9 to keep them|" \
		"$? $(tr '\n' '|' <"$tmp/err")"
	"$smdmx" convert "$tmp/prefix.dmx" -o "$tmp/prefix9.dmx" --encoding binary --encoding-version 9 2>"$tmp/err"
	check "into binary 9: kept" "0 " "$? $(cat "$tmp/err")"
	# s&box's binary_seqids (testdata/model/arm_seqids.dmx, arm_source2.dmx written so by
	# smdmx): read as binary 9, the same model; through binary 9 and back the same bytes; a
	# version it has not is a usage error, nothing written
	seq=$root/testdata/model/arm_seqids.dmx
	"$smdmx" info "$seq" >"$tmp/seqout" 2>"$tmp/err"
	check "binary_seqids: read" "0 $seq: model dmx, binary_seqids 9, format model 22, 21 elements" "$? $(head -n 1 "$tmp/seqout")$(cat "$tmp/err")"
	"$smdmx" diff "$root/testdata/model/arm_source2.dmx" "$seq" >"$tmp/seqout" 2>&1
	check "binary_seqids: the model of its binary 9 source" "0 " "$? $(cat "$tmp/seqout")"
	"$smdmx" convert "$seq" -o "$tmp/seq9.dmx" --encoding binary --encoding-version 9 2>"$tmp/err" &&
		"$smdmx" convert "$tmp/seq9.dmx" -o "$tmp/seqback.dmx" --encoding binary_seqids 2>>"$tmp/err"
	check "binary_seqids to binary 9 and back: the same bytes" "0 <!-- dmx encoding binary 9 format model 22 --> " \
		"$(cmp "$seq" "$tmp/seqback.dmx" >/dev/null; echo $?) $(head -c 46 "$tmp/seq9.dmx") $(cat "$tmp/err")"
	"$smdmx" convert "$seq" -o "$tmp/seq5.dmx" --encoding binary_seqids --encoding-version 5 2>"$tmp/err"
	check "binary_seqids 5: a usage error" "2 smdmx: error: --encoding binary_seqids is version 9 only, not 5 (try 'smdmx convert --help') no" \
		"$? $(cat "$tmp/err") $([ -e "$tmp/seq5.dmx" ] && echo yes || echo no)"
	# a model DMX with clips: each clip an SMD beside the reference, and with --qc a $sequence
	"$smd2dmx" --clips "$sample/arm.smd" "$sample/arm_wave.smd" -o "$tmp/mc.dmx" -q
	mkdir "$tmp/mc"
	"$dmx2smd" "$tmp/mc.dmx" -o "$tmp/mc/m.smd" --qc "$tmp/mc/m.qc" 2>"$tmp/err"
	check "a model's clips beside its reference" '0 ./m.qc ./m.smd ./m_arm_wave.smd |$model "m" "m.smd"|$sequence "arm_wave" "m_arm_wave.smd" fps 30|' \
		"$? $(cat "$tmp/err")$(files "$tmp/mc")|$(tr '\n' '|' <"$tmp/mc/m.qc")"
	# -W error fails exactly the files of testdata whose conversion warns (features.smd's
	# weights do not sum to 1, arm_wave_stub.dmx names elements of another file, ...), and
	# every other file converts: the two lists are the same, and neither is empty
	failing="" warning=""
	mkdir "$tmp/we"
	for f in "$root"/testdata/ok/* "$sample"/* "$root"/testdata/model/*; do
		case $f in
		*.dmx) p=$dmx2smd o=t.smd ;;
		*.vta) continue ;;
		*) p=$smd2dmx o=t.dmx ;;
		esac
		"$p" "$f" -o "$tmp/we/$o" -f 2>"$tmp/we/err" || failing="$failing (fails without -W error: $(basename "$f"))"
		grep -q ': warning: ' "$tmp/we/err" && warning="$warning $(basename "$f")"
		"$p" -W error "$f" -o "$tmp/we/$o" -f 2>/dev/null || failing="$failing $(basename "$f")"
	done
	check "-W error on testdata: what warns fails, the rest converts" "$warning" "$failing"
	check "-W error on testdata: some warn" 1 "$(echo "$warning" | grep -c 'features.smd.*arm_wave_stub.dmx')"
	# README stands alone: no decision numbers, no FORMATS.md the repository does not have
	# (its own doc/formats.md it may name)
	check "README names no decisions and no FORMATS.md" 0 \
		"$({ grep -i 'decision [0-9]' "$root/README.md"; grep 'FORMATS\.md' "$root/README.md"; } | wc -l | tr -d ' ')"
	;;

everyday)
	gen=/nonexistent
	# -u: only what is out of date, as make does; what is up to date is counted
	mkdir "$tmp/up"
	cp "$sample/arm.smd" "$sample/arm.vta" "$sample/arm_wave.smd" "$tmp/up/"
	"$smd2dmx" -u "$tmp/up/arm.smd" "$tmp/up/arm.vta" "$tmp/up/arm_wave.smd" -d "$tmp/up/o" 2>"$tmp/err"
	check "-u, first run: both converted" "0 ./arm.dmx ./arm_wave.dmx " "$? $(cat "$tmp/err")$(files "$tmp/up/o")"
	touch -d '2000-01-01' "$tmp/up/arm.smd" "$tmp/up/arm.vta" "$tmp/up/arm_wave.smd"
	before=$(ls -l --time-style=+%s.%N "$tmp/up/o")
	"$smd2dmx" -u "$tmp/up/arm.smd" "$tmp/up/arm.vta" "$tmp/up/arm_wave.smd" -d "$tmp/up/o" --depfile "$tmp/up/deps" 2>"$tmp/err"
	check "-u again: nothing to do, said" "0 smd2dmx: note: 2 of 2 inputs up to date (-u)" "$? $(cat "$tmp/err")"
	check "-u again: outputs untouched" "$before" "$(ls -l --time-style=+%s.%N "$tmp/up/o")"
	check "-u again: the depfile lists them" 2 "$(grep -c '\.dmx:' "$tmp/up/deps")"
	touch "$tmp/up/arm.vta"
	"$smd2dmx" -u -v "$tmp/up/arm.smd" "$tmp/up/arm.vta" "$tmp/up/arm_wave.smd" -d "$tmp/up/o" 2>"$tmp/err"
	check "-u after the VTA changed: the model redone, replaced" "0 1 smd2dmx: note: 1 of 2 inputs up to date (-u)" \
		"$? $(grep -c 'arm.smd: note:' "$tmp/err") $(tail -n 1 "$tmp/err")"
	"$smd2dmx" "$tmp/up/arm.smd" -d "$tmp/up/o" 2>/dev/null
	check "without -u or -f an output that is there is an error" 1 $?
	# -o creates the directories it needs, as -d does
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/new/dir/a.dmx" 2>"$tmp/err"
	check "-o into a directory not there yet" "0 ./new/dir/a.dmx" "$? $(cd "$tmp" && find ./new -type f)"
	# "-" everywhere: told by content, any format out to -o -, named with --name
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/arm.dmx" -q
	check "info - of a DMX" "-: model dmx, keyvalues2 1, format model 18, 17 elements" "$("$smdmx" info - <"$tmp/arm.dmx" | head -n 1)"
	check "info - of an SMD" "-: reference smd, version 1" "$("$smdmx" info - <"$sample/arm.smd" | head -n 1)"
	check "check - of a DMX" 0 "$("$smdmx" check - <"$tmp/arm.dmx" >/dev/null 2>&1; echo $?)"
	check "diff - with a file" 0 "$("$smdmx" diff - "$sample/arm.smd" <"$tmp/arm.dmx" >/dev/null 2>&1; echo $?)"
	check "dump -" 'DmElement "arm"' "$("$smdmx" dump - <"$tmp/arm.dmx" | sed -n 2p | cut -d' ' -f1-2)"
	"$smdmx" convert - -o - --to dmx --encoding binary <"$sample/arm.smd" >"$tmp/bin.dmx"
	check "convert to binary DMX on standard output" "-: model dmx, binary 5, format model 18, 17 elements" "$("$smdmx" info - <"$tmp/bin.dmx" | head -n 1)"
	check "convert a DMX on standard input to SMD" "version 1" "$("$smdmx" convert - -o - --to smd <"$tmp/arm.dmx" | head -n 1 | tr -d '\r')"
	check "a model from standard input is named stdin" '"name" "string" "stdin"' "$("$smd2dmx" - -o - <"$sample/arm.smd" | grep -m 1 -o '"name" "string" "[a-z]*"')"
	check "--name names it" '"name" "string" "arm"' "$("$smd2dmx" - -o - --name arm <"$sample/arm.smd" | grep -m 1 -o '"name" "string" "[a-z]*"')"
	# "-" with -d writes DIR/NAME.EXT, in every program; a depfile never names "-"
	"$smd2dmx" - -d "$tmp/sd" --depfile "$tmp/sd.d" <"$sample/arm.smd" >"$tmp/sd.out"
	check "- with -d: DIR/stdin.dmx, nothing on standard output" "0:./stdin.dmx :0" "$?:$(files "$tmp/sd"):$(wc -c <"$tmp/sd.out" | tr -d ' ')"
	check "- with -d: the depfile names no -" "$tmp/sd/stdin.dmx:" "$(cat "$tmp/sd.d")"
	"$smd2dmx" - -d "$tmp/sd" --name arm <"$sample/arm.smd"
	"$dmx2smd" - -d "$tmp/sd" --name back <"$tmp/sd/stdin.dmx"
	"$smdmx" convert - --to dmx -d "$tmp/sd" --name conv <"$sample/arm.smd"
	check "- with -d and --name, in smd2dmx, dmx2smd and smdmx convert" "./arm.dmx ./back.smd ./conv.dmx ./stdin.dmx " "$(files "$tmp/sd")"
	"$smd2dmx" - -o - --depfile "$tmp/x.d" <"$sample/arm.smd" >/dev/null 2>"$tmp/err"
	check "--depfile with -o -" "2:smd2dmx: error: --depfile with the output on standard output: make cannot depend on it (give -o FILE or -d DIR) (try 'smd2dmx --help')" "$?:$(cat "$tmp/err")"
	"$smd2dmx" - -d "$tmp/sd" --name ../x <"$sample/arm.smd" 2>"$tmp/err"
	check "--name that is a path" "2:smd2dmx: error: --name is the name of the model read from standard input, not a path (try 'smd2dmx --help')" "$?:$(cat "$tmp/err")"
	# a closed pipe: quiet, ended by SIGPIPE (status 141 in the shell)
	"$gen" 2000 10 >"$tmp/big.smd" 2>/dev/null || awk 'BEGIN { print "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles"; for (i = 0; i < 20000; i++) printf "m\n0 %d 0 0 0 0 1 0 0\n0 %d 1 0 0 0 1 0 0\n0 %d 0 1 0 0 1 0 0\n", i, i, i; print "end" }' >"$tmp/big.smd"
	( "$smd2dmx" "$tmp/big.smd" -o - 2>"$tmp/err"; echo $? >"$tmp/rc" ) | head -c 100 >/dev/null
	if [ -n "$windows" ]; then want_rc=1; else want_rc=141; fi # Windows has no SIGPIPE
	# Under Wine, Wine's own connection to its server may break on the same closed pipe and
	# say so ("wine client error:..."): Wine's words, not the program's, so they are set aside
	check "a closed pipe ends it quietly" "$want_rc " "$(cat "$tmp/rc") $(grep -v '^wine client error:' "$tmp/err")"
	;;

readback-*)
	# Every output reads back: every SMD, VTA and DMX of testdata/ (but bad/) and of the corpus
	# along every path, and each output read again (converted back). Inputs that are no model
	# (a VTA without its SMD, DMX files of other formats) fail as they should; what is
	# written must read. Three groups, each in its own time: to DMX of every model version
	# (and DMX to DMX), to SMD (and GoldSrc SMD), and re-encoded in each encoding.
	mkdir "$tmp/in"
	cp -r "$root/testdata/ok" "$root/testdata/sample" "$root/testdata/model" "$root/testdata/qc" "$tmp/in/"
	[ -d "$corpus" ] && corpus_copy "$tmp/in/corpus" || echo "skipped the corpus: there is none at $corpus"
	count() { find "$1" -type f | wc -l | tr -d ' '; }
	case $group in
	readback-dmx)
		for m in 1 15 18 22; do
			"$smd2dmx" -r "$tmp/in" -d "$tmp/dmx$m" --model-version $m --encoding binary --encoding-version $([ $m = 22 ] && echo 9 || echo 5) -k -q 2>/dev/null
			"$dmx2smd" -r "$tmp/dmx$m" -d "$tmp/dmx${m}_back" -k -q 2>"$tmp/err"
			check "SMD to DMX model $m: all $(count "$tmp/dmx$m") outputs read" "0 " "$? $(head -n 3 "$tmp/err")"
		done
		for m in 1 22; do
			"$smdmx" convert -r "$tmp/dmx18" -d "$tmp/dd$m" --to dmx --model-version $m -k -q 2>/dev/null
			"$dmx2smd" -r "$tmp/dd$m" -d "$tmp/dd${m}_back" -k -q 2>"$tmp/err"
			check "DMX to DMX model $m: all $(count "$tmp/dd$m") outputs read" "0 " "$? $(head -n 3 "$tmp/err")"
		done
		;;
	readback-smd)
		"$dmx2smd" -r "$tmp/in" -d "$tmp/smd" -k -q 2>/dev/null
		"$smd2dmx" -r "$tmp/smd" -d "$tmp/smd_back" -k -q 2>"$tmp/err"
		check "DMX to SMD and VTA: all $(count "$tmp/smd") outputs read" "0 " "$? $(head -n 3 "$tmp/err")"
		"$dmx2smd" -r "$tmp/in" -d "$tmp/gold" --goldsrc -k -q 2>/dev/null
		"$smd2dmx" -r "$tmp/gold" -d "$tmp/gold_back" -k -q 2>"$tmp/err"
		check "DMX to GoldSrc SMD: all $(count "$tmp/gold") outputs read" "0 " "$? $(head -n 3 "$tmp/err")"
		;;
	readback-encodings)
		# each encoding's outputs read back by one start, re-encoded again (as they were made:
		# DMX of other formats than models are re-encoded, not converted); a start a file (smdmx
		# dump) cost minutes under Wine
		for e in keyvalues2 keyvalues2_flat binary; do
			"$smdmx" convert -r "$tmp/in" -d "$tmp/re_$e" --to dmx --encoding $e -k -q 2>/dev/null
			"$smdmx" convert -r "$tmp/re_$e" -d "$tmp/re_${e}_back" --to dmx --encoding keyvalues2 -k -q 2>"$tmp/err"
			check "re-encoded as $e: all $(count "$tmp/re_$e") outputs read" "0 " "$? $(head -n 3 "$tmp/err")"
		done
		;;
	*)
		echo "unknown group $group"
		exit 2
		;;
	esac
	[ -n "${SMDMX_VERBOSE:-}" ] && find "$tmp" -maxdepth 1 -type d | while read -r d; do echo "$(count "$d") $d"; done
	;;

windows)
	# What Windows users meet, tested on every system (the Windows build runs it under Wine):
	# names in any language, binary bytes through pipes, paths written the Windows way.
	dir="$tmp/Mods/Модели"
	mkdir -p "$dir"
	cp "$sample/arm.smd" "$dir/héros.smd"
	"$smd2dmx" "$dir/héros.smd" -v 2>"$tmp/err"
	check "a name in another script converts" "0 yes" "$? $([ -f "$dir/héros.dmx" ] && echo yes)"
	check "its name in messages, as UTF-8" "$dir/héros.smd: note: 2 joints, 1 mesh (20 polygons), 0 flex shapes, 0 clips as 17 elements, model format 18 -> $dir/héros.dmx" "$(grep -e '->' "$tmp/err")"
	"$dmx2smd" "$dir/héros.dmx" -d "$tmp/Mods/Выход/ç" -q
	check "and back into a new folder of such names" "0 yes" "$? $([ -f "$tmp/Mods/Выход/ç/héros.smd" ] && echo yes)"
	check "the round trip means the same" "" "$("$smdmx" diff "$dir/héros.smd" "$tmp/Mods/Выход/ç/héros.smd")"
	# A binary DMX through standard input and output arrives byte for byte (no text mode).
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/file.dmx" --encoding binary -q
	"$smd2dmx" - -o - --encoding binary --name arm <"$sample/arm.smd" >"$tmp/piped.dmx"
	check "binary DMX to standard output" "" "$(cmp "$tmp/file.dmx" "$tmp/piped.dmx" 2>&1)"
	"$smdmx" convert - -o - --to dmx --encoding binary <"$tmp/file.dmx" >"$tmp/through.dmx"
	check "binary DMX through both" "" "$(cmp "$tmp/file.dmx" "$tmp/through.dmx" 2>&1)"
	check "it holds the bytes text mode would change" "yes" "$(od -An -tx1 "$tmp/file.dmx" | grep -q ' 0a' && echo yes)"
	# CRLF as the writer chose: --lf on input with CRLF, and the default kept.
	"$dmx2smd" - -o - <"$tmp/file.dmx" >"$tmp/crlf.smd"
	check "an SMD to standard output has the file's line ends" "$(wc -c <"$sample/arm.smd")" "$(wc -c <"$tmp/crlf.smd")"
	# Files dropped on a program in Explorer (SMDMX_DROPPED=1 does what a console of its own
	# does): each converts beside itself to the other format, then it waits for a key.
	mkdir "$tmp/drop"
	cp "$sample/arm.smd" "$sample/arm_wave.smd" "$tmp/drop/"
	"$smd2dmx" "$sample/arm.smd" -o "$tmp/drop/m.dmx" -q
	printf '\n' | SMDMX_DROPPED=1 "$smdmx" "$tmp/drop/arm.smd" "$tmp/drop/arm_wave.smd" "$tmp/drop/m.dmx" >"$tmp/out" 2>"$tmp/err"
	check "dropped files convert beside themselves" "0 ./arm.dmx ./arm.smd ./arm_wave.dmx ./arm_wave.smd ./m.dmx ./m.smd " "$? $(files "$tmp/drop")"
	check "and say what they wrote, then wait" "3|smdmx: done|Press Enter to close this window." "$(grep -c -e ' -> ' "$tmp/err")|$(tail -n 2 "$tmp/err" | tr '\n' '|' | sed 's/|$//')"
	printf '\n' | SMDMX_DROPPED=1 "$smd2dmx" "$tmp/drop/arm.smd" >/dev/null 2>"$tmp/err"
	check "dropped again: the output is kept, and it says what to do in Explorer" "1 $tmp/drop/arm.dmx: error: '$tmp/drop/arm.dmx' is already there, and was kept: delete it or move it away in Explorer, then drop again|smd2dmx: finished with errors (above)" "$? $(grep -v 'Press Enter' "$tmp/err" | tr '\n' '|' | sed 's/|$//')"
	# Folders dropped: the files below them, as -r finds them; with files, on smdmx too
	# (SMD-family files to DMX, DMX to SMD), and one output already there stops no other.
	mkdir -p "$tmp/drop2/models/deep" "$tmp/drop2/loose"
	cp "$sample/arm.smd" "$tmp/drop2/models/"
	cp "$sample/arm_wave.smd" "$tmp/drop2/models/deep/"
	cp "$tmp/drop/m.dmx" "$tmp/drop2/models/deep/m.dmx"
	cp "$sample/arm.smd" "$tmp/drop2/loose/x.smd"
	printf '\n' | SMDMX_DROPPED=1 "$smdmx" "$tmp/drop2/models" "$tmp/drop2/loose/x.smd" >/dev/null 2>"$tmp/err"
	check "a folder and a file dropped on smdmx convert beside themselves" "0 ./loose/x.dmx ./loose/x.smd ./models/arm.dmx ./models/arm.smd ./models/deep/arm_wave.dmx ./models/deep/arm_wave.smd ./models/deep/m.dmx ./models/deep/m.smd  4" \
		"$? $(files "$tmp/drop2") $(grep -c ' -> ' "$tmp/err")"
	rm "$tmp/drop2/models/arm.dmx" "$tmp/drop2/models/deep/arm_wave.dmx"
	printf '\n' | SMDMX_DROPPED=1 "$smd2dmx" "$tmp/drop2/models/" >/dev/null 2>"$tmp/err"
	check "a folder dropped on smd2dmx: each SMD converts, one output already there stops none" "1 yes yes|$tmp/drop2/models/deep/m.dmx: error: '$tmp/drop2/models/deep/m.dmx' is already there, and was kept: delete it or move it away in Explorer, then drop again" \
		"$? $([ -f "$tmp/drop2/models/arm.dmx" ] && echo yes) $([ -f "$tmp/drop2/models/deep/arm_wave.dmx" ] && echo yes)|$(grep 'already there' "$tmp/err")"
	mkdir "$tmp/drop2/empty"
	printf '\n' | SMDMX_DROPPED=1 "$dmx2smd" "$tmp/drop2/empty" >/dev/null 2>"$tmp/err"
	check "a folder with nothing to convert: said" "0 dmx2smd: note: '$tmp/drop2/empty' holds no file dmx2smd converts" "$? $(head -n 1 "$tmp/err")"
	printf '\n' | SMDMX_DROPPED=1 "$dmx2smd" >"$tmp/out" 2>"$tmp/err"
	check "started with nothing: its help, and the wait" "0 usage: dmx2smd|Press Enter to close this window." "$? $(head -n 1 "$tmp/out" | cut -c1-14)|$(tail -n 1 "$tmp/err")"
	check "its help names what dmx2smd takes dropped: DMX" "Drop DMX files, or folders of them, on dmx2smd to convert them to SMD (and VTA) beside" \
		"$(grep '^Drop ' "$tmp/out")"
	printf '\n' | SMDMX_DROPPED=1 "$smd2dmx" >"$tmp/out" 2>/dev/null
	check "smd2dmx's help: SMD, a VTA with its SMD" "Drop SMD files (a VTA goes with the SMD of its name beside it), or folders of them, on" \
		"$(grep '^Drop ' "$tmp/out")"
	# A VTA dropped goes with the SMD of its name beside it: one DMX with its shapes (dropped
	# alone, or with the SMD); a VTA with no SMD beside it is said, in a dropper's words
	mkdir "$tmp/drop3"
	cp "$sample/arm.smd" "$sample/arm.vta" "$tmp/drop3/"
	printf '\n' | SMDMX_DROPPED=1 "$smd2dmx" "$tmp/drop3/arm.vta" >/dev/null 2>"$tmp/err"
	check "a VTA dropped alone: converted with its SMD beside it" "0 ./arm.dmx ./arm.smd ./arm.vta |flex shapes 1" \
		"$? $(files "$tmp/drop3")|$("$smdmx" info "$tmp/drop3/arm.dmx" | grep -o 'flex shapes *[0-9]*' | tr -s ' ')"
	rm "$tmp/drop3/arm.dmx"
	printf '\n' | SMDMX_DROPPED=1 "$smdmx" "$tmp/drop3/arm.vta" "$tmp/drop3/arm.smd" >/dev/null 2>"$tmp/err"
	check "a VTA and its SMD dropped on smdmx: one DMX, with the shapes" "0 ./arm.dmx ./arm.smd ./arm.vta |flex shapes 1|1" \
		"$? $(files "$tmp/drop3")|$("$smdmx" info "$tmp/drop3/arm.dmx" | grep -o 'flex shapes *[0-9]*' | tr -s ' ')|$(grep -c ' -> ' "$tmp/err")"
	cp "$sample/arm.vta" "$tmp/drop3/lone.vta"
	printf '\n' | SMDMX_DROPPED=1 "$smd2dmx" "$tmp/drop3/lone.vta" >/dev/null 2>"$tmp/err"
	check "a VTA with no SMD of its name beside it: said, exit 1" "1 $tmp/drop3/lone.vta: error: a VTA holds a model's shapes, and there is no SMD of its name beside it: put it beside its reference SMD and drop it again" \
		"$? $(head -n 1 "$tmp/err")"
	# A QC dropped on smdmx: its whole project, into a folder beside the QC's, in the format its
	# models are not in
	mkdir -p "$tmp/drop4/hero"
	cp "$root/testdata/qc/face/"* "$tmp/drop4/hero/"
	printf '\n' | SMDMX_DROPPED=1 "$smdmx" "$tmp/drop4/hero/face.qc" >/dev/null 2>"$tmp/err"
	check "a QC dropped on smdmx: its project into hero_dmx beside hero" "0 yes yes|smdmx: done" \
		"$? $([ -f "$tmp/drop4/hero_dmx/face.qc" ] && echo yes) $([ -f "$tmp/drop4/hero_dmx/face.dmx" ] && echo yes)|$(grep -v 'Press Enter' "$tmp/err" | tail -n 1)"
	printf '\n' | SMDMX_DROPPED=1 "$smdmx" "$tmp/drop4/hero_dmx/face.qc" >/dev/null 2>"$tmp/err"
	check "and that project's QC dropped: back to SMD, into hero_dmx_smd" "0 yes" "$? $([ -f "$tmp/drop4/hero_dmx_smd/face.smd" ] && echo yes)"
	# A folder that holds QCs dropped on smdmx: its projects, as smdmx qc -r converts them, into
	# a folder beside it; a model file no QC names is left, said with its count
	mkdir -p "$tmp/drop5/heroes/face"
	cp "$root/testdata/qc/face/"* "$tmp/drop5/heroes/face/"
	cp "$sample/arm.smd" "$tmp/drop5/heroes/loose.smd"
	printf '\n' | SMDMX_DROPPED=1 "$smdmx" "$tmp/drop5/heroes" >/dev/null 2>"$tmp/err"
	check "a folder of QCs dropped on smdmx: its projects into heroes_dmx" "0 ./heroes/face/face.qc ./heroes/face/face.smd ./heroes/face/face.vta ./heroes/face/face_flexes.qci ./heroes/loose.smd ./heroes_dmx/.smdmx-written ./heroes_dmx/face/face.dmx ./heroes_dmx/face/face.qc ./heroes_dmx/face/face_flexes.qci " "$? $(files "$tmp/drop5")"
	check "and the file no QC names said" "smdmx: note: 1 model file in '$tmp/drop5/heroes' is named by no QC and was not converted: drop it on smdmx by itself to convert it" "$(grep 'named by no QC' "$tmp/err")"
	# A program on a terminal of its own ends without waiting for a key: only Explorer's start
	# waits (tests/test_console.c). Under Wine a pseudo-terminal makes a console only the
	# program uses, as start, a scheduled task or a build tool's new console do on Windows; a
	# program that waited whenever it owned its console never ended here.
	if command -v script >/dev/null 2>&1; then
		timeout 60 script -qec "'$smd2dmx' '$tmp/drop/arm.smd' -o '$tmp/drop/pty.dmx' -q" /dev/null </dev/null >"$tmp/pty" 2>&1
		check "a console of its own: it ends, and waits for nothing" "0 yes no" \
			"$? $([ -f "$tmp/drop/pty.dmx" ] && echo yes || echo no) $(sed 's/\x1b\[[?0-9;]*[A-Za-z]//g' "$tmp/pty" | tr -d '\r\n' | grep -q 'Press' && echo yes || echo no)"
	fi
	if [ -n "$windows" ]; then
		# Paths with '\' and a drive: Wine shows the Linux root as Z:
		win=$(printf 'Z:%s' "$tmp" | tr '/' '\\')
		mkdir "$tmp/w"
		cp "$sample/arm.smd" "$tmp/w/arm.smd"
		"$smd2dmx" "$win\\w\\arm.smd" -q
		check "a Windows path: the output beside its input" "0 yes" "$? $([ -f "$tmp/w/arm.dmx" ] && echo yes)"
		"$smd2dmx" "$win\\w\\arm.smd" -d "$win\\w\\out\\deep" -q --depfile "$win\\w\\d.d"
		check "-d with '\\' makes its folders" "0 yes" "$? $([ -f "$tmp/w/out/deep/arm.dmx" ] && echo yes)"
		check "the depfile's paths with '/' (make and ninja read them)" "$(printf 'Z:%s/w/out/deep/arm.dmx: Z:%s/w/arm.smd' "$tmp" "$tmp")" "$(cat "$tmp/w/d.d")"
		"$smd2dmx" "$win\\w\\ARM.SMD" -o "$win\\w\\upper.dmx" -q
		check "names ignore case" "0 yes" "$? $([ -f "$tmp/w/upper.dmx" ] && echo yes)"
		# \\?\ paths (past MAX_PATH) for outputs as for inputs
		"$smd2dmx" "$win\\w\\arm.smd" -o "\\\\?\\$win\\w\\long.dmx" -q 2>"$tmp/err"
		check "an output named with \\\\?\\: written" "0 yes|" "$? $([ -f "$tmp/w/long.dmx" ] && echo yes)|$(cat "$tmp/err")"
		"$smd2dmx" "\\\\?\\$win\\w\\arm.smd" -d "\\\\?\\$win\\w\\longdir\\deep" -q 2>"$tmp/err"
		check "-d named with \\\\?\\: made and written" "0 yes|" "$? $([ -f "$tmp/w/longdir/deep/arm.dmx" ] && echo yes)|$(cat "$tmp/err")"
		# a folder written "C:\out\" (cmd keeps the closing quote after a '\', and joins the
		# arguments after it): said, with the way to write it
		"$smd2dmx" "$win\\w\\arm.smd" -d "$win\\w\\trail\" -q" 2>"$tmp/err"
		check "an argument holding a '\"': the trailing '\\' said" "2|smd2dmx: error: the argument '$win\\w\\trail\" -q' holds a '\"', which no Windows name can: a '\\' right before a closing quote (\"C:\\out\\\") keeps the quote, and the arguments after it join this one; write the folder without the '\\' at its end (\"C:\\out\")|no" \
			"$?|$(cat "$tmp/err")|$([ -e "$tmp/w/trail" ] && echo yes || echo no)"
		# Paths shown as the user wrote them: '\' in, '\' out, for the paths smdmx makes too
		mkdir -p "$tmp/w/tree/Модели"
		cp "$sample/arm.smd" "$tmp/w/tree/Модели/Модели.smd"
		"$smd2dmx" -r "$win\\w\\tree" -d "$win\\w\\p2out" -v 2>"$tmp/err"
		check "a -d output shown with the user's '\\'" "0 $win\\w\\tree\\Модели\\Модели.smd: note: 2 joints, 1 mesh (20 polygons), 0 flex shapes, 0 clips as 17 elements, model format 18 -> $win\\w\\p2out\\Модели\\Модели.dmx" \
			"$? $(cat "$tmp/err")"
		# relative paths: '\' where the command line writes none (Windows' own), '/' where it
		# writes '/' only
		(cd "$tmp/w" && "$smd2dmx" -r tree -d rel -v 2>"$tmp/err")
		check "relative paths of no separator shown with '\\'" "0 tree\\Модели\\Модели.smd: note: 2 joints, 1 mesh (20 polygons), 0 flex shapes, 0 clips as 17 elements, model format 18 -> rel\\Модели\\Модели.dmx" \
			"$? $(cat "$tmp/err")"
		(cd "$tmp/w" && "$smd2dmx" -r tree/ -d rel2/x -v 2>"$tmp/err")
		check "relative paths written with '/' shown so" "0 tree/Модели/Модели.smd: note: 2 joints, 1 mesh (20 polygons), 0 flex shapes, 0 clips as 17 elements, model format 18 -> rel2/x/Модели/Модели.dmx" \
			"$? $(cat "$tmp/err")"
		mkdir "$tmp/w/face"
		cp "$root/testdata/qc/face/"* "$tmp/w/face/"
		"$smdmx" qc "$win\\w\\face\\face.qc" --to dmx -d "$win\\w\\qcout" -v 2>"$tmp/err"
		check "smdmx qc's absolute paths shown with '\\'" "0 $win\\w\\face\\face.smd: note: -> $win\\w\\qcout\\face.dmx" "$? $(head -n 1 "$tmp/err")"
		# a QC given as \\?\C:\...: the files it names are found under the same prefix (every
		# command that reads a QC), the outputs and the messages keep it as typed
		lp="\\\\?\\$win\\w\\face"
		"$smdmx" qc "$lp\\face.qc" --to dmx -d "\\\\?\\$win\\w\\qclong" -v 2>"$tmp/err"
		check "smdmx qc of a \\\\?\\ QC: its files found, the output shown as typed" "0 $lp\\face.smd: note: -> \\\\?\\$win\\w\\qclong\\face.dmx" "$? $(head -n 1 "$tmp/err")"
		check "and the same files as the plain path" "$(cd "$tmp/w/qcout" && ls)" "$(cd "$tmp/w/qclong" && ls)"
		"$smdmx" qc -r "$lp" --to dmx -d "\\\\?\\$win\\w\\qclong_r" -q
		check "smdmx qc -r under \\\\?\\" "0 yes" "$? $([ -f "$tmp/w/qclong_r/face.qc" ] && echo yes)"
		"$smd2dmx" --qc "$lp\\face.qc" -d "\\\\?\\$win\\w\\qclong_s" -q
		check "smd2dmx --qc under \\\\?\\" "0 yes" "$? $([ -f "$tmp/w/qclong_s/face.dmx" ] && echo yes)"
		"$smdmx" check "$lp\\face.qc" >/dev/null 2>&1
		check "smdmx check under \\\\?\\" "0" "$?"
		"$smdmx" preview "$lp\\face.qc" -o "\\\\?\\$win\\w\\face.png" -q
		check "smdmx preview under \\\\?\\" "0 yes" "$? $([ -f "$tmp/w/face.png" ] && echo yes)"
		# a path the QC names, made from the QC's folder (held with '/'), quoted in a message in
		# the separator the QC's path was typed with
		mkdir -p "$tmp/w/qcs/sub"
		cp "$sample/arm.smd" "$tmp/w/qcs/sub/arm.smd"
		printf '$modelname "x.mdl"\n$body body "arm.smd"\n$proceduralbones "../gone.vrd"\n' >"$tmp/w/qcs/sub/m.qc"
		(cd "$tmp/w" && "$smdmx" check 'qcs\sub\m.qc' 2>"$tmp/err")
		check "smdmx check: a missing file the QC names, in the typed separator" "qcs\\sub\\m.qc cannot find 'qcs\\gone.vrd'" "$(sed -n "s/^\([^:]*\):3:18: warning: \(cannot find '[^']*'\).*/\1 \2/p" "$tmp/err")"
		(cd "$tmp/w" && "$smdmx" qc 'qcs\sub\m.qc' --to dmx -d qcs_out 2>"$tmp/err")
		check "smdmx qc: a missing file the QC names, in the typed separator" "0 qcs\\sub\\m.qc:3:18: warning: cannot find 'qcs\\gone.vrd' (named by \$proceduralbones): not copied, and the QC still names it; put it in the written project if studiomdl needs it" "$? $(grep 'cannot find' "$tmp/err")"
		(cd "$tmp/w" && "$smdmx" check 'qcs/sub/m.qc' 2>"$tmp/err")
		check "smdmx check: typed with '/', shown with '/'" "qcs/sub/m.qc cannot find 'qcs/gone.vrd'" "$(sed -n "s/^\([^:]*\):3:18: warning: \(cannot find '[^']*'\).*/\1 \2/p" "$tmp/err")"
		# The Windows guide (doc/windows.txt, the zip's README.txt): every cmd line of its
		# section 3, as written (C:\Mods is a folder here), and its .bat of section 5, run by
		# Wine's cmd.exe with the programs on PATH (WINEPATH).
		# (run/NAME is: exec sh "tests/wine_run.sh" "WINE" "PROGRAM" "$@")
		wine=$(sed -n 's/^exec sh "[^"]*" "\([^"]*\)" .*/\1/p' "$build/smd2dmx")
		exe=$(sed -n 's/^exec sh "[^"]*" "[^"]*" "\([^"]*\)" .*/\1/p' "$build/smd2dmx")
		if [ -n "$wine" ] && [ -n "$exe" ]; then
			mkdir -p "$tmp/guide/mods/models" "$tmp/guide/mods/hero" "$tmp/guide/cwd"
			cp "$sample/arm.smd" "$tmp/guide/mods/hero.smd"
			cp "$sample/arm.vta" "$tmp/guide/mods/hero.vta"
			cp "$sample/arm.smd" "$sample/arm_wave.smd" "$tmp/guide/mods/models/"
			cp "$root/testdata/qc/face/"* "$tmp/guide/mods/hero/"
			mv "$tmp/guide/mods/hero/face.qc" "$tmp/guide/mods/hero/hero.qc"
			"$smd2dmx" "$sample/arm.smd" -o "$tmp/guide/cwd/in.dmx" --encoding binary -q
			gwin=$(printf 'Z:%s' "$tmp/guide" | tr '/' '\\' | sed 's/\\/\\\\/g') # as sed's replacement writes it
			sed -n '/^3\. Command Prompt/,/^4\. PowerShell/p' "$root/doc/windows.txt" | grep -E '^  (smd2dmx|dmx2smd|smdmx) ' |
				sed "s|C:\\\\Mods|$gwin\\\\mods|g" >"$tmp/guide/lines"
			n=0
			# Wine's cmd, on a loaded machine, has answered once that it cannot recognize a
			# program on its PATH (errorlevel 9009: 49 to the shell), the program never started
			# (CI's fresh Debian, beside other Wine tests); such a line is run once more, and
			# said. A line that fails so twice, or otherwise, fails. (cmd starts through
			# tests/wine_run.sh, as every Windows start of the tests.)
			guide_line() {
				(cd "$tmp/guide/cwd" && WINEPATH=$(dirname "$exe" | sed 's|^|Z:|' | tr '/' '\\') sh "$root/tests/wine_run.sh" "$wine" cmd /c "$1" >/dev/null 2>"$tmp/guide/err")
			}
			while IFS= read -r line; do
				n=$((n + 1))
				guide_line "$line"
				rc=$?
				if [ $rc = 49 ] && grep -q "Can't recognize" "$tmp/guide/err"; then
					echo "  the guide's cmd line $n: Wine's cmd did not start it (9009): run again"
					guide_line "$line"
					rc=$?
				fi
				check "the guide's cmd line $n works: $line" "0 " "$rc $(cat "$tmp/guide/err")"
			done <"$tmp/guide/lines"
			check "the guide has its cmd lines" 9 "$n"
			check "and they made what they say" "yes yes yes yes yes yes yes yes" "$([ -f "$tmp/guide/mods/hero.dmx" ] && echo yes) $([ -f "$tmp/guide/mods/hero_flex.dmx" ] && echo yes) $([ -f "$tmp/guide/mods/back/hero.vta" ] && echo yes) $([ -f "$tmp/guide/mods/dmx/arm_wave.dmx" ] && echo yes) $([ -f "$tmp/guide/mods/hero_dmx/hero.qc" ] && echo yes) $(cmp -s "$tmp/guide/cwd/in.dmx" "$tmp/guide/cwd/out.dmx" && echo yes) $(grep -q ' 0 different, ' "$tmp/guide/mods/dmx/report.html" && echo yes) $(od -An -c -j1 -N3 "$tmp/guide/mods/hero.png" | tr -d ' ' | grep -q PNG && echo yes)"
			# the .bat: 0 when all converts, and the failing file's 1 passed on
			sed -n '/^  @echo off/,/^  if errorlevel/p' "$root/doc/windows.txt" | sed 's/^  //; s/$/\r/' >"$tmp/guide/mods/build.bat"
			(cd "$tmp/guide/mods" && WINEPATH=$(dirname "$exe" | sed 's|^|Z:|' | tr '/' '\\') sh "$root/tests/wine_run.sh" "$wine" cmd /c build.bat >/dev/null 2>&1)
			check "the guide's .bat: everything converts" "0 yes" "$? $([ -f "$tmp/guide/mods/build/models/arm_wave.dmx" ] && echo yes)"
			printf 'version 1\nnodes\nbad\n' >"$tmp/guide/mods/models/bad.smd"
			(cd "$tmp/guide/mods" && WINEPATH=$(dirname "$exe" | sed 's|^|Z:|' | tr '/' '\\') sh "$root/tests/wine_run.sh" "$wine" cmd /c build.bat >/dev/null 2>&1)
			check "the guide's .bat: a file that fails ends it with 1" 1 "$?"
		fi
		# A start as Explorer makes it (tests/test_console.c --start-shared, copied as
		# explorer.exe: the program alone on the console, here a pseudo-terminal's, its streams
		# that console, a dropped file's absolute path its only argument): it waits for a key
		# (still there after 10 s without one), and a key ends it.
		if [ -n "$wine" ] && [ -f "$(dirname "$exe")/tests/test_console.exe" ] && command -v script >/dev/null 2>&1; then
			mkdir "$tmp/ex"
			cp "$(dirname "$exe")/tests/test_console.exe" "$tmp/ex/explorer.exe"
			cp "$sample/arm.smd" "$tmp/ex/arm.smd"
			xwin=$(printf 'Z:%s' "$tmp/ex" | tr '/' '\\')
			xexe=$(printf 'Z:%s' "$exe" | tr '/' '\\')
			timeout 10 script -qec "'$wine' '$tmp/ex/explorer.exe' --start-shared '$xexe' '$xwin\\arm.smd'" /dev/null </dev/null >"$tmp/ex/out" 2>&1
			# (Wine's console moves the cursor for each space: the text is read without them)
			check "started as by Explorer: it converts, then waits for a key" "124 yes yes" \
				"$? $([ -f "$tmp/ex/arm.dmx" ] && echo yes) $(sed 's/\x1b\[[?0-9;]*[A-Za-z]//g' "$tmp/ex/out" | tr -d '\r\n ' | grep -q 'Pressanykeytoclosethiswindow' && echo yes)"
			rm -f "$tmp/ex/arm.dmx"
			(sleep 3; printf 'x'; sleep 5) | timeout 60 script -qec "'$wine' '$tmp/ex/explorer.exe' --start-shared '$xexe' '$xwin\\arm.smd'" /dev/null >"$tmp/ex/out" 2>&1
			check "started as by Explorer: a key ends it" "0 yes" "$? $([ -f "$tmp/ex/arm.dmx" ] && echo yes)"
		fi
		# Names Windows cannot hold are refused before anything is written
		for bad in 'bad:name.dmx' 'con.dmx' 'AUX.smd.dmx' 'sub.\\x.dmx' 'a?.dmx'; do
			"$smd2dmx" "$win\\w\\arm.smd" -o "$win\\w\\refuse\\$bad" 2>"$tmp/err"
			check "a name Windows cannot hold refused: $bad" "1 no" "$? $([ -e "$tmp/w/refuse" ] && echo yes || echo no)"
		done
		"$smd2dmx" "$win\\w\\arm.smd" -o "$win\\w\\bad:name.dmx" 2>"$tmp/err"
		check "':' past the drive: said" "$win\\w\\bad:name.dmx: error: '$win\\w\\bad:name.dmx': Windows cannot hold this name: ':' past the drive names a stream of another file" "$(cat "$tmp/err")"
		for bad in 'x.dmx.' 'x.dmx '; do
			"$smd2dmx" "$win\\w\\arm.smd" -o "$win\\w\\$bad" 2>"$tmp/err"
			check "a name ending in '.' or ' ': Windows' reason, exit 1 (not a wrong extension)" "1 $win\\w\\$bad: error: '$win\\w\\$bad': Windows cannot hold this name: a name that ends in '.' or ' ' (Windows drops them)" "$? $(cat "$tmp/err")"
		done
		"$smd2dmx" "$win\\w\\arm.smd" -o "$win\\w\\Con.dmx" 2>"$tmp/err"
		check "a device name: said" "$win\\w\\Con.dmx: error: '$win\\w\\Con.dmx': Windows cannot hold this name: 'Con' is a device on Windows, not a file" "$(cat "$tmp/err")"
		# Two outputs that differ only in case are one file on Windows
		mkdir "$tmp/x" "$tmp/y"
		cp "$sample/arm.smd" "$tmp/x/Arm.smd"
		cp "$sample/arm.smd" "$tmp/y/arm.smd"
		"$smd2dmx" -k "$tmp/x/Arm.smd" "$tmp/y/arm.smd" -d "$tmp/case" 2>"$tmp/err"
		check "outputs that differ in case collide" "1 $tmp/x/Arm.smd: error: '$tmp/case/Arm.dmx' would also be written from '$tmp/y/arm.smd'" "$? $(head -n 1 "$tmp/err")"
		# and in the case of a letter beyond ASCII, as NTFS folds it, --force or not
		mkdir "$tmp/xu" "$tmp/yu"
		cp "$sample/arm.smd" "$tmp/xu/Éclair.smd"
		cp "$sample/arm.smd" "$tmp/yu/éclair.smd"
		for f in "" -f; do
			"$smd2dmx" -k $f "$tmp/xu/Éclair.smd" "$tmp/yu/éclair.smd" -d "$tmp/caseu" 2>"$tmp/err"
			check "outputs that differ in the case of É collide ($f)" "1 $tmp/xu/Éclair.smd: error: '$tmp/caseu/Éclair.dmx' would also be written from '$tmp/yu/éclair.smd'|no" "$? $(head -n 1 "$tmp/err")|$([ -e "$tmp/caseu" ] && echo yes || echo no)"
		done
		# a QC naming a file in another case of a letter beyond ASCII: found, said once, one
		# output named as the file, and the same files and messages at every -j
		mkdir "$tmp/uq"
		cp "$sample/arm.smd" "$tmp/uq/Éclair.smd"
		cp "$sample/arm_wave.smd" "$tmp/uq/Модель.smd"
		printf '$modelname "x.mdl"\n$body body "éCLAIR.smd"\n$sequence idle "Éclair.smd"\n$sequence walk "мОДЕЛЬ.smd"\n' >"$tmp/uq/m.qc"
		for j in 1 2 8; do
			"$smdmx" qc "$tmp/uq/m.qc" --to dmx -d "$tmp/uq_out$j" -j $j 2>"$tmp/err.$j"
			echo "$?" >>"$tmp/err.$j"
			(cd "$tmp/uq_out$j" && ls -a && cat m.qc) >"$tmp/files.$j"
		done
		check "a QC's name in another case of É and Cyrillic: one output each, the QC naming them as written" "0|1|. .. .smdmx-written m.qc Éclair.dmx Модель.dmx \$modelname \"x.mdl\" \$body body \"Éclair.dmx\" \$sequence idle \"Éclair.dmx\" \$sequence walk \"Модель.dmx\"" \
			"$(tail -n 1 "$tmp/err.1")|$(grep -c 'when case is ignored (as Windows finds it).*(2 times)' "$tmp/err.1")|$(tr '\n' ' ' <"$tmp/files.1" | sed 's/ $//')"
		check "the same at -j 1, 2 and 8" "same" "$(sed "s|uq_out[0-9]|uq_out|g" "$tmp/err.1" | cmp -s - "$tmp/err.2.n" 2>/dev/null; for j in 2 8; do sed "s|uq_out[0-9]|uq_out|g" "$tmp/err.$j" >"$tmp/err.$j.n"; done; sed "s|uq_out[0-9]|uq_out|g" "$tmp/err.1" >"$tmp/err.1.n"; cmp -s "$tmp/err.1.n" "$tmp/err.2.n" && cmp -s "$tmp/err.1.n" "$tmp/err.8.n" && cmp -s "$tmp/files.1" "$tmp/files.2" && cmp -s "$tmp/files.1" "$tmp/files.8" && echo same)"
		# A path past the old 260-character limit
		long="$tmp/$(printf 'a%.0s' $(seq 1 120))/$(printf 'b%.0s' $(seq 1 120))"
		mkdir -p "$long"
		cp "$sample/arm.smd" "$long/arm.smd"
		"$smd2dmx" "$long/arm.smd" -d "$long/$(printf 'c%.0s' $(seq 1 60))" -q
		check "a path of more than 260 characters" "0 yes" "$? $([ -f "$long/$(printf 'c%.0s' $(seq 1 60))/arm.dmx" ] && echo yes)"
	fi
	;;

*)
	echo "unknown group $group"
	exit 2
	;;
esac

echo "$group: $pass passed, $fail failed"
[ "$fail" = 0 ]
