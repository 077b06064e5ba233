#!/bin/sh
# learn-18-reach (data/train/README.md, "learn-18-reach"): learn-18's generation 0 fitted again with the reach term
# (`--reach-share 1 --reach-horizon 25`), kept by the gate, and then the learning loop under learn-18's settings with
# the term, from that champion: the issue's 8-generation run (GENS=N for N generations in all; 8 by default). Run from
# anywhere; run again after a kill: it goes on. On a new machine, go on from the committed copy of its small files:
# `mkdir -p runs && cp -r data/train/learn-18-reach runs/ && cp data/nets/wide.f32 runs/learn-18-reach/from.f32`
# first (the trainer plays the champion's master beam again where a step reads it, about 40 minutes on 2 threads,
# and holds it against gen-001/master.json). Commit its progress with
# `scripts/snapshot-train.sh runs/learn-18-reach data/train/learn-18-reach`.
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:-../target/release/hatetris}
if [ -f learn-18-reach/train.json ]; then
  exec "$B" train learn-18-reach --generations "${GENS:-8}" --threads "${THREADS:-2}"
fi
exec "$B" train learn-18-reach --fork learn-18 --at 0 --redo fit --reach-share 1 --reach-horizon 25 \
  --generations "${GENS:-8}" --threads "${THREADS:-2}"
