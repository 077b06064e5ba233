#!/bin/sh
# Is the gate's game from piece 300 noise? (data/train/README.md, "How noisy is one wide game?")
# A net's game from the 366 record's well at piece 300, with its history, at other widths than the gate's 100,000:
# sh data/train/gate-noise/run.sh NAME NET [WIDTHS] [THREADS]. Run folders runs/noise-NAME-W; run again after a kill
# and each goes on. Prints one line a width: the name, the width, the lines, the best game's piece and the last full
# depth. The reach champion (317 lines at 100,000 in its gate) is data/train/learn-18-reach/gen-000/net.nnue,
# generation 3's candidate (239) data/train/gate-noise/l18r-gen-003.nnue.
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
B=${B:-target/release/hatetris}
name=${1:?a name for the runs}; net=${2:?a .nnue net}
for w in ${3:-95000 105000}; do
  dir=runs/noise-$name-$w
  if [ -f "$dir/manifest.json" ]; then
    out=$("$B" search --resume "$dir" --threads "${4:-2}" --json -q)
  else
    out=$("$B" search --from @data/strength/dnf-366.txt --at 300 --net "$net" --quiescent --width "$w" \
      --threads "${4:-2}" --out "$dir" --json -q)
  fi
  echo "$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(*sys.argv[1:], r["score"], r["best_depth"], r["depth"])' "$name" "$w"
done
