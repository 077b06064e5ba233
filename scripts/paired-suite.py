#!/usr/bin/env python3
"""Pairs two `hatetris bench strength` reports (their text form) start by start.

Usage: scripts/paired-suite.py REFERENCE.txt OTHER.txt

Each report's per-start lines (`NAME @PIECE [*] PIECES/LINES [†]`, the first
evaluator's column) are matched by start; prints the paired difference
OTHER − REFERENCE in pieces and lines a start, each ± its standard error,
as `bench strength` does for evaluators measured in one run. Use it for
two runs of one suite at the same settings (width, cap, lookahead).
"""
import math
import re
import sys

LINE = re.compile(r"^(\S+ @\d+)\s+\*?\s*(\d+)/(\d+)")


def starts(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                out[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    if not out:
        sys.exit(f"paired-suite.py: {path}: no per-start lines (a `bench strength` text report?)")
    return out


def paired(diffs):
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: paired-suite.py REFERENCE.txt OTHER.txt")
    ref, other = starts(sys.argv[1]), starts(sys.argv[2])
    common = sorted(set(ref) & set(other))
    if len(common) != len(ref) or len(common) != len(other):
        sys.exit(f"paired-suite.py: the reports share {len(common)} starts of {len(ref)} and {len(other)}")
    for k, name in ((0, "pieces"), (1, "lines")):
        a = sum(ref[s][k] for s in common) / len(common)
        b = sum(other[s][k] for s in common) / len(common)
        mean, se = paired([other[s][k] - ref[s][k] for s in common])
        print(f"{name}: {b:.1f} a start against {a:.1f}, {mean:+.1f} ± {se:.1f} ({len(common)} starts)")


main()
