#!/usr/bin/env bash
# A write watch that fires inside the patched breakpoint's trampoline
# (thr_watch_store: a worker's loop where nearly every instruction stores to
# table[i & 255] or is followed by such a store, so the patch reaching each
# checkpoint moves a store to the watched table[7]). The replay shows GDB the
# program's pc of the moved store, never the trampoline's, and a reverse
# continue from a forward watch stop lands before the store just reported
# (GDB's `record full` and rr do so; before, it skipped to the store before
# that one). Six rounds from checkpoints inside the loop: `monitor goto K`,
# three forward continues (each iteration i stores i, then i + 1 twice; GDB
# stops where the value changes), then a reverse-continue. Checked: every
# stop's pc is in `stores`, the values form the store sequence, the
# reverse stop swaps the last forward stop's values at the store
# instruction, and the replay's log names watch traps that fired in the
# trampoline.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/store.rec
record_threads "$rec" 10 "$PROGRAMS/thr_watch_store"
[ "$checkpoints" -ge 12 ] || die "only $checkpoints checkpoints: too few ticks inside the loop"
args=(-ex 'break stores' -ex 'continue' -ex 'watch table[7]')
for j in 1 2 3 4 5 6; do
  k=$((2 + j * (checkpoints - 5) / 7))
  args+=(-ex "echo ---round $k\n" -ex "monitor goto $k")
  for c in 1 2 3; do args+=(-ex 'continue' -ex 'info symbol $pc'); done
  args+=(-ex 'echo ---reverse\n' -ex 'reverse-continue' -ex 'info symbol $pc' -ex 'x/i $pc' -ex 'print table[7]')
done
out=$WORK/gdb.out
SLSDBG_LOG=debug replay_gdb "$rec" "$out" "${args[@]}"
"$PY" - "$out" <<'PYEOF' || exit 1
import re, sys
text = open(sys.argv[1]).read()
rounds = text.split("---round ")[1:]
if len(rounds) != 6: sys.exit("FAIL: %d rounds in the output" % len(rounds))
for r in rounds:
    k = r.split("\n", 1)[0]
    fwd, rev = r.split("---reverse", 1)
    user = lambda s: "\n".join(l for l in s.splitlines() if not l.startswith("slsdbg debug"))
    if "No symbol matches" in user(r) or "diverged" in r or "Remote failure" in r:
        sys.exit("FAIL: round %s: a stop outside the program's code or a failed move:\n%s" % (k, user(r)))
    pairs = [(int(a), int(b)) for a, b in re.findall(r"Old value = (\d+)\nNew value = (\d+)", fwd)]
    syms = re.findall(r"^stores \+ \d+ in section", user(fwd), re.M)
    if len(pairs) != 3 or len(syms) != 3: sys.exit("FAIL: round %s: %d watch stops, %d in stores:\n%s" % (k, len(pairs), len(syms), user(fwd)))
    for i, (old, new) in enumerate(pairs):
        if new % 256 not in (7, 8): sys.exit("FAIL: round %s: table[7] = %d is no value the loop stores there" % (k, new))
        if i > 0 and (old != pairs[i - 1][1] or new - old not in (1, 255)):
            sys.exit("FAIL: round %s: stop %d went %d -> %d after %d" % (k, i + 1, old, new, pairs[i - 1][1]))
    back = re.findall(r"Old value = (\d+)\nNew value = (\d+)", rev)
    if [(int(a), int(b)) for a, b in back] != [(pairs[-1][1], pairs[-1][0])]:
        sys.exit("FAIL: round %s: reverse-continue reported %s, not the last store %d -> %d undone:\n%s"
                 % (k, back, pairs[-1][0], pairs[-1][1], user(rev)))
    if not re.search(r"=> 0x[0-9a-f]+ <stores\+\d+>:\s+mov\s+%rax,\(", rev):
        sys.exit("FAIL: round %s: the reverse stop is not at a store instruction:\n%s" % (k, user(rev)))
    if not re.search(r"^\$\d+ = %d$" % pairs[-1][0], rev, re.M):
        sys.exit("FAIL: round %s: table[7] is not %d before the store" % (k, pairs[-1][0]))
moved = len(re.findall(r"trapped in the trampoline at 0x[0-9a-f]+: shown at", text))
if moved == 0: sys.exit("FAIL: no watch trap fired in a trampoline (the patch moved no watched store)")
print("replay_gdb_threads_watch_trampoline: OK (%d watch traps shown at the program's pc)" % moved)
PYEOF
