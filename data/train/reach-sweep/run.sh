#!/bin/sh
# The reach term's weight and horizon, and then the amount of data, swept on one generation: forks of fair-w at generation 10
# (26,767 wells of 19 wide games, the champion fair-w's generation 4), each judged on the fair gate's 198 positions
# and stopped there, before its wide games (a kill is safe: run again, a fork goes on where it was). fair-w's own fit
# of the same data (reach share 1, horizon 25) scored -0.2 ± 1.5 there. Run from the project root, after
# scripts/restore-train.sh data/train/fair-w runs/fair-w on a fresh machine. Results: data/train/reach-sweep/results.txt.
set -e
B=${B:-target/release/hatetris}
T=${THREADS:-2}
one() {
  name=$1; redo=$2; shift 2
  d=runs/rs-$name
  if [ ! -f $d/gen-010/gate-positions.json ]; then
    $B train $d --fork runs/fair-w --at 10 --redo $redo "$@" --generations 11 --threads $T > $d.out 2>&1 &
    pid=$!
    while kill -0 $pid 2>/dev/null && [ ! -f $d/gen-010/gate-positions.json ]; do sleep 5; done
    kill $pid 2>/dev/null || true
    wait $pid || true
  fi
  grep -q "^$name	" data/train/reach-sweep/results.txt 2>/dev/null && return 0
  python3 - "$d" "$name" "$*" >> data/train/reach-sweep/results.txt <<'PY'
import json, sys
d, name, flags = sys.argv[1:]
g = json.load(open(f"{d}/gen-010/gate-positions.json"))
f = json.load(open(f"{d}/gen-010/fit.json"))
diff = g["pieces_difference"]
print(f"{name}\t{flags}\t{g['candidate']['pieces_mean']:.2f}\t{g['champion_figures']['pieces_mean']:.2f}\t{diff[0]:+.2f} ± {diff[1]:.2f}\t{g['kept']}\t{f.get('averaged_validation_loss')}")
PY
}
one s3-k25 fit --reach-share 3
one s1-k100 fit --reach-horizon 100
one s3-k100 fit --reach-share 3 --reach-horizon 100
one s0 fit --reach-share 0
# The data instead of the reach term: four times the wells a depth of each game (81,164 wells: -5.9), then a
# quarter of them, and the same data fitted with smaller steps: does a candidate that moves less from its
# champion lose less?
one w16 samples --wide-samples 16
one w1 samples --wide-samples 1
one lr3 fit --learning-rate 0.0003
# Targets that see further: the training beams that survive their 10 pieces go on to piece 60 (fair-w: 20), and
# the life term lowers the target of one that dies by then.
one life60 targets --life-pieces 60
# Capacity: the same data fitted with 128 hidden units (the champion's 64 kept, 64 fresh ones that weigh nothing at
# the start). Needs the 128-unit build: cargo build --release --features hidden-128 --target-dir target/hidden-128,
# then B=target/hidden-128/release/hatetris sh data/train/reach-sweep/run.sh
case "$B" in *hidden-128*) one w128 fit --widen 128 ;; esac
