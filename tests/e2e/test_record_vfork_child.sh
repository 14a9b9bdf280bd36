#!/usr/bin/env bash
# A vfork child is recorded from its vfork, not only from its exec
# (recorder/record/member.h, origin "vfork"). vfork_marker's parent writes a
# page of its own right before its vfork; its child writes a marker into a
# global they share, spins over a few ticks (checkpoints of the child in the
# parent's memory), dup2s and execs echo: `replay -p CHILD --check` is OK;
# GDB on the child starts at the vfork, breaks in the child's code before
# the exec with the marker still 0, sees 4242 after the write and the whole
# count at its dup2, and stops at the exec of echo; GDB on the parent sees the marker, the spin's count and
# its own page right after its vfork returned (the parent's checkpoint after
# the call holds the child's writes, and the child's checkpoints did not
# take the parent's dirty tracking from it). Then a shell: dash vforks for a
# simple command that is not its last (`/bin/echo`), forks for a pipeline;
# every member replays with --check, the vfork child from its vfork.
. "$(dirname "$0")/replay_gdb_lib.sh"

origin_pids() {  # origin_pids REC ORIGIN: the pids of the members with that origin
  "$SLSDBG" info "$1" --json | "$PY" -c 'import json,sys; print(*[p["pid"] for p in json.load(sys.stdin)["processes"] if p["origin"] == sys.argv[1]])' "$2"
}
check_all() {  # check_all REC: replay --check of every process of the tree
  local p out
  for p in $("$SLSDBG" info "$1" --json | "$PY" -c 'import json,sys; print(*[p["pid"] for p in json.load(sys.stdin)["processes"]])'); do
    out=$(timeout 300 "$SLSDBG" replay "$1" -p "$p" --check 2>&1 </dev/null) || die "replay -p $p --check failed: $out"
    grep -q '^OK' <<<"$out" || die "replay -p $p --check does not say OK: $out"
  done
}

rec=$WORK/vfork.rec
# 20M iterations: several 10 ms ticks of the child, on a quiet machine too.
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/vfork_marker" 20000000 >"$WORK/out" 2>"$WORK/err" </dev/null ||
  { cat "$WORK/err"; die "recording vfork_marker failed"; }
expect "$WORK/out" '^vfork_marker: marker 4242, spun 20000000, parent page 7, child status 0$' "the parent saw the child's writes and its own, as natively"
expect "$WORK/err" '^vfork child$' "echo wrote to the stderr the child's dup2 gave it"
child=$(origin_pids "$rec" vfork)
[ -n "$child" ] && [ "$(wc -w <<<"$child")" -eq 1 ] || die "want one member recorded from its vfork, got '$child': $("$SLSDBG" info "$rec")"
"$SLSDBG" info "$rec" -p "$child" >"$WORK/child.info" || die "info -p $child failed"
expect "$WORK/child.info" "^process +$child, child of [0-9]+, recorded from its vfork" "info -p names the member's origin"
ticks=$("$SLSDBG" info "$rec" -p "$child" --json | "$PY" -c 'import json,sys; print(sum(c["reason"] == "tick" for c in json.load(sys.stdin)["checkpoints"]))')
[ "$ticks" -ge 1 ] || die "the child took no tick checkpoint before its exec: $(cat "$WORK/child.info")"
check_all "$rec"

out=$WORK/child.gdb
timeout 300 "$SLSDBG" replay "$rec" -p "$child" -- -nx -batch -ex 'set pagination off' \
  -ex 'bt' -ex 'break in_child' -ex 'continue' -ex 'print marker' -ex 'finish' -ex 'print marker' \
  -ex "break vfork_marker.c:$(line_of 'before exec' "$FIXTURE_SRC/vfork_marker.c")" -ex 'continue' -ex 'print spun' \
  -ex 'catch exec' -ex 'continue' >"$out" 2>&1 </dev/null || { cat "$out"; die "GDB on the vfork child failed"; }
expect "$out" '^#1 +0x[0-9a-f]+ in main \(.*\) at .*vfork_marker\.c:' "the child's history starts in its vfork, called by main"
expect "$out" '^Breakpoint 1, in_child \(value=4242\)' "GDB breaks in the child's code between its vfork and its exec"
expect "$out" '^\$1 = 0$' "the marker before the child writes it"
expect "$out" '^\$2 = 4242$' "the marker the child wrote"
expect "$out" '^\$3 = 20000000$' "the child's count at its dup2, after its ticks"
expect "$out" "^process $child is executing new program: /usr/bin/echo$" "the child's exec"

out=$WORK/parent.gdb
timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' \
  -ex "break vfork_marker.c:$(line_of 'after vfork' "$FIXTURE_SRC/vfork_marker.c")" -ex 'continue' -ex 'print marker' \
  -ex 'print spun' -ex 'print parent_page[0]' \
  >"$out" 2>&1 </dev/null || { cat "$out"; die "GDB on the parent failed"; }
expect "$out" '^\$1 = 4242$' "the parent sees the child's marker once its vfork returned"
expect "$out" '^\$2 = 20000000$' "the parent sees the child's count"
expect "$out" '^\$3 = 7$' "the parent's own page, written right before its vfork, is in its checkpoint after it"

rec=$WORK/sh.rec
"$SLSDBG" record -o "$rec" -- /bin/sh -c '/bin/echo vforked; echo hi | cat' >"$WORK/sh.out" 2>"$WORK/sh.err" </dev/null ||
  { cat "$WORK/sh.err"; die "recording sh failed"; }
[ "$(cat "$WORK/sh.out")" = "$(printf 'vforked\nhi')" ] || die "sh printed '$(cat "$WORK/sh.out")'"
[ -n "$(origin_pids "$rec" vfork)" ] || die "sh: no member recorded from its vfork: $("$SLSDBG" info "$rec")"
check_all "$rec"
echo "record_vfork_child: OK"
