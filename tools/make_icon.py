#!/usr/bin/env python3
"""src/cli/windows/smdmx.ico, the programs' icon on Windows (Explorer, the taskbar): a cube seen
from a corner, its three faces in three shades, at 16, 32 and 48 pixels, drawn here so that the
repository holds how it is made. Run it again after changing it; the bytes are the same every
time.

usage: python3 tools/make_icon.py > src/cli/windows/smdmx.ico
"""
import struct
import sys

TOP, LEFT, RIGHT = (0xF2, 0x9B, 0x38), (0x2F, 0x6F, 0xB5), (0x1D, 0x4A, 0x7E)


def inside(px, py, poly):
    """Whether (px, py) is inside the convex polygon (its corners in order)."""
    sign = 0
    for i in range(len(poly)):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
        c = (x1 - x0) * (py - y0) - (y1 - y0) * (px - x0)
        if c != 0:
            if sign and (c > 0) != (sign > 0):
                return False
            sign = c
    return True


def image(n):
    """n x n BGRA rows, top row first: the cube, 4x4 samples a pixel."""
    h = 0.5 * 3 ** 0.5  # the hexagon's half width over its radius
    r, cx, cy = 0.47, 0.5, 0.5
    centre = (cx, cy)
    corner = [(cx + r * h * dx, cy + r * dy) for dx, dy in ((0, -1), (1, -0.5), (1, 0.5), (0, 1), (-1, 0.5), (-1, -0.5))]
    faces = [([corner[0], corner[1], centre, corner[5]], TOP),
             ([corner[5], centre, corner[3], corner[4]], LEFT),
             ([centre, corner[1], corner[2], corner[3]], RIGHT)]
    rows = []
    for y in range(n):
        row = b""
        for x in range(n):
            acc = [0, 0, 0, 0]
            for sy in range(4):
                for sx in range(4):
                    p = ((x + (sx + 0.5) / 4) / n, (y + (sy + 0.5) / 4) / n)
                    for poly, colour in faces:
                        if inside(p[0], p[1], poly):
                            acc = [acc[0] + colour[2], acc[1] + colour[1], acc[2] + colour[0], acc[3] + 255]
                            break
            a = acc[3] // 16
            if a:
                k = acc[3] // 255
                row += bytes((acc[0] // k, acc[1] // k, acc[2] // k, a))
            else:
                row += bytes(4)
        rows.append(row)
    return rows


def entry(n):
    """An icon image: a BITMAPINFOHEADER (height doubled, for the mask), the pixels bottom row
    first, and the AND mask (all 0: the alpha says what shows)."""
    rows = image(n)
    mask_row = ((n + 31) // 32) * 4
    head = struct.pack("<IiiHHIIiiII", 40, n, 2 * n, 1, 32, 0, 0, 0, 0, 0, 0)
    return head + b"".join(reversed(rows)) + bytes(mask_row * n)


sizes = (16, 32, 48)
images = [entry(n) for n in sizes]
out = struct.pack("<HHH", 0, 1, len(sizes))
offset = 6 + 16 * len(sizes)
for n, data in zip(sizes, images):
    out += struct.pack("<BBBBHHII", n, n, 0, 0, 1, 32, len(data), offset)
    offset += len(data)
sys.stdout.buffer.write(out + b"".join(images))
