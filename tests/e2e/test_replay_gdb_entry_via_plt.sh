#!/usr/bin/env bash
# reverse-stepi at the entry of a libc function a program calls through its
# PLT (gzip's write): the previous instruction is the PLT's `jmp *GOT`, or
# on the first call the lazy resolver's `jmp *%r11`, which no code decoding
# names. The replay used to single-step there from the previous event,
# through all the compression in between (gzip's first write: minutes, then
# GDB's timeout). Now it steps from the caller's call (found from the return
# address) through the stub. Checks the landing on both calls, and that one
# stepi from it is the same moment as before; reverse-next back to the call.
. "$(dirname "$0")/replay_gdb_lib.sh"
command -v gzip >/dev/null || die "gzip is not installed"
seq 1 400000 >"$WORK/in.txt"
record "$WORK/gz.rec" 10 gzip -c -n "$WORK/in.txt"
gzip -c -n "$WORK/in.txt" | cmp -s - "$WORK/gz.rec.out" || die "gzip's recorded output differs from a native run"
out=$WORK/gdb.out
# Seconds now; the trace from the previous event took minutes.
timeout 300 "$SLSDBG" replay "$WORK/gz.rec" -- -nx -batch -ex 'set pagination off' -ex 'set breakpoint pending on' \
  -ex 'break write' -ex 'continue' -ex 'echo M1 \n' -ex 'monitor when' \
  -ex 'reverse-stepi' -ex 'echo R1 \n' -ex 'x/i $pc' -ex 'stepi' -ex 'echo S1 \n' -ex 'monitor when' \
  -ex 'reverse-next' -ex 'echo N1 \n' -ex 'x/i $pc' -ex 'continue' \
  -ex 'continue' -ex 'reverse-stepi' -ex 'echo R2 \n' -ex 'x/i $pc' -ex 'echo END\n' >"$out" 2>&1 </dev/null \
  || { tail -30 "$out"; die "slsdbg replay failed or timed out"; }
expect "$out" '^END' "the session ran to its end"
# First call: through the lazy resolver (or the PLT when bound at start).
r1=$(sed -n '/^R1/{n;p}' "$out")
[[ "$r1" =~ \<(_dl_runtime_resolve[a-z_]*\+[0-9]+|write@plt)\>:[[:space:]]+jmp ]] \
  || { cat "$out"; die "first write: reverse-stepi landed at $r1"; }
m1=$(sed -n '/^M1/{n;p}' "$out")
s1=$(sed -n '/^S1/{n;p}' "$out")
[[ "$m1" == "Current moment: "* && "$m1" == "$s1" ]] || { cat "$out"; die "stepi after reverse-stepi: '$s1', was '$m1'"; }
# reverse-next from the entry: GDB steps back to the resolver's entry, then
# once more (its previous instruction is PLT0's jump, the return address
# two words under the stack's top), and on to gzip's call of write@plt.
n1=$(sed -n '/^N1/{n;p}' "$out")
[[ "$n1" =~ :[[:space:]]+call[[:space:]].*\<write@plt\> ]] || { cat "$out"; die "reverse-next from the first write: at $n1"; }
# Second call: the PLT's jump through the bound GOT entry.
r2=$(sed -n '/^R2/{n;p}' "$out")
[[ "$r2" =~ \<write@plt\>:[[:space:]]+jmp[[:space:]]+\*0x ]] || { cat "$out"; die "second write: reverse-stepi landed at $r2"; }
echo "test_replay_gdb_entry_via_plt: first call from '$r1', second from '$r2': OK"
