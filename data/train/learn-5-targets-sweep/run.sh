#!/usr/bin/env bash
# Targets sweep: learn-5's generation 2 (the master beam of its champion, generation 1: 74 lines), a window of one
# generation, its targets made again with other training-beam or sampling settings (the samples drawn again for
# "resample"), fitted and gated against generation 1. Run from a folder beside ../learn-5 (here runs/tsweep), with
# B a release build of the commit named in data/train/README.md.
cd "$(dirname "$0")"
B=${B:-../hatetris-tsweep}
variant() { name=$1; keep_targets=$2; shift 2
  [ -f $name/gen-002/gate.json ] && return
  rm -rf $name; mkdir $name
  cp ../learn-5/train.json ../learn-5/gate-start.json ../learn-5/from.f32 $name/
  for g in 0 1 2; do cp -r ../learn-5/gen-00$g $name/; done
  rm -f $name/gen-002/{fit.json,net.f32,net.nnue,gate.json,generation.json,rescale.json}
  if [ "$keep_targets" = no ]; then rm -f $name/gen-002/{targets.bin,died.bin}; fi; if [ "$keep_targets" = resample ]; then rm -f $name/gen-002/{targets.bin,died.bin,samples.bin}; fi
  python3 - "$name/train.json" "$@" <<'PY'
import json, sys
p = sys.argv[1]; c = json.load(open(p))
for kv in sys.argv[2:]:
    k, v = kv.split("=")
    *path, last = k.split(".")
    node = c
    for part in path:
        node = node[part]
    node[last] = float(v) if "." in v or "e" in v else int(v)
json.dump(c, open(p, "w"), indent=2)
PY
  start=$(date +%s)
  nice -n 10 $B train $name --generations 3 --threads 2 --quiet > $name.out 2> $name.err &
  pid=$!
  while [ ! -f $name/gen-002/gate.json ] && kill -0 $pid 2>/dev/null; do sleep 5; done
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  python3 -c "
import json; d=json.load(open('$name/gen-002/gate.json')); f=json.load(open('$name/gen-002/fit.json'))
print('$name', round(d['candidate']['pieces_mean'],2), round(d['champion_figures']['pieces_mean'],2), [round(x,2) for x in d['pieces_difference']], d['kept'], len(f['epochs']), '$(( $(date +%s) - start ))s')" >> results.txt
}
variant base-w1 yes learning.window=1
variant p40-w1 no learning.window=1 beam.pieces=40 learning.graded_from=20
variant bw400-w1 no learning.window=1 beam.width=400
variant p10-w1 no learning.window=1 beam.pieces=10 learning.graded_from=5
variant ss5-w1 resample learning.window=1 learning.start_every=5
variant ss5mix-w1 resample learning.window=1 learning.start_every=5 samples=3000 learning.start_samples=9000
variant p10x2-w1 resample learning.window=1 beam.pieces=10 learning.graded_from=5 samples=12000 learning.start_samples=12000
# Then with `hatetris train --fork` (commit 9662f03 for --beam-lookahead):
one() { name=$1; shift
  [ -f $name/gen-002/gate.json ] || nice -n 10 $B train $name "$@" --generations 3 --threads 2 --quiet > $name.out 2> $name.err
  python3 -c "
import json; d=json.load(open('$name/gen-002/gate.json')); f=json.load(open('$name/gen-002/fit.json'))
print('$name', round(d['candidate']['pieces_mean'],2), round(d['champion_figures']['pieces_mean'],2), [round(x,2) for x in d['pieces_difference']], d['kept'], len(f['epochs']))" >> results.txt
}
one p10-w3 --fork p10-w1 --at 2 --redo fit --window 3
one p10-lr1e-4 --fork p10-w1 --at 2 --redo fit --learning-rate 0.0001
one p10ss5 --fork ss5-w1 --at 2 --redo targets --beam-pieces 10 --graded-from 5
one p10ss5mix --fork ss5mix-w1 --at 2 --redo targets --beam-pieces 10 --graded-from 5
one p10la --fork p10-w1 --at 2 --redo targets --beam-lookahead
