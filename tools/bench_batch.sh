#!/bin/sh
# The batch benchmark: smd2dmx and dmx2smd over every corpus file (../shared/corpus, taken
# COPIES times through symbolic links, so that a run lasts long enough to time), with -j1 and
# -j2, writing to OUTDIR (default: /dev/shm when it exists, so that the disk's writeback does
# not time itself). Reports MB/s of input (10^6 bytes per second), best of RUNS, and the -j2
# over -j1 ratio. Usage: tools/bench_batch.sh [COPIES] [RUNS] [OUTDIR]
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
copies=${1:-8}
runs=${2:-5}
corpus=$(cd ../shared/corpus 2>/dev/null && pwd) || { echo "bench_batch: ../shared/corpus is missing" >&2; exit 1; }
sh tools/install-deps.sh
configure build -Dwerror=true
ninja -C build smd2dmx dmx2smd >/dev/null
base=${3:-}
[ -n "$base" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm || base=build/bench; }
mkdir -p "$base"
work=$(mktemp -d "$base/smdmx-batch.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/tree
for k in $(seq "$copies"); do
	(cd "$corpus" && find . -type f ! -name MANIFEST.tsv) | while read -r rel; do
		mkdir -p "$tree/$k/$(dirname "$rel")"
		ln -s "$corpus/$rel" "$tree/$k/$rel"
	done
done
now() { date +%s.%N; }
# bytes of the files a program takes
bytes_of() { find -L "$tree" -type f | grep -i -E "$1" | tr '\n' '\0' | xargs -0 stat -L -c %s | awk '{ s += $1 } END { print s }'; }
smd_bytes=$(bytes_of '\.(smd|sma|phys|vta)$')
dmx_bytes=$(bytes_of '\.dmx$')
echo "corpus: $corpus, $copies copies; outputs in $base; best of $runs"
printf '%-8s %4s %12s %10s %10s\n' program jobs input_bytes seconds MB/s
for prog in smd2dmx dmx2smd; do
	[ "$prog" = smd2dmx ] && bytes=$smd_bytes || bytes=$dmx_bytes
	for j in 1 2; do
		best=""
		for r in $(seq "$runs"); do
			rm -rf "$work/out"
			t0=$(now)
			build/$prog -r "$tree" -d "$work/out" -k -q -j"$j" 2>/dev/null || true
			t1=$(now)
			best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { t = b - a; if (best == "" || t < best) best = t; printf "%.6f", best }')
		done
		awk -v p="$prog" -v j="$j" -v s="$bytes" -v t="$best" 'BEGIN { printf "%-8s %4d %12d %10.3f %10.1f\n", p, j, s, t, s / 1e6 / t }'
		eval "t_${prog}_$j=$best"
	done
	eval "a=\$t_${prog}_1 b=\$t_${prog}_2"
	awk -v p="$prog" -v a="$a" -v b="$b" 'BEGIN { printf "%-8s -j2 over -j1: %.2fx\n", p, a / b }'
done
