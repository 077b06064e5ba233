#!/usr/bin/env python3
"""Print the Base2048 alphabet as Rust code-point ranges for src/replay/base2048.rs.

The game's Base2048 alphabet (npm `base2048` 3.0.0) is 2048 BMP characters for
11-bit values plus 8 tail characters for final 3-bit values. Listed one per
line in tests/data/base2048-alphabet.txt, it is mostly runs of consecutive
code points, so base2048.rs stores it as inclusive (first, last) ranges and a
`const fn` expands them into the full tables at compile time.

Run from the repository root and paste the output over the `RANGES_11` and
`RANGES_3` constants:

    python3 scripts/base2048_ranges.py tests/data/base2048-alphabet.txt

The integration tests check the expanded table against the file, so a pasting
mistake cannot go unnoticed.
"""
import sys


def read_sections(path):
    sections = {}
    current = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                current = sections.setdefault(line.strip("[]"), [])
                continue
            value, code = line.split()
            assert int(value) == len(current), f"values out of order at {line!r}"
            assert code.startswith("U+")
            current.append(int(code[2:], 16))
    return sections


def ranges(code_points):
    out = []
    for cp in code_points:
        if out and out[-1][1] + 1 == cp:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def emit(name, code_points):
    rs = ranges(code_points)
    print(f"const {name}: [(u16, u16); {len(rs)}] = [")
    line = "   "
    for first, last in rs:
        item = f" (0x{first:04X}, 0x{last:04X}),"
        if len(line) + len(item) > 100:
            print(line)
            line = "   "
        line += item
    print(line)
    print("];")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/base2048-alphabet.txt"
    sections = read_sections(path)
    assert len(sections["11"]) == 2048 and len(sections["3"]) == 8
    emit("RANGES_11", sections["11"])
    emit("RANGES_3", sections["3"])


if __name__ == "__main__":
    main()
