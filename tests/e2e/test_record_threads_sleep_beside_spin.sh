#!/usr/bin/env bash
# A thread sleeping (usleep, poll, select, a futex wait with a timeout, a
# condvar's timed wait, an absolute clock_nanosleep) beside a thread that
# runs: each tick cuts the sleep, and the cut sleep goes on with the time
# it has left (restart_syscall). Before, a relative sleep was issued again
# with its whole timeout at each tick: a 100 ms sleep at 10 ms ticks never
# ended and the recording ran until killed. Waits the kernel ends with EINTR
# at any stop (epoll_wait, epoll_pwait, sigwaitinfo; sigtimedwait and
# epoll_pwait2, whose timeout is a struct timespec they point at) returned
# EINTR at the first tick, a failure no signal caused natively; they go back
# in with the time left (a pointed timeout: a timespec of it in the thread's
# dead stack). Checked: the recording ends, the sleep took about what was
# asked, without EINTR, ticks did cut it, replay --check.
. "$(dirname "$0")/replay_gdb_lib.sh"
for kind in usleep poll select futex cond abs epoll epoll_pwait sigwait sigtimedwait epoll_pwait2; do
  rec=$WORK/$kind.rec
  timeout 60 "$SLSDBG" record -o "$rec" --interval 10 -- "$PROGRAMS/thr_sleep_beside_spin" "$kind" \
    >"$WORK/$kind.out" 2>"$WORK/$kind.err"
  rc=$?
  [ "$rc" -ne 124 ] || die "$kind: the recording did not end in 60 s (the cut sleep started again at each tick)"
  [ "$rc" -eq 0 ] || { cat "$WORK/$kind.err"; die "$kind: recording failed ($rc)"; }
  grep -q "(EINTR)" "$WORK/$kind.out" && die "$kind: the wait failed with EINTR: $(cat "$WORK/$kind.out")"
  expect "$WORK/$kind.out" "^$kind slept [0-9]+ ms\$" "$kind: the program's own report"
  ms=$(sed -n 's/.* slept \([0-9]*\) ms$/\1/p' "$WORK/$kind.out")
  [ "$ms" -ge 95 ] || die "$kind: slept $ms ms of 100 (cut short)"
  [ "$ms" -le 2000 ] || die "$kind: slept $ms ms of 100 (started again at ticks)"
  "$SLSDBG" info "$rec" --json >"$WORK/$kind.json" || die "$kind: info --json failed"
  ticks=$(python3 -c 'import json,sys; print(sum(1 for c in json.load(open(sys.argv[1]))["checkpoints"] if c["reason"] == "tick"))' "$WORK/$kind.json")
  [ "$ticks" -ge 2 ] || die "$kind: $ticks tick checkpoints: no tick cut the sleep, nothing was tested"
  "$SLSDBG" replay "$rec" --check >"$WORK/$kind.check" 2>&1 || { cat "$WORK/$kind.check"; die "$kind: replay --check failed"; }
  expect "$WORK/$kind.check" '^OK' "$kind: replay --check"
  echo "$kind: slept $ms ms, $ticks ticks"
done
echo "record_threads_sleep_beside_spin: OK"
