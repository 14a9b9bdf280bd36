#!/usr/bin/env bash
# Checks real programs whose processes share memory: python3's
# multiprocessing with a Value (a ctypes int in a MAP_SHARED arena in
# /dev/shm, guarded by a SemLock, a sem_open semaphore mapped shared) that
# two forked workers and the parent increment; and the same with a Queue
# (pipes, and a feeder thread in the parent: a member with threads and
# shared memory). Recorded, each prints what it prints natively; every
# member replays --check OK to its end (the arena and the semaphore are
# mapped from files replay has only placeholders for:
# engine/replay/placeholder_mmap.h).
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record_shared_python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Debian's interpreter: a version manager's shim (a shell script) would add
# a dozen shell processes to the tree.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || fail "python3 is not installed (scripts/install-deps.sh installs it)"

check() {  # check NAME WANT SCRIPT: 3 processes, output WANT, each replays --check OK
  local name=$1 want=$2 script=$3 out pids p
  out=$("$py" -c "$script" 2>&1 </dev/null) || fail "$name: native run failed: $out"
  [ "$out" = "$want" ] || fail "$name: native run printed '$out'"
  timeout 300 "$SLSDBG" record -o "$tmp/$name" -- "$py" -c "$script" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null ||
    fail "$name: record: $(cat "$tmp/$name.err")"
  [ "$(cat "$tmp/$name.out")" = "$want" ] || fail "$name: recorded run printed '$(cat "$tmp/$name.out")' ($(cat "$tmp/$name.err"))"
  grep -q "recorded 2 child process" "$tmp/$name.err" || fail "$name: record does not report 2 children: $(cat "$tmp/$name.err")"
  grep -q "child process [0-9]*:" "$tmp/$name.err" && fail "$name: a child's recording failed: $(cat "$tmp/$name.err")"
  grep -q "share memory ran one at a time" "$tmp/$name.err" || fail "$name: the processes took no turns: $(cat "$tmp/$name.err")"
  pids=$("$SLSDBG" info "$tmp/$name" --json | "$py" -c 'import json,sys; print(" ".join(str(p["pid"]) for p in json.load(sys.stdin)["processes"]))') ||
    fail "$name: info --json failed"
  set -- $pids
  [ $# -eq 3 ] || fail "$name: want 3 processes, got: $pids"
  for p in $pids; do
    out=$(timeout 120 "$SLSDBG" replay "$tmp/$name" -p "$p" --check 2>&1 </dev/null) || fail "$name: replay -p $p --check: $out"
    grep -q '^OK' <<<"$out" || fail "$name: replay -p $p --check does not say OK: $out"
    grep -q "^history ends when the process ends" <<<"$out" || fail "$name: replay -p $p: history does not end with the exit: $out"
    echo "$name: member $p: $(head -1 <<<"$out")"
  done
}

check value 'value 900 exits [0, 0]' '
import multiprocessing as mp
def work(v, n):
    for _ in range(n):
        with v.get_lock():
            v.value += 1
if __name__ == "__main__":
    mp.set_start_method("fork")
    v = mp.Value("i", 0)
    ps = [mp.Process(target=work, args=(v, 300)) for _ in range(2)]
    for p in ps: p.start()
    work(v, 300)
    for p in ps: p.join()
    print("value", v.value, "exits", [p.exitcode for p in ps])
'
check queue "value 400 [('done', 200), ('done', 200), ('parent', 0)]" '
import multiprocessing as mp
def work(q, v, n):
    for i in range(n):
        with v.get_lock():
            v.value += 1
    q.put(("done", n))
if __name__ == "__main__":
    mp.set_start_method("fork")
    q = mp.Queue()
    v = mp.Value("i", 0)
    ps = [mp.Process(target=work, args=(q, v, 200)) for _ in range(2)]
    for p in ps: p.start()
    q.put(("parent", 0))
    got = sorted(q.get() for _ in range(3))
    for p in ps: p.join()
    print("value", v.value, got)
'
echo "record_shared_python: OK"
