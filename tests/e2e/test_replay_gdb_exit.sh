#!/usr/bin/env bash
# Checks the ends of a recording in GDB: a recorded SIGSEGV stops GDB with
# the signal; continuing, the program's death (or its exit by a handler with
# status 3) is announced and reported as the end of history, and the session
# stays alive: registers, a backtrace and reverse execution still work.
. "$(dirname "$0")/replay_gdb_lib.sh"
prog=$PROGRAMS/timeline_fault
rec=$WORK/fault.rec
( "$SLSDBG" record -o "$rec" -- "$prog" ) >/dev/null 2>&1  # dies by SIGSEGV, as recorded
"$SLSDBG" info "$rec" >/dev/null || die "no recording of the faulting program"
out=$WORK/fault.out
replay_gdb "$rec" "$out" -ex 'continue' -ex 'continue' -ex 'bt' -ex 'reverse-stepi' -ex 'info registers rip'
expect "$out" '^Program received signal SIGSEGV, Segmentation fault\.$' "the recorded signal stops GDB"
expect "$out" '^slsdbg: the program was killed by SIGSEGV here: the end of the recording' "the death is announced"
expect "$out" '^No more reverse-execution history\.$' "reported as the end of history"
expect "$out" '^#0  .*tl_fault \(p=0x10\) at .*timeline_fault\.c' "backtrace after the death"
expect "$out" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <tl_fault\+[0-9]+>$' "reverse-stepi after the death"

rec=$WORK/handled.rec
"$SLSDBG" record -o "$rec" -- "$prog" handle >/dev/null 2>&1
[ $? -eq 3 ] || die "the handled fault should exit 3 under the recorder"
out=$WORK/handled.out
replay_gdb "$rec" "$out" -ex 'continue' -ex 'continue' -ex 'reverse-stepi' -ex 'info registers rip'
expect "$out" '^slsdbg: the program exited with status 3 here: the end of the recording' "the exit is announced"
expect "$out" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <(__GI__exit|_exit)\+[0-9]+>$' "reverse-stepi from the exit"
echo "replay_gdb_exit: OK"
