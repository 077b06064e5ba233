#!/bin/sh
# learn-18-w128 (data/train/README.md, "Does a wider net help?"): learn-18's generation 0 fitted again with 128
# hidden units (`--widen 128`: the champion's 64 units kept, 64 fresh ones that weigh nothing until the fit moves
# them), the same samples, targets, split and seed. Searching with a 128-unit net needs the build of
# data/train/ensemble/hidden-128.patch (this build stops at 64), so B names that build's binary, for example:
#   git worktree add --detach ../h128 HEAD && (cd ../h128 && git apply data/train/ensemble/hidden-128.patch &&
#   cargo build --release --bin hatetris)
#   B=$PWD/../h128/target/release/hatetris sh data/train/learn-18/widen-128.sh
# Needs runs/learn-18 up to generation 0's targets.
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:?the binary of the 128-unit build (see above)}
exec "$B" train learn-18-w128 --fork learn-18 --at 0 --redo fit --widen 128 --generations "${GENS:-1}" --threads 2
