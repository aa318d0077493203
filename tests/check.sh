# Shared by the source-tree checks (layers.sh, sizes.sh, library_doc.sh; sourced, not run):
# check NAME WANT GOT counts a pass or says the failure; finish NAME prints the tally and
# gives the test's status.
pass=0 fail=0
check() { # name want got
	if [ "$2" = "$3" ]; then pass=$((pass + 1)); else printf 'FAIL: %s\n  want: %s\n  got:  %s\n' "$1" "$2" "$3"; fail=$((fail + 1)); fi
}
finish() { # name
	echo "$1: $pass passed, $fail failed"
	[ "$fail" = 0 ]
}
