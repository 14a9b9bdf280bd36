#!/usr/bin/env bash
# Every command that takes a recording (bisect and pack too) accepts a path, `latest` or a name
# under $SLSDBG_DIR; `slsdbg replay` alone opens the latest; `info` says how
# the program ended in words and `ls` names a crash; an unknown name is a one-line error, exit 1.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-names.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export SLSDBG_DIR="$WORK/root"
failures=0
check() {  # check WHAT EXPECTED-RC CMD...: runs CMD, compares its exit code
  local what=$1 want=$2; shift 2
  "$@" >"$WORK/out" 2>"$WORK/err"; local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $what: exit $rc, wanted $want"; cat "$WORK/err"; failures=$((failures + 1))
  fi
}

"$SLSDBG" record -- sh -c 'exit 3' 2>/dev/null
[ $? = 3 ] || { echo "FAIL record: exit status not passed through"; failures=$((failures + 1)); }
name=$(basename "$(readlink -f "$SLSDBG_DIR/latest")")

for rec in latest "$name" "$SLSDBG_DIR/$name"; do
  check "info $rec" 0 "$SLSDBG" info "$rec"
  grep -q '^exit  *exited 3$' "$WORK/out" || { echo "FAIL info $rec: no 'exited 3'"; cat "$WORK/out"; failures=$((failures + 1)); }
  check "backtrace $rec" 0 "$SLSDBG" backtrace "$rec" --last
  check "dump $rec" 0 "$SLSDBG" dump "$rec" --last -o "$WORK/core"
  check "replay $rec --check" 0 "$SLSDBG" replay "$rec" --check
  # A command that judges every probed point bad: exit 3 (already bad at the first).
  check "bisect $rec" 3 "$SLSDBG" bisect "$rec" --cmd 'exit 1' --no-refine --spot-checks 0
done
check "replay alone" 0 "$SLSDBG" replay --check
grep -q '^OK' "$WORK/out" || { echo "FAIL replay alone: no OK"; failures=$((failures + 1)); }

for cmd in info "backtrace --last" "dump --last" "replay --check" "restore --at 0" "bisect --cmd true" pack; do
  set -- $cmd
  check "$1 unknown name" 1 "$SLSDBG" "$1" no-such-recording "${@:2}"
  [ "$(wc -l <"$WORK/err")" = 1 ] && grep -q "no-such-recording" "$WORK/err" ||
    { echo "FAIL $1 unknown name: not a one-line error naming it"; cat "$WORK/err"; failures=$((failures + 1)); }
done

# A crash: info says "killed by SIGSEGV", ls "crashed (SIGSEGV)", not "finished".
"$SLSDBG" record -o "$SLSDBG_DIR/segv" -- sh -c 'kill -SEGV $$' 2>/dev/null
check "info segv" 0 "$SLSDBG" info segv
grep -q '^exit  *killed by SIGSEGV$' "$WORK/out" || { echo "FAIL info segv"; cat "$WORK/out"; failures=$((failures + 1)); }
check "ls" 0 "$SLSDBG" ls
grep -q '^segv .*crashed (SIGSEGV)' "$WORK/out" && grep -q "^$name .*finished" "$WORK/out" ||
  { echo "FAIL ls states"; cat "$WORK/out"; failures=$((failures + 1)); }

[ "$failures" = 0 ] && echo "all recording-name checks passed"
exit $((failures > 0))
