#!/bin/sh
# The ensemble's width-100,000 game from the 366-line record's well at piece AT (data/train/README.md, "Two nets
# side by side"): sh data/train/ensemble/run.sh AT [THREADS]. It needs the build that allows 128 hidden units, in
# its own target folder so that the usual build stays as it is (the script makes it once):
#   cargo build --release --features hidden-128 --target-dir target/hidden-128 --bin hatetris --examples
# The net is `wide.nnue`'s and learn-17 generation 1's side by side; run again after a kill and the game goes on
# (runs/steady-AT-ens-wide-l17g1).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
at=${1:?the start piece}; threads=${2:-2}
cargo build --release --features hidden-128 --target-dir target/hidden-128 --bin hatetris --examples
mkdir -p runs/ens
[ -f runs/ens/wide-l17g1.nnue ] || target/hidden-128/release/examples/average_nets --ensemble runs/ens/wide-l17g1 \
  data/nets/wide.f32 data/train/learn-17/gen-001/net.f32
B=target/hidden-128/release/hatetris sh data/train/steady-300/run.sh ens-wide-l17g1 runs/ens/wide-l17g1.nnue \
  "$threads" "$at"
