#!/usr/bin/env bash
# Checks `slsdbg replay REC --goto MOMENT|--at K --print-regs --read --json` on
# a recording of tests/programs/timeline_counter: a moment in the middle of a
# segment (tl_mark's first run after some event of a middle segment) shows the
# iteration in rdi and the tl_total value the native run printed for it;
# --goto K:0:PC:1 with checkpoint K's own pc equals --at K; bad input is a
# one-line error with a nonzero exit.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/timeline_cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$SLSDBG" record -o "$tmp/rec" --interval 2 -- "$PROGRAMS/timeline_counter" 30 0 >"$tmp/native.out" 2>"$tmp/rec.err" ||
  { echo "recording failed: $(cat "$tmp/rec.err")"; exit 1; }
read -r total_addr mark_addr < <(sed -n 's/^addr tl_total=\(0x[0-9a-f]*\) tl_mark=\(0x[0-9a-f]*\) .*$/\1 \2/p' "$tmp/native.out")
[ -n "$total_addr" ] || { echo "no addresses in fixture output: $(head -2 "$tmp/native.out")"; exit 1; }
cps=$("$SLSDBG" info "$tmp/rec" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]))')
[ "$cps" -ge 4 ] || { echo "want >= 4 checkpoints, got $cps"; exit 1; }

field() {  # field JSON KEY.SUB
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); 
for k in sys.argv[2].split("."): d=d[int(k)] if isinstance(d,list) else d[k]
print(d)' "$1" "$2"
}

# --at K and --goto K:0:PC:1 (checkpoint K's own moment) agree.
k=$((cps / 2))
at=$("$SLSDBG" replay "$tmp/rec" --at "$k" --print-regs --json) || { echo "--at $k failed"; exit 1; }
rip=$(field "$at" regs.rip)
moment=$(field "$at" moment)
[ "$moment" = "$k:0:$rip:1" ] || { echo "--at $k: moment '$moment', want '$k:0:$rip:1'"; exit 1; }
again=$("$SLSDBG" replay "$tmp/rec" --goto "$k:0:$rip:1" --print-regs --json) || { echo "--goto $k:0:$rip:1 failed"; exit 1; }
[ "$(field "$again" regs)" = "$(field "$at" regs)" ] || { echo "registers differ: $at vs $again"; exit 1; }

# A moment inside a middle segment: tl_mark's first run after event e of
# segment s (some short segments hold no call of tl_mark: try the next).
found=""
for ((s = k; s < cps - 1 && ${#found} == 0; s++)); do
  for e in 0 1 2 3 4 5 6 7 8; do
    if out=$("$SLSDBG" replay "$tmp/rec" --goto "$s:$e:$mark_addr:1" --print-regs --read "$total_addr:8" --json 2>"$tmp/err"); then
      found=$out
      break
    fi
    grep -q "not in history" "$tmp/err" || { echo "--goto $s:$e:$mark_addr:1: $(cat "$tmp/err")"; exit 1; }
  done
done
[ -n "$found" ] || { echo "tl_mark never runs in segments $k.."; exit 1; }
i=$(( $(field "$found" regs.rdi) ))
hex=$(field "$found" memory.0.hex)
value=$(python3 -c 'import sys; print(int.from_bytes(bytes.fromhex(sys.argv[1]), "little", signed=True))' "$hex")
want=$(sed -n "s/^i=$i total=\([0-9]*\)$/\1/p" "$tmp/native.out")
[ -n "$want" ] && [ "$value" = "$want" ] ||
  { echo "at $(field "$found" moment): iteration $i, tl_total $value, native printed '$want'"; exit 1; }
text=$("$SLSDBG" replay "$tmp/rec" --goto "$(field "$found" moment)" --read "$total_addr:8")
[[ "$text" == *"moment $(field "$found" moment)"* && "$text" == *"$total_addr: $hex"* ]] ||
  { echo "text output: $text"; exit 1; }

expect_error() {  # expect_error WANT_SUBSTRING ARGS...
  local want=$1; shift
  local err rc
  err=$("$SLSDBG" replay "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -ne 0 ] || { echo "replay $*: exit 0"; exit 1; }
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "replay $*: not one line: $err"; exit 1; }
  [[ "$err" == *"$want"* ]] || { echo "replay $*: '$err' does not say '$want'"; exit 1; }
}
expect_error "expected K or K:E:PC:N" "$tmp/rec" --goto 1:2
expect_error "not a number" "$tmp/rec" --goto 1:x:0x10:1
expect_error "starts at 1" "$tmp/rec" --goto "1:0:$mark_addr:0"
expect_error "not in history" "$tmp/rec" --goto "1:0:$mark_addr:100000"
expect_error "no checkpoint $cps" "$tmp/rec" --at "$cps"
expect_error "not a checkpoint number" "$tmp/rec" --at x
expect_error "expected ADDR:LEN" "$tmp/rec" --at 0 --read 12
expect_error "LEN must be" "$tmp/rec" --at 0 --read 0x10:0
expect_error "cannot read 0x10" "$tmp/rec" --at 0 --read 0x10:8
expect_error "cannot be combined" "$tmp/rec" --check --at 0
expect_error "need --goto or --at" "$tmp/rec" --print-regs --check
expect_error "--goto needs a moment" "$tmp/rec" --goto
echo "timeline_cli: OK ($(field "$found" moment), iteration $i, tl_total $value)"
