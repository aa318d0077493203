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
