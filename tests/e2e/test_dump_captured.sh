#!/usr/bin/env bash
# Checks `slsdbg dump` and `slsdbg backtrace` on checkpoints taken by the
# recorder's own checkpoint capture (recorder/capture, real dirty-page
# tracking) of dump_chain stopping itself at three known points: gdb and
# lldb show the expected call chains and values, the code at every frame's
# pc is the program's code (not zero pages), and `slsdbg backtrace` agrees.
set -u
fail() { echo "FAIL: $*"; exit 1; }
PROG="$PROGRAMS/dump_chain"
T=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-dump-captured.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$SLSDBG_BUILD_DIR/engine/dump/dump_record_captured" "$T/rec" "$PROG" steps || fail "could not record with capture"

declare -A CHAIN=(
  [0]="main "
  [1]="dump_beta dump_alpha main "
  [2]="pause_here dump_gamma dump_beta dump_alpha main "
)
declare -A COUNTER=([0]=7 [1]=7 [2]=49)
for k in 0 1 2; do
  "$SLSDBG" dump "$T/rec" --at "$k" -o "$T/core.$k" --quiet || fail "dump --at $k failed"
  bt=$(gdb -batch -nx -ex 'set debuginfod enabled off' "$PROG" "$T/core.$k" -ex bt -ex 'print dump_global_counter' 2>&1)
  code=$(gdb -batch -nx -ex 'set debuginfod enabled off' "$PROG" "$T/core.$k" -ex 'frame 3' -ex 'x/i $pc' 2>&1)
  got=$(printf '%s\n' "$bt" | grep -E '^#[0-9]+ ' | grep 'dump_chain\.c:' | \
        sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ ]+) .*/\2/' | tr '\n' ' ')
  [ "$got" = "${CHAIN[$k]}" ] || fail "checkpoint $k: gdb frames '$got', want '${CHAIN[$k]}'\n$bt"
  [[ "$bt" == *"\$1 = ${COUNTER[$k]}"* ]] || fail "checkpoint $k: counter not ${COUNTER[$k]}\n$bt"
  # Frame 3 is the fixture's: its code must be there, not a zero page ("add %al,(%rax)").
  code_at_pc='=> 0x[0-9a-f]+ <[a-z_]+[+][0-9]+>:[[:space:]]+[a-z]+'
  [[ "$code" =~ $code_at_pc && "$code" != *'add    %al,(%rax)'* ]] || fail "checkpoint $k: no code at the pc\n$code"
  ours=$("$SLSDBG" backtrace "$T/rec" --at "$k" | grep -E '^#[0-9]+ ' | grep 'dump_chain\.c:' | \
         sed -E 's/^#[0-9]+ +0x[0-9a-f]+ in ([^+ ]+).*/\1/' | tr '\n' ' ')
  [ "$ours" = "$got" ] || fail "checkpoint $k: slsdbg backtrace '$ours' != gdb '$got'"
done
v=$(gdb -batch -nx "$PROG" "$T/core.2" -ex 'frame function dump_gamma' -ex 'print answer' -ex 'print *dump_heap_node' 2>&1)
[[ "$v" == *'$1 = 42'* && "$v" == *'$2 = {id = 123456789, name = "heap-node'* ]] || fail "checkpoint 2 values: $v"
lb=$(lldb --batch --no-lldbinit -c "$T/core.2" "$PROG" -o 'thread backtrace' 2>&1)
got=$(printf '%s\n' "$lb" | sed -nE 's/.*frame #[0-9]+: 0x[0-9a-f]+ dump_chain`([a-z][a-z_]*).*/\1/p' | tr '\n' ' ')
[ "$got" = "${CHAIN[2]}" ] || fail "lldb frames '$got'\n$lb"
echo "test_dump_captured: OK"
