#!/usr/bin/env bash
# `catch syscall` on a call made through the syscall buffer's stub (a patched
# glibc site): GDB is shown the call at glibc's site, not inside the stub's
# page where it has no symbol and no unwind info. At the entry the frame is
# libc's write with a backtrace through stdio, the length in rdx; at
# the return rax holds the recorded result and pc is past the site; reverse
# continue comes back to the same return and entry. Real program: echo.
# With threads (the threaded timeline stops in the stub and shows the
# thread's registers at the site: pc after glibc's `syscall`, as a live
# session does): the same frames and values, and reverse-stepi from the
# caught call lands on the site in write, not in the stub.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/echo.rec
"$SLSDBG" record -o "$rec" -- /bin/echo hello-stub >"$WORK/echo.txt" 2>"$WORK/rec.err" || { cat "$WORK/rec.err"; die "recording echo failed"; }
grep -q "syscall buffer: [1-9][0-9]* syscalls buffered" "$WORK/rec.err" || { cat "$WORK/rec.err"; die "nothing went through the buffer"; }

out=$WORK/write.out
replay_gdb "$rec" "$out" -ex 'catch syscall write' \
  -ex 'continue' -ex 'echo ---entry\n' -ex 'bt 3' -ex 'print $rdx' -ex 'print/x $pc' \
  -ex 'continue' -ex 'echo ---return\n' -ex 'bt 1' -ex 'print $rax' -ex 'print/x $pc' \
  -ex 'reverse-continue' -ex 'echo ---back\n' -ex 'print $rdx' -ex 'print/x $pc'
sed -n '/^---entry/,/^---return/p' "$out" >"$WORK/entry.out"
sed -n '/^---return/,$p' "$out" >"$WORK/return.out"
expect "$out" '^Catchpoint 1 \(call to syscall write\), 0x[0-9a-f]+ in [_A-Za-z]*write' "the entry is shown in libc's write"
expect "$WORK/entry.out" '^#0 .*write' "frame 0 is write"
expect "$WORK/entry.out" '^#1 .* in _IO_[a-z_]*write ' "frame 1 is stdio's (echo is stripped: its own frames have no names)"
if grep -q '^#[0-9]* *0x[0-9a-f]* in ?? ()' "$WORK/entry.out"; then cat "$out"; die "a frame without a symbol at the entry"; fi
expect "$WORK/entry.out" '^\$1 = 11$' "the length argument at the entry"
entry_pc=$(sed -n 's/^\$2 = \(0x[0-9a-f]*\)$/\1/p' "$WORK/entry.out")
expect "$out" '^Catchpoint 1 \(returned from syscall write\), 0x[0-9a-f]+ in [_A-Za-z]*write' "the return is shown in libc's write"
expect "$WORK/return.out" '^\$3 = 11$' "the recorded result at the return"
return_pc=$(sed -n 's/^\$4 = \(0x[0-9a-f]*\)$/\1/p' "$WORK/return.out")
delta=$((return_pc - entry_pc))
[ "$delta" -eq 7 ] || [ "$delta" -eq 8 ] || { cat "$out"; die "the return ($return_pc) is not right after the site ($entry_pc)"; }
expect "$WORK/return.out" '^\$5 = 11$' "reverse-continue: back at the entry, the length"
expect "$WORK/return.out" "^\\\$6 = $entry_pc\$" "reverse-continue: at the same site"
rec=$WORK/thr.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/thr_tight_loop" >"$WORK/thr.txt" 2>"$WORK/rec2.err" || { cat "$WORK/rec2.err"; die "recording thr_tight_loop failed"; }
grep -q 'ran 2 threads' "$WORK/rec2.err" || { cat "$WORK/rec2.err"; die "thr_tight_loop did not record as threaded"; }
grep -q "[1-9][0-9]* glibc sites patched" "$WORK/rec2.err" || { cat "$WORK/rec2.err"; die "no glibc site was patched"; }
len=$(wc -c <"$WORK/thr.txt")
out=$WORK/thr.out
replay_gdb "$rec" "$out" -ex 'catch syscall write' \
  -ex 'continue' -ex 'echo ---entry\n' -ex 'bt 3' -ex 'print $rdx' -ex 'print/x $pc' \
  -ex 'reverse-stepi' -ex 'echo ---site\n' -ex 'print/x $pc' -ex 'bt 1' -ex 'print $rax' \
  -ex 'reverse-stepi' -ex 'echo ---before\n' -ex 'print/x $pc' -ex 'bt 1' \
  -ex 'continue' -ex 'echo ---again\n' -ex 'print $rdx' -ex 'print/x $pc' \
  -ex 'continue' -ex 'echo ---return\n' -ex 'bt 3' -ex 'print $rax'
sed -n '/^---entry/,/^---site/p' "$out" >"$WORK/thr_entry.out"
sed -n '/^---site/,/^---before/p' "$out" >"$WORK/thr_site.out"
sed -n '/^---before/,/^---again/p' "$out" >"$WORK/thr_before.out"
sed -n '/^---again/,/^---return/p' "$out" >"$WORK/thr_again.out"
sed -n '/^---return/,$p' "$out" >"$WORK/thr_return.out"
for part in entry return; do
  expect "$WORK/thr_$part.out" '^#0 .*write' "threads, $part: frame 0 is write"
  expect "$WORK/thr_$part.out" '_IO_[a-z_]*write ' "threads, $part: stdio's frame above it"
  if grep -q '^#[0-9]* *0x[0-9a-f]* in ?? ()' "$WORK/thr_$part.out"; then cat "$out"; die "threads, $part: a frame without a symbol"; fi
done
expect "$WORK/thr_entry.out" "^\\\$1 = $len\$" "threads: the length at the entry"
# A reverse step from the caught call lands on the patched site in write
# (the call's instruction, 2 bytes before the entry's pc, not run yet: rax
# still holds write's number), not in the syscall buffer's stub; one more
# goes before it; continue comes back to the same entry.
thr_entry_pc=$(sed -n 's/^\$2 = \(0x[0-9a-f]*\)$/\1/p' "$WORK/thr_entry.out")
site=$(printf '0x%x' $((thr_entry_pc - 2)))
expect "$WORK/thr_site.out" "^\\\$3 = $site\$" "threads: reverse-stepi from the entry is at the site ($site)"
expect "$WORK/thr_site.out" '^#0 .*write' "threads: at the site, frame 0 is write"
expect "$WORK/thr_site.out" '^\$4 = 1$' "threads: at the site, rax is write's number (the call has not run)"
before_pc=$(sed -n 's/^\$5 = \(0x[0-9a-f]*\)$/\1/p' "$WORK/thr_before.out")
[ -n "$before_pc" ] && [ $((before_pc)) -lt $((site)) ] || { cat "$out"; die "threads: a second reverse-stepi did not go before the site"; }
expect "$WORK/thr_before.out" '^#0 .*write' "threads: before the site, frame 0 is write"
expect "$WORK/thr_again.out" "^\\\$6 = $len\$" "threads: continue comes back to the entry, the length"
expect "$WORK/thr_again.out" "^\\\$7 = $thr_entry_pc\$" "threads: continue comes back to the entry's pc"
expect "$WORK/thr_return.out" "^\\\$8 = $len\$" "threads: the result at the return"
# A call at a site that was not patched (thr_catch's first write traps):
# from its return, reverse-stepi lands on its `syscall`, rax its number.
rec=$WORK/catch.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/thr_catch" >/dev/null 2>"$WORK/rec3.err" || { cat "$WORK/rec3.err"; die "recording thr_catch failed"; }
out=$WORK/catch.out
replay_gdb "$rec" "$out" -ex 'catch syscall write' -ex 'continue' -ex 'continue' -ex 'echo ---return\n' \
  -ex 'print/x $pc' -ex 'print $rax' -ex 'reverse-stepi' -ex 'echo ---back\n' -ex 'print/x $pc' -ex 'print $rax' -ex 'x/i $pc'
ret_pc=$(sed -n 's/^\$1 = \(0x[0-9a-f]*\)$/\1/p' "$out")
expect "$out" '^\$2 = 11$' "thr_catch: the first write's result at its return"
expect "$out" "^\\\$3 = $(printf '0x%x' $((ret_pc - 2)))\$" "thr_catch: reverse-stepi from the return is at the call's instruction"
expect "$out" '^\$4 = 1$' "thr_catch: there rax is write's number"
# A thread that computes 3*10^7 instructions (no system call) before its
# write (thr_catch_far): the call's instruction is found as the thread's
# arrival at the call's site, not by single steps from its last resume
# (which gave up after 2*10^6 of them, ~60 s).
rec=$WORK/far.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/thr_catch_far" >/dev/null 2>"$WORK/rec4.err" || { cat "$WORK/rec4.err"; die "recording thr_catch_far failed"; }
out=$WORK/far.out
SECONDS=0
replay_gdb "$rec" "$out" -ex 'catch syscall write' -ex 'continue' -ex 'echo ---entry\n' -ex 'print/x $pc' \
  -ex 'reverse-stepi' -ex 'echo ---site\n' -ex 'print/x $pc' -ex 'print $rax' -ex 'bt 1'
took=$SECONDS
far_entry=$(sed -n 's/^\$1 = \(0x[0-9a-f]*\)$/\1/p' "$out")
if grep -q 'more than [0-9]* instructions' "$out"; then cat "$out"; die "thr_catch_far: the reverse step single-stepped from the thread's resume"; fi
expect "$out" "^\\\$2 = $(printf '0x%x' $((far_entry - 2)))\$" "thr_catch_far: reverse-stepi from the entry is at the call's site"
expect "$out" '^\$3 = 1$' "thr_catch_far: rax is write's number there"
expect "$out" '^#0 .*write' "thr_catch_far: frame 0 is write"
echo "replay_gdb_catch_stub_site: OK (thr_catch_far's reverse step in ${took} s)"
