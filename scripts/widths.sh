#!/usr/bin/env bash
# Searches from the empty well at several widths, for several nets: one
# width's score is noisy (a net's game at width 10,000 can move by 20 lines
# from one width to the next), so nets are compared over a spread of widths.
#
#   scripts/widths.sh OUT NAME=NET.nnue [NAME=NET.nnue ...]
#
# Appends `NAME WIDTH SCORE DEPTH` to OUT/results.txt and keeps the game's
# replay in OUT/NAME-WIDTH.txt (`hatetris replay score @OUT/NAME-WIDTH.txt`
# re-scores it); a line already there is skipped, so a killed run goes on
# when run again. Each search runs with the
# lookahead on one thread in OUT/run-NAME-WIDTH, removed once scored.
# Settings from the environment: WIDTHS (default "8000 9000 10000 11000
# 12000"), HATETRIS (default target/release/hatetris), THREADS (default 1).
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: scripts/widths.sh OUT NAME=NET.nnue [NAME=NET.nnue ...]" >&2
    exit 2
fi
out=$1
shift
bin=${HATETRIS:-target/release/hatetris}
mkdir -p "$out"
touch "$out/results.txt"
for w in ${WIDTHS:-8000 9000 10000 11000 12000}; do
    for pair in "$@"; do
        name=${pair%%=*}
        net=${pair#*=}
        if [ "$name" = "$pair" ] || [ ! -f "$net" ]; then
            echo "widths.sh: expected NAME=FILE with an existing net file, got '$pair'" >&2
            exit 2
        fi
        grep -q "^$name $w " "$out/results.txt" && continue
        run="$out/run-$name-$w"
        rm -rf "$run"
        json=$("$bin" search --net "$net" --quiescent --width "$w" --threads "${THREADS:-1}" \
            --out "$run" --json --quiet)
        line=$(printf '%s' "$json" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["score"], d["depth"])')
        cp "$run/best-replay.txt" "$out/$name-$w.txt.tmp"
        mv "$out/$name-$w.txt.tmp" "$out/$name-$w.txt"
        echo "$name $w $line" >> "$out/results.txt"
        rm -rf "$run"
    done
done
