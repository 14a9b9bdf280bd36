#!/usr/bin/env bash
# Reverse steps in a segment whose closing checkpoint stands on the loop's
# count site (#20): thr_revstep_far's worker loop has one instruction long
# enough for a counter stub, the store to `step`. When a tick stopped the
# worker there, the reverse steps that count it (the ways into the three
# short instructions after it) put their counter where the checkpoint's
# patched breakpoint goes; that breakpoint gave way to a perf breakpoint,
# which ran past the checkpoint in the hot loop: "checkpoint N not reached
# within 3 s" at every reverse-stepi from the 8th on (CI, stop 40). Now such
# a site is not counted. Recordings at 1 ms ticks until one has a
# checkpoint on the store (at most 30: about one in ten has one); from it,
# reverse-stepi x M and stepi x M retrace each other.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_revstep_far.c
prog=$PROGRAMS/thr_revstep_far
stepl=$(line_of STEP "$src")
M=12

# scan.gdb: the checkpoints whose worker stands on the store (the line's
# second instruction).
scan=$WORK/scan.gdb
write_scan() {  # write_scan CHECKPOINTS
  cat >"$scan" <<GDB
break thr_revstep_far.c:$stepl
continue
delete
python
lo = int(gdb.execute("info line thr_revstep_far.c:$stepl", to_string=True).split("starts at address ")[1].split()[0], 16)
store = int(gdb.execute("x/2i %d" % lo, to_string=True).splitlines()[1].split()[0].rstrip(":"), 16)
for k in range($1):
    gdb.execute("monitor goto %d" % k, to_string=True)
    gdb.execute("maintenance flush register-cache", to_string=True)
    try:
        gdb.execute("thread 2", to_string=True)
    except gdb.error:
        continue
    if int(gdb.parse_and_eval("\$pc")) == store:
        print("ON_STORE %d %#x" % (k, store))
end
GDB
}

rec=$WORK/ticks.rec
found=
for try in $(seq 30); do
  record "$rec" 1 "$prog"
  write_scan "$checkpoints"
  replay_gdb "$rec" "$WORK/scan.out" -x "$scan"
  found=$(grep -m1 '^ON_STORE ' "$WORK/scan.out" | cut -d' ' -f2) && [ -n "$found" ] && break
done
[ -n "$found" ] || { echo "no checkpoint of 30 recordings stood on the store: not exercised"; exit 0; }
echo "recording $try: checkpoint $found stands on the store"

script=$WORK/back.gdb
{
  echo "break thr_revstep_far.c:$stepl"
  echo "continue"
  echo "delete"
  echo "monitor goto $found"
  echo 'maintenance flush register-cache'
  echo 'thread 2'
  echo 'printf "START %#lx\n", $pc'
  for _ in $(seq $M); do echo 'reverse-stepi'; echo 'printf "CBACK %#lx\n", $pc'; done
  for _ in $(seq $M); do echo 'stepi'; echo 'printf "CFWD %#lx\n", $pc'; done
} >"$script"
for patch in on miss; do
  out=$WORK/back_$patch.out
  if [ $patch = miss ]; then SLSDBG_REPLAY_PATCH=miss replay_gdb "$rec" "$out" -x "$script"; else replay_gdb "$rec" "$out" -x "$script"; fi
  ! grep -q 'not reached within' "$out" || { cat "$out"; die "a reverse step missed the checkpoint ($patch)"; }
  grep '^CBACK ' "$out" | cut -d' ' -f2 >"$WORK/back"
  grep '^CFWD ' "$out" | cut -d' ' -f2 >"$WORK/fwd"
  [ "$(sort -u "$WORK/back" | wc -l)" -ge 8 ] || { cat "$out"; die "reverse-stepi stood still ($patch)"; }
  { head -n $((M - 1)) "$WORK/back" | tac; grep '^START ' "$out" | cut -d' ' -f2; } >"$WORK/want"
  diff "$WORK/want" "$WORK/fwd" || { cat "$out"; die "stepi after reverse-stepi does not retrace it ($patch)"; }
  echo "from checkpoint $found ($patch): OK"
done
echo "replay_gdb_threads_revstep_on_count_site: OK"
