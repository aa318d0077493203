#!/bin/sh
# Every "decision N" the code cites is defined in doc/decisions.md (a "## N." heading).
# usage: sh tests/decisions.sh SOURCE_ROOT
set -u
root=$1
cited=$(grep -rhoE 'decision [0-9]+' "$root/src" "$root/include" "$root/tests" "$root/tools" "$root/fuzz" | sed 's/decision //' | sort -un)
missing=""
for n in $cited; do
	grep -q "^## $n\. " "$root/doc/decisions.md" || missing="$missing $n"
done
if [ -n "$missing" ]; then
	echo "FAIL: cited but not in doc/decisions.md:$missing"
	exit 1
fi
echo "decisions: $(echo "$cited" | wc -w) cited, each defined in doc/decisions.md"
