# Shared opening of test_crash_*.sh (sourced, not a test): the replay_gdb
# helpers, crash_uaf's marked lines, and its recording in $rec (record's
# stderr in $WORK/rec.err); record must exit 139, as the program dies of SIGSEGV.
. "$(dirname "${BASH_SOURCE[0]}")/replay_gdb_lib.sh"
prog=$PROGRAMS/crash_uaf
src=$FIXTURE_SRC/crash_uaf.c
crash_line=$(line_of CRASH "$src")
smash_line=$(line_of SMASH "$src")
rec=$WORK/uaf.rec
"$SLSDBG" record -o "$rec" -- "$prog" >"$WORK/rec.out" 2>"$WORK/rec.err"
rc=$?
[ "$rc" -eq 139 ] || { cat "$WORK/rec.err"; die "record should exit as the program did (139), got $rc"; }
