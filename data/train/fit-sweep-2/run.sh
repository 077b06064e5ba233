#!/usr/bin/env bash
# One fit redone eight ways (data/train/README.md, "One fit redone eight ways"): forks of learn-5's generation 2
# (through the targets sweep's p10-w1 and p40-w1) and of learn-9's generation 3, each gated against the champion
# that made its data. Run from a folder beside ../learn-9 and ../tsweep (here runs/; the variants were run in
# runs/l9x, runs/rv, runs/p40r and runs/soup with these same commands), B a release build of commit 485cf01 or later
# (--rank-validation came in b7535c7, --average-fits in 485cf01).
cd "$(dirname "$0")"
B=${B:-../target/release/hatetris}
one() { name=$1; at=$2; shift 2
  [ -f $name/gen-00$at/gate.json ] || nice -n 5 $B train $name "$@" --at $at --generations $((at+1)) --threads 2 --quiet > $name.out 2> $name.err
  python3 -c "
import json; d=json.load(open('$name/gen-00$at/gate.json')); f=json.load(open('$name/gen-00$at/fit.json'))
print('$name', round(d['candidate']['pieces_mean'],2), round(d['champion_figures']['pieces_mean'],2), [round(x,2) for x in d['pieces_difference']], d['kept'], len(f['epochs'])-1, f.get('averaged_validation_loss'))" >> results.txt
}
one rank20 3 --fork learn-9 --redo fit --rank-weight 20
one x2 3 --fork learn-9 --redo samples --samples 12000 --start-samples 12000
one l9g3-rv 3 --fork learn-9 --redo fit --rank-validation
one l9g3-avg8 3 --fork learn-9 --redo fit --average-fits 8
one p10-rank10-rv 2 --fork tsweep/p10-w1 --redo fit --rank-weight 10 --rank-validation
one p10-rank10-avg8 2 --fork tsweep/p10-w1 --redo fit --rank-weight 10 --average-fits 8
one p40-rank10 2 --fork tsweep/p40-w1 --redo fit --rank-weight 10
one p40-rank10-rv 2 --fork tsweep/p40-w1 --redo fit --rank-weight 10 --rank-validation
