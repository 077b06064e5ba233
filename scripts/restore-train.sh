#!/usr/bin/env bash
# Makes a training folder that goes on from a snapshot of one (scripts/snapshot-train.sh): copies SNAPSHOT to DEST
# and puts back the shipped nets the snapshot left out, as its shipped.txt lists them ("FILE data/nets/NAME" a line;
# snapshots made before that file name them in data/train/README.md's table instead). Then `hatetris train DEST`
# goes on where the snapshot was taken (src/train/mod.rs, "Resuming").
#
#   scripts/restore-train.sh data/train/fair runs/fair
#
# Run from the project root. DEST must not exist.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/restore-train.sh SNAPSHOT DEST" >&2; exit 2; }
snap=$1 dest=$2
[ -f "$snap/train.json" ] || { echo "restore-train.sh: $snap is not a training folder's snapshot (no train.json)" >&2; exit 2; }
[ -e "$dest" ] && { echo "restore-train.sh: $dest already exists; restore into a new folder" >&2; exit 2; }
if [ -f "$snap/shipped.txt" ]; then
    while read -r file net; do
        [ -f "$net" ] || { echo "restore-train.sh: $snap/shipped.txt names $net, which is not here" >&2; exit 2; }
    done < "$snap/shipped.txt"
fi
mkdir -p "$(dirname "$dest")"
cp -r "$snap" "$dest.tmp"
if [ -f "$snap/shipped.txt" ]; then
    while read -r file net; do
        mkdir -p "$(dirname "$dest.tmp/$file")"
        cp "$net" "$dest.tmp/$file"
    done < "$snap/shipped.txt"
fi
mv "$dest.tmp" "$dest"
echo "restored $snap into $dest: hatetris train $dest goes on"
