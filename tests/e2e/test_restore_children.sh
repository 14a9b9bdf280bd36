#!/usr/bin/env bash
# restore brings back one process: a shell restored while it waited for a
# child (sleep) finds no child (its wait gets ECHILD; make said "wait: No
# child processes", tar "Cannot waitpid"). restore now says so before it
# runs, naming the child; at a checkpoint after the child was reaped it
# names none.
source "$(dirname "$0")/record_lib.sh"
rec=$WORK/sh.rec
"$SLSDBG" record -o "$rec" -- /bin/sh -c '/bin/sleep 0.3; echo done' >"$WORK/sh.out" 2>"$WORK/sh.err" \
  || { cat "$WORK/sh.err"; die "recording sh failed"; }
[ "$(cat "$WORK/sh.out")" = done ] || die "sh's recorded output: $(cat "$WORK/sh.out")"
read -r child mid last < <("$SLSDBG" info "$rec" --json | "$PY" -c 'import json,sys
j=json.load(sys.stdin); cps=j["checkpoints"]
ticks=[c["id"] for c in cps if c["reason"]=="tick"]
print(j["children"][0], ticks[len(ticks)//2] if ticks else "", cps[-1]["id"])') || die "info --json"
[ -n "$mid" ] || die "no tick checkpoint while sh waited"
"$SLSDBG" restore "$rec" --at "$mid" >"$WORK/mid.out" 2>"$WORK/mid.err" </dev/null
grep -q "^slsdbg: warning: child processes not restored (only this process is): $child;" "$WORK/mid.err" \
  || { cat "$WORK/mid.err"; die "restore at $mid (sh waiting for $child) does not name the child"; }
[ "$(cat "$WORK/mid.out")" = done ] || die "the restored sh did not go on after its wait: $(cat "$WORK/mid.out")"
"$SLSDBG" restore "$rec" --at "$last" >/dev/null 2>"$WORK/last.err" </dev/null
grep -q "child processes not restored" "$WORK/last.err" && { cat "$WORK/last.err"; die "restore at $last names a reaped child"; }
echo "test_restore_children: checkpoint $mid names child $child, checkpoint $last none: OK"
