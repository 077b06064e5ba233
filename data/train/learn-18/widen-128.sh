#!/bin/sh
# learn-18-w128 (data/train/README.md, "Does a wider net help?"): learn-18's generation 0 fitted again with 128
# hidden units (`--widen 128`: the champion's 64 units kept, 64 fresh ones that weigh nothing until the fit moves
# them), the same samples, targets, split and seed. Searching with a 128-unit net needs the build with the feature
# hidden-128 (the usual build stops at 64), in its own target folder so that the usual build stays as it is; the
# script makes it once (or B names another such binary). Needs runs/learn-18 up to generation 0's targets. Its
# gate copies the start net's wide games that learn-18 has ended rather than playing them again, so run it after
# learn-18's gate has played the champion's games (`hatetris status runs/learn-18` lists them).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
if [ -z "$B" ]; then
  cargo build --release --features hidden-128 --target-dir target/hidden-128 --bin hatetris
  B=$root/target/hidden-128/release/hatetris
fi
cd runs
exec "$B" train learn-18-w128 --fork learn-18 --at 0 --redo fit --widen 128 --generations "${GENS:-1}" --threads 2
