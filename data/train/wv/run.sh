#!/bin/sh
# wv: wu from generation 9 on, its wide samples drawn from the last four gates' games instead of two
# (--wide-gates 4): wu's candidates came closer to the champion as their samples grew (5,238 samples from six games:
# -2.6 ± 1.9 pieces a gate position; 14,952 from twelve: -0.5 ± 2.2), so the draw keeps more of the fresh games that
# --gate-wide-always gives every gate (generation 9: 16 games, 20,036 samples).
# Made with: hatetris train runs/wv --fork runs/wu --at 9 --redo samples --wide-gates 4 --generations 14 --threads 1
# On another machine: mkdir -p runs && cp -r data/train/wv runs/ && cp data/nets/wide.f32 runs/wv/from.f32 &&
# cp data/nets/steady.f32 runs/wv/gen-006/net.f32 && cp data/nets/steady.nnue runs/wv/gen-006/net.nnue first.
# Run from the project root.
set -e
B=${B:-target/release/hatetris}
if [ ! -d runs/wv ]; then
  [ -d runs/wu ] || { echo "wv forks wu: sh data/train/wu/run.sh first (or cp -r data/train/wu runs/)" >&2; exit 1; }
  $B train runs/wv --fork runs/wu --at 9 --redo samples --wide-gates 4 --generations 14 --threads "${THREADS:-1}"
else
  $B train runs/wv --generations 14 --threads "${THREADS:-1}"
fi
