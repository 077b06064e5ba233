#!/usr/bin/env bash
# Each of two nets from the well at piece 200 of each one's width-100,000 game from the empty well (the game
# passes through that well, with its history), at width 100,000: which decides the game, the net or the well?
# Replays: NET-from-GAME.txt (each re-scores to its lines with `hatetris replay score`).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
B=${B:-target/release/hatetris}
declare -A game=([wide]=data/train/learn-11/gen-005/wide-100000.txt [l12g0]=data/train/learn-12/gen-000/wide-100000.txt)
declare -A net=([wide]=data/nets/wide.nnue [l12g0]=data/train/learn-12/gen-000/net.nnue)
for n in wide l12g0; do
  for g in wide l12g0; do
    out=runs/swap-$n-from-$g-200
    [ -f "$out/best-replay.txt" ] && continue
    rm -rf "$out"
    "$B" search --from @"${game[$g]}" --at 200 --net "${net[$n]}" --quiescent \
      --width 100000 --threads "${THREADS:-2}" --out "$out" --quiet
  done
done
