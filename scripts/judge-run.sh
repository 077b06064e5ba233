#!/usr/bin/env bash
# Judges a training run's candidates where the trainer never looks: the
# 3,711-line record's 161 positions (data/strength/suite-3711.json), each
# generation's net beside a reference net (the shipped one by default), in
# one `bench strength` call so that every difference is paired.
#
#   scripts/judge-run.sh TRAINING_DIR [FIRST_GENERATION]
#
# Prints bench strength's table (and writes it to TRAINING_DIR/suite-3711.txt
# through a temporary name). Settings from the environment: REFERENCE
# (default data/nets/ranked.nnue), SUITE (default data/strength/suite-3711.json),
# HATETRIS (default target/release/hatetris), THREADS (default 2).
set -euo pipefail
dir=${1:?usage: scripts/judge-run.sh TRAINING_DIR [FIRST_GENERATION]}
first=${2:-0}
[ -f "$dir/train.json" ] || { echo "judge-run.sh: $dir is not a training folder (no train.json)" >&2; exit 2; }
bin=${HATETRIS:-target/release/hatetris}
args=(--suite "${SUITE:-data/strength/suite-3711.json}" --net "${REFERENCE:-data/nets/ranked.nnue}" --quiescent)
for gen in "$dir"/gen-*/; do
    g=$((10#$(basename "$gen" | cut -d- -f2)))
    net="${gen%/}/net.nnue"
    [ "$g" -ge "$first" ] && [ -f "$net" ] && args+=(--net "$net" --quiescent)
done
[ ${#args[@]} -gt 5 ] || { echo "judge-run.sh: no generation's net in $dir from generation $first" >&2; exit 2; }
"$bin" bench strength "${args[@]}" --threads "${THREADS:-2}" > "$dir/suite-3711.txt.tmp"
mv "$dir/suite-3711.txt.tmp" "$dir/suite-3711.txt"
cat "$dir/suite-3711.txt"
