#!/usr/bin/env bash
# Checks that recording follows execve: a shell script that execs cat, and a
# python3 shim (a sh script that execs the interpreter, as version managers
# install): output identical to a native run, an "exec" checkpoint in
# `slsdbg info`, and `replay --check` OK (the exec checkpoint is reached by
# restore).
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record_exec.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
PY=/usr/bin/python3  # Debian's interpreter, not a shim
[ -x "$PY" ] || fail "no /usr/bin/python3"

printf 'hello from cat\n' >"$tmp/msg.txt"
cat >"$tmp/script.sh" <<SH
#!/bin/sh
echo "before exec"
exec /bin/cat "$tmp/msg.txt"
SH
cat >"$tmp/python3" <<SH
#!/bin/sh
exec "$PY" "\$@"
SH
chmod +x "$tmp/script.sh" "$tmp/python3"

run() {  # run NAME CMD...: native vs recorded output, exec checkpoint, --check
  local name=$1 out rc
  shift
  "$@" >"$tmp/$name.native" 2>&1 || fail "$name natively"
  "$SLSDBG" record -o "$tmp/$name.rec" -- "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
    fail "$name: record failed: $(cat "$tmp/$name.err")"
  cmp -s "$tmp/$name.native" "$tmp/$name.out" || fail "$name: output differs: $(cat "$tmp/$name.out")"
  out=$("$SLSDBG" info "$tmp/$name.rec" 2>&1)
  grep -qE '^ +[0-9]+ .* exec +[0-9]+' <<<"$out" || fail "$name: no exec checkpoint in info: $out"
  out=$(timeout 300 "$SLSDBG" replay "$tmp/$name.rec" --check 2>&1 </dev/null); rc=$?
  [ "$rc" -eq 0 ] || fail "$name: --check exit $rc: $out"
  echo "$name: $out"
}
run script "$tmp/script.sh"
run shim "$tmp/python3" -c 'import json; print(json.dumps({"sum": sum(range(1000))}))'
echo "record_exec: OK"
