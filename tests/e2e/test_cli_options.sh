#!/usr/bin/env bash
# One CLI convention for every command: an unknown option and a missing
# required argument are a one-line error naming the problem with exit 2; a
# recording that does not exist is a one-line error with exit 1; --help and
# `slsdbg help CMD` print the same text, which names every option the error
# path knows. Also: a recording we may not read says so (exit 1), not
# "not a recording".
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-options.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export SLSDBG_DIR="$WORK/root"  # empty: `latest` names nothing
failures=0
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

# expect RC WORD CMD...: exit RC and exactly one stderr line "slsdbg: ..." containing WORD.
expect() {
  local want=$1 word=$2; shift 2
  "$SLSDBG" "$@" >"$WORK/out" 2>"$WORK/err"; local rc=$?
  [ "$rc" = "$want" ] || { bad "slsdbg $*: exit $rc, want $want ($(head -c 300 "$WORK/err"))"; return; }
  [ "$(wc -l <"$WORK/err")" = 1 ] || { bad "slsdbg $*: stderr is not one line:"; cat "$WORK/err"; return; }
  grep -q '^slsdbg: ' "$WORK/err" || bad "slsdbg $*: error lacks the 'slsdbg: ' prefix: $(cat "$WORK/err")"
  grep -qF -- "$word" "$WORK/err" || bad "slsdbg $*: error does not name '$word': $(cat "$WORK/err")"
}

R=$WORK/no-such-rec  # a path that does not exist

# Unknown option: exit 2, the option named.
for cmd in record ls info backtrace dump bisect restore replay pack last-write; do
  expect 2 "unknown option '--frobnicate'" "$cmd" --frobnicate
done
expect 2 "unknown option '-Z'" info "$R" -Z
expect 2 "unexpected argument 'b'" info a b

# A missing required argument: exit 2, what is missing named.
expect 2 "no program" record
expect 2 "no program" record --interval 5
expect 2 "missing recording directory REC" info
expect 2 "missing recording directory REC" backtrace --last
expect 2 "missing recording directory REC" dump --last
expect 2 "missing recording directory REC" bisect --expr 1
expect 2 "missing recording directory REC" restore --at 0
expect 2 "missing recording directory REC" pack
expect 2 "missing recording directory REC" last-write
expect 2 "missing ADDR[:LEN] or SYMBOL" last-write "$R"
expect 2 "missing --at" restore "$R"
expect 2 "give exactly one of --at K, --time SECONDS, --last" backtrace "$R"
expect 2 "give exactly one of --at K, --time SECONDS, --last" dump "$R" --at 1 --last
expect 2 "one of --expr, --plugin, --cmd" bisect "$R"
# ls has no required argument; replay's REC defaults to `latest`. An option
# without its value is the same kind of error for both and the rest.
expect 2 "--goto needs a moment" replay "$R" --goto
expect 2 "--at needs a checkpoint id" dump "$R" --at
expect 2 "-o needs a directory" record -o
expect 2 "--repeat needs a positive count" restore "$R" --at 0 --repeat
expect 2 "--core needs a file name" bisect "$R" --expr 1 --core
# Malformed values: exit 2, the option and the value named.
expect 2 "--at: needs a checkpoint id, got '-1'" backtrace "$R" --at -1
expect 2 "--at: needs a checkpoint id, got '010x'" restore "$R" --at 010x
expect 2 "--time: needs seconds" dump "$R" --time soon
expect 2 "--interval" record --interval 0 -- /bin/true
expect 2 "unknown tracker 'nope'" record --tracker nope -- /bin/true
expect 2 "--good: needs a number, got 'x'" bisect "$R" --expr 1 --good x

# A recording that does not exist: exit 1 (a runtime failure), named.
expect 1 "no-such-rec" info "$R"
expect 1 "no-such-rec" backtrace "$R" --last
expect 1 "no-such-rec" dump "$R" --last
expect 1 "no-such-rec" bisect "$R" --cmd true
expect 1 "no-such-rec" restore "$R" --at 0
expect 1 "no-such-rec" replay "$R" --check
expect 1 "no-such-rec" pack "$R"
expect 1 "no-such-rec" last-write "$R" 0x1000
expect 1 "no-such-rec" ls "$R"
expect 1 "no-such-program" record -o "$WORK/r1" -- "$WORK/no-such-program"
expect 1 "latest" replay --check   # none recorded under $SLSDBG_DIR
expect 1 "latest" bisect latest --cmd true

# --help: exit 0, the same text as `slsdbg help CMD`, naming every option
# that the command's own error messages name above.
for cmd in record ls info backtrace dump bisect restore replay pack last-write; do
  h=$("$SLSDBG" "$cmd" --help); rc=$?
  [ "$rc" = 0 ] || bad "$cmd --help: exit $rc"
  [ "$h" = "$("$SLSDBG" help "$cmd")" ] || bad "help $cmd differs from $cmd --help"
  [ "$h" = "$("$SLSDBG" "$cmd" -h)" ] || bad "$cmd -h differs from $cmd --help"
done
for pair in "record:-o --interval --verify --tracker --copy --durable" "ls:--json" "info:--json" \
            "backtrace:--at --time --last --disasm --json" "dump:--at --time --last -o --output --quiet" \
            "bisect:--expr --plugin --plugin-arg --cmd --good --bad --spot-checks --show --core --no-refine --json" \
            "restore:--at --repeat --verify --lazy" \
            "replay:--goto --at --server --allow-remote --check --print-regs --read --json" "last-write:--at --json"; do
  cmd=${pair%%:*}
  h=$("$SLSDBG" help "$cmd")
  for opt in ${pair#*:}; do
    grep -qe "$opt\b" <<<"$h" || bad "$cmd --help does not mention $opt"
  done
done
# --help wins over other mistakes before it, and GDB's own --help after `--` is GDB's.
"$SLSDBG" dump --help >/dev/null || bad "dump --help without REC: not exit 0"
[ "$("$SLSDBG" replay --check --help)" = "$("$SLSDBG" help replay)" ] || bad "replay --check --help"

# A recording that cannot be read for lack of permission says so: exit 1, "Permission denied".
"$SLSDBG" record -o "$WORK/rec" -- /bin/true 2>/dev/null || bad "recording /bin/true failed"
chmod 0700 "$WORK/rec"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chmod 0755 "$WORK"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$SLSDBG" info "$WORK/rec" >/dev/null 2>"$WORK/err"; rc=$?
  [ "$rc" = 1 ] || bad "unreadable recording: exit $rc, want 1 ($(cat "$WORK/err"))"
  grep -qi "permission denied" "$WORK/err" || bad "unreadable recording: error does not say so: $(cat "$WORK/err")"
  grep -q "not a recording" "$WORK/err" && bad "unreadable recording reported as not a recording: $(cat "$WORK/err")"
else
  echo "SKIP the permission case: needs root and setpriv to run as another user"
fi

# --durable: the store syncs everything at the end (its debug log says so);
# without it the end is left to the kernel's writeback. Both replay.
for mode in plain durable; do
  flag=(); [ "$mode" = durable ] && flag=(--durable)
  SLSDBG_LOG=debug "$SLSDBG" record "${flag[@]}" -o "$WORK/$mode" -- /bin/true 2>"$WORK/$mode.err" || bad "record ${flag[*]}: $(tail -1 "$WORK/$mode.err")"
  "$SLSDBG" replay --check "$WORK/$mode" >/dev/null 2>&1 || bad "record ${flag[*]}: replay --check failed"
done
grep -q "finish: sync" "$WORK/durable.err" || bad "record --durable: the end was not synced: $(grep finish: "$WORK/durable.err")"
grep -q "finish: not synced" "$WORK/plain.err" || bad "record: the end was synced without --durable: $(grep finish: "$WORK/plain.err")"

[ "$failures" = 0 ] || { echo "cli_options: $failures failures"; exit 1; }
echo "cli_options: OK"
