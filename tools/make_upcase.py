#!/usr/bin/env python3
"""src/platform/os_upcase.h: each letter of the Basic Multilingual Plane and its capital, as a
case-ignoring file system compares names (NTFS keeps a table of one capital per UTF-16 unit:
a letter with no capital of its own, or one of several letters such as 'ß' -> "SS", stays as
it is). Made from Python's Unicode data; the bytes are the same every time for one Python.

usage: python3 tools/make_upcase.py > src/platform/os_upcase.h
"""
import sys
import unicodedata

pairs = []
for cp in range(0x80, 0x10000):
    if 0xD800 <= cp <= 0xDFFF:
        continue
    up = chr(cp).upper()
    if len(up) == 1 and ord(up) != cp and ord(up) < 0x10000:
        pairs.append((cp, ord(up)))
out = sys.stdout
out.write("/* Made by tools/make_upcase.py from Unicode %s: the letters beyond ASCII of the Basic\n" % unicodedata.unidata_version)
out.write(" * Multilingual Plane that have one capital, each with it, in order (os_path.c). */\n")
out.write("static const uint16_t os_upcase[][2] = {\n")
for i in range(0, len(pairs), 6):
    out.write("\t" + " ".join("{ 0x%04x, 0x%04x }," % p for p in pairs[i:i + 6]) + "\n")
out.write("};\n")
