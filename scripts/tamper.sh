#!/usr/bin/env bash
# Swapped, foreign, corrupt, truncated and missing depth files, through the
# command line: found before any depth is searched.
#
#   scripts/tamper.sh          (run from the repository; HATETRIS=path/to/hatetris to pick the binary)
#
# A finished run of 40 depths is copied and one file tampered with per case:
# an older depth's file copied over a newer one, another run's file of the
# same depth and width (other --weights, or --quiescent) copied in, a byte
# flipped, a file truncated, a file deleted. Then:
# - `hatetris verify` must exit 1 with a problem naming the file (its name,
#   or "depth N:"); for the root, which a resume rewrites, exit 0 with a note
#   naming it;
# - `--resume --max-depth 45` must either fail before searching (exit 1, one
#   line naming the file, no new depth file, manifest.json unchanged), or,
#   for the newest 2 depths only (39 and 40: a resume starts from one of the
#   3 newest depths, which keep a history snapshot), fall back and finish identical to a clean run to 45 (every depth
#   file, and the final --json line's score, depth and replay).
# The root (depth 0) depends on the settings alone: a missing or damaged root
# is rewritten by a resume, so those cases may also finish identically.
set -euo pipefail

HATETRIS=${HATETRIS:-target/release/hatetris}
WEIGHTS=${WEIGHTS:-data/weights/dnf-86.toml}
WIDTH=500
DEPTH=40
MORE=45

[[ -x $HATETRIS ]] || { echo "tamper: no binary at $HATETRIS (build it, or set HATETRIS)" >&2; exit 2; }
[[ -f $WEIGHTS ]] || { echo "tamper: no weights file at $WEIGHTS (run from the repository, or set WEIGHTS)" >&2; exit 2; }
HATETRIS=$(realpath "$HATETRIS")

work=$(mktemp -d /tmp/tamper.XXXXXX)
trap 'rm -rf "$work"' EXIT

search() { # search DEPTH --out|--resume DIR [more flags]
  local depth=$1
  shift
  "$HATETRIS" search --quiet --json --threads 1 --width "$WIDTH" --max-depth "$depth" "$@"
}
final_json() { tail -n 1 "$1" | jq -c 'del(.out)'; }
name() { printf 'depth-%05d.beam' "$1"; }

# The run, a clean run to 45, and two other runs of the same width.
search "$DEPTH" --out "$work/run" >/dev/null
search "$MORE" --out "$work/clean" >"$work/clean.out"
want_json=$(final_json "$work/clean.out")
(cd "$work/clean" && ls depth-*.beam) >"$work/clean.files"
sed -E 's/^holes = .*/holes = 12.5/' "$WEIGHTS" >"$work/other.toml"
search "$DEPTH" --weights "$work/other.toml" --out "$work/weights" >/dev/null
search "$DEPTH" --quiescent --out "$work/quiescent" >/dev/null
echo "runs: $WIDTH wide, $DEPTH depths; a clean run to $MORE: $want_json" | cut -c1-150

# flip FILE OFFSET: one byte XOR 0x10 (OFFSET < 0: from the end).
flip() {
  local file=$1 off=$2 size byte
  size=$(stat -c %s "$file")
  ((off < 0)) && off=$((size + off))
  byte=$(od -An -tu1 -j "$off" -N1 "$file" | tr -d ' ')
  printf '%b' "\\x$(printf '%02x' $((byte ^ 16)))" | dd of="$file" bs=1 seek="$off" conv=notrunc status=none
}

rows=() n=0 refused=0 fell_back=0 failed=0 verified=0 failures=()

# case D DESCRIPTION COMMAND...: tamper with a copy of the run (COMMAND runs
# in the copy's folder), then check verify and a resume. D is the depth of the
# file tampered with.
case_() {
  local d=$1 what=$2
  shift 2
  local dir=$work/case$n file rc=0 result vresult manifest_sum
  n=$((n + 1))
  file=$(name "$d")
  rm -rf "$dir"
  cp -r "$work/run" "$dir"
  (cd "$dir" && "$@")
  manifest_sum=$(cksum <"$dir/manifest.json")
  # verify: exit 1, a problem naming the file.
  if [[ $d -eq 0 ]]; then
    if "$HATETRIS" verify "$dir" >"$work/verify.out" 2>&1 && grep -q '^note: the root depth file' "$work/verify.out"; then
      vresult="notes it"
      verified=$((verified + 1))
    else
      vresult="FAIL: $(grep -m1 '^problem:' "$work/verify.out" || head -c 150 "$work/verify.out")"
    fi
  elif "$HATETRIS" verify "$dir" >"$work/verify.out" 2>&1; then
    vresult="FAIL: exit 0"
  elif grep '^problem:' "$work/verify.out" | grep -Eq "$file|depth ${d}[:']"; then
    vresult="names it"
    verified=$((verified + 1))
  else
    vresult="FAIL: $(grep -m1 '^problem:' "$work/verify.out" || head -c 150 "$work/verify.out")"
  fi
  # The resume to a greater depth.
  search "$MORE" --resume "$dir" >"$work/resume.out" 2>"$work/resume.err" || rc=$?
  if [[ $rc -eq 1 ]]; then
    local new
    new=$(compgen -G "$dir/depth-0004[1-9].beam" || true)
    if [[ $(wc -l <"$work/resume.err") -ne 1 ]]; then
      result="FAIL: refused with $(wc -l <"$work/resume.err") lines: $(head -c 200 "$work/resume.err" | tr '\n' '|')"
    elif ! grep -q "$file" "$work/resume.err"; then
      result="FAIL: refused without naming $file: $(cat "$work/resume.err")"
    elif [[ -n $new ]]; then
      result="FAIL: refused after writing $new"
    elif [[ $(cksum <"$dir/manifest.json") != "$manifest_sum" ]]; then
      result="FAIL: refused, but manifest.json changed"
    else
      result="refused: $(sed -E 's/^hatetris: cannot resume [^:]*: //' "$work/resume.err" | cut -c1-90)"
      refused=$((refused + 1))
    fi
  elif [[ $rc -eq 0 ]]; then
    local why="" f
    if ((d < DEPTH - 2 && d != 0)); then
      why="it resumed over a depth below the newest 3"
    elif ! (cd "$dir" && ls depth-*.beam) | cmp -s - "$work/clean.files"; then
      why="depth files differ in number"
    else
      while read -r f; do
        cmp -s "$dir/$f" "$work/clean/$f" || { why="$f differs from a clean run's"; break; }
      done <"$work/clean.files"
    fi
    if [[ -z $why && $(final_json "$work/resume.out") != "$want_json" ]]; then why="final JSON line differs"; fi
    if [[ -z $why ]] && ! "$HATETRIS" verify "$dir" >/dev/null 2>&1; then why="verify fails after"; fi
    if [[ -n $why ]]; then
      result="FAIL: resumed, and $why"
    else
      if ((d == 0)); then
        result="root rewritten, identical to a clean run to $MORE"
      else
        result="fell back, identical to a clean run to $MORE"
      fi
      fell_back=$((fell_back + 1))
    fi
  else
    result="FAIL: exit $rc: $(head -c 200 "$work/resume.err")"
  fi
  if [[ $result == FAIL* || $vresult == FAIL* ]]; then
    failed=$((failed + 1))
    failures+=("$what: verify $vresult; resume $result (reproduce: a run --width $WIDTH --max-depth $DEPTH --threads 1, then in its folder: $*, then hatetris search --resume DIR --max-depth $MORE with the same flags)")
  fi
  rows+=("$(printf '%-44s %-16s %s' "$what" "verify $vresult" "$result")")
  rm -rf "$dir"
}

# An older depth's file over a newer one.
for p in "3 5" "9 10" "19 20" "25 30" "36 37" "37 38" "38 39" "39 40" "35 40"; do
  read -r old new <<<"$p"
  case_ "$new" "$(name "$old") over $(name "$new")" cp "$(name "$old")" "$(name "$new")"
done
# Another run's file of the same depth and width.
for d in 0 1 12 25 37 39 40; do
  case_ "$d" "other --weights' $(name "$d")" cp "$work/weights/$(name "$d")" "$(name "$d")"
done
for d in 15 38; do
  case_ "$d" "--quiescent run's $(name "$d")" cp "$work/quiescent/$(name "$d")" "$(name "$d")"
done
# A byte flipped in a middle file: the header (depth, run, previous), a
# block, the index, the footer; and in the newest and the root.
for off in 12 16 24 40 -80 -20 -4; do
  case_ 20 "byte $off of $(name 20) flipped" flip "$(name 20)" "$off"
done
case_ 40 "byte 40 of $(name 40) flipped" flip "$(name 40)" 40
case_ 0 "byte 40 of $(name 0) flipped" flip "$(name 0)" 40
# A middle file truncated.
for len in 0 31 100 -1; do
  if ((len < 0)); then
    case_ 20 "$(name 20) less its last byte" truncate -s -1 "$(name 20)"
  else
    case_ 20 "$(name 20) truncated to $len bytes" truncate -s "$len" "$(name 20)"
  fi
done
# A file deleted.
for d in 1 20 37 39 0; do
  case_ "$d" "$(name "$d") deleted" rm "$(name "$d")"
done

printf '%-44s %-16s %s\n' case verify "resume --max-depth $MORE"
printf '%s\n' "${rows[@]}"
if [[ ${#failures[@]} -gt 0 ]]; then printf '%s\n' "${failures[@]}"; fi
echo "tamper: $((n - failed)) of $n cases ok ($refused refused before searching, $fell_back fell back to the same result; verify named the file in $verified of $n)"
[[ $failed -eq 0 ]]
