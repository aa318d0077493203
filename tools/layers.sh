#!/bin/sh
# The library's layers, checked: every #include "LAYER/..." of a file in src/ goes to its own
# layer or one below it, never up and never across to a layer beside it, so that the include
# graph of the layers has no cycle. From the bottom:
#   platform < support < scene < smd, dmx, qc, gltf (the formats), render (side by side) < model
#   < project < report < cli
# Includes of the public headers (<smdmx/...>, "smdmx/...") and of the C library are free.
# A layer's headers are its own but for those it offers the layers above (interface below):
# a file may include another layer's header only when it is one of them. platform/os_program.h
# is the programs' alone.
# usage: sh tools/layers.sh [SOURCE_ROOT]   (prints each wrong include; exit 1 if any)
set -eu
root=${1:-$(dirname "$0")/..}
rank() {
	case $1 in
	platform) echo 0 ;; support) echo 1 ;; scene) echo 2 ;; smd | dmx | qc | gltf | render) echo 3 ;;
	model) echo 4 ;; project) echo 5 ;; report) echo 6 ;; cli) echo 7 ;; *) echo "" ;;
	esac
}
# The headers a layer offers the layers above it; every other header is private to its folder.
interface="gltf/gltf_valid.h support/bytes.h support/internal.h support/keys.h support/num.h support/sha1.h support/xxh64.h platform/os.h scene/scene_util.h smd/smd_valid.h dmx/dm_build.h qc/qc_memory.h model/model_valid.h render/render.h report/report.h"
offered() {
	for h in $interface; do [ "$h" = "$1" ] && return 0; done
	return 1
}
# What only a program may do to its process (signal and console handlers, exits, the
# allocator's settings, the terminal): offered to the programs (cli) and to no library layer,
# so that libsmdmx leaves its host alone.
program_only="platform/os_program.h"
bad=0
files=0
for f in "$root"/src/*/*.[ch]; do
	files=$((files + 1))
	from=$(basename "$(dirname "$f")")
	rf=$(rank "$from")
	if [ -z "$rf" ]; then
		echo "$f: in no layer (src/$from is not one)"
		bad=1
		continue
	fi
	# "LAYER/file.h" or "../LAYER/file.h"; a name without a folder is the file's own layer
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(\.\.\/\)\{0,1\}\([a-z0-9_]*\/[^"]*\)".*/\2/p' "$f"); do
		to=${inc%%/*}
		[ "$to" = smdmx ] && continue
		rt=$(rank "$to")
		if [ -z "$rt" ]; then
			echo "$f: includes from src/$to, which is no layer"
			bad=1
		elif [ "$rt" -gt "$rf" ]; then
			echo "$f: $from includes $to, a layer above it"
			bad=1
		elif [ "$rt" -eq "$rf" ] && [ "$to" != "$from" ]; then
			echo "$f: $from includes $to, a layer beside it"
			bad=1
		elif [ "$inc" = "$program_only" ]; then
			if [ "$from" != cli ]; then
				echo "$f: $from includes $inc, what only a program may do (the library leaves its host alone)"
				bad=1
			fi
		elif [ "$to" != "$from" ] && ! offered "$inc"; then
			echo "$f: $from includes $inc, a header private to $to"
			bad=1
		fi
	done
done
# and inside the platform layer, only the programs' own files include it
for f in "$root"/src/platform/*.[ch]; do
	case $(basename "$f") in os_program*) continue ;; esac
	if grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*"os_program\.h"' "$f"; then
		echo "$f: the library's platform file includes os_program.h, what only a program may do"
		bad=1
	fi
done
for f in "$root"/src/*.[ch]; do
	[ -e "$f" ] || continue
	echo "$f: outside a layer folder"
	bad=1
done
[ "$bad" = 0 ] && echo "layers: $files files, every include down or within its layer, none of another layer's private headers"
exit "$bad"
