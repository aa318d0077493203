#!/bin/sh
# Pictures from the command line: smdmx preview, the batch reports (--report, smdmx report)
# and a report opened in a real browser. One group of cases per meson test.
# usage: cli_pictures.sh GROUP BUILD_DIR SOURCE_ROOT
. "$(dirname "$0")/cli_lib.sh"

# A PNG's size, "W x H", from its header (or what is wrong with it).
png_size() {
	[ "$(od -An -c -j1 -N3 "$1" | tr -d ' ')" = PNG ] || { echo "not a PNG"; return; }
	od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d x %d\n", $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}
# stdout and stderr of the last run, one line each joined by '|'
joined() { tr '\n' '|' <"$1" | sed 's/|$//'; }

case $group in
preview)
	cd "$tmp" || exit 2
	"$smdmx" preview "$sample/arm.smd" -o arm.png >out 2>err
	check "preview: exit" 0 $?
	check "preview: what it wrote" "$sample/arm.smd -> arm.png (512 x 512, three-quarter)" "$(joined out)"
	check "preview: nothing said" "" "$(joined err)"
	check "preview: a 512 x 512 PNG" "512 x 512" "$(png_size arm.png)"
	"$smdmx" preview "$sample/arm.smd" -o arm.png 2>err
	check "preview: an existing picture is kept" "1|arm.png: error: 'arm.png' exists (--force overwrites it)" "$?|$(joined err)"
	"$smdmx" preview "$sample/arm.smd" -o arm.png --views all --size 100 -f -q >out
	check "preview --views all --size 100: a 2 x 2 sheet" "0|200 x 200|" "$?|$(png_size arm.png)|$(joined out)"
	"$smdmx" preview "$sample/arm.smd" "$sample/arm.vta" -o sheet.png --shapes --size 64 >out
	check "preview --shapes: base and each shape" "0|$sample/arm.smd -> sheet.png (128 x 64: base, bulge)|128 x 64" \
		"$?|$(joined out)|$(png_size sheet.png)"
	"$smdmx" preview "$sample/arm.smd" "$sample/arm.vta" -o bulge.png --shape bulge --size 64 -q
	"$smdmx" preview "$sample/arm.smd" -o base.png --size 64 -q
	check "preview --shape: another picture than the base" 1 "$(cmp -s bulge.png base.png; echo $?)"
	"$smdmx" preview "$sample/arm.smd" "$sample/arm.vta" -o x.png --shape smile 2>err
	check "preview --shape: one the model lacks" "1|$sample/arm.smd: error: no flex shape named 'smile' (the model has 1: 'bulge')|no" \
		"$?|$(joined err)|$([ -e x.png ] && echo yes || echo no)"
	"$smdmx" preview "$sample/arm.vta" -o x.png 2>err
	check "preview of a VTA alone" "1|$sample/arm.vta: error: a VTA holds shapes, not polygons: give its reference SMD before it ('REF.smd $sample/arm.vta')" \
		"$?|$(joined err)"
	"$smdmx" preview "$sample/arm.smd" --uv -o uv.png --size 128 -q
	check "preview --uv: a cell per material" "0|128 x 128" "$?|$(png_size uv.png)"
	# a pose: the arm with its wave, frame 0 is the bind pose, frame 10 another picture
	"$smd2dmx" "$sample/arm.smd" --clips "$sample/arm_wave.smd" -o armc.dmx -q
	"$smdmx" preview armc.dmx -o bind.png --size 64 -q
	"$smdmx" preview armc.dmx -o f0.png --size 64 -q --clip arm_wave --frame 0
	"$smdmx" preview armc.dmx -o f10.png --size 64 -q --clip arm_wave --frame 10
	check "preview --clip --frame 0: the bind pose" 0 "$(cmp -s bind.png f0.png; echo $?)"
	check "preview --clip --frame 10: posed" 1 "$(cmp -s bind.png f10.png; echo $?)"
	"$smdmx" preview armc.dmx -o x.png --clip arm_wave --frame 11 2>err
	check "preview --frame past the clip" "1|armc.dmx: error: clip 'arm_wave' has frames 0 to 10, not 11" "$?|$(joined err)"
	"$smdmx" preview armc.dmx -o x.png --clip run 2>err
	check "preview --clip the model lacks" "1|armc.dmx: error: no clip named 'run' (the model has 1: 'arm_wave')" "$?|$(joined err)"
	# usage errors: exit 2, nothing written
	for args in "--frame 3" "--size 8" "--size 5000" "--views back" "--uv --skeleton" "--shape a --shapes" "--shapes --views all" "-o a.png -d d" "--bogus"; do
		# shellcheck disable=SC2086
		"$smdmx" preview "$sample/arm.smd" $args -o y.png >/dev/null 2>err
		check "preview $args: a usage error" "2|1" "$?|$(grep -c "^smdmx: error: .*(try 'smdmx preview --help')$" err)"
	done
	check "preview usage errors: nothing written" no "$([ -e y.png ] && echo yes || echo no)"
	"$smdmx" preview "$sample/arm.smd" "$root/testdata/model/arm.dmx" -o y.png 2>err
	check "preview: -o with two models" "2|smdmx: error: -o names one picture: give -d DIR for several models (try 'smdmx preview --help')" \
		"$?|$(joined err)"
	"$smdmx" preview "$sample/arm.smd" "$root/testdata/model/arm.dmx" -d both 2>err
	check "preview: two models, one picture name" "2|smdmx: error: '$sample/arm.smd' and '$root/testdata/model/arm.dmx' would both be drawn to 'both/arm.png': give them apart (-d, or one at a time with -o)" \
		"$?|$(joined err)"
	# a batch: every file tried, the failures said, the rest drawn; -j does not change a byte
	mkdir in
	cp "$sample/arm.smd" in/a.smd
	cp "$root/testdata/model/arm.dmx" in/b.dmx
	printf 'version 1\nnodes\n0 "x" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 zero\nend\n' >in/c.smd
	"$smdmx" preview in/a.smd in/c.smd in/b.dmx -d j1 -j 1 >out 2>err
	check "preview batch: exit 1, the bad file said" "1|in/c.smd:7:13: error: expected rotation z|smdmx: error: 1 of 3 models not drawn" "$?|$(joined err)"
	check "preview batch: the others drawn" "./a.png ./b.png " "$(files j1)"
	"$smdmx" preview in/a.smd in/c.smd in/b.dmx -d j4 -j 4 >/dev/null 2>&1
	check "preview batch: -j 4 writes the same bytes" "" "$(for f in a b; do cmp -s j1/$f.png j4/$f.png || echo $f; done)"
	# a QC's $model, and a QC whose $model is a DMX
	"$smdmx" preview "$root/testdata/qc/face/face.qc" -o face.png --shapes --size 32 >out 2>err
	check "preview of a QC: its model's shapes, named by the QC" "0|$root/testdata/qc/face/face.qc -> face.png (96 x 96: base, smileR, smileL, blink, jaw, pucker, smile_jaw)" \
		"$?|$(joined out)"
	printf '$model "body" "%s"\n' "$root/testdata/model/arm.dmx" >dmx.qc
	"$smdmx" preview dmx.qc -o dmxqc.png --size 64 -q
	"$smdmx" preview "$root/testdata/model/arm.dmx" -o dmx.png --size 64 -q
	check "preview of a QC whose model is a DMX: that DMX drawn" "0" "$(cmp -s dmxqc.png dmx.png; echo $?)"
	# the same model as SMD and as DMX: the same picture (the conversion is exact)
	"$smd2dmx" "$sample/arm.smd" -o arm.dmx -q
	"$smdmx" preview arm.dmx -o from-dmx.png --size 128 --views all -q
	"$smdmx" preview "$sample/arm.smd" -o from-smd.png --size 128 --views all -q
	check "an SMD and its DMX: the same picture" 0 "$(cmp -s from-dmx.png from-smd.png; echo $?)"
	;;

corpus)
	# Every model file of the corpus drawn or refused with a message: never a crash, never a
	# partial picture.
	if [ ! -d "$corpus" ]; then
		[ -n "${SMDMX_REQUIRE_CORPUS:-}" ] && { echo "FAIL: no corpus at $corpus"; exit 1; }
		echo "skipped: this group reads the corpus, and there is none at $corpus"
		exit 0
	fi
	find "$corpus" -type f \( -iname '*.smd' -o -iname '*.dmx' -o -iname '*.qc' \) | LC_ALL=C sort >list
	n=0 drawn=0 refused=0 bad=""
	while read -r f; do
		n=$((n + 1))
		"$smdmx" preview "$f" -o "$tmp/p$n.png" --views all --skeleton --size 96 -q 2>"$tmp/err"
		rc=$?
		if [ $rc = 0 ] && [ "$(png_size "$tmp/p$n.png")" = "192 x 192" ]; then drawn=$((drawn + 1))
		elif [ $rc = 1 ] && [ ! -e "$tmp/p$n.png" ] && grep -q ': error: ' "$tmp/err"; then refused=$((refused + 1))
		else bad="$bad $f($rc)"; fi
	done <list
	check "corpus: every model drawn or refused with a message" "" "$bad"
	echo "corpus: $n files, $drawn drawn, $refused refused"
	check "corpus: most are drawn" yes "$([ "$drawn" -gt $((n * 9 / 10)) ] && echo yes || echo no)"
	;;
*)
	echo "unknown group $group"
	exit 2
	;;
esac

echo "$group: $pass passed, $fail failed"
[ "$fail" = 0 ]
