#!/bin/sh
# doc/library.md names every installed header and every function they declare (SMDMX_API), so
# that what the library offers is documented where its users look; and a function the page
# does not name is found (checked on a copy with one more).
# usage: sh tests/library_doc.sh SOURCE_ROOT
set -u
root=$1
. "$root/tests/check.sh"
# unnamed INCLUDE_DIR PAGE: each header and SMDMX_API function PAGE does not name
unnamed() {
	for h in "$1"/*.h; do
		grep -q "smdmx/$(basename "$h")" "$2" || echo "smdmx/$(basename "$h")"
		for f in $(grep -v '^#' "$h" | tr '\n' ' ' | grep -o 'SMDMX_API [^(;]*(' | sed 's/($//; s/.*[ *]//'); do
			grep -q "\`$f\`" "$2" || echo "$f"
		done
	done
}
check "every header and function named in doc/library.md" "" "$(unnamed "$root/include/smdmx" "$root/doc/library.md" | tr '\n' ' ')"
check "the functions counted" yes "$([ "$(tr '\n' ' ' <"$root/include/smdmx/dm.h" | grep -o 'SMDMX_API [^(;]*(' | wc -l)" -ge 20 ] && echo yes)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root"/include/smdmx/*.h "$tmp/"
printf 'SMDMX_API bool smdmx_scene_unheard_of(const smdmx_scene *s,\n                                   int n);\n' >>"$tmp/scene.h"
check "a function the page does not name, found" "smdmx_scene_unheard_of " "$(unnamed "$tmp" "$root/doc/library.md" | tr '\n' ' ')"
finish library-doc
