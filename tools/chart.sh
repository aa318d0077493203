#!/bin/sh
# Draws the benchmark's MB/s per phase as an SVG bar chart (log scale), one core and every
# core side by side, each file's `cat` beside its phases: from build/bench/results.tsv (made
# by tools/bench.sh) to doc/speed.svg, or IN and OUT.
# Usage: tools/chart.sh [IN.tsv] [OUT.svg]
set -eu
cd "$(dirname "$0")/.."
in=${1:-build/bench/results.tsv}
out=${2:-doc/speed.svg}
[ -f "$in" ] || { echo "chart: $in is missing: run sh tools/bench.sh first" >&2; exit 1; }
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
tmp=$out.tmp
LC_ALL=C awk -F'\t' -v cores="$cores" '
function x(v) { return left + (log(v) / log(10) - 2) / 3 * width } # 100 to 100,000 MB/s
function label(p) {
	if (p == "read") return "SMD read"; if (p == "format") return "SMD format"; if (p == "write") return "SMD write"
	if (p == "kv2-read") return "keyvalues2 read"; if (p == "kv2-format") return "keyvalues2 format"
	if (p == "kv2-write") return "keyvalues2 write"; if (p == "bin-read") return "binary read"
	if (p == "bin-format") return "binary format"; if (p == "bin-write") return "binary write"
	if (p == "smd2dmx") return "smd2dmx (end to end)"; if (p == "dmx2smd") return "dmx2smd (end to end)"
	if (p == "vta-read") return "VTA read"; if (p == "vta-match") return "VTA match"
	return p
}
NR == 1 { next }
{ n++; phase[n] = $1; one[n] = $4; all[n] = $6 }
END {
	left = 190; width = 560; bar = 9; top = 46
	h = top + n * (2 * bar + 8) + 40
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n", left + width + 70, h
	printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	printf "<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\">smdmx on the 1,000,000-triangle grid: MB/s (log scale)</text>\n"
	printf "<rect x=\"%d\" y=\"26\" width=\"10\" height=\"8\" fill=\"#4477aa\"/><text x=\"%d\" y=\"34\">one core</text>\n", left, left + 14
	printf "<rect x=\"%d\" y=\"26\" width=\"10\" height=\"8\" fill=\"#ee7733\"/><text x=\"%d\" y=\"34\">%d cores</text>\n", left + 90, left + 104, cores
	printf "<rect x=\"%d\" y=\"26\" width=\"10\" height=\"8\" fill=\"#999999\"/><text x=\"%d\" y=\"34\">cat of the same file</text>\n", left + 180, left + 194
	for (v = 100; v <= 100000; v *= 10) {
		printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dddddd\"/>\n", x(v), top - 4, x(v), h - 30
		printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x(v), h - 16, v
	}
	y = top
	for (i = 1; i <= n; i++) {
		name = label(phase[i])
		if (phase[i] == "cat") name = "cat of the " (++cats == 1 ? "SMD" : cats == 2 ? "keyvalues2 file" : "binary file")
		printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 6, y + bar + 3, name
		if (phase[i] == "cat") {
			printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#999999\"/>\n", left, y + bar / 2, x(one[i]) - left, bar
			printf "<text x=\"%.1f\" y=\"%d\">%.0f</text>\n", x(one[i]) + 4, y + bar + 3, one[i]
		} else {
			printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#4477aa\"/>\n", left, y, x(one[i]) - left, bar
			printf "<text x=\"%.1f\" y=\"%d\">%.0f</text>\n", x(one[i]) + 4, y + bar - 1, one[i]
			printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#ee7733\"/>\n", left, y + bar, x(all[i]) - left, bar
			printf "<text x=\"%.1f\" y=\"%d\">%.0f</text>\n", x(all[i]) + 4, y + 2 * bar - 1, all[i]
		}
		y += 2 * bar + 8
	}
	printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">MB/s (10^6 bytes per second)</text>\n", left + width / 2, h - 3
	printf "</svg>\n"
}' "$in" >"$tmp"
mv "$tmp" "$out"
echo "chart: $out"
