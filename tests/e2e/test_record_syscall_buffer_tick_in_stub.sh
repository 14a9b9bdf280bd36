#!/usr/bin/env bash
# Checks that a tick landing inside the syscall buffer's stub leaves it in a
# few stops (syscallbuf_run_out.h: hardware breakpoints on the stub's
# trapped `syscall` and its `ret`s, then one step) rather than ~32 single
# steps, and that the recording stays exact. `wc -l` spends most of its
# time in buffered reads of its 16 MiB input, so at a 1 ms interval most
# ticks interrupt a read, which stops the program right after the stub's
# fast `syscall`. stdout equals native, and `replay --check` says OK.
source "$(dirname "$0")/record_lib.sh"
"$PY" -c 'import sys
sys.stdout.write("".join(f"{i} alpha beta {i * 7919 % 100003} gamma delta epsilon\n" for i in range(400000)))' \
  >"$WORK/text"
wc -l "$WORK/text" >"$WORK/native" || die "native run failed"
SLSDBG_LOG=debug timeout 120 "$SLSDBG" record -o "$WORK/rec" --interval 1 -- wc -l "$WORK/text" \
  >"$WORK/rec.out" 2>"$WORK/rec.err" </dev/null || die "record: $(tail -3 "$WORK/rec.err")"
cmp -s "$WORK/native" "$WORK/rec.out" || die "stdout differs from native: $(cat "$WORK/rec.out")"
left=$(grep -c "left the stub in" "$WORK/rec.err")
[ "$left" -ge 1 ] || die "no tick landed in the stub"
most=$(sed -n 's/.*left the stub in \([0-9]*\) stops.*/\1/p' "$WORK/rec.err" | sort -n | tail -1)
[ "$most" -le 4 ] || die "a tick took $most stops to leave the stub (want <= 4)"
out=$(timeout 300 "$SLSDBG" replay "$WORK/rec" --check 2>&1 </dev/null) || die "replay --check: $out"
[[ "$out" == OK:* ]] || die "replay --check: $out"
echo "$left ticks left the stub in at most $most stops; $(head -1 <<<"$out")"
echo "test_record_syscall_buffer_tick_in_stub: OK"
