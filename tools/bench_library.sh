#!/bin/sh
# The library benchmark: smdmx qc -r over a whole model library, Valve's Half-Life 2 SDK model
# sources in ../shared/corpus/library/hl2_modelsrc (19 QCs sharing includes; taken COPIES
# times through symbolic links, so that a run lasts long enough to time), to DMX and then that
# DMX library back to SMD, with -j1 and -j2 and -k (the library names files it never
# shipped). Reports the seconds and MB/s of the library's bytes (10^6 bytes per second), best
# of RUNS, and the peak memory of the slowest-growing run (GNU time's maximum resident set),
# beside cat reading the same files in the same run. Outputs go to OUTDIR (default /dev/shm
# when it exists, so that the disk's writeback does not time itself).
# Usage: tools/bench_library.sh [COPIES] [RUNS] [OUTDIR]
set -eu
cd "$(dirname "$0")/.."
. tools/lib.sh
copies=${1:-4}
runs=${2:-5}
lib=$(cd ../shared/corpus/library/hl2_modelsrc 2>/dev/null && pwd) ||
	{ echo "bench_library: ../shared/corpus/library/hl2_modelsrc is missing" >&2; exit 1; }
sh tools/install-deps.sh time
configure build -Dwerror=true
ninja -C build smdmx >/dev/null
base=${3:-}
[ -n "$base" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm || base=build/bench; }
mkdir -p "$base"
work=$(mktemp -d "$base/smdmx-library.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/tree
for k in $(seq "$copies"); do
	(cd "$lib" && find . -type f) | while read -r rel; do
		mkdir -p "$tree/$k/$(dirname "$rel")"
		ln -s "$lib/$rel" "$tree/$k/$rel"
	done
done
now() { date +%s.%N; }
bytes_in() { find -L "$1" -type f | tr '\n' '\0' | xargs -0 stat -L -c %s | awk '{ s += $1 } END { print s }'; }
qcs=$(find -L "$tree" -name '*.qc' | wc -l | tr -d ' ')
echo "library: $lib, $copies copies ($qcs QCs); outputs in $base; best of $runs"
# one conversion of the whole library: the best seconds of RUNS and the largest peak (KiB)
run() { # FROM TO OUT JOBS
	best="" peak=0
	for r in $(seq "$runs"); do
		rm -rf "$3"
		t0=$(now)
		/usr/bin/time -f %M -o "$work/rss" build/smdmx qc -r "$1" --to "$2" -d "$3" -k -q -j"$4" 2>/dev/null || true
		t1=$(now)
		best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { t = b - a; if (best == "" || t < best) best = t; printf "%.6f", best }')
		# the last line: time says "Command exited with non-zero status 1" before it (-k)
		peak=$(tail -n 1 "$work/rss" | awk -v p="$peak" '{ if ($1 + 0 > p) p = $1 + 0 } END { print p }')
	done
}
cat_seconds() { # DIR: best of RUNS reading every file with cat
	best=""
	for r in $(seq "$runs"); do
		t0=$(now)
		find -L "$1" -type f -exec cat {} + >/dev/null
		t1=$(now)
		best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { t = b - a; if (best == "" || t < best) best = t; printf "%.6f", best }')
	done
	echo "$best"
}
rows() { # FROM TO OUT BYTES LABEL: one row per -j
	for j in 1 2; do
		run "$1" "$2" "$3" "$j"
		awk -v l="$5" -v j="$j" -v s="$4" -v t="$best" -v p="$peak" 'BEGIN { printf "%-14s %4d %12d %10.3f %10.1f %12.1f\n", l, j, s, t, s / 1e6 / t, p / 1024 }'
	done
}
printf '%-14s %4s %12s %10s %10s %12s\n' conversion jobs input_bytes seconds MB/s peak_MiB
smd_bytes=$(bytes_in "$tree")
t=$(cat_seconds "$tree")
awk -v s="$smd_bytes" -v t="$t" 'BEGIN { printf "%-14s %4s %12d %10.3f %10.1f %12s\n", "cat (SMD)", "-", s, t, s / 1e6 / t, "-" }'
rows "$tree" dmx "$work/dmx" "$smd_bytes" "SMD to DMX"
dmx_bytes=$(bytes_in "$work/dmx")
t=$(cat_seconds "$work/dmx")
awk -v s="$dmx_bytes" -v t="$t" 'BEGIN { printf "%-14s %4s %12d %10.3f %10.1f %12s\n", "cat (DMX)", "-", s, t, s / 1e6 / t, "-" }'
rows "$work/dmx" smd "$work/smd" "$dmx_bytes" "DMX to SMD"
