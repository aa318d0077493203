#!/bin/sh
# tools/layers.sh on the source tree (every include down or within its layer), and on a copy
# of it with one include up, one across and one of a private header below, which it must find,
# and with the programs' own platform header included by the library, twice.
# usage: sh tests/layers.sh SOURCE_ROOT
set -u
root=$1
. "$root/tests/check.sh"
out=$(sh "$root/tools/layers.sh" "$root")
check "the tree's layers" "0 layers:" "$? $(echo "$out" | cut -c1-7)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/src" "$tmp/src"
mkdir "$tmp/tools"
printf '#include "model/x.h"\n' >>"$tmp/src/support/alloc.c"
printf '#include "../qc/qc_internal.h"\n' >>"$tmp/src/smd/smd_read.c"
printf '#include "qc/qc_internal.h"\n#include "scene/scene_util.h"\n' >>"$tmp/src/model/dmx_lift.c"
out=$(sh "$root/tools/layers.sh" "$tmp")
check "an include up and one across, found" "1 2" "$? $(echo "$out" | grep -c -e 'a layer above it$' -e 'a layer beside it$')"
check "a header private to a layer below, found; one it offers, not" "$tmp/src/model/dmx_lift.c: model includes qc/qc_internal.h, a header private to qc" \
	"$(echo "$out" | grep 'private')"
# what only a program may do: from cli, allowed; from a library layer, or a library file of
# the platform layer, found
cp -r "$root/src" "$tmp/src2"
mkdir -p "$tmp/t2/tools"
mv "$tmp/src2" "$tmp/t2/src"
printf '#include "../platform/os_program.h"\n' >>"$tmp/t2/src/support/fmath.c"
printf '#include "os_program.h"\n' >>"$tmp/t2/src/platform/os_path.c"
out=$(sh "$root/tools/layers.sh" "$tmp/t2")
check "the programs' own platform calls, included by the library, found" "1 2" \
	"$? $(echo "$out" | grep -c -e 'support includes platform/os_program.h, what only a program may do' -e "the library's platform file includes os_program.h")"
finish layers
