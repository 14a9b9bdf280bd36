#!/usr/bin/env bash
# Checks `slsdbg restore` of an event loop at checkpoints inside its spin
# (restore_event_loop: a pipe, an AF_UNIX socketpair, a semaphore eventfd,
# a timerfd, a signalfd and two nested epolls, each registered with a data
# tag): every descriptor is made again at its number with its state (the
# eventfd's count, the timer's period, the signal mask, each epoll's
# registrations with their tags and flags), so the restored loop runs to the
# end and prints what the recorded run printed; the process has its
# recorded pid again ("pid same": the fixture compares getpid() with the
# pid it saw at its start). Before, each of these fds was "not restored"
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

# Checkpoints whose pc is in spin(): no byte in flight in a pipe or socket
# (their contents are not recorded).
last=$("$SLSDBG" info "$tmp/rec" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]) - 1)') ||
  fail "info --json"
ks=()
for i in $(seq 1 "$last"); do
  f=$("$SLSDBG" backtrace "$tmp/rec" --at "$i" --json 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["threads"][0]["frames"][0]["function"])' 2>/dev/null)
  [ "$f" = spin ] && ks+=("$i")
done
[ "${#ks[@]}" -ge 3 ] || fail "only ${#ks[@]} of $last checkpoints inside spin()"
picked="${ks[0]} ${ks[$(( ${#ks[@]} / 2 ))]} ${ks[$(( ${#ks[@]} - 1 ))]}"

for k in $picked; do
  verify=""
  [ "$k" = "${ks[0]}" ] && verify=--verify
  got=$(timeout 60 "$SLSDBG" restore "$tmp/rec" --at "$k" $verify 2>"$tmp/restore.err" </dev/null)
  rc=$?
  # Descriptors 3-9 are the fixture's; a harness may leak others.
  if grep -E "fd [3-9] .*not restored|: watch of fd|not the recorded" "$tmp/restore.err"; then
    fail "restore --at $k: warnings above"
  fi
  [ "$rc" = 0 ] || fail "restore --at $k: exit $rc: $(cat "$tmp/restore.err")"
  [ "$got" = "$want" ] || fail "restore --at $k printed '$got', recorded '$want'"
done
echo "restore_event_loop: checkpoints $picked of $last (${#ks[@]} inside spin) restored, each printed '$want'"
