#!/bin/sh
# Nothing stray at the top of the tree: the files git tracks there are the project's own
# (a test once wrote a list of corpus paths into the working directory, and it was
# committed). Without git (a tree from a release archive) there is nothing to ask.
# usage: sh tests/tree.sh SOURCE_ROOT
set -u
root=$1
. "$root/tests/check.sh"
if ! command -v git >/dev/null || ! git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
	echo "skipped: $root is not a git work tree"
	exit 77
fi
top=$(git -C "$root" ls-files | cut -d/ -f1 | LC_ALL=C sort -u | tr '\n' ' ')
check "the top of the tree" ".ci .gitignore LICENSE README.md cross doc fuzz include meson.build meson_options.txt src subprojects testdata tests tools " "$top"
# The repository stands alone: the format facts its code relies on are in doc/ (formats.md,
# format-notes.md, conventions.md), and nothing cites a file outside it.
check "nothing cites a reference outside the repository" "" \
	"$(grep -rlE -e 'FORMATS(\.md| [A-G][0-9]*\b)' -e '\.\./shared/[A-Z]' "$root/src" "$root/include" "$root/fuzz" "$root/tools" "$root/doc" \
		"$root/tests" "$root/README.md" 2>/dev/null | grep -v -e '/tests/tree\.sh$' -e '/tests/cli_batch\.sh$')"
finish tree
