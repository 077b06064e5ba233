#!/bin/sh
# ws: learn-18-reach's generation 5 again, its samples drawn by the trainer from the last two gates' wide games alone
# (--wide-samples 4 --samples 0 --start-samples 0): the trainer's own form of wt (data/train/README.md, "The wide
# samples in the trainer"), then the loop goes on to 8 generations, each drawing from its last two gates' games.
# Made with: hatetris train runs/ws --fork runs/learn-18-reach --at 5 --redo samples --wide-samples 4 --samples 0 \
#   --start-samples 0 --generations 8 --threads 1
# On another machine: mkdir -p runs && cp -r data/train/ws runs/ && cp data/nets/wide.f32 runs/ws/from.f32 first.
# Run from the project root.
set -e
B=${B:-target/release/hatetris}
if [ ! -d runs/ws ]; then
  $B train runs/ws --fork runs/learn-18-reach --at 5 --redo samples --wide-samples 4 --samples 0 \
    --start-samples 0 --generations 8 --threads "${THREADS:-2}"
else
  $B train runs/ws --generations 8 --threads "${THREADS:-2}"
fi
