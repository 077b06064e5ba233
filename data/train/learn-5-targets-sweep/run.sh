#!/usr/bin/env bash
# Targets sweep: learn-5's generation 2 (the master beam of its champion, generation 1: 74 lines) made again with
# other settings, each fitted and gated against generation 1. Run in a folder beside ../learn-5 (here runs/tsweep),
# with B a release build of commit 4f04e8d or later. The first seven variants were made by hand before --fork
# existed (the folder copied, train.json edited, the later files removed); --fork does the same (its base-w1 gave
# the same net.f32 byte for byte), and is written here for all of them.
cd "$(dirname "$0")"
B=${B:-../hatetris-tsweep4}
one() { name=$1; shift
  [ -f $name/gen-002/gate.json ] || nice -n 10 $B train $name "$@" --generations 3 --threads 2 --quiet > $name.out 2> $name.err
  python3 -c "
import json; d=json.load(open('$name/gen-002/gate.json')); f=json.load(open('$name/gen-002/fit.json'))
print('$name', round(d['candidate']['pieces_mean'],2), round(d['champion_figures']['pieces_mean'],2), [round(x,2) for x in d['pieces_difference']], d['kept'], len(f['epochs']))" >> results.txt
}
L5=../learn-5
one base-w1 --fork $L5 --at 2 --redo fit --window 1
one p40-w1 --fork $L5 --at 2 --redo targets --window 1 --beam-pieces 40 --graded-from 20
one bw400-w1 --fork $L5 --at 2 --redo targets --window 1 --beam-width 400
one p10-w1 --fork $L5 --at 2 --redo targets --window 1 --beam-pieces 10 --graded-from 5
one ss5-w1 --fork $L5 --at 2 --redo samples --window 1 --start-every 5
one ss5mix-w1 --fork $L5 --at 2 --redo samples --window 1 --start-every 5 --samples 3000 --start-samples 9000
one p10x2-w1 --fork $L5 --at 2 --redo samples --window 1 --beam-pieces 10 --graded-from 5 --samples 12000 --start-samples 12000
one p10-w3 --fork p10-w1 --at 2 --redo fit --window 3
one p10-lr1e-4 --fork p10-w1 --at 2 --redo fit --learning-rate 0.0001
one p10ss5 --fork ss5-w1 --at 2 --redo targets --beam-pieces 10 --graded-from 5
one p10ss5mix --fork ss5mix-w1 --at 2 --redo targets --beam-pieces 10 --graded-from 5
one p10la --fork p10-w1 --at 2 --redo targets --beam-lookahead
one p10la-rank1 --fork p10la --at 2 --redo fit --rank-weight 1
one p10la-rank0.3 --fork p10la --at 2 --redo fit --rank-weight 0.3
one p10la-rank3 --fork p10la --at 2 --redo fit --rank-weight 3
one p10la-rank10 --fork p10la --at 2 --redo fit --rank-weight 10
one p10-rank10 --fork p10-w1 --at 2 --redo fit --rank-weight 10
one p10la-rank30 --fork p10la --at 2 --redo fit --rank-weight 30
