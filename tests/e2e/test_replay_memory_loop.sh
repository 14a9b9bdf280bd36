#!/usr/bin/env bash
# replay --check reaches ticks inside loops whose state lives in memory:
# every visit of the tick's pc has the recorded registers, so the patched
# breakpoint also compares a memory word that differed at a wrong visit.
# Before, each visit trapped and compared pages; mawk's 70 ms loop took
# minutes to replay. The rec_memloop fixture: mawk's own loop is not a case,
# because some of its pcs take no patch at all (a `ret` near them in a
# function with an indirect jump) and still trap at every visit.
source "$(dirname "$0")/record_lib.sh"
check() {  # check NAME PROGRAM ARGS...
  local name=$1; shift
  "$@" >"$WORK/$name.native" || die "$name: native run failed"
  "$SLSDBG" record -o "$WORK/$name.rec" -- "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
    die "$name: record failed: $(tail -3 "$WORK/$name.err")"
  cmp -s "$WORK/$name.native" "$WORK/$name.out" || die "$name: output differs from native"
  local start=$SECONDS out
  out=$(SLSDBG_LOG=debug timeout 60 "$SLSDBG" replay "$WORK/$name.rec" --check 2>"$WORK/$name.log") ||
    die "$name: replay --check failed or took over 60 s ($((SECONDS - start)) s): $out"
  [[ "$out" == OK:*" 0 segments replayed again"* ]] || die "$name: replay --check: $out"
  words=$(grep -c 'the patch compares [0-9]* memory word' "$WORK/$name.log")
  echo "$name ($((SECONDS - start)) s, $words patch refits): $out"
  total=$((total + words))
}
total=0
check memloop "$PROGRAMS/rec_memloop" 3e7
# The ticks land at random pcs; at some of them registers do tell visits
# apart. Over ~30 ticks in this loop, some did not.
[ "$total" -gt 0 ] || die "no tick needed a memory word: the case is not exercised"
echo "replay_memory_loop: OK"
