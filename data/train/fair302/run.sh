#!/bin/sh
# fair302: fair-w's settings with the roles of two games swapped, to test whether a new source of samples moves the
# candidates (data/train/README.md, "One generation's fit swept under the fair gate"): the wide games start from the
# 302 record's wells (pieces 200 to 680; fair-w: the 366 record's, 250 to 850), and the gate judges the steady states
# of the 366, 289 and 232 games every 10 pieces from 100 (fair-w: 302, 289, 232). From rotated.nnue, as fair.
# Generation 0 samples 6,000 wells of its master beam (a fresh folder has no gates' games yet), as fair's did; the
# folder fair302-w then forks it at generation 1 with --samples 0, so its fits read the wide games alone, as fair-w.
# Run from the project root; THREADS (default 1), GENS (default 8).
set -e
B=${B:-target/release/hatetris}
T=${THREADS:-1}
if [ ! -d runs/fair302-w ]; then
  if [ -d data/train/fair302-w/gen-000 ]; then
    scripts/restore-train.sh data/train/fair302-w runs/fair302-w
  else
    if [ ! -f runs/fair302/train.json ]; then
      mkdir -p runs/fair302
      python3 - <<'PY'
import json
t = json.load(open('data/train/fair/train.json'))
gate = t['learning']['gate']
game = lambda name, path: {'name': name, 'replay': open(path).read().strip()}
assert gate['wide_game']['name'] == 'dnf-366' and gate['games'][0]['name'] == 'dnf-302'
gate['wide_game'], gate['games'][0] = gate['games'][0], gate['wide_game']
gate['wide_from'] = [200, 280, 360, 440, 520, 600, 680]
assert [g['name'] for g in gate['games']] == ['dnf-366', 'knewjade-289', 'tim-232']
json.dump(t, open('runs/fair302/train.json.tmp', 'w'), indent=2)
PY
      mv runs/fair302/train.json.tmp runs/fair302/train.json
    fi
    [ -f runs/fair302/from.f32 ] || cp data/nets/rotated.f32 runs/fair302/from.f32
    $B train runs/fair302 --generations 1 --threads "$T"
    $B train runs/fair302-w --fork runs/fair302 --at 1 --redo samples --samples 0 --generations 2 --threads "$T"
  fi
fi
exec $B train runs/fair302-w --generations "${GENS:-8}" --threads "$T"
