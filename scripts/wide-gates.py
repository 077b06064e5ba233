#!/usr/bin/env python3
"""Prints, as a Markdown table, the wide games of every gate that played them
from a long game's wells (`--gate-wide-from`): per candidate, the positions'
verdict against its champion, the lines and end piece of each game, the two
totals and whether it was kept. The table of data/train/README.md, "The
gate's wide games across seven candidates".

    python3 scripts/wide-gates.py [TRAIN_DIR ...]

Each TRAIN_DIR is a training folder (default: every folder in data/train);
its gen-NNN/gate.json files are read, in order, into one table for each
width, a column for each start any of its gates played (a gate that plays
some of them in turn, `--gate-wide-rotate`, leaves the others blank). A
gate without wide games from a game's wells is left out, and a fork's copy
of its source's generation (the same gate.json) is listed once.
"""
import glob, json, os, sys

dirs = sys.argv[1:] or sorted(d for d in glob.glob("data/train/*") if os.path.isdir(d))
seen = set()
rows = []
for d in dirs:
    for path in sorted(glob.glob(os.path.join(d, "gen-*", "gate.json"))):
        with open(path) as f:
            gate = json.load(f)
        wide = gate.get("wide") or {}
        games = wide.get("candidate") or []
        if not games or any("from" not in g for g in games):
            continue
        text = json.dumps(gate, sort_keys=True)
        if text in seen:
            continue
        seen.add(text)
        champion = {(g["width"], g["from"]): g for g in wide.get("champion") or []}
        name = f"{os.path.basename(d)} gen {gate['generation']}"
        diff, se = gate["pieces_difference"]
        ours = sum(g["lines"] for g in games)
        theirs = sum(champion[(g["width"], g["from"])]["lines"] for g in games
                     if (g["width"], g["from"]) in champion)
        rows.append((name, f"{diff:+.1f} ± {se:.1f}", games, ours, theirs, gate["kept"]))

if not rows:
    sys.exit("wide-gates.py: no gate with wide games from a game's wells in " + " ".join(dirs))
# One table for each set of widths, a column for each start played at them.
tables = {}
for row in rows:
    tables.setdefault(tuple(sorted({g["width"] for g in row[2]})), []).append(row)
for i, (widths, group) in enumerate(tables.items()):
    if i:
        print()
    starts = sorted({g["from"] for row in group for g in row[2]})
    print(f"Width {', '.join(f'{w:,}' for w in widths)}:")
    print()
    print("| candidate | gate positions, pieces a start against its champion | "
          + " | ".join(f"from piece {p}" for p in starts)
          + " | total | its champion's total | kept |")
    print("|---" * (len(starts) + 5) + "|")
    for name, verdict, games, ours, theirs, kept in group:
        by_start = {g["from"]: f"{g['lines']} ({g['pieces']})" for g in games}
        cells = [by_start.get(p, "") for p in starts]
        print(f"| {name} | {verdict} | " + " | ".join(cells)
              + f" | {ours} | {theirs} | {'yes' if kept else 'no'} |")
