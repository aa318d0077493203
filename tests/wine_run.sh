#!/bin/sh
# wine_run.sh WINE PROGRAM ARGS...: a Windows program of the tests under Wine, once more when
# Wine lost the start. Every Windows start of the tests goes through it (tests/meson.build:
# the unit tests, and run/NAME, through which the command-line scripts start the programs;
# the cmd lines of cli_batch.sh and tools/release-windows.sh's check), so that every start has
# the same rule, not only the starts a script wrapped.
#
# On a loaded machine Wine has been seen to fail a start in two ways the program has no part
# in (a few in each of CI's runs of several thousand starts):
#   - status 1 and no output at all, the program never having run (smdmx says why whenever it
#     fails, and a test program prints its results);
#   - its loader's assertion as the process ends ("Inconsistency detected by ld.so:
#     dl-fini.c: ...: _dl_fini: Assertion ... failed!");
#   - its start of the program failing with "Application could not be started, or no
#     application associated with the specified file." and "ShellExecuteEx failed: File not
#     found." (on standard output; the .exe was there).
# Such a start is run again (up to twice more, a moment apart), and only the last run's output
# and status count. To see
# what a start said, its output is kept in files: standard error is passed on when the start
# ends; standard output too, unless it is a pipe, which it reaches as it is written (through
# tee, so that a reader that closes the pipe ends the program as it would without this
# script); when the two are one (2>&1) they are kept in one file, so that the lines keep their
# order. Standard input is not kept: a start run again meets what the first left of it
# (nothing was read in a start lost before the program ran).
#
# A signal to this script is not passed on: a test that interrupts a program signals this
# script's children (pkill -P): the program, and tee, which ignores it (started in the
# background).
set -u
wine=$1
shift
tmp=$(mktemp -d) || exit 125
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC3013 # (-ef: dash, Debian's sh, and bash have it)
if [ /dev/stdout -ef /dev/stderr ]; then
	way=merged
elif [ -p /dev/stdout ]; then
	way=pipe
	mkfifo "$tmp/fifo" || exit 125
else
	way=files
fi
run() {
	: >"$tmp/out"
	: >"$tmp/err"
	case $way in
	merged) "$wine" "$@" >"$tmp/out" 2>&1 ;;
	files) "$wine" "$@" >"$tmp/out" 2>"$tmp/err" ;;
	pipe)
		tee "$tmp/out" <"$tmp/fifo" 2>/dev/null &
		"$wine" "$@" >"$tmp/fifo" 2>"$tmp/err"
		_rc=$?
		wait
		return $_rc
		;;
	esac
}
# lost: the start Wine lost (above), told by its status and what it said
lost() {
	if [ "$1" = 1 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then return 0; fi
	grep -qs -e '^Inconsistency detected by ld\.so: ' -e '^ShellExecuteEx failed: ' "$tmp/out" "$tmp/err"
}

# Run again up to twice, a moment apart: in a fresh Debian's suite a start was lost twice in
# a row (status 1, no output, in 0.01 s: Wine had not run it at all), and one run more did not
# see it through. A start the program made never counts as lost, so no retry hides a failure.
run "$@"
rc=$?
for pause in 1 3; do
	lost $rc || break
	sleep $pause
	run "$@"
	rc=$?
done
[ $way = pipe ] || cat "$tmp/out"
cat "$tmp/err" >&2
exit $rc
