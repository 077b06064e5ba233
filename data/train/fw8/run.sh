#!/bin/sh
# fw8: fair-w (data/train/fair-w/run.sh) forked at generation 11's samples with --wide-gates 8, a window of twice
# the gates (data/train/README.md, "One generation's fit swept under the fair gate"). Only generations 11 and 12's
# figures are kept here (gen-NNN/), not a snapshot: the fork is made again from fair-w's snapshot, seeded, to the
# same files (about 10 minutes a generation on 2 threads).
set -e
B=${B:-target/release/hatetris}
[ -d runs/fair-w ] || scripts/restore-train.sh data/train/fair-w runs/fair-w
exec $B train runs/fw8 --fork runs/fair-w --at 11 --redo samples --wide-gates 8 --generations "${GENS:-16}" --threads "${THREADS:-1}"
