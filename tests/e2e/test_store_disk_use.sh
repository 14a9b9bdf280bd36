#!/usr/bin/env bash
# Disk use grows with the recording: extent files are preallocated 256 KiB
# first and doubling from there (store/format.h), and a finished recording
# gives the unwritten tail back, so a recording of a short static fixture
# takes under 2 MiB on disk (`du`), where 16 MiB steps made it at least
# 16 MiB; and it still replays (--check). A dynamically linked crash_uaf
# stores ~2.4 MiB of pages (ld.so's relocations) and must take no more than
# that plus the catalog.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/tiny.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/store_tiny" >/dev/null 2>"$WORK/rec.err" || { cat "$WORK/rec.err"; die "recording store_tiny failed"; }
kib=$(du -sk "$rec" | cut -f1)
echo "store_tiny recording: $kib KiB on disk"
[ "$kib" -lt 2048 ] || { du -ak "$rec"; die "a short recording takes $kib KiB on disk (expected < 2048)"; }
urec=$WORK/uaf.rec
"$SLSDBG" record -o "$urec" -- "$PROGRAMS/crash_uaf" >/dev/null 2>"$WORK/urec.err"
[ $? -eq 139 ] || { cat "$WORK/urec.err"; die "recording crash_uaf failed"; }
ukib=$(du -sk "$urec" | cut -f1)
echo "crash_uaf recording: $ukib KiB on disk"
[ "$ukib" -lt 4096 ] || { du -ak "$urec"; die "crash_uaf's recording takes $ukib KiB on disk (expected < 4096)"; }
"$SLSDBG" replay "$rec" --check >"$WORK/check.out" 2>&1 || { cat "$WORK/check.out"; die "replay --check failed"; }
expect "$WORK/check.out" '^OK: ' "the small recording replays"
echo "store_disk_use: OK"
