# Shared by the scripts in tools/ (sourced, not run). Steps run quietly and show their whole
# output, with the failing tool's own words, only when they fail.

# quietly CMD...: runs CMD with its output held back; when CMD fails, prints all of it on
# standard error and returns CMD's status.
quietly() {
	_q_log=$(mktemp)
	"$@" >"$_q_log" 2>&1 && { rm -f "$_q_log"; return 0; }
	_q_status=$?
	cat "$_q_log" >&2
	rm -f "$_q_log"
	echo "$(basename "$0"): this step failed (exit status $_q_status): $*" >&2
	return "$_q_status"
}

# check_compiler: builds and runs a one-line C program with the compiler meson will pick
# (CC, else cc), so that a compiler that cannot link (missing C library headers or start
# files, say) is reported with the compiler's own message, not meson's summary of it.
check_compiler() {
	_c_cc=${CC:-cc}
	_c_dir=$(mktemp -d)
	printf '#include <stdio.h>\nint main(void) { return puts("") == EOF; }\n' >"$_c_dir/probe.c"
	# shellcheck disable=SC2086 # CC may hold a command and its arguments, as meson reads it
	if $_c_cc "$_c_dir/probe.c" -o "$_c_dir/probe" >"$_c_dir/log" 2>&1 && "$_c_dir/probe" >/dev/null 2>&1; then
		rm -rf "$_c_dir"
		return 0
	fi
	echo "$(basename "$0"): the C compiler '$_c_cc' cannot build a program; it said:" >&2
	cat "$_c_dir/log" >&2
	rm -rf "$_c_dir"
	echo "$(basename "$0"): on Debian, 'sh tools/install-deps.sh' installs gcc with the C library's headers (libc6-dev)" >&2
	return 1
}

# configure DIR [MESON-OPTION...]: sets up a meson build directory unless it is set up
# already. A directory left behind by a setup that failed is set up again from scratch.
configure() {
	_b_dir=$1
	shift
	[ -f "$_b_dir/build.ninja" ] && return 0
	check_compiler || return 1
	[ -d "$_b_dir/meson-private" ] && rm -rf "$_b_dir/meson-private" "$_b_dir/meson-info" "$_b_dir/meson-logs"
	quietly meson setup "$_b_dir" "$@" && return 0
	_b_status=$?
	if [ -f "$_b_dir/meson-logs/meson-log.txt" ]; then
		echo "$(basename "$0"): the end of $_b_dir/meson-logs/meson-log.txt:" >&2
		tail -n 25 "$_b_dir/meson-logs/meson-log.txt" >&2
	fi
	return "$_b_status"
}

# debian_source PACKAGE FILE DIR: puts FILE (a file of PACKAGE's Debian source package, its
# .orig tarball say) into DIR, fetched with apt-get from the mirror this system's apt already
# uses (its deb lines read as deb-src, with lists of their own: the system's apt state is
# untouched). Quiet; returns non-zero when it cannot.
debian_source() {
	_d_pkg=$1 _d_file=$2 _d_dest=$3
	[ -f "$_d_dest/$_d_file" ] && return 0
	command -v apt-get >/dev/null 2>&1 || return 1
	_d_tmp=$(mktemp -d)
	_d_uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	[ -n "$_d_uri" ] || _d_uri=$(awk '$1 == "deb" && $2 !~ /^\[/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
	[ -n "$_d_uri" ] || { rm -rf "$_d_tmp"; return 1; }
	_d_suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}")
	echo "deb-src $_d_uri $_d_suite main" >"$_d_tmp/sources.list"
	mkdir -p "$_d_tmp/lists/partial" "$_d_tmp/cache/archives/partial" "$_d_dest"
	set -- -o Dir::Etc::sourcelist="$_d_tmp/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$_d_tmp/lists" -o Dir::Cache="$_d_tmp/cache" -o APT::Sandbox::User=root
	if (apt-get "$@" update && cd "$_d_tmp" && apt-get "$@" source --download-only "$_d_pkg") >"$_d_tmp/log" 2>&1 &&
		[ -f "$_d_tmp/$_d_file" ]; then
		cp "$_d_tmp/$_d_file" "$_d_dest/$_d_file"
		rm -rf "$_d_tmp"
		return 0
	fi
	rm -rf "$_d_tmp"
	return 1
}

# suite DIR LABEL [MESON-TEST-OPTION...]: runs meson's test suite in build directory DIR.
# When a test fails, its last line says which ones and how each ended (its first failed check
# with what it wanted and got, else its last line of output), so that a log that keeps only the
# end of this one still names the culprit.
suite() {
	_s_dir=$1 _s_label=$2
	shift 2
	meson test -C "$_s_dir" --print-errorlogs "$@" && return 0
	_s_status=$?
	python3 - "$_s_dir/meson-logs/testlog.json" "$_s_label" <<'PYEOF' >&2 || true
import json, sys
bad = []
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    t = json.loads(line)
    if t["result"] in ("OK", "SKIP", "EXPECTEDFAIL"):
        continue
    text = ((t.get("stderr") or "") + (t.get("stdout") or "")).replace("\r", "")
    lines = [l for l in text.split("\n") if l.strip()]
    # the first failed check with what it wanted and got, else the last line
    first = next((i for i, l in enumerate(lines) if l.startswith("FAIL")), None)
    said = " / ".join(l.strip() for l in lines[first:first + 3]) if first is not None else (lines[-1] if lines else "no output")
    bad.append("%s (%s, exit %s): %s" % (t["name"], t["result"], t.get("returncode"), said[:400]))
print("%d test%s failed %s: %s" % (len(bad), "" if len(bad) == 1 else "s", sys.argv[2], "; ".join(bad)))
PYEOF
	return "$_s_status"
}
