#!/bin/sh
# wx: does more wide data make a better net? wt's recipe (learn-18-reach's generation 4 forked, its samples replaced
# by the draw from finished width-100,000 games, targets by the trainer) on twelve games instead of eight: wt's eight,
# and the four played since by the wide-sample nets (wt from 300 and 500, ws's generation 5 from 300 and 500).
# Needs those games' run folders under runs/ (see data/train/wide-samples/run.sh and data/train/ws/run.sh).
# Run from the project root; THREADS (1 by default) sets the threads of every step.
set -e
B=${B:-target/release/hatetris}
T=${THREADS:-1}
L=runs/learn-18-reach
W=runs/wx-data
mkdir -p $W
cargo build --release --example wide_samples
if [ ! -f $W/reach.bin ]; then
  RAYON_NUM_THREADS=$T target/release/examples/wide_samples $W/samples.bin $W/reach.bin 4 \
    $L/gen-003/wide-100000-from-300 $L/gen-003/wide-100000-from-500 $L/gen-003/wide-100000-from-700 \
    $L/gen-004/wide-100000-from-300 $L/gen-004/wide-100000-from-500 $L/gen-004/wide-100000-from-700 \
    runs/noise-reach-95000 runs/noise-gen3-95000 \
    runs/noise-wt-100000 runs/wt-100000-from-500 \
    runs/ws/gen-005/wide-100000-from-300 runs/ws/gen-005/wide-100000-from-500
fi
cd runs
[ -d wx ] || timeout -s INT 10 ../$B train wx --fork learn-18-reach --at 4 --redo targets --generations 5 --threads $T || true
if [ ! -f wx/gen-004/targets.bin ] && [ ! -f wx/gen-004/samples.bin.copied ]; then
  cp wx-data/samples.bin wx-data/reach.bin wx/gen-004/ && rm -f wx/gen-004/*partial* && touch wx/gen-004/samples.bin.copied
fi
# The trainer stops at its gate: the net is measured by the suite instead.
[ -f wx/gen-004/net.f32 ] || timeout -s INT 3000 ../$B train wx --generations 5 --threads $T || true
