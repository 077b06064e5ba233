#!/usr/bin/env bash
# Attempts on the record's ending with one net: searches --from the
# 3,711-line record at several start pieces and widths, with the lookahead,
# into RUNS/rec-NAME-PIECE-wWIDTH (the names `scripts/record-attempts.py`
# summarises). A run folder that exists is resumed, one whose beam died is
# left as it is, so the script goes on where a kill left it.
#
#   scripts/attempts.sh RUNS NAME NET.nnue
#
# Settings from the environment: STARTS (default "9000 8500 8000"), WIDTHS
# (default "10000 100000"; every start at the first width, then the next),
# THREADS (default 1), HATETRIS (default target/release/hatetris), RECORD
# (default data/strength/judging-only/dnf-3711.txt), LINEAGE (a lineage cap
# BACK:MOST for `search --lineage-cap`; default none). Each run's output
# goes to RUNS/rec-NAME-PIECE-wWIDTH.out and .err.
set -euo pipefail
if [ $# -ne 3 ]; then
    echo "usage: scripts/attempts.sh RUNS NAME NET.nnue" >&2
    exit 2
fi
runs=$1 name=$2 net=$3
[[ $name =~ ^[a-z][a-z0-9]*$ ]] || { echo "attempts.sh: NAME must be lower-case letters and digits, starting with a letter, got '$name'" >&2; exit 2; }
[ -f "$net" ] || { echo "attempts.sh: no net file '$net'" >&2; exit 2; }
bin=${HATETRIS:-target/release/hatetris}
record=${RECORD:-data/strength/judging-only/dnf-3711.txt}
[ -f "$record" ] || { echo "attempts.sh: no record file '$record'" >&2; exit 2; }
mkdir -p "$runs"
for w in ${WIDTHS:-10000 100000}; do
    for at in ${STARTS:-9000 8500 8000}; do
        dir="$runs/rec-$name-$at-w$w"
        if [ -f "$dir/manifest.json" ]; then
            grep -q '"exhausted": *true' "$dir/manifest.json" && continue
            args=(--resume "$dir")
        else
            rm -rf "$dir"
            args=(--from "@$record" --at "$at" --net "$net" --quiescent --width "$w" --out "$dir")
            if [ -n "${LINEAGE:-}" ]; then args+=(--lineage-cap "$LINEAGE"); fi
        fi
        "$bin" search "${args[@]}" --threads "${THREADS:-1}" > "$dir.out" 2> "$dir.err"
    done
done
