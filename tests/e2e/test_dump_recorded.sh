#!/usr/bin/env bash
# Checks `slsdbg dump` and `slsdbg backtrace` on a recording made by the real
# recorder (`slsdbg record`): the middle checkpoint, taken while dump_chain
# spins in its deepest call, shows, in gdb and lldb, the call chain and the values the
# program had there, the code at the pc is the program's (not zeros), and
# `slsdbg backtrace` agrees with gdb.
set -u
fail() { echo "FAIL: $*"; exit 1; }
PROG="$PROGRAMS/dump_chain"
T=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-dump-rec.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$SLSDBG" record -o "$T/rec" -- "$PROG" spin 200000000 >/dev/null 2>"$T/record.err" || fail "record failed: $(cat "$T/record.err")"
# The middle checkpoint: ticks every 10 ms, nearly all of them inside the spin.
k=$("$SLSDBG" info "$T/rec" --json | python3 -c '
import json, sys
ids = [c["id"] for c in json.load(sys.stdin)["checkpoints"]]
assert len(ids) >= 5, ids
print(ids[len(ids) // 2])') || fail "not enough checkpoints: $("$SLSDBG" info "$T/rec")"
"$SLSDBG" dump "$T/rec" --at "$k" -o "$T/core" --quiet || fail "dump --at $k failed"

gdb_run() { gdb -batch -nx -ex 'set debuginfod enabled off' "$PROG" "$T/core" "$@" 2>&1; }
bt=$(gdb_run -ex bt)
# gdb prints frame #0 once when it loads the core and again in bt: keep bt's.
fns=$(printf '%s\n' "$bt" | awk '/^#0 /{n++} n>=2' | grep -E '^#[0-9]+ ' | grep 'dump_chain\.c:' | \
      sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ ]+) .*/\2/' | tr '\n' ' ')
[ "$fns" = "pause_here dump_gamma dump_beta dump_alpha main " ] || fail "gdb frames at checkpoint $k: '$fns'\n$bt"
vals=$(gdb_run -ex 'print dump_global_counter' -ex 'print dump_heap_node->id' -ex 'frame function dump_gamma' \
       -ex 'print answer' -ex 'print word' -ex 'x/i $pc')
for v in '$1 = 49' '$2 = 123456789' '$3 = 42' '$4 = "checkpoint'; do
  [[ "$vals" == *"$v"* ]] || fail "gdb lacks '$v' at checkpoint $k:\n$vals"
done
[[ "$vals" != *"add    %al,(%rax)"* ]] || fail "code at the pc reads as zeros:\n$vals"

ours=$("$SLSDBG" backtrace "$T/rec" --at "$k" | grep -E '^#[0-9]+ ' | grep 'dump_chain\.c:' | \
       sed -E 's/^#[0-9]+ +0x[0-9a-f]+ in ([^+ ]+).*/\1/' | tr '\n' ' ')
[ "$ours" = "$fns" ] || fail "slsdbg backtrace '$ours' != gdb '$fns'"

lb=$(lldb --batch --no-lldbinit -c "$T/core" "$PROG" -o 'thread backtrace' 2>&1)
got=$(printf '%s\n' "$lb" | sed -nE 's/.*frame #[0-9]+: 0x[0-9a-f]+ dump_chain`([a-z][a-z_]*).*/\1/p' | tr '\n' ' ')
[ "$got" = "$fns" ] || fail "lldb frames '$got'\n$lb"
echo "test_dump_recorded: OK"
