#!/bin/sh
# QC scripts as studiomdl reads them, from the command line: the small projects of
# testdata/qc (each a case found in published libraries, written here) converted with
# `smdmx qc`, and what was written read back: every file the first run found is found again.
# One group per meson test.
# usage: cli_qcwild.sh GROUP BUILD_DIR SOURCE_ROOT
. "$(dirname "$0")/cli_lib.sh"

qc=$root/testdata/qc
# count FILE PATTERN: the lines of FILE that match
count() { grep -c "$2" "$1"; }

case $group in
pushd)
	# Names under $pushd are taken from the pushed folder: the flexfile line written for a
	# DMX head is too (it was written from the QC's folder, and read back inside the pushed
	# folder twice).
	cd "$tmp" || exit 2
	"$smdmx" qc "$qc/pushd/heads.qc" --to smd -d smd 2>err
	check "pushd: to SMD" "0 0" "$? $(count err 'error')"
	check "pushd: the flexfile line from the pushed folder" "1" "$(count smd/heads.qc '^	flexfile "male_03.vta"$')"
	"$smdmx" qc smd/heads.qc --to dmx -d back 2>err
	check "pushd: read back, every file found" "0 0 0" "$? $(count err 'cannot find') $(count err 'error')"
	"$smdmx" qc "$qc/pushd/heads.qc" --to dmx -d dmx 2>err
	check "pushd: to DMX" "0 0" "$? $(count err 'error')"
	"$smdmx" qc dmx/heads.qc --to smd -d dmx_back 2>err
	check "pushd: to DMX read back, every file found" "0 0 0" "$? $(count err 'cannot find') $(count err 'error')"
	check "pushd: the second head's flexfile from the pushed folder" "2" "$(count dmx_back/heads.qc '^	flexfile "male_0[34].vta"$')"
	# One DMX named with and without $pushd by two QCs of a library: made once (one SMD, one
	# VTA), each QC's flexfile line naming it from its own folder, in either order, and
	# everything found reading the library back.
	"$smdmx" qc "$qc/pushd/heads.qc" "$qc/pushd/flat.qc" --to smd -d lib 2>err
	check "pushd: a library, to SMD" "0 1 1 1" \
		"$? $(count lib/heads.qc '^	flexfile "male_03.vta"$') $(count lib/flat.qc '^	flexfile "male_base/reheads/male_03.vta"$') $(count err '^smdmx: 2 QC projects, 1 converted, 2 copied, 0 missing, 0 failed; 2 QC files written$')"
	"$smdmx" qc "$qc/pushd/flat.qc" "$qc/pushd/heads.qc" --to smd -d lib2 2>err
	check "pushd: a library the other way round, the same files" "0 yes yes yes 0" \
		"$? $(cmp -s lib/heads.qc lib2/heads.qc && echo yes) $(cmp -s lib/flat.qc lib2/flat.qc && echo yes) $(cd lib && find . -type f ! -name .smdmx-written | sort >../l1; cd ../lib2 && find . -type f ! -name .smdmx-written | sort >../l2; cd .. && cmp -s l1 l2 && echo yes) $(ls lib/male_base/reheads | grep -c _flat)"
	"$smdmx" qc -r lib --to dmx -d lib_back 2>err
	check "pushd: the library read back, every file found" "0 0 0" "$? $(count err 'cannot find') $(count err 'error')"
	;;
macros)
	# Names a macro's argument makes are renamed at the call (they were renamed in the body
	# every call shares: 'aimlayer_ar2.smd.dmx'); a variable that also names a sequence keeps
	# its file's name and format, with a note.
	cd "$tmp" || exit 2
	"$smdmx" qc "$qc/macros/layers.qc" --to dmx -d dmx 2>err
	check "macros: to DMX" "0 0" "$? $(count err 'error')"
	check "macros: the calls' arguments renamed, the body as it was" "1 1 1 1" \
		"$(count dmx/layers.qc '^\$MakeAimLayer aimlayer_ar2 "aimlayer_ar2.dmx"$') $(count dmx/layers.qc '^\$MakeAimLayer aimlayer_pistol "aimlayer_pistol.dmx"$') $(count dmx/layers.qc '^\$animation \$name\$ \$filename\$ \\\\$') $(count dmx/layers.qc '^\$sequence \$shared\$ "\$shared\$"$')"
	check "macros: the shared value's file copied, said at its name" "1 yes" \
		"$(count err "layers.qc:12:20: note: 'idle.smd' ends with the value of a variable or macro argument that also makes other text than file names: no new name can be written there; so the file keeps its name and format (copied unchanged)") $([ -f dmx/idle.smd ] && echo yes)"
	"$smdmx" qc dmx/layers.qc --to smd -d back 2>err
	check "macros: read back, every file found" "0 0 0" "$? $(count err 'cannot find') $(count err 'error')"
	check "macros: and named back" "1 1" "$(count back/layers.qc '"aimlayer_ar2.smd"$') $(count back/layers.qc '"aimlayer_pistol.smd"$')"
	# a third pass finds every file the first found (each pass reads back what it wrote)
	"$smdmx" qc back/layers.qc --to dmx -d third 2>err
	check "macros: a third pass, every file found" "0 0 0 1 1" \
		"$? $(count err 'cannot find') $(count err 'error') $(count third/layers.qc '"aimlayer_ar2.dmx"$') $(count third/layers.qc '"aimlayer_pistol.dmx"$')"
	# One body names two files, one converted, one copied (it fails): a new name written in
	# the body would name the copy as a file nobody wrote. With -k both keep their names and
	# formats (copied), and the QC is written as it was; said.
	"$smdmx" qc "$qc/macro_clash/m.qc" --to dmx -d clash -k 2>err
	check "macros: a body two files share, one not converted: both kept, the QC as it was" "1 yes yes 1" \
		"$? $(cmp -s clash/m.qc "$qc/macro_clash/m.qc" && echo yes) $(cmp -s clash/a.smd "$qc/macro_clash/a.smd" && echo yes) $(count err "m.qc:5:15: note: 'a.smd' keeps its name and format (copied as it is): the text that makes its name (a macro's body, a variable) names a file that keeps its own too$")"
	check "macros: the QC files counted" 1 "$(count err '; 1 QC file written$')"
	"$smdmx" qc clash/m.qc --to smd -d clash_back -k 2>err
	check "macros: kept, read back, every file found" "0 0 1" "$? $(count err 'cannot find') $(count err '^smdmx: 0 converted, 2 copied, 0 missing, 0 failed')"
	# A body whose argument is called with an extension in one call and none in another (a
	# GMod library's form): 'walk.smd' also names a sequence, so it keeps its name; '.dmx'
	# written after '$filename$' in the body would then name 'walk.smd.dmx'. Every file made
	# through that body keeps its name and format, with or without -k, said; three passes
	# find every file, and the QC comes back as it was.
	mkdir -p ext/anims
	for f in run walk jump; do cp "$qc/macros/idle.smd" "ext/anims/$f.smd"; done
	cp "$qc/macros/model.smd" ext/
	cat >ext/g.qc <<'QC'
$modelname "g.mdl"
$definemacro seq name filename \\
$sequence $name$ "anims/$filename$" fps 30 \\

$definemacro seq2 filename \\
$seq $filename$ $filename$ \\

$body body "model.smd"
$seq2 run
$seq2 walk.smd
$seq2 "jump"
QC
	"$smdmx" qc ext/g.qc --to dmx -d ext1 2>err
	check "macros: one body, an extension in one call only: written, said" "0 1 1 1 1" \
		"$? $(count err "g.qc:6:17: note: 'walk.smd' ends with the value of a variable or macro argument that also makes other text than file names") $(count err "g.qc:3:18: note: 'anims/run' keeps its name and format (copied as it is)") $(count err "g.qc:3:18: note: 'anims/jump' keeps its name and format (copied as it is)") $(count err '^smdmx: 3 converted, 1 copied, 0 missing, 0 failed; 1 QC file written$')"
	check "macros: the body as it was, the files as they were" "1 yes yes yes" \
		"$(count ext1/g.qc '^\$seq \$filename\$ \$filename\$ \\\\$') $(cmp -s ext/anims/run.smd ext1/anims/run.smd && echo yes) $(cmp -s ext/anims/walk.smd ext1/anims/walk.smd && echo yes) $(cmp -s ext/anims/jump.smd ext1/anims/jump.smd && echo yes)"
	"$smdmx" qc ext1/g.qc --to smd -d ext2 2>err
	check "macros: one body, an extension in one call only: read back" "0 0 0" "$? $(count err 'cannot find') $(count err 'error')"
	"$smdmx" qc ext2/g.qc --to dmx -d ext3 2>err
	check "macros: one body, an extension in one call only: a third pass, every file found, the QC as it was" "0 0 0 yes" \
		"$? $(count err 'cannot find') $(count err 'error') $(cmp -s ext1/g.qc ext3/g.qc && echo yes)"
	;;
shared)
	# An include two QCs need written differently: the later QC's gets a name of its own
	# (the project was not written at all); one QC at a time into one folder, what an earlier
	# run wrote stays when it holds the very bytes, and takes a second name when not.
	cd "$tmp" || exit 2
	"$smdmx" qc "$qc/shared/a.qc" "$qc/shared/b.qc" "$qc/shared/c.qc" --to dmx -d lib 2>err
	check "shared: a library, every QC written" "0 1 1 1" \
		"$? $(count lib/b.qc '^\$include "shared_b.qci"$') $(count lib/b.qc '^\$sequence early "wave_b.dmx" fps 30$') $(count lib/shared_b.qci '^\$sequence wave "wave_b.dmx" fps 24$')"
	check "shared: the include's second name said" 1 "$(count err "shared.qci: note: .*b.qc needs it written otherwise than .*a.qc (a file it names is converted another way): written as '.*shared_b.qci' for this QC")"
	"$smdmx" qc -r lib --to smd -d lib_back 2>err
	check "shared: the library read back, every file found" "0 0 0" "$? $(count err 'cannot find') $(count err 'error')"
	for q in a c b; do
		"$smdmx" qc "$qc/shared/$q.qc" --to dmx -d one 2>err
		check "shared: one QC at a time, $q.qc written" "0 yes" "$? $([ -f one/$q.qc ] && echo yes)"
	done
	check "shared: one at a time, the same files as the library" "$(files lib)" "$(files one)"
	"$smdmx" qc -r one --to smd -d one_back 2>err
	check "shared: one at a time, read back, every file found" "0 0 0" "$? $(count err 'cannot find') $(count err 'error')"
	# One file made one way is written once: an SMD at 'fps 30' and at no fps (the default,
	# 30), the SMD of a \$body and of a \$model without flex lines, are one DMX each, and the
	# include the two QCs share stays one
	mkdir -p once/q1 once/q2 once/shared
	cp "$root/testdata/sample/arm.smd" "$root/testdata/sample/arm_wave.smd" once/shared/
	printf '$sequence wave "../shared/arm_wave.smd"\n$sequence idle "../shared/arm_wave.smd" fps 30\n' >once/shared/common.qci
	printf '$modelname "a.mdl"\n$model body "../shared/arm.smd"\n$sequence early "../shared/arm_wave.smd" fps 30\n$include "../shared/common.qci"\n' >once/q1/a.qc
	printf '$modelname "b.mdl"\n$body body "../shared/arm.smd"\n$include "../shared/common.qci"\n' >once/q2/b.qc
	"$smdmx" qc -r once --to dmx -d once_dmx 2>err
	check "once: one DMX per file, the include shared, nothing said" "0 ./.smdmx-written ./q1/a.qc ./q2/b.qc ./shared/arm.dmx ./shared/arm_wave.dmx ./shared/common.qci |smdmx: 2 QC projects, 2 converted, 0 copied, 0 missing, 0 failed; 3 QC files written" \
		"$? $(files once_dmx)|$(cat err)"
	# a VTA made of the whole character: its vertices at the corners of the QC's other body
	# parts are no loss (studiomdl moves them with this model no more), said as nothing to do
	mkdir char
	cp "$root/testdata/sample/arm.smd" char/body.smd
	sed -n '1,/^triangles/p' "$root/testdata/sample/arm.smd" | tr -d '\r' >char/hat.smd
	printf 'hat\n0 100 0 0 0 0 1 0 0\n0 101 0 0 0 0 1 1 0\n0 100 1 0 0 0 1 0 1\nend\n' >>char/hat.smd
	tr -d '\r' <"$root/testdata/sample/arm.vta" | awk '/^time 1/ { n++ } /^time 1/ && n == 2 {
		print "60 100 0 0 0 0 1"; print "61 101 0 0 0 0 1"; print "62 100 1 0 0 0 1"; print; print "60 100 0 0.5 0 0 1"; next } { print }' >char/char.vta
	printf '$modelname "c.mdl"\n$model body "body.smd" {\n\tflexfile "char.vta" {\n\t\tdefaultflex frame 0\n\t\tflex "bulge" frame 1\n\t}\n}\n$bodygroup hat {\n\tstudio "hat.smd"\n\tblank\n}\n' >char/c.qc
	"$smdmx" qc char/c.qc --to dmx -d char_out 2>err
	check "a VTA of the whole character: its other parts' vertices, nothing to do" "0 1 0" \
		"$? $(count err "char.vta: warning: 3 of 63 VTA vertices (4.8%) are at no corner of the reference but at corners of the QC's other body parts (the VTA is of the whole character): studiomdl moves none of them with this model either; nothing to do") $(count err 'export both again')"
	# a DMX named as a model's file by one QC and as an animation by another: two ways
	# planned, one SMD made (the DMX holds no mesh), written once, said
	mkdir -p twice
	"$smd2dmx" "$root/testdata/sample/arm_wave.smd" -o twice/w.dmx -q
	printf '$modelname "a.mdl"\n$body b "w.dmx"\n' >twice/a.qc
	printf '$modelname "b.mdl"\n$sequence s "w.dmx"\n' >twice/b.qc
	"$smdmx" qc -r twice --to smd -d twice_smd 2>err
	check "twice: one SMD, both QCs name it" "0 ./.smdmx-written ./a.qc ./b.qc ./w.smd |1|1" \
		"$? $(files twice_smd)|$(count twice_smd/b.qc '^\$sequence s "w.smd"$')|$(count err "w.dmx: note: made for .*b.qc as '.*w_b.smd', it is the very bytes of '.*w.smd' (made of '.*w.dmx' for .*a.qc): written once, and the QC names that$")"
	;;
missing)
	# A file missing that a shared include names is one cause: one error, with how many QCs
	# it is for (it was one per QC).
	cd "$tmp" || exit 2
	"$smdmx" qc -r "$qc/missing" --to dmx -d lib -k 2>err
	check "missing: one error for the three QCs" "1 1 1" \
		"$? $(count err 'error') $(count err "common.qci:3:16: error: cannot find '.*gone_anim.smd' (named by \$sequence): the QC keeps naming it (for 3 QCs)$")"
	check "missing: the summary counts it once" 1 "$(count err '^smdmx: 3 QC projects, 1 converted, 0 copied, 1 missing, 0 failed; 4 QC files written$')"
	;;
modelname)
	# Two QCs that make one .mdl: studiomdl would write one over the other; said.
	cd "$tmp" || exit 2
	"$smdmx" qc -r "$qc/modelname" --to dmx -d lib 2>err
	check "modelname: two QCs of one \$modelname, said" "0 1" \
		"$? $(count err "crate_open.qc:2:12: warning: 'Props\\\\Crate.mdl' is the \$modelname of .*crate.qc too: studiomdl would write one model over the other; give one of them another name$")"
	;;
rerun)
	# Run again into the folder an earlier run wrote: what smdmx wrote there for this QC, as
	# it wrote it (its record, .smdmx-written), is replaced; another QC's file or someone's
	# edit never is (a model took a second name, a QC that changed was refused).
	cd "$tmp" || exit 2
	cp -r "$qc/shared" src
	moved() { awk -v d="$1" 'NR == 12 { $2 = $2 + d } { print }' src/body.smd >src/x && mv src/x src/body.smd; }
	"$smdmx" qc src/a.qc --to dmx -d out 2>err
	check "rerun: the first run, recorded" "0 1" "$? $(count out/.smdmx-written '	src/body.smd\|	body.dmx$')"
	moved 1
	"$smdmx" qc src/a.qc --to dmx -d out 2>err
	check "rerun: a changed model replaced in place, said nothing of" "0 0 no 0" \
		"$? $(count err 'note\|warning\|error') $([ -f out/body_a.dmx ] && echo yes || echo no) $("$smdmx" diff -q src/body.smd out/body.dmx; echo $?)"
	printf '$sequence idle "wave" fps 24\n' >>src/a.qc
	"$smdmx" qc src/a.qc --to dmx -d out 2>err
	check "rerun: a changed QC rewritten" "0 1" "$? $(count out/a.qc '^\$sequence idle "wave.dmx" fps 24$')"
	# another QC's files: b.qc needs wave.smd at 30 fps and the include otherwise
	cp out/wave.dmx wave_a.dmx
	"$smdmx" qc src/b.qc --to dmx -d out 2>err
	check "rerun: another QC's files kept, its own beside them" "0 yes yes same" \
		"$? $([ -f out/wave_b.dmx ] && echo yes) $([ -f out/shared_b.qci ] && echo yes) $(cmp -s wave_a.dmx out/wave.dmx && echo same)"
	# someone's edit of a model: kept, the output beside it, which the QC names
	printf 'x' >>out/body.dmx
	moved 1
	"$smdmx" qc src/a.qc --to dmx -d out 2>err
	check "rerun: someone's edit kept, the model beside it" "0 x yes 1" \
		"$? $(tail -c 1 out/body.dmx) $([ -f out/body_a.dmx ] && echo yes) $(count out/a.qc '^\$body body "body_a.dmx"$')"
	# once more: that second name is smdmx's own now, replaced (not a third name)
	moved 1
	"$smdmx" qc src/a.qc --to dmx -d out 2>err
	check "rerun: the second name replaced in place" "0 no 0 1" \
		"$? $([ -f out/body_a2.dmx ] && echo yes || echo no) $("$smdmx" diff -q src/body.smd out/body_a.dmx; echo $?) $(count out/a.qc '^\$body body "body_a.dmx"$')"
	# someone's edit of the written QC: never overwritten without -f
	printf '// mine\n' >>out/a.qc
	moved 1
	"$smdmx" qc src/a.qc --to dmx -d out 2>err
	check "rerun: someone's edit of the QC refused" "1 1 // mine" \
		"$? $(count err "error: '$drive$tmp/out/a.qc' exists (--force overwrites it)$") $(tail -n 1 out/a.qc)"
	"$smdmx" qc src/a.qc --to dmx -d out -f 2>err
	check "rerun: -f replaces it" "0 0" "$? $(count out/a.qc '^// mine$')"
	# a record line smdmx cannot read: said at its line, its file kept as someone's
	awk 'NR == 3 { print "not a record line" } { print }' out/.smdmx-written >rec && mv rec out/.smdmx-written
	moved 1
	"$smdmx" qc src/a.qc --to dmx -d out 2>err
	check "rerun: a record line not read, said" "0 1" \
		"$? $(count err "^$drive$tmp/out/.smdmx-written:3:1: warning: 1 line of the record smdmx qc cannot read (the first here): left out; the files they name are taken as someone else's and not replaced without --force$")"
	;;
goldsrc)
	# A GoldSrc QC, every command of Half-Life's studiomdl and every $sequence option: read
	# with the one warning its $body scale earns, converted both ways, the written QCs the
	# same but for the files' names, and everything found reading them back.
	cd "$tmp" || exit 2
	"$smdmx" check "$qc/goldsrc/gold.qc" 2>err
	check "goldsrc: read, one warning" "0 1 1" "$? $(wc -l <err | tr -d ' ') $(count err "gold.qc:24:26: warning: 'scale' on the '\$body' line")"
	for to in dmx smd; do
		"$smdmx" qc "$qc/goldsrc/gold.qc" --to $to -d $to 2>err
		# its two textures (arm.bmp its triangles name, arm2.bmp its $texturegroup) copied
		[ $to = dmx ] && made="2 converted, 2 copied" back=smd || made="0 converted, 4 copied" back=dmx
		check "goldsrc: to $to" "0 smdmx: $made, 0 missing, 0 failed; 1 QC file written" "$? $(tail -n 1 err)"
		check "goldsrc: to $to, only the files' names change" "" \
			"$(sed "s/\"\(body\|wave\)\.$to\"/\"\1\"/g" $to/gold.qc | diff "$qc/goldsrc/gold.qc" -)"
		"$smdmx" qc $to/gold.qc --to $back -d ${to}_back 2>err
		check "goldsrc: to $to, read back, every file found" "0 0 0" "$? $(count err 'cannot find') $(count err 'error')"
	done
	check "goldsrc: to DMX and back, the model the same, its GoldSrc material kept" "0 arm.bmp" \
		"$("$smdmx" diff -q "$qc/goldsrc/body.smd" dmx_back/body.smd; echo $?) $(grep -m 1 -o '^arm\.bmp' dmx_back/body.smd)"
	check "goldsrc: the textures studiomdl reads, there after two passes" "0 0" \
		"$(cmp -s "$qc/goldsrc/arm.bmp" dmx_back/arm.bmp; echo $?) $(cmp -s "$qc/goldsrc/arm2.bmp" dmx_back/arm2.bmp; echo $?)"
	# a texture not where studiomdl looks: missing, said where it is named (Half-Life's
	# studiomdl stops there); with -k the project is written all the same
	mkdir gs && cp "$qc/goldsrc/gold.qc" "$qc/goldsrc/body.smd" "$qc/goldsrc/wave.smd" "$qc/goldsrc/arm.bmp" gs/
	sed 's/^\$cdtexture ".\\"$/$cdtexture "skins" "."/' gs/gold.qc >gs/g.qc && rm gs/gold.qc
	"$smdmx" qc gs/g.qc --to dmx -d gs_out -k 2>err
	check "goldsrc: a texture missing, said, counted" "1 1 1 yes" \
		"$? $(count err "gs/g.qc: error: cannot find the texture 'arm2.bmp' (the QC's \$texturegroup names it) in the folders Half-Life's studiomdl looks in ('skins/', './', from the QC's folder): not copied") $(count err 'smdmx: 2 converted, 1 copied, 1 missing, 0 failed; 1 QC file written') $([ -f gs_out/arm.bmp ] && echo yes)"
	;;
*)
	echo "unknown group $group"
	exit 2
	;;
esac
echo "$group: $pass passed, $fail failed"
[ "$fail" = 0 ]
