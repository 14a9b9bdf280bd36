#!/usr/bin/env bash
# Checks where recordings go and how they are listed: without -o a recording
# lands in $SLSDBG_DIR as PROGNAME-N with a `latest` link; `ls` lists it (text
# and JSON); `info` accepts a name or path and prints text or one JSON object;
# a directory that is not a recording is a one-line error.
source "$(dirname "$0")/record_lib.sh"
"$SLSDBG" record -- "$PROGRAMS/rec_compute" 1000000 >/dev/null 2>"$WORK/e1" || { cat "$WORK/e1"; die "record failed"; }
"$SLSDBG" record -- "$PROGRAMS/rec_compute" 1000000 >/dev/null 2>"$WORK/e2" || die "second record failed"
[ -d "$SLSDBG_DIR/rec_compute-1" ] && [ -d "$SLSDBG_DIR/rec_compute-2" ] || die "PROGNAME-N directories missing: $(ls "$SLSDBG_DIR")"
grep -q "$SLSDBG_DIR/rec_compute-2" "$WORK/e2" || die "record did not say where the recording went"
[ "$(readlink -f "$SLSDBG_DIR/latest")" = "$(readlink -f "$SLSDBG_DIR/rec_compute-2")" ] || die "latest does not point at the newest"
[ "$(stat -c %a "$SLSDBG_DIR/rec_compute-1")" = 700 ] || die "recording directory not 0700"
"$SLSDBG" ls >"$WORK/ls.txt" || die "ls failed"
grep -q "rec_compute-1" "$WORK/ls.txt" && grep -q "rec_compute-2" "$WORK/ls.txt" || die "ls misses recordings"
"$SLSDBG" ls --json | "$PY" -c 'import json,sys; j=json.load(sys.stdin); assert sorted(r["name"] for r in j)==["rec_compute-1","rec_compute-2"], j; assert all(r["state"]=="finished" for r in j)' \
  || die "ls --json wrong"
"$SLSDBG" info latest >"$WORK/info.txt" || die "info latest failed"
grep -q "tracker" "$WORK/info.txt" && grep -q "checkpoints" "$WORK/info.txt" || die "info text lacks tracker/checkpoints"
"$SLSDBG" info rec_compute-1 --json | "$PY" -c 'import json,sys; j=json.load(sys.stdin); assert j["tracker"] and j["events"]>0 and j["checkpoints"][0]["id"]==0' \
  || die "info --json by name wrong"
mkdir -p "$WORK/notarec"
"$SLSDBG" info "$WORK/notarec" 2>"$WORK/e3"; rc=$?
[ "$rc" -ne 0 ] && [ "$(grep -c . "$WORK/e3")" -eq 1 ] || die "info on a non-recording: rc $rc, $(cat "$WORK/e3")"
"$SLSDBG" info no-such-recording 2>"$WORK/e4"; rc=$?
[ "$rc" -ne 0 ] && grep -q "no-such-recording" "$WORK/e4" || die "info on a missing name: rc $rc"
echo "test_record_ls_info: OK"
