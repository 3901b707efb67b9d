#!/usr/bin/env python3
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
"""Generates uca900_primary.bin: the primary weights of DUCET 9.0.0 (allkeys.txt of UCA 9.0.0),
the table MySQL's utf8mb4_0900_ai_ci collation is built on (accent- and case-insensitive = level 1).

The allkeys file comes from the `pyuca` package on PyPI (it ships the Unicode Consortium's files,
Unicode license). Run: python3 rust/core/data/gen_uca900.py

Format (little endian): b"UCA9", u32 entry count, then per entry: u8 code point count, that many
u32 code points, u8 primary weight count, that many u16 primary weights (zero weights left out).
"""
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def allkeys_text():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, "pyuca==1.2"],
                       check=True)
        wheel = next(f for f in os.listdir(tmp) if f.endswith(".whl"))
        with zipfile.ZipFile(os.path.join(tmp, wheel)) as z:
            return z.read("pyuca/allkeys-9.0.0.txt").decode("utf-8")


def entries(text):
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("@"):
            continue
        chars, elements = line.split(";", 1)
        code_points = [int(c, 16) for c in chars.split()]
        primaries = []
        for element in elements.strip().strip("[]").split("]["):
            primary = int(element[1:].split(".")[0], 16)
            if primary:
                primaries.append(primary)
        yield code_points, primaries


def main():
    out = bytearray()
    count = 0
    for code_points, primaries in entries(allkeys_text()):
        out += struct.pack("<B", len(code_points))
        out += struct.pack("<%dI" % len(code_points), *code_points)
        out += struct.pack("<B", len(primaries))
        out += struct.pack("<%dH" % len(primaries), *primaries)
        count += 1
    with open(os.path.join(HERE, "uca900_primary.bin"), "wb") as f:
        f.write(b"UCA9" + struct.pack("<I", count) + bytes(out))
    print("wrote %d entries (%d bytes)" % (count, len(out) + 8))


if __name__ == "__main__":
    main()
