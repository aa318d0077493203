#!/bin/sh
# The SMD benchmark: generates a skinned grid of TRIANGLES triangles (default 1,000,000,
# about 330 MB) and reports, on one core, cat of the file (the reference), SMD read (file to
# scene), SMD format (scene to text, discarded) and SMD write (scene to a file) throughput in
# MB/s (10^6 bytes per second) and peak RSS. Then the same for the grid as a keyvalues2
# DMX model (about 190 MB for 1,000,000 triangles) and as binary 5 (about 76 MB). Best of
# RUNS (default 3).
# Usage: tools/bench.sh [TRIANGLES] [RUNS]
set -eu
cd "$(dirname "$0")/.."
tris=${1:-1000000}
runs=${2:-3}
sh tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build -Dwerror=true >/dev/null
ninja -C build tools/gen_smd tools/gen_dmx tools/bench_smd >/dev/null
dir=build/bench
mkdir -p "$dir"
file="$dir/grid_$tris.smd"
[ -f "$file" ] || build/tools/gen_smd reference "$tris" "$file"
one=""
command -v taskset >/dev/null && one="taskset -c 0"
size=$(stat -c %s "$file")
cat "$file" >/dev/null # warm the page cache for every contender alike

best() { sort -k4 -g -r | head -n 1; }
now() { date +%s.%N; }

cat_line=$(for i in $(seq "$runs"); do
	t0=$(now); $one cat "$file" >/dev/null; t1=$(now)
	awk -v s="$size" -v a="$t0" -v b="$t1" 'BEGIN { printf "cat %d %.6f %.3f -\n", s, b - a, s / 1e6 / (b - a) }'
done | best)
read_line=$(for i in $(seq "$runs"); do $one build/tools/bench_smd read "$file"; done | best)
format_line=$(for i in $(seq "$runs"); do $one build/tools/bench_smd format "$file"; done | best)
write_line=$(for i in $(seq "$runs"); do rm -f "$dir/out.smd"; sync; $one build/tools/bench_smd write "$file" "$dir/out.smd"; done | best)
rm -f "$dir/out.smd"

# keyvalues2: the same grid as a DMX model, built through the datamodel API.
dmx="$dir/grid_$tris.dmx"
[ -f "$dmx" ] || build/tools/gen_dmx "$tris" "$dmx"
dsize=$(stat -c %s "$dmx")
cat "$dmx" >/dev/null
dcat_line=$(for i in $(seq "$runs"); do
	t0=$(now); $one cat "$dmx" >/dev/null; t1=$(now)
	awk -v s="$dsize" -v a="$t0" -v b="$t1" 'BEGIN { printf "cat %d %.6f %.3f -\n", s, b - a, s / 1e6 / (b - a) }'
done | best)
kread_line=$(for i in $(seq "$runs"); do $one build/tools/bench_smd dmx-read "$dmx"; done | best)
kformat_line=$(for i in $(seq "$runs"); do $one build/tools/bench_smd dmx-format "$dmx"; done | best)
kwrite_line=$(for i in $(seq "$runs"); do rm -f "$dir/out.dmx"; sync; $one build/tools/bench_smd dmx-write "$dmx" "$dir/out.dmx"; done | best)
rm -f "$dir/out.dmx"

# binary 5: the same model.
bin="$dir/grid_$tris.bin.dmx"
[ -f "$bin" ] || build/tools/gen_dmx "$tris" "$bin" binary
bsize=$(stat -c %s "$bin")
cat "$bin" >/dev/null
bcat_line=$(for i in $(seq "$runs"); do
	t0=$(now); $one cat "$bin" >/dev/null; t1=$(now)
	awk -v s="$bsize" -v a="$t0" -v b="$t1" 'BEGIN { printf "cat %d %.6f %.3f -\n", s, b - a, s / 1e6 / (b - a) }'
done | best)
bread_line=$(for i in $(seq "$runs"); do $one build/tools/bench_smd dmx-read "$bin"; done | best)
bformat_line=$(for i in $(seq "$runs"); do $one build/tools/bench_smd dmx-format "$bin"; done | best)
bwrite_line=$(for i in $(seq "$runs"); do rm -f "$dir/out.bin.dmx"; sync; $one build/tools/bench_smd dmx-write "$bin" "$dir/out.bin.dmx"; done | best)
rm -f "$dir/out.bin.dmx"

# End to end: smd2dmx of the SMD to keyvalues2, then dmx2smd of that result (rates are
# input bytes per second).
s2d_line=$(for i in $(seq "$runs"); do rm -f "$dir/e2e.dmx"; sync; $one build/tools/bench_smd smd2dmx "$file" "$dir/e2e.dmx"; done | best)
d2s_line=$(for i in $(seq "$runs"); do rm -f "$dir/e2e.smd"; sync; $one build/tools/bench_smd dmx2smd "$dir/e2e.dmx" "$dir/e2e.smd"; done | best)
rm -f "$dir/e2e.dmx" "$dir/e2e.smd"

row() { echo "$1" | awk '{ rss = ($5 == "-") ? "-" : sprintf("%.1f", $5 / 1024); printf "%-10s %14d %10.3f %10.1f %14s\n", $1, $2, $3, $4, rss }'; }
echo "SMD: $file ($size bytes, $tris triangles); one core; best of $runs"
printf '%-10s %14s %10s %10s %14s\n' phase bytes seconds MB/s peak_RSS_MiB
for l in "$cat_line" "$read_line" "$format_line" "$write_line"; do row "$l"; done
echo "keyvalues2: $dmx ($dsize bytes)"
for l in "$dcat_line" "$kread_line" "$kformat_line" "$kwrite_line"; do row "$l"; done
echo "binary 5: $bin ($bsize bytes)"
for l in "$bcat_line" "$bread_line" "$bformat_line" "$bwrite_line"; do row "$l"; done
echo "end to end (MB/s of input): smd2dmx of the SMD to keyvalues2, dmx2smd of the result"
for l in "$s2d_line" "$d2s_line"; do row "$l"; done
