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
# On Windows a path the programs join is shown with '\' where the command line writes no
# separator (doc/windows.md): sep is the one shown; slashed reads a page with its JSON's '\\'
# as '/', and unslashed a line with '\' as '/', so that one check holds for both systems.
sep=/
[ -n "${SMDMX_WINDOWS:-}" ] && sep='\'
slashed() { sed 's|\\\\|/|g' "$1"; }
unslashed() { tr '\\' /; }
# The states of a report's rows, in order ("s" of each row's data)
states() { grep -o '"s":"[^"]*"' "$1" | sed 's/"s":"//; s/"$//' | tr '\n' '|' | sed 's/|$//'; }

case $group in
preview)
	cd "$tmp" || exit 2
	"$smdmx" preview "$sample/arm.smd" -o arm.png >out 2>err
	check "preview: exit" 0 $?
	check "preview: what it wrote" "$sample/arm.smd -> arm.png (512 x 512, three-quarter)" "$(joined out)"
	check "preview: nothing said" "" "$(joined err)"
	check "preview: a 512 x 512 PNG" "512 x 512" "$(png_size arm.png)"
	"$smdmx" preview - <"$sample/arm.smd" >stdout.png 2>err
	check "preview of standard input: to standard output, the same picture, nothing else" "0||0" "$?|$(joined err)|$(cmp -s stdout.png arm.png; echo $?)"
	"$smdmx" preview - -d dir --name arm <"$sample/arm.smd" >out
	check "preview of standard input with -d: DIR/NAME.png" "0|- -> dir/arm.png (512 x 512, three-quarter)|0" \
		"$?|$(joined out | sed 's|dir\\|dir/|')|$(cmp -s dir/arm.png arm.png; echo $?)"
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
	check "preview -d: two models, one picture name (-d not suggested: it was given)" "2|smdmx: error: '$sample/arm.smd' and '$root/testdata/model/arm.dmx' would both be drawn to 'both${sep}arm.png': draw one of them at a time with -o" \
		"$?|$(joined err)"
	mkdir beside && cp "$sample/arm.smd" beside/ && cp "$root/testdata/model/arm.dmx" beside/
	"$smdmx" preview beside/arm.smd beside/arm.dmx 2>err
	check "preview beside the files: two models, one picture name" "2|smdmx: error: 'beside/arm.smd' and 'beside/arm.dmx' would both be drawn to 'beside/arm.png': give them apart (-d, or one at a time with -o)" \
		"$?|$(joined err)"
	# a picture that shows nothing (a flat model seen edge-on) is said
	"$smdmx" preview "$root/testdata/qc/parts/base.smd" --views front -o edge.png >/dev/null 2>err
	check "preview: a picture that shows nothing, a warning" "0|$root/testdata/qc/parts/base.smd: warning: the picture shows nothing in 1 of its views (its polygons are edge-on there, or each smaller than a pixel); use another view, or --skeleton" \
		"$?|$(joined err)"
	"$smdmx" preview "$root/testdata/qc/parts/base.smd" --views front --skeleton -o edge2.png >/dev/null 2>err
	check "preview: the same with its skeleton, nothing said" "0|" "$?|$(joined err)"
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
	printf '$model "arm" "%s"\n$model "face" "%s"\n' "$sample/arm.smd" "$root/testdata/qc/face/face.smd" >two.qc
	"$smdmx" preview two.qc -o two.png --size 32 >out 2>err
	check "preview of a QC with two \$models: drawn, nothing said" "0|two.qc -> two.png (32 x 32, three-quarter)|" "$?|$(joined out)|$(joined err)"
	"$smdmx" preview two.qc --model arm -o two_arm.png --size 32 -q
	"$smdmx" preview two.qc --model face -o two_face.png --size 32 -q
	check "both \$models in the picture: it is neither's alone" "1 1" "$(cmp -s two.png two_arm.png; echo $?) $(cmp -s two.png two_face.png; echo $?)"
	# $body and $bodygroup: the whole model, another choice, one part alone, what is not there
	parts=$root/testdata/qc/parts/parts.qc
	# the picture's pixels as PNG holds them: one zlib stream (its check sum right), a filter
	# byte and three bytes a pixel on each row
	if command -v python3 >/dev/null; then
		"$smdmx" preview "$sample/arm.smd" -o zlib.png --size 64 -q
		check "a picture's PNG data inflates to its rows" "64 x 64|12352" "$(png_size zlib.png)|$(python3 -c '
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
i, idat = 8, b""
while i < len(d):
    n = struct.unpack(">I", d[i:i + 4])[0]
    if d[i + 4:i + 8] == b"IDAT":
        idat += d[i + 8:i + 8 + n]
    i += 12 + n
print(len(zlib.decompress(idat)))' zlib.png)"
	fi
	"$smdmx" preview "$parts" -o parts.png --size 32 -q
	"$smdmx" preview "$parts" --bodygroup hat=hat_tall -o tall.png --size 32 -q
	"$smdmx" preview "$parts" --bodygroup hat=2 -o tall2.png --size 32 -q
	"$smdmx" preview "$parts" --bodygroup hat=blank -o blank.png --size 32 -q
	check "--bodygroup: another choice drawn, by name or number; blank draws less" "1 0 1" \
		"$(cmp -s parts.png tall.png; echo $?) $(cmp -s tall.png tall2.png; echo $?) $(cmp -s parts.png blank.png; echo $?)"
	"$smdmx" preview "$parts" --bodygroup hat=7 -o no.png 2>err
	check "--bodygroup: a choice the group lacks, said with those it has" "1|$parts: error: \$bodygroup 'hat' has no choice '7' (its choices: 0 hat.smd, 1 blank, 2 hat_tall.smd)|no" \
		"$?|$(joined err)|$([ -e no.png ] && echo yes || echo no)"
	"$smdmx" preview "$parts" --bodygroup cap=1 -o no.png 2>err
	check "--bodygroup: a part the QC lacks" "1|$parts: error: no body part named 'cap' (the QC's: base, hat, extra)" "$?|$(joined err)"
	"$smdmx" preview "$parts" --model extra --bodygroup hat=2 -o no.png 2>err
	check "--bodygroup with a \$model alone: refused" "1|$parts: error: --bodygroup chooses in the whole model or a body part: 'extra' is a \$model" "$?|$(joined err)"
	"$smdmx" preview "$parts" --model hat -o hat.png --size 32 -q
	check "--model of a \$bodygroup: that part alone" "0 1" "$? $(cmp -s hat.png parts.png; echo $?)"
	"$smdmx" preview "$parts" --model nope -o no.png 2>err
	check "--model of nothing: said" "1|$parts: error: no \$model or body part named 'nope' (the QC has 1 \$models, 3 body parts)" "$?|$(joined err)"
	"$smdmx" preview "$parts" --bodygroup hat=1 --bodygroup HAT=2 -o no.png 2>err
	check "--bodygroup: one part chosen twice, refused" "1|$parts: error: --bodygroup chooses in 'HAT' twice ('hat=1', 'HAT=2'): give one|no" \
		"$?|$(joined err)|$([ -e no.png ] && echo yes || echo no)"
	"$smdmx" preview "$parts" "$sample/arm.smd" --model hat -d mixed >/dev/null 2>err
	check "--model with a QC and an SMD: said on the SMD, drawn whole" "0|$sample/arm.smd: warning: --model picks in a QC's model, and this is no QC: drawn whole; nothing to do|./arm.png ./parts.png " \
		"$?|$(joined err)|$(files mixed)"
	"$smdmx" preview "$sample/arm.smd" --bodygroup hat=1 -o no.png 2>err
	check "--bodygroup without a QC: a usage error" "2|smdmx: error: --bodygroup picks in a QC's model, and no QC is given (try 'smdmx preview --help')" "$?|$(joined err)"
	"$smd2dmx" --qc two.qc -o two.dmx 2>err
	check "smd2dmx --qc of the same QC: said as well" "0|two.qc: warning: the QC has 2 \$models: only the first, 'arm', is converted; give --model NAME for another" \
		"$?|$(joined err)"
	"$smdmx" preview two.qc --model face -o face2.png --size 32 -q 2>err
	"$smdmx" preview "$root/testdata/qc/face/face.smd" -o face1.png --size 32 -q
	check "preview --model: that \$model, nothing said" "0||0" "$?|$(joined err)|$(cmp -s face1.png face2.png; echo $?)"
	printf '$model "body" "%s"\n' "$root/testdata/model/arm.dmx" >dmx.qc
	"$smdmx" preview dmx.qc -o dmxqc.png --size 64 -q
	"$smdmx" preview "$root/testdata/model/arm.dmx" -o dmx.png --size 64 -q
	check "preview of a QC whose model is a DMX: that DMX drawn" "0" "$(cmp -s dmxqc.png dmx.png; echo $?)"
	# the same model as SMD and as DMX: the same picture (the conversion is exact)
	"$smd2dmx" "$sample/arm.smd" -o arm.dmx -q
	"$smdmx" preview arm.dmx -o from-dmx.png --size 128 --views all -q
	"$smdmx" preview "$sample/arm.smd" -o from-smd.png --size 128 --views all -q
	check "an SMD and its DMX: the same picture" 0 "$(cmp -s from-dmx.png from-smd.png; echo $?)"
	# an animation-only QC: its first animation over the model of the QC beside it that
	# includes it ($includemodel), at its first frame; a bone the model lacks left out, said
	mkdir inc
	cp "$root/testdata/qc/parts/base.smd" inc/
	printf '$modelname "x/model.mdl"\n$body b "base.smd"\n$includemodel "models\\x\\Anim.mdl"\n$includemodel "other/rest.mdl"\n' >inc/model.qc
	printf '$modelname "x/anim.mdl"\n$sequence bend "bend.smd"\n' >inc/anim.qc
	printf '$modelname "x/rest.mdl"\n$sequence still "still.smd"\n' >inc/rest.qc
	printf 'version 1\nnodes\n0 "root" -1\n1 "a" 0\n2 "x" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 0 1 %s 0 0\n2 0 0 0 0 0 0\nend\n' 1.5 >inc/bend.smd
	printf 'version 1\nnodes\n0 "root" -1\n1 "a" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 0 1 0 0 0\nend\n' >inc/still.smd
	"$smdmx" preview inc/model.qc -o inc_model.png --size 64 -q
	"$smdmx" preview inc/rest.qc -o inc_rest.png --size 64 2>err
	check "an animation QC over the model that includes it (by file name): its rest frame is the model's picture" \
		"0|inc/rest.qc: note: drawn as 'still' at its first frame over the model of 'inc/model.qc', which includes it (\$includemodel)|0" \
		"$?|$(joined err)|$(cmp -s inc_model.png inc_rest.png; echo $?)"
	"$smdmx" preview inc/anim.qc -o inc_anim.png --size 64 2>err
	check "an animation QC over the model: posed (named by path, case and separators aside), a bone it lacks said" \
		"0|inc/anim.qc: note: drawn as 'bend' at its first frame over the model of 'inc/model.qc', which includes it (\$includemodel)|inc/anim.qc: note: 1 bone the animation moves is not in that model: left out of the picture|1" \
		"$?|$(joined err)|$(cmp -s inc_model.png inc_anim.png; echo $?)"
	"$smdmx" preview inc/anim.qc --clip bend --frame 0 -o inc_anim2.png --size 64 -q
	check "preview --clip of that animation: the same picture" 0 "$(cmp -s inc_anim.png inc_anim2.png; echo $?)"
	"$smdmx" qc -r inc --to dmx -d incout --report inc.html -q
	check "a report's row of that animation QC counts the model's joints and polygons, both sides" \
		'"c":[2,1,0,1,2,1,0,1]' "$(slashed inc.html | grep -o '"n":"inc/anim.qc"[^}]*' | grep -o '"c":\[[^]]*\]')"
	mkdir alone && cp inc/anim.qc inc/bend.smd alone/
	"$smdmx" preview alone/anim.qc -o alone.png --size 64 2>err
	check "an animation QC no QC beside it includes: its skeleton, nothing said" "0|" "$?|$(joined err)"
	# a partial project: what is there drawn, what is not said (exit 1, the picture written)
	mkdir part && cp "$sample/arm.smd" "$sample/arm_wave.smd" part/
	printf '$modelname "a.mdl"\n$body b "arm.smd"\n$bodygroup g {\nstudio "gone.smd"\nblank\n}\n' >part/bg.qc
	printf '$modelname "c.mdl"\n$sequence idle "gone_anim.smd"\n$sequence wave "arm_wave.smd"\n' >part/anim.qc
	"$smdmx" preview part/bg.qc -o part_bg.png --size 64 2>err >out
	check "a body part's file missing: the others drawn, it said" "1|part/bg.qc:4:8: error: cannot find 'part/gone.smd' (the file of \$bodygroup 'g'): drawn without it|yes" \
		"$?|$(joined err)|$([ -s part_bg.png ] && echo yes)"
	"$smdmx" preview part/bg.qc -o part_bg2.png --size 64 --bodygroup g=blank 2>err >out
	check "the same QC with the part's blank chosen: the same picture, nothing said" "0||0" \
		"$?|$(joined err)|$(cmp -s part_bg.png part_bg2.png; echo $?)"
	"$smdmx" preview part/anim.qc -o part_anim.png --size 64 2>err >out
	check "the first animation missing: the next drawn, the first said" "1|part/anim.qc:2:16: error: cannot find 'part/gone_anim.smd' (the animation of the first \$sequence): drawn with the next animation there|yes" \
		"$?|$(joined err)|$([ -s part_anim.png ] && echo yes)"
	;;

report)
	cd "$tmp" || exit 2
	# Two trees: the sample's SMDs, and their DMXs with one clip changed and one file more
	mkdir a
	cp "$sample/arm.smd" "$sample/arm.vta" "$sample/arm_wave.smd" a/
	cp "$root/testdata/qc/face/face.smd" "$root/testdata/qc/face/face.vta" a/
	"$smd2dmx" a/arm.smd a/arm.vta a/arm_wave.smd a/face.smd a/face.vta -d b -q
	sed 's/^1 10\.0*  *0\.0* /1 10.5 0 /' a/arm_wave.smd >changed.smd
	check "the changed clip is another" 1 "$(cmp -s changed.smd a/arm_wave.smd; echo $?)"
	"$smd2dmx" changed.smd -o b/arm_wave.dmx -f -q
	cp b/face.dmx b/extra.dmx
	"$smdmx" report a b -o r.html >out 2>err
	check "smdmx report: exit and what it wrote" "0|r.html: 4 rows|" "$?|$(joined out)|$(joined err)"
	check "smdmx report: a row per pair, and one for the file only in b" 4 "$(grep -c '^{"n":' r.html)"
	rows=$(grep -o '"k":"[a-z]*","w":[0-9]*,"e":[0-9]*,"d":-\{0,1\}[0-9]*' r.html |
		sed 's/"k":"\([a-z]*\)","w":\([0-9]*\),"e":\([0-9]*\),"d":\(-\{0,1\}[0-9]*\)/\1 \2 \3 \4/' | tr '\n' '|')
	check "smdmx report: kind, warnings, errors and differences by row (arm, arm_wave, face, extra)" \
		"equal 0 0 0|different 0 0 1|equal 0 0 0|only 0 0 -1|" "$rows"
	# the verdicts are smdmx diff's
	"$smdmx" diff a/arm.smd a/arm.vta b/arm.dmx -q
	check "smdmx diff: arm the same" 0 $?
	"$smdmx" diff a/arm_wave.smd b/arm_wave.dmx -q
	check "smdmx diff: arm_wave differs" 1 $?
	# (two animations: their frames, not their bind poses, which studiomdl reads from no animation)
	check "smdmx report: the differences said" 1 "$(grep -c "clip 'arm_wave' joint 'lower arm': positions differ at frame 0 (11 of 11 frames differ)" r.html)"
	check "smdmx report: the file only in b, and why" "1|1" \
		"$(slashed r.html | grep -c '"a":null,"va":null,"b":"b/extra.dmx","vb":null,"s":"only in B","k":"only"')|$(slashed r.html | grep -c 'b/extra.dmx: note: only in B: A has no model file at its place (its path below a, in any model format)')"
	check "smdmx report: pictures in the page (7 models, 5 UV layouts), none beside it" "12|no" \
		"$(grep -o '"data:image/png;base64,' r.html | wc -l | tr -d ' ')|$([ -e r_files ] && echo yes || echo no)"
	# the command in its title, to paste into a shell: a path with a space quoted
	mkdir "my a"
	cp a/arm.smd "my a/"
	"$smdmx" report "my a" a -o spaced.html -q 2>/dev/null
	if [ -n "$windows" ]; then want='smdmx report &quot;my a&quot; a'; else want="smdmx report &#39;my a&#39; a"; fi
	check "smdmx report: the title's command quotes a path with a space" 1 "$(grep -c "<p class=\"title\">$want</p>" spaced.html)"
	check "smdmx report: a summary on top" 1 "$(grep -c '<p id="summary">4 rows: none failed, 0 with warnings, 1 different, 0 different as expected, 1 only in one tree, 2 equal</p>' r.html)"
	# a file B holds unchanged (as smdmx qc copies what it does not convert) says so
	mkdir ca cb
	cp a/arm_wave.smd ca/w.smd
	cp a/arm_wave.smd cb/w.smd
	"$smdmx" report ca cb -o copied.html -q
	check "smdmx report: a copy says copied, and why" "copied|equal|1" "$(states copied.html)|$(grep -o '"k":"[a-z]*"' copied.html | sed 's/"k":"//; s/"//')|$(slashed copied.html | grep -c 'cb/w.smd: note: copied: B holds the same bytes, as smdmx qc copies a file it does not convert')"
	"$smdmx" report a b -o r4.html -j 4 -q >/dev/null
	"$smdmx" report a b -o r1.html -j 1 -q >/dev/null
	check "smdmx report: -j does not change a byte" 0 "$(cmp -s r1.html r4.html; echo $?)"
	"$smdmx" report a b -o r.html 2>err
	check "smdmx report: an existing page is kept" "1|smdmx: error: the report was not written: 'r.html' exists (--force overwrites it)" "$?|$(joined err)"
	"$smdmx" report a -o x.html 2>err
	check "smdmx report: one folder" "2|smdmx: error: report needs two folders and -o FILE.html (try 'smdmx report --help')" "$?|$(joined err)"
	"$smdmx" report a nowhere -o x.html 2>/dev/null
	check "smdmx report: a folder that is not there" "1|no" "$?|$([ -e x.html ] && echo yes || echo no)"
	# --report on the conversions: a row per input, the failed one with its error
	printf 'version 1\nnodes\n0 "x" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 zero\nend\n' >a/bad.smd
	"$smd2dmx" a/arm.smd a/bad.smd a/face.smd -d c -k --report c.html >out 2>err
	check "smd2dmx --report: exit 1 (a file failed), said as without it" "1|a/bad.smd:7:13: error: expected rotation z|smd2dmx: error: 1 of 3 inputs failed" \
		"$?|$(joined err)"
	check "smd2dmx --report: its rows" "converted|failed|converted" "$(states c.html)"
	check "smd2dmx --report: the failure's message in its row" 1 "$(grep -c 'a/bad.smd:7:13: error: expected rotation z' c.html)"
	check "smd2dmx --report: the converted are the same" 2 "$(grep -c '"d":0,' c.html)"
	check "smd2dmx --report: the failed row first in the summary" 1 "$(grep -c '<b class="bad">1 failed</b>' c.html)"
	rm a/bad.smd
	"$dmx2smd" b/arm.dmx b/face.dmx -d d --report d.html -q
	check "dmx2smd --report: back to SMD (with the VTA written beside), the same" "0|2" "$?|$(grep -c '"d":0,' d.html)"
	check "dmx2smd --report: the result's VTA drawn with it" 1 "$(slashed d.html | grep -c '"b":"d/arm.smd","vb":"d/arm.vta"')"
	"$smdmx" convert a/arm.smd --to dmx --encoding binary -d e --report e.html -q
	check "smdmx convert --report" "0|1" "$?|$(grep -c '"d":0,' e.html)"
	cp a/arm.smd keep.smd
	"$smd2dmx" a/arm.smd -d c2 -f --report a/arm.smd 2>err
	check "--report never over an input, even with -f" "1|smd2dmx: error: the report was not written: the output 'a/arm.smd' is the input 'a/arm.smd'|0" \
		"$?|$(joined err)|$(cmp -s keep.smd a/arm.smd; echo $?)"
	"$smd2dmx" a/arm.smd -d c3 --report c.html 2>err
	check "--report: an existing page is kept without -f" "1|smd2dmx: error: the report was not written: 'c.html' exists (--force overwrites it)" "$?|$(joined err)"
	"$smd2dmx" a/arm.smd -d c2 -u --report c.html 2>err
	check "--report with -u: the page replaced, the input up to date" "0|smd2dmx: note: 1 of 1 inputs up to date (-u)|1" "$?|$(joined err)|$(grep -c '"s":"up to date"' c.html)"
	"$smd2dmx" a/arm.smd -o - --report x.html >/dev/null 2>err
	check "--report with the output on standard output" "2" "$?"
	# smdmx qc --report: a row per QC, its model beside the converted QC's, both ways
	"$smdmx" qc "$root/testdata/qc/face/face.qc" --to dmx -d q -q --report q.html
	check "smdmx qc --report (to DMX, the rig in the QC): the same" "0|1" "$?|$(grep -c '"d":0,' q.html)"
	"$smdmx" qc "$root/testdata/qc/face/face.qc" --to dmx --rig dmx -d qd -q --report qd.html
	check "smdmx qc --report (to DMX, the rig in the DMX): the same" "0|1" "$?|$(grep -c '"d":0,' qd.html)"
	"$smdmx" qc qd/face.qc --to smd -d qs -q --report qs.html
	check "smdmx qc --report (back to SMD): the same" "0|1" "$?|$(grep -c '"d":0,' qs.html)"
	# a library whose two QCs name one SMD that fails: both rows failed, each with the error
	# (the second QC did not plan the file, and its row said "converted")
	mkdir lib
	cp "$root/testdata/qc/parts/base.smd" lib/
	printf 'version 1\nnodes\n0 "root" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nskin\n0 0 0 0 0 0 1 0 0 1 5 1\n0 1 0 0 0 0 1 1 0 1 5 1\n0 0 1 0 0 0 1 0 1 1 5 1\nend\n' >lib/bad.smd
	printf '$body body "bad.smd"\n$sequence idle "bad.smd"\n' >lib/a.qc
	printf '$body body "bad.smd"\n$sequence idle "base.smd"\n' >lib/b.qc
	"$smdmx" qc -r lib --to dmx -d libo -k -q --report lib.html 2>/dev/null
	check "smdmx qc --report: a QC whose shared file failed is failed" "1|failed|failed" \
		"$?|$(states lib.html)"
	check "smdmx qc --report: the error in both rows" 2 "$(slashed lib.html | grep -c "lib/bad.smd:11:21: error: bone id 5 is not defined in 'nodes'")"
	;;

browser)
	# The report opened in a real browser (headless Chromium through ChromeDriver): every
	# picture loads, a row per file, and the "differences" filter leaves exactly the rows
	# smdmx diff calls different. A screenshot is kept: BUILD_DIR/report-screenshot.png.
	if ! command -v python3 >/dev/null || ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ]; then
		[ -n "${SMDMX_REQUIRE_BROWSER:-}" ] && { echo "FAIL: no python3, chromium or chromedriver"; exit 1; }
		echo "skipped: no python3, chromium and chromedriver (Debian: apt-get install python3 chromium chromium-driver)"
		exit 0
	fi
	cd "$tmp" || exit 2
	mkdir a
	cp "$sample/arm.smd" "$sample/arm.vta" "$sample/arm_wave.smd" a/
	cp "$root/testdata/qc/face/face.smd" "$root/testdata/qc/face/face.vta" a/
	cp "$root/testdata/model/arm.dmx" a/model.dmx
	"$smd2dmx" a/arm.smd a/arm.vta a/arm_wave.smd a/face.smd a/face.vta -d b -q
	"$dmx2smd" a/model.dmx -d b -q
	# two results changed: the wave's lower arm moved, the face's UVs with V flipped
	sed 's/^1 10\.0*  *0\.0* /1 10.5 0 /' a/arm_wave.smd >changed.smd
	"$smd2dmx" changed.smd -o b/arm_wave.dmx -f -q
	awk 'NF >= 9 && $1 ~ /^[0-9]+$/ { $9 = sprintf("%.6f", 1 - $9) } { print }' a/face.smd >flipped.smd
	check "the flipped face is another" 1 "$(cmp -s flipped.smd a/face.smd; echo $?)"
	"$smd2dmx" flipped.smd --vta a/face.vta -o b/face.dmx -f -q
	"$smdmx" report a b -o r.html -q >/dev/null
	want=""
	for n in arm arm_wave face model; do
		case $n in arm | face) vta=a/$n.vta other=b/$n.dmx ;; model) vta="" other="b/model.smd b/model.vta" ;; *) vta="" other=b/$n.dmx ;; esac
		# shellcheck disable=SC2086
		"$smdmx" diff "a/$n.$( [ $n = model ] && echo dmx || echo smd)" $vta $other -q 2>/dev/null
		[ $? = 1 ] && want="$want${want:+|}a/$n.$( [ $n = model ] && echo dmx || echo smd)"
	done
	check "smdmx diff calls two different" "a/arm_wave.smd|a/face.smd" "$want"
	python3 "$root/tests/browser.py" r.html "$build/report-screenshot.png" >seen 2>err
	check "the browser: driven" "0|" "$?|$(joined err)"
	check "the browser: a row per file" "rows 4" "$(grep '^rows ' seen)"
	check "the browser: every picture loads (8 models, 6 UV layouts)" "images 14 loaded 14" "$(grep '^images ' seen)"
	check "the browser: 'different' leaves smdmx diff's" "show different: $want" "$(grep '^show different: ' seen | unslashed)"
	check "the browser: 'all' shows every row again" 3 "$(grep '^show all: ' seen | tr -cd '|' | wc -c | tr -d ' ')"
	check "the browser: a screenshot kept, the window's width" "1400 x" "$(png_size "$build/report-screenshot.png" | cut -d' ' -f1-2)"
	# A library's report of tens of thousands of rows: it opens in under 3 s and 500 MB, each
	# filter, search and sort answers in under 0.5 s, and the one file that fails is on the
	# first screen of "failed". Under the sanitizers (SMDMX_CORPUS_SAMPLE=S) the page is
	# written by a build S^3 times fewer rows can bear (740 under ASan, 160 under TSan, which
	# took past 8 minutes on 4,000); the Windows build writes the same page ten times slower
	# under Wine (its memory and file calls): it is tried on 2,000 rows.
	s=${SMDMX_CORPUS_SAMPLE:-1}
	n=$((20000 / (s * s * s)))
	[ -n "${SMDMX_WINDOWS:-}" ] && n=2000
	python3 - "$n" "$root/testdata/qc/parts/base.smd" <<-'EOF'
		import os, sys
		n, base = int(sys.argv[1]), open(sys.argv[2]).read()
		for i in range(n):
		    for tree in "AB":
		        os.makedirs("%s/d%03d" % (tree, i % 200), exist_ok=True)
		        bad = tree == "B" and i == n - 1  # a file that weights a bone it never defines
		        with open("%s/d%03d/m%05d.smd" % (tree, i % 200, i), "w") as f:
		            f.write(base.replace("1 0 0 1 0 0 1 0 0", "1 0 0 1 0 0 1 0 0 1 5 1") if bad else base)
	EOF
	"$smdmx" report A B -o big.html -q
	last=$(printf 'd%03d/m%05d.smd' $(((n - 1) % 200)) $((n - 1)))
	python3 "$root/tests/browser.py" big.html big.png m00042 "$last" >seen 2>err
	check "a report of $n rows: the browser driven" "0|" "$?|$(joined err)"
	check "a report of $n rows: every row, pictures beside the page" "rows $n|yes" "$(grep '^rows ' seen)|$([ -f big_files/p00000.js ] && echo yes)"
	check "a report of $n rows: the failed file on the first screen of 'failed'" "first screen failed: A/$last" "$(grep '^first screen failed: ' seen | unslashed)"
	slow=$(awk '/^ready ms / && $3 >= 3000 { print } /^memory MB / && $3 >= 500 { print } /^time / && $(NF - ($0 ~ / found /) * 2) >= 500 { print }' seen | tr '\n' '|')
	check "a report of $n rows: opened in under 3 s and 500 MB, every answer in under 0.5 s" "" "$slow"
	sed "s/^/$n rows: /" seen | grep -e ' ready ms ' -e ' memory MB ' -e ' time '
	# the corpus's QC libraries converted, their report opened alike
	if [ -d "$corpus/library" ]; then
		"$smdmx" qc -r "$corpus/library" --to dmx -d lib_dmx -k -q --report lib.html 2>/dev/null
		python3 "$root/tests/browser.py" lib.html lib.png >seen 2>err
		check "the corpus libraries' report: the browser driven, a row per QC" "0||rows 25" "$?|$(joined err)|$(grep '^rows ' seen)"
		slow=$(awk '/^ready ms / && $3 >= 3000 { print } /^memory MB / && $3 >= 500 { print } /^time / && $NF >= 500 { print }' seen | tr '\n' '|')
		check "the corpus libraries' report: opened in under 3 s and 500 MB, every answer in under 0.5 s" "" "$slow"
		sed "s/^/libraries: /" seen | grep -e ' ready ms ' -e ' memory MB '
	elif [ -n "${SMDMX_REQUIRE_CORPUS:-}" ]; then
		check "the corpus at $corpus" yes no
	else
		echo "note: no corpus at $corpus: its libraries' report is not opened"
	fi
	echo "screenshot: $build/report-screenshot.png"
	;;

corpus)
	# Every model file of the corpus drawn or refused with a message: never a crash, never a
	# partial picture.
	if [ ! -d "$corpus" ]; then
		[ -n "${SMDMX_REQUIRE_CORPUS:-}" ] && { echo "FAIL: no corpus at $corpus"; exit 1; }
		echo "skipped: this group reads the corpus, and there is none at $corpus"
		exit 0
	fi
	# (a copy of it whole, a picture beside each file, a hundred files a start: a start a file
	# cost hundreds of Wine starts; a file whose stem another listed file has, alone, by -o.
	# Whole: the files a sample lists are drawn with every file their QCs name.)
	cp -r "$corpus" "$tmp/c"
	corpus_files '*.smd' '*.dmx' '*.qc' | sed "s|^$corpus/||" | awk '{ s = $0; sub(/\.[^./]*$/, "", s); print (seen[s]++ ? "2 " : "1 ") $0 }' >"$tmp/list"
	(cd "$tmp/c" && sed -n 's/^1 //p' "$tmp/list" | tr '\n' '\0' | xargs -0 -n 100 "$smdmx" preview --views all --skeleton --size 96 -q 2>>"$tmp/err")
	n=0 drawn=0 refused=0 bad=""
	while IFS= read -r line; do
		n=$((n + 1))
		f=${line#? }
		png="$tmp/c/${f%.*}.png"
		if [ "${line%% *}" = 2 ]; then
			png="$tmp/c/${f%.*}.2.png"
			(cd "$tmp/c" && "$smdmx" preview "$f" -o "$png" --views all --skeleton --size 96 -q 2>>"$tmp/err")
		fi
		# drawn at its size, or no picture and an error that starts with its name
		if [ "$(png_size "$png")" = "192 x 192" ]; then drawn=$((drawn + 1))
		elif [ ! -e "$png" ] && awk -v f="$f:" 'index($0, f) == 1 && index($0, ": error: ") { found = 1 } END { exit !found }' "$tmp/err"; then refused=$((refused + 1))
		else bad="$bad $f"; fi
	done <"$tmp/list"
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
