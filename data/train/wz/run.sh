#!/bin/sh
# wz: wy from generation 15's samples on, with a margin of one standard error at the gate (--gate-margin 1) and the
# wide samples' window reaching back past the gates a new champion read until it holds six unread games
# (--wide-unread-min 6). wy kept generation 15 on +1.5 ± 1.8 pieces a position of the 366 game, and the 3,711 suite
# puts it 2.8 ± 2.3 behind generation 13 (its master beam: 73 lines against 117); here generation 13 stays the
# champion unless a candidate clears it by a standard error. wy's generation 14 (a new champion's first successor) drew
# three games alone; the reach-back gives such a generation as many as its predecessors had. Generation 15's samples
# are drawn again the same (its six unread games reach the minimum), so its net is wy's byte for byte.
# Made with: hatetris train runs/wz --fork runs/wy --at 15 --redo samples --gate-margin 1 --wide-unread-min 6 --generations 24 --threads 1
# On another machine: sh data/train/wy/run.sh's copy steps first (runs/wy), then this.
# Run from the project root.
set -e
B=${B:-target/release/hatetris}
if [ ! -d runs/wz ]; then
  [ -d runs/wy ] || { echo "wz forks wy: see data/train/wy/run.sh" >&2; exit 1; }
  $B train runs/wz --fork runs/wy --at 15 --redo samples --gate-margin 1 --wide-unread-min 6 --generations 24 --threads "${THREADS:-1}"
else
  $B train runs/wz --generations 24 --threads "${THREADS:-1}"
fi
