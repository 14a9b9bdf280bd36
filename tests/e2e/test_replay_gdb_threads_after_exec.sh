#!/usr/bin/env bash
# GDB on a threaded recording whose process exec'd first (a shell, or a
# version manager's shim, that execs the program): from a checkpoint after
# the exec, GDB must be handed the new program (qXfer:exec-file, auxv) and
# see its threads by its name. Before, the threaded target gave checkpoint
# 0's image (/bin/sh) at every checkpoint: no symbols, no breakpoint on the
# program's functions, no thread-local variables.
# From checkpoint 0 (the shell), a continue stops at the exec as it does
# live, so GDB loads the program and a pending breakpoint in it is hit; a
# reverse-continue back across the exec stops at the shell's execve as an
# exec event naming the shell (GDB reloads it), and forward again.
source "$(dirname "$0")/record_lib.sh"
timeout 60 "$SLSDBG" record -o "$WORK/rec" -- /bin/sh -c "exec '$PROGRAMS/thr_gdb'" >"$WORK/out" 2>"$WORK/record.err" </dev/null ||
  die "record failed: $(tail -3 "$WORK/record.err")"
grep -q "turns 600 total 13200" "$WORK/out" || die "recorded output: $(cat "$WORK/out")"
# The first checkpoint after the exec one.
after=$("$SLSDBG" info "$WORK/rec" --json | "$PY" -c '
import json, sys
ids = [c["id"] for c in json.load(sys.stdin)["checkpoints"] if c["reason"] == "exec"]
print(ids[0] + 1 if ids else "")')
[ -n "$after" ] || die "no exec checkpoint in the recording"
gdb_out=$(timeout 120 "$SLSDBG" replay "$WORK/rec" --at "$after" -- -nx -batch -ex 'break take_turn' -ex 'continue' \
  -ex 'info inferiors' -ex 'info threads' -ex 'print tls_id' -ex 'info proc mappings' 2>&1 </dev/null)
grep -q "hit Breakpoint 1, take_turn" <<<"$gdb_out" || die "GDB did not stop in the exec'd program's take_turn: $gdb_out"
grep -q "tests/programs/thr_gdb *\$" <<<"$(grep -A1 Executable <<<"$gdb_out")" ||
  die "GDB's executable is not the exec'd program: $gdb_out"
[ "$(grep -c '"thr_gdb"' <<<"$gdb_out")" -ge 4 ] || die "the threads are not named after the exec'd program: $gdb_out"
grep -Eq '^\$1 = (11|22|33)$' <<<"$gdb_out" || die "the thread-local tls_id was not read through the new auxv: $gdb_out"
# The moment's memory map (vFile /proc/PID/maps), not this machine's: the
# exec'd program's code and the libc it mapped.
grep -Eq 'r-xp +[^ ]*tests/programs/thr_gdb$' <<<"$gdb_out" || die "info proc mappings lacks the program's code: $gdb_out"
grep -Eq 'r-xp +[^ ]*libc\.so\.6$' <<<"$gdb_out" || die "info proc mappings lacks libc's code: $gdb_out"
echo "from checkpoint $after: $(grep 'hit Breakpoint' <<<"$gdb_out"); $(grep '^\$1' <<<"$gdb_out")"

sh=$(readlink -f /bin/sh)
gdb_out=$(timeout 300 "$SLSDBG" replay "$WORK/rec" -- -nx -batch -ex 'set breakpoint pending on' -ex 'break take_turn' \
  -ex 'continue' -ex 'print tls_id' -ex 'catch exec' -ex 'echo ---reverse\n' -ex 'reverse-continue' -ex 'bt 1' \
  -ex 'info inferiors' -ex 'echo ---forward\n' -ex 'continue' -ex 'continue' -ex 'print tls_id' 2>&1 </dev/null)
before=$(sed -n '1,/^---reverse/p' <<<"$gdb_out")
back=$(sed -n '/^---reverse/,/^---forward/p' <<<"$gdb_out")
again=$(sed -n '/^---forward/,$p' <<<"$gdb_out")
grep -q "is executing new program: .*tests/programs/thr_gdb\$" <<<"$before" || die "no exec stop going forward: $gdb_out"
# GDB reads /proc/PID/task/TID/maps after an exec: served from the moment.
grep -q "unable to open /proc file" <<<"$gdb_out" && die "GDB could not read the moment's /proc maps: $gdb_out"
grep -q "hit Breakpoint 1, take_turn" <<<"$before" || die "the pending breakpoint in the exec'd program was not hit: $gdb_out"
grep -Eq '^\$1 = (11|22|33)$' <<<"$before" || die "no thread-local value after the exec: $gdb_out"
grep -q "hit Catchpoint 2 (exec'd $sh), .* in .*execve" <<<"$back" || die "reverse-continue did not stop at the shell's execve: $gdb_out"
grep -q "^\* 1 .* $sh *\$" <<<"$back" || die "GDB did not reload the shell going back: $gdb_out"
grep -q "hit Catchpoint 2 (exec'd .*tests/programs/thr_gdb)" <<<"$again" || die "forward again: no exec stop: $gdb_out"
grep -q "hit Breakpoint 1, take_turn" <<<"$again" || die "forward again: the breakpoint was not hit: $gdb_out"
grep -Eq '^\$2 = (11|22|33)$' <<<"$again" || die "forward again: no thread-local value: $gdb_out"
echo "across the exec: forward and back"
echo "test_replay_gdb_threads_after_exec: OK"
