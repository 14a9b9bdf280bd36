#!/usr/bin/env bash
# Checks that bad input to `slsdbg replay` is a one-line error naming the
# problem with a nonzero exit: no recording (and none recorded), not a recording, unknown option,
# two recordings, no mode; and that --help says what is not done yet.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_bad.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
expect_error() {  # expect_error WANT_SUBSTRING ARGS...
  local want=$1; shift
  local err rc
  err=$("$SLSDBG" replay "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -ne 0 ] || { echo "replay $*: exit 0"; exit 1; }
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "replay $*: not one line: $err"; exit 1; }
  [[ "$err" == *"$want"* ]] || { echo "replay $*: '$err' does not say '$want'"; exit 1; }
}
# No recording given means the latest; with none recorded that is an error.
SLSDBG_DIR="$tmp" expect_error "latest" --check
expect_error "not a recording" "$tmp" --check
expect_error "unknown option '--frob'" "$tmp" --frob
expect_error "unexpected argument 'b'" a b --check
expect_error "not a recording" "$tmp"
help=$("$SLSDBG" replay --help)
[[ "$help" == *"--check"* && "$help" == *"Not yet:"* ]] || { echo "--help lacks --check or 'Not yet:': $help"; exit 1; }
echo "replay_bad_input: OK"
