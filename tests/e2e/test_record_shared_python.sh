#!/usr/bin/env bash
# Checks a real program whose processes share memory: python3's
# multiprocessing with a Value (a ctypes int in a MAP_SHARED arena in
# /dev/shm, guarded by a SemLock, a sem_open semaphore mapped shared) that
# two forked workers and the parent increment. Recorded, it prints what it
# prints natively; every member replays --check OK to its end (the arena and
# the semaphore are mapped from files replay has only placeholders for:
# engine/replay/placeholder_mmap.h).
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record_shared_python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Debian's interpreter: a version manager's shim (a shell script) would add
# a dozen shell processes to the tree.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || fail "python3 is not installed (scripts/install-deps.sh installs it)"

script='
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
want='value 900 exits [0, 0]'
out=$("$py" -c "$script" 2>&1 </dev/null) || fail "native run failed: $out"
[ "$out" = "$want" ] || fail "native run printed '$out'"
timeout 300 "$SLSDBG" record -o "$tmp/py" -- "$py" -c "$script" >"$tmp/py.out" 2>"$tmp/py.err" </dev/null ||
  fail "record: $(cat "$tmp/py.err")"
[ "$(cat "$tmp/py.out")" = "$want" ] || fail "recorded run printed '$(cat "$tmp/py.out")' ($(cat "$tmp/py.err"))"
grep -q "recorded 2 child process" "$tmp/py.err" || fail "record does not report 2 children: $(cat "$tmp/py.err")"
grep -q "child process [0-9]*:" "$tmp/py.err" && fail "a child's recording failed: $(cat "$tmp/py.err")"
pids=$("$SLSDBG" info "$tmp/py" --json | python3 -c 'import json,sys; print(" ".join(str(p["pid"]) for p in json.load(sys.stdin)["processes"]))') ||
  fail "info --json failed"
set -- $pids
[ $# -eq 3 ] || fail "want 3 processes, got: $pids"
for p in $pids; do
  out=$(timeout 120 "$SLSDBG" replay "$tmp/py" -p "$p" --check 2>&1 </dev/null) || fail "replay -p $p --check: $out"
  grep -q '^OK' <<<"$out" || fail "replay -p $p --check does not say OK: $out"
  grep -q "^history ends when the process ends" <<<"$out" || fail "replay -p $p: history does not end with the exit: $out"
  echo "member $p: $(head -1 <<<"$out")"
done
echo "record_shared_python: OK"
