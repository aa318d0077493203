# The command-line tests' common part (cli_batch.sh, cli_pictures.sh): sourced with GROUP
# BUILD_DIR SOURCE_ROOT as the script's arguments. check NAME WANT GOT counts a case; the
# script ends with its tally.
set -u
group=$1
build=$(cd "$2" && pwd)
root=$(cd "$3" && pwd)
smdmx=$build/smdmx
smd2dmx=$build/smd2dmx
dmx2smd=$build/dmx2smd
corpus=$root/../shared/corpus
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0
fail=0

check() { # name want got
	if [ "$2" = "$3" ]; then pass=$((pass + 1)); else printf 'FAIL: %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fail=$((fail + 1)); fi
	case $3 in *": warning: "*)
		m=$(silent "$3")
		if [ -n "$m" ]; then printf 'FAIL: %s: a warning that does not say whether to act: %s\n' "$1" "$m"; fail=$((fail + 1)); fi ;;
	esac
}
# The warnings in a text that do not say whether to act (as tests/util.h's test_warning_acts):
# a warning's last clause, after the last "; ", is "nothing to do" or what to do.
silent() {
	printf '%s\n' "$1" | tr '|' '\n' | LC_ALL=C awk '/: warning: / {
		m = $0; sub(/^.*: warning: /, "", m); sub(/ \(([0-9]+ times|and more like it|for [0-9]+ QCs)\)$/, "", m)
		n = split(m, a, "; ")
		if (n < 2 || a[n] !~ /^(nothing to do|if |add |check |compile |export |fix |give |keep |leave |make |move |put |reduce |remove |rename |triangulate |use |write )/) print m
	}'
}
# corpus_files NAME_PATTERN...: the corpus's files of those names (find -iname), sorted, one a
# line. SMDMX_CORPUS_SAMPLE=N (CI's sanitizer runs, where a start costs several times more):
# every Nth model of them, taken by the path without its extension, so that an SMD and the
# VTA beside it come together, and from every folder alike. Without it, every file.
corpus_files() {
	_first=1
	for _p in "$@"; do
		[ $_first = 1 ] && set -- && _first=0
		set -- "$@" -o -iname "$_p"
	done
	shift
	find "$corpus" -type f \( "$@" \) | LC_ALL=C sort | awk -v n="${SMDMX_CORPUS_SAMPLE:-1}" '{
		stem = $0; sub(/\.[^./]*$/, "", stem)
		if (!(stem in seen)) seen[stem] = k++
		if (seen[stem] % n == 0) print }'
}
# corpus_copy DEST: the corpus copied to DEST, every file, or (SMDMX_CORPUS_SAMPLE) its sample
# of models (corpus_files) and every other file.
corpus_copy() {
	mkdir -p "$1"
	{ corpus_files '*.smd' '*.vta' '*.dmx'; find "$corpus" -type f ! -iname '*.smd' ! -iname '*.vta' ! -iname '*.dmx'; } |
		while IFS= read -r _f; do
			_rel=${_f#"$corpus"/}
			mkdir -p "$1/$(dirname "$_rel")" && cp "$_f" "$1/$_rel"
		done
}
[ "${SMDMX_CORPUS_SAMPLE:-1}" != 1 ] && echo "note: a sample of the corpus: every ${SMDMX_CORPUS_SAMPLE}th model (SMDMX_CORPUS_SAMPLE)"
# Whether the Khronos glTF validator is there (tests/gltf: npm ci --prefix tests/gltf, which
# tools/test.sh runs); without it, said, and a failure where SMDMX_REQUIRE_GLTF_VALIDATOR=1.
gltf_validator() {
	if command -v node >/dev/null && [ -d "$root/tests/gltf/node_modules/gltf-validator" ]; then return 0; fi
	if [ -n "${SMDMX_REQUIRE_GLTF_VALIDATOR:-}" ]; then
		check "the Khronos glTF validator is installed (npm ci --prefix tests/gltf)" yes no
	else
		echo "note: no Khronos glTF validator (npm ci --prefix tests/gltf installs it): the glTF files are not validated"
	fi
	return 1
}
# Files in a directory tree, sorted, one line: what a failure must not leave behind.
files() { (cd "$1" && find . -type f | LC_ALL=C sort | tr '\n' ' '); }
sample=$root/testdata/sample
# SMDMX_WINDOWS=1: the programs are the Windows build, run under Wine (tests/meson.build).
windows=${SMDMX_WINDOWS:-}
# An absolute path as the programs write it: on Windows with its drive (Wine shows / as Z:)
drive=""
[ -n "$windows" ] && drive=Z:
# The test's own edits of files read and write numbers as C does, whatever the locale the
# programs run under (the suite also runs under de_DE.UTF-8).
awk() { LC_ALL=C command awk "$@"; }
# missing ERRFILE ROOT: the files smdmx qc said it cannot find, below ROOT, without their
# extension (a written library names its own), one per line, sorted
missing() {
	grep -o "cannot find '[^']*'" "$1" | sed "s|^cannot find '||; s|'\$||; s|^$drive||" |
		while IFS= read -r f; do realpath -m --relative-to="$2" "$f"; done | sed 's|\.[a-zA-Z]*$||' | LC_ALL=C sort -u
}
