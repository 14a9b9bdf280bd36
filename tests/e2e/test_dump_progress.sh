#!/usr/bin/env bash
# Checks that `slsdbg dump` of a large image shows progress when stderr is a
# terminal (run under script(1) for a pty) and prints none when it is not,
# and that the core written either way is the same size.
set -u
fail() { echo "FAIL: $*"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-dump-progress.XXXXXX")
trap 'rm -rf "$T"' EXIT
# The last checkpoint (at exit) holds the whole 96 MiB heap.
"$SLSDBG" record -o "$T/rec" --interval 60000 -- "$PROGRAMS/dump_bigheap" 96 sleep 0 >/dev/null 2>"$T/record.err" \
  || fail "could not record dump_bigheap: $(cat "$T/record.err")"

tty_out=$(script -qec "'$SLSDBG' dump '$T/rec' --last -o '$T/tty.core'" /dev/null) || fail "dump under a pty failed"
[[ "$tty_out" == *"dump: "*" / "*" MiB"* ]] || fail "no progress on a terminal: $tty_out"
[[ "$tty_out" == *"wrote $T/tty.core"* ]] || fail "no summary on a terminal: $tty_out"

err=$("$SLSDBG" dump "$T/rec" --last -o "$T/pipe.core" 2>&1 >/dev/null) || fail "dump to a pipe failed"
[ -z "$err" ] || fail "progress printed when stderr is not a terminal: $err"
[ "$(stat -c %s "$T/tty.core")" = "$(stat -c %s "$T/pipe.core")" ] || fail "core sizes differ"
cmp -s "$T/tty.core" "$T/pipe.core" || fail "cores differ"
echo "test_dump_progress: OK"
