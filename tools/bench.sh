#!/bin/sh
# The benchmark: generates a skinned grid of TRIANGLES triangles (default 1,000,000, about
# 330 MB of SMD) and reports, on one core, `cat` of each file (the reference) beside reading,
# formatting (into a sink that discards the text: the writer alone) and writing it, in MB/s
# (10^6 bytes per second) with peak RSS: the SMD, the same grid as a keyvalues2 DMX model
# (about 190 MB) and as binary 5 (about 76 MB), then the whole smd2dmx and dmx2smd
# conversions (MB/s of input), and a VTA of 100,000 corners and 50 shapes read and matched to
# its reference by position. Best of RUNS (default 3).
# Usage: tools/bench.sh [TRIANGLES] [RUNS]
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
tris=${1:-1000000}
runs=${2:-3}
sh tools/install-deps.sh
configure build -Dwerror=true
ninja -C build tools/gen_smd tools/gen_dmx tools/bench_smd >/dev/null
dir=build/bench
mkdir -p "$dir"
one=""
command -v taskset >/dev/null && one="taskset -c 0"

best() { sort -k4 -g -r | head -n 1; }
now() { date +%s.%N; }
# the best of RUNS of a command that prints "phase bytes seconds MB/s rss"
runs_of() { for i in $(seq "$runs"); do rm -f "$dir"/out.*; sync; "$@"; done | best; }
cat_of() { # FILE
	size=$(stat -c %s "$1")
	cat "$1" >/dev/null # warm the page cache for every contender alike
	for i in $(seq "$runs"); do
		t0=$(now); $one cat "$1" >/dev/null; t1=$(now)
		awk -v s="$size" -v a="$t0" -v b="$t1" 'BEGIN { printf "cat %d %.6f %.3f -\n", s, b - a, s / 1e6 / (b - a) }'
	done | best
}
row() { echo "$1" | awk '{ rss = ($5 == "-") ? "-" : sprintf("%.1f", $5 / 1024); printf "%-10s %14d %10.3f %10.1f %14s\n", $1, $2, $3, $4, rss }'; }

smd="$dir/grid_$tris.smd"
kv2="$dir/grid_$tris.dmx"
bin="$dir/grid_$tris.bin.dmx"
[ -f "$smd" ] || build/tools/gen_smd reference "$tris" "$smd"
[ -f "$kv2" ] || build/tools/gen_dmx "$tris" "$kv2"
[ -f "$bin" ] || build/tools/gen_dmx "$tris" "$bin" binary

printf '%-10s %14s %10s %10s %14s\n' phase bytes seconds MB/s peak_RSS_MiB
echo "SMD: $smd ($tris triangles); one core; best of $runs"
row "$(cat_of "$smd")"
row "$(runs_of $one build/tools/bench_smd read "$smd")"
row "$(runs_of $one build/tools/bench_smd format "$smd")"
row "$(runs_of $one build/tools/bench_smd write "$smd" "$dir/out.smd")"
for f in "$kv2" "$bin"; do
	echo "DMX: $f"
	row "$(cat_of "$f")"
	row "$(runs_of $one build/tools/bench_smd dmx-read "$f")"
	row "$(runs_of $one build/tools/bench_smd dmx-format "$f")"
	row "$(runs_of $one build/tools/bench_smd dmx-write "$f" "$dir/out.dmx")"
done
echo "end to end (MB/s of input): smd2dmx of the SMD to keyvalues2, dmx2smd of the result"
row "$(runs_of $one build/tools/bench_smd smd2dmx "$smd" "$dir/e2e.dmx")"
row "$(runs_of $one build/tools/bench_smd dmx2smd "$dir/e2e.dmx" "$dir/out.smd")"
# A VTA matched to its reference by position: 100,000 corners (the first 33,334 triangles of
# the grid), 50 shapes, numbered in a shuffled order so that numbers cannot pair them.
vref="$dir/vta_ref.smd"
vta="$dir/vta_50.vta"
[ -f "$vref" ] || build/tools/gen_smd reference 33334 "$vref"
[ -f "$vta" ] || build/tools/gen_smd vta 33334 50 "$vta"
echo "VTA: $vta (100,002 corners, 50 shapes, shuffled numbers), matched to $vref"
row "$(runs_of $one build/tools/bench_smd vta-read "$vref" "$vta")"
row "$(runs_of $one build/tools/bench_smd vta-match "$vref" "$vta")"
rm -f "$dir"/out.* "$dir/e2e.dmx"
