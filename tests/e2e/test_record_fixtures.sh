#!/usr/bin/env bash
# Checks that the recorder's fixture programs (compute loop, a stack growing
# without syscalls, heap churn, file I/O, stdin, a setitimer-driven signal handler, rdtsc, clock_gettime,
# /dev/urandom) record with --verify without a mismatch, and that their output
# and exit status under the recorder equal a native run.
source "$(dirname "$0")/record_lib.sh"
seq 1 20000 >"$WORK/input.txt"
mkdir -p "$WORK/files"
record_and_compare compute /dev/null -- "$PROGRAMS/rec_compute" 20000000
record_and_compare stack /dev/null -- "$PROGRAMS/rec_stack" 400
record_and_compare heap /dev/null -- "$PROGRAMS/rec_heap"
record_and_compare fileio /dev/null -- "$PROGRAMS/rec_fileio" "$WORK/files"
record_and_compare stdin "$WORK/input.txt" -- "$PROGRAMS/rec_stdin"
record_and_compare sigalrm /dev/null -- "$PROGRAMS/rec_sigalrm"
record_and_compare rdtsc /dev/null -- "$PROGRAMS/rec_rdtsc"
record_and_compare clock /dev/null -- "$PROGRAMS/rec_clock"
record_and_compare urandom /dev/null -- "$PROGRAMS/rec_urandom"
record_and_compare exit_status /dev/null -- "$PROGRAMS/rec_spin" 50 7

# The inputs were logged: rdtsc values, signals, clock syscalls, random bytes.
"$PY" - "$WORK" <<'PYEOF' || die "expected events missing"
import json, sys
w = sys.argv[1]
def kinds(n): return json.load(open(f"{w}/{n}.json"))["events_by_kind"]
assert kinds("rdtsc").get("rdtsc", 0) >= 2000, kinds("rdtsc")
assert kinds("sigalrm").get("signal", 0) >= 30, kinds("sigalrm")
assert kinds("clock").get("syscall", 0) >= 5000, kinds("clock")
reasons = [c["reason"] for c in json.load(open(f"{w}/sigalrm.json"))["checkpoints"]]
assert reasons.count("signal") >= 30, reasons
assert reasons[-1] == "exit", reasons[-1]
PYEOF
echo "test_record_fixtures: OK"
