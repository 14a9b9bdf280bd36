#!/usr/bin/env bash
# A pid the kernel hands out again within one recording: in a pid namespace
# of its own, a shell runs `echo first`, then sets ns_last_pid so that
# `echo second` gets the same pid. Before, the second child's recording
# could not be created ("members/PID exists") and the child stayed parked
# where it was handed over, spinning, and the recording never ended. Now
# the second is members/PID.2: `info` lists both (text and --json names),
# `-p PID` and `-p PID.2` each name their own process and replay --check
# OK, and a name that is not there is a one-line error naming the ones that
# are.
. "$(dirname "$0")/replay_gdb_lib.sh"
command -v unshare >/dev/null || die "unshare (util-linux) is missing"
rec=$WORK/reuse.rec
script='/bin/echo first; echo $(($$)) > /proc/sys/kernel/ns_last_pid; /bin/echo second'
timeout 120 unshare -p -f --mount-proc "$SLSDBG" record -o "$rec" -- sh -c "$script" >"$WORK/out.txt" 2>"$WORK/rec.err"
rc=$?
[ $rc -eq 124 ] && { cat "$WORK/rec.err"; die "the recording did not end (a child left parked?)"; }
[ $rc -eq 0 ] || { cat "$WORK/rec.err"; die "recording exited $rc"; }
[ "$(cat "$WORK/out.txt")" = "$(printf 'first\nsecond')" ] || { cat "$WORK/out.txt"; die "output differs from a native run"; }
grep -q 'exists and is not empty' "$WORK/rec.err" && { cat "$WORK/rec.err"; die "a member's recording could not be created"; }

"$SLSDBG" info "$rec" --json >"$WORK/info.json" || die "info --json failed"
names=$(python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(open(sys.argv[1]))["processes"]))' "$WORK/info.json")
set -- $names
[ $# -eq 3 ] || die "expected 3 processes (sh and two echos), got: $names"
pid=$2
[ "$3" = "$pid.2" ] || die "the second process with pid $pid should be named $pid.2, got: $names"
"$SLSDBG" info "$rec" >"$WORK/info.txt"
expect "$WORK/info.txt" "^ +$pid\\.2 +parent " "info lists $pid.2 in the tree"
"$SLSDBG" info "$rec" -p "$pid" >"$WORK/first.txt" && expect "$WORK/first.txt" "^recording .*/members/$pid\$" "-p $pid is the first"
"$SLSDBG" info "$rec" -p "$pid.2" >"$WORK/second.txt" && expect "$WORK/second.txt" "^recording .*/members/$pid\\.2\$" "-p $pid.2 is the second"
python3 - "$WORK/info.json" <<'PY' || die "both processes with the reused pid should have exec'd echo"
import json, sys
rows = json.load(open(sys.argv[1]))["processes"][1:]
assert all("echo" in r["program"].split(" (")[0] and r["exit"] == "exited 0" for r in rows), rows
PY
for p in "$pid" "$pid.2"; do
  "$SLSDBG" replay "$rec" -p "$p" --check >"$WORK/check.txt" 2>&1 || { cat "$WORK/check.txt"; die "replay -p $p --check failed"; }
  expect "$WORK/check.txt" '^OK' "replay -p $p --check"
done
if "$SLSDBG" replay "$rec" -p "$pid.3" --check >"$WORK/bad.txt" 2>&1; then die "-p $pid.3 should fail"; fi
expect "$WORK/bad.txt" "no process $pid\\.3 in .*\\(its processes: .*$pid\\.2" "a missing name is a one-line error naming the others"
[ "$(wc -l <"$WORK/bad.txt")" -eq 1 ] || { cat "$WORK/bad.txt"; die "the error is more than one line"; }
echo "record_pid_reuse: OK"
