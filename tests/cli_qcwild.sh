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
	# One DMX named with and without $pushd by two QCs of a library: each QC's flexfile line
	# from its own folder, and everything found reading the library back.
	"$smdmx" qc "$qc/pushd/heads.qc" "$qc/pushd/flat.qc" --to smd -d lib 2>err
	check "pushd: a library, to SMD" "0 1 1" \
		"$? $(count lib/heads.qc '^	flexfile "male_03.vta"$') $(count lib/flat.qc '^	flexfile "male_base/reheads/male_03_flat.vta"$')"
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
	;;
*)
	echo "unknown group $group"
	exit 2
	;;
esac
echo "$group: $pass passed, $fail failed"
[ "$fail" = 0 ]
