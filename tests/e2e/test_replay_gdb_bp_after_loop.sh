#!/usr/bin/env bash
# A breakpoint on the line after a hot loop, with a checkpoint on the loop's
# conditional jump (#20): a jump patched at that pc would cover the
# debugger's int3 on the next line, so the replay used to reach that
# checkpoint another way: the single-thread replay by a debug exception per
# visit (`continue` ran for minutes), the threaded one through the perf
# breakpoint, which the kernel throttles in a hot loop (it ran past the
# match: "checkpoint N not reached within 3 s of CPU time", seen in CI in
# e2e_replay_gdb_threads_revstep_far). Now an anchor before the jump (the
# loop's compare) carries the patch. For tight_loop (main thread) and
# thr_tight_loop (a worker), a 3-instruction loop: records at 1 ms ticks
# until a checkpoint stands on that jump (the replay's debug log names each
# arrival's pc and how it was reached), and checks that GDB's continue
# stops at the line after the loop with the loop's count, every time, with
# that checkpoint reached by a patch.
. "$(dirname "$0")/replay_gdb_lib.sh"
n=10000000

# try_program NAME SHAPE-REGEX PATCH-REGEX: in the replay's debug log,
# SHAPE-REGEX marks an arrival at the jump (PC stands for its address) and
# PATCH-REGEX its patch.
try_program() {
  local name=$1 prog=$PROGRAMS/$1 src=$FIXTURE_SRC/$1.c after after_addr jump pc try rec out
  after=$(line_of AFTER "$src")
  # The loop's conditional jump: the instruction right before the line after it.
  after_addr=$(gdb -nx -batch -ex "info line $name.c:$after" "$prog" | sed -n 's/.*starts at address \(0x[0-9a-f]*\).*/\1/p')
  [ -n "$after_addr" ] || die "$name: no address for line $after"
  jump=$(gdb -nx -batch -ex "x/i $((after_addr - 2))" "$prog")
  [[ "$jump" == *j[a-z]*" "* ]] || die "$name: the instruction before line $after is not a 2-byte jump: $jump"
  pc="0x[0-9a-f]*$(printf '%03x' $(((after_addr - 2) & 0xfff)))"  # PIE: the page offset
  for try in $(seq 8); do
    rec=$WORK/$name.$try.rec
    record "$rec" 1 "$prog"
    expect "$rec.out" "^$((n + 1))\$" "$name: the recorded run's output"
    out=$WORK/$name.$try.out
    # Seconds with the patch; a debug exception per visit took minutes.
    SLSDBG_LOG=debug timeout 120 "$SLSDBG" replay "$rec" -- -nx -batch -ex "break $name.c:$after" -ex 'continue' \
      -ex 'printf "I %ld\n", i' >"$out" 2>&1 </dev/null || { cat "$out" | grep -v '^slsdbg debug' | tail -20; die "$name: replay (recording $try) failed or timed out"; }
    expect "$out" "^I $n\$" "$name: continue to the line after the loop (recording $try)"
    if grep -Eq "${2//PC/$pc}" "$out"; then
      expect "$out" "${3//PC/$pc}" "$name: the checkpoint on the loop's jump is reached by a patch"
      echo "$name: a checkpoint on the loop's jump (recording $try): OK"
      return
    fi
    rm -rf "$rec"
  done
  die "$name: no checkpoint landed on the loop's jump in 8 recordings at 1 ms ticks"
}
try_program tight_loop "at checkpoint [0-9]+'s pc PC\$" "patched breakpoint at PC "
try_program thr_tight_loop "armed at PC \(" "armed at PC \(patched breakpoint\)"
echo "replay_gdb_bp_after_loop: OK"
