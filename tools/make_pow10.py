#!/usr/bin/env python3
"""src/support/num_pow10.h: for each k from -31 to 45, g(k) = floor(10^k * 2^(63 - floor(log2
10^k))) + 1, the power of ten as a 64-bit number with its top bit set, rounded up: the
shortest-float printer (num.c, Giulietti's Schubfach) multiplies a float's significand by it.
Exact integer arithmetic; the same bytes every time.

usage: python3 tools/make_pow10.py > src/support/num_pow10.h
"""
from fractions import Fraction
import sys

LO, HI = -31, 45


def floor_log2(x):
    """floor(log2 x) of a positive Fraction, exactly."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** e > x:
        e -= 1
    while Fraction(2) ** (e + 1) <= x:
        e += 1
    return e


out = sys.stdout
out.write("/* Made by tools/make_pow10.py: g(k) = floor(10^k * 2^(63 - floor(log2 10^k))) + 1 for k from\n")
out.write(" * %d to %d, item k - (%d) (num.c, sm_format_shortest). */\n" % (LO, HI, LO))
out.write("#define SM_POW10_G_MIN (%d)\n" % LO)
out.write("static const uint64_t sm_pow10_g[%d] = {\n" % (HI - LO + 1))
vals = []
for k in range(LO, HI + 1):
    x = Fraction(10) ** k
    g = (x * Fraction(2) ** (63 - floor_log2(x))).__floor__() + 1
    assert 2 ** 63 < g <= 2 ** 64
    vals.append(g)
for i in range(0, len(vals), 4):
    out.write("\t" + " ".join("0x%016xu," % v for v in vals[i:i + 4]) + "\n")
out.write("};\n")
