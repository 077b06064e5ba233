#!/bin/sh
# wy: wv from generation 12's fit on, its gate's steady-state positions taking turns over the 366 and 289 records
# (--gate-rotate dnf-366,knewjade-289), the champion measured afresh on each: wl's generation 6 was kept on +16.9
# pieces a position of the 366 record, and its successors lost there (wu 8: -0.5 ± 2.2; wv 9: -5.7 ± 1.9) while
# level or ahead on the 3,711 record's suite (+2.1 ± 2.3, +0.4 ± 2.1), a winner's curse the rotation avoids:
# each gate judges on the game that did not keep the champion. With --gate-wide-slack 22 the wide games (three at width
# 10,000, whose sum has a standard error of about 22 lines) veto a candidate the positions keep only when it falls
# short by more: wv's generations 10 and 11 won the positions and lost their games by 16 and 37 lines.
# Made with: hatetris train runs/wy --fork runs/wv --at 12 --redo fit --gate-rotate dnf-366,knewjade-289 --gate-wide-slack 22 --generations 16 --threads 2
# (generations 12-15), then gone on with --generations 24.
# On another machine: mkdir -p runs && cp -r data/train/wy runs/ && cp data/nets/wide.f32 runs/wy/from.f32 &&
# cp data/nets/steady.f32 runs/wy/gen-006/net.f32 && cp data/nets/steady.nnue runs/wy/gen-006/net.nnue &&
# cp data/nets/rotated.f32 runs/wy/gen-013/net.f32 && cp data/nets/rotated.nnue runs/wy/gen-013/net.nnue first.
# Run from the project root.
set -e
B=${B:-target/release/hatetris}
if [ ! -d runs/wy ]; then
  [ -d runs/wv ] || { echo "wy forks wv: sh data/train/wv/run.sh first (or cp -r data/train/wv runs/)" >&2; exit 1; }
  $B train runs/wy --fork runs/wv --at 12 --redo fit --gate-rotate dnf-366,knewjade-289 --gate-wide-slack 22 --generations 24 --threads "${THREADS:-1}"
else
  $B train runs/wy --generations 24 --threads "${THREADS:-1}"
fi
