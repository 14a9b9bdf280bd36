#!/usr/bin/env bash
# A checkpoint taken while a call through the syscall buffer's stub blocks
# (cat reading a pipe that stays empty for a while) stands at the stub's
# trapped `syscall`, where there are no symbols and no unwind info:
# `slsdbg backtrace` printed one frame `0x70002043 in ??` and GDB on the
# core of `slsdbg dump` the same. Both now show the thread at the glibc site
# that called the stub: read, called from cat.
source "$(dirname "$0")/record_lib.sh"
command -v gdb >/dev/null || die "gdb is not installed"
rec=$WORK/cat.rec
(sleep 0.3; echo hello) | "$SLSDBG" record -o "$rec" -- cat >"$WORK/cat.out" 2>"$WORK/cat.err" \
  || { cat "$WORK/cat.err"; die "recording cat failed"; }
[ "$(cat "$WORK/cat.out")" = hello ] || die "cat's recorded output: $(cat "$WORK/cat.out")"
# A tick checkpoint in the middle of the wait.
k=$("$SLSDBG" info "$rec" --json | "$PY" -c 'import json,sys
ticks=[c["id"] for c in json.load(sys.stdin)["checkpoints"] if c["reason"]=="tick"]
print(ticks[len(ticks)//2] if ticks else "")')
[ -n "$k" ] || die "no tick checkpoint while cat waited"
bt=$("$SLSDBG" backtrace "$rec" --at "$k" 2>&1) || { echo "$bt"; die "backtrace at checkpoint $k failed"; }
grep -Eq '^#0 .* in [_a-zA-Z]*read\+' <<<"$bt" || { echo "$bt"; die "backtrace at $k: frame 0 is not read"; }
grep -Eq '^#1 .*\(/usr/bin/cat\)' <<<"$bt" || { echo "$bt"; die "backtrace at $k: frame 1 is not in cat"; }
"$SLSDBG" dump "$rec" --at "$k" -o "$WORK/cat.core" -q || die "dump at checkpoint $k failed"
gbt=$(gdb -nx -batch -ex 'bt' "$(command -v cat)" -c "$WORK/cat.core" 2>&1 | grep '^#')
grep -Eq '^#0 .* in [_a-zA-Z]*read ' <<<"$gbt" || { echo "$gbt"; die "gdb on the core: frame 0 is not read"; }
grep -Eq '^#1 ' <<<"$gbt" || { echo "$gbt"; die "gdb on the core: no caller"; }
echo "test_dump_stub_site: checkpoint $k shown in read, called from cat: OK"
