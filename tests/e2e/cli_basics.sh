#!/usr/bin/env bash
# Checks the front end: --version prints the version, --help lists commands,
# an unknown command is a one-line error with exit status 2.
set -u
out=$("$SLSDBG" --version) || { echo "--version failed"; exit 1; }
[[ "$out" =~ ^slsdbg\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "bad --version: $out"; exit 1; }
"$SLSDBG" --help | grep -q '^commands:' || { echo "--help has no command list"; exit 1; }
err=$("$SLSDBG" frobnicate 2>&1); rc=$?
[ "$rc" -eq 2 ] || { echo "unknown command exit $rc, want 2"; exit 1; }
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "error not one line: $err"; exit 1; }
[[ "$err" == *"unknown command 'frobnicate'"* ]] || { echo "error does not name the command: $err"; exit 1; }
echo "cli_basics: OK"
