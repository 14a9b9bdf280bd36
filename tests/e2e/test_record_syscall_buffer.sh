#!/usr/bin/env bash
# Checks the syscall buffer (`record --syscall-buffer`; recorder/record/syscallbuf.h):
# rec_sysbuf's reads (short ones at the end of the file included), preads,
# writes, pwrites, lseeks and fstats on a regular file, /dev/null and
# /dev/zero go through patched glibc sites into the buffer while a 1 ms
# SIGALRM handler (reading and writing too) lands in the middle of it, and a
# burst of one-byte writes fills the buffer between ticks.
#  1. stdout, exit status and the written file equal a native run's; most
#     calls were buffered; `replay --check` says OK.
#  2. The burst with a 1 s interval (no tick drains it): the buffer fills,
#     the full stub falls back to the trapped call, which drains it; exact.
#  3. With --no-syscall-buffer, and with SLSDBG_SYSCALL_BUFFER=off, the same
#     program (no alarms: same calls) gives the same syscall events:
#     numbers, results and bytes, in order, and nothing buffered. Another
#     value of the variable, or both flags, is a one-line usage error.
#  4. find(1) over a generated tree: its openat(O_DIRECTORY), getdents64,
#     fstat, newfstatat of paths and close are buffered (all libc sites
#     patched at once: one forced checkpoint), output equals native, and
#     `replay --check` says OK, a checkpoint at the stub's trapped `syscall`
#     included.
#  5. bash reading a command substitution's pipe (a trapped read through the
#     stub, blocking) while the child sleeps: the tick's interrupt cuts the
#     read inside the stub, and the recorder must not step it back into the
#     read while the child waits on the recorder (it hung).
source "$(dirname "$0")/record_lib.sh"
ROUNDS=400
mkdir -p "$WORK/native" "$WORK/on" "$WORK/off" "$WORK/full"

"$PROGRAMS/rec_sysbuf" "$WORK/native" $ROUNDS 3000 >"$WORK/native.out" || die "native run failed"
"$SLSDBG" record -o "$WORK/on.rec" --syscall-buffer -- "$PROGRAMS/rec_sysbuf" "$WORK/on" $ROUNDS 3000 \
  >"$WORK/on.out" 2>"$WORK/on.err" || die "record --syscall-buffer failed: $(tail -3 "$WORK/on.err")"
cmp "$WORK/native.out" "$WORK/on.out" || die "stdout differs: $(cat "$WORK/native.out") vs $(cat "$WORK/on.out")"
cmp "$WORK/native/rec_sysbuf.dat" "$WORK/on/rec_sysbuf.dat" || die "the written file differs from native"
buffered=$(sed -n 's/.*syscall buffer: \([0-9]*\) syscalls buffered, \([0-9]*\) glibc sites.*/\1/p' "$WORK/on.err")
sites=$(sed -n 's/.*syscall buffer: \([0-9]*\) syscalls buffered, \([0-9]*\) glibc sites.*/\2/p' "$WORK/on.err")
# 12 buffered calls per round, less the first at each site and those in a
# stub the alarm handler re-entered.
[ -n "$buffered" ] && [ "$buffered" -ge $((ROUNDS * 10 + 2500)) ] || die "only ${buffered:-?} calls buffered: $(cat "$WORK/on.err")"
[ -n "$sites" ] && [ "$sites" -ge 4 ] || die "only ${sites:-?} sites patched"
out=$(timeout 300 "$SLSDBG" replay "$WORK/on.rec" --check 2>&1) || die "replay --check: $out"
[[ "$out" == OK:* ]] || die "replay --check: $out"
echo "buffered: $buffered calls at $sites sites; replay: $out"

"$SLSDBG" record -o "$WORK/full.rec" --syscall-buffer --interval 1000 -- "$PROGRAMS/rec_sysbuf" "$WORK/full" 5 40000 noalarm \
  >"$WORK/full.out" 2>"$WORK/full.err" || die "record (buffer full) failed: $(tail -3 "$WORK/full.err")"
full=$(sed -n 's/.*syscall buffer: \([0-9]*\) syscalls buffered.*/\1/p' "$WORK/full.err")
[ -n "$full" ] && [ "$full" -ge 39000 ] || die "buffer-full run buffered only ${full:-?} calls"
out=$(timeout 300 "$SLSDBG" replay "$WORK/full.rec" --check 2>&1) || die "replay --check (buffer full): $out"
[[ "$out" == OK:* ]] || die "replay --check (buffer full): $out"
echo "buffer full: $full calls buffered; replay: $out"

"$SLSDBG" record -o "$WORK/a.rec" --syscall-buffer -- "$PROGRAMS/rec_sysbuf" "$WORK/on" 50 100 noalarm >"$WORK/a.out" 2>"$WORK/a.err" ||
  die "record (on, no alarms) failed: $(tail -3 "$WORK/a.err")"
"$SLSDBG" record -o "$WORK/b.rec" --no-syscall-buffer -- "$PROGRAMS/rec_sysbuf" "$WORK/off" 50 100 noalarm >"$WORK/b.out" 2>"$WORK/b.err" ||
  die "record (off) failed: $(tail -3 "$WORK/b.err")"
cmp "$WORK/a.out" "$WORK/b.out" || die "stdout differs between flag on and off"
cmp "$WORK/on/rec_sysbuf.dat" "$WORK/off/rec_sysbuf.dat" || die "the written file differs between flag on and off"
"$PY" "$(dirname "$0")/syscalls_of.py" "$WORK/a.rec" >"$WORK/a.sys"
"$PY" "$(dirname "$0")/syscalls_of.py" "$WORK/b.rec" >"$WORK/b.sys"
[ "$(wc -l <"$WORK/a.sys")" -ge 600 ] || die "too few syscall events decoded: $(wc -l <"$WORK/a.sys")"
diff "$WORK/a.sys" "$WORK/b.sys" >"$WORK/ab.diff" || { head -5 "$WORK/ab.diff"; die "syscall events differ between flag on and off"; }
echo "flag on and off: $(wc -l <"$WORK/a.sys") identical syscall events"
grep -q "syscall buffer:" "$WORK/b.err" && die "--no-syscall-buffer: $(cat "$WORK/b.err")"
rm -rf "$WORK/off"/*
SLSDBG_SYSCALL_BUFFER=off "$SLSDBG" record -o "$WORK/c.rec" -- "$PROGRAMS/rec_sysbuf" "$WORK/off" 50 100 noalarm \
  >"$WORK/c.out" 2>"$WORK/c.err" || die "record (SLSDBG_SYSCALL_BUFFER=off) failed: $(tail -3 "$WORK/c.err")"
grep -q "syscall buffer:" "$WORK/c.err" && die "SLSDBG_SYSCALL_BUFFER=off buffered: $(cat "$WORK/c.err")"
"$PY" "$(dirname "$0")/syscalls_of.py" "$WORK/c.rec" >"$WORK/c.sys" || die "reading the third recording"
cmp -s "$WORK/b.sys" "$WORK/c.sys" || die "SLSDBG_SYSCALL_BUFFER=off gives other syscall events than --no-syscall-buffer"
for bad in "SLSDBG_SYSCALL_BUFFER=maybe" "SLSDBG_SYSCALL_BUFFER=off --syscall-buffer --no-syscall-buffer"; do
  set -- $bad
  out=$(env "$1" "$SLSDBG" record -o "$WORK/bad.rec" "${@:2}" -- true 2>&1); rc=$?
  [ "$rc" -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q "syscall.buffer\|SYSCALL_BUFFER" <<<"$out" ||
    die "$bad: exit $rc, want nonzero and one line: $out"
  [ -e "$WORK/bad.rec" ] && die "$bad: a recording was made"
done
mkdir -p "$WORK/tree"
for d in $(seq 1 30); do mkdir -p "$WORK/tree/d$d/e"; for f in $(seq 1 8); do echo "$d $f" >"$WORK/tree/d$d/e/f$f.txt"; done; done
find "$WORK/tree" -name '*.txt' -size -1k >"$WORK/find.native"
"$SLSDBG" record -o "$WORK/find.rec" --syscall-buffer -- find "$WORK/tree" -name '*.txt' -size -1k >"$WORK/find.out" 2>"$WORK/find.err" ||
  die "record find failed: $(tail -3 "$WORK/find.err")"
cmp "$WORK/find.native" "$WORK/find.out" || die "find's output differs from native"
fb=$(sed -n 's/.*syscall buffer: \([0-9]*\) syscalls buffered.*/\1/p' "$WORK/find.err")
[ -n "$fb" ] && [ "$fb" -ge 300 ] || die "find: only ${fb:-?} calls buffered: $(cat "$WORK/find.err")"
out=$(timeout 300 "$SLSDBG" replay "$WORK/find.rec" --check 2>&1) || die "replay --check (find): $out"
[[ "$out" == OK:* ]] || die "replay --check (find): $out"
echo "find: $fb calls buffered; replay: $out"
out=$(timeout 60 "$SLSDBG" record -o "$WORK/sh.rec" --syscall-buffer -- bash -c 'x=$(sleep 0.1; echo hi); echo "$x"' 2>"$WORK/sh.err") ||
  die "record bash failed or hung: $(tail -3 "$WORK/sh.err")"
[ "$out" = hi ] || die "bash printed '$out'"
out=$(timeout 300 "$SLSDBG" replay "$WORK/sh.rec" --check 2>&1) || die "replay --check (bash): $out"
[[ "$out" == OK:* ]] || die "replay --check (bash): $out"
echo "bash reading a pipe: replay: $out"
echo "test_record_syscall_buffer: OK"
