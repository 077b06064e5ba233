#!/bin/sh
# fair-w: fair (data/train/fair/run.sh) from generation 1's samples on without the master beam's wells
# (--samples 0): its fits read the gate's wide games alone, as wz's did. fair's generation 0, fitted on 6,000
# master-beam wells alone, lost its gate by 6.8 ± 2.1 pieces a position, and its generation 1 (those wells and the
# wide games') by 2.6 ± 2.5; this fork's generation 1, on the same wide games alone, by 1.2 ± 1.8.
# Made with: hatetris train runs/fair-w --fork runs/fair --at 1 --redo samples --samples 0 --generations 2 --threads 1
# Run from the project root. On another machine: scripts/restore-train.sh data/train/fair-w runs/fair-w first (the
# snapshot holds the fork's small files), then this goes on.
set -e
B=${B:-target/release/hatetris}
if [ ! -d runs/fair-w ]; then
  if [ -d data/train/fair-w/gen-000 ]; then
    scripts/restore-train.sh data/train/fair-w runs/fair-w
  else
    [ -d runs/fair ] || scripts/restore-train.sh data/train/fair runs/fair
    $B train runs/fair-w --fork runs/fair --at 1 --redo samples --samples 0 --generations 2 --threads "${THREADS:-1}"
  fi
fi
exec $B train runs/fair-w --generations "${GENS:-8}" --threads "${THREADS:-1}"
