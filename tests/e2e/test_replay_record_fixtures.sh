#!/usr/bin/env bash
# Checks `slsdbg replay --check` on recordings made by `slsdbg record` of the
# recorder's fixtures (file I/O, stdin, rdtsc, clock_gettime, /dev/urandom, a
# spin loop with exit status, heap churn with checkpoints inside memset's
# `rep stosb`, python3 and sqlite3): each replays to its end with every
# checkpoint boundary crossed by execution, but the syscall buffer's patch
# by restore (boundaries.py). (rec_sigalrm,
# checkpoints inside a hot loop, has its own test: test_replay_hot_loop.sh.)
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/replay_fixtures.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/files"
seq 1 2000 >"$work/input.txt"
check() {  # check NAME STDIN -- PROGRAM ARGS...
  local name=$1 input=$2; shift 3
  "$SLSDBG" record -o "$work/$name" -- "$@" <"$input" >/dev/null 2>"$work/$name.err"
  [ -f "$work/$name/catalog.db" ] || { echo "$name: recording failed: $(cat "$work/$name.err")"; exit 1; }
  local out rc cps want
  out=$(timeout 300 "$SLSDBG" replay "$work/$name" --check 2>&1); rc=$?
  [ "$rc" -eq 0 ] || { echo "$name: --check exit $rc: $out"; exit 1; }
  cps=$(sed -n 's/^OK: \([0-9]*\) checkpoints.*/\1/p' <<<"$out")
  want=$(python3 "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$work/$name" --max-forced 0) || { echo "$name: $want"; exit 1; }
  [[ -n "$cps" && "$out" == *"$want"* ]] ||
    { echo "$name: not every boundary by execution: $out"; exit 1; }
  echo "$name: $out"
}
check fileio /dev/null -- "$PROGRAMS/rec_fileio" "$work/files"
check stdin "$work/input.txt" -- "$PROGRAMS/rec_stdin"
check rdtsc /dev/null -- "$PROGRAMS/rec_rdtsc"
check clock /dev/null -- "$PROGRAMS/rec_clock"
check urandom /dev/null -- "$PROGRAMS/rec_urandom"
check spin /dev/null -- "$PROGRAMS/rec_spin" 50 7
check heap /dev/null -- "$PROGRAMS/rec_heap"
check python3 /dev/null -- /usr/bin/python3 -c 'import hashlib, json, os; d = {str(i): i * i for i in range(20000)}; print(hashlib.sha256(json.dumps(d).encode()).hexdigest(), len(os.listdir("/")))'
printf 'create table t(a, b);\nwith recursive c(x) as (select 1 union all select x + 1 from c where x < 20000) insert into t select x, x * x from c;\nselect count(*), sum(b) from t;\n' >"$work/script.sql"
check sqlite3 "$work/script.sql" -- /usr/bin/sqlite3 :memory:
echo "replay_record_fixtures: OK"
