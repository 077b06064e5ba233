#!/usr/bin/env python3
"""Summarises the record attempts (searches --from the 3,711-line game) in
runs/rec-AT-wWIDTH/ (the shipped net) and runs/rec-NET-AT-wWIDTH/ (another net, NET
a short label such as l3g5): per run, the net, the start piece, the width, the lines and piece
the beam reached, and the record's own lines at the same pieces. Writes
data/record-attempts/summary.json and copies each run's best replay beside it.

    python3 scripts/record-attempts.py [RUNS_DIR] [GOLDEN_JSONL]
"""
import json, os, re, shutil, sys

runs = sys.argv[1] if len(sys.argv) > 1 else "runs"
golden = sys.argv[2] if len(sys.argv) > 2 else "../shared/golden/replays-long.jsonl"
record = None
for line in open(golden):
    d = json.loads(line)
    if d["expected_score"] == 3711:
        record = json.loads(d["scores"]) if isinstance(d["scores"], str) else d["scores"]
out_dir = "data/record-attempts"
os.makedirs(out_dir, exist_ok=True)
rows = []
for name in sorted(os.listdir(runs)):
    m = re.fullmatch(r"rec-(?:([a-z][a-z0-9]*)-)?(\d+)-w(\d+)", name)
    if not m or not os.path.isfile(os.path.join(runs, name, "manifest.json")):
        continue
    net = m.group(1) or "shipped"
    at, width = int(m.group(2)), int(m.group(3))
    manifest = json.load(open(os.path.join(runs, name, "manifest.json")))
    best = manifest["best"]
    depth = manifest["depth"]
    done = manifest.get("exhausted", False)
    row = {
        "net": net, "start_piece": at, "width": width, "record_lines_at_start": record[at],
        "best_lines": best["score"], "best_at_piece": best["depth"],
        "record_lines_at_that_piece": record[min(best["depth"], len(record) - 1)],
        "last_depth": depth, "beam_died": done,
        "record_lines_at_last_depth": record[min(depth, len(record) - 1)],
        "record_final": record[-1], "record_pieces": len(record) - 1,
    }
    replay = os.path.join(runs, name, "best-replay.txt")
    if done and os.path.isfile(replay):
        shutil.copy(replay, os.path.join(out_dir, f"{name}.txt"))
        row["replay"] = f"{name}.txt"
    rows.append(row)
json.dump(rows, open(os.path.join(out_dir, "summary.json"), "w"), indent=1)
for r in rows:
    print(r)
