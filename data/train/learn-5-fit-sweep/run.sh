#!/usr/bin/env bash
# Refit learn-5's generation 4 (window: generations 1-4) with other fit settings, then gate it.
cd /work/main/runs/sweep
B=../hatetris-learn5
variant() { name=$1; shift
  [ -f $name/gen-004/gate.json ] && return
  rm -rf $name; mkdir $name
  cp ../learn-5/train.json ../learn-5/gate-start.json ../learn-5/from.f32 $name/
  for g in 0 1 2 3 4; do cp -r ../learn-5/gen-00$g $name/; done
  rm -f $name/gen-004/{fit.json,net.f32,net.nnue,gate.json,generation.json}
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
  nice -n 19 $B train $name --generations 5 --threads 1 --quiet > $name.out 2> $name.err &
  pid=$!
  while [ ! -f $name/gen-004/gate.json ] && kill -0 $pid 2>/dev/null; do sleep 5; done
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  python3 -c "
import json; d=json.load(open('$name/gen-004/gate.json')); f=json.load(open('$name/gen-004/fit.json'))
print('$name', round(d['candidate']['pieces_mean'],2), round(d['champion_figures']['pieces_mean'],2), [round(x,2) for x in d['pieces_difference']], d['kept'], len(f['epochs']))" >> results.txt
}
variant lr3e-4 fit.learning_rate=0.0003
variant lr1e-4 fit.learning_rate=0.0001
variant b1024 fit.batch=1024
variant wd1e-2 fit.weight_decay=0.01
variant lost-8 lost_value=-8.0
variant lost-2 lost_value=-2.0
variant graded5 learning.graded_from=5
