#!/usr/bin/env bash
# Checks `slsdbg restore` of a checkpoint taken under `record --threads`
# while three threads live (two workers adding up into TLS, the main thread
# waiting in pthread_join): the other threads are created again with their
# registers, TLS base, XSAVE and mask (--verify compares all three), and the
# restored program finishes natively and prints what the recorded one
# printed, which needs each worker's exit to clear its tid word and wake the
# join (the recorded clear_child_tid). Eager and --lazy fill.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/restore_threads.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

want="restore 3 threads: 150000000 169999984"
out=$(timeout 120 "$SLSDBG" record --threads -o "$tmp/rec" -- "$PROGRAMS/thr_restore" 2>"$tmp/rec.err" </dev/null) ||
  fail "record: $(cat "$tmp/rec.err")"
[ "$out" = "$want" ] || fail "recorded run printed '$out'"

# A checkpoint holding three threads, from the middle of the run.
last=$("$SLSDBG" info "$tmp/rec" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]) - 1)') ||
  fail "info --json"
ks=()
for i in $(seq 1 "$last"); do
  n=$("$SLSDBG" backtrace "$tmp/rec" --at "$i" --json 2>/dev/null |
      python3 -c 'import json,sys; print(len(json.load(sys.stdin)["threads"]))' 2>/dev/null) || continue
  [ "$n" = 3 ] && ks+=("$i")
done
[ "${#ks[@]}" -ge 1 ] || fail "no checkpoint of $last holds three threads"
k=${ks[$(( ${#ks[@]} / 2 ))]}

for mode in "" --lazy; do
  got=$(timeout 60 "$SLSDBG" restore "$tmp/rec" --at "$k" --verify $mode 2>"$tmp/restore.err" </dev/null) ||
    fail "restore --at $k $mode: exit $?: $(cat "$tmp/restore.err")"
  grep -q "^slsdbg: verified: registers of 3 threads, memory map, [0-9]* descriptors and [0-9]* pages equal checkpoint $k\$" "$tmp/restore.err" ||
    fail "restore --at $k $mode: no verification of 3 threads: $(cat "$tmp/restore.err")"
  [ "$got" = "$want" ] || fail "restore --at $k $mode printed '$got', recorded '$want'"
done
echo "restore_threads: checkpoint $k of $last (${#ks[@]} with 3 threads) restored, prints '$want'"
