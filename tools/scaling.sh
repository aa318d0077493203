#!/bin/sh
# Scaling: inputs with tens of thousands of one thing (materials, bones, frames, shapes),
# and small DMX files whose sharing would multiply their output, each converted once with
# the release build, timed, with its peak memory (GNU time, where installed) and exit code.
# Work that grows with the square of a count, or output that a small file multiplies,
# shows here as seconds or a refusal; a 64 KiB fuzz input cannot show it. Not a test:
# timings vary with the machine.
# Usage: tools/scaling.sh [SCALE]   (SCALE multiplies every count; default 1)
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
k=${1:-1}
sh tools/install-deps.sh >/dev/null
configure build -Dwerror=true
meson compile -C build >/dev/null
b=build
d=build/scaling
rm -rf "$d"
mkdir -p "$d"

# SMD: N triangles, each with a new material
awk -v n=$((200000 * k)) 'BEGIN {
	print "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles"
	for (t = 0; t < n; t++) printf "mat%d\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\n", t
	print "end" }' >"$d/materials.smd"
# SMD animation: B bones in chains of 50, F frames moving linearly
awk -v bones=1000 -v frames=$((2000 * k)) 'BEGIN {
	print "version 1\nnodes"
	for (j = 0; j < bones; j++) printf "%d \"b%d\" %d\n", j, j, (j % 50 ? j - 1 : -1)
	print "end\nskeleton"
	for (f = 0; f < frames; f++) {
		printf "time %d\n", f
		for (j = 0; j < bones; j++) printf "%d %f 0 0 0 0 %f\n", j, f * 0.01, j * 0.001
	}
	print "end" }' >"$d/animation.smd"
# SMD: J bones in one chain, each the parent of the one before (so parents come later),
# and a few skinned triangles
awk -v n=$((60000 * k)) 'BEGIN {
	print "version 1\nnodes"
	for (j = 0; j < n; j++) printf "%d \"b%d\" %d\n", j, j, (j + 1 < n ? j + 1 : -1)
	print "end\nskeleton\ntime 0"
	for (j = 0; j < n; j++) printf "%d 1 0 0 0 0 0.1\n", j
	print "end\ntriangles"
	for (t = 0; t < 1000; t++)
		printf "m%d\n%d 0 0 0 0 0 1 0 0 2 %d 0.5 %d 0.5\n%d 1 0 0 0 0 1 0 0\n%d 0 1 0 0 0 1 0 0\n", t % 7, t, (t * 7) % n, (t * 13) % n, t, t
	print "end" }' >"$d/bones.smd"
# a reference of V corners and a VTA of S shapes, one vertex each
awk -v v=3000 'BEGIN {
	print "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles"
	for (t = 0; t < v / 3; t++) printf "m\n0 %d 0 0 0 0 1 0 0\n0 %d 1 0 0 0 1 0 0\n0 %d 0 1 0 0 1 0 0\n", t, t, t
	print "end" }' >"$d/shapes.smd"
awk -v v=3000 -v s=$((20000 * k)) 'BEGIN {
	print "version 1\nnodes\n0 \"root\" -1\nend\nskeleton"
	for (i = 0; i <= s; i++) printf "time %d\n0 0 0 0 0 0 0\n", i
	print "end\nvertexanimation\ntime 0"
	for (t = 0; t < v / 3; t++) printf "%d %d 0 0 0 0 1\n%d %d 1 0 0 0 1\n%d %d 0 1 0 0 1\n", 3 * t, t, 3 * t + 1, t, 3 * t + 2, t
	for (i = 1; i <= s; i++) { x = (i * 37) % v; printf "time %d\n%d %d 1 0.5 0 0 1\n", i, x, int(x / 3) }
	print "end" }' >"$d/shapes.vta"
# DMX: M meshes on one face set of T triangles (refused: it would stand for M x T faces)
awk -v m=2000 -v t=30000 'function id(i) { return sprintf("00000000-0000-0000-0000-%012d", i) }
BEGIN {
	print "<!-- dmx encoding keyvalues2 1 format model 18 -->"
	printf "\"DmElement\" { \"id\" \"elementid\" \"%s\" \"model\" \"element\" \"%s\" }\n", id(999999), id(0)
	printf "\"DmeModel\" { \"id\" \"elementid\" \"%s\" \"children\" \"element_array\" [", id(0)
	for (i = 0; i < m; i++) printf "%s \"element\" \"%s\"", (i ? "," : ""), id(100000 + i)
	print " ] }"
	printf "\"DmeFaceSet\" { \"id\" \"elementid\" \"%s\" \"faces\" \"int_array\" [", id(1)
	for (i = 0; i < t; i++) printf "%s \"0\", \"1\", \"2\", \"-1\"", (i ? "," : "")
	print " ] }"
	printf "\"DmeVertexData\" { \"id\" \"elementid\" \"%s\" \"positions\" \"vector3_array\" [ \"0 0 0\", \"1 0 0\", \"0 1 0\" ] \"positionsIndices\" \"int_array\" [ \"0\", \"1\", \"2\" ] }\n", id(2)
	for (i = 0; i < m; i++)
		printf "\"DmeDag\" { \"id\" \"elementid\" \"%s\" \"shape\" \"DmeMesh\" { \"name\" \"string\" \"mesh%d\" \"bindState\" \"element\" \"%s\" \"faceSets\" \"element_array\" [ \"element\" \"%s\" ] } }\n", id(100000 + i), i, id(2), id(1)
}' >"$d/shared_faces.dmx"
# DMX: S shapes each moving the one position that all C corners share (refused: the VTA
# would write C x S lines)
awk -v c=30000 -v s=300 'function id(i) { return sprintf("00000000-0000-0000-0000-%012d", i) }
BEGIN {
	print "<!-- dmx encoding keyvalues2 1 format model 18 -->"
	printf "\"DmElement\" { \"id\" \"elementid\" \"%s\" \"model\" \"element\" \"%s\" }\n", id(999999), id(0)
	printf "\"DmeModel\" { \"id\" \"elementid\" \"%s\" \"children\" \"element_array\" [ \"element\" \"%s\" ] }\n", id(0), id(1)
	printf "\"DmeDag\" { \"id\" \"elementid\" \"%s\" \"shape\" \"DmeMesh\" { \"name\" \"string\" \"mesh\" \"bindState\" \"element\" \"%s\" \"deltaStates\" \"element_array\" [", id(1), id(2)
	for (i = 0; i < s; i++) printf "%s \"element\" \"%s\"", (i ? "," : ""), id(1000 + i)
	printf " ] \"faceSets\" \"element_array\" [ \"DmeFaceSet\" { \"faces\" \"int_array\" ["
	for (i = 0; i < c / 3; i++) printf "%s \"%d\", \"%d\", \"%d\", \"-1\"", (i ? "," : ""), 3 * i, 3 * i + 1, 3 * i + 2
	print " ] } ] } }"
	printf "\"DmeVertexData\" { \"id\" \"elementid\" \"%s\" \"positions\" \"vector3_array\" [ \"0 0 0\" ] \"positionsIndices\" \"int_array\" [", id(2)
	for (i = 0; i < c; i++) printf "%s \"0\"", (i ? "," : "")
	print " ] }"
	for (i = 0; i < s; i++)
		printf "\"DmeVertexDeltaData\" { \"id\" \"elementid\" \"%s\" \"name\" \"string\" \"s%d\" \"positions\" \"vector3_array\" [ \"0 0 1\" ] \"positionsIndices\" \"int_array\" [ \"0\" ] }\n", id(1000 + i), i
}' >"$d/shared_position.dmx"
# QC: a model block of N flexes, N controllers and N rules naming them; N variables and N
# macros, then 5N lines using the last variable and one that names none, and 5N calls of the
# last macro; a project of N sequences, each its own SMD
n=$((100000 * k))
awk -v n=$n 'BEGIN {
	print "$model m \"m.smd\" {\n\tflexfile \"m.vta\" {"
	for (i = 0; i < n; i++) printf "\t\tflex f%d frame 1\n", i
	print "\t}"
	for (i = 0; i < n; i++) printf "\tflexcontroller g c%d\n", i
	for (i = 0; i < n; i++) printf "\t%%f%d = c%d + c%d\n", i, i, n - 1 - i
	print "}" }' >"$d/rig.qc"
: >"$d/m.smd"
: >"$d/m.vta"
awk -v n=$((20000 * k)) 'BEGIN {
	for (i = 0; i < n; i++) printf "$definevariable v%d x\n", i
	for (i = 0; i < n * 5; i++) printf "$modelname \"$v%d$ $zz$\"\n", n - 1
	for (i = 0; i < n; i++) printf "$definemacro m%d \\\\\n$cdmaterials x\n", i
	for (i = 0; i < n * 5; i++) printf "$m%d\n", n - 1 }' >"$d/variables.qc"
mkdir -p "$d/project"
cp testdata/sample/arm.smd "$d/project/arm.smd"
awk -v n=$((3000 * k)) -v d="$d/project" 'BEGIN {
	print "$model arm \"arm.smd\"" >(d "/p.qc")
	for (i = 0; i < n; i++) printf "$sequence s%d \"a%d.smd\"\n", i, i >(d "/p.qc") }'
i=0
while [ $i -lt $((3000 * k)) ]; do
	cp testdata/sample/arm_wave.smd "$d/project/a$i.smd"
	i=$((i + 1))
done

run() { # LABEL INPUT COMMAND...
	label=$1 input=$2
	shift 2
	mb=$(du -m "$input" | cut -f1)
	if [ -x /usr/bin/time ]; then
		set +e
		/usr/bin/time -f '%e %M' -o "$d/time" timeout 300 "$@" >/dev/null 2>"$d/err"
		rc=$?
		set -e
		secs=$(cut -d' ' -f1 "$d/time" | tail -n 1)
		peak=$(($(cut -d' ' -f2 "$d/time" | tail -n 1) / 1024))
	else
		start=$(date +%s.%N)
		set +e
		timeout 300 "$@" >/dev/null 2>"$d/err"
		rc=$?
		set -e
		secs=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.2f", $2 - $1 }')
		peak=?
	fi
	printf '%-38s %6s MB %8s s %6s MB peak  exit %s  %s\n' "$label" "$mb" "$secs" "$peak" "$rc" \
		"$(grep -o 'error: .*' "$d/err" | head -n 1 | cut -c1-70)"
}

echo "input                                  size          time        memory"
run "SMD, 200,000 materials: smd2dmx" "$d/materials.smd" $b/smd2dmx -q --force "$d/materials.smd" -o "$d/materials.dmx"
run "  its DMX: dmx2smd" "$d/materials.dmx" $b/dmx2smd -q --force "$d/materials.dmx" -o "$d/materials2.smd"
run "1,000 bones x 2,000 frames: smd2dmx" "$d/animation.smd" $b/smd2dmx -q --force "$d/animation.smd" -o "$d/animation.dmx"
run "  its DMX: dmx2smd" "$d/animation.dmx" $b/dmx2smd -q --force "$d/animation.dmx" -o "$d/animation2.smd"
run "60,000 chained bones: smd2dmx" "$d/bones.smd" $b/smd2dmx -q --force "$d/bones.smd" -o "$d/bones.dmx"
run "  its DMX: dmx2smd" "$d/bones.dmx" $b/dmx2smd -q --force "$d/bones.dmx" -o "$d/bones2.smd"
run "  smdmx check" "$d/bones.smd" $b/smdmx check "$d/bones.smd"
run "  smdmx diff" "$d/bones.smd" $b/smdmx diff "$d/bones.smd" "$d/bones2.smd"
run "VTA, 20,000 shapes: smd2dmx --vta" "$d/shapes.vta" $b/smd2dmx -q --force "$d/shapes.smd" --vta "$d/shapes.vta" -o "$d/shapes.dmx"
run "  its DMX: dmx2smd" "$d/shapes.dmx" $b/dmx2smd -q --force "$d/shapes.dmx" -o "$d/shapes2.smd"
run "DMX, 2,000 meshes on one face set" "$d/shared_faces.dmx" $b/dmx2smd -q --force "$d/shared_faces.dmx" -o "$d/shared_faces.smd"
run "DMX, 300 shapes on a shared position" "$d/shared_position.dmx" $b/dmx2smd -q --force "$d/shared_position.dmx" -o "$d/shared_position.smd"
run "QC, 100,000 flexes, controllers, rules" "$d/rig.qc" $b/smdmx info "$d/rig.qc"
run "QC, 20,000 variables, 20,000 macros" "$d/variables.qc" $b/smdmx info "$d/variables.qc"
run "QC project, 3,000 sequences: smdmx qc" "$d/project" $b/smdmx qc -q "$d/project/p.qc" --to dmx -d "$d/project_dmx"
