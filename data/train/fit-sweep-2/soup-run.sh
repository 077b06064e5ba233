#!/usr/bin/env bash
# Averaged fits (--average-fits 8): one generation's fit redone, gated against the champion that made its data.
# Run from runs/soup.
cd "$(dirname "$0")"
B=${B:-../hatetris-soup}
one() { name=$1; at=$2; shift 2
  [ -f $name/gen-00$at/gate.json ] || nice -n 5 $B train $name "$@" --at $at --generations $((at+1)) --threads 2 --quiet > $name.out 2> $name.err
  python3 -c "
import json; d=json.load(open('$name/gen-00$at/gate.json')); f=json.load(open('$name/gen-00$at/fit.json'))
print('$name', round(d['candidate']['pieces_mean'],2), round(d['champion_figures']['pieces_mean'],2), [round(x,2) for x in d['pieces_difference']], d['kept'], len(f['epochs'])-1, f.get('averaged_validation_loss'))" >> results.txt
}
one p10-rank10-avg8 2 --fork ../tsweep/p10-w1 --redo fit --rank-weight 10 --average-fits 8
one l9g3-avg8 3 --fork ../learn-9 --redo fit --average-fits 8
