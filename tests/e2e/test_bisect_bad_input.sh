#!/usr/bin/env bash
# Checks that each kind of bad input to `slsdbg bisect` is a one-line error
# naming the problem with a nonzero exit: no recording / not a recording, no
# invariant, two invariants, a bad expression, a library's symbol before
# the library is mapped (a hint: a later --good), a missing plugin, a plugin of
# the wrong ABI version, a plugin without a check function, a plugin refusing
# its argument, a command that cannot run, unknown checkpoints, --good after
# --bad, bad numbers, unknown options; and Ctrl-C (SIGINT) ends it with exit
# 130, leaving none of its cores behind.
source "$(dirname "$0")/bisect_lib.sh"
TRANSFERS=300000 MIN_CHECKPOINTS=3 record_bank
E='bank.acct.checking + bank.acct.savings == total_expected'

one_line_error "no recording given" "missing recording directory" "$SLSDBG" bisect --expr "$E"
one_line_error "missing recording" "$WORK/nope" "$SLSDBG" bisect "$WORK/nope" --expr "$E"
mkdir "$WORK/empty"
one_line_error "not a recording" "not a recording" "$SLSDBG" bisect "$WORK/empty" --expr "$E"
one_line_error "no mode" "one of --expr, --plugin, --cmd" "$SLSDBG" bisect "$REC"
one_line_error "two modes" "only one of --expr, --plugin, --cmd" "$SLSDBG" bisect "$REC" --expr "$E" --cmd true
one_line_error "bad expression" 'No symbol "no_such_global"' "$SLSDBG" bisect "$REC" --expr 'no_such_global > 1'
# A libc symbol at the default --good 0 (only ld.so mapped; the middle
# probe is bad, so the good end is checked): a hint.
one_line_error "library symbol before libc is mapped" "a library's symbols need --good at a later checkpoint" \
  "$SLSDBG" bisect "$REC" --expr '(long)&_nl_global_locale == 0'
one_line_error "expression not a truth value" "Invalid type combination" "$SLSDBG" bisect "$REC" --expr 'bank'
one_line_error "empty expression" "--expr is empty" "$SLSDBG" bisect "$REC" --expr ''
one_line_error "missing plugin" "$WORK/none.so: No such file" "$SLSDBG" bisect "$REC" --plugin "$WORK/none.so"
echo "not a library" >"$WORK/fake.so"
one_line_error "not a shared library" "fake.so" "$SLSDBG" bisect "$REC" --plugin "$WORK/fake.so"
one_line_error "wrong ABI version" "built for plugin ABI version 1001, this slsdbg speaks version 1" \
  "$SLSDBG" bisect "$REC" --plugin "$PLUGINS/testing/libslsdbg_plugin_wrong_abi.so"
one_line_error "no check function" "no slsdbg_plugin_check" \
  "$SLSDBG" bisect "$REC" --plugin "$PLUGINS/testing/libslsdbg_plugin_no_check.so"
one_line_error "plugin refuses its argument" "--plugin-arg must be REG:LO:HI" \
  "$SLSDBG" bisect "$REC" --plugin "$PLUGINS/examples/libslsdbg_register_range.so" --plugin-arg nonsense
one_line_error "plugin-arg without plugin" "--plugin-arg needs --plugin" "$SLSDBG" bisect "$REC" --expr "$E" --plugin-arg x
one_line_error "command not found" "could not run (exit 127)" "$SLSDBG" bisect "$REC" --cmd "$WORK/no-such-command"
one_line_error "command cannot tell" "cannot tell (exit 125)" "$SLSDBG" bisect "$REC" --cmd "exit 125"
one_line_error "unknown --good" "--good 99999: no such checkpoint" "$SLSDBG" bisect "$REC" --expr "$E" --good 99999
one_line_error "--good after --bad" "--good must be a checkpoint before --bad" "$SLSDBG" bisect "$REC" --expr "$E" --good 5 --bad 2
one_line_error "bad number" "--bad: needs a number, got 'x'" "$SLSDBG" bisect "$REC" --expr "$E" --bad x
one_line_error "unknown option" "unknown option '--frob'" "$SLSDBG" bisect "$REC" --expr "$E" --frob
# SIGINT while a probe's command runs: exit 130, the scratch directory is gone.
mkdir "$WORK/tmp"
TMPDIR="$WORK/tmp" "$SLSDBG" bisect "$REC" --cmd "touch $WORK/started; sleep 1; exit 0" >/dev/null 2>"$WORK/int.err" &
pid=$!
for _ in $(seq 600); do [ -e "$WORK/started" ] && break; sleep 0.1; done
[ -e "$WORK/started" ] || fail "the first probe never ran"
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, want 130 ($(cat "$WORK/int.err"))"
grep -q "interrupted" "$WORK/int.err" || fail "SIGINT: $(cat "$WORK/int.err")"
[ -z "$(ls -A "$WORK/tmp")" ] || fail "SIGINT left $(ls "$WORK/tmp") behind"
echo "bisect bad input: OK"
