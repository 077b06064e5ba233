#!/usr/bin/env python3
"""Pairs two `hatetris bench strength` reports (their text form) start by start.

Usage: scripts/paired-suite.py [--block PIECES] REFERENCE.txt OTHER.txt

Each report's per-start lines (`NAME @PIECE [*] PIECES/LINES [†]`, the first
evaluator's column) are matched by start; prints the paired difference
OTHER − REFERENCE in pieces and lines a start, each ± its standard error,
as `bench strength` does for evaluators measured in one run. Use it for
two runs of one suite at the same settings (width, cap, lookahead).
With --block PIECES the standard errors count one game's starts within the
same PIECES-long stretch as one draw, as `bench strength --block` does.
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


def paired(diffs, keys):
    """The mean of `diffs` and its standard error, `keys[i]` naming the
    block of `diffs[i]` (each its own: the plain error; else the
    cluster-robust one of `stats::clustered_mean_se`)."""
    n = len(diffs)
    mean = sum(diffs) / n
    sums = {}
    for d, k in zip(diffs, keys):
        sums[k] = sums.get(k, 0.0) + d - mean
    blocks = len(sums)
    if blocks < 2:
        return mean, 0.0
    var = blocks / (blocks - 1) * sum(s * s for s in sums.values())
    return mean, math.sqrt(var) / n


def block_of(start, block):
    game, piece = start.split(" @")
    return (game, int(piece) // block) if block else start


def main():
    args = sys.argv[1:]
    block = 0
    if args[:1] == ["--block"]:
        if len(args) < 2 or not args[1].isdigit():
            sys.exit("paired-suite.py: --block needs a whole number of pieces")
        block, args = int(args[1]), args[2:]
    if len(args) != 2:
        sys.exit("usage: paired-suite.py [--block PIECES] REFERENCE.txt OTHER.txt")
    ref, other = starts(args[0]), starts(args[1])
    common = sorted(set(ref) & set(other))
    if len(common) != len(ref) or len(common) != len(other):
        sys.exit(f"paired-suite.py: the reports share {len(common)} starts of {len(ref)} and {len(other)}")
    for k, name in ((0, "pieces"), (1, "lines")):
        a = sum(ref[s][k] for s in common) / len(common)
        b = sum(other[s][k] for s in common) / len(common)
        keys = [block_of(s, block) for s in common]
        mean, se = paired([other[s][k] - ref[s][k] for s in common], keys)
        print(f"{name}: {b:.1f} a start against {a:.1f}, {mean:+.1f} ± {se:.1f} ({len(common)} starts)")


main()
