#!/usr/bin/env bash
# learn-9's generation 3 (the ranked champion's first master beam, 102 lines) redone two ways, gated against
# that champion (gen-002 = data/nets/ranked.nnue), then judged on the record's suite. Run from runs/l9x.
cd "$(dirname "$0")"
B=${B:-../hatetris-l9x}
one() { name=$1; shift
  [ -f $name/gen-003/gate.json ] || nice -n 5 $B train $name --fork ../learn-9 --at 3 "$@" --generations 4 --threads 2 --quiet > $name.out 2> $name.err
  python3 -c "
import json; d=json.load(open('$name/gen-003/gate.json')); f=json.load(open('$name/gen-003/fit.json'))
print('$name', round(d['candidate']['pieces_mean'],2), round(d['champion_figures']['pieces_mean'],2), [round(x,2) for x in d['pieces_difference']], d['kept'], len(f['epochs']))" >> results.txt
}
one rank20 --redo fit --rank-weight 20
one x2 --redo samples --samples 12000 --start-samples 12000
