#!/usr/bin/env bash
# Checks `slsdbg restore` of an event loop at each of its checkpoints
# (restore_event_loop: a pipe, an AF_UNIX socketpair, a semaphore eventfd,
# a timerfd, a signalfd and two nested epolls, each registered with a data
# tag): every descriptor is made again at its number with its state (the
# eventfd's count, the timer's period, the signal mask, each epoll's
# registrations with their tags and flags, the bytes and datagrams waiting
# in the pipe and the socketpair), so the restored loop runs to the
# end and prints what the recorded run printed; the process has its
# recorded pid again ("pid same": the fixture compares getpid() with the
# pid it saw at its start), and --verify reads every descriptor back as the
# recorder reads them and finds them equal. Before, each of these fds was "not restored"
# and the loop's first epoll_wait timed out.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/restore_event_loop.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

prog="$PROGRAMS/restore_event_loop"
want=$("$prog" 40) || fail "native run"
case "$want" in *"pid same"*) ;; *) fail "native run printed '$want'" ;; esac
out=$(timeout 120 "$SLSDBG" record -o "$tmp/rec" -- "$prog" 40 2>"$tmp/rec.err" </dev/null) ||
  fail "record: $(cat "$tmp/rec.err")"
[ "$out" = "$want" ] || fail "recorded run printed '$out', native '$want'"

# Every checkpoint but the exit's: those inside spin() and those in the
# loop's I/O, where a byte, a datagram, an eventfd count or a signal is in
# flight (the checkpoint keeps what waits in pipes and sockets).
last=$("$SLSDBG" info "$tmp/rec" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]) - 1)') ||
  fail "info --json"
[ "$last" -ge 6 ] || fail "only $last checkpoints"
picked=$(seq 1 $((last - 1)))
outside=0
for k in $picked; do
  f=$("$SLSDBG" backtrace "$tmp/rec" --at "$k" --json 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["threads"][0]["frames"][0]["function"])' 2>/dev/null)
  [ "$f" = spin ] || outside=$((outside + 1))
done

for k in $picked; do
  got=$(timeout 30 "$SLSDBG" restore "$tmp/rec" --at "$k" --verify 2>"$tmp/restore.err" </dev/null)
  rc=$?
  # Descriptors 3-9 are the fixture's; a harness may leak others.
  if grep -E "fd [3-9] .*not restored|: watch of fd|not the recorded|not put back" "$tmp/restore.err"; then
    fail "restore --at $k: warnings above"
  fi
  [ "$rc" = 0 ] || fail "restore --at $k: exit $rc: $(cat "$tmp/restore.err")"
  # --verify read the fixture's 10 descriptors back (fds 3-12) as it made them.
  n=$(sed -n 's/^slsdbg: verified: registers, memory map, \([0-9]*\) descriptors and .*/\1/p' "$tmp/restore.err")
  [ -n "$n" ] && [ "$n" -ge 10 ] || fail "restore --at $k: --verify compared '${n}' descriptors: $(cat "$tmp/restore.err")"
  [ "$got" = "$want" ] || fail "restore --at $k printed '$got', recorded '$want'"
  pkill -f "$prog" 2>/dev/null  # a hung restore's program must not keep the pid
done
echo "restore_event_loop: checkpoints 1-$((last - 1)) ($outside outside spin) restored, each printed '$want'"
