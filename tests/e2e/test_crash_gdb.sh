#!/usr/bin/env bash
# The crash is a moment: a use-after-free that dies of SIGSEGV ends its
# recording with a "crash" checkpoint at the faulting instruction. record
# names the signal and the line; backtrace --last and dump --last are that
# moment (the core shows the frame, `p *ptr`, SIGSEGV with its siginfo and no
# XSAVE warning); in GDB `continue` reaches the SIGSEGV, $_siginfo has the
# fault address, `monitor dump` writes a core of the moment with its
# libraries, and a reverse watchpoint on the smashed field stops at the
# writing line; `info proc mappings` lists the moment's map with libc.
. "$(dirname "$0")/crash_uaf_lib.sh"
expect "$WORK/rec.err" "^slsdbg: the program was killed by SIGSEGV \(SEGV_MAPERR, address 0x10\) at 0x[0-9a-f]+ in main\+0x[0-9a-f]+ at .*crash_uaf\.c:$crash_line " \
  "record names the signal, the address and the line"

"$SLSDBG" info "$rec" --json | "$PY" -c 'import json,sys; c=json.load(sys.stdin)["checkpoints"]; sys.exit(c[-1]["reason"] != "crash")' \
  || die "the last checkpoint is not a crash checkpoint"
"$SLSDBG" backtrace "$rec" --last >"$WORK/bt.out" 2>&1 || { cat "$WORK/bt.out"; die "backtrace --last failed"; }
expect "$WORK/bt.out" "^#0  0x[0-9a-f]+ in main\+0x[0-9a-f]+ at .*crash_uaf\.c:$crash_line " "backtrace --last is the crash"

core=$WORK/last.core
"$SLSDBG" dump "$rec" --last -o "$core" >/dev/null 2>&1 || die "dump --last failed"
gdb -nx -batch -ex 'bt 1' -ex 'print *ptr' -ex 'print $_siginfo.si_signo' -ex 'info registers rip' "$prog" "$core" \
  >"$WORK/core.out" 2>&1
expect "$WORK/core.out" '^Program terminated with signal SIGSEGV, Segmentation fault\.$' "the core holds SIGSEGV"
expect "$WORK/core.out" "^#0  (0x[0-9a-f]+ in )?main \(.*\) at .*crash_uaf\.c:$crash_line" "the core's frame is the faulting line"
expect "$WORK/core.out" '^\$1 = \{value = 7, next = 0x10\}$' "p *ptr in the core shows the smashed node"
expect "$WORK/core.out" '^\$2 = 11$' "the core's NT_SIGINFO is SIGSEGV's"
if grep -q 'too small\|warning' "$WORK/core.out"; then cat "$WORK/core.out"; die "GDB warns on the core"; fi

mcore=$WORK/moment.core
out=$WORK/gdb.out
replay_gdb "$rec" "$out" \
  -ex 'continue' \
  -ex 'print $_siginfo._sifields._sigfault.si_addr' \
  -ex 'print $_siginfo.si_signo' \
  -ex 'info proc mappings' \
  -ex 'info record' \
  -ex "monitor dump $mcore" \
  -ex 'monitor goto 99999' \
  -ex 'watch -l ptr->next' \
  -ex 'reverse-continue' \
  -ex 'print reuse[1]'
expect "$out" '^Program received signal SIGSEGV, Segmentation fault\.$' "continue reaches the SIGSEGV"
expect "$out" "^$crash_line[[:space:]].*CRASH" "GDB shows the faulting line"
expect "$out" '^\$1 = \(void \*\) 0x10$' "\$_siginfo has the fault address"
expect "$out" '^\$2 = 11$' "\$_siginfo has the signal"
expect "$out" '^ +0x[0-9a-f]+ +0x[0-9a-f]+ +0x[0-9a-f]+ +0x[0-9a-f]+ .*/libc\.so' "info proc mappings lists libc"
expect "$out" '^Current moment: [0-9]+:0:0x[0-9a-f]+:1 \(checkpoint [0-9]+ of [0-9]+, event [0-9]+\)$' "info record: the crash moment is a checkpoint's"
expect "$out" '^Recorded time: [0-9.]+ ms into the recording, the crash$' "info record: the recorded time"
expect "$out" "^wrote $mcore " "monitor dump at the crash"
expect "$out" '^no checkpoint 99999' "a monitor error prints as text"
if grep -q 'Protocol error with Rcmd' "$out"; then cat "$out"; die "GDB adds a protocol error after a monitor error"; fi
expect "$out" '^Old value = \(struct node \*\) 0x10$' "the watchpoint's old value (after the smash)"
expect "$out" "^$smash_line[[:space:]].*SMASH" "reverse-continue stops at the writing line"

gdb -nx -batch -ex 'bt 1' -ex 'print *ptr' -ex 'info sharedlibrary' "$prog" "$mcore" >"$WORK/mcore.out" 2>&1
expect "$WORK/mcore.out" '^Program terminated with signal SIGSEGV, Segmentation fault\.$' "the moment's core holds SIGSEGV"
expect "$WORK/mcore.out" '^\$1 = \{value = 7, next = 0x10\}$' "p *ptr in the moment's core"
expect "$WORK/mcore.out" 'libc\.so' "the moment's core maps libc"
if grep -q 'too small' "$WORK/mcore.out"; then cat "$WORK/mcore.out"; die "GDB warns on the moment's core"; fi
# A death by abort()'s SIGABRT (held, then delivered) is a crash moment too.
arec=$WORK/abort.rec
"$SLSDBG" record -o "$arec" -- "$prog" abort >/dev/null 2>"$WORK/abort.err"
rc=$?
[ "$rc" -eq 134 ] || { cat "$WORK/abort.err"; die "record of abort() should exit 134, got $rc"; }
expect "$WORK/abort.err" '^slsdbg: the program was killed by SIGABRT \(SI_TKILL\) at 0x[0-9a-f]+ in ' "record names SIGABRT"
"$SLSDBG" backtrace "$arec" --last >"$WORK/abt.out" 2>&1 || { cat "$WORK/abt.out"; die "backtrace --last of the abort"; }
expect "$WORK/abt.out" "in main\+0x[0-9a-f]+ at .*crash_uaf\.c:$(line_of ABORT "$src") " "backtrace --last reaches the abort() call"
"$SLSDBG" dump "$arec" --last -o "$WORK/abort.core" >/dev/null 2>&1 || die "dump --last of the abort"
gdb -nx -batch "$prog" "$WORK/abort.core" >"$WORK/acore.out" 2>&1
expect "$WORK/acore.out" '^Program terminated with signal SIGABRT, Aborted\.$' "the abort's core holds SIGABRT"

# catch syscall: the recorded write, at its entry and its return, then the crash.
out=$WORK/catch.out
replay_gdb "$rec" "$out" -ex 'catch syscall write' -ex 'continue' -ex 'print $rdx' -ex 'continue' -ex 'print $rax' \
  -ex 'continue'
expect "$out" '^Catchpoint 1 \(call to syscall write\)' "catch syscall stops at the entry of write"
expect "$out" '^\$1 = 8$' "at the entry, the length argument"
expect "$out" '^Catchpoint 1 \(returned from syscall write\)' "and at its return"
expect "$out" '^\$2 = 8$' "at the return, the recorded result"
expect "$out" '^Program received signal SIGSEGV' "then the crash"
echo "crash_gdb: OK"
