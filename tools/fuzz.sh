#!/bin/sh
# The fuzzing campaign: builds the libFuzzer targets with clang (ASan + UBSan, the whole
# library instrumented) in build-fuzz/, seeds each target's working corpus from testdata/,
# ../shared/corpus and fuzz/findings/, and runs TARGET (or all five in turn) for SECONDS
# each: of wall time, or with a "cpu" suffix of the fuzzer's own CPU time (so that targets
# run side by side, or beside other work, each get their share). New crashes, hangs (over
# 1 s), leaks and allocations over 512 MB land in build-fuzz/artifacts/TARGET/; each run
# appends its figures (CPU seconds, executions, exec/s, edges covered out of those
# instrumented, features, corpus, artifacts) to build-fuzz/campaign.log.
# With FUZZ_LANES=N, "all" runs N targets at a time (one per core: each its SECONDS).
# Usage: tools/fuzz.sh [smd|kv2|dmxb|model|qc|all] [SECONDS|SECONDScpu] [-- libFuzzer options]
set -eu
cd "$(dirname "$0")/.."
what=${1:-all}
seconds=${2:-60}
# SECONDS of wall time, or with a "cpu" suffix (3600cpu) of the fuzzer's own CPU time
budget=wall
case $seconds in *cpu) budget=cpu seconds=${seconds%cpu} ;; esac
wall=$seconds
[ "$budget" = cpu ] && wall=$((seconds * 4))
hz=$(getconf CLK_TCK)
[ $# -ge 2 ] && shift 2 || shift $#
[ "${1:-}" = "--" ] && shift
if ! command -v clang >/dev/null; then
	echo "fuzz: clang is not installed (apt-get install clang libclang-rt-14-dev)" >&2
	exit 1
fi
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized -Dtests=false -Dwerror=true >/dev/null
fi
# only the targets asked for: the others may be running
if [ "$what" = all ]; then
	ninja -C build-fuzz fuzz/fuzz_smd fuzz/fuzz_kv2 fuzz/fuzz_dmxb fuzz/fuzz_model fuzz/fuzz_qc >/dev/null
else
	ninja -C build-fuzz "fuzz/fuzz_$what" >/dev/null
fi
corpus=../shared/corpus
[ -d "$corpus" ] || { echo "fuzz: $corpus is missing" >&2; exit 1; }

# real files for work in progress, beside the corpus (s&box's binary_seqids among them)
incoming=../shared/incoming
[ -d "$incoming" ] || incoming=

# The seed files of a target, by extension and, for DMX, by encoding.
seeds() {
	case $1 in
	smd) find testdata/ok testdata/bad testdata/sample "$corpus" -type f | grep -i -E '\.(smd|vta)$' ;;
	kv2) find testdata/kv2 testdata/model testdata/bad "$corpus" -type f -iname '*.dmx' | while read -r f; do head -c 40 "$f" | grep -q 'binary' || echo "$f"; done ;;
	dmxb) find testdata/kv2 testdata/model testdata/bad "$corpus" $incoming -type f -iname '*.dmx' | while read -r f; do head -c 40 "$f" | grep -q 'binary' && echo "$f"; done; true ;;
	model) find testdata/kv2 testdata/sample testdata/model testdata/bad "$corpus" $incoming -type f -iname '*.dmx' ;;
	qc) find testdata/qc "$corpus" -type f | grep -i -E '\.(qc|qci)$' ;;
	esac
}

run() { # TARGET
	t=$1
	shift
	work=build-fuzz/corpus/$t
	art=build-fuzz/artifacts/$t
	mkdir -p "$work" "$art"
	seeds "$t" | while read -r f; do cp "$f" "$work/seed-$(basename "$f" | tr -c 'A-Za-z0-9._\n' '_')"; done
	find "fuzz/findings/$t" -type f ! -name README -exec cp {} "$work/" \;
	log=build-fuzz/$t.log
	set +e
	# shellcheck disable=SC2086
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		build-fuzz/fuzz/fuzz_$t -max_total_time="$wall" -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=512 \
		-max_len=65536 -dict="fuzz/$t.dict" -artifact_prefix="$art/" -print_final_stats=1 "$@" "$work" >"$log" 2>&1 &
	pid=$!
	# The fuzzer's CPU seconds (user + system) from /proc every two seconds; with a CPU
	# budget, an interrupt ends it (libFuzzer then prints its final figures and exits 72).
	cpu=0
	stopped=no
	while [ -r "/proc/$pid/stat" ] && [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" != Z ]; do
		c=$(awk -v hz="$hz" '{ printf "%d", ($14 + $15) / hz }' "/proc/$pid/stat" 2>/dev/null || true)
		[ -n "$c" ] && [ "$c" -gt 0 ] && cpu=$c
		if [ "$budget" = cpu ] && [ "$cpu" -ge "$seconds" ] && [ "$stopped" = no ]; then
			kill -INT "$pid" 2>/dev/null
			stopped=yes
		fi
		sleep 2
	done
	wait "$pid"
	rc=$?
	set -e
	[ "$stopped" = yes ] && [ "$rc" = 72 ] && rc=0
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	edges=$(sed -n 's/^INFO: Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" | head -n 1)
	units=$(find "$work" -type f | wc -l)
	found=$(find "$art" -type f | wc -l)
	line=$(printf '%s %-5s %6ss cpu %8ss %10s execs %7s exec/s cov %5s of %5s ft %6s corpus %5s artifacts %s exit %s' \
		"$(date -u +%Y-%m-%dT%H:%MZ)" "$t" "$seconds" "${cpu:-?}" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${edges:-?}" "${ft:-?}" \
		"$units" "$found" "$rc")
	echo "$line" | tee -a build-fuzz/campaign.log
	if [ "$rc" != 0 ]; then
		echo "fuzz: $t found a problem; see $log and $art/" >&2
		grep -E 'ERROR|SUMMARY|==[0-9]+==' "$log" | head -n 5 >&2
		return 1
	fi
}

# lane I [OPTIONS]: the targets of lane I of FUZZ_LANES, in turn (every FUZZ_LANES-th target)
lane() {
	_l=$1 _s=0 _i=0
	shift
	for t in smd kv2 dmxb model qc; do
		if [ $((_i % lanes)) = "$_l" ]; then run "$t" "$@" || _s=1; fi
		_i=$((_i + 1))
	done
	return $_s
}

status=0
if [ "$what" = all ]; then
	# FUZZ_LANES (default 1): that many targets at once, side by side on as many cores
	lanes=${FUZZ_LANES:-1}
	pids=
	l=0
	while [ "$l" -lt "$lanes" ]; do
		lane "$l" "$@" &
		pids="$pids $!"
		l=$((l + 1))
	done
	for p in $pids; do wait "$p" || status=1; done
else
	run "$what" "$@" || status=1
fi
exit $status
