#!/usr/bin/env bash
# Checks the group's consistent cuts (docs/formats/members.md "Group cuts"):
# the fixture group_pipe sends 1..N through a pipe from the parent to its
# forked child. info --json lists cuts naming both members; at every cut the
# number the child last read (`got`, from a core of its checkpoint in the
# cut) is at most the number the parent last began to write (`sent`, from
# its checkpoint in the same cut). The same check against the parent's
# checkpoint of the cut before fails at least once, so the check can fail.
# Both members replay --check OK; a bad group_cuts file is a one-line error.
. "$(dirname "$0")/replay_gdb_lib.sh"

prog="$PROGRAMS/group_pipe"
rec="$WORK/g.rec"
"$SLSDBG" record -o "$rec" --interval 5 -- "$prog" 4000 >"$WORK/g.out" 2>"$WORK/g.err" </dev/null ||
  { cat "$WORK/g.err"; die "recording group_pipe failed"; }
expect "$WORK/g.out" "^sent 4000, child exit 0$" "group_pipe ran to its end under record"
expect "$WORK/g.err" "^slsdbg: recorded 1 child process too .*, [1-9][0-9]* group cuts" "record counts the group cuts"
"$SLSDBG" info "$rec" --json >"$WORK/g.json" || die "info --json failed"
"$SLSDBG" info "$rec" >"$WORK/g.info" || die "info failed"
expect "$WORK/g.info" "^group cuts [1-9][0-9]* consistent cuts of the tree \(the last, [0-9]+, PID:checkpoint: [0-9]+:[0-9]+ [0-9]+:[0-9]+\)" \
  "info shows the group cuts"

# PARENT CHILD and, per cut, "ID PARENT_K CHILD_K" (at most 8, spread out).
"$PY" - "$WORK/g.json" >"$WORK/cuts" <<'PYEOF' || die "group cuts in info --json: $(cat "$WORK/g.json")"
import json, sys
j = json.load(open(sys.argv[1]))
procs = j["processes"]
assert len(procs) == 2, procs
parent, child = procs[0]["pid"], procs[1]["pid"]
n_cp = {p["pid"]: p["checkpoints"] for p in procs}
cuts = j["group_cuts"]
assert len(cuts) >= 3, f"only {len(cuts)} cuts"
last = {parent: -1, child: -1}
rows = []
for i, c in enumerate(cuts):
    assert c["id"] == i + 1, c
    ks = {m["pid"]: m["checkpoint"] for m in c["members"]}
    assert set(ks) == {parent, child}, c
    for p, k in ks.items():
        assert k < n_cp[p], f"cut {c['id']} names checkpoint {k} of {p}, which has {n_cp[p]}"
        assert k > last[p], f"cut {c['id']}: checkpoint {k} of {p} is not after the previous cut's"
        last[p] = k
    rows.append((c["id"], ks[parent], ks[child]))
step = max(1, len(rows) // 8)
print(parent, child, len(rows))
for r in rows[::step][:8]:
    print(*r)
PYEOF
read -r parent child total <"$WORK/cuts"
echo "members $parent $child, $(($(wc -l <"$WORK/cuts") - 1)) cuts checked of $total"

# value PID K VAR: VAR in member PID at its checkpoint K, through a core.
gdb_args_p=() gdb_args_c=()
while read -r id kp kc; do
  for m in p c; do
    if [ $m = p ]; then pid=$parent k=$kp; else pid=$child k=$kc; fi
    core="$WORK/$m.$k.core"
    [ -f "$core" ] || "$SLSDBG" dump "$rec" -p "$pid" --at "$k" -o "$core" -q >"$WORK/dump.out" 2>&1 ||
      { cat "$WORK/dump.out"; die "dump -p $pid --at $k failed"; }
  done
  gdb_args_p+=(-ex "core-file $WORK/p.$kp.core" -ex 'printf "sent %lu\n", sent')
  gdb_args_c+=(-ex "core-file $WORK/c.$kc.core" -ex 'printf "got %lu\n", got')
done < <(tail -n +2 "$WORK/cuts")
gdb -nx -batch "$prog" "${gdb_args_p[@]}" >"$WORK/p.gdb" 2>&1 || { cat "$WORK/p.gdb"; die "GDB on the parent's cores failed"; }
gdb -nx -batch "$prog" "${gdb_args_c[@]}" >"$WORK/c.gdb" 2>&1 || { cat "$WORK/c.gdb"; die "GDB on the child's cores failed"; }
mapfile -t sent < <(sed -n 's/^sent \([0-9]*\)$/\1/p' "$WORK/p.gdb")
mapfile -t got < <(sed -n 's/^got \([0-9]*\)$/\1/p' "$WORK/c.gdb")
ncuts=$(($(wc -l <"$WORK/cuts") - 1))
[ ${#sent[@]} -eq "$ncuts" ] && [ ${#got[@]} -eq "$ncuts" ] ||
  { cat "$WORK/p.gdb" "$WORK/c.gdb"; die "GDB printed ${#sent[@]} sent and ${#got[@]} got values for $ncuts cuts"; }
skewed=0
for ((i = 0; i < ncuts; i++)); do
  echo "cut: sent ${sent[$i]} got ${got[$i]}"
  [ "${got[$i]}" -le "${sent[$i]}" ] || die "a cut is not consistent: the child had read ${got[$i]}, the parent had begun to write only ${sent[$i]}"
  ((i > 0)) && [ "${got[$i]}" -gt "${sent[$((i - 1))]}" ] && skewed=$((skewed + 1))
done
# The control: the child's checkpoint against the parent's of the cut before.
[ "$skewed" -ge 1 ] || die "the check cannot fail: no child checkpoint read past the parent's previous cut"
echo "every cut consistent; $skewed of $((ncuts - 1)) mismatched pairs (the cut before) are not"
"$PY" -c 'import sys; sys.exit(0 if max(map(int, sys.argv[1:])) > 0 else 1)' "${got[@]}" || die "the child read nothing at any checked cut"

for p in "$parent" "$child"; do
  out=$(timeout 300 "$SLSDBG" replay "$rec" -p "$p" --check 2>&1 </dev/null) || die "replay -p $p --check: $out"
  grep -q '^OK' <<<"$out" || die "replay -p $p --check does not say OK: $out"
done
echo "both members replay --check OK"

# A bad group_cuts line: one line naming it, nonzero exit.
echo "x 1:2 3:4" >>"$rec/group_cuts"
out=$("$SLSDBG" info "$rec" 2>&1) && die "info accepted a bad group_cuts line"
[ "$(wc -l <<<"$out")" -eq 1 ] && grep -q "group_cuts line [0-9]*: 'x' is not a cut number" <<<"$out" ||
  die "a bad group_cuts line: not one line naming it: $out"
echo "PASS"
