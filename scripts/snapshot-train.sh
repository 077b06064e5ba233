#!/usr/bin/env bash
# Copies a training folder's small files (settings, the start net unless it is a shipped one, every generation's JSON
# figures and gate (with the positions' verdict), the log, the picture, a fork's fork.json, the champion's nets unless shipped ones, and the replays of
# the gate's wide games, but not a start net's game that a sibling folder already holds) into a
# folder under version control, so a long run's results outlive the machine
# it runs on. Usage: scripts/snapshot-train.sh runs/learn-1 data/train/learn-1
# The copy is a training folder that goes on elsewhere
# (`scripts/restore-train.sh DEST runs/NAME`, then `hatetris train runs/NAME`): a finished generation's samples,
# targets and master beam stay behind (the trainer makes them again, seeded,
# where a later generation needs them: src/train/generation.rs,
# `master_on_disk` and `window_data`); the generation in progress keeps its
# data files, so its targets (the costly step) are not made twice; a
# finished wide game of the gate keeps its record (`wide-*.json`), so it is
# not played again; the samples drawn from those games (`wide-samples.bin`,
# `wide-reach.bin`) are kept for every generation.
set -euo pipefail
src=${1:?usage: snapshot-train.sh TRAINING_DIR DEST}
dest=${2:?usage: snapshot-train.sh TRAINING_DIR DEST}
[ -f "$src/train.json" ] || { echo "snapshot-train.sh: $src is not a training folder (no train.json)" >&2; exit 2; }
mkdir -p "$dest"
for f in train.json fork.json champion.json gate-start.json log.jsonl progress.svg; do
    [ -f "$src/$f" ] && cp "$src/$f" "$dest/$f.tmp" && mv "$dest/$f.tmp" "$dest/$f"
done
# The start net, unless it is a shipped net (committed once: data/train/README.md); then it is copied back from there
# before the folder goes on.
# shipped NET: the shipped net (data/nets/*.f32) that the file NET is byte for byte, if any.
shipped() {
    for n in "$(dirname "$0")"/../data/nets/*.f32; do
        cmp -s "$1" "$n" && { echo "$n"; return 0; }
    done
    return 0
}
# note FILE NET: FILE of the folder is the shipped NET, left out: DEST/shipped.txt lists it ("FILE data/nets/NAME"), so
# that scripts/restore-train.sh puts it back.
note() {
    local line="$1 data/nets/$(basename "$2")"
    touch "$dest/shipped.txt"
    grep -qxF "$line" "$dest/shipped.txt" || echo "$line" >> "$dest/shipped.txt"
}
if [ -f "$src/from.f32" ]; then
    same=$(shipped "$src/from.f32")
    if [ -n "$same" ]; then
        note from.f32 "$same"
        echo "$dest/from.f32: the same as $same, not kept (scripts/restore-train.sh copies it back)"
    else
        cp "$src/from.f32" "$dest/from.f32.tmp" && mv "$dest/from.f32.tmp" "$dest/from.f32"
    fi
fi
for f in "$src"/start-wide-*.json; do
    [ -f "$f" ] && cp "$f" "$dest/$(basename "$f")"
done
data_files="samples.bin targets.bin died.bin far.bin reach.bin targets-partial.bin died-partial.bin far-partial.bin"
for gen in "$src"/gen-*/; do
    name=$(basename "$gen")
    mkdir -p "$dest/$name"
    for f in generation.json gate.json gate-positions.json gate-champion.json master.json fit.json rescale.json seconds.json units.json; do
        [ -f "$gen/$f" ] && cp "$gen/$f" "$dest/$name/$f"
    done
    for f in "$gen"/wide-*.json; do
        [ -f "$f" ] && cp "$f" "$dest/$name/$(basename "$f")"
    done
    # The samples drawn from the gate's wide games are kept for every generation: the games' depth files are not
    # (src/train/wide.rs).
    for f in wide-samples.bin wide-reach.bin; do
        [ -f "$gen/$f" ] && cp "$gen/$f" "$dest/$name/$f.tmp" && mv "$dest/$name/$f.tmp" "$dest/$name/$f"
    done
    # A finished generation's data files, and one the trainer has since removed (a partial file replaced by the
    # whole one), are not kept.
    for f in $data_files; do
        if [ ! -f "$gen/generation.json" ] && [ -f "$gen/$f" ]; then
            cp "$gen/$f" "$dest/$name/$f.tmp" && mv "$dest/$name/$f.tmp" "$dest/$name/$f"
        else
            rm -f "$dest/$name/$f"
        fi
    done
done
if [ -f "$src/champion.json" ]; then
    net=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["net"])' "$src/champion.json")
    dir=$(dirname "$net")
    same=$(shipped "$src/$net")
    if [ "$net" = from.f32 ]; then
        : # (the start net: above)
    elif [ -n "$same" ]; then
        # Committed once (data/train/README.md's table of missing files).
        rm -f "$dest/$net" "$dest/${net%.f32}.nnue"
        note "$net" "$same"
        [ -f "${same%.f32}.nnue" ] && note "${net%.f32}.nnue" "${same%.f32}.nnue"
        echo "$dest/$net: the champion, the same as $same, not kept (scripts/restore-train.sh copies it and its .nnue back)"
    else
        mkdir -p "$dest/$dir"
        cp "$src/$net" "$dest/$net"
        if [ -f "$src/${net%.f32}.nnue" ]; then
            cp "$src/${net%.f32}.nnue" "$dest/${net%.f32}.nnue"
        fi
    fi
fi
# The gate's wide games (--gate-wide, --gate-wide-from): each game's replay, rebuilt from its run folder once
# (it re-scores to the lines gate.json records: hatetris replay score @FILE).
hatetris=${HATETRIS:-target/release/hatetris}
for run in "$src"/start-wide-*/ "$src"/gen-*/wide-*/; do
    [ -f "$run/manifest.json" ] || continue
    # Only a finished game (its beam died): one still playing is taken by a later snapshot.
    grep -q '"exhausted": *true' "$run/manifest.json" || continue
    rel=${run#"$src"/}
    out="$dest/${rel%/}.txt"
    [ -s "$out" ] && continue
    mkdir -p "$(dirname "$out")"
    "$hatetris" keyframes "$run" > "$out.tmp" 2>/dev/null && mv "$out.tmp" "$out" || rm -f "$out.tmp"
    # A fork's start net plays the games its source's did (copied, src/train/fork.rs): the same replay in a
    # sibling folder is not kept twice.
    case $rel in
        start-wide-*)
            for other in "$(dirname "$dest")"/*/"$(basename "$out")"; do
                if [ -f "$out" ] && [ "$other" != "$out" ] && cmp -s "$other" "$out"; then
                    echo "$out: the same game as $other, not kept"
                    rm -f "$out"
                fi
            done
            ;;
    esac
done
echo "copied $src's small files to $dest"
