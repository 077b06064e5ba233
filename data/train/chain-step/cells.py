#!/usr/bin/env python3
"""The beam's cells by depth, from a run's log.jsonl: a well at depth d with score s holds 4d - 10s cells.

    python3 data/train/chain-step/cells.py runs/NAME [EVERY]

Prints every EVERY-th depth (20 by default): the median well's cells, the fewest, the best score and cost, and
the common ancestor's depth."""
import json
import sys

run, every = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20
print("depth  median  fewest  best_score  best_cost  ancestor")
last = None
for line in open(f"{run}/log.jsonl"):
    d = json.loads(line)
    if "histogram" not in d:
        continue
    last = d
    if d["depth"] % every:
        continue
    depth, hist = d["depth"], d["histogram"]
    total = sum(n for _, n in hist)
    # Cells fall as the score rises: walk from the highest score.
    seen, median = 0, None
    for s, n in sorted(hist, reverse=True):
        seen += n
        if median is None and seen * 2 >= total:
            median = 4 * depth - 10 * s
    fewest = 4 * depth - 10 * max(s for s, _ in hist)
    print(f"{depth:5}  {median:6}  {fewest:6}  {d['best_score']:10}  {d['best_cost']:9.3f}  {d.get('common_ancestor', '')}")
if last:
    print(f"last depth {last['depth']}, kept {last['kept']}")
