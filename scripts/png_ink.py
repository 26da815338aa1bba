#!/usr/bin/env python3
"""Count the pixels of a PNG close to a colour (standard library only).

Usage: png_ink.py FILE.png RRGGBB [TOLERANCE]
Prints the count. The tests use it to check that a page rendered in a
headless browser really drew its plots (the report's bars are #2c5aa0).
"""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, ctype, depth = 8, b"", 0, 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and ctype in (2, 6), "only 8-bit RGB/RGBA"
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        f = raw[i]
        row = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = row[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                row[x] = (row[x] + a) & 255
            elif f == 2:
                row[x] = (row[x] + b) & 255
            elif f == 3:
                row[x] = (row[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                row[x] = (row[x] + pr) & 255
        for x in range(0, stride, bpp):
            yield row[x], row[x + 1], row[x + 2]
        prev = row


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    want = bytes.fromhex(sys.argv[2])
    tol = int(sys.argv[3]) if len(sys.argv) > 3 else 24
    n = sum(1 for r, g, b in pixels(sys.argv[1]) if abs(r - want[0]) <= tol and abs(g - want[1]) <= tol and abs(b - want[2]) <= tol)
    print(n)


if __name__ == "__main__":
    main()
