#!/usr/bin/env bash
# Assembles tests/data/echo.s with cc65's ca65/ld65 (Debian package cc65) and
# checks the result against the committed tests/data/echo.nes. The tests use
# the committed bytes, so they need no assembler; run this after editing
# echo.s, with --update to overwrite echo.nes.
set -euo pipefail
cd "$(dirname "$0")/../tests/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ca65 echo.s -o "$tmp/echo.o"
ld65 -C echo.cfg "$tmp/echo.o" -o "$tmp/echo.nes"
if [ "${1:-}" = "--update" ]; then
    cp "$tmp/echo.nes" echo.nes
    echo "echo.nes updated"
elif cmp -s "$tmp/echo.nes" echo.nes; then
    echo "echo.nes matches echo.s"
else
    echo "echo.nes differs from what echo.s assembles to (run with --update)" >&2
    exit 1
fi
