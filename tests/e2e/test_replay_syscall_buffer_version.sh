#!/usr/bin/env bash
# Checks that a recording made with the syscall buffer stores its stub's
# version, and that replay refuses, in one line and with a nonzero exit, a
# recording whose stub is another version (replay runs this build's stub
# under the recorded patched sites: engine/replay/sysbuf_version.h):
#  1. `info --json` names the version (summary key syscall_buffer_stub);
#     `replay --check` says OK.
#  2. The version altered to 999: `replay --check` and `replay --at 1` refuse,
#     naming both versions.
#  3. The version removed (as in a recording made before it was stored):
#     refused too, since its events come from the stub.
source "$(dirname "$0")/record_lib.sh"
mkdir -p "$WORK/on"
"$SLSDBG" record -o "$WORK/a.rec" --syscall-buffer -- "$PROGRAMS/rec_sysbuf" "$WORK/on" 20 100 noalarm \
  >"$WORK/a.out" 2>"$WORK/a.err" || die "record failed: $(tail -3 "$WORK/a.err")"
version=$("$SLSDBG" info "$WORK/a.rec" --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["syscall_buffer"])')
[[ "$version" =~ ^[1-9][0-9]*$ ]] || die "info --json syscall_buffer is '$version'"
out=$(timeout 120 "$SLSDBG" replay "$WORK/a.rec" --check 2>&1) || die "replay --check: $out"
[[ "$out" == OK:* ]] || die "replay --check: $out"
echo "stub version $version; replay: $out"

expect_refusal() {  # expect_refusal REC WANT_SUBSTRING ARGS...
  local rec=$1 want=$2; shift 2
  local err rc
  err=$(timeout 120 "$SLSDBG" replay "$rec" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -ne 0 ] || die "replay $* of $rec: exit 0"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || die "replay $*: not one line: $err"
  [[ "$err" == *"$want"* ]] || die "replay $*: '$err' does not say '$want'"
  echo "refused: $err"
}
cp -r "$WORK/a.rec" "$WORK/b.rec"
sqlite3 "$WORK/b.rec/catalog.db" "UPDATE meta SET value = 999 WHERE key = 'summary.syscall_buffer_stub'" || die "sqlite3 failed"
expect_refusal "$WORK/b.rec" "stub is version 999; this slsdbg replays version $version only" --check
expect_refusal "$WORK/b.rec" "stub is version 999" --at 1 --print-regs
cp -r "$WORK/a.rec" "$WORK/c.rec"
sqlite3 "$WORK/c.rec/catalog.db" "DELETE FROM meta WHERE key = 'summary.syscall_buffer_stub'" || die "sqlite3 failed"
expect_refusal "$WORK/c.rec" "older syscall buffer stub" --check
echo "test_replay_syscall_buffer_version: OK"
