#!/bin/sh
# life-12 (data/train/README.md): learn-12's generation 0 with its targets made again with the life term: each
# training beam that survives its 10 pieces goes on to piece 20, and the fit lowers the target of one that dies by
# then (weight 1 standard deviation for a death at piece 11, falling to 0.1 at piece 20). Needs runs/learn-12
# (data/train/learn-12/run.sh). Run again after a kill: it goes on.
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:-../target/release/hatetris}
exec "$B" train life-12 --fork learn-12 --at 0 --redo targets --life-pieces 20 --generations 1 --threads 2
