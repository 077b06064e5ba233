#!/bin/sh
# Nets in pairs on the 366 record's twelve starts at width 10,000 with the lookahead (the champion's figures are
# in data/train/gate-noise/w10k-366-s12.json, the same settings): one JSON a pair.
cd "$(dirname "$0")/../../.."
for pair in wr-wt:runs/wr/gen-004/net.nnue:runs/wt/gen-004/net.nnue g4-h100:runs/learn-18-reach/gen-004/net.nnue:runs/h100/gen-004/net.nnue; do
  name=${pair%%:*}; nets=${pair#*:}; a=${nets%%:*}; b=${nets#*:}
  [ -s ${OUT:-runs/wide-samples}/w10k-$name.json ] && continue
  target/release/hatetris compare --reference @data/strength/dnf-366.txt --starts 12 --width 10000 --quiescent \
    --threads 2 --json --net "$a" --net "$b" > ${OUT:-runs/wide-samples}/w10k-$name.json.tmp 2> ${OUT:-runs/wide-samples}/w10k-$name.err &&
  mv ${OUT:-runs/wide-samples}/w10k-$name.json.tmp ${OUT:-runs/wide-samples}/w10k-$name.json
done
