#!/bin/sh
# DMX as the wild writes it, from the command line: the files testdata/model holds in the forms
# other writers use (stubs, keys that are not unit quaternions, materials with white space, an
# up axis said twice, a prop without joints), and the corpus's DMX libraries as they are:
# library/l4d2_modelsrc (Valve's Left 4 Dead 2 weapons and props, vsDmxIO exports with their
# QCs) and dmx_wild (datamodel-rs's and jglrxavpok's test models). One group per meson test.
# usage: cli_wild.sh GROUP BUILD_DIR SOURCE_ROOT
. "$(dirname "$0")/cli_lib.sh"

model=$root/testdata/model
l4d2=$corpus/library/l4d2_modelsrc
wild=$corpus/dmx_wild
# stdout and stderr of the last run, one line each joined by '|'
joined() { tr '\n' '|' <"$1" | sed 's/|$//'; }
# the corpus folders these groups read, or a skip said (a failure when it must be there)
need_corpus() {
	[ -d "$l4d2" ] && [ -d "$wild" ] && return 0
	if [ "${SMDMX_REQUIRE_CORPUS:-0}" != 0 ]; then
		check "the corpus is at $corpus" yes no
	else
		echo "skipped: this group reads the corpus, and there is none at $corpus"
	fi
	return 1
}
case $group in
files)
	cd "$tmp" || exit 2
	# an animation naming elements of another file, as SFM's exports do: read by every
	# command, kept by id through a re-encoding, no element to a conversion
	"$smdmx" info "$model/arm_wave_stub.dmx" >out 2>err
	check "stubs: info" "0 $model/arm_wave_stub.dmx: animation dmx, keyvalues2 1, format model 18, 25 elements and references to 2 of other files" \
		"$? $(head -n 1 out)"
	"$smdmx" convert "$model/arm_wave_stub.dmx" -o stub.dmx --encoding binary 2>err
	check "stubs: re-encoded as binary, said once" "0 1" "$? $(grep -c 'which this file does not hold (an element of another file, as SFM writes them)' err)"
	"$smdmx" dump stub.dmx >out 2>err
	check "stubs: the binary file keeps the references" "0 1 1" \
		"$? $(grep -c 'animationSet: element = an element of another file, c489d533-9f1e-4b6a-8d2c-5e7f3a1b0c94' out) $(grep -c '^encoding binary 5, format model 18, 25 elements and references to 2 of other files$' out)"
	"$dmx2smd" stub.dmx -o stub.smd 2>err
	"$dmx2smd" "$model/arm_wave.dmx" -o plain.smd 2>/dev/null
	check "stubs: dmx2smd converts, the same animation as the file without them" "0 0" "$? $(cmp -s stub.smd plain.smd; echo $?)"
	# keys of other lengths than 1, as Valve's Maya exporter writes some
	"$dmx2smd" "$model/arm_wave_scaled.dmx" -o scaled.smd 2>err
	check "keys not unit: converted, said" "0 $model/arm_wave_scaled.dmx: warning: an orientation that is not a unit quaternion (norms 0.729 to 1.14, as Valve's Maya exporter writes some) read as the rotation studiomdl makes of it; nothing to do (2 times)" \
		"$? $(joined err)"
	"$smdmx" info "$model/arm_wave_scaled.dmx" >out 2>&1
	check "keys not unit: info calls it an animation" "0 1" "$? $(grep -c 'animation dmx' out)"
	# materials with white space: '  phy' kept, 'rock  ' said
	"$dmx2smd" "$model/phy_spaces.dmx" -o phy.smd 2>err
	check "material spaces: converted" "0 1 1" "$? $(grep -c '^  phy' phy.smd) $(grep -c "ends in white space ('rock  ')" err)"
	"$smd2dmx" phy.smd -o phy.dmx 2>err
	check "material spaces: read back, said" "0 1" "$? $(grep -c "phy.smd:10:1: warning: a material whose name begins with white space ('  phy')" err)"
	# an up axis said twice, as Source 2's exporters write it: the axis system's Z taken
	"$dmx2smd" "$model/arm_axis_system.dmx" --qc axis.qc -o axis.smd 2>err
	check "up axis: said, no \$upaxis in the QC" "0 1 0" "$? $(grep -c "upAxis says Y and its axis system Z: Z up taken" err) $(grep -c upaxis axis.qc)"
	"$smd2dmx" --qc axis.qc -o axis.dmx -q
	"$smdmx" diff "$model/arm.dmx" axis.dmx >out
	check "up axis: the QC's DMX is the model, not turned" "0 " "$? $(joined out)"
	"$smdmx" diff "$model/arm.dmx" "$model/arm_axis_system.dmx" >out
	check "up axis: diff sees one model" "0 " "$? $(joined out)"
	"$smdmx" preview "$model/arm.dmx" -o arm.png -q && "$smdmx" preview "$model/arm_axis_system.dmx" -o axis.png -q 2>/dev/null
	check "up axis: drawn standing, as the model without the string" 0 "$(cmp -s arm.png axis.png; echo $?)"
	# a Y-up model turned to Z up by its QC's round trip: the same model to diff
	sed 's/^\t"jointList" "element_array"$/\t"upAxis" "string" "Y"\n&/' "$model/arm.dmx" >y.dmx
	"$dmx2smd" y.dmx --qc y.qc -o y.smd 2>/dev/null
	"$smd2dmx" --qc y.qc -o y_back.dmx -q
	"$smdmx" diff y.dmx y_back.dmx >out
	check "Y up through SMD and QC: \$upaxis written, the turned model equal" "1 0 " "$(grep -c '^\$upaxis Y' y.qc) $? $(joined out)"
	"$smdmx" diff y.dmx y_back.dmx --strict >out
	check "Y up: --strict calls the axes a difference" "1 1" "$? $(grep -c '^Y up vs Z up$' out)"
	# a prop without joints: held on one bone in SMD, the same model
	"$dmx2smd" "$model/static_prop.dmx" -o prop.smd -q
	"$smdmx" diff "$model/static_prop.dmx" prop.smd >out
	check "no joints: the SMD on its bone is the same model" "0 " "$? $(joined out)"
	# a mesh that follows its own node beside the arm's joints (an object without an armature,
	# as Blender Source Tools writes it): the SMD has the bone studiomdl makes of the node, and
	# through SMD, VTA and QC it is the same model to diff, both ways
	"$dmx2smd" "$model/arm_scope.dmx" --qc scope.qc -o scope.smd -q
	tr -d '\r' <scope.smd >scope.lf
	check "own node: its bone at its transform, holding the mesh's 12 corners" "1 1 12" \
		"$(grep -cx '2 "scope" -1' scope.lf) $(grep -cx '2 5.000000 0.000000 3.000000 0.000000 0.000000 0.785398' scope.lf) $(grep -c '^2 .* 0$' scope.lf)"
	"$smdmx" diff "$model/arm_scope.dmx" scope.smd scope.vta >out 2>&1
	check "own node: the SMD and VTA are the model" "0 " "$? $(joined out)"
	"$smd2dmx" --qc scope.qc -o scope_back.dmx -q
	"$smdmx" diff scope_back.dmx "$model/arm_scope.dmx" >out 2>&1
	check "own node: through the QC and back, the model" "0 " "$? $(joined out)"
	;;

library)
	if need_corpus; then
		# every model and animation converts, without -k
		"$dmx2smd" -r "$l4d2" -d "$tmp/smd" -q 2>"$tmp/err"
		check "dmx2smd -r of the L4D2 library: every file converted" "0 34" "$? $(find "$tmp/smd" -name '*.smd' | wc -l | tr -d ' ')"
		# the library's QCs both ways: every QC written, every model converted; what fails is
		# a file a QC names that Valve did not ship. A QC that ends inside its $collisiontext
		# block is read to the end as studiomdl reads it, and said.
		"$smdmx" qc -r "$l4d2" --to smd -d "$tmp/q_smd" -k 2>"$tmp/err"
		check "smdmx qc -r --to smd" "1 smdmx: 6 QC projects, 26 converted, 2 copied, 1 missing, 0 failed; 11 QC files written" \
			"$? $(tail -n 1 "$tmp/err")"
		check "a block open at the QC's end: said" 1 \
			"$(grep -c "SubwayCar_All_OneTexture_SideDoor.qc:74:1: warning: this '{' is never closed: the rest of the QC is read as its block, as studiomdl reads it; close it for other tools$" "$tmp/err")"
		missing "$tmp/err" "$l4d2" >"$tmp/missing_first"
		check "a \$body's attachments after it" "\$body main w_rifle_ak47.smd|\$attachment \"ValveBiped.flashlight\" \"ValveBiped.weapon_bone\" 0.07665498 0.800974 19.952845 rigid|\$attachment \"ValveBiped.muzzle_flash\" \"ValveBiped.weapon_bone\" 0.014311421 2.4482443 26.629301 rigid|\$attachment \"ValveBiped.shell\" \"ValveBiped.weapon_bone\" -0.49600586 3.2578075 7.5470304 rigid" \
			"$(grep -A3 '^\$body' "$tmp/q_smd/v_models/w_rifle_ak47.qc" | tr -d '\r' | tr '\n' '|' | sed 's/|$//')"
		check "the attachments not said lost" 0 "$(grep -c 'w_rifle_ak47.dmx: warning: SMD has no attachments' "$tmp/err")"
		"$smdmx" qc -r "$l4d2" --to dmx -d "$tmp/q_dmx" -k 2>"$tmp/err"
		check "smdmx qc -r --to dmx" "1 smdmx: 6 QC projects, 2 converted, 26 copied, 1 missing, 0 failed; 11 QC files written" \
			"$? $(tail -n 1 "$tmp/err")"
		# what was written reads back: the SMD library to DMX
		"$smdmx" qc -r "$tmp/q_smd" --to dmx -d "$tmp/q_back" -k 2>"$tmp/err"
		check "the written SMD library read back" "1 smdmx: 6 QC projects, 28 converted, 0 copied, 1 missing, 0 failed; 11 QC files written" \
			"$? $(tail -n 1 "$tmp/err")"
		check "the written SMD library read back: no file newly missing" "$(cat "$tmp/missing_first")" "$(missing "$tmp/err" "$tmp/q_smd")"
		"$smdmx" qc -r "$tmp/q_dmx" --to smd -d "$tmp/q_dmx_back" -k 2>"$tmp/err"
		check "the written DMX library read back: no file newly missing" "$(cat "$tmp/missing_first")" "$(missing "$tmp/err" "$tmp/q_dmx")"
		# its report: a Y-up DMX's QC against the SMD's, compared as smdmx diff compares files
		# (turned alike, the turn of a joint and of a vertex rounded apart: 774 normals differed)
		"$smdmx" qc -r "$tmp/q_dmx" --to smd -d "$tmp/q_rep" -k -q --report "$tmp/rep.html" 2>/dev/null
		check "the report of the DMX library to SMD: w_rifle_ak47.qc the same" '"k":"equal","w":3,"e":0,"d":0' \
			"$(grep '^{"n":"[^"]*w_rifle_ak47.qc"' "$tmp/rep.html" | grep -o '"k":"[a-z]*","w":[0-9]*,"e":[0-9]*,"d":-*[0-9]*')"
		# one question, one answer: every row's verdict is smdmx diff's of its two QCs, both ways
		"$smdmx" qc -r "$tmp/q_smd" --to dmx -d "$tmp/q_rep2" -k -q --report "$tmp/rep2.html" 2>/dev/null
		rows=0 agree=0
		for page in "$tmp/rep.html" "$tmp/rep2.html"; do
			grep '^{"n":' "$page" | sed 's/\\\//\//g' |
				sed -n 's/.*"a":"\([^"]*\)","va":[^,]*,"b":"\([^"]*\)".*"d":\([0-9]*\),.*/\1|\2|\3/p' >"$tmp/rows"
			while IFS='|' read -r a b d; do
				rows=$((rows + 1))
				"$smdmx" diff -q "$a" "$b" >/dev/null 2>&1
				rc=$?
				{ [ $rc = 0 ] && [ "$d" = 0 ]; } || { [ $rc = 1 ] && [ "$d" != 0 ]; } && agree=$((agree + 1))
			done <"$tmp/rows"
		done
		check "the reports' verdicts are smdmx diff's, both ways" "10 10" "$rows $agree"
		# files made once: no two outputs of a run the same bytes but where their sources are
		# (the library holds three copies of bonemerge.qci and two of definebones.qci)
		same() { find "$1" -type f ! -name .smdmx-written -exec cksum {} + | sort | awk '{ k = $1 " " $2 } k == last { n++ } { last = k } END { print n + 0 }'; }
		check "no output written twice, both ways" "3 3 3" "$(same "$l4d2") $(same "$tmp/q_smd") $(same "$tmp/q_dmx")"
	fi
	;;

roundtrip)
	# Every DMX of the corpus (and s&box's binary_seqids beside it) through SMD and QC and back:
	# the same model to smdmx diff (two animations compare by their frames: an SMD
	# animation's bind pose is its first frame, and studiomdl reads no bind pose from an
	# animation; dmx2smd says where they differ), or refused with why: 9 datamodels that are
	# no models, and Blender Source Tools' file of flex controllers alone
	if need_corpus; then
		n=0 equal=0 said=0 refused=0
		for f in $(find "$corpus" "$corpus/../incoming" -name '*.dmx' 2>/dev/null | LC_ALL=C sort); do
			n=$((n + 1))
			d=$tmp/rt$n
			mkdir "$d"
			if ! "$dmx2smd" "$f" --qc "$d/m.qc" -o "$d/m.smd" 2>"$tmp/err"; then
				if grep -q -e 'error: not a usable model: the root has neither "model" nor "skeleton" nor "combinationOperator"' \
					-e 'error: a DMX of 4 flex controllers and nothing else (no mesh, skeleton or animation): no SMD holds them' "$tmp/err"; then
					refused=$((refused + 1))
				else
					check "$f: dmx2smd --qc" 0 "1 $(head -c 300 "$tmp/err")"
				fi
				continue
			fi
			cp "$tmp/err" "$d/said"
			grep -q "bind pose is its first frame: a joint whose bind pose is another" "$d/said" && said=$((said + 1))
			if ! "$smd2dmx" --qc "$d/m.qc" -o "$d/back.dmx" -q 2>"$tmp/err"; then
				check "$f: smd2dmx --qc" 0 "1 $(head -c 300 "$tmp/err")"
				continue
			fi
			"$smdmx" diff "$f" "$d/back.dmx" --max 3 >"$d/diff" 2>"$tmp/err"
			if [ $? = 0 ]; then
				equal=$((equal + 1))
			else
				check "$f: the same model through SMD and QC" "" "$(head -n 3 "$d/diff")"
			fi
		done
		incoming=$([ -d "$corpus/../incoming/dmx_seqids" ] && echo 3 || echo 0)
		check "every DMX: the same model through SMD and QC, or refused with why; animations' bind poses said" \
			"$((75 + incoming)) $((65 + incoming)) 10 $((36 + incoming / 3))" "$n $equal $refused $said"
		# Blender Source Tools writes a balance for every mesh with shape keys, stereo or not:
		# with no stereo control it changes no compiled model, so SMD leaves it out with a
		# word, and the model through SMD and QC is the same to smdmx diff
		n=0
		for f in "$corpus"/dmx_binary/Artfunkel__BlenderSourceTools__26bfa91_Cube_NoArmature_Cube.dmx \
			"$corpus"/dmx_binary/Artfunkel__BlenderSourceTools__Cube_NoArmature_Cube.dmx \
			"$corpus"/dmx_binary/Artfunkel__BlenderSourceTools__a1d7f43_Cube.dmx; do
			n=$((n + 1))
			d=$tmp/bal$n
			mkdir "$d"
			"$dmx2smd" "$f" --qc "$d/m.qc" -o "$d/m.smd" 2>"$d/said" &&
				"$smd2dmx" --qc "$d/m.qc" -o "$d/back.dmx" -q 2>"$tmp/err"
			"$smdmx" diff "$f" "$d/back.dmx" >"$d/diff" 2>&1
			check "$(basename "$f"): the balance no stereo control uses, said; the same model" "0 1" \
				"$? $(grep -c "^$d/m.smd: warning: stereo balance on 24 corners of 1 mesh left out: SMD has none, and no stereo control uses it, so studiomdl compiles the same model; nothing to do$" "$d/said")"
		done
		check "three Blender Source Tools cubes with a balance" 3 "$n"
	fi
	;;
esac
echo "$group: $pass passed, $fail failed"
[ "$fail" = 0 ]
