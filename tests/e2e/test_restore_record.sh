#!/usr/bin/env bash
# Checks `slsdbg record` followed by `slsdbg restore --at K`: a recording of
# the CPU-bound restore fixture, restored at its first, a middle, its last
# checkpoint before the exit and at every checkpoint the recorder took for a
# signal (which it delivers right after that checkpoint, so restore must
# queue it), prints what the native run printed and exits with its status.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/restore_record.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$work/run"
printf 'abcdefghijklmnopqrstuvwxyz' > "$work/run/data.txt"
iters=200000000
( cd "$work/run" && "$PROGRAMS/restore_compute" $iters data.txt > "$work/native.out" ); native_rc=$?
( cd "$work/run" && "$SLSDBG" record -o "$work/rec" -- "$PROGRAMS/restore_compute" $iters data.txt > "$work/recorded.out" ); rec_rc=$?
[ "$rec_rc" -eq "$native_rc" ] || fail "record: exit $rec_rc, native $native_rc"
"$SLSDBG" info "$work/rec" --json > "$work/info.json" || fail "info --json failed"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["checkpoints"]))' "$work/info.json")
signal_ks=$(python3 -c 'import json,sys; print(" ".join(str(c["id"]) for c in json.load(open(sys.argv[1]))["checkpoints"] if c["reason"] == "signal"))' "$work/info.json")
[ "$n" -ge 3 ] || fail "only $n checkpoints"
[ -n "$signal_ks" ] || fail "no checkpoint for the fixture's signals"
# The last checkpoint is at exit; restore those before it.
for k in 0 $((n / 2)) $((n - 2)) $signal_ks; do
  ( cd / && "$SLSDBG" restore "$work/rec" --at $k > "$work/restored$k.out" 2> "$work/restored$k.err" ); rc=$?
  [ "$rc" -eq "$native_rc" ] || { cat "$work/restored$k.err"; fail "checkpoint $k of $n: exit $rc, native $native_rc"; }
  cmp -s "$work/native.out" "$work/restored$k.out" || fail "checkpoint $k of $n: output differs: $(cat "$work/restored$k.out")"
done
echo "restore_record: OK"
