#!/bin/sh
# The benchmark. Generates a skinned grid of TRIANGLES triangles (default 1,000,000: 328 MB
# of SMD, 192 MB as a keyvalues2 DMX model, 76 MB as binary 5) and reports, for each phase,
# MB/s (10^6 bytes per second) on one core and on every core (THREADS = the number of cores:
# one file's reading and writing in parts), best of RUNS (default 5), with the peak RSS of the
# one-core run, beside `cat` of the same file (the reference): SMD read (file to scene),
# format (scene to text into a sink that discards it: the writer alone) and write (to a file,
# through the temporary file, flush and rename, into /dev/shm when there is one, so that the
# disk does not time itself); the same for the keyvalues2 and binary files; the
# whole smd2dmx and dmx2smd conversions (MB/s of input; dmx2smd converts what smd2dmx wrote,
# a 176 MB keyvalues2 model); a VTA of 100,002 corners and 50
# shapes read and matched to its reference by position; pictures (smdmx preview of 100,000
# triangles, smdmx report over two trees). Then how cost grows: reading and
# converting grids of 10,000, 100,000 and 1,000,000 triangles on one core, in nanoseconds
# per triangle.
#
# First, the programs as users run them (MB/s of input), outputs written to disk: smd2dmx of
# the SMD to keyvalues2 and to binary, smdmx convert of the SMD to GLB, dmx2smd of the binary
# model, smdmx convert of the
# keyvalues2 model to binary, and with ../shared/corpus beside the clone smd2dmx -r and
# dmx2smd -r over its SMD/VTA and its DMX and smdmx qc -r over its HL2 and L4D2 model
# sources; each beside cat of its input. `ci` as the third
# argument runs that section alone (.ci/run, about a minute at the default size).
#
# Results also go to build/bench/results.tsv, from which `sh tools/chart.sh` draws
# doc/speed.svg.
# Usage: tools/bench.sh [TRIANGLES] [RUNS] [ci]
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
tris=${1:-1000000}
runs=${2:-5}
mode=${3:-all}
sh tools/install-deps.sh time
configure build -Dwerror=true
ninja -C build tools/gen_smd tools/gen_dmx tools/bench_smd >/dev/null
dir=build/bench
mkdir -p "$dir"
# Outputs go to memory (/dev/shm) where there is one, so that the disk's writeback and the
# flush before each rename do not time themselves; inputs are read from the page cache.
out=$dir
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	out=$(mktemp -d /dev/shm/smdmx-bench.XXXXXX)
	trap 'rm -rf "$out"' EXIT
fi
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
one=""
command -v taskset >/dev/null && one="taskset -c 0"
tsv=$dir/results.tsv
printf 'phase\tbytes\tseconds_1\tmbs_1\tseconds_n\tmbs_n\trss_kib_1\tinput_bytes\n' >"$tsv"

best() { sort -k4 -g -r | head -n 1; }
now() { date +%s.%N; }
# the best of RUNS of a command that prints "phase bytes seconds MB/s rss"
runs_of() { for i in $(seq "$runs"); do rm -f "$out"/out.*; "$@"; done | best; }
cat_of() { # FILE
	size=$(stat -c %s "$1")
	cat "$1" >/dev/null # warm the page cache for every contender alike
	for i in $(seq "$runs"); do
		t0=$(now); $one cat "$1" >/dev/null; t1=$(now)
		awk -v s="$size" -v a="$t0" -v b="$t1" 'BEGIN { printf "cat %d %.6f %.3f -\n", s, b - a, s / 1e6 / (b - a) }'
	done | best
}
# row INPUT_BYTES COMMAND...: the command on one core (THREADS=1, pinned) and on all cores
row() {
	in=$1
	shift
	r1=$(THREADS=1 runs_of $one "$@")
	rn=$(THREADS=$cores runs_of "$@")
	print_row "$in" "$r1" "$rn"
}
# The same for a whole program (a shell function: THREADS=1 is one worker, not pinned).
row_fn() {
	in=$1
	shift
	r1=$(THREADS=1 runs_of "$@")
	rn=$(THREADS=$cores runs_of "$@")
	print_row "$in" "$r1" "$rn"
}
# timed PHASE BYTES COMMAND...: "phase bytes seconds MB/s peak_rss_kib" of a whole program
# (its peak RSS by GNU time). A failing command stops the benchmark, unless any_status is 1
# (a -k run over a corpus whose bad files fail on purpose).
timed() {
	_phase=$1 _bytes=$2
	shift 2
	t0=$(now)
	/usr/bin/time -f %M -o "$out/rss" "$@" >/dev/null 2>&1 || [ "${any_status:-0}" = 1 ]
	t1=$(now)
	awk -v p="$_phase" -v n="$_bytes" -v a="$t0" -v b="$t1" -v r="$(tail -n 1 "$out/rss")" \
		'BEGIN { printf "%s %d %.6f %.3f %s\n", p, n, b - a, n / 1e6 / (b - a), r }'
}
print_row() { # INPUT_BYTES ONE_CORE ALL_CORES
	echo "$2|$3" | awk -F'|' -v inb="$1" -v tsv="$tsv" '{
		split($1, a, " "); split($2, b, " ")
		rss = (a[5] == "-") ? "-" : sprintf("%.0f", a[5] / 1024)
		ratio = (a[5] == "-" || inb == 0) ? "" : sprintf(" (%.2fx)", a[5] * 1024 / inb)
		printf "%-12s %12d %8.3f %9.1f %8.3f %9.1f %6.2fx %9s%s\n", a[1], a[2], a[3], a[4], b[3], b[4], b[4] / a[4], rss, ratio
		printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a[1], a[2], a[3], a[4], b[3], b[4], a[5], inb >> tsv
	}'
}
cat_row() {
	r=$(cat_of "$1")
	echo "$r" | awk -v tsv="$tsv" '{
		printf "%-12s %12d %8.3f %9.1f %8s %9s %7s %9s\n", "cat", $2, $3, $4, "", "", "", "-"
		printf "cat\t%s\t%s\t%s\t\t\t-\t%s\n", $2, $3, $4, $2 >> tsv
	}'
}
# write_row INPUT_BYTES FILE: FILE (a program's output, just written) written again to the same
# file system by dd, flushed before dd ends as the programs flush their outputs, best of RUNS:
# the disk's own time for that output, as MB/s of the program's input (no program writing it
# there goes faster). Printed, not charted.
write_row() {
	for i in $(seq "$runs"); do
		rm -f "$disk/write.tmp"
		t0=$(now)
		$one dd if="$2" of="$disk/write.tmp" bs=1M conv=fdatasync status=none
		t1=$(now)
		awk -v s="$1" -v a="$t0" -v b="$t1" 'BEGIN { printf "write %d %.6f %.3f -\n", s, b - a, s / 1e6 / (b - a) }'
	done | best | awk -v out="$(size "$2")" '{
		printf "%-12s %12d %8.3f %9.1f %8s %9s %7s %9s  (its %d bytes of output, written alone)\n", "write", $2, $3, $4, "", "", "", "-", out
	}'
	rm -f "$disk/write.tmp"
}
# tree_write_row INPUT_BYTES: the files a library row wrote (all of $disk) copied by cp to a
# new folder on the same file system, which is then flushed (sync -f), best of RUNS: the file
# system's own time to create, write and flush that many files, as MB/s of the row's input.
# Beside the row, it tells the program's time from the file system's. Printed, not charted.
tree_write_row() {
	rm -rf "$dir/tree"
	mv "$disk" "$dir/tree"
	mkdir -p "$disk"
	files=$(find "$dir/tree" -type f | wc -l)
	for i in $(seq "$runs"); do
		rm -rf "$disk/copy"
		t0=$(now)
		$one cp -r "$dir/tree" "$disk/copy"
		sync -f "$disk/copy"
		t1=$(now)
		awk -v s="$1" -v a="$t0" -v b="$t1" 'BEGIN { printf "write %d %.6f %.3f -\n", s, b - a, s / 1e6 / (b - a) }'
	done | best | awk -v files="$files" -v out="$(find "$dir/tree" -type f -printf "%s\n" | awk '{ n += $1 } END { print n + 0 }')" '{
		printf "%-12s %12d %8.3f %9.1f %8s %9s %7s %9s  (its %d files, %d bytes, copied and flushed alone)\n", "write", $2, $3, $4, "", "", "", "-", files, out
	}'
	rm -rf "$dir/tree"
	empty_disk
}
header() {
	printf '%-12s %12s %8s %9s %8s %9s %7s %9s\n' phase bytes s_1core "MB/s_1" "s_${cores}core" "MB/s_$cores" speedup "RSS_MiB"
}

smd="$dir/grid_$tris.smd"
kv2="$dir/grid_$tris.dmx"
bin="$dir/grid_$tris.bin.dmx"
[ -f "$smd" ] || build/tools/gen_smd reference "$tris" "$smd"
if [ "$mode" != ci ]; then
	[ -f "$kv2" ] || build/tools/gen_dmx "$tris" "$kv2"
	[ -f "$bin" ] || build/tools/gen_dmx "$tris" "$bin" binary
fi
size() { stat -c %s "$1"; }

echo "$(uname -m), $cores cores; best of $runs; MB = 10^6 bytes; RSS of the one-core run (and over the input)"
header
# The programs, as users run them: one core (pinned, --threads 1, -j 1) and every core, the
# whole program timed (start, reading, converting, writing through a temporary file flushed
# and renamed), outputs on disk in build/bench/out (its file system is named in the
# heading), inputs read from the page cache. MB/s of input. After each of the big model's
# rows, `write`: its output written alone to the same disk (write_row), the limit the disk
# sets it.
disk=$dir/out
mkdir -p "$disk"
binmodel=$dir/grid_$tris.model.bin.dmx
kvmodel=$dir/grid_$tris.model.dmx
[ -f "$kvmodel" ] || build/smd2dmx "$smd" -o "$kvmodel" -q
[ -f "$binmodel" ] || build/smd2dmx "$smd" -o "$binmodel" --encoding binary -q
pin() { [ "$THREADS" = 1 ] && echo "$one"; } # taskset for the one-core run
# the output folder emptied, its hidden files too (smdmx qc's record of what it wrote)
empty_disk() {
	rm -rf "${disk:?}"
	mkdir -p "$disk"
}
# prog_timed PHASE BYTES COMMAND...: timed, its output folder emptied first; an exit status
# other than 0 is the command's own report, not the benchmark's
prog_timed() {
	empty_disk
	any_status=1
	timed "$@"
	any_status=0
}
to_kv2_run() { prog_timed smd2dmx-kv2 "$(size "$smd")" $(pin) build/smd2dmx "$smd" -o "$disk/o.dmx" -q --threads "$THREADS"; }
to_bin_run() { prog_timed smd2dmx-bin "$(size "$smd")" $(pin) build/smd2dmx "$smd" -o "$disk/o.dmx" --encoding binary -q --threads "$THREADS"; }
bin_smd_run() { prog_timed dmx2smd-bin "$(size "$binmodel")" $(pin) build/dmx2smd "$binmodel" -o "$disk/o.smd" -q --threads "$THREADS"; }
to_glb_run() { prog_timed smd-to-glb "$(size "$smd")" $(pin) build/smdmx convert "$smd" -o "$disk/o.glb" -q --threads "$THREADS"; }
kv2_bin_run() { prog_timed kv2-to-bin "$(size "$kvmodel")" $(pin) build/smdmx convert "$kvmodel" -o "$disk/o.dmx" --encoding binary -q --threads "$THREADS"; }
programs() {
	echo "programs, whole (MB/s of input; outputs to $disk, a $(stat -f -c %T "$disk") file system; one core: pinned, --threads 1, -j 1)"
	cat_row "$smd"
	row_fn "$(size "$smd")" to_kv2_run
	write_row "$(size "$smd")" "$disk/o.dmx"
	row_fn "$(size "$smd")" to_bin_run
	write_row "$(size "$smd")" "$disk/o.dmx"
	row_fn "$(size "$smd")" to_glb_run
	write_row "$(size "$smd")" "$disk/o.glb"
	cat_row "$binmodel"
	row_fn "$(size "$binmodel")" bin_smd_run
	write_row "$(size "$binmodel")" "$disk/o.smd"
	cat_row "$kvmodel"
	row_fn "$(size "$kvmodel")" kv2_bin_run
	write_row "$(size "$kvmodel")" "$disk/o.dmx"
	corpus=../shared/corpus
	if [ -d "$corpus" ]; then
		# every SMD and VTA, and every DMX, of the corpus: hundreds of small files, with
		# the per-file costs a library has (-k: a few do not convert, on purpose)
		find "$corpus" -type f \( -iname '*.smd' -o -iname '*.vta' \) -exec cat {} + >"$dir/corpus_smd.cat"
		find "$corpus" -type f -iname '*.dmx' -exec cat {} + >"$dir/corpus_dmx.cat"
		nsmd=$(find "$corpus" -type f \( -iname '*.smd' -o -iname '*.vta' \) | wc -l)
		ndmx=$(find "$corpus" -type f -iname '*.dmx' | wc -l)
		echo "the corpus as a library: $nsmd SMD/VTA files (cat: all of them, as one file), $ndmx DMX files"
		lib_smd_run() { prog_timed smd2dmx-r "$(size "$dir/corpus_smd.cat")" $(pin) build/smd2dmx -r "$corpus" -d "$disk" -k -q -j "$THREADS"; }
		lib_dmx_run() { prog_timed dmx2smd-r "$(size "$dir/corpus_dmx.cat")" $(pin) build/dmx2smd -r "$corpus" -d "$disk" -k -q -j "$THREADS"; }
		cat_row "$dir/corpus_smd.cat"
		row_fn "$(size "$dir/corpus_smd.cat")" lib_smd_run
		tree_write_row "$(size "$dir/corpus_smd.cat")"
		cat_row "$dir/corpus_dmx.cat"
		row_fn "$(size "$dir/corpus_dmx.cat")" lib_dmx_run
		tree_write_row "$(size "$dir/corpus_dmx.cat")"
		rm -f "$dir/corpus_smd.cat" "$dir/corpus_dmx.cat"
		# the HL2 and L4D2 model sources as QC projects, every QC below them to DMX (MB/s
		# of every file of the two trees, QCs and what they name)
		libs="$corpus/library/hl2_modelsrc $corpus/library/l4d2_modelsrc"
		# shellcheck disable=SC2086 # libs holds two folders
		find $libs -type f -exec cat {} + >"$dir/corpus_lib.cat"
		# shellcheck disable=SC2086
		echo "the corpus's QC libraries: $(find $libs -type f -iname '*.qc' | wc -l) QCs in $(find $libs -type f | wc -l) files"
		# shellcheck disable=SC2086
		lib_qc_run() { prog_timed qc-r "$(size "$dir/corpus_lib.cat")" $(pin) build/smdmx qc -r $libs --to dmx -d "$disk" -k -q -j "$THREADS"; }
		cat_row "$dir/corpus_lib.cat"
		row_fn "$(size "$dir/corpus_lib.cat")" lib_qc_run
		tree_write_row "$(size "$dir/corpus_lib.cat")"
		rm -f "$dir/corpus_lib.cat"
	else
		echo "the corpus as a library: not measured, no ../shared/corpus beside the clone"
	fi
	empty_disk
}
programs
if [ "$mode" = ci ]; then
	exit 0
fi
echo "SMD: $smd ($tris triangles)"
cat_row "$smd"
row "$(size "$smd")" build/tools/bench_smd read "$smd"
row 0 build/tools/bench_smd format "$smd"
row 0 build/tools/bench_smd write "$smd" "$out/out.smd"
for f in "$kv2" "$bin"; do
	echo "DMX: $f"
	cat_row "$f"
	row "$(size "$f")" build/tools/bench_smd dmx-read "$f"
	row 0 build/tools/bench_smd dmx-format "$f"
	row 0 build/tools/bench_smd dmx-write "$f" "$out/out.dmx"
done
echo "end to end (MB/s of input): smd2dmx of the SMD to keyvalues2, dmx2smd of what smd2dmx wrote"
row "$(size "$smd")" build/tools/bench_smd smd2dmx "$smd" "$out/e2e.dmx"
model=$dir/grid_$tris.model.dmx
[ -f "$model" ] || THREADS=$cores build/tools/bench_smd smd2dmx "$smd" "$model" >/dev/null
row "$(size "$model")" build/tools/bench_smd dmx2smd "$model" "$out/out.smd"
# A VTA matched to its reference by position: 100,000 corners (the first 33,334 triangles of
# the grid), 50 shapes, numbered in a shuffled order so that numbers cannot pair them.
vref="$dir/vta_ref.smd"
vta="$dir/vta_50.vta"
[ -f "$vref" ] || build/tools/gen_smd reference 33334 "$vref"
[ -f "$vta" ] || build/tools/gen_smd vta 33334 50 "$vta"
echo "VTA: $vta (100,002 corners, 50 shapes, shuffled numbers), matched to $vref"
row "$(size "$vta")" build/tools/bench_smd vta-read "$vref" "$vta"
row 0 build/tools/bench_smd vta-match "$vref" "$vta"
rm -f "$out"/out.* "$out/e2e.dmx"

# Pictures: the 100,000-triangle grid drawn as smdmx preview draws it (draw: the picture and
# its PNG bytes, the file read before the clock starts; preview: the whole program, reading
# and writing included), and smdmx report over two trees (the 10,000 and 100,000-triangle
# grids as SMD, and as the DMX smd2dmx makes of them; MB/s of both trees' bytes) on one
# worker and on every core (-j).
g100=$dir/grid_100000.smd
[ -f "$g100" ] || build/tools/gen_smd reference 100000 "$g100"
echo "pictures: $g100 (100,000 triangles, 512 x 512 pixels)"
cat_row "$g100"
row "$(size "$g100")" build/tools/bench_smd draw "$g100" 512
preview_run() { timed preview "$(size "$g100")" build/smdmx preview "$g100" -o "$out/out.png" -f -q; }
row_fn "$(size "$g100")" preview_run
mkdir -p "$dir/report/a" "$dir/report/b"
for n in 10000 100000; do
	[ -f "$dir/report/a/grid_$n.smd" ] || build/tools/gen_smd reference "$n" "$dir/report/a/grid_$n.smd"
	[ -f "$dir/report/b/grid_$n.dmx" ] || build/smd2dmx "$dir/report/a/grid_$n.smd" -d "$dir/report/b" -q
done
rbytes=$(cat "$dir"/report/a/* "$dir"/report/b/* | wc -c)
echo "report: smdmx report $dir/report/a $dir/report/b ($rbytes bytes, 2 rows)"
report_run() { timed report "$rbytes" build/smdmx report "$dir/report/a" "$dir/report/b" -o "$out/out.html" -f -q -j "$THREADS"; }
row_fn "$rbytes" report_run
# A library's report: 20,000 rows (one small SMD on each side, as the suite's browser test
# makes them), written on one worker and on every core (MB/s of both trees' bytes), then
# opened in headless Chromium (tests/browser.py): the time until its first rows show, the
# browser's memory (its processes' proportional sizes) and the slowest filter, search and sort.
lib=$dir/report_library
if [ ! -d "$lib/B" ]; then
	python3 - "$lib" testdata/qc/parts/base.smd <<-'EOF'
		import os, sys
		root, base = sys.argv[1], open(sys.argv[2]).read()
		for i in range(20000):
		    for tree in "AB":
		        os.makedirs("%s/%s/d%03d" % (root, tree, i % 200), exist_ok=True)
		        with open("%s/%s/d%03d/m%05d.smd" % (root, tree, i % 200, i), "w") as f:
		            f.write(base)
	EOF
fi
lbytes=$(find "$lib/A" "$lib/B" -type f -exec cat {} + | wc -c) # 40,000 names: more than one command line holds
echo "report of a library: smdmx report $lib/A $lib/B (20,000 rows, $lbytes bytes)"
library_run() { timed report-20000 "$lbytes" build/smdmx report "$lib/A" "$lib/B" -o "$out/out.html" -f -q -j "$THREADS"; }
row_fn "$lbytes" library_run
if command -v python3 >/dev/null && [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
	build/smdmx report "$lib/A" "$lib/B" -o "$out/out.html" -f -q
	python3 tests/browser.py "$out/out.html" "$out/out.png" m00042 d199/m19999.smd | awk '
		/^ready ms / { ready = $3 } /^memory MB / { mb = $3 }
		/^time / { v = $0 ~ / found / ? $(NF - 2) : $NF; if (v + 0 > slow) { slow = v + 0; what = $2 " " $3 } }
		END { printf "%-12s opened in %d ms, %d MB; slowest answer %.1f ms (%s)\n", "open-20000", ready, mb, slow, what }'
else
	echo "open-20000   not measured: no python3, chromium and chromedriver"
fi
rm -rf "$out"/out.* "$out"/out_files "$out/rss"

# smdmx diff of two 100,000-triangle models as keyvalues2 DMX, equal (the file with itself) and
# differing at every vertex (the grid scaled by 1.001): about the cost of reading the two
# files whatever the number of differences (MB/s of both files' bytes; diff exits 1 when they
# differ, which is what it is asked here).
mkdir -p "$dir/diff"
da=$dir/diff/grid_100000.dmx
db=$dir/diff/grid_100000_scaled.dmx
[ -f "$da" ] || build/smd2dmx "$g100" -o "$da" -q
[ -f "$db" ] || build/smd2dmx "$g100" --scale 1.001 -o "$db" -q
dbytes=$(($(size "$da") + $(size "$db")))
echo "diff: smdmx diff of $da with itself and with $db (every vertex moved; $dbytes bytes)"
cat_row "$da"
# diff_timed PHASE A B [OPTION...]: as timed, diff's exit 1 (the models differ) taken as success
diff_timed() {
	phase=$1 a=$2 b=$3
	shift 3
	t0=$(now)
	/usr/bin/time -f %M -o "$out/rss" build/smdmx diff "$a" "$b" -q "$@" || [ $? = 1 ]
	t1=$(now)
	awk -v p="$phase" -v n="$dbytes" -v a="$t0" -v b="$t1" -v r="$(tail -n 1 "$out/rss")" \
		'BEGIN { printf "%s %d %.6f %.3f %s\n", p, n, b - a, n / 1e6 / (b - a), r }'
}
diff_same_run() { diff_timed diff-same "$da" "$da"; }
diff_moved_run() { diff_timed diff-moved "$da" "$db"; }
# within a tolerance (--tolerance 0.01: 99,677 differences are left of 100,015), the polygons
# left over by the match on rounded values are looked for by place too, in a grid of cells
diff_tol_run() { diff_timed diff-moved-tolerance "$da" "$db" --tolerance 0.01; }
row_fn "$dbytes" diff_same_run
row_fn "$dbytes" diff_moved_run
row_fn "$dbytes" diff_tol_run
rm -f "$out/rss"

# How cost grows with the model: one core, nanoseconds per triangle.
echo
echo "how cost grows (one core, best of $runs): seconds and nanoseconds per triangle"
printf '%-12s %12s %12s %12s\n' phase triangles seconds ns/triangle
printf 'scale_phase\ttriangles\tseconds\tns_per_triangle\n' >"$dir/scaling.tsv"
for n in 10000 100000 1000000; do
	s="$dir/grid_$n.smd"
	k="$dir/grid_$n.dmx"
	m="$dir/grid_$n.model.dmx"
	[ -f "$s" ] || build/tools/gen_smd reference "$n" "$s"
	[ -f "$k" ] || build/tools/gen_dmx "$n" "$k"
	[ -f "$m" ] || THREADS=$cores build/tools/bench_smd smd2dmx "$s" "$m" >/dev/null
	for p in "read $s" "dmx-read $k" "smd2dmx $s $out/e2e.dmx" "dmx2smd $m $out/out.smd"; do
		# shellcheck disable=SC2086 # p holds the phase and its files
		r=$(THREADS=1 runs_of $one build/tools/bench_smd $p)
		echo "$r" | awk -v n="$n" -v tsv="$dir/scaling.tsv" '{
			printf "%-12s %12d %12.4f %12.1f\n", $1, n, $3, $3 * 1e9 / n
			printf "%s\t%d\t%.6f\t%.2f\n", $1, n, $3, $3 * 1e9 / n >> tsv
		}'
	done
done
rm -f "$out"/out.* "$out/e2e.dmx"
echo
echo "results: $tsv and $dir/scaling.tsv (sh tools/chart.sh draws doc/speed.svg from them)"
