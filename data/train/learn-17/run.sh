#!/bin/sh
# learn-17 (data/train/README.md): learn-16 (half steps, the life term, far targets) with training beams five times as wide
# (--beam-width 1000) on a fifth of the samples (--samples 12000 --start-samples 12000), so that the targets cost
# about the same. The 200-wide training beams lose ground as they go (their best value at piece 20 is about 0.8
# standard deviations of the piece-10 values below their best at piece 10; learn-16's far values), so their targets
# may say how a narrow beam copes, while the gate judges wide beams: untested until this run. Generation 0 and the
# start net's width-100,000 games are learn-14's
# (the fork copies them); generation 1's samples are drawn again. Needs runs/learn-14 up to generation 1's master
# beam. Run from anywhere; run again after a kill: it goes on (GENS=N for N generations).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:-../target/release/hatetris}
exec "$B" train learn-17 --fork learn-14 --at 1 --redo samples --beam-width 1000 --samples 12000 \
  --start-samples 12000 --blend 0.5 --far-share 0.5 --generations "${GENS:-8}" --threads 2
