#!/bin/sh
# A life-weight variant of life-12 (data/train/README.md, "life-12"): its targets fitted again with --life-weight W,
# stopped once the net is written (the variants are judged on the record's suite, measure.sh, not by the gate's
# width-100,000 game). Usage: sh variant.sh W
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:-../target/release/hatetris}
W=$1
"$B" train life-12-w$W --fork life-12 --at 0 --redo fit --life-weight "$W" --generations 1 --threads 2 &
pid=$!
while [ ! -f "life-12-w$W/gen-000/net.nnue" ] && kill -0 $pid 2>/dev/null; do sleep 2; done
kill -INT $pid 2>/dev/null || true
wait $pid || true
cd "$root"
NET=runs/life-12-w$W/gen-000/net.nnue OUT=data/train/life-12/suite-3711-w$W.txt sh data/train/life-12/measure.sh
