#!/usr/bin/env bash
# Reverse stepping at a moment reached as the bench reaches it (#20): GDB's
# ignore count after disable/enable (a path of Continue legs), then stepi 25,
# which lands on revstep_mix's entry about 1.05*10^7 instructions after the
# recording's only checkpoint of that stretch. The first reverse-stepi names
# that moment, then the call before it; the second run of that naming starts
# from a copy kept at another pc that knows the counts it needs
# (moment_snapshots.h; SLSDBG_LOG=debug says "(another pc)"). reverse-stepi
# x25 must retrace the forward single-step trace, and reverse-next x3 from the
# hit must land on the right lines and iterations; reverse-stepi 2..25 make
# at most 12 runs from the checkpoint (monitor stats: snapshot forks). Again
# with the checkpoint patch disabled (SLSDBG_REPLAY_PATCH=miss).
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/revstep_far.c
mark=$(line_of FAR_MARK "$src")
call=$(line_of FAR_CALL "$src")
S=25  # FAR_MARK + 25 instructions: revstep_mix's entry (its 1st call of this iteration)
script=$WORK/copies.gdb
{
  echo "break revstep_far.c:$mark"
  echo "ignore 1 20"
  echo "continue"
  echo "disable 1"
  echo "enable 1"
  echo "ignore 1 110"
  echo "continue"
  echo "disable 1"
  echo 'printf "HIT i=%ld\n", i'
  for _ in $(seq $S); do echo 'stepi'; echo 'printf "FWD %#lx\n", $pc'; done
  echo 'printf "FN %s\n", $_fn'
  for k in $(seq $S); do
    echo 'reverse-stepi'; echo 'printf "BACK %#lx\n", $pc'
    [ "$k" -eq 1 ] || [ "$k" -eq $S ] && echo 'monitor stats'
  done
  echo 'printf "START %#lx i=%ld line=%d\n", $pc, i, $_line_of_pc'
  for _ in 1 2 3; do echo 'reverse-next'; echo 'printf "RNEXT line=%d i=%ld\n", $_line_of_pc, i'; done
} >"$script"
hook=$WORK/hook.gdb
cat >"$hook" <<'GDB'
define hook-stop
  python gdb.set_convenience_variable("_line_of_pc", gdb.find_pc_line(gdb.selected_frame().pc()).line)
  python gdb.set_convenience_variable("_fn", gdb.selected_frame().name() or "?")
end
GDB

rec=$WORK/copies.rec
# One checkpoint before main; iteration 131 is ~1.05*10^7 instructions in
# (~80,000 a iteration).
record "$rec" 60000 "$PROGRAMS/revstep_far" 150 4000

check() {  # check OUT
  local out=$1
  expect "$out" '^HIT i=131$' "the 132nd hit of the marked line"
  expect "$out" '^FN revstep_mix$' "stepi $S from the hit ends in revstep_mix"
  grep '^FWD ' "$out" | cut -d' ' -f2 >"$WORK/fwd"
  grep '^BACK ' "$out" | cut -d' ' -f2 >"$WORK/back"
  [ "$(wc -l <"$WORK/fwd")" -eq $S ] && [ "$(wc -l <"$WORK/back")" -eq $S ] || { cat "$out"; die "steps missing"; }
  # BACK k is the position before FWD (S-k+1): FWD S-1 .. FWD 1, then the hit itself.
  { head -n $((S - 1)) "$WORK/fwd" | tac; grep '^START ' "$out" | cut -d' ' -f2; } >"$WORK/want_back"
  diff "$WORK/want_back" "$WORK/back" || { cat "$out"; die "reverse-stepi does not retrace the forward steps"; }
  expect "$out" "^START 0x[0-9a-f]+ i=131 line=$mark\$" "back at the hit"
  grep '^RNEXT ' "$out" >"$WORK/rnext"
  printf 'RNEXT line=%s i=131\nRNEXT line=%s i=130\nRNEXT line=%s i=130\n' "$call" "$((call - 1))" "$mark" >"$WORK/want_rnext"
  diff "$WORK/want_rnext" "$WORK/rnext" || { cat "$out"; die "reverse-next lands elsewhere"; }
  # Reverse steps 2..S start from copies kept near the position, not from
  # the checkpoint: a fall-through step whose position was reached from a
  # copy at another pc lends the counts to that copy too (before: a run
  # from the checkpoint every other step, 29 in these 24 steps; now 7).
  mapfile -t forks < <(sed -n 's/^restores [0-9]*, snapshot forks \([0-9]*\),.*/\1/p' "$out")
  [ "${#forks[@]}" -eq 2 ] || { cat "$out"; die "monitor stats printed ${#forks[@]} times, expected 2"; }
  echo "runs from a checkpoint in reverse-stepi 2..$S: $((forks[1] - forks[0]))"
  [ $((forks[1] - forks[0])) -le 12 ] || die "reverse-stepi 2..$S ran from the checkpoint $((forks[1] - forks[0])) times"
}

out=$WORK/copies.out
t0=$(date +%s%N)
SLSDBG_LOG=debug replay_gdb "$rec" "$out" -x "$hook" -x "$script"
t1=$(date +%s%N)
check "$out"
expect "$out" 'from the copy at .* \(another pc\)' "a run started from a copy kept at another pc"
# main's loop body falls through instruction by instruction: each of those
# reverse-stepi is named from the copies at the next pc, never refused (a
# counter stub placed while a copy stood inside its moved bytes counted the
# debug register's arrival twice, so the check always failed there).
expect "$out" 'by the copies at 0x[0-9a-f]+:1.s arrivals' "an instruction named from the copies at the next pc"
# The loop's top (0x...21a) and condition are branch targets: named by the
# jump that ran last (timeline_jumped_before.cc), not by tracing an iteration.
expect "$out" 'one of [0-9] ways to [0-9]+:[0-9]+:0x[0-9a-f]+:[0-9]+$' "an instruction named by the jump that ran last"
if grep -q 'from the copies at .* is not the instruction before it' "$out"; then
  grep 'is not the instruction before it' "$out"
  die "the fall-through path was refused"
fi
echo "patched: $(((t1 - t0) / 1000000)) ms"
out2=$WORK/copies_miss.out
SLSDBG_REPLAY_PATCH=miss replay_gdb "$rec" "$out2" -x "$hook" -x "$script"
t2=$(date +%s%N)
check "$out2"
echo "SLSDBG_REPLAY_PATCH=miss: $(((t2 - t1) / 1000000)) ms"
echo "travel_reverse_far_copies: OK"
