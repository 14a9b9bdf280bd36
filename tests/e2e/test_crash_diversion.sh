#!/usr/bin/env bash
# Diversions: at a rewound moment GDB's inferior call (`print square(3)`) and
# a memory write run in a forked copy of the replayed process; history is
# untouched, so a reverse watchpoint afterwards still stops at the exact
# writing line with the recorded values.
. "$(dirname "$0")/crash_uaf_lib.sh"
out=$WORK/gdb.out
replay_gdb "$rec" "$out" \
  -ex "break crash_uaf.c:$crash_line" \
  -ex 'continue' \
  -ex 'print square(3)' \
  -ex 'print ptr->value = 99' \
  -ex 'print ptr->value' \
  -ex 'monitor when' \
  -ex 'watch -l ptr->next' \
  -ex 'reverse-continue' \
  -ex 'print ptr->value' \
  -ex 'print square(4)' \
  -ex 'reverse-stepi' \
  -ex 'continue'
expect "$out" "^Breakpoint 1, main \(.*\) at .*crash_uaf\.c:$crash_line" "continue stops before the crash"
expect "$out" '^\$1 = 9$' "print square(3) runs in a diversion"
expect "$out" '^\$2 = 99$' "a memory write in the diversion"
expect "$out" '^\$3 = 99$' "the diversion keeps its write"
expect "$out" '^In a diversion' "monitor when says so"
expect "$out" '^Old value = \(struct node \*\) 0x10$' "reverse watchpoint after the diversion: recorded old value"
expect "$out" "^$smash_line[[:space:]].*SMASH" "reverse-continue is still exact (the smashing line)"
expect "$out" '^\$4 = 7$' "history is untouched by the diversion's write"
expect "$out" '^\$5 = 16$' "a second inferior call at the rewound moment"
expect "$out" '^New value = \(struct node \*\) 0x10$' "forward again from there: the recorded write"
echo "crash_diversion: OK"
