#!/bin/sh
# learn-12 (data/train/README.md): learn-11's settings from wide.f32 (its generation 5) with ten times the
# samples. Run from anywhere: it trains in runs/learn-12 under the repository root (run again after a kill: it
# goes on; GENS=N for N generations).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$root/runs" && cd "$root/runs"
B=${B:-../target/release/hatetris}
if [ -f learn-12/train.json ]; then
    exec "$B" train learn-12 --generations "${GENS:-1}" --threads 2
fi
"$B" train learn-12 --from ../data/nets/wide.f32 --generations "${GENS:-1}" \
  --width 100000 --quiescent --gate-wide 100000 --samples 60000 --start-samples 60000 --beam-width 200 \
  --beam-pieces 10 --graded-from 5 --window 1 --rank-weight 10 --average-fits 8 --gate-every 5 --threads 2
