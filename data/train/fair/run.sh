#!/bin/sh
# fair: the shipped net (rotated.nnue) trained under wz's settings, with a gate that judges only where no sample
# comes from: the steady states of dnf-302, knewjade-289 and tim-232, every 10 pieces from piece 100 (wz: the 366
# game every 5, whose wells its wide games start from; data/train/README.md, "The gate judged where its samples come
# from"), its standard error over blocks of 50 pieces, a margin of one such error. The wide games still start from
# the 366 game's wells (learning.gate.wide_game). A fresh folder has no gates' games to draw wide samples from yet,
# so each generation also samples 6,000 wells of its master beam (wz: none).
#
# train.json is data/train/wz/train.json with those changes (made below); the same settings from the command line
# are wz's flags (data/train/wz/run.sh and the lineage's forks) with
#   --gate-games dnf-302,knewjade-289,tim-232 --gate-every 10 --gate-block 50 --samples 6000 and no --gate-rotate.
# Run from the project root; THREADS (default 1) and GENS (default 8).
set -e
B=${B:-target/release/hatetris}
if [ ! -f runs/fair/train.json ]; then
  mkdir -p runs/fair
  python3 - <<'PY'
import json
t = json.load(open('data/train/wz/train.json'))
gate = t['learning']['gate']
game = lambda name, path: {'name': name, 'replay': open(path).read().strip()}
gate['wide_game'] = gate['games'][0]
assert gate['wide_game']['name'] == 'dnf-366'
gate['games'] = [game('dnf-302', 'data/strength/dnf-302.txt'),
                 game('knewjade-289', 'data/train/openings/knewjade-289.txt'),
                 game('tim-232', 'data/train/openings/tim-232.txt')]
gate['every'] = 10
gate['block'] = 50
gate.pop('rotate', None)
t['samples'] = 6000
json.dump(t, open('runs/fair/train.json.tmp', 'w'), indent=2)
PY
  mv runs/fair/train.json.tmp runs/fair/train.json
fi
[ -f runs/fair/from.f32 ] || cp data/nets/rotated.f32 runs/fair/from.f32
exec "$B" train runs/fair --generations "${GENS:-8}" --threads "${THREADS:-1}"
