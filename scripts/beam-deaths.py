#!/usr/bin/env python3
"""How a beam died, from its run folder's log: per run, the depth it ended
at and its best score, the last depth at which the beam was still full (its
width of wells kept), how many depths before the end that was, and the
depth of the one well every kept well descended from there (the log's
`common_ancestor`), with how far back. A beam that ends from full within a
few depths was killed by a short sequence; an ancestor far back says how
little of the game the beam's wells still disagreed about.

    python3 scripts/beam-deaths.py RUN_DIR [RUN_DIR ...]

A run whose beam is still alive, or that never filled, is reported as such.
"""
import json, os, sys

if len(sys.argv) < 2:
    sys.exit("usage: scripts/beam-deaths.py RUN_DIR [RUN_DIR ...]")
lines = []
for run in sys.argv[1:]:
    try:
        with open(os.path.join(run, "manifest.json")) as f:
            manifest = json.load(f)
        with open(os.path.join(run, "log.jsonl")) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        sys.exit(f"beam-deaths.py: {run}: {e}")
    rows = [r for r in rows if "depth" in r and "kept" in r]
    width = manifest.get("settings", {}).get("width")
    full = [r for r in rows if width and r["kept"] >= width]
    if not rows or not full:
        lines.append(f"| {run} | | | never full | | | |")
        continue
    end, last = rows[-1], full[-1]
    if not manifest.get("exhausted", False):
        lines.append(f"| {run} | alive at {end['depth']} | {end['best_score']} | | | | |")
        continue
    anc = last.get("common_ancestor")
    anc, back = ("", "") if anc is None else (anc, last["depth"] - anc)
    lines.append(f"| {run} | {end['depth']} | {end['best_score']} | {last['depth']} | "
                 f"{end['depth'] - last['depth']} | {anc} | {back} |")
print("| run | ended at depth | best score | last full depth | depths before the end | common ancestor there | depths back |")
print("|---|---|---|---|---|---|---|")
print("\n".join(lines))
