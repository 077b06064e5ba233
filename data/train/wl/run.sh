#!/bin/sh
# wl: ws's loop from generation 6 on, its gate's wide games at width 10,000 instead of 100,000: three of seven starts
# of the 366 record (250 to 850 every 100) a gate, in turn, both nets (--gate-wide-rotate 3), so a gate's wide games
# cost minutes instead of hours on 2 cores and every gate is a fresh draw. Each generation's samples are drawn from
# the last two gates' wide games alone (ws's --wide-samples 4 --samples 0 --start-samples 0, kept): generation 7 on
# from the width-10,000 games. The fork keeps ws's generation 6 samples and targets (drawn from generations 4 and
# 5's width-100,000 games).
# Made with: hatetris train runs/wl --fork runs/ws --at 6 --redo fit --gate-wide 10000 \
#   --gate-wide-from 250,350,450,550,650,750,850 --gate-wide-rotate 3 --generations 14 --threads 2
# On another machine: mkdir -p runs && cp -r data/train/wl runs/ && cp data/nets/wide.f32 runs/wl/from.f32 first.
# Run from the project root.
set -e
B=${B:-target/release/hatetris}
if [ ! -d runs/wl ]; then
  $B train runs/wl --fork runs/ws --at 6 --redo fit --gate-wide 10000 \
    --gate-wide-from 250,350,450,550,650,750,850 --gate-wide-rotate 3 --generations 14 --threads "${THREADS:-2}"
else
  $B train runs/wl --generations 14 --threads "${THREADS:-2}"
fi
