#!/usr/bin/env bash
# Checks recording a program that starts child processes, as the process
# record started sees them (each child is recorded too, in REC/members/:
# test_record_members.sh checks those): a fork whose child writes into a pipe, posix_spawn and
# system() (clone(CLONE_VM|CLONE_VFORK): the child writes into the parent's
# memory before it execs), a shell's command substitution and pipeline, and a
# bash shim that forks subshells and then execs a fixture (as pyenv's shims
# do), and `make -C DIR -j2`. Each: output and exit status as a native run, `info` lists the
# children, `replay --check` OK, and GDB at the end of the recorded process's
# history prints what the children sent (pipe bytes, wait statuses).
. "$(dirname "$0")/replay_gdb_lib.sh"

# rec NAME CMD...: native vs recorded output and exit status, children in
# info, --check OK. Extra record options in $REC_OPTS.
rec() {
  local name=$1 out rc_native rc
  shift
  "$@" >"$WORK/$name.native" 2>&1 </dev/null; rc_native=$?
  "$SLSDBG" record ${REC_OPTS:-} -o "$WORK/$name.rec" -- "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null; rc=$?
  [ "$rc" -eq "$rc_native" ] || { cat "$WORK/$name.err"; die "$name: exit $rc recorded, $rc_native natively"; }
  cmp -s "$WORK/$name.native" "$WORK/$name.out" ||
    die "$name: output differs: $(cat "$WORK/$name.out") vs native $(cat "$WORK/$name.native")"
  grep -q "recorded [0-9]* child process" "$WORK/$name.err" || die "$name: record does not say children were recorded: $(cat "$WORK/$name.err")"
  "$SLSDBG" info "$WORK/$name.rec" >"$WORK/$name.info" 2>&1 || die "$name: info failed"
  expect "$WORK/$name.info" '^children +[1-9][0-9]*: [0-9]+' "$name: info lists the children"
  out=$(timeout 300 "$SLSDBG" replay "$WORK/$name.rec" --check 2>&1 </dev/null) || die "$name: --check: $out"
  grep -q '^OK' <<<"$out" || die "$name: --check does not say OK: $out"
  echo "$name: $(grep children "$WORK/$name.info") / $out"
}

# (a) fork + pipe + waitpid, recorded with --verify (each checkpoint's image
# compared with the live process: the fork must not hide the parent's writes).
REC_OPTS=--verify rec pipe "$PROGRAMS/child_pipe"
expect "$WORK/pipe.out" "^read 'child says 42', child exit 7$" "pipe: the parent read the child's bytes"
replay_gdb "$WORK/pipe.rec" "$WORK/pipe.gdb" -ex 'continue' -ex 'print got' -ex 'print child_status'
expect "$WORK/pipe.gdb" 'the end of the recording' "pipe: GDB reaches the end of history"
expect "$WORK/pipe.gdb" '^\$1 = "child says 42"' "pipe: GDB prints the bytes the child sent"
expect "$WORK/pipe.gdb" '^\$2 = 1792$' "pipe: GDB prints the wait status (exit 7)"

# (b) posix_spawn and system(): vfork-style children, a checkpoint after each.
rec spawn "$PROGRAMS/child_spawn"
expect "$WORK/spawn.info" '^children +2:' "spawn: two children"
replay_gdb "$WORK/spawn.rec" "$WORK/spawn.gdb" -ex 'continue' -ex 'print spawn_status' -ex 'print system_status'
expect "$WORK/spawn.gdb" '^\$1 = 1280$' "spawn: GDB prints posix_spawn's child status (exit 5)"
expect "$WORK/spawn.gdb" '^\$2 = 768$' "spawn: GDB prints system()'s status (exit 3)"

# (c) a shell: command substitution, a pipeline, a child that execs a
# program reading the clock through the vDSO (rdtsc must work in children),
# then exec.
rec subst /bin/sh -c 'x=$(echo hi); echo $x; echo a b | wc -w; date +%s >/dev/null || echo date failed; exec /bin/true'
cat >"$WORK/shim" <<SH
#!/bin/bash
# Like a version manager's shim: subshells to find the version, then exec.
version=\$(echo "3.11.2" | cut -d. -f1,2)
dir=\$(dirname "\$0")
[ -n "\$version" ] && [ -d "\$dir" ] || exit 9
exec "$PROGRAMS/child_pipe"
SH
chmod +x "$WORK/shim"
rec shim "$WORK/shim"
# GDB starts at the last checkpoint (after the exec: child_pipe's symbols).
last=$(( $("$SLSDBG" info "$WORK/shim.rec" --json | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]))') - 1 ))
timeout 300 "$SLSDBG" replay "$WORK/shim.rec" --at "$last" -- -nx -batch -ex 'set pagination off' -ex 'continue' \
  -ex 'print got' -ex 'print child_status' >"$WORK/shim.gdb" 2>&1 </dev/null || { cat "$WORK/shim.gdb"; die "shim: replay failed"; }
expect "$WORK/shim.gdb" '^\$1 = "child says 42"' "shim: GDB after the exec prints the bytes the child sent"
expect "$WORK/shim.gdb" '^\$2 = 1792$' "shim: GDB prints the wait status"

# (d) make -C DIR -j2: make changes directory, then opens "Makefile" by a
# relative path (replay must follow the chdir); its recipes are children.
mkdir -p "$WORK/mk"
printf 'all: a b\na:\n\techo a > a\nb:\n\techo b > b\n' >"$WORK/mk/Makefile"
cd "$WORK" || die "cd $WORK"
rec make make -C mk -B -j2  # not in a subshell: its die must end the test
cd - >/dev/null || die "cd back"
[ "$(cat "$WORK/mk/a" "$WORK/mk/b")" = "$(printf 'a\nb')" ] || die "make: the recipes did not run"

# ls mentions them too.
"$SLSDBG" ls "$WORK" >"$WORK/ls.txt" 2>&1 || die "ls failed"
expect "$WORK/ls.txt" '^spawn\.rec .*children 2 \(recorded\)' "ls shows the children"
# It reads the count the recorder stored, not every segment's events.
mkdir "$WORK/nolog" && cp -a "$WORK/spawn.rec" "$WORK/nolog/spawn.rec" && rm "$WORK/nolog/spawn.rec"/events/*.log
"$SLSDBG" ls "$WORK/nolog" >"$WORK/ls-nolog.txt" 2>&1 || die "ls without event logs failed: $(cat "$WORK/ls-nolog.txt")"
expect "$WORK/ls-nolog.txt" '^spawn\.rec .*children 2 \(recorded\)' "ls takes the children count from the catalog"
echo "record_children: OK"
