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
finish tree
