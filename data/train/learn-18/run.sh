#!/bin/sh
# learn-18 (data/train/README.md, "Does a wider net help?"): learn-16's settings (the life term, far targets, 8
# averaged fits, ranking weight 10) at a third of the samples, from the champion `wide.f32`. Its generation 0's
# samples and targets are the data set on which a 64-unit and a 128-unit fit are compared. Run from anywhere; run
# again after a kill: it goes on (GENS=N for N generations).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:-../target/release/hatetris}
exec "$B" train learn-18 --from ../data/nets/wide.f32 --generations "${GENS:-1}" --width 100000 --quiescent \
  --gate-wide 100000 --gate-wide-from 300,500,700 --samples 20000 --start-samples 20000 --beam-width 200 \
  --beam-pieces 10 --graded-from 5 --life-pieces 20 --far-share 0.5 --window 1 --rank-weight 10 \
  --average-fits 8 --gate-every 5 --threads 2
