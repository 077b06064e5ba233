#!/bin/sh
# wu: wl from generation 7 on, with fresh wide games at every gate and fits that read only games their champion has
# not: every gate plays its width-10,000 games, a rejected candidate's too (--gate-wide-always), and a generation's
# wide samples leave out the games its champion's own samples came from (--wide-unread). wl's generation 7, fitted
# from generation 6 on gate 6's games and gate 5's (already in generation 6's samples), lost the gate's positions by
# 7.5 ± 1.9 pieces a start, and without a candidate that wins, wl's gates played no fresh games.
# The master beams (--samples 0: a figure alone, no samples) at width 10,000 instead of 100,000: a new champion's
# game from the empty well at the width-10,000 goal in minutes rather than an hour or two.
# Made with: hatetris train runs/wu --fork runs/wl --at 7 --redo samples --wide-unread --gate-wide-always \
#   --width 10000 --generations 14 --threads 1
# On another machine: mkdir -p runs && cp -r data/train/wu runs/ && cp data/nets/wide.f32 runs/wu/from.f32 &&
# cp data/nets/steady.f32 runs/wu/gen-006/net.f32 && cp data/nets/steady.nnue runs/wu/gen-006/net.nnue first.
# Run from the project root.
set -e
B=${B:-target/release/hatetris}
if [ ! -d runs/wu ]; then
  $B train runs/wu --fork runs/wl --at 7 --redo samples --wide-unread --gate-wide-always --width 10000 \
    --generations 14 --threads "${THREADS:-1}"
else
  $B train runs/wu --generations 14 --threads "${THREADS:-1}"
fi
