#!/usr/bin/env bash
# Counting while a watchpoint is armed (#20). bisect_bank writes `bank` once
# per transfer in a straight-line hot loop. With GDB's `watch bank.word`
# in the middle of a segment:
#  - `continue` twice stops right after the next two writes that change
#    the ledger. GDB's `watch` passes a write of the value already there
#    (bisect_bank has one in ~20 transfers: an amount of 0, or an empty
#    account), so the start is picked right before such a write: the first
#    `continue` passes it, the second stops at the next transfer's write.
#    bisect_bank_same (the fixture's own code, run natively) says which
#    transfers those are;
#  - `monitor when` names the stop's moment: resolving it counts the stop's
#    pc in the tracee with the watchpoint still armed, so `monitor stats`
#    shows no probe trap (a debug-register count traps once per earlier
#    transfer of the segment: thousands, as SLSDBG_REPLAY_COUNT=trap shows);
#  - `reverse-continue` goes back before the second write, and `monitor
#    goto` to the moment `monitor when` named comes back to the same
#    transfer and values;
#  - `monitor last-write` of the 8 bytes names the commit line.
# Every case with the checkpoint patch on and with SLSDBG_REPLAY_PATCH=miss.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/bisect_bank.c
commit_line=$(grep -n 'commit both balances' "$src" | head -1 | cut -d: -f1)
rec=$WORK/bank.rec
record "$rec" 10 "$PROGRAMS/bisect_bank" 1500000 9999999  # no bug: exit 0
[ "$checkpoints" -ge 6 ] || die "only $checkpoints checkpoints"
mid=$(( checkpoints / 2 ))
echo "recorded: $checkpoints checkpoints; watching from checkpoint $mid"

moment_of() { sed -n 's/^Current moment: \([0-9]*:[0-9]*:0x[0-9a-f]*:[0-9]*\) .*/\1/p' "$1" | head -1; }
probe_traps_of() { sed -n 's/^probe traps: //p' "$1" | head -1; }
# The pc right after the commit's write, then a moment 2000 transfers into
# the segment there: the watchpoint stops below lie deep in a hot loop.
replay_gdb "$rec" "$WORK/first.out" -ex "monitor goto $mid" -ex 'watch bank.word' -ex 'continue' \
  -ex 'print current_transfer' -ex 'monitor when'
first=$(moment_of "$WORK/first.out")
[ -n "$first" ] || { cat "$WORK/first.out"; die "no moment for the first write"; }
first_tr=$(sed -n 's/^\$[0-9]* = \([0-9]*\)$/\1/p' "$WORK/first.out" | head -1)
[ -n "$first_tr" ] || { cat "$WORK/first.out"; die "no transfer for the first write"; }
# Every transfer passes the commit's pc once: transfer first_tr + d is the
# moment's count + d. The start: right after the write of transfer same - 1,
# where transfer `same` commits an unchanged ledger and its neighbours do not.
mapfile -t sames < <("$PROGRAMS/bisect_bank_same" 1500000 9999999 $(( first_tr + 2000 )) 2000)
is_same() { printf '%s\n' "${sames[@]}" | grep -qx "$1"; }
same=
for s in "${sames[@]}"; do
  if ! is_same $(( s - 1 )) && ! is_same $(( s + 1 )) && ! is_same $(( s + 2 )); then same=$s; break; fi
done
[ -n "$same" ] || die "no lone unchanged write among transfers $(( first_tr + 2000 ))..$(( first_tr + 3999 ))"
start_tr=$(( same - 1 ))
deep=${first%:*}:$(( ${first##*:} + start_tr - first_tr ))
echo "first write after checkpoint $mid: $first (transfer $first_tr); starting at $deep (transfer $start_tr; $same writes the same ledger)"

session() {  # session OUT: the GDB session from $deep
  replay_gdb "$rec" "$1" \
    -ex "monitor goto $deep" -ex 'maint flush register-cache' \
    -ex 'print current_transfer' \
    -ex 'watch bank.word' \
    -ex 'continue' -ex 'print current_transfer' \
    -ex 'continue' -ex 'print current_transfer' \
    -ex 'print/x bank.word' \
    -ex 'monitor when' \
    -ex 'monitor stats' \
    -ex 'reverse-continue' -ex 'print current_transfer' \
    -ex 'eval "monitor last-write %p 8", &bank' \
    -ex 'delete'
}
for patch in on miss; do
  [ $patch = miss ] && export SLSDBG_REPLAY_PATCH=miss
  out=$WORK/gdb.$patch.out
  t0=$(date +%s.%N)
  session "$out"
  echo "($patch) gdb session: $(echo "$(date +%s.%N) - $t0" | bc) s"
  mapfile -t tr < <(sed -n 's/^\$[0-9]* = \([0-9]*\)$/\1/p' "$out")
  [ "${#tr[@]}" -ge 4 ] || { cat "$out"; die "($patch) four transfers printed expected"; }
  [ "${tr[0]}" -eq "$start_tr" ] || die "($patch) goto $deep: transfer ${tr[0]}, expected $start_tr"
  [ "${tr[1]}" -eq $(( same + 1 )) ] || die "($patch) continue: transfer ${tr[1]}, expected $(( same + 1 )) (past $same's unchanged ledger)"
  [ "${tr[2]}" -eq $(( same + 2 )) ] || die "($patch) continue: transfers ${tr[1]} then ${tr[2]}, not consecutive"
  [ "${tr[3]}" -eq "${tr[2]}" ] || die "($patch) reverse-continue: transfer ${tr[3]}, expected ${tr[2]} (before its write)"
  expect "$out" "^Hardware watchpoint [0-9]+: bank.word" "($patch) the watchpoint is set"
  expect "$out" "^Old value = " "($patch) reverse-continue reports the write"
  m=$(moment_of "$out")
  [ -n "$m" ] || { cat "$out"; die "($patch) monitor when named no moment"; }
  traps=$(probe_traps_of "$out")
  echo "($patch) stop at $m, transfers ${tr[1]}, ${tr[2]}; probe traps: $traps"
  [ "$m" = "${first%:*}:$(( ${first##*:} + same + 2 - first_tr ))" ] || die "($patch) moment $m: not transfer $(( same + 2 ))'s write"
  [ "$traps" -le 2 ] || die "($patch) $traps probe traps: the stop's moment was counted by trapping"
  expect "$out" "^  by 0x[0-9a-f]+: .* in transfer\+0x[0-9a-f]+ at .*bisect_bank\.c:$commit_line$" "($patch) last-write names the commit line"
  # The moment named is the same place: goto it and look.
  out2=$WORK/goto.$patch.out
  replay_gdb "$rec" "$out2" -ex "monitor goto $m" -ex 'maint flush register-cache' \
    -ex 'print current_transfer' -ex 'print/x bank.word'
  expect "$out2" "^\\\$1 = ${tr[2]}$" "($patch) goto $m: transfer ${tr[2]}"
  word=$(sed -n 's/^\$[0-9]* = \(0x[0-9a-f]*\)$/\1/p' "$out" | head -1)
  expect "$out2" "^\\\$2 = $word$" "($patch) goto $m: bank.word $word"
  unset SLSDBG_REPLAY_PATCH
done
# The same resolve by debug-register traps only: thousands of probe traps.
SLSDBG_REPLAY_COUNT=trap replay_gdb "$rec" "$WORK/trap.out" \
  -ex "monitor goto $deep" -ex 'maint flush register-cache' -ex 'watch bank.word' \
  -ex 'continue' -ex 'continue' -ex 'monitor when' -ex 'monitor stats'
[ "$(moment_of "$WORK/trap.out")" = "$(moment_of "$WORK/gdb.on.out")" ] || die "counted by traps: another moment"
echo "(trap) probe traps: $(probe_traps_of "$WORK/trap.out")"
[ "$(probe_traps_of "$WORK/trap.out")" -ge 100 ] || die "counting by traps made few traps: the fixture does not test counting"
echo "travel_watch_counted: OK"
