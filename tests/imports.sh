#!/bin/sh
# A Windows program needs nothing but DLLs every Windows has: its import table names only
# KERNEL32.dll, msvcrt.dll and SHELL32.dll (the C library, mingw-w64's own code and winpthreads
# linked in statically).
# usage: imports.sh OBJDUMP PROGRAM.exe...
set -u
objdump=$1
shift
fail=0
for exe in "$@"; do
	dlls=$("$objdump" -p "$exe" | sed -n 's/^[[:space:]]*DLL Name: //p' | tr 'A-Z' 'a-z' | sort -u | tr '\n' ' ')
	if [ -z "$dlls" ]; then
		echo "FAIL: $exe: no import table read"
		fail=1
		continue
	fi
	for d in $dlls; do
		case $d in
		kernel32.dll | msvcrt.dll | shell32.dll) ;;
		*)
			echo "FAIL: $exe imports $d, which not every Windows has"
			fail=1
			;;
		esac
	done
	echo "$(basename "$exe"): $dlls"
done
[ "$fail" = 0 ]
