#!/usr/bin/env bash
# Checks that replay gives the program the descriptor numbers it got when
# recorded, whatever descriptors the replayer itself holds: a recording whose
# program inherited a pipe as fd 3 (so its first open returned 4), and one
# whose program ran with stdin closed (its first open returned 0), each pass
# `slsdbg replay --check` with every boundary crossed by execution, with the
# replayer started with a normal stdin and no fd 3.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_fd_numbers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
check() {  # check NAME: the recording $tmp/NAME replays to its end
  local out rc cps want
  out=$(timeout 300 "$SLSDBG" replay "$tmp/$1" --check 2>&1 </dev/null 3>&-); rc=$?
  [ "$rc" -eq 0 ] || fail "$1: --check exit $rc: $out"
  cps=$(sed -n 's/^OK: \([0-9]*\) checkpoints.*/\1/p' <<<"$out")
  want=$(python3 "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$tmp/$1" --max-forced 0) || fail "$1: $want"
  [[ -n "$cps" && "$out" == *"$want"* ]] || fail "$1: $out (want $want)"
  echo "$1: $out"
}

mkdir -p "$tmp/files1" "$tmp/files2"
# A pipe as fd 3: the fixture's files become fd 4 and up.
"$SLSDBG" record -o "$tmp/pipe3" -- "$PROGRAMS/rec_fileio" "$tmp/files1" >"$tmp/pipe3.out" 2>"$tmp/pipe3.err" 3< <(echo held) ||
  fail "recording with a pipe as fd 3: $(cat "$tmp/pipe3.err")"
# The program saw the pipe: its first open got fd 4.
"$SLSDBG" info "$tmp/pipe3" --json >/dev/null || fail "info"
check pipe3

# stdin closed: the fixture's first open returns 0.
"$SLSDBG" record -o "$tmp/nostdin" -- "$PROGRAMS/rec_fileio" "$tmp/files2" >"$tmp/nostdin.out" 2>"$tmp/nostdin.err" <&- ||
  fail "recording with stdin closed: $(cat "$tmp/nostdin.err")"
check nostdin
echo "replay_fd_numbers: OK"
