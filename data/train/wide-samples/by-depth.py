# Best score at every 20th depth of several runs side by side, from their logs:
#   python3 data/train/wide-samples/by-depth.py NAME=RUN_DIR NAME=RUN_DIR ...
# (the first run sets the depths shown: every 20th up to its last, and its last).
import json, sys

def best_scores(run):
    out = {}
    for line in open(run + "/log.jsonl"):
        r = json.loads(line)
        if "depth" in r and "best_score" in r:
            out[r["depth"]] = r["best_score"]
    return out

runs = [a.split("=", 1) for a in sys.argv[1:]]
logs = {name: best_scores(run) for name, run in runs}
first = logs[runs[0][0]]
start, last = min(first), max(first)
for d in list(range(start - start % 20 + 20, last + 1, 20)) + [last]:
    print(d, *(f"{name}:{logs[name].get(d, '-')}" for name, _ in runs))
