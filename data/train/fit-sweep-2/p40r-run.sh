#!/usr/bin/env bash
# 40-piece training beams (deaths graded from piece 20), fitted with the ranking term: the sweep's p40-w1 data
# (learn-5's generation 2) fitted again, gated against learn-5's champion. Run from runs/p40r.
cd "$(dirname "$0")"
B=${B:-../hatetris-rv}
one() { name=$1; at=$2; shift 2
  [ -f $name/gen-00$at/gate.json ] || nice -n 5 $B train $name "$@" --at $at --generations $((at+1)) --threads 2 --quiet > $name.out 2> $name.err
  python3 -c "
import json; d=json.load(open('$name/gen-00$at/gate.json')); f=json.load(open('$name/gen-00$at/fit.json'))
print('$name', round(d['candidate']['pieces_mean'],2), round(d['champion_figures']['pieces_mean'],2), [round(x,2) for x in d['pieces_difference']], d['kept'], len(f['epochs'])-1)" >> results.txt
}
one p40-rank10 2 --fork ../tsweep/p40-w1 --redo fit --rank-weight 10
one p40-rank10-rv 2 --fork ../tsweep/p40-w1 --redo fit --rank-weight 10 --rank-validation
