#!/usr/bin/env bash
# Checks the recorder's answers to bad input and hard ends: a missing program,
# a file that is not executable, no program at all, the program SIGKILLed
# mid-run, the recorder SIGKILLed mid-run, a full disk, and programs that
# create a thread or fork: each gives a one-line error (or the program's own
# death), a nonzero exit, and every complete checkpoint stays readable.
source "$(dirname "$0")/record_lib.sh"

one_line_error() {  # FILE WORD: stderr is one "slsdbg: ..." line naming WORD
  local lines; lines=$(grep -c . "$1")
  [ "$lines" -eq 1 ] || { cat "$1"; die "expected a one-line error, got $lines lines"; }
  grep -q "^slsdbg: .*$2" "$1" || { cat "$1"; die "error does not mention '$2'"; }
}

checkpoints_of() { "$SLSDBG" info "$1" --json 2>/dev/null | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]))' 2>/dev/null || echo 0; }

wait_for_checkpoints() {  # REC N: up to 60 s
  for _ in $(seq 1 600); do
    [ "$(checkpoints_of "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  die "recording $1 never reached $2 checkpoints"
}

# Missing program.
"$SLSDBG" record -o "$WORK/missing" -- "$WORK/no-such-program" 2>"$WORK/e1"; rc=$?
[ "$rc" -ne 0 ] || die "missing program: exit 0"
one_line_error "$WORK/e1" "no-such-program"
grep -qi "no such file" "$WORK/e1" || die "missing program: error does not say why: $(cat "$WORK/e1")"
[ -e "$WORK/missing" ] && die "missing program: left a recording directory behind"

# Not executable.
printf 'just text\n' >"$WORK/notexec"; chmod 0644 "$WORK/notexec"
"$SLSDBG" record -o "$WORK/notexec.rec" -- "$WORK/notexec" 2>"$WORK/e2"; rc=$?
[ "$rc" -ne 0 ] || die "not executable: exit 0"
one_line_error "$WORK/e2" "notexec"
grep -qi "permission denied" "$WORK/e2" || die "not executable: error does not say why: $(cat "$WORK/e2")"

# No program.
"$SLSDBG" record -o "$WORK/none" 2>"$WORK/e3"; rc=$?
[ "$rc" -eq 2 ] || die "no program: exit $rc, want 2"
one_line_error "$WORK/e3" "no program"

# Bad option values.
"$SLSDBG" record --interval 0 -- /bin/true 2>"$WORK/e4"; rc=$?
[ "$rc" -eq 2 ] || die "--interval 0: exit $rc, want 2"
one_line_error "$WORK/e4" "interval"

# The program is SIGKILLed mid-run: the recorder dies of the same signal and
# the recording is finished with the kill as its last event.
"$SLSDBG" record -o "$WORK/victim" -- "$PROGRAMS/rec_spin" 60000 >/dev/null 2>"$WORK/e5" &
recpid=$!
wait_for_checkpoints "$WORK/victim" 3
tracee=$(pgrep -P "$recpid" | head -1)
[ -n "$tracee" ] || die "no tracee under the recorder"
kill -9 "$tracee"
wait "$recpid"; rc=$?
[ "$rc" -eq 137 ] || { cat "$WORK/e5"; die "program SIGKILLed: recorder exit $rc, want 137"; }
"$SLSDBG" info "$WORK/victim" --json >"$WORK/victim.json" || die "info on the SIGKILLed program's recording failed"
"$PY" - "$WORK/victim.json" <<'PYEOF' || die "SIGKILLed program: recording check failed"
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["checkpoints"]) >= 3, len(j["checkpoints"])
assert j["exit"] == {"signal": 9}, j["exit"]
assert j["finished"]
PYEOF

# The recorder is SIGKILLed mid-run: the program dies with it (no orphan),
# and the complete checkpoints stay readable.
"$SLSDBG" record -o "$WORK/orphan" -- "$PROGRAMS/rec_spin" 60000 >/dev/null 2>/dev/null &
recpid=$!
wait_for_checkpoints "$WORK/orphan" 3
tracee=$(pgrep -P "$recpid" | head -1)
kill -9 "$recpid"; wait "$recpid" 2>/dev/null
for _ in $(seq 1 100); do kill -0 "$tracee" 2>/dev/null || break; sleep 0.1; done
kill -0 "$tracee" 2>/dev/null && { kill -9 "$tracee"; die "tracee survived the recorder"; }
n=$(checkpoints_of "$WORK/orphan")
[ "$n" -ge 3 ] || die "recorder SIGKILLed: only $n readable checkpoints"
"$SLSDBG" info "$WORK/orphan" >"$WORK/orphan.txt" || die "info on a killed recorder's recording failed"
grep -q "not finished" "$WORK/orphan.txt" || die "info does not say the recording is not finished"

# A fork records (its child is recorded as a member of the same recording).
"$SLSDBG" record -o "$WORK/rec_fork.rec" -- "$PROGRAMS/rec_fork" >"$WORK/rec_fork.out" 2>"$WORK/rec_fork.err" \
  || { cat "$WORK/rec_fork.err"; die "rec_fork: not recorded"; }
grep -q "rec_fork done" "$WORK/rec_fork.out" || die "rec_fork: output after the fork lost"

# A thread records without a flag; execve while it lives is refused with a
# clear error naming the call, nonzero exit, readable recording.
"$SLSDBG" record -o "$WORK/rec_thread.rec" -- "$PROGRAMS/rec_thread" >"$WORK/rec_thread.out" 2>"$WORK/rec_thread.err" \
  || { cat "$WORK/rec_thread.err"; die "rec_thread: not recorded"; }
grep -q "rec_thread joined" "$WORK/rec_thread.out" || die "rec_thread: output after the join lost"
for prog in thr_exec; do
  "$SLSDBG" record -o "$WORK/$prog.rec" -- "$PROGRAMS/$prog" >"$WORK/$prog.out" 2>"$WORK/$prog.err"; rc=$?
  [ "$rc" -ne 0 ] || die "$prog: exit 0"
  grep -q "execve in a multithreaded program is not supported yet (the program called execve)" "$WORK/$prog.err" \
    || { cat "$WORK/$prog.err"; die "$prog: no clear error"; }
  n=$(checkpoints_of "$WORK/$prog.rec")
  [ "$n" -ge 2 ] || die "$prog: recording has $n checkpoints"
done

# A full disk: a small tmpfs as the output directory.
mkdir -p "$WORK/small"
if mount -t tmpfs -o size=3m tmpfs "$WORK/small" 2>"$WORK/mount.err"; then
  trap 'umount "$WORK/small" 2>/dev/null; cleanup' EXIT
  "$SLSDBG" record -o "$WORK/small/rec" -- "$PROGRAMS/rec_heap" >/dev/null 2>"$WORK/e6"; rc=$?
  [ "$rc" -ne 0 ] || die "disk full: exit 0"
  one_line_error "$WORK/e6" "record"
  grep -qi "space\|ENOSPC\|full" "$WORK/e6" || die "disk full: error does not say so: $(cat "$WORK/e6")"
  if [ -e "$WORK/small/rec/catalog.db" ]; then
    "$SLSDBG" info "$WORK/small/rec" --json >/dev/null || die "disk full: recording unreadable"
  fi
  umount "$WORK/small"
else
  echo "SKIP disk-full case: cannot mount a tmpfs here ($(cat "$WORK/mount.err"))"
fi
echo "test_record_bad_input: OK"
