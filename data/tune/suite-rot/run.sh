#!/bin/sh
# The shipped net's output layer tuned by CMA-ES on survival in the steady state: the fitness is the mean pieces
# survived from the 177 positions of data/strength/suite-unsampled.json (the 302, 289 and 232 games; none of the
# 3,711 record's), at width 100 with the lookahead. Then both the best evaluation and CMA-ES's mean are judged
# where nothing was tuned: the 3,711 record's suite at the suite's width (300), paired with rotated.nnue's report,
# and the tuned positions at width 300. Run from the project root; a kill is safe (run again: the tuner resumes
# from its log). About 90 minutes on 2 threads for the tuner, 7 for the judging.
set -e
B=${B:-target/release/hatetris}
T=${THREADS:-2}
D=runs/tune-suite-rot
O=data/tune/suite-rot
$B tune $D --net data/nets/rotated.f32 --quiescent --suite data/strength/suite-unsampled.json --width 100 \
  --budget 240 --threads $T -q
cp $D/tune.json $D/evaluations.jsonl $D/best.json $D/fitness.svg $O/
for n in best mean; do
  [ -s $O/$n-suite-3711.txt ] || $B bench strength --suite data/strength/suite-3711.json --net $D/$n.nnue --quiescent \
    --threads $T > $O/$n-suite-3711.txt
  python3 scripts/paired-suite.py data/train/wy/gen-013-suite-3711.txt $O/$n-suite-3711.txt
done
[ -s $O/suite-unsampled-w300.txt ] || $B bench strength --suite data/strength/suite-unsampled.json \
  --net data/nets/rotated.nnue --quiescent --net $D/best.nnue --quiescent --net $D/mean.nnue --quiescent \
  --threads $T > $O/suite-unsampled-w300.txt
cat $O/suite-unsampled-w300.txt
