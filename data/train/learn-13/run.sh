#!/bin/sh
# learn-13 (data/train/README.md): learn-12's settings and its generation 0's data, with the gate's width-100,000
# games started from the 366-line record's wells at pieces 300, 500 and 700 (with its history) instead of the
# empty well. Needs runs/learn-12 (data/train/learn-12/run.sh). Run from anywhere; run again after a kill: it goes
# on (GENS=N for N generations).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:-../target/release/hatetris}
exec "$B" train learn-13 --fork learn-12 --at 0 --redo fit --gate-wide-from 300,500,700 \
  --generations "${GENS:-8}" --threads 2
