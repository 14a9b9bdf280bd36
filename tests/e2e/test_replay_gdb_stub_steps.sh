#!/usr/bin/env bash
# Reverse steps inside the syscall buffer's stub (a buffered write) land
# where forward steps went, and the stub is decoded as one function
# (code_function.cc): it lies in no module, and a reverse step there used
# to single-step from the segment's last event, ~10^7 instructions of work
# away (gzip: 43 s for one step). From write's 5th call, GDB steps into the
# stub and 12 instructions on, then reverse-steps 12 times.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/stub.rec
record "$rec" 10 "$PROGRAMS/stub_steps" 3000000
script=$WORK/stub.gdb
cat >"$script" <<'GDB'
break write
continue 5
python
fwd = []
for i in range(200):
    pc = int(gdb.parse_and_eval("$pc"))
    if 0x70002000 <= pc < 0x70003000: break
    gdb.execute("stepi", to_string=True)
else:
    raise gdb.GdbError("never entered the stub")
for i in range(12):
    fwd.append(int(gdb.parse_and_eval("$pc")))
    gdb.execute("stepi", to_string=True)
back = []
for i in range(12):
    gdb.execute("reverse-stepi", to_string=True)
    back.append(int(gdb.parse_and_eval("$pc")))
print("FWD", " ".join(hex(p) for p in reversed(fwd)))
print("BACK", " ".join(hex(p) for p in back))
end
GDB
out=$WORK/stub.out
SLSDBG_LOG=debug replay_gdb "$rec" "$out" -x "$script"
fwd=$(grep '^FWD ' "$out" | cut -d' ' -f2-)
back=$(grep '^BACK ' "$out" | cut -d' ' -f2-)
[ -n "$fwd" ] || { cat "$out"; die "no forward trace"; }
[ "$fwd" = "$back" ] || die "reverse steps: $back; forward steps went: $fwd"
if grep -q "no ELF header below 0x7000" "$out"; then die "the stub was not decoded"; fi
echo "replay_gdb_stub_steps: OK ($back)"
