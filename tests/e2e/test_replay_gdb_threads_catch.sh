#!/usr/bin/env bash
# `catch syscall` on a recording with threads, with real GDB (thr_catch: a
# worker writes 11 bytes, a second worker 18, then the main thread 10):
# - forward, `catch syscall write` stops at each write's entry (rdx its
#   length, rsi its line) and return (rax its result), in the writing
#   thread, in log order;
# - reverse-continue from the main thread's write goes back through the
#   second worker's return and entry to the first worker's return;
# - catching every syscall stops at calls other than write too.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/catch.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/thr_catch" >"$WORK/record.out" 2>"$WORK/record.err" </dev/null ||
  { cat "$WORK/record.err"; die "recording thr_catch"; }
[ "$(cat "$WORK/record.out")" = "$(printf 'worker one\nworker number two\nmain done')" ] ||
  { cat "$WORK/record.out"; die "thr_catch's recorded output"; }
"$SLSDBG" info "$rec" --json | "$PY" -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["events_by_kind"].get("thread_switch", 0) else 1)' ||
  echo "note: no thread switch logged"

out=$WORK/fwd.out
replay_gdb "$rec" "$out" -ex 'catch syscall write' \
  -ex 'continue' -ex 'print $rdx' -ex 'x/s $rsi' -ex 'print $_thread' \
  -ex 'continue' -ex 'print $rax' \
  -ex 'continue' -ex 'print $rdx' -ex 'x/s $rsi' -ex 'print $_thread' \
  -ex 'continue' -ex 'print $rax' \
  -ex 'continue' -ex 'print $rdx' -ex 'print $_thread' \
  -ex 'echo ---reverse\n' \
  -ex 'reverse-continue' -ex 'print $rax' \
  -ex 'reverse-continue' -ex 'print $rdx' -ex 'x/s $rsi' \
  -ex 'reverse-continue' -ex 'print $rax' -ex 'x/s $rsi'
expect "$out" '^(Thread [0-9]+ "thr_catch" hit )?Catchpoint 1 \(call to syscall write\)' "forward: a write's entry"
expect "$out" '^(Thread [0-9]+ "thr_catch" hit )?Catchpoint 1 \(returned from syscall write\)' "forward: a write's return"
expect "$out" '^\$1 = 11$' "the first worker's write: 11 bytes at its entry"
expect "$out" ':[[:space:]]+"worker one\\n"$' "the first worker's line"
expect "$out" '^\$3 = 11$' "its return: 11"
expect "$out" '^\$4 = 18$' "the second worker's write: 18 bytes"
expect "$out" ':[[:space:]]+"worker number two\\n"$' "the second worker's line"
expect "$out" '^\$6 = 18$' "its return: 18"
expect "$out" '^\$7 = 10$' "then the main thread's write: 10 bytes"
t1=$(grep -E '^\$2 = ' "$out" | cut -d' ' -f3)
t2=$(grep -E '^\$5 = ' "$out" | cut -d' ' -f3)
tm=$(grep -E '^\$8 = ' "$out" | cut -d' ' -f3)
[ "$tm" = 1 ] || { cat "$out"; die "the main thread's write stopped in GDB thread '$tm', want 1"; }
[ -n "$t1" ] && [ "$t1" != 1 ] && [ -n "$t2" ] && [ "$t2" != 1 ] && [ "$t1" != "$t2" ] ||
  { cat "$out"; die "the workers' writes stopped in threads '$t1' and '$t2', want two worker threads"; }
sed -n '/^---reverse/,$p' "$out" >"$WORK/rev.out"
expect "$WORK/rev.out" '^(Thread [0-9]+ "thr_catch" hit )?Catchpoint 1 \(returned from syscall write\)' "reverse: a return first"
expect "$WORK/rev.out" '^\$9 = 18$' "reverse: the second worker's return"
expect "$WORK/rev.out" '^\$10 = 18$' "reverse: then its entry"
expect "$WORK/rev.out" ':[[:space:]]+"worker number two\\n"$' "reverse: the second worker's line"
expect "$WORK/rev.out" '^\$11 = 11$' "reverse: then the first worker's return"
[ "$(grep -Ec 'hit Catchpoint 1 |^Catchpoint 1 ' "$WORK/rev.out")" -eq 3 ] || { cat "$out"; die "expected three catchpoint stops in reverse"; }

# Every syscall: the first stop is some call's entry, the second its return.
out=$WORK/all.out
replay_gdb "$rec" "$out" -ex 'catch syscall' -ex 'continue' -ex 'continue'
expect "$out" '^(Thread [0-9]+ "thr_catch" hit )?Catchpoint 1 \(call to syscall [a-z_0-9]+\)' "catch every syscall: an entry"
expect "$out" '^(Thread [0-9]+ "thr_catch" hit )?Catchpoint 1 \(returned from syscall [a-z_0-9]+\)' "catch every syscall: a return"
echo "replay_gdb_threads_catch: OK"
