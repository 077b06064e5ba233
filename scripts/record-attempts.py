#!/usr/bin/env python3
"""Summarises the record attempts (searches --from the 3,711-line game) in
RUNS/rec-AT-wWIDTH/ (the shipped net) and RUNS/rec-NET-AT-wWIDTH/ (another net, NET
a short label such as l3g5): per run, the net, the start piece, the width, the lines and piece
the beam reached, and the record's own lines at the same pieces.

The rows are merged into OUT/summary.json (data/record-attempts by default): a row of
the same net, start piece and width is replaced, every other row is kept, so summarising
one run folder never drops the attempts made elsewhere. Each finished run's best replay is
copied beside it. The summary is written to a temporary name, synced, then renamed.

    python3 scripts/record-attempts.py [RUNS_DIR] [--golden GOLDEN_JSONL] [--out OUT_DIR]
"""
import argparse, json, os, re, shutil, sys


def atomic_write(path, text):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="?", default="runs")
    p.add_argument("--golden", default="../shared/golden/replays-long.jsonl")
    p.add_argument("--out", default="data/record-attempts")
    a = p.parse_args()
    if not os.path.isdir(a.runs):
        sys.exit(f"record-attempts: no folder {a.runs}")
    record = None
    try:
        for line in open(a.golden):
            d = json.loads(line)
            if d["expected_score"] == 3711:
                record = json.loads(d["scores"]) if isinstance(d["scores"], str) else d["scores"]
    except OSError as e:
        sys.exit(f"record-attempts: cannot read {a.golden}: {e.strerror}")
    if record is None:
        sys.exit(f"record-attempts: no 3,711-line game in {a.golden}")
    os.makedirs(a.out, exist_ok=True)
    summary = os.path.join(a.out, "summary.json")
    try:
        rows = json.load(open(summary)) if os.path.isfile(summary) else []
    except ValueError as e:
        sys.exit(f"record-attempts: {summary} is not a summary ({e}); restore it with git checkout")
    key = lambda r: (r["net"], r["start_piece"], r["width"])
    by_key = {key(r): r for r in rows}
    new = []
    for name in sorted(os.listdir(a.runs)):
        m = re.fullmatch(r"rec-(?:([a-z][a-z0-9]*)-)?(\d+)-w(\d+)", name)
        if not m or not os.path.isfile(os.path.join(a.runs, name, "manifest.json")):
            continue
        net = m.group(1) or "shipped"
        at, width = int(m.group(2)), int(m.group(3))
        manifest = json.load(open(os.path.join(a.runs, name, "manifest.json")))
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
        replay = os.path.join(a.runs, name, "best-replay.txt")
        if done and os.path.isfile(replay):
            shutil.copy(replay, os.path.join(a.out, f"{name}.txt"))
            row["replay"] = f"{name}.txt"
        by_key[key(row)] = row
        new.append(row)
    merged = [by_key[k] for k in sorted(by_key)] if new else rows
    atomic_write(summary, json.dumps(merged, indent=1))
    for r in new:
        print(r)
    print(f"{len(new)} attempts from {a.runs}; {len(merged)} in {summary}", file=sys.stderr)


if __name__ == "__main__":
    main()
