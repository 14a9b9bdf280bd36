# Shared by e2e_replay_threads_real and e2e_replay_threads_node (sourced, not
# a test): records a real threaded program, checks its output against WANT,
# that it ran threads, and that `replay --check` is OK to the process's end.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_threads_real.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check() {  # check NAME WANT [RECORD_OPTION...] -- CMD...: output WANT, replay --check OK
  local name=$1 want=$2 opts=() out
  shift 2
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  out=$("$@" 2>&1 </dev/null) || fail "$name: native run failed: $out"
  [ "$out" = "$want" ] || fail "$name: native run printed '$out'"
  timeout 120 "$SLSDBG" record --threads "${opts[@]}" -o "$tmp/$name" -- "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null ||
    fail "$name: record: $(cat "$tmp/$name.err")"
  [ "$(cat "$tmp/$name.out")" = "$want" ] || fail "$name: recorded run printed '$(cat "$tmp/$name.out")'"
  grep -qE "the program ran ([2-9]|[1-9][0-9]+) threads" "$tmp/$name.err" || fail "$name: ran no thread: $(cat "$tmp/$name.err")"
  ! grep -q "both run program code" "$tmp/$name.err" || fail "$name: $(cat "$tmp/$name.err")"
  out=$(timeout 300 "$SLSDBG" replay "$tmp/$name" --check 2>&1 </dev/null) || fail "$name: replay --check: $out"
  grep -q "^OK: [0-9]* checkpoints, [1-9][0-9]* boundaries crossed by execution" <<<"$out" || fail "$name: replay --check: $out"
  grep -q "^history ends when the process ends" <<<"$out" || fail "$name: history does not end with the exit: $out"
  echo "$name: $(grep -o 'ran [0-9]* threads' "$tmp/$name.err"); $(head -1 <<<"$out")"
}

