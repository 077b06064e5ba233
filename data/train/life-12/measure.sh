#!/bin/sh
# life-12's candidate judged apart from the trainer (data/train/README.md, "life-12"): the record's suite at width
# 300, paired against learn-12's generation-0 candidate (the same samples and 10-piece targets, without the life
# term) and wide.nnue (the champion). Needs runs/life-12 and runs/learn-12 (their run.sh). Writes
# data/train/life-12/suite-3711.txt.
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
B=${B:-target/release/hatetris}
NET=${NET:-runs/life-12/gen-000/net.nnue}
OUT=${OUT:-data/train/life-12/suite-3711.txt}
"$B" bench strength --suite data/strength/suite-3711.json --net "$NET" --quiescent \
  --net runs/learn-12/gen-000/net.nnue --quiescent --net data/nets/wide.nnue --quiescent --threads 2 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
