#!/usr/bin/env bash
# A replay killed by SIGTERM, SIGINT or SIGHUP leaves nothing in its private
# TMPDIR and dies of that signal (exit 128+N): `replay --server unix:PATH`
# removes its socket; `replay -- GDB-ARGS` removes /tmp/slsdbg-replay.*
# (GDB's socket and setup script) and ends its GDB.
. "$(dirname "$0")/replay_gdb_lib.sh"
set -m  # background jobs keep SIGINT (a non-interactive shell would ignore it for them)
prog=$PROGRAMS/crash_uaf
rec=$WORK/uaf.rec
"$SLSDBG" record -o "$rec" -- "$prog" >/dev/null 2>"$WORK/rec.err"
[ $? -eq 139 ] || { cat "$WORK/rec.err"; die "recording crash_uaf failed"; }

# wait_for TEST...: polls for up to 60 s.
wait_for() {
  for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done
  return 1
}

for sig in TERM INT HUP; do
  tmp=$WORK/tmp-server-$sig
  mkdir -m 700 "$tmp"
  TMPDIR=$tmp "$SLSDBG" replay "$rec" --server "unix:$tmp/replay.sock" >"$WORK/server-$sig.out" 2>&1 &
  pid=$!
  bg_pids+=("$pid")
  wait_for grep -q '^listening on' "$WORK/server-$sig.out" || { cat "$WORK/server-$sig.out"; die "replay --server did not listen"; }
  [ -S "$tmp/replay.sock" ] || die "no socket at $tmp/replay.sock"
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$((128 + $(kill -l "$sig")))
  [ "$rc" -eq "$want" ] || { cat "$WORK/server-$sig.out"; die "replay --server killed by SIG$sig exited $rc, expected $want"; }
  left=$(ls -A "$tmp")
  [ -z "$left" ] || die "SIG$sig left in TMPDIR: $left"
done

# GDB mode: GDB reads commands from a pipe that stays open, so it waits.
for sig in TERM HUP; do
  tmp=$WORK/tmp-gdb-$sig
  mkdir -m 700 "$tmp"
  sleep 120 | TMPDIR=$tmp "$SLSDBG" replay "$rec" -- -nx >"$WORK/gdb-$sig.out" 2>&1 &
  pid=$(jobs -p %%)  # the job's first process: the sleep
  wait_for compgen -G "$tmp/slsdbg-replay.*/gdb.sock" >/dev/null || die "no slsdbg-replay.* directory with GDB's socket"
  spid=$(pgrep -f "^$SLSDBG replay $rec -- -nx" | head -1)
  [ -n "$spid" ] || die "cannot find the slsdbg process"
  gpid=$(pgrep -P "$spid" gdb | head -1)
  [ -n "$gpid" ] || die "cannot find its gdb"
  wait_for grep -q '_start\|in ' "$WORK/gdb-$sig.out" || { cat "$WORK/gdb-$sig.out"; die "gdb did not connect"; }
  kill -s "$sig" "$spid"
  wait_for sh -c "! kill -0 $spid 2>/dev/null" || die "slsdbg did not end on SIG$sig"
  wait_for sh -c "! kill -0 $gpid 2>/dev/null" || die "its gdb did not end on SIG$sig"
  kill "$pid" 2>/dev/null  # the sleep feeding the pipe
  wait %%
  rc=$?  # the pipeline's status: slsdbg's
  want=$((128 + $(kill -l "$sig")))
  [ "$rc" -eq "$want" ] || { cat "$WORK/gdb-$sig.out"; die "replay with GDB killed by SIG$sig exited $rc, expected $want"; }
  left=$(ls -A "$tmp")
  [ -z "$left" ] || die "SIG$sig in GDB mode left in TMPDIR: $left"
done
echo "replay_signal_cleanup: OK"
