#!/bin/sh
# Samples from finished width-100,000 games in the steady state, labelled with their reach there, added to
# learn-18-reach's generation-4 data and fitted (data/train/README.md, "Samples from the gate's wide games").
# Needs the eight games' run folders under runs/ (learn-18-reach's generation-3 and -4 gate games and the two
# width-95,000 games of data/train/gate-noise/run.sh); on another machine play them again first (each is
# deterministic: `hatetris train` and `sh data/train/gate-noise/run.sh` make them) and the generation-4 data
# (`sh data/train/learn-18-reach/run.sh` to generation 4). Run from the project root.
set -e
B=${B:-target/release/hatetris}
L=runs/learn-18-reach
W=runs/wide-samples
mkdir -p $W
cargo build --release --example wide_samples
# Four wells a depth from the family the beam went on with, four from all its wells (17,586 in all).
target/release/examples/wide_samples $W/samples.bin $W/reach.bin 4 \
  $L/gen-003/wide-100000-from-300 $L/gen-003/wide-100000-from-500 $L/gen-003/wide-100000-from-700 \
  $L/gen-004/wide-100000-from-300 $L/gen-004/wide-100000-from-500 $L/gen-004/wide-100000-from-700 \
  runs/noise-reach-95000 runs/noise-gen3-95000
cd runs
# wt: the new samples alone, their targets made by the trainer (200-wide training beams, as the run's own).
[ -d wt ] || timeout -s INT 10 ../$B train wt --fork learn-18-reach --at 4 --redo targets --generations 5 --threads 2 || true
if [ ! -f wt/gen-004/targets.bin ]; then
  cp wide-samples/samples.bin wide-samples/reach.bin wt/gen-004/ && rm -f wt/gen-004/*partial*
fi
[ -f wt/gen-004/net.f32 ] || timeout -s INT 420 ../$B train wt --generations 5 --threads 2 || true
# wr: generation 4's own data and the new samples together.
if [ ! -d wr ]; then
  timeout -s INT 60 ../$B train wr --fork learn-18-reach --at 4 --redo fit --generations 5 --threads 2 || true
  for f in samples targets died far reach; do
    python3 ../data/train/wide-samples/concat.py wr/gen-004/$f.bin learn-18-reach/gen-004/$f.bin wt/gen-004/$f.bin
  done
  rm -f wr/gen-004/net.f32 wr/gen-004/net.nnue wr/gen-004/fit.json
fi
[ -f wr/gen-004/net.f32 ] || timeout -s INT 120 ../$B train wr --generations 5 --threads 2 || true
# (each trainer stopped at its gate: the nets are measured by compare.sh instead.)
# h100: generation 4's data alone, the reach term's horizon 100 pieces instead of 25 (the comparison's fourth net).
[ -f h100/gen-004/net.f32 ] || timeout -s INT 120 ../$B train h100 --fork learn-18-reach --at 4 --redo fit \
  --reach-horizon 100 --generations 5 --threads 1 || true
