#!/usr/bin/env bash
# Checks `slsdbg dump` and `slsdbg backtrace` end to end on a real recording
# (`slsdbg record` of a process signalling itself three times at known points
# of a known call chain; each SIGUSR2 is a checkpoint): gdb shows the expected
# frames and values from each such checkpoint's core, and the program's code
# at a frame's pc (not a zero page), lldb the same frames, readelf every note,
# the core is mode 0600, `slsdbg backtrace` (text, --json, --disasm) agrees
# with gdb (also through a signal handler's frame), --at/--time/--last pick
# the right checkpoint, and each kind of bad input (checkpoint out of range,
# unwritable output, not a recording, damaged pages, truncated catalog, bad
# options) is a one-line error with nonzero exit.
set -u
fail() { echo "FAIL: $*"; exit 1; }
PROG="$PROGRAMS/dump_chain"
T=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-dump-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
REC="$T/rec"

# record REC MODE: one checkpoint at exec, one per signal, one at exit (no ticks).
record() {
  "$SLSDBG" record -o "$1" --interval 60000 -- "$PROG" "$2" >/dev/null 2>"$T/record.err" ||
    fail "could not record dump_chain $2: $(cat "$T/record.err")"
}
# signal_checkpoints REC: the ids of the checkpoints taken for a signal, in order.
signal_checkpoints() {
  "$SLSDBG" info "$1" --json | python3 -c '
import json, sys
print(" ".join(str(c["id"]) for c in json.load(sys.stdin)["checkpoints"] if c["reason"] == "signal"))'
}
record "$REC" steps
read -r -a AT <<<"$(signal_checkpoints "$REC")"
[ "${#AT[@]}" -eq 3 ] || fail "want 3 signal checkpoints, got '${AT[*]}': $("$SLSDBG" info "$REC")"
LAST=$("$SLSDBG" info "$REC" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["checkpoints"][-1]["id"])')

gdb_at() {  # gdb_at CORE GDB-ARGS...: gdb's output on a core
  local core=$1; shift
  gdb -batch -nx -ex 'set debuginfod enabled off' "$PROG" "$core" "$@" 2>&1
}
fixture_frames_gdb() {  # function names of gdb bt frames in the fixture's source
  grep -E '^#[0-9]+ ' | grep 'dump_chain\.c:' | sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ ]+) .*/\2/' | tr '\n' ' '
}
fixture_frames_ours() {  # the same from `slsdbg backtrace`
  grep -E '^#[0-9]+ ' | grep 'dump_chain\.c:' | sed -E 's/^#[0-9]+ +0x[0-9a-f]+ in ([^+ ]+).*/\1/' | tr '\n' ' '
}
one_line_error() {  # one_line_error WHAT EXPECTED-SUBSTRING CMD...
  local what=$1 want=$2; shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -ne 0 ] || fail "$what: exit status 0"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$what: error is not one line: $err"
  [[ "$err" == *"$want"* ]] || fail "$what: error does not say '$want': $err"
}

declare -A CHAIN=(
  [0]="main "
  [1]="dump_beta dump_alpha main "
  [2]="pause_here dump_gamma dump_beta dump_alpha main "
)
declare -A COUNTER=([0]=7 [1]=7 [2]=49)
code_at_pc='=> 0x[0-9a-f]+ <[a-z_]+[+][0-9]+>:[[:space:]]+[a-z]+'

for k in 0 1 2; do
  core="$T/core.$k"
  out=$("$SLSDBG" dump "$REC" --at "${AT[$k]}" -o "$core") || fail "dump --at ${AT[$k]} failed"
  [[ "$out" == *"checkpoint ${AT[$k]} "* ]] || fail "dump --at ${AT[$k]} summary: $out"
  [ "$(stat -c %a "$core")" = 600 ] || fail "core mode is $(stat -c %a "$core"), want 600"
  bt=$(gdb_at "$core" -ex bt -ex 'print dump_global_counter')
  got=$(printf '%s\n' "$bt" | fixture_frames_gdb)
  [ "$got" = "${CHAIN[$k]}" ] || fail "checkpoint $k: gdb frames '$got', want '${CHAIN[$k]}'\n$bt"
  [[ "$bt" == *"\$1 = ${COUNTER[$k]}"* ]] || fail "checkpoint $k: dump_global_counter not ${COUNTER[$k]}: $bt"
  # The fixture's frame: its code must be there, not a zero page ("add %al,(%rax)").
  code=$(gdb_at "$core" -ex "frame function ${CHAIN[$k]%% *}" -ex 'x/i $pc')
  [[ "$code" =~ $code_at_pc && "$code" != *'add    %al,(%rax)'* ]] ||
    fail "checkpoint $k: no code at the pc\n$code"
  ours=$("$SLSDBG" backtrace "$REC" --at "${AT[$k]}") || fail "backtrace --at ${AT[$k]} failed"
  got_ours=$(printf '%s\n' "$ours" | fixture_frames_ours)
  [ "$got_ours" = "$got" ] || fail "checkpoint $k: slsdbg backtrace '$got_ours' != gdb '$got'\n$ours"
done

# Values on the stack and in the heap at the known points.
v=$(gdb_at "$T/core.1" -ex 'frame function dump_beta' -ex 'print beta_local' -ex 'print dump_heap_node->id')
[[ "$v" == *'$1 = 1001'* && "$v" == *'$2 = 123456789'* ]] || fail "checkpoint 1 values: $v"
v=$(gdb_at "$T/core.0" -ex 'print dump_heap_node')
[[ "$v" == *'$1 = (struct dump_node *) 0x0'* ]] || fail "checkpoint 0: heap node already set: $v"
v=$(gdb_at "$T/core.2" -ex 'frame function dump_gamma' -ex 'print answer' -ex 'print word' -ex 'print ratio' \
    -ex 'print dump_heap_node->name')
[[ "$v" == *'$1 = 42'* && "$v" == *'$2 = "checkpoint'* && "$v" == *'$3 = 2.5'* && "$v" == *'$4 = "heap-node'* ]] \
  || fail "checkpoint 2 values: $v"

# A stack through a signal handler: the signal frame is where gdb has it.
record "$T/rec-signal" signal
SIG_AT=$(signal_checkpoints "$T/rec-signal"); SIG_AT=${SIG_AT##* }  # the handler's SIGUSR2
[ -n "$SIG_AT" ] || fail "no signal checkpoint in the signal recording"
"$SLSDBG" dump "$T/rec-signal" --at "$SIG_AT" -o "$T/core.signal" --quiet || fail "dump of the signal recording failed"
with_signal() { grep -E 'dump_chain\.c:|<signal handler called>' | sed -E 's/.*<signal handler called>.*/SIGNAL/' | \
  sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?([^ +]+).*/\2/' | tr '\n' ' '; }
got=$(gdb_at "$T/core.signal" -ex bt | with_signal)
want="dump_on_signal SIGNAL pause_here dump_gamma dump_beta dump_alpha main "
[ "$got" = "$want" ] || fail "gdb through the signal frame: '$got', want '$want'"
got_ours=$("$SLSDBG" backtrace "$T/rec-signal" --at "$SIG_AT" | with_signal)
[ "$got_ours" = "$want" ] || fail "slsdbg backtrace through the signal frame: '$got_ours', want '$want'"

# lldb loads the same core and shows the same frames, in order.
lb=$(lldb --batch --no-lldbinit -c "$T/core.2" "$PROG" -o 'thread backtrace' 2>&1)
got=$(printf '%s\n' "$lb" | sed -nE 's/.*frame #[0-9]+: 0x[0-9a-f]+ dump_chain`([a-z][a-z_]*).*/\1/p' | tr '\n' ' ')
[ "$got" = "${CHAIN[2]}" ] || fail "lldb frames '$got', want '${CHAIN[2]}'\n$lb"

# readelf lists every note.
notes=$(readelf -n "$T/core.2")
for n in NT_PRSTATUS NT_FPREGSET NT_X86_XSTATE NT_PRPSINFO NT_SIGINFO NT_AUXV NT_FILE; do
  [[ "$notes" == *"$n"* ]] || fail "readelf -n lacks $n"
done

# backtrace --json and --disasm.
json=$("$SLSDBG" backtrace "$REC" --at "${AT[2]}" --json --disasm) || fail "backtrace --json failed"
printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["checkpoint"] == int(sys.argv[1]), d["checkpoint"]
fns = [f["function"] for f in d["threads"][0]["frames"]]
want = ["pause_here", "dump_gamma", "dump_beta", "dump_alpha", "main"]
i = fns.index("pause_here")
assert fns[i:i + 5] == want, fns
assert any(x["at_pc"] for x in d["threads"][0]["disasm"]), "no instruction at the pc"
' "${AT[2]}" || fail "backtrace --json: $json"
"$SLSDBG" backtrace "$REC" --at "${AT[2]}" --disasm | grep -qE '^=> 0x[0-9a-f]{16} ' || fail "--disasm does not mark the pc"

# --time and --last.
out=$("$SLSDBG" dump "$REC" --last -o "$T/last.core") || fail "dump --last failed"
[[ "$out" == *"checkpoint $LAST "* ]] || fail "--last picked: $out"
out=$("$SLSDBG" dump "$REC" --time 1000 -o "$T/time.core") || fail "dump --time 1000 failed"
[[ "$out" == *"checkpoint $LAST "* ]] || fail "--time 1000 picked: $out"
(cd "$T" && "$SLSDBG" dump "$REC" --at 1 --quiet) || fail "dump with the default output name failed"
[ -s "$T/dump_chain.1.core" ] || fail "default output name is not PROGRAM.K.core"

"$SLSDBG" backtrace "$REC" --last | head -1 | grep -q "^checkpoint $LAST " || fail "backtrace --last is not checkpoint $LAST"
"$SLSDBG" backtrace "$REC" --time 1000 | head -1 | grep -q "^checkpoint $LAST " ||
  fail "backtrace --time 1000 is not checkpoint $LAST"

# Bad input.
one_line_error "checkpoint out of range" "checkpoint 99 out of range (recording has checkpoints 0..$LAST)" \
  "$SLSDBG" dump "$REC" --at 99 -o "$T/x.core"
one_line_error "backtrace out of range" "out of range" "$SLSDBG" backtrace "$REC" --at $((LAST + 1))
# (The recorder's first checkpoint is at time 0, so no --time lies before it:
# checkpoint_pick_test covers that error.)
one_line_error "negative --time" "needs seconds" "$SLSDBG" dump "$REC" --time -1 -o "$T/x.core"
one_line_error "unwritable output" "cannot create $T/no/such/dir/core" \
  "$SLSDBG" dump "$REC" --at 0 -o "$T/no/such/dir/core"
one_line_error "no checkpoint choice" "exactly one of" "$SLSDBG" dump "$REC"
one_line_error "two checkpoint choices" "exactly one of" "$SLSDBG" dump "$REC" --at 1 --last
one_line_error "bad --at" "needs a checkpoint id" "$SLSDBG" dump "$REC" --at x
one_line_error "backtrace without a checkpoint" "exactly one of" "$SLSDBG" backtrace "$REC"
mkdir "$T/empty"
one_line_error "not a recording" "$T/empty" "$SLSDBG" dump "$T/empty" --last
one_line_error "backtrace of not a recording" "$T/empty" "$SLSDBG" backtrace "$T/empty" --at 0

# Damaged pages: garbage over the stored blocks (past the extent header).
cp -r "$REC" "$T/damaged"
python3 -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(4096)
    f.write(bytes([0xA5]) * (2 << 20))
' "$T/damaged/pages/000000.ext"
one_line_error "damaged pages (dump)" "checkpoint ${AT[2]}" "$SLSDBG" dump "$T/damaged" --at "${AT[2]}" -o "$T/damaged.core"
[ ! -e "$T/damaged.core" ] || fail "a failed dump left a partial core"
one_line_error "damaged pages (backtrace)" "checkpoint ${AT[2]}" "$SLSDBG" backtrace "$T/damaged" --at "${AT[2]}"

# Truncated catalog.
cp -r "$REC" "$T/truncated"
rm -f "$T/truncated"/catalog.db-wal "$T/truncated"/catalog.db-shm
truncate -s 1000 "$T/truncated/catalog.db"
one_line_error "truncated catalog" "$T/truncated" "$SLSDBG" dump "$T/truncated" --last -o "$T/t.core"
echo "test_dump_cli: OK"
